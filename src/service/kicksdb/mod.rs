//! KicksDB (<https://kicks.dev>), the hosted sneaker market API, as a live source with the
//! user's own key: the catalogue side (StockX search, product, daily sales, brand counts) and
//! the real-time side (GOAT's live product as `resale-a`, StockX's live related products as
//! `resale-b`). What it answers is written to its mirror (`catalogue::mirror`, a file only this
//! source opens) and read back in the same turn, so an answer's shape is the catalogue's; the
//! mirror answers when KicksDB cannot.
//!
//! Built from `shared/research/kicksdb-v3.md`: paths under `/v3`, `Authorization: Bearer
//! <key>`, bodies `{data, meta}`, `X-Quota-Current` on answers, 60 real-time calls a minute per
//! key and 640 calls a minute per address. Both limits are counted before a call is sent (in
//! this process, or in Redis for replicas), never hoped for; identical requests in flight are
//! sent once and answers reused for a short while ([`Ttl`]).

pub mod budget;
mod calls;
mod catalogue;
pub mod coming;
mod map;
mod mirror;
pub mod prices;
mod realtime;
mod source;
mod wire;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use reqwest::Url;
use reqwest::header::HeaderValue;

pub use self::map::{mirror_product_from_stockx, weeks_from_daily};
pub use self::mirror::MirrorError;
use super::limits::SlidingLimiter;
use super::shared::SharedStore;
use crate::upstream::{FetchError, Upstream, UpstreamConfig};

/// KicksDB's own address; `--kicksdb-url` / `SOLESCOPE_KICKSDB_URL` point elsewhere.
pub const DEFAULT_BASE_URL: &str = "https://api.kicks.dev/";

/// Real-time calls KicksDB allows per key per minute.
pub const REALTIME_PER_MINUTE: u32 = 60;

/// Calls KicksDB allows per address per minute (all endpoints).
pub const CALLS_PER_MINUTE: u32 = 640;

/// How long an answer is reused, by kind: long enough that two panels (or a panel and the
/// alert monitor) asking the same thing spend one call, short enough that a price on screen is
/// never older than this. KicksDB refreshes its StockX catalogue every 12 h.
#[derive(Debug, Clone, Copy)]
pub struct Ttl {
    /// Real-time lookups.
    pub realtime: Duration,
    /// Search pages.
    pub search: Duration,
    /// Products with their sizes.
    pub product: Duration,
    /// Daily sales (grouped into weeks) and brand counts.
    pub slow: Duration,
}

impl Default for Ttl {
    fn default() -> Self {
        Self {
            realtime: Duration::from_secs(30),
            search: Duration::from_secs(60),
            product: Duration::from_secs(300),
            slow: Duration::from_secs(3600),
        }
    }
}

/// How to reach KicksDB. `Debug` never shows the key.
#[derive(Clone)]
pub struct KicksdbConfig {
    /// The API's base URL ([`DEFAULT_BASE_URL`]).
    pub base_url: String,
    /// The user's KicksDB key, sent as `Authorization: Bearer <key>`.
    pub key: String,
    /// The mirror catalogue file (created when missing).
    pub mirror: PathBuf,
    /// Real-time calls allowed per minute ([`REALTIME_PER_MINUTE`]).
    pub realtime_per_minute: u32,
    /// Calls allowed per minute ([`CALLS_PER_MINUTE`]).
    pub calls_per_minute: u32,
    /// Answer reuse.
    pub ttl: Ttl,
    /// The longest `Retry-After` of a 429 waited out before answering; longer ones are passed
    /// on to the caller.
    pub max_wait: Duration,
    /// Timeouts and the body cap.
    pub http: UpstreamConfig,
    /// The monthly budget: its settings, where the month's count is kept, the clock.
    pub budget: budget::BudgetConfig,
}

impl KicksdbConfig {
    /// Defaults for `key` with the mirror at `mirror`.
    #[must_use]
    pub fn new(key: impl Into<String>, mirror: impl Into<PathBuf>) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_owned(),
            key: key.into(),
            mirror: mirror.into(),
            realtime_per_minute: REALTIME_PER_MINUTE,
            calls_per_minute: CALLS_PER_MINUTE,
            ttl: Ttl::default(),
            max_wait: Duration::from_secs(5),
            http: UpstreamConfig::new("KicksDB"),
            budget: budget::BudgetConfig::default(),
        }
    }
}

impl std::fmt::Debug for KicksdbConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KicksdbConfig")
            .field("base_url", &self.base_url)
            .field("key", &"[redacted]")
            .field("mirror", &self.mirror)
            .finish_non_exhaustive()
    }
}

/// Why the KicksDB source could not start.
#[derive(Debug, thiserror::Error)]
pub enum KicksdbError {
    /// The base URL is not an `http(s)` URL.
    #[error("the KicksDB URL is not usable ({0})")]
    Url(String),
    /// The key cannot be sent in a header, or is empty.
    #[error("the KicksDB key is empty or holds characters that cannot be sent in a header")]
    Key,
    /// The HTTP client could not be built.
    #[error(transparent)]
    Http(#[from] FetchError),
    /// The mirror could not be opened or created.
    #[error("the KicksDB mirror: {0}")]
    Mirror(#[from] MirrorError),
    /// The month's count of calls could not be opened.
    #[error("the KicksDB budget: {0}")]
    Budget(#[from] budget::LedgerError),
}

/// Which of KicksDB's limits a call counts against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallClass {
    /// The cached catalogue (640 a minute per address).
    Catalogue,
    /// Real-time (60 a minute per key, and the 640).
    Realtime,
}

/// Where the two limits are counted.
enum Limits {
    Local {
        realtime: SlidingLimiter,
        calls: SlidingLimiter,
    },
    /// Replicas share the counts in Redis, under names derived from the key's digest.
    Shared {
        store: Arc<dyn SharedStore>,
        realtime_name: String,
        calls_name: String,
    },
}

/// The KicksDB source. Cheap to share (`Arc`).
pub struct Kicksdb {
    http: Upstream,
    base: Url,
    /// `Bearer <key>`, marked sensitive.
    auth: HeaderValue,
    limits: Limits,
    realtime_per_minute: u32,
    calls_per_minute: u32,
    ttl: Ttl,
    max_wait: Duration,
    /// Answers by request (path and query; never the key), with when they were fetched (for
    /// their age, and as the time an answer that reuses one names).
    answers: quick_cache::sync::Cache<String, (Instant, String, Arc<crate::upstream::Fetched>)>,
    /// Whether to ask for traits and barcodes (paid plans); off after a 403 for them.
    paid_displays: std::sync::atomic::AtomicBool,
    /// `X-Quota-Current` of the newest answer (-1 until one came).
    quota_current: AtomicI64,
    /// The source's own cache of what KicksDB answered.
    mirror: mirror::Mirror,
    /// The key's monthly budget, taken from before every call.
    budget: budget::MonthlyBudget,
    /// Each style code's latest batched prices.
    prices: prices::PriceCache,
    /// Each style code's sales per size in the last 30 days (StockX's US market), as its
    /// product's sizes were last read (search and product answers carry them): the flips'
    /// sell-through, with no call of their own.
    size_sales: prices::SizeSales,
    /// The daily reads of coming releases (`coming`).
    coming: coming::ComingState,
    /// Where the time of the daily reads comes from (the budget's clock).
    clock: Arc<dyn crate::model::budget::Clock>,
}

impl std::fmt::Debug for Kicksdb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kicksdb")
            .field("base_url", &self.base.as_str())
            .field("key", &"[redacted]")
            .finish_non_exhaustive()
    }
}

impl Kicksdb {
    /// The source for `config`, its limits counted in `shared` when given (replicas) or in this
    /// process. Opens (or creates) the mirror; sends nothing.
    pub fn new(
        config: &KicksdbConfig,
        shared: Option<Arc<dyn SharedStore>>,
    ) -> Result<Self, KicksdbError> {
        let mut base =
            Url::parse(config.base_url.trim()).map_err(|err| KicksdbError::Url(err.to_string()))?;
        if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() {
            return Err(KicksdbError::Url(format!(
                "{} is not an http(s) URL",
                base.scheme()
            )));
        }
        if !base.path().ends_with('/') {
            base.set_path(&format!("{}/", base.path()));
        }
        let key = config.key.trim();
        if key.is_empty() {
            return Err(KicksdbError::Key);
        }
        let mut auth =
            HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| KicksdbError::Key)?;
        auth.set_sensitive(true);
        let budget = budget::MonthlyBudget::open(
            &config.budget,
            &config.mirror,
            shared.clone(),
            &crate::catalogue::keys::hash(key),
        )?;
        let limits = match shared {
            Some(store) => {
                // The key's digest names the shared counters: replicas with the same key share
                // them, and Redis never holds the key.
                let digest = crate::catalogue::keys::hash(key);
                let short = &digest[..16.min(digest.len())];
                Limits::Shared {
                    store,
                    realtime_name: format!("kicksdb:rt:{short}"),
                    calls_name: format!("kicksdb:all:{short}"),
                }
            }
            None => Limits::Local {
                realtime: SlidingLimiter::new(config.realtime_per_minute, Duration::from_secs(60)),
                calls: SlidingLimiter::new(config.calls_per_minute, Duration::from_secs(60)),
            },
        };
        let mirror = mirror::Mirror::open(&config.mirror)?;
        Ok(Self {
            http: Upstream::new(&config.http)?,
            base,
            auth,
            limits,
            realtime_per_minute: config.realtime_per_minute,
            calls_per_minute: config.calls_per_minute,
            ttl: config.ttl,
            max_wait: config.max_wait,
            answers: quick_cache::sync::Cache::new(4096),
            paid_displays: std::sync::atomic::AtomicBool::new(true),
            quota_current: AtomicI64::new(-1),
            mirror,
            budget,
            prices: prices::PriceCache::default(),
            size_sales: prices::SizeSales::default(),
            coming: coming::ComingState::default(),
            clock: Arc::clone(&config.budget.clock),
        })
    }

    /// The mirror catalogue file.
    #[must_use]
    pub fn mirror_path(&self) -> &std::path::Path {
        self.mirror.path()
    }

    /// KicksDB's count of this key's requests this month (`X-Quota-Current`), once an answer
    /// told it.
    #[must_use]
    pub fn quota_current(&self) -> Option<u64> {
        u64::try_from(self.quota_current.load(Ordering::Relaxed)).ok()
    }
}
