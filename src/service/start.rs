//! Starting the service in a process: the one place the KicksDB-fed service is put together
//! ([`kicksdb_state`], and [`spawn_kicksdb`] to serve it), called by the window's launcher,
//! `serve --source kicksdb`, the command line's `monitor` and `portfolio value`, and the tests,
//! so what they test is what runs; and the stores' reading as the window, `serve` and the
//! command line keep it ([`crawled_store_reading`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::kicksdb::{Kicksdb, KicksdbConfig, KicksdbError};
use super::marketplace::Marketplaces;
use super::source::CatalogueSource;
use super::storefront::{StoreReading, StorefrontConfig};
use super::{ServerHandle, ServiceConfig, ServiceError, ServiceState};
use crate::model::RetailerStores;

/// The stores' crawled catalogues' file, in the user's data directory.
pub const STORES_FILE: &str = "stores.sqlite";

/// The KicksDB mirror's file, in the user's data directory.
pub const KICKSDB_MIRROR_FILE: &str = "kicksdb-mirror.sqlite";

/// The environment variable naming KicksDB's address (a mock, a proxy) where no flag does.
pub const KICKSDB_URL_ENV: &str = "SOLESCOPE_KICKSDB_URL";

/// Least time between two readings of a store's whole catalogue, by default.
pub const STORE_PASS_INTERVAL: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// A reading of `stores` as the window and `serve` do it: read politely, each store's whole
/// catalogue crawled into `file` (`stores.sqlite` in the data directory) at most every
/// `pass_interval`, and matched against the catalogue of each service that reads the stores
/// through it, from when that service starts (a catalogue still to be built is never asked).
/// When the file cannot be opened, the stores are looked up product by product (logged).
#[must_use]
pub fn crawled_store_reading(
    stores: RetailerStores,
    file: &Path,
    pass_interval: std::time::Duration,
) -> StoreReading {
    // A first start: the data folder may not be there yet (the demo catalogue, which made it,
    // is not built in KicksDB mode). A failure shows as the file's below.
    let _ = make_folder_of(file);
    let crawl = super::storefront::crawl::CrawlConfig {
        pass_interval,
        ..super::storefront::crawl::CrawlConfig::default()
    };
    match StoreReading::with_crawl(stores.clone(), StorefrontConfig::default(), file, crawl) {
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

/// Makes the folder `file` goes in, with its parents, when it is not there.
fn make_folder_of(file: &Path) -> std::io::Result<()> {
    match file.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => std::fs::create_dir_all(folder),
        _ => Ok(()),
    }
}

/// KicksDB's base URL: `given` (a flag), else [`KICKSDB_URL_ENV`], else the real one.
#[must_use]
pub fn kicksdb_base_url(given: Option<&str>) -> String {
    given
        .map(str::to_owned)
        .or_else(|| std::env::var(KICKSDB_URL_ENV).ok())
        .filter(|url| !url.trim().is_empty())
        .unwrap_or_else(|| super::kicksdb::DEFAULT_BASE_URL.to_owned())
}

/// The real-time requests a service over KicksDB lets each key make a minute: what it was set
/// to allow (`service`), never more than KicksDB allows it (`kicksdb`), since every real-time
/// answer is a KicksDB call.
#[must_use]
pub fn realtime_per_minute(service: u32, kicksdb: u32) -> u32 {
    service.min(kicksdb)
}

/// Why the service over KicksDB could not start; each a sentence for a person.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The KicksDB source refused its settings (its URL or key).
    #[error("starting the KicksDB source: {0}")]
    Source(#[from] KicksdbError),
    /// The mirror's folder could not be made.
    #[error("making the folder of the mirror {}: {source}", path.display())]
    Folder {
        /// The mirror file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The mirror (or its search index) could not be opened or created.
    #[error("opening the mirror {}: {source}", path.display())]
    Mirror {
        /// The mirror file.
        path: PathBuf,
        /// Why.
        #[source]
        source: ServiceError,
    },
    /// The address could not be listened on.
    #[error("starting the KicksDB service: {0}")]
    Listen(#[source] ServiceError),
    /// The blocking start was cut short (the runtime is shutting down).
    #[error("starting the KicksDB service: {0}")]
    Interrupted(String),
}

/// The service over KicksDB as `live` says (its key, address, mirror, budget and limits),
/// answering as `config` says otherwise (stores, Redis, limits): the catalogue side from the
/// mirror, the real-time side from KicksDB, and the real-time limit per key held to what
/// KicksDB allows ([`realtime_per_minute`]). With `config.shared` (Redis), KicksDB's limits
/// are counted there too, across replicas. The mirror's folder is made when it is not there (a
/// first start). Blocking: opens the mirror and its search index.
pub fn kicksdb_state(
    mut config: ServiceConfig,
    live: &KicksdbConfig,
) -> Result<Arc<ServiceState>, StartError> {
    make_folder_of(&live.mirror).map_err(|source| StartError::Folder {
        path: live.mirror.clone(),
        source,
    })?;
    config.catalogue.clone_from(&live.mirror);
    config.realtime_per_minute =
        realtime_per_minute(config.realtime_per_minute, live.realtime_per_minute);
    let source = Arc::new(Kicksdb::new(live, config.shared.clone())?);
    ServiceState::with_sources(
        &config,
        Arc::new(Arc::clone(&source)) as Arc<dyn Marketplaces>,
        Arc::new(source) as Arc<dyn CatalogueSource>,
    )
    .map_err(|source| StartError::Mirror {
        path: live.mirror.clone(),
        source,
    })
}

/// [`kicksdb_state`] (off the async workers), served on `addr` of the current runtime
/// (`127.0.0.1:0` in the window and the command line).
pub async fn spawn_kicksdb(
    config: ServiceConfig,
    live: KicksdbConfig,
    addr: &str,
) -> Result<ServerHandle, StartError> {
    let state = tokio::task::spawn_blocking(move || kicksdb_state(config, &live))
        .await
        .map_err(|err| StartError::Interrupted(err.to_string()))??;
    super::spawn(addr, state).await.map_err(StartError::Listen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_real_time_limit_is_never_more_than_kicksdb_allows() {
        assert_eq!(realtime_per_minute(120, 60), 60);
        assert_eq!(realtime_per_minute(30, 60), 30);
        assert_eq!(
            realtime_per_minute(
                super::super::REALTIME_PER_MINUTE,
                super::super::kicksdb::REALTIME_PER_MINUTE
            ),
            super::super::kicksdb::REALTIME_PER_MINUTE
        );
    }
}
