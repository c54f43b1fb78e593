//! The flip list through the service (`GET /api/v2/flips`) against mock Shopify stores that name
//! their products their own way, over KicksDB's mock and over a generated catalogue: a known flip
//! with the profit the rates give (worked out by hand here), sold-out sizes never listed, a
//! women's pair with the same title never standing in for the men's, the user's fees moving the
//! profit, the batched prices costing ceil(codes / 50) calls per market out of the monthly
//! budget, and the demo without any store (the simulator's retailer, said so).

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::mock_kicksdb::{Endpoint, MockConfig, MockKicksdb, data};
use common::mock_storefront::{MockProduct, MockStorefront, sneaker};
use solescope::client::Client;
use solescope::model::budget::{BudgetSettings, BudgetSettingsCell};
use solescope::model::flips::{Flip, FlipsAnswer, FlipsRequest, SellBasis};
use solescope::model::{RetailerStores, StoreUrl};
use solescope::service::flips::FlipsConfig;
use solescope::service::storefront::crawl::CrawlConfig;
use solescope::service::storefront::{StoreReading, StorefrontConfig};
use solescope::service::{self, ServerHandle, ServiceConfig, ServiceState};

/// The men's Dunk Low 'Panda' as a store lists it: its own handle, US 8 and 10 in stock at
/// 100.00, US 9 sold out.
const MENS_HANDLE: &str = "dunk-low-retro-white-black-m";
/// The women's Panda (`DD1503-101`) with the same title, at 40.00.
const WOMENS_HANDLE: &str = "dunk-low-retro-white-black-w";

fn shoe(handle: &str, id: u64, title: &str, code: &str, price: i64, sizes: &[f64]) -> MockProduct {
    let mut product = sneaker(handle, id, title, "USD", 2, price, sizes);
    for (variant, us) in product.variants.iter_mut().zip(sizes) {
        variant.sku = format!("{code}-{us}");
        variant.available = true;
        variant.barcode = None;
    }
    product
}

/// The store: the men's Panda, the women's decoy, and `runners` of the mock KicksDB's invented
/// pairs (their codes in their SKUs).
fn store_products(runners: &[&data::Pair]) -> Vec<MockProduct> {
    let mut mens = shoe(
        MENS_HANDLE,
        9_200_000_000_001,
        "Nike Dunk Low Retro White Black",
        "DD1391-100",
        10_000,
        &[8.0, 9.0, 10.0],
    );
    mens.variants[1].available = false;
    let mut womens = shoe(
        WOMENS_HANDLE,
        9_200_000_000_002,
        "Nike Dunk Low Retro White Black",
        "DD1503-101",
        4_000,
        &[8.0, 9.0],
    );
    womens.vendor = "Nike".into();
    let mut products = vec![mens, womens];
    for (i, pair) in runners.iter().enumerate() {
        let mut runner = shoe(
            &format!("runner-{i}"),
            9_200_000_001_000 + i as u64,
            pair.title,
            pair.sku,
            5_000,
            &[8.0, 10.0],
        );
        runner.vendor = pair.brand.into();
        products.push(runner);
    }
    products
}

/// A crawl that reads the test's store at once.
fn reading(store: &MockStorefront, file: &Path) -> StoreReading {
    StoreReading::with_crawl(
        RetailerStores::new([StoreUrl::parse(&store.base_url).unwrap()]),
        StorefrontConfig {
            min_interval: Duration::from_millis(10),
            failures_before_pause: 100,
            ..StorefrontConfig::default()
        },
        file,
        CrawlConfig {
            watch_interval: Duration::from_millis(100),
            ..CrawlConfig::default()
        },
    )
    .unwrap()
}

/// The list kept up to date at once.
fn quick_flips() -> FlipsConfig {
    FlipsConfig {
        check_every: Duration::from_millis(100),
        catalogue_change_every: Duration::ZERO,
        ..FlipsConfig::default()
    }
}

fn client(server: &ServerHandle) -> Client {
    common::ultra_client(server)
}

/// Asks for the list until `done` says it holds what the test waits for (at most 60 s).
async fn flips_until(
    client: &Client,
    request: &FlipsRequest,
    done: impl Fn(&FlipsAnswer) -> bool,
) -> FlipsAnswer {
    let started = Instant::now();
    loop {
        let answer = client.flips(request).await.unwrap();
        if !answer.building && done(&answer) {
            return answer;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the list never held what was waited for: {answer:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn find<'a>(answer: &'a FlipsAnswer, code: &str, size: &str) -> Option<&'a Flip> {
    answer
        .flips
        .iter()
        .find(|f| f.style_code == code && f.size == size)
}

/// Every row: the sums hold, and ranked by profit.
fn check_rows(answer: &FlipsAnswer) {
    for row in &answer.flips {
        assert_eq!(
            row.buy_cost,
            row.buy_price + row.shipping + row.sales_tax,
            "{row:?}"
        );
        assert_eq!(row.payout, row.sell_price - row.fees, "{row:?}");
        assert_eq!(row.profit, row.payout - row.buy_cost, "{row:?}");
        assert!(row.buy_price > 0 && row.profit > 0, "{row:?}");
    }
    assert!(
        answer.flips.windows(2).all(|w| w[0].profit >= w[1].profit),
        "not ranked by profit"
    );
}

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

/// The pair, on KicksDB: a store sells the men's Panda at 100.00 and StockX asks 312.00
/// for US 8.
#[tokio::test(flavor = "multi_thread")]
async fn a_known_flip_on_kicksdb_with_the_profit_the_rates_give_and_its_calls_counted() {
    let mock = MockKicksdb::start(MockConfig {
        extra_products: 60,
        ..MockConfig::default()
    });
    mock.set_ask_usd("DD1391-100", "8", 312);
    // The sold-out size would pay even more: it must never be listed.
    mock.set_ask_usd("DD1391-100", "9", 900);
    let runners = data::generated_pairs(60);
    let store = MockStorefront::start(store_products(&runners)).await;
    let dir = tempfile::tempdir().unwrap();
    let reading = reading(&store, &dir.path().join("stores.sqlite"));
    let server =
        common::kicksdb_service(mock.base_url(), &mock.key(), dir.path(), |live, config| {
            live.budget.settings = BudgetSettingsCell::new(BudgetSettings {
                monthly_quota: Some(10_000),
                share_percent: 100,
            });
            config.store_reading = Some(reading);
            config.flips = quick_flips();
        })
        .await;
    let client = client(&server);
    // The mirror learns the pairs (KicksDB's catalogue is what it has answered).
    let http = reqwest::Client::new();
    for query in ["dunk low panda", "mock runner"] {
        let status = http
            .get(format!("{}/search", server.base_url()))
            .query(&[("query", query), ("limit", "100")])
            .header("Authorization", "demo-ultra")
            .send()
            .await
            .unwrap()
            .status();
        assert!(status.is_success(), "{query}: {status}");
    }
    wait_crawled(&client).await;
    let spent_before = client.budget().await.unwrap().unwrap().spent;
    assert_eq!(
        mock.count(Endpoint::Prices),
        0,
        "priced before anyone asked"
    );

    let all = flips_until(&client, &FlipsRequest::default(), |a| a.total > 0).await;
    check_rows(&all);
    let nike = FlipsRequest {
        brands: vec!["Nike".into()],
        ..FlipsRequest::default()
    };
    let answer = flips_until(&client, &nike, |a| find(a, "DD1391-100", "8").is_some()).await;
    check_rows(&answer);
    let row = find(&answer, "DD1391-100", "8").unwrap();
    // Buy: 100.00 + 10.00 shipping + 7.5 % tax (7.50) = 117.50.
    assert_eq!(
        (row.buy_price, row.shipping, row.sales_tax, row.buy_cost),
        (10_000, 1_000, 750, 11_750)
    );
    // Sell on resale-b (StockX) at its lowest ask, level 1: 9 % (28.08) + 3 % (9.36) = 37.44.
    assert_eq!(
        (row.sell_venue.as_str(), row.sell_basis, row.sell_price),
        ("resale-b", SellBasis::ListAt, 31_200)
    );
    assert_eq!((row.fees, row.payout), (3_744, 27_456));
    // Profit 274.56 - 117.50 = 157.06.
    assert_eq!(row.profit, 15_706);
    assert_eq!(row.currency, "USD");
    assert_eq!(row.price_source, "kicksdb");
    assert!(row.store_url.contains(MENS_HANDLE), "{}", row.store_url);
    assert!(row.store_url.contains("variant="), "{}", row.store_url);
    assert!(row.store_read_at.is_some() && row.store_age_secs.is_some());
    assert!(!row.simulated);
    assert_eq!(row.matched_by, "style code");
    // Sell-through: StockX's count for the size, as the search's sizes carried it (the mock
    // writes 2 x ((2,140 weekly orders / 5) mod 400) + 1 = 57 for US 8).
    assert_eq!(
        (row.sales_30d, row.sales_days, row.sales_scope),
        (
            Some(57),
            Some(30),
            Some(solescope::model::flips::SalesScope::Size)
        )
    );
    assert_eq!(row.sales_source.as_deref(), Some("kicksdb"));
    assert!(!row.thin_market);
    // The sold-out size never appears; the women's pair never stands in for the men's.
    assert!(
        find(&answer, "DD1391-100", "9").is_none(),
        "sold out: {answer:#?}"
    );
    assert!(
        answer
            .flips
            .iter()
            .all(|f| !f.store_url.contains(WOMENS_HANDLE) && f.buy_price != 4_000),
        "the women's pair listed: {answer:#?}"
    );
    // 61 codes in the US market: ceil(61 / 50) = 2 batched calls, out of the month's budget.
    let market = &answer.markets[0];
    assert_eq!(
        (market.market.as_str(), market.codes, market.priced),
        ("US", 61, 61)
    );
    assert_eq!(mock.count(Endpoint::Prices), 2);
    let spent_after = client.budget().await.unwrap().unwrap().spent;
    assert_eq!(spent_after, spent_before + 2);

    // The user's fees move the profit: level 5 (7 %), then a flat fee of 5.00.
    let level_five = client
        .flips(&FlipsRequest {
            seller_level: Some(5),
            ..nike.clone()
        })
        .await
        .unwrap();
    // 312.00 - 21.84 - 9.36 = 280.80; - 117.50 = 163.30.
    assert_eq!(find(&level_five, "DD1391-100", "8").unwrap().profit, 16_330);
    let flat_fee = client
        .flips(&FlipsRequest {
            fee_fixed: Some(5.0),
            store_shipping: vec![(store.label(), 0.0)],
            ..nike.clone()
        })
        .await
        .unwrap();
    // 274.56 - 5.00 = 269.56; - (100.00 + 7.50) = 162.06.
    let row = find(&flat_fee, "DD1391-100", "8").unwrap();
    assert_eq!((row.shipping, row.profit), (0, 16_206));
    assert!(row.costs_are_defaults, "the tax is still the default");
    // Asking again spends nothing: the list in hand answers.
    assert_eq!(mock.count(Endpoint::Prices), 2);
}

/// The service over a generated catalogue (every real release), the store in front.
async fn demo_with_store(
    store: Option<&MockStorefront>,
    dir: &Path,
) -> (ServerHandle, std::path::PathBuf) {
    let catalogue = common::catalogue(dir, "catalogue.sqlite", 2_000, 11);
    let mut config: ServiceConfig = common::config(&catalogue);
    if let Some(store) = store {
        config.store_reading = Some(reading(store, &dir.join("stores.sqlite")));
    }
    config.flips = quick_flips();
    let state = tokio::task::spawn_blocking(move || ServiceState::open(&config))
        .await
        .unwrap()
        .unwrap();
    (
        service::spawn("127.0.0.1:0", state).await.unwrap(),
        catalogue,
    )
}

/// The catalogue's own price (its resale ask) of `code` in US `size`, in cents.
fn catalogue_ask(catalogue: &Path, code: &str, size: &str) -> i64 {
    rusqlite::Connection::open(catalogue)
        .unwrap()
        .query_row(
            "SELECT v.price_usd_cents FROM variants v JOIN products p ON p.pk = v.product_pk
             WHERE p.sku = ?1 AND v.size = ?2 ORDER BY p.popularity DESC, p.pk LIMIT 1",
            [code, size],
            |row| row.get(0),
        )
        .unwrap()
}

/// The demo's catalogue with a real store: the Panda's row priced from the catalogue.
#[tokio::test(flavor = "multi_thread")]
async fn a_store_over_the_demo_catalogue_lists_its_flips_and_never_a_sold_out_size() {
    let store = MockStorefront::start(store_products(&[])).await;
    let dir = tempfile::tempdir().unwrap();
    let (server, catalogue) = demo_with_store(Some(&store), dir.path()).await;
    let client = client(&server);
    let everything = FlipsRequest {
        min_profit: Some(-100_000.0),
        ..FlipsRequest::default()
    };
    let answer = flips_until(&client, &everything, |a| {
        find(a, "DD1391-100", "10").is_some()
    })
    .await;
    let row = find(&answer, "DD1391-100", "10").unwrap();
    let ask = catalogue_ask(&catalogue, "DD1391-100", "10");
    // By hand: 9 % and 3 % of the ask, each to the cent; 117.50 to buy.
    let fees = (ask as f64 * 0.09).round() as i64 + (ask as f64 * 0.03).round() as i64;
    assert_eq!(row.sell_price, ask);
    assert_eq!(row.profit, ask - fees - 11_750, "{row:?}");
    assert_eq!(row.price_source, "catalogue");
    // The catalogue's weekly orders, as the product's: four weeks.
    assert_eq!(row.sales_days, Some(28));
    assert_eq!(
        row.sales_scope,
        Some(solescope::model::flips::SalesScope::Product)
    );
    assert!(
        find(&answer, "DD1391-100", "9").is_none(),
        "a sold-out size listed"
    );
    assert!(
        answer
            .flips
            .iter()
            .all(|f| !f.store_url.contains(WOMENS_HANDLE) || f.style_code != "DD1391-100"),
        "the women's pair stood in for the men's: {answer:#?}"
    );
    assert!(!answer.simulated);
    assert_eq!(answer.stores.len(), 1);
    assert_eq!(answer.stores[0].store, store.label());
    // Only this store, only this size.
    let narrowed = client
        .flips(&FlipsRequest {
            sizes: vec!["US 10".into()],
            stores: vec![store.label()],
            brands: vec!["nike".into()],
            ..everything.clone()
        })
        .await
        .unwrap();
    assert!(!narrowed.flips.is_empty());
    assert!(narrowed.flips.iter().all(|f| f.size == "10"));
    let elsewhere = client
        .flips(&FlipsRequest {
            stores: vec!["other.example".into()],
            ..everything
        })
        .await
        .unwrap();
    assert_eq!(elsewhere.total, 0);
}

/// The demo without any store: the simulator's retailer stands in, and says so.
#[tokio::test(flavor = "multi_thread")]
async fn the_demo_without_a_store_lists_the_simulated_retailers_flips_labelled_so() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = demo_with_store(None, dir.path()).await;
    let client = client(&server);
    let answer = flips_until(&client, &FlipsRequest::default(), |a| !a.flips.is_empty()).await;
    check_rows(&answer);
    assert!(answer.simulated);
    assert_eq!(answer.stores.len(), 1);
    assert!(answer.stores[0].simulated && answer.stores[0].status.contains("simulator"));
    for row in &answer.flips {
        assert!(row.simulated && row.matched_by == "simulated", "{row:?}");
        assert_eq!(row.store, "retailer-a (simulated)");
        assert!(
            row.store_url
                .starts_with("https://retailer-a.example/products/")
        );
    }
    // Page 2 follows page 1.
    let page_two = client
        .flips(&FlipsRequest {
            page: Some(2),
            limit: Some(5),
            ..FlipsRequest::default()
        })
        .await
        .unwrap();
    let page_one = client
        .flips(&FlipsRequest {
            limit: Some(10),
            ..FlipsRequest::default()
        })
        .await
        .unwrap();
    if page_one.total >= 10 {
        assert_eq!(
            page_two.flips.iter().map(|f| f.profit).collect::<Vec<_>>(),
            page_one.flips[5..10]
                .iter()
                .map(|f| f.profit)
                .collect::<Vec<_>>()
        );
    }
}

/// A value out of its bounds is a 400 naming it.
#[tokio::test(flavor = "multi_thread")]
async fn bad_query_values_are_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = demo_with_store(None, dir.path()).await;
    for (name, value) in [
        ("min_roi", "lots"),
        ("seller_level", "9"),
        ("limit", "0"),
        ("store_tax", "kith.com:150"),
    ] {
        let response = reqwest::Client::new()
            .get(format!("{}/api/v2/flips", server.base_url()))
            .query(&[(name, value)])
            .header("Authorization", "demo-free")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{name}={value}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["status"], "error");
        assert!(
            body["message"].as_str().unwrap().contains(name),
            "{name}: {body}"
        );
    }
}

/// `solescope flips` as a user runs it: the demo catalogue, a store given on the command line,
/// CSV out.
#[tokio::test(flavor = "multi_thread")]
async fn the_command_line_prints_the_stores_flips_as_csv() {
    let store = MockStorefront::start(store_products(&[])).await;
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().join("solescope");
    std::fs::create_dir_all(&dir).unwrap();
    common::catalogue(&dir, solescope::catalogue::demo::DEMO_FILE_NAME, 2_000, 11);
    let home = data.path().to_path_buf();
    let url = store.base_url.clone();
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_solescope"))
            .env("HOME", &home)
            .env("XDG_DATA_HOME", &home)
            .args(["flips", "--retailer-store", &url, "--format", "csv"])
            .args(["--min-profit", "-100000", "--wait", "60s"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut lines = stdout.lines();
    assert_eq!(
        lines.next().unwrap(),
        solescope::figures::FLIPS_CSV_HEADER.join(",")
    );
    let panda: Vec<&str> = lines.filter(|line| line.contains(",DD1391-100,")).collect();
    assert!(
        panda.iter().any(|line| line.contains(",DD1391-100,10,")),
        "{stdout}"
    );
    assert!(
        panda.iter().all(|line| !line.contains(",DD1391-100,9,")),
        "a sold-out size: {stdout}"
    );
    assert!(panda.iter().all(|line| line.contains(&store.label())));
}
