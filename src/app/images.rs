//! Loading product pictures for the window: an egui [`BytesLoader`] for `http://` and
//! `https://` URIs that fetches on the app's tokio runtime, so `egui::Image::new(url)` works
//! without the UI thread ever waiting on the network.
//!
//! egui asks a loader for a URI every frame the image is visible; this one answers `Pending`
//! while the fetch runs, wakes the UI with `request_repaint` when it lands, and keeps the bytes
//! (bounded by total size, least recently used first out) so later frames are answered from
//! memory. Failures are kept too, and retried only after [`RETRY_FAILED_AFTER`], so a dead
//! server is not asked sixty times a second. Fetches carry no API key: images are public, and
//! the key must never go to a host the catalogue merely names.
//!
//! A server is not trusted with the picture either: the body is read up to a cap, redirects
//! are followed only within the same scheme, host and port, and the picture's header is checked
//! against [`ImageLimits`] before the bytes are handed to egui's decoders (`egui_extras` decodes
//! whatever a bytes loader returns, with no dimension limit of its own).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use egui::load::{Bytes, BytesLoadResult, BytesLoader, BytesPoll, LoadError};

use crate::client::images::{ImageLimits, check_image_size, same_origin_redirects};
use crate::client::{BodyTooLarge, ReadError, read_body_capped};

/// Longest a whole image fetch may take, connecting and reading the body included.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait for a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest image body accepted; a bigger one fails rather than filling memory.
pub const MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;
/// Image bytes kept in memory across all URIs.
pub const MAX_CACHE_BYTES: usize = 64 * 1024 * 1024;
/// How long a failed URI answers its error before it is fetched again.
pub const RETRY_FAILED_AFTER: Duration = Duration::from_secs(30);

/// Why the loader could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ImageLoaderError {
    /// The HTTP client could not be set up (its TLS backend failed to start).
    #[error("building the image HTTP client: {0}")]
    Client(#[from] reqwest::Error),
}

/// The bounds a loader works within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoaderLimits {
    /// Longest a whole fetch may take.
    pub fetch_timeout: Duration,
    /// Largest body accepted, in bytes.
    pub max_response_bytes: usize,
    /// Bytes kept across all URIs.
    pub max_cache_bytes: usize,
    /// Largest picture handed on to be decoded.
    pub image: ImageLimits,
}

impl Default for LoaderLimits {
    fn default() -> Self {
        Self {
            fetch_timeout: FETCH_TIMEOUT,
            max_response_bytes: MAX_RESPONSE_BYTES,
            max_cache_bytes: MAX_CACHE_BYTES,
            image: ImageLimits::default(),
        }
    }
}

/// Installs everything the window needs to show product images: the `image` crate decoders of
/// `egui_extras` and an [`HttpBytesLoader`] on `runtime`. Safe to call more than once. If the
/// HTTP client cannot be built, images show their neutral "no image" box and a warning is
/// logged.
pub fn install(ctx: &egui::Context, runtime: tokio::runtime::Handle) {
    egui_extras::install_image_loaders(ctx);
    if ctx.is_loader_installed(HttpBytesLoader::ID) {
        return;
    }
    match HttpBytesLoader::new(runtime) {
        Ok(loader) => ctx.add_bytes_loader(Arc::new(loader)),
        Err(err) => tracing::warn!("product images will not load: {err:#}"),
    }
}

/// Fetches `http(s)://` URIs for egui on a tokio runtime, with a bounded cache.
pub struct HttpBytesLoader {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
    limits: LoaderLimits,
    cache: Arc<Mutex<Cache>>,
}

impl std::fmt::Debug for HttpBytesLoader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpBytesLoader")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl HttpBytesLoader {
    /// The loader's id, as egui names loaders.
    pub const ID: &'static str = egui::generate_loader_id!(HttpBytesLoader);

    /// A loader with the default limits (10 s per fetch, 8 MB per image, 64 MB kept).
    pub fn new(runtime: tokio::runtime::Handle) -> Result<Self, ImageLoaderError> {
        Self::with_limits(runtime, LoaderLimits::default())
    }

    /// A loader with other limits.
    pub fn with_limits(
        runtime: tokio::runtime::Handle,
        limits: LoaderLimits,
    ) -> Result<Self, ImageLoaderError> {
        let client = reqwest::Client::builder()
            .timeout(limits.fetch_timeout)
            .connect_timeout(CONNECT_TIMEOUT.min(limits.fetch_timeout))
            .redirect(same_origin_redirects())
            .user_agent(concat!("solescope/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self {
            client,
            runtime,
            limits,
            cache: Arc::new(Mutex::new(Cache::new(limits.max_cache_bytes))),
        })
    }

    fn cache(&self) -> MutexGuard<'_, Cache> {
        lock(&self.cache)
    }
}

fn lock(cache: &Mutex<Cache>) -> MutexGuard<'_, Cache> {
    // The cache holds no invariant a panicking holder could break halfway that matters more
    // than showing pictures: keep going with what is there.
    cache.lock().unwrap_or_else(PoisonError::into_inner)
}

impl BytesLoader for HttpBytesLoader {
    fn id(&self) -> &str {
        Self::ID
    }

    fn load(&self, ctx: &egui::Context, uri: &str) -> BytesLoadResult {
        if !(uri.starts_with("http://") || uri.starts_with("https://")) {
            return Err(LoadError::NotSupported);
        }
        let fetch_id = match self.cache().lookup(uri, Instant::now()) {
            Lookup::Ready { bytes, mime } => {
                return Ok(BytesPoll::Ready {
                    size: None,
                    bytes: Bytes::Shared(bytes),
                    mime,
                });
            }
            Lookup::Pending => return Ok(BytesPoll::Pending { size: None }),
            Lookup::Failed(message) => return Err(LoadError::Loading(message)),
            Lookup::Start(fetch_id) => fetch_id,
        };
        let client = self.client.clone();
        let cache = Arc::clone(&self.cache);
        let ctx = ctx.clone();
        let uri = uri.to_owned();
        let limits = self.limits;
        self.runtime.spawn(async move {
            let outcome = fetch(&client, &uri, limits).await;
            if let Err(message) = &outcome {
                tracing::debug!("{message}");
            }
            let landed = lock(&cache).land(&uri, fetch_id, outcome, Instant::now());
            // Never repaint while holding the cache: egui may call `load` from inside.
            if landed {
                ctx.request_repaint();
            }
        });
        Ok(BytesPoll::Pending { size: None })
    }

    fn forget(&self, uri: &str) {
        self.cache().forget(uri);
    }

    fn forget_all(&self) {
        self.cache().forget_all();
    }

    fn byte_size(&self) -> usize {
        self.cache().byte_size()
    }

    fn has_pending(&self) -> bool {
        self.cache().has_pending()
    }
}

/// A fetched body.
#[derive(Debug, Clone)]
struct Fetched {
    bytes: Arc<[u8]>,
    mime: Option<String>,
}

/// GETs `uri`, refusing error statuses, redirects elsewhere, bodies over the size limit and
/// pictures over the image limits. The error is a sentence for the hover text, URL last.
async fn fetch(
    client: &reqwest::Client,
    uri: &str,
    limits: LoaderLimits,
) -> Result<Fetched, String> {
    let failed = |reason: String| format!("could not load the image ({reason}): {uri}");
    let describe = |err: &reqwest::Error| {
        if err.is_timeout() {
            format!("no answer within {} s", limits.fetch_timeout.as_secs_f32())
        } else if err.is_connect() {
            "could not connect".to_owned()
        } else if err.is_body() || err.is_decode() {
            "the answer broke off".to_owned()
        } else {
            "the request failed".to_owned()
        }
    };
    let response = client
        .get(uri)
        .header(reqwest::header::ACCEPT, "image/*")
        .send()
        .await
        .map_err(|err| failed(describe(&err)))?;
    let status = response.status();
    if status.is_redirection() {
        // Only a redirect the policy refused reaches here: to another host, port or scheme.
        return Err(failed(format!(
            "the server answered {status}, a redirect to another host or scheme, not followed"
        )));
    }
    if !status.is_success() {
        return Err(failed(format!("the server answered {status}")));
    }
    let mime = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let body = read_body_capped(response, limits.max_response_bytes)
        .await
        .map_err(|err| match err {
            ReadError::TooLarge(too_large) => failed(too_large_text(too_large)),
            ReadError::Transport(err) => failed(describe(&err)),
        })?;
    check_image_size(&body, limits.image).map_err(|refused| failed(refused.to_string()))?;
    Ok(Fetched {
        bytes: body.into(),
        mime,
    })
}

fn too_large_text(too_large: BodyTooLarge) -> String {
    format!("larger than {} KB", too_large.max_bytes.div_ceil(1024))
}

/// What the cache knows about a URI.
#[derive(Debug)]
enum Entry {
    /// A fetch is running; its id tells its answer from one of an earlier, forgotten fetch.
    Pending { fetch_id: u64 },
    /// The body, and when it was last asked for (in lookups), for eviction.
    Ready { fetched: Fetched, last_used: u64 },
    /// The fetch failed.
    Failed { message: String, failed_at: Instant },
}

/// What [`Cache::lookup`] found.
#[derive(Debug)]
enum Lookup {
    Ready {
        bytes: Arc<[u8]>,
        mime: Option<String>,
    },
    Pending,
    Failed(String),
    /// Nothing usable: start fetch `fetch_id` (already marked pending).
    Start(u64),
}

/// Fetched bodies and fetches in flight, by URI, with the bodies bounded by total size.
#[derive(Debug)]
struct Cache {
    entries: HashMap<String, Entry>,
    ready_bytes: usize,
    max_ready_bytes: usize,
    /// Counts lookups: a cheap clock for "least recently used".
    lookups: u64,
    next_fetch_id: u64,
}

impl Cache {
    fn new(max_ready_bytes: usize) -> Self {
        Self {
            entries: HashMap::new(),
            ready_bytes: 0,
            max_ready_bytes,
            lookups: 0,
            next_fetch_id: 0,
        }
    }

    fn lookup(&mut self, uri: &str, now: Instant) -> Lookup {
        self.lookups += 1;
        match self.entries.get_mut(uri) {
            Some(Entry::Ready { fetched, last_used }) => {
                *last_used = self.lookups;
                return Lookup::Ready {
                    bytes: Arc::clone(&fetched.bytes),
                    mime: fetched.mime.clone(),
                };
            }
            Some(Entry::Pending { .. }) => return Lookup::Pending,
            Some(Entry::Failed { message, failed_at })
                if now.duration_since(*failed_at) < RETRY_FAILED_AFTER =>
            {
                return Lookup::Failed(message.clone());
            }
            Some(Entry::Failed { .. }) | None => {}
        }
        let fetch_id = self.next_fetch_id;
        self.next_fetch_id += 1;
        self.entries
            .insert(uri.to_owned(), Entry::Pending { fetch_id });
        Lookup::Start(fetch_id)
    }

    /// Stores the outcome of fetch `fetch_id`, unless the URI was forgotten (or fetched anew)
    /// meanwhile. Returns whether it was stored.
    fn land(
        &mut self,
        uri: &str,
        fetch_id: u64,
        outcome: Result<Fetched, String>,
        now: Instant,
    ) -> bool {
        let current = matches!(
            self.entries.get(uri),
            Some(Entry::Pending { fetch_id: pending }) if *pending == fetch_id
        );
        if !current {
            return false;
        }
        let entry = match outcome {
            Ok(fetched) => {
                self.ready_bytes += fetched.bytes.len();
                Entry::Ready {
                    fetched,
                    last_used: self.lookups,
                }
            }
            Err(message) => Entry::Failed {
                message,
                failed_at: now,
            },
        };
        self.entries.insert(uri.to_owned(), entry);
        self.evict_over_budget(uri);
        true
    }

    /// Drops the least recently used bodies until the total fits, keeping `keep` (just landed:
    /// it is about to be shown).
    fn evict_over_budget(&mut self, keep: &str) {
        while self.ready_bytes > self.max_ready_bytes {
            let oldest = self
                .entries
                .iter()
                .filter(|(uri, _)| uri.as_str() != keep)
                .filter_map(|(uri, entry)| match entry {
                    Entry::Ready { last_used, .. } => Some((*last_used, uri.clone())),
                    Entry::Pending { .. } | Entry::Failed { .. } => None,
                })
                .min();
            let Some((_, uri)) = oldest else {
                break;
            };
            self.forget(&uri);
        }
    }

    fn forget(&mut self, uri: &str) {
        if let Some(Entry::Ready { fetched, .. }) = self.entries.remove(uri) {
            self.ready_bytes -= fetched.bytes.len();
        }
    }

    fn forget_all(&mut self) {
        self.entries.clear();
        self.ready_bytes = 0;
    }

    fn byte_size(&self) -> usize {
        let messages: usize = self
            .entries
            .values()
            .map(|entry| match entry {
                Entry::Failed { message, .. } => message.len(),
                Entry::Pending { .. } | Entry::Ready { .. } => 0,
            })
            .sum();
        self.ready_bytes + messages
    }

    fn has_pending(&self) -> bool {
        self.entries
            .values()
            .any(|entry| matches!(entry, Entry::Pending { .. }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(len: usize) -> Fetched {
        Fetched {
            bytes: vec![7; len].into(),
            mime: Some("image/png".into()),
        }
    }

    fn start(cache: &mut Cache, uri: &str) -> u64 {
        match cache.lookup(uri, Instant::now()) {
            Lookup::Start(id) => id,
            other => panic!("expected a new fetch for {uri}, got {other:?}"),
        }
    }

    #[test]
    fn a_uri_is_fetched_once_and_then_served_from_memory() {
        let mut cache = Cache::new(1000);
        let id = start(&mut cache, "http://a");
        assert!(matches!(
            cache.lookup("http://a", Instant::now()),
            Lookup::Pending
        ));
        assert!(cache.has_pending());
        assert!(cache.land("http://a", id, Ok(body(10)), Instant::now()));
        assert!(!cache.has_pending());
        assert!(matches!(
            cache.lookup("http://a", Instant::now()),
            Lookup::Ready { bytes, .. } if bytes.len() == 10
        ));
        assert_eq!(cache.byte_size(), 10);
    }

    #[test]
    fn bodies_are_bounded_least_recently_used_first() {
        let mut cache = Cache::new(25);
        for uri in ["http://a", "http://b"] {
            let id = start(&mut cache, uri);
            cache.land(uri, id, Ok(body(10)), Instant::now());
        }
        // `a` is used again, so `b` is the oldest when `c` does not fit.
        cache.lookup("http://a", Instant::now());
        let id = start(&mut cache, "http://c");
        cache.land("http://c", id, Ok(body(10)), Instant::now());
        assert_eq!(cache.byte_size(), 20);
        assert!(matches!(
            cache.lookup("http://a", Instant::now()),
            Lookup::Ready { .. }
        ));
        assert!(matches!(
            cache.lookup("http://b", Instant::now()),
            Lookup::Start(_)
        ));
        // A body bigger than the whole budget is still kept while it is the newest.
        let mut small = Cache::new(5);
        let id = start(&mut small, "http://big");
        small.land("http://big", id, Ok(body(10)), Instant::now());
        assert_eq!(small.byte_size(), 10);
    }

    #[test]
    fn forgotten_fetches_do_not_land_and_failures_are_retried_later() {
        let mut cache = Cache::new(100);
        let id = start(&mut cache, "http://a");
        cache.forget("http://a");
        assert!(!cache.land("http://a", id, Ok(body(10)), Instant::now()));
        assert_eq!(cache.byte_size(), 0);

        let id = start(&mut cache, "http://a");
        let failed_at = Instant::now();
        assert!(cache.land("http://a", id, Err("refused".into()), failed_at));
        assert!(matches!(
            cache.lookup("http://a", failed_at),
            Lookup::Failed(message) if message == "refused"
        ));
        assert!(matches!(
            cache.lookup("http://a", failed_at + RETRY_FAILED_AFTER),
            Lookup::Start(_)
        ));
        cache.forget_all();
        assert_eq!(cache.byte_size(), 0);
        assert!(!cache.has_pending());
    }
    /// The real service over a small generated catalogue, and one product's slug.
    async fn service() -> (tempfile::TempDir, crate::service::ServerHandle, String) {
        use crate::catalogue::generate::{self, GenerateOptions};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("images.sqlite");
        let options = GenerateOptions {
            products: 20,
            seed: 3,
            as_of: chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
            demo_keys: true,
        };
        generate::generate(&options, &path, &mut |_| {}).unwrap();
        let slug: String = rusqlite::Connection::open(&path)
            .unwrap()
            .query_row("SELECT slug FROM products ORDER BY pk LIMIT 1", [], |row| {
                row.get(0)
            })
            .unwrap();
        let config = crate::service::ServiceConfig::new(&path);
        let state =
            tokio::task::spawn_blocking(move || crate::service::ServiceState::open(&config))
                .await
                .unwrap()
                .unwrap();
        let server = crate::service::spawn("127.0.0.1:0", state).await.unwrap();
        (dir, server, slug)
    }

    /// A context whose repaint requests wake the returned `Notify`. The observer sees every
    /// request (the repaint callback only those that make the next frame sooner, and no frame
    /// runs here).
    fn context_with_wakeups() -> (egui::Context, Arc<tokio::sync::Notify>) {
        let ctx = egui::Context::default();
        let woken = Arc::new(tokio::sync::Notify::new());
        let notify = Arc::clone(&woken);
        ctx.set_repaint_observer(move |_| notify.notify_one());
        (ctx, woken)
    }

    /// Asks `loader` for `uri` until it stops answering `Pending`, waiting for its repaint
    /// requests in between; fails the test after `within`.
    async fn load_until_done(
        loader: &HttpBytesLoader,
        ctx: &egui::Context,
        woken: &tokio::sync::Notify,
        uri: &str,
        within: Duration,
    ) -> BytesLoadResult {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match loader.load(ctx, uri) {
                Ok(BytesPoll::Pending { .. }) => {
                    tokio::time::timeout_at(deadline, woken.notified())
                        .await
                        .unwrap_or_else(|_| panic!("{uri} still pending after {within:?}"));
                }
                done => return done,
            }
        }
    }

    const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn fetches_the_service_placeholder_in_the_background() {
        let (_dir, server, slug) = service().await;
        let loader = HttpBytesLoader::new(tokio::runtime::Handle::current()).unwrap();
        let (ctx, woken) = context_with_wakeups();
        let uri = format!("{}/images/products/{slug}.png?w=96", server.base_url());

        assert!(matches!(
            loader.load(&ctx, "file:///etc/hostname"),
            Err(LoadError::NotSupported)
        ));
        // The first ask only starts the fetch: the UI thread never waits.
        let started = Instant::now();
        assert!(matches!(
            loader.load(&ctx, &uri),
            Ok(BytesPoll::Pending { .. })
        ));
        assert!(started.elapsed() < Duration::from_millis(200));

        let Ok(BytesPoll::Ready { bytes, mime, .. }) =
            load_until_done(&loader, &ctx, &woken, &uri, Duration::from_secs(20)).await
        else {
            panic!("the placeholder did not load");
        };
        assert_eq!(mime.as_deref(), Some("image/png"));
        assert!(bytes.starts_with(PNG_MAGIC));
        let picture = image::load_from_memory(&bytes).unwrap();
        assert_eq!((picture.width(), picture.height()), (96, 64));
        assert_eq!(loader.byte_size(), bytes.len());
        assert!(!loader.has_pending());

        // Answered from memory now, even with the server gone.
        server.shutdown().await;
        assert!(matches!(
            loader.load(&ctx, &uri),
            Ok(BytesPoll::Ready { .. })
        ));
        loader.forget(&uri);
        assert_eq!(loader.byte_size(), 0);
        let Err(LoadError::Loading(message)) =
            load_until_done(&loader, &ctx, &woken, &uri, Duration::from_secs(20)).await
        else {
            panic!("a fetch from a stopped server must fail");
        };
        assert!(message.ends_with(&uri), "{message}");
        loader.forget_all();
        assert_eq!(loader.byte_size(), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn fails_cleanly_on_errors_silence_and_huge_answers() {
        let (_dir, server, slug) = service().await;
        let (ctx, woken) = context_with_wakeups();
        let limits = LoaderLimits {
            fetch_timeout: Duration::from_secs(1),
            max_response_bytes: 512,
            ..LoaderLimits::default()
        };
        let loader =
            HttpBytesLoader::with_limits(tokio::runtime::Handle::current(), limits).unwrap();

        // A 404 from the service.
        let missing = format!("{}/images/products/no-such-sneaker.png", server.base_url());
        let Err(LoadError::Loading(message)) =
            load_until_done(&loader, &ctx, &woken, &missing, Duration::from_secs(10)).await
        else {
            panic!("a 404 must fail");
        };
        assert!(message.contains("404"), "{message}");

        // Bigger than the limit (a 480 px placeholder is several KB).
        let big = format!("{}/images/products/{slug}.png", server.base_url());
        let Err(LoadError::Loading(message)) =
            load_until_done(&loader, &ctx, &woken, &big, Duration::from_secs(10)).await
        else {
            panic!("an answer over the size limit must fail");
        };
        assert!(message.contains("larger than"), "{message}");

        // A server that accepts and never answers: the timeout ends the fetch.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let silent_uri = format!("http://{}/products/x.png", silent.local_addr().unwrap());
        let holder = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = silent.accept().await {
                held.push(socket);
            }
        });
        let started = Instant::now();
        let Err(LoadError::Loading(message)) =
            load_until_done(&loader, &ctx, &woken, &silent_uri, Duration::from_secs(10)).await
        else {
            panic!("a silent server must fail");
        };
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(message.contains("no answer within"), "{message}");
        holder.abort();

        // Nothing listening at all.
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let closed_uri = format!("http://{}/a.png", closed.local_addr().unwrap());
        drop(closed);
        assert!(matches!(
            load_until_done(&loader, &ctx, &woken, &closed_uri, Duration::from_secs(10)).await,
            Err(LoadError::Loading(_))
        ));
        // Failures are remembered: asking again answers at once, without a new fetch.
        assert!(matches!(
            loader.load(&ctx, &closed_uri),
            Err(LoadError::Loading(_))
        ));
        assert!(!loader.has_pending());
    }

    #[test]
    fn install_adds_the_loader_once() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let ctx = egui::Context::default();
        install(&ctx, runtime.handle().clone());
        install(&ctx, runtime.handle().clone());
        assert!(ctx.is_loader_installed(HttpBytesLoader::ID));
        let loaders = ctx.loaders();
        let ours = loaders
            .bytes
            .lock()
            .iter()
            .filter(|loader| loader.id() == HttpBytesLoader::ID)
            .count();
        assert_eq!(ours, 1);
    }
}
