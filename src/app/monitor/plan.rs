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

use super::{Stall, Task, db_job, history_key};
use crate::client::ClientError;
use crate::figures::{AlertStep, alert_step, quotes_from_prices};
use crate::model::budget::{BudgetSettingsCell, BudgetStatus, Demand, DemandKind, Plan, plan};
use crate::model::portfolio::sku_key;
use crate::model::prices::CodePrices;
use crate::model::{Alert, AlertKind, Country, SizeQuote};
use crate::userdb::UserDbError;

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

/// When each demand last ran.
#[derive(Debug, Default)]
pub(super) struct Planner {
    last_run: HashMap<DemandKind, DateTime<Utc>>,
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

/// The dataset an alert's currency is priced in.
fn country_of(currency: &str) -> Country {
    Country::ALL
        .into_iter()
        .find(|c| c.currency().eq_ignore_ascii_case(currency))
        .unwrap_or_default()
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

impl Task {
    /// One planned round at the clock's now; `Ok(None)` when the source has no monthly budget
    /// (the caller checks as before).
    pub(super) async fn planned_round(&mut self) -> Result<Option<RoundReport>, ClientError> {
        if let Some(cell) = self.plan_config.budget_settings.clone() {
            match db_job(&self.db, |db| db.budget_settings()).await {
                Ok(settings) => cell.set(settings),
                Err(err) => self.note_error(&err),
            }
        }
        let Some(budget) = self.client.budget().await? else {
            return Ok(None);
        };
        let now = self.clock.now();
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
        let ask_codes = distinct_codes(
            alerts
                .iter()
                .filter(|a| batched(a))
                .map(|a| a.spec.product.style_code.as_str()),
        );
        let realtime_products: BTreeSet<&str> = alerts
            .iter()
            .filter(|a| realtime(a))
            .map(|a| a.spec.product.product_id.as_str())
            .collect();
        let alerts_every = secs(self.plan_config.alerts_every);
        let mut demands = Vec::new();
        let flips_on = self.flip_alerts_on().await;
        if flips_on {
            demands.push(Demand {
                kind: DemandKind::FlipScan,
                calls_per_run: self.flips.calls_per_scan,
                wished_every_secs: secs(self.plan_config.flips_every),
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
        if let Some(every) = self.plan_config.portfolio_every
            && !portfolio_codes.is_empty()
        {
            demands.push(Demand::batched(
                DemandKind::Portfolio,
                portfolio_codes.len(),
                secs(every),
            ));
        }
        if let Some(every) = self.plan_config.watchlist_every
            && !watchlist_codes.is_empty()
        {
            demands.push(Demand::batched(
                DemandKind::Watchlist,
                watchlist_codes.len(),
                secs(every),
            ));
        }
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
        // Stock alerts cost no KicksDB call: they ride with the ask alerts, or alone at the
        // wished interval.
        let stock_alerts: Vec<&Alert> = alerts
            .iter()
            .filter(|a| a.spec.kind == AlertKind::BackInStock)
            .collect();
        let ask_every = plan.every_secs(DemandKind::AskAlerts);
        for planned in &plan.demands {
            let Some(every) = planned.every_secs else {
                continue;
            };
            let kind = planned.demand.kind;
            if !self.planner.due(kind, every, now) {
                continue;
            }
            let outcome = match kind {
                DemandKind::AskAlerts => {
                    let batched_alerts: Vec<Alert> =
                        alerts.iter().filter(|a| batched(a)).cloned().collect();
                    self.check_batched(&batched_alerts, now).await
                }
                DemandKind::RealtimeAlerts => {
                    self.check_realtime(&alerts).await;
                    Ok(alerts
                        .iter()
                        .filter(|a| realtime(a))
                        .map(|a| a.id)
                        .collect())
                }
                DemandKind::Portfolio => self.record_prices(&portfolio_codes, now).await,
                DemandKind::Watchlist => self.record_prices(&watchlist_codes, now).await,
                DemandKind::FlipScan => {
                    self.flips.scan_due = true;
                    Ok(Vec::new())
                }
            };
            match outcome {
                Ok(checked) => report.alerts_checked.extend(checked),
                Err(err) => self.handle.lock().status.last_error = Some(format!("{err:#}")),
            }
            // Run, or tried: either way not again before its interval (a failure is said in
            // the status, and the month's budget is not spent retrying it).
            self.planner.last_run.insert(kind, now);
            report.ran.push(kind);
        }
        // The flip list is read every round (free); a scan is asked for when it is due.
        if flips_on {
            let scan = if std::mem::take(&mut self.flips.scan_due) {
                crate::model::flips::FlipScan::Now
            } else {
                crate::model::flips::FlipScan::Planned
            };
            if let Err(err) = self.flip_round(Some(scan)).await {
                self.handle.lock().status.last_error = Some(err.user_text());
            }
        }
        // Stock alerts cost no KicksDB call: checked at the monitor's own pace, not planned.
        let stock_every = chrono::Duration::from_std(self.config.check_every)
            .unwrap_or_else(|_| chrono::Duration::minutes(1));
        let mut stock_checked = false;
        if !stock_alerts.is_empty()
            && self
                .stock_checked_at
                .is_none_or(|at| at > now || now - at >= stock_every)
        {
            let stock: Vec<Alert> = stock_alerts.iter().map(|a| (*a).clone()).collect();
            self.check_stock(&stock).await;
            self.stock_checked_at = Some(now);
            stock_checked = true;
        }
        report.next_due = self.planner.next_due(&plan, now);
        if !stock_alerts.is_empty() {
            let stock_due = self
                .stock_checked_at
                .map_or(now, |at| (at + stock_every).max(now));
            report.next_due = Some(report.next_due.map_or(stock_due, |due| due.min(stock_due)));
        }
        let note = plan.note();
        {
            let mut shared = self.handle.lock();
            shared.plan = PlanStatus {
                alert_every_secs: ask_every.or(plan.every_secs(DemandKind::RealtimeAlerts)),
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
        Ok(Some(report))
    }

    fn note_error(&self, err: &UserDbError) {
        self.handle.lock().status.last_error = Some(format!("{err:#}"));
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
                        country_of(&a.spec.currency),
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

    /// Fires, re-arms or leaves `alert` on `quotes`.
    async fn step(&mut self, alert: &Alert, quotes: &[SizeQuote]) {
        match alert_step(alert, quotes) {
            AlertStep::Fire(hit) => self.fire(alert.clone(), hit).await,
            AlertStep::Rearm => {
                let id = alert.id;
                if let Err(err) = db_job(&self.db, move |db| db.rearm_alert(id)).await {
                    self.note_error(&err);
                }
            }
            AlertStep::Stay => {}
        }
    }

    /// The real-time checks: per product, its bid alerts (and ask alerts without a style code).
    async fn check_realtime(&mut self, alerts: &[Alert]) {
        let mut by_product: BTreeMap<String, Vec<Alert>> = BTreeMap::new();
        for alert in alerts.iter().filter(|a| realtime(a)) {
            by_product
                .entry(alert.spec.product.product_id.clone())
                .or_default()
                .push(alert.clone());
        }
        for alerts in by_product.values() {
            match self.check(alerts).await {
                Ok(()) => {}
                Err(Stall::Wait(_, why)) => self.handle.lock().status.waiting = Some(why),
                Err(Stall::Failed(err)) => {
                    self.handle.lock().status.last_error = Some(format!("{err:#}"));
                }
            }
        }
    }

    /// The stock checks at the retailer (no KicksDB call), per product.
    async fn check_stock(&mut self, alerts: &[Alert]) {
        let mut by_product: BTreeMap<String, Vec<Alert>> = BTreeMap::new();
        for alert in alerts {
            by_product
                .entry(alert.spec.product.product_id.clone())
                .or_default()
                .push(alert.clone());
        }
        for alerts in by_product.values() {
            if let Err(Stall::Failed(err)) = self.check(alerts).await {
                self.handle.lock().status.last_error = Some(format!("{err:#}"));
            }
        }
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
