//! A store's whole catalogue as Shopify serves it, keyless (`shared/research/shopify-storefront.md`
//! section 1): the paged `GET /products.json?limit=250&page=N` and the shop's `GET /meta.json`,
//! typed here, and one function ([`product_from_feed`]) from a feed product to what the crawl
//! keeps ([`CrawledProduct`]).
//!
//! - `/products.json` → `{"products": [...]}`, no total and no `Link` header; the end is a page
//!   shorter than `limit` (or empty). Per product: `id`, `title`, `handle`, `vendor`,
//!   `product_type` (may be ""), `tags` (an array here; a comma-separated string in
//!   `/products/{handle}.json`: both are read), `updated_at`, `options`, `images`, and per variant
//!   `id`, `title`, `option1..3`, `sku` (may be ""), `price` (a string in major units) and
//!   `available`. **No barcode and no currency.**
//! - `/meta.json` → the shop: `currency` (its base currency: the feed's prices are in it) and
//!   `published_products_count` (how many pages a pass needs).
//!
//! A page is decoded product by product (`RawValue`), so one malformed product is skipped and
//! named instead of the whole page.

use serde::Deserialize;
use serde_json::value::RawValue;

/// `GET /products.json`, each product still undecoded.
#[derive(Debug, Deserialize)]
pub struct FeedPage {
    /// The page's products.
    pub products: Vec<Box<RawValue>>,
}

/// Only the id of a product, to name a product that does not decode.
#[derive(Debug, Deserialize)]
pub struct FeedProductId {
    /// The product id.
    pub id: u64,
}

/// One product of `/products.json`.
#[derive(Debug, Deserialize)]
pub struct FeedProduct {
    /// REST "simple id".
    pub id: u64,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// Handle.
    #[serde(default)]
    pub handle: String,
    /// Brand, as Shopify's vendor.
    #[serde(default)]
    pub vendor: Option<String>,
    /// Product type; may be "".
    #[serde(default)]
    pub product_type: Option<String>,
    /// Tags.
    #[serde(default)]
    pub tags: Option<Tags>,
    /// Last change, ISO 8601 with the shop's offset, as written.
    #[serde(default)]
    pub updated_at: Option<String>,
    /// When the store published it (or will: a time ahead is a coming drop), as written.
    #[serde(default)]
    pub published_at: Option<String>,
    /// The options (`Size`, `Color`), by position.
    #[serde(default)]
    pub options: Vec<FeedOption>,
    /// Sizes.
    #[serde(default)]
    pub variants: Vec<FeedVariant>,
    /// Images.
    #[serde(default)]
    pub images: Vec<FeedImage>,
}

/// Tags: an array in `/products.json`, one comma-separated string in `/products/{handle}.json`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Tags {
    /// `["Sneakers", "Nike"]`.
    List(Vec<String>),
    /// `"Sneakers, Nike"`.
    Text(String),
}

impl Tags {
    fn into_list(self) -> Vec<String> {
        let list = match self {
            Self::List(list) => list,
            Self::Text(text) => text.split(',').map(str::to_owned).collect(),
        };
        list.into_iter()
            .map(|tag| tag.trim().to_owned())
            .filter(|tag| !tag.is_empty())
            .collect()
    }
}

/// An option of a product.
#[derive(Debug, Deserialize)]
pub struct FeedOption {
    /// `Size`, `Color`, `Shoe Size`, ...
    #[serde(default)]
    pub name: String,
    /// 1 to 3: which `optionN` of a variant holds it.
    #[serde(default)]
    pub position: Option<u8>,
}

/// A price as a store writes it: a string (`"110.00"`), or a number from a store that differs.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum PriceText {
    /// `"110.00"`.
    Text(String),
    /// `110.0`.
    Number(serde_json::Number),
}

/// One variant of `/products.json`.
#[derive(Debug, Deserialize)]
pub struct FeedVariant {
    /// Variant id.
    pub id: u64,
    /// The option values joined by " / ".
    #[serde(default)]
    pub title: String,
    /// First option value.
    #[serde(default)]
    pub option1: Option<String>,
    /// Second option value.
    #[serde(default)]
    pub option2: Option<String>,
    /// Third option value.
    #[serde(default)]
    pub option3: Option<String>,
    /// SKU; may be "" or absent.
    #[serde(default)]
    pub sku: Option<String>,
    /// Price in major units of the shop's currency.
    #[serde(default)]
    pub price: Option<PriceText>,
    /// Whether the size can be bought.
    #[serde(default)]
    pub available: Option<bool>,
    /// Not in `/products.json` (the research notes); read should a store send it.
    #[serde(default)]
    pub barcode: Option<String>,
}

/// An image of a product.
#[derive(Debug, Deserialize)]
pub struct FeedImage {
    /// Its URL (absolute, or `//cdn.shopify.com/...`).
    #[serde(default)]
    pub src: String,
}

/// `GET /meta.json`: the shop.
#[derive(Debug, Deserialize)]
pub struct ShopMeta {
    /// The shop's name.
    #[serde(default)]
    pub name: Option<String>,
    /// The shop's base currency (ISO 4217).
    #[serde(default)]
    pub currency: Option<String>,
    /// How many products it publishes.
    #[serde(default)]
    pub published_products_count: Option<u64>,
}

/// A store product as the crawl keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawledProduct {
    /// The store's product id.
    pub product_id: u64,
    /// Its handle (`/products/{handle}`).
    pub handle: String,
    /// Title.
    pub title: String,
    /// Vendor (the brand, as the store writes it).
    pub vendor: String,
    /// Product type.
    pub product_type: String,
    /// Tags.
    pub tags: Vec<String>,
    /// `updated_at` exactly as the store wrote it: a changed text means a changed product.
    pub updated_at: String,
    /// `published_at` as the store wrote it (ISO 8601 with the shop's offset); "" when none.
    pub published_at: String,
    /// Sizes.
    pub variants: Vec<CrawledVariant>,
    /// Image URLs, absolute.
    pub images: Vec<String>,
}

/// A size of a store product.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawledVariant {
    /// The store's variant id.
    pub variant_id: u64,
    /// The value of the option named Size (else the variant's title; "" for "Default Title").
    pub size: String,
    /// SKU ("" when none).
    pub sku: String,
    /// Price in major units of the shop's currency, as written (`"110.00"`); "" when none.
    pub price: String,
    /// Whether it can be bought.
    pub available: bool,
    /// Barcode, once read from `/products/{handle}.json` (the feed has none).
    pub barcode: Option<String>,
}

/// Why a feed product cannot be kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FeedError(pub String);

/// The position (1 to 3) of the option named Size (any case), or else one whose name holds
/// "size" (`Shoe Size`, `サイズ Size`); options without a position count in order.
fn size_position(options: &[FeedOption]) -> Option<u8> {
    let positioned = |index: usize, option: &FeedOption| {
        option
            .position
            .filter(|p| (1..=3).contains(p))
            .or_else(|| u8::try_from(index + 1).ok())
    };
    options
        .iter()
        .enumerate()
        .find(|(_, o)| o.name.trim().eq_ignore_ascii_case("size"))
        .or_else(|| {
            options
                .iter()
                .enumerate()
                .find(|(_, o)| o.name.to_ascii_lowercase().contains("size"))
        })
        .and_then(|(index, option)| positioned(index, option))
}

/// The variant's size: the value of its option at `position` (the Size option), else its title.
fn size_of(variant: &FeedVariant, position: Option<u8>) -> String {
    let value = match position {
        Some(1) => variant.option1.as_deref(),
        Some(2) => variant.option2.as_deref(),
        Some(3) => variant.option3.as_deref(),
        _ => None,
    };
    super::mapping::size_or_title(value, &variant.title)
}

/// A price text in major units: digits with at most one point (`"110.00"`, `"16500"`, `"17.200"`).
fn price_of(index: usize, price: Option<&PriceText>) -> Result<String, FeedError> {
    let text = match price {
        None => return Ok(String::new()),
        Some(PriceText::Text(text)) => text.trim().to_owned(),
        Some(PriceText::Number(number)) => number.to_string(),
    };
    let mut parts = text.split('.');
    let whole = parts.next().unwrap_or_default();
    let fraction = parts.next();
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    if text.is_empty() || (digits(whole) && fraction.is_none_or(digits) && parts.next().is_none()) {
        Ok(text)
    } else {
        Err(FeedError(format!(
            "variants[{index}].price is not an amount: {text:?}"
        )))
    }
}

/// The feed product as the crawl keeps it; image URLs made absolute against `store_origin`.
///
/// # Errors
/// No handle, or a price that is not an amount.
pub fn product_from_feed(
    store_origin: &reqwest::Url,
    product: FeedProduct,
) -> Result<CrawledProduct, FeedError> {
    let handle = product.handle.trim().to_owned();
    if handle.is_empty() || handle.contains('/') {
        return Err(FeedError(format!(
            "product {} has no usable handle ({handle:?})",
            product.id
        )));
    }
    let position = size_position(&product.options);
    let mut variants = Vec::with_capacity(product.variants.len());
    for (index, variant) in product.variants.iter().enumerate() {
        variants.push(CrawledVariant {
            variant_id: variant.id,
            size: size_of(variant, position),
            sku: variant.sku.as_deref().map_or("", str::trim).to_owned(),
            price: price_of(index, variant.price.as_ref())?,
            available: variant.available.unwrap_or(false),
            barcode: variant
                .barcode
                .as_deref()
                .map(str::trim)
                .filter(|b| !b.is_empty())
                .map(str::to_owned),
        });
    }
    let mut images: Vec<String> = Vec::new();
    for image in &product.images {
        if let Ok(url) = store_origin.join(image.src.trim()) {
            let url = String::from(url);
            if !images.contains(&url) {
                images.push(url);
            }
        }
    }
    Ok(CrawledProduct {
        product_id: product.id,
        handle,
        title: product.title.trim().to_owned(),
        vendor: product.vendor.unwrap_or_default().trim().to_owned(),
        product_type: product.product_type.unwrap_or_default().trim().to_owned(),
        tags: product.tags.map(Tags::into_list).unwrap_or_default(),
        updated_at: product.updated_at.unwrap_or_default().trim().to_owned(),
        published_at: product.published_at.unwrap_or_default().trim().to_owned(),
        variants,
        images,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feed_product_is_kept_with_its_size_option_price_text_and_absolute_images() {
        let json = r#"{"id": 7611349762235, "title": " Dunk Low ", "handle": "dunk-low-panda",
            "vendor": "Nike", "product_type": "", "tags": ["Sneakers", " Nike "],
            "updated_at": "2026-10-06T11:00:20-07:00", "published_at": "2026-12-05T08:00:00-08:00",
            "options": [{"name": "Color", "position": 1}, {"name": "Size", "position": 2}],
            "variants": [
              {"id": 1, "title": "White / US 9", "option1": "White", "option2": "US 9", "sku": "DD1391-100-9",
               "price": "110.00", "available": true},
              {"id": 2, "title": "White / US 10", "option1": "White", "option2": "US 10", "sku": null,
               "price": "16500", "available": false}],
            "images": [{"src": "//cdn.shopify.com/a.jpg"}, {"src": "https://cdn.shopify.com/b.jpg"}]}"#;
        let product: FeedProduct = serde_json::from_str(json).unwrap();
        let origin = reqwest::Url::parse("https://kith.com").unwrap();
        let kept = product_from_feed(&origin, product).unwrap();
        assert_eq!(kept.title, "Dunk Low");
        assert_eq!(kept.published_at, "2026-12-05T08:00:00-08:00");
        assert_eq!(kept.tags, ["Sneakers", "Nike"]);
        assert_eq!(kept.variants[0].size, "US 9");
        assert_eq!(kept.variants[0].price, "110.00");
        assert_eq!(kept.variants[1].price, "16500");
        assert_eq!(kept.variants[1].sku, "");
        assert!(kept.variants[0].available && !kept.variants[1].available);
        assert_eq!(
            kept.images,
            [
                "https://cdn.shopify.com/a.jpg",
                "https://cdn.shopify.com/b.jpg"
            ]
        );
    }

    #[test]
    fn tags_as_text_prices_that_are_not_amounts_and_missing_handles() {
        let tags: Tags = serde_json::from_str(r#""Anti-acne, Dark spots""#).unwrap();
        assert_eq!(tags.into_list(), ["Anti-acne", "Dark spots"]);
        assert!(price_of(0, Some(&PriceText::Text("12.5.0".into()))).is_err());
        assert!(price_of(0, Some(&PriceText::Text("-3".into()))).is_err());
        let origin = reqwest::Url::parse("https://kith.com").unwrap();
        let product: FeedProduct = serde_json::from_str(r#"{"id": 3, "handle": ""}"#).unwrap();
        assert!(product_from_feed(&origin, product).is_err());
    }
}
