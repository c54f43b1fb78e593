//! The app's side of the retail storefronts: the list kept in the user database is loaded once
//! into the list shared with the local service (so stored stores are read from the start), and
//! Settings' additions and removals are written there and applied to the shared list at once,
//! without a restart. Stores given on the command line are used too, but not saved.

use poll_promise::Promise;

use super::App;
use crate::model::StoreUrl;
use crate::ui;
use crate::ui::stores::{StoreRow, StoresAction, StoresOwner};
use crate::userdb::UserDbError;

/// A store change being written: what to apply to the shared list once it is stored.
enum Change {
    Add(StoreUrl),
    Remove(StoreUrl),
}

/// What the user database keeps of the stores: the list, and the minutes between readings.
type Saved = (Vec<StoreUrl>, Option<u32>);

/// The storefronts' state in the app.
#[derive(Default)]
pub(super) struct StoresState {
    draft: String,
    error: Option<String>,
    /// The stores read from the user database (`None` until read).
    saved: Option<Vec<StoreUrl>>,
    loading: Option<Promise<Result<Saved, UserDbError>>>,
    writes: Vec<(Change, Promise<Result<bool, UserDbError>>)>,
    /// Least minutes between two readings of a store's catalogue, as shown in Settings.
    pass_minutes: Option<u32>,
    /// The last write of it (its failure is shown).
    pass_write: Option<Promise<Result<(), UserDbError>>>,
}

/// Minutes between two readings of a store's catalogue when the user set none
/// (`service::start::STORE_PASS_INTERVAL`).
const DEFAULT_PASS_MINUTES: u32 = 30;

impl App {
    /// Per frame: loads the saved stores once, and applies finished writes.
    pub(super) fn stores_tick(&mut self) {
        let shared = self.startup.retailer_stores().clone();
        let db = self.alerts_db();
        let stores = &mut self.stores;
        if stores.saved.is_none()
            && stores.loading.is_none()
            && let Some(db) = &db
        {
            stores.loading =
                Some(db.run(|db| Ok((db.retailer_stores()?, db.store_pass_minutes()?))));
        }
        if let Some(loading) = stores.loading.take() {
            match loading.try_take() {
                Ok(Ok((saved, minutes))) => {
                    for store in &saved {
                        shared.add(store.clone());
                    }
                    if let Some(minutes) = minutes {
                        shared.set_pass_interval(Some(std::time::Duration::from_secs(
                            u64::from(minutes) * 60,
                        )));
                    }
                    stores.pass_minutes = minutes;
                    stores.saved = Some(saved);
                }
                Ok(Err(err)) => {
                    stores.error = Some(format!("the retail stores could not be read: {err:#}"));
                    stores.saved = Some(Vec::new());
                }
                Err(still) => stores.loading = Some(still),
            }
        }
        if let Some(write) = stores.pass_write.take() {
            match write.try_take() {
                Ok(Ok(())) => {}
                Ok(Err(err)) => stores.error = Some(format!("{err:#}")),
                Err(still) => stores.pass_write = Some(still),
            }
        }
        for (change, write) in std::mem::take(&mut stores.writes) {
            match write.try_take() {
                Ok(Ok(_)) => {
                    self.sources.ask_again();
                    let saved = stores.saved.get_or_insert_with(Vec::new);
                    match change {
                        Change::Add(store) => {
                            shared.add(store.clone());
                            if !saved.contains(&store) {
                                saved.push(store);
                            }
                        }
                        Change::Remove(store) => {
                            shared.remove(&store);
                            saved.retain(|s| *s != store);
                        }
                    }
                }
                Ok(Err(err)) => stores.error = Some(format!("{err:#}")),
                Err(still) => stores.writes.push((change, still)),
            }
        }
    }

    /// The Settings section of the retail stores, and what its answer does: the user's list
    /// for the service in this window (with each store's health as the service reports it), a
    /// remote server's own list as it reported it.
    pub(super) fn stores_settings_ui(&mut self, ui: &mut egui::Ui) {
        let saved = self.stores.saved.clone().unwrap_or_default();
        let reported: Vec<StoreRow> = self
            .service_sources()
            .map(|sources| sources.realtime.stores())
            .unwrap_or_default()
            .iter()
            .filter_map(|store| {
                Some(StoreRow {
                    url: StoreUrl::parse(&store.url).ok()?,
                    health: crate::model::StoreHealth {
                        failures_in_row: store.failures_in_row,
                        last_error: store.last_error.clone(),
                        paused_until_unix: store.paused_until_unix,
                    },
                    saved: false,
                    catalogue: store.catalogue.clone(),
                })
            })
            .collect();
        let retailer = self
            .service_sources()
            .and_then(|sources| sources.realtime.retailer_a.as_ref())
            .map(|retailer| retailer.source.clone());
        let remote = match &self.state.service {
            super::ServiceLocation::Remote { base_url } => Some(base_url.clone()),
            super::ServiceLocation::InWindow => None,
        };
        let (rows, owner) = if let Some(base_url) = &remote {
            (reported, StoresOwner::Remote { base_url })
        } else {
            // The list the window's service is fed, each store with the health the service
            // reported (a store just added is listed before the service reports it).
            let shared = self.startup.retailer_stores().clone();
            let rows = shared
                .list()
                .into_iter()
                .map(|url| {
                    let reported = reported.iter().find(|row| row.url == url);
                    StoreRow {
                        health: reported
                            .map_or_else(|| shared.health(&url), |row| row.health.clone()),
                        catalogue: reported.and_then(|row| row.catalogue.clone()),
                        saved: saved.contains(&url),
                        url,
                    }
                })
                .collect();
            (rows, StoresOwner::InWindow)
        };
        let db = self.alerts_db();
        let shared = self.startup.retailer_stores().clone();
        let stores = &mut self.stores;
        let mut minutes = stores.pass_minutes.unwrap_or(DEFAULT_PASS_MINUTES);
        let action = ui::stores::retail_stores_ui(
            ui,
            &rows,
            &mut stores.draft,
            stores.error.as_deref(),
            owner,
            retailer.as_deref(),
            &mut minutes,
        );
        let Some(db) = db else {
            if action != StoresAction::None {
                stores.error = Some("no user database: the stores cannot be kept".into());
            }
            return;
        };
        match action {
            StoresAction::None => {}
            StoresAction::Add(text) => match StoreUrl::parse(&text) {
                Ok(store) => {
                    stores.error = None;
                    stores.draft.clear();
                    let now = chrono::Utc::now().timestamp();
                    let row = store.clone();
                    let write = db.run(move |db| db.add_retailer_store(&row, now));
                    stores.writes.push((Change::Add(store), write));
                }
                Err(err) => stores.error = Some(err.to_string()),
            },
            StoresAction::Remove(store) => {
                stores.error = None;
                let row = store.clone();
                let write = db.run(move |db| db.remove_retailer_store(&row));
                stores.writes.push((Change::Remove(store), write));
            }
            StoresAction::PassMinutes(minutes) => {
                // In force at once for the crawl of this window's services; kept for the next
                // start and for `solescope monitor`.
                stores.pass_minutes = Some(minutes);
                shared.set_pass_interval(Some(std::time::Duration::from_secs(
                    u64::from(minutes) * 60,
                )));
                stores.pass_write = Some(db.run(move |db| db.set_store_pass_minutes(minutes)));
            }
        }
        if !stores.writes.is_empty() {
            ui.ctx().request_repaint();
        }
    }
}
