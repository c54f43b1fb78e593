//! Version 3 real-time payloads: a `resale-a` product, `resale-b` related products
//! and a `retailer-a` product.
//!
//! The marketplace payloads use camelCase JSON names; the Rust fields are their
//! `snake_case` equivalents, mapped with `rename_all`.

use serde::{Deserialize, Serialize};

/// The `meta` object of the real-time envelopes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ExecutionMeta {
    /// Time the lookup took; the unit is not stated by the specification.
    pub execution_time: i64,
}

/// Envelope of the real-time `resale-a` product lookup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ResaleAEnvelope {
    /// `success` on success.
    pub status: String,
    /// The product.
    pub data: ResaleAProduct,
    /// Execution figures.
    pub meta: ExecutionMeta,
}

/// A product as returned live by `resale-a`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(
    clippy::struct_excessive_bools,
    reason = "mirrors the marketplace payload, which carries these flags as booleans"
)]
pub struct ResaleAProduct {
    /// Numeric product id on the marketplace.
    pub id: i64,
    /// Product name.
    pub name: String,
    /// Nickname, e.g. the colourway's popular name.
    pub nickname: String,
    /// URL-friendly product name.
    pub slug: String,
    /// Manufacturer style code.
    pub sku: String,
    /// Brand name.
    pub brand_name: String,
    /// Designer.
    pub designer: String,
    /// Short details line.
    pub details: String,
    /// Colour.
    pub color: String,
    /// Silhouette (model line).
    pub silhouette: String,
    /// Midsole description.
    pub midsole: String,
    /// Upper material.
    pub upper_material: String,
    /// Season label.
    pub season: String,
    /// Categories.
    pub category: Vec<String>,
    /// Genders.
    pub gender: Vec<String>,
    /// The single gender, when one applies.
    pub single_gender: String,
    /// Product category.
    pub product_category: String,
    /// Product type.
    pub product_type: String,
    /// Taxonomy entries; element shape not shown by the specification.
    pub product_taxonomy: Vec<serde_json::Value>,
    /// Special type label.
    pub special_type: String,
    /// Listing status, e.g. `active`.
    pub status: String,
    /// Release timestamp with milliseconds.
    pub release_date: String,
    /// Story, plain text.
    pub story: String,
    /// Story, HTML.
    pub story_html: String,
    /// Internal shot reference.
    pub internal_shot: String,
    /// Brand whose size chart applies.
    pub size_brand: String,
    /// Size type.
    pub size_type: String,
    /// Size unit.
    pub size_unit: String,
    /// Selectable sizes.
    pub size_options: Vec<SizeOption>,
    /// Sizes the product exists in.
    pub size_range: Vec<f64>,
    /// Available new sizes; element shape not shown.
    pub available_sizes_new: Vec<serde_json::Value>,
    /// Available new sizes, second format; element shape not shown.
    pub available_sizes_new_v2: Vec<serde_json::Value>,
    /// Available new sizes with defects; element shape not shown.
    pub available_sizes_new_with_defects: Vec<serde_json::Value>,
    /// Available used sizes; element shape not shown.
    pub available_sizes_used: Vec<serde_json::Value>,
    /// Collections the product is featured in; element shape not shown.
    pub featured_in: Vec<serde_json::Value>,
    /// Automated imagery assets; element shape not shown.
    pub robot_assets: Vec<serde_json::Value>,
    /// Grid picture URL.
    pub grid_picture_url: String,
    /// Grid picture URL, glow variant.
    pub grid_glow_picture_url: String,
    /// Main picture URL.
    pub main_picture_url: String,
    /// Main picture URL, glow variant.
    pub main_glow_picture_url: String,
    /// Picture URL.
    pub picture_url: String,
    /// Whether a digital-wallet-only promotion applies.
    pub wallet_pay_only_promo: bool,
    /// Whether the product ships directly.
    pub direct_shipping: bool,
    /// Whether the product is up for auction.
    pub for_auction: bool,
    /// Whether availability is restricted.
    pub is_availability_restricted: bool,
    /// Whether this is a fashion (non-sneaker) product.
    pub is_fashion_product: bool,
    /// Whether offers can be made.
    pub is_offerable: bool,
    /// Whether users can mark it as owned.
    pub is_ownable: bool,
    /// Whether the product is sold by raffle.
    pub is_raffle_product: bool,
    /// Whether the product can be resold.
    pub is_resellable: bool,
    /// Whether users can add it to a wish list.
    pub is_wantable: bool,
    /// Whether images are shown in their given order.
    pub render_images_in_order: bool,
    /// Lowest price, in minor units.
    pub lowest_price_cents: i64,
    /// Lowest price for new items, in minor units.
    pub new_lowest_price_cents: i64,
    /// Lowest price for used items, in minor units.
    pub used_lowest_price_cents: i64,
    /// Special display price, in minor units.
    pub special_display_price_cents: i64,
    /// Highest offer accepted, in minor units.
    pub maximum_offer_cents: i64,
    /// Lowest offer accepted, in minor units.
    pub minimum_offer_cents: i64,
    /// Number of items sold.
    pub selling_count: i64,
    /// Number of used items for sale.
    pub used_for_sale_count: i64,
    /// Number of items with defects for sale.
    pub with_defect_for_sale_count: i64,
    /// Number of posts about the product.
    pub microposts_count: i64,
    /// Special display price in the local currency.
    pub localized_special_display_price_cents: LocalizedPrice,
}

/// One selectable size of a [`ResaleAProduct`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SizeOption {
    /// Size label as shown.
    pub presentation: String,
    /// Numeric size.
    pub value: f64,
}

/// A price in the local currency with its US-dollar equivalent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LocalizedPrice {
    /// Amount in minor units of `currency`.
    pub amount: i64,
    /// Amount in US cents.
    #[serde(rename = "amountUsdCents")]
    pub amount_usd_cents: i64,
    /// Currency code.
    pub currency: String,
}

/// Envelope of the real-time `resale-b` related-products lookup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ResaleBEnvelope {
    /// `success` on success.
    pub status: String,
    /// Echo of the query; an empty object.
    pub query: serde_json::Map<String, serde_json::Value>,
    /// Related products.
    pub data: Vec<ResaleBEdge>,
    /// Execution figures.
    pub meta: ExecutionMeta,
}

/// One element of [`ResaleBEnvelope::data`]: an object with the single key `node`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ResaleBEdge {
    /// The related product.
    pub node: ResaleBNode,
}

/// A related product as returned live by `resale-b`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResaleBNode {
    /// Product UUID on the marketplace.
    pub id: String,
    /// Brand name.
    pub brand: String,
    /// Full title.
    pub title: String,
    /// Model part of the title.
    pub primary_title: String,
    /// Colourway part of the title.
    pub secondary_title: String,
    /// Product category.
    pub product_category: String,
    /// Listing type, e.g. `STANDARD`.
    pub listing_type: String,
    /// URL key (slug) on the marketplace.
    pub url_key: String,
    /// Pictures.
    pub media: Media,
    /// Market figures.
    pub market: Market,
}

/// The `media` object of a [`ResaleBNode`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Media {
    /// Thumbnail URL.
    #[serde(rename = "thumbUrl")]
    pub thumb_url: String,
}

/// The `market` object of a [`ResaleBNode`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Market {
    /// Recent sales.
    pub sales_information: SalesInformation,
    /// Current bids and asks.
    pub state: MarketState,
}

/// Recent sales of a related product.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SalesInformation {
    /// Price of the last sale.
    #[serde(rename = "lastSale")]
    pub last_sale: f64,
    /// Number of sales in the last 72 hours.
    #[serde(rename = "salesLast72Hours")]
    pub sales_last_72_hours: i64,
}

/// Current order book summary of a related product.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarketState {
    /// Highest bid.
    pub highest_bid: Amount,
    /// Lowest ask.
    pub lowest_ask: Amount,
    /// Number of open asks.
    pub number_of_asks: i64,
    /// Number of open bids.
    pub number_of_bids: i64,
}

/// A money amount in the requested currency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Amount {
    /// The amount.
    pub amount: f64,
}

/// Envelope of the `retailer-a` product lookup (no error or meta fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RetailerEnvelope {
    /// `success` on success.
    pub status: String,
    /// The product.
    pub data: RetailerProduct,
}

/// A product as returned by `retailer-a`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RetailerProduct {
    /// Global identifier, `gid://<platform>/Product/<number>`.
    pub id: String,
    /// Product title.
    pub title: String,
    /// URL-friendly product name.
    pub slug: String,
    /// Product type.
    pub product_type: String,
    /// Brand name.
    pub brand: String,
    /// Description, HTML.
    pub description: String,
    /// Manufacturer style code.
    pub sku: String,
    /// Image URLs.
    pub images: Vec<String>,
    /// Colourway.
    pub colorway: String,
    /// Release date, `YYYY-MM-DD`. Absent for free keys (the tier rule); read as empty then.
    #[serde(default)]
    pub release_date: String,
    /// Last update, timestamp with microseconds.
    pub updated_at: String,
    /// One entry per size.
    pub variants: Vec<RetailerVariant>,
}

/// One size of a [`RetailerProduct`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RetailerVariant {
    /// Global identifier, `gid://<platform>/ProductVariant/<number>`.
    pub id: String,
    /// Composite label listing the size in several systems.
    pub size: String,
    /// Price in `currency`; 0 where the size has no price.
    pub price: f64,
    /// Currency code.
    pub currency: String,
    /// Barcode; may be empty.
    pub barcode: String,
    /// Barcode type, e.g. `UPC`; may be empty.
    pub barcode_type: String,
    /// Whether the size can be bought.
    pub available: bool,
    /// Last update, timestamp with microseconds.
    pub updated_at: String,
}
