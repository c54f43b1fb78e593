//! The interface's retailer product shape (`shared/spec/interface.md`, "Retailer product"),
//! checked on a JSON answer: exactly the specified keys, with their JSON types, ids of the
//! `gid://<platform>/Product/<number>` form, timestamps with microseconds, dates as
//! `YYYY-MM-DD`. Used on the model's own serialization and on live answers of the service.
#![allow(dead_code)]

use std::collections::BTreeSet;

use serde_json::Value;

/// The keys of the retailer product's `data`.
pub const RETAILER_PRODUCT_KEYS: [&str; 12] = [
    "id",
    "title",
    "slug",
    "product_type",
    "brand",
    "description",
    "sku",
    "images",
    "colorway",
    "release_date",
    "updated_at",
    "variants",
];

/// The keys of a retailer variant.
pub const RETAILER_VARIANT_KEYS: [&str; 8] = [
    "id",
    "size",
    "price",
    "currency",
    "barcode",
    "barcode_type",
    "available",
    "updated_at",
];

fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// `gid://<platform>/<object>/<number>`.
fn assert_gid(text: &Value, object: &str) {
    let text = text
        .as_str()
        .unwrap_or_else(|| panic!("id {text} is not a string"));
    let rest = text
        .strip_prefix("gid://")
        .unwrap_or_else(|| panic!("{text} is not a gid"));
    let parts: Vec<&str> = rest.split('/').collect();
    assert_eq!(parts.len(), 3, "{text}");
    assert!(!parts[0].is_empty(), "{text}");
    assert_eq!(parts[1], object, "{text}");
    assert!(
        !parts[2].is_empty() && parts[2].bytes().all(|b| b.is_ascii_digit()),
        "{text}"
    );
}

/// An ISO 8601 UTC timestamp with six fractional digits.
fn assert_micros(text: &Value) {
    let text = text.as_str().unwrap();
    let time =
        chrono::DateTime::parse_from_rfc3339(text).unwrap_or_else(|err| panic!("{text}: {err}"));
    assert_eq!(time.offset().local_minus_utc(), 0, "{text} is not UTC");
    let fraction = text
        .rsplit_once('.')
        .map(|(_, f)| f.trim_end_matches('Z'))
        .unwrap_or_default();
    assert_eq!(fraction.len(), 6, "{text} lacks microseconds");
}

/// Asserts a retailer envelope (`{status, data}`) has the specified shape; `with_release_date`:
/// the key's tier gets `release_date` (free keys do not).
pub fn assert_retailer_envelope(body: &Value, with_release_date: bool) {
    assert_eq!(keys(body), BTreeSet::from(["status", "data"]), "{body}");
    assert_eq!(body["status"], "success");
    let data = &body["data"];
    let mut wanted: BTreeSet<&str> = RETAILER_PRODUCT_KEYS.into_iter().collect();
    if !with_release_date {
        wanted.remove("release_date");
    }
    assert_eq!(keys(data), wanted, "{data}");
    assert_gid(&data["id"], "Product");
    for key in [
        "title",
        "slug",
        "product_type",
        "brand",
        "description",
        "sku",
        "colorway",
    ] {
        assert!(data[key].is_string(), "{key}: {}", data[key]);
    }
    let images = data["images"].as_array().expect("images is an array");
    assert!(images.iter().all(Value::is_string), "{images:?}");
    if with_release_date {
        let release = data["release_date"].as_str().unwrap();
        assert!(
            release.is_empty() || chrono::NaiveDate::parse_from_str(release, "%Y-%m-%d").is_ok(),
            "{release}"
        );
    }
    assert_micros(&data["updated_at"]);
    let variants = data["variants"].as_array().expect("variants is an array");
    for variant in variants {
        assert_eq!(
            keys(variant),
            RETAILER_VARIANT_KEYS.into_iter().collect(),
            "{variant}"
        );
        assert_gid(&variant["id"], "ProductVariant");
        assert!(variant["size"].is_string());
        assert!(variant["price"].is_number());
        let currency = variant["currency"].as_str().unwrap();
        assert!(
            currency.len() == 3 && currency.bytes().all(|b| b.is_ascii_uppercase()),
            "{currency}"
        );
        assert!(variant["barcode"].is_string());
        assert!(variant["barcode_type"].is_string());
        assert!(variant["available"].is_boolean());
        assert_micros(&variant["updated_at"]);
    }
}
