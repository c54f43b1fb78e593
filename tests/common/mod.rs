//! Set-up shared by the integration tests: generated catalogues, a running service, a log buffer.
//! Each test binary uses part of it.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chrono::NaiveDate;
use solescope::catalogue::generate::{self, GenerateOptions};
use solescope::service::{self, ServerHandle, ServiceConfig, ServiceState};

pub mod conformance;
pub mod kittest;
pub mod mock_kicksdb;
pub mod mock_storefront;
pub mod notifications;

/// The day every test catalogue describes, so figures do not depend on when tests run.
pub fn as_of() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
}

/// Generates `products` products with `seed` into `dir/name` (with the demo keys).
pub fn catalogue(dir: &Path, name: &str, products: u32, seed: u64) -> PathBuf {
    let path = dir.join(name);
    let options = GenerateOptions {
        products,
        seed,
        as_of: as_of(),
        demo_keys: true,
    };
    generate::generate(&options, &path, &mut |_| {}).unwrap();
    path
}

/// Service settings over `catalogue` with no simulated upstream latency.
pub fn config(catalogue: &Path) -> ServiceConfig {
    let mut config = ServiceConfig::new(catalogue);
    config.simulator.latency_ms = 0;
    config
}

/// Starts the real service on `127.0.0.1:0` on the current runtime.
pub async fn start(config: ServiceConfig) -> ServerHandle {
    let state = tokio::task::spawn_blocking(move || ServiceState::open(&config))
        .await
        .unwrap()
        .unwrap();
    service::spawn("127.0.0.1:0", state).await.unwrap()
}

/// Everything written to it, for asserting on log output.
#[derive(Clone, Default)]
pub struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl LogBuffer {
    /// Installs a global TRACE-level subscriber (no colours) writing into a new buffer.
    pub fn install_trace_subscriber() -> Self {
        let buffer = Self::default();
        let writer = buffer.clone();
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .init();
        buffer
    }

    /// What was written so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl Write for LogBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A generated catalogue and the service over it on a real loopback socket, with the runtime it
/// runs on; for test files that share one service between their tests.
pub struct TestService {
    /// The catalogue file.
    pub path: PathBuf,
    /// The runtime the service (and the apps under test) run on.
    pub runtime: tokio::runtime::Runtime,
    /// Where the service answers.
    pub base_url: String,
    _server: ServerHandle,
    _dir: tempfile::TempDir,
}

impl TestService {
    /// Generates `products` products with `seed` into a temporary `name` and serves them.
    pub fn start(name: &str, products: u32, seed: u64) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = catalogue(dir.path(), name, products, seed);
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let server = runtime.block_on(start(ServiceConfig::new(&path)));
        Self {
            path,
            base_url: server.base_url(),
            runtime,
            _server: server,
            _dir: dir,
        }
    }
}

/// The service over the KicksDB source at `base_url` (a mock KicksDB) with `key`, its mirror
/// `mirror.sqlite` in `dir`, short timeouts; `tune` adjusts both settings before the start,
/// which is the one every process makes (`service::start::spawn_kicksdb`).
pub async fn kicksdb_service(
    base_url: String,
    key: &str,
    dir: &Path,
    tune: impl FnOnce(&mut solescope::service::kicksdb::KicksdbConfig, &mut ServiceConfig),
) -> ServerHandle {
    use solescope::service::kicksdb::KicksdbConfig;
    let mirror = dir.join("mirror.sqlite");
    let mut live = KicksdbConfig::new(key, &mirror);
    live.base_url = base_url;
    live.http.request_timeout = std::time::Duration::from_secs(2);
    live.max_wait = std::time::Duration::from_secs(2);
    let mut config = ServiceConfig::new(&mirror);
    tune(&mut live, &mut config);
    service::start::spawn_kicksdb(config, live, "127.0.0.1:0")
        .await
        .unwrap()
}

/// A client of `server` with the ultra demo key, no retries.
pub fn ultra_client(server: &ServerHandle) -> solescope::client::Client {
    let mut config =
        solescope::client::ClientConfig::new(server.base_url(), Some("demo-ultra".to_owned()));
    config.retries = 0;
    solescope::client::Client::new(config).unwrap()
}

/// Real-time calls spent between two readings of the client's budget. The service counts in
/// windows aligned to the clock's minutes, so a test's calls may straddle a new window: then the
/// second reading's own count is the answer (the earlier window's calls are behind it).
pub fn realtime_spent(
    before: &solescope::client::Budget,
    after: &solescope::client::Budget,
) -> u32 {
    let new_window = after.resets_at > before.resets_at + std::time::Duration::from_secs(5);
    if new_window {
        after.limit - after.remaining
    } else {
        before.remaining.saturating_sub(after.remaining)
    }
}
