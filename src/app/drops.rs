//! The app's side of the *Drops* tab: the calendar of this week and the next ten fetched
//! through the client (again after [`REFETCH_EVERY`], or when the service changes), the user's
//! sizes and starred drops read from and written to the user database off the UI thread, and
//! the reminders' task (`reminders`) started once the database and the client are there.

use std::sync::Arc;
use std::time::{Duration, Instant};

use poll_promise::Promise;

use super::notify::{DesktopNotifier, Notifier};
use super::{App, Requested, View};
use crate::client::releases::ReleasesRequest;
use crate::model::releases::{Release, ReleasesAnswer};
use crate::ui;
use crate::userdb::UserDbError;
use crate::userdb::drops::{DropStar, star_key};

/// How often the open tab asks for the calendar again.
pub const REFETCH_EVERY: Duration = Duration::from_secs(300);

/// Minutes before a starred drop its reminder comes.
pub const REMIND_MINUTES: u32 = 15;

/// Pages of 500 the tab reads at most.
const MAX_PAGES: u32 = 10;

/// What the user database holds for the tab.
type Saved = (Vec<String>, Vec<DropStar>);

/// The tab's state.
pub(super) struct DropsState {
    calendar: Requested<ReleasesAnswer>,
    /// The service asked, and when.
    asked: Option<(String, Instant)>,
    saved: Option<Saved>,
    loading: Option<Promise<Result<Saved, UserDbError>>>,
    writes: Vec<Promise<Result<(), UserDbError>>>,
    brand: Option<String>,
    my_sizes_only: bool,
    sizes_draft: String,
    error: Option<String>,
    reminders_started: bool,
    notifier: Arc<dyn Notifier>,
}

impl DropsState {
    /// Whether the calendar's fetch or a database job is in flight.
    pub(super) fn is_pending(&self) -> bool {
        self.calendar.is_pending() || self.loading.is_some() || !self.writes.is_empty()
    }
}

impl Default for DropsState {
    fn default() -> Self {
        Self {
            calendar: Requested::NotYetRequested,
            asked: None,
            saved: None,
            loading: None,
            writes: Vec::new(),
            brand: None,
            my_sizes_only: false,
            sizes_draft: String::new(),
            error: None,
            reminders_started: false,
            notifier: Arc::new(DesktopNotifier),
        }
    }
}

impl App {
    /// Replaces the desktop notifier of drop reminders (tests).
    pub fn set_drop_notifier(&mut self, notifier: Arc<dyn Notifier>) {
        self.drops.notifier = notifier;
    }

    /// The calendar the tab shows, once read.
    #[must_use]
    pub fn drops_calendar(&self) -> Option<&ReleasesAnswer> {
        self.drops.calendar.value()
    }

    /// Per frame: takes in database reads and writes, starts the reminders once.
    pub(super) fn drops_tick(&mut self) {
        self.drops.calendar.poll();
        let db = self.alerts_db();
        let drops = &mut self.drops;
        if drops.saved.is_none()
            && drops.loading.is_none()
            && let Some(db) = &db
        {
            drops.loading = Some(db.run(|db| Ok((db.my_sizes()?, db.drop_stars()?))));
        }
        if let Some(loading) = drops.loading.take() {
            match loading.try_take() {
                Ok(Ok(saved)) => {
                    if drops.sizes_draft.is_empty() {
                        drops.sizes_draft = saved.0.join(", ");
                    }
                    drops.saved = Some(saved);
                }
                Ok(Err(err)) => {
                    drops.error = Some(format!("your sizes and stars could not be read: {err:#}"));
                    drops.saved = Some((Vec::new(), Vec::new()));
                }
                Err(still) => drops.loading = Some(still),
            }
        }
        let mut reload = false;
        for write in std::mem::take(&mut drops.writes) {
            match write.try_take() {
                Ok(Ok(())) => reload = true,
                Ok(Err(err)) => drops.error = Some(format!("{err:#}")),
                Err(still) => drops.writes.push(still),
            }
        }
        if reload && drops.loading.is_none() {
            drops.saved = None;
        }
        if !drops.reminders_started
            && let (Some(db), Some(client)) = (db, self.client.clone())
        {
            drops.reminders_started = true;
            self.runtime.spawn(super::reminders::run(
                Some(client),
                db,
                Arc::clone(&drops.notifier),
                Arc::new(crate::model::budget::SystemClock),
            ));
        }
    }

    /// Asks for the calendar of this week and the next ten when none was asked of this
    /// service, or the last answer is old.
    fn fetch_drops(&mut self, ctx: &egui::Context, force: bool) {
        let Some(client) = self.client.clone() else {
            return;
        };
        let base = client.base_url().to_owned();
        let due = force
            || self
                .drops
                .asked
                .as_ref()
                .is_none_or(|(asked, at)| *asked != base || at.elapsed() >= REFETCH_EVERY);
        if !due || (self.drops.calendar.is_pending() && !force) {
            return;
        }
        self.drops.asked = Some((base, Instant::now()));
        let today = chrono::Local::now().date_naive();
        let request = ReleasesRequest {
            from: Some(ui::drops::week_start(today)),
            days: Some(ui::drops::WEEKS * 7),
            ..ReleasesRequest::default()
        };
        self.drops.calendar.spawn(&self.runtime, ctx, async move {
            client.releases_all(&request, MAX_PAGES).await
        });
    }

    /// The *Drops* tab, and what its answer does.
    pub(super) fn drops_view_ui(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        self.fetch_drops(ctx, false);
        let (my_sizes, stars) = self.drops.saved.clone().unwrap_or_default();
        let keys: Vec<String> = stars.iter().map(|s| s.key.clone()).collect();
        let starred =
            |release: &Release| keys.contains(&star_key(&release.style_code, &release.title));
        let error = self.drops.error.clone();
        let DropsState {
            calendar,
            brand,
            my_sizes_only,
            sizes_draft,
            ..
        } = &mut self.drops;
        let view = ui::drops::DropsView {
            calendar: calendar.fetched(),
            now: chrono::Utc::now(),
            starred: &starred,
            my_sizes: &my_sizes,
            remind_minutes: REMIND_MINUTES,
            error: error.as_deref(),
        };
        let mut filters = ui::drops::DropsFilters {
            brand,
            my_sizes_only,
            sizes_draft,
        };
        let output = ui::drops::drops_ui(ui, &mut filters, &view);
        // Countdowns move: a frame a minute at least while the tab is open.
        ctx.request_repaint_after(Duration::from_secs(30));
        if output.retry {
            self.fetch_drops(ctx, true);
        }
        let db = self.alerts_db();
        if let Some(sizes) = output.save_sizes {
            match &db {
                Some(db) => self
                    .drops
                    .writes
                    .push(db.run(move |db| db.set_my_sizes(&sizes))),
                None => self.drops.error = Some("no user database: sizes are not kept".into()),
            }
        }
        if let Some(release) = output.star {
            let star = super::reminders::star_of(&release, REMIND_MINUTES);
            match &db {
                Some(db) => self
                    .drops
                    .writes
                    .push(db.run(move |db| db.star_drop(&star))),
                None => self.drops.error = Some("no user database: stars are not kept".into()),
            }
        }
        if let Some(release) = output.unstar
            && let Some(db) = &db
        {
            let key = star_key(&release.style_code, &release.title);
            self.drops
                .writes
                .push(db.run(move |db| db.unstar_drop(&key).map(drop)));
        }
        if let Some(id) = output.open {
            self.state.view = View::Product;
            self.open_product(id, ctx);
        }
    }
}
