//! A product written to the live index as a hit store record (module `search::hits`' record
//! layout, with its CRC-32 in front, as the store keeps it), so that its hit is written by the
//! same code as a catalogue product's.

use super::LiveProduct;
use crate::search::hits::Encoder;

/// The record of `product` as the hit store keeps it: CRC-32 of the payload, then the payload,
/// field for field what the store's build writes for the same catalogue row.
pub(crate) fn stored_record(product: &LiveProduct) -> Vec<u8> {
    let hit = &product.hit;
    let mut encoder = Encoder::default();
    for text in [
        hit.age_group.as_str(),
        &hit.availability,
        &product.brand,
        &product.category,
        &product.color,
        &hit.condition,
        &product.gender,
        &product.id,
        &hit.image,
        &hit.inserted_at,
        &hit.link,
        &hit.release_date,
        &hit.size_system,
        &product.sku,
        &product.slug,
        &product.title,
    ] {
        encoder.text(text);
    }
    encoder.optional_text(product.description.as_deref());
    encoder.bytes.push(u8::from(hit.is_bundle));
    let labels = serde_json::to_string(&hit.labels).unwrap_or_else(|_| "[]".to_owned());
    encoder.bytes_field(labels.as_bytes());
    for prices in [hit.usd, hit.eur] {
        for cents in [
            prices.min_cents,
            prices.avg_cents,
            prices.max_cents,
            prices.base_cents,
            prices.retail_cents,
        ] {
            encoder.i64(cents);
        }
    }
    encoder.u32(hit.variants.len() as u32);
    for variant in &hit.variants {
        match variant.id {
            Some(id) => encoder.variant_id(id.as_bytes()),
            None => encoder.variant_id(b""),
        }
        encoder.text(&variant.size);
        encoder.optional_text(variant.gtin.as_deref());
        encoder.variant_link(variant.link.as_deref(), &variant.size);
        encoder.i64(variant.price_usd_cents);
        encoder.i64(variant.price_eur_cents);
    }
    let mut stored = Vec::with_capacity(4 + encoder.bytes.len());
    stored.extend_from_slice(&crc32fast::hash(&encoder.bytes).to_le_bytes());
    stored.extend_from_slice(&encoder.bytes);
    stored
}
