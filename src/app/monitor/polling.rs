//! The polling schedule, on a source without a monthly budget (the demo, a remote service):
//! each product with alerts checked every [`super::MonitorConfig::check_every`] as the gate
//! allows, the product due longest first; the flip list read as often.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::time::Instant;

use super::check::by_product;
use super::{Stall, TICK, Task, db_job};
use crate::client::ErrorKind;
use crate::userdb::UserDbError;

/// When each product (catalogue id) is next due.
#[derive(Debug, Default)]
pub(super) struct Polling {
    next_check: HashMap<String, Instant>,
}

impl Task {
    /// One step of the polling schedule: the product due first checked, or a wait of at most
    /// [`TICK`]. `Break` when the user database is closed (the app is ending).
    pub(super) async fn poll_once(&mut self) -> ControlFlow<()> {
        self.flips_when_due().await;
        let alerts = match db_job(&self.db, |db| db.alerts()).await {
            Ok(alerts) => alerts,
            Err(err) => {
                self.note_error(&err);
                if matches!(err, UserDbError::Closed) {
                    return ControlFlow::Break(());
                }
                tokio::time::sleep(TICK).await;
                return ControlFlow::Continue(());
            }
        };
        let mut by_product = by_product(alerts);
        let now = Instant::now();
        let due = by_product
            .keys()
            .map(|id| (self.polling.next_check.get(id).copied().unwrap_or(now), id))
            .min();
        let Some((due_at, product_id)) = due else {
            tokio::time::sleep(TICK).await;
            return ControlFlow::Continue(());
        };
        if due_at > now {
            tokio::time::sleep((due_at - now).min(TICK)).await;
            return ControlFlow::Continue(());
        }
        let product_id = product_id.clone();
        let alerts = by_product.remove(&product_id).unwrap_or_default();
        let every = self.config.check_every;
        match self.check(&alerts).await {
            Ok(()) => {
                self.polling
                    .next_check
                    .insert(product_id, Instant::now() + every);
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
                        self.polling.next_check.insert(product_id, now + every);
                    }
                }
                self.handle.lock().status.last_error = Some(err.user_text());
            }
        }
        ControlFlow::Continue(())
    }
}
