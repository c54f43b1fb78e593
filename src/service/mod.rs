//! The HTTP service: the Sneaker Market Data Service of `shared/spec/interface.md` over a
//! catalogue. One router, one auth layer, one limiter and one error type serve both uses: the
//! in-process local demo the app starts on `127.0.0.1:0`, and `solescope serve`.
//!
//! Layers, outermost first: request log (tower-http `TraceLayer`: method, path, status, latency;
//! never headers, so never the key), JSON error bodies for every refusal (including axum's own
//! rejections and the two bounds below), the service's own bounds (at most
//! [`MAX_IN_FLIGHT`] requests at once, one more is refused with 503; each answered within
//! [`REQUEST_TIMEOUT`] or refused with 504), panic to JSON 500, auth (key -> tier, `X-Key-Type`
//! on every answer), then per-route: the real-time budget, the image endpoint's draw limits.

pub mod auth;
mod background;
pub mod error;
pub mod kicksdb;
pub mod limits;
mod local_index;
pub mod marketplace;
pub mod openapi;
pub mod pool;
mod routes;
pub mod shared;
pub mod source;
pub mod storefront;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::IntoResponse as _;
use axum::response::Response;
use tokio::net::TcpListener;

pub use self::error::ApiError;
use self::error::Shaped;
use self::limits::WindowLimiter;
use self::local_index::{HitsLater, finish_in_background, open_local_index};
use self::marketplace::{Marketplaces, Simulator, SimulatorConfig};
use self::pool::Pool;
use self::storefront::{StorefrontConfig, Storefronts};
use crate::catalogue::CatalogueError;
use crate::search::{HitStore, SearchIndex};

/// Real-time requests per key per minute (spec, Limits).
pub const REALTIME_PER_MINUTE: u32 = 120;

/// Requests served at once; one more is refused at once with 503 (load shedding), so a flood
/// costs memory for this many requests and no more.
pub const MAX_IN_FLIGHT: usize = 512;

/// Longest the service works on one answer before giving up with 504. Above the simulated
/// marketplaces' own timeout, so theirs (a 504 naming the marketplace) fires first.
pub const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// How to run the service.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// The catalogue file.
    pub catalogue: PathBuf,
    /// The marketplace simulator's settings.
    pub simulator: SimulatorConfig,
    /// Real-time requests per key per minute.
    pub realtime_per_minute: u32,
    /// Requests served at once; one more is refused with 503 ([`MAX_IN_FLIGHT`] by default).
    pub max_in_flight: usize,
    /// Longest the service works on one answer before a 504 ([`REQUEST_TIMEOUT`] by default).
    pub request_timeout: std::time::Duration,
    /// Whether the well-known demo keys (`demo-free`, `demo-pro`, `demo-ultra`) are accepted.
    /// On for the desktop's in-process service (loopback only); `serve` turns it off unless
    /// told otherwise or listening on loopback.
    pub demo_keys: bool,
    /// Where the real-time budget and the API keys are shared with other replicas
    /// (`serve --redis`); `None`: the in-process limiter and the catalogue's key table.
    pub shared: Option<Arc<dyn shared::SharedStore>>,
    /// From this many products, a hit store that must be built is built after the service
    /// starts answering (which serves hits from the catalogue meanwhile), and a freshly built
    /// index is saved after it ([`BACKGROUND_FROM`] by default).
    pub background_from: usize,
    /// The storefronts behind `retailer-a` (`serve --retailer-store`, the window's Settings),
    /// read on every lookup; empty: the simulator answers.
    pub retailer_stores: crate::model::RetailerStores,
    /// How the storefronts are read (politeness, cache, pauses).
    pub storefront: StorefrontConfig,
}

/// Default of [`ServiceConfig::background_from`]: below it the hit store and the index file
/// take well under a second to write (the demo catalogue's 20,000 products: both ready before
/// the first search); at a million products some 10 s and 2 s.
pub const BACKGROUND_FROM: usize = 50_000;

impl ServiceConfig {
    /// Defaults for a catalogue: simulator defaults, 120 real-time requests per minute.
    pub fn new(catalogue: &Path) -> Self {
        Self {
            catalogue: catalogue.to_path_buf(),
            simulator: SimulatorConfig::default(),
            realtime_per_minute: REALTIME_PER_MINUTE,
            max_in_flight: MAX_IN_FLIGHT,
            request_timeout: REQUEST_TIMEOUT,
            demo_keys: true,
            shared: None,
            background_from: BACKGROUND_FROM,
            retailer_stores: crate::model::RetailerStores::default(),
            storefront: StorefrontConfig::default(),
        }
    }
}

/// Why the service could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The catalogue could not be opened or read.
    #[error(transparent)]
    Catalogue(#[from] CatalogueError),
    /// The search index could not be built.
    #[error("building the search index: {0}")]
    Search(#[from] crate::search::SearchError),
    /// The marketplace simulator could not start.
    #[error("starting the marketplace simulator: {0}")]
    Marketplace(#[from] marketplace::UpstreamError),
    /// Binding or serving failed.
    #[error("{source}: {addr}")]
    Io {
        /// The address.
        addr: String,
        /// What the OS said.
        source: std::io::Error,
    },
}

/// Everything the handlers share.
pub struct ServiceState {
    pool: Pool,
    search: Arc<SearchIndex>,
    marketplaces: Arc<dyn Marketplaces>,
    /// Where search, products, orders and counts come from (see [`source`]).
    catalogue: Arc<dyn source::CatalogueSource>,
    /// Real storefronts answering for `retailer-a` when any is configured.
    storefronts: Storefronts,
    realtime_budget: WindowLimiter,
    /// See [`ServiceConfig::realtime_per_minute`].
    realtime_per_minute: u32,
    /// See [`ServiceConfig::shared`]; when set, it counts the budget and holds the keys.
    shared: Option<shared::Shared>,
    /// See [`ServiceConfig::demo_keys`].
    demo_keys: bool,
    /// See [`ServiceConfig::max_in_flight`].
    max_in_flight: usize,
    /// See [`ServiceConfig::request_timeout`].
    request_timeout: std::time::Duration,
    /// Counted once at start: the catalogue does not change while it is served, and counting
    /// 1.4 million variants costs milliseconds per request.
    stats: crate::model::Stats,
    /// Every product's search hit, ready to be written as JSON (see [`HitStore`]); empty while
    /// it is built after the start (hits come from the catalogue meanwhile).
    hits: OnceLock<HitStore>,
    /// The pages of recent searches over `search` (a search asked again is not ranked again).
    pub(crate) recent_searches: crate::search::RecentSearches,
}

impl std::fmt::Debug for ServiceState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceState")
            .field("pool", &self.pool)
            .field("products", &self.search.len())
            .finish_non_exhaustive()
    }
}

impl ServiceState {
    /// Runs `work` (SQLite reads, search) on tokio's blocking pool, so the async workers keep
    /// answering while a query runs.
    pub(crate) async fn blocking<T, F>(self: &Arc<Self>, work: F) -> Result<T, ApiError>
    where
        F: FnOnce(&ServiceState) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let state = Arc::clone(self);
        tokio::task::spawn_blocking(move || work(&state))
            .await
            .map_err(|err| {
                tracing::error!("a blocking read failed: {err:#}");
                ApiError::Internal
            })?
    }

    /// Appends the JSON array of the search hits of `pks`, in order, to `out`, all from the hit
    /// store (no catalogue read, so it may run on an async worker); the first hit it cannot
    /// give ends it, with `out` as it was.
    fn hits_json_from_store(
        &self,
        pks: &[i64],
        country: crate::model::Country,
        tier: crate::model::Tier,
        out: &mut Vec<u8>,
    ) -> Result<(), crate::search::HitError> {
        let store = self.hits.get().ok_or(crate::search::HitError::NotReady)?;
        // Until the store has been read through once, a record may be a disk read, which must
        // not wait on an async worker: records are read here only from the page cache, and the
        // first that is not there sends the page to the blocking pool.
        let cached_only = !store.is_cached();
        write_hits(store, pks, country, tier, cached_only, out, |_, err, _| {
            Err(err)
        })
    }

    /// Appends the JSON array of the search hits of `pks`, in order, to `out`. From the hit
    /// store, a hit it cannot give (a damaged record) from the catalogue instead; the whole page
    /// from the catalogue while the store is being built. A pk the catalogue does not have is
    /// skipped, as `search_hits` does. On an error `out` is as it was.
    fn hits_json(
        &self,
        pks: &[i64],
        country: crate::model::Country,
        tier: crate::model::Tier,
        out: &mut Vec<u8>,
    ) -> Result<(), ApiError> {
        let Some(store) = self.hits.get() else {
            return self.hits_from_catalogue(pks, country, tier, out);
        };
        if !store.is_cached() {
            store.prefetch(pks);
        }
        write_hits(store, pks, country, tier, false, out, |pk, err, out| {
            tracing::error!("search hit from the catalogue instead: {err}");
            let mut page = Vec::new();
            self.hits_from_catalogue(&[pk], country, tier, &mut page)?;
            // `[hit]`, or `[]` when the catalogue has no such product.
            out.extend_from_slice(&page[1..page.len() - 1]);
            Ok(page.len() > 2)
        })
    }

    /// Appends the JSON array of the search hits of `pks`, in order, read from the catalogue in
    /// one query, to `out` (as it was on an error).
    fn hits_from_catalogue(
        &self,
        pks: &[i64],
        country: crate::model::Country,
        tier: crate::model::Tier,
        out: &mut Vec<u8>,
    ) -> Result<(), ApiError> {
        let conn = self.pool.get()?;
        let hits = crate::catalogue::read::search_hits(&conn, pks, country)?;
        let serialize_failed = |err: serde_json::Error| {
            tracing::error!("serializing a search hit: {err:#}");
            ApiError::Internal
        };
        let start = out.len();
        out.push(b'[');
        for (at, hit) in hits.iter().enumerate() {
            if at > 0 {
                out.push(b',');
            }
            let written = serde_json::to_value(hit).and_then(|mut value| {
                auth::strip_omitted_fields(&mut value, tier);
                serde_json::to_writer(&mut *out, &value)
            });
            if let Err(err) = written {
                out.truncate(start);
                return Err(serialize_failed(err));
            }
        }
        out.push(b']');
        Ok(())
    }

    /// Opens the catalogue, builds the search index and starts the simulator. Blocking: call it
    /// before the runtime or from `spawn_blocking`.
    pub fn open(config: &ServiceConfig) -> Result<Arc<Self>, ServiceError> {
        // The related products' index waits for the search index, which takes both cores, and
        // for the hit store's read-through, which the first searches wait for after a restart.
        let (simulator, related) =
            Simulator::open_related_later(&config.catalogue, config.simulator.clone())?;
        Self::assemble(
            config,
            Arc::new(simulator),
            Arc::new(source::LocalCatalogue),
            Box::new(move || related.start()),
        )
    }

    /// Like [`open`](Self::open) with other marketplaces behind the real-time endpoints.
    pub fn with_marketplaces(
        config: &ServiceConfig,
        marketplaces: Arc<dyn Marketplaces>,
    ) -> Result<Arc<Self>, ServiceError> {
        Self::with_sources(config, marketplaces, Arc::new(source::LocalCatalogue))
    }

    /// The service over `config.catalogue` (a live source's mirror, for a live `catalogue`),
    /// with `marketplaces` behind the real-time endpoints and `catalogue` deciding what search,
    /// products, orders and counts answer.
    pub fn with_sources(
        config: &ServiceConfig,
        marketplaces: Arc<dyn Marketplaces>,
        catalogue: Arc<dyn source::CatalogueSource>,
    ) -> Result<Arc<Self>, ServiceError> {
        Self::assemble(config, marketplaces, catalogue, Box::new(|| {}))
    }

    /// [`with_sources`](Self::with_sources), then `after_warm_up` once the hit store kept
    /// beside the catalogue has been read through (at once when there is none to read).
    fn assemble(
        config: &ServiceConfig,
        marketplaces: Arc<dyn Marketplaces>,
        catalogue: Arc<dyn source::CatalogueSource>,
        after_warm_up: Box<dyn FnOnce() + Send>,
    ) -> Result<Arc<Self>, ServiceError> {
        let pool = Pool::open(&config.catalogue)?;
        let conn = pool.get()?;
        let (search, hits, hits_later, unsaved) = if catalogue.uses_local_index() {
            open_local_index(config, &conn)?
        } else {
            tracing::info!("no search index or hit store: the live source ranks");
            let empty = SearchIndex::empty()?;
            (empty, OnceLock::new(), HitsLater::Nothing, None)
        };
        let stats = crate::catalogue::read::stats(&conn)?;
        drop(conn);
        let service = Arc::new(Self {
            pool,
            search: Arc::new(search),
            marketplaces,
            catalogue,
            storefronts: Storefronts::new(
                config.retailer_stores.clone(),
                config.storefront.clone(),
            ),
            realtime_budget: WindowLimiter::new(config.realtime_per_minute, 60),
            realtime_per_minute: config.realtime_per_minute,
            shared: config.shared.clone().map(shared::Shared::new),
            demo_keys: config.demo_keys,
            max_in_flight: config.max_in_flight.max(1),
            request_timeout: config.request_timeout,
            stats,
            hits,
            recent_searches: crate::search::RecentSearches::default(),
        });
        finish_in_background(
            &service,
            &config.catalogue,
            hits_later,
            unsaved,
            after_warm_up,
        );
        Ok(service)
    }

    /// Whether the hit store is ready (hits come from the catalogue until it is).
    #[must_use]
    pub fn hits_ready(&self) -> bool {
        self.hits.get().is_some()
    }
}

/// The JSON array of the hits of `pks` from `store` (from the page cache alone when
/// `cached_only`: [`HitStore::write_cached_hit`]); `missing` appends a hit the store cannot give
/// (`Ok(false)`: skip it) or ends the page with its error.
fn write_hits<E>(
    store: &HitStore,
    pks: &[i64],
    country: crate::model::Country,
    tier: crate::model::Tier,
    cached_only: bool,
    out: &mut Vec<u8>,
    mut missing: impl FnMut(i64, crate::search::HitError, &mut Vec<u8>) -> Result<bool, E>,
) -> Result<(), E> {
    let full = tier.allows(crate::model::Feature::ReleaseAndRetail);
    let start = out.len();
    out.push(b'[');
    let mut written = 0usize;
    for &pk in pks {
        let mark = out.len();
        if written > 0 {
            out.push(b',');
        }
        let written_from_store = if cached_only {
            store.write_cached_hit(pk, country, full, out)
        } else {
            store.write_hit(pk, country, full, out)
        };
        let found = match written_from_store {
            Ok(()) => true,
            Err(err) => match missing(pk, err, out) {
                Ok(found) => found,
                Err(err) => {
                    out.truncate(start);
                    return Err(err);
                }
            },
        };
        if found {
            written += 1;
        } else {
            out.truncate(mark);
        }
    }
    out.push(b']');
    Ok(())
}

/// The service's router over `state`.
pub fn router(state: Arc<ServiceState>) -> Router {
    let timeout = state.request_timeout;
    let bounds = tower::ServiceBuilder::new()
        .layer(axum::error_handling::HandleErrorLayer::new(
            move |err: tower::BoxError| async move { bound_refusal(&err, timeout).into_response() },
        ))
        .load_shed()
        // Global: `Router::layer` builds the layer once per route, and one limit is wanted for
        // the whole service, not one per route.
        .layer(tower::limit::GlobalConcurrencyLimitLayer::new(
            state.max_in_flight,
        ))
        .timeout(timeout);
    routes::router(state.clone())
        // Here, not among the routes: the document describes them (module `openapi` reads the
        // routes' annotations and bounds), so the routes must not depend on it.
        .route("/openapi.json", axum::routing::get(openapi::document))
        .layer(middleware::from_fn_with_state(state.clone(), quota_header))
        .layer(middleware::from_fn_with_state(state, auth::authenticate))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            |_: Box<dyn std::any::Any + Send>| {
                tracing::error!("a handler panicked");
                ApiError::Internal.into_response_for("")
            },
        ))
        .layer(bounds)
        .layer(middleware::from_fn(json_errors))
        .layer(
            tower_http::trace::TraceLayer::new_for_http()
                // Method and path only: headers carry the key, and query strings the user's text.
                .make_span_with(|request: &Request| {
                    tracing::info_span!(
                        "request",
                        method = %request.method(),
                        path = %request.uri().path(),
                    )
                })
                .on_request(())
                .on_response(
                    |response: &Response, latency: std::time::Duration, _: &tracing::Span| {
                        tracing::info!(
                            status = response.status().as_u16(),
                            latency_us = latency.as_micros() as u64,
                            "request"
                        );
                    },
                )
                .on_failure(()),
        )
}

/// Adds the live source's monthly request count ([`source::QUOTA_HEADER`]) to every answer,
/// when it reports one: the window shows it in Settings.
async fn quota_header(
    axum::extract::State(state): axum::extract::State<Arc<ServiceState>>,
    request: Request,
    next: Next,
) -> Response {
    let mut response = next.run(request).await;
    if let Some(used) = state.catalogue.quota_used() {
        response
            .headers_mut()
            .insert(source::QUOTA_HEADER, HeaderValue::from(used));
    }
    response
}

/// The answer when one of the service's own bounds refuses a request.
fn bound_refusal(err: &tower::BoxError, timeout: std::time::Duration) -> ApiError {
    if err.is::<tower::timeout::error::Elapsed>() {
        ApiError::TimedOut(format!(
            "the service gives up on an answer after {} ms",
            timeout.as_millis()
        ))
    } else if err.is::<tower::load_shed::error::Overloaded>() {
        ApiError::Unavailable {
            message: "the service is at its limit of requests in flight; retry shortly".into(),
            retry_after_secs: 1,
        }
    } else {
        tracing::error!("service layer: {err:#}");
        ApiError::Internal
    }
}

/// Makes every error body JSON in the shape of its path: re-shapes [`ApiError`]s for v2 paths,
/// and turns axum's plain-text rejections (bad query strings, unknown paths, wrong methods) into
/// the same JSON.
async fn json_errors(request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let mut response = next.run(request).await;
    if let Some(err) = response.extensions_mut().remove::<ApiError>() {
        return replace_body(response, err.into_response_for(&path));
    }
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error())
        || response.extensions().get::<Shaped>().is_some()
    {
        return response;
    }
    let text = axum::body::to_bytes(std::mem::take(response.body_mut()), 4096)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    let message = if text.trim().is_empty() {
        status.canonical_reason().unwrap_or("error").to_owned()
    } else {
        text
    };
    let err = match status {
        StatusCode::NOT_FOUND => ApiError::NotFound(format!("no such path: {path}")),
        StatusCode::METHOD_NOT_ALLOWED => {
            ApiError::BadRequest("only GET is supported; the interface is read-only".into())
        }
        s if s.is_client_error() => ApiError::BadRequest(message),
        _ => ApiError::Internal,
    };
    let mut shaped = replace_body(response, err.into_response_for(&path));
    if status == StatusCode::METHOD_NOT_ALLOWED {
        *shaped.status_mut() = status;
    }
    shaped
}

/// `shaped`'s status and body with the headers of `original` kept (`X-Key-Type`, rate limits).
fn replace_body(original: Response, shaped: Response) -> Response {
    let (mut parts, _) = original.into_parts();
    let (shaped_parts, body) = shaped.into_parts();
    parts.status = shaped_parts.status;
    parts.headers.remove(header::CONTENT_LENGTH);
    for (name, value) in &shaped_parts.headers {
        parts.headers.insert(name, value.clone());
    }
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.extensions.insert(Shaped);
    Response::from_parts(parts, Body::new(body))
}

/// A running service: where to reach it and how to stop it.
#[derive(Debug)]
pub struct ServerHandle {
    /// The bound address (with the real port when bound to port 0).
    pub addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl ServerHandle {
    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, lets requests in flight finish, and waits.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = (&mut self.task).await;
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Binds `addr` (use port 0 for an ephemeral port) and serves `state` on the current runtime.
pub async fn spawn(addr: &str, state: Arc<ServiceState>) -> Result<ServerHandle, ServiceError> {
    let io = |source| ServiceError::Io {
        addr: addr.to_owned(),
        source,
    };
    let listener = TcpListener::bind(addr).await.map_err(io)?;
    let bound = listener.local_addr().map_err(io)?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let app = router(state);
    let task = tokio::spawn(async move {
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = rx.await;
            })
            .await;
        if let Err(err) = served {
            tracing::error!("service stopped: {err:#}");
        }
    });
    tracing::info!(%bound, "service listening");
    Ok(ServerHandle {
        addr: bound,
        shutdown: Some(tx),
        task,
    })
}
