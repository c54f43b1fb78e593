//! The release calendar behind `GET /api/v2/releases`: coming drops from every source the
//! service has, one entry per pair, each with its estimate.
//!
//! - **Sources.** The catalogue file's release dates (`catalogue.rs`: the demo's, an imported
//!   catalogue's, or KicksDB's mirror, where KicksDB's coming StockX products are written);
//!   a live source's launches with their mechanics (`CatalogueSource::coming`: SNKRS, read at
//!   most once a day); what the crawled stores just published (`storefront::drops`).
//! - **One entry per pair** (`merge.rs`), matched by style code.
//! - **Estimates** (`estimate.rs`): the premium model fitted on the catalogue's releases before
//!   today, each entry estimated from what was known before its day.
//!
//! The calendar is built in the background and kept: a request filters and pages what was
//! built (a binary search by day), so it costs the same at a million products as at a hundred.
//! It is built again when what it was built from changed (the catalogue file, including the
//! mirror KicksDB's reads write to; the stores' drops; the day), checked at most every
//! [`ReleasesConfig::check_every`], and at least every [`ReleasesConfig::max_age`] (which also
//! lets a live source read what is due); requests meanwhile get the calendar already built.
//! Only the first request waits for a build.

pub mod catalogue;
pub mod estimate;
pub mod merge;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use serde_json::value::RawValue;

use self::merge::{Candidate, Merged};
use super::ServiceState;
use super::error::ApiError;
use super::storefront::catalogue_keys::{FileStamp, file_stamp};
use super::storefront::drops::{StoreDrop, published_unix};
use crate::model::V2Envelope;
use crate::model::budget::{Clock, SystemClock};
use crate::model::releases::{CalendarSource, PremiumModelInfo, Release};

/// How the calendar is kept.
#[derive(Debug, Clone)]
pub struct ReleasesConfig {
    /// Where today comes from.
    pub clock: Arc<dyn Clock>,
    /// Longest a calendar is served before it is built again.
    pub max_age: Duration,
    /// Least time between two looks at whether its sources changed.
    pub check_every: Duration,
    /// Longest a build waits for a live source's due reads before using what it holds.
    pub upstream_wait: Duration,
}

impl Default for ReleasesConfig {
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemClock),
            max_age: Duration::from_secs(3600),
            check_every: Duration::from_secs(2),
            upstream_wait: Duration::from_secs(5),
        }
    }
}

/// Days before today the calendar keeps (the current week).
const PAST_DAYS: u64 = 8;

/// A request's window and filters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleasesQuery {
    /// First day; `None`: today.
    pub from: Option<NaiveDate>,
    /// Days from `from`.
    pub days: u32,
    /// 1-based page.
    pub page: u32,
    /// Entries per page.
    pub limit: u32,
    /// Only this brand (any case).
    pub brand: Option<String>,
    /// Only pairs listing this US size.
    pub size: Option<String>,
}

/// What a calendar was built from, to tell when to build again.
#[derive(Debug, Clone, PartialEq)]
struct Stamp {
    catalogue: Option<FileStamp>,
    drops: Vec<StoreDrop>,
    today: NaiveDate,
    upstream: u64,
}

/// One entry as built: what the filters read, and its JSON, written once at the build.
#[derive(Debug)]
struct Entry {
    /// The brand, lower case.
    brand: String,
    /// Its US sizes.
    sizes: Vec<String>,
    /// The entry as a page carries it. A page of 100 entries with their per-size estimates is
    /// some 300 KB of JSON (the demo's); written at each request it was most of the request's
    /// time.
    json: Box<RawValue>,
}

impl Entry {
    fn new(release: &Release) -> Result<Self, serde_json::Error> {
        Ok(Self {
            brand: release.brand.to_lowercase(),
            sizes: release.sizes.clone(),
            json: serde_json::value::to_raw_value(release)?,
        })
    }
}

/// A page as sent: [`ReleasesAnswer`](crate::model::releases::ReleasesAnswer)'s fields, with
/// the entries as built.
#[derive(Serialize)]
struct Page<'a> {
    releases: Vec<&'a RawValue>,
    total: u64,
    from: String,
    until: String,
    as_of: &'a str,
    sources: &'a [CalendarSource],
    model: &'a PremiumModelInfo,
}

/// A calendar as built.
#[derive(Debug)]
struct Built {
    /// Entries by day (then time, title).
    entries: Vec<Entry>,
    /// Their days, for the binary search.
    days: Vec<NaiveDate>,
    as_of: String,
    sources: Vec<CalendarSource>,
    model: PremiumModelInfo,
    stamp: Stamp,
    made_at: Instant,
}

/// The calendar of one service.
pub struct Calendar {
    config: ReleasesConfig,
    built: Mutex<Option<Arc<Built>>>,
    /// One build at a time.
    building: Arc<tokio::sync::Mutex<()>>,
    /// When its sources were last looked at.
    checked_at: Mutex<Option<Instant>>,
}

impl std::fmt::Debug for Calendar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Calendar").finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn day_text(day: NaiveDate) -> String {
    day.format("%Y-%m-%d").to_string()
}

impl Calendar {
    /// A calendar kept as `config` says; built at the first request.
    #[must_use]
    pub fn new(config: ReleasesConfig) -> Self {
        Self {
            config,
            built: Mutex::new(None),
            building: Arc::new(tokio::sync::Mutex::new(())),
            checked_at: Mutex::new(None),
        }
    }

    /// The page `query` asks for, of the calendar of `state`'s sources: the JSON of a
    /// [`V2Envelope`] around a [`ReleasesAnswer`](crate::model::releases::ReleasesAnswer).
    ///
    /// # Errors
    /// The first build failed (the catalogue could not be read), or `query`'s window is out of
    /// the calendar's range.
    pub async fn answer_json(
        &self,
        state: &Arc<ServiceState>,
        query: &ReleasesQuery,
    ) -> Result<Vec<u8>, ApiError> {
        let built = self.current(state).await?;
        let today = self.config.clock.now().date_naive();
        let from = query.from.unwrap_or(today);
        let until = from
            .checked_add_days(chrono::Days::new(u64::from(query.days)))
            .ok_or_else(|| ApiError::BadRequest("from + days is past the calendar's end".into()))?;
        let start = built.days.partition_point(|day| *day < from);
        let end = built.days.partition_point(|day| *day < until);
        let window = &built.entries[start..end.max(start)];
        let brand = query.brand.as_deref().map(str::to_lowercase);
        let size = query.size.as_deref().map(str::trim);
        let wanted = |entry: &&Entry| {
            brand.as_deref().is_none_or(|brand| entry.brand == brand)
                && size.is_none_or(|size| entry.sizes.iter().any(|s| s == size))
        };
        let skip = (query.page.max(1) as usize - 1) * query.limit as usize;
        let take = query.limit as usize;
        let (total, releases) = if brand.is_none() && size.is_none() {
            let page = window.iter().skip(skip).take(take);
            (window.len(), page.map(|entry| &*entry.json).collect())
        } else {
            let mut total = 0;
            let mut page = Vec::with_capacity(take.min(window.len()));
            for entry in window.iter().filter(wanted) {
                if total >= skip && page.len() < take {
                    page.push(&*entry.json);
                }
                total += 1;
            }
            (total, page)
        };
        let page = Page {
            releases,
            total: total as u64,
            from: day_text(from),
            until: day_text(until),
            as_of: &built.as_of,
            sources: &built.sources,
            model: &built.model,
        };
        serde_json::to_vec(&V2Envelope::success(page)).map_err(|err| {
            tracing::error!("writing a calendar page: {err}");
            ApiError::Internal
        })
    }

    /// The calendar to answer from: the one built (a new build started in the background
    /// when its sources changed), or, before the first, a build waited for.
    async fn current(&self, state: &Arc<ServiceState>) -> Result<Arc<Built>, ApiError> {
        let built = lock(&self.built).clone();
        let Some(built) = built else {
            let _one = self.building.lock().await;
            if let Some(built) = lock(&self.built).clone() {
                return Ok(built);
            }
            let built = Arc::new(build(state, &self.config).await?);
            *lock(&self.built) = Some(Arc::clone(&built));
            *lock(&self.checked_at) = Some(Instant::now());
            return Ok(built);
        };
        let look = {
            let mut checked = lock(&self.checked_at);
            let due = checked.is_none_or(|at| at.elapsed() >= self.config.check_every);
            if due {
                *checked = Some(Instant::now());
            }
            due
        };
        if look && (built.made_at.elapsed() >= self.config.max_age || self.changed(state, &built)) {
            self.rebuild_in_background(state);
        }
        Ok(built)
    }

    /// Whether what `built` was built from changed since.
    fn changed(&self, state: &ServiceState, built: &Built) -> bool {
        let file = state.catalogue.codes_file();
        let today = self.config.clock.now().date_naive();
        let drops = state.store_reading.crawl().drops(&file);
        built.stamp.today != today
            || built.stamp.catalogue != file_stamp(&file)
            || built.stamp.drops != drops
    }

    fn rebuild_in_background(&self, state: &Arc<ServiceState>) {
        let Ok(one) = Arc::clone(&self.building).try_lock_owned() else {
            return;
        };
        let state = Arc::clone(state);
        tokio::spawn(async move {
            let _one = one;
            let calendar = &state.calendar;
            match build(&state, &calendar.config).await {
                Ok(built) => *lock(&calendar.built) = Some(Arc::new(built)),
                Err(err) => tracing::warn!("the release calendar was not rebuilt: {err}"),
            }
        });
    }
}

/// The RFC 3339 text of `at`.
fn time_text(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Builds the calendar of `state`'s sources.
async fn build(state: &Arc<ServiceState>, config: &ReleasesConfig) -> Result<Built, ApiError> {
    let now = config.clock.now();
    let today = now.date_naive();
    let upstream = state.catalogue.coming(config.upstream_wait).await;
    let file = state.catalogue.codes_file();
    let drops = state.store_reading.crawl().drops(&file);
    let stamp = Stamp {
        catalogue: file_stamp(&file),
        drops: drops.clone(),
        today,
        upstream: upstream.as_ref().map_or(0, |u| u.generation),
    };
    let catalogue_name = state.catalogue.info().source;
    let work = move || -> Result<Built, ApiError> {
        let from = today - chrono::Days::new(PAST_DAYS);
        let until = today + chrono::Days::new(u64::from(crate::model::releases::MAX_RELEASE_DAYS));
        let read = catalogue::read(&file, today, from, until).map_err(|err| {
            tracing::error!("{err:#}");
            ApiError::Internal
        })?;
        let mut sources = vec![CalendarSource {
            kind: "catalogue".to_owned(),
            name: catalogue_name.clone(),
            releases: read.coming.len() as u64,
            read_at: None,
            note: None,
        }];
        let mut candidates: Vec<Candidate> = read
            .coming
            .iter()
            .map(|p| catalogue_candidate(p, &catalogue_name))
            .collect();
        if let Some(upstream) = &upstream {
            for source in &upstream.sources {
                match sources
                    .iter_mut()
                    .find(|s| s.kind == source.kind && source.kind == "catalogue")
                {
                    Some(kept) => {
                        kept.read_at.clone_from(&source.read_at);
                        kept.note.clone_from(&source.note);
                    }
                    None => sources.push(source.clone()),
                }
            }
            candidates.extend(upstream.launches.iter().filter_map(launch_candidate));
        }
        let store_candidates: Vec<Candidate> = drops
            .iter()
            .filter_map(|drop| store_candidate(drop, now))
            .collect();
        let mut stores: Vec<CalendarSource> = Vec::new();
        for candidate in &store_candidates {
            match stores.iter_mut().find(|s| s.name == candidate.name) {
                Some(source) => source.releases += 1,
                None => stores.push(CalendarSource {
                    kind: "store".to_owned(),
                    name: candidate.name.clone(),
                    releases: 1,
                    read_at: None,
                    note: None,
                }),
            }
        }
        sources.extend(stores);
        candidates.extend(store_candidates);
        let mut merged: Vec<Merged> = merge::merge(&candidates)
            .into_iter()
            .filter(|m| m.date >= from && m.date < until)
            .collect();
        let model = estimate::fit(&read.history, today);
        let info = model.info();
        for entry in &mut merged {
            match model.estimate(entry) {
                Ok(estimate) => entry.release.estimate = Some(estimate),
                Err(why) => entry.release.no_estimate = Some(why),
            }
        }
        let days = merged.iter().map(|m| m.date).collect();
        let entries = merged
            .iter()
            .map(|m| Entry::new(&m.release))
            .collect::<Result<_, _>>()
            .map_err(|err| {
                tracing::error!("writing the release calendar's entries: {err}");
                ApiError::Internal
            })?;
        Ok(Built {
            entries,
            days,
            as_of: time_text(now),
            sources,
            model: info,
            stamp,
            made_at: Instant::now(),
        })
    };
    tokio::task::spawn_blocking(work).await.map_err(|err| {
        tracing::error!("building the release calendar: {err}");
        ApiError::Internal
    })?
}

fn catalogue_candidate(product: &catalogue::ComingProduct, name: &str) -> Candidate {
    Candidate {
        kind: "catalogue",
        name: name.to_owned(),
        product_id: Some(product.id.clone()),
        codes: vec![product.sku.clone()],
        store_texts: None,
        title: product.title.clone(),
        brand: product.brand.clone(),
        model: product.model.clone(),
        date: product.release_date,
        starts_at: None,
        retail: product.retail_usd_cents.map(|c| (c, "USD".to_owned())),
        link: product.link.clone(),
        image: product.image.clone(),
        sizes: product.sizes.clone(),
        mechanics: None,
        labels: product.labels.clone(),
        read_at: None,
    }
}

fn launch_candidate(launch: &super::source::Launch) -> Option<Candidate> {
    let starts_at = DateTime::parse_from_rfc3339(&launch.mechanics.starts_at)
        .ok()?
        .with_timezone(&Utc);
    Some(Candidate {
        kind: "snkrs",
        name: "snkrs".to_owned(),
        product_id: None,
        codes: launch.style_codes.clone(),
        store_texts: None,
        title: launch.title.clone(),
        brand: String::new(),
        model: String::new(),
        date: starts_at.date_naive(),
        starts_at: Some(starts_at),
        retail: None,
        link: launch.link.clone(),
        image: launch.image.clone(),
        sizes: launch
            .mechanics
            .sizes
            .iter()
            .map(|s| s.size.clone())
            .collect(),
        mechanics: Some(launch.mechanics.clone()),
        labels: Vec::new(),
        read_at: Some(launch.mechanics.read_at.clone()),
    })
}

/// A store product as a candidate: one the store publishes ahead (at that time), or one new
/// to the store (on the day it published it, else the day it was first seen).
fn store_candidate(drop: &StoreDrop, now: DateTime<Utc>) -> Option<Candidate> {
    let published =
        published_unix(&drop.published_at).and_then(|at| DateTime::from_timestamp(at, 0));
    let ahead = published.filter(|at| *at > now);
    let arrived = drop
        .arrived_at
        .and_then(|at| DateTime::from_timestamp(at, 0));
    let when = ahead.or_else(|| arrived.map(|at| published.unwrap_or(at)))?;
    Some(Candidate {
        kind: "store",
        name: drop.store.label().to_owned(),
        product_id: drop.catalogue_id.clone(),
        codes: drop.style_code.iter().cloned().collect(),
        store_texts: drop
            .catalogue_id
            .is_none()
            .then(|| (drop.title.clone(), drop.handle.clone(), drop.skus.clone())),
        title: drop.title.clone(),
        brand: drop.vendor.clone(),
        model: String::new(),
        date: when.date_naive(),
        starts_at: ahead,
        retail: match (drop.price_cents, &drop.currency) {
            (Some(cents), Some(currency)) => Some((cents, currency.clone())),
            _ => None,
        },
        link: drop.link.clone(),
        image: drop.image.clone(),
        sizes: drop.sizes.clone(),
        mechanics: None,
        labels: Vec::new(),
        read_at: arrived.map(time_text),
    })
}
