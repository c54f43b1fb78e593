//! One pass over a store's whole catalogue, as restock monitors read it
//! (`shared/research/shopify-storefront.md`): `/meta.json` for the shop's currency and product
//! count, then `/products.json?limit=250&page=N` from page 1, each page written to
//! [`StoreDb`] as it arrives.
//!
//! **Polite.** Every request takes its turn in the store's one-request-a-second queue, shared
//! with the per-product lookups (`turns.rs`); a 429 or 503 pauses the store for its
//! `Retry-After` (lookups too), and the pass waits it out once when it is short
//! ([`CrawlConfig::max_wait_in_pass`]), else ends there. Passes start at most every
//! [`CrawlConfig::pass_interval`] (30 min).
//!
//! **No request wasted.** The pass ends at a page shorter than `limit`, or, when `/meta.json`
//! gave the product count, as soon as the pages read cover it: a store of 5,000 products is
//! `/meta.json` and 20 pages, never a 21st empty page. Without a count, a last full page costs one
//! empty page more (nothing else tells the end). `/meta.json` is never wasted: it is the only
//! place that names the feed's currency.
//!
//! **Bounded.** At most [`CrawlConfig::max_pages_per_pass`] pages (a larger store is read in part
//! and the pass says so); a page whose products repeat the previous page's ends the pass (a store
//! that ignores `page`); every body is capped ([`CrawlConfig::max_page_bytes`]); a page over the
//! cap or not of the feed's shape is skipped and named, and so is one product that does not
//! decode; [`CrawlConfig::max_skipped_pages_in_row`] skipped pages in a row end the pass.
//!
//! **Refusals.** 401 or a password page, 403 or 430, 404 or 410, an HTML or bot-check page, a
//! redirect to another site, or an empty first page: the feed is refused, the store's products
//! are looked up one by one instead (today's lookups), the reason is kept for Settings, and the
//! feed is tried again after [`CrawlConfig::refused_retry`] (6 h).
//!
//! Products are removed from the file only after a complete pass with no page skipped.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use reqwest::Url;
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};

use super::feed::ShopMeta;
use super::store_db::{FeedState, PassEnd, PassOutcome, StoreDb, StoreDbError};
use super::worker::StoreWorker;
use super::{StorefrontError, Storefronts};
use crate::model::StoreUrl;
use crate::upstream::{FetchKind, Fetched, Upstream};

/// How stores' catalogues are crawled.
#[derive(Debug, Clone)]
pub struct CrawlConfig {
    /// Least time from one pass's start to the next's (30 min).
    pub pass_interval: Duration,
    /// Wait before trying a refused feed again (6 h).
    pub refused_retry: Duration,
    /// Products asked per page (250, Shopify's most).
    pub page_limit: u32,
    /// Pages read in one pass at most (100: 25,000 products, 100 s at one request a second).
    pub max_pages_per_pass: u32,
    /// Largest body read (8 MiB: a page of 250 sneakers with long descriptions is 2-5 MB).
    pub max_page_bytes: usize,
    /// Longest wait for one page.
    pub request_timeout: Duration,
    /// Longest `Retry-After` a pass waits out before trying the page once more (60 s).
    pub max_wait_in_pass: Duration,
    /// Skipped pages in a row that end a pass (3).
    pub max_skipped_pages_in_row: u32,
    /// `/products/{handle}.json` reads per pass, for the barcodes of products no code matched (20).
    pub barcode_reads_per_pass: u32,
    /// How often the background task looks at the list of stores (2 s).
    pub watch_interval: Duration,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        Self {
            pass_interval: Duration::from_secs(30 * 60),
            refused_retry: Duration::from_secs(6 * 3600),
            page_limit: 250,
            max_pages_per_pass: 100,
            max_page_bytes: 8 * 1024 * 1024,
            request_timeout: Duration::from_secs(20),
            max_wait_in_pass: Duration::from_secs(60),
            max_skipped_pages_in_row: 3,
            barcode_reads_per_pass: 20,
            watch_interval: Duration::from_secs(2),
        }
    }
}

/// Why a store's feed is not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeedRefusal {
    /// 401, or a password page.
    #[error("the store is password-protected")]
    Password,
    /// 403, 430 or another 4xx.
    #[error("the store refuses to serve its catalogue feed (HTTP {0})")]
    Forbidden(u16),
    /// 404 or 410.
    #[error("the store has no catalogue feed (HTTP {0})")]
    NotFound(u16),
    /// A 2xx HTML (or other non-JSON) page: a bot check.
    #[error("the store answers its catalogue feed with {0}")]
    NotJson(String),
    /// A redirect to another site.
    #[error("the store redirects its catalogue feed to another site")]
    Redirected,
    /// The first page has no product (and `/meta.json` did not say the store has none).
    #[error("the store's catalogue feed is empty")]
    Empty,
}

/// One answer of the store, sorted by what the pass does with it.
enum Answer {
    /// A 2xx JSON body.
    Json(Fetched),
    /// The store refuses.
    Refused(FeedRefusal),
    /// 429 or 503, or the store is paused: wait this long.
    Wait(Duration),
    /// Over the body cap.
    TooLarge(String),
    /// No usable answer now (unreachable, timed out, a server error).
    Failed(String),
}

/// What one pass did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassReport {
    /// The pass's key in the store file.
    pub pass_id: i64,
    /// How it ended.
    pub outcome: PassOutcome,
    /// Why it was refused, when it was.
    pub refusal: Option<FeedRefusal>,
    /// Requests sent.
    pub requests: u32,
    /// Pages read.
    pub pages_read: u32,
    /// Products on them.
    pub products_seen: u32,
    /// Products new or changed (rewritten).
    pub products_written: u32,
    /// Products gone from the store.
    pub products_removed: u32,
    /// What `/meta.json` said the store has.
    pub expected_products: Option<u64>,
    /// The shop's currency.
    pub currency: Option<String>,
    /// Why partial or failed, and what was skipped, in sentences.
    pub notes: Vec<String>,
    /// Started and finished (Unix seconds).
    pub started_at: i64,
    /// When it finished.
    pub finished_at: i64,
    /// When the next pass may start.
    pub next_pass_at: i64,
}

/// Notes kept per pass at most (one per skipped page or product).
const MAX_NOTES: usize = 20;

/// Reads stores' feeds into the store file.
pub struct Crawler {
    storefronts: Arc<Storefronts>,
    db: StoreWorker,
    config: CrawlConfig,
    fetchers: Mutex<HashMap<StoreUrl, Upstream>>,
}

impl std::fmt::Debug for Crawler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crawler")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Runs `job` on the store file's thread.
pub(super) async fn on_db<T: Send + 'static>(
    worker: &StoreWorker,
    job: impl FnOnce(&mut StoreDb) -> Result<T, StoreDbError> + Send + 'static,
) -> Result<T, StoreDbError> {
    worker.run(move |owned| job(&mut owned.db)).await
}

fn now_unix() -> i64 {
    chrono::Utc::now().timestamp()
}

fn secs(duration: Duration) -> i64 {
    i64::try_from(duration.as_secs()).unwrap_or(i64::MAX)
}

/// A pass in progress.
struct Pass {
    store_id: i64,
    id: i64,
    requests: u32,
    notes: Vec<String>,
}

impl Pass {
    fn note(&mut self, note: String) {
        if self.notes.len() < MAX_NOTES {
            self.notes.push(note);
        }
    }
}

impl Crawler {
    /// A crawler reading through `storefronts`' per-store queues into `db`.
    #[must_use]
    pub fn new(storefronts: Arc<Storefronts>, db: StoreWorker, config: CrawlConfig) -> Self {
        Self {
            storefronts,
            db,
            config,
            fetchers: Mutex::new(HashMap::new()),
        }
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &CrawlConfig {
        &self.config
    }

    /// The store file.
    #[must_use]
    pub fn db(&self) -> &StoreWorker {
        &self.db
    }

    fn fetcher(&self, store: &StoreUrl) -> Result<Upstream, StorefrontError> {
        let mut fetchers = self.fetchers.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(fetcher) = fetchers.get(store) {
            return Ok(fetcher.clone());
        }
        let fetcher = self.storefronts.crawl_fetcher(
            store,
            self.config.max_page_bytes,
            self.config.request_timeout,
        )?;
        fetchers.insert(store.clone(), fetcher.clone());
        Ok(fetcher)
    }

    /// `GET url` at `store` in its turn, sorted. A pause or 429 no longer than
    /// `max_wait_in_pass` is waited out and the request sent once more.
    async fn get(&self, store: &StoreUrl, url: Url, pass: &mut Pass) -> Answer {
        let mut waited = false;
        loop {
            let answer = self.get_once(store, url.clone(), pass).await;
            match answer {
                Answer::Wait(wait) if !waited && wait <= self.config.max_wait_in_pass => {
                    waited = true;
                    tokio::time::sleep(wait).await;
                }
                other => return other,
            }
        }
    }

    async fn get_once(&self, store: &StoreUrl, url: Url, pass: &mut Pass) -> Answer {
        let client = match self.fetcher(store) {
            Ok(client) => client,
            Err(err) => return Answer::Failed(err.to_string()),
        };
        match self.storefronts.wait_turn(store).await {
            Ok(()) => {}
            Err(StorefrontError::Paused { wait_secs, .. }) => {
                return Answer::Wait(Duration::from_secs(wait_secs));
            }
            Err(err) => return Answer::Failed(err.to_string()),
        }
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        pass.requests += 1;
        let fetched = match client.get(url, headers).await {
            Ok(fetched) => fetched,
            Err(err) => {
                return match err.kind {
                    FetchKind::TooLarge => Answer::TooLarge(err.message),
                    FetchKind::Rejected if err.message.contains("redirect") => {
                        Answer::Refused(FeedRefusal::Redirected)
                    }
                    _ => Answer::Failed(err.message),
                };
            }
        };
        match fetched.status {
            200..=299 if crate::upstream::body::looks_like_json(&fetched.body) => {
                Answer::Json(fetched)
            }
            200..=299 => match super::not_json(store, &fetched) {
                StorefrontError::PasswordProtected { .. } => Answer::Refused(FeedRefusal::Password),
                _ => Answer::Refused(FeedRefusal::NotJson(if fetched.is_html() {
                    "an HTML page instead of JSON".into()
                } else {
                    "an answer that is not JSON".into()
                })),
            },
            300..=399 => Answer::Refused(FeedRefusal::Redirected),
            401 => Answer::Refused(FeedRefusal::Password),
            404 | 410 => Answer::Refused(FeedRefusal::NotFound(fetched.status)),
            429 | 503 => {
                let asked = crate::upstream::body::retry_after(&fetched.headers);
                let wait = asked
                    .unwrap_or(Duration::from_secs(60))
                    .max(Duration::from_secs(1));
                let why = StorefrontError::RateLimited {
                    store: store.label().to_owned(),
                    wait_secs: wait.as_secs(),
                };
                self.storefronts.pause_store(store, wait, &why);
                Answer::Wait(wait)
            }
            status @ 400..=499 => Answer::Refused(FeedRefusal::Forbidden(status)),
            status => Answer::Failed(format!("the store answered HTTP {status}")),
        }
    }

    fn url(store: &StoreUrl, path: &str, query: &[(&str, String)]) -> Option<Url> {
        let mut url = Url::parse(store.as_str()).ok()?.join(path).ok()?;
        if !query.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(query.iter().map(|(k, v)| (*k, v.as_str())));
        }
        Some(url)
    }

    /// `/meta.json`: the shop's name, currency and product count; `Err` when it says the store
    /// refuses everything (a password), `Ok(None)` when it says nothing usable.
    async fn shop_meta(
        &self,
        store: &StoreUrl,
        pass: &mut Pass,
    ) -> Result<Option<ShopMeta>, FeedRefusal> {
        let Some(url) = Self::url(store, "/meta.json", &[]) else {
            return Ok(None);
        };
        match self.get(store, url, pass).await {
            Answer::Json(fetched) => match serde_json::from_slice::<ShopMeta>(&fetched.body) {
                Ok(meta) => Ok(Some(meta)),
                Err(err) => {
                    pass.note(format!("/meta.json is not the shop's facts ({err}); the pass reads until a short page"));
                    Ok(None)
                }
            },
            Answer::Refused(FeedRefusal::Password) => Err(FeedRefusal::Password),
            Answer::Refused(why) => {
                pass.note(format!(
                    "/meta.json: {why}; the pass reads until a short page"
                ));
                Ok(None)
            }
            Answer::Wait(_) | Answer::TooLarge(_) | Answer::Failed(_) => {
                pass.note("/meta.json could not be read; the pass reads until a short page".into());
                Ok(None)
            }
        }
    }

    /// One pass over `store`'s feed; `progress` hears each page read.
    ///
    /// # Errors
    /// The store file could not be written (what was read until then is kept).
    pub async fn pass(
        &self,
        store: &StoreUrl,
        progress: &(dyn Fn(u32) + Send + Sync),
    ) -> Result<PassReport, StoreDbError> {
        let started_at = now_unix();
        let url = store.clone();
        let row = on_db(&self.db, move |db| db.store(&url)).await?;
        let store_id = row.store_id;
        let pass_id = on_db(&self.db, move |db| db.begin_pass(store_id, started_at)).await?;
        let mut pass = Pass {
            store_id,
            id: pass_id,
            requests: 0,
            notes: Vec::new(),
        };
        let mut report = PassReport {
            pass_id,
            outcome: PassOutcome::Failed,
            refusal: None,
            requests: 0,
            pages_read: 0,
            products_seen: 0,
            products_written: 0,
            products_removed: 0,
            expected_products: None,
            currency: row.currency.clone(),
            notes: Vec::new(),
            started_at,
            finished_at: started_at,
            next_pass_at: started_at,
        };
        let mut seen: HashSet<u64> = HashSet::new();
        let mut complete_set = false;
        let mut wait_after = Duration::ZERO;
        match self.shop_meta(store, &mut pass).await {
            Err(refusal) => report.refusal = Some(refusal),
            Ok(meta) => {
                if let Some(meta) = meta {
                    report.expected_products = meta.published_products_count;
                    let currency = meta
                        .currency
                        .filter(|c| c.len() == 3 && c.bytes().all(|b| b.is_ascii_alphabetic()))
                        .map(|c| c.to_ascii_uppercase());
                    if currency.is_some() {
                        report.currency.clone_from(&currency);
                    }
                    let name = meta.name;
                    let count = report.expected_products;
                    on_db(&self.db, move |db| {
                        db.note_shop(
                            store_id,
                            pass_id,
                            name.as_deref(),
                            currency.as_deref(),
                            count,
                        )
                    })
                    .await?;
                }
                let ended = self
                    .pages(store, &mut pass, &mut report, &mut seen, progress)
                    .await?;
                complete_set = ended.complete_set;
                wait_after = ended.wait_after;
            }
        }
        if report.refusal.is_some() {
            report.outcome = PassOutcome::Refused;
        }
        let finished_at = now_unix();
        let next = if report.outcome == PassOutcome::Refused {
            finished_at + secs(self.config.refused_retry)
        } else {
            // The user's setting (Settings, `--store-pass-minutes`), else the default.
            let interval = self
                .storefronts
                .stores()
                .pass_interval()
                .unwrap_or(self.config.pass_interval);
            (started_at + secs(interval)).max(finished_at + secs(wait_after))
        };
        let mut detail: Vec<String> = report.refusal.iter().map(ToString::to_string).collect();
        detail.extend(pass.notes.iter().cloned());
        let detail = (!detail.is_empty()).then(|| detail.join("; "));
        let feed = match report.outcome {
            PassOutcome::Refused => FeedState::Refused,
            PassOutcome::Failed => row.feed,
            _ => FeedState::Read,
        };
        let end_requests = pass.requests;
        let outcome = report.outcome;
        let removed = on_db(&self.db, move |db| {
            db.finish_pass(
                store_id,
                pass_id,
                &PassEnd {
                    finished_at,
                    outcome,
                    detail: detail.as_deref(),
                    requests: end_requests,
                    feed,
                    next_pass_at: next,
                    seen: complete_set.then_some(&seen),
                },
            )
        })
        .await?;
        report.products_removed = removed;
        report.requests = pass.requests;
        report.notes = pass.notes;
        report.finished_at = finished_at;
        report.next_pass_at = next;
        if report.outcome == PassOutcome::Complete {
            tracing::info!(
                "crawled {}: {} products on {} pages ({} new or changed, {} gone), {} requests",
                store.label(),
                report.products_seen,
                report.pages_read,
                report.products_written,
                report.products_removed,
                report.requests
            );
        } else {
            tracing::warn!(
                "crawl of {} ended {:?}: {}",
                store.label(),
                report.outcome,
                report
                    .refusal
                    .iter()
                    .map(ToString::to_string)
                    .chain(report.notes.iter().cloned())
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
        Ok(report)
    }
}

mod barcodes;
mod pages;
