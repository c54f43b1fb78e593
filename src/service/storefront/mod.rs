//! Real Shopify storefronts as the `retailer-a` source, read keyless from their public product
//! JSON (facts from `shared/research/shopify-storefront.md`): [`Storefronts`] looks a handle up
//! in the configured stores in turn, the first that has it answering, or in one store picked by
//! name (only a configured one: a request never makes the service fetch a URL of its choosing).
//!
//! Each lookup at a store reads `/products/{handle}.json` (prices with their currency, barcodes,
//! dates) and `/products/{handle}.js` (stock), mapped by [`mapping::product_from_wire`].
//!
//! A polite reader:
//! - at most one request per second per store ([`StorefrontConfig::min_interval`]), and an answer
//!   (or a "not found") reused for at most [`StorefrontConfig::cache_ttl`] (60 s, so a restock
//!   shows within about a minute), loaded once however many ask at the same time
//!   (`quick_cache`'s placeholder guard);
//! - the shared [`Upstream`] fetcher: a `User-Agent` naming Solescope, connect and request
//!   timeouts, a capped body, redirects followed only within the store's own origin;
//! - a 429 or 503 pauses the store for its `Retry-After`; a 401 (or a password page) is "this
//!   store is password-protected"; an HTML or bot-check page, a 403 or a 430 is "this store
//!   refuses automated reading"; a redirect to another host is refused;
//! - a store that fails [`StorefrontConfig::failures_before_pause`] times in a row is paused
//!   (30 s, doubling, at most 30 min) instead of being retried hot, and its health is written
//!   to the shared [`RetailerStores`] for Settings to show.
//!
//! # Glossary
//!
//! "Catalogue" means three things in this room:
//! - **the catalogue** (no adjective): the service's own product file (the demo's, an imported
//!   one, or the KicksDB mirror) that store products are matched against;
//! - **a store's catalogue**: everything a store publishes, read whole by the crawl from its
//!   `/products.json` feed (`crawl`, `feed`);
//! - **catalogue keys** (`catalogue_keys`): the catalogue's style codes and barcodes, read once
//!   for the matcher.
//!
//! The types, from the wire to the answers. What the crawl read is *crawled*, a store product
//! that is a catalogue product is *matched*:
//! - [`feed::CrawledProduct`], [`feed::CrawledVariant`]: a store product and a size of it as the
//!   crawl keeps them; [`matching::ProductKeys`]: what of one can identify it;
//! - [`store_db::StoreDb`]: the crawl's file (`stores.sqlite`), with a [`store_db::StoreRow`]
//!   per store, owned by the one [`worker::StoreWorker`] thread;
//! - [`crawled_stores::CrawledStores`]: the crawl's front, what it read answered (which store
//!   products are which catalogue product, how each store's crawl stands), and its background
//!   task;
//! - [`offers::MatchedProduct`]: a store product that is a catalogue product, with its sizes;
//!   [`crawled_stores::FlipStock`]: one store's matched products in stock, for the flips;
//!   [`drops::StoreDrop`]: a store product the release calendar may show;
//! - [`StoreReading`]: how a service reads the stores: the paced lookups, and a
//!   [`store_crawl::StoreCrawl`], the crawl or its absence as one value that answers either way;
//!   [`StoresInFront`]: those stores answering `retailer-a` in front of the marketplaces behind
//!   them.

mod front;
pub mod mapping;
pub mod wire;
// The catalogue crawl: new files only; `turns.rs` adds the crawl's hooks into this
// file's per-store pacing and pauses.
pub mod catalogue_keys;
pub mod crawl;
pub mod crawl_status;
pub mod crawled_stores;
pub mod drops;
pub mod feed;
pub mod matching;
pub mod offers;
pub mod shelf_feed;
pub mod store_crawl;
pub mod store_db;
mod turns;
pub mod worker;

pub use self::front::{StoreReading, StoresInFront};

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use reqwest::Url;
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};

use self::wire::{JsProduct, JsonEnvelope};
use crate::model::{RetailerProduct, RetailerStores, StoreHealth, StoreUrl};
use crate::service::marketplace::UpstreamError;
use crate::upstream::{FetchError, FetchKind, Fetched, Upstream, UpstreamConfig};

/// How the storefronts are read.
#[derive(Debug, Clone)]
pub struct StorefrontConfig {
    /// Least time between two requests to one store.
    pub min_interval: Duration,
    /// Longest an answer is reused.
    pub cache_ttl: Duration,
    /// Failures in a row after which a store is paused.
    pub failures_before_pause: u32,
    /// The first pause; each further failure doubles it.
    pub first_pause: Duration,
    /// The longest pause (and the longest `Retry-After` honoured).
    pub max_pause: Duration,
    /// The wait after a 429 or 503 without `Retry-After`.
    pub default_retry_after: Duration,
    /// Longest wait for a connection.
    pub connect_timeout: Duration,
    /// Longest wait for one request.
    pub request_timeout: Duration,
    /// Largest body read.
    pub max_body_bytes: usize,
}

impl Default for StorefrontConfig {
    fn default() -> Self {
        Self {
            min_interval: Duration::from_secs(1),
            cache_ttl: Duration::from_secs(60),
            failures_before_pause: 3,
            first_pause: Duration::from_secs(30),
            max_pause: Duration::from_secs(30 * 60),
            default_retry_after: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(8),
            // A sneaker's product JSON is tens of KB; its description HTML rarely more.
            max_body_bytes: 2 * 1024 * 1024,
        }
    }
}

/// Why one store gave no product.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StorefrontError {
    /// 404: the store has no product by that handle.
    #[error("{store} has no product '{handle}'")]
    NotFound {
        /// The store's label.
        store: String,
        /// The handle asked for.
        handle: String,
    },
    /// 404: the store's catalogue, read, has no product with the catalogue product's style code
    /// or barcode (it is not asked by the catalogue's slug: stores name products their own way).
    #[error("{why}")]
    NotSold {
        /// The store's label.
        store: String,
        /// Why, in a sentence naming the store and its catalogue's reading.
        why: String,
    },
    /// The store's catalogue is still being read (or its last reading failed): it is asked
    /// for a product by the store's own name for it, known once the catalogue is read, never
    /// by the catalogue's slug.
    #[error("{why}")]
    NotReadYet {
        /// The store's label.
        store: String,
        /// Why, in a sentence naming the store.
        why: String,
    },
    /// 401, or a password page.
    #[error("{store}: this store is password-protected")]
    PasswordProtected {
        /// The store's label.
        store: String,
    },
    /// An HTML or bot-check page instead of JSON, a 403 or a 430.
    #[error("{store}: this store refuses automated reading ({detail})")]
    RefusesReading {
        /// The store's label.
        store: String,
        /// What it answered.
        detail: String,
    },
    /// 429 or 503: the store asked us to slow down.
    #[error("{store}: the store asked to be read less often; it is asked again in {wait_secs} s")]
    RateLimited {
        /// The store's label.
        store: String,
        /// Seconds until it is asked again.
        wait_secs: u64,
    },
    /// The store is paused after failing again and again (or after a 429).
    #[error("{store}: not asked for another {wait_secs} s after failing: {last_error}")]
    Paused {
        /// The store's label.
        store: String,
        /// Seconds until it is asked again.
        wait_secs: u64,
        /// The failure that paused it.
        last_error: String,
    },
    /// A redirect to another host (or scheme or port).
    #[error("{store}: the store redirected to another site; only its own domain is read")]
    Redirected {
        /// The store's label.
        store: String,
    },
    /// No answer in time.
    #[error("{0}")]
    Timeout(String),
    /// Any other failure: unreachable, a body over the cap, a server error, a wrong shape.
    #[error("{0}")]
    Failed(String),
}

impl StorefrontError {
    fn is_answer(&self) -> bool {
        matches!(self, Self::NotFound { .. } | Self::NotSold { .. })
    }
}

impl From<StorefrontError> for UpstreamError {
    fn from(err: StorefrontError) -> Self {
        match err {
            StorefrontError::NotFound { .. } | StorefrontError::NotSold { .. } => {
                UpstreamError::NotFound(err.to_string())
            }
            StorefrontError::Timeout(_) => UpstreamError::Timeout(err.to_string()),
            StorefrontError::NotReadYet { why, .. } => UpstreamError::NotReady {
                message: why,
                retry_after_secs: NOT_READ_RETRY_SECS,
            },
            _ => UpstreamError::Failed(err.to_string()),
        }
    }
}

/// The `Retry-After` of a lookup at a store whose catalogue is still being read: a store of a
/// few thousand products is read in under a minute, at a request a second.
const NOT_READ_RETRY_SECS: u64 = 5;

/// What every store's failure to give `what` adds up to: 404 when each said it has no such
/// product, the one failure when there was one, else 502 naming each store's failure.
fn failures_error(failures: &[StorefrontError], what: &str) -> UpstreamError {
    match failures {
        [] => UpstreamError::NotFound("no retail store is configured".into()),
        [only] => only.clone().into(),
        all if all.iter().all(StorefrontError::is_answer) => UpstreamError::NotFound(format!(
            "no configured store has a product {:?}",
            what.chars().take(80).collect::<String>()
        )),
        all => UpstreamError::Failed(
            all.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        ),
    }
}

/// A store's reader and its state.
struct Shop {
    url: StoreUrl,
    base: Url,
    upstream: Upstream,
    /// When the next request may go out; held across the wait, so requests queue in order.
    next_request: tokio::sync::Mutex<Instant>,
    state: Mutex<ShopState>,
}

#[derive(Debug, Default)]
struct ShopState {
    failures_in_row: u32,
    paused_until: Option<Instant>,
    last_error: Option<String>,
}

/// An answer kept for reuse: when it was read, and the product or "not found".
#[derive(Clone)]
struct Cached {
    at: Instant,
    answer: Result<RetailerProduct, StorefrontError>,
}

/// The storefronts behind `retailer-a`.
pub struct Storefronts {
    stores: RetailerStores,
    config: StorefrontConfig,
    shops: Mutex<HashMap<StoreUrl, Arc<Shop>>>,
    cache: quick_cache::sync::Cache<(StoreUrl, String), Cached>,
}

impl std::fmt::Debug for Storefronts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storefronts")
            .field("stores", &self.stores.list())
            .finish_non_exhaustive()
    }
}

/// Answers kept at most (a few per product the window or the monitor looks at).
const CACHED_ANSWERS: usize = 1_000;

impl Storefronts {
    /// A reader of `stores` (read again on every lookup, so changes apply at once).
    #[must_use]
    pub fn new(stores: RetailerStores, config: StorefrontConfig) -> Self {
        Self {
            stores,
            config,
            shops: Mutex::new(HashMap::new()),
            cache: quick_cache::sync::Cache::new(CACHED_ANSWERS),
        }
    }

    /// The shared store list.
    #[must_use]
    pub fn stores(&self) -> &RetailerStores {
        &self.stores
    }

    /// Whether any store is configured (else the simulator answers for `retailer-a`).
    #[must_use]
    pub fn is_active(&self) -> bool {
        !self.stores.is_empty()
    }

    /// `handle` from the store named `store` (only a configured one), or from each configured
    /// store in turn, the first that has it answering. When none has it: 404 if every store
    /// answered "not found", else 502 naming each store's failure.
    pub async fn product(
        &self,
        handle: &str,
        store: Option<&str>,
    ) -> Result<RetailerProduct, UpstreamError> {
        self.product_and_store(handle, store)
            .await
            .map(|(product, _)| product)
    }

    /// [`product`](Self::product), with the store that answered.
    pub async fn product_and_store(
        &self,
        handle: &str,
        store: Option<&str>,
    ) -> Result<(RetailerProduct, StoreUrl), UpstreamError> {
        let mut failures: Vec<StorefrontError> = Vec::new();
        for url in self.named_or_all(store)? {
            match self.product_at(&url, handle).await {
                Ok(product) => return Ok((product, url)),
                Err(err) => failures.push(err),
            }
        }
        Err(failures_error(&failures, handle))
    }

    /// The store named `store` (only a configured one: 404 otherwise), or every configured
    /// store in order.
    pub fn named_or_all(&self, store: Option<&str>) -> Result<Vec<StoreUrl>, UpstreamError> {
        Ok(match store {
            // 404 rather than 400: the name is well formed, there is just no such store here.
            Some(name) => vec![self.stores.find(name).ok_or_else(|| {
                UpstreamError::NotFound(format!(
                    "no store named {name:?} is configured; the configured stores are: {}",
                    self.store_names()
                ))
            })?],
            None => self.stores.list(),
        })
    }

    fn store_names(&self) -> String {
        let names: Vec<String> = self
            .stores
            .list()
            .iter()
            .map(|s| s.label().to_owned())
            .collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    }

    fn shop(&self, url: &StoreUrl) -> Result<Arc<Shop>, StorefrontError> {
        let mut shops = self.shops.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(shop) = shops.get(url) {
            return Ok(Arc::clone(shop));
        }
        let failed =
            |message: String| StorefrontError::Failed(format!("{}: {message}", url.label()));
        let base = Url::parse(url.as_str()).map_err(|err| failed(err.to_string()))?;
        let mut upstream = UpstreamConfig::new(format!("storefront {}", url.label()));
        upstream.connect_timeout = self.config.connect_timeout;
        upstream.request_timeout = self.config.request_timeout;
        upstream.max_body_bytes = self.config.max_body_bytes;
        let upstream = Upstream::new(&upstream).map_err(|err| failed(err.message))?;
        let shop = Arc::new(Shop {
            url: url.clone(),
            base,
            upstream,
            next_request: tokio::sync::Mutex::new(Instant::now()),
            state: Mutex::new(ShopState::default()),
        });
        shops.insert(url.clone(), Arc::clone(&shop));
        Ok(shop)
    }

    /// One store's answer for `handle`: reused when younger than the TTL, else read (once, for
    /// every caller waiting on it).
    async fn product_at(
        &self,
        url: &StoreUrl,
        handle: &str,
    ) -> Result<RetailerProduct, StorefrontError> {
        let key = (url.clone(), handle.to_owned());
        for _ in 0..2 {
            match self.cache.get_value_or_guard_async(&key).await {
                Ok(cached) if cached.at.elapsed() < self.config.cache_ttl => {
                    return cached.answer;
                }
                Ok(_) => {
                    self.cache.remove(&key);
                }
                Err(guard) => {
                    let shop = self.shop(url)?;
                    let answer = self.read(&shop, handle).await;
                    self.note(&shop, answer.as_ref().err());
                    if answer.is_ok() || answer.as_ref().is_err_and(StorefrontError::is_answer) {
                        let _ = guard.insert(Cached {
                            at: Instant::now(),
                            answer: answer.clone(),
                        });
                    }
                    return answer;
                }
            }
        }
        // Stale twice in a row (another caller raced the removal): read without the cache.
        let shop = self.shop(url)?;
        let answer = self.read(&shop, handle).await;
        self.note(&shop, answer.as_ref().err());
        answer
    }

    /// Reads both product endpoints of `handle` and maps them.
    async fn read(&self, shop: &Shop, handle: &str) -> Result<RetailerProduct, StorefrontError> {
        let json: JsonEnvelope = self.fetch(shop, handle, "json").await?;
        let js: JsProduct = self.fetch(shop, handle, "js").await?;
        mapping::product_from_wire(&shop.url, &json.product, &js)
            .map_err(|err| StorefrontError::Failed(format!("{}: {err}", shop.url.label())))
    }

    /// `GET /products/{handle}.{extension}`, in the store's turn, decoded as `T`.
    async fn fetch<T: serde::de::DeserializeOwned>(
        &self,
        shop: &Shop,
        handle: &str,
        extension: &str,
    ) -> Result<T, StorefrontError> {
        Self::check_paused(shop)?;
        let mut url = shop.base.clone();
        url.path_segments_mut()
            .map_err(|()| StorefrontError::Failed(format!("{}: not a base URL", shop.url.label())))?
            .clear()
            .push("products")
            .push(&format!("{handle}.{extension}"));
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        {
            let mut next = shop.next_request.lock().await;
            tokio::time::sleep_until((*next).into()).await;
            *next = Instant::now() + self.config.min_interval;
        }
        let fetched = shop
            .upstream
            .get(url, headers)
            .await
            .map_err(|err| fetch_error(&shop.url, &err))?;
        self.classify(shop, handle, &fetched)?;
        fetched
            .json::<T>(shop.upstream.name())
            .map_err(|err| match err.kind {
                FetchKind::NotJson => not_json(&shop.url, &fetched),
                _ => fetch_error(&shop.url, &err),
            })
    }

    /// The error a non-2xx answer stands for (`Ok` for a 2xx).
    fn classify(
        &self,
        shop: &Shop,
        handle: &str,
        fetched: &Fetched,
    ) -> Result<(), StorefrontError> {
        let store = || shop.url.label().to_owned();
        match fetched.status {
            200..=299 => Ok(()),
            300..=399 => Err(StorefrontError::Redirected { store: store() }),
            401 => Err(StorefrontError::PasswordProtected { store: store() }),
            403 | 430 => Err(StorefrontError::RefusesReading {
                store: store(),
                detail: format!("HTTP {}", fetched.status),
            }),
            404 | 410 => Err(StorefrontError::NotFound {
                store: store(),
                handle: handle.to_owned(),
            }),
            429 | 503 => {
                let asked = fetched
                    .status_error(shop.upstream.name(), "")
                    .and_then(|err| err.retry_after);
                let wait = asked
                    .unwrap_or(self.config.default_retry_after)
                    .clamp(Duration::from_secs(1), self.config.max_pause);
                let mut state = shop.state.lock().unwrap_or_else(PoisonError::into_inner);
                state.paused_until = Some(Instant::now() + wait);
                Err(StorefrontError::RateLimited {
                    store: store(),
                    wait_secs: wait.as_secs(),
                })
            }
            status => Err(StorefrontError::Failed(format!(
                "{}: the store answered HTTP {status}",
                store()
            ))),
        }
    }

    /// Refuses a request to a paused store.
    fn check_paused(shop: &Shop) -> Result<(), StorefrontError> {
        let state = shop.state.lock().unwrap_or_else(PoisonError::into_inner);
        match state.paused_until {
            Some(until) if until > Instant::now() => Err(StorefrontError::Paused {
                store: shop.url.label().to_owned(),
                wait_secs: until.saturating_duration_since(Instant::now()).as_secs() + 1,
                last_error: state.last_error.clone().unwrap_or_default(),
            }),
            _ => Ok(()),
        }
    }

    /// Counts a lookup's outcome at `shop`: an answer (or "not found") ends a run of failures;
    /// the `failures_before_pause`th failure in a row pauses the store. The health goes to the
    /// shared list.
    fn note(&self, shop: &Shop, error: Option<&StorefrontError>) {
        let now = Instant::now();
        let health = {
            let mut state = shop.state.lock().unwrap_or_else(PoisonError::into_inner);
            match error {
                None | Some(StorefrontError::NotFound { .. }) => *state = ShopState::default(),
                // Already paused: nothing new was learnt.
                Some(StorefrontError::Paused { .. }) => {}
                Some(err) => {
                    state.failures_in_row = state.failures_in_row.saturating_add(1);
                    state.last_error = Some(err.to_string());
                    let over = state
                        .failures_in_row
                        .checked_sub(self.config.failures_before_pause);
                    if let Some(over) = over {
                        let pause = self
                            .config
                            .first_pause
                            .saturating_mul(1 << over.min(16))
                            .min(self.config.max_pause);
                        let until = now + pause;
                        state.paused_until =
                            Some(state.paused_until.map_or(until, |u| u.max(until)));
                    }
                    if let StorefrontError::RateLimited { .. } = err {
                        tracing::info!("{err}");
                    } else {
                        tracing::warn!("{err}");
                    }
                }
            }
            StoreHealth {
                failures_in_row: state.failures_in_row,
                last_error: state.last_error.clone(),
                paused_until_unix: state.paused_until.filter(|u| *u > now).map(|until| {
                    let wait = i64::try_from(until.duration_since(now).as_secs()).unwrap_or(0);
                    chrono::Utc::now().timestamp() + wait
                }),
            }
        };
        self.stores.set_health(&shop.url, health);
    }
}

/// A transport failure at `store`, in the storefront's words.
fn fetch_error(store: &StoreUrl, err: &FetchError) -> StorefrontError {
    let message = format!("{}: {}", store.label(), err.message);
    match err.kind {
        FetchKind::Timeout => StorefrontError::Timeout(message),
        FetchKind::Rejected if err.message.contains("redirect") => StorefrontError::Redirected {
            store: store.label().to_owned(),
        },
        _ => StorefrontError::Failed(message),
    }
}

/// A 2xx answer that is not JSON: a password page, or a page (a bot check) refusing us.
fn not_json(store: &StoreUrl, fetched: &Fetched) -> StorefrontError {
    let head = &fetched.body[..fetched.body.len().min(64 * 1024)];
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    let store = store.label().to_owned();
    if text.contains("action=\"/password\"") || text.contains("/password\"") {
        StorefrontError::PasswordProtected { store }
    } else {
        StorefrontError::RefusesReading {
            store,
            detail: if fetched.is_html() {
                "an HTML page instead of JSON".into()
            } else {
                "an answer that is not JSON".into()
            },
        }
    }
}
