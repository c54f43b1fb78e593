//! The connection: the key from the key store (read off the UI thread), the client built from
//! it, the demo tiers of the local service, and what the Settings tab asks for.

use std::sync::Arc;

use super::{App, Feed, Requested, ServiceLocation, Severity};
use crate::client::{Client, ClientConfig, ClientError, ErrorKind, KeyStore};
use crate::model::Tier;
use crate::ui;

/// The key-store account of the local demo key. Fixed, because the local service's port changes
/// from run to run.
pub const LOCAL_DEMO_ACCOUNT: &str = "local-demo";

/// The demo tier used until the user picks another.
pub const DEFAULT_DEMO_TIER: Tier = Tier::Pro;

/// The demo key of a tier, e.g. `demo-pro`.
#[must_use]
pub fn demo_key(tier: Tier) -> String {
    format!("demo-{tier}")
}

/// The tier of a demo key, `None` for any other key.
#[must_use]
pub fn demo_tier_from_key(key: &str) -> Option<Tier> {
    Tier::ALL.into_iter().find(|tier| demo_key(*tier) == key)
}

impl App {
    /// Whether the window's own service runs on the demo (its demo keys and tiers apply).
    pub(super) fn starts_demo(&self) -> bool {
        self.state.service == ServiceLocation::InWindow && self.state.feed == Feed::Demo
    }

    /// Whether the window's own service is started over KicksDB.
    pub(super) fn starts_kicksdb(&self) -> bool {
        self.state.service == ServiceLocation::InWindow && self.state.feed == Feed::Kicksdb
    }

    /// Whether the service runs in this window (its stores are edited in Settings).
    pub(super) fn service_in_window(&self) -> bool {
        self.state.service == ServiceLocation::InWindow
    }

    /// The key-store account of the key in use.
    pub(super) fn key_account(&self) -> String {
        match (&self.state.service, self.state.feed) {
            (ServiceLocation::InWindow, Feed::Demo) => LOCAL_DEMO_ACCOUNT.to_owned(),
            (ServiceLocation::Remote { base_url }, _) => {
                crate::client::keystore::account_for(base_url)
            }
            (ServiceLocation::InWindow, Feed::Kicksdb) => super::KICKSDB_ACCOUNT.to_owned(),
        }
    }

    /// Reads the key from the key store (off the UI thread) and builds the client.
    pub(super) fn connect_with_stored_key(&mut self, ctx: &egui::Context) {
        match &self.key {
            Requested::NotYetRequested => {
                let store = Arc::clone(&self.key_store);
                let account = self.key_account();
                let demo = self.starts_demo();
                self.key.spawn(&self.runtime, ctx, async move {
                    tokio::task::spawn_blocking(move || {
                        if demo {
                            Ok(Some(stored_demo_key(store.as_ref())))
                        } else {
                            // A remote server without a stored key is asked without one: its
                            // 401 says what is missing.
                            store.get(&account).map_err(|err| {
                                ClientError::new(
                                    ErrorKind::Config,
                                    format!("reading the key store failed: {err}"),
                                )
                            })
                        }
                    })
                    .await
                    .map_err(|err| {
                        ClientError::new(
                            ErrorKind::Config,
                            format!("reading the key store failed: {err}"),
                        )
                    })?
                });
            }
            Requested::Completed(key) => {
                let key = key.clone();
                self.connect(key, ctx);
            }
            Requested::Failed(err) => {
                let message = err.message.clone();
                self.push_status(
                    Severity::Error,
                    format!("{message}; going on without a key"),
                );
                self.connect(None, ctx);
            }
            Requested::Pending { .. } => {}
        }
    }

    pub(super) fn push_status(&self, severity: Severity, text: impl Into<String>) {
        self.status.push(severity, text);
    }

    /// Replaces the client by one using `key`, and fetches again what is shown.
    pub(super) fn connect(&mut self, key: Option<String>, ctx: &egui::Context) {
        let Some(base_url) = self.base_url.clone() else {
            return;
        };
        self.connect_attempted = true;
        self.demo_tier = if self.starts_demo() {
            key.as_deref().and_then(demo_tier_from_key)
        } else {
            None
        };
        match Client::new(ClientConfig::new(base_url, key)) {
            Ok(client) => {
                self.client = Some(client);
                self.client_error = None;
                self.sources.reset();
                self.search_edited_at = None;
                self.watch_prices.clear();
                self.portfolio.forget_prices();
                self.send_search(ctx);
                if let Some(id) = self.state.selected_product.clone() {
                    self.open_product(id, ctx);
                }
            }
            Err(err) => {
                self.client = None;
                self.client_error = Some(format!("{err:#}"));
            }
        }
    }

    /// Forgets the client and everything fetched with it; the next frame connects again.
    pub(super) fn disconnect(&mut self) {
        self.client = None;
        self.client_error = None;
        self.connect_attempted = false;
        self.sources.reset();
        self.key = Requested::NotYetRequested;
        self.search.results = Requested::NotYetRequested;
        self.search.more = Requested::NotYetRequested;
        self.product = Requested::NotYetRequested;
        self.orders = Requested::NotYetRequested;
        self.compare_orders.clear();
        self.watch_prices.clear();
        self.resale_a = Requested::NotYetRequested;
        self.resale_b = Requested::NotYetRequested;
        self.retailer = Requested::NotYetRequested;
    }

    /// Switches to the demo key of `tier`: a new client at once, the key store updated in the
    /// background.
    pub(super) fn switch_demo_tier(&mut self, tier: Tier, ctx: &egui::Context) {
        let key = demo_key(tier);
        self.store_key_in_background(LOCAL_DEMO_ACCOUNT.to_owned(), key.clone());
        self.connect(Some(key), ctx);
    }

    pub(super) fn store_key_in_background(&self, account: String, key: String) {
        let store = Arc::clone(&self.key_store);
        let status = self.status.clone();
        self.runtime.spawn_blocking(move || {
            if let Err(err) = store.set(&account, &key) {
                // The reason is short; the platform's text (which itself says "kept for this
                // session only") goes to the tooltip, so the line says it once.
                status.push_with_detail(
                    Severity::Error,
                    format!("The key is used for this session only: {}", err.reason()),
                    err.detail(),
                );
            }
        });
    }

    pub(super) fn settings_action(
        &mut self,
        action: ui::settings::SettingsAction,
        ctx: &egui::Context,
    ) {
        use ui::settings::SettingsAction;
        match action {
            SettingsAction::None => {}
            SettingsAction::SwitchDemoTier(tier) => self.switch_demo_tier(tier, ctx),
            SettingsAction::UseKicksdb { api_key } => self.use_kicksdb(api_key, ctx),
            SettingsAction::UseInWindow if self.state.feed == Feed::Kicksdb => {
                self.use_kicksdb(None, ctx);
            }
            SettingsAction::UseInWindow => {
                self.settings_action(SettingsAction::UseLocal, ctx);
            }
            SettingsAction::UseLocal => {
                self.leave_kicksdb();
                self.state.service = ServiceLocation::InWindow;
                self.state.feed = Feed::Demo;
                self.disconnect();
                self.base_url = self.local_base_url.clone();
            }
            SettingsAction::UseRemote { base_url, api_key } => {
                self.leave_kicksdb();
                self.state.service = ServiceLocation::Remote {
                    base_url: base_url.clone(),
                };
                self.disconnect();
                self.base_url = Some(base_url.clone());
                if let Some(key) = api_key {
                    self.store_key_in_background(
                        crate::client::keystore::account_for(&base_url),
                        key.clone(),
                    );
                    self.connect(Some(key), ctx);
                }
            }
            SettingsAction::ForgetKey => {
                let store = Arc::clone(&self.key_store);
                let status = self.status.clone();
                let account = self.key_account();
                self.runtime
                    .spawn_blocking(move || match store.delete(&account) {
                        Ok(()) => {
                            status.push(Severity::Info, "The key was deleted from the keyring.");
                        }
                        Err(err) => status.push_with_detail(
                            Severity::Error,
                            format!("Could not delete the key: {}", err.reason()),
                            err.detail(),
                        ),
                    });
                self.disconnect();
                if self.starts_kicksdb() {
                    self.use_kicksdb(None, ctx);
                } else {
                    self.connect(None, ctx);
                }
            }
        }
    }
}

/// The demo key kept in `store`, or the default one (then stored). A store that cannot be
/// reached only costs the choice between runs.
fn stored_demo_key(store: &dyn KeyStore) -> String {
    match store.get(LOCAL_DEMO_ACCOUNT) {
        Ok(Some(key)) if demo_tier_from_key(&key).is_some() => key,
        Ok(_) => {
            let key = demo_key(DEFAULT_DEMO_TIER);
            if let Err(err) = store.set(LOCAL_DEMO_ACCOUNT, &key) {
                tracing::warn!("the demo key is used for this session only: {err:#}");
            }
            key
        }
        Err(err) => {
            tracing::warn!("using the default demo key: {err:#}");
            demo_key(DEFAULT_DEMO_TIER)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_keys_name_their_tier() {
        assert_eq!(demo_tier_from_key("demo-free"), Some(Tier::Free));
        assert_eq!(demo_tier_from_key("demo-ultra"), Some(Tier::Ultra));
        assert_eq!(demo_tier_from_key("someone-else"), None);
    }

    #[test]
    fn the_default_demo_key_is_stored_once() {
        let store = crate::client::MemoryKeyStore::new();
        assert_eq!(stored_demo_key(&store), "demo-pro");
        store.set(LOCAL_DEMO_ACCOUNT, "demo-free").unwrap();
        assert_eq!(stored_demo_key(&store), "demo-free");
    }
}
