//! The eframe application: [`App`] holds the runtime pieces (the client, the fetches in flight),
//! [`AppState`] what is kept between runs (eframe storage; never the key).
//!
//! The window reaches data only through [`Client`], over HTTP, to the in-process demo service
//! `main` starts, or to a remote server that speaks the same interface. Every fetch runs on the tokio runtime `main` owns
//! and lands in a [`Requested`] value; the UI thread never waits on I/O, the key store included.

pub mod images;
mod requested;
mod screenshot;
mod status;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use self::requested::Requested;
pub use self::screenshot::{ScreenshotRequest, write_png};
use self::screenshot::{ScreenshotRun, write_atomically};
pub use self::status::{Severity, SharedStatus, StatusMessage, StatusQueue};
use crate::client::{Client, ClientConfig, ClientError, ErrorKind, KeyStore, SearchQuery};
use crate::model::{
    Country, Product, ResaleAEnvelope, ResaleBEnvelope, RetailerEnvelope, SearchHit,
    SearchResponse, Tier,
};
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

/// The view beside the search panel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum View {
    /// The open product's detail.
    #[default]
    Product,
    /// The open product's weekly orders.
    Orders,
    /// Real-time marketplace lookups.
    Realtime,
    /// The starred products.
    Watchlist,
    /// Settings.
    Settings,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: [View; 5] = [
        View::Product,
        View::Orders,
        View::Realtime,
        View::Watchlist,
        View::Settings,
    ];

    /// The tab label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            View::Product => "Product",
            View::Orders => "Weekly orders",
            View::Realtime => "Real-time",
            View::Watchlist => "Watchlist",
            View::Settings => "Settings",
        }
    }

    /// Parses a view name as the command line takes it (`product`, `orders`, `realtime`,
    /// `watchlist`, `settings`, or the tab label).
    #[must_use]
    pub fn parse(name: &str) -> Option<View> {
        let name = name
            .trim()
            .to_ascii_lowercase()
            .replace(['-', ' ', '_'], "");
        View::ALL.into_iter().find(|view| {
            let label = view.label().to_ascii_lowercase().replace(['-', ' '], "");
            name == label
                || format!("{name}s") == label
                || label.ends_with(&name) && name.len() >= 5
        })
    }
}

/// Where the data comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DataSource {
    /// The bundled demo catalogue through the in-process service.
    #[default]
    LocalDemo,
    /// A remote server that speaks the same interface; its key is in the key store.
    Remote {
        /// The server's base URL.
        base_url: String,
    },
}

/// A starred product, with what is needed to show it before any fetch lands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchedProduct {
    /// Product UUID.
    pub id: String,
    /// Title when starred.
    pub title: String,
    /// Style code.
    pub sku: String,
    /// The dataset its prices come from.
    pub country: Country,
    /// Currency of the prices.
    pub currency: String,
    /// Lowest price when starred; `None` when it had none.
    pub price_when_starred: Option<f64>,
}

/// A product added to the weekly-orders comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComparedProduct {
    /// Product UUID.
    pub id: String,
    /// Title, for the legend.
    pub title: String,
}

/// What is kept between runs, in eframe storage. Never the API key.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AppState {
    /// The colour theme.
    pub theme: ThemeChoice,
    /// The last search text.
    pub last_query: String,
    /// The style-code filter; empty for none.
    pub sku_filter: String,
    /// The GTIN filter; empty for none.
    pub gtin_filter: String,
    /// The dataset searched.
    pub country: Country,
    /// The view beside the search panel.
    pub view: View,
    /// The product open in the detail view, reopened on start.
    pub selected_product: Option<String>,
    /// Where the data comes from.
    pub source: DataSource,
    /// The starred products.
    pub watchlist: Vec<WatchedProduct>,
    /// Products drawn beside the open one on the weekly-orders charts.
    pub compare: Vec<ComparedProduct>,
    /// How the variants table is sorted.
    pub variant_sort: ui::detail::VariantSort,
    /// The weekly-orders range and charts.
    pub orders_view: ui::orders::OrdersView,
    /// The real-time lookup form.
    pub realtime: ui::realtime::RealtimeForm,
    /// The payout calculator's price and fee rates.
    pub payout: ui::market::PayoutState,
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
    /// Take a screenshot of the first settled frame and close.
    pub screenshot: Option<ScreenshotRequest>,
}

/// The hits of a search, page after page.
struct SearchPages {
    /// The first page, with the hits of later pages appended.
    results: Requested<SearchResponse>,
    /// The next page, in flight or failed.
    more: Requested<SearchResponse>,
    /// Pages loaded into `results`.
    pages_loaded: u32,
    /// The hit the arrow keys moved to.
    highlighted: Option<usize>,
}

impl SearchPages {
    /// Whether the server may have more hits: every page so far was full and the estimate is
    /// not reached.
    fn has_more(&self) -> bool {
        let Requested::Completed(results) = &self.results else {
            return false;
        };
        let loaded = results.hits.len() as u64;
        results.limit > 0
            && loaded == u64::from(results.limit) * u64::from(self.pages_loaded)
            && loaded < results.estimated_total_hits
    }
}

/// The application.
pub struct App {
    /// What is kept between runs.
    pub state: AppState,
    runtime: tokio::runtime::Handle,
    key_store: Arc<dyn KeyStore>,
    startup: StartupStatus,
    screenshot: Option<ScreenshotRun>,
    local_base_url: Option<String>,
    base_url: Option<String>,
    key: Requested<Option<String>>,
    connect_attempted: bool,
    client: Option<Client>,
    client_error: Option<String>,
    demo_tier: Option<Tier>,
    remote_draft: ui::settings::RemoteDraft,
    search_edited_at: Option<f64>,
    search: SearchPages,
    product: Requested<Product>,
    orders: Requested<WeeklySeries>,
    compare_orders: Vec<Requested<WeeklySeries>>,
    watch_prices: HashMap<String, Requested<SearchHit>>,
    resale_a: Requested<ResaleAEnvelope>,
    resale_b: Requested<ResaleBEnvelope>,
    retailer: Requested<RetailerEnvelope>,
    status: SharedStatus,
    applied_theme: Option<ThemeChoice>,
    /// When the app was made, until the first results are shown (then `None`).
    started_at: Option<std::time::Instant>,
}

impl App {
    /// An app that starts once `init.startup` is finished (or at once on a remote server).
    #[must_use]
    pub fn new(init: AppInit) -> Self {
        let remote_draft = ui::settings::RemoteDraft {
            base_url: match &init.state.source {
                DataSource::Remote { base_url } => base_url.clone(),
                DataSource::LocalDemo => String::new(),
            },
            api_key: String::new(),
        };
        Self {
            state: init.state,
            runtime: init.runtime,
            key_store: init.key_store,
            startup: init.startup,
            screenshot: init.screenshot.map(ScreenshotRun::new),
            local_base_url: None,
            base_url: None,
            key: Requested::NotYetRequested,
            connect_attempted: false,
            client: None,
            client_error: None,
            demo_tier: None,
            remote_draft,
            search_edited_at: None,
            search: SearchPages {
                results: Requested::NotYetRequested,
                more: Requested::NotYetRequested,
                pages_loaded: 0,
                highlighted: None,
            },
            product: Requested::NotYetRequested,
            orders: Requested::NotYetRequested,
            compare_orders: Vec::new(),
            watch_prices: HashMap::new(),
            resale_a: Requested::NotYetRequested,
            resale_b: Requested::NotYetRequested,
            retailer: Requested::NotYetRequested,
            status: SharedStatus::default(),
            applied_theme: None,
            started_at: Some(std::time::Instant::now()),
        }
    }

    /// The current search results (every page loaded), if any arrived.
    #[must_use]
    pub fn search_results(&self) -> Option<&SearchResponse> {
        self.search.results.value()
    }

    /// Why the last search failed, if it did.
    #[must_use]
    pub fn search_error(&self) -> Option<&ClientError> {
        self.search.results.error()
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

    /// The weekly series of the compared products (`None` while not loaded), in
    /// `state.compare` order.
    #[must_use]
    pub fn compared_series(&self) -> Vec<Option<&WeeklySeries>> {
        self.compare_orders.iter().map(Requested::value).collect()
    }

    /// The current price lookup of a watched product.
    #[must_use]
    pub fn watch_price(&self, id: &str) -> Option<&SearchHit> {
        self.watch_prices.get(id).and_then(Requested::value)
    }

    /// The key's tier as the server last reported it.
    #[must_use]
    pub fn tier(&self) -> Option<Tier> {
        self.client.as_ref().and_then(Client::tier)
    }

    /// The real-time budget as the client last saw it.
    #[must_use]
    pub fn realtime_budget(&self) -> Option<crate::client::Budget> {
        self.client.as_ref().map(Client::realtime_budget)
    }

    /// The base URL of the server in use, once known.
    #[must_use]
    pub fn base_url(&self) -> Option<&str> {
        self.base_url.as_deref()
    }

    /// Why the app could not connect, if it could not.
    #[must_use]
    pub fn connect_error(&self) -> Option<&str> {
        self.client_error.as_deref()
    }

    /// The status messages waiting to be read.
    #[must_use]
    pub fn status_messages(&self) -> Vec<StatusMessage> {
        self.status.lock().iter().cloned().collect()
    }

    /// Whether every fetch has landed (none in flight, no search waiting for the debounce).
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.client.is_some()
            && self.search_edited_at.is_none()
            && !self.key.is_pending()
            && !self.search.results.is_pending()
            && !self.search.more.is_pending()
            && !self.product.is_pending()
            && !self.orders.is_pending()
            && !self.compare_orders.iter().any(Requested::is_pending)
            && !self.watch_prices.values().any(Requested::is_pending)
            && !self.resale_a.is_pending()
            && !self.resale_b.is_pending()
            && !self.retailer.is_pending()
    }

    /// The last `resale-a` lookup, once landed.
    #[must_use]
    pub fn resale_a(&self) -> Option<&ResaleAEnvelope> {
        self.resale_a.value()
    }

    /// The last `resale-b` related-products lookup, once landed.
    #[must_use]
    pub fn resale_b(&self) -> Option<&ResaleBEnvelope> {
        self.resale_b.value()
    }

    /// The last `retailer-a` lookup, once landed.
    #[must_use]
    pub fn retailer(&self) -> Option<&RetailerEnvelope> {
        self.retailer.value()
    }

    fn poll(&mut self) {
        self.key.poll();
        self.search.results.poll();
        if matches!(self.search.results, Requested::Completed(_))
            && let Some(started_at) = self.started_at.take()
        {
            tracing::info!(
                "first results shown {} ms after the window opened",
                started_at.elapsed().as_millis()
            );
        }
        self.search.more.poll();
        self.product.poll();
        self.orders.poll();
        for series in &mut self.compare_orders {
            series.poll();
        }
        for price in self.watch_prices.values_mut() {
            price.poll();
        }
        self.resale_a.poll();
        self.resale_b.poll();
        self.retailer.poll();
        // A landed page joins the hits; one that lands after a new search started is dropped.
        if matches!(self.search.more, Requested::Completed(_))
            && let Requested::Completed(page) = std::mem::take(&mut self.search.more)
            && let Requested::Completed(results) = &mut self.search.results
        {
            results.hits.extend(page.hits);
            self.search.pages_loaded += 1;
        }
    }

    /// Draws the whole window into `ui`.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        if self.applied_theme != Some(self.state.theme) {
            ctx.set_theme(self.state.theme.preference());
            self.applied_theme = Some(self.state.theme);
        }
        self.poll();

        if self.base_url.is_none() {
            if let DataSource::Remote { base_url } = &self.state.source {
                self.base_url = Some(base_url.clone());
            } else {
                let startup = self.startup.snapshot();
                if let Some(Ok(ready)) = startup.finished {
                    self.local_base_url = Some(ready.base_url.clone());
                    self.base_url = Some(ready.base_url);
                } else {
                    egui::CentralPanel::default().show(ui, |ui| startup_ui(ui, &startup));
                    return;
                }
            }
        }
        if self.client.is_none() && !self.connect_attempted {
            self.connect_with_stored_key(&ctx);
            // Ready to type: the search box has the focus from the first frame.
            if ctx.memory(egui::Memory::focused).is_none() {
                ctx.memory_mut(|m| m.request_focus(ui::search::query_box_id()));
            }
        }
        self.send_search_after_debounce(&ctx);
        self.keyboard(&ctx);
        self.panels_ui(ui, &ctx);
        if self.screenshot.is_some() {
            self.screenshot_autopilot(&ctx);
            let is_idle = self.is_idle();
            if let Some(run) = &mut self.screenshot {
                run.after_frame(&ctx, is_idle);
            }
        }
    }

    fn is_local(&self) -> bool {
        self.state.source == DataSource::LocalDemo
    }

    /// The key-store account of the key in use.
    fn key_account(&self) -> String {
        match &self.state.source {
            DataSource::LocalDemo => LOCAL_DEMO_ACCOUNT.to_owned(),
            DataSource::Remote { base_url } => crate::client::keystore::account_for(base_url),
        }
    }

    /// Reads the key from the key store (off the UI thread) and builds the client.
    fn connect_with_stored_key(&mut self, ctx: &egui::Context) {
        match &self.key {
            Requested::NotYetRequested => {
                let store = Arc::clone(&self.key_store);
                let account = self.key_account();
                let is_local = self.is_local();
                self.key.spawn(&self.runtime, ctx, async move {
                    tokio::task::spawn_blocking(move || {
                        if is_local {
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

    fn push_status(&self, severity: Severity, text: impl Into<String>) {
        self.status.push(severity, text);
    }

    /// Replaces the client by one using `key`, and fetches again what is shown.
    fn connect(&mut self, key: Option<String>, ctx: &egui::Context) {
        let Some(base_url) = self.base_url.clone() else {
            return;
        };
        self.connect_attempted = true;
        self.demo_tier = if self.is_local() {
            key.as_deref().and_then(demo_tier_from_key)
        } else {
            None
        };
        match Client::new(ClientConfig::new(base_url, key)) {
            Ok(client) => {
                self.client = Some(client);
                self.client_error = None;
                self.search_edited_at = None;
                self.watch_prices.clear();
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
    fn disconnect(&mut self) {
        self.client = None;
        self.client_error = None;
        self.connect_attempted = false;
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
    fn switch_demo_tier(&mut self, tier: Tier, ctx: &egui::Context) {
        let key = demo_key(tier);
        self.store_key_in_background(LOCAL_DEMO_ACCOUNT.to_owned(), key.clone());
        self.connect(Some(key), ctx);
    }

    fn store_key_in_background(&self, account: String, key: String) {
        let store = Arc::clone(&self.key_store);
        let status = self.status.clone();
        self.runtime.spawn_blocking(move || {
            if let Err(err) = store.set(&account, &key) {
                status.push(
                    Severity::Error,
                    format!("The key is used for this session only: {err}"),
                );
            }
        });
    }

    fn settings_action(&mut self, action: ui::settings::SettingsAction, ctx: &egui::Context) {
        use ui::settings::SettingsAction;
        match action {
            SettingsAction::None => {}
            SettingsAction::SwitchDemoTier(tier) => self.switch_demo_tier(tier, ctx),
            SettingsAction::UseLocal => {
                self.state.source = DataSource::LocalDemo;
                self.disconnect();
                self.base_url = self.local_base_url.clone();
            }
            SettingsAction::UseRemote { base_url, api_key } => {
                self.state.source = DataSource::Remote {
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
                self.runtime.spawn_blocking(move || {
                    status.push_outcome(
                        store
                            .delete(&account)
                            .map(|()| "The key was deleted from the keyring.".to_owned())
                            .map_err(|err| format!("Could not delete the key: {err}")),
                    );
                });
                self.disconnect();
                self.connect(None, ctx);
            }
        }
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

    fn search_query(&self, page: u32) -> SearchQuery {
        let filter = |text: &str| {
            let text = text.trim();
            (!text.is_empty()).then(|| text.to_owned())
        };
        SearchQuery {
            text: self.state.last_query.trim().to_owned(),
            page: (page > 1).then_some(page),
            limit: None,
            sku: filter(&self.state.sku_filter),
            gtin: filter(&self.state.gtin_filter),
            country: self.state.country,
        }
    }

    fn send_search(&mut self, ctx: &egui::Context) {
        let Some(client) = self.client.clone() else {
            return;
        };
        let query = self.search_query(1);
        self.search.more = Requested::NotYetRequested;
        self.search.pages_loaded = 1;
        self.search.highlighted = None;
        self.search.results.spawn(
            &self.runtime,
            ctx,
            async move { client.search(&query).await },
        );
    }

    fn load_more(&mut self, ctx: &egui::Context) {
        let Some(client) = self.client.clone() else {
            return;
        };
        if self.search.more.is_pending() || !matches!(self.search.results, Requested::Completed(_))
        {
            return;
        }
        let query = self.search_query(self.search.pages_loaded + 1);
        self.search.more.spawn(
            &self.runtime,
            ctx,
            async move { client.search(&query).await },
        );
    }

    fn open_product(&mut self, id: String, ctx: &egui::Context) {
        let Some(client) = self.client.clone() else {
            self.state.selected_product = Some(id);
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
        self.orders = self.fetch_orders(&id, ctx);
        let compared: Vec<String> = self.state.compare.iter().map(|c| c.id.clone()).collect();
        self.compare_orders = compared
            .iter()
            .map(|id| self.fetch_orders(id, ctx))
            .collect();
        self.state.selected_product = Some(id);
    }

    /// The weekly orders of `id`, fetched; nothing for a free key (the chart shows a lock, no
    /// need to be refused).
    fn fetch_orders(&self, id: &str, ctx: &egui::Context) -> Requested<WeeklySeries> {
        let mut orders = Requested::NotYetRequested;
        let Some(client) = self.client.clone() else {
            return orders;
        };
        if client.tier() == Some(Tier::Free) {
            return orders;
        }
        let id = id.to_owned();
        orders.spawn(&self.runtime, ctx, async move {
            client
                .orders(&id)
                .await
                .map(|envelope| WeeklySeries::from_weekly(&envelope.data))
        });
        orders
    }

    fn toggle_watch(&mut self, product: &Product) {
        if let Some(index) = self.state.watchlist.iter().position(|w| w.id == product.id) {
            self.state.watchlist.remove(index);
            self.watch_prices.remove(&product.id);
        } else {
            self.state.watchlist.push(WatchedProduct {
                id: product.id.clone(),
                title: product.title.clone(),
                sku: product.sku.clone(),
                country: self.state.country,
                currency: product.currency.clone(),
                price_when_starred: (product.min_price > 0.0).then_some(product.min_price),
            });
        }
    }

    /// Fetches the current price of each watched product (all of them when `all`, else only
    /// those not fetched yet).
    fn refresh_watchlist(&mut self, all: bool, ctx: &egui::Context) {
        let Some(client) = self.client.clone() else {
            return;
        };
        for item in &self.state.watchlist {
            // Called every frame the watchlist is shown: a product already asked for costs a
            // lookup, not an allocation.
            if !all && self.watch_prices.contains_key(&item.id) {
                continue;
            }
            let price = self.watch_prices.entry(item.id.clone()).or_default();
            if price.is_pending() {
                continue;
            }
            let client = client.clone();
            let (id, country) = (item.id.clone(), item.country);
            price.spawn(&self.runtime, ctx, async move {
                client.product(&id, country).await
            });
        }
    }

    fn add_to_compare(&mut self, product: &Product, ctx: &egui::Context) {
        const MAX_COMPARED: usize = 4;
        if self.state.compare.iter().any(|c| c.id == product.id) {
            return;
        }
        if self.state.compare.len() >= MAX_COMPARED {
            self.push_status(
                Severity::Info,
                format!("At most {MAX_COMPARED} products are compared; remove one first."),
            );
            return;
        }
        self.state.compare.push(ComparedProduct {
            id: product.id.clone(),
            title: product.title.clone(),
        });
        let series = self.fetch_orders(&product.id, ctx);
        self.compare_orders.push(series);
        self.push_status(
            Severity::Info,
            format!("{} added to the weekly-orders comparison.", product.title),
        );
    }

    /// `/` or Ctrl+K focuses the search box; arrows move through the hits and Enter opens one,
    /// unless another text field has the focus.
    fn keyboard(&mut self, ctx: &egui::Context) {
        let focused = ctx.memory(egui::Memory::focused);
        let query_box = ui::search::query_box_id();
        let search_has_focus = focused == Some(query_box);
        let nothing_focused = focused.is_none();
        let focus_search = ctx.input_mut(|i| {
            let ctrl_k = i.consume_shortcut(&egui::KeyboardShortcut::new(
                egui::Modifiers::COMMAND,
                egui::Key::K,
            ));
            let slash = nothing_focused && i.consume_key(egui::Modifiers::NONE, egui::Key::Slash);
            if slash {
                // The key's text event would type a `/` into the box that is about to focus.
                i.events
                    .retain(|event| !matches!(event, egui::Event::Text(text) if text == "/"));
            }
            ctrl_k || slash
        });
        if focus_search {
            ctx.memory_mut(|m| m.request_focus(query_box));
        }
        if !(search_has_focus || nothing_focused) {
            return;
        }
        let hit_count = self.search_results().map_or(0, |r| r.hits.len());
        if hit_count == 0 {
            return;
        }
        let (down, up, enter) = ctx.input_mut(|i| {
            (
                i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowDown),
                i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowUp),
                self.search.highlighted.is_some()
                    && i.consume_key(egui::Modifiers::NONE, egui::Key::Enter),
            )
        });
        let highlighted = &mut self.search.highlighted;
        if down {
            *highlighted = Some(highlighted.map_or(0, |i| (i + 1).min(hit_count - 1)));
        }
        if up {
            *highlighted = Some(highlighted.map_or(0, |i| i.saturating_sub(1)));
        }
        if enter && let Some(index) = *highlighted {
            let id = self
                .search_results()
                .and_then(|r| r.hits.get(index))
                .map(|h| h.id.clone());
            if let Some(id) = id {
                if matches!(self.state.view, View::Settings | View::Watchlist) {
                    self.state.view = View::Product;
                }
                self.open_product(id, ctx);
            }
        }
    }

    /// In a screenshot run: open the first hit when the view shows a product and none is open.
    fn screenshot_autopilot(&mut self, ctx: &egui::Context) {
        let wants_product = matches!(
            self.state.view,
            View::Product | View::Orders | View::Realtime
        );
        if wants_product && self.state.selected_product.is_none() && self.is_idle() {
            let first = self
                .search_results()
                .and_then(|r| r.hits.first())
                .map(|h| h.id.clone());
            if let Some(id) = first {
                self.open_product(id, ctx);
            }
        }
        if self.state.view == View::Realtime
            && matches!(self.resale_b, Requested::NotYetRequested)
            && self.is_idle()
            && let Some(product) = self.product.value()
        {
            let lookup = ui::realtime::Lookup::ResaleB {
                id: product.slug.clone(),
                query: crate::client::RelatedQuery::default(),
            };
            self.state.realtime.record_lookup(&lookup);
            self.spawn_lookup(lookup, ctx);
        }
    }

    fn panels_ui(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        let tier = self.tier();
        egui::Panel::top("top_bar").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.strong("Solescope");
                if self.is_local() {
                    ui.label(
                        egui::RichText::new(" demo data ")
                            .background_color(ui.visuals().warn_fg_color)
                            .color(ui.visuals().extreme_bg_color),
                    )
                    .on_hover_text("Generated demo catalogue, served by the app itself");
                } else if let Some(base_url) = &self.base_url {
                    ui.weak(base_url.as_str());
                }
                ui.separator();
                for view in View::ALL {
                    ui.selectable_value(&mut self.state.view, view, view.label());
                }
                ui.separator();
                ui.weak(tier.map_or_else(|| "tier: …".to_owned(), |tier| format!("tier: {tier}")));
            });
        });
        self.status_ui(ui);

        let search_output = {
            let base_url = self.base_url.clone().unwrap_or_default();
            let thumbnail = move |ui: &mut egui::Ui, url: &str| {
                let size = egui::vec2(57.0, 38.0);
                ui::images::thumbnail_ui(
                    ui,
                    ui::images::service_url(ui, url, &base_url, size).as_deref(),
                    size,
                );
            };
            let view = ui::search::SearchView {
                tier,
                results: &self.search.results,
                more: &self.search.more,
                has_more: self.search.has_more(),
                selected: self.state.selected_product.as_deref(),
                highlighted: self.search.highlighted,
                thumbnail: &thumbnail,
            };
            let mut fields = ui::search::SearchFields {
                query: &mut self.state.last_query,
                sku: &mut self.state.sku_filter,
                gtin: &mut self.state.gtin_filter,
                country: &mut self.state.country,
            };
            let client_error = self.client_error.as_deref();
            egui::Panel::left("search_panel")
                .default_size(380.0)
                .resizable(true)
                .show(ui, |ui| {
                    if let Some(err) = client_error {
                        ui.colored_label(
                            ui.visuals().error_fg_color,
                            format!("Not connected: {err}"),
                        );
                    }
                    ui::search::search_ui(ui, &mut fields, &view)
                })
                .inner
        };
        if search_output.query_changed {
            self.search_edited_at = Some(ctx.input(|i| i.time));
            ctx.request_repaint_after(Duration::from_secs_f64(SEARCH_DEBOUNCE_SECS));
        }
        if search_output.country_changed || search_output.retry {
            self.search_edited_at = None;
            self.send_search(ctx);
        }
        if search_output.load_more {
            self.load_more(ctx);
        }
        if let Some(id) = search_output.open {
            if matches!(self.state.view, View::Settings | View::Watchlist) {
                self.state.view = View::Product;
            }
            self.open_product(id, ctx);
        }

        egui::CentralPanel::default().show(ui, |ui| match self.state.view {
            View::Product => self.product_view_ui(ui, tier, ctx),
            View::Orders => self.orders_view_ui(ui, tier, ctx),
            View::Realtime => self.realtime_view_ui(ui, tier, ctx),
            View::Watchlist => self.watchlist_view_ui(ui, ctx),
            View::Settings => {
                let connection = ui::settings::ConnectionInfo {
                    base_url: self.base_url.as_deref().unwrap_or_default(),
                    is_local: self.is_local(),
                    demo_tier: self.demo_tier,
                    reported_tier: tier,
                    has_key: self.client.as_ref().is_some_and(Client::has_key),
                    connect_error: self.client_error.as_deref(),
                };
                let action = ui::settings::settings_ui(
                    ui,
                    connection,
                    &mut self.remote_draft,
                    &mut self.state.theme,
                );
                self.settings_action(action, ctx);
            }
        });
    }

    fn status_ui(&mut self, ui: &mut egui::Ui) {
        let messages = self.status_messages();
        if messages.is_empty() {
            return;
        }
        let mut dismiss = None;
        egui::Panel::bottom("status").show(ui, |ui| {
            for (index, message) in messages.iter().enumerate() {
                ui.horizontal(|ui| {
                    if ui.small_button("Dismiss").clicked() {
                        dismiss = Some(index);
                    }
                    match message.severity {
                        Severity::Info => ui.label(&message.text),
                        Severity::Error => {
                            ui.colored_label(ui.visuals().error_fg_color, &message.text)
                        }
                    };
                });
            }
        });
        if let Some(index) = dismiss {
            self.status.lock().dismiss(index);
        }
    }

    fn product_view_ui(&mut self, ui: &mut egui::Ui, tier: Option<Tier>, ctx: &egui::Context) {
        if self.state.selected_product.is_none() {
            ui.weak("Pick a product on the left (or press / to search).");
            return;
        }
        let mut output = ui::detail::DetailOutput::default();
        let mut retry = false;
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let base_url = self.base_url.as_deref().unwrap_or_default();
                let image = |ui: &mut egui::Ui, url: &str| {
                    let size = egui::vec2(300.0, 200.0);
                    ui::images::product_image_ui(
                        ui,
                        ui::images::service_url(ui, url, base_url, size).as_deref(),
                        size,
                    );
                };
                let watched = |id: &str| self.state.watchlist.iter().any(|w| w.id == id);
                let mut sort = self.state.variant_sort;
                let payout = &mut self.state.payout;
                let weekly = self.orders.value();
                let live_nodes = self.resale_b.value();
                retry = ui::widgets::requested_ui(ui, "Product", &self.product, |ui, product| {
                    output = ui::detail::detail_ui(
                        ui,
                        product,
                        tier,
                        watched(&product.id),
                        &mut sort,
                        &image,
                    );
                    ui.add_space(12.0);
                    ui.separator();
                    // resale-b lists the product itself only when it is among the related
                    // products of the last lookup.
                    let live = live_nodes.and_then(|envelope| {
                        envelope
                            .data
                            .iter()
                            .map(|edge| &edge.node)
                            .find(|node| node.url_key == product.slug)
                    });
                    ui::market::market_ui(ui, product, weekly, live);
                    ui.add_space(12.0);
                    let lowest_ask = (product.min_price > 0.0)
                        .then_some((product.min_price, product.currency.as_str()));
                    ui::market::payout_ui(ui, payout, lowest_ask);
                });
                self.state.variant_sort = sort;
            });
        if retry && let Some(id) = self.state.selected_product.clone() {
            self.open_product(id, ctx);
        }
        let product = self.product.value().cloned();
        if let Some(product) = product {
            if output.toggle_watch {
                self.toggle_watch(&product);
            }
            if output.compare {
                self.add_to_compare(&product, ctx);
            }
        }
    }

    fn orders_view_ui(&mut self, ui: &mut egui::Ui, tier: Option<Tier>, ctx: &egui::Context) {
        if self.state.selected_product.is_none() {
            ui.weak("Pick a product on the left.");
            return;
        }
        let open_title = self
            .product
            .value()
            .map_or("this product", |p| p.title.as_str());
        let currency = self
            .product
            .value()
            .map_or_else(|| self.state.country.currency(), |p| p.currency.as_str())
            .to_owned();
        let mut series: Vec<(&str, &Requested<WeeklySeries>)> = vec![(open_title, &self.orders)];
        // `compare_index[i]` is the `state.compare` index of `series[i + 1]`; the open product
        // is not drawn twice when it is also in the comparison.
        let open_id = self.state.selected_product.as_deref();
        let mut compare_index = Vec::new();
        for (index, (compared, orders)) in self
            .state
            .compare
            .iter()
            .zip(&self.compare_orders)
            .enumerate()
        {
            if Some(compared.id.as_str()) != open_id {
                compare_index.push(index);
                series.push((compared.title.as_str(), orders));
            }
        }
        let area = ui.max_rect();
        let output =
            ui::orders::orders_ui(ui, &mut self.state.orders_view, &series, &currency, tier);
        let csv = output.export_csv.then(|| ui::orders::series_csv(&series));
        let slug = self
            .product
            .value()
            .map_or_else(String::new, |p| p.slug.clone());
        if output.export_png {
            self.export_png(ctx, area, &slug);
        }
        if let Some(csv) = csv {
            match csv {
                Ok(text) => self.export_csv(&slug, text),
                Err(err) => self.push_status(Severity::Error, format!("Could not export: {err}")),
            }
        }
        match output.retry {
            Some(0) => {
                if let Some(id) = self.state.selected_product.clone() {
                    self.open_product(id, ctx);
                }
            }
            Some(shown) => {
                if let Some(&index) = compare_index.get(shown - 1) {
                    let id = self.state.compare[index].id.clone();
                    self.compare_orders[index] = self.fetch_orders(&id, ctx);
                }
            }
            None => {}
        }
        if let Some(shown) = output.remove_compare
            && shown > 0
            && let Some(&index) = compare_index.get(shown - 1)
        {
            self.state.compare.remove(index);
            self.compare_orders.remove(index);
        }
    }

    /// Saves `area` of the next frame as a PNG in the export folder: the renderer reads the
    /// frame back, a thread crops and writes it.
    fn export_png(&self, ctx: &egui::Context, area: egui::Rect, slug: &str) {
        let name = format!("solescope-weekly-{}.png", file_safe(slug));
        let status = self.status.clone();
        let repaint = ctx.clone();
        let pixels_per_point = ctx.pixels_per_point();
        ctx.request_screenshot(move |image| {
            std::thread::spawn(move || {
                let [width, height] = image.size;
                let whole = egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(width as f32, height as f32) / pixels_per_point,
                );
                let cropped = image.region(&area.intersect(whole), Some(pixels_per_point));
                status.push_outcome(export_path(&name).and_then(|path| {
                    write_png(&path, &cropped)
                        .map(|()| format!("Saved {}", path.display()))
                        .map_err(|err| format!("Could not save the chart: {err}"))
                }));
                repaint.request_repaint();
            });
        });
    }

    /// Writes the weekly figures as CSV to the export folder (off the UI thread) and says
    /// where in the status queue.
    fn export_csv(&self, slug: &str, text: String) {
        let name = format!("solescope-weekly-{}.csv", file_safe(slug));
        let status = self.status.clone();
        self.runtime.spawn_blocking(move || {
            status.push_outcome(export_path(&name).and_then(|path| {
                write_atomically(&path, text.as_bytes())
                    .map(|()| format!("Exported to {}", path.display()))
                    .map_err(|err| format!("Could not export: {err}: {}", path.display()))
            }));
        });
    }

    fn realtime_view_ui(&mut self, ui: &mut egui::Ui, tier: Option<Tier>, ctx: &egui::Context) {
        // Coming from a product, its slug is the natural thing to look up.
        if let Some(product) = self.product.value() {
            let form = &mut self.state.realtime;
            for id in [
                &mut form.resale_a_id,
                &mut form.resale_b_id,
                &mut form.retailer_slug,
            ] {
                if id.trim().is_empty() {
                    id.clone_from(&product.slug);
                }
            }
        }
        let results = ui::realtime::RealtimeResults {
            resale_a: &self.resale_a,
            resale_b: &self.resale_b,
            retailer: &self.retailer,
            budget: self.realtime_budget(),
            tier,
        };
        let output = egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui::realtime::realtime_ui(ui, &mut self.state.realtime, results)
            })
            .inner;
        if let Some(lookup) = output.lookup {
            self.spawn_lookup(lookup, ctx);
        }
    }

    /// Starts a real-time lookup; the form knows which one was asked for.
    fn spawn_lookup(&mut self, lookup: ui::realtime::Lookup, ctx: &egui::Context) {
        use ui::realtime::Lookup;
        let Some(client) = self.client.clone() else {
            return;
        };
        match lookup {
            Lookup::ResaleA { id } => self.resale_a.spawn(&self.runtime, ctx, async move {
                client.resale_a_product(&id).await
            }),
            Lookup::ResaleB { id, query } => self.resale_b.spawn(&self.runtime, ctx, async move {
                client.resale_b_related(&id, &query).await
            }),
            Lookup::Retailer { slug } => self.retailer.spawn(&self.runtime, ctx, async move {
                client.retailer_product(&slug).await
            }),
        }
    }

    fn watchlist_view_ui(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        self.refresh_watchlist(false, ctx);
        let output = ui::watchlist::watchlist_ui(ui, &self.state.watchlist, &self.watch_prices);
        if output.refresh {
            self.refresh_watchlist(true, ctx);
        }
        if let Some(id) = output.unstar {
            self.state.watchlist.retain(|w| w.id != id);
            self.watch_prices.remove(&id);
        }
        if let Some(id) = output.open {
            self.state.view = View::Product;
            self.open_product(id, ctx);
        }
    }
}

/// Where an export named `name` goes: the downloads folder, else home. Reads the user-dirs
/// configuration, so it runs with the export, off the UI thread.
fn export_path(name: &str) -> Result<std::path::PathBuf, String> {
    directories::UserDirs::new()
        .and_then(|dirs| dirs.download_dir().map(std::path::Path::to_path_buf))
        .or_else(|| directories::BaseDirs::new().map(|dirs| dirs.home_dir().to_path_buf()))
        .map(|dir| dir.join(name))
        .ok_or_else(|| "No downloads or home folder to export to.".to_owned())
}

/// `slug` with anything but letters, digits, `-` and `_` replaced, for a file name.
fn file_safe(slug: &str) -> String {
    let safe: String = slug
        .chars()
        .take(80)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() {
        "product".to_owned()
    } else {
        safe
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

/// Starts the work that prepares the app, given a function that wakes the UI.
pub type Prepare = Box<dyn FnOnce(Box<dyn Fn() + Send>)>;

/// A screenshot run: the state to show instead of the stored one, and where the PNG goes.
pub struct ScreenshotPlan {
    /// What to show (the view, the query, …); the stored state is neither read nor written.
    pub state: AppState,
    /// Where the PNG goes, and its outcome.
    pub request: ScreenshotRequest,
}

/// Opens the window and runs until it is closed. `prepare` starts the local service and
/// finishes `startup` with its base URL.
pub fn run(
    startup: StartupStatus,
    prepare: Prepare,
    runtime: tokio::runtime::Handle,
    key_store: Arc<dyn KeyStore>,
    screenshot: Option<ScreenshotPlan>,
    state_path: Option<std::path::PathBuf>,
) -> eframe::Result {
    let mut viewport = egui::ViewportBuilder::default()
        .with_title("Solescope")
        .with_app_id(APP_ID)
        .with_inner_size([1280.0, 800.0])
        .with_min_inner_size([640.0, 420.0]);
    if let Ok(icon) = eframe::icon_data::from_png_bytes(WINDOW_ICON_PNG) {
        viewport = viewport.with_icon(icon);
    }
    let options = eframe::NativeOptions {
        viewport,
        // A screenshot shows the given state at the default size, and must not overwrite the
        // user's stored window and state.
        persist_window: screenshot.is_none(),
        // Beside the demo catalogue, so the app's data is in one folder (eframe would otherwise
        // make another, named after the app id).
        persistence_path: state_path,
        ..Default::default()
    };
    eframe::run_native(
        "Solescope",
        options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            images::install(&cc.egui_ctx, runtime.clone());
            prepare(Box::new(move || ctx.request_repaint()));
            let (state, screenshot) = match screenshot {
                Some(run) => (run.state, Some(run.request)),
                None => (
                    cc.storage
                        .and_then(|storage| eframe::get_value::<AppState>(storage, eframe::APP_KEY))
                        .unwrap_or_default(),
                    None,
                ),
            };
            Ok(Box::new(WindowApp(App::new(AppInit {
                runtime,
                key_store,
                startup,
                state,
                screenshot,
            }))))
        }),
    )
}

/// The reverse-DNS id of the app: the Wayland app id, the desktop entry and metainfo names.
pub const APP_ID: &str = "io.github.solescope.Solescope";

/// The window icon.
const WINDOW_ICON_PNG: &[u8] = include_bytes!("../../assets/icon.png");

/// [`App`] in a native window: stores the state on exit, except in a screenshot run.
struct WindowApp(App);

impl eframe::App for WindowApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.0.ui(ui);
    }

    fn persist_egui_memory(&self) -> bool {
        self.0.screenshot.is_none()
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if self.0.screenshot.is_none() {
            eframe::set_value(storage, eframe::APP_KEY, &self.0.state);
        }
    }
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
            selected_product: Some("p1".into()),
            source: DataSource::Remote {
                base_url: "https://api.example.com".into(),
            },
            ..AppState::default()
        };
        let json = serde_json::to_string(&state).unwrap();
        assert!(!json.contains("demo-"), "{json}");
        let back: AppState = serde_json::from_str(&json).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        assert_eq!(back.source, state.source);
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
