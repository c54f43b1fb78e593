//! What the crawl hands a source's shelf (`service::shelf`): each store's products that match
//! no product of the source's catalogue, as live-index products (retail-only: the store's
//! title, vendor, sizes, prices and stock; no market figures).

use std::sync::Arc;

use super::feed::CrawledProduct;
use crate::model::StoreUrl;
use crate::search::live::{HitPrices, HitVariant, LiveProduct, ProductHit};
use crate::service::shelf::{STORE_ID_PREFIX, STORE_PK_BASE};

/// Takes a store's whole list of store-only products for one catalogue file (called on a
/// blocking thread after each matching of that store against it).
pub type ShelfSink = Arc<dyn Fn(&StoreUrl, Vec<LiveProduct>) + Send + Sync>;

/// The label every store-only product carries, beside `store:<its store>`.
pub const RETAIL_ONLY: &str = "retail-only";

/// The index key of the store product `product_id` on a shelf.
#[must_use]
pub fn store_pk(product_id: u64) -> i64 {
    STORE_PK_BASE + i64::try_from(product_id).unwrap_or(0) % STORE_PK_BASE
}

/// A price written in major units (`"110.00"`, `"17600"`) in cents; `None` when unreadable.
fn cents(price: &str) -> Option<i64> {
    let value: f64 = price.trim().parse().ok()?;
    (value.is_finite() && (0.0..1e12).contains(&value)).then(|| (value * 100.0).round() as i64)
}

/// `product` of `store`, whose prices are in `currency` (the shop's), as a store-only product.
/// Its prices fill the dataset of their currency (US dollars, euros) and stay 0 in the other,
/// as in any other currency: a price is never shown converted by a guess.
#[must_use]
pub fn live_product(
    store: &StoreUrl,
    currency: Option<&str>,
    product: &CrawledProduct,
) -> LiveProduct {
    let pk = store_pk(product.product_id);
    let number = pk - STORE_PK_BASE;
    let in_usd = currency.is_some_and(|c| c.eq_ignore_ascii_case("USD"));
    let in_eur = currency.is_some_and(|c| c.eq_ignore_ascii_case("EUR"));
    let priced: Vec<(i64, &super::feed::CrawledVariant)> = product
        .variants
        .iter()
        .filter_map(|v| cents(&v.price).map(|c| (c, v)))
        .collect();
    let variants = priced
        .iter()
        .map(|(price, variant)| HitVariant {
            id: None,
            size: variant.size.clone(),
            gtin: variant.barcode.clone().filter(|b| !b.trim().is_empty()),
            link: Some(store.product_page(&product.handle, Some(&variant.variant_id.to_string()))),
            price_usd_cents: if in_usd { *price } else { 0 },
            price_eur_cents: if in_eur { *price } else { 0 },
        })
        .collect();
    let figures = {
        let amounts: Vec<i64> = priced.iter().map(|(price, _)| *price).collect();
        let min = amounts.iter().copied().min().unwrap_or(0);
        let max = amounts.iter().copied().max().unwrap_or(0);
        let avg = if amounts.is_empty() {
            0
        } else {
            amounts.iter().sum::<i64>() / amounts.len() as i64
        };
        HitPrices {
            min_cents: min,
            avg_cents: avg,
            max_cents: max,
            base_cents: min,
            retail_cents: min,
        }
    };
    let none = HitPrices::default();
    let sku = product
        .variants
        .iter()
        .map(|v| v.sku.trim())
        .find(|sku| !sku.is_empty())
        .unwrap_or_default()
        .to_owned();
    let in_stock = product.variants.iter().any(|v| v.available);
    let slug_store: String = store
        .label()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    LiveProduct {
        pk,
        popularity: 0,
        id: format!("{STORE_ID_PREFIX}{number}"),
        slug: format!("{slug_store}-{}", product.handle),
        sku_norm: crate::catalogue::generate::normalize_sku(&sku),
        sku,
        title: product.title.clone(),
        brand: product.vendor.clone(),
        model: product.product_type.clone(),
        category: if product.vendor.is_empty() {
            "Sneakers".to_owned()
        } else {
            format!("Sneakers > {}", product.vendor)
        },
        color: String::new(),
        gender: String::new(),
        description: None,
        hit: ProductHit {
            age_group: String::new(),
            availability: if in_stock { "in stock" } else { "out of stock" }.to_owned(),
            condition: "new".to_owned(),
            image: product.images.first().cloned().unwrap_or_default(),
            inserted_at: product.updated_at.clone(),
            link: store.product_page(&product.handle, None),
            release_date: String::new(),
            size_system: "US".to_owned(),
            is_bundle: false,
            labels: vec![RETAIL_ONLY.to_owned(), format!("store:{}", store.label())],
            usd: if in_usd { figures } else { none },
            eur: if in_eur { figures } else { none },
            variants,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::storefront::feed::CrawledVariant;

    fn product(currency_prices: &[(&str, bool)]) -> CrawledProduct {
        CrawledProduct {
            product_id: 8_123_456_789,
            handle: "asics-gel-1130-cream-pure-silver".into(),
            title: "ASICS GEL-1130 Cream Pure Silver".into(),
            vendor: "ASICS".into(),
            product_type: "Footwear".into(),
            tags: vec![],
            updated_at: "2026-11-20T10:00:00-05:00".into(),
            published_at: String::new(),
            variants: currency_prices
                .iter()
                .enumerate()
                .map(|(i, (price, available))| CrawledVariant {
                    variant_id: 100 + i as u64,
                    size: format!("{}", 8 + i),
                    sku: "1201A255-750-08".into(),
                    price: (*price).into(),
                    available: *available,
                    barcode: None,
                })
                .collect(),
            images: vec!["https://cdn.example/asics.jpg".into()],
        }
    }

    #[test]
    fn a_store_only_product_keeps_its_store_its_prices_in_their_currency_and_its_stock() {
        let store = StoreUrl::parse("https://shop.example").unwrap();
        let live = live_product(
            &store,
            Some("USD"),
            &product(&[("120.00", false), ("140.00", true)]),
        );
        assert_eq!(live.pk, STORE_PK_BASE + 8_123_456_789);
        assert_eq!(live.id, "store-8123456789");
        assert_eq!(live.slug, "shop-example-asics-gel-1130-cream-pure-silver");
        assert_eq!(live.hit.availability, "in stock");
        assert_eq!(live.hit.usd.min_cents, 12_000);
        assert_eq!(live.hit.usd.max_cents, 14_000);
        assert_eq!(live.hit.eur, HitPrices::default(), "no euro price invented");
        assert!(live.hit.labels.contains(&"store:shop.example".to_owned()));
        assert_eq!(
            live.hit.variants[1].link.as_deref(),
            Some("https://shop.example/products/asics-gel-1130-cream-pure-silver?variant=101")
        );
        live.check().unwrap();

        let yen = live_product(&store, Some("JPY"), &product(&[("17600", false)]));
        assert_eq!(yen.hit.availability, "out of stock");
        assert_eq!(
            yen.hit.usd,
            HitPrices::default(),
            "yen never shown as dollars"
        );
    }
}
