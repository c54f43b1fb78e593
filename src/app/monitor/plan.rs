//! The monitor on a source with a monthly budget of calls (a KicksDB key): it plans, it does
//! not poll. Each round it reads the budget (`GET /api/v2/budget`), the alerts and what else is
//! to be priced on a schedule, asks the planner (`model::budget::plan`) for intervals that
//! keep the month inside the budget (never under a minute), and runs what is due:
//!
//! - **ask alerts:** every alerted style code in one batched request per 50
//!   (`GET /api/v2/prices`, one upstream call per 50), compared size by size;
//! - **bid alerts:** a real-time lookup per product (only real-time answers carry bids),
//!   within the per-minute share of [`super::SpendGate`];
//! - **stock alerts:** the retailer, which costs no KicksDB call, with the ask alerts;
//! - **the portfolio and the watchlist**, when asked for ([`PlanConfig`]): their style codes
//!   priced the same batched way, recorded in the price history;
//! - **the flip list's price scans**, while the flip alerts are on: every style code in stock at
//!   the stores, ceil(codes / 50) calls per market, asked of the service (`super::flips`); the
//!   list itself is read every round, which costs nothing and reads no store.
//!
//! When the wishes do not fit the month, every interval is stretched by one factor and the
//! status says so ([`PlanStatus::note`]); an alert's status says how often it is checked. A
//! source without a monthly budget (the demo) is checked as before, every `check_every`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::{Task, db_job, history_key};
use crate::client::ClientError;
use crate::figures::quotes_from_prices;
use crate::model::budget::{BudgetSettingsCell, BudgetStatus, Demand, DemandKind, Plan, plan};
use crate::model::portfolio::sku_key;
use crate::model::prices::CodePrices;
use crate::model::{Alert, AlertKind, Country, SizeQuote};

/// What the monitor runs on a schedule besides the alerts, and how often it is wished.
#[derive(Debug, Clone)]
pub struct PlanConfig {
    /// How often the alerts are wished checked (planned no faster than once a minute).
    pub alerts_every: Duration,
    /// Price the portfolio's held style codes this often, into the price history.
    pub portfolio_every: Option<Duration>,
    /// Price the watchlist's style codes this often, into the price history.
    pub watchlist_every: Option<Duration>,
    /// How often the flip list's prices are wished scanned while the flip alerts are on.
    pub flips_every: Duration,
    /// The budget settings the in-process service reads: set from the user database's each
    /// round, so a change made in the window's Settings reaches a running headless monitor.
    pub budget_settings: Option<BudgetSettingsCell>,
}

impl Default for PlanConfig {
    fn default() -> Self {
        Self {
            alerts_every: Duration::from_secs(60),
            portfolio_every: None,
            watchlist_every: None,
            flips_every: Duration::from_secs(30 * 60),
            budget_settings: None,
        }
    }
}

/// What the window shows of the plan.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanStatus {
    /// The source's budget as last read.
    pub budget: Option<BudgetStatus>,
    /// The plan in force.
    pub plan: Option<Plan>,
    /// How often each alert is checked now, in seconds (`None`: paused until the month ends).
    pub alert_every_secs: Option<u64>,
    /// What the month will have spent at its end at these intervals.
    pub forecast_calls: Option<u64>,
    /// Why the checks are spaced out, when they are.
    pub note: Option<String>,
}

/// What one round did (for a driver that runs the monitor on a clock of its own).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoundReport {
    /// Whether the source has a monthly budget (else the monitor checks as before).
    pub metered: bool,
    /// What ran.
    pub ran: Vec<DemandKind>,
    /// The alerts whose prices came in fresh this round (not kept from earlier).
    pub alerts_checked: Vec<i64>,
    /// When the next run is due.
    pub next_due: Option<DateTime<Utc>>,
}

/// The planned schedule's state: when each demand last ran, and the stock alerts.
#[derive(Debug, Default)]
pub(super) struct Planner {
    last_run: HashMap<DemandKind, DateTime<Utc>>,
    /// When the stock alerts were last checked (they are not planned: they cost no call).
    stock_checked_at: Option<DateTime<Utc>>,
}

impl Planner {
    fn due(&self, kind: DemandKind, every_secs: u64, now: DateTime<Utc>) -> bool {
        self.last_run.get(&kind).is_none_or(|last| {
            // A clock set back: the last run is in the future; run now and start again.
            *last > now || now.signed_duration_since(*last).num_seconds() >= every_secs as i64
        })
    }

    fn next_due(&self, plan: &Plan, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        plan.demands
            .iter()
            .filter_map(|p| {
                let every = p.every_secs?;
                Some(self.last_run.get(&p.demand.kind).map_or(now, |last| {
                    (*last + chrono::Duration::seconds(every as i64)).max(now)
                }))
            })
            .min()
    }
}

/// Distinct style codes (by [`sku_key`]), as first written.
fn distinct_codes<'a>(codes: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    codes
        .filter(|code| !code.trim().is_empty() && seen.insert(sku_key(code)))
        .map(str::to_owned)
        .collect()
}

/// Whether an alert is checked through the batched prices: an ask alert on a style code.
fn batched(alert: &Alert) -> bool {
    alert.spec.kind == AlertKind::AskAtOrBelow && !alert.spec.product.style_code.trim().is_empty()
}

/// Whether an alert needs a real-time lookup: a bid alert, or an ask alert without a code.
fn realtime(alert: &Alert) -> bool {
    alert.spec.kind == AlertKind::BidAtOrAbove
        || (alert.spec.kind == AlertKind::AskAtOrBelow && !batched(alert))
}

/// The source name of prices the service kept from earlier (`X-Solescope-Source`).
const KEPT_SOURCE: &str = "kicksdb-mirror";

fn secs(duration: Duration) -> u64 {
    duration.as_secs().max(1)
}

/// What a round is to keep priced, as the user database has it now.
struct Wishes {
    alerts: Vec<Alert>,
    portfolio_codes: Vec<String>,
    watchlist_codes: Vec<String>,
    flips_on: bool,
}

impl Wishes {
    /// What each wish costs and how often it is wished, for the planner (the flip scans
    /// first, then the alerts, the portfolio and the watchlist).
    fn demands(&self, config: &PlanConfig, calls_per_scan: u64) -> Vec<Demand> {
        let ask_codes = self.ask_codes();
        let realtime_products: BTreeSet<&str> = self
            .alerts
            .iter()
            .filter(|a| realtime(a))
            .map(|a| a.spec.product.product_id.as_str())
            .collect();
        let alerts_every = secs(config.alerts_every);
        let mut demands = Vec::new();
        if self.flips_on {
            demands.push(Demand {
                kind: DemandKind::FlipScan,
                calls_per_run: calls_per_scan,
                wished_every_secs: secs(config.flips_every),
            });
        }
        if !ask_codes.is_empty() {
            demands.push(Demand::batched(
                DemandKind::AskAlerts,
                ask_codes.len(),
                alerts_every,
            ));
        }
        if !realtime_products.is_empty() {
            demands.push(Demand {
                kind: DemandKind::RealtimeAlerts,
                calls_per_run: realtime_products.len() as u64,
                wished_every_secs: alerts_every,
            });
        }
        let lists = [
            (
                DemandKind::Portfolio,
                config.portfolio_every,
                &self.portfolio_codes,
            ),
            (
                DemandKind::Watchlist,
                config.watchlist_every,
                &self.watchlist_codes,
            ),
        ];
        for (kind, every, codes) in lists {
            if let Some(every) = every
                && !codes.is_empty()
            {
                demands.push(Demand::batched(kind, codes.len(), secs(every)));
            }
        }
        demands
    }

    /// The distinct style codes of the ask alerts (priced in batches).
    fn ask_codes(&self) -> Vec<String> {
        distinct_codes(
            self.alerts
                .iter()
                .filter(|a| batched(a))
                .map(|a| a.spec.product.style_code.as_str()),
        )
    }

    /// The stock alerts: they cost no KicksDB call, so they are not planned.
    fn stock_alerts(&self) -> impl Iterator<Item = &Alert> {
        self.alerts
            .iter()
            .filter(|a| a.spec.kind == AlertKind::BackInStock)
    }
}

impl Task {
    /// One planned round at the clock's now; `Ok(None)` when the source has no monthly budget
    /// (the caller polls instead).
    pub(super) async fn planned_round(&mut self) -> Result<Option<RoundReport>, ClientError> {
        self.share_budget_settings().await;
        let Some(budget) = self.client.budget().await? else {
            return Ok(None);
        };
        let now = self.clock.now();
        let wishes = self.wishes().await;
        let demands = wishes.demands(&self.plan_config, self.flips.calls_per_scan);
        let plan = plan(
            &demands,
            budget.calls_left,
            budget.allowance,
            budget.secs_left,
        );
        let mut report = RoundReport {
            metered: true,
            ..RoundReport::default()
        };
        self.run_due(&plan, &wishes, now, &mut report).await;
        // The flip list is read every round (free); a scan is asked for when it is due.
        if wishes.flips_on {
            self.read_flips_planned().await;
        }
        let stock_checked = self.check_stock_when_due(&wishes, now).await;
        report.next_due = self.planner.next_due(&plan, now);
        if let Some(stock_due) = self.stock_due(&wishes, now) {
            report.next_due = Some(report.next_due.map_or(stock_due, |due| due.min(stock_due)));
        }
        self.publish_plan(plan, budget, &report, stock_checked);
        Ok(Some(report))
    }

    /// The budget settings of the user database handed to the in-process service, so a
    /// change made in the window's Settings reaches a running headless monitor.
    async fn share_budget_settings(&self) {
        if let Some(cell) = self.plan_config.budget_settings.clone() {
            match db_job(&self.db, |db| db.budget_settings()).await {
                Ok(settings) => cell.set(settings),
                Err(err) => self.note_error(&err),
            }
        }
    }

    /// What the user database asks to keep priced now (an unreadable part is said in the
    /// status and left out).
    async fn wishes(&self) -> Wishes {
        let alerts = match db_job(&self.db, |db| db.alerts()).await {
            Ok(alerts) => alerts,
            Err(err) => {
                self.note_error(&err);
                Vec::new()
            }
        };
        let portfolio_codes = match self.plan_config.portfolio_every {
            Some(_) => self.portfolio_codes().await,
            None => Vec::new(),
        };
        let watchlist_codes = match self.plan_config.watchlist_every {
            Some(_) => self.watchlist_codes().await,
            None => Vec::new(),
        };
        Wishes {
            alerts,
            portfolio_codes,
            watchlist_codes,
            flips_on: self.flip_alerts_on().await,
        }
    }

    /// Runs each planned demand that is due at `now`, into `report`.
    async fn run_due(
        &mut self,
        plan: &Plan,
        wishes: &Wishes,
        now: DateTime<Utc>,
        report: &mut RoundReport,
    ) {
        for planned in &plan.demands {
            let Some(every) = planned.every_secs else {
                continue;
            };
            let kind = planned.demand.kind;
            if !self.planner.due(kind, every, now) {
                continue;
            }
            let alerts = &wishes.alerts;
            let outcome = match kind {
                DemandKind::AskAlerts => {
                    let batched_alerts: Vec<Alert> =
                        alerts.iter().filter(|a| batched(a)).cloned().collect();
                    self.check_batched(&batched_alerts, now).await
                }
                DemandKind::RealtimeAlerts => {
                    let realtime_alerts: Vec<Alert> =
                        alerts.iter().filter(|a| realtime(a)).cloned().collect();
                    let ids = realtime_alerts.iter().map(|a| a.id).collect();
                    self.check_products(realtime_alerts).await;
                    Ok(ids)
                }
                DemandKind::Portfolio => self.record_prices(&wishes.portfolio_codes, now).await,
                DemandKind::Watchlist => self.record_prices(&wishes.watchlist_codes, now).await,
                DemandKind::FlipScan => {
                    self.flips.scan_due = true;
                    Ok(Vec::new())
                }
            };
            match outcome {
                Ok(checked) => report.alerts_checked.extend(checked),
                Err(err) => self.note_error(&err),
            }
            // Run, or tried: either way not again before its interval (a failure is said in
            // the status, and the month's budget is not spent retrying it).
            self.planner.last_run.insert(kind, now);
            report.ran.push(kind);
        }
    }

    /// The flip list read, with a price scan asked for when one was due this round.
    async fn read_flips_planned(&mut self) {
        let scan = if std::mem::take(&mut self.flips.scan_due) {
            crate::model::flips::FlipScan::Now
        } else {
            crate::model::flips::FlipScan::Planned
        };
        if let Err(err) = self.flip_round(Some(scan)).await {
            self.handle.lock().status.last_error = Some(err.user_text());
        }
    }

    /// How often the stock alerts are checked: at the monitor's own pace.
    fn stock_every(&self) -> chrono::Duration {
        chrono::Duration::from_std(self.config.check_every)
            .unwrap_or_else(|_| chrono::Duration::minutes(1))
    }

    /// The stock alerts checked at the retailer when their interval has passed; whether they
    /// were.
    async fn check_stock_when_due(&mut self, wishes: &Wishes, now: DateTime<Utc>) -> bool {
        let every = self.stock_every();
        let due = self
            .planner
            .stock_checked_at
            .is_none_or(|at| at > now || now - at >= every);
        if wishes.stock_alerts().next().is_none() || !due {
            return false;
        }
        self.check_products(wishes.stock_alerts().cloned()).await;
        self.planner.stock_checked_at = Some(now);
        true
    }

    /// When the stock alerts are next due (`None` without any).
    fn stock_due(&self, wishes: &Wishes, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        wishes.stock_alerts().next()?;
        let every = self.stock_every();
        Some(
            self.planner
                .stock_checked_at
                .map_or(now, |at| (at + every).max(now)),
        )
    }

    /// The plan in force, for the window.
    fn publish_plan(
        &self,
        plan: Plan,
        budget: BudgetStatus,
        report: &RoundReport,
        stock_checked: bool,
    ) {
        let note = plan.note();
        let mut shared = self.handle.lock();
        shared.plan = PlanStatus {
            alert_every_secs: plan
                .every_secs(DemandKind::AskAlerts)
                .or(plan.every_secs(DemandKind::RealtimeAlerts)),
            forecast_calls: Some(plan.forecast(budget.spent)),
            note: note.clone(),
            budget: Some(budget),
            plan: Some(plan),
        };
        if !report.ran.is_empty() || stock_checked {
            shared.status.checks += 1;
        }
        shared.status.waiting = note;
    }

    async fn portfolio_codes(&self) -> Vec<String> {
        match db_job(&self.db, crate::userdb::portfolio::holdings).await {
            Ok(holdings) => distinct_codes(
                holdings
                    .iter()
                    .filter(|h| h.sale.is_none())
                    .map(|h| h.pair.sku.as_str()),
            ),
            Err(err) => {
                self.note_error(&err);
                Vec::new()
            }
        }
    }

    async fn watchlist_codes(&self) -> Vec<String> {
        match db_job(&self.db, crate::userdb::watchlist::watchlist).await {
            Ok(rows) => distinct_codes(rows.iter().map(|row| row.sku.as_str())),
            Err(err) => {
                self.note_error(&err);
                Vec::new()
            }
        }
    }

    /// The batched prices of `codes`, grouped by the dataset of `currency_of` each.
    async fn priced(&self, codes: &[(String, Country)]) -> Result<Vec<CodePrices>, ClientError> {
        let mut by_country: BTreeMap<&str, (Country, Vec<String>)> = BTreeMap::new();
        for (code, country) in codes {
            by_country
                .entry(country.code())
                .or_insert_with(|| (*country, Vec::new()))
                .1
                .push(code.clone());
        }
        let mut all = Vec::new();
        for (country, codes) in by_country.into_values() {
            let answer = self.client.prices_of_all(&codes, country).await?;
            if !answer.missing.is_empty() {
                self.handle.lock().status.last_error = Some(format!(
                    "no price could be had for {}",
                    answer.missing.join(", ")
                ));
            }
            all.extend(answer.products);
        }
        Ok(all)
    }

    /// One batched check of the ask alerts: history recorded in one write, each alert stepped.
    /// Returns the alerts whose prices came in.
    async fn check_batched(
        &mut self,
        alerts: &[Alert],
        now: DateTime<Utc>,
    ) -> Result<Vec<i64>, ClientError> {
        let codes: Vec<(String, Country)> = {
            let mut seen = BTreeSet::new();
            alerts
                .iter()
                .filter(|a| {
                    seen.insert((sku_key(&a.spec.product.style_code), a.spec.currency.clone()))
                })
                .map(|a| {
                    (
                        a.spec.product.style_code.clone(),
                        Country::of_currency(&a.spec.currency).unwrap_or_default(),
                    )
                })
                .collect()
        };
        let prices = self.priced(&codes).await?;
        let by_code: HashMap<(String, String), Vec<SizeQuote>> = prices
            .iter()
            .map(|p| ((sku_key(&p.sku), p.currency.clone()), quotes_from_prices(p)))
            .collect();
        // Prices the service kept (KicksDB could not answer: its limit, the budget spent) are
        // compared too, but the alert was not checked against the market now.
        let fresh: BTreeSet<(String, String)> = prices
            .iter()
            .filter(|p| p.source != KEPT_SOURCE)
            .map(|p| (sku_key(&p.sku), p.currency.clone()))
            .collect();
        let history: Vec<(String, Vec<SizeQuote>)> = {
            let mut seen = BTreeSet::new();
            alerts
                .iter()
                .filter_map(|a| {
                    let key = (
                        sku_key(&a.spec.product.style_code),
                        a.spec.currency.to_ascii_uppercase(),
                    );
                    let quotes = by_code.get(&key)?;
                    seen.insert(key.clone())
                        .then(|| (history_key(&a.spec.product), quotes.clone()))
                })
                .collect()
        };
        let at = now.timestamp();
        if let Err(err) = db_job(&self.db, move |db| db.record_quotes_of(&history, at)).await {
            self.note_error(&err);
        }
        let mut checked = Vec::new();
        for alert in alerts {
            let key = (
                sku_key(&alert.spec.product.style_code),
                alert.spec.currency.to_ascii_uppercase(),
            );
            let Some(quotes) = by_code.get(&key) else {
                continue;
            };
            if fresh.contains(&key) {
                checked.push(alert.id);
            } else {
                self.handle.lock().status.last_error = Some(format!(
                    "{}: compared with prices kept from earlier; KicksDB did not price it now",
                    alert.spec.product.style_code
                ));
            }
            self.step(alert, quotes).await;
        }
        if !checked.is_empty() {
            self.gate.succeeded();
        }
        Ok(checked)
    }

    /// Prices `codes` (US) and records them in the history, in one write.
    async fn record_prices(
        &mut self,
        codes: &[String],
        now: DateTime<Utc>,
    ) -> Result<Vec<i64>, ClientError> {
        let wanted: Vec<(String, Country)> =
            codes.iter().map(|c| (c.clone(), Country::Us)).collect();
        let prices = self.priced(&wanted).await?;
        let history: Vec<(String, Vec<SizeQuote>)> = prices
            .iter()
            .map(|p| {
                (
                    crate::figures::product_key(&p.product_sku, &p.product_id),
                    quotes_from_prices(p),
                )
            })
            .collect();
        let at = now.timestamp();
        if let Err(err) = db_job(&self.db, move |db| db.record_quotes_of(&history, at)).await {
            self.note_error(&err);
        }
        Ok(Vec::new())
    }
}
