//! A mock KicksDB v3 upstream on a real loopback socket (axum), written from
//! `../shared/research/kicksdb-v3.md`: the `/v3/...` paths, `Authorization: Bearer <key>`, the
//! `{data, meta}` envelope, RFC 7807-style error bodies, and the `X-Quota-Current` and
//! `X-Key-Type` headers on every answer. Its failure modes (wrong key, plan refusal, 429, 5xx,
//! slow, huge, malformed, HTML, wrong type) switch at run time, for all endpoints or some, and it
//! logs what it saw so that tests can count calls (the real-time budget is 60 a minute).
//!
//! It runs on a thread of its own with its own runtime, so sync tests (the window's) and async
//! tests use it alike; `stop` drops the listener and every open connection.
//!
//! Choices where the note is silent: a list with no element answers `"data": null` (the note says
//! list `data` may be null); bad parameters answer 422 with the ErrorModel's `errors` list; an
//! unsupported `filters` expression answers 400; daily sales come newest day first and take
//! `market` US or DE only (the note's "US/DE only"); errors are `application/problem+json`.

#![allow(
    dead_code,
    reason = "each test binary and the example use a different part"
)]

#[path = "kicksdb_data.rs"]
pub mod data;
#[path = "kicksdb_routes.rs"]
mod routes;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use routes::Refusal;

/// The key the mock accepts unless told otherwise (a test key, not a secret).
pub const TEST_KEY: &str = "KICKS-MOCK-TEST-0000-000000000000";

/// The mock's endpoints, for modes and counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Endpoint {
    /// `GET /v3/stockx/products`.
    Search,
    /// `GET /v3/stockx/products/{id}`.
    Product,
    /// `GET /v3/stockx/products/{id}/sales/daily`.
    DailySales,
    /// `GET /v3/realtime/goat/products/{id}`.
    RealtimeGoat,
    /// `GET /v3/realtime/stockx/products/{id}/related`.
    RealtimeRelated,
    /// `GET /v3/utils/brands`.
    Brands,
    /// `GET /v3/goat/products` (GOAT's cached catalogue, by style code).
    GoatSearch,
    /// `POST /v3/stockx/prices` (batched prices, up to 50 style codes).
    Prices,
    /// `GET /v3/snkrs/products` (SNKRS launches, paid).
    Snkrs,
}

impl Endpoint {
    /// Every endpoint.
    pub const ALL: [Self; 9] = [
        Self::Search,
        Self::Product,
        Self::DailySales,
        Self::RealtimeGoat,
        Self::RealtimeRelated,
        Self::Brands,
        Self::GoatSearch,
        Self::Prices,
        Self::Snkrs,
    ];
    /// The real-time endpoints (60 calls a minute per key upstream).
    pub const REALTIME: [Self; 2] = [Self::RealtimeGoat, Self::RealtimeRelated];
    /// The cached StockX catalogue endpoints.
    pub const CATALOGUE: [Self; 3] = [Self::Search, Self::Product, Self::DailySales];

    /// Whether the endpoint is one of the real-time ones.
    pub fn is_realtime(self) -> bool {
        Self::REALTIME.contains(&self)
    }

    /// The endpoint a request path belongs to, if any.
    pub fn of_path(path: &str) -> Option<Self> {
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        match segments.as_slice() {
            ["v3", "stockx", "products"] => Some(Self::Search),
            ["v3", "stockx", "products", _] => Some(Self::Product),
            ["v3", "stockx", "products", _, "sales", "daily"] => Some(Self::DailySales),
            ["v3", "realtime", "goat", "products", _] => Some(Self::RealtimeGoat),
            ["v3", "realtime", "stockx", "products", _, "related"] => Some(Self::RealtimeRelated),
            ["v3", "utils", "brands"] => Some(Self::Brands),
            ["v3", "goat", "products"] => Some(Self::GoatSearch),
            ["v3", "stockx", "prices"] => Some(Self::Prices),
            ["v3", "snkrs", "products"] => Some(Self::Snkrs),
            _ => None,
        }
    }
}

/// How the mock answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The real answer.
    Normal,
    /// 401 `{"title":"Unauthorized","detail":"Invalid key"}` even for the right key.
    Unauthorized,
    /// 429 with `Retry-After: retry_after_secs`.
    RateLimited {
        /// Seconds in the `Retry-After` header.
        retry_after_secs: u64,
    },
    /// This status (500, 502, 503, ...) with an ErrorModel body.
    ServerError(u16),
    /// Waits this long, then gives the real answer.
    Slow(Duration),
    /// 200 with a streamed JSON body of `megabytes` MiB, with or without `Content-Length`.
    Huge {
        /// Body size in MiB.
        megabytes: usize,
        /// Whether the answer announces its length.
        content_length: bool,
    },
    /// 200, `application/json`, and the first half of the real body.
    MalformedJson,
    /// An HTML error page with `text/html` and this status.
    Html {
        /// The status code.
        status: u16,
    },
    /// The real answer with numbers turned into strings (`lowest_ask`, `min_price`, `orders`,
    /// `lowestPriceCents`, `numberOfAsks`, `count`, `price`).
    WrongType,
    /// The real answer with a list's `data` cut to its first half (rounded up): a batch that
    /// answers for only some of the codes asked.
    PartialBatch,
}

/// What the mock sends as `X-Quota-Current`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaHeader {
    /// `quota_start` plus the requests so far.
    Counting,
    /// No header at all.
    Missing,
    /// This number, whatever was asked (a count that goes down, or jumps).
    Fixed(u64),
}

/// Requests whose path matches `pattern` are refused with 403: the key's plan lacks them.
#[derive(Clone, Debug)]
pub struct PlanGate {
    /// A path prefix, segment by segment; `*` matches any one segment
    /// (`/v3/stockx/products/*/sales` covers `/v3/stockx/products/{id}/sales/daily`).
    pub pattern: String,
    /// The plan the ErrorModel's `detail` names (`Pro`, `Starter`, ...).
    pub plan: String,
}

impl PlanGate {
    /// A gate on `pattern` naming `plan`.
    pub fn new(pattern: &str, plan: &str) -> Self {
        Self {
            pattern: pattern.to_owned(),
            plan: plan.to_owned(),
        }
    }

    /// Real-time endpoints need Pro (note §2, "Pro/Ent").
    pub fn realtime_needs_pro() -> Self {
        Self::new("/v3/realtime", "Pro")
    }

    /// StockX sales need a paid plan (note §2, "paid"; Starter is the cheapest paid plan).
    pub fn sales_need_paid() -> Self {
        Self::new("/v3/stockx/products/*/sales", "Starter")
    }

    fn matches(&self, path: &str) -> bool {
        let mut path_segments = path.trim_matches('/').split('/');
        self.pattern.trim_matches('/').split('/').all(|want| {
            path_segments
                .next()
                .is_some_and(|got| want == "*" || want == got)
        })
    }
}

/// How to start the mock.
#[derive(Clone, Debug)]
pub struct MockConfig {
    /// The key it accepts as `Authorization: Bearer <key>`.
    pub key: String,
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// The last day of daily sales history.
    pub today: NaiveDate,
    /// The `X-Key-Type` header value (the note does not list the values).
    pub key_type: String,
    /// `X-Quota-Current` before the first request.
    pub quota_start: u64,
    /// Paths the key's plan does not cover (403).
    pub plan_gates: Vec<PlanGate>,
    /// When set, real-time calls past this many in 60 s answer 429, as KicksDB does at 60.
    pub realtime_limit_per_minute: Option<usize>,
    /// Invented pairs added after the five real ones (`data::generated_pairs`), for tests
    /// that need many style codes.
    pub extra_products: usize,
    /// Serve coming releases: the pairs of `data::coming_pairs` (StockX lists them as
    /// `upcoming`) and the launches of `data::snkrs_products` (else SNKRS lists none).
    pub coming_releases: bool,
}

impl Default for MockConfig {
    /// [`TEST_KEY`], any port, the tests' fixed day 2026-11-22, every endpoint allowed, no limit.
    fn default() -> Self {
        Self {
            key: TEST_KEY.to_owned(),
            port: 0,
            today: NaiveDate::from_ymd_opt(2026, 11, 22).unwrap_or_default(),
            key_type: "pro".to_owned(),
            quota_start: 1_200,
            plan_gates: Vec::new(),
            realtime_limit_per_minute: None,
            extra_products: 0,
            coming_releases: false,
        }
    }
}

/// One request the mock received.
#[derive(Clone, Debug)]
pub struct Seen {
    /// When it arrived.
    pub at: Instant,
    /// HTTP method.
    pub method: String,
    /// Path, without the query.
    pub path: String,
    /// Raw query string (empty when none).
    pub query: String,
    /// The endpoint, `None` for an unknown path.
    pub endpoint: Option<Endpoint>,
    /// Whether `Authorization` was exactly `Bearer <the configured key>`.
    pub authorized: bool,
    /// The status answered; 0 while the answer is being made, or if the client left before it.
    pub status: u16,
}

/// The most entries of `seen` inside any window of length `window` (a window is half-open:
/// two calls exactly `window` apart are not in the same one).
pub fn max_calls_in_window<'a>(
    seen: impl IntoIterator<Item = &'a Seen>,
    window: Duration,
) -> usize {
    let mut times: Vec<Instant> = seen.into_iter().map(|s| s.at).collect();
    times.sort_unstable();
    let mut start = 0;
    let mut best = 0;
    for end in 0..times.len() {
        while times[end].duration_since(times[start]) >= window {
            start += 1;
        }
        best = best.max(end - start + 1);
    }
    best
}

struct Modes {
    all: Mode,
    per_endpoint: HashMap<Endpoint, Mode>,
    next: VecDeque<Mode>,
}

struct Log {
    seen: Vec<Seen>,
    requests: u64,
}

struct Shared {
    config: MockConfig,
    bearer: String,
    modes: Mutex<Modes>,
    log: Mutex<Log>,
    plan_gates: Mutex<Vec<PlanGate>>,
    /// The five real pairs, then the invented ones, then those a test added.
    pairs: Mutex<Vec<&'static data::Pair>>,
    /// Lowest asks a test set, by (style code, US size), in US dollars.
    asks: Mutex<HashMap<(String, String), i32>>,
    quota_header: Mutex<QuotaHeader>,
}

impl Shared {
    /// Every pair served now.
    fn pairs(&self) -> Vec<&'static data::Pair> {
        lock(&self.pairs).clone()
    }

    /// The pair whose StockX UUID or slug is `key`.
    fn pair_by_stockx_key(&self, key: &str) -> Option<&'static data::Pair> {
        self.pairs()
            .into_iter()
            .find(|p| p.id == key || p.slug == key)
    }

    /// The pair whose style code is `sku` (any case).
    fn pair_by_sku(&self, sku: &str) -> Option<&'static data::Pair> {
        self.pairs()
            .into_iter()
            .find(|p| p.sku.eq_ignore_ascii_case(sku.trim()))
    }

    /// A size's lowest ask in US dollars, as a test set it or as the data has it.
    fn ask_usd(&self, pair: &data::Pair, size: &data::Size) -> i32 {
        lock(&self.asks)
            .get(&(pair.sku.to_owned(), size.us.to_owned()))
            .copied()
            .unwrap_or(size.ask_usd)
    }
}

/// A lock that survives a test thread that panicked while holding it.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running mock KicksDB.
pub struct MockKicksdb {
    base_url: String,
    shared: Arc<Shared>,
    server: Mutex<Option<(oneshot::Sender<()>, JoinHandle<()>)>>,
}

impl MockKicksdb {
    /// Starts the mock; panics when the port cannot be bound (use [`Self::try_start`] to handle it).
    pub fn start(config: MockConfig) -> Self {
        match Self::try_start(config) {
            Ok(mock) => mock,
            Err(err) => panic!("mock KicksDB could not start: {err}"),
        }
    }

    /// Starts the mock on 127.0.0.1 on a thread of its own.
    pub fn try_start(config: MockConfig) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", config.port))?;
        listener.set_nonblocking(true)?;
        let base_url = format!("http://{}", listener.local_addr()?);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let mut pairs: Vec<&'static data::Pair> = data::PAIRS.iter().collect();
        pairs.extend(data::generated_pairs(config.extra_products));
        if config.coming_releases {
            pairs.extend(data::coming_pairs(config.today));
        }
        let shared = Arc::new(Shared {
            bearer: format!("Bearer {}", config.key),
            plan_gates: Mutex::new(config.plan_gates.clone()),
            pairs: Mutex::new(pairs),
            asks: Mutex::new(HashMap::new()),
            quota_header: Mutex::new(QuotaHeader::Counting),
            config,
            modes: Mutex::new(Modes {
                all: Mode::Normal,
                per_endpoint: HashMap::new(),
                next: VecDeque::new(),
            }),
            log: Mutex::new(Log {
                seen: Vec::new(),
                requests: 0,
            }),
        });
        let app = routes::router(Arc::clone(&shared));
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("mock-kicksdb".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    tokio::select! {
                        _ = axum::serve(listener, app) => {}
                        _ = stop_rx => {}
                    }
                });
                // Dropping the runtime here closes the connections still open.
                drop(runtime);
            })?;
        Ok(Self {
            base_url,
            shared,
            server: Mutex::new(Some((stop_tx, thread))),
        })
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The key the mock accepts.
    pub fn key(&self) -> String {
        self.shared.config.key.clone()
    }

    /// Every endpoint answers in `mode` (clearing per-endpoint modes and pending one-off modes).
    pub fn set_mode(&self, mode: Mode) {
        let mut modes = lock(&self.shared.modes);
        modes.all = mode;
        modes.per_endpoint.clear();
        modes.next.clear();
    }

    /// `endpoints` answer in `mode`; the others keep theirs.
    pub fn set_mode_for(&self, endpoints: &[Endpoint], mode: Mode) {
        let mut modes = lock(&self.shared.modes);
        for &endpoint in endpoints {
            modes.per_endpoint.insert(endpoint, mode);
        }
    }

    /// The next `count` requests (any endpoint) answer in `mode`, then the standing modes apply.
    pub fn set_mode_next(&self, count: usize, mode: Mode) {
        let mut modes = lock(&self.shared.modes);
        modes.next.extend(std::iter::repeat_n(mode, count));
    }

    /// Sets the lowest ask of `size` (US label) of the pair with style code `sku`, in US
    /// dollars (0: nobody asks), as the batched prices answer it from now on.
    pub fn set_ask_usd(&self, sku: &str, size: &str, usd: i32) {
        lock(&self.shared.asks).insert((sku.to_owned(), size.to_owned()), usd);
    }

    /// What `X-Quota-Current` says from now on.
    pub fn set_quota_header(&self, header: QuotaHeader) {
        *lock(&self.shared.quota_header) = header;
    }

    /// The style codes of every pair served (the five real ones, then the invented ones).
    pub fn style_codes(&self) -> Vec<&'static str> {
        self.shared.pairs().iter().map(|p| p.sku).collect()
    }

    /// Serves `pair` from now on (a product KicksDB lists after the service started).
    pub fn add_pair(&self, pair: &'static data::Pair) {
        lock(&self.shared.pairs).push(pair);
    }

    /// Replaces the plan gates (403 answers).
    pub fn set_plan_gates(&self, gates: Vec<PlanGate>) {
        *lock(&self.shared.plan_gates) = gates;
    }

    /// What the mock received so far, in arrival order.
    pub fn seen(&self) -> Vec<Seen> {
        lock(&self.shared.log).seen.clone()
    }

    /// Forgets what was seen (the quota counter goes on).
    pub fn clear_seen(&self) {
        lock(&self.shared.log).seen.clear();
    }

    /// Requests received for `endpoint`.
    pub fn count(&self, endpoint: Endpoint) -> usize {
        lock(&self.shared.log)
            .seen
            .iter()
            .filter(|s| s.endpoint == Some(endpoint))
            .count()
    }

    /// Requests received per endpoint (endpoints never called are absent).
    pub fn counts(&self) -> BTreeMap<Endpoint, usize> {
        let mut counts = BTreeMap::new();
        for endpoint in lock(&self.shared.log)
            .seen
            .iter()
            .filter_map(|s| s.endpoint)
        {
            *counts.entry(endpoint).or_insert(0) += 1;
        }
        counts
    }

    /// The most real-time calls received in any 60 s window.
    pub fn max_realtime_calls_per_minute(&self) -> usize {
        let seen = self.seen();
        max_calls_in_window(
            seen.iter()
                .filter(|s| s.endpoint.is_some_and(Endpoint::is_realtime)),
            Duration::from_secs(60),
        )
    }

    /// `X-Quota-Current` as of the last answer.
    pub fn quota_current(&self) -> u64 {
        self.shared.config.quota_start + lock(&self.shared.log).requests
    }

    /// Stops serving: afterwards the port refuses connections. Idempotent.
    pub fn stop(&self) {
        let server = lock(&self.server).take();
        if let Some((stop_tx, thread)) = server {
            // The server may be gone already; either way the join below waits for its end.
            let _ = stop_tx.send(());
            let _ = thread.join();
        }
    }
}

impl Drop for MockKicksdb {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The middleware every request passes: log, key, plan, real-time limit, mode, quota headers.
async fn gate(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let arrived = Instant::now();
    let path = request.uri().path().to_owned();
    let endpoint = Endpoint::of_path(&path);
    let authorized = request
        .headers()
        .get(header::AUTHORIZATION)
        .is_some_and(|value| value.as_bytes() == shared.bearer.as_bytes());
    let (index, requests, limited_for) = {
        let mut log = lock(&shared.log);
        let limited_for = match (endpoint, shared.config.realtime_limit_per_minute) {
            (Some(endpoint), Some(limit)) if endpoint.is_realtime() => {
                realtime_wait(&log.seen, arrived, limit)
            }
            _ => None,
        };
        log.seen.push(Seen {
            at: arrived,
            method: request.method().to_string(),
            path: path.clone(),
            query: request.uri().query().unwrap_or("").to_owned(),
            endpoint,
            authorized,
            status: 0,
        });
        log.requests += 1;
        (log.seen.len() - 1, log.requests, limited_for)
    };
    let mode = {
        let mut modes = lock(&shared.modes);
        let standing = endpoint
            .and_then(|e| modes.per_endpoint.get(&e))
            .copied()
            .unwrap_or(modes.all);
        modes.next.pop_front().unwrap_or(standing)
    };
    let gate_plan = lock(&shared.plan_gates)
        .iter()
        .find(|gate| gate.matches(&path))
        .map(|gate| gate.plan.clone());

    let mut response = if !authorized || mode == Mode::Unauthorized {
        let body = json!({"title": "Unauthorized", "detail": "Invalid key"});
        (
            StatusCode::UNAUTHORIZED,
            [(header::CONTENT_TYPE, "application/problem+json")],
            body.to_string(),
        )
            .into_response()
    } else if let Some(plan) = gate_plan {
        let detail =
            format!("Your plan does not include this endpoint; it requires the {plan} plan");
        Refusal::new(StatusCode::FORBIDDEN, &detail).into_response()
    } else if let Some(wait) = limited_for {
        rate_limited(
            wait.as_secs() + 1,
            "Real-time rate limit of the key exceeded",
        )
    } else {
        answer_in_mode(mode, request, next).await
    };

    let headers = response.headers_mut();
    match *lock(&shared.quota_header) {
        QuotaHeader::Counting => {
            let quota = shared.config.quota_start + requests;
            headers.insert("x-quota-current", HeaderValue::from(quota));
        }
        QuotaHeader::Fixed(quota) => {
            headers.insert("x-quota-current", HeaderValue::from(quota));
        }
        QuotaHeader::Missing => {}
    }
    if let Ok(key_type) = HeaderValue::from_str(&shared.config.key_type) {
        headers.insert("x-key-type", key_type);
    }
    let mut log = lock(&shared.log);
    if let Some(seen) = log
        .seen
        .get_mut(index)
        .filter(|s| s.at == arrived && s.path == path)
    {
        seen.status = response.status().as_u16();
    }
    response
}

/// How long until a real-time call fits under `limit` calls in the last 60 s; `None` if it fits.
fn realtime_wait(seen: &[Seen], now: Instant, limit: usize) -> Option<Duration> {
    let minute = Duration::from_secs(60);
    let recent: Vec<Instant> = seen
        .iter()
        .filter(|s| s.endpoint.is_some_and(Endpoint::is_realtime))
        .map(|s| s.at)
        .filter(|&at| now.duration_since(at) < minute)
        .collect();
    if recent.len() < limit {
        return None;
    }
    let oldest = recent.iter().min().copied().unwrap_or(now);
    Some(minute.saturating_sub(now.duration_since(oldest)))
}

fn rate_limited(retry_after_secs: u64, detail: &str) -> Response {
    let mut response = Refusal::new(StatusCode::TOO_MANY_REQUESTS, detail).into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
    response
}

async fn answer_in_mode(mode: Mode, request: Request, next: Next) -> Response {
    match mode {
        Mode::Normal | Mode::Unauthorized => next.run(request).await,
        Mode::PartialBatch => {
            rewrite_body(next.run(request).await, |body| {
                let Ok(mut value) = serde_json::from_slice::<Value>(body) else {
                    return body.to_vec();
                };
                if let Some(items) = value.get_mut("data").and_then(Value::as_array_mut) {
                    items.truncate(items.len().div_ceil(2));
                }
                value.to_string().into_bytes()
            })
            .await
        }
        Mode::RateLimited { retry_after_secs } => {
            rate_limited(retry_after_secs, "Rate limit exceeded")
        }
        Mode::ServerError(code) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            Refusal::new(status, "Upstream failure (mock)").into_response()
        }
        Mode::Slow(delay) => {
            tokio::time::sleep(delay).await;
            next.run(request).await
        }
        Mode::Huge {
            megabytes,
            content_length,
        } => huge(megabytes, content_length),
        Mode::Html { status } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
            let reason = status.canonical_reason().unwrap_or("Error");
            let page = format!(
                "<!DOCTYPE html>\n<html><head><title>{code} {reason}</title></head>\
                 <body><h1>{code} {reason}</h1><p>The gateway could not reach the API.</p>\
                 </body></html>\n",
                code = status.as_u16()
            );
            (
                status,
                [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                page,
            )
                .into_response()
        }
        Mode::MalformedJson => {
            rewrite_body(next.run(request).await, |body| {
                body[..body.len() / 2].to_vec()
            })
            .await
        }
        Mode::WrongType => {
            rewrite_body(next.run(request).await, |body| {
                let Ok(mut value) = serde_json::from_slice::<Value>(body) else {
                    return body.to_vec();
                };
                stringify_numbers(&mut value);
                value.to_string().into_bytes()
            })
            .await
        }
    }
}

/// Applies `rewrite` to a successful answer's body (errors pass through unchanged).
async fn rewrite_body(response: Response, rewrite: impl FnOnce(&[u8]) -> Vec<u8>) -> Response {
    if !response.status().is_success() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // The mock's own answers are small; the cap only guards against a mistake.
    let Ok(bytes) = axum::body::to_bytes(body, 64 << 20).await else {
        let detail = "mock body too large to rewrite";
        return Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, detail).into_response();
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(rewrite(&bytes)))
}

/// Numbers under the keys a client reads as numbers become strings, anywhere in `value`.
fn stringify_numbers(value: &mut Value) {
    const KEYS: [&str; 7] = [
        "lowest_ask",
        "min_price",
        "orders",
        "lowestPriceCents",
        "numberOfAsks",
        "count",
        "price",
    ];
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                if KEYS.contains(&key.as_str()) && field.is_number() {
                    *field = Value::String(field.to_string());
                } else {
                    stringify_numbers(field);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(stringify_numbers),
        _ => {}
    }
}

/// A 200 whose JSON body (`{"data":"xxxx..."}`) is exactly `megabytes` MiB, sent in 64 KiB
/// chunks as it is read, so the mock never holds it whole.
fn huge(megabytes: usize, content_length: bool) -> Response {
    const CHUNK: usize = 64 << 10;
    const HEAD: &[u8] = br#"{"data":""#;
    const TAIL: &[u8] = br#""}"#;
    let total = (megabytes << 20).max(HEAD.len() + TAIL.len());
    let filler = Bytes::from(vec![b'x'; CHUNK]);
    let mut left = total - HEAD.len() - TAIL.len();
    let pieces = std::iter::from_fn(move || {
        let take = left.min(CHUNK);
        left -= take;
        (take > 0).then(|| filler.slice(..take))
    });
    let chunks = std::iter::once(Bytes::from_static(HEAD))
        .chain(pieces)
        .chain(std::iter::once(Bytes::from_static(TAIL)))
        .map(Ok::<_, Infallible>);
    let mut response = Response::new(Body::from_stream(futures_util::stream::iter(chunks)));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if content_length {
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(total));
    }
    response
}
