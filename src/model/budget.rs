//! A monthly budget of calls to a metered live source (a KicksDB key's monthly quota): the
//! settings (the plan's quota and the share Solescope may use), the calendar month the count
//! runs in, what this month has spent, and the planner that spaces out recurring work so the
//! month never spends more than the budget.
//!
//! Shared by the two halves: the service counts and refuses calls past the budget (it is the
//! one that sends them), the window and the monitor plan their recurring work in it and show it.
//! Pure arithmetic with the time passed in (or read from a [`Clock`], which tests replace with a
//! [`ManualClock`] to run a month in seconds).
//!
//! Two counts meet here, because KicksDB counts every request of the key while Solescope knows
//! only its own: [`MonthSpend::counted`] (calls Solescope sent this month, counted before each
//! is sent) and KicksDB's `X-Quota-Current` (the key's requests this month, when an answer
//! carried it). Solescope's count is held to the share of the quota; the key's count (its last
//! report plus Solescope's calls since) to the whole quota, so another program using the key
//! leaves Solescope what is left, and never more.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use chrono::{DateTime, Datelike, NaiveDate, TimeZone, Utc};
use serde::{Deserialize, Serialize};

/// The shortest interval the planner ever picks for a recurring check.
pub const MIN_INTERVAL_SECS: u64 = 60;

/// Style codes priced by one batched call (`POST /v3/stockx/prices` takes at most 50).
pub const CODES_PER_PRICE_CALL: usize = 50;

/// The monthly quota assumed until the user says what their plan gives: the lowest figure the
/// research notes report for a free key (reports range from 1,000 to 50,000).
pub const DEFAULT_MONTHLY_QUOTA: u64 = 1_000;

/// The share of the budget the planner leaves for lookups the user asks for (a search, a
/// product opened, a real-time lookup): planned work gets the rest.
pub const USER_RESERVE_PERCENT: u64 = 10;

/// A month's length for sharing out the reserve over the time left (30 days).
const NOMINAL_MONTH_SECS: u64 = 30 * 86_400;

/// What the user set: their plan's monthly quota and the share of it Solescope may spend.
///
/// Until the quota is set, [`DEFAULT_MONTHLY_QUOTA`] is assumed for Solescope's own count, and
/// KicksDB's count of the key is not held to it (the key may well be on a larger plan, and
/// refusing a key that KicksDB still serves would stop everything for a guess); once set, both
/// hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(default)]
pub struct BudgetSettings {
    /// Calls the KicksDB plan allows per month, as the user set it; `None`: not set.
    pub monthly_quota: Option<u64>,
    /// Percent of the quota Solescope may spend (1 to 100).
    pub share_percent: u8,
}

impl Default for BudgetSettings {
    fn default() -> Self {
        Self {
            monthly_quota: None,
            share_percent: 100,
        }
    }
}

impl BudgetSettings {
    /// The plan's quota as set, else [`DEFAULT_MONTHLY_QUOTA`].
    #[must_use]
    pub fn quota(&self) -> u64 {
        self.monthly_quota.unwrap_or(DEFAULT_MONTHLY_QUOTA)
    }

    /// Calls Solescope may spend this month: the share of the quota, rounded down.
    #[must_use]
    pub fn allowance(&self) -> u64 {
        let share = u64::from(self.share_percent.min(100));
        self.quota().saturating_mul(share) / 100
    }

    /// The settings with the share held to 1..=100.
    #[must_use]
    pub fn checked(self) -> Self {
        Self {
            monthly_quota: self.monthly_quota,
            share_percent: self.share_percent.clamp(1, 100),
        }
    }
}

/// The budget settings, shared by the window or the monitor (which edit them) and the service
/// (which reads them before every call). Cheap to clone; clones share.
#[derive(Debug, Clone, Default)]
pub struct BudgetSettingsCell {
    inner: Arc<RwLock<BudgetSettings>>,
}

impl BudgetSettingsCell {
    /// A cell holding `settings`.
    #[must_use]
    pub fn new(settings: BudgetSettings) -> Self {
        Self {
            inner: Arc::new(RwLock::new(settings.checked())),
        }
    }

    /// The current settings.
    #[must_use]
    pub fn get(&self) -> BudgetSettings {
        *self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Replaces the settings (the share held to 1..=100).
    pub fn set(&self, settings: BudgetSettings) {
        *self.inner.write().unwrap_or_else(PoisonError::into_inner) = settings.checked();
    }
}

/// A calendar month in UTC, the period the budget counts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Month {
    /// `YYYY-MM`: sorts in time order as text.
    pub key: String,
    /// The first instant of the month.
    pub start: DateTime<Utc>,
    /// The first instant of the next month.
    pub end: DateTime<Utc>,
}

fn first_of(year: i32, month: u32) -> DateTime<Utc> {
    let date = NaiveDate::from_ymd_opt(year, month, 1).unwrap_or_default();
    Utc.from_utc_datetime(&date.and_hms_opt(0, 0, 0).unwrap_or_default())
}

impl Month {
    /// The month `now` falls in.
    #[must_use]
    pub fn of(now: DateTime<Utc>) -> Self {
        let (year, month) = (now.year(), now.month());
        let (next_year, next_month) = if month == 12 {
            (year + 1, 1)
        } else {
            (year, month + 1)
        };
        Self {
            key: format!("{year:04}-{month:02}"),
            start: first_of(year, month),
            end: first_of(next_year, next_month),
        }
    }

    /// The month with key `key` (`YYYY-MM`), if it is one.
    #[must_use]
    pub fn from_key(key: &str) -> Option<Self> {
        let (year, month) = key.split_once('-')?;
        let (year, month) = (year.parse::<i32>().ok()?, month.parse::<u32>().ok()?);
        (1..=12)
            .contains(&month)
            .then(|| Self::of(first_of(year, month)))
    }

    /// Seconds from `now` to the month's end, held to the month's length (a clock before the
    /// month's start gets the whole month, one past its end none).
    #[must_use]
    pub fn secs_left(&self, now: DateTime<Utc>) -> u64 {
        let from = now.max(self.start).min(self.end);
        u64::try_from((self.end - from).num_seconds()).unwrap_or(0)
    }

    /// The month to count `now` in, given the newest month already counted in: the newer of
    /// the two. A clock set back into an earlier month keeps counting in the newest one, so
    /// that a jump back never gives a month's spent calls back; a clock that jumps forward
    /// starts the new month.
    #[must_use]
    pub fn counting(now: DateTime<Utc>, newest_counted: Option<&str>) -> Self {
        let here = Self::of(now);
        match newest_counted.and_then(Self::from_key) {
            Some(newest) if newest.key > here.key => newest,
            _ => here,
        }
    }
}

/// What one month has spent, as the service's ledger keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct MonthSpend {
    /// The month (`YYYY-MM`).
    pub month: String,
    /// Calls Solescope sent this month (counted before each was sent).
    pub counted: u64,
    /// KicksDB's latest count of the key's requests this month (`X-Quota-Current`), when an
    /// answer this month carried one.
    pub reported: Option<u64>,
    /// [`counted`](Self::counted) when that report arrived.
    pub counted_at_report: u64,
}

impl MonthSpend {
    /// A month with nothing spent.
    #[must_use]
    pub fn empty(month: &str) -> Self {
        Self {
            month: month.to_owned(),
            ..Self::default()
        }
    }

    /// The key's requests this month as best known: KicksDB's last report plus Solescope's
    /// calls since; `None` before any report this month.
    #[must_use]
    pub fn key_spent(&self) -> Option<u64> {
        self.reported.map(|reported| {
            reported.saturating_add(self.counted.saturating_sub(self.counted_at_report))
        })
    }

    /// What the month has spent, for a person: the larger of the two counts.
    #[must_use]
    pub fn spent(&self) -> u64 {
        self.key_spent().unwrap_or(0).max(self.counted)
    }

    /// Calls Solescope may still send this month under `settings`: its own count held to the
    /// share, the key's to the whole quota (when the quota is set).
    #[must_use]
    pub fn calls_left(&self, settings: &BudgetSettings) -> u64 {
        let own = settings.allowance().saturating_sub(self.counted);
        match (self.key_spent(), settings.monthly_quota) {
            (Some(key), Some(quota)) => own.min(quota.saturating_sub(key)),
            _ => own,
        }
    }

    /// This month after one more call was sent.
    #[must_use]
    pub fn after_call(mut self) -> Self {
        self.counted = self.counted.saturating_add(1);
        self
    }

    /// This month after KicksDB reported `reported` requests. A report lower than the last is
    /// taken as it is (KicksDB's month may begin at another hour than ours, or a replica of
    /// theirs may lag): Solescope's own count still holds it to its share.
    #[must_use]
    pub fn after_report(mut self, reported: u64) -> Self {
        self.reported = Some(reported);
        self.counted_at_report = self.counted;
        self
    }
}

/// The budget as the service reports it (`GET /api/v2/budget`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BudgetStatus {
    /// The metered source (`kicksdb`).
    pub source: String,
    /// The settings in force.
    pub settings: BudgetSettings,
    /// Calls Solescope may spend this month ([`BudgetSettings::allowance`]).
    pub allowance: u64,
    /// This month's counts.
    pub spend: MonthSpend,
    /// What this month has spent ([`MonthSpend::spent`]).
    pub spent: u64,
    /// Calls Solescope may still send this month.
    pub calls_left: u64,
    /// When the month ends (RFC 3339, UTC): the count starts again then.
    pub month_ends_at: String,
    /// Seconds until then.
    pub secs_left: u64,
    /// Whether the count is shared by several services (`serve --redis`).
    pub shared: bool,
    /// Something a person should know about the count (a quota header that went down or went
    /// missing, a clock set back, a count that could not be read).
    pub note: Option<String>,
}

/// A kind of recurring work that spends calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DemandKind {
    /// Checking the alerts on an ask (batched prices).
    AskAlerts,
    /// Checking the alerts that need a real-time lookup (bids), one call per product.
    RealtimeAlerts,
    /// Valuing the portfolio (batched prices).
    Portfolio,
    /// Refreshing the watchlist's prices (batched prices).
    Watchlist,
    /// Pricing the flip list: every style code in stock at the stores, batched per market.
    FlipScan,
}

impl DemandKind {
    /// Words for a person.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            DemandKind::AskAlerts => "ask alerts",
            DemandKind::RealtimeAlerts => "bid alerts (real-time)",
            DemandKind::Portfolio => "portfolio values",
            DemandKind::Watchlist => "watchlist prices",
            DemandKind::FlipScan => "flip scans",
        }
    }
}

/// Recurring work and what one run of it costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Demand {
    /// What it is.
    pub kind: DemandKind,
    /// Calls one run sends (batches of [`CODES_PER_PRICE_CALL`] codes, or real-time lookups).
    pub calls_per_run: u64,
    /// How often the user wants it run, in seconds.
    pub wished_every_secs: u64,
}

impl Demand {
    /// Batched-price work over `codes` distinct style codes, wished every `every_secs`.
    #[must_use]
    pub fn batched(kind: DemandKind, codes: usize, every_secs: u64) -> Self {
        Self {
            kind,
            calls_per_run: codes.div_ceil(CODES_PER_PRICE_CALL) as u64,
            wished_every_secs: every_secs,
        }
    }
}

/// One demand as planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Planned {
    /// The demand.
    pub demand: Demand,
    /// The interval picked, in seconds (never under [`MIN_INTERVAL_SECS`]); `None`: no run
    /// fits before the month ends (the budget is spent).
    pub every_secs: Option<u64>,
}

/// Intervals for every recurring demand that keep the month inside its budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Each demand with its interval, in the order given.
    pub demands: Vec<Planned>,
    /// How many times longer than wished the intervals are (1.0: as wished).
    pub stretch: f64,
    /// Calls the demands would send to the month's end at the wished intervals.
    pub wished_calls: u64,
    /// Calls they will send at the planned intervals.
    pub planned_calls: u64,
    /// Calls the budget had left when planned.
    pub calls_left: u64,
    /// Of those, kept for lookups the user asks for.
    pub reserve: u64,
    /// Seconds left in the month when planned.
    pub secs_left: u64,
}

/// Runs of work every `every_secs` from now to the month's end: one now, then one each interval
/// that starts before the end.
fn runs(every_secs: u64, secs_left: u64) -> u64 {
    if secs_left == 0 {
        return 0;
    }
    secs_left.div_ceil(every_secs.max(1))
}

fn calls_at(demands: &[Demand], every: impl Fn(&Demand) -> Option<u64>, secs_left: u64) -> u64 {
    demands
        .iter()
        .filter_map(|d| every(d).map(|e| d.calls_per_run.saturating_mul(runs(e, secs_left))))
        .fold(0, u64::saturating_add)
}

/// Plans `demands` so that what they send to the month's end (`secs_left` away) fits in
/// `calls_left` less a reserve for the user's own lookups ([`USER_RESERVE_PERCENT`] of
/// `allowance` over a whole month, less as the month runs out). Every interval is at least its wish and at least [`MIN_INTERVAL_SECS`]; when the
/// wishes do not fit, every interval is stretched by one factor (each demand keeps its share of
/// the calls), so nothing stops while the month lasts. A demand whose one run costs more than
/// what is left is paused until the month ends.
#[must_use]
pub fn plan(demands: &[Demand], calls_left: u64, allowance: u64, secs_left: u64) -> Plan {
    // The reserve is the user's share of the time left, so the month's last hours are not
    // kept for lookups nobody has the time to make.
    let month_share = secs_left.min(NOMINAL_MONTH_SECS);
    let reserve = u64::try_from(
        u128::from(allowance) * u128::from(USER_RESERVE_PERCENT) * u128::from(month_share)
            / (100 * u128::from(NOMINAL_MONTH_SECS)),
    )
    .unwrap_or(u64::MAX)
    .min(calls_left);
    let usable = calls_left - reserve;
    let wished = |d: &Demand| d.wished_every_secs.max(MIN_INTERVAL_SECS);
    let wished_calls = calls_at(demands, |d| Some(wished(d)), secs_left);
    // Demands that cannot run even once are paused; the others share what is left.
    let mut paused: Vec<bool> = demands.iter().map(|d| d.calls_per_run > usable).collect();
    let mut stretch = 1.0_f64;
    let every = |stretch: f64, paused: &[bool]| -> Vec<Option<u64>> {
        demands
            .iter()
            .zip(paused)
            .map(|(d, &paused)| {
                // An interval past the month's end is kept as it is (one run counted): made
                // shorter, it would fall due before the end and spend what others need.
                (!paused).then(|| {
                    let secs = (wished(d) as f64 * stretch).ceil();
                    if secs >= u64::MAX as f64 {
                        u64::MAX
                    } else {
                        secs as u64
                    }
                })
            })
            .collect()
    };
    let total = |intervals: &[Option<u64>]| {
        demands
            .iter()
            .zip(intervals)
            .filter_map(|(d, e)| e.map(|e| d.calls_per_run.saturating_mul(runs(e, secs_left))))
            .fold(0u64, u64::saturating_add)
    };
    let mut intervals = every(stretch, &paused);
    let live_wished = total(&intervals);
    if live_wished > usable && usable > 0 {
        stretch = live_wished as f64 / usable as f64;
        intervals = every(stretch, &paused);
    }
    // Whole runs round up: stretch a little more until the count fits (a few steps at most),
    // then pause the dearest demand while even one run each is too much.
    for _ in 0..1_000 {
        if total(&intervals) <= usable {
            break;
        }
        if intervals.iter().zip(demands).all(|(e, d)| {
            e.is_none_or(|e| e >= secs_left.max(MIN_INTERVAL_SECS) || d.calls_per_run == 0)
        }) {
            let dearest = demands
                .iter()
                .enumerate()
                .filter(|(i, _)| !paused[*i])
                .max_by_key(|(_, d)| d.calls_per_run)
                .map(|(i, _)| i);
            match dearest {
                Some(i) => paused[i] = true,
                None => break,
            }
        } else {
            stretch *= 1.01;
        }
        intervals = every(stretch, &paused);
    }
    let planned_calls = total(&intervals);
    Plan {
        demands: demands
            .iter()
            .zip(intervals)
            .map(|(demand, every_secs)| Planned {
                demand: *demand,
                every_secs,
            })
            .collect(),
        stretch,
        wished_calls,
        planned_calls,
        calls_left,
        reserve,
        secs_left,
    }
}

impl Plan {
    /// Whether any interval is longer than wished (or paused): the window says so.
    #[must_use]
    pub fn is_spaced_out(&self) -> bool {
        self.demands.iter().any(|p| {
            p.every_secs
                .is_none_or(|e| e > p.demand.wished_every_secs.max(MIN_INTERVAL_SECS))
        })
    }

    /// The interval planned for `kind`, if it is planned and not paused.
    #[must_use]
    pub fn every_secs(&self, kind: DemandKind) -> Option<u64> {
        self.demands
            .iter()
            .find(|p| p.demand.kind == kind)
            .and_then(|p| p.every_secs)
    }

    /// What the month will have spent at its end: `spent` so far plus the planned calls.
    #[must_use]
    pub fn forecast(&self, spent: u64) -> u64 {
        spent.saturating_add(self.planned_calls)
    }

    /// One sentence on how the plan spaces the work out, for the window and the log; `None`
    /// when everything runs as wished.
    #[must_use]
    pub fn note(&self) -> Option<String> {
        if !self.is_spaced_out() {
            return None;
        }
        let parts: Vec<String> = self
            .demands
            .iter()
            .filter(|p| p.demand.calls_per_run > 0)
            .map(|p| match p.every_secs {
                Some(every) => format!(
                    "{} every {} (wished {})",
                    p.demand.kind.label(),
                    interval_text(every),
                    interval_text(p.demand.wished_every_secs.max(MIN_INTERVAL_SECS))
                ),
                None => format!("{} paused until the month ends", p.demand.kind.label()),
            })
            .collect();
        Some(format!(
            "The KicksDB budget has {} calls left for {}: checks are spaced out to fit ({}).",
            self.calls_left,
            interval_text(self.secs_left),
            parts.join("; ")
        ))
    }
}

/// An interval for a person: `45 s`, `12 min`, `1 h 30 min`, `3 days`.
#[must_use]
pub fn interval_text(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3_600 => format!("{} min", secs.div_ceil(60)),
        3_600..172_800 => {
            let minutes = secs.div_ceil(60);
            match minutes % 60 {
                0 => format!("{} h", minutes / 60),
                rest => format!("{} h {rest} min", minutes / 60),
            }
        }
        _ => format!("{} days", secs / 86_400),
    }
}

/// Where the time comes from: the system clock, or a clock a test sets.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Now, in UTC.
    fn now(&self) -> DateTime<Utc>;
}

/// The system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that stands still until told to move: a simulated month runs in seconds. Clones
/// share the time.
#[derive(Debug, Clone)]
pub struct ManualClock {
    now: Arc<Mutex<DateTime<Utc>>>,
}

impl ManualClock {
    /// A clock showing `now`.
    #[must_use]
    pub fn new(now: DateTime<Utc>) -> Self {
        Self {
            now: Arc::new(Mutex::new(now)),
        }
    }

    /// Sets the time (backwards too: a clock that jumps).
    pub fn set(&self, now: DateTime<Utc>) {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner) = now;
    }

    /// Moves the time on by `secs`.
    pub fn advance(&self, secs: i64) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        *now += chrono::Duration::seconds(secs);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_time::at;

    const MONTH_SECS: u64 = 30 * 86_400;

    #[test]
    fn months_roll_over_and_a_clock_set_back_keeps_the_newest_month() {
        let november = Month::of(at("2026-11-30T23:59:59Z"));
        assert_eq!(november.key, "2026-11");
        assert_eq!(november.end, at("2026-12-01T00:00:00Z"));
        assert_eq!(november.secs_left(at("2026-11-30T23:59:59Z")), 1);
        let december = Month::of(at("2026-12-31T12:00:00Z"));
        assert_eq!(
            (december.key.as_str(), december.end),
            ("2026-12", at("2027-01-01T00:00:00Z"))
        );
        // A clock set back into November keeps counting in December.
        assert_eq!(
            Month::counting(at("2026-11-20T00:00:00Z"), Some("2026-12")).key,
            "2026-12"
        );
        // A clock that jumps forward starts its month.
        assert_eq!(
            Month::counting(at("2027-02-03T00:00:00Z"), Some("2026-12")).key,
            "2027-02"
        );
        // Outside the month: the whole month, or nothing.
        assert_eq!(december.secs_left(at("2026-11-20T00:00:00Z")), 31 * 86_400);
        assert_eq!(december.secs_left(at("2027-03-01T00:00:00Z")), 0);
        assert_eq!(Month::from_key("2026-13"), None);
    }

    #[test]
    fn the_key_count_follows_reports_and_solescopes_own_count_holds_the_share() {
        let settings = BudgetSettings {
            monthly_quota: Some(10_000),
            share_percent: 50,
        };
        assert_eq!(settings.allowance(), 5_000);
        let mut spend = MonthSpend::empty("2026-11");
        for _ in 0..100 {
            spend = spend.after_call();
        }
        // No report yet: only the share holds.
        assert_eq!(spend.calls_left(&settings), 4_900);
        // Another program used the key: 9,950 requests this month.
        spend = spend.after_report(9_950);
        assert_eq!(spend.calls_left(&settings), 50);
        spend = spend.after_call().after_call();
        assert_eq!(spend.key_spent(), Some(9_952));
        assert_eq!(spend.calls_left(&settings), 48);
        // The header goes down (KicksDB's month began): the share still holds.
        spend = spend.after_report(3);
        assert_eq!(spend.calls_left(&settings), 5_000 - 102);
        assert_eq!(spend.spent(), 102);
        // A quota not set: 1,000 assumed for Solescope's own calls, the key's count not held.
        let unset = BudgetSettings::default();
        assert_eq!(unset.allowance(), 1_000);
        let heavy = MonthSpend::empty("2026-11")
            .after_report(30_000)
            .after_call();
        assert_eq!(heavy.calls_left(&unset), 999);
    }

    fn demands() -> Vec<Demand> {
        vec![
            Demand::batched(DemandKind::AskAlerts, 10, 60),
            Demand::batched(DemandKind::Portfolio, 120, 3_600),
            Demand::batched(DemandKind::Watchlist, 50, 900),
        ]
    }

    #[test]
    fn wishes_that_fit_are_kept() {
        let plan = plan(&demands(), 100_000, 100_000, MONTH_SECS);
        assert!(!plan.is_spaced_out(), "{plan:?}");
        assert_eq!(plan.every_secs(DemandKind::AskAlerts), Some(60));
        // 43,200 alert checks + 720 x 3 portfolio batches + 2,880 watchlist calls.
        assert_eq!(plan.wished_calls, 43_200 + 2_160 + 2_880);
        assert_eq!(plan.planned_calls, plan.wished_calls);
        assert_eq!(plan.note(), None);
    }

    #[test]
    fn a_small_budget_spaces_every_demand_out_by_one_factor_and_fits() {
        let plan = plan(&demands(), 10_000, 10_000, MONTH_SECS);
        assert!(plan.is_spaced_out());
        assert!(plan.planned_calls <= 9_000, "{plan:?}");
        // Most of what is usable is used: it is not spaced out more than needed.
        assert!(plan.planned_calls >= 8_800, "{plan:?}");
        let alerts = plan.every_secs(DemandKind::AskAlerts).unwrap();
        assert!((300..=900).contains(&alerts), "{alerts}");
        let portfolio = plan.every_secs(DemandKind::Portfolio).unwrap();
        assert!(portfolio > 3_600 * 5, "{portfolio}");
        let note = plan.note().unwrap();
        assert!(note.contains("ask alerts every"), "{note}");
        assert!(plan.forecast(1_000) <= 10_000);
    }

    #[test]
    fn intervals_never_fall_under_a_minute_and_a_spent_budget_pauses_with_a_reason() {
        let fast = [Demand::batched(DemandKind::AskAlerts, 1, 5)];
        let plan_fast = plan(&fast, 1_000_000, 1_000_000, MONTH_SECS);
        assert_eq!(plan_fast.every_secs(DemandKind::AskAlerts), Some(60));

        let spent = plan(&demands(), 0, 10_000, MONTH_SECS);
        assert!(spent.demands.iter().all(|p| p.every_secs.is_none()));
        assert_eq!(spent.planned_calls, 0);
        assert!(
            spent
                .note()
                .unwrap()
                .contains("paused until the month ends")
        );

        // Two calls left and three demands: one run of the cheap ones, the dear one paused.
        let tight = plan(&demands(), 2 + 1_000, 10_000, MONTH_SECS);
        assert!(tight.planned_calls <= 2, "{tight:?}");
        assert_eq!(tight.every_secs(DemandKind::Portfolio), None);
    }

    #[test]
    fn the_last_hour_of_a_month_runs_as_wished_when_the_budget_allows() {
        let plan = plan(&demands(), 500, 10_000, 3_600);
        assert_eq!(plan.every_secs(DemandKind::AskAlerts), Some(60));
        assert_eq!(plan.planned_calls, 60 + 3 + 4);
    }

    #[test]
    fn intervals_read_as_a_person_says_them() {
        assert_eq!(interval_text(45), "45 s");
        assert_eq!(interval_text(60), "1 min");
        assert_eq!(interval_text(90 * 60), "1 h 30 min");
        assert_eq!(interval_text(3 * 86_400), "3 days");
    }
}
