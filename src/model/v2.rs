//! Version 2 payloads: the common v2 envelope, the catalogue product and weekly order records.

use serde::{Deserialize, Serialize};

/// Envelope of every v2 response (`/api/v2/...`).
///
/// `meta` is always serialized, as `null`, because the specification shows it
/// as present and null on every v2 response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct V2Envelope<T> {
    /// `success` on success, `error` on failure.
    pub status: String,
    /// Machine-readable error code; empty on success.
    pub error: String,
    /// Human-readable error message; empty on success.
    pub message: String,
    /// Echo of the query; an empty object in every case that occurs.
    pub query: serde_json::Map<String, serde_json::Value>,
    /// The payload; see each endpoint.
    pub data: T,
    /// Always `null` on v2.
    pub meta: Option<serde_json::Value>,
}

impl<T> V2Envelope<T> {
    /// A successful envelope around `data`.
    #[must_use]
    pub fn success(data: T) -> Self {
        Self {
            status: "success".to_owned(),
            error: String::new(),
            message: String::new(),
            query: serde_json::Map::new(),
            data,
            meta: None,
        }
    }
}

impl V2Envelope<serde_json::Value> {
    /// An error envelope: status `error`, the given code and message, and `null` data.
    #[must_use]
    pub fn error(code: &str, message: impl Into<String>) -> Self {
        Self {
            status: "error".to_owned(),
            error: code.to_owned(),
            message: message.into(),
            query: serde_json::Map::new(),
            data: serde_json::Value::Null,
            meta: None,
        }
    }
}

/// A catalogue product as returned by the v2 single-product lookup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Product {
    /// Product UUID.
    pub id: String,
    /// URL-friendly product name.
    pub slug: String,
    /// Manufacturer style code.
    pub sku: String,
    /// Product title.
    pub title: String,
    /// Brand name.
    pub brand: String,
    /// Category path string.
    pub category: String,
    /// Colour as written by the source.
    pub color: String,
    /// Gender the product is made for.
    pub gender: String,
    /// Description; may contain HTML line-break tags.
    pub description: String,
    /// Main image URL.
    pub image: String,
    /// Further image URLs; serialized as `null` when absent, as in the shown case.
    pub images: Option<Vec<String>>,
    /// Currency code of every money value of this product.
    pub currency: String,
    /// Average variant price.
    pub avg_price: f64,
    /// Lowest variant price.
    pub min_price: f64,
    /// Highest variant price.
    pub max_price: f64,
    /// Whether the product is currently trending.
    pub trending: bool,
    /// Release dates; the free tier omits the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_dates: Option<Vec<ReleaseDate>>,
    /// Retail prices; the free tier omits the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retail_prices: Option<Vec<RetailPrice>>,
    /// Marketplace links.
    pub links: Vec<Link>,
    /// One entry per size.
    pub variants: Vec<Variant>,
}

/// A release date of a product, as reported by one source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ReleaseDate {
    /// Manufacturer style code.
    pub sku: String,
    /// Either a year (`YYYY`) or a date (`YYYY-MM-DD`).
    pub release_date: String,
    /// Where the date comes from, e.g. `resale_b_yyyy` or `resale_b_yyyy_mm_dd`.
    pub source: String,
}

/// A retail price of a product, as reported by one source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RetailPrice {
    /// Manufacturer style code.
    pub sku: String,
    /// Price in `currency`.
    pub price: f64,
    /// Currency code.
    pub currency: String,
    /// Where the price comes from, e.g. `extracting` or `srp`.
    pub source: String,
}

/// A link to the product on a marketplace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Link {
    /// Product page URL.
    pub link: String,
    /// Marketplace the link points to, e.g. `resale_b`.
    pub target: String,
    /// Lowest price on that marketplace, in the product's currency.
    pub min_price: f64,
}

/// One size of a v2 catalogue product.
///
/// Unlike the search dataset, the v2 payload still names the URL field `link`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Variant {
    /// Variant UUID.
    pub id: String,
    /// UUID of the parent product.
    pub product_id: String,
    /// Manufacturer style code.
    pub sku: String,
    /// Variant title.
    pub title: String,
    /// Variant description.
    pub description: String,
    /// Brand name.
    pub brand: String,
    /// Category path string.
    pub category: String,
    /// Colour as written by the source.
    pub color: String,
    /// Gender the product is made for.
    pub gender: String,
    /// Barcode (GTIN).
    pub gtin: String,
    /// Size label.
    pub size: String,
    /// Variant page URL.
    pub link: String,
    /// Image URL.
    pub image: String,
    /// Price of this size, in `currency`.
    pub price: f64,
    /// Currency code.
    pub currency: String,
    /// Free tags.
    pub tags: Vec<String>,
    /// Category and model of the variant.
    pub metadata: VariantMetadata,
    /// Where the variant comes from, e.g. `resale_b`.
    pub source: String,
    /// Asks open for this size, where a live source says so (an addition to the interface's
    /// variant; absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asks: Option<u32>,
}

/// The `metadata` object of a [`Variant`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct VariantMetadata {
    /// Category name.
    pub category: String,
    /// Model name.
    pub model: String,
}

/// Market figures of one product for one week.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WeeklyOrder {
    /// Ranking position for that week; 1 is best. `null` where the source gives no weekly rank
    /// (a live source): never invented.
    #[serde(default)]
    pub position: Option<u32>,
    /// Order count for the week.
    pub orders: u32,
    /// Average order value.
    pub aov: f64,
    /// Gross merchandise value.
    pub gmv: f64,
    /// ISO 8601 timestamp of the start of the week, time `00:00:00Z`.
    pub inserted_at: String,
}

#[cfg(test)]
impl Product {
    /// A USD "Air Jordan 11" at `avg_price` (min `min_price`, max twice the average) with no
    /// variants, links, release dates or retail prices, for unit tests.
    pub(crate) fn for_test(avg_price: f64, min_price: f64) -> Self {
        Product {
            id: "p".to_owned(),
            slug: "aj11".to_owned(),
            sku: "CT8012-005".to_owned(),
            title: "Air Jordan 11".to_owned(),
            brand: "Jordan".to_owned(),
            category: "sneakers".to_owned(),
            color: "Cool Grey".to_owned(),
            gender: "men".to_owned(),
            description: String::new(),
            image: String::new(),
            images: None,
            currency: "USD".to_owned(),
            avg_price,
            min_price,
            max_price: avg_price * 2.0,
            trending: false,
            release_dates: None,
            retail_prices: None,
            links: Vec::new(),
            variants: Vec::new(),
        }
    }
}

#[cfg(test)]
impl Variant {
    /// A USD variant of `size` at `price` with every other field empty, for unit tests.
    pub(crate) fn for_test(size: &str, price: f64) -> Self {
        Variant {
            id: size.to_owned(),
            product_id: "p".to_owned(),
            sku: "CT8012-005".to_owned(),
            title: String::new(),
            description: String::new(),
            brand: String::new(),
            category: String::new(),
            color: String::new(),
            gender: String::new(),
            gtin: String::new(),
            size: size.to_owned(),
            link: String::new(),
            image: String::new(),
            price,
            currency: "USD".to_owned(),
            tags: Vec::new(),
            metadata: VariantMetadata {
                category: String::new(),
                model: String::new(),
            },
            source: "resale_b".to_owned(),
            asks: None,
        }
    }
}
