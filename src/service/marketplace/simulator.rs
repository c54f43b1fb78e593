//! The marketplace simulator: the three marketplaces derived from a catalogue, with simulated
//! latency, failures and timeouts.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rand::Rng;

use super::ids::check_identifier;
use super::markets::{self, Quote};
use super::store::{self, Listing, ProductRow, Store};
use super::{Marketplaces, RelatedQuery, UpstreamError, resale_a, resale_b, retailer};
use crate::model::{
    LookupInfo, RealtimeInfo, RelatedInfo, ResaleAProduct, ResaleBNode, RetailerInfo,
    RetailerProduct,
};
use crate::service::origin::Sourced;
use crate::service::origin::names::SIMULATOR;

/// Where the simulator reads the time: the wall clock, or a pinned one in tests.
pub type Clock = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

/// How the simulated marketplaces behave.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatorConfig {
    /// Seed of the live figures: the same seed and minute give the same figures.
    pub seed: u64,
    /// Typical upstream latency in milliseconds; each call varies it by up to a fifth.
    pub latency_ms: u64,
    /// Probability in `0..=1` that a call fails with [`UpstreamError::Failed`].
    pub failure_rate: f64,
    /// Latency beyond this many milliseconds ends in [`UpstreamError::Timeout`] after waiting
    /// this long.
    pub timeout_ms: u64,
}

impl Default for SimulatorConfig {
    fn default() -> Self {
        Self {
            seed: 0x5EED,
            latency_ms: 15,
            failure_rate: 0.0,
            timeout_ms: 5_000,
        }
    }
}

/// The simulated marketplaces over a catalogue file.
pub struct Simulator {
    store: Arc<Store>,
    config: SimulatorConfig,
    clock: Clock,
}

impl std::fmt::Debug for Simulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulator")
            .field("store", &self.store)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Simulator {
    /// Opens the catalogue at `catalogue_path` read-only, and starts building the index of
    /// related products (on a thread of its own).
    pub fn open(catalogue_path: &Path, config: SimulatorConfig) -> Result<Self, UpstreamError> {
        let (simulator, related) = Self::open_related_later(catalogue_path, config)?;
        related.start();
        Ok(simulator)
    }

    /// [`open`](Self::open), leaving the related products' index to be started by the caller
    /// (when its own heavier work is done) or when the handle is dropped.
    pub fn open_related_later(
        catalogue_path: &Path,
        config: SimulatorConfig,
    ) -> Result<(Self, store::RelatedIndexLater), UpstreamError> {
        let (store, related) = Store::open(catalogue_path)?;
        let simulator = Self {
            store: Arc::new(store),
            config,
            clock: Arc::new(Utc::now),
        };
        Ok((simulator, related))
    }

    /// The same simulator reading the time from `clock` (tests pin it).
    #[must_use]
    pub fn with_clock(self, clock: Clock) -> Self {
        Self { clock, ..self }
    }

    /// The settings in use.
    #[must_use]
    pub fn config(&self) -> &SimulatorConfig {
        &self.config
    }

    /// The current Unix minute and day, from the clock.
    fn now(&self) -> (i64, chrono::NaiveDate) {
        let now = (self.clock)();
        (now.timestamp().div_euclid(60), now.date_naive())
    }

    /// The network round trip to `marketplace`: waits the simulated latency (or the timeout, if
    /// the latency is longer), then fails with the configured probability.
    async fn round_trip(&self, marketplace: &str) -> Result<(), UpstreamError> {
        let (latency_ms, fails) = {
            // Scoped: the thread-local generator must not live across an await.
            let mut rng = rand::rng();
            let jitter = self.config.latency_ms / 5;
            let latency = if jitter == 0 {
                self.config.latency_ms
            } else {
                rng.random_range(self.config.latency_ms - jitter..=self.config.latency_ms + jitter)
            };
            let rate = self.config.failure_rate;
            let fails = if rate.is_nan() {
                false
            } else {
                rng.random_bool(rate.clamp(0.0, 1.0))
            };
            (latency, fails)
        };
        if latency_ms > self.config.timeout_ms {
            tokio::time::sleep(Duration::from_millis(self.config.timeout_ms)).await;
            return Err(UpstreamError::Timeout(format!(
                "{marketplace} did not answer within {} ms",
                self.config.timeout_ms
            )));
        }
        tokio::time::sleep(Duration::from_millis(latency_ms)).await;
        if fails {
            return Err(UpstreamError::Failed(format!(
                "{marketplace} answered with a server error (simulated failure)"
            )));
        }
        Ok(())
    }

    /// The product `find` resolves `key` to, with its sizes and recent orders. The reads run on
    /// tokio's blocking pool, off the async workers.
    async fn listing(
        &self,
        marketplace: &str,
        key: &str,
        find: impl FnOnce(&rusqlite::Connection, &str) -> rusqlite::Result<Option<ProductRow>>
        + Send
        + 'static,
    ) -> Result<Listing, UpstreamError> {
        let owned_key = key.to_owned();
        self.read(move |store| {
            store.read(|conn| match find(conn, &owned_key)? {
                Some(product) => store::listing(conn, product).map(Some),
                None => Ok(None),
            })
        })
        .await?
        .ok_or_else(|| {
            UpstreamError::NotFound(format!(
                "{marketplace} has no product '{}'",
                markets::printable(key)
            ))
        })
    }

    /// Runs `work` on the store on tokio's blocking pool.
    async fn read<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Store) -> Result<T, UpstreamError> + Send + 'static,
    ) -> Result<T, UpstreamError> {
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || work(&store))
            .await
            .map_err(|err| UpstreamError::Internal(format!("a catalogue read failed: {err}")))?
    }
}

/// The parsed related-products query: defaults, then each value checked.
fn quote(query: &RelatedQuery) -> Result<Quote, UpstreamError> {
    let defaults = Quote::us();
    let country =
        markets::parse_country("country", query.country.as_deref())?.unwrap_or(defaults.country);
    let currency = markets::parse_currency(query.currency.as_deref())?.unwrap_or(defaults.currency);
    let market = markets::parse_country("market", query.market.as_deref())?.unwrap_or(country);
    Ok(Quote {
        country,
        currency,
        market,
    })
}

#[async_trait::async_trait]
impl Marketplaces for Simulator {
    fn sources(&self) -> RealtimeInfo {
        let codes = |codes: Vec<&str>| codes.into_iter().map(str::to_owned).collect::<Vec<_>>();
        let countries = codes(markets::COUNTRIES.iter().map(|c| c.code).collect());
        RealtimeInfo {
            resale_a: Some(LookupInfo {
                source: SIMULATOR.to_owned(),
            }),
            resale_b: Some(RelatedInfo {
                source: SIMULATOR.to_owned(),
                currencies: codes(markets::CURRENCIES.iter().map(|c| c.code).collect()),
                markets: countries.clone(),
                countries,
            }),
            retailer_a: Some(RetailerInfo {
                source: SIMULATOR.to_owned(),
                stores: Vec::new(),
            }),
        }
    }

    async fn resale_a_product(&self, id: &str) -> Result<Sourced<ResaleAProduct>, UpstreamError> {
        let id = check_identifier("resale-a product id", id)?;
        self.round_trip("resale-a").await?;
        let listing = self.listing("resale-a", id, resale_a::find).await?;
        let (minute, today) = self.now();
        Ok(Sourced::fresh(
            resale_a::product(&listing, self.config.seed, minute, today),
            SIMULATOR,
        ))
    }

    async fn resale_b_related(
        &self,
        id: &str,
        query: &RelatedQuery,
    ) -> Result<Sourced<Vec<ResaleBNode>>, UpstreamError> {
        let id = check_identifier("resale-b product id", id)?;
        let quote = quote(query)?;
        self.round_trip("resale-b").await?;
        let listing = self.listing("resale-b", id, resale_b::find).await?;
        let pks = self.store.related_pks(&listing.product, resale_b::RELATED);
        let related = self
            .read(move |store| store.read(|conn| resale_b::listings(conn, &pks)))
            .await?;
        let (minute, _) = self.now();
        Ok(Sourced::fresh(
            related
                .iter()
                .map(|listing| resale_b::node(listing, self.config.seed, minute, &quote))
                .collect(),
            SIMULATOR,
        ))
    }

    async fn retailer_product(
        &self,
        slug: &str,
        store: Option<&str>,
    ) -> Result<Sourced<RetailerProduct>, UpstreamError> {
        if let Some(store) = store {
            return Err(super::no_such_store(store));
        }
        let slug = check_identifier("retailer-a slug", slug)?;
        self.round_trip("retailer-a").await?;
        let listing = self.listing("retailer-a", slug, retailer::find).await?;
        let (minute, _) = self.now();
        Ok(Sourced::fresh(
            retailer::product(&listing, self.config.seed, minute),
            SIMULATOR,
        ))
    }

    async fn simulated_stock(
        &self,
        limit: usize,
    ) -> Option<Result<Vec<super::RetailStock>, UpstreamError>> {
        let (minute, _) = self.now();
        let seed = self.config.seed;
        // No simulated latency: nothing is sent, the stock is a function of the minute.
        Some(
            self.read(move |store| {
                store.read(|conn| {
                    let mut stocked = Vec::new();
                    for product in store::popular_at_retail(conn, limit)? {
                        let listing = store::listing(conn, product)?;
                        stocked.extend(retailer::in_stock(&listing, seed, minute));
                    }
                    Ok(stocked)
                })
            })
            .await,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_default_to_us_dollars_and_the_market_follows_the_country() {
        let parsed = quote(&RelatedQuery::default()).unwrap();
        assert_eq!(
            (
                parsed.country.code,
                parsed.currency.code,
                parsed.market.code
            ),
            ("US", "USD", "US")
        );
        let parsed = quote(&RelatedQuery {
            country: Some("gb".into()),
            currency: Some("GBP".into()),
            market: None,
        })
        .unwrap();
        assert_eq!(
            (
                parsed.country.code,
                parsed.currency.code,
                parsed.market.code
            ),
            ("GB", "GBP", "GB")
        );
        let err = quote(&RelatedQuery {
            market: Some("Mars".into()),
            ..RelatedQuery::default()
        })
        .unwrap_err();
        assert!(matches!(err, UpstreamError::BadRequest(m) if m.contains("market")));
    }
}
