//! The `retailer-a` product: a catalogue product as a Shopify-style sneaker shop sells it, at
//! retail, with stock that comes and goes over the day (hyped pairs in drops that sell out in
//! minutes).
//!
//! A size the shop does not carry (no retail price known, or the largest sizes of some
//! products) has price 0 and `available: false`, as the specification says. Barcodes are the
//! catalogue GTINs: `UPC` for 12 digits, `EAN` for 13.

use rusqlite::Connection;

use super::ids::{
    pk_from_retailer_gid, retailer_product_gid, retailer_slug, retailer_slug_keys,
    retailer_variant_gid,
};
use super::live::{Stream, retail_stock, stock_profile};
use super::store::{self, Listing, ProductRow};
use super::text;
use super::{RetailSize, RetailStock};
use crate::model::{RetailerProduct, RetailerVariant};

/// Finds a product by retailer slug or gid, or by catalogue UUID or slug.
pub(super) fn find(conn: &Connection, key: &str) -> rusqlite::Result<Option<ProductRow>> {
    if let Some(pk) = pk_from_retailer_gid(key) {
        return store::product_by_pk(conn, pk);
    }
    if let Some(product) = store::product_by_catalogue_key(conn, key)? {
        return Ok(Some(product));
    }
    let is_own =
        |product: &ProductRow| retailer_slug(&product.title, &product.sku_norm, product.pk) == key;
    let (sku_norm, pk) = retailer_slug_keys(key);
    if let Some(product) = store::products_by_sku_norm(conn, &sku_norm)?
        .into_iter()
        .find(is_own)
    {
        return Ok(Some(product));
    }
    if let Some(pk) = pk {
        return Ok(store::product_by_pk(conn, pk)?.filter(is_own));
    }
    Ok(None)
}

fn barcode_type(gtin: &str) -> &'static str {
    match gtin.len() {
        12 => "UPC",
        13 => "EAN",
        _ => "",
    }
}

/// Whether the shop carries size `position` of a run of `len`: some shops skip the two largest
/// sizes of a product, as big sizes are ordered in small numbers.
fn carried(stream: Stream, position: usize, len: usize) -> bool {
    position + 2 < len || stream.unit(position as i64) >= 0.3
}

/// The shop's description: the catalogue's as HTML, or a short one of its own.
fn description_html(product: &ProductRow) -> String {
    let html = product
        .description
        .as_deref()
        .map(text::html_paragraphs)
        .unwrap_or_default();
    if !html.is_empty() {
        return html;
    }
    format!(
        "<p>{} in {}.</p><p>Style code: {}.</p>",
        text::escape_html(&product.title),
        text::escape_html(&product.color),
        text::escape_html(&product.sku)
    )
}

/// The product as `retailer-a` shows it at `minute` (Unix minutes), for `seed`.
pub(super) fn product(listing: &Listing, seed: u64, minute: i64) -> RetailerProduct {
    let product = &listing.product;
    let slug = retailer_slug(&product.title, &product.sku_norm, product.pk);
    let profile = stock_profile(
        product.avg_usd_cents,
        product.retail_usd_cents,
        &product.availability,
    );
    let carry = Stream::new(seed, product.pk).child(0xCA);
    let len = listing.variants.len();
    let mut newest = (i64::MIN, 0u32);
    let variants = listing
        .variants
        .iter()
        .enumerate()
        .map(|(position, variant)| {
            let stock = retail_stock(seed, product.pk, variant.pk, profile, minute);
            newest = newest.max((stock.changed_at_seconds, stock.changed_at_micros));
            let priced = product.retail_usd_cents > 0 && carried(carry, position, len);
            let gtin = variant.gtin.clone().unwrap_or_default();
            RetailerVariant {
                id: retailer_variant_gid(variant.pk),
                size: text::composite_size(
                    &product.size_system,
                    &variant.size,
                    &variant.size_uk,
                    &variant.size_eu,
                ),
                price: if priced {
                    product.retail_usd_cents as f64 / 100.0
                } else {
                    0.0
                },
                currency: "USD".to_owned(),
                barcode_type: barcode_type(&gtin).to_owned(),
                barcode: gtin,
                available: priced && stock.available,
                updated_at: text::micros_timestamp(
                    stock.changed_at_seconds,
                    stock.changed_at_micros,
                ),
            }
        })
        .collect();
    if newest.0 == i64::MIN {
        let stock = retail_stock(seed, product.pk, 0, profile, minute);
        newest = (stock.changed_at_seconds, stock.changed_at_micros);
    }
    let image_base = format!("https://cdn.retailer-a.example/s/files/1/0626/products/{slug}");
    RetailerProduct {
        id: retailer_product_gid(product.pk),
        title: product.title.clone(),
        slug,
        product_type: "Sneakers".to_owned(),
        brand: product.brand.clone(),
        description: description_html(product),
        sku: product.sku.clone(),
        images: (1..=3).map(|n| format!("{image_base}-{n}.jpg")).collect(),
        colorway: product.color.clone(),
        release_date: product.release_date.clone(),
        updated_at: text::micros_timestamp(newest.0, newest.1),
        variants,
    }
}

/// What the shop has in stock of `listing` at `minute`: each size it carries and has, at
/// retail; `None` when it has no size.
pub(super) fn in_stock(listing: &Listing, seed: u64, minute: i64) -> Option<RetailStock> {
    let shown = product(listing, seed, minute);
    let sizes: Vec<RetailSize> = shown
        .variants
        .iter()
        .zip(&listing.variants)
        .filter(|(variant, _)| variant.available && variant.price > 0.0)
        .map(|(variant, row)| RetailSize {
            variant_id: u64::try_from(row.pk).unwrap_or(0),
            label: variant.size.clone(),
            us: row.size.clone(),
            price_cents: (variant.price * 100.0).round() as i64,
        })
        .collect();
    (!sizes.is_empty()).then(|| RetailStock {
        product_id: listing.product.id.clone(),
        style_code: listing.product.sku.clone(),
        title: listing.product.title.clone(),
        brand: listing.product.brand.clone(),
        slug: shown.slug,
        sizes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barcode_types_follow_the_length() {
        assert_eq!(barcode_type("193655590351"), "UPC");
        assert_eq!(barcode_type("4066748123456"), "EAN");
        assert_eq!(barcode_type(""), "");
    }

    #[test]
    fn all_but_the_two_largest_sizes_are_carried() {
        let stream = Stream::new(1, 1);
        assert!((0..13).all(|p| carried(stream, p, 15)));
        let skipped = (1..200)
            .filter(|pk| !carried(Stream::new(1, *pk).child(0xCA), 14, 15))
            .count();
        assert!((30..100).contains(&skipped), "{skipped}");
    }
}
