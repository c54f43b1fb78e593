//! The flip list (`GET /api/v2/flips`): every size a configured store has in stock whose style
//! code or barcode is a catalogue product, priced on the resale marketplace, reckoned with each
//! request's own costs and fees and ranked by profit.
//!
//! Built in the background and kept ([`Flips`]): a request is answered from the list in hand
//! (`page.rs`), never waits on a store or an upstream. The list is built again when a store's
//! pass lands (the crawl's matching moved), when the stores change, when the simulated
//! retailer's minute-by-minute stock is due again, or when a price scan is due; and only while
//! someone asks for it (a service nobody asks spends no calls).
//!
//! **Stores.** What the crawl's last pass read of each store (`CrawledStores::flip_stock`): a
//! store is never read for the flips, so never more often than its crawl's interval. With no
//! store configured, the simulator's `retailer-a` stands in (its stock of the catalogue's most
//! popular products, at retail), every row and the answer saying so.
//!
//! **Prices.** Each market's distinct style codes (USD stores in `US`, EUR stores in `FR`),
//! [`MAX_PRICE_CODES`] a request to `CatalogueSource::prices`: on KicksDB one batched call each,
//! taken from the monthly budget. A scan that fetches is paced to what the month's budget can
//! carry, keeping a share of the calls left for the alerts and the window
//! ([`FlipsConfig::budget_reserve_percent`]); between scans the prices held are used (each
//! code's latest batch, else the mirror), with their source and age, and only codes with no
//! price held are fetched. A caller that plans the scans itself from the monthly budget (the
//! alert monitor, with the alerts and the portfolio) says so with `scan` ([`FlipScan`]): then a
//! scan runs when it asks (`now`), and none of the service's own meanwhile.

mod build;
mod page;

pub use self::build::{SIMULATED_ORIGIN, SIMULATED_STORE};
pub use self::page::FlipQuery;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use arc_swap::ArcSwapOption;

use self::build::{Built, Gathered, assemble};
use crate::catalogue::generate::normalize_sku;
use crate::model::flips::{FlipMarket, FlipScan, FlipsAnswer, HeldSales, PLANNED_SCAN_LEASE_SECS};
use crate::model::prices::{CodePrices, MAX_PRICE_CODES};
use crate::model::{Country, StoreUrl};
use crate::service::marketplace::Marketplaces;
use crate::service::source::CatalogueSource;
use crate::service::storefront::StoreReading;
use crate::service::storefront::catalogue_keys::{FileStamp, file_stamp};

/// How the list is kept.
#[derive(Debug, Clone)]
pub struct FlipsConfig {
    /// How often the background task looks whether a build is due (2 s).
    pub check_every: Duration,
    /// How often the simulated retailer's stock is read again (60 s: it moves by the minute).
    pub simulated_every: Duration,
    /// Least time between two price scans that fetch (30 min; longer when the monthly budget
    /// cannot carry a scan that often).
    pub price_every: Duration,
    /// Products the simulated retailer stocks: the catalogue's most popular (2,000).
    pub simulated_products: usize,
    /// Share of the month's calls left that a scan never takes, percent (20): the alerts,
    /// the portfolio and the window need some.
    pub budget_reserve_percent: u8,
    /// After this long with no request, the list is not built again until asked (2 h).
    pub idle_after: Duration,
    /// Least time between two builds for a change of the catalogue file alone (10 s): a live
    /// source's mirror changes with every answer it keeps, and stores are matched against it.
    pub catalogue_change_every: Duration,
}

impl Default for FlipsConfig {
    fn default() -> Self {
        Self {
            check_every: Duration::from_secs(2),
            simulated_every: Duration::from_secs(60),
            price_every: Duration::from_secs(30 * 60),
            simulated_products: 2_000,
            budget_reserve_percent: 20,
            idle_after: Duration::from_secs(2 * 3600),
            catalogue_change_every: Duration::from_secs(10),
        }
    }
}

/// The list in hand and what it was built from.
struct Current {
    built: Built,
    /// The crawl's matching count it was built from.
    generation: u64,
    /// The stores it was built from.
    stores: Vec<StoreUrl>,
    /// The catalogue file as it was (stores are matched against it).
    stamp: Option<FileStamp>,
    /// When it was built.
    at: Instant,
    /// How long the build took.
    took: Duration,
    /// And each part of it.
    phases: BuildPhases,
}

/// How long each part of a build took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildPhases {
    /// The stores' stock in hand read.
    pub stock: Duration,
    /// The codes in stock priced.
    pub prices: Duration,
    /// Their recent sales read.
    pub sales: Duration,
    /// The candidates assembled and packed for the ranking.
    pub assemble: Duration,
}

/// When prices were last fetched, and when the next fetch is due.
#[derive(Debug, Default)]
struct Pacing {
    last_fetch_unix: Option<i64>,
    next_fetch_unix: i64,
    /// A caller plans the scans until then (Unix seconds): no scan of the service's own.
    planned_until_unix: i64,
    /// The planning caller asked for a scan now.
    scan_asked: bool,
}

/// The flip list of one service.
pub struct Flips {
    catalogue: Arc<dyn CatalogueSource>,
    marketplaces: Arc<dyn Marketplaces>,
    reading: StoreReading,
    config: FlipsConfig,
    current: ArcSwapOption<Current>,
    wake: Arc<tokio::sync::Notify>,
    started: AtomicBool,
    last_request_unix: AtomicI64,
    pacing: Mutex<Pacing>,
    /// One build at a time (the background task's, or [`Flips::rebuild_now`]).
    building: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Flips {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Flips")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn now_unix() -> i64 {
    chrono::Utc::now().timestamp()
}

/// `secs` for a person: `3 h 20 min`, `12 min`, `45 s`.
fn human(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3_600 => format!("{} min", secs / 60),
        _ => format!("{} h {} min", secs / 3_600, secs % 3_600 / 60),
    }
}

/// Whether to fetch prices now, and why not.
enum Plan {
    /// Fetch: `next_fetch_unix` is when the one after may be due.
    Fetch { next_fetch_unix: i64 },
    /// Use what is held; the sentence says why, and when a fetch is due again.
    Hold {
        why: String,
        next_fetch_unix: i64,
        /// Calls that may still go to codes with no price held.
        spare_calls: u64,
    },
}

impl Flips {
    /// The list of the service over `catalogue` and `marketplaces`, its stores read as
    /// `reading` reads them. Starts nothing until asked ([`answer`](Self::answer)).
    pub fn new(
        catalogue: Arc<dyn CatalogueSource>,
        marketplaces: Arc<dyn Marketplaces>,
        reading: StoreReading,
        config: FlipsConfig,
    ) -> Arc<Self> {
        Arc::new(Self {
            catalogue,
            marketplaces,
            reading,
            config,
            current: ArcSwapOption::empty(),
            wake: Arc::new(tokio::sync::Notify::new()),
            started: AtomicBool::new(false),
            last_request_unix: AtomicI64::new(0),
            pacing: Mutex::new(Pacing::default()),
            building: tokio::sync::Mutex::new(()),
        })
    }

    /// A page for `query`, from the list in hand; the first call starts the background task on
    /// the current runtime and answers `building` until the first list is made.
    pub fn answer(self: &Arc<Self>, query: &FlipQuery) -> FlipsAnswer {
        let now = now_unix();
        let previous = self.last_request_unix.swap(now, Ordering::Relaxed);
        if let Some(scan) = query.scan {
            let mut pacing = self.pacing.lock().unwrap_or_else(PoisonError::into_inner);
            pacing.planned_until_unix = now + PLANNED_SCAN_LEASE_SECS;
            if scan == FlipScan::Now {
                pacing.scan_asked = true;
                self.wake.notify_one();
            }
        }
        self.ensure_started();
        if u64::try_from(now - previous).is_ok_and(|idle| idle > self.config.idle_after.as_secs()) {
            // Asked again after a while: the list in hand is answered, a fresh one built now.
            self.wake.notify_one();
        }
        let Some(current) = self.current.load_full() else {
            return FlipsAnswer {
                flips: Vec::new(),
                as_of: None,
                total: 0,
                page: query.page,
                limit: query.limit,
                building: true,
                simulated: self.reading.stores().is_empty(),
                stores: Vec::new(),
                markets: Vec::new(),
                skipped: Vec::new(),
                settings: query.settings.clone(),
                notes: vec![
                    "the list is being built (stores read, prices fetched): ask again shortly"
                        .to_owned(),
                ],
            };
        };
        page::answer(&current.built, query, now_unix())
    }

    /// How long the list in hand took to build, and how old it is.
    #[must_use]
    pub fn last_build(&self) -> Option<(Duration, Duration)> {
        self.current
            .load()
            .as_ref()
            .map(|current| (current.took, current.at.elapsed()))
    }

    /// How long each part of the list in hand's build took.
    #[must_use]
    pub fn last_build_phases(&self) -> Option<BuildPhases> {
        self.current.load().as_ref().map(|current| current.phases)
    }

    fn ensure_started(self: &Arc<Self>) {
        if self.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let weak = Arc::downgrade(self);
        let wake = Arc::clone(&self.wake);
        let every = self.config.check_every;
        tokio::spawn(run(weak, wake, every));
    }

    /// Builds the list now (waiting for a build under way first), and says how long it took.
    pub async fn rebuild_now(&self) -> Duration {
        let _turn = self.building.lock().await;
        let started = Instant::now();
        let stamp = self.stamp();
        let (built, generation, stores, phases) = self.build().await;
        let took = started.elapsed();
        self.current.store(Some(Arc::new(Current {
            built,
            generation,
            stores,
            stamp,
            at: Instant::now(),
            took,
            phases,
        })));
        took
    }

    fn stamp(&self) -> Option<FileStamp> {
        file_stamp(&self.catalogue.codes_file())
    }

    /// Whether the list in hand is out of date.
    fn is_due(&self) -> bool {
        let Some(current) = self.current.load_full() else {
            return true;
        };
        let idle = now_unix() - self.last_request_unix.load(Ordering::Relaxed);
        if u64::try_from(idle).is_ok_and(|idle| idle > self.config.idle_after.as_secs()) {
            return false;
        }
        let generation = self.reading.crawl().generation();
        let price_due = {
            let pacing = self.pacing.lock().unwrap_or_else(PoisonError::into_inner);
            pacing.scan_asked || pacing.next_fetch_unix <= now_unix()
        };
        let catalogue_changed = current.at.elapsed() >= self.config.catalogue_change_every
            && self.stamp() != current.stamp;
        generation != current.generation
            || catalogue_changed
            || self.reading.stores().list() != current.stores
            || (current.built.simulated && current.at.elapsed() >= self.config.simulated_every)
            || price_due
    }

    /// One build: the stores' stock, its prices and sales, assembled.
    async fn build(&self) -> (Built, u64, Vec<StoreUrl>, BuildPhases) {
        let generation = self.reading.crawl().generation();
        let stores = self.reading.stores().list();
        let mut gathered = Gathered::default();
        let mut notes = Vec::new();
        let mut phases = BuildPhases::default();
        let mut lap = Instant::now();
        let mut split = || std::mem::replace(&mut lap, Instant::now()).elapsed();
        self.gather(&stores, &mut gathered, &mut notes).await;
        phases.stock = split();
        let markets = gathered.codes_by_market();
        let (prices, reports) = self.price(&markets, &mut notes).await;
        phases.prices = split();
        let sales = self.sales(&markets, &mut notes).await;
        phases.sales = split();
        let mut built = assemble(gathered, &prices, &sales, reports, now_unix());
        built.notes.extend(notes);
        phases.assemble = split();
        (built, generation, stores, phases)
    }

    async fn gather(&self, stores: &[StoreUrl], gathered: &mut Gathered, notes: &mut Vec<String>) {
        if stores.is_empty() {
            let limit = self.config.simulated_products;
            match self.marketplaces.simulated_stock(limit).await {
                Some(Ok(stock)) => gathered.add_simulated(stock, now_unix(), limit),
                Some(Err(err)) => notes.push(format!("the simulated retailer failed: {err}")),
                None => notes.push(
                    "no store is configured: add a Shopify store (Settings, or --retailer-store) \
                     to scan it for flips"
                        .to_owned(),
                ),
            }
            return;
        }
        let file = self.catalogue.codes_file();
        let crawl = self.reading.crawl();
        let stock = crawl.flip_stock(&file, stores).await;
        for store in stores {
            match stock.iter().find(|s| s.store == *store) {
                Some(found) => gathered.add_crawled(found),
                None => gathered.add_unread(store, crawl.status(store).to_string()),
            }
        }
    }

    /// Whether this build may fetch `batches` calls' worth of prices.
    async fn plan(&self, batches: u64, now: i64) -> Plan {
        let (last, asked, planned_until) = {
            let mut pacing = self.pacing.lock().unwrap_or_else(PoisonError::into_inner);
            let asked = std::mem::take(&mut pacing.scan_asked);
            (pacing.last_fetch_unix, asked, pacing.planned_until_unix)
        };
        let every = i64::try_from(self.config.price_every.as_secs()).unwrap_or(i64::MAX);
        let budget = self.catalogue.budget().await;
        if let Some(Ok(status)) = &budget {
            // The caller plans the scans from the budget: it asked for this one, or none.
            if asked {
                return if status.calls_left < batches {
                    Plan::Hold {
                        why: format!(
                            "prices held: the scan asked for takes {batches} calls, and {} are left this month",
                            status.calls_left
                        ),
                        next_fetch_unix: planned_until,
                        spare_calls: 0,
                    }
                } else {
                    Plan::Fetch {
                        next_fetch_unix: planned_until,
                    }
                };
            }
            if planned_until > now {
                return Plan::Hold {
                    why: "prices held from the last scan: the alert monitor plans the scans from the monthly budget, with the alerts".to_owned(),
                    next_fetch_unix: planned_until,
                    spare_calls: 0,
                };
            }
        }
        match budget {
            // No monthly budget: the prices come from a file (the demo); fetched every build.
            None => Plan::Fetch {
                next_fetch_unix: i64::MAX,
            },
            Some(Err(err)) => Plan::Hold {
                why: format!(
                    "the monthly budget could not be read ({err}): prices held, none fetched"
                ),
                next_fetch_unix: now + 600,
                spare_calls: 0,
            },
            Some(Ok(status)) => {
                let reserve =
                    status.allowance * u64::from(self.config.budget_reserve_percent) / 100;
                let spare = status.calls_left.saturating_sub(reserve);
                if spare < batches {
                    return Plan::Hold {
                        why: format!(
                            "prices held: a scan takes {batches} calls, and the {} calls left this month keep {reserve} for the alerts and the window",
                            status.calls_left
                        ),
                        next_fetch_unix: now + 3_600,
                        spare_calls: spare,
                    };
                }
                // The scans the month's spare calls carry, spread over what is left of it.
                let scans = (spare / batches.max(1)).max(1);
                let paced = i64::try_from(status.secs_left / scans).unwrap_or(i64::MAX);
                let interval = paced.max(every);
                match last {
                    Some(last) if now - last < interval => Plan::Hold {
                        why: format!(
                            "prices held from the last scan; the next scan the month's budget carries is due in {}",
                            human(u64::try_from(last + interval - now).unwrap_or(0))
                        ),
                        next_fetch_unix: last + interval,
                        spare_calls: spare,
                    },
                    _ => Plan::Fetch {
                        next_fetch_unix: now + interval,
                    },
                }
            }
        }
    }

    /// Each market's codes priced, fetched or held as [`plan`](Self::plan) says.
    async fn price(
        &self,
        markets: &[(Country, Vec<String>)],
        notes: &mut Vec<String>,
    ) -> (HashMap<(Country, String), CodePrices>, Vec<FlipMarket>) {
        let now = now_unix();
        let batches: u64 = markets
            .iter()
            .map(|(_, codes)| codes.len().div_ceil(MAX_PRICE_CODES) as u64)
            .sum();
        let plan = self.plan(batches, now).await;
        let mut prices = HashMap::new();
        let mut reports = Vec::new();
        let mut fetched = false;
        let (mut spare, next) = match &plan {
            Plan::Fetch { next_fetch_unix } => (u64::MAX, *next_fetch_unix),
            Plan::Hold {
                spare_calls,
                next_fetch_unix,
                ..
            } => (*spare_calls, *next_fetch_unix),
        };
        for (country, codes) in markets {
            let mut report = FlipMarket {
                market: country.code().to_owned(),
                currency: country.currency().to_owned(),
                codes: u32::try_from(codes.len()).unwrap_or(u32::MAX),
                priced: 0,
                requests: 0,
                sources: Vec::new(),
                oldest_price: None,
                note: None,
            };
            let mut wanted: Vec<String> = codes.clone();
            if let Plan::Hold { why, .. } = &plan {
                report.note = Some(why.clone());
                for chunk in codes.chunks(MAX_PRICE_CODES) {
                    match self.catalogue.held_prices(chunk, *country).await {
                        Ok(answer) => {
                            keep(&mut prices, &mut report, *country, answer.value.products);
                        }
                        Err(err) => notes.push(format!("held prices ({}): {err}", country.code())),
                    }
                }
                wanted.retain(|code| !prices.contains_key(&(*country, normalize_sku(code))));
            }
            for chunk in wanted.chunks(MAX_PRICE_CODES) {
                if spare == 0 {
                    break;
                }
                spare -= 1;
                report.requests += 1;
                fetched = true;
                match self.catalogue.prices(chunk, *country).await {
                    Ok(answer) => {
                        keep(&mut prices, &mut report, *country, answer.value.products);
                    }
                    Err(err) => {
                        let note = format!("prices ({}): {err}", country.code());
                        tracing::info!("flips: {note}");
                        notes.push(note);
                        break;
                    }
                }
            }
            reports.push(report);
        }
        let mut pacing = self.pacing.lock().unwrap_or_else(PoisonError::into_inner);
        if fetched && matches!(plan, Plan::Fetch { .. }) {
            pacing.last_fetch_unix = Some(now);
        }
        pacing.next_fetch_unix = next;
        (prices, reports)
    }

    /// What the source holds of the codes' recent sales, by normalised code.
    async fn sales(
        &self,
        markets: &[(Country, Vec<String>)],
        notes: &mut Vec<String>,
    ) -> HashMap<String, HeldSales> {
        let mut codes: Vec<String> = markets.iter().flat_map(|(_, c)| c.clone()).collect();
        let mut seen = std::collections::HashSet::new();
        codes.retain(|code| seen.insert(normalize_sku(code)));
        let mut sales = HashMap::new();
        for chunk in codes.chunks(500) {
            match self.catalogue.held_sales(chunk).await {
                Ok(held) => {
                    for (code, held) in chunk.iter().zip(held) {
                        if let Some(held) = held {
                            sales.insert(normalize_sku(code), held);
                        }
                    }
                }
                Err(err) => {
                    notes.push(format!("recent sales could not be read: {err}"));
                    break;
                }
            }
        }
        sales
    }
}

/// Keeps a batch's products, by market and normalised code, and counts them in `report`.
fn keep(
    prices: &mut HashMap<(Country, String), CodePrices>,
    report: &mut FlipMarket,
    country: Country,
    products: Vec<CodePrices>,
) {
    for product in products {
        if !report.sources.contains(&product.source) {
            report.sources.push(product.source.clone());
        }
        if report
            .oldest_price
            .as_ref()
            .is_none_or(|oldest| product.as_of < *oldest)
        {
            report.oldest_price = Some(product.as_of.clone());
        }
        let key = (country, normalize_sku(&product.sku));
        if prices.insert(key, product).is_none() {
            report.priced += 1;
        }
    }
}

/// The background task: a build whenever one is due, until the list's owner is gone.
async fn run(flips: Weak<Flips>, wake: Arc<tokio::sync::Notify>, every: Duration) {
    loop {
        {
            let Some(flips) = flips.upgrade() else {
                return;
            };
            if flips.is_due() {
                let took = flips.rebuild_now().await;
                tracing::debug!("flips built in {} ms", took.as_millis());
            }
        }
        tokio::select! {
            () = wake.notified() => {}
            () = tokio::time::sleep(every) => {}
        }
    }
}
