//! The release calendar (`GET /api/v2/releases`) against the mock KicksDB (coming StockX
//! products and SNKRS launches) and a mock store that publishes products under its own handles
//! and titles: one entry per pair across sources, the mechanics shown, KicksDB read at most
//! once a day from the monthly budget, and the calendar without a key (catalogue and stores).

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{NaiveDate, Utc};
use common::mock_kicksdb::{Endpoint, MockConfig, MockKicksdb};
use common::mock_storefront::{MockStorefront, coming_shoe, sneaker_store};
use solescope::client::releases::ReleasesRequest;
use solescope::model::budget::ManualClock;
use solescope::model::releases::{Release, ReleasesAnswer, style_code_keys};
use solescope::model::{RetailerStores, StoreUrl};
use solescope::service::ServerHandle;
use solescope::service::storefront::crawl::CrawlConfig;
use solescope::service::storefront::{StoreReading, StorefrontConfig};

/// The store crawl of the tests: a pass a second, the list watched every 100 ms.
fn crawled(store: &MockStorefront, dir: &std::path::Path) -> StoreReading {
    StoreReading::with_crawl(
        RetailerStores::new([StoreUrl::parse(&store.base_url).unwrap()]),
        StorefrontConfig {
            min_interval: Duration::from_millis(20),
            failures_before_pause: 100,
            ..StorefrontConfig::default()
        },
        &dir.join("stores.sqlite"),
        CrawlConfig {
            pass_interval: Duration::from_secs(1),
            watch_interval: Duration::from_millis(100),
            ..CrawlConfig::default()
        },
    )
    .unwrap()
}

/// A generated catalogue of `products` as of today (its coming releases in the calendar's
/// window), with the demo keys.
fn catalogue_as_of_today(dir: &std::path::Path, products: u32, seed: u64) -> std::path::PathBuf {
    let path = dir.join("catalogue.sqlite");
    let options = solescope::catalogue::generate::GenerateOptions {
        products,
        seed,
        as_of: Utc::now().date_naive(),
        demo_keys: true,
    };
    solescope::catalogue::generate::generate(&options, &path, &mut |_| {}).unwrap();
    path
}

/// `published_at` `days` from now at 10:00 in the shop's zone (UTC-5).
fn shop_time(days: i64) -> String {
    let day = Utc::now().date_naive() + chrono::Duration::days(days);
    format!("{day}T10:00:00-05:00")
}

/// The calendar's next 30 days, asked until `ready` holds (the store's crawl and the
/// calendar's rebuilds run in the background), at most 30 s.
async fn calendar_until(
    server: &ServerHandle,
    ready: impl Fn(&ReleasesAnswer) -> bool,
) -> ReleasesAnswer {
    calendar_from_until(server, 0, ready).await
}

/// [`calendar_until`] from `days_ago` days before today, for 30 days.
async fn calendar_from_until(
    server: &ServerHandle,
    days_ago: i64,
    ready: impl Fn(&ReleasesAnswer) -> bool,
) -> ReleasesAnswer {
    let client = common::ultra_client(server);
    let started = Instant::now();
    let from = Utc::now().date_naive() - chrono::Duration::days(days_ago);
    loop {
        let answer = client
            .releases(&ReleasesRequest {
                from: Some(from),
                days: Some(30),
                ..ReleasesRequest::default()
            })
            .await
            .unwrap();
        if ready(&answer) {
            return answer;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the calendar never got there: {answer:#?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The entries whose style codes hold `code`.
fn entries<'a>(answer: &'a ReleasesAnswer, code: &str) -> Vec<&'a Release> {
    let key = style_code_keys(code).remove(0);
    answer
        .releases
        .iter()
        .filter(|r| {
            r.style_codes
                .iter()
                .any(|c| style_code_keys(c).contains(&key))
        })
        .collect()
}

fn kinds(release: &Release) -> Vec<&str> {
    release.sources.iter().map(|s| s.kind.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn one_entry_per_pair_across_kicksdb_snkrs_and_a_store_with_the_mechanics_shown() {
    let today = Utc::now().date_naive();
    let mock = MockKicksdb::start(MockConfig {
        today,
        coming_releases: true,
        ..MockConfig::default()
    });
    // The store lists the Jordan 4 under its own handle and title, its code only in its SKUs
    // with the size after it, published ahead: it opens in five days at 10:00 (UTC-5).
    let mut products = sneaker_store(&[]);
    products.push(coming_shoe(
        "aj4-retro-military-blue-mens",
        9_200_000_000_001,
        "Air Jordan 4 Retro 'Military Blue' Men's",
        "Jordan",
        "FV5029141",
        &shop_time(5),
        21_500,
    ));
    let store = MockStorefront::start(products).await;
    let dir = tempfile::tempdir().unwrap();
    let reading = crawled(&store, dir.path());
    let server = common::kicksdb_service(mock.base_url(), &mock.key(), dir.path(), |_, config| {
        config.store_reading = Some(reading);
        config.releases.check_every = Duration::ZERO;
    })
    .await;

    let answer = calendar_until(&server, |a| {
        entries(a, "FV5029-141")
            .iter()
            .any(|r| kinds(r).contains(&"store"))
    })
    .await;

    // The Jordan 4: StockX's coming product, SNKRS's launch (`FV5029 141`) and the store's
    // listing are one entry.
    let military = entries(&answer, "FV5029-141");
    assert_eq!(military.len(), 1, "{answer:#?}");
    let military = military[0];
    assert_eq!(kinds(military), ["catalogue", "snkrs", "store"]);
    assert_eq!(
        military.product_id.as_deref(),
        Some("c0de0004-0000-4000-8000-fv5029141000")
    );
    assert_eq!(military.title, "Jordan 4 Retro Military Blue (2024)");
    // The launch's time and mechanics: a draw at 15:00 UTC, one pair an account.
    let launch_day = today + chrono::Duration::days(5);
    assert_eq!(
        military.starts_at.as_deref(),
        Some(format!("{launch_day}T15:00:00Z").as_str())
    );
    assert_eq!(military.release_date, launch_day.to_string());
    assert_eq!(military.method.as_deref(), Some("draw"));
    let mechanics = military.mechanics.as_ref().unwrap();
    assert_eq!(mechanics.method_code, "DAN");
    assert_eq!(mechanics.quantity_limit, Some(1));
    assert!(!mechanics.exclusive_access);
    assert_eq!(mechanics.msrp, Some(215.0));
    let levels: Vec<(&str, &str)> = mechanics
        .sizes
        .iter()
        .map(|s| (s.size.as_str(), s.stock_level.as_str()))
        .collect();
    assert_eq!(levels, [("8", "HIGH"), ("9", "LOW"), ("10", "OOS")]);
    assert_eq!(
        (military.retail_price, military.currency.as_str()),
        (Some(215.0), "USD")
    );
    // The store's own name and its page are among the sources.
    let at_store = military.sources.iter().find(|s| s.kind == "store").unwrap();
    assert!(
        at_store
            .link
            .ends_with("/products/aj4-retro-military-blue-mens")
    );

    // The Jordan 11: StockX only, no mechanics known.
    let legend = entries(&answer, "CT8012-104");
    assert_eq!(legend.len(), 1);
    assert_eq!(kinds(legend[0]), ["catalogue"]);
    assert_eq!(legend[0].method, None);
    assert_eq!(legend[0].retail_price, Some(230.0));

    // SNKRS only: first come, first served, exclusive access, no catalogue product.
    let launch = entries(&answer, "HM9999-100");
    assert_eq!(launch.len(), 1);
    assert_eq!(launch[0].product_id, None);
    assert_eq!(launch[0].method.as_deref(), Some("first_come_first_served"));
    assert!(launch[0].mechanics.as_ref().unwrap().exclusive_access);

    // No T-shirt, no launch that opened twenty days ago.
    assert!(entries(&answer, "FN0000-010").is_empty());
    assert!(entries(&answer, "DD1391-100").is_empty());
    assert_eq!(answer.releases.len(), 3, "{answer:#?}");
    // In date order.
    let days: Vec<&str> = answer
        .releases
        .iter()
        .map(|r| r.release_date.as_str())
        .collect();
    let mut sorted = days.clone();
    sorted.sort_unstable();
    assert_eq!(days, sorted);

    // A product the store publishes later (a new handle, in a later pass) is an entry too, on
    // the day it was published (yesterday: this week's part of the calendar).
    store.publish(coming_shoe(
        "store-exclusive-runner-zx",
        9_200_000_000_002,
        "Store Exclusive Runner",
        "Nike",
        "ZX1234001",
        &shop_time(-1),
        13_000,
    ));
    let answer = calendar_from_until(&server, 7, |a| !entries(a, "ZX1234-001").is_empty()).await;
    let exclusive = entries(&answer, "ZX1234-001");
    assert_eq!(exclusive.len(), 1);
    assert_eq!(kinds(exclusive[0]), ["store"]);
    assert_eq!(exclusive[0].title, "Store Exclusive Runner");
    let yesterday = today - chrono::Duration::days(1);
    assert_eq!(exclusive[0].release_date, yesterday.to_string());
    assert_eq!(answer.releases.len(), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn coming_releases_are_read_from_kicksdb_once_a_day_and_from_the_budget() {
    let today = Utc::now().date_naive();
    let mock = MockKicksdb::start(MockConfig {
        today,
        coming_releases: true,
        ..MockConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(Utc::now());
    let key = mock.key();
    let start = |clock: &ManualClock| {
        let clock = clock.clone();
        common::kicksdb_service(mock.base_url(), &key, dir.path(), move |live, config| {
            live.budget.clock = Arc::new(clock.clone());
            config.releases.clock = Arc::new(clock);
            // Built again at every request: only the daily rule keeps KicksDB from being asked.
            config.releases.check_every = Duration::ZERO;
            config.releases.max_age = Duration::ZERO;
        })
    };
    let server = start(&clock).await;
    let client = common::ultra_client(&server);
    let budget_before = client.budget().await.unwrap().unwrap().spend.counted;
    let first = calendar_until(&server, |a| a.releases.len() == 3).await;
    let coming_reads = |mock: &MockKicksdb| {
        mock.seen()
            .iter()
            .filter(|s| {
                s.endpoint == Some(Endpoint::Search) && s.query.contains("sort=release_date")
            })
            .count()
    };
    assert_eq!(coming_reads(&mock), 1);
    assert_eq!(mock.count(Endpoint::Snkrs), 1);
    // Both calls came out of the monthly budget.
    let budget_after = client.budget().await.unwrap().unwrap().spend.counted;
    assert_eq!(budget_after - budget_before, 2);
    let snkrs = first.sources.iter().find(|s| s.kind == "snkrs").unwrap();
    assert_eq!(snkrs.releases, 2);
    assert!(snkrs.read_at.is_some());

    // Many builds the same day, and a new service over the same mirror (the window and
    // `solescope monitor`, or a restart): no more calls.
    for _ in 0..5 {
        calendar_until(&server, |a| a.releases.len() == 3).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(server);
    let server = start(&clock).await;
    calendar_until(&server, |a| a.releases.len() == 3).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    calendar_until(&server, |a| a.releases.len() == 3).await;
    assert_eq!(coming_reads(&mock), 1);
    assert_eq!(mock.count(Endpoint::Snkrs), 1);

    // A day later: read once more each.
    clock.advance(24 * 3600 + 60);
    let started = Instant::now();
    // (A round that began before the clock moved may read one kind and leave the other to
    // the next round: wait for both.)
    while mock.count(Endpoint::Snkrs) < 2 || coming_reads(&mock) < 2 {
        calendar_until(&server, |_| true).await;
        assert!(started.elapsed() < Duration::from_secs(20));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        calendar_until(&server, |_| true).await;
    }
    assert_eq!(coming_reads(&mock), 2);
    assert_eq!(mock.count(Endpoint::Snkrs), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_key_the_calendar_has_the_catalogue_and_the_stores() {
    let dir = tempfile::tempdir().unwrap();
    let today = Utc::now().date_naive();
    let catalogue = catalogue_as_of_today(dir.path(), 3_000, 5);
    let store = MockStorefront::start(vec![coming_shoe(
        "store-drop-qq",
        9_300_000_000_001,
        "Store Drop QQ",
        "New Balance",
        "QQ9999001",
        &shop_time(3),
        16_000,
    )])
    .await;
    let reading = crawled(&store, dir.path());
    let mut config = common::config(&catalogue);
    config.store_reading = Some(reading);
    config.releases.check_every = Duration::ZERO;
    let server = common::start(config).await;
    let answer = calendar_until(&server, |a| !entries(a, "QQ9999-001").is_empty()).await;
    let from_catalogue: Vec<&Release> = answer
        .releases
        .iter()
        .filter(|r| kinds(r) == ["catalogue"])
        .collect();
    // The generator announces about 1% of its products 7 to 70 days ahead.
    assert!(from_catalogue.len() >= 5, "{answer:#?}");
    assert!(from_catalogue.iter().all(|r| r.product_id.is_some()));
    let until = today + chrono::Duration::days(30);
    assert!(answer.releases.iter().all(|r| {
        let day = NaiveDate::parse_from_str(&r.release_date, "%Y-%m-%d").unwrap();
        day >= today && day < until
    }));
    assert_eq!(answer.sources[0].kind, "catalogue");
    assert!(answer.sources.iter().all(|s| s.kind != "snkrs"));
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_queries_are_refused_and_the_calendar_needs_pro() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 300, 3);
    let server = common::start(common::config(&catalogue)).await;
    let get = |path: &str, key: &str| {
        let url = format!("{}{path}", server.base_url());
        let key = key.to_owned();
        async move {
            reqwest::Client::new()
                .get(url)
                .header("Authorization", key)
                .send()
                .await
                .unwrap()
        }
    };
    for bad in [
        "days=0",
        "days=367",
        "days=",
        "days=abc",
        "from=2026-02-30",
        "from=tomorrow",
        "limit=501",
        "page=0",
    ] {
        let response = get(&format!("/api/v2/releases?{bad}"), "demo-pro").await;
        assert_eq!(response.status(), 400, "{bad}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["status"], "error", "{bad}");
    }
    let free = get("/api/v2/releases", "demo-free").await;
    assert_eq!(free.status(), 403);
    let ok = get("/api/v2/releases?days=366&from=2026-11-01", "demo-pro").await;
    assert_eq!(ok.status(), 200);
}

/// The brand and size filters and the pages: each page of a filtered window is the filtered
/// whole window cut in pages, with the filtered count as `total`; a percentage is sent to a
/// tenth of a point.
#[tokio::test(flavor = "multi_thread")]
async fn filtered_pages_are_the_filtered_window_cut_in_pages() {
    let dir = tempfile::tempdir().unwrap();
    let today = Utc::now().date_naive();
    let catalogue = catalogue_as_of_today(dir.path(), 6_000, 11);
    let server = common::start(common::config(&catalogue)).await;
    let client = common::ultra_client(&server);
    let ask = |brand: Option<&str>, size: Option<&str>, page: u32, limit: u32| {
        let client = client.clone();
        let request = ReleasesRequest {
            from: Some(today),
            days: Some(90),
            brand: brand.map(str::to_owned),
            size: size.map(str::to_owned),
            page: Some(page),
            limit: Some(limit),
        };
        async move { client.releases(&request).await.unwrap() }
    };
    let whole = ask(None, None, 1, 500).await;
    assert!(whole.releases.len() >= 20, "{}", whole.releases.len());
    assert_eq!(whole.total, whole.releases.len() as u64);

    // The commonest brand, asked in capitals, and a size that some entries list and some not.
    let mut brands: Vec<&str> = whole.releases.iter().map(|r| r.brand.as_str()).collect();
    brands.sort_unstable();
    let brand = brands
        .chunk_by(|a, b| a == b)
        .max_by_key(|run| run.len())
        .unwrap()[0]
        .to_owned();
    let size = ["10", "7", "12", "5", "13"]
        .into_iter()
        .find(|size| {
            let listing = whole
                .releases
                .iter()
                .filter(|r| r.sizes.iter().any(|s| s == size));
            (4..whole.releases.len()).contains(&listing.count())
        })
        .expect("a size some entries list");
    for (filter_brand, filter_size) in [
        (Some(brand.to_uppercase()), None),
        (None, Some(size.to_owned())),
        (Some(brand.clone()), Some(size.to_owned())),
    ] {
        let expected: Vec<&Release> = whole
            .releases
            .iter()
            .filter(|r| {
                filter_brand
                    .as_ref()
                    .is_none_or(|b| r.brand.eq_ignore_ascii_case(b))
            })
            .filter(|r| filter_size.as_ref().is_none_or(|s| r.sizes.contains(s)))
            .collect();
        assert!(expected.len() >= 2, "{filter_brand:?} {filter_size:?}");
        assert!(expected.len() < whole.releases.len());
        let mut paged = Vec::new();
        for page in 1.. {
            let answer = ask(filter_brand.as_deref(), filter_size.as_deref(), page, 3).await;
            assert_eq!(
                answer.total,
                expected.len() as u64,
                "{filter_brand:?} {filter_size:?}"
            );
            if answer.releases.is_empty() {
                break;
            }
            assert!(answer.releases.len() <= 3);
            paged.extend(answer.releases);
        }
        assert_eq!(
            paged.iter().collect::<Vec<_>>(),
            expected,
            "{filter_brand:?} {filter_size:?}"
        );
    }

    let estimates: Vec<_> = whole
        .releases
        .iter()
        .filter_map(|r| r.estimate.as_ref())
        .collect();
    assert!(!estimates.is_empty());
    let tenth = |pct: f64| ((pct * 10.0).round() / 10.0 - pct).abs() < 1e-9;
    for estimate in estimates {
        assert!(tenth(estimate.premium_pct) && tenth(estimate.low_pct) && tenth(estimate.high_pct));
        assert!(
            estimate
                .sizes
                .iter()
                .all(|s| tenth(s.premium_pct) && tenth(s.high_pct))
        );
    }
    server.shutdown().await;
}
