//! Starting the service inside the window's process: the KicksDB-fed service with the user's
//! stores in front, on loopback. `main` (the window's launcher) and the tests that drive the
//! window call the same function, so what they test is what the window runs.

use std::path::Path;
use std::sync::Arc;

use super::kicksdb::{Kicksdb, KicksdbConfig};
use super::marketplace::Marketplaces;
use super::source::CatalogueSource;
use super::storefront::StorefrontConfig;
use super::{ServerHandle, ServiceConfig, ServiceState};
use crate::model::RetailerStores;

/// Starts the service over KicksDB at `base_url` with `key`, its mirror at `mirror`, reading
/// `stores` (shared with the window, which edits them) for `retailer-a` as `storefront` says,
/// spending from the monthly budget `budget` says (shared with the window's Settings too), on
/// `127.0.0.1:0` of the current runtime. The error is a sentence for the window.
pub async fn kicksdb_in_window(
    key: String,
    base_url: String,
    mirror: &Path,
    stores: RetailerStores,
    storefront: StorefrontConfig,
    budget: crate::model::budget::BudgetSettingsCell,
) -> Result<ServerHandle, String> {
    let mirror = mirror.to_path_buf();
    let state = tokio::task::spawn_blocking(move || {
        let mut live = KicksdbConfig::new(key, &mirror);
        live.base_url = base_url;
        live.budget.settings = budget;
        let mut config = ServiceConfig::new(&mirror);
        config.realtime_per_minute = live.realtime_per_minute;
        config.retailer_stores = stores;
        config.storefront = storefront;
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
