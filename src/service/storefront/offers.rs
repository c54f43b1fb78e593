//! What the crawl says of a store's products: those that are a catalogue product (offers), those
//! that are none (store-only), which products a store has in stock in which sizes (the
//! search narrowed to a store: `CrawledStores::in_stock`), and the catalogue products in stock
//! with their sizes' prices (the flips: `CrawledStores::flip_stock`).

use std::sync::Arc;
use std::time::Duration;

use super::catalogue_keys::{CatalogueProduct, NoMatch};
use super::feed::CrawledProduct;
use super::matching::Evidence;
use crate::model::StoreUrl;

/// A store product that is a catalogue product, as the crawl last read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchedProduct {
    /// The store.
    pub store: StoreUrl,
    /// The product: handle, title, sizes with price (major units, as written), SKU and stock.
    pub product: CrawledProduct,
    /// What matched it.
    pub by: Evidence,
    /// The prices' currency (the shop's, from `/meta.json`), when known.
    pub currency: Option<String>,
    /// When the pass that read it ended (Unix seconds).
    pub read_at_unix: Option<i64>,
}

impl MatchedProduct {
    /// How old the crawl's price and stock are.
    #[must_use]
    pub fn age(&self) -> Option<Duration> {
        let at = self.read_at_unix?;
        u64::try_from(chrono::Utc::now().timestamp() - at)
            .ok()
            .map(Duration::from_secs)
    }
}

/// A store product that is no catalogue product (store-only), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmatchedProduct {
    /// The product.
    pub product: CrawledProduct,
    /// Why it matched nothing.
    pub why: NoMatch,
}

/// What one store has in stock, against one catalogue file: per product (its catalogue row's
/// key, or a store-only product's `service::shelf` key) the US sizes it can be bought in.
#[derive(Debug, Default)]
pub struct StockList {
    /// `(pk, sizes)`, by pk; `sizes` as [`us_size`] reads them, "" for a size it cannot read.
    products: Vec<(i64, Vec<String>)>,
}

impl StockList {
    /// `products` (a key and the store product it is) as in stock.
    pub(super) fn new<'a>(products: impl IntoIterator<Item = (i64, &'a CrawledProduct)>) -> Self {
        let mut products: Vec<(i64, Vec<String>)> = products
            .into_iter()
            .filter_map(|(pk, product)| {
                let sizes: Vec<String> = product
                    .variants
                    .iter()
                    .filter(|v| v.available)
                    .map(|v| us_size(&v.size).unwrap_or_default())
                    .collect();
                (!sizes.is_empty()).then_some((pk, sizes))
            })
            .collect();
        products.sort_unstable_by_key(|(pk, _)| *pk);
        // Two listings of one catalogue product: its sizes are both's.
        products.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1.append(&mut later.1);
            }
            same
        });
        Self { products }
    }

    /// The keys (ascending) of the products in stock, in `size` (a US size: `9`, `9.5`,
    /// `US 9`) when given.
    #[must_use]
    pub fn pks(&self, size: Option<&str>) -> Vec<i64> {
        let wanted = size.map(|s| us_size(s).unwrap_or_default());
        self.products
            .iter()
            .filter(|(_, sizes)| wanted.as_ref().is_none_or(|w| sizes.contains(w)))
            .map(|(pk, _)| *pk)
            .collect()
    }
}

/// A catalogue product a store has in stock, as the flips read it: what it is, the store's
/// handle, and each size that can be bought with its price as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StockedProduct {
    /// The catalogue product's id.
    pub product_id: Arc<str>,
    /// Its style code.
    pub style_code: Arc<str>,
    /// Its title.
    pub title: Arc<str>,
    /// Its brand.
    pub brand: Arc<str>,
    /// The store's handle (`/products/{handle}`).
    pub handle: Arc<str>,
    /// What matched it.
    pub by: Evidence,
    /// The sizes in stock.
    pub sizes: Vec<StockedSize>,
}

/// A size in stock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StockedSize {
    /// The store's variant id.
    pub variant_id: u64,
    /// The size as the store writes it.
    pub label: String,
    /// The US size [`us_size`] reads from it ("" when none).
    pub us: String,
    /// The price in major units as written (`"110.00"`; "" when none).
    pub price: String,
}

impl StockedProduct {
    /// `product` as `found`, with its sizes in stock; `None` when none is.
    pub(super) fn new(
        found: &CatalogueProduct,
        by: Evidence,
        product: &CrawledProduct,
    ) -> Option<Self> {
        let sizes: Vec<StockedSize> = product
            .variants
            .iter()
            .filter(|v| v.available)
            .map(|v| StockedSize {
                variant_id: v.variant_id,
                label: v.size.clone(),
                us: us_size(&v.size).unwrap_or_default(),
                price: v.price.clone(),
            })
            .collect();
        (!sizes.is_empty()).then(|| Self {
            product_id: found.id.as_str().into(),
            style_code: found.sku.as_str().into(),
            title: found.title.as_str().into(),
            brand: found.brand.as_str().into(),
            handle: product.handle.as_str().into(),
            by,
            sizes,
        })
    }
}

/// The US size a store's size label names: the number after `US` where there is one (`US 9 /
/// UK 8 / EU 42.5`, `9 US`), else its first number (`9.5`, `M 9`), written without a trailing
/// `.0`; `None` without a number.
#[must_use]
pub fn us_size(label: &str) -> Option<String> {
    let lower = label.to_ascii_lowercase();
    let after_us = lower.find("us").map(|at| &lower[at + 2..]);
    let number = |text: &str| -> Option<String> {
        let start = text.find(|c: char| c.is_ascii_digit())?;
        let rest = &text[start..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let value: f64 = rest[..end].trim_end_matches('.').parse().ok()?;
        Some(if value.fract() == 0.0 {
            format!("{value:.0}")
        } else {
            format!("{value}")
        })
    };
    after_us
        .and_then(|text| {
            // `US 9` and `9 US`: the number right after, else the one right before.
            let next = text.trim_start();
            if next.starts_with(|c: char| c.is_ascii_digit()) {
                number(next)
            } else {
                None
            }
        })
        .or_else(|| number(&lower))
}

#[cfg(test)]
mod tests {
    use super::us_size;

    /// A catalogue product two listings of the store are: in stock in the sizes of both.
    #[test]
    fn two_listings_of_one_product_count_with_both_their_sizes() {
        use super::StockList;
        use crate::service::storefront::feed::{CrawledProduct, CrawledVariant};
        let listing = |id: u64, size: &str| CrawledProduct {
            product_id: id,
            handle: format!("listing-{id}"),
            title: "Nike Dunk Low".into(),
            vendor: "Nike".into(),
            product_type: "Sneakers".into(),
            tags: vec![],
            updated_at: String::new(),
            published_at: String::new(),
            variants: vec![CrawledVariant {
                variant_id: id * 10,
                size: size.into(),
                sku: "DD1391-100".into(),
                price: "110.00".into(),
                available: true,
                barcode: None,
            }],
            images: vec![],
        };
        let (first, second) = (listing(1, "US 8"), listing(2, "US 9"));
        let stock = StockList::new([(7, &first), (7, &second)]);
        assert_eq!(stock.pks(Some("8")), [7]);
        assert_eq!(stock.pks(Some("9")), [7]);
        assert_eq!(stock.pks(None), [7]);
        assert!(stock.pks(Some("10")).is_empty());
    }

    #[test]
    fn a_size_label_reads_as_its_us_size() {
        for (label, size) in [
            ("US 9 / UK 8 / EU 42.5", "9"),
            ("UK 8 / US 9.5", "9.5"),
            ("9", "9"),
            ("10.0", "10"),
            ("M 9 / W 10.5", "9"),
            ("9 US", "9"),
        ] {
            assert_eq!(us_size(label).as_deref(), Some(size), "{label}");
        }
        assert_eq!(us_size("One Size"), None);
    }
}
