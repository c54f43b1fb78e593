//! Catalogue crawl benchmark: one pass over a 5,000-product store, the mock Shopify
//! store of the tests (`tests/common/mock_storefront.rs`) on a real loopback socket, with the
//! pacing on (one request a second per store, as in use).
//!
//! ```text
//! cargo bench --bench store_crawl
//! SOLESCOPE_BENCH_STORE_PRODUCTS=5001 cargo bench --bench store_crawl
//! ```
//!
//! Prints the paced pass's time, its requests (`/meta.json` and the pages, counted at the mock),
//! the gaps between requests (min, p50, p99) and, as the baseline measured in the same run, the
//! same pass with the pacing off (what reading, decoding and writing the pages cost). Targets:
//! at most 25 s, every page of the store read once, no request wasted (no empty page after the
//! last full one, no page asked twice), no two requests closer than a second. A FAIL exits 1.

use std::collections::HashSet;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[allow(dead_code, reason = "each benchmark uses a part of the shared helpers")]
mod common;
#[path = "../tests/common/mock_storefront.rs"]
mod mock_storefront;

use common::{env_number, percentile};
use mock_storefront::MockStorefront;
use solescope::model::{RetailerStores, StoreUrl};
use solescope::service::storefront::crawl::{CrawlConfig, Crawler, PassReport};
use solescope::service::storefront::store_db::{PassOutcome, StoreDb};
use solescope::service::storefront::worker::StoreWorker;
use solescope::service::storefront::{StorefrontConfig, Storefronts};

/// One pass over `mock` with `min_interval` between requests, into a fresh store file.
async fn pass(mock: &MockStorefront, min_interval: Duration) -> (PassReport, Duration) {
    let store = StoreUrl::parse(&mock.base_url).expect("mock URL");
    let storefronts = Arc::new(Storefronts::new(
        RetailerStores::new([store.clone()]),
        StorefrontConfig {
            min_interval,
            ..StorefrontConfig::default()
        },
    ));
    let dir = tempfile::tempdir().expect("temporary directory");
    let (db, _) = StoreDb::open(&dir.path().join("stores.sqlite")).expect("store file");
    let worker = StoreWorker::start(db).expect("store file thread");
    let crawler = Crawler::new(storefronts, worker, CrawlConfig::default());
    mock.clear_seen();
    let started = Instant::now();
    let report = crawler.pass(&store, &|_| {}).await.expect("pass");
    (report, started.elapsed())
}

fn verdict(ok: bool) -> &'static str {
    if ok { "PASS" } else { "FAIL" }
}

#[tokio::main]
async fn main() -> ExitCode {
    common::print_build();
    let products: u64 = env_number("SOLESCOPE_BENCH_STORE_PRODUCTS").unwrap_or(5_000);
    let mock = MockStorefront::start_with_synthetic(Vec::new(), products).await;
    let pages_needed = u32::try_from(products.div_ceil(250)).expect("pages");
    println!(
        "store: {products} products on the mock at {} (250 a page: {pages_needed} pages)",
        mock.base_url
    );

    let (baseline, baseline_time) = pass(&mock, Duration::ZERO).await;
    println!(
        "baseline, pacing off: {:.2} s for {} requests ({} pages, {} products written)",
        baseline_time.as_secs_f64(),
        baseline.requests,
        baseline.pages_read,
        baseline.products_written
    );

    let (report, time) = pass(&mock, Duration::from_secs(1)).await;
    let seen = mock.seen();
    let feed: Vec<String> = mock.feed_requests().into_iter().map(|s| s.query).collect();
    let distinct: HashSet<&String> = feed.iter().collect();
    let mut gaps: Vec<Duration> = seen
        .windows(2)
        .map(|pair| pair[1].at.duration_since(pair[0].at))
        .collect();
    gaps.sort_unstable();
    let wasted = seen.len() as i64 - 1 - i64::from(pages_needed);
    println!(
        "paced pass: {:.2} s, outcome {:?}, {} requests at the mock (/meta.json + {} pages), {} products written",
        time.as_secs_f64(),
        report.outcome,
        seen.len(),
        feed.len(),
        report.products_written
    );
    if let (Some(min), false) = (gaps.first(), gaps.is_empty()) {
        println!(
            "gaps between requests: min {:.3} s, p50 {:.3} s, p99 {:.3} s",
            min.as_secs_f64(),
            percentile(&gaps, 0.5).as_secs_f64(),
            percentile(&gaps, 0.99).as_secs_f64()
        );
    }
    let checks = [
        (
            time <= Duration::from_secs(25),
            format!("pass time {:.2} s <= 25 s", time.as_secs_f64()),
        ),
        (
            report.outcome == PassOutcome::Complete && report.pages_read == pages_needed,
            format!(
                "{} of {pages_needed} pages read, complete",
                report.pages_read
            ),
        ),
        (
            feed.len() == pages_needed as usize && distinct.len() == feed.len(),
            format!("{} page requests, each page once", feed.len()),
        ),
        (
            wasted == 0,
            format!("{wasted} requests wasted (beyond /meta.json and the pages)"),
        ),
        (
            gaps.first()
                .is_none_or(|min| *min >= Duration::from_millis(990)),
            "no two requests closer than a second".to_owned(),
        ),
    ];
    let mut failed = false;
    for (ok, what) in &checks {
        println!("{}: {what}", verdict(*ok));
        failed |= !ok;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
