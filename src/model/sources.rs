//! `GET /api/v2/sources`: what a service has, so a client offers what its sources can answer
//! and never asks which mode the service was started in. Not in the specification; designed by
//! us (docs/interface.md, "Additions to the spec").

use serde::{Deserialize, Serialize};

/// What the service's sources can answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ServiceSources {
    /// Search, products, weekly orders and counts.
    pub catalogue: CatalogueInfo,
    /// The real-time lookups, each with its source; absent: nothing answers it here.
    pub realtime: RealtimeInfo,
}

/// The catalogue side's source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CatalogueInfo {
    /// The name its answers carry in `X-Solescope-Source` (`catalogue`, `kicksdb`).
    pub source: String,
    /// Whether answers are fetched from an upstream that counts calls: a client then searches
    /// as you type with `Cache-Control: only-if-cached` and asks upstream only once typing
    /// pauses.
    pub live: bool,
    /// Whether what was fetched is kept, so held products answer when the upstream cannot.
    pub keeps_copy: bool,
    /// The search datasets (`US`, `FR`).
    pub countries: Vec<String>,
    /// Whether weekly figures carry a rank (`position`); null ranks otherwise.
    pub weekly_rank: bool,
}

/// The real-time side's sources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RealtimeInfo {
    /// `GET /api/v3/realtime/resale-a/products/{id}`.
    pub resale_a: Option<LookupInfo>,
    /// `GET /api/v3/realtime/resale-b/products/{id}/related`.
    pub resale_b: Option<RelatedInfo>,
    /// `GET /api/v3/retailer-a/products/{slug}`.
    pub retailer_a: Option<RetailerInfo>,
}

/// A lookup's source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LookupInfo {
    /// The name its answers carry (`simulator`, `kicksdb`).
    pub source: String,
}

/// The related-products lookup's source and the values it answers for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RelatedInfo {
    /// The name its answers carry.
    pub source: String,
    /// Buyer countries (ISO 3166 alpha-2) it answers for.
    pub countries: Vec<String>,
    /// Currencies (ISO 4217) it gives amounts in.
    pub currencies: Vec<String>,
    /// Regional markets (country codes) whose order books it reads.
    pub markets: Vec<String>,
}

/// The retailer lookup's source: the storefronts read, or one retailer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RetailerInfo {
    /// The name its answers carry (`simulator`, `storefront`).
    pub source: String,
    /// The storefronts read, in the order they are asked (empty for one retailer); each answer
    /// names its store in `X-Solescope-Store`, and `?store=` reads one of them.
    pub stores: Vec<StoreInfo>,
}

/// One storefront and how it has been answering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StoreInfo {
    /// Its label (`kith.com`, `127.0.0.1:8081`): what `?store=` takes.
    pub name: String,
    /// Its origin (`https://kith.com`).
    pub url: String,
    /// Failed lookups in a row.
    pub failures_in_row: u32,
    /// The last failure, in a sentence.
    pub last_error: Option<String>,
    /// Until when it is not asked (Unix seconds), after repeated failures or a `Retry-After`.
    pub paused_until_unix: Option<i64>,
    /// How the reading of its whole catalogue stands, in a sentence ("5,000 products read at
    /// …, 312 of them in the catalogue", or why its products are looked up one by one); absent
    /// when the service keeps no crawled catalogues.
    #[serde(default)]
    pub catalogue: Option<String>,
}

impl RealtimeInfo {
    /// The stores the retailer lookup reads (none for one retailer or no retailer).
    #[must_use]
    pub fn stores(&self) -> &[StoreInfo] {
        self.retailer_a
            .as_ref()
            .map_or(&[], |r| r.stores.as_slice())
    }
}
