//! The typed HTTP client of the Sneaker Market Data Service interface: one async method per
//! endpoint, returning the [`model`](crate::model) types, used alike for the in-process demo
//! service and for a remote server.
//!
//! - Errors are [`ClientError`]s with an [`ErrorKind`] (see [`error`] for how answers map).
//! - Every call has a connect timeout and a per-request timeout, and the whole call, retries and
//!   waits included, is bounded by [`ClientConfig::call_timeout`]. Calls are retried with
//!   exponential backoff and jitter on connection errors, timeouts and 5xx (honouring a
//!   `Retry-After` they carry), and on 429 only when its `Retry-After` is at most
//!   [`ClientConfig::max_retry_after`]; never on other 4xx.
//! - The real-time budget is tracked from the `X-RateLimit-*` headers, or counted by the client
//!   when a remote sends none: [`Client::realtime_budget`]. When the budget is known to be spent,
//!   a real-time call answers [`ErrorKind::RateLimited`] without sending a request.
//! - The key's tier is learned from the `X-Key-Type` header of any answer, otherwise from the
//!   first 403: [`Client::tier`]. No request is ever made just to find it out.
//! - The key goes only in the `Authorization` header, marked sensitive so HTTP-level logging
//!   leaves it out; it is never in a URL, a log line, an error message or `Debug` output.
//! - Keys are kept in a [`KeyStore`] (the OS keyring, see [`keystore`]).
//! - No body is read past [`ClientConfig::max_body_bytes`]: a bigger answer (announced or
//!   streamed) is [`ErrorKind::TooLarge`], and the client never holds more than the cap.
//! - What comes from a server and leaves the client's hands is checked here too: image URLs and
//!   redirects ([`images`]), image sizes before decoding ([`images::check_image_size`]), links
//!   before opening ([`links::openable_url`]).

pub mod budget;
pub mod config;
pub mod error;
pub mod images;
pub mod keystore;
pub mod links;
mod prices;
pub mod releases;
mod response;

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rand::Rng;
use reqwest::Url;
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde::de::DeserializeOwned;

use self::budget::BudgetTracker;
pub use self::budget::{Budget, BudgetSource, DEFAULT_REALTIME_PER_MINUTE};
use self::config::parse_base_url;
pub use self::config::{ClientConfig, DEFAULT_MAX_BODY_BYTES, RelatedQuery, SearchQuery};
use self::error::key_tier_from_message;
pub use self::error::{ClientError, ErrorKind};
pub use self::keystore::{KEYRING_SERVICE, KeyStore, KeyStoreError, KeyringStore, MemoryKeyStore};
pub use self::response::{BodyTooLarge, ReadError, read_body_capped};
use self::response::{decode, error_chain, header_text, status_error, transport_error};
use crate::model::{
    Country, Product, ResaleAEnvelope, ResaleBEnvelope, RetailerEnvelope, SearchHit,
    SearchResponse, ServiceSources, Stats, Subscription, Tier, V2Envelope, WeeklyOrder,
};

/// Response header naming the key's tier.
const KEY_TYPE_HEADER: &str = "x-key-type";
/// Longest backoff between two attempts, before jitter.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// A typed client of one server with one key. Cheap to clone: clones share the connection
/// pool, the learned tier and the real-time budget.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    base: Url,
    /// `Authorization` value, marked sensitive.
    auth: Option<HeaderValue>,
    request_timeout: Duration,
    call_timeout: Duration,
    retries: u32,
    retry_backoff: Duration,
    max_retry_after: Duration,
    max_body_bytes: usize,
    learned: Mutex<Learned>,
}

/// What the client learned from answers.
struct Learned {
    tier: Option<Tier>,
    budget: BudgetTracker,
    origin: Option<DataOrigin>,
    upstream_quota: Option<u64>,
}

/// Where the market figures of the newest answer came from, as the server said
/// (`X-Solescope-Source`, `X-Solescope-As-Of`, `X-Solescope-Stale-Reason`): catalogue and
/// resale answers, not a store's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataOrigin {
    /// The source's name as sent (`catalogue`, `simulator`, `kicksdb`, `kicksdb-mirror`, or a
    /// name this client does not know).
    pub source: String,
    /// When a mirror's figures were fetched (RFC 3339).
    pub as_of: Option<String>,
    /// Why the live source did not answer, when a mirror did.
    pub stale_reason: Option<String>,
}

use crate::model::origin::{
    AS_OF_HEADER, QUOTA_HEADER, SOURCE_HEADER, STALE_REASON_HEADER, STORE_HEADER,
};

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.base.as_str())
            .field("api_key", &self.inner.auth.as_ref().map(|_| "[redacted]"))
            .field("tier", &self.tier())
            .finish_non_exhaustive()
    }
}

/// The endpoint groups the client treats differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Budgeted {
    /// Spends the real-time budget.
    Realtime,
    /// Not rate limited.
    No,
}

impl Client {
    /// A client for `config.base_url`. Sends nothing.
    ///
    /// Fails with [`ErrorKind::Config`] when the base URL is not an `http(s)` URL (or carries
    /// credentials, a query or a fragment) or the key cannot be sent in an HTTP header.
    pub fn new(config: ClientConfig) -> Result<Client, ClientError> {
        let base = parse_base_url(&config.base_url)?;
        let api_key = config.api_key.unwrap_or_default();
        let auth = match api_key.trim() {
            "" => None,
            key => {
                let mut value = HeaderValue::from_str(key).map_err(|_| {
                    ClientError::new(
                        ErrorKind::Config,
                        "the API key contains characters that cannot be sent in an HTTP header",
                    )
                })?;
                value.set_sensitive(true);
                Some(value)
            }
        };
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("solescope/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|err| {
                ClientError::new(
                    ErrorKind::Config,
                    format!("the HTTP client could not be built: {}", error_chain(&err)),
                )
            })?;
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base,
                auth,
                request_timeout: config.request_timeout,
                call_timeout: config.call_timeout,
                retries: config.retries,
                retry_backoff: config.retry_backoff,
                max_retry_after: config.max_retry_after,
                max_body_bytes: config.max_body_bytes,
                learned: Mutex::new(Learned {
                    tier: None,
                    budget: BudgetTracker::new(),
                    origin: None,
                    upstream_quota: None,
                }),
            }),
        })
    }

    /// The server's base URL, normalised (always ends in `/`).
    #[must_use]
    pub fn base_url(&self) -> &str {
        self.inner.base.as_str()
    }

    /// Whether requests carry a key.
    #[must_use]
    pub fn has_key(&self) -> bool {
        self.inner.auth.is_some()
    }

    /// The key's tier as last reported by the server (`X-Key-Type`), or inferred from the first
    /// 403; `None` until an answer told, and again after a 401.
    #[must_use]
    pub fn tier(&self) -> Option<Tier> {
        self.learned().tier
    }

    /// Where the newest catalogue answer's figures came from, when the server said.
    #[must_use]
    pub fn data_origin(&self) -> Option<DataOrigin> {
        self.learned().origin.clone()
    }

    /// The live source's count of this month's requests, when the server passes it on.
    #[must_use]
    pub fn upstream_quota(&self) -> Option<u64> {
        self.learned().upstream_quota
    }

    /// The real-time requests left in the current window.
    #[must_use]
    pub fn realtime_budget(&self) -> Budget {
        self.learned().budget.current(Instant::now())
    }

    /// `GET /search`: a page of hits, best first.
    pub async fn search(&self, query: &SearchQuery) -> Result<SearchResponse, ClientError> {
        let mut url = self.url(&[("", "search")])?;
        {
            let mut pairs = url.query_pairs_mut();
            if !query.text.is_empty() {
                pairs.append_pair("query", &query.text);
            }
            if let Some(page) = query.page {
                pairs.append_pair("page", &page.to_string());
            }
            if let Some(limit) = query.limit {
                pairs.append_pair("limit", &limit.to_string());
            }
            if let Some(gtin) = &query.gtin {
                pairs.append_pair("gtin", gtin);
            }
            if let Some(sku) = &query.sku {
                pairs.append_pair("sku", sku);
            }
            if query.country != Country::Us {
                pairs.append_pair("country", query.country.code());
            }
            if let Some(store) = &query.in_stock_at {
                pairs.append_pair("in_stock_at", store);
                if let Some(size) = &query.size {
                    pairs.append_pair("size", size);
                }
            }
        }
        drop_empty_query(&mut url);
        self.get_with(url, Budgeted::No, query.cached_only).await
    }

    /// `GET /product/{id}`: one product (UUID or slug) in the search-hit shape.
    pub async fn product(&self, id: &str, country: Country) -> Result<SearchHit, ClientError> {
        let mut url = self.url(&[("", "product"), ("product id", id)])?;
        if country != Country::Us {
            url.query_pairs_mut().append_pair("country", country.code());
        }
        self.get(url, Budgeted::No).await
    }

    /// `GET /stats`: catalogue size per dataset.
    pub async fn stats(&self) -> Result<Stats, ClientError> {
        let url = self.url(&[("", "stats")])?;
        self.get(url, Budgeted::No).await
    }

    /// `GET /api/v2/products/{id}`: one product (UUID or slug); free keys get fewer fields.
    pub async fn product_v2(&self, id: &str) -> Result<V2Envelope<Product>, ClientError> {
        self.product_v2_dated(id).await.map(|(product, _)| product)
    }

    /// [`product_v2`](Self::product_v2) with when its figures were fetched: the `X-Solescope-As-Of`
    /// of an answer kept from a live source, else now (a live or catalogue answer is current).
    pub async fn product_v2_dated(
        &self,
        id: &str,
    ) -> Result<(V2Envelope<Product>, chrono::DateTime<chrono::Utc>), ClientError> {
        let url = self.url(&[
            ("", "api"),
            ("", "v2"),
            ("", "products"),
            ("product id", id),
        ])?;
        let (product, headers) = self.get_full(url, Budgeted::No, false).await?;
        let as_of = header_text(&headers, AS_OF_HEADER)
            .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
            .map_or_else(chrono::Utc::now, |at| at.with_timezone(&chrono::Utc));
        Ok((product, as_of))
    }

    /// `GET /api/v2/products/{id}/orders`: up to 52 weeks, newest first (pro).
    pub async fn orders(&self, id: &str) -> Result<V2Envelope<Vec<WeeklyOrder>>, ClientError> {
        let url = self.url(&[
            ("", "api"),
            ("", "v2"),
            ("", "products"),
            ("product id", id),
            ("", "orders"),
        ])?;
        self.get(url, Budgeted::No).await
    }

    /// `GET /api/v3/realtime/resale-a/products/{id}`: live product (pro; spends the budget).
    pub async fn resale_a_product(&self, id: &str) -> Result<ResaleAEnvelope, ClientError> {
        let url = self.url(&[
            ("", "api"),
            ("", "v3"),
            ("", "realtime"),
            ("", "resale-a"),
            ("", "products"),
            ("product id", id),
        ])?;
        self.get(url, Budgeted::Realtime).await
    }

    /// `GET /api/v3/realtime/resale-b/products/{id}/related`: live related products (pro;
    /// spends the budget).
    pub async fn resale_b_related(
        &self,
        id: &str,
        query: &RelatedQuery,
    ) -> Result<ResaleBEnvelope, ClientError> {
        let mut url = self.url(&[
            ("", "api"),
            ("", "v3"),
            ("", "realtime"),
            ("", "resale-b"),
            ("", "products"),
            ("product id", id),
            ("", "related"),
        ])?;
        {
            let mut pairs = url.query_pairs_mut();
            for (name, value) in [
                ("country", &query.country),
                ("currency", &query.currency),
                ("market", &query.market),
            ] {
                if let Some(value) = value {
                    pairs.append_pair(name, value);
                }
            }
        }
        drop_empty_query(&mut url);
        self.get(url, Budgeted::Realtime).await
    }

    /// `GET /api/v3/retailer-a/products/{slug}`: the retailer's product (free).
    pub async fn retailer_product(&self, slug: &str) -> Result<RetailerEnvelope, ClientError> {
        self.retailer_product_at(slug, None).await
    }

    /// `GET /api/v3/retailer-a/products/{slug}?store=`: the product from one of the server's
    /// storefronts (`store`: its host, `kith.com`), or from the first that has it (`None`).
    pub async fn retailer_product_at(
        &self,
        slug: &str,
        store: Option<&str>,
    ) -> Result<RetailerEnvelope, ClientError> {
        let mut url = self.url(&[
            ("", "api"),
            ("", "v3"),
            ("", "retailer-a"),
            ("", "products"),
            ("slug", slug),
        ])?;
        if let Some(store) = store {
            url.query_pairs_mut().append_pair("store", store);
        }
        self.get(url, Budgeted::No).await
    }

    /// `GET /api/v2/sources`: what the server's sources answer (the catalogue's source, each
    /// real-time lookup's source with its countries, currencies, markets and stores).
    pub async fn sources(&self) -> Result<V2Envelope<ServiceSources>, ClientError> {
        let url = self.url(&[("", "api"), ("", "v2"), ("", "sources")])?;
        self.get(url, Budgeted::No).await
    }

    /// `GET /api/v2/subscriptions`: the pro and ultra offers (readable without a key).
    pub async fn subscriptions(&self) -> Result<V2Envelope<Vec<Subscription>>, ClientError> {
        let url = self.url(&[("", "api"), ("", "v2"), ("", "subscriptions")])?;
        self.get(url, Budgeted::No).await
    }

    /// `GET /api/v2/subscriptions/{tier}`: what one tier offers (readable without a key).
    pub async fn subscription(&self, tier: Tier) -> Result<V2Envelope<Subscription>, ClientError> {
        let url = self.url(&[
            ("", "api"),
            ("", "v2"),
            ("", "subscriptions"),
            ("", tier.as_str()),
        ])?;
        self.get(url, Budgeted::No).await
    }

    fn learned(&self) -> MutexGuard<'_, Learned> {
        // Every update under this lock is a plain assignment, so a poisoned lock holds whole values.
        self.inner
            .learned
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The base URL with `segments` appended, each percent-encoded as one path segment (so ids
    /// with `/`, `?`, `%`, spaces or emoji stay one segment). Caller-given segments are named
    /// (`what`) so a refusal can say which; fixed ones have an empty name.
    fn url(&self, segments: &[(&str, &str)]) -> Result<Url, ClientError> {
        for (what, segment) in segments {
            if what.is_empty() {
                continue;
            }
            if segment.trim().is_empty() {
                return Err(ClientError::new(
                    ErrorKind::BadRequest,
                    format!("the {what} is empty"),
                ));
            }
            // URLs resolve `.` and `..` (even percent-encoded) as directory steps.
            if matches!(*segment, "." | "..") {
                return Err(ClientError::new(
                    ErrorKind::BadRequest,
                    format!("the {what} {segment:?} cannot be sent as a URL path segment"),
                ));
            }
        }
        let mut url = self.inner.base.clone();
        url.path_segments_mut()
            .map_err(|()| ClientError::new(ErrorKind::Config, "the base URL cannot take a path"))?
            .pop_if_empty()
            .extend(segments.iter().map(|(_, segment)| *segment));
        Ok(url)
    }

    /// One call: attempts with retries and waits, all within `call_timeout`.
    async fn get<T: DeserializeOwned>(
        &self,
        url: Url,
        budgeted: Budgeted,
    ) -> Result<T, ClientError> {
        self.get_with(url, budgeted, false).await
    }

    /// [`get`](Self::get), asking only for held answers when `cached_only`.
    async fn get_with<T: DeserializeOwned>(
        &self,
        url: Url,
        budgeted: Budgeted,
        cached_only: bool,
    ) -> Result<T, ClientError> {
        self.get_full(url, budgeted, cached_only)
            .await
            .map(|(value, _)| value)
    }

    /// [`get_with`](Self::get_with), with the answer's headers.
    async fn get_full<T: DeserializeOwned>(
        &self,
        url: Url,
        budgeted: Budgeted,
        cached_only: bool,
    ) -> Result<(T, HeaderMap), ClientError> {
        let deadline = Instant::now() + self.inner.call_timeout;
        let max_attempts = self.inner.retries.saturating_add(1);
        let mut attempts = 0;
        loop {
            if budgeted == Budgeted::Realtime {
                self.wait_for_budget(&url, deadline, attempts).await?;
            }
            let timeout = deadline
                .saturating_duration_since(Instant::now())
                .min(self.inner.request_timeout);
            if timeout.is_zero() {
                return Err(self.gave_up(&url, attempts));
            }
            attempts += 1;
            let started = Instant::now();
            let err = match self.attempt(&url, budgeted, timeout, cached_only).await {
                Ok(value) => return Ok(value),
                Err(err) => err,
            };
            let mut err = err.with_url(url.as_str());
            err.attempts = attempts;
            self.redact(&mut err.message);
            tracing::debug!(
                url = url.as_str(),
                attempt = attempts,
                elapsed_ms = started.elapsed().as_millis() as u64,
                "GET failed: {err}"
            );
            let Some(delay) = self.retry_delay(&err, attempts) else {
                return Err(err);
            };
            if attempts >= max_attempts || Instant::now() + delay >= deadline {
                return Err(err);
            }
            tokio::time::sleep(delay).await;
        }
    }

    /// Before a real-time request: when the budget is known to be spent, waits for the window
    /// to reset if that is short and fits the call, else answers `RateLimited` without sending.
    async fn wait_for_budget(
        &self,
        url: &Url,
        deadline: Instant,
        attempts: u32,
    ) -> Result<(), ClientError> {
        let (wait, budget) = {
            let learned = self.learned();
            let now = Instant::now();
            (learned.budget.wait_needed(now), learned.budget.current(now))
        };
        let Some(wait) = wait else {
            return Ok(());
        };
        if wait <= self.inner.max_retry_after && Instant::now() + wait < deadline {
            tokio::time::sleep(wait).await;
            return Ok(());
        }
        let by = match budget.source {
            BudgetSource::Server => "as the server reported",
            BudgetSource::Counted | BudgetSource::Assumed => "counted by the client",
        };
        let mut err = ClientError::new(
            ErrorKind::RateLimited,
            format!(
                "the real-time budget of {} requests per minute is spent ({by}); it resets in {} s",
                budget.limit,
                wait.as_secs_f64().ceil() as u64
            ),
        )
        .with_url(url.as_str());
        err.retry_after = Some(wait);
        err.attempts = attempts;
        Err(err)
    }

    fn gave_up(&self, url: &Url, attempts: u32) -> ClientError {
        let mut err = ClientError::new(
            ErrorKind::Timeout,
            format!(
                "no answer within the call limit of {} ms",
                self.inner.call_timeout.as_millis()
            ),
        )
        .with_url(url.as_str());
        err.attempts = attempts;
        err
    }

    /// How long to wait before retrying after `err`, or `None` when it is not worth retrying.
    fn retry_delay(&self, err: &ClientError, attempts: u32) -> Option<Duration> {
        match err.kind {
            ErrorKind::Connection | ErrorKind::Timeout => Some(self.backoff(attempts)),
            ErrorKind::Server => match err.retry_after {
                Some(wait) if wait > self.inner.max_retry_after => None,
                Some(wait) => Some(wait.max(self.backoff(attempts))),
                None => Some(self.backoff(attempts)),
            },
            ErrorKind::RateLimited => err
                .retry_after
                .filter(|wait| *wait <= self.inner.max_retry_after),
            _ => None,
        }
    }

    /// `retry_backoff x 2^(attempts-1)`, capped, scaled by a random factor in [0.5, 1) so
    /// clients refused together do not come back together.
    fn backoff(&self, attempts: u32) -> Duration {
        let exponent = attempts.saturating_sub(1).min(16);
        let base = self
            .inner
            .retry_backoff
            .saturating_mul(1 << exponent)
            .min(MAX_BACKOFF);
        base.mul_f64(rand::rng().random_range(0.5..1.0))
    }

    /// One request and its answer.
    async fn attempt<T: DeserializeOwned>(
        &self,
        url: &Url,
        budgeted: Budgeted,
        timeout: Duration,
        cached_only: bool,
    ) -> Result<(T, HeaderMap), ClientError> {
        let mut request = self
            .inner
            .http
            .get(url.clone())
            .timeout(timeout)
            .header(header::ACCEPT, "application/json");
        if cached_only {
            request = request.header(header::CACHE_CONTROL, "only-if-cached");
        }
        if let Some(auth) = &self.inner.auth {
            request = request.header(header::AUTHORIZATION, auth.clone());
        }
        let started = Instant::now();
        let response = request
            .send()
            .await
            .map_err(|err| transport_error(&err, timeout))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        tracing::debug!(
            url = url.as_str(),
            status,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "GET"
        );
        self.learn_from_headers(&headers, status, budgeted);
        let is_success = (200..300).contains(&status);
        let body = match read_body_capped(response, self.inner.max_body_bytes).await {
            Ok(body) => body,
            Err(ReadError::Transport(err)) => return Err(transport_error(&err, timeout)),
            Err(ReadError::TooLarge(too_large)) if is_success => {
                return Err(ClientError::new(ErrorKind::TooLarge, too_large.to_string()));
            }
            // An error status keeps its kind (a 5xx stays worth retrying); its body is only a
            // message, and this one is not read.
            Err(ReadError::TooLarge(too_large)) => {
                let mut err = status_error(status, &headers, b"{}");
                err.message = format!("{}; {too_large}", err.message);
                return Err(err);
            }
        };
        if is_success {
            decode(&body, &headers).map(|value| (value, headers))
        } else {
            let err = status_error(status, &headers, &body);
            if err.kind == ErrorKind::Forbidden {
                self.learn_from_refusal(&err, &headers);
            }
            Err(err)
        }
    }

    fn learn_from_headers(&self, headers: &HeaderMap, status: u16, budgeted: Budgeted) {
        let reported =
            header_text(headers, KEY_TYPE_HEADER).and_then(|text| text.parse::<Tier>().ok());
        let mut learned = self.learned();
        if let Some(tier) = reported {
            learned.tier = Some(tier);
        } else if status == 401 {
            learned.tier = None;
        }
        if budgeted == Budgeted::Realtime {
            learned.budget.record(headers, status, Instant::now());
        }
        if let Some(quota) = header_text(headers, QUOTA_HEADER).and_then(|q| q.parse().ok()) {
            learned.upstream_quota = Some(quota);
        }
        // Every source a server names, whatever it is; a store's answer (retail price and
        // stock, shown with its store) says nothing of where the market prices come from.
        if let Some(source) = header_text(headers, SOURCE_HEADER)
            .filter(|_| header_text(headers, STORE_HEADER).is_none())
            .filter(|_| (200..300).contains(&status))
        {
            learned.origin = Some(DataOrigin {
                source: source.to_owned(),
                as_of: header_text(headers, AS_OF_HEADER).map(str::to_owned),
                stale_reason: header_text(headers, STALE_REASON_HEADER).map(str::to_owned),
            });
        }
    }

    /// A 403 from a server that did not name the key's tier: the message may ("this key is
    /// free"); otherwise a refusal that needs pro means the key is free.
    fn learn_from_refusal(&self, err: &ClientError, headers: &HeaderMap) {
        if headers.contains_key(KEY_TYPE_HEADER) {
            return;
        }
        let inferred = key_tier_from_message(&err.message).or(match err.required_tier {
            Some(Tier::Pro) => Some(Tier::Free),
            _ => None,
        });
        let mut learned = self.learned();
        if learned.tier.is_none() {
            learned.tier = inferred;
        }
    }

    /// Removes the key from text that came from elsewhere (a server could echo it).
    fn redact(&self, text: &mut String) {
        let Some(key) = self.inner.auth.as_ref().and_then(|auth| auth.to_str().ok()) else {
            return;
        };
        if !key.is_empty() && text.contains(key) {
            *text = text.replace(key, "[redacted]");
        }
    }
}

fn drop_empty_query(url: &mut Url) {
    if url.query() == Some("") {
        url.set_query(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(base_url: &str, key: Option<&str>) -> Client {
        Client::new(ClientConfig::new(base_url, key.map(str::to_owned))).unwrap()
    }

    #[test]
    fn path_segments_are_percent_encoded() {
        let client = client("http://127.0.0.1:9/prefix/", None);
        let url = client
            .url(&[("", "product"), ("product id", "a/b c?d#e%f👟")])
            .unwrap();
        assert_eq!(
            url.as_str(),
            "http://127.0.0.1:9/prefix/product/a%2Fb%20c%3Fd%23e%25f%F0%9F%91%9F"
        );
        let err = client
            .url(&[("", "product"), ("product id", "..")])
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadRequest);
        let err = client
            .url(&[("", "product"), ("product id", " ")])
            .unwrap_err();
        assert_eq!(err.message, "the product id is empty");
    }

    #[test]
    fn calls_can_be_spawned_on_a_multi_threaded_runtime() {
        fn assert_send<T: Send>(_: &T) {}
        fn assert_shareable<T: Send + Sync + Clone + 'static>() {}
        assert_shareable::<Client>();
        let client = client("http://127.0.0.1:9", None);
        let query = SearchQuery::default();
        assert_send(&client.search(&query));
        assert_send(&client.resale_a_product("1"));
        assert_send(&client.resale_b_related("1", &RelatedQuery::default()));
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let mut config = ClientConfig::new("http://host", None);
        config.retry_backoff = Duration::from_millis(100);
        let client = Client::new(config).unwrap();
        let first = client.backoff(1);
        assert!(first >= Duration::from_millis(50) && first < Duration::from_millis(100));
        let third = client.backoff(3);
        assert!(third >= Duration::from_millis(200) && third < Duration::from_millis(400));
        assert!(client.backoff(30) < MAX_BACKOFF);
    }
}
