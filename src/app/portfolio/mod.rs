//! The portfolio in the app: the user database on its own thread ([`UserDbHandle`]), the pairs
//! read from it, their market values (every held style code priced in batches of 50 through the
//! same client as everything else: `values`, `crate::app::prices`), the rows and totals the panel draws, the CSV
//! import (read and previewed off the UI thread, written in one transaction) and export, and the
//! watchlist, moved from eframe storage into the database once and saved there on every change.
//!
//! Every read and write is a job on the database thread; the frame polls its promise. A write
//! that fails is shown in the panel and leaves what was saved as it was.
//!
//! Beside this file: `values` (market values, weekly orders, the rows, totals and charts) and
//! `seed` (the screenshot's demo pairs).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use poll_promise::Promise;

mod seed;
mod values;

use self::values::country_of;
use super::prices::PriceBook;
use super::{App, Requested, Severity, View, WatchedProduct};
use crate::figures::Week;
use crate::figures::{ImportPreview, Totals, parse_portfolio_csv, portfolio_csv};
use crate::model::portfolio::{Holding, Pair, Sale};
use crate::ui;
use crate::ui::market::FeePreset;
use crate::ui::portfolio::{HoldingRow, ImportView, PortfolioCharts};
use crate::userdb::watchlist::WatchRow;
use crate::userdb::{self, UserDb, UserDbError, UserDbHandle};

/// Weekly-orders fetches in flight at once for the value-by-week chart, so a large portfolio
/// does not flood the server (or spend a remote key's budget in one burst).
pub(super) const MAX_LOOKUPS_IN_FLIGHT: usize = 8;

/// The largest CSV file an import reads.
const MAX_IMPORT_BYTES: u64 = 64 * 1024 * 1024;

type Job<T> = Promise<Result<T, UserDbError>>;

/// What the rows were last computed from: the holdings read, the lookups landed, the fees, the
/// live answer.
pub(super) type RowsKey = (u64, usize, FeePreset, [u64; 3], Option<String>);

/// A CSV import, from reading the file to writing its pairs.
#[derive(Default)]
enum Import {
    #[default]
    Idle,
    Reading(Promise<Result<ImportPreview, String>>),
    Preview(ImportPreview),
    Writing(Job<usize>),
    Failed(String),
    Imported(usize),
}

/// What the app holds for the portfolio.
pub(super) struct Portfolio {
    db: Option<UserDbHandle>,
    opened: Option<Job<()>>,
    open_error: Option<String>,
    started: bool,
    seeded: bool,
    holdings: Option<Vec<Holding>>,
    load: Option<Job<Vec<Holding>>>,
    writes: Vec<Job<()>>,
    write_error: Option<String>,
    holdings_version: u64,
    /// The holdings version whose style codes were all asked for.
    priced_for: Option<u64>,
    /// The user asked for the value-by-week chart (its weekly orders are fetched from then on).
    weekly_opened: bool,
    /// The distinct products the batch priced the held pairs under (their weekly orders make
    /// the value-by-week chart), and the holdings version and prices generation they are of.
    held_products: (Option<(u64, u64)>, Vec<String>),
    rows: Vec<HoldingRow>,
    totals: BTreeMap<String, Totals>,
    generation: u64,
    rows_key: Option<RowsKey>,
    rows_built_at: Option<std::time::Instant>,
    /// The held style codes' prices, batched.
    prices: PriceBook,
    /// Weekly orders of the products priced, by product id, for the value-by-week chart.
    weekly: HashMap<String, Requested<Vec<Week>>>,
    charts: Option<PortfolioCharts>,
    realtime_seen: Option<(String, String)>,
    /// The panel's own state.
    pub(super) form: ui::portfolio::PortfolioForm,
    /// The product view's "Add to portfolio" form.
    pub(super) add_form: ui::portfolio::AddPairForm,
    import: Import,
    watch_load: Option<Job<Vec<WatchRow>>>,
    watch_saved: Option<Vec<WatchedProduct>>,
    watch_save: Option<Job<()>>,
}

impl Portfolio {
    /// The portfolio over the user database (its handle and the promise of its opening); none
    /// without one.
    pub(in crate::app) fn new(
        db: Option<(UserDbHandle, Promise<Result<(), UserDbError>>)>,
    ) -> Self {
        let (db, opened) = match db {
            Some((db, opened)) => (Some(db), Some(opened)),
            None => (None, None),
        };
        Self {
            db,
            opened,
            open_error: None,
            started: false,
            seeded: false,
            holdings: None,
            load: None,
            writes: Vec::new(),
            write_error: None,
            holdings_version: 0,
            priced_for: None,
            weekly_opened: false,
            held_products: (None, Vec::new()),
            rows: Vec::new(),
            totals: BTreeMap::new(),
            generation: 0,
            rows_key: None,
            rows_built_at: None,
            prices: PriceBook::default(),
            weekly: HashMap::new(),
            charts: None,
            realtime_seen: None,
            form: ui::portfolio::PortfolioForm::default(),
            add_form: ui::portfolio::AddPairForm::default(),
            import: Import::Idle,
            watch_load: None,
            watch_saved: None,
            watch_save: None,
        }
    }

    /// Forgets the market prices and weekly figures fetched (a new connection fetches them
    /// again from its own service).
    pub(super) fn forget_prices(&mut self) {
        self.prices.clear();
        self.priced_for = None;
        self.weekly.clear();
        self.held_products = (None, Vec::new());
        self.rows_key = None;
    }

    /// A write is in flight.
    pub(super) fn is_saving(&self) -> bool {
        !self.writes.is_empty() || matches!(self.import, Import::Writing(_))
    }

    /// No database job in flight.
    pub(super) fn is_idle(&self) -> bool {
        self.opened.is_none()
            && self.load.is_none()
            && !self.is_saving()
            && !matches!(self.import, Import::Reading(_))
            && self.watch_load.is_none()
            && self.watch_save.is_none()
            && !self.prices.is_pending()
            && !self.weekly.values().any(Requested::is_pending)
    }

    /// Every pair read from the database, once read.
    pub(super) fn holdings(&self) -> Option<&[Holding]> {
        self.holdings.as_deref()
    }

    /// Runs `job` on the database thread and wakes the window when it is done.
    fn run<T, F>(&self, ctx: &egui::Context, job: F) -> Option<Job<T>>
    where
        T: Send + 'static,
        F: FnOnce(&mut UserDb) -> Result<T, UserDbError> + Send + 'static,
    {
        let ctx = ctx.clone();
        self.db.as_ref().map(|db| {
            db.run(move |db| {
                let result = job(db);
                ctx.request_repaint();
                result
            })
        })
    }

    fn reload(&mut self, ctx: &egui::Context) {
        self.load = self.run(ctx, userdb::portfolio::holdings);
    }

    fn write<F>(&mut self, ctx: &egui::Context, job: F)
    where
        F: FnOnce(&mut UserDb) -> Result<(), UserDbError> + Send + 'static,
    {
        match self.run(ctx, job) {
            Some(promise) => self.writes.push(promise),
            None => self.write_error = Some(no_database(self.open_error.as_deref())),
        }
    }
}

fn no_database(open_error: Option<&str>) -> String {
    match open_error {
        Some(err) => format!("The user database is not open: {err}"),
        None => "No user database in this session.".to_owned(),
    }
}

/// Takes the result of a finished promise, leaving `None`; `None` while it is pending.
fn take_ready<T: Send + 'static>(slot: &mut Option<Promise<T>>) -> Option<T> {
    let promise = slot.take()?;
    match promise.try_take() {
        Ok(value) => Some(value),
        Err(promise) => {
            *slot = Some(promise);
            None
        }
    }
}

fn watch_row_from(item: &WatchedProduct) -> WatchRow {
    WatchRow {
        product_id: item.id.clone(),
        title: item.title.clone(),
        sku: item.sku.clone(),
        country: item.country,
        currency: item.currency.clone(),
        price_when_starred: item.price_when_starred,
    }
}

fn watched_from(row: WatchRow) -> WatchedProduct {
    WatchedProduct {
        id: row.product_id,
        title: row.title,
        sku: row.sku,
        country: row.country,
        currency: row.currency,
        price_when_starred: row.price_when_starred,
    }
}

impl App {
    /// Once a frame: takes in finished database jobs, starts the first reads, keeps the
    /// watchlist saved.
    pub(super) fn portfolio_frame(&mut self, ctx: &egui::Context) {
        let portfolio = &mut self.portfolio;
        if let Some(opened) = take_ready(&mut portfolio.opened)
            && let Err(err) = opened
        {
            portfolio.open_error = Some(format!("{err:#}"));
        }
        if !portfolio.started && portfolio.db.is_some() {
            portfolio.started = true;
            portfolio.reload(ctx);
            let old: Vec<WatchRow> = self.state.watchlist.iter().map(watch_row_from).collect();
            portfolio.watch_load = portfolio.run(ctx, move |db| {
                userdb::watchlist::load_watchlist_migrating(db, &old)
            });
        }
        match take_ready(&mut portfolio.load) {
            Some(Ok(holdings)) => {
                portfolio.holdings = Some(holdings);
                portfolio.holdings_version += 1;
            }
            Some(Err(err)) => portfolio.write_error = Some(format!("{err:#}")),
            None => {}
        }
        let mut landed = false;
        let mut index = 0;
        while index < portfolio.writes.len() {
            let write = portfolio.writes[index].ready().is_some();
            if write {
                let promise = portfolio.writes.remove(index);
                match promise.try_take() {
                    Ok(Ok(())) => portfolio.write_error = None,
                    Ok(Err(err)) => portfolio.write_error = Some(format!("{err:#}")),
                    Err(_) => {}
                }
                landed = true;
            } else {
                index += 1;
            }
        }
        if let Import::Writing(promise) = &mut portfolio.import
            && promise.ready().is_some()
            && let Import::Writing(promise) = std::mem::take(&mut portfolio.import)
        {
            portfolio.import = match promise.try_take() {
                Ok(Ok(count)) => Import::Imported(count),
                Ok(Err(err)) => Import::Failed(format!("Nothing was imported: {err:#}")),
                Err(_) => Import::Idle,
            };
            landed = true;
        }
        if let Import::Reading(promise) = &mut portfolio.import
            && promise.ready().is_some()
            && let Import::Reading(promise) = std::mem::take(&mut portfolio.import)
        {
            portfolio.import = match promise.try_take() {
                Ok(Ok(preview)) => Import::Preview(preview),
                Ok(Err(err)) => Import::Failed(err),
                Err(_) => Import::Idle,
            };
        }
        if landed {
            portfolio.reload(ctx);
        }
        self.watchlist_frame(ctx);
    }

    fn watchlist_frame(&mut self, ctx: &egui::Context) {
        let portfolio = &mut self.portfolio;
        match take_ready(&mut portfolio.watch_load) {
            Some(Ok(rows)) => {
                self.state.watchlist = rows.into_iter().map(watched_from).collect();
                portfolio.watch_saved = Some(self.state.watchlist.clone());
            }
            Some(Err(err)) => {
                self.status.push(
                    Severity::Error,
                    format!("Could not read the watchlist from the user database: {err:#}"),
                );
            }
            None => {}
        }
        if let Some(Err(err)) = take_ready(&mut portfolio.watch_save) {
            self.status.push(
                Severity::Error,
                format!("Could not save the watchlist: {err:#}"),
            );
        }
        if portfolio.watch_save.is_none()
            && let Some(saved) = &portfolio.watch_saved
            && *saved != self.state.watchlist
        {
            let rows: Vec<WatchRow> = self.state.watchlist.iter().map(watch_row_from).collect();
            portfolio.watch_saved = Some(self.state.watchlist.clone());
            portfolio.watch_save =
                portfolio.run(ctx, move |db| userdb::watchlist::save_watchlist(db, &rows));
        }
    }

    /// Adds `pair` (from the product view) to the portfolio; its style code is priced with
    /// the next batch.
    pub(super) fn add_pair(&mut self, pair: Pair, ctx: &egui::Context) {
        let title = pair.title.clone();
        self.portfolio.write(ctx, move |db| {
            userdb::portfolio::add_holdings(db, &[(pair, None)]).map(drop)
        });
        self.push_status(Severity::Info, format!("Added {title} to the portfolio."));
        self.portfolio.add_form.cost.clear();
    }

    /// The rows the portfolio panel draws (computed on the last frame it was shown).
    #[must_use]
    pub fn portfolio_rows(&self) -> &[HoldingRow] {
        &self.portfolio.rows
    }

    pub(super) fn portfolio_view_ui(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        self.fetch_market_values(ctx);
        self.update_rows();
        let mut weekly_cost = String::new();
        let weekly = self.weekly_figures(&mut weekly_cost);
        let portfolio = &mut self.portfolio;
        let prices_error = portfolio.prices.error().map(|err| err.message.clone());
        let error = portfolio
            .write_error
            .clone()
            .or_else(|| portfolio.db.is_none().then(|| no_database(None)))
            .or_else(|| portfolio.open_error.clone().map(|e| no_database(Some(&e))));
        let import = match &portfolio.import {
            Import::Idle => ImportView::Idle,
            Import::Reading(_) | Import::Writing(_) => ImportView::Working,
            Import::Preview(preview) => ImportView::Preview(preview),
            Import::Failed(err) => ImportView::Failed(err),
            Import::Imported(count) => ImportView::Imported(*count),
        };
        let view = ui::portfolio::PortfolioView {
            rows: portfolio
                .holdings
                .as_ref()
                .map(|_| portfolio.rows.as_slice()),
            generation: portfolio.generation,
            totals: &portfolio.totals,
            error: error.as_deref(),
            is_saving: !portfolio.writes.is_empty()
                || matches!(portfolio.import, Import::Writing(_)),
            import,
            charts: portfolio.charts.as_ref(),
            weekly,
            pricing: portfolio.prices.is_pending(),
            prices_error: prices_error.as_deref(),
        };
        // No scroll area around the panel: the tables scroll on their own, so they know the
        // height they are given and draw only the rows in it.
        let output = ui::portfolio::portfolio_ui(ui, &mut portfolio.form, &view);
        self.portfolio_output(output, ctx);
    }

    fn portfolio_output(&mut self, output: ui::portfolio::PortfolioOutput, ctx: &egui::Context) {
        if let Some((id, sale)) = output.sell {
            self.record_sale(id, sale, ctx);
        }
        if let Some(id) = output.remove {
            self.portfolio
                .write(ctx, move |db| userdb::portfolio::remove_holding(db, id));
        }
        if output.fetch == Some(ui::portfolio::PortfolioFetch::Prices)
            && let (Some(client), Some(holdings)) = (&self.client, &self.portfolio.holdings)
        {
            let held = holdings
                .iter()
                .filter(|h| h.sale.is_none())
                .map(|h| (h.pair.sku.as_str(), country_of(&h.pair.currency)));
            self.portfolio
                .prices
                .ask(&self.runtime, ctx, client, held, true);
        }
        if output.fetch == Some(ui::portfolio::PortfolioFetch::WeeklyFigures) {
            self.portfolio.weekly_opened = true;
        }
        if output.retry {
            self.portfolio.write_error = None;
            self.portfolio.reload(ctx);
        }
        if let Some(id) = output.open.filter(|id| !id.is_empty()) {
            self.state.view = View::Product;
            self.open_product(id, ctx);
        }
        if let Some(path) = output.preview_import {
            self.preview_import(PathBuf::from(path), ctx);
        }
        if output.cancel_import {
            self.portfolio.import = Import::Idle;
        }
        if output.confirm_import
            && let Import::Preview(preview) = std::mem::take(&mut self.portfolio.import)
        {
            let rows = preview.rows;
            let count = rows.len();
            self.portfolio.import = match self.portfolio.run(ctx, move |db| {
                userdb::portfolio::add_holdings(db, &rows).map(|_| count)
            }) {
                Some(promise) => Import::Writing(promise),
                None => Import::Failed(no_database(self.portfolio.open_error.as_deref())),
            };
        }
        if let Some(path) = output.export {
            self.export_portfolio(path);
        }
    }

    /// Records the sale of the pair `id`.
    pub(super) fn record_sale(&mut self, id: i64, sale: Sale, ctx: &egui::Context) {
        self.portfolio
            .write(ctx, move |db| userdb::portfolio::record_sale(db, id, &sale));
    }

    /// Reads and parses the CSV at `path` off the UI thread, for a preview.
    fn preview_import(&mut self, path: PathBuf, ctx: &egui::Context) {
        let (sender, promise) = Promise::new();
        let default_currency = self.state.country.currency();
        let ctx = ctx.clone();
        self.runtime.spawn_blocking(move || {
            let read = || -> Result<ImportPreview, String> {
                let fail =
                    |err: std::io::Error| format!("Could not read {}: {err}", path.display());
                // Read at most one byte past the limit: a file that grows after a size check
                // could not make this read unbounded.
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(
                    &mut std::io::Read::take(
                        std::fs::File::open(&path).map_err(fail)?,
                        MAX_IMPORT_BYTES + 1,
                    ),
                    &mut bytes,
                )
                .map_err(fail)?;
                if bytes.len() as u64 > MAX_IMPORT_BYTES {
                    return Err(format!(
                        "{} is larger than {} MB; nothing was imported",
                        path.display(),
                        MAX_IMPORT_BYTES / 1024 / 1024
                    ));
                }
                let text = String::from_utf8(bytes).map_err(|_| {
                    format!("{} is not UTF-8 text; nothing was imported", path.display())
                })?;
                parse_portfolio_csv(text.trim_start_matches('\u{feff}'), default_currency)
                    .map_err(|err| err.to_string())
            };
            sender.send(read());
            ctx.request_repaint();
        });
        self.portfolio.import = Import::Reading(promise);
    }

    /// Writes every pair and sale as CSV to `path` (the downloads folder when empty), off the UI
    /// thread, through a crash-safe replacement.
    fn export_portfolio(&self, path: String) {
        let Some(holdings) = self.portfolio.holdings.clone() else {
            return;
        };
        let status = self.status.clone();
        self.runtime.spawn_blocking(move || {
            let target = if path.is_empty() {
                super::export::export_path("solescope-portfolio.csv")
            } else {
                Ok(PathBuf::from(path))
            };
            status.push_outcome(target.and_then(|target| {
                let text = portfolio_csv(holdings.iter().map(|h| (&h.pair, h.sale.as_ref())))
                    .map_err(|err| format!("Could not export: {err}"))?;
                crate::durable::write_bytes(&target, text.as_bytes())
                    .map(|()| {
                        let pairs = ui::format::counted(holdings.len() as u64, "pair", "pairs");
                        format!("Exported {pairs} to {}", target.display())
                    })
                    .map_err(|err| format!("Could not export: {err}: {}", target.display()))
            }));
        });
    }
}
