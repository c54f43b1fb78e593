//! What a crawled store has just published, for the release calendar: its products with a
//! `published_at` (the store opens them then: a time ahead is a coming drop at that store), and
//! its products new since the store was first read (handles that came in a later pass). Kept
//! with each store's matches (`crawled_stores.rs`), each with the catalogue product it is,
//! when the crawl matched it by style code or barcode; the calendar decides by the time which
//! are coming and matches the others to its other sources by the codes they carry.

use std::collections::HashMap;

use super::catalogue_keys;
use super::feed::CrawledProduct;
use super::matching::Evidence;
use super::offers::us_size;
use crate::model::StoreUrl;

/// Words that say a product is a shoe (its type, tags or title).
const SHOE_WORDS: &[&str] = &["shoe", "sneaker", "footwear", "trainer", "boot", "slide"];

/// Whether a store product is a shoe: its type, tags or title say so, or its vendor is a
/// sneaker brand.
#[must_use]
pub fn looks_like_a_shoe(product: &CrawledProduct) -> bool {
    let has = |text: &str| {
        let lower = text.to_ascii_lowercase();
        SHOE_WORDS.iter().any(|word| lower.contains(word))
    };
    has(&product.product_type)
        || product.tags.iter().any(|tag| has(tag))
        || has(&product.title)
        || catalogue_keys::brand_family(&product.vendor).is_some()
}

/// A store product the calendar may show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreDrop {
    /// The store.
    pub store: StoreUrl,
    /// Its handle there (the store's own name for it).
    pub handle: String,
    /// Its title there.
    pub title: String,
    /// Its vendor (the brand, as the store writes it).
    pub vendor: String,
    /// Its page at the store.
    pub link: String,
    /// A picture.
    pub image: String,
    /// When the store publishes it, as written (ISO 8601 with the shop's offset); "" when none.
    pub published_at: String,
    /// When the pass that first saw it started (Unix seconds), for a product new since the
    /// store was first read; `None` for one that was there from the first pass.
    pub arrived_at: Option<i64>,
    /// The catalogue product it is (its UUID), when the crawl matched it.
    pub catalogue_id: Option<String>,
    /// The style code its SKUs share (`style_code_of_skus`), when they share one.
    pub style_code: Option<String>,
    /// Its SKUs, title and handle: where a style code is found for the calendar's other
    /// sources (`matching::match_by_code`).
    pub skus: Vec<String>,
    /// The US sizes it lists.
    pub sizes: Vec<String>,
    /// Its lowest price in cents of `currency`, when it has one.
    pub price_cents: Option<i64>,
    /// The shop's currency.
    pub currency: Option<String>,
}

/// A price written in major units (`"110.00"`) in cents.
fn cents(price: &str) -> Option<i64> {
    let value: f64 = price.trim().parse().ok()?;
    (value.is_finite() && value > 0.0 && value < 1e9).then(|| (value * 100.0).round() as i64)
}

/// How far back a publication still counts (the calendar shows the current week).
const RECENT_SECS: i64 = 8 * 24 * 3600;

/// `published_at` as Unix seconds, when it is a time.
#[must_use]
pub fn published_unix(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|at| at.timestamp())
}

/// The products of `store` the calendar may show at `now_unix`: shoes (or catalogue products)
/// the store publishes ahead or published in the last eight days, and those new since the
/// store's first pass (`arrivals`: product id to when it came). `matched` holds the catalogue
/// products the crawl matched, by catalogue UUID.
#[must_use]
#[allow(
    clippy::implicit_hasher,
    reason = "called with the store catalogue's own maps only"
)]
pub fn store_drops(
    store: &StoreUrl,
    currency: Option<&str>,
    products: &[(CrawledProduct, Option<String>)],
    matched: &HashMap<String, Vec<(u64, Evidence)>>,
    arrivals: &HashMap<u64, i64>,
    now_unix: i64,
) -> Vec<StoreDrop> {
    let catalogue_of: HashMap<u64, &String> = matched
        .iter()
        .flat_map(|(id, found)| found.iter().map(move |(product, _)| (*product, id)))
        .collect();
    products
        .iter()
        .map(|(product, _)| product)
        .filter(|product| {
            published_unix(&product.published_at).is_some_and(|at| at >= now_unix - RECENT_SECS)
                || arrivals.contains_key(&product.product_id)
        })
        .filter(|product| {
            catalogue_of.contains_key(&product.product_id) || looks_like_a_shoe(product)
        })
        .map(|product| {
            let mut sizes: Vec<String> = Vec::new();
            for variant in &product.variants {
                if let Some(size) = us_size(&variant.size)
                    && !sizes.contains(&size)
                {
                    sizes.push(size);
                }
            }
            let mut skus: Vec<String> = product
                .variants
                .iter()
                .map(|v| v.sku.clone())
                .filter(|sku| !sku.is_empty())
                .collect();
            skus.push(product.title.clone());
            skus.push(product.handle.clone());
            StoreDrop {
                store: store.clone(),
                handle: product.handle.clone(),
                title: product.title.clone(),
                vendor: product.vendor.clone(),
                link: store.product_page(&product.handle, None),
                image: product.images.first().cloned().unwrap_or_default(),
                published_at: product.published_at.clone(),
                arrived_at: arrivals.get(&product.product_id).copied(),
                catalogue_id: catalogue_of
                    .get(&product.product_id)
                    .map(|id| (*id).clone()),
                style_code: style_code_of_skus(product.variants.iter().map(|v| v.sku.as_str())),
                skus,
                sizes,
                price_cents: product
                    .variants
                    .iter()
                    .filter_map(|v| cents(&v.price))
                    .min(),
                currency: currency.map(str::to_owned),
            }
        })
        .collect()
}

/// The style code a product's SKUs share, for a product no other source names: each SKU
/// without the size after the code (a last part of at most four digits and points after a
/// dash, space or underscore: `DD1391-100-095`, `dd1391 101 8.5`), and the result only when
/// every SKU gives the same one with a digit in it.
#[must_use]
pub fn style_code_of_skus<'a>(skus: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut shared: Option<String> = None;
    for sku in skus.map(str::trim).filter(|sku| !sku.is_empty()) {
        let code = match sku.rsplit_once(['-', ' ', '_']) {
            Some((code, size))
                if !code.trim().is_empty()
                    && size.len() <= 4
                    && !size.is_empty()
                    && size.chars().all(|c| c.is_ascii_digit() || c == '.') =>
            {
                code.trim()
            }
            _ => sku,
        };
        match &shared {
            None => shared = Some(code.to_owned()),
            Some(found) if found.eq_ignore_ascii_case(code) => {}
            Some(_) => return None,
        }
    }
    shared.filter(|code| code.len() >= 5 && code.bytes().any(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::style_code_of_skus;

    #[test]
    fn the_code_skus_share_without_their_sizes() {
        let code = |skus: &[&str]| style_code_of_skus(skus.iter().copied());
        assert_eq!(
            code(&["DD1391-100-070", "DD1391-100-080"]).as_deref(),
            Some("DD1391-100")
        );
        assert_eq!(
            code(&["dd1391 101 8.5", "dd1391 101 9"]).as_deref(),
            Some("dd1391 101")
        );
        assert_eq!(code(&["QQ9999001-085"]).as_deref(), Some("QQ9999001"));
        assert_eq!(code(&["TEE-001-S", "TEE-001-M"]), None);
        assert_eq!(code(&["AB1234-100-9", "CD5678-100-9"]), None);
        assert_eq!(code(&[]), None);
    }
}
