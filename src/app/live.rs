//! The live data source in the window: KicksDB with the user's own key. The key is read from
//! the key store off the UI thread, handed to the launcher `main` gave (which starts an
//! in-process service over KicksDB and its mirror; the layering rule keeps the app from
//! starting services itself), and the window then talks to that service through its client,
//! as it does to the demo. One cheap call (a one-hit search) checks the key when it is
//! entered; its outcome is shown in Settings.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::{App, Feed, Requested, ServiceLocation, Tier, demo_key};
use crate::client::{ClientError, ErrorKind, SearchQuery};
use crate::model::SearchResponse;

/// Starts the in-process service over KicksDB with a key: the service's base URL, or why it
/// could not start. Given by `main`; a second call replaces the first service.
pub type LiveLauncher = Arc<
    dyn Fn(String) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send>> + Send + Sync,
>;

/// The key-store account of the KicksDB key.
pub const KICKSDB_ACCOUNT: &str = "kicksdb";

/// How long typing must pause before a live source is asked (the mirror answers sooner).
pub const LIVE_SEARCH_PAUSE_SECS: f64 = 0.9;

/// The live source's pieces of the app.
#[derive(Default)]
pub(super) struct LiveSource {
    pub(super) launcher: Option<LiveLauncher>,
    /// The KicksDB key, read from the key store (`None`: none stored).
    pub(super) key: Requested<Option<String>>,
    /// The in-process service over KicksDB: its base URL.
    pub(super) service: Requested<String>,
    /// The check of the key: a one-hit search.
    pub(super) check: Requested<SearchResponse>,
    /// When typing paused, for the live search that follows the mirror's answer.
    pub(super) search_typed_at: Option<f64>,
}

impl App {
    /// The app with `launcher` for the KicksDB source (without one, Settings says it is not
    /// available in this build of the window).
    #[must_use]
    pub fn with_live_launcher(mut self, launcher: LiveLauncher) -> Self {
        self.live.launcher = Some(launcher);
        self
    }

    /// In KicksDB mode, each frame until connected: the key read, the service started, the
    /// client connected to it.
    pub(super) fn kicksdb_tick(&mut self, ctx: &egui::Context) {
        self.live.key.poll();
        self.live.service.poll();
        match &self.live.key {
            Requested::NotYetRequested => {
                let store = Arc::clone(&self.key_store);
                self.live.key.spawn(&self.runtime, ctx, async move {
                    tokio::task::spawn_blocking(move || store.get(KICKSDB_ACCOUNT))
                        .await
                        .map_err(|err| key_store_error(&err.to_string()))?
                        .map_err(|err| key_store_error(&err.to_string()))
                });
                return;
            }
            Requested::Completed(None) => {
                self.client_error =
                    Some("Enter your KicksDB key in Settings to see live prices.".to_owned());
                return;
            }
            Requested::Failed(err) => {
                self.client_error = Some(format!(
                    "{}; enter the KicksDB key in Settings",
                    err.message
                ));
                return;
            }
            Requested::Pending { .. } => return,
            Requested::Completed(Some(_)) => {}
        }
        match &self.live.service {
            Requested::NotYetRequested => {
                let Some(Some(key)) = self.live.key.value().cloned() else {
                    return;
                };
                self.launch_live(key, ctx);
            }
            Requested::Completed(base_url) => {
                let base_url = base_url.clone();
                self.base_url = Some(base_url);
                // The in-process service answers every endpoint; what KicksDB's plan allows
                // decides the rest (its 403s name the plan).
                self.connect(Some(demo_key(Tier::Ultra)), ctx);
                self.check_kicksdb_key(ctx);
            }
            Requested::Failed(err) => {
                self.client_error = Some(format!("KicksDB: {}", err.message));
            }
            Requested::Pending { .. } => {}
        }
    }

    fn launch_live(&mut self, key: String, ctx: &egui::Context) {
        let Some(launcher) = self.live.launcher.clone() else {
            self.live.service = Requested::Failed(ClientError::new(
                ErrorKind::Config,
                "this window was started without the live source",
            ));
            return;
        };
        self.live.service.spawn(&self.runtime, ctx, async move {
            launcher(key)
                .await
                .map_err(|message| ClientError::new(ErrorKind::Config, message))
        });
    }

    /// One cheap call that reaches KicksDB: a one-hit search.
    fn check_kicksdb_key(&mut self, ctx: &egui::Context) {
        let Some(client) = self.client.clone() else {
            return;
        };
        self.live.check.spawn(&self.runtime, ctx, async move {
            client
                .search(&SearchQuery {
                    limit: Some(1),
                    ..SearchQuery::default()
                })
                .await
        });
    }

    /// Settings: use KicksDB; `key` replaces the stored one when given.
    pub(super) fn use_kicksdb(&mut self, key: Option<String>, ctx: &egui::Context) {
        self.state.service = ServiceLocation::InWindow;
        self.state.feed = Feed::Kicksdb;
        self.disconnect();
        self.base_url = None;
        self.live.service = Requested::NotYetRequested;
        self.live.check = Requested::NotYetRequested;
        match key {
            Some(key) => {
                self.store_key_in_background(KICKSDB_ACCOUNT.to_owned(), key.clone());
                self.live.key = Requested::Completed(Some(key));
            }
            None => self.live.key = Requested::NotYetRequested,
        }
        self.kicksdb_tick(ctx);
    }

    /// Leaving KicksDB: the service stays until the next launch replaces it.
    pub(super) fn leave_kicksdb(&mut self) {
        self.live.service = Requested::NotYetRequested;
        self.live.check = Requested::NotYetRequested;
        self.live.search_typed_at = None;
    }

    /// What Settings says of the KicksDB key: accepted, refused (and why), or being checked.
    pub(super) fn kicksdb_key_status(&self) -> Option<(bool, String)> {
        if let Requested::Completed(None) = &self.live.key {
            return Some((false, "No KicksDB key stored yet.".to_owned()));
        }
        match &self.live.check {
            Requested::Completed(_) => Some((true, "KicksDB accepted the key.".to_owned())),
            Requested::Failed(err) => Some((false, key_check_text(err))),
            Requested::Pending { .. } => Some((true, "Checking the key with KicksDB…".to_owned())),
            Requested::NotYetRequested => None,
        }
    }

    /// Search as you type in KicksDB mode: once typing pauses for the debounce, the mirror
    /// answers (`cached_only`); once it pauses for [`LIVE_SEARCH_PAUSE_SECS`], KicksDB does.
    pub(super) fn live_search_after_pause(&mut self, ctx: &egui::Context) {
        let Some(typed_at) = self.live.search_typed_at else {
            return;
        };
        let waited_secs = ctx.input(|i| i.time) - typed_at;
        if waited_secs >= LIVE_SEARCH_PAUSE_SECS {
            self.live.search_typed_at = None;
            self.send_search(ctx);
        } else {
            ctx.request_repaint_after(std::time::Duration::from_secs_f64(
                LIVE_SEARCH_PAUSE_SECS - waited_secs,
            ));
        }
    }
}

fn key_store_error(detail: &str) -> ClientError {
    ClientError::new(
        ErrorKind::Config,
        format!("reading the key store failed: {detail}"),
    )
}

/// The key check's failure in Settings' words.
fn key_check_text(err: &ClientError) -> String {
    match err.code.as_deref() {
        Some("upstream_key_refused") => format!("KicksDB refused the key: {}", err.message),
        Some("upstream_plan") => err.message.clone(),
        _ => format!("Could not check the key: {}", err.message),
    }
}
