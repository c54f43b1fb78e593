//! The eframe application: [`App`] holds the runtime pieces (the client, the fetches in flight),
//! [`AppState`] what is kept between runs (eframe storage; never the key).
//!
//! The window reaches data only through [`Client`], over HTTP, to the in-process demo service
//! `main` starts, or to a remote server that speaks the same interface. Every fetch runs on the
//! tokio runtime `main` owns and lands in a [`Requested`] value; the UI thread never waits on
//! I/O, the key store included. The panels of [`crate::ui`] draw what the app hands them and
//! return what the user asked for; the app acts on it.
//!
//! One file per concern, each adding its methods to [`App`]: `connection` (key store, connect,
//! demo tiers, settings), `fetches` (search paging and debounce, product, orders, watchlist,
//! comparison, real-time lookups), `keyboard`, `layout` (the panels and what their answers
//! do), `export` (CSV and PNG), `screenshot`, `startup` and `window` (the eframe wiring),
//! `flips` (the Flips tab's settings and list).

mod alerts;
mod budget;
mod connection;
mod drops;
mod export;
mod fetches;
mod flips;
pub mod images;
mod keyboard;
mod layout;
mod live;
pub mod monitor;
pub mod notify;
mod portfolio;
pub mod portfolio_cli;
mod prices;
pub mod releases_export;
pub mod reminders;
mod requested;
mod screenshot;
mod sources;
mod startup;
mod status;
mod stores;
mod window;

use std::sync::Arc;

pub use self::connection::{DEFAULT_DEMO_TIER, LOCAL_DEMO_ACCOUNT, demo_key, demo_tier_from_key};
pub use self::export::write_png;
use self::fetches::SearchPages;
pub use self::live::{KICKSDB_ACCOUNT, LIVE_SEARCH_PAUSE_SECS, LiveLauncher};
pub use self::requested::Requested;
pub use self::screenshot::ScreenshotRequest;
use self::screenshot::ScreenshotRun;
use self::startup::startup_ui;
pub use self::startup::{Prepare, Ready, StartupState, StartupStatus};
pub use self::status::{Severity, SharedStatus, StatusMessage, StatusQueue};
pub use self::window::{APP_ID, ScreenshotPlan, run};
use crate::client::{Client, ClientError, KeyStore};
use crate::model::{
    Product, ResaleAEnvelope, ResaleBEnvelope, RetailerEnvelope, SearchResponse, Tier,
};
use crate::ui;
use crate::ui::orders::WeeklySeries;
pub use crate::ui::state::{
    AppState, ComparedProduct, Feed, ServiceLocation, ThemeChoice, View, WatchedProduct,
};

/// How long typing must pause before a search is sent.
pub const SEARCH_DEBOUNCE_SECS: f64 = 0.25;

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
    /// The user database (portfolio, watchlist): `user.sqlite` in the data directory in `main`,
    /// a temporary file in tests; `None` runs without one (nothing of the portfolio is kept).
    pub user_db: Option<std::path::PathBuf>,
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
    /// The watchlist's current prices, batched by style code.
    watch_prices: prices::PriceBook,
    resale_a: Requested<ResaleAEnvelope>,
    resale_b: Requested<ResaleBEnvelope>,
    retailer: Requested<RetailerEnvelope>,
    status: SharedStatus,
    applied_theme: Option<ThemeChoice>,
    /// The zoom last applied to egui (`None` before the first frame).
    applied_zoom: Option<ui::state::UiZoom>,
    /// When the app was made, until the first results are shown (then `None`).
    started_at: Option<std::time::Instant>,
    /// Alerts, per-size history and the monitor.
    alerts: alerts::AlertsState,
    portfolio: portfolio::Portfolio,
    /// The KicksDB source: its key, its in-process service, the key check.
    live: live::LiveSource,
    /// The retail storefronts of Settings.
    stores: stores::StoresState,
    budget: budget::BudgetState,
    /// What the service's sources answer (`GET /api/v2/sources`), asked once connected and
    /// again now and then: Settings, the badge, the monitor, *Where to buy* and the real-time
    /// tab read it.
    sources: sources::SourcesState,
    /// The *Drops* tab: the calendar, the user's sizes and starred drops, the reminders.
    drops: drops::DropsState,
    /// The Flips tab: the user's flip settings and the list.
    flips: flips::FlipsState,
}

impl App {
    /// An app that starts once `init.startup` is finished (or at once on a remote server).
    #[must_use]
    pub fn new(init: AppInit) -> Self {
        let state = init.state.migrated();
        let has_user_db = init.user_db.is_some();
        let remote_draft = ui::settings::RemoteDraft {
            base_url: match &state.service {
                ServiceLocation::Remote { base_url } => base_url.clone(),
                ServiceLocation::InWindow => String::new(),
            },
            api_key: String::new(),
            kicksdb_key: String::new(),
        };
        let mut app = Self {
            state,
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
            watch_prices: prices::PriceBook::default(),
            resale_a: Requested::NotYetRequested,
            resale_b: Requested::NotYetRequested,
            retailer: Requested::NotYetRequested,
            status: SharedStatus::default(),
            applied_theme: None,
            applied_zoom: None,
            started_at: Some(std::time::Instant::now()),
            alerts: alerts::AlertsState::default(),
            portfolio: portfolio::Portfolio::new(None),
            live: live::LiveSource::default(),
            stores: stores::StoresState::default(),
            budget: budget::BudgetState::default(),
            sources: sources::SourcesState::default(),
            drops: drops::DropsState::default(),
            flips: flips::FlipsState::new(has_user_db),
        };
        if let Some(path) = init.user_db {
            app.open_user_db(path);
        }
        app
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

    /// The current lowest price of the watched product `id` (the lowest ask over its sizes),
    /// once priced.
    #[must_use]
    pub fn watch_price(&self, id: &str) -> Option<f64> {
        let item = self.state.watchlist.iter().find(|w| w.id == id)?;
        match self.watch_prices.get(&item.sku, item.country)? {
            prices::CodePrice::Priced(priced) => prices::lowest_ask(priced),
            _ => None,
        }
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
            && self.live.search_typed_at.is_none()
            && !self.live.check.is_pending()
            && !self.sources.is_pending()
            && !self.key.is_pending()
            && !self.search.results.is_pending()
            && !self.search.more.is_pending()
            && !self.product.is_pending()
            && !self.orders.is_pending()
            && !self.compare_orders.iter().any(Requested::is_pending)
            && !self.watch_prices.is_pending()
            && !self.resale_a.is_pending()
            && !self.resale_b.is_pending()
            && !self.retailer.is_pending()
            && self.portfolio.is_idle()
            && !self.flips.is_pending()
            && !self.drops.is_pending()
    }

    /// Every pair of the portfolio as read from the user database (held and sold), once read.
    #[must_use]
    pub fn portfolio_holdings(&self) -> Option<&[crate::model::portfolio::Holding]> {
        self.portfolio.holdings()
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
        self.watch_prices.poll();
        self.resale_a.poll();
        self.resale_b.poll();
        self.retailer.poll();
        self.live.check.poll();
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
        // The window as a screen reader announces it (egui leaves its root node unnamed).
        ctx.accesskit_node_builder(egui::accesskit_root_id(), |window| {
            window.set_label("Solescope");
        });
        if self.applied_theme != Some(self.state.theme) {
            ctx.set_theme(self.state.theme.preference());
            self.applied_theme = Some(self.state.theme);
        }
        self.follow_zoom(&ctx);
        self.poll();
        self.portfolio_frame(&ctx);

        // Which service to talk to, started here when it runs in the window.
        if self.base_url.is_none() {
            match (&self.state.service, self.state.feed) {
                (ServiceLocation::Remote { base_url }, _) => {
                    self.base_url = Some(base_url.clone());
                }
                (ServiceLocation::InWindow, Feed::Kicksdb) => self.kicksdb_tick(&ctx),
                (ServiceLocation::InWindow, Feed::Demo) => {
                    let wake = ctx.clone();
                    self.startup
                        .start_once(Box::new(move || wake.request_repaint()));
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
        }
        if self.client.is_none() && !self.connect_attempted && !self.starts_kicksdb() {
            self.connect_with_stored_key(&ctx);
            // Ready to type: the search box has the focus from the first frame.
            if ctx.memory(egui::Memory::focused).is_none() {
                ctx.memory_mut(|m| m.request_focus(ui::search::query_box_id()));
            }
        }
        self.send_search_after_debounce(&ctx);
        self.live_search_after_pause(&ctx);
        self.keyboard(&ctx);
        self.sources_tick(&ctx);
        self.alerts_tick(&ctx);
        self.stores_tick();
        self.flips_tick(&ctx);
        self.budget_tick();
        self.drops_tick();
        self.panels_ui(ui, &ctx);
        ui::widgets::focus_ring_ui(&ctx);
        if self.screenshot.is_some() {
            self.screenshot_autopilot(&ctx);
            let is_idle = self.is_idle()
                && self.alerts_settled()
                && self.screenshot_stores_settled()
                && self.flips_settled();
            if let Some(run) = &mut self.screenshot {
                run.after_frame(&ctx, is_idle);
            }
        }
    }
}
