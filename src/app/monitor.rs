//! The alert monitor: a task on the app's runtime that checks the user's alerts through the
//! real-time endpoints, records every answer in the per-size history, and fires alerts (a
//! desktop notification, a row in the alert history, a badge in the window).
//!
//! What it may spend is decided by [`SpendGate`], a pure piece with the clock passed in:
//! - at most half of each minute's real-time budget: never more than `limit / 2` of its own calls
//!   in any 60 seconds, and never when the client's budget has half or less left (so whatever the
//!   user spent comes out of the monitor's half, not the user's);
//! - a lookup the user makes goes first: while one is in flight the monitor waits;
//! - on 429 it waits for `Retry-After` (or the budget's reset), on network and server errors it
//!   backs off exponentially, and while the app is offline it pauses.
//!
//! On a source with a monthly budget of calls (a KicksDB key) the monitor plans instead
//! ([`plan`]): ask alerts are priced in batches of 50 style codes at intervals that keep the
//! month inside the budget, and the status says how often each alert is checked. One monitor
//! checks at a time ([`lock`]): the window's, or the headless `solescope monitor`'s; the other
//! shows what the running one found.
//!
//! It asks the service what its sources answer (`GET /api/v2/sources`, free, at most once a
//! [`SOURCES_EVERY`]) and asks only those: no `retailer-a` lookup from a service that has no
//! retailer (KicksDB alone), one lookup per store when it reads storefronts. Retailer lookups
//! are free (not budgeted) but still wait out back-off and offline. Each store is looked up
//! (the service reuses a store's answer for up to a minute and asks a store at most once a
//! second), so a restock or a price at any of them fires; a store that fails does not hold the
//! others back. While the user's flip alerts are on it reads the flip list too ([`flips`]).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::client::{Budget, Client, ClientError, ErrorKind};
use crate::figures::{
    AlertStep, alert_step, product_key, quotes_from_resale_a, quotes_from_retailer,
    quotes_from_store,
};
use crate::model::budget::{Clock, SystemClock};
use crate::model::{Alert, AlertFiring, AlertKind, ProductRef, RealtimeInfo, SizeQuote, StoreUrl};
use crate::userdb::{UserDb, UserDbError, UserDbHandle};

use super::notify::Notifier;

pub mod flips;
pub mod lock;
pub mod plan;

pub use self::lock::{LockError, MonitorKind, MonitorLock};
pub use self::plan::{PlanConfig, PlanStatus, RoundReport};

/// The window the monitor's own calls are counted in.
pub const SPEND_WINDOW: Duration = Duration::from_secs(60);
/// First back-off after a network or server error; doubled on each further one.
pub const FIRST_BACKOFF: Duration = Duration::from_secs(5);
/// Longest back-off.
pub const MAX_BACKOFF: Duration = Duration::from_secs(300);
/// How often the monitor asks the service what its sources answer.
pub const SOURCES_EVERY: Duration = Duration::from_secs(15);
/// How long the monitor waits before asking again while a user lookup is in flight.
const USER_FIRST_WAIT: Duration = Duration::from_millis(200);

/// The gate's answer: may the monitor make a real-time call now?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permit {
    /// Yes; call [`SpendGate::spent`] as the call goes out.
    Go,
    /// Not before this instant.
    WaitUntil(Instant),
    /// The app is offline: not until it is back.
    Paused,
}

/// What the monitor may spend, and when (pure: every method takes the time).
#[derive(Debug, Clone, Default)]
pub struct SpendGate {
    /// The monitor's budgeted calls in the last [`SPEND_WINDOW`].
    spent: VecDeque<Instant>,
    /// No call at all before this (after a 429 or an error).
    backoff_until: Option<Instant>,
    /// Network or server errors in a row.
    failures: u32,
}

impl SpendGate {
    /// The monitor's share of a window's `limit`: half, rounded down.
    #[must_use]
    pub fn share(limit: u32) -> usize {
        (limit / 2) as usize
    }

    /// Whether a call may go out at `now`. `budgeted` is whether it spends the real-time budget,
    /// `budget` the client's account of it, `user_waiting` whether a user lookup is in flight.
    pub fn permit(
        &mut self,
        now: Instant,
        budgeted: bool,
        budget: &Budget,
        user_waiting: bool,
        online: bool,
    ) -> Permit {
        if !online {
            return Permit::Paused;
        }
        if let Some(until) = self.backoff_until {
            if now < until {
                return Permit::WaitUntil(until);
            }
            self.backoff_until = None;
        }
        if !budgeted {
            return Permit::Go;
        }
        if user_waiting {
            return Permit::WaitUntil(now + USER_FIRST_WAIT);
        }
        while self
            .spent
            .front()
            .is_some_and(|at| now.saturating_duration_since(*at) >= SPEND_WINDOW)
        {
            self.spent.pop_front();
        }
        let share = Self::share(budget.limit);
        if self.spent.len() >= share {
            return match self.spent.front() {
                Some(oldest) => Permit::WaitUntil(*oldest + SPEND_WINDOW),
                // A share of zero (a limit of 0 or 1): the monitor never spends.
                None => Permit::WaitUntil(now + SPEND_WINDOW),
            };
        }
        let keep_for_user = budget.limit as usize - share;
        if budget.remaining as usize <= keep_for_user && budget.resets_at > now {
            return Permit::WaitUntil(budget.resets_at);
        }
        Permit::Go
    }

    /// A budgeted call went out at `now`.
    pub fn spent(&mut self, now: Instant) {
        self.spent.push_back(now);
    }

    /// A call was answered: back-off ends.
    pub fn succeeded(&mut self) {
        self.failures = 0;
        self.backoff_until = None;
    }

    /// A 429: no call until `retry_after` has passed (a minute when the server gave none).
    pub fn rate_limited(&mut self, now: Instant, retry_after: Option<Duration>) {
        self.backoff_until = Some(now + retry_after.unwrap_or(SPEND_WINDOW));
    }

    /// A network or server error: back off 5 s, 10 s, 20 s, ... up to [`MAX_BACKOFF`].
    pub fn failed(&mut self, now: Instant) {
        let wait = FIRST_BACKOFF
            .saturating_mul(1 << self.failures.min(16))
            .min(MAX_BACKOFF);
        self.failures = self.failures.saturating_add(1);
        self.backoff_until = Some(now + wait);
    }
}

/// How the monitor runs.
#[derive(Debug, Clone)]
pub struct MonitorConfig {
    /// How often each product with alerts is checked.
    pub check_every: Duration,
}

impl Default for MonitorConfig {
    fn default() -> Self {
        Self {
            check_every: Duration::from_secs(60),
        }
    }
}

/// What the window shows of the monitor.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MonitorStatus {
    /// Budgeted calls made since the start.
    pub budgeted_calls: u64,
    /// Product checks completed.
    pub checks: u64,
    /// Why the monitor is waiting, if it is.
    pub waiting: Option<String>,
    /// The last error, if the last check of some product failed.
    pub last_error: Option<String>,
    /// Firings the window has not shown yet (the badge).
    pub unseen_firings: usize,
}

/// Most call times kept for [`MonitorHandle::call_times`].
const CALL_TIMES_KEPT: usize = 1_000;

#[derive(Default)]
struct Shared {
    plan: PlanStatus,
    offline: bool,
    user_lookups: usize,
    stopped: bool,
    call_times: VecDeque<Instant>,
    status: MonitorStatus,
    fired: Vec<AlertFiring>,
    flips: flips::FlipShared,
}

/// The window's side of a running monitor. Dropping the last handle does not stop it; call
/// [`MonitorHandle::stop`].
#[derive(Clone)]
pub struct MonitorHandle {
    shared: Arc<Mutex<Shared>>,
}

/// Held while a user lookup is in flight; the monitor waits until it is dropped.
pub struct UserLookupGuard {
    shared: Arc<Mutex<Shared>>,
}

impl Drop for UserLookupGuard {
    fn drop(&mut self) {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        shared.user_lookups = shared.user_lookups.saturating_sub(1);
    }
}

impl MonitorHandle {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Tells the monitor whether the app is online; it pauses while not.
    pub fn set_online(&self, online: bool) {
        self.lock().offline = !online;
    }

    /// A user lookup starts: the monitor makes no budgeted call until the guard is dropped.
    #[must_use]
    pub fn user_lookup(&self) -> UserLookupGuard {
        self.lock().user_lookups += 1;
        UserLookupGuard {
            shared: Arc::clone(&self.shared),
        }
    }

    /// The monitor's status.
    pub fn status(&self) -> MonitorStatus {
        self.lock().status.clone()
    }

    /// The plan on a source with a monthly budget (empty on one without).
    pub fn plan_status(&self) -> PlanStatus {
        self.lock().plan.clone()
    }

    /// When the monitor's budgeted calls went out (the latest [`CALL_TIMES_KEPT`]).
    pub fn call_times(&self) -> Vec<Instant> {
        self.lock().call_times.iter().copied().collect()
    }

    /// The firings since the last call, oldest first; the badge count goes back to 0.
    pub fn take_firings(&self) -> Vec<AlertFiring> {
        let mut shared = self.lock();
        shared.status.unseen_firings = 0;
        std::mem::take(&mut shared.fired)
    }

    /// Stops the monitor (it ends within a second).
    pub fn stop(&self) {
        self.lock().stopped = true;
    }
}

/// Runs `job` on the user database and waits for it without blocking the runtime.
async fn db_job<T, F>(db: &UserDbHandle, job: F) -> Result<T, UserDbError>
where
    T: Send + 'static,
    F: FnOnce(&mut UserDb) -> Result<T, UserDbError> + Send + 'static,
{
    let promise = db.run(job);
    tokio::task::spawn_blocking(move || promise.block_and_take())
        .await
        .unwrap_or(Err(UserDbError::Closed))
}

/// The key price history is kept under: the style code, or the catalogue id without one.
#[must_use]
pub fn history_key(product: &ProductRef) -> String {
    product_key(&product.style_code, &product.product_id)
}

/// Records `quotes` of `product_key` in the history, seen now. A failed write is returned.
pub async fn record_history(
    db: &UserDbHandle,
    product_key: String,
    quotes: Vec<SizeQuote>,
) -> Result<usize, UserDbError> {
    db_job(db, move |db| {
        db.record_quotes(&product_key, &quotes, chrono::Utc::now().timestamp())
    })
    .await
}

/// Starts the window's monitor on `runtime`: it checks the alerts unless another monitor
/// (`solescope monitor`) holds the lock, in which case it shows what that one finds and takes
/// over when it ends.
pub fn spawn(
    runtime: &tokio::runtime::Handle,
    client: Client,
    db: UserDbHandle,
    notifier: Arc<dyn Notifier>,
    config: MonitorConfig,
) -> MonitorHandle {
    let task = Task::new(
        client,
        db,
        notifier,
        config,
        PlanConfig::default(),
        Arc::new(SystemClock),
    );
    let handle = task.handle.clone();
    runtime.spawn(task.run(MonitorKind::Window, None));
    handle
}

/// Why the headless monitor did not run.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    /// Another `solescope monitor` runs (or the lock cannot be taken).
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The user database could not be read.
    #[error(transparent)]
    Db(#[from] UserDbError),
}

/// The headless monitor (`solescope monitor`): takes the lock first, refused at once when
/// another `solescope monitor` holds it; while the window's monitor holds it, this one waits
/// for the window to close. Returns the handle and the future that runs the monitor until
/// [`MonitorHandle::stop`].
///
/// # Errors
/// [`HeadlessError::Lock`] when another headless monitor runs or the lock file cannot be used;
/// [`HeadlessError::Db`] when the user database cannot be read.
pub async fn headless(
    client: Client,
    db: UserDbHandle,
    notifier: Arc<dyn Notifier>,
    config: MonitorConfig,
    plan: PlanConfig,
) -> Result<(MonitorHandle, impl Future<Output = ()> + Send), HeadlessError> {
    let dir = data_dir_of(&db).await?;
    let lock = match MonitorLock::try_acquire(&dir, MonitorKind::Headless) {
        Ok(lock) => Some(lock),
        Err(LockError::Held {
            holder: Some(holder),
            ..
        }) if holder.kind == MonitorKind::Window => {
            tracing::info!("{holder} checks the alerts; waiting until it closes");
            None
        }
        Err(err) => return Err(err.into()),
    };
    let task = Task::new(client, db, notifier, config, plan, Arc::new(SystemClock));
    let handle = task.handle.clone();
    Ok((handle, task.run(MonitorKind::Headless, lock)))
}

/// The monitor driven round by round on a clock of the caller's (a simulated month): no lock,
/// no sleeping; each [`round`](Self::round) runs what the plan says is due at the clock's now.
pub struct MonitorDriver {
    task: Task,
}

impl MonitorDriver {
    /// A driver over `client` and `db`, its time from `clock`.
    pub fn new(
        client: Client,
        db: UserDbHandle,
        notifier: Arc<dyn Notifier>,
        plan: PlanConfig,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            task: Task::new(client, db, notifier, MonitorConfig::default(), plan, clock),
        }
    }

    /// One round; `Ok(None)` when the source has no monthly budget.
    ///
    /// # Errors
    /// The budget could not be read from the service.
    pub async fn round(&mut self) -> Result<Option<RoundReport>, ClientError> {
        self.task.planned_round().await
    }

    /// The monitor's status and firings.
    #[must_use]
    pub fn handle(&self) -> MonitorHandle {
        self.task.handle.clone()
    }
}

/// The folder the user database lives in (the lock's).
async fn data_dir_of(db: &UserDbHandle) -> Result<std::path::PathBuf, UserDbError> {
    db_job(db, |db| {
        Ok(db
            .path()
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default())
    })
    .await
}

struct Task {
    client: Client,
    db: UserDbHandle,
    notifier: Arc<dyn Notifier>,
    config: MonitorConfig,
    handle: MonitorHandle,
    gate: SpendGate,
    next_check: HashMap<String, Instant>,
    clock: Arc<dyn Clock>,
    plan_config: PlanConfig,
    planner: plan::Planner,
    stock_checked_at: Option<chrono::DateTime<chrono::Utc>>,
    /// What the service's real-time sources answer, and when that was asked.
    sources: Option<(Instant, RealtimeInfo)>,
    flips: flips::FlipWatch,
}

/// Longest single sleep, so that stop, online and new alerts are noticed.
const TICK: Duration = Duration::from_secs(1);

/// Why a check did not complete.
enum Stall {
    /// The gate said wait (or pause); try again after this long.
    Wait(Duration, String),
    /// The call failed; the error is kept in the status.
    Failed(ClientError),
}

/// How often a source is asked again whether it has a monthly budget, and the longest wait
/// between planned rounds (new alerts are planned within it).
const REPLAN_EVERY: Duration = Duration::from_secs(30);

impl Task {
    fn new(
        client: Client,
        db: UserDbHandle,
        notifier: Arc<dyn Notifier>,
        config: MonitorConfig,
        plan_config: PlanConfig,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            client,
            db,
            notifier,
            config,
            handle: MonitorHandle {
                shared: Arc::new(Mutex::new(Shared::default())),
            },
            gate: SpendGate::default(),
            next_check: HashMap::new(),
            clock,
            plan_config,
            planner: plan::Planner::default(),
            stock_checked_at: None,
            sources: None,
            flips: flips::FlipWatch::default(),
        }
    }

    /// Takes the lock (or waits for it, showing what the monitor holding it finds), then
    /// checks until stopped.
    async fn run(mut self, kind: MonitorKind, lock: Option<MonitorLock>) {
        let lock = match lock {
            Some(lock) => lock,
            None => match self.follow_until_locked(kind).await {
                Some(lock) => lock,
                None => return,
            },
        };
        tracing::info!("the alert monitor checks ({})", lock.path().display());
        self.check_until_stopped().await;
        drop(lock);
    }

    /// Checks until stopped: planned rounds on a source with a monthly budget, else each
    /// product every `check_every` as the gate allows.
    async fn check_until_stopped(&mut self) {
        let mut plan_again_at = Instant::now();
        let mut metered = true;
        loop {
            if self.handle.lock().stopped {
                return;
            }
            let now = Instant::now();
            if now >= plan_again_at {
                match self.planned_round().await {
                    Ok(Some(report)) => {
                        metered = true;
                        let wait = report.next_due.map_or(REPLAN_EVERY, |due| {
                            (due - self.clock.now()).to_std().unwrap_or_default()
                        });
                        plan_again_at = Instant::now() + wait.min(REPLAN_EVERY);
                    }
                    Ok(None) => {
                        metered = false;
                        plan_again_at = now + REPLAN_EVERY;
                    }
                    Err(err) => {
                        self.handle.lock().status.last_error = Some(format!("{err:#}"));
                        plan_again_at = now + FIRST_BACKOFF;
                    }
                }
            }
            if metered {
                tokio::time::sleep(TICK).await;
                continue;
            }
            self.flips_when_due().await;
            let alerts = match db_job(&self.db, |db| db.alerts()).await {
                Ok(alerts) => alerts,
                Err(err) => {
                    self.handle.lock().status.last_error = Some(format!("{err:#}"));
                    if matches!(err, UserDbError::Closed) {
                        return;
                    }
                    tokio::time::sleep(TICK).await;
                    continue;
                }
            };
            let mut by_product: BTreeMap<String, Vec<Alert>> = BTreeMap::new();
            for alert in alerts {
                by_product
                    .entry(alert.spec.product.product_id.clone())
                    .or_default()
                    .push(alert);
            }
            let now = Instant::now();
            let due = by_product
                .keys()
                .map(|id| (self.next_check.get(id).copied().unwrap_or(now), id))
                .min();
            let Some((due_at, product_id)) = due else {
                tokio::time::sleep(TICK).await;
                continue;
            };
            if due_at > now {
                tokio::time::sleep((due_at - now).min(TICK)).await;
                continue;
            }
            let product_id = product_id.clone();
            let alerts = by_product.remove(&product_id).unwrap_or_default();
            match self.check(&alerts).await {
                Ok(()) => {
                    self.next_check
                        .insert(product_id, Instant::now() + self.config.check_every);
                    let mut shared = self.handle.lock();
                    shared.status.checks += 1;
                    shared.status.waiting = None;
                }
                Err(Stall::Wait(wait, why)) => {
                    self.handle.lock().status.waiting = Some(why);
                    tokio::time::sleep(wait.min(TICK)).await;
                }
                Err(Stall::Failed(err)) => {
                    let now = Instant::now();
                    match err.kind {
                        ErrorKind::RateLimited => self.gate.rate_limited(now, err.retry_after),
                        kind if err.is_retryable() || kind == ErrorKind::Connection => {
                            self.gate.failed(now);
                        }
                        // Not found, forbidden, a bad answer: asking again at once would not
                        // help; the product is checked again on its schedule.
                        _ => {
                            self.next_check
                                .insert(product_id, now + self.config.check_every);
                        }
                    }
                    self.handle.lock().status.last_error = Some(err.user_text());
                }
            }
        }
    }

    /// Asks the gate for a call now.
    fn permit(&mut self, budgeted: bool) -> Result<(), Stall> {
        let now = Instant::now();
        let (user_waiting, online) = {
            let shared = self.handle.lock();
            (shared.user_lookups > 0, !shared.offline)
        };
        let budget = self.client.realtime_budget();
        match self
            .gate
            .permit(now, budgeted, &budget, user_waiting, online)
        {
            Permit::Go => {
                if budgeted {
                    self.gate.spent(now);
                    let mut shared = self.handle.lock();
                    shared.status.budgeted_calls += 1;
                    shared.call_times.push_back(now);
                    if shared.call_times.len() > CALL_TIMES_KEPT {
                        shared.call_times.pop_front();
                    }
                }
                Ok(())
            }
            Permit::Paused => Err(Stall::Wait(TICK, "paused while offline".into())),
            Permit::WaitUntil(until) => {
                let why = if user_waiting {
                    "a lookup of yours goes first"
                } else {
                    "waiting for its share of the real-time budget"
                };
                Err(Stall::Wait(
                    until.saturating_duration_since(now),
                    why.into(),
                ))
            }
        }
    }

    /// What the service's real-time sources answer: asked again when older than
    /// [`SOURCES_EVERY`].
    async fn offered(&mut self) -> Result<RealtimeInfo, Stall> {
        if let Some((at, info)) = &self.sources
            && at.elapsed() < SOURCES_EVERY
        {
            return Ok(info.clone());
        }
        self.permit(false)?;
        let info = self
            .client
            .sources()
            .await
            .map_err(Stall::Failed)?
            .data
            .realtime;
        self.sources = Some((Instant::now(), info.clone()));
        Ok(info)
    }

    /// One check of one product's alerts: the lookups they need of what the service offers,
    /// history, firing.
    async fn check(&mut self, alerts: &[Alert]) -> Result<(), Stall> {
        let Some(first) = alerts.first() else {
            return Ok(());
        };
        let product = first.spec.product.clone();
        let offered = self.offered().await?;
        // A source that cannot answer a part is not asked for it.
        let needs_resale_a = offered.resale_a.is_some()
            && alerts.iter().any(|a| a.spec.kind != AlertKind::BackInStock);
        let needs_retailer = offered.retailer_a.is_some()
            && alerts.iter().any(|a| {
                matches!(
                    a.spec.kind,
                    AlertKind::BackInStock | AlertKind::AskAtOrBelow
                )
            });
        let stores: Vec<StoreUrl> = offered
            .stores()
            .iter()
            .filter_map(|store| StoreUrl::parse(&store.url).ok())
            .collect();
        let mut quotes = Vec::new();
        if needs_resale_a {
            self.permit(true)?;
            let answer = self.client.resale_a_product(&product.product_id).await;
            let envelope = answer.map_err(Stall::Failed)?;
            self.gate.succeeded();
            quotes.extend(quotes_from_resale_a(&envelope.data));
        }
        if needs_retailer {
            quotes.extend(self.retailer_quotes(&product.product_id, &stores).await?);
        }
        // The history is in US dollars: a store's quotes in another currency are not kept.
        let recorded: Vec<SizeQuote> = quotes
            .iter()
            .filter(|q| q.store.is_none() || q.currency == "USD")
            .cloned()
            .collect();
        if let Err(err) = record_history(&self.db, history_key(&product), recorded).await {
            self.handle.lock().status.last_error = Some(format!("{err:#}"));
        }
        for alert in alerts {
            match alert_step(alert, &quotes) {
                AlertStep::Fire(hit) => self.fire(alert.clone(), hit).await,
                AlertStep::Rearm => {
                    let id = alert.id;
                    if let Err(err) = db_job(&self.db, move |db| db.rearm_alert(id)).await {
                        self.handle.lock().status.last_error = Some(format!("{err:#}"));
                    }
                }
                AlertStep::Stay => {}
            }
        }
        Ok(())
    }

    /// The retailer's quotes for `product_id`: from each of the service's `stores`, or from its
    /// one retailer when it reads none. A store that fails is noted in the status and skipped;
    /// only when every lookup failed does the check fail.
    async fn retailer_quotes(
        &mut self,
        product_id: &str,
        stores: &[StoreUrl],
    ) -> Result<Vec<SizeQuote>, Stall> {
        if stores.is_empty() {
            self.permit(false)?;
            let answer = self.client.retailer_product(product_id).await;
            let envelope = answer.map_err(Stall::Failed)?;
            self.gate.succeeded();
            return Ok(quotes_from_retailer(&envelope.data));
        }
        let mut quotes = Vec::new();
        let mut first_error = None;
        let mut answered = false;
        for store in stores {
            self.permit(false)?;
            match self
                .client
                .retailer_product_at(product_id, Some(store.label()))
                .await
            {
                Ok(envelope) => {
                    answered = true;
                    quotes.extend(quotes_from_store(&envelope.data, store));
                }
                Err(err) => {
                    self.handle.lock().status.last_error =
                        Some(format!("{}: {}", store.label(), err.user_text()));
                    first_error.get_or_insert(err);
                }
            }
        }
        match first_error {
            Some(err) if !answered => Err(Stall::Failed(err)),
            _ => {
                self.gate.succeeded();
                Ok(quotes)
            }
        }
    }

    /// Records the firing (disarming the alert), then notifies and raises the badge. When the
    /// record cannot be written the alert stays armed and nothing is shown, so it fires on a
    /// later check instead of being lost.
    async fn fire(&mut self, alert: Alert, hit: crate::figures::AlertHit) {
        let recorded = db_job(&self.db, move |db| {
            db.record_firing(
                &alert,
                &hit.size,
                hit.source,
                hit.price_cents,
                &hit.currency,
                chrono::Utc::now().timestamp(),
            )
        })
        .await;
        let firing = match recorded {
            Ok(firing) => firing,
            Err(err) => {
                self.handle.lock().status.last_error = Some(format!("{err:#}"));
                return;
            }
        };
        let notifier = Arc::clone(&self.notifier);
        let shown = firing.clone();
        let outcome = tokio::task::spawn_blocking(move || notifier.notify(&shown)).await;
        if let Ok(Err(err)) = outcome {
            tracing::warn!("alert notification not shown: {err:#}");
        }
        let mut shared = self.handle.lock();
        shared.status.unseen_firings += 1;
        shared.fired.push(firing);
    }
}

#[cfg(test)]
mod tests;
