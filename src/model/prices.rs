//! Batched prices: the lowest ask and the number of asks of every size of up to
//! [`MAX_PRICE_CODES`] products at once, by style code (`GET /api/v2/prices`, an addition to
//! the interface). A live source answers from one batched upstream call (KicksDB's
//! `POST /v3/stockx/prices`); the demo from its catalogue. Each product says where its prices
//! come from and how old they are, so an answer in part from a mirror says so per product.

use serde::{Deserialize, Serialize};

/// Style codes one request may ask for (KicksDB's batch takes at most 50).
pub const MAX_PRICE_CODES: usize = 50;

/// The prices of the codes asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PricesAnswer {
    /// The market priced (`US`, `FR`).
    pub market: String,
    /// The products found, in the order asked.
    pub products: Vec<CodePrices>,
    /// Codes asked for that no source could price (unknown, or not held while the live source
    /// cannot answer), as sent.
    pub missing: Vec<String>,
}

/// One product's prices, size by size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CodePrices {
    /// The style code asked for, as sent.
    pub sku: String,
    /// The product's own style code.
    pub product_sku: String,
    /// The product's id at its source (a UUID for KicksDB's StockX and the catalogue).
    pub product_id: String,
    /// The currency of every price.
    pub currency: String,
    /// Where the prices come from: `kicksdb`, `kicksdb-mirror` or `catalogue`.
    pub source: String,
    /// When the prices were fetched (RFC 3339, UTC).
    pub as_of: String,
    /// Sizes with an ask; a size nobody asks for is left out (never priced 0).
    pub sizes: Vec<SizePrice>,
}

/// One size's price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SizePrice {
    /// The size label (`10`, `10.5`, `W 8`).
    pub size: String,
    /// The lowest ask, in the product's currency.
    pub lowest_ask: f64,
    /// Asks open for this size, when the source says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asks: Option<u32>,
}
