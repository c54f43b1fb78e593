//! Flips benchmark: 20 stores of 5,000 crawled products matched against a 1,000,000-product
//! catalogue, 2,000 style codes in stock across them, priced from the catalogue file (the demo's
//! prices: no upstream, so the pricing is "in hand"), the service's flip list built and its pages
//! served over HTTP.
//!
//! ```text
//! cargo bench --bench flips
//! SOLESCOPE_BENCH_CATALOGUE=FILE SOLESCOPE_BENCH_STORES=20 SOLESCOPE_BENCH_STORE_PRODUCTS=5000 \
//!     SOLESCOPE_BENCH_CODES=2000 SOLESCOPE_BENCH_RUNS=5 SOLESCOPE_BENCH_PAGES=2000 cargo bench --bench flips
//! ```
//!
//! Setup (not timed): the catalogue (`target/bench-data/1m.sqlite`, generated with seed 1 when
//! missing). A pool of 2,000 catalogue products with a retail price (every n-th); 20 stores of
//! 5,000 products each: 1,000 of the pool's products (store `s` from the pool's `100 s`-th on, so
//! each code is at 10 stores), their style code in the SKUs with the size after it, 8 sizes, two
//! in three in stock, priced 60.00 to 259.99; 4,000 T-shirts with the store's own SKUs. The
//! store file is written as one complete pass per store (no request to any store; the next pass
//! is a day away). The service over the catalogue (its search index read back or built, its hit
//! store ready) with the stores' crawl, every store matched.
//!
//! Timed:
//! 1. The list built (`Flips::rebuild_now`: each store's stock in hand, the 2,000 codes priced
//!    50 a request from the catalogue file, their recent sales, the candidates), `RUNS` times:
//!    min, p50, max. Baseline in the same run: the same 40 batched price requests alone
//!    (`GET /api/v2/prices`, 50 codes each). FAIL when the slowest build is over 1 s.
//! 2. `PAGES` pages of `GET /api/v2/flips` (50 rows; pages 1 to 20; in turn the defaults,
//!    seller levels 2 to 5, one store, one size, a minimum profit, a store's own shipping), one
//!    after the other: p50, p99, max. Baseline in the same run: `GET /api/v2/budget` (a small v2
//!    answer through the same layers). FAIL when p99 is over 5 ms.
//! 3. Memory: what the flips add to the service: the resident memory after the builds and the
//!    pages over the resident memory before the first request for them, plus the stocked sizes
//!    the stores' matchings keep for the flips (counted from what they hold). FAIL over 100 MB.
//!
//! The figures are those of the build profile `cargo bench` uses (`[profile.bench]`, which
//! inherits the release profile: fat LTO, one codegen unit) unless the run says otherwise
//! (`CARGO_PROFILE_BENCH_LTO=off` and the like are printed by the caller).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The service's allocator (`src/main.rs`), so that the memory figures are the service's.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[allow(dead_code, reason = "each benchmark uses a part of the shared helpers")]
mod common;

use common::{env_number, ms, percentile, proc_status_mb};
use rusqlite::types::Value;
use solescope::model::flips::FlipsAnswer;
use solescope::model::{RetailerStores, StoreUrl, V2Envelope};
use solescope::service::local::LocalCatalogue;
use solescope::service::marketplace::{Marketplaces, Simulator};
use solescope::service::source::CatalogueSource;
use solescope::service::storefront::crawl::CrawlConfig;
use solescope::service::storefront::feed::{CrawledProduct, CrawledVariant};
use solescope::service::storefront::store_db::{FeedState, PassEnd, PassOutcome, StoreDb};
use solescope::service::storefront::{StoreReading, StorefrontConfig};
use solescope::service::{self, ServiceConfig, ServiceState};

/// A catalogue product the stores sell.
struct Drawn {
    sku: String,
    brand: String,
    title: String,
}

/// `count` products with a retail price, spread over the catalogue.
fn draw(catalogue: &Path, count: usize) -> Vec<Drawn> {
    let conn = rusqlite::Connection::open_with_flags(
        catalogue,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("catalogue");
    rusqlite::vtab::array::load_module(&conn).expect("rarray");
    let total: i64 = conn
        .query_row("SELECT max(pk) FROM products", [], |row| row.get(0))
        .expect("count");
    // Twice as many as wanted, every n-th: some have no retail price or share a code.
    let step = (total / i64::try_from(count * 2).expect("count")).max(1);
    let pks: Vec<Value> = (0..count * 2)
        .map(|i| Value::Integer(1 + i64::try_from(i).expect("index") * step))
        .collect();
    let mut statement = conn
        .prepare(
            "SELECT sku, sku_norm, brand, title FROM products
             WHERE pk IN rarray(?1) AND retail_usd_cents > 0 ORDER BY pk",
        )
        .expect("query");
    let mut seen = std::collections::HashSet::new();
    statement
        .query_map([Rc::new(pks)], |row| {
            Ok((
                row.get::<_, String>(1)?,
                Drawn {
                    sku: row.get(0)?,
                    brand: row.get(2)?,
                    title: row.get(3)?,
                },
            ))
        })
        .expect("rows")
        .filter_map(Result::ok)
        .filter(|(norm, _)| seen.insert(norm.clone()))
        .map(|(_, drawn)| drawn)
        .take(count)
        .collect()
}

fn store_url(index: usize) -> StoreUrl {
    StoreUrl::parse(&format!("https://store-{index}.example")).expect("store URL")
}

const SIZES: [f64; 8] = [7.0, 8.0, 8.5, 9.0, 9.5, 10.0, 11.0, 12.0];

/// Store `store`'s `index`-th product: a pool product with its code in the SKUs, or apparel.
fn store_product(store: usize, index: usize, drawn: Option<&Drawn>) -> CrawledProduct {
    let id = 7_000_000_000_000 + (store * 100_000 + index) as u64;
    let variants = SIZES
        .iter()
        .enumerate()
        .map(|(i, us)| CrawledVariant {
            variant_id: id * 10 + i as u64,
            size: format!("US {us}"),
            sku: drawn.map_or_else(
                || format!("SHOP-{store}-{index:05}-{i}"),
                |d| format!("{}-{:03}", d.sku, (us * 10.0) as u32),
            ),
            price: format!("{}.99", 59 + (index * 7 + i * 13 + store) % 200),
            available: !(index + i).is_multiple_of(3),
            barcode: None,
        })
        .collect();
    let (title, vendor, kind) = match drawn {
        Some(d) => (d.title.clone(), d.brand.clone(), "Sneakers"),
        None => (format!("Shop Tee {index}"), "Shop".to_owned(), "Apparel"),
    };
    CrawledProduct {
        product_id: id,
        handle: format!("store-{store}-product-{index}"),
        title,
        vendor,
        product_type: kind.into(),
        tags: vec![kind.into()],
        updated_at: "2026-11-01T10:00:00-05:00".into(),
        published_at: "2026-10-01T10:00:00-05:00".into(),
        variants,
        images: vec![],
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok { "PASS" } else { "FAIL" }
}

fn summary(label: &str, times: &mut [Duration]) -> (Duration, Duration, Duration) {
    times.sort_unstable();
    let (p50, p99, max) = (
        percentile(times, 0.5),
        percentile(times, 0.99),
        *times.last().expect("a time"),
    );
    println!(
        "{label}: {} runs, min {:.2} ms, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        times.len(),
        ms(times[0]),
        ms(p50),
        ms(p99),
        ms(max)
    );
    (p50, p99, max)
}

/// One `GET url` with the ultra demo key, its body read: its time and the body's length.
async fn timed(client: &reqwest::Client, url: &str) -> (Duration, usize) {
    common::timed_get_as(client, url, "demo-ultra").await
}

#[allow(clippy::too_many_lines, reason = "the benchmark's legs in order")]
#[tokio::main]
async fn main() -> ExitCode {
    let catalogue: PathBuf = std::env::var_os("SOLESCOPE_BENCH_CATALOGUE").map_or_else(
        || PathBuf::from("target/bench-data/1m.sqlite"),
        PathBuf::from,
    );
    let stores: usize = env_number("SOLESCOPE_BENCH_STORES").unwrap_or(20);
    let per_store: usize = env_number("SOLESCOPE_BENCH_STORE_PRODUCTS").unwrap_or(5_000);
    let codes: usize = env_number("SOLESCOPE_BENCH_CODES").unwrap_or(2_000);
    let runs: usize = env_number("SOLESCOPE_BENCH_RUNS").unwrap_or(5);
    let pages: usize = env_number("SOLESCOPE_BENCH_PAGES").unwrap_or(2_000);
    let matched_per_store = (codes * 10 / stores.max(1)).min(per_store);

    let setup = Instant::now();
    if !catalogue.exists() {
        println!(
            "setup: no catalogue at {}: generating 1,000,000 products (seed 1)",
            catalogue.display()
        );
        if let Some(dir) = catalogue.parent() {
            std::fs::create_dir_all(dir).expect("catalogue folder");
        }
        common::generate_catalogue(&catalogue, 1_000_000, 1);
    }
    let pool = draw(&catalogue, codes);
    assert_eq!(pool.len(), codes, "codes drawn");
    let dir = tempfile::tempdir().expect("temporary directory");
    let store_file = dir.path().join("stores.sqlite");
    {
        let (mut db, _) = StoreDb::open(&store_file).expect("store file");
        let now = chrono::Utc::now().timestamp();
        for s in 0..stores {
            let row = db.store(&store_url(s)).expect("store");
            let pass = db.begin_pass(row.store_id, now - 60).expect("pass");
            db.note_shop(
                row.store_id,
                pass,
                Some("Bench Shop"),
                Some("USD"),
                Some(per_store as u64),
            )
            .expect("shop");
            let products: Vec<CrawledProduct> = (0..per_store)
                .map(|i| {
                    let drawn = (i < matched_per_store).then(|| &pool[(s * 100 + i) % pool.len()]);
                    store_product(s, i, drawn)
                })
                .collect();
            for (page, chunk) in products.chunks(250).enumerate() {
                db.write_page(
                    row.store_id,
                    pass,
                    chunk,
                    u32::try_from(page + 1).unwrap_or(1),
                )
                .expect("page");
            }
            db.finish_pass(
                row.store_id,
                pass,
                &PassEnd {
                    finished_at: now - 30,
                    outcome: PassOutcome::Complete,
                    detail: None,
                    requests: 0,
                    feed: FeedState::Read,
                    next_pass_at: now + 86_400,
                    seen: None,
                },
            )
            .expect("finish");
        }
    }
    let list = RetailerStores::new((0..stores).map(store_url));
    let reading = StoreReading::with_crawl(
        list.clone(),
        StorefrontConfig::default(),
        &store_file,
        CrawlConfig {
            pass_interval: Duration::from_secs(86_400),
            ..CrawlConfig::default()
        },
    )
    .expect("store reading");
    let mut config = ServiceConfig::new(&catalogue);
    config.simulator.latency_ms = 0;
    config.store_reading = Some(reading.clone());
    let opened_config = config.clone();
    // The simulator's related-products index (a scan of every product) is never started: no
    // lookup needs it here, and it would take a core from the figures.
    let (local, simulator, _related) = tokio::task::spawn_blocking(move || {
        let (simulator, related) = Simulator::open_related_later(
            &opened_config.catalogue,
            opened_config.simulator.clone(),
        )
        .expect("simulator");
        let local = LocalCatalogue::open(&opened_config, Box::new(|| {})).expect("catalogue");
        (local, simulator, related)
    })
    .await
    .expect("open");
    while !local.hits_ready() {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let state = ServiceState::with_sources(
        &config,
        Arc::new(simulator) as Arc<dyn Marketplaces>,
        Arc::new(Arc::clone(&local)) as Arc<dyn CatalogueSource>,
    )
    .expect("service");
    let server = service::spawn("127.0.0.1:0", Arc::clone(&state))
        .await
        .expect("spawn");
    let crawl = reading.crawl().crawled().expect("the crawl").clone();
    // Every store matched by the crawl's start (from disk, no request).
    let started = Instant::now();
    while crawl.generation() < stores as u64 {
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "stores not matched"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let stock = crawl.flip_stock(&catalogue, &list.list()).await;
    let matched: usize = stock.iter().map(|s| s.products().len()).sum();
    let stocked_bytes: usize = stock
        .iter()
        .flat_map(solescope::service::storefront::crawled_stores::FlipStock::products)
        .map(|p| {
            std::mem::size_of_val(p)
                + p.handle.len()
                + p.sizes.capacity()
                    * std::mem::size_of::<solescope::service::storefront::offers::StockedSize>()
                + p.sizes
                    .iter()
                    .map(|z| z.label.capacity() + z.us.capacity() + z.price.capacity())
                    .sum::<usize>()
        })
        .sum();
    drop(stock);
    println!(
        "setup: {stores} stores x {per_store} products ({matched_per_store} of each from {codes} codes, {matched} matched products in stock) over {} in {:.1} s",
        catalogue.display(),
        setup.elapsed().as_secs_f64()
    );

    let http = reqwest::Client::new();
    let base = server.base_url();
    // Memory before the flips are first asked for.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_before = proc_status_mb("VmRSS");

    // 1. Builds, and the pricing alone.
    let flips = Arc::clone(state.flips());
    let mut builds: Vec<Duration> = Vec::new();
    for run in 1..=runs {
        builds.push(flips.rebuild_now().await);
        if let Some(phases) = flips.last_build_phases() {
            println!(
                "  build {run}: {:.0} ms: the stores' stock {:.0} ms, prices {:.0} ms, sales {:.0} ms, candidates {:.0} ms",
                ms(builds[run - 1]),
                ms(phases.stock),
                ms(phases.prices),
                ms(phases.sales),
                ms(phases.assemble)
            );
        }
    }
    let mut pricing: Vec<Duration> = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        for chunk in pool.chunks(50) {
            let mut url = reqwest::Url::parse(&format!("{base}/api/v2/prices")).expect("url");
            for drawn in chunk {
                url.query_pairs_mut().append_pair("sku", &drawn.sku);
            }
            let _ = timed(&http, url.as_str()).await;
        }
        pricing.push(started.elapsed());
    }
    let (_, _, build_max) = summary("the list built", &mut builds);
    summary(
        "  baseline: its 40 batched price requests alone",
        &mut pricing,
    );
    let first: V2Envelope<FlipsAnswer> = http
        .get(format!("{base}/api/v2/flips?limit=1"))
        .header("Authorization", "demo-ultra")
        .send()
        .await
        .expect("flips")
        .json()
        .await
        .expect("answer");
    let answer = &first.data;
    println!(
        "  the list: {} rows that pay; markets {:?}; {} stores",
        answer.total,
        answer
            .markets
            .iter()
            .map(|m| format!("{} {} of {} codes priced", m.market, m.priced, m.codes))
            .collect::<Vec<_>>(),
        answer.stores.len()
    );
    let priced_ok = answer
        .markets
        .first()
        .is_some_and(|m| m.priced as usize == codes)
        && answer.total > 0;
    if !priced_ok {
        println!("FAIL: the list does not price every code or holds no row");
    }

    // 2. Pages.
    let store = store_url(3);
    let variants: Vec<String> = vec![
        String::new(),
        "&seller_level=2".into(),
        "&seller_level=3".into(),
        "&seller_level=4".into(),
        "&seller_level=5".into(),
        format!("&store={}", store.label()),
        "&size=9.5".into(),
        "&min_profit=50".into(),
        format!("&store_shipping={}:0", store.label()),
    ];
    let mut page_times = Vec::with_capacity(pages);
    let mut rows = 0_usize;
    for n in 0..pages {
        let url = format!(
            "{base}/api/v2/flips?limit=50&page={}{}",
            n % 20 + 1,
            variants[n % variants.len()]
        );
        let (time, len) = timed(&http, &url).await;
        rows += len;
        page_times.push(time);
    }
    let mut budget_times = Vec::with_capacity(pages);
    for _ in 0..pages {
        budget_times.push(timed(&http, &format!("{base}/api/v2/budget")).await.0);
    }
    let (_, page_p99, _) = summary("a /api/v2/flips page", &mut page_times);
    summary("  baseline: /api/v2/budget", &mut budget_times);
    println!("  {:.1} MB of pages read", rows as f64 / 1e6);

    // 3. Memory.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_after = proc_status_mb("VmRSS");
    let stocked_mb = stocked_bytes as f64 / 1_048_576.0;
    let added = rss_after - rss_before + stocked_mb;
    println!(
        "memory: resident {rss_before:.0} MB before the first flips request, {rss_after:.0} MB after the builds and pages; the stores' stocked sizes kept for the flips {stocked_mb:.1} MB: {added:.1} MB added by the flips"
    );

    let build_ok = build_max <= Duration::from_secs(1);
    let page_ok = page_p99 <= Duration::from_millis(5);
    let memory_ok = added <= 100.0;
    println!(
        "{}: the list built in <= 1 s (slowest of {runs})",
        verdict(build_ok)
    );
    println!("{}: a /api/v2/flips page p99 <= 5 ms", verdict(page_ok));
    println!(
        "{}: <= 100 MB above the service without flips",
        verdict(memory_ok)
    );
    server.shutdown().await;
    if build_ok && page_ok && memory_ok && priced_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
