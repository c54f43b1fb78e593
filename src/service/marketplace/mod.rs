//! The marketplaces behind the real-time endpoints, behind one trait ([`Marketplaces`]), and the
//! [`Simulator`] that stands in for them in local mode.
//!
//! The simulator derives each marketplace's product from the catalogue (see [`ids`] for how each
//! one names a product) and makes its figures live: asks, bids, last sale and 72-hour sales move
//! from minute to minute, deterministically for a given minute and seed, and stay consistent
//! with the catalogue's prices and weekly orders. Upstream latency, failures and timeouts are
//! simulated too, so the dashboard's loading and error paths can be shown for real.

pub mod ids;
mod live;
pub mod markets;
mod resale_a;
mod resale_b;
mod retailer;
mod simulator;
mod store;
mod text;

pub use self::simulator::{Clock, Simulator, SimulatorConfig};
pub use self::store::RelatedIndexLater;
use super::origin::Sourced;
use crate::model::{RealtimeInfo, ResaleAProduct, ResaleBNode, RetailerProduct};

/// What a marketplace lookup can fail with; the service maps each variant to an HTTP status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpstreamError {
    /// 404: nothing is known by that identifier; the message names what was looked up.
    #[error("{0}")]
    NotFound(String),
    /// 400: the request itself is wrong (malformed id, unknown currency, country or market).
    #[error("{0}")]
    BadRequest(String),
    /// 502: the marketplace answered with a failure.
    #[error("{0}")]
    Failed(String),
    /// 504: the marketplace did not answer in time.
    #[error("{0}")]
    Timeout(String),
    /// 500: something on our side broke (e.g. the catalogue could not be read).
    #[error("{0}")]
    Internal(String),
    /// 429: the marketplace's own limit is spent (counted before sending, or its 429).
    #[error("{message}")]
    RateLimited {
        /// Which limit, and when the next call is free.
        message: String,
        /// Seconds to wait.
        retry_after_secs: u64,
    },
    /// 502: the source refused the service's key for it.
    #[error("{0}")]
    KeyRefused(String),
    /// 502: the source's plan does not include this lookup.
    #[error("{0}")]
    PlanRefused(String),
    /// 503: the source cannot answer yet (a store whose catalogue is still being read);
    /// retry after `retry_after_secs`.
    #[error("{message}")]
    NotReady {
        /// Why, in a sentence naming the source.
        message: String,
        /// Seconds to wait.
        retry_after_secs: u64,
    },
}

/// The query of a related-products lookup, as given (absent or empty values mean the default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RelatedQuery {
    /// The buyer's country, ISO 3166 alpha-2 (default `US`).
    pub country: Option<String>,
    /// The currency of the amounts, ISO 4217 (default `USD`).
    pub currency: Option<String>,
    /// The regional market whose order book is read, a country code (default: the country).
    pub market: Option<String>,
}

/// The real-time side's seam: live lookups on the marketplaces and the retailer. The simulator,
/// KicksDB and the storefronts (in front of either, `service::realtime`) implement it side by
/// side; the routes never ask which one answers: each answer says where it came from.
#[async_trait::async_trait]
pub trait Marketplaces: Send + Sync {
    /// What each lookup is answered by, and for which values (countries, currencies, markets,
    /// stores): `GET /api/v2/sources`.
    fn sources(&self) -> RealtimeInfo;

    /// One product from `resale-a`, by its numeric id or slug there, or by catalogue UUID or slug.
    async fn resale_a_product(&self, id: &str) -> Result<Sourced<ResaleAProduct>, UpstreamError>;

    /// Products related to one product on `resale-b`, by catalogue UUID or slug (its `urlKey`).
    async fn resale_b_related(
        &self,
        id: &str,
        query: &RelatedQuery,
    ) -> Result<Sourced<Vec<ResaleBNode>>, UpstreamError>;

    /// One product from `retailer-a`, by its slug there, or by catalogue slug or UUID; from the
    /// store named `store` when given (only one the service reads: else 404).
    async fn retailer_product(
        &self,
        id: &str,
        store: Option<&str>,
    ) -> Result<Sourced<RetailerProduct>, UpstreamError>;

    /// What a simulated `retailer-a` has in stock now among the `limit` most popular catalogue
    /// products it sells (USD, at retail): `None` from a source that simulates no retailer.
    async fn simulated_stock(
        &self,
        limit: usize,
    ) -> Option<Result<Vec<RetailStock>, UpstreamError>> {
        let _ = limit;
        None
    }
}

/// What a retailer has in stock of one catalogue product, priced (the flips' stand-in for real
/// stores where none is configured: the simulator's `retailer-a`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetailStock {
    /// The catalogue product's id.
    pub product_id: String,
    /// Its style code.
    pub style_code: String,
    /// Its title.
    pub title: String,
    /// Its brand.
    pub brand: String,
    /// The retailer's slug for it.
    pub slug: String,
    /// The sizes in stock.
    pub sizes: Vec<RetailSize>,
}

/// One size in stock at a retailer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetailSize {
    /// The retailer's variant id (a number).
    pub variant_id: u64,
    /// The size as the retailer writes it (`US M 9 / UK 8 / EU 42.5`).
    pub label: String,
    /// The catalogue's US size label (`9`, `5.5Y`).
    pub us: String,
    /// The price, in US cents.
    pub price_cents: i64,
}

/// The 404 for `?store=` on a service that reads no storefront.
pub fn no_such_store(store: &str) -> UpstreamError {
    UpstreamError::NotFound(format!(
        "no store named {:?} is configured (this service reads no retail storefront)",
        store.chars().take(80).collect::<String>()
    ))
}
