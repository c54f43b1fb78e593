//! Flip alerts and the flip list's costs, with the monitor the window and `solescope monitor`
//! run, against the real service over HTTP and mock Shopify stores that name their products
//! their own way:
//!
//! - a recorded day of store passes replayed (`fixtures/flip_day.json`: restocks, sell-outs,
//!   price changes, repeats, a restart of the monitor): each flip the fixture says must be told
//!   reaches the desktop notification server (a `Notify` call on the session bus) exactly once,
//!   and nothing else does;
//! - on KicksDB, the monitor plans the list's price scans from the monthly budget: a scan costs
//!   ceil(codes / 50) batched calls per market, counted at the mock, none runs between the
//!   planned ones (whoever asks for the list), and the store is read no more often than its
//!   crawl's interval.
//!
//! The replay needs a session bus (`.ci/run` runs the tests inside `dbus-run-session`; locally:
//! `dbus-run-session -- cargo test --test flip_alerts`). Without one it prints a notice and
//! passes; with `SOLESCOPE_REQUIRE_KEYRING=1` or `CI` set it fails.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::mock_kicksdb::{Endpoint, MockConfig, MockKicksdb, data};
use common::mock_storefront::{MockProduct, MockStorefront, sneaker};
use serde::Deserialize;
use solescope::app::monitor::{MonitorDriver, PlanConfig};
use solescope::app::notify::DesktopNotifier;
use solescope::client::Client;
use solescope::model::budget::{
    BudgetSettings, BudgetSettingsCell, DemandKind, ManualClock, SystemClock,
};
use solescope::model::flip_prefs::FlipPrefs;
use solescope::model::flips::{FlipsAnswer, FlipsRequest};
use solescope::model::{RetailerStores, StoreUrl};
use solescope::service::flips::FlipsConfig;
use solescope::service::storefront::crawl::CrawlConfig;
use solescope::service::storefront::{StoreReading, StorefrontConfig};
use solescope::service::{self, ServiceConfig, ServiceState};
use solescope::userdb::{UserDb, UserDbHandle};

#[derive(Debug, Deserialize)]
struct Day {
    products: Vec<DayProduct>,
    passes: Vec<Pass>,
}

#[derive(Debug, Deserialize)]
struct DayProduct {
    key: String,
    id: u64,
    handle: String,
    title: String,
    vendor: String,
    code: String,
    sizes: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Pass {
    at: String,
    note: String,
    #[serde(default)]
    restart: bool,
    /// Product key → size → the price asked (`null`: sold out).
    stock: BTreeMap<String, BTreeMap<String, Option<String>>>,
    /// `code size price`, as the fixture's author worked them out.
    notify: Vec<String>,
}

fn day() -> Day {
    serde_json::from_str(include_str!("fixtures/flip_day.json")).unwrap()
}

/// `"60.00"` in cents.
fn cents(price: &str) -> i64 {
    let (whole, fraction) = price.split_once('.').unwrap();
    whole.parse::<i64>().unwrap() * 100 + fraction.parse::<i64>().unwrap()
}

/// When `product`'s sizes last changed (stock or price) by pass `at`, as Shopify's
/// `updated_at` says it: the pass's time, or the first pass's when they never changed.
fn updated_at(day: &Day, product: &DayProduct, at: usize) -> String {
    let stock = |pass: &Pass| pass.stock[&product.key].clone();
    let changed = (1..=at)
        .rev()
        .find(|&i| stock(&day.passes[i]) != stock(&day.passes[i - 1]))
        .unwrap_or(0);
    format!("2026-10-07T{}:00-04:00", day.passes[changed].at)
}

/// The store's catalogue at pass `at`, as `/products.json` serves it: a product whose stock or
/// price changed has a new `updated_at` (the crawl rewrites only those, as on a real store).
fn catalogue_at(day: &Day, at: usize) -> Vec<MockProduct> {
    let pass = &day.passes[at];
    day.products
        .iter()
        .map(|product| {
            let updated = updated_at(day, product, at);
            let sizes: Vec<f64> = product.sizes.iter().map(|s| s.parse().unwrap()).collect();
            let mut listed = sneaker(
                &product.handle,
                product.id,
                &product.title,
                "USD",
                2,
                100,
                &sizes,
            );
            listed.vendor.clone_from(&product.vendor);
            listed.updated_at.clone_from(&updated);
            let stock = &pass.stock[&product.key];
            for (variant, size) in listed.variants.iter_mut().zip(&product.sizes) {
                variant.sku = format!("{}-{size}", product.code);
                variant.barcode = None;
                variant.updated_at.clone_from(&updated);
                // A size sold out keeps a price on the store, as Shopify's do.
                let price = stock.get(size).cloned().flatten();
                variant.available = price.is_some();
                variant.price_minor = price.as_deref().map_or(10_000, cents);
            }
            listed
        })
        .collect()
}

/// The rows the list must hold after `pass`: every size in stock below 1,000.00 (the fixture's
/// Cool Grey at 5,000.00 never pays), as `code size price`.
fn paying_at(day: &Day, pass: &Pass) -> BTreeSet<String> {
    day.products
        .iter()
        .flat_map(|product| {
            pass.stock[&product.key]
                .iter()
                .filter_map(|(size, price)| {
                    let price = price.as_ref()?;
                    (cents(price) < 100_000).then(|| format!("{} {size} {price}", product.code))
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn row_key(code: &str, size: &str, buy_cents: i64) -> String {
    format!("{code} {size} {}.{:02}", buy_cents / 100, buy_cents % 100)
}

/// Asks for the whole list until it holds exactly `expected` (at most 60 s).
async fn list_holding(client: &Client, expected: &BTreeSet<String>) -> FlipsAnswer {
    let request = FlipsRequest {
        limit: Some(100),
        ..FlipsRequest::default()
    };
    let started = Instant::now();
    loop {
        let answer = client.flips(&request).await.unwrap();
        let held: BTreeSet<String> = answer
            .flips
            .iter()
            .map(|f| row_key(&f.style_code, &f.size, f.buy_price))
            .collect();
        if !answer.building && held == *expected {
            return answer;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the list never held {expected:?}; it holds {held:?}: {answer:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A notification's `code size price`, read from its body (`US 8 at store: buy 60.00 USD ... ·
/// DD1391-100`).
fn notified_key(body: &str) -> String {
    let size = body
        .strip_prefix("US ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_default();
    let price = body
        .split("buy ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_default();
    let code = body.rsplit("· ").next().unwrap_or_default();
    format!("{code} {size} {price}")
}

/// Waits (at most 30 s) until the service says the store's catalogue was read.
async fn wait_crawled(client: &Client) {
    let started = Instant::now();
    loop {
        let sources = client.sources().await.unwrap();
        let stores = sources.data.realtime.stores().to_vec();
        if !stores.is_empty()
            && stores.iter().all(|s| {
                s.catalogue
                    .as_deref()
                    .is_some_and(|c| c.contains("products read"))
            })
        {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{stores:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn open_db(path: &Path) -> UserDbHandle {
    let (db, opened) = UserDbHandle::spawn(path.to_path_buf());
    tokio::task::spawn_blocking(move || opened.block_and_take())
        .await
        .unwrap()
        .unwrap();
    db
}

fn reading(store: &MockStorefront, dir: &Path) -> StoreReading {
    StoreReading::with_crawl(
        RetailerStores::new([StoreUrl::parse(&store.base_url).unwrap()]),
        StorefrontConfig {
            min_interval: Duration::from_millis(10),
            failures_before_pause: 100,
            ..StorefrontConfig::default()
        },
        &dir.join("stores.sqlite"),
        CrawlConfig {
            // One pass on its own (the first); every later one is the test's.
            pass_interval: Duration::from_secs(3_600),
            watch_interval: Duration::from_millis(100),
            ..CrawlConfig::default()
        },
    )
    .unwrap()
}

fn quick_flips() -> FlipsConfig {
    FlipsConfig {
        check_every: Duration::from_millis(100),
        catalogue_change_every: Duration::ZERO,
        ..FlipsConfig::default()
    }
}

/// The user's flip alerts turned on, as the Flips tab does.
fn alerts_on(db_path: &Path) {
    let mut db = UserDb::open(db_path).unwrap();
    db.set_flip_prefs(&FlipPrefs {
        alerts: true,
        ..FlipPrefs::default()
    })
    .unwrap();
    db.set_budget_settings(BudgetSettings {
        monthly_quota: Some(10_000),
        share_percent: 100,
    })
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replayed_day_of_store_passes_notifies_each_new_flip_once_and_nothing_twice() {
    let Some((_bus, received)) = common::notifications::own_notification_bus().await else {
        return;
    };
    let day = day();
    let store = MockStorefront::start(catalogue_at(&day, 0)).await;
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 2_000, 11);
    let reading = reading(&store, dir.path());
    let mut config: ServiceConfig = common::config(&catalogue);
    config.store_reading = Some(reading.clone());
    config.flips = quick_flips();
    let state = tokio::task::spawn_blocking(move || ServiceState::open(&config))
        .await
        .unwrap()
        .unwrap();
    let server = service::spawn("127.0.0.1:0", state).await.unwrap();
    let client = common::ultra_client(&server);
    wait_crawled(&client).await;
    let db_path = dir.path().join(UserDb::FILE_NAME);
    alerts_on(&db_path);
    let db = open_db(&db_path).await;
    let monitor = || {
        MonitorDriver::new(
            client.clone(),
            db.clone(),
            Arc::new(DesktopNotifier),
            PlanConfig::default(),
            Arc::new(SystemClock),
        )
    };
    let mut driver = monitor();
    let store_url = StoreUrl::parse(&store.base_url).unwrap();
    let crawl = reading.crawl().crawled().unwrap().clone();

    let mut all: Vec<String> = Vec::new();
    let received = Arc::new(std::sync::Mutex::new(received));
    for (at, pass) in day.passes.iter().enumerate() {
        if at > 0 {
            store.set_products(catalogue_at(&day, at));
            crawl.crawl_now(&store_url).await.unwrap();
        }
        let answer = list_holding(&client, &paying_at(&day, pass)).await;
        if pass.at == "08:00" {
            // The hand-worked pass 11:00 marks US 10 down from 60.00 to 1.00: 63.42 less to
            // pay, which is a rise of 20 % or more of any profit up to 317.10.
            let ten = answer
                .flips
                .iter()
                .find(|f| f.style_code == "DD1391-100" && f.size == "10")
                .unwrap();
            assert!(
                ten.profit > 0 && ten.profit <= 31_710,
                "the fixture assumes the demo's Panda US 10 pays at most 317.10 at 60.00: {ten:?}"
            );
        }
        if pass.restart {
            driver = monitor();
        }
        let report = driver.flip_round().await.unwrap();
        assert!(report.read && report.complete, "{}: {report:?}", pass.at);
        assert_eq!(report.baseline, at == 0, "{}: {report:?}", pass.at);
        // What reached the notification server for this pass: as many as expected within 10 s,
        // then nothing more for a moment.
        let expected: BTreeSet<String> = pass.notify.iter().cloned().collect();
        let inbox = Arc::clone(&received);
        let count = expected.len();
        let shown: Vec<String> = tokio::task::spawn_blocking(move || {
            let inbox = inbox.lock().unwrap();
            let mut shown = Vec::new();
            while shown.len() < count {
                match inbox.recv_timeout(Duration::from_secs(10)) {
                    Ok((app, _, body)) => {
                        assert_eq!(app, "Solescope");
                        shown.push(notified_key(&body));
                    }
                    Err(_) => break,
                }
            }
            while let Ok((_, _, body)) = inbox.recv_timeout(Duration::from_millis(300)) {
                shown.push(notified_key(&body));
            }
            shown
        })
        .await
        .unwrap();
        let shown_set: BTreeSet<String> = shown.iter().cloned().collect();
        assert_eq!(
            shown_set, expected,
            "after the pass at {} ({}): notified {shown:?}",
            pass.at, pass.note
        );
        assert_eq!(
            shown.len(),
            expected.len(),
            "{}: twice in one pass: {shown:?}",
            pass.at
        );
        assert_eq!(report.notified, expected.len(), "{}: {report:?}", pass.at);
        all.extend(shown);
    }
    // Over the day: never the same size at the same store and price twice, and each flip (a
    // size at the store) first told once.
    let distinct: BTreeSet<&String> = all.iter().collect();
    assert_eq!(
        distinct.len(),
        all.len(),
        "a duplicate notification: {all:?}"
    );
    let expected_all: Vec<&String> = day.passes.iter().flat_map(|p| &p.notify).collect();
    assert_eq!(all.len(), expected_all.len(), "{all:?}");
    let flips: BTreeSet<String> = all
        .iter()
        .map(|key| key.rsplit_once(' ').unwrap().0.to_owned())
        .collect();
    assert_eq!(
        flips.len(),
        6,
        "six sizes were ever in stock at a price that pays: {flips:?}"
    );
}

/// The store of the plan test: the KicksDB mock's invented pairs `runners`, two sizes each,
/// under the store's own handles (their codes in their SKUs).
fn runner_store(runners: &[&data::Pair]) -> Vec<MockProduct> {
    runners
        .iter()
        .enumerate()
        .map(|(i, pair)| {
            let mut runner = sneaker(
                &format!("runner-{i}"),
                9_400_000_000_000 + i as u64,
                pair.title,
                "USD",
                2,
                5_000,
                &[8.0, 10.0],
            );
            runner.vendor = pair.brand.into();
            for (variant, us) in runner.variants.iter_mut().zip(["8", "10"]) {
                variant.sku = format!("{}-{us}", pair.sku);
                variant.available = true;
                variant.barcode = None;
            }
            runner
        })
        .collect()
}

/// Waits (at most 30 s) until the mock has answered `calls` batched price calls.
async fn price_calls(mock: &MockKicksdb, calls: usize) {
    let started = Instant::now();
    while mock.count(Endpoint::Prices) < calls {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{} price calls, {calls} awaited",
            mock.count(Endpoint::Prices)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_monitor_plans_the_flip_scans_from_the_budget_and_reads_no_store_for_them() {
    let mock = MockKicksdb::start(MockConfig {
        extra_products: 60,
        ..MockConfig::default()
    });
    let runners = data::generated_pairs(60);
    let store = MockStorefront::start(runner_store(&runners)).await;
    let dir = tempfile::tempdir().unwrap();
    let reading = reading(&store, dir.path());
    let server =
        common::kicksdb_service(mock.base_url(), &mock.key(), dir.path(), |live, config| {
            live.budget.settings = BudgetSettingsCell::new(BudgetSettings {
                monthly_quota: Some(10_000),
                share_percent: 100,
            });
            // The rounds an hour apart are an hour of the monitor's clock and seconds of the
            // test's: the source's own cache of prices (minutes, on the wall clock) is off.
            live.ttl.product = Duration::ZERO;
            config.store_reading = Some(reading);
            config.flips = quick_flips();
        })
        .await;
    let client = common::ultra_client(&server);
    // The mirror learns the pairs (KicksDB's catalogue is what it has answered).
    let status = reqwest::Client::new()
        .get(format!("{}/search", server.base_url()))
        .query(&[("query", "mock runner"), ("limit", "100")])
        .header("Authorization", "demo-ultra")
        .send()
        .await
        .unwrap()
        .status();
    assert!(status.is_success());
    wait_crawled(&client).await;
    let feed_reads = store.feed_requests().len();
    let spent_before = client.budget().await.unwrap().unwrap().spent;
    assert_eq!(
        mock.count(Endpoint::Prices),
        0,
        "priced before anyone asked"
    );

    let db_path = dir.path().join(UserDb::FILE_NAME);
    alerts_on(&db_path);
    let db = open_db(&db_path).await;
    let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
    let mut driver = MonitorDriver::new(
        client.clone(),
        db,
        Arc::new(DesktopNotifier),
        PlanConfig {
            // An hourly scan at 2 calls fits the month's 10,000 calls unstretched.
            flips_every: Duration::from_secs(3_600),
            ..PlanConfig::default()
        },
        clock.clone(),
    );
    // The first round: the scan is due, asked for, and costs ceil(60 / 50) = 2 calls.
    let first = driver.round().await.unwrap().unwrap();
    assert!(first.ran.contains(&DemandKind::FlipScan), "{first:?}");
    price_calls(&mock, 2).await;
    let answer = {
        let started = Instant::now();
        loop {
            let answer = client.flips(&FlipsRequest::default()).await.unwrap();
            if !answer.building && answer.total > 0 {
                break answer;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "{answer:#?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    assert_eq!(answer.markets.len(), 1);
    // Every code in stock priced (the build that asked may since have been built again on the
    // prices held, so its own count of calls is not read here: the mock's is, above and below).
    assert_eq!(
        (answer.markets[0].codes, answer.markets[0].priced),
        (60, 60)
    );
    // Half an hour on: the list is read (it tells what a scan costs: ceil(60 / 50) = 2
    // calls), no scan is due, and none runs, however often anyone asks for the list.
    clock.advance(1_800);
    let between = driver.round().await.unwrap().unwrap();
    assert!(!between.ran.contains(&DemandKind::FlipScan), "{between:?}");
    let read = driver.handle().last_flip_round().unwrap();
    assert_eq!(read.calls_per_scan, 2, "{read:?}");
    for _ in 0..20 {
        client.flips(&FlipsRequest::default()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(mock.count(Endpoint::Prices), 2, "a scan nobody planned");
    // An hour after the first: the next scan, 2 calls more.
    clock.advance(1_801);
    let second = driver.round().await.unwrap().unwrap();
    assert!(second.ran.contains(&DemandKind::FlipScan), "{second:?}");
    // Planned at the cost the last reading told: 2 calls a scan.
    let planned = driver.handle().plan_status().plan.unwrap();
    let scan = planned
        .demands
        .iter()
        .find(|p| p.demand.kind == DemandKind::FlipScan)
        .unwrap();
    assert_eq!(scan.demand.calls_per_run, 2, "{planned:?}");
    price_calls(&mock, 4).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(mock.count(Endpoint::Prices), 4);
    let spent_after = client.budget().await.unwrap().unwrap().spent;
    assert_eq!(
        spent_after,
        spent_before + 4,
        "each call out of the month's budget"
    );
    // The store was read by its crawl alone: no pass for the rounds and scans.
    assert_eq!(
        store.feed_requests().len(),
        feed_reads,
        "the store read for the flips"
    );
}
