//! Real storefronts as `retailer-a`, against mock Shopify stores on real sockets
//! (`common/mock_storefront.rs`, written from `shared/research/shopify-storefront.md`): every
//! mapped field, the money rule on JPY and a three-decimal currency, the polite reader (one
//! request per second per store, answers reused, `User-Agent`, 429 with `Retry-After`, password
//! and bot pages, a redirect to another host, a store that keeps failing paused), stores asked
//! in turn and the `store` parameter through the real service.

mod common;

use std::time::{Duration, Instant};

use common::mock_storefront::{self, MockStorefront, Mode};
use solescope::model::{RetailerStores, StoreUrl};
use solescope::service::marketplace::UpstreamError;
use solescope::service::storefront::{StorefrontConfig, Storefronts};

const HANDLE: &str = "nike-dunk-low-retro-panda";
const PRODUCT_ID: u64 = 7_572_035_502_241;

fn store_url(mock: &MockStorefront) -> StoreUrl {
    StoreUrl::parse(&mock.base_url).unwrap()
}

fn reader(mocks: &[&MockStorefront], config: StorefrontConfig) -> Storefronts {
    let stores = RetailerStores::new(mocks.iter().map(|m| store_url(m)));
    Storefronts::new(stores, config)
}

fn panda(handle: &str) -> mock_storefront::MockProduct {
    mock_storefront::sneaker(
        handle,
        PRODUCT_ID,
        "Nike Dunk Low Retro 'Panda'",
        "USD",
        2,
        11_000,
        &[8.0, 9.0, 10.0],
    )
}

#[tokio::test]
async fn every_field_of_a_sneaker_store_maps_to_the_retailer_product() {
    let mock = MockStorefront::start(vec![panda(HANDLE)]).await;
    let storefronts = reader(&[&mock], StorefrontConfig::default());
    let product = storefronts.product(HANDLE, None).await.unwrap();

    assert_eq!(product.id, "gid://shopify/Product/7572035502241");
    assert_eq!(product.title, "Nike Dunk Low Retro 'Panda'");
    assert_eq!(product.slug, HANDLE);
    assert_eq!(product.product_type, "Sneakers");
    assert_eq!(product.brand, "Nike");
    assert_eq!(
        product.description,
        "<p>The <strong>Panda</strong> is back.</p>"
    );
    // The variants' SKUs are DD1391-100-8, -9, -10: their stem.
    assert_eq!(product.sku, "DD1391-100");
    // Scheme-relative (`//cdn…`) and absolute image URLs, both absolute.
    assert_eq!(
        product.images,
        [
            format!("http://cdn.shopify.com/s/files/1/0626/products/{HANDLE}-1.jpg"),
            format!("https://cdn.shopify.com/s/files/1/0626/products/{HANDLE}-2.jpg"),
        ]
    );
    assert_eq!(product.colorway, "White/Black");
    // Published 2026-03-10 21:30 at -07:00: the store's date (in UTC it is the 11th).
    assert_eq!(product.release_date, "2026-03-10");
    // The newest of the product's (2026-10-06T18:00:20Z) and the variants' times.
    assert_eq!(product.updated_at, "2026-10-07T12:15:30.250000Z");

    let sizes: Vec<&str> = product.variants.iter().map(|v| v.size.as_str()).collect();
    // The size is option 2 (option 1 is the colour), one label in several systems.
    assert_eq!(
        sizes,
        [
            "US 8 / UK 7 / EU 41",
            "US 9 / UK 8 / EU 42",
            "US 10 / UK 9 / EU 43"
        ]
    );
    let [first, second, third] = product.variants.as_slice() else {
        panic!("three variants: {product:?}");
    };
    assert_eq!(
        first.id,
        format!("gid://shopify/ProductVariant/{}", PRODUCT_ID * 10 + 1)
    );
    assert_eq!(
        second.id,
        format!("gid://shopify/ProductVariant/{}", PRODUCT_ID * 10 + 2)
    );
    for variant in &product.variants {
        assert!((variant.price - 110.0).abs() < 1e-9, "{}", variant.price);
        assert_eq!(variant.currency, "USD");
    }
    assert_eq!(
        (first.barcode.as_str(), first.barcode_type.as_str()),
        ("196153879800", "UPC")
    );
    assert_eq!(
        (second.barcode.as_str(), second.barcode_type.as_str()),
        ("4066748123401", "EAN-13")
    );
    assert_eq!(
        (third.barcode.as_str(), third.barcode_type.as_str()),
        ("", "")
    );
    assert_eq!(
        [first.available, second.available, third.available],
        [true, false, true]
    );
    assert_eq!(first.updated_at, "2026-10-07T12:15:30.250000Z");
    assert_eq!(second.updated_at, "2026-10-05T19:00:00.000000Z");
}

#[tokio::test]
async fn prices_are_read_in_the_stores_currency_jpy_and_three_decimals() {
    let jpy = MockStorefront::start(vec![mock_storefront::jpy_sneaker("dunk-jp", 11)]).await;
    let kwd = MockStorefront::start(vec![mock_storefront::kwd_sneaker("dunk-kw", 12)]).await;
    let storefronts = reader(&[&jpy, &kwd], StorefrontConfig::default());

    let yen = storefronts
        .product("dunk-jp", Some(&jpy.label()))
        .await
        .unwrap();
    // `.json` "16500" JPY (its `.js` says 1650000: ×100 even for a currency without cents).
    assert!(
        yen.variants
            .iter()
            .all(|v| (v.price - 16_500.0).abs() < 1e-9 && v.currency == "JPY")
    );
    // The size option is found by its name, wherever it is (here option 1, named in two languages).
    assert_eq!(yen.variants[0].size, "26.5cm / US 8.5");
    assert!(yen.variants.iter().all(|v| v.barcode_type == "EAN-13"));

    let dinar = storefronts
        .product("dunk-kw", Some(&kwd.label()))
        .await
        .unwrap();
    // `.json` "55.750" KWD (its `.js` says 5575).
    assert!(
        dinar
            .variants
            .iter()
            .all(|v| (v.price - 55.75).abs() < 1e-9 && v.currency == "KWD")
    );
}

#[tokio::test]
async fn one_request_per_second_per_store_with_a_solescope_user_agent_and_answers_reused() {
    let mock = MockStorefront::start(vec![panda(HANDLE), panda("other-shoe")]).await;
    let storefronts = reader(&[&mock], StorefrontConfig::default());
    let (a, b) = tokio::join!(
        storefronts.product(HANDLE, None),
        storefronts.product("other-shoe", None)
    );
    a.unwrap();
    b.unwrap();
    let seen = mock.seen();
    assert_eq!(seen.len(), 4, "{seen:?}");
    for pair in seen.windows(2) {
        let gap = pair[1].at.duration_since(pair[0].at);
        assert!(
            gap >= Duration::from_millis(990),
            "{gap:?} between {pair:?}"
        );
    }
    for request in &seen {
        let agent = request.user_agent.as_deref().unwrap_or_default();
        assert!(agent.starts_with("Solescope/"), "{agent}");
    }
    // Asked again within the minute: the same answer, no request.
    let again = storefronts.product(HANDLE, None).await.unwrap();
    assert_eq!(again.slug, HANDLE);
    assert_eq!(mock.seen().len(), 4);
}

#[tokio::test]
async fn an_answer_is_reused_for_at_most_the_ttl_so_a_restock_shows() {
    let mock = MockStorefront::start(vec![panda(HANDLE)]).await;
    let config = StorefrontConfig {
        cache_ttl: Duration::from_millis(300),
        min_interval: Duration::from_millis(50),
        ..StorefrontConfig::default()
    };
    let storefronts = reader(&[&mock], config);
    let before = storefronts.product(HANDLE, None).await.unwrap();
    assert!(!before.variants[1].available);
    mock.set_available(HANDLE, PRODUCT_ID * 10 + 2, true);
    let cached = storefronts.product(HANDLE, None).await.unwrap();
    assert!(!cached.variants[1].available, "reused within the TTL");
    tokio::time::sleep(Duration::from_millis(350)).await;
    let after = storefronts.product(HANDLE, None).await.unwrap();
    assert!(after.variants[1].available, "read again after the TTL");
}

async fn error_in(mode: Mode) -> (String, usize) {
    let mock = MockStorefront::start(vec![panda(HANDLE)]).await;
    mock.set_mode(mode);
    let storefronts = reader(&[&mock], StorefrontConfig::default());
    let err = storefronts.product(HANDLE, None).await.unwrap_err();
    (err.to_string(), mock.seen().len())
}

#[tokio::test]
async fn what_a_store_can_refuse_is_said_plainly() {
    let (password, _) = error_in(Mode::Password).await;
    assert!(
        password.contains("this store is password-protected"),
        "{password}"
    );
    let (password_page, _) = error_in(Mode::PasswordPage).await;
    assert!(
        password_page.contains("this store is password-protected"),
        "{password_page}"
    );
    let (bot, _) = error_in(Mode::BotCheck).await;
    assert!(
        bot.contains("this store refuses automated reading"),
        "{bot}"
    );
    let elsewhere = MockStorefront::start(vec![panda(HANDLE)]).await;
    let (redirect, _) = error_in(Mode::RedirectTo(format!(
        "{}/products/{HANDLE}.json",
        elsewhere.base_url
    )))
    .await;
    assert!(
        redirect.contains("redirected to another site"),
        "{redirect}"
    );
    assert!(
        elsewhere.seen().is_empty(),
        "the other host was never asked"
    );
}

#[tokio::test]
async fn a_429_pauses_the_store_for_its_retry_after() {
    let mock = MockStorefront::start(vec![panda(HANDLE)]).await;
    mock.set_mode(Mode::RateLimited(2));
    let stores = RetailerStores::new([store_url(&mock)]);
    let storefronts = Storefronts::new(stores.clone(), StorefrontConfig::default());
    let err = storefronts.product(HANDLE, None).await.unwrap_err();
    assert!(err.to_string().contains("asked again in 2 s"), "{err}");
    mock.set_mode(Mode::Normal);
    // Within the wait the store is not asked at all.
    let paused = storefronts.product(HANDLE, None).await.unwrap_err();
    assert!(
        paused.to_string().contains("not asked for another"),
        "{paused}"
    );
    assert_eq!(mock.seen().len(), 1);
    assert!(stores.health(&store_url(&mock)).paused_until_unix.is_some());
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    storefronts.product(HANDLE, None).await.unwrap();
    assert_eq!(stores.health(&store_url(&mock)).failures_in_row, 0);
}

#[tokio::test]
async fn a_store_that_keeps_failing_is_paused_and_marked() {
    let mock = MockStorefront::start(vec![panda(HANDLE)]).await;
    mock.set_mode(Mode::ServerError);
    let stores = RetailerStores::new([store_url(&mock)]);
    let config = StorefrontConfig {
        min_interval: Duration::from_millis(10),
        ..StorefrontConfig::default()
    };
    let storefronts = Storefronts::new(stores.clone(), config);
    for _ in 0..3 {
        let err = storefronts.product(HANDLE, None).await.unwrap_err();
        assert!(matches!(err, UpstreamError::Failed(_)), "{err:?}");
    }
    assert_eq!(mock.seen().len(), 3);
    let health = stores.health(&store_url(&mock));
    assert_eq!(health.failures_in_row, 3);
    assert!(health.last_error.unwrap().contains("HTTP 500"));
    let paused_until = health
        .paused_until_unix
        .expect("paused after three failures");
    let now = chrono::Utc::now().timestamp();
    assert!(
        (now + 25..=now + 31).contains(&paused_until),
        "{paused_until} vs {now}"
    );
    // Not retried hot: the fourth lookup fails at once, without a request.
    let started = Instant::now();
    let err = storefronts.product(HANDLE, None).await.unwrap_err();
    assert!(err.to_string().contains("not asked for another"), "{err}");
    assert!(started.elapsed() < Duration::from_millis(200));
    assert_eq!(mock.seen().len(), 3);
}

/// A running service over a small catalogue reading `stores`, and one catalogue product.
struct Served {
    dir: tempfile::TempDir,
    server: solescope::service::ServerHandle,
    stores: RetailerStores,
    hit: solescope::model::SearchHit,
}

async fn serve_with(stores: &[&MockStorefront], storefront: StorefrontConfig) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 20, 5);
    let mut config = common::config(&catalogue);
    let list = RetailerStores::new(stores.iter().map(|m| store_url(m)));
    config.retailer_stores = list.clone();
    config.storefront = storefront;
    let server = common::start(config).await;
    let client = solescope::client::Client::new(solescope::client::ClientConfig::new(
        server.base_url(),
        Some("demo-pro".into()),
    ))
    .unwrap();
    let hits = client
        .search(&solescope::client::SearchQuery::default())
        .await
        .unwrap();
    Served {
        dir,
        server,
        stores: list,
        hit: hits.hits[0].clone(),
    }
}

async fn get(served: &Served, path: &str) -> (u16, serde_json::Value) {
    let response = reqwest::Client::new()
        .get(format!("{}{path}", served.server.base_url()))
        .header("Authorization", "demo-pro")
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn the_service_reads_the_stores_in_turn_and_only_a_configured_store_by_name() {
    // Store A sells another shoe; store B the catalogue's first product, by its catalogue slug.
    let a = MockStorefront::start(vec![panda("something-else")]).await;
    let b_product = |slug: &str| panda(slug);
    let placeholder = MockStorefront::start(Vec::new()).await;
    let served = serve_with(&[&a, &placeholder], StorefrontConfig::default()).await;
    let slug = served.hit.slug.clone();
    let b = MockStorefront::start(vec![b_product(&slug)]).await;
    // Settings (or anyone holding the shared list) swaps a store: used at once.
    served.stores.set([store_url(&a), store_url(&b)]);

    let (status, body) = get(&served, &format!("/api/v3/retailer-a/products/{slug}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["slug"], slug.as_str());
    assert_eq!(body["data"]["id"], "gid://shopify/Product/7572035502241");
    assert_eq!(a.seen().len(), 1, "A was asked first and had nothing");
    assert!(
        placeholder.seen().is_empty(),
        "a removed store is not asked"
    );

    // The catalogue UUID the window and its alerts hold stands for the catalogue slug.
    let (status, by_id) = get(
        &served,
        &format!("/api/v3/retailer-a/products/{}", served.hit.id),
    )
    .await;
    assert_eq!(status, 200, "{by_id}");
    assert_eq!(by_id["data"], body["data"]);

    // One store by name: A has no such product.
    let (status, only_a) = get(
        &served,
        &format!("/api/v3/retailer-a/products/{slug}?store={}", a.label()),
    )
    .await;
    assert_eq!(status, 404, "{only_a}");
    // A store that is not configured is not found, and never fetched.
    let (status, refused) = get(
        &served,
        &format!(
            "/api/v3/retailer-a/products/{slug}?store={}",
            placeholder.label()
        ),
    )
    .await;
    assert_eq!(status, 404, "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("is configured")
    );
    assert!(placeholder.seen().is_empty());
    // The parameter is in the OpenAPI document, with its rule.
    let (_, document) = get(&served, "/openapi.json").await;
    let store_parameter =
        document["paths"]["/api/v3/retailer-a/products/{slug}"]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "store")
            .cloned()
            .expect("the store parameter is documented");
    assert_eq!(store_parameter["in"], "query");
    assert!(
        store_parameter["description"]
            .as_str()
            .unwrap()
            .contains("configured"),
        "{store_parameter}"
    );
    // A store that refuses is a 502 naming what it said.
    b.set_mode(Mode::Password);
    let (status, password) = get(
        &served,
        &format!(
            "/api/v3/retailer-a/products/other-handle?store={}",
            b.label()
        ),
    )
    .await;
    assert_eq!(status, 502, "{password}");
    assert!(
        password["message"]
            .as_str()
            .unwrap()
            .contains("password-protected")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_with_a_retailer_store_answers_the_conformant_retailer_product() {
    use std::io::{BufRead, BufReader};

    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "serve.sqlite", 20, 5);
    let mock = MockStorefront::start(vec![panda(HANDLE)]).await;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_solescope"))
        .env("HOME", dir.path())
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--retailer-store",
            &mock.base_url,
        ])
        .arg("--catalogue")
        .arg(&catalogue)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        line
    })
    .await
    .unwrap();
    let base = line.trim().rsplit(' ').next().unwrap().to_owned();
    let answer = |key: &'static str| {
        let url = format!("{base}/api/v3/retailer-a/products/{HANDLE}");
        async move {
            let response = reqwest::Client::new()
                .get(url)
                .header("Authorization", key)
                .send()
                .await
                .unwrap();
            (
                response.status().as_u16(),
                response.json::<serde_json::Value>().await.unwrap(),
            )
        }
    };
    let (status, pro) = answer("demo-pro").await;
    let (free_status, free) = answer("demo-free").await;
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(status, 200, "{pro}");
    common::conformance::assert_retailer_envelope(&pro, true);
    assert_eq!(pro["data"]["slug"], HANDLE);
    assert_eq!(pro["data"]["release_date"], "2026-03-10");
    // The free tier's rule holds for a live answer too: no release date.
    assert_eq!(free_status, 200, "{free}");
    common::conformance::assert_retailer_envelope(&free, false);
    // Two requests for the first answer, none for the second (reused).
    // The store's crawl (`/products.json` pages) runs beside and is not
    // counted: only the lookups of this product are.
    let lookups = mock
        .seen()
        .iter()
        .filter(|s| s.path.contains(HANDLE))
        .count();
    assert_eq!(lookups, 2, "{:?}", mock.seen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restock_at_a_store_fires_the_alert_once_with_a_desktop_notification() {
    use solescope::app::monitor::{self, MonitorConfig};
    use solescope::app::notify::DesktopNotifier;
    use solescope::model::{AlertKind, NewAlert, ProductRef};
    use solescope::userdb::{UserDb, UserDbHandle};

    let Some((_bus, received)) = common::notifications::own_notification_bus().await else {
        return;
    };
    let placeholder = MockStorefront::start(Vec::new()).await;
    let fast = StorefrontConfig {
        cache_ttl: Duration::from_millis(200),
        min_interval: Duration::from_millis(20),
        ..StorefrontConfig::default()
    };
    let served = serve_with(&[&placeholder], fast).await;
    // The store sells the catalogue's first product under its catalogue slug; size US 9 is
    // sold out.
    let mock = MockStorefront::start(vec![panda(&served.hit.slug)]).await;
    served.stores.set([store_url(&mock)]);
    let client = solescope::client::Client::new(solescope::client::ClientConfig::new(
        served.server.base_url(),
        Some("demo-pro".into()),
    ))
    .unwrap();
    let db_path = served.dir.path().join(UserDb::FILE_NAME);
    let (db, opened) = UserDbHandle::spawn(db_path.clone());
    tokio::task::spawn_blocking(move || opened.block_and_take())
        .await
        .unwrap()
        .unwrap();
    let alert = NewAlert {
        product: ProductRef {
            product_id: served.hit.id.clone(),
            style_code: served.hit.sku.clone(),
            title: served.hit.title.clone(),
        },
        size: Some("9".into()),
        kind: AlertKind::BackInStock,
        price_cents: None,
        currency: "USD".into(),
    };
    let added = db.run(move |db| db.add_alert(&alert, 0));
    tokio::task::spawn_blocking(move || added.block_and_take())
        .await
        .unwrap()
        .unwrap();
    let handle = monitor::spawn(
        &tokio::runtime::Handle::current(),
        client,
        db,
        std::sync::Arc::new(DesktopNotifier),
        MonitorConfig {
            check_every: Duration::from_millis(300),
        },
    );
    let wait_for_checks = |n: u64| {
        let handle = handle.clone();
        async move {
            let start = Instant::now();
            while handle.status().checks < n {
                assert!(
                    start.elapsed() < Duration::from_secs(20),
                    "{:?}",
                    handle.status()
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    // Sold out: checked twice, nothing fires.
    wait_for_checks(2).await;
    assert_eq!(handle.status().unseen_firings, 0, "{:?}", handle.status());
    assert!(received.try_recv().is_err());

    // The store brings size US 9 back.
    mock.set_available(&served.hit.slug, PRODUCT_ID * 10 + 2, true);
    let (app_name, summary, body) = tokio::task::spawn_blocking(move || {
        let first = received.recv_timeout(Duration::from_secs(20));
        (first, received)
    })
    .await
    .map(|(first, received)| {
        let first = first.expect("a Notify call within 20 s");
        // Later checks see it still in stock: no second notification.
        std::thread::sleep(Duration::from_millis(1_500));
        assert!(received.try_recv().is_err(), "the alert fired twice");
        first
    })
    .unwrap();
    let checks = handle.status().checks;
    assert!(checks >= 4, "{:?}", handle.status());
    let firings = handle.take_firings();
    handle.stop();
    assert_eq!(firings.len(), 1, "{firings:?}");
    assert_eq!(firings[0].size, "9");
    assert_eq!(firings[0].price_cents, Some(11_000));
    assert_eq!(app_name, "Solescope");
    assert!(summary.contains(&served.hit.title), "{summary}");
    assert!(body.contains("Size 9"), "{body}");
    assert!(body.contains("back in stock at 110.00"), "{body}");
}
