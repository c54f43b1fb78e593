//! The storefront JSON as Shopify serves it, keyless: the two product endpoints this source reads,
//! typed from `shared/research/shopify-storefront.md` (section 1). Only the fields the mapping
//! uses are declared; any other field is ignored, and a field that may be `null` is an `Option`.
//!
//! - `GET /products/{handle}.json` → `{"product": …}`: ids, title, vendor, `body_html`, dates
//!   (`published_at`, `updated_at`, ISO 8601 with the shop's offset), options, images, and per
//!   variant the price as a decimal string at the currency's exponent with its `price_currency`,
//!   the barcode and `updated_at`. It has no `available`.
//! - `GET /products/{handle}.js` → the bare product: per variant `available` (and the barcode),
//!   with money as integers ×100 in the visitor's presentment currency, whose code it does not
//!   carry. Only `available` (and a barcode the `.json` lacks) is read from it.

use serde::Deserialize;

/// `GET /products/{handle}.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct JsonEnvelope {
    /// The product.
    pub product: JsonProduct,
}

/// The product of `/products/{handle}.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct JsonProduct {
    /// REST "simple id" (~4.7e13 today).
    pub id: u64,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// Handle (the URL name).
    #[serde(default)]
    pub handle: String,
    /// Description, HTML.
    #[serde(default)]
    pub body_html: Option<String>,
    /// Brand, as Shopify's `vendor`.
    #[serde(default)]
    pub vendor: Option<String>,
    /// Product type; may be "".
    #[serde(default)]
    pub product_type: Option<String>,
    /// When the product was published, ISO 8601 with the shop's offset.
    #[serde(default)]
    pub published_at: Option<String>,
    /// Last change, ISO 8601 with the shop's offset.
    #[serde(default)]
    pub updated_at: Option<String>,
    /// Sizes (and colours).
    #[serde(default)]
    pub variants: Vec<JsonVariant>,
    /// The options (`Size`, `Color`), by position.
    #[serde(default)]
    pub options: Vec<JsonOption>,
    /// Images.
    #[serde(default)]
    pub images: Vec<JsonImage>,
}

/// One option of a product: its name, its position (1 to 3: which `optionN` of a variant holds
/// it) and its values.
#[derive(Debug, Clone, Deserialize)]
pub struct JsonOption {
    /// `Size`, `Color`, `Shoe Size`, …
    #[serde(default)]
    pub name: String,
    /// 1, 2 or 3.
    #[serde(default)]
    pub position: u8,
    /// The values, in order.
    #[serde(default)]
    pub values: Vec<String>,
}

/// One variant of `/products/{handle}.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct JsonVariant {
    /// Variant id.
    pub id: u64,
    /// The option values joined by " / ".
    #[serde(default)]
    pub title: String,
    /// Price in major units, a decimal at the currency's exponent (`"17.200"` OMR, `"16500"`
    /// JPY).
    #[serde(default)]
    pub price: Option<String>,
    /// The price's currency code.
    #[serde(default)]
    pub price_currency: Option<String>,
    /// SKU; may be "".
    #[serde(default)]
    pub sku: Option<String>,
    /// First option value.
    #[serde(default)]
    pub option1: Option<String>,
    /// Second option value.
    #[serde(default)]
    pub option2: Option<String>,
    /// Third option value.
    #[serde(default)]
    pub option3: Option<String>,
    /// Barcode (UPC, EAN); may be absent.
    #[serde(default)]
    pub barcode: Option<String>,
    /// Last change, ISO 8601 with the shop's offset.
    #[serde(default)]
    pub updated_at: Option<String>,
}

impl JsonVariant {
    /// The value of option `position` (1 to 3).
    #[must_use]
    pub fn option(&self, position: u8) -> Option<&str> {
        match position {
            1 => self.option1.as_deref(),
            2 => self.option2.as_deref(),
            3 => self.option3.as_deref(),
            _ => None,
        }
    }
}

/// One image of `/products/{handle}.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct JsonImage {
    /// The image's URL (absolute, or `//cdn.shopify.com/…`).
    pub src: String,
}

/// `GET /products/{handle}.js`.
#[derive(Debug, Clone, Deserialize)]
pub struct JsProduct {
    /// Product id (the same as the `.json`'s).
    pub id: u64,
    /// Sizes with their stock.
    #[serde(default)]
    pub variants: Vec<JsVariant>,
}

/// One variant of `/products/{handle}.js`.
#[derive(Debug, Clone, Deserialize)]
pub struct JsVariant {
    /// Variant id.
    pub id: u64,
    /// Whether the size can be bought.
    #[serde(default)]
    pub available: bool,
    /// Barcode; `""` or `null` when absent.
    #[serde(default)]
    pub barcode: Option<String>,
}
