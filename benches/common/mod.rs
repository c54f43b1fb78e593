//! What the benchmarks share: settings from the environment, percentiles, the process's memory
//! and the catalogue they measure on. Each benchmark uses a part of it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDate;
use solescope::app::{self, App, AppInit, AppState, StartupStatus};
use solescope::catalogue::generate::{GenerateOptions, generate};
use solescope::client::{KeyStore as _, MemoryKeyStore};

/// Prints the build the figures come from, first thing in every benchmark: `cargo bench`
/// builds the `bench` profile, which Cargo.toml gives the settings of the binary we ship (the
/// `dist` profile: fat LTO, one codegen unit); a run built with them overridden
/// (`CARGO_PROFILE_BENCH_LTO=false`, quicker to build) says so, read when it was compiled.
pub fn print_build() {
    if cfg!(debug_assertions) {
        println!(
            "build: a debug build (debug assertions on), not the bench profile: its times are not the shipped binary's"
        );
        return;
    }
    let lto = option_env!("CARGO_PROFILE_BENCH_LTO").unwrap_or("fat");
    let units = option_env!("CARGO_PROFILE_BENCH_CODEGEN_UNITS").unwrap_or("1");
    println!(
        "build: the bench profile, LTO {lto}, {units} codegen unit(s) (the shipped dist binary: LTO fat, 1)"
    );
}

/// A number from the environment variable `name`, when set and readable.
pub fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok()?.parse().ok()
}

/// The `p` quantile (0 to 1) of durations sorted in ascending order.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// A duration in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A field of `/proc/self/status` in MB (`VmRSS`, `VmHWM`); NaN where there is none.
pub fn proc_status_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// The day every benchmark catalogue describes, so runs compare.
pub fn as_of() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 22).expect("valid date")
}

/// Generates a catalogue of `products` products from `seed` at `path`, with the demo keys.
pub fn generate_catalogue(path: &Path, products: u32, seed: u64) {
    let options = GenerateOptions {
        products,
        seed,
        as_of: as_of(),
        demo_keys: true,
    };
    generate(&options, path, &mut |_| {}).expect("catalogue generated");
}

/// Time of one `GET url` with the pro demo key, body read; panics on a failed answer, so no
/// error is ever timed as a result.
pub async fn timed_get(client: &reqwest::Client, url: &str) -> Duration {
    timed_get_as(client, url, "demo-pro").await.0
}

/// Time of one `GET url` with the API key `key`, and the body's length; panics on a failed
/// answer.
pub async fn timed_get_as(client: &reqwest::Client, url: &str, key: &str) -> (Duration, usize) {
    let started = std::time::Instant::now();
    let response = client
        .get(url)
        .header("Authorization", key)
        .send()
        .await
        .expect("request");
    assert!(
        response.status().is_success(),
        "{url}: {}",
        response.status()
    );
    let body = response.bytes().await.expect("body");
    (started.elapsed(), body.len())
}

/// The real app on the service at `base_url`, signed in with the pro demo key (kept in memory,
/// never in the OS keyring), showing `state`, with its user database at `user_db` if any.
pub fn demo_app(
    runtime: &tokio::runtime::Runtime,
    base_url: &str,
    state: AppState,
    user_db: Option<PathBuf>,
) -> App {
    let key_store = Arc::new(MemoryKeyStore::new());
    key_store
        .set(app::LOCAL_DEMO_ACCOUNT, "demo-pro")
        .expect("memory key store");
    App::new(AppInit {
        runtime: runtime.handle().clone(),
        key_store,
        startup: StartupStatus::ready(base_url),
        state,
        screenshot: None,
        user_db,
    })
}
