//! Alerts and per-size quotes: the size key the marketplaces' labels meet on, the per-size
//! quotes of a real-time answer, and whether an alert fires (or is armed again) on them.

use super::sizes::{SizeRun, parse_size, size_asks};
use crate::model::{
    Alert, AlertKind, NewAlert, QuoteSource, ResaleAProduct, RetailerProduct, SizeQuote, StoreUrl,
};

/// The key one size is kept under, whatever the label: `9` (men's or unmarked), `W 8`, `5.5Y`,
/// `7C`; a label without a readable number is kept trimmed as it is. `US M 9`, `9` and
/// `US M 9 / UK 8 / EU 42.5` all give `9`.
#[must_use]
pub fn size_key(label: &str) -> String {
    let parsed = parse_size(label);
    let Some(number) = parsed.number else {
        return label.trim().to_owned();
    };
    let number = format!("{number}");
    match parsed.run {
        SizeRun::Adult => number,
        SizeRun::Women => format!("W {number}"),
        SizeRun::GradeSchool => format!("{number}Y"),
        SizeRun::Child => format!("{number}C"),
        SizeRun::Unreadable => label.trim().to_owned(),
    }
}

/// The key a product's price history is kept under: its style code, upper-cased with spaces as
/// dashes (`resale-a` writes `DZ5485 612` for the catalogue's `DZ5485-612`), or `fallback` (the
/// catalogue id or slug) when it has none.
#[must_use]
pub fn product_key(style_code: &str, fallback: &str) -> String {
    let code = style_code.trim();
    if code.is_empty() {
        return fallback.trim().to_owned();
    }
    code.split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
        .to_ascii_uppercase()
}

/// The per-size quotes of a `resale-a` answer: each size's lowest ask in US cents (sizes
/// nobody asks for are listed with no price, so an alert on them can be armed again).
#[must_use]
pub fn quotes_from_resale_a(product: &ResaleAProduct) -> Vec<SizeQuote> {
    size_asks(product)
        .into_iter()
        .map(|row| SizeQuote {
            source: QuoteSource::ResaleA,
            size: size_key(&row.size),
            label: row.size,
            lowest_ask_cents: row.lowest_ask_cents,
            highest_bid_cents: None,
            last_sale_cents: None,
            in_stock: None,
            currency: "USD".to_owned(),
            store: None,
            link: None,
        })
        .collect()
}

/// The per-size quotes of a batched prices answer (`GET /api/v2/prices`): each size's lowest
/// ask on `resale-b`, the marketplace those prices come from (StockX on KicksDB, the
/// catalogue's own in the demo). The flip list sells at the same prices.
#[must_use]
pub fn quotes_from_prices(prices: &crate::model::prices::CodePrices) -> Vec<SizeQuote> {
    prices
        .sizes
        .iter()
        .map(|size| SizeQuote {
            source: QuoteSource::ResaleB,
            size: size_key(&size.size),
            label: size.size.clone(),
            lowest_ask_cents: super::cents_from_amount(size.lowest_ask).filter(|c| *c > 0),
            highest_bid_cents: None,
            last_sale_cents: None,
            in_stock: None,
            currency: prices.currency.to_ascii_uppercase(),
            store: None,
            link: None,
        })
        .collect()
}

/// The per-size quotes of a `retailer-a` answer: the price (as the ask) when the size can be
/// bought, and its stock. A size without a price (the retailer writes 0) has no ask.
#[must_use]
pub fn quotes_from_retailer(product: &RetailerProduct) -> Vec<SizeQuote> {
    retailer_quotes(product, None)
}

/// The per-size quotes of one storefront's `retailer-a` answer, as [`quotes_from_retailer`],
/// each naming the store and linking to the store's page for its size
/// (`/products/{handle}?variant={id}`).
#[must_use]
pub fn quotes_from_store(product: &RetailerProduct, store: &StoreUrl) -> Vec<SizeQuote> {
    retailer_quotes(product, Some(store))
}

/// The numeric id of a global id (`gid://shopify/ProductVariant/123` → `123`).
fn numeric_id(gid: &str) -> Option<&str> {
    gid.rsplit('/')
        .next()
        .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
}

fn retailer_quotes(product: &RetailerProduct, store: Option<&StoreUrl>) -> Vec<SizeQuote> {
    product
        .variants
        .iter()
        .map(|variant| {
            let price_cents = (variant.price.is_finite() && variant.price > 0.0)
                .then(|| (variant.price * 100.0).round() as i64);
            SizeQuote {
                source: QuoteSource::Retailer,
                size: size_key(&variant.size),
                label: variant.size.clone(),
                lowest_ask_cents: price_cents.filter(|_| variant.available),
                highest_bid_cents: None,
                last_sale_cents: None,
                in_stock: Some(variant.available),
                currency: variant.currency.to_ascii_uppercase(),
                store: store.map(|s| s.label().to_owned()),
                link: store.map(|s| s.product_page(&product.slug, numeric_id(&variant.id))),
            }
        })
        .collect()
}

/// What an alert matched: the quote that made it fire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertHit {
    /// Where the price was seen.
    pub source: QuoteSource,
    /// The size key.
    pub size: String,
    /// The price that matched (the stock alert's retail price, when there is one).
    pub price_cents: Option<i64>,
    /// Currency code.
    pub currency: String,
}

/// What the monitor does with an alert after a round of quotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlertStep {
    /// It is armed and matched: notify, record, disarm.
    Fire(AlertHit),
    /// It had fired, and the quotes for it no longer match: arm it again.
    Rearm,
    /// Nothing changes.
    Stay,
}

/// The quotes `spec` looks at: its size (or every size), in its currency, from the sources that
/// carry what it compares.
fn relevant<'q>(
    spec: &'q NewAlert,
    quotes: &'q [SizeQuote],
) -> impl Iterator<Item = &'q SizeQuote> {
    quotes.iter().filter(move |quote| {
        spec.size.as_ref().is_none_or(|size| *size == quote.size)
            && match spec.kind {
                AlertKind::BackInStock => quote.source == QuoteSource::Retailer,
                AlertKind::AskAtOrBelow | AlertKind::BidAtOrAbove => {
                    quote.currency.eq_ignore_ascii_case(&spec.currency)
                }
            }
    })
}

/// The best quote that satisfies `spec`, if any: the lowest matching ask, the highest matching
/// bid, or the first size in stock.
#[must_use]
pub fn alert_hit(spec: &NewAlert, quotes: &[SizeQuote]) -> Option<AlertHit> {
    let hit = |quote: &SizeQuote, price_cents: Option<i64>| AlertHit {
        source: quote.source,
        size: quote.size.clone(),
        price_cents,
        currency: quote.currency.clone(),
    };
    match spec.kind {
        AlertKind::AskAtOrBelow => {
            let limit = spec.price_cents?;
            relevant(spec, quotes)
                .filter_map(|q| q.lowest_ask_cents.map(|cents| (q, cents)))
                .filter(|(_, cents)| *cents <= limit)
                .min_by_key(|(_, cents)| *cents)
                .map(|(q, cents)| hit(q, Some(cents)))
        }
        AlertKind::BidAtOrAbove => {
            let limit = spec.price_cents?;
            relevant(spec, quotes)
                .filter_map(|q| q.highest_bid_cents.map(|cents| (q, cents)))
                .filter(|(_, cents)| *cents >= limit)
                .max_by_key(|(_, cents)| *cents)
                .map(|(q, cents)| hit(q, Some(cents)))
        }
        AlertKind::BackInStock => relevant(spec, quotes)
            .find(|q| q.in_stock == Some(true))
            .map(|q| hit(q, q.lowest_ask_cents)),
    }
}

/// The step for `alert` given a round of `quotes`: an armed alert fires on a match; a fired one
/// is armed again only when quotes for it came back and none matches (the price moved back), not
/// when the quotes are simply missing.
#[must_use]
pub fn alert_step(alert: &Alert, quotes: &[SizeQuote]) -> AlertStep {
    let hit = alert_hit(&alert.spec, quotes);
    match (alert.armed, hit) {
        (true, Some(hit)) => AlertStep::Fire(hit),
        (false, None) if relevant(&alert.spec, quotes).next().is_some() => AlertStep::Rearm,
        _ => AlertStep::Stay,
    }
}
