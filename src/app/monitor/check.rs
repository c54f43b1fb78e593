//! The checker: one product's alerts checked against what the service's sources answer
//! (a real-time lookup of the resale market, the retailer or each store), the answers recorded
//! in the price history, and each alert fired, re-armed or left. Both schedules (`polling.rs`,
//! `plan.rs`) check through it, and every call it makes passes the [`super::SpendGate`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use super::{
    CALL_TIMES_KEPT, Permit, SOURCES_EVERY, Stall, TICK, Task, db_job, history_key, record_history,
};
use crate::figures::{
    AlertStep, alert_step, quotes_from_resale_a, quotes_from_retailer, quotes_from_store,
};
use crate::model::{Alert, AlertKind, RealtimeInfo, SizeQuote, StoreUrl};

impl Task {
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
    pub(super) async fn check(&mut self, alerts: &[Alert]) -> Result<(), Stall> {
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
            self.note_error(&err);
        }
        for alert in alerts {
            self.step(alert, &quotes).await;
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
                self.note_error(&err);
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

    /// Fires, re-arms or leaves `alert` on `quotes`.
    pub(super) async fn step(&mut self, alert: &Alert, quotes: &[SizeQuote]) {
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

    /// Each product's alerts of `alerts` checked in turn (one lookup of each source a product
    /// needs); a stall is said in the status and the next product is checked.
    pub(super) async fn check_products(&mut self, alerts: impl IntoIterator<Item = Alert>) {
        for alerts in by_product(alerts).values() {
            match self.check(alerts).await {
                Ok(()) => {}
                Err(Stall::Wait(_, why)) => self.handle.lock().status.waiting = Some(why),
                Err(Stall::Failed(err)) => {
                    self.note_error(&err);
                }
            }
        }
    }
}

/// `alerts` grouped by their product (catalogue id), in id order: a product is looked up once
/// for all its alerts.
pub(super) fn by_product(alerts: impl IntoIterator<Item = Alert>) -> BTreeMap<String, Vec<Alert>> {
    let mut grouped: BTreeMap<String, Vec<Alert>> = BTreeMap::new();
    for alert in alerts {
        grouped
            .entry(alert.spec.product.product_id.clone())
            .or_default()
            .push(alert);
    }
    grouped
}
