//! Search endpoint payloads: the search response envelope, its hits and their variants.

use serde::{Deserialize, Serialize};

/// One catalogue product as returned by search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SearchHit {
    /// Age group the product is made for.
    pub age_group: String,
    /// Availability label.
    pub availability: String,
    /// Average price over the variants, in `currency`.
    pub avg_price: f64,
    /// Base price, in `currency`.
    pub base_price: f64,
    /// Brand name.
    pub brand: String,
    /// Category path string.
    pub category: String,
    /// Colour as written by the source.
    pub color: String,
    /// Item condition label.
    pub condition: String,
    /// Currency code of every money value of this hit.
    pub currency: String,
    /// Free-text description; not guaranteed to be present, may be empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Gender the product is made for.
    pub gender: String,
    /// Product UUID.
    pub id: String,
    /// Image URL.
    pub image: String,
    /// ISO 8601 timestamp (UTC) the product entered the catalogue.
    pub inserted_at: String,
    /// Retail price, a decimal number carried as text so no precision is lost. Absent for free
    /// keys (the tier rule, `model::tiers`); read as empty then.
    #[serde(default)]
    pub retail_price: String,
    /// Release date, `YYYY-MM-DD`. Absent for free keys; read as empty then.
    #[serde(default)]
    pub release_date: String,
    /// Whether the product is a bundle of several items.
    pub is_bundle: bool,
    /// Free labels attached to the product.
    pub labels: Vec<String>,
    /// Product page URL.
    pub link: String,
    /// Highest variant price, in `currency`.
    pub max_price: f64,
    /// Lowest variant price, in `currency`.
    pub min_price: f64,
    /// Size system of the variant sizes; may be empty.
    pub size_system: String,
    /// Manufacturer style code.
    pub sku: String,
    /// URL-friendly product name.
    pub slug: String,
    /// Product title.
    pub title: String,
    /// One entry per size.
    pub variants: Vec<SearchVariant>,
}

/// One size of a search hit, with its own price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SearchVariant {
    /// Barcode (GTIN); not guaranteed to be present, may be empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gtin: Option<String>,
    /// Variant page URL (formerly named `link`).
    pub variant_link: String,
    /// Price of this size, in the hit's `currency`.
    pub price: f64,
    /// Size label.
    pub size: String,
    /// Variant UUID.
    pub variant_id: String,
}

/// The label of a search hit that comes from what the service holds, not from the live
/// source's answer to this search: `held:` and when it was fetched (RFC 3339 UTC). A live
/// source's online search lists its own hits first, then the held ones it missed.
pub const HELD_LABEL_PREFIX: &str = "held:";

/// When the hit was fetched, if it is labelled as held ([`HELD_LABEL_PREFIX`]).
#[must_use]
pub fn held_since(hit: &SearchHit) -> Option<&str> {
    hit.labels
        .iter()
        .find_map(|label| label.strip_prefix(HELD_LABEL_PREFIX))
}

/// Envelope of the search response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SearchResponse {
    /// Hits of the requested page, best score first.
    pub hits: Vec<SearchHit>,
    /// Estimate of the total number of hits; not reliable for pagination.
    #[serde(rename = "estimatedTotalHits")]
    pub estimated_total_hits: u64,
    /// Number of hits per page in effect.
    pub limit: u32,
    /// Time the search took, in milliseconds.
    #[serde(rename = "processingTimeMs")]
    pub processing_time_ms: u64,
    /// The query that was run.
    pub query: String,
}
