//! The eframe application: [`App`] holds the runtime pieces (the client, the fetches in flight),
//! [`AppState`] what is kept between runs (eframe storage; never the key).
//!
//! The window reaches data only through [`Client`], over HTTP, to the in-process demo service
//! `main` starts (or, later, a remote server). Every fetch runs on the tokio runtime `main` owns
//! and lands in a [`Requested`] value; the UI thread never waits on I/O, the key store included.

mod requested;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use self::requested::Requested;
use crate::client::{Client, ClientConfig, ClientError, ErrorKind, KeyStore, SearchQuery};
use crate::model::{Country, Product, SearchResponse, Tier};
use crate::ui;
use crate::ui::orders::WeeklySeries;

/// How long typing must pause before a search is sent.
pub const SEARCH_DEBOUNCE_SECS: f64 = 0.25;
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

/// Start-up progress shared between the worker that prepares the catalogue and the window.
#[derive(Debug, Clone, Default)]
pub struct StartupStatus {
    inner: Arc<Mutex<StartupState>>,
}

/// What start-up produced: the running local service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ready {
    /// The base URL of the in-process service.
    pub base_url: String,
    /// A sentence about the catalogue, for logs and the settings view.
    pub summary: String,
}

/// A snapshot of the start-up progress.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StartupState {
    /// What is happening, in a sentence for the user.
    pub message: String,
    /// Share of the work done, 0 to 1.
    pub fraction: f32,
    /// `None` while running; the outcome once finished.
    pub finished: Option<Result<Ready, String>>,
}

impl StartupStatus {
    /// A fresh status: nothing started.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A status already finished with the service at `base_url` (for tests and embedders).
    #[must_use]
    pub fn ready(base_url: impl Into<String>) -> Self {
        let status = Self::new();
        status.finish(Ok(Ready {
            base_url: base_url.into(),
            summary: String::new(),
        }));
        status
    }

    fn update(&self, f: impl FnOnce(&mut StartupState)) {
        // A poisoned lock only means a worker panicked mid-update; the data is still usable.
        let mut state = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut state);
    }

    /// Replaces the message.
    pub fn set_message(&self, message: &str) {
        self.update(|s| message.clone_into(&mut s.message));
    }

    /// Sets the share of work done.
    pub fn set_progress(&self, fraction: f32) {
        self.update(|s| s.fraction = fraction.clamp(0.0, 1.0));
    }

    /// Marks the start-up finished.
    pub fn finish(&self, outcome: Result<Ready, String>) {
        self.update(|s| {
            s.fraction = 1.0;
            s.finished = Some(outcome);
        });
    }

    /// A copy of the current state.
    #[must_use]
    pub fn snapshot(&self) -> StartupState {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// The colour theme the user picked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThemeChoice {
    /// Follow the operating system.
    #[default]
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl ThemeChoice {
    fn preference(self) -> egui::ThemePreference {
        match self {
            ThemeChoice::System => egui::ThemePreference::System,
            ThemeChoice::Light => egui::ThemePreference::Light,
            ThemeChoice::Dark => egui::ThemePreference::Dark,
        }
    }
}

/// The view shown beside the search panel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum View {
    /// The open product's detail.
    #[default]
    Product,
    /// The open product's weekly orders.
    Orders,
    /// Settings.
    Settings,
}

/// What is kept between runs, in eframe storage. Never the API key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AppState {
    /// The colour theme.
    pub theme: ThemeChoice,
    /// The last search text.
    pub last_query: String,
    /// The dataset searched.
    pub country: Country,
    /// The view beside the search panel.
    pub view: View,
}

/// What the app is built from.
pub struct AppInit {
    /// The runtime every fetch runs on; `main` owns it for the app's life.
    pub runtime: tokio::runtime::Handle,
    /// Where the API key is kept: the OS keyring in `main`, memory in tests.
    pub key_store: Arc<dyn KeyStore>,
    /// Start-up progress; finished with the local service's base URL.
    pub startup: StartupStatus,
    /// The state kept from the last run.
    pub state: AppState,
}

/// The application.
pub struct App {
    /// What is kept between runs.
    pub state: AppState,
    runtime: tokio::runtime::Handle,
    key_store: Arc<dyn KeyStore>,
    startup: StartupStatus,
    base_url: Option<String>,
    key: Requested<String>,
    client: Option<Client>,
    client_error: Option<String>,
    demo_tier: Option<Tier>,
    search_edited_at: Option<f64>,
    results: Requested<SearchResponse>,
    selected: Option<String>,
    product: Requested<Product>,
    orders: Requested<WeeklySeries>,
    applied_theme: Option<ThemeChoice>,
}

impl App {
    /// An app that starts once `init.startup` is finished.
    #[must_use]
    pub fn new(init: AppInit) -> Self {
        Self {
            state: init.state,
            runtime: init.runtime,
            key_store: init.key_store,
            startup: init.startup,
            base_url: None,
            key: Requested::NotYetRequested,
            client: None,
            client_error: None,
            demo_tier: None,
            search_edited_at: None,
            results: Requested::NotYetRequested,
            selected: None,
            product: Requested::NotYetRequested,
            orders: Requested::NotYetRequested,
            applied_theme: None,
        }
    }

    /// The current search results, if any arrived.
    #[must_use]
    pub fn search_results(&self) -> Option<&SearchResponse> {
        self.results.value()
    }

    /// Why the last search failed, if it did.
    #[must_use]
    pub fn search_error(&self) -> Option<&ClientError> {
        self.results.error()
    }

    /// The open product, once loaded.
    #[must_use]
    pub fn product(&self) -> Option<&Product> {
        self.product.value()
    }

    /// The weekly-orders series the chart draws, once loaded.
    #[must_use]
    pub fn orders_series(&self) -> Option<&WeeklySeries> {
        self.orders.value()
    }

    /// The key's tier as the server last reported it.
    #[must_use]
    pub fn tier(&self) -> Option<Tier> {
        self.client.as_ref().and_then(Client::tier)
    }

    /// Whether every fetch has landed (none in flight, no search waiting for the debounce).
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.client.is_some()
            && self.search_edited_at.is_none()
            && !self.results.is_pending()
            && !self.product.is_pending()
            && !self.orders.is_pending()
    }

    /// Draws the whole window into `ui`.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        if self.applied_theme != Some(self.state.theme) {
            ctx.set_theme(self.state.theme.preference());
            self.applied_theme = Some(self.state.theme);
        }
        self.key.poll();
        self.results.poll();
        self.product.poll();
        self.orders.poll();

        if self.base_url.is_none() {
            let startup = self.startup.snapshot();
            if let Some(Ok(ready)) = startup.finished {
                self.base_url = Some(ready.base_url);
            } else {
                egui::CentralPanel::default().show(ui, |ui| startup_ui(ui, &startup));
                return;
            }
        }
        if self.client.is_none() {
            self.connect_with_stored_key(&ctx);
            if self.client.is_none() {
                egui::CentralPanel::default().show(ui, |ui| {
                    ui.heading("Solescope");
                    if let Some(err) = &self.client_error {
                        ui.colored_label(ui.visuals().error_fg_color, err.as_str());
                    } else {
                        ui.horizontal(|ui| {
                            ui.spinner();
                            ui.label("Reading the API key…");
                        });
                    }
                });
                return;
            }
        }
        self.send_search_after_debounce(&ctx);
        self.panels_ui(ui, &ctx);
    }

    /// Reads the demo key from the key store (off the UI thread) and builds the client.
    fn connect_with_stored_key(&mut self, ctx: &egui::Context) {
        match &self.key {
            Requested::NotYetRequested => {
                let store = Arc::clone(&self.key_store);
                self.key.spawn(&self.runtime, ctx, async move {
                    tokio::task::spawn_blocking(move || stored_demo_key(store.as_ref()))
                        .await
                        .map_err(|err| {
                            ClientError::new(
                                ErrorKind::Config,
                                format!("reading the key store failed: {err}"),
                            )
                        })
                });
            }
            Requested::Completed(key) => {
                let key = key.clone();
                self.connect(&key, ctx);
            }
            Requested::Failed(err) => self.client_error = Some(err.message.clone()),
            Requested::Pending { .. } => {}
        }
    }

    /// Replaces the client by one using `key`, and fetches again what is shown.
    fn connect(&mut self, key: &str, ctx: &egui::Context) {
        let Some(base_url) = self.base_url.clone() else {
            return;
        };
        match Client::new(ClientConfig::new(base_url, Some(key.to_owned()))) {
            Ok(client) => {
                self.client = Some(client);
                self.client_error = None;
                self.demo_tier = demo_tier_from_key(key);
                self.search_edited_at = None;
                self.send_search(ctx);
                if let Some(id) = self.selected.clone() {
                    self.open_product(id, ctx);
                }
            }
            Err(err) => self.client_error = Some(format!("{err:#}")),
        }
    }

    /// Switches to the demo key of `tier`: a new client at once, the key store updated in the
    /// background.
    fn switch_demo_tier(&mut self, tier: Tier, ctx: &egui::Context) {
        let key = demo_key(tier);
        let store = Arc::clone(&self.key_store);
        let stored = key.clone();
        self.runtime.spawn_blocking(move || {
            if let Err(err) = store.set(LOCAL_DEMO_ACCOUNT, &stored) {
                tracing::warn!("the demo tier is used for this session only: {err:#}");
            }
        });
        self.connect(&key, ctx);
    }

    fn send_search_after_debounce(&mut self, ctx: &egui::Context) {
        let Some(edited_at) = self.search_edited_at else {
            return;
        };
        let waited_secs = ctx.input(|i| i.time) - edited_at;
        if waited_secs >= SEARCH_DEBOUNCE_SECS {
            self.search_edited_at = None;
            self.send_search(ctx);
        } else {
            ctx.request_repaint_after(Duration::from_secs_f64(SEARCH_DEBOUNCE_SECS - waited_secs));
        }
    }

    fn send_search(&mut self, ctx: &egui::Context) {
        let Some(client) = self.client.clone() else {
            return;
        };
        let query = SearchQuery {
            text: self.state.last_query.trim().to_owned(),
            country: self.state.country,
            ..SearchQuery::default()
        };
        self.results.spawn(
            &self.runtime,
            ctx,
            async move { client.search(&query).await },
        );
    }

    fn open_product(&mut self, id: String, ctx: &egui::Context) {
        let Some(client) = self.client.clone() else {
            return;
        };
        let product_client = client.clone();
        let product_id = id.clone();
        self.product.spawn(&self.runtime, ctx, async move {
            product_client
                .product_v2(&product_id)
                .await
                .map(|envelope| envelope.data)
        });
        if client.tier() == Some(Tier::Free) {
            // The chart shows a lock; no need to be refused.
            self.orders = Requested::NotYetRequested;
        } else {
            let orders_id = id.clone();
            self.orders.spawn(&self.runtime, ctx, async move {
                client
                    .orders(&orders_id)
                    .await
                    .map(|envelope| WeeklySeries::from_weekly(&envelope.data))
            });
        }
        self.selected = Some(id);
    }

    fn panels_ui(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        let tier = self.tier();
        egui::Panel::top("top_bar").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.strong("Solescope");
                if self.demo_tier.is_some() {
                    ui.label(
                        egui::RichText::new(" demo data ")
                            .background_color(ui.visuals().warn_fg_color)
                            .color(ui.visuals().extreme_bg_color),
                    )
                    .on_hover_text("Generated demo catalogue, served by the app itself");
                }
                ui.separator();
                ui.selectable_value(&mut self.state.view, View::Product, "Product");
                ui.selectable_value(&mut self.state.view, View::Orders, "Weekly orders");
                ui.selectable_value(&mut self.state.view, View::Settings, "Settings");
                ui.separator();
                ui.weak(tier.map_or_else(|| "tier: …".to_owned(), |tier| format!("tier: {tier}")));
            });
        });

        let search = egui::Panel::left("search_panel")
            .default_size(380.0)
            .resizable(true)
            .show(ui, |ui| {
                ui::search::search_ui(
                    ui,
                    &mut self.state.last_query,
                    &mut self.state.country,
                    tier,
                    &self.results,
                    self.selected.as_deref(),
                )
            })
            .inner;
        if search.query_changed {
            self.search_edited_at = Some(ctx.input(|i| i.time));
            ctx.request_repaint_after(Duration::from_secs_f64(SEARCH_DEBOUNCE_SECS));
        }
        if search.country_changed || search.retry {
            self.search_edited_at = None;
            self.send_search(ctx);
        }
        if let Some(id) = search.open {
            if self.state.view == View::Settings {
                self.state.view = View::Product;
            }
            self.open_product(id, ctx);
        }

        let mut retry_product = false;
        let mut switch_to = None;
        egui::CentralPanel::default().show(ui, |ui| match self.state.view {
            View::Product => {
                if self.selected.is_none() {
                    ui.weak("Pick a product on the left.");
                }
                egui::ScrollArea::vertical()
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        retry_product = ui::widgets::requested_ui(
                            ui,
                            "Product",
                            &self.product,
                            |ui, product| {
                                ui::detail::detail_ui(ui, product, tier);
                            },
                        );
                    });
            }
            View::Orders => {
                if self.selected.is_none() {
                    ui.weak("Pick a product on the left.");
                } else {
                    retry_product = ui::orders::orders_ui(ui, &self.orders, tier);
                }
            }
            View::Settings => {
                let connection = ui::settings::ConnectionInfo {
                    base_url: self.base_url.as_deref().unwrap_or_default(),
                    is_local: self.demo_tier.is_some(),
                    demo_tier: self.demo_tier,
                    reported_tier: tier,
                };
                switch_to = ui::settings::settings_ui(ui, connection, &mut self.state.theme);
            }
        });
        if retry_product && let Some(id) = self.selected.clone() {
            self.open_product(id, ctx);
        }
        if let Some(tier) = switch_to {
            self.switch_demo_tier(tier, ctx);
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

/// The start-up screen: the demo catalogue being prepared, or why it could not be.
fn startup_ui(ui: &mut egui::Ui, state: &StartupState) {
    ui.heading("Solescope");
    ui.label("Sneaker market dashboard");
    ui.add_space(12.0);
    match &state.finished {
        None | Some(Ok(_)) => {
            ui.label(&state.message);
            ui.add(
                egui::ProgressBar::new(state.fraction)
                    .show_percentage()
                    .animate(true),
            );
        }
        Some(Err(err)) => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("Could not start the demo service: {err}"),
            );
        }
    }
}

impl eframe::App for App {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        App::ui(self, ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.state);
    }
}

/// Starts the work that prepares the app, given a function that wakes the UI.
pub type Prepare = Box<dyn FnOnce(Box<dyn Fn() + Send>)>;

/// Opens the window and runs until it is closed. `prepare` starts the local service and
/// finishes `startup` with its base URL.
pub fn run(
    startup: StartupStatus,
    prepare: Prepare,
    runtime: tokio::runtime::Handle,
    key_store: Arc<dyn KeyStore>,
) -> eframe::Result {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Solescope")
            .with_inner_size([1200.0, 800.0])
            .with_min_inner_size([640.0, 420.0]),
        ..Default::default()
    };
    eframe::run_native(
        "Solescope",
        options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            prepare(Box::new(move || ctx.request_repaint()));
            let state = cc
                .storage
                .and_then(|storage| eframe::get_value::<AppState>(storage, eframe::APP_KEY))
                .unwrap_or_default();
            Ok(Box::new(App::new(AppInit {
                runtime,
                key_store,
                startup,
                state,
            })))
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_and_old_state_loads_with_defaults() {
        let state = AppState {
            theme: ThemeChoice::Dark,
            last_query: "jordan".into(),
            country: Country::Fr,
            view: View::Orders,
        };
        let json = serde_json::to_string(&state).unwrap();
        assert!(!json.contains("demo-"), "{json}");
        assert_eq!(serde_json::from_str::<AppState>(&json).unwrap(), state);
        let partial: AppState = serde_json::from_str(r#"{"last_query":"dunk"}"#).unwrap();
        assert_eq!(partial.last_query, "dunk");
        assert_eq!(partial.theme, ThemeChoice::System);
    }

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
