//! A page of the flip list for one request: every candidate of the build reckoned with the
//! request's own costs and fees (`figures::flips::headline`, integer arithmetic, no allocation)
//! from its packed ranking key (`build::RankKey`, the brand and size filters numbered once per
//! request), filtered, ranked by profit (the page's rows picked in linear time, then sorted),
//! and only the page's rows written out with every input beside them
//! (`figures::flips::flip`, the same arithmetic).

use std::cmp::Ordering;

use super::build::{Built, Candidate, SIMULATED_STORE, StoreEntry};
use crate::figures::flips::{MarketPrice, NoFlip, SalesFigure, StoreSize, flip, headline};
use crate::model::Country;
use crate::model::flips::{FlipSettings, FlipStore, FlipsAnswer, PRICED_VENUE, SellBasis, Skipped};

/// What one request asks of the list.
#[derive(Debug, Clone, PartialEq)]
pub struct FlipQuery {
    /// Page, from 1.
    pub page: u32,
    /// Rows per page.
    pub limit: u32,
    /// Rows with at least this profit (cents); `None`: rows that pay (above 0).
    pub min_profit_cents: Option<i64>,
    /// Rows with at least this ROI (0.2 = 20 %).
    pub min_roi: Option<f64>,
    /// Only these US sizes (any of them); empty: every size.
    pub sizes: Vec<String>,
    /// Only these stores (by host or address); empty: every store.
    pub stores: Vec<String>,
    /// Only these brands (any case); empty: every brand.
    pub brands: Vec<String>,
    /// The user's costs and fees.
    pub settings: FlipSettings,
    /// The markets the caller's tier may see.
    pub countries: Vec<Country>,
    /// The caller plans the price scans (`scan=now`, `scan=planned`).
    pub scan: Option<crate::model::flips::FlipScan>,
}

impl Default for FlipQuery {
    fn default() -> Self {
        Self {
            page: 1,
            limit: crate::model::flips::DEFAULT_FLIPS_LIMIT,
            min_profit_cents: None,
            min_roi: None,
            sizes: Vec::new(),
            stores: Vec::new(),
            brands: Vec::new(),
            settings: FlipSettings::default(),
            countries: Country::ALL.to_vec(),
            scan: None,
        }
    }
}

/// Whether `name` (as a user gave it) names `store`.
fn names(store: &StoreEntry, name: &str) -> bool {
    let name = name.trim().trim_end_matches('/');
    name.eq_ignore_ascii_case(&store.label)
        || name.eq_ignore_ascii_case(&store.origin)
        || (store.simulated
            && (name.eq_ignore_ascii_case("retailer-a")
                || name.eq_ignore_ascii_case(SIMULATED_STORE)))
}

fn market_of(store: &StoreEntry) -> Option<Country> {
    let currency = store.currency.as_deref()?;
    Country::ALL
        .into_iter()
        .find(|country| country.currency().eq_ignore_ascii_case(currency))
}

fn rfc3339(unix: i64) -> Option<String> {
    chrono::DateTime::from_timestamp(unix, 0)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// The store's page for the candidate's size.
fn store_url(store: &StoreEntry, handle: &str, variant_id: u64) -> String {
    let variant = variant_id.to_string();
    match &store.url {
        Some(url) => url.product_page(handle, Some(&variant)),
        None => format!("{}/products/{handle}?variant={variant}", store.origin),
    }
}

/// `(profit, candidate)` in rank order: most profit first, then the build's order.
fn by_rank(a: &(i64, u32), b: &(i64, u32)) -> Ordering {
    b.0.cmp(&a.0).then(a.1.cmp(&b.1))
}

/// The page `query` asks of `built`, ages counted at `now_unix`.
#[must_use]
pub fn answer(built: &Built, query: &FlipQuery, now_unix: i64) -> FlipsAnswer {
    let settings = &query.settings;
    let mut notes = built.notes.clone();
    let mut hidden_markets = 0;
    let store_ok: Vec<bool> = built
        .stores
        .iter()
        .map(|store| {
            let allowed = market_of(store).is_none_or(|c| query.countries.contains(&c));
            if !allowed {
                hidden_markets += 1;
            }
            allowed && (query.stores.is_empty() || query.stores.iter().any(|n| names(store, n)))
        })
        .collect();
    if hidden_markets > 0 {
        notes.push(format!(
            "{hidden_markets} store(s) priced in euros (the FR market) are left out: that market \
             needs a pro or ultra key"
        ));
    }
    let costs: Vec<(i64, f64)> = built
        .stores
        .iter()
        .map(|store| {
            let currency = store.currency.as_deref().unwrap_or_default();
            let (shipping, tax, _) = settings.costs_at(&store.label, &store.origin, currency);
            (shipping, tax)
        })
        .collect();
    let fees = settings.fees;
    let min_profit = query.min_profit_cents.unwrap_or(1);
    let brand_ok: Vec<bool> = built
        .brands
        .iter()
        .map(|brand| {
            query.brands.is_empty() || query.brands.iter().any(|b| b.eq_ignore_ascii_case(brand))
        })
        .collect();
    let size_ok: Vec<bool> = built
        .sizes
        .iter()
        .map(|size| query.sizes.is_empty() || query.sizes.iter().any(|s| **s == **size))
        .collect();
    let mut passing: Vec<(i64, u32)> = Vec::new();
    let mut fees_exceed: Option<(u64, usize)> = None;
    for (at, key) in built.ranks.iter().enumerate() {
        let store = usize::from(key.store);
        if !store_ok[store] || !size_ok[usize::from(key.size)] || !brand_ok[usize::from(key.brand)]
        {
            continue;
        }
        let (shipping, tax) = costs[store];
        let prices = [
            (SellBasis::SellNow, key.bid_cents),
            (SellBasis::ListAt, key.ask_cents),
        ]
        .into_iter()
        .filter(|(_, price)| *price > 0)
        .map(|(basis, price)| (basis, price, fees));
        match headline(key.buy_cents, shipping, tax, prices) {
            Ok((profit, roi)) => {
                if profit >= min_profit && query.min_roi.is_none_or(|min| roi >= min) {
                    passing.push((profit, u32::try_from(at).unwrap_or(u32::MAX)));
                }
            }
            Err(NoFlip::FeesExceedPrice) => fees_exceed.get_or_insert((0, at)).0 += 1,
            Err(_) => {}
        }
    }
    let fees_exceed = fees_exceed.map(|(count, at)| {
        let candidate = &built.candidates[at];
        let product = &built.products[candidate.product as usize];
        let store = &built.stores[usize::from(product.store)];
        let example = format!(
            "{} US {} at {}",
            product.style_code, candidate.size_label, store.label
        );
        (count, example)
    });
    let total = passing.len();
    let offset = (query.page.max(1) as usize - 1).saturating_mul(query.limit as usize);
    let end = offset.saturating_add(query.limit as usize).min(total);
    if end < total && end > 0 {
        passing.select_nth_unstable_by(end - 1, by_rank);
        passing.truncate(end);
    }
    passing.sort_unstable_by(by_rank);
    let flips = passing
        .get(offset.min(passing.len())..end.max(offset).min(passing.len()))
        .unwrap_or_default()
        .iter()
        .filter_map(|(_, at)| row(built, &built.candidates[*at as usize], settings, now_unix))
        .collect();
    let mut skipped: Vec<Skipped> = built
        .skipped
        .reasons
        .iter()
        .map(|(why, count, example)| Skipped {
            reason: why.to_string(),
            count: *count,
            example: example.clone(),
        })
        .collect();
    if let Some((count, example)) = fees_exceed {
        skipped.push(Skipped {
            reason: NoFlip::FeesExceedPrice.to_string(),
            count,
            example,
        });
    }
    FlipsAnswer {
        flips,
        as_of: rfc3339(built.at_unix),
        total: total as u64,
        page: query.page,
        limit: query.limit,
        building: false,
        simulated: built.simulated,
        stores: built
            .stores
            .iter()
            .map(|store| FlipStore {
                store: store.label.clone(),
                url: store.url.as_ref().map(|u| u.as_str().to_owned()),
                simulated: store.simulated,
                read_at: store.read_at_unix.and_then(rfc3339),
                currency: store.currency.clone(),
                products_in_stock: store.products_in_stock,
                sizes_in_stock: store.sizes_in_stock,
                status: store.status.clone(),
            })
            .collect(),
        markets: built.markets.clone(),
        skipped,
        settings: settings.clone(),
        notes,
    }
}

/// The whole row of `candidate`, with every input beside it.
fn row(
    built: &Built,
    candidate: &Candidate,
    settings: &FlipSettings,
    now_unix: i64,
) -> Option<crate::model::flips::Flip> {
    let product = &built.products[candidate.product as usize];
    let store = &built.stores[usize::from(product.store)];
    let price = built.prices.get(candidate.price as usize)?;
    let url = store_url(store, &product.handle, candidate.variant_id);
    let size = StoreSize {
        product_id: &product.product_id,
        style_code: &product.style_code,
        title: &product.title,
        brand: &product.brand,
        size: &candidate.us,
        size_label: &candidate.size_label,
        store: &store.label,
        store_origin: &store.origin,
        store_url: &url,
        simulated: store.simulated,
        matched_by: product.matched_by,
        price_cents: Some(candidate.buy_cents),
        currency: store.currency.as_deref(),
        read_at_unix: store.read_at_unix,
    };
    let market = MarketPrice {
        venue: PRICED_VENUE,
        currency: &price.currency,
        lowest_ask_cents: candidate.ask_cents,
        highest_bid_cents: candidate.bid_cents,
        asks: candidate.asks,
        source: &price.source,
        as_of: &price.as_of,
    };
    let sales = candidate.sales.and_then(|(count, days, scope, source)| {
        let (source, as_of) = built.sales_sources.get(source as usize)?;
        Some((count, days, scope, source.as_str(), as_of.as_str()))
    });
    let figure = sales.map(|(count, days, scope, source, as_of)| SalesFigure {
        count,
        days,
        scope,
        source,
        as_of,
    });
    flip(&size, &[market], figure.as_ref(), settings, now_unix).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::flips::{FeeSchedule, StoreCosts};
    use crate::service::flips::build::{PriceEntry, ProductEntry};

    fn store(label: &str, currency: &str) -> StoreEntry {
        StoreEntry {
            label: label.into(),
            origin: format!("https://{label}"),
            url: crate::model::StoreUrl::parse(label).ok(),
            simulated: false,
            currency: Some(currency.into()),
            read_at_unix: Some(1_000),
            status: String::new(),
            products_in_stock: 1,
            sizes_in_stock: 1,
        }
    }

    fn product(code: &str, brand: &str, store: u16) -> ProductEntry {
        ProductEntry {
            product_id: "p".into(),
            style_code: code.into(),
            title: "t".into(),
            brand: brand.into(),
            handle: format!("{code}-handle").into(),
            matched_by: "style code",
            store,
        }
    }

    fn candidate(product: u32, us: &str, buy: i64, ask: i64) -> Candidate {
        Candidate {
            product,
            size_label: format!("US {us}").into(),
            us: us.into(),
            variant_id: 7,
            buy_cents: buy,
            ask_cents: Some(ask),
            bid_cents: None,
            asks: None,
            price: 0,
            sales: None,
        }
    }

    /// Three stores (one in euros), four sizes; profits at the defaults worked out by hand:
    /// buy 100.00 -> cost 117.50; ask 300.00 -> payout 264.00: 146.50; ask 200.00 -> 176.00:
    /// 58.50; ask 110.00 -> 96.80: -20.70 (a loss); the euro store's 100.00 -> cost 110.00,
    /// ask 200.00 -> 176.00: 66.00.
    fn built_unranked() -> Built {
        Built {
            at_unix: 2_000,
            stores: vec![
                store("a.example", "USD"),
                store("b.example", "USD"),
                store("c.example", "EUR"),
            ],
            products: vec![
                product("AA1111-100", "Nike", 0),
                product("BB2222-200", "adidas", 1),
                product("CC3333-300", "Nike", 2),
            ],
            prices: vec![PriceEntry {
                source: "catalogue".into(),
                as_of: "1970-01-01T00:16:40Z".into(),
                currency: "USD".into(),
            }],
            candidates: vec![
                candidate(0, "9", 10_000, 20_000),
                candidate(0, "10", 10_000, 30_000),
                candidate(1, "9", 10_000, 11_000),
                candidate(2, "9", 10_000, 20_000),
            ],
            ..Built::default()
        }
    }

    /// [`built_unranked`] with its ranking keys.
    fn built() -> Built {
        let mut built = built_unranked();
        built.rank();
        built
    }

    fn profits(answer: &FlipsAnswer) -> Vec<i64> {
        answer.flips.iter().map(|f| f.profit).collect()
    }

    #[test]
    fn rows_are_ranked_by_profit_and_paged() {
        let mut built = built();
        // One price source per currency: the euro row reads its own.
        built.prices.push(PriceEntry {
            currency: "EUR".into(),
            ..built.prices[0].clone()
        });
        built.candidates[3].price = 1;
        let answer = super::answer(&built, &FlipQuery::default(), 2_600);
        assert_eq!(profits(&answer), [14_650, 6_600, 5_850]);
        assert_eq!(answer.total, 3, "the loss is not a row by default");
        let second = super::answer(
            &built,
            &FlipQuery {
                page: 2,
                limit: 2,
                ..FlipQuery::default()
            },
            2_600,
        );
        assert_eq!(profits(&second), [5_850]);
        let everything = super::answer(
            &built,
            &FlipQuery {
                min_profit_cents: Some(-1_000_000),
                ..FlipQuery::default()
            },
            2_600,
        );
        assert_eq!(profits(&everything), [14_650, 6_600, 5_850, -2_070]);
        assert_eq!(everything.flips[0].store_age_secs, Some(1_600));
    }

    #[test]
    fn filters_costs_and_the_callers_markets_apply() {
        let built = built();
        let query = FlipQuery {
            sizes: vec!["9".into()],
            brands: vec!["NIKE".into()],
            stores: vec!["https://a.example/".into()],
            ..FlipQuery::default()
        };
        assert_eq!(profits(&super::answer(&built, &query, 2_600)), [5_850]);
        // The store's own shipping of 0 and tax of 0: cost 100.00, 176.00 - 100.00 = 76.00.
        let own = FlipQuery {
            settings: FlipSettings {
                stores: vec![StoreCosts {
                    store: "a.example".into(),
                    shipping_cents: Some(0),
                    sales_tax_percent: Some(0.0),
                }],
                ..FlipSettings::default()
            },
            ..query
        };
        assert_eq!(profits(&super::answer(&built, &own, 2_600)), [7_600]);
        // A free key: the euro store left out, and said so.
        let free = FlipQuery {
            countries: vec![Country::Us],
            ..FlipQuery::default()
        };
        let answer = super::answer(&built, &free, 2_600);
        assert!(answer.flips.iter().all(|f| f.currency == "USD"));
        assert!(answer.notes.iter().any(|n| n.contains("euros")));
        // Fees above every price: counted, never a row.
        let dear = FlipQuery {
            settings: FlipSettings {
                fees: FeeSchedule {
                    fixed_fee_cents: 100_000,
                    ..FeeSchedule::seller_level(1)
                },
                ..FlipSettings::default()
            },
            min_profit_cents: Some(-10_000_000),
            ..FlipQuery::default()
        };
        let answer = super::answer(&built, &dear, 2_600);
        assert!(answer.flips.is_empty());
        assert_eq!(answer.skipped[0].count, 4);
    }
}
