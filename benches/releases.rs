//! Benchmark: `GET /api/v2/releases?days=90` over the running service at a million products.
//!
//! `cargo bench --bench releases` (default 1,000,000 products; `SOLESCOPE_BENCH_PRODUCTS=N` to
//! change). Generates a catalogue (as of the benchmarks' fixed day, the service's clock set to
//! it, so the window holds the generator's coming releases), starts the real service on
//! 127.0.0.1:0, times the first request (which waits for the calendar's build: the catalogue's
//! release dates read, the premium model fitted, every entry estimated), then sends sequential
//! requests over one keep-alive connection and prints p50/p90/p99/max. The baseline, measured
//! in the same run over the same connection, is `/api/v2/subscriptions` (the same HTTP stack
//! and JSON envelope, no catalogue work). PASS when the calendar's p99 is at most 5 ms; a FAIL
//! exits non-zero.

use std::sync::Arc;
use std::time::{Duration, Instant};

#[allow(dead_code, reason = "each benchmark uses a part of the shared helpers")]
mod common;
use common::{env_number, ms, percentile};
use solescope::model::budget::ManualClock;
use solescope::service::{self, ServiceConfig, ServiceState};

const SEQUENTIAL: usize = 2_000;
const P99_LIMIT_MS: f64 = 5.0;

fn main() {
    let products: u32 = env_number("SOLESCOPE_BENCH_PRODUCTS").unwrap_or(1_000_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bench.sqlite");
    let started = Instant::now();
    common::generate_catalogue(&path, products, 1);
    println!(
        "generate: {products} products in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let verdict = runtime.block_on(async {
        let mut config = ServiceConfig::new(&path);
        config.simulator.latency_ms = 0;
        let noon = common::as_of().and_hms_opt(12, 0, 0).expect("noon").and_utc();
        config.releases.clock = Arc::new(ManualClock::new(noon));
        let started = Instant::now();
        let state = tokio::task::spawn_blocking(move || ServiceState::open(&config))
            .await
            .expect("join")
            .expect("service");
        println!("service start: {:.2} s", started.elapsed().as_secs_f64());
        let server = service::spawn("127.0.0.1:0", state).await.expect("spawn");
        let base = server.base_url();
        let client = reqwest::Client::new();
        let calendar = format!("{base}/api/v2/releases?days=90");

        let started = Instant::now();
        let first: serde_json::Value = client
            .get(&calendar)
            .header("Authorization", "demo-pro")
            .timeout(Duration::from_secs(600))
            .send()
            .await
            .expect("first request")
            .json()
            .await
            .expect("json");
        let data = &first["data"];
        let page = data["releases"].as_array().map_or(0, Vec::len);
        let estimated = data["releases"]
            .as_array()
            .map_or(0, |r| r.iter().filter(|r| !r["estimate"].is_null()).count());
        println!(
            "first request (the calendar's build): {:.2} s; {} drops in 90 days, {page} on the page, {estimated} of them estimated; model: {} releases before {}",
            started.elapsed().as_secs_f64(),
            data["total"],
            data["model"]["releases"],
            data["model"]["fitted_before"]
        );

        println!();
        println!(
            "{:<44} {:>8} {:>8} {:>8} {:>8} {:>7}",
            "endpoint (sequential, 1 connection)", "p50 ms", "p90 ms", "p99 ms", "max ms", "ratio"
        );
        let mut baseline_p50 = 0.0;
        let mut calendar_p99 = f64::NAN;
        for (name, url) in [
            ("baseline /api/v2/subscriptions", format!("{base}/api/v2/subscriptions")),
            ("/api/v2/releases?days=90", calendar.clone()),
        ] {
            let mut latencies = Vec::with_capacity(SEQUENTIAL);
            for _ in 0..SEQUENTIAL {
                latencies.push(common::timed_get(&client, &url).await);
            }
            latencies.sort();
            let p50 = ms(percentile(&latencies, 0.5));
            if baseline_p50 == 0.0 {
                baseline_p50 = p50;
            }
            let p99 = ms(percentile(&latencies, 0.99));
            println!(
                "{name:<44} {p50:>8.3} {:>8.3} {p99:>8.3} {:>8.3} {:>6.1}x",
                ms(percentile(&latencies, 0.9)),
                ms(latencies[latencies.len() - 1]),
                p50 / baseline_p50
            );
            calendar_p99 = p99;
        }
        println!();
        let pass = calendar_p99 <= P99_LIMIT_MS;
        println!(
            "{}: /api/v2/releases?days=90 p99 {calendar_p99:.3} ms (limit {P99_LIMIT_MS} ms) over {products} products",
            if pass { "PASS" } else { "FAIL" }
        );
        pass
    });
    if !verdict {
        std::process::exit(1);
    }
}
