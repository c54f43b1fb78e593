//! The app's side of the Flips tab: the user's flip settings and sizes read from the user
//! database and saved back (a moment after the last edit, off the UI thread), the list fetched
//! through the client (every page of one build, with the user's costs, fees and thresholds as
//! the query), asked again every [`REFRESH_SECS`] while the tab is open, and the flips the
//! monitor notified (the tab's badge and its "notified lately" list).
//!
//! The fee rates the flips use are the payout calculator's when the user made them their own
//! (its preset is `custom`): kept in step with the settings here, so `solescope monitor`, which
//! has no window state, reckons with the same rates.

use std::time::{Duration, Instant};

use poll_promise::Promise;

use super::{App, Requested, View};
use crate::client::{Client, ClientError};
use crate::model::flip_prefs::{FlipNotice, FlipPrefs};
use crate::model::flips::{FeeSchedule, FlipsRequest, MAX_FLIPS_LIMIT};
use crate::ui;
use crate::ui::flips::{FlipsList, FlipsOrder};
use crate::ui::market::FeePreset;
use crate::userdb::UserDbError;

/// How often the list is asked again while the tab is open (it costs no upstream call).
pub const REFRESH_SECS: f64 = 30.0;
/// How soon the list is asked again while the service is still building it.
const BUILDING_RETRY_SECS: f64 = 1.0;
/// How long after the last edit the settings are saved and the list asked again.
const EDIT_PAUSE_SECS: f64 = 0.4;
/// Pages read at most (10,000 rows).
const MAX_PAGES: u64 = 100;
/// Notified flips listed in the tab.
const NOTICES_LISTED: u32 = 50;

type Saved = (FlipPrefs, Vec<String>, Vec<FlipNotice>);

/// The Flips tab's state in the app.
pub(super) struct FlipsState {
    /// Whether the app has a user database at all (else nothing is kept).
    has_db: bool,
    prefs: Option<FlipPrefs>,
    sizes: Option<Vec<String>>,
    notices: Vec<FlipNotice>,
    loading: Option<Promise<Result<Saved, UserDbError>>>,
    notices_loading: Option<Promise<Result<Vec<FlipNotice>, UserDbError>>>,
    saving: Vec<Promise<Result<(), UserDbError>>>,
    error: Option<String>,
    /// When the settings were last edited (egui time), until saved.
    prefs_edited_at: Option<f64>,
    sizes_edited_at: Option<f64>,
    list: Requested<FlipsList>,
    /// The query of the list in hand (or in flight).
    asked: Option<Vec<(&'static str, String)>>,
    asked_at: f64,
    received_at: Option<Instant>,
    generation: u64,
    order: FlipsOrder,
    /// Flips notified since the tab was last open.
    badge: usize,
}

impl FlipsState {
    pub(super) fn new(has_db: bool) -> Self {
        Self {
            has_db,
            prefs: None,
            sizes: None,
            notices: Vec::new(),
            loading: None,
            notices_loading: None,
            saving: Vec::new(),
            error: None,
            prefs_edited_at: None,
            sizes_edited_at: None,
            list: Requested::NotYetRequested,
            asked: None,
            asked_at: 0.0,
            received_at: None,
            generation: 0,
            order: FlipsOrder::default(),
            badge: 0,
        }
    }

    /// Whether a fetch or a database job is in flight.
    pub(super) fn is_pending(&self) -> bool {
        self.list.is_pending()
            || self.loading.is_some()
            || self.notices_loading.is_some()
            || !self.saving.is_empty()
    }
}

/// Every page of the list `request` asks for, from one build: read again (twice at most) when
/// the list was rebuilt while its pages were read, else kept as a part and said so.
async fn fetch_list(client: Client, request: FlipsRequest) -> Result<FlipsList, ClientError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let mut answer = client.flips(&request).await?;
        let pages = answer.total.div_ceil(u64::from(MAX_FLIPS_LIMIT));
        let mut complete = pages <= MAX_PAGES;
        for page in 2..=pages.min(MAX_PAGES) {
            let next = FlipsRequest {
                page: Some(u32::try_from(page).unwrap_or(u32::MAX)),
                ..request.clone()
            };
            let more = client.flips(&next).await?;
            if more.as_of != answer.as_of || more.total != answer.total {
                complete = false;
                break;
            }
            answer.flips.extend(more.flips);
        }
        if complete || attempt >= 3 || pages > MAX_PAGES {
            return Ok(FlipsList { answer, complete });
        }
    }
}

impl App {
    /// The flip settings as read from the user database (the defaults without one), once read.
    #[must_use]
    pub fn flip_prefs(&self) -> Option<&FlipPrefs> {
        self.flips.prefs.as_ref()
    }

    /// The Flips tab's list, once fetched.
    #[must_use]
    pub fn flips_list(&self) -> Option<&FlipsList> {
        self.flips.list.value()
    }

    /// Flips notified since the Flips tab was last open.
    #[must_use]
    pub fn flips_badge(&self) -> usize {
        self.flips.badge
    }

    /// Whether a screenshot of the Flips tab may be taken: its list is in and built.
    pub(super) fn flips_settled(&self) -> bool {
        self.state.view != View::Flips
            || (!self.flips.is_pending()
                && self
                    .flips
                    .list
                    .value()
                    .is_some_and(|list| !list.answer.building))
    }

    /// The query the tab asks with now.
    fn flips_request(&self) -> Option<FlipsRequest> {
        let prefs = self.flips.prefs.as_ref()?;
        let sizes: &[String] = if self.state.flips.my_sizes_only {
            self.flips.sizes.as_deref().unwrap_or_default()
        } else {
            &[]
        };
        Some(prefs.request(sizes, 1, MAX_FLIPS_LIMIT))
    }

    /// Per frame: reads the settings once, takes in finished jobs, keeps the fees in step with
    /// the payout calculator, saves edits after a pause, takes the monitor's notices, and asks
    /// for the list while the tab is open.
    pub(super) fn flips_tick(&mut self, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        let db = self.alerts_db();
        let flips = &mut self.flips;
        if flips.prefs.is_none() && flips.loading.is_none() {
            match &db {
                Some(db) => {
                    flips.loading = Some(db.run(|db| {
                        Ok((
                            db.flip_prefs()?,
                            db.my_sizes()?,
                            db.flip_notices(NOTICES_LISTED)?,
                        ))
                    }));
                }
                None if !flips.has_db => {
                    flips.prefs = Some(FlipPrefs::default());
                    flips.sizes = Some(Vec::new());
                    flips.error =
                        Some("No user database: your flip settings are not kept.".to_owned());
                }
                None => {}
            }
        }
        if let Some(loading) = flips.loading.take() {
            match loading.try_take() {
                Ok(Ok((prefs, sizes, notices))) => {
                    flips.prefs = Some(prefs);
                    flips.sizes = Some(sizes);
                    flips.notices = notices;
                }
                Ok(Err(err)) => {
                    flips.error = Some(format!("Your flip settings could not be read: {err:#}"));
                    flips.prefs = Some(FlipPrefs::default());
                    flips.sizes = Some(Vec::new());
                }
                Err(still) => flips.loading = Some(still),
            }
        }
        if let Some(loading) = flips.notices_loading.take() {
            match loading.try_take() {
                Ok(Ok(notices)) => flips.notices = notices,
                Ok(Err(err)) => flips.error = Some(format!("{err:#}")),
                Err(still) => flips.notices_loading = Some(still),
            }
        }
        for saving in std::mem::take(&mut flips.saving) {
            match saving.try_take() {
                Ok(Ok(())) => {}
                Ok(Err(err)) => {
                    flips.error = Some(format!("Your flip settings could not be saved: {err:#}"));
                }
                Err(still) => flips.saving.push(still),
            }
        }
        // The flips' fees follow the payout calculator: its own rates when the user typed them.
        let payout = &self.state.payout;
        let own = (payout.preset == FeePreset::Custom).then(|| FeeSchedule {
            commission_percent: payout.rates.commission_percent,
            processing_percent: payout.rates.processing_percent,
            fixed_fee_cents: (payout.rates.fixed_fee * 100.0).round() as i64,
        });
        if let Some(prefs) = &mut flips.prefs
            && prefs.own_fees != own
            && flips.loading.is_none()
        {
            prefs.own_fees = own;
            flips.prefs_edited_at.get_or_insert(now);
        }
        if let Some(db) = &db {
            if flips
                .prefs_edited_at
                .is_some_and(|at| now - at >= EDIT_PAUSE_SECS)
                && let Some(prefs) = flips.prefs.clone()
            {
                flips.prefs_edited_at = None;
                flips
                    .saving
                    .push(db.run(move |db| db.set_flip_prefs(&prefs)));
            }
            if flips
                .sizes_edited_at
                .is_some_and(|at| now - at >= EDIT_PAUSE_SECS)
                && let Some(sizes) = flips.sizes.clone()
            {
                flips.sizes_edited_at = None;
                flips.saving.push(db.run(move |db| db.set_my_sizes(&sizes)));
            }
        }
        let was_pending = flips.list.is_pending();
        flips.list.poll();
        if was_pending && !flips.list.is_pending() {
            flips.received_at = Some(Instant::now());
            flips.generation += 1;
        }
        // What the monitor notified: the badge, and the list read again.
        let notified = self
            .alert_monitor()
            .map(super::monitor::MonitorHandle::take_flip_notices)
            .unwrap_or_default();
        if !notified.is_empty() {
            if self.state.view != View::Flips {
                self.flips.badge += notified.len();
            }
            if let Some(db) = &db {
                self.flips.notices_loading = Some(db.run(|db| db.flip_notices(NOTICES_LISTED)));
            }
        }
        if self.state.view == View::Flips {
            self.flips.badge = 0;
            self.flips_fetch_when_due(ctx, now);
        }
        if self.flips.is_pending() || self.flips.prefs_edited_at.is_some() {
            ctx.request_repaint_after(Duration::from_millis(100));
        }
    }

    /// Asks for the list when the query changed (after the edit pause), when the list in hand
    /// is older than [`REFRESH_SECS`], or while the service is still building it.
    fn flips_fetch_when_due(&mut self, ctx: &egui::Context, now: f64) {
        let Some(client) = self.client.clone() else {
            return;
        };
        let editing = [self.flips.prefs_edited_at, self.flips.sizes_edited_at]
            .into_iter()
            .flatten()
            .any(|at| now - at < EDIT_PAUSE_SECS);
        let Some(request) = self.flips_request() else {
            return;
        };
        let query = request.query_pairs();
        let flips = &mut self.flips;
        if flips.list.is_pending() || editing {
            return;
        }
        let building = flips.list.value().is_some_and(|list| list.answer.building);
        let age = now - flips.asked_at;
        let due = flips.asked.as_ref() != Some(&query)
            || matches!(flips.list, Requested::NotYetRequested)
            || (building && age >= BUILDING_RETRY_SECS)
            || age >= REFRESH_SECS;
        if due {
            flips.asked = Some(query);
            flips.asked_at = now;
            flips
                .list
                .spawn(&self.runtime, ctx, fetch_list(client, request));
        } else {
            let wait = if building {
                BUILDING_RETRY_SECS - age
            } else {
                REFRESH_SECS - age
            };
            ctx.request_repaint_after(Duration::from_secs_f64(wait.max(0.05)));
        }
    }

    /// The Flips tab.
    pub(super) fn flips_view_ui(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        let settings_ready = self.flips.prefs.is_some() && self.flips.sizes.is_some();
        let mut prefs = self.flips.prefs.clone().unwrap_or_default();
        let mut sizes = self.flips.sizes.clone().unwrap_or_default();
        let received_secs_ago = self
            .flips
            .received_at
            .map_or(0, |at| at.elapsed().as_secs());
        let error = self.flips.error.clone();
        let inputs = ui::flips::FlipsInputs {
            list: self.flips.list.fetched(),
            generation: self.flips.generation,
            received_secs_ago,
            settings_ready,
            settings_error: error.as_deref(),
            notices: &self.flips.notices,
            now_unix: chrono::Utc::now().timestamp(),
        };
        let mut edit = ui::flips::FlipsEdit {
            prefs: &mut prefs,
            sizes: &mut sizes,
            payout: &mut self.state.payout,
        };
        let output = ui::flips::flips_ui(
            ui,
            &mut self.state.flips,
            &mut self.flips.order,
            &mut edit,
            &inputs,
        );
        if output.prefs_changed && settings_ready {
            self.flips.prefs = Some(prefs.checked());
            self.flips.prefs_edited_at = Some(now);
        }
        if output.sizes_changed && settings_ready {
            self.flips.sizes = Some(sizes);
            self.flips.sizes_edited_at = Some(now);
        }
        if output.refresh {
            // Asked again at once (a changed query is asked again by the tick anyway).
            self.flips.asked = None;
        }
        if let Some(id) = output.open {
            self.state.view = View::Product;
            self.open_product(id, ctx);
        }
    }
}
