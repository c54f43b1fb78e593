//! The alert monitor: a task on the app's runtime that checks the user's alerts through the
//! real-time endpoints, records every answer in the per-size history, and fires alerts (a
//! desktop notification, a row in the alert history, a badge in the window).
//!
//! One checker, two schedules. Where to start, file by file:
//! - `check.rs`, the checker: one product's alerts looked up in what the service's sources
//!   answer, recorded in the history, fired or re-armed;
//! - `polling.rs`, the schedule on a source without a monthly budget (the demo): each product
//!   every `check_every` as the gate allows;
//! - [`plan`], the schedule on a source with a monthly budget of calls (a KicksDB key): ask
//!   alerts priced in batches of 50 style codes at intervals that keep the month inside the
//!   budget, and the status says how often each alert is checked;
//! - `gate.rs`, what either may spend, decided by [`SpendGate`], a pure piece with the clock
//!   passed in:
//!   - at most half of each minute's real-time budget: never more than `limit / 2` of its own
//!     calls in any 60 seconds, and never when the client's budget has half or less left (so
//!     whatever the user spent comes out of the monitor's half, not the user's);
//!   - a lookup the user makes goes first: while one is in flight the monitor waits;
//!   - on 429 it waits for `Retry-After` (or the budget's reset), on network and server errors
//!     it backs off exponentially, and while the app is offline it pauses;
//! - [`flips`], the flip list read for the flip alerts on either schedule;
//! - [`lock`]: one monitor checks at a time, the window's or the headless `solescope
//!   monitor`'s; the other shows what the running one found.
//!
//! This file holds what the window and the command line hold of it ([`MonitorHandle`],
//! [`spawn`], [`headless`], [`MonitorDriver`]) and the loop that picks the schedule.
//!
//! It asks the service what its sources answer (`GET /api/v2/sources`, free, at most once a
//! [`SOURCES_EVERY`]) and asks only those: no `retailer-a` lookup from a service that has no
//! retailer (KicksDB alone), one lookup per store when it reads storefronts. Retailer lookups
//! are free (not budgeted) but still wait out back-off and offline. Each store is looked up
//! (the service reuses a store's answer for up to a minute and asks a store at most once a
//! second), so a restock or a price at any of them fires; a store that fails does not hold the
//! others back. While the user's flip alerts are on it reads the flip list too ([`flips`]).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::client::{Client, ClientError};
use crate::figures::product_key;
use crate::model::budget::{Clock, SystemClock};
use crate::model::{AlertFiring, ProductRef, RealtimeInfo, SizeQuote};
use crate::userdb::{UserDb, UserDbError, UserDbHandle};

use super::notify::Notifier;

mod check;
pub mod flips;
mod gate;
pub mod lock;
pub mod plan;
mod polling;

pub use self::gate::{Permit, SpendGate};
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
    /// The polling schedule's state.
    polling: polling::Polling,
    clock: Arc<dyn Clock>,
    plan_config: PlanConfig,
    /// The planned schedule's state.
    planner: plan::Planner,
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

/// The schedule the checker runs on, as the source's budget last said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Schedule {
    /// The source has not answered yet.
    Unknown,
    /// No monthly budget: each product polled every `check_every`.
    Polling,
    /// A monthly budget: rounds planned to keep the month inside it.
    Planned,
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
            polling: polling::Polling::default(),
            clock,
            plan_config,
            planner: plan::Planner::default(),
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

    /// Keeps `err` (with its causes) as the status's last error, for the window to show.
    fn note_error(&self, err: &dyn std::fmt::Display) {
        self.handle.lock().status.last_error = Some(format!("{err:#}"));
    }

    /// Checks until stopped, on the schedule the source calls for: planned rounds on a source
    /// with a monthly budget (`plan.rs`), else each product polled every `check_every` as the
    /// gate allows (`polling.rs`). The source is asked again every [`REPLAN_EVERY`] (a switch
    /// from the demo to a KicksDB key changes the schedule within it); until it first answers,
    /// nothing is checked.
    async fn check_until_stopped(&mut self) {
        let mut schedule = Schedule::Unknown;
        let mut ask_again_at = Instant::now();
        loop {
            if self.handle.lock().stopped {
                return;
            }
            let now = Instant::now();
            if now >= ask_again_at {
                match self.planned_round().await {
                    Ok(Some(report)) => {
                        schedule = Schedule::Planned;
                        let wait = report.next_due.map_or(REPLAN_EVERY, |due| {
                            (due - self.clock.now()).to_std().unwrap_or_default()
                        });
                        ask_again_at = Instant::now() + wait.min(REPLAN_EVERY);
                    }
                    Ok(None) => {
                        schedule = Schedule::Polling;
                        ask_again_at = now + REPLAN_EVERY;
                    }
                    Err(err) => {
                        self.note_error(&err);
                        ask_again_at = now + FIRST_BACKOFF;
                    }
                }
            }
            match schedule {
                // The planned round ran what was due; the next one is at `ask_again_at`.
                Schedule::Unknown | Schedule::Planned => tokio::time::sleep(TICK).await,
                Schedule::Polling => {
                    if self.poll_once().await.is_break() {
                        return;
                    }
                }
            }
        }
    }
}
