//! The flip alerts in the monitor. Each round, while the user's flip alerts are on, it reads
//! the flip list above the user's thresholds and in their sizes (the list in hand: no store is
//! read for it and no KicksDB call made), records the reading in the user database, which says
//! what to notify ([`crate::userdb::flips`]: a new flip once; again only after it went and came
//! back, or its profit rose by the set share; never twice for the same size at the same store
//! and prices), and shows those notifications.
//!
//! On a source with a monthly budget (KicksDB) the list's price scans are planned here with the
//! alerts, the portfolio and the watchlist (`plan.rs`, [`DemandKind::FlipScan`]): a scan costs
//! ceil(codes / 50) batched calls per market, as the last answer counts the codes in stock. The
//! monitor asks the service for a scan (`scan=now`) when the plan says it is due, and says
//! between scans that they are planned (`scan=planned`), so the service runs none of its own.
//!
//! [`DemandKind::FlipScan`]: crate::model::budget::DemandKind::FlipScan

use std::sync::Arc;
use std::time::Instant;

use super::{MonitorDriver, MonitorHandle, Task, db_job};
use crate::client::ClientError;
use crate::model::flip_prefs::{FlipNotice, FlipSighting};
use crate::model::flips::{FlipScan, FlipsAnswer, MAX_FLIPS_LIMIT};
use crate::model::prices::MAX_PRICE_CODES;

/// Notifications shown one by one for a reading; past that, the rest are summed up in one.
pub const NOTICES_SHOWN_ONE_BY_ONE: usize = 5;
/// Pages of the list read at most per reading (10,000 rows): a longer list is read in part,
/// and an incomplete reading marks no flip gone.
pub const MAX_PAGES_READ: u64 = 100;
/// Notices kept for the window until it takes them (the oldest dropped past it).
const NOTICES_KEPT: usize = 500;

/// The monitor's side of the flip alerts.
#[derive(Debug, Default)]
pub(super) struct FlipWatch {
    /// Batched calls one scan costs, as the last answer counted the codes.
    pub(super) calls_per_scan: u64,
    /// When the list was last read without a monthly budget.
    last_unmetered: Option<Instant>,
    /// The plan says a scan is due this round.
    pub(super) scan_due: bool,
}

/// What the window sees of the flip alerts.
#[derive(Debug, Default)]
pub(super) struct FlipShared {
    notices: Vec<FlipNotice>,
    last: Option<FlipRoundReport>,
}

/// What one reading of the flip list did.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "a report of independent yes/no facts about one reading, read by tests and the status"
)]
pub struct FlipRoundReport {
    /// The user's flip alerts are on (else nothing was read).
    pub enabled: bool,
    /// What the reading asked of the service's price scans.
    pub scan: Option<FlipScan>,
    /// The list was read (it was not still being built).
    pub read: bool,
    /// Every row was read from one build of the list.
    pub complete: bool,
    /// Rows read.
    pub rows: usize,
    /// Flips notified.
    pub notified: usize,
    /// The reading was the baseline after the alerts were turned on (nothing notified).
    pub baseline: bool,
    /// When the list read was built.
    pub as_of: Option<String>,
    /// Batched calls a scan of the list costs (ceil(codes / 50) per market).
    pub calls_per_scan: u64,
}

/// Batched calls a scan of `answer`'s codes costs: ceil(codes / 50) per market.
#[must_use]
pub fn calls_per_scan(answer: &FlipsAnswer) -> u64 {
    answer
        .markets
        .iter()
        .map(|market| u64::from(market.codes).div_ceil(MAX_PRICE_CODES as u64))
        .sum()
}

impl Task {
    /// Whether the user's flip alerts are on (off when the settings cannot be read).
    pub(super) async fn flip_alerts_on(&self) -> bool {
        match db_job(&self.db, |db| db.flip_prefs()).await {
            Ok(prefs) => prefs.alerts,
            Err(err) => {
                self.note_error(&err);
                false
            }
        }
    }

    /// One reading of the flip list for the alerts, asking `scan` of the service's price scans.
    pub(super) async fn flip_round(
        &mut self,
        scan: Option<FlipScan>,
    ) -> Result<FlipRoundReport, ClientError> {
        let settings = db_job(&self.db, |db| Ok((db.flip_prefs()?, db.my_sizes()?))).await;
        let (prefs, sizes) = match settings {
            Ok(settings) => settings,
            Err(err) => {
                self.note_error(&err);
                return Ok(FlipRoundReport::default());
            }
        };
        let mut report = FlipRoundReport {
            enabled: prefs.alerts,
            scan,
            ..FlipRoundReport::default()
        };
        if !prefs.alerts {
            return Ok(report);
        }
        let mut request = prefs.request(&sizes, 1, MAX_FLIPS_LIMIT);
        request.scan = scan;
        let first = self.client.flips(&request).await?;
        if first.building {
            // A list still being built counts no code: what a scan costs stays as last read.
            report.calls_per_scan = self.flips.calls_per_scan;
            return Ok(report);
        }
        self.flips.calls_per_scan = calls_per_scan(&first);
        report.calls_per_scan = self.flips.calls_per_scan;
        report.read = true;
        report.as_of.clone_from(&first.as_of);
        let pages = first.total.div_ceil(u64::from(MAX_FLIPS_LIMIT));
        let mut complete = pages <= MAX_PAGES_READ;
        let mut rows = first.flips;
        // The pages after the first ask for no scan again.
        request.scan = scan.map(|_| FlipScan::Planned);
        for page in 2..=pages.min(MAX_PAGES_READ) {
            request.page = Some(u32::try_from(page).unwrap_or(u32::MAX));
            match self.client.flips(&request).await {
                Ok(answer) if answer.as_of == first.as_of && answer.total == first.total => {
                    rows.extend(answer.flips);
                }
                // Built again meanwhile: read whole next round.
                Ok(_) => {
                    complete = false;
                    break;
                }
                Err(err) => {
                    self.handle.lock().status.last_error = Some(err.user_text());
                    complete = false;
                    break;
                }
            }
        }
        let sightings: Vec<FlipSighting> = rows.iter().map(FlipSighting::of).collect();
        report.rows = sightings.len();
        report.complete = complete;
        let now = self.clock.now().timestamp();
        let recorded = db_job(&self.db, move |db| {
            db.record_flip_reading(&sightings, complete, now)
        })
        .await;
        match recorded {
            Ok(reading) => {
                report.baseline = reading.baseline;
                report.notified = reading.notices.len();
                self.show_flips(reading.notices).await;
            }
            // Nothing was recorded, so nothing is shown: the next reading tries again.
            Err(err) => self.note_error(&err),
        }
        self.handle.lock().flips.last = Some(report.clone());
        Ok(report)
    }

    /// Shows `notices` (each recorded already): one notification each, or the first few and
    /// one for the rest; and hands them to the window.
    async fn show_flips(&self, notices: Vec<FlipNotice>) {
        if notices.is_empty() {
            return;
        }
        let notifier = Arc::clone(&self.notifier);
        let shown = notices.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let one_by_one = if shown.len() > NOTICES_SHOWN_ONE_BY_ONE {
                NOTICES_SHOWN_ONE_BY_ONE - 1
            } else {
                shown.len()
            };
            let (each, rest) = shown.split_at(one_by_one);
            for notice in each {
                notifier.notify_flips(std::slice::from_ref(notice))?;
            }
            if !rest.is_empty() {
                notifier.notify_flips(rest)?;
            }
            Ok::<(), crate::app::notify::NotifyError>(())
        })
        .await;
        if let Ok(Err(err)) = outcome {
            tracing::warn!("flip notification not shown: {err:#}");
        }
        let mut shared = self.handle.lock();
        let kept = &mut shared.flips.notices;
        kept.extend(notices);
        let over = kept.len().saturating_sub(NOTICES_KEPT);
        kept.drain(..over);
    }

    /// Without a monthly budget: a reading every `check_every` (called every loop).
    pub(super) async fn flips_when_due(&mut self) {
        if self
            .flips
            .last_unmetered
            .is_some_and(|at| at.elapsed() < self.config.check_every)
        {
            return;
        }
        self.flips.last_unmetered = Some(Instant::now());
        if let Err(err) = self.flip_round(None).await {
            self.handle.lock().status.last_error = Some(err.user_text());
        }
    }
}

impl MonitorHandle {
    /// The flips notified since the last call, oldest first (the window's badge and list).
    pub fn take_flip_notices(&self) -> Vec<FlipNotice> {
        std::mem::take(&mut self.lock().flips.notices)
    }

    /// The last reading of the flip list, once there was one.
    pub fn last_flip_round(&self) -> Option<FlipRoundReport> {
        self.lock().flips.last.clone()
    }
}

impl MonitorDriver {
    /// One reading of the flip list, as the monitor makes it between scans (no scan asked).
    ///
    /// # Errors
    /// The list could not be read from the service.
    pub async fn flip_round(&mut self) -> Result<FlipRoundReport, ClientError> {
        self.task.flip_round(None).await
    }
}
