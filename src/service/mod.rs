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
pub mod flips;
pub mod kicksdb;
pub mod limits;
pub mod local;
pub mod marketplace;
pub mod openapi;
pub mod origin;
pub mod pool;
pub mod releases;
mod routes;
pub mod shared;
pub mod shelf;
pub mod source;
pub mod start;
pub mod storefront;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
use self::local::LocalCatalogue;
use self::marketplace::{Marketplaces, Simulator, SimulatorConfig};
use self::source::CatalogueSource;
use self::storefront::crawl_status::CrawlStatus;
use self::storefront::{StoreReading, StorefrontConfig, StoresInFront};
use crate::catalogue::CatalogueError;

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
    /// The stores' reading when it is shared or crawls their catalogues (`main` makes one,
    /// with the crawl kept in the data directory, and gives it to every service it starts);
    /// `None`: per-product lookups of `retailer_stores`, read as `storefront` says.
    pub store_reading: Option<StoreReading>,
    /// How the flip list is kept (`GET /api/v2/flips`).
    pub flips: flips::FlipsConfig,
    /// How the release calendar is kept (`GET /api/v2/releases`).
    pub releases: releases::ReleasesConfig,
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
            store_reading: None,
            flips: flips::FlipsConfig::default(),
            releases: releases::ReleasesConfig::default(),
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

/// Everything the handlers share: the two seams, and the service's own limits.
pub struct ServiceState {
    /// Where search, products, orders and counts come from (see [`source`]).
    catalogue: Arc<dyn CatalogueSource>,
    /// Where the real-time lookups are answered: the storefronts in front of the resale
    /// source's marketplaces (see [`marketplace`]).
    marketplaces: Arc<dyn Marketplaces>,
    /// How the stores are read; its crawl is started with the server ([`spawn`]).
    store_reading: StoreReading,
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
    /// The flip list, built in the background once asked for.
    flips: Arc<flips::Flips>,
    /// The release calendar, built from the sources above.
    calendar: releases::Calendar,
}

impl std::fmt::Debug for ServiceState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceState")
            .field("catalogue", &self.catalogue.info().source)
            .finish_non_exhaustive()
    }
}

impl ServiceState {
    /// The demo's service: the catalogue file (`config.catalogue`) ranked by its own index, the
    /// marketplace simulator over it, and the storefronts of `config.retailer_stores` in front.
    /// Blocking: call it before the runtime or from `spawn_blocking`.
    pub fn open(config: &ServiceConfig) -> Result<Arc<Self>, ServiceError> {
        // The related products' index waits for the search index, which takes both cores, and
        // for the hit store's read-through, which the first searches wait for after a restart.
        let (simulator, related) =
            Simulator::open_related_later(&config.catalogue, config.simulator.clone())?;
        let local = LocalCatalogue::open(config, Box::new(move || related.start()))?;
        Self::with_sources(config, Arc::new(simulator), Arc::new(local))
    }

    /// Like [`open`](Self::open) with other marketplaces behind the real-time endpoints.
    pub fn with_marketplaces(
        config: &ServiceConfig,
        marketplaces: Arc<dyn Marketplaces>,
    ) -> Result<Arc<Self>, ServiceError> {
        let local = LocalCatalogue::open(config, Box::new(|| {}))?;
        Self::with_sources(config, marketplaces, Arc::new(local))
    }

    /// The service over any two sources: `catalogue` answering search, products, orders and
    /// counts, `marketplaces` the real-time lookups, with the storefronts of
    /// `config.retailer_stores` in front of it for `retailer-a`. Opens nothing itself.
    pub fn with_sources(
        config: &ServiceConfig,
        marketplaces: Arc<dyn Marketplaces>,
        catalogue: Arc<dyn CatalogueSource>,
    ) -> Result<Arc<Self>, ServiceError> {
        let store_reading = config.store_reading.clone().unwrap_or_else(|| {
            StoreReading::lookups_only(config.retailer_stores.clone(), config.storefront.clone())
        });
        let marketplaces: Arc<dyn Marketplaces> = Arc::new(StoresInFront::new(
            store_reading.clone(),
            marketplaces,
            Arc::clone(&catalogue),
        ));
        let flips = flips::Flips::new(
            Arc::clone(&catalogue),
            Arc::clone(&marketplaces),
            store_reading.clone(),
            config.flips.clone(),
        );
        Ok(Arc::new(Self {
            catalogue,
            marketplaces,
            store_reading,
            realtime_budget: WindowLimiter::new(config.realtime_per_minute, 60),
            realtime_per_minute: config.realtime_per_minute,
            shared: config.shared.clone().map(shared::Shared::new),
            demo_keys: config.demo_keys,
            max_in_flight: config.max_in_flight.max(1),
            request_timeout: config.request_timeout,
            flips,
            calendar: releases::Calendar::new(config.releases.clone()),
        }))
    }

    /// The flip list (`GET /api/v2/flips`), for what builds or reads it in this process.
    #[must_use]
    pub fn flips(&self) -> &Arc<flips::Flips> {
        &self.flips
    }

    /// The keys (in the source's index) of the products the store `name` (its address or
    /// host) has in stock, in `size` when given, as its catalogue was last read and matched.
    /// 404 when no store of that name is read or no store catalogue is kept (lookups only);
    /// 503 with `Retry-After` while its catalogue is still to be read.
    pub(crate) fn store_stock(&self, name: &str, size: Option<&str>) -> Result<Vec<i64>, ApiError> {
        let store = self
            .store_reading
            .stores()
            .list()
            .into_iter()
            .find(|store| store.is_named_by(name))
            .ok_or_else(|| {
                ApiError::NotFound(format!(
                    "in_stock_at: no store named {:?} is read by this service",
                    source::truncate(name, 100)
                ))
            })?;
        let file = self.catalogue.codes_file();
        self.store_reading
            .crawl()
            .stock_keys(&file, &store, size)
            .map_err(|status| match status {
                // A service that keeps no store catalogues has none to narrow a search to.
                CrawlStatus::NotKept => {
                    ApiError::NotFound(format!("in_stock_at: {status} to narrow a search to"))
                }
                _ => ApiError::Unavailable {
                    message: format!(
                        "in_stock_at: {}'s catalogue has not been read yet",
                        store.label()
                    ),
                    retry_after_secs: 60,
                },
            })
    }

    /// Runs `work` (a key table read) on tokio's blocking pool, so the async workers keep
    /// answering while it runs.
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

    /// What the service's sources answer (`GET /api/v2/sources`).
    #[must_use]
    pub fn sources(&self) -> crate::model::ServiceSources {
        crate::model::ServiceSources {
            catalogue: self.catalogue.info(),
            realtime: self.marketplaces.sources(),
        }
    }
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

/// Adds the live source's monthly request count ([`origin::QUOTA_HEADER`]) to every answer,
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
            .insert(origin::QUOTA_HEADER, HeaderValue::from(used));
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
    // The stores' background crawl, when kept, runs on this runtime (once per shared reading).
    state.store_reading.start();
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
