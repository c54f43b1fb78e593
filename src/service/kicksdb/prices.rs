//! Batched prices on KicksDB: `POST /v3/stockx/prices` (a paid endpoint) prices up to 50
//! style codes per call, size by size (the lowest ask and the number of asks; sizes without an
//! ask are left out). The portfolio, the watchlist and the alerts on an ask are priced this way,
//! so a portfolio of 120 style codes costs 3 calls instead of 120 product lookups.
//!
//! Each code's latest answer is kept ([`PriceCache`]): a code priced less than `Ttl::product`
//! ago is answered without a call (two panels and the monitor share one batch), and when
//! KicksDB cannot answer (its 429 or 403, a failure, the monthly budget spent) a code is
//! answered from its latest batch, else from the mirror, with its age and the reason. A batch
//! that answers for only some codes leaves the others to the same fallback, and then to
//! `missing`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use serde::Deserialize;

use super::{CallClass, Kicksdb};
use crate::catalogue::generate::normalize_sku;
use crate::model::Country;
use crate::model::prices::{CodePrices, MAX_PRICE_CODES, PricesAnswer, SizePrice};
use crate::service::error::ApiError;
use crate::service::origin::names::{KICKSDB, KICKSDB_MIRROR};
use crate::service::source::{AnswerOrigin, Sourced};
use crate::upstream::{FetchError, FetchKind};

/// One product of the batch's answer (`StockXPriceOutput`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StockxPriceOutput {
    /// Product UUID.
    pub product_id: String,
    /// Its style code.
    pub sku: String,
    /// Its sizes with an ask (priceless variants are omitted).
    pub variants: Option<Vec<PriceVariant>>,
}

/// One size's price in the batch's answer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct PriceVariant {
    /// Variant UUID.
    pub id: String,
    /// US size label.
    pub size: String,
    /// Size system ("us m").
    pub size_type: String,
    /// The lowest ask, whole units of the market's currency.
    pub price: Option<i64>,
    /// Asks at that price.
    pub asks: Option<i64>,
    /// `standard`, `express_standard` or `express_expedited`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// Each style code's latest batched prices, per market.
#[derive(Debug)]
pub struct PriceCache {
    entries: quick_cache::sync::Cache<(String, Country), (Instant, Arc<CodePrices>)>,
}

impl Default for PriceCache {
    fn default() -> Self {
        Self {
            entries: quick_cache::sync::Cache::new(20_000),
        }
    }
}

/// Each style code's sales per size in the last 30 days, as KicksDB last wrote them in a
/// product's sizes (`sales_count_30_days`), with when.
#[derive(Debug)]
pub struct SizeSales {
    entries: quick_cache::sync::Cache<String, Arc<SizeCounts>>,
}

/// One product's sales per size in the last 30 days, and when KicksDB wrote them.
#[derive(Debug)]
pub struct SizeCounts {
    /// When the sizes were read (RFC 3339).
    at: String,
    /// Each size as KicksDB names it, with its count.
    sizes: Vec<(String, u32)>,
}

impl Default for SizeSales {
    fn default() -> Self {
        Self {
            entries: quick_cache::sync::Cache::new(20_000),
        }
    }
}

impl SizeSales {
    /// Keeps the per-size counts `products` carry, read at `at` (RFC 3339).
    pub(super) fn note(&self, products: &[super::wire::StockxProduct], at: &str) {
        for product in products {
            let sizes: Vec<(String, u32)> = product
                .shown_variants()
                .filter_map(|v| {
                    let count = u32::try_from(v.sales_count_30_days?).ok()?;
                    Some((v.size.clone(), count))
                })
                .collect();
            if !sizes.is_empty() && !product.sku.trim().is_empty() {
                self.entries.insert(
                    normalize_sku(&product.sku),
                    Arc::new(SizeCounts {
                        at: at.to_owned(),
                        sizes,
                    }),
                );
            }
        }
    }

    fn get(&self, code: &str) -> Option<Arc<SizeCounts>> {
        self.entries.get(&normalize_sku(code))
    }
}

/// The code as KicksDB's StockX writes style codes: upper case, white space as one dash. `None`
/// for a code no style code can be (characters other than letters, digits, dash, space, dot and
/// slash, or over 100 characters): it is never sent.
fn wire_code(code: &str) -> Option<String> {
    let code = code.trim();
    let fits = !code.is_empty()
        && code.len() <= 100
        && code
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | ' ' | '.' | '/'));
    fits.then(|| {
        code.split_whitespace()
            .collect::<Vec<_>>()
            .join("-")
            .to_ascii_uppercase()
    })
}

/// A product's sizes from a batch: per size, the standard ask (else the lowest of any type).
fn sizes_from_variants(variants: &[PriceVariant]) -> Vec<SizePrice> {
    let mut best: Vec<(String, bool, i64, Option<i64>)> = Vec::new();
    for v in variants {
        let Some(price) = v.price.filter(|p| *p > 0) else {
            continue;
        };
        let standard = v.kind.is_empty() || v.kind == "standard";
        match best.iter_mut().find(|(size, ..)| *size == v.size) {
            Some(slot) => {
                let better = (standard && !slot.1) || (standard == slot.1 && price < slot.2);
                if better {
                    *slot = (v.size.clone(), standard, price, v.asks);
                }
            }
            None => best.push((v.size.clone(), standard, price, v.asks)),
        }
    }
    best.into_iter()
        .map(|(size, _, price, asks)| SizePrice {
            size,
            lowest_ask: price as f64,
            asks: asks.and_then(|a| u32::try_from(a).ok()),
        })
        .collect()
}

/// What a batched pricing gave: codes (by index) priced, and those KicksDB did not answer for
/// (with its error when a batch failed).
#[derive(Debug, Default)]
pub struct BatchOutcome {
    /// Index into the codes asked, and the prices (fresh, or reused while young).
    pub found: Vec<(usize, Arc<CodePrices>)>,
    /// Codes KicksDB did not price.
    pub unanswered: Vec<usize>,
    /// The error of a batch that failed (its codes are among `unanswered`).
    pub error: Option<FetchError>,
}

fn now_text() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl Kicksdb {
    /// Prices `codes` in `country`'s market: codes priced less than `Ttl::product` ago from the
    /// cache, the rest in batches of [`MAX_PRICE_CODES`] (one call each, counted in the limits
    /// and the monthly budget). A failed batch stops the rest (its error is kept): the same
    /// cause would refuse them too.
    pub async fn batch_prices(
        self: &Arc<Self>,
        codes: &[String],
        country: Country,
    ) -> BatchOutcome {
        let mut outcome = BatchOutcome::default();
        // Each distinct code once: the first index asking it.
        let mut wanted: Vec<(String, String, usize)> = Vec::new();
        let mut same: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, code) in codes.iter().enumerate() {
            let (Some(wire), norm) = (wire_code(code), normalize_sku(code)) else {
                outcome.unanswered.push(index);
                continue;
            };
            if let Some(indexes) = same.get_mut(&norm) {
                indexes.push(index);
            } else {
                same.insert(norm.clone(), vec![index]);
                wanted.push((norm, wire, index));
            }
        }
        let mut to_fetch: Vec<(String, String)> = Vec::new();
        for (norm, wire, _) in &wanted {
            match self.prices.entries.get(&(norm.clone(), country)) {
                Some((at, prices)) if at.elapsed() < self.ttl.product => {
                    for &index in &same[norm] {
                        outcome.found.push((index, Arc::clone(&prices)));
                    }
                }
                _ => to_fetch.push((norm.clone(), wire.clone())),
            }
        }
        let mut answered: HashMap<String, Arc<CodePrices>> = HashMap::new();
        for chunk in to_fetch.chunks(MAX_PRICE_CODES) {
            if outcome.error.is_some() {
                break;
            }
            let body = serde_json::json!({
                "market": country.code(),
                "show_sizes": true,
                "skus": chunk.iter().map(|(_, wire)| wire.as_str()).collect::<Vec<_>>(),
            });
            let answer: Result<super::wire::Envelope<Vec<StockxPriceOutput>>, FetchError> = self
                .post_json(
                    "v3/stockx/prices",
                    &body,
                    CallClass::Catalogue,
                    self.ttl.product,
                )
                .await;
            match answer {
                Ok(envelope) => {
                    let at = now_text();
                    let asked: HashMap<&str, &str> = chunk
                        .iter()
                        .map(|(n, w)| (n.as_str(), w.as_str()))
                        .collect();
                    for product in envelope.data.unwrap_or_default() {
                        let norm = normalize_sku(&product.sku);
                        // Only codes asked for: an answer for anything else is not ours to keep.
                        let Some(wire) = asked.get(norm.as_str()) else {
                            continue;
                        };
                        if product.product_id.is_empty() || answered.contains_key(&norm) {
                            continue;
                        }
                        let prices = Arc::new(CodePrices {
                            sku: (*wire).to_owned(),
                            product_sku: product.sku.clone(),
                            product_id: product.product_id.clone(),
                            currency: country.currency().to_owned(),
                            source: KICKSDB.to_owned(),
                            as_of: at.clone(),
                            sizes: sizes_from_variants(product.variants.as_deref().unwrap_or(&[])),
                        });
                        self.prices.entries.insert(
                            (norm.clone(), country),
                            (Instant::now(), Arc::clone(&prices)),
                        );
                        answered.insert(norm, prices);
                    }
                }
                Err(err) => {
                    tracing::info!("KicksDB batched prices: {err}");
                    outcome.error = Some(err);
                }
            }
        }
        for (norm, _) in &to_fetch {
            match answered.get(norm) {
                Some(prices) => {
                    for &index in &same[norm] {
                        outcome.found.push((index, Arc::clone(prices)));
                    }
                }
                None => outcome.unanswered.extend(same[norm].iter().copied()),
            }
        }
        outcome.found.sort_by_key(|(index, _)| *index);
        outcome.unanswered.sort_unstable();
        outcome
    }

    /// The latest batched prices of `code` in `country`, however old.
    fn kept_prices(&self, code: &str, country: Country) -> Option<Arc<CodePrices>> {
        self.prices
            .entries
            .get(&(normalize_sku(code), country))
            .map(|(_, prices)| prices)
    }
}

/// Fills `slots` at `indices` (codes no batch priced) from the mirror's sizes
/// (`kicksdb-mirror`), where the mirror has the code.
async fn fill_from_mirror(
    source: &Arc<Kicksdb>,
    codes: &[String],
    indices: &[usize],
    country: Country,
    slots: &mut [Option<CodePrices>],
) -> Result<(), ApiError> {
    if indices.is_empty() {
        return Ok(());
    }
    let wanted: Vec<String> = indices.iter().map(|&i| codes[i].clone()).collect();
    let held = source
        .mirror
        .read(move |conn| {
            Ok(crate::catalogue::prices::answer(
                conn,
                &wanted,
                country,
                KICKSDB_MIRROR,
            )?)
        })
        .await?;
    let mut held = held.0.into_iter().peekable();
    for &index in indices {
        if held.peek().is_some_and(|p| p.sku == codes[index]) {
            slots[index] = held.next();
        }
    }
    Ok(())
}

/// The codes nothing priced (their slot still empty), in the order asked: the answer's
/// `missing`.
fn missing_codes(slots: &[Option<CodePrices>], codes: &[String]) -> Vec<String> {
    slots
        .iter()
        .zip(codes)
        .filter(|(slot, _)| slot.is_none())
        .map(|(_, code)| code.clone())
        .collect()
}

/// `GET /api/v2/prices` on KicksDB: the batch for what it answers; a code it did not price
/// from its latest batch, else from the mirror (both `kicksdb-mirror`, with their age);
/// `missing` for the rest. When nothing at all could be priced and KicksDB failed, its error.
pub(crate) async fn answer(
    source: &Arc<Kicksdb>,
    codes: &[String],
    country: Country,
) -> Result<Sourced<PricesAnswer>, ApiError> {
    let outcome = source.batch_prices(codes, country).await;
    let mut slots: Vec<Option<CodePrices>> = vec![None; codes.len()];
    for (index, prices) in outcome.found {
        let mut prices = (*prices).clone();
        prices.sku.clone_from(&codes[index]);
        slots[index] = Some(prices);
    }
    let reason = outcome.error.as_ref().map_or_else(
        || "KicksDB's batch had no prices for it".to_owned(),
        ToString::to_string,
    );
    let mut from_mirror = Vec::new();
    for &index in &outcome.unanswered {
        if let Some(kept) = source.kept_prices(&codes[index], country) {
            let mut prices = (*kept).clone();
            prices.sku.clone_from(&codes[index]);
            KICKSDB_MIRROR.clone_into(&mut prices.source);
            slots[index] = Some(prices);
        } else {
            from_mirror.push(index);
        }
    }
    fill_from_mirror(source, codes, &from_mirror, country, &mut slots).await?;
    let kept: Vec<&CodePrices> = slots
        .iter()
        .flatten()
        .filter(|p| p.source != KICKSDB)
        .collect();
    let origin = if kept.is_empty() {
        AnswerOrigin::fresh(KICKSDB)
    } else {
        AnswerOrigin {
            source: KICKSDB_MIRROR,
            store: None,
            as_of: kept.iter().map(|p| p.as_of.clone()).min(),
            stale_reason: Some(reason),
        }
    };
    let missing = missing_codes(&slots, codes);
    let products: Vec<CodePrices> = slots.into_iter().flatten().collect();
    if products.is_empty()
        && let Some(err) = outcome.error
        && !matches!(err.kind, FetchKind::NotFound | FetchKind::Rejected)
    {
        return Err(err.into());
    }
    Ok(Sourced {
        value: PricesAnswer {
            market: country.code().to_owned(),
            products,
            missing,
        },
        origin,
    })
}

/// Per size, what is held for `codes` without a call: each code's latest batch (named
/// `kicksdb`, with the time it was fetched), else the mirror's sizes (`kicksdb-mirror`), else
/// `missing`.
pub(crate) async fn held_answer(
    source: &Arc<Kicksdb>,
    codes: &[String],
    country: Country,
) -> Result<Sourced<PricesAnswer>, ApiError> {
    let mut slots: Vec<Option<CodePrices>> = codes
        .iter()
        .map(|code| {
            source.kept_prices(code, country).map(|kept| {
                let mut prices = (*kept).clone();
                prices.sku.clone_from(code);
                prices
            })
        })
        .collect();
    let unkept: Vec<usize> = (0..codes.len()).filter(|&i| slots[i].is_none()).collect();
    fill_from_mirror(source, codes, &unkept, country, &mut slots).await?;
    let oldest = slots.iter().flatten().map(|p| p.as_of.clone()).min();
    let missing = missing_codes(&slots, codes);
    Ok(Sourced {
        value: PricesAnswer {
            market: country.code().to_owned(),
            products: slots.into_iter().flatten().collect(),
            missing,
        },
        origin: AnswerOrigin {
            source: KICKSDB_MIRROR,
            store: None,
            as_of: oldest,
            stale_reason: Some("held prices: no call was made".to_owned()),
        },
    })
}

/// What is held of `codes`' recent sales, none fetched for this: each size's sales in the last
/// 30 days as KicksDB last wrote them in the product's sizes (StockX's US market, `kicksdb`,
/// with when), and the mirror's weekly records (from KicksDB's daily sales), the product's.
pub(crate) async fn held_sales(
    source: &Arc<Kicksdb>,
    codes: &[String],
) -> Result<Vec<Option<crate::model::flips::HeldSales>>, ApiError> {
    let wanted = codes.to_vec();
    let weeks = source
        .mirror
        .read(move |conn| {
            Ok(crate::catalogue::prices::held_sales(
                conn,
                &wanted,
                KICKSDB_MIRROR,
            )?)
        })
        .await?;
    Ok(codes
        .iter()
        .zip(weeks)
        .map(|(code, weeks)| match source.size_sales.get(code) {
            Some(sizes) => Some(crate::model::flips::HeldSales {
                sku: code.clone(),
                source: KICKSDB.to_owned(),
                as_of: sizes.at.clone(),
                // A size the product's sizes did not count has no figure: the weeks are
                // another source, of another time.
                product_count: None,
                product_days: crate::catalogue::prices::SALES_WEEKS * 7,
                sizes: sizes.sizes.clone(),
            }),
            None => weeks,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_sent_as_stockx_writes_them_and_odd_ones_never() {
        assert_eq!(wire_code(" dz5485 612 ").as_deref(), Some("DZ5485-612"));
        assert_eq!(wire_code("CP9654").as_deref(), Some("CP9654"));
        assert_eq!(wire_code("x' OR 1=1"), None);
        assert_eq!(wire_code(""), None);
        assert_eq!(wire_code(&"A".repeat(101)), None);
    }

    #[test]
    fn a_size_takes_its_standard_ask_and_priceless_sizes_are_left_out() {
        let variant = |size: &str, price: i64, kind: &str| PriceVariant {
            size: size.into(),
            price: Some(price),
            asks: Some(3),
            kind: kind.into(),
            ..PriceVariant::default()
        };
        let sizes = sizes_from_variants(&[
            variant("9", 250, "express_expedited"),
            variant("9", 270, "standard"),
            variant("10", 0, "standard"),
            variant("11", 300, "express_standard"),
            variant("11", 290, "express_expedited"),
        ]);
        let got: Vec<(&str, f64)> = sizes
            .iter()
            .map(|s| (s.size.as_str(), s.lowest_ask))
            .collect();
        assert_eq!(got, vec![("9", 270.0), ("11", 290.0)]);
    }
}
