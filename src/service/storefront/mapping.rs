//! One function, [`product_from_wire`], from a storefront's two product answers to the
//! interface's `retailer-a` product, field by field (the mapping table of docs/stores.md):
//!
//! | interface | storefront |
//! |---|---|
//! | `id` | `gid://shopify/Product/<product.id>` |
//! | `title`, `slug` | `title`, `handle` |
//! | `product_type`, `brand` | `product_type`, `vendor` |
//! | `description` | `body_html` (HTML) |
//! | `sku` | the variants' SKUs: the one they share, or their common stem (`DD1391-100-9`, `DD1391-100-10` → `DD1391-100`) |
//! | `images` | `images[].src`, made absolute against the store |
//! | `colorway` | the value(s) of the option named Color/Colour/Colorway, else "" |
//! | `release_date` | the date of `published_at` (the store's publication date, in the store's time zone) |
//! | `updated_at` | the newest `updated_at` of the product and its variants, in UTC with microseconds |
//! | variant `id` | `gid://shopify/ProductVariant/<variant.id>` |
//! | variant `size` | the value of the option named Size, whichever `optionN` holds it |
//! | variant `price`, `currency` | `.json` `price` (a decimal in major units) and `price_currency` |
//! | variant `barcode`, `barcode_type` | `.json` `barcode` (else the `.js` one); `UPC` for 12 digits, `EAN-13` for 13, else "" |
//! | variant `available` | `.js` `available` (false when the `.js` lacks the variant) |
//! | variant `updated_at` | `.json` variant `updated_at`, in UTC with microseconds |
//!
//! Money: the `.js` endpoint gives integers ×100 in the visitor's presentment currency *for every
//! currency* (JPY and three-decimal ones included) and names no currency, so prices are read from
//! the `.json`, which names the currency and writes the amount in major units.

use std::collections::HashMap;

use chrono::{DateTime, SecondsFormat, Utc};

use super::wire::{JsProduct, JsonProduct, JsonVariant};
use crate::model::{RetailerProduct, RetailerVariant, StoreUrl};

/// A storefront answer that cannot be mapped: the message names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MappingError(String);

/// `UPC` for 12 digits, `EAN-13` for 13, "" otherwise (absent, or another length).
#[must_use]
pub fn barcode_type(barcode: &str) -> &'static str {
    if !barcode.bytes().all(|b| b.is_ascii_digit()) {
        return "";
    }
    match barcode.len() {
        12 => "UPC",
        13 => "EAN-13",
        _ => "",
    }
}

/// An ISO 8601 time with any offset, as UTC with microseconds (`2026-10-06T18:00:20.000000Z`).
fn utc_micros(field: &str, text: &str) -> Result<String, MappingError> {
    DateTime::parse_from_rfc3339(text.trim())
        .map(|time| {
            time.with_timezone(&Utc)
                .to_rfc3339_opts(SecondsFormat::Micros, true)
        })
        .map_err(|err| MappingError(format!("{field} is not an ISO 8601 time ({err}): {text:?}")))
}

/// The position (1 to 3) of the option whose name is `wanted` (any case), or else contains it.
fn option_position(product: &JsonProduct, wanted: &[&str]) -> Option<u8> {
    let name_is = |name: &str| wanted.iter().any(|w| name.trim().eq_ignore_ascii_case(w));
    let name_has = |name: &str| {
        let lower = name.to_ascii_lowercase();
        wanted
            .iter()
            .any(|w| lower.contains(&w.to_ascii_lowercase()))
    };
    let positioned = |index: usize, position: u8| {
        if (1..=3).contains(&position) {
            position
        } else {
            // A store that leaves out `position` lists the options in order.
            u8::try_from(index + 1).unwrap_or(0)
        }
    };
    let options = || product.options.iter().enumerate();
    options()
        .find(|(_, o)| name_is(&o.name))
        .or_else(|| options().find(|(_, o)| name_has(&o.name)))
        .map(|(index, o)| positioned(index, o.position))
}

/// The variant's size: the Size option's value; without one, the variant's title (empty for a
/// product with a single "Default Title" variant).
fn size_of(variant: &JsonVariant, size_position: Option<u8>) -> String {
    size_or_title(
        size_position.and_then(|p| variant.option(p)),
        &variant.title,
    )
}

/// A variant's size from the value of its Size option (`size_value`) or else its `title`:
/// Shopify names the only variant of a product without options "Default Title", which is no
/// size. Both of a store's product answers (the feed and `/products/{handle}.json`) read sizes
/// this way.
pub(super) fn size_or_title(size_value: Option<&str>, title: &str) -> String {
    if let Some(value) = size_value {
        return value.trim().to_owned();
    }
    let title = title.trim();
    if title.eq_ignore_ascii_case("Default Title") {
        String::new()
    } else {
        title.to_owned()
    }
}

/// A `.json` price: a decimal in major units; absent or "" is 0 (no price).
fn price_of(index: usize, variant: &JsonVariant) -> Result<f64, MappingError> {
    let text = variant.price.as_deref().map_or("", str::trim);
    if text.is_empty() {
        return Ok(0.0);
    }
    match text.parse::<f64>() {
        Ok(price) if price.is_finite() && price >= 0.0 => Ok(price),
        _ => Err(MappingError(format!(
            "product.variants[{index}].price is not an amount: {text:?}"
        ))),
    }
}

/// A `.json` variant's currency: three letters, upper-cased.
fn currency_of(index: usize, variant: &JsonVariant) -> Result<String, MappingError> {
    let code = variant.price_currency.as_deref().map_or("", str::trim);
    if code.len() == 3 && code.bytes().all(|b| b.is_ascii_alphabetic()) {
        Ok(code.to_ascii_uppercase())
    } else if code.is_empty() {
        Err(MappingError(format!(
            "product.variants[{index}].price_currency is missing: the store does not say which currency its prices are in"
        )))
    } else {
        Err(MappingError(format!(
            "product.variants[{index}].price_currency is not a currency code: {code:?}"
        )))
    }
}

/// What separates a style code from a size in a SKU (`DD1391-100-9`).
const SEPARATORS: [char; 5] = ['-', '_', ' ', '/', '.'];

/// The SKU the variants share, or their common stem without a trailing separator.
fn shared_sku(variants: &[JsonVariant]) -> String {
    let skus: Vec<&str> = variants.iter().filter_map(|v| v.sku.as_deref()).collect();
    common_sku(&skus)
}

/// The SKU `skus` share (blank ones left out), or their common stem without a trailing
/// separator (`DD1391-100-9`, `DD1391-100-10` → `DD1391-100`).
pub(super) fn common_sku(skus: &[&str]) -> String {
    let skus: Vec<&str> = skus
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    let Some(first) = skus.first() else {
        return String::new();
    };
    let mut stem = *first;
    for sku in &skus[1..] {
        let common = stem
            .char_indices()
            .zip(sku.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((at, c), _)| at + c.len_utf8());
        stem = &stem[..common];
    }
    if skus.iter().any(|s| s.len() != stem.len()) {
        // The stem may end inside the size part (`…-10`, `…-11` share `…-1`): cut it back to
        // the last separator.
        stem = &stem[..stem.rfind(SEPARATORS).unwrap_or(0)];
        stem = stem.trim_end_matches(SEPARATORS);
    }
    stem.to_owned()
}

/// The store's product (`.json` and `.js` of one handle) as the interface's retailer product.
///
/// # Errors
/// A price, currency or time that cannot be read, or two answers about different products.
pub fn product_from_wire(
    store: &StoreUrl,
    json: &JsonProduct,
    js: &JsProduct,
) -> Result<RetailerProduct, MappingError> {
    if json.id != js.id {
        return Err(MappingError(format!(
            "the store's .json and .js answers are about different products ({} and {})",
            json.id, js.id
        )));
    }
    let stock: HashMap<u64, &super::wire::JsVariant> =
        js.variants.iter().map(|v| (v.id, v)).collect();
    let size_position = option_position(json, &["size"]);
    let mut newest: Option<(DateTime<Utc>, String)> = None;
    let mut note_time = |field: &str, text: Option<&str>| -> Result<String, MappingError> {
        let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
            return Ok(String::new());
        };
        let formatted = utc_micros(field, text)?;
        if let Ok(time) = DateTime::parse_from_rfc3339(text.trim()) {
            let time = time.with_timezone(&Utc);
            if newest.as_ref().is_none_or(|(t, _)| time > *t) {
                newest = Some((time, formatted.clone()));
            }
        }
        Ok(formatted)
    };
    note_time("product.updated_at", json.updated_at.as_deref())?;
    let mut variants = Vec::with_capacity(json.variants.len());
    for (index, variant) in json.variants.iter().enumerate() {
        let js_variant = stock.get(&variant.id);
        let barcode = variant
            .barcode
            .as_deref()
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .or_else(|| {
                js_variant
                    .and_then(|v| v.barcode.as_deref())
                    .map(str::trim)
                    .filter(|b| !b.is_empty())
            })
            .unwrap_or_default()
            .to_owned();
        variants.push(RetailerVariant {
            id: format!("gid://shopify/ProductVariant/{}", variant.id),
            size: size_of(variant, size_position),
            price: price_of(index, variant)?,
            currency: currency_of(index, variant)?,
            barcode_type: barcode_type(&barcode).to_owned(),
            barcode,
            available: js_variant.is_some_and(|v| v.available),
            updated_at: note_time(
                &format!("product.variants[{index}].updated_at"),
                variant.updated_at.as_deref(),
            )?,
        });
    }
    let updated_at = newest.map(|(_, text)| text).unwrap_or_default();
    for variant in &mut variants {
        if variant.updated_at.is_empty() {
            variant.updated_at.clone_from(&updated_at);
        }
    }
    let release_date = match json.published_at.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => DateTime::parse_from_rfc3339(text)
            .map(|time| time.date_naive().format("%Y-%m-%d").to_string())
            .map_err(|err| {
                MappingError(format!(
                    "product.published_at is not an ISO 8601 time ({err}): {text:?}"
                ))
            })?,
        _ => String::new(),
    };
    let colorway = option_position(json, &["color", "colour", "colorway", "colourway"])
        .and_then(|position| {
            json.options
                .iter()
                .find(|o| o.position == position)
                .or_else(|| json.options.get(usize::from(position.saturating_sub(1))))
        })
        .map(|option| option.values.join(" / "))
        .unwrap_or_default();
    let base = reqwest::Url::parse(store.as_str()).ok();
    let mut images: Vec<String> = Vec::new();
    for image in &json.images {
        let src = image.src.trim();
        let absolute = base
            .as_ref()
            .and_then(|base| base.join(src).ok())
            .map(String::from);
        if let Some(url) = absolute.filter(|url| !images.contains(url)) {
            images.push(url);
        }
    }
    Ok(RetailerProduct {
        id: format!("gid://shopify/Product/{}", json.id),
        title: json.title.trim().to_owned(),
        slug: json.handle.trim().to_owned(),
        product_type: json.product_type.clone().unwrap_or_default(),
        brand: json.vendor.clone().unwrap_or_default(),
        description: json.body_html.clone().unwrap_or_default(),
        sku: shared_sku(&json.variants),
        images,
        colorway,
        release_date,
        updated_at,
        variants,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(id: u64, sku: &str) -> JsonVariant {
        serde_json::from_value(serde_json::json!({"id": id, "sku": sku})).unwrap()
    }

    #[test]
    fn barcodes_are_typed_by_length() {
        assert_eq!(barcode_type("196153879826"), "UPC");
        assert_eq!(barcode_type("4066748123456"), "EAN-13");
        assert_eq!(barcode_type("49738645"), "");
        assert_eq!(barcode_type(""), "");
        assert_eq!(barcode_type("19615387982X"), "");
    }

    #[test]
    fn times_become_utc_with_microseconds() {
        assert_eq!(
            utc_micros("t", "2026-10-06T11:00:20-07:00").unwrap(),
            "2026-10-06T18:00:20.000000Z"
        );
        assert!(utc_micros("t", "yesterday").is_err());
    }

    #[test]
    fn the_sku_is_the_shared_one_or_the_common_stem() {
        let same = [variant(1, "DD1391-100"), variant(2, "DD1391-100")];
        assert_eq!(shared_sku(&same), "DD1391-100");
        let sized = [variant(1, "DD1391-100-9"), variant(2, "DD1391-100-10")];
        assert_eq!(shared_sku(&sized), "DD1391-100");
        let teens = [variant(1, "DD1391-100-10"), variant(2, "DD1391-100-11")];
        assert_eq!(shared_sku(&teens), "DD1391-100");
        assert_eq!(shared_sku(&[variant(1, "")]), "");
        assert_eq!(shared_sku(&[variant(1, "FZ5808 001")]), "FZ5808 001");
    }
}
