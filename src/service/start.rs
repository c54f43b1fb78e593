//! Starting the service inside the window's process: the KicksDB-fed service with the user's
//! stores in front, on loopback. `main` (the window's launcher) and the tests that drive the
//! window call the same function, so what they test is what the window runs.

use std::path::Path;
use std::sync::Arc;

use super::kicksdb::{Kicksdb, KicksdbConfig};
use super::marketplace::Marketplaces;
use super::source::CatalogueSource;
use super::storefront::{StoreReading, StorefrontConfig};
use super::{ServerHandle, ServiceConfig, ServiceState};
use crate::model::RetailerStores;

/// The stores' crawled catalogues' file, in the user's data directory.
pub const STORES_FILE: &str = "stores.sqlite";

/// Least time between two readings of a store's whole catalogue, by default.
pub const STORE_PASS_INTERVAL: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// A reading of `stores` as the window and `serve` do it: read politely, each store's whole
/// catalogue crawled into `file` (`stores.sqlite` in the data directory) at most every
/// `pass_interval`, and matched against `catalogue` (the window's KicksDB mirror joins when
/// that service starts). When the file cannot be opened, the stores are looked up product by
/// product (logged).
#[must_use]
pub fn crawled_store_reading(
    stores: RetailerStores,
    file: &Path,
    catalogue: &Path,
    pass_interval: std::time::Duration,
) -> StoreReading {
    let crawl = super::storefront::crawl::CrawlConfig {
        pass_interval,
        ..super::storefront::crawl::CrawlConfig::default()
    };
    match StoreReading::with_crawl(
        stores.clone(),
        StorefrontConfig::default(),
        file,
        catalogue,
        crawl,
    ) {
        Ok(reading) => reading,
        Err(err) => {
            tracing::error!(
                "the stores' catalogues cannot be kept ({err:#}): {}; stores are looked up product by product",
                file.display()
            );
            StoreReading::lookups_only(stores, StorefrontConfig::default())
        }
    }
}

/// Starts the service over KicksDB at `base_url` with `key`, its mirror at `mirror`, reading
/// the stores as `stores` does (shared with the window, which edits the list, and with its demo
/// service: one crawl of each store), spending from the monthly budget `budget` says (shared
/// with the window's Settings too), on `127.0.0.1:0` of the current runtime. The error is a
/// sentence for the window.
pub async fn kicksdb_in_window(
    key: String,
    base_url: String,
    mirror: &Path,
    stores: StoreReading,
    budget: crate::model::budget::BudgetSettingsCell,
) -> Result<ServerHandle, String> {
    let mirror = mirror.to_path_buf();
    let state = tokio::task::spawn_blocking(move || {
        let mut live = KicksdbConfig::new(key, &mirror);
        live.base_url = base_url;
        live.budget.settings = budget;
        let mut config = ServiceConfig::new(&mirror);
        config.realtime_per_minute = live.realtime_per_minute;
        config.store_reading = Some(stores);
        let source = Arc::new(Kicksdb::new(&live, None).map_err(|err| format!("{err:#}"))?);
        ServiceState::with_sources(
            &config,
            Arc::new(Arc::clone(&source)) as Arc<dyn Marketplaces>,
            Arc::new(source) as Arc<dyn CatalogueSource>,
        )
        .map_err(|err| format!("opening the mirror {}: {err:#}", mirror.display()))
    })
    .await
    .map_err(|err| format!("starting the KicksDB service: {err}"))??;
    super::spawn("127.0.0.1:0", state)
        .await
        .map_err(|err| format!("starting the KicksDB service: {err:#}"))
}
