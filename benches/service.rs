//! Benchmark: the running service over loopback HTTP, per endpoint, and catalogue generation.
//!
//! `cargo bench --bench service` (default 100,000 products; `SOLESCOPE_BENCH_PRODUCTS=N` to
//! change). It generates a catalogue in a temp dir (timing the generator), starts the real
//! service on 127.0.0.1:0, and for each endpoint sends sequential requests over one keep-alive
//! connection, printing p50/p99 latency; then 8 concurrent connections for throughput. The
//! baseline, measured in the same run, is `/api/v2/subscriptions`: the same HTTP stack, auth-free,
//! with no catalogue work, so `ratio` shows what each endpoint adds over bare HTTP.

use std::time::{Duration, Instant};

#[allow(dead_code, reason = "each benchmark uses a part of the shared helpers")]
mod common;
use common::{env_number, ms, percentile};
use solescope::catalogue::generate::{self, GenerateOptions};
use solescope::service::{self, ServiceConfig, ServiceState};

const SEQUENTIAL: usize = 2_000;
const CONCURRENCY: usize = 8;
const LOAD_SECONDS: u64 = 5;

fn main() {
    common::print_build();
    let products: u32 = env_number("SOLESCOPE_BENCH_PRODUCTS").unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bench.sqlite");
    let options = GenerateOptions {
        products,
        seed: 1,
        as_of: common::as_of(),
        demo_keys: true,
    };
    let started = Instant::now();
    let report = generate::generate(&options, &path, &mut |_| {}).expect("generate");
    let generate_secs = started.elapsed().as_secs_f64();
    let size_mb = std::fs::metadata(&path).map_or(0.0, |m| m.len() as f64 / 1e6);
    println!(
        "generate: {products} products, {} variants, {} weekly records in {generate_secs:.2} s; file {size_mb:.0} MB",
        report.variants, report.weekly_orders
    );

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let mut config = ServiceConfig::new(&path);
        config.simulator.latency_ms = 0;
        config.realtime_per_minute = u32::MAX;
        let started = Instant::now();
        let state = tokio::task::spawn_blocking(move || ServiceState::open(&config))
            .await
            .expect("join")
            .expect("service");
        println!("service start (search index build): {:.2} s", started.elapsed().as_secs_f64());
        let server = service::spawn("127.0.0.1:0", state).await.expect("spawn");
        let base = server.base_url();
        let client = reqwest::Client::new();

        // Pick real ids from the catalogue through the interface itself.
        let first: serde_json::Value = client
            .get(format!("{base}/search?query=jordan&limit=1"))
            .header("Authorization", "demo-pro")
            .send()
            .await
            .expect("search")
            .json()
            .await
            .expect("json");
        let id = first["hits"][0]["id"].as_str().expect("id").to_owned();
        let slug = first["hits"][0]["slug"].as_str().expect("slug").to_owned();

        let endpoints: Vec<(&str, String)> = vec![
            ("baseline /api/v2/subscriptions", "/api/v2/subscriptions".to_owned()),
            ("/search (mixed queries)", String::new()),
            ("/product/{slug}", format!("/product/{slug}")),
            ("/stats", "/stats".to_owned()),
            ("/api/v2/products/{id}", format!("/api/v2/products/{id}")),
            ("/api/v2/products/{id}/orders", format!("/api/v2/products/{id}/orders")),
            ("resale-a (simulated, 0 ms upstream)", format!("/api/v3/realtime/resale-a/products/{slug}")),
            ("resale-b related", format!("/api/v3/realtime/resale-b/products/{id}/related")),
            ("retailer-a", format!("/api/v3/retailer-a/products/{slug}")),
        ];
        let queries = [
            "jordan 1 chicago", "dunk low panda", "yeezy 350 zebra", "samba og", "new balance 550",
            "gel kayano 14", "jordan 4 military blue", "air force 1 triple white", "9060 sea salt",
            "jordon 1 chicgo", "yezy slate", "new balence 550", "DZ5485612", "dunk lo", "samb",
        ];
        println!();
        println!("{:<40} {:>9} {:>9} {:>9} {:>7}", "endpoint (sequential, 1 connection)", "p50 ms", "p99 ms", "max ms", "ratio");
        let mut baseline_p50 = 0.0;
        for (name, path) in &endpoints {
            let mut latencies = Vec::with_capacity(SEQUENTIAL);
            for i in 0..SEQUENTIAL {
                let url = if path.is_empty() {
                    format!("{base}/search?query={}", queries[i % queries.len()].replace(' ', "%20"))
                } else {
                    format!("{base}{path}")
                };
                latencies.push(common::timed_get(&client, &url).await);
            }
            latencies.sort();
            let p50 = ms(percentile(&latencies, 0.5));
            if baseline_p50 == 0.0 {
                baseline_p50 = p50;
            }
            println!(
                "{name:<40} {p50:>9.3} {:>9.3} {:>9.3} {:>6.1}x",
                ms(percentile(&latencies, 0.99)),
                ms(latencies[latencies.len() - 1]),
                p50 / baseline_p50
            );
        }

        println!();
        for (name, path) in [("search", None), ("product v2", Some(format!("/api/v2/products/{id}"))), ("orders", Some(format!("/api/v2/products/{id}/orders")))] {
            let deadline = Instant::now() + Duration::from_secs(LOAD_SECONDS);
            let mut tasks = Vec::new();
            for worker in 0..CONCURRENCY {
                let client = reqwest::Client::new();
                let base = base.clone();
                let path = path.clone();
                tasks.push(tokio::spawn(async move {
                    let mut latencies = Vec::new();
                    let mut i = worker;
                    while Instant::now() < deadline {
                        let url = match &path {
                            Some(path) => format!("{base}{path}"),
                            None => format!("{base}/search?query={}", queries[i % queries.len()].replace(' ', "%20")),
                        };
                        i += 1;
                        let started = Instant::now();
                        let response = client.get(url).header("Authorization", "demo-pro").send().await.expect("request");
                        response.bytes().await.expect("body");
                        latencies.push(started.elapsed());
                    }
                    latencies
                }));
            }
            let mut all = Vec::new();
            for task in tasks {
                all.extend(task.await.expect("join"));
            }
            all.sort();
            println!(
                "{name} under load ({CONCURRENCY} connections, {LOAD_SECONDS} s, client in the same process): {:.0} requests/s, p50 {:.3} ms, p99 {:.3} ms",
                all.len() as f64 / LOAD_SECONDS as f64,
                ms(percentile(&all, 0.5)),
                ms(percentile(&all, 0.99)),
            );
        }
        let rss = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS")).map(str::to_owned))
            .unwrap_or_default();
        println!("\nprocess (service + bench client) {rss}");
        server.shutdown().await;
    });
}
