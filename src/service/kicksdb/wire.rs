//! KicksDB v3's answers as it sends them (`shared/research/kicksdb-v3.md`, §3), kept apart from
//! the interface's model; [`super::map`] turns them into it, one function per shape.
//!
//! Fields the research notes mark as required are still `#[serde(default)]` here where a
//! `display[*]` switch or the plan decides whether they come: a missing one maps to an empty
//! value, never to an invented one. Types follow the SDK: prices mostly `i32` (whole units of
//! the variant's currency), `avg_price`, `amount`, `avg_amount` floats, counts `i64`.

use serde::Deserialize;

/// Every 200 body: `{ "data": T, "meta": <untyped> }`; a list's `data` may be `null`.
#[derive(Debug, Clone, Deserialize)]
pub struct Envelope<T> {
    /// The payload.
    pub data: Option<T>,
}

/// The RFC 7807-style error body every operation declares (`ErrorModel`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ErrorModel {
    /// Short title ("Unauthorized").
    #[serde(default)]
    pub title: Option<String>,
    /// What went wrong ("Invalid key").
    #[serde(default)]
    pub detail: Option<String>,
}

/// A StockX product of the cached catalogue (`StockXProduct`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StockxProduct {
    /// UUID.
    pub id: String,
    /// The StockX URL key.
    pub slug: String,
    /// Full title.
    pub title: String,
    /// Brand.
    pub brand: String,
    /// Silhouette.
    pub model: String,
    /// Gender ("men", "women", "child"...).
    pub gender: String,
    /// HTML description.
    pub description: String,
    /// Main picture URL.
    pub image: String,
    /// More pictures.
    pub gallery: Vec<String>,
    /// The product's page on StockX.
    pub link: String,
    /// Style code.
    pub sku: String,
    /// "sneakers".
    pub product_type: String,
    /// Category.
    pub category: String,
    /// Category path parts.
    pub breadcrumbs: Vec<Breadcrumb>,
    /// Popularity rank from weekly orders (current only).
    pub rank: Option<i64>,
    /// Orders of the last week (current only).
    pub weekly_orders: Option<i64>,
    /// Lowest ask over sizes, whole units.
    pub min_price: Option<i64>,
    /// Highest ask over sizes.
    pub max_price: Option<i64>,
    /// Average ask.
    pub avg_price: Option<f64>,
    /// Last change on KicksDB's side.
    pub updated_at: String,
    /// Not released yet (the coming releases: `sort=release_date`).
    pub upcoming: Option<bool>,
    /// Colorway, release date, retail price (`display[traits]`, paid plans).
    pub traits: Option<Vec<Trait>>,
    /// Sizes (`display[variants]`).
    pub variants: Option<Vec<StockxVariant>>,
}

impl StockxProduct {
    /// The sizes StockX shows: those that came (`display[variants]`), hidden ones left out.
    pub fn shown_variants(&self) -> impl Iterator<Item = &StockxVariant> {
        self.variants
            .as_deref()
            .unwrap_or_default()
            .iter()
            .filter(|v| !v.hidden)
    }
}

/// One level of a product's category path.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Breadcrumb {
    /// Its name.
    pub value: String,
    /// Depth (0 = top).
    pub level: i64,
}

/// A named fact of a product: `{"trait": "Retail Price", "value": "180"}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Trait {
    /// Its name.
    #[serde(rename = "trait")]
    pub name: String,
    /// Its value as text (numbers arrive as strings or numbers).
    pub value: serde_json::Value,
}

/// One size of a StockX product (`StockXVariant`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StockxVariant {
    /// Variant UUID.
    pub id: String,
    /// US size label ("9", "9.5", "5Y").
    pub size: String,
    /// Size system ("us m", "us w").
    pub size_type: String,
    /// Order in the size run.
    pub position: i64,
    /// Hidden on StockX.
    pub hidden: bool,
    /// Lowest ask, whole units of `currency`; 0 = no ask.
    pub lowest_ask: Option<i64>,
    /// Asks open for this size.
    pub total_asks: Option<i64>,
    /// The ask's currency.
    pub currency: String,
    /// The market read ("US", "FR").
    pub market: String,
    /// Sales of the size in the last 30 days.
    pub sales_count_30_days: Option<i64>,
    /// Barcodes (`display[identifiers]`, paid plans).
    pub identifiers: Option<Vec<Identifier>>,
}

/// A barcode of a size.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Identifier {
    /// The code ("193655590351").
    pub identifier: String,
    /// "UPC", "EAN-13".
    pub identifier_type: String,
}

/// One day of a product's sales (`ProductSale`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ProductSale {
    /// The product's UUID.
    pub product_id: String,
    /// The day, `YYYY-MM-DD` (a timestamp is accepted: its date is used).
    pub date: String,
    /// Sales that day.
    pub orders: i64,
    /// Their average amount, in the market's currency.
    pub avg_amount: f64,
}

/// A brand with its number of products (`/v3/utils/brands`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Brand {
    /// The brand.
    pub brand: String,
    /// Its products on StockX.
    pub count: i64,
}

/// The real-time GOAT product (`/v3/realtime/goat/products/{id}`). The SDK types its `data` as
/// `unknown`; the interface's `resale-a` product describes the shape, so its names are read,
/// each optional: what is missing maps to an empty value.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[allow(
    clippy::struct_excessive_bools,
    reason = "the marketplace sends these flags as booleans"
)]
pub struct GoatRealtimeProduct {
    pub id: Option<i64>,
    pub name: String,
    pub nickname: String,
    pub slug: String,
    pub sku: String,
    pub brand_name: String,
    pub designer: String,
    pub details: String,
    pub color: String,
    pub silhouette: String,
    pub midsole: String,
    pub upper_material: String,
    pub season: String,
    pub category: Vec<String>,
    pub gender: Vec<String>,
    pub single_gender: String,
    pub product_category: String,
    pub product_type: String,
    pub product_taxonomy: Vec<serde_json::Value>,
    pub special_type: String,
    pub status: String,
    pub release_date: String,
    pub story: String,
    pub story_html: String,
    pub internal_shot: String,
    pub size_brand: String,
    pub size_type: String,
    pub size_unit: String,
    pub size_options: Vec<GoatSizeOption>,
    pub size_range: Vec<f64>,
    pub available_sizes_new: Vec<serde_json::Value>,
    pub available_sizes_new_v2: Vec<serde_json::Value>,
    pub available_sizes_new_with_defects: Vec<serde_json::Value>,
    pub available_sizes_used: Vec<serde_json::Value>,
    pub featured_in: Vec<serde_json::Value>,
    pub robot_assets: Vec<serde_json::Value>,
    pub grid_picture_url: String,
    pub grid_glow_picture_url: String,
    pub main_picture_url: String,
    pub main_glow_picture_url: String,
    pub picture_url: String,
    pub wallet_pay_only_promo: bool,
    pub direct_shipping: bool,
    pub for_auction: bool,
    pub is_availability_restricted: bool,
    pub is_fashion_product: bool,
    pub is_offerable: bool,
    pub is_ownable: bool,
    pub is_raffle_product: bool,
    pub is_resellable: bool,
    pub is_wantable: bool,
    pub render_images_in_order: bool,
    pub lowest_price_cents: Option<i64>,
    pub new_lowest_price_cents: Option<i64>,
    pub used_lowest_price_cents: Option<i64>,
    pub special_display_price_cents: Option<i64>,
    pub maximum_offer_cents: Option<i64>,
    pub minimum_offer_cents: Option<i64>,
    pub selling_count: Option<i64>,
    pub used_for_sale_count: Option<i64>,
    pub with_defect_for_sale_count: Option<i64>,
    pub microposts_count: Option<i64>,
    pub localized_special_display_price_cents: Option<GoatLocalizedPrice>,
}

/// A size as GOAT presents it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GoatSizeOption {
    pub presentation: String,
    pub value: f64,
}

/// A price in the buyer's currency.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GoatLocalizedPrice {
    pub amount: i64,
    pub amount_usd_cents: i64,
    pub currency: String,
}

/// One related product of the real-time StockX answer: a bare node or `{ "node": ... }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum RelatedItem {
    /// `{ "node": {...} }`, as the interface shows it.
    Edge {
        /// The product.
        node: StockxRelatedNode,
    },
    /// The node itself.
    Node(StockxRelatedNode),
}

/// A related product on StockX with its market (names of the interface's `resale-b` node).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct StockxRelatedNode {
    pub id: String,
    pub brand: String,
    pub title: String,
    pub primary_title: String,
    pub secondary_title: String,
    pub product_category: String,
    pub listing_type: String,
    pub url_key: String,
    pub media: RelatedMedia,
    pub market: RelatedMarket,
}

/// Pictures of a related product.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RelatedMedia {
    pub thumb_url: String,
}

/// A related product's market.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RelatedMarket {
    pub sales_information: RelatedSales,
    pub state: RelatedState,
}

/// Recent sales.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RelatedSales {
    pub last_sale: Option<f64>,
    #[serde(rename = "salesLast72Hours")]
    pub sales_last_72_hours: Option<i64>,
}

/// The order book's top.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RelatedState {
    pub highest_bid: Option<RelatedAmount>,
    pub lowest_ask: Option<RelatedAmount>,
    pub number_of_asks: Option<i64>,
    pub number_of_bids: Option<i64>,
}

/// An amount in the asked currency.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RelatedAmount {
    pub amount: Option<f64>,
}

/// A GOAT product of the cached catalogue (`GoatProduct`), as far as the real-time lookup
/// needs it: its id (a number the schema types as a float) and slug.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GoatProduct {
    /// Numeric id.
    pub id: Option<f64>,
    /// Slug.
    pub slug: String,
}

/// A SNKRS launch (`GET /v3/snkrs/products`, paid; `SnkrsProduct` of the SDK's types). The
/// notes give the names but not every type: numbers are read as numbers or as text, and what
/// is missing maps to an empty value.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SnkrsProduct {
    /// SNKRS's id.
    pub id: serde_json::Value,
    /// Slug.
    pub slug: String,
    /// Title.
    pub title: String,
    /// The colorway.
    pub subtitle: String,
    /// Style-color codes.
    pub skus: Vec<String>,
    /// The launch's country.
    pub country: String,
    /// The launch's currency.
    pub currency: String,
    /// Manufacturer's suggested retail price, in `currency`.
    #[serde(deserialize_with = "number_or_text")]
    pub msrp: Option<f64>,
    /// Price now, in `currency`.
    #[serde(deserialize_with = "number_or_text")]
    pub price: Option<f64>,
    /// `FOOTWEAR`, `APPAREL`.
    pub product_type: String,
    /// `ACTIVE`.
    pub status: String,
    /// Whether it can be bought.
    pub available: Option<bool>,
    /// Only for members with exclusive access.
    pub exclusive_access: Option<bool>,
    /// Pairs one account may buy.
    #[serde(deserialize_with = "number_or_text")]
    pub quantity_limit: Option<f64>,
    /// When it can be bought (ISO 8601).
    pub commerce_start_date: String,
    /// Pictures (URLs, or objects with one).
    pub images: Vec<serde_json::Value>,
    /// How and when it drops.
    pub launches: Vec<SnkrsLaunch>,
    /// Sizes with their stock level.
    pub variants: Vec<SnkrsVariant>,
}

/// One launch of a SNKRS product.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SnkrsLaunch {
    /// `FLOW` (first come, first served), `LEO` (queue) or `DAN` (draw).
    pub launch_method: String,
    /// When the window or draw opens (ISO 8601).
    pub start_date: String,
    /// Only for invited members.
    pub invitation_only: Option<bool>,
    /// How it is paid.
    pub payment_method: Option<String>,
}

/// One size of a SNKRS product.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SnkrsVariant {
    /// The size, usually US.
    #[serde(deserialize_with = "text_or_number")]
    pub original_size: String,
    /// The size as the country writes it.
    #[serde(deserialize_with = "text_or_number")]
    pub local_size: String,
    /// `M` or `W`.
    pub local_size_type: String,
    /// The size's barcode.
    pub gtin: String,
    /// Whether it can be bought.
    pub available: Option<bool>,
    /// `HIGH`, `LOW` or `OOS`.
    pub stock_level: String,
    /// The size's own launch method, when it has one.
    pub method: String,
}

/// A number sent as a number or as text (`"180.00"`); anything else is `None`.
fn number_or_text<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Option<f64>, D::Error> {
    let value = serde_json::Value::deserialize(de)?;
    Ok(match value {
        serde_json::Value::Number(number) => number.as_f64(),
        serde_json::Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
    .filter(|n: &f64| n.is_finite()))
}

/// Text sent as text or as a number (`9.5`); anything else is empty.
fn text_or_number<'de, D: serde::Deserializer<'de>>(de: D) -> Result<String, D::Error> {
    let value = serde_json::Value::deserialize(de)?;
    Ok(match value {
        serde_json::Value::String(text) => text.trim().to_owned(),
        serde_json::Value::Number(number) => number.to_string(),
        _ => String::new(),
    })
}
