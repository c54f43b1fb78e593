//! The app's side of alerts and per-size history: the user database handle, the monitor it
//! runs once a client is connected, the alert list and history read back for the Alerts tab,
//! the badge, and the product view's where-to-buy table and price history chart.
//!
//! Every database read and write goes through [`UserDbHandle`] (its own thread); the frame polls
//! the promises and asks for a repaint while any is pending, so the UI thread never waits.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use poll_promise::Promise;

use super::monitor::{self, MonitorConfig, MonitorHandle, UserLookupGuard};
use super::notify::{DesktopNotifier, Notifier};
use super::{App, Requested, View, portfolio};
use crate::figures::{
    product_key, quotes_from_prices, quotes_from_resale_a, quotes_from_retailer, quotes_from_store,
    size_key,
};
use crate::model::{
    Alert, AlertFiring, PricePoint, Product, ProductRef, ResaleAEnvelope, RetailerEnvelope,
    SizeQuote, StoreUrl,
};
use crate::ui;
use crate::ui::orders::WeeklySeries;
use crate::userdb::{UserDbError, UserDbHandle};

/// A value read from the user database: the latest one, and a read in flight.
struct DbValue<T: Send + 'static> {
    value: Option<T>,
    pending: Option<Promise<Result<T, UserDbError>>>,
}

impl<T: Send + 'static> Default for DbValue<T> {
    fn default() -> Self {
        Self {
            value: None,
            pending: None,
        }
    }
}

impl<T: Send + 'static> DbValue<T> {
    /// Takes in a finished read; its error, if it failed.
    fn poll(&mut self) -> Option<UserDbError> {
        let pending = self.pending.take()?;
        match pending.try_take() {
            Ok(Ok(value)) => {
                self.value = Some(value);
                None
            }
            Ok(Err(err)) => Some(err),
            Err(still) => {
                self.pending = Some(still);
                None
            }
        }
    }
}

/// What the product view asked of the alerts side during the frame.
#[derive(Default)]
struct ProductActions {
    compare: bool,
    toggle_size: Option<String>,
}

/// Alerts, history and the monitor, as the app holds them (one field of [`App`]).
pub(super) struct AlertsState {
    db: Option<UserDbHandle>,
    opened: Option<Promise<Result<(), UserDbError>>>,
    error: Option<String>,
    notifier: Arc<dyn Notifier>,
    monitor_config: MonitorConfig,
    /// The running monitor and the base URL of the client it uses.
    monitor: Option<(String, MonitorHandle)>,
    alerts: DbValue<Vec<Alert>>,
    firings: DbValue<Vec<AlertFiring>>,
    history: DbValue<Vec<PricePoint>>,
    /// The product key and sizes the history was read for.
    history_for: Option<(String, Vec<String>)>,
    picked_sizes: Vec<String>,
    writes: Vec<Promise<Result<(), UserDbError>>>,
    badge: usize,
    compare_resale_a: Requested<ResaleAEnvelope>,
    /// The retailer lookups of the comparison: one per storefront the local service reads
    /// (`Some(store)`), or one without a store (the simulator, or a remote server's retailer).
    compare_retailers: Vec<(Option<StoreUrl>, Requested<RetailerEnvelope>)>,
    /// The product's per-size prices (`GET /api/v2/prices`, one batched call): the sell side
    /// the flip list uses, whatever the real-time lookups answer.
    compare_prices: Requested<crate::model::prices::PricesAnswer>,
    /// The product (id) the comparison in hand is of.
    compare_for: Option<String>,
    actions: ProductActions,
    /// Whether a lookup that records history was in flight last frame, and the monitor's
    /// check count then: when either changes, the history is read again.
    recording: (bool, u64),
    /// A screenshot run has set its alert or asked for its comparison.
    autopilot_done: bool,
}

impl Default for AlertsState {
    fn default() -> Self {
        Self {
            db: None,
            opened: None,
            error: None,
            notifier: Arc::new(DesktopNotifier),
            monitor_config: MonitorConfig::default(),
            monitor: None,
            alerts: DbValue::default(),
            firings: DbValue::default(),
            history: DbValue::default(),
            history_for: None,
            picked_sizes: Vec::new(),
            writes: Vec::new(),
            badge: 0,
            compare_resale_a: Requested::NotYetRequested,
            compare_retailers: vec![(None, Requested::NotYetRequested)],
            compare_prices: Requested::NotYetRequested,
            compare_for: None,
            actions: ProductActions::default(),
            recording: (false, 0),
            autopilot_done: false,
        }
    }
}

impl Drop for AlertsState {
    /// The monitor ends with the app (it would otherwise run on until the runtime stops).
    fn drop(&mut self) {
        if let Some((_, handle)) = &self.monitor {
            handle.stop();
        }
    }
}

impl AlertsState {
    fn reload_lists(&mut self) {
        let Some(db) = &self.db else { return };
        self.alerts.pending = Some(db.run(|db| db.alerts()));
        self.firings.pending = Some(db.run(|db| db.alert_firings()));
    }

    fn is_busy(&self) -> bool {
        self.opened.is_some()
            || self.alerts.pending.is_some()
            || self.firings.pending.is_some()
            || self.history.pending.is_some()
            || !self.writes.is_empty()
    }

    /// Whether a retailer lookup (or the prices) of the comparison is in flight.
    fn retailers_pending(&self) -> bool {
        self.compare_retailers.iter().any(|(_, r)| r.is_pending())
            || self.compare_prices.is_pending()
    }

    /// The running monitor's plan (on a source with a monthly budget), for Settings.
    pub(super) fn monitor_plan(&self) -> Option<super::monitor::PlanStatus> {
        self.monitor
            .as_ref()
            .map(|(_, handle)| handle.plan_status())
    }

    /// A guard that holds the monitor back while a user lookup is in flight.
    pub(super) fn user_lookup(&self) -> Option<UserLookupGuard> {
        self.monitor
            .as_ref()
            .map(|(_, handle)| handle.user_lookup())
    }

    /// The database, for recording the user's lookups.
    pub(super) fn recorder(&self) -> Option<UserDbHandle> {
        self.db.clone()
    }
}

/// Records the per-size quotes of a user's lookup, without waiting for the write (a failure is
/// logged: the lookup itself succeeded and is shown either way).
pub(super) fn record_lookup(db: &UserDbHandle, key: String, quotes: Vec<SizeQuote>) {
    if quotes.is_empty() || key.is_empty() {
        return;
    }
    drop(db.run(move |db| {
        db.record_quotes(&key, &quotes, chrono::Utc::now().timestamp())
            .inspect_err(|err| tracing::warn!("price history not recorded: {err:#}"))
    }));
}

/// The quotes and history key of a `resale-a` answer.
pub(super) fn resale_a_record(envelope: &ResaleAEnvelope) -> (String, Vec<SizeQuote>) {
    let product = &envelope.data;
    (
        product_key(&product.sku, &product.slug),
        quotes_from_resale_a(product),
    )
}

/// The quotes and history key of a `retailer-a` answer (from `store`, when read from one). The
/// history is kept in US dollars: a store's quotes in another currency are not recorded.
pub(super) fn retailer_record(
    envelope: &RetailerEnvelope,
    store: Option<&StoreUrl>,
) -> (String, Vec<SizeQuote>) {
    let product = &envelope.data;
    let mut quotes = match store {
        Some(store) => quotes_from_store(product, store),
        None => quotes_from_retailer(product),
    };
    quotes.retain(|q| q.store.is_none() || q.currency == "USD");
    (product_key(&product.sku, &product.slug), quotes)
}

/// The per-size history chart of `product` (shown on the product view and the Alerts tab);
/// reads the history again when the product or the picked sizes changed, or a lookup landed.
fn history_section_ui(
    alerts: &mut AlertsState,
    ui: &mut egui::Ui,
    product: &Product,
    weekly: Option<&WeeklySeries>,
) {
    let sizes = size_keys(product);
    let points = alerts.history.value.as_deref();
    // The history is in USD; the weekly AOV is in the product's dataset currency.
    let weekly_aov: Vec<(i64, f64)> = weekly
        .filter(|_| product.currency == "USD")
        .map(|series| {
            series
                .weeks
                .iter()
                .filter_map(|week| {
                    let start = week.start.and_hms_opt(0, 0, 0)?.and_utc().timestamp();
                    Some((start, week.aov))
                })
                .collect()
        })
        .unwrap_or_default();
    if let Some(size) = ui::alerts::history::price_history_ui(
        ui,
        &sizes,
        &alerts.picked_sizes,
        points,
        &weekly_aov,
        220.0,
    ) {
        alerts.actions.toggle_size = Some(size);
    }
    let key = product_key(&product.sku, &product.id);
    let wanted = (key.clone(), alerts.picked_sizes.clone());
    if alerts.history_for.as_ref() != Some(&wanted)
        && alerts.history.pending.is_none()
        && let Some(db) = &alerts.db
    {
        let sizes = alerts.picked_sizes.clone();
        alerts.history.pending = Some(db.run(move |db| db.price_history(&key, &sizes)));
        alerts.history_for = Some(wanted);
    }
}

/// The identity an alert keeps of `product`.
fn product_ref(product: &Product) -> ProductRef {
    ProductRef {
        product_id: product.id.clone(),
        style_code: product.sku.clone(),
        title: product.title.clone(),
    }
}

/// The size keys of `product`, in the catalogue's order, each once.
fn size_keys(product: &Product) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for variant in &product.variants {
        let key = size_key(&variant.size);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

impl App {
    /// Opens the user's database at `path` on its own thread, one connection shared by the
    /// portfolio, the watchlist, the alerts and the history; alerts, history and the monitor start
    /// once it is open and a client is connected.
    pub fn open_user_db(&mut self, path: PathBuf) {
        let (db, opened) = UserDbHandle::spawn(path);
        // The alerts side learns the outcome from a job queued behind the open: it settles as
        // `Closed` when opening failed.
        self.alerts.opened = Some(db.run(|_| Ok(())));
        self.alerts.db = Some(db.clone());
        self.portfolio = portfolio::Portfolio::new(Some((db, opened)));
    }

    /// Replaces the desktop notifier (tests, screenshots) and how often the monitor checks.
    /// Takes effect for a monitor started afterwards.
    pub fn set_alert_notifier(&mut self, notifier: Arc<dyn Notifier>, config: MonitorConfig) {
        self.alerts.notifier = notifier;
        self.alerts.monitor_config = config;
    }

    /// Alerts fired since the Alerts tab was last open (the badge).
    #[must_use]
    pub fn alert_badge(&self) -> usize {
        self.alerts.badge
    }

    /// The monitor, once running.
    #[must_use]
    pub fn alert_monitor(&self) -> Option<&MonitorHandle> {
        self.alerts.monitor.as_ref().map(|(_, handle)| handle)
    }

    /// The user database, once opened.
    pub(super) fn alerts_db(&self) -> Option<UserDbHandle> {
        self.alerts
            .db
            .clone()
            .filter(|_| self.alerts.opened.is_none())
    }

    /// Per frame: takes in database reads, starts (or restarts) the monitor for the connected
    /// client, and turns its firings into the badge and a fresh list.
    pub(super) fn alerts_tick(&mut self, ctx: &egui::Context) {
        let alerts = &mut self.alerts;
        if let Some(opened) = alerts.opened.take() {
            match opened.try_take() {
                Ok(Ok(())) => alerts.reload_lists(),
                Ok(Err(err)) => alerts.error = Some(format!("{err:#}")),
                Err(still) => alerts.opened = Some(still),
            }
        }
        for err in [
            alerts.alerts.poll(),
            alerts.firings.poll(),
            alerts.history.poll(),
        ]
        .into_iter()
        .flatten()
        {
            alerts.error = Some(format!("{err:#}"));
        }
        let mut finished = Vec::new();
        for write in std::mem::take(&mut alerts.writes) {
            match write.try_take() {
                Ok(result) => finished.push(result),
                Err(still) => alerts.writes.push(still),
            }
        }
        if !finished.is_empty() {
            alerts.error = finished
                .into_iter()
                .find_map(Result::err)
                .map(|err| format!("{err:#}"));
            alerts.reload_lists();
        }
        alerts.compare_resale_a.poll();
        alerts.compare_prices.poll();
        for (_, retailer) in &mut alerts.compare_retailers {
            retailer.poll();
        }

        let ready = alerts.db.is_some() && alerts.opened.is_none() && alerts.alerts.value.is_some();
        if let (true, Some(client), Some(db)) = (ready, &self.client, &alerts.db) {
            let base_url = client.base_url().to_owned();
            if alerts
                .monitor
                .as_ref()
                .is_none_or(|(url, _)| *url != base_url)
            {
                if let Some((_, old)) = alerts.monitor.take() {
                    old.stop();
                }
                let handle = monitor::spawn(
                    &self.runtime,
                    client.clone(),
                    db.clone(),
                    Arc::clone(&alerts.notifier),
                    alerts.monitor_config.clone(),
                );
                alerts.monitor = Some((base_url, handle));
            }
        }
        if let Some((_, handle)) = &alerts.monitor {
            handle.set_online(self.client_error.is_none());
            let fired = handle.take_firings();
            if !fired.is_empty() {
                if self.state.view != View::Alerts {
                    alerts.badge += fired.len();
                }
                alerts.reload_lists();
            }
            // The monitor works in the background: look at it again in a second.
            ctx.request_repaint_after(Duration::from_secs(1));
        }
        if self.state.view == View::Alerts {
            alerts.badge = 0;
        }
        let recording = (
            self.resale_a.is_pending()
                || self.retailer.is_pending()
                || alerts.compare_resale_a.is_pending()
                || alerts.retailers_pending(),
            alerts
                .monitor
                .as_ref()
                .map_or(0, |(_, handle)| handle.status().checks),
        );
        if recording != alerts.recording {
            // A lookup landed or the monitor checked: what was recorded shows on the chart.
            alerts.history_for = None;
            alerts.recording = recording;
        }
        if alerts.is_busy() {
            ctx.request_repaint_after(Duration::from_millis(50));
        }
    }

    /// The Alerts tab.
    pub(super) fn alerts_view_ui(&mut self, ui: &mut egui::Ui) {
        // What fired is in view now.
        self.alerts.badge = 0;
        let product = self.product.value().map(|p| (product_ref(p), size_keys(p)));
        let status_line = match (&self.alerts.db, &self.alerts.monitor) {
            (None, _) => "Alerts need the user database, which is not open.".to_owned(),
            (Some(_), None) => "The monitor starts once connected.".to_owned(),
            (Some(_), Some((_, handle))) => {
                let status = handle.status();
                let mut line = format!(
                    "Monitor: {}, {} (at most half of each minute's budget)",
                    ui::format::counted(status.checks, "check", "checks"),
                    ui::format::counted(status.budgeted_calls, "real-time call", "real-time calls")
                );
                if let Some(why) = status.waiting {
                    line.push_str(" · ");
                    line.push_str(&why);
                }
                if let Some(err) = status.last_error {
                    line.push_str(" · last error: ");
                    line.push_str(&err);
                }
                line
            }
        };
        let firings = self.alerts.firings.value.clone().unwrap_or_default();
        let alert_list = self.alerts.alerts.value.clone();
        let error = self.alerts.error.clone();
        let inputs = ui::alerts::AlertsInputs {
            product: product.as_ref().map(|(p, _)| p),
            sizes: product.as_ref().map_or(&[], |(_, sizes)| sizes.as_slice()),
            alerts: alert_list.as_deref(),
            firings: &firings,
            monitor: &status_line,
            error: error.as_deref(),
        };
        let open = self.product.value();
        let weekly = self.orders.value();
        let alerts = &mut self.alerts;
        let form = &mut self.state.alerts;
        let output = egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let output = ui::alerts::alerts_ui(ui, form, &inputs);
                if let Some(product) = open {
                    ui.separator();
                    history_section_ui(alerts, ui, product, weekly);
                }
                output
            })
            .inner;
        let Some(db) = &self.alerts.db else { return };
        if let Some(alert) = output.add {
            let now = chrono::Utc::now().timestamp();
            self.alerts
                .writes
                .push(db.run(move |db| db.add_alert(&alert, now).map(drop)));
        }
        if let Some(id) = output.delete {
            self.alerts
                .writes
                .push(db.run(move |db| db.delete_alert(id).map(drop)));
        }
    }

    /// Below the product's market figures: the where-to-buy table from one real-time call per
    /// source, and the per-size history chart.
    pub(super) fn product_trade_ui(&mut self, ui: &mut egui::Ui, product: &Product) {
        // A screenshot run reading retail stores is taken to show where to buy: the table is
        // scrolled into view once the comparison has landed.
        let show_trade = self.screenshot.is_some()
            && !self.startup.retailer_stores().is_empty()
            && self.alerts.compare_resale_a.value().is_some();
        let alerts = &mut self.alerts;
        ui.add_space(12.0);
        ui.separator();
        if show_trade {
            ui.scroll_to_cursor(Some(egui::Align::TOP));
        }
        let budget_line = self.client.as_ref().map_or_else(String::new, |client| {
            let budget = client.realtime_budget();
            ui::realtime::budget_text(&budget, budget.resets_in())
        });
        let looked_up = |id: &str| {
            alerts.compare_resale_a.value().is_some_and(|e| {
                product_key(&e.data.sku, &e.data.slug) == product_key(&product.sku, id)
            })
        };
        let is_current =
            looked_up(&product.id) || alerts.compare_for.as_deref() == Some(product.id.as_str());
        ui.horizontal(|ui| {
            let pending = alerts.compare_resale_a.is_pending() || alerts.retailers_pending();
            let label = if is_current {
                "Compare marketplaces again"
            } else {
                "Compare marketplaces"
            };
            if ui
                .add_enabled(!pending, egui::Button::new(label))
                .on_hover_text("One real-time call to resale-a (spends the budget), one batched price call for the style code's sizes on resale-b (the prices the Flips list sells at), and one to the retailer, or to each retail store of Settings (free)")
                .clicked()
            {
                alerts.actions.compare = true;
            }
            if pending {
                ui.spinner();
            }
        });
        // Each failure named by its source, in the service's words; the request on hover.
        let errors = std::iter::once(("resale-a".to_owned(), alerts.compare_resale_a.error()))
            .chain(std::iter::once((
                "resale-b prices".to_owned(),
                alerts.compare_prices.error(),
            )))
            .chain(alerts.compare_retailers.iter().map(|(store, r)| {
                let source = store
                    .as_ref()
                    .map_or_else(|| "retailer-a".to_owned(), |s| s.label().to_owned());
                (source, r.error())
            }))
            .filter_map(|(source, error)| error.map(|error| (source, error)));
        for (source, error) in errors {
            ui::alerts::trade::lookup_failure_ui(ui, &source, error);
        }
        let mut quotes = Vec::new();
        if is_current {
            if let Some(envelope) = alerts.compare_resale_a.value() {
                quotes.extend(quotes_from_resale_a(&envelope.data));
            }
            if let Some(answer) = alerts.compare_prices.value() {
                quotes.extend(answer.products.iter().flat_map(quotes_from_prices));
            }
            for (store, retailer) in &alerts.compare_retailers {
                if let Some(envelope) = retailer.value() {
                    quotes.extend(match store {
                        Some(store) => quotes_from_store(&envelope.data, store),
                        None => quotes_from_retailer(&envelope.data),
                    });
                }
            }
        }
        let elsewhere: Vec<String> = quotes
            .iter()
            .filter(|q| !q.currency.eq_ignore_ascii_case("USD"))
            .map(|q| {
                format!(
                    "{} ({})",
                    q.store.as_deref().unwrap_or(q.source.as_str()),
                    q.currency
                )
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let rows = crate::figures::where_to_trade(&quotes, "USD");
        ui::alerts::trade::where_to_trade_ui(ui, &rows, "USD", &budget_line);
        if !elsewhere.is_empty() {
            ui.weak(format!(
                "Not compared (priced in another currency): {}",
                elsewhere.join(", ")
            ));
        }

        ui.add_space(12.0);
        history_section_ui(alerts, ui, product, self.orders.value());
    }

    /// Acts on what [`Self::product_trade_ui`] was asked during the frame.
    pub(super) fn product_trade_actions(&mut self, ctx: &egui::Context) {
        let actions = std::mem::take(&mut self.alerts.actions);
        if let Some(size) = actions.toggle_size {
            let picked = &mut self.alerts.picked_sizes;
            if let Some(at) = picked.iter().position(|s| *s == size) {
                picked.remove(at);
            } else {
                picked.push(size);
            }
        }
        let (true, Some(client), Some(product)) =
            (actions.compare, self.client.clone(), self.product.value())
        else {
            return;
        };
        let id = product.id.clone();
        self.alerts.compare_for = Some(id.clone());
        if product.sku.trim().is_empty() {
            self.alerts.compare_prices = Requested::NotYetRequested;
        } else {
            let (p_client, code) = (client.clone(), vec![product.sku.clone()]);
            self.alerts
                .compare_prices
                .spawn(&self.runtime, ctx, async move {
                    p_client.prices(&code, crate::model::Country::Us).await
                });
        }
        let recorder = self.alerts.recorder();
        let guard = self.alerts.user_lookup();
        let (a_client, a_id, a_recorder) = (client.clone(), id.clone(), recorder.clone());
        self.alerts
            .compare_resale_a
            .spawn(&self.runtime, ctx, async move {
                let _first = guard;
                let answer = a_client.resale_a_product(&a_id).await;
                if let (Ok(envelope), Some(db)) = (&answer, &a_recorder) {
                    let (key, quotes) = resale_a_record(envelope);
                    record_lookup(db, key, quotes);
                }
                answer
            });
        // One lookup per store the service reads, else one of its retailer, else none.
        let stores: Vec<Option<StoreUrl>> = match self.offered_stores() {
            stores if !stores.is_empty() => stores.into_iter().map(Some).collect(),
            _ if self.offers_retailer() => vec![None],
            _ => Vec::new(),
        };
        self.alerts.compare_retailers = stores
            .into_iter()
            .map(|store| {
                let mut requested = Requested::NotYetRequested;
                let (client, id, recorder) = (client.clone(), id.clone(), recorder.clone());
                let asked = store.clone();
                requested.spawn(&self.runtime, ctx, async move {
                    let label = asked.as_ref().map(|s| s.label().to_owned());
                    let answer = client.retailer_product_at(&id, label.as_deref()).await;
                    if let (Ok(envelope), Some(db)) = (&answer, &recorder) {
                        let (key, quotes) = retailer_record(envelope, asked.as_ref());
                        record_lookup(db, key, quotes);
                    }
                    answer
                });
                (store, requested)
            })
            .collect();
        // The next read of the history includes these answers.
        self.alerts.history_for = None;
    }
}

impl App {
    /// A screenshot run of the Alerts tab sets an alert on the open product that fires on the
    /// first check (lowest ask at or below twice the catalogue's highest price); one of the
    /// product view compares the marketplaces once, which also records history.
    pub(super) fn alerts_autopilot(&mut self) {
        if self.alerts.autopilot_done || !self.is_idle() {
            return;
        }
        let Some(product) = self.product.value() else {
            return;
        };
        match self.state.view {
            View::Alerts => {
                let (Some(db), Some(existing)) =
                    (&self.alerts.db, self.alerts.alerts.value.as_deref())
                else {
                    return;
                };
                if !existing.is_empty() {
                    self.alerts.autopilot_done = true;
                    return;
                }
                let alert = crate::model::NewAlert {
                    product: product_ref(product),
                    size: None,
                    kind: crate::model::AlertKind::AskAtOrBelow,
                    price_cents: Some(((product.max_price * 200.0).round() as i64).max(100)),
                    currency: "USD".into(),
                };
                let now = chrono::Utc::now().timestamp();
                self.alerts
                    .writes
                    .push(db.run(move |db| db.add_alert(&alert, now).map(drop)));
                self.alerts.autopilot_done = true;
            }
            View::Product if self.client.is_some() && self.alerts.db.is_some() => {
                self.alerts.actions.compare = true;
                self.alerts.autopilot_done = true;
            }
            _ => {}
        }
    }

    /// Whether the alerts side has what a screenshot should show: on the Alerts tab, the
    /// monitor's first check (and its firing) with the history read after it; on the product
    /// view, the comparison landed and the history read after it. A failure counts as settled
    /// too (it is what there is to show), and so does having no user database.
    pub(super) fn alerts_settled(&self) -> bool {
        let alerts = &self.alerts;
        if alerts.db.is_none() || alerts.error.is_some() {
            return true;
        }
        if !matches!(self.state.view, View::Alerts | View::Product) {
            return true;
        }
        if alerts.is_busy() || !alerts.autopilot_done || alerts.history_for.is_none() {
            return false;
        }
        match self.state.view {
            View::Alerts => alerts.monitor.as_ref().is_some_and(|(_, handle)| {
                let status = handle.status();
                status.last_error.is_some()
                    || (status.checks > 0 && alerts.recording.1 == status.checks)
            }),
            View::Product => !alerts.compare_resale_a.is_pending() && !alerts.retailers_pending(),
            _ => true,
        }
    }
}
