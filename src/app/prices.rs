//! Batched prices in the window: the portfolio's held style codes and the
//! watchlist's stars are priced through `GET /api/v2/prices`, [`MAX_PRICE_CODES`] codes a
//! request, so a live source with a monthly quota (KicksDB) spends one call per 50 codes
//! instead of a product lookup per holding. The demo answers the same endpoint from its
//! catalogue, so both run this one path.
//!
//! A [`PriceBook`] holds each code's prices (or why it has none) by style code and market, and
//! one batch in flight at a time; a code asked once is not asked again until the user asks for
//! fresh prices. A batch that fails keeps what the earlier ones priced, and the codes it did
//! not price say why.

use std::collections::{HashMap, HashSet};

use super::Requested;
use crate::client::{Client, ClientError};
use crate::model::Country;
use crate::model::portfolio::sku_key;
use crate::model::prices::{CodePrices, MAX_PRICE_CODES, PricesAnswer};
use crate::ui::watchlist::WatchPrice;

/// A style code's prices as the window holds them.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum CodePrice {
    /// In the batch in flight.
    Asked,
    /// Priced, size by size.
    Priced(CodePrices),
    /// Not priced, and why (a sentence for a tooltip).
    Unpriced(String),
}

/// One request of a batch: its market, the codes sent, and the answer.
type Part = (Country, Vec<String>, Result<PricesAnswer, ClientError>);

/// Style codes (dash, space and case ignored) and markets, with their prices.
#[derive(Default)]
pub(super) struct PriceBook {
    entries: HashMap<(String, Country), CodePrice>,
    /// The batch in flight; its parts are taken into `entries` when it lands.
    batch: Requested<Vec<Part>>,
    /// Why the last batch (or a part of it) failed.
    error: Option<ClientError>,
    /// Bumped each time a batch lands, for whoever caches what it computed from the book.
    generation: u64,
}

impl PriceBook {
    /// What is held for `code` in `country`'s market; `None` when it was never asked for.
    pub(super) fn get(&self, code: &str, country: Country) -> Option<&CodePrice> {
        self.entries.get(&(sku_key(code), country))
    }

    /// Whether a batch is in flight.
    pub(super) fn is_pending(&self) -> bool {
        self.batch.is_pending()
    }

    /// Why the last batch failed, if it did.
    pub(super) fn error(&self) -> Option<&ClientError> {
        self.error.as_ref()
    }

    /// Bumped each time a batch lands.
    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    /// Forgets every price (a new connection prices again); a batch in flight is dropped.
    pub(super) fn clear(&mut self) {
        *self = Self::default();
    }

    /// Takes in the batch in flight once it has landed.
    pub(super) fn poll(&mut self) {
        self.batch.poll();
        if self.batch.is_pending() || matches!(self.batch, Requested::NotYetRequested) {
            return;
        }
        let landed = std::mem::take(&mut self.batch);
        self.generation += 1;
        self.error = None;
        let parts = match landed {
            Requested::Completed(parts) => parts,
            Requested::Failed(err) => {
                // The task itself ended without an answer: nothing asked was priced.
                let why = unpriced_because(&err);
                for entry in self.entries.values_mut() {
                    if *entry == CodePrice::Asked {
                        *entry = CodePrice::Unpriced(why.clone());
                    }
                }
                self.error = Some(err);
                return;
            }
            Requested::NotYetRequested | Requested::Pending { .. } => return,
        };
        for (country, codes, answer) in parts {
            match answer {
                Ok(answer) => {
                    for product in answer.products {
                        self.entries
                            .insert((sku_key(&product.sku), country), CodePrice::Priced(product));
                    }
                    for code in &codes {
                        let entry = self.entries.entry((sku_key(code), country));
                        let entry = entry.or_insert(CodePrice::Asked);
                        if *entry == CodePrice::Asked {
                            *entry = CodePrice::Unpriced(format!(
                                "No product with style code {code} was found (or none was \
                                 kept while the source could not answer)."
                            ));
                        }
                    }
                }
                Err(err) => {
                    let why = unpriced_because(&err);
                    for code in &codes {
                        // A price fetched before stays, with its age; the rest say why.
                        let entry = self.entries.entry((sku_key(code), country));
                        let entry = entry.or_insert(CodePrice::Asked);
                        if !matches!(entry, CodePrice::Priced(_)) {
                            *entry = CodePrice::Unpriced(why.clone());
                        }
                    }
                    self.error = Some(err);
                }
            }
        }
    }

    /// Prices `codes` in one background batch: the codes never asked for, or all of them when
    /// `again`. Each market's distinct codes go in requests of [`MAX_PRICE_CODES`]; a request
    /// that fails ends the batch (the same cause would refuse the rest), and the codes it and
    /// the rest held say why. Returns `false` (and starts nothing) while a batch is in flight.
    pub(super) fn ask<'a>(
        &mut self,
        runtime: &tokio::runtime::Handle,
        ctx: &egui::Context,
        client: &Client,
        codes: impl IntoIterator<Item = (&'a str, Country)>,
        again: bool,
    ) -> bool {
        if self.batch.is_pending() {
            return false;
        }
        let requests = self.plan(codes, again);
        if requests.is_empty() {
            return true;
        }
        let client = client.clone();
        self.batch.spawn(runtime, ctx, async move {
            let mut parts: Vec<Part> = Vec::new();
            let mut failed: Option<ClientError> = None;
            for (country, chunk) in requests {
                let answer = match &failed {
                    Some(err) => Err(err.clone()),
                    None => client.prices(&chunk, country).await,
                };
                if let Err(err) = &answer {
                    failed.get_or_insert_with(|| err.clone());
                }
                parts.push((country, chunk, answer));
            }
            Ok(parts)
        });
        true
    }

    /// The requests that price `codes`: each market's distinct codes (dash, space and case
    /// ignored) not yet asked for, or all of them when `again`, in requests of at most
    /// [`MAX_PRICE_CODES`]. The codes planned are marked [`CodePrice::Asked`], except one
    /// priced before, whose price is shown until the new one lands.
    fn plan<'a>(
        &mut self,
        codes: impl IntoIterator<Item = (&'a str, Country)>,
        again: bool,
    ) -> Vec<(Country, Vec<String>)> {
        let mut wanted: Vec<(Country, Vec<String>)> = Vec::new();
        let mut seen = HashSet::new();
        for (code, country) in codes {
            let key = (sku_key(code), country);
            if key.0.is_empty() || !seen.insert(key.clone()) {
                continue;
            }
            match self.entries.get(&key) {
                Some(CodePrice::Priced(_) | CodePrice::Unpriced(_)) if !again => continue,
                Some(CodePrice::Priced(_)) => {}
                _ => {
                    self.entries.insert(key, CodePrice::Asked);
                }
            }
            match wanted.iter_mut().find(|(c, _)| *c == country) {
                Some((_, list)) => list.push(code.to_owned()),
                None => wanted.push((country, vec![code.to_owned()])),
            }
        }
        wanted
            .into_iter()
            .flat_map(|(country, codes)| {
                codes
                    .chunks(MAX_PRICE_CODES)
                    .map(|chunk| (country, chunk.to_vec()))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// Why a code has no price when its request failed.
fn unpriced_because(err: &ClientError) -> String {
    format!("Prices could not be fetched: {}", err.message)
}

/// The lowest ask over the sizes of `prices` (those with an ask); `None` when no size has one.
pub(super) fn lowest_ask(prices: &CodePrices) -> Option<f64> {
    prices
        .sizes
        .iter()
        .map(|size| size.lowest_ask)
        .filter(|ask| *ask > 0.0)
        .min_by(f64::total_cmp)
}

/// What the watchlist shows of a starred product's price now.
pub(super) fn watch_price(
    book: &PriceBook,
    item: &crate::ui::state::WatchedProduct,
    now: chrono::DateTime<chrono::Utc>,
) -> WatchPrice {
    match book.get(&item.sku, item.country) {
        None => WatchPrice::Unknown,
        Some(CodePrice::Asked) => WatchPrice::Pricing,
        Some(CodePrice::Unpriced(why)) => WatchPrice::NoPrice(why.clone()),
        Some(CodePrice::Priced(priced)) => match lowest_ask(priced) {
            Some(lowest) => WatchPrice::Priced {
                lowest,
                currency: priced.currency.clone(),
                source: format!(
                    "The lowest ask over its sizes, from {}{}",
                    source_text(&priced.source),
                    as_of(priced).map_or_else(String::new, |at| format!(", {}", age_text(at, now)))
                ),
            },
            None => WatchPrice::NoPrice(format!(
                "Nobody asks for any size of {} at {}.",
                priced.product_sku,
                source_text(&priced.source)
            )),
        },
    }
}

/// How old a price is, for a person: `just now`, `12 min old`, `3 h old`, `2 days old`.
pub(super) fn age_text(
    as_of: chrono::DateTime<chrono::Utc>,
    now: chrono::DateTime<chrono::Utc>,
) -> String {
    match elapsed_text(as_of, now) {
        Some(elapsed) => format!("{elapsed} old"),
        None => "just now".to_owned(),
    }
}

/// The time from `as_of` to `now`, for a person: `12 min`, `3 h`, `2 days`; `None` under a
/// minute (or when `as_of` is later).
pub(super) fn elapsed_text(
    as_of: chrono::DateTime<chrono::Utc>,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<String> {
    let minutes = now.signed_duration_since(as_of).num_minutes().max(0);
    match minutes {
        0 => None,
        1..=59 => Some(format!("{minutes} min")),
        60..=2879 => Some(format!("{} h", minutes / 60)),
        _ => Some(format!("{} days", minutes / 1440)),
    }
}

/// Where prices come from, for a person: `KicksDB`, `KicksDB (kept copy)`, `the catalogue`.
pub(super) fn source_text(source: &str) -> String {
    match source {
        "kicksdb" => "KicksDB".to_owned(),
        "kicksdb-mirror" => "KicksDB (kept copy)".to_owned(),
        "catalogue" => "the catalogue".to_owned(),
        other => other.to_owned(),
    }
}

/// When prices were fetched, from the answer's RFC 3339 time.
pub(super) fn as_of(prices: &CodePrices) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(&prices.as_of)
        .ok()
        .map(|t| t.with_timezone(&chrono::Utc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::ErrorKind;
    use crate::model::prices::SizePrice;

    fn priced(code: &str, ask: f64) -> CodePrices {
        CodePrices {
            sku: code.to_owned(),
            product_sku: code.to_owned(),
            product_id: format!("id-{code}"),
            currency: "USD".into(),
            source: "kicksdb".into(),
            as_of: "2026-11-25T10:00:00Z".into(),
            sizes: vec![SizePrice {
                size: "10".into(),
                lowest_ask: ask,
                asks: Some(2),
            }],
        }
    }

    /// A book whose batch of `parts` has landed, the codes asked marked so.
    fn landed(book: &mut PriceBook, parts: Vec<Part>) {
        for (country, codes, _) in &parts {
            for code in codes {
                book.entries
                    .entry((sku_key(code), *country))
                    .or_insert(CodePrice::Asked);
            }
        }
        book.batch = Requested::Completed(parts);
        book.poll();
    }

    #[test]
    fn a_batch_prices_what_it_found_and_says_why_for_the_rest() {
        let mut book = PriceBook::default();
        let answer = PricesAnswer {
            market: "US".into(),
            products: vec![priced("DD1391-100", 118.0)],
            missing: vec!["ZZ1".into()],
        };
        let refused = ClientError::new(ErrorKind::RateLimited, "the month's budget is spent");
        landed(
            &mut book,
            vec![
                (
                    Country::Us,
                    vec!["DD1391-100".into(), "ZZ1".into()],
                    Ok(answer),
                ),
                (Country::Us, vec!["CW2288-111".into()], Err(refused)),
            ],
        );
        // Spelling of the code does not matter.
        let Some(CodePrice::Priced(found)) = book.get("dd1391 100", Country::Us) else {
            panic!("{:?}", book.get("DD1391-100", Country::Us));
        };
        assert_eq!(lowest_ask(found), Some(118.0));
        assert!(matches!(
            book.get("ZZ1", Country::Us),
            Some(CodePrice::Unpriced(why)) if why.contains("No product with style code ZZ1")
        ));
        assert!(matches!(
            book.get("CW2288-111", Country::Us),
            Some(CodePrice::Unpriced(why)) if why.contains("the month's budget is spent")
        ));
        assert!(book.get("DD1391-100", Country::Fr).is_none(), "per market");
        assert_eq!(book.generation(), 1);
        assert!(book.error().is_some());

        // Asked again and refused: the price fetched before stays, with its age.
        let refused = ClientError::new(ErrorKind::Server, "KicksDB failed");
        landed(
            &mut book,
            vec![(Country::Us, vec!["DD1391-100".into()], Err(refused))],
        );
        assert!(matches!(
            book.get("DD1391-100", Country::Us),
            Some(CodePrice::Priced(_))
        ));
        assert_eq!(
            book.error().map(|e| e.message.as_str()),
            Some("KicksDB failed")
        );
    }

    #[test]
    fn codes_are_asked_once_each_in_requests_of_50_per_market() {
        let mut book = PriceBook::default();
        // 120 codes held, each twice in another spelling, 30 of them starred in France too.
        let codes: Vec<String> = (0..120).map(|i| format!("AB{i:04}-100")).collect();
        let spelled: Vec<String> = codes.iter().map(|c| c.replace('-', " ")).collect();
        let asked: Vec<(&str, Country)> = codes
            .iter()
            .chain(&spelled)
            .map(|c| (c.as_str(), Country::Us))
            .chain(codes[..30].iter().map(|c| (c.as_str(), Country::Fr)))
            .chain([("", Country::Us), (" - ", Country::Us)])
            .collect();
        let requests = book.plan(asked.iter().copied(), false);
        let sizes: Vec<(Country, usize)> = requests.iter().map(|(c, r)| (*c, r.len())).collect();
        assert_eq!(
            sizes,
            [
                (Country::Us, 50),
                (Country::Us, 50),
                (Country::Us, 20),
                (Country::Fr, 30)
            ]
        );
        assert!(matches!(
            book.get("ab0007100", Country::Us),
            Some(CodePrice::Asked)
        ));

        // Once landed, asking again costs nothing, unless fresh prices are asked for.
        let parts = requests
            .into_iter()
            .map(|(country, codes)| {
                let answer = PricesAnswer {
                    market: format!("{country:?}"),
                    products: codes.iter().map(|c| priced(c, 100.0)).collect(),
                    missing: Vec::new(),
                };
                (country, codes, Ok(answer))
            })
            .collect();
        landed(&mut book, parts);
        assert!(book.plan(asked.iter().copied(), false).is_empty());
        let again = book.plan(asked.iter().copied(), true);
        assert_eq!(again.len(), 4);
        // A price fetched before is shown while the new one is asked for.
        assert!(matches!(
            book.get("AB0007-100", Country::Us),
            Some(CodePrice::Priced(_))
        ));
    }

    #[test]
    fn a_product_without_any_ask_has_no_lowest_price_never_zero() {
        let mut none = priced("X1", 0.0);
        assert_eq!(lowest_ask(&none), None);
        none.sizes.push(SizePrice {
            size: "11".into(),
            lowest_ask: 95.0,
            asks: None,
        });
        assert_eq!(lowest_ask(&none), Some(95.0));
    }

    #[test]
    fn a_price_says_how_old_it_is() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-25T12:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let ago = |minutes: i64| now - chrono::Duration::minutes(minutes);
        assert_eq!(age_text(ago(0), now), "just now");
        assert_eq!(age_text(ago(12), now), "12 min old");
        assert_eq!(age_text(ago(3 * 60 + 5), now), "3 h old");
        assert_eq!(age_text(ago(3 * 1440), now), "3 days old");
        // A clock that runs behind the source is not a negative age.
        assert_eq!(
            age_text(now + chrono::Duration::minutes(5), now),
            "just now"
        );
    }
}
