//! The KicksDB source against the mock KicksDB on a real socket (`tests/common/mock_kicksdb.rs`,
//! written from `shared/research/kicksdb-v3.md`): every operation of the interface on its data,
//! mapped field by field; its failure modes; the budget; the mirror answering offline.

mod common;

use std::time::Duration;

use common::mock_kicksdb::data::{PAIRS, Pair};
use common::mock_kicksdb::{Endpoint, MockConfig, MockKicksdb, Mode, PlanGate, TEST_KEY};
use solescope::client::{Client, RelatedQuery, SearchQuery};
use solescope::model::Country;
use solescope::service::kicksdb::KicksdbConfig;
use solescope::service::{ServerHandle, ServiceConfig};

/// A service over the mock: the mirror in `dir`, tuned by `tune`.
async fn start_over(
    mock: &MockKicksdb,
    dir: &std::path::Path,
    tune: impl FnOnce(&mut KicksdbConfig, &mut ServiceConfig),
) -> ServerHandle {
    common::kicksdb_service(mock.base_url(), &mock.key(), dir, tune).await
}

fn client(server: &ServerHandle) -> Client {
    common::ultra_client(server)
}

fn chicago() -> &'static Pair {
    PAIRS.iter().find(|p| p.sku == "555088-101").unwrap()
}

/// Raw GET with the demo key: status, headers, JSON.
async fn raw(
    server: &ServerHandle,
    path: &str,
) -> (u16, reqwest::header::HeaderMap, serde_json::Value) {
    let response = reqwest::Client::new()
        .get(format!("{}{path}", server.base_url()))
        .header("Authorization", "demo-ultra")
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.json().await.unwrap_or(serde_json::Value::Null);
    (status, headers, body)
}

#[tokio::test(flavor = "multi_thread")]
async fn search_maps_stockx_products_field_by_field_in_both_markets() {
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let server = start_over(&mock, dir.path(), |_, _| {}).await;
    let client = client(&server);
    let pair = chicago();

    let page = client.search(&SearchQuery::text("chicago")).await.unwrap();
    let hit = page
        .hits
        .iter()
        .find(|h| h.sku == pair.sku)
        .expect("Chicago found");
    assert_eq!(hit.id, pair.id);
    assert_eq!(hit.slug, pair.slug);
    assert_eq!(hit.title, pair.title);
    assert_eq!(hit.brand, pair.brand);
    assert_eq!(hit.currency, "USD");
    assert_eq!(hit.link, format!("https://stockx.com/{}", pair.slug));
    assert_eq!(hit.gender, "men");
    assert_eq!(hit.age_group, "adult");
    assert_eq!(
        hit.category,
        format!("Sneakers > {} > {}", pair.brand, pair.model)
    );
    let asked: Vec<f64> = pair.sizes.iter().map(|s| f64::from(s.ask_usd)).collect();
    let priced: Vec<f64> = asked.iter().copied().filter(|a| *a > 0.0).collect();
    assert_eq!(
        hit.variants.len(),
        pair.sizes.len(),
        "every size, priced or not"
    );
    for (variant, size) in hit.variants.iter().zip(pair.sizes) {
        assert_eq!(variant.size, size.us);
        assert!(
            (variant.price - f64::from(size.ask_usd)).abs() < 1e-9,
            "{variant:?}"
        );
    }
    let min = priced.iter().copied().fold(f64::MAX, f64::min);
    let max = priced.iter().copied().fold(0.0, f64::max);
    assert!((hit.min_price - min).abs() < 1e-9);
    assert!((hit.max_price - max).abs() < 1e-9);
    assert_eq!(mock.count(Endpoint::Search), 1);
    let seen = mock.seen();
    let search = seen
        .iter()
        .find(|s| s.endpoint == Some(Endpoint::Search))
        .unwrap();
    assert!(search.query.contains("query=chicago"), "{}", search.query);
    assert!(search.query.contains("market=US"), "{}", search.query);
    assert!(
        seen.iter().all(|s| s.authorized),
        "Authorization: Bearer <key> on every call"
    );
    assert!(
        seen.iter()
            .all(|s| !s.query.contains(TEST_KEY) && !s.path.contains(TEST_KEY)),
        "the key never in a URL"
    );

    // FR: EUR prices from the FR market.
    let fr = client
        .search(&SearchQuery {
            country: Country::Fr,
            ..SearchQuery::text("chicago")
        })
        .await
        .unwrap();
    let fr_hit = fr.hits.iter().find(|h| h.sku == pair.sku).unwrap();
    assert_eq!(fr_hit.currency, "EUR");
    assert!(fr_hit.min_price > 0.0 && (fr_hit.min_price - hit.min_price).abs() > 1.0);
    assert!(mock.seen().iter().any(|s| s.query.contains("market=FR")));

    // The SKU and GTIN filters go to KicksDB as its `filters`.
    let by_sku = client
        .search(&SearchQuery {
            sku: Some(pair.sku.to_owned()),
            ..SearchQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(by_sku.hits.len(), 1);
    assert_eq!(by_sku.hits[0].sku, pair.sku);
    let gtin = pair.sizes[2].gtin;
    let by_gtin = client
        .search(&SearchQuery {
            gtin: Some(gtin.to_owned()),
            ..SearchQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(by_gtin.hits.len(), 1);
    assert_eq!(by_gtin.hits[0].sku, pair.sku);
    let filters: Vec<String> = mock
        .seen()
        .iter()
        .filter(|s| s.query.contains("filters="))
        .map(|s| s.query.clone())
        .collect();
    assert_eq!(filters.len(), 2, "{filters:?}");
    // A filter value that could break out of the quotes matches nothing, without a call.
    let before = mock.count(Endpoint::Search);
    let none = client
        .search(&SearchQuery {
            sku: Some("x' OR '1'='1".to_owned()),
            ..SearchQuery::default()
        })
        .await
        .unwrap();
    assert!(none.hits.is_empty());
    assert_eq!(mock.count(Endpoint::Search), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn product_carries_sizes_asks_barcodes_retail_and_release_from_traits() {
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let server = start_over(&mock, dir.path(), |_, _| {}).await;
    let client = client(&server);
    let pair = chicago();
    for id in [pair.id, pair.slug] {
        let product = client.product_v2(id).await.unwrap().data;
        assert_eq!(product.id, pair.id);
        assert_eq!(product.sku, pair.sku);
        assert_eq!(product.title, pair.title);
        assert_eq!(product.color, pair.colorway, "colorway from the traits");
        assert_eq!(product.currency, "USD");
        let retail = product.retail_prices.as_ref().unwrap();
        assert_eq!(retail.len(), 1);
        assert!((retail[0].price - f64::from(pair.retail_usd)).abs() < 1e-9);
        assert_eq!(retail[0].currency, "USD");
        let release = product.release_dates.as_ref().unwrap();
        assert_eq!(release[0].release_date, pair.release_date);
        assert_eq!(product.variants.len(), pair.sizes.len());
        for (variant, size) in product.variants.iter().zip(pair.sizes) {
            assert_eq!(variant.size, size.us);
            assert!((variant.price - f64::from(size.ask_usd)).abs() < 1e-9);
            assert_eq!(
                variant.asks,
                Some(size.asks.max(0) as u32),
                "number of asks"
            );
            assert_eq!(variant.gtin, size.gtin, "barcode from the identifiers");
            assert_eq!(variant.product_id, pair.id);
        }
        assert!(product.description.contains(pair.colorway) || !product.description.is_empty());
    }
    let seen = mock.seen();
    let product_call = seen
        .iter()
        .find(|s| s.endpoint == Some(Endpoint::Product))
        .unwrap();
    for display in [
        "display%5Bvariants%5D=true",
        "display%5Btraits%5D=true",
        "display%5Bidentifiers%5D=true",
    ] {
        assert!(
            product_call.query.contains(display),
            "{}",
            product_call.query
        );
    }

    // A search after the product keeps the product's facts (a search carries no traits).
    let hit = client.product(pair.id, Country::Us).await.unwrap();
    assert_eq!(hit.release_date, pair.release_date);
    assert_eq!(hit.retail_price, format!("{}.00", pair.retail_usd));
    let page = client.search(&SearchQuery::text("chicago")).await.unwrap();
    let again = page.hits.iter().find(|h| h.id == pair.id).unwrap();
    assert_eq!(again.release_date, pair.release_date);
}

#[tokio::test(flavor = "multi_thread")]
async fn orders_are_daily_sales_in_weeks_newest_first_without_an_invented_rank() {
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let server = start_over(&mock, dir.path(), |_, _| {}).await;
    let pair = chicago();
    let (status, headers, body) =
        raw(&server, &format!("/api/v2/products/{}/orders", pair.id)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(headers["x-solescope-source"], "kicksdb");
    let weeks = body["data"].as_array().unwrap();
    assert_eq!(weeks.len(), 52, "at most 52 weeks of a 430-day history");
    // The same days, grouped here by hand from the mock's own data.
    let today = MockConfig::default().today;
    let mut by_week = std::collections::BTreeMap::<chrono::NaiveDate, (i64, f64)>::new();
    for back in 0..pair.history_days {
        let day = today - chrono::Duration::days(back);
        let sale = common::mock_kicksdb::data::daily_sale(pair, "US", day);
        let monday = day
            - chrono::Duration::days(i64::from(
                chrono::Datelike::weekday(&day).num_days_from_monday(),
            ));
        let entry = by_week.entry(monday).or_default();
        let orders = sale["orders"].as_i64().unwrap();
        entry.0 += orders;
        entry.1 += orders as f64 * sale["avg_amount"].as_f64().unwrap();
    }
    let expected: Vec<_> = by_week.iter().rev().take(52).collect();
    for (week, (monday, (orders, gmv))) in weeks.iter().zip(expected) {
        assert_eq!(week["inserted_at"], format!("{monday}T00:00:00Z"));
        assert_eq!(week["orders"].as_i64().unwrap(), *orders);
        assert!(
            (week["gmv"].as_f64().unwrap() - gmv).abs() < 0.01,
            "{week} vs {gmv}"
        );
        if *orders > 0 {
            let aov = week["aov"].as_f64().unwrap();
            assert!((aov - gmv / *orders as f64).abs() < 0.01, "{week}");
        }
        assert!(
            week["position"].is_null(),
            "KicksDB gives no weekly rank: {week}"
        );
    }
    // Newest first.
    let first = weeks[0]["inserted_at"].as_str().unwrap();
    let last = weeks[51]["inserted_at"].as_str().unwrap();
    assert!(first > last);
}

#[tokio::test(flavor = "multi_thread")]
async fn stats_sum_the_brands_list_and_realtime_lookups_map_goat_and_stockx() {
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let server = start_over(&mock, dir.path(), |_, _| {}).await;
    let client = client(&server);
    let stats = client.stats().await.unwrap();
    let total: i64 = common::mock_kicksdb::data::BRANDS
        .iter()
        .map(|(_, c)| c)
        .sum();
    assert_eq!(stats.datasets[0].products, total as u64);
    assert_eq!(
        stats.datasets[0].variants, None,
        "KicksDB does not count sizes"
    );

    let pair = chicago();
    // By the StockX product (held in the mirror after a search): GOAT's product with the same
    // style code, found in GOAT's cached catalogue, then asked live.
    client.search(&SearchQuery::text("chicago")).await.unwrap();
    let resale_a = client.resale_a_product(pair.slug).await.unwrap().data;
    assert_eq!(resale_a.id, pair.goat_id);
    assert_eq!(resale_a.slug, pair.goat_slug);
    assert_eq!(resale_a.name, pair.title);
    assert_eq!(resale_a.designer, pair.designer);
    assert_eq!(resale_a.midsole, pair.midsole);
    let goat_lowest = pair
        .sizes
        .iter()
        .filter(|s| s.ask_usd > 0)
        .map(|s| (f64::from(s.ask_usd) * 1.06).round() as i64 * 100)
        .min()
        .unwrap();
    assert_eq!(resale_a.lowest_price_cents, goat_lowest);
    assert!(!resale_a.available_sizes_new.is_empty());
    assert_eq!(mock.count(Endpoint::GoatSearch), 1);
    // By GOAT's numeric id directly: no catalogue look-up.
    let by_id = client
        .resale_a_product(&pair.goat_id.to_string())
        .await
        .unwrap()
        .data;
    assert_eq!(by_id.sku, resale_a.sku);
    assert_eq!(mock.count(Endpoint::GoatSearch), 1);

    let related = client
        .resale_b_related(
            pair.id,
            &RelatedQuery {
                country: Some("GB".into()),
                currency: Some("GBP".into()),
                market: Some("GB".into()),
            },
        )
        .await
        .unwrap()
        .data;
    assert!(!related.is_empty());
    let expected = common::mock_kicksdb::data::related_nodes(pair, 0.79);
    for (edge, want) in related.iter().zip(&expected) {
        let node = &edge.node;
        let want = &want["node"];
        assert_eq!(node.id, want["id"].as_str().unwrap());
        assert_eq!(node.title, want["title"].as_str().unwrap());
        assert_eq!(node.url_key, want["urlKey"].as_str().unwrap());
        assert_eq!(
            node.media.thumb_url,
            want["media"]["thumbUrl"].as_str().unwrap()
        );
        let book = &want["market"]["state"];
        assert!(
            (node.market.state.lowest_ask.amount - book["lowestAsk"]["amount"].as_f64().unwrap())
                .abs()
                < 1e-9
        );
        assert!(
            (node.market.state.highest_bid.amount - book["highestBid"]["amount"].as_f64().unwrap())
                .abs()
                < 1e-9
        );
        assert_eq!(
            node.market.state.number_of_asks,
            book["numberOfAsks"].as_i64().unwrap()
        );
        let sales = &want["market"]["salesInformation"];
        assert!(
            (node.market.sales_information.last_sale - sales["lastSale"].as_f64().unwrap()).abs()
                < 1e-9
        );
        assert_eq!(
            node.market.sales_information.sales_last_72_hours,
            sales["salesLast72Hours"].as_i64().unwrap()
        );
    }
    let call = mock
        .seen()
        .into_iter()
        .find(|s| s.endpoint == Some(Endpoint::RealtimeRelated))
        .unwrap();
    for part in ["country=GB", "currency=GBP", "market=UK"] {
        assert!(call.query.contains(part), "{}", call.query);
    }
    // The monthly count KicksDB reports is passed on.
    assert_eq!(client.upstream_quota(), Some(mock.quota_current()));
}

#[tokio::test(flavor = "multi_thread")]
async fn kicksdb_refusals_and_failures_get_clear_errors_that_name_it() {
    let mock = MockKicksdb::start(MockConfig {
        plan_gates: vec![PlanGate::realtime_needs_pro()],
        ..MockConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let server = start_over(&mock, dir.path(), |live, _| {
        live.http.max_body_bytes = 1024 * 1024;
    })
    .await;
    let pair = chicago();

    // 403: the plan, named.
    let (status, _, body) = raw(
        &server,
        &format!("/api/v3/realtime/resale-a/products/{}", pair.goat_id),
    )
    .await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"], "upstream_plan");
    assert!(body["message"].as_str().unwrap().contains("Pro"), "{body}");

    // 401: KicksDB refused the key.
    mock.set_mode(Mode::Unauthorized);
    let (status, _, body) = raw(&server, "/search?query=dunk").await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"], "upstream_key_refused");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("KicksDB refused the key"),
        "{body}"
    );

    let cases: [(Mode, &str, u16); 5] = [
        (Mode::ServerError(503), "KicksDB failed", 502),
        (Mode::Html { status: 200 }, "not JSON", 502),
        (Mode::MalformedJson, "KicksDB", 502),
        (Mode::WrongType, "invalid type", 502),
        (
            Mode::Huge {
                megabytes: 3,
                content_length: false,
            },
            "larger than",
            502,
        ),
    ];
    for (at, (mode, words, want)) in cases.into_iter().enumerate() {
        mock.set_mode(mode);
        // Failures are not reused, and nothing is held in the mirror yet.
        let _ = at;
        let (status, _, body) = raw(&server, "/search?query=jordan").await;
        assert_eq!(status, want, "{mode:?}: {body}");
        let message = body["message"].as_str().unwrap();
        assert!(message.contains("KicksDB"), "{mode:?}: {message}");
        assert!(message.contains(words), "{mode:?}: {message}");
    }

    // Slow: the request timeout ends it with 504.
    mock.set_mode(Mode::Slow(Duration::from_secs(5)));
    let started = std::time::Instant::now();
    let (status, _, body) = raw(&server, "/search?query=slowly").await;
    assert_eq!(status, 504, "{body}");
    assert!(started.elapsed() < Duration::from_secs(4));

    // 429 with a long Retry-After: passed on with its wait.
    mock.set_mode(Mode::RateLimited {
        retry_after_secs: 30,
    });
    let (status, headers, body) = raw(&server, "/search?query=later").await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["error"], "upstream_rate_limited");
    assert_eq!(headers["retry-after"], "30");

    // A short one is waited out.
    mock.set_mode(Mode::Normal);
    mock.set_mode_next(
        1,
        Mode::RateLimited {
            retry_after_secs: 1,
        },
    );
    let started = std::time::Instant::now();
    let (status, _, body) = raw(&server, "/search?query=panda").await;
    assert_eq!(status, 200, "{body}");
    assert!(started.elapsed() >= Duration::from_millis(900));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_mirror_answers_search_product_and_orders_with_their_age_when_kicksdb_is_gone() {
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let server = start_over(&mock, dir.path(), |_, _| {}).await;
    let pair = chicago();
    let (status, _, live) = raw(&server, "/search?query=chicago").await;
    assert_eq!(status, 200);
    assert_eq!(
        raw(&server, &format!("/api/v2/products/{}", pair.id))
            .await
            .0,
        200
    );
    let (status, _, live_orders) =
        raw(&server, &format!("/api/v2/products/{}/orders", pair.id)).await;
    assert_eq!(status, 200);
    mock.stop();

    // A fresh query (nothing reused): KicksDB is asked, cannot answer, the mirror does.
    let (status, headers, held) = raw(&server, "/search?query=jordan%20chicago").await;
    assert_eq!(status, 200, "{held}");
    assert_eq!(headers["x-solescope-source"], "kicksdb-mirror");
    let as_of = headers["x-solescope-as-of"].to_str().unwrap();
    assert!(
        chrono::DateTime::parse_from_rfc3339(as_of).is_ok(),
        "{as_of}"
    );
    assert!(headers.contains_key("x-solescope-stale-reason"));
    let held_hit = held["hits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == pair.id)
        .unwrap();
    let live_hit = live["hits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == pair.id)
        .unwrap();
    let sizes_and_prices =
        |hit: &serde_json::Value| -> Vec<(serde_json::Value, serde_json::Value)> {
            hit["variants"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| (v["size"].clone(), v["price"].clone()))
                .collect()
        };
    assert_eq!(sizes_and_prices(held_hit), sizes_and_prices(live_hit));
    assert_eq!(held_hit["min_price"], live_hit["min_price"]);

    let (status, headers, product) = raw(&server, &format!("/api/v2/products/{}", pair.slug)).await;
    assert_eq!(status, 200, "{product}");
    assert_eq!(headers["x-solescope-source"], "kicksdb-mirror");
    assert_eq!(product["data"]["sku"], pair.sku);

    let (status, headers, orders) =
        raw(&server, &format!("/api/v2/products/{}/orders", pair.id)).await;
    assert_eq!(status, 200, "{orders}");
    // Weekly figures held for an hour are served as they are.
    assert_eq!(orders["data"], live_orders["data"]);
    assert!(headers.contains_key("x-solescope-source"));

    // Something never fetched: KicksDB's failure is the answer.
    let (status, _, body) = raw(&server, "/api/v2/products/never-seen-slug").await;
    assert_eq!(status, 502, "{body}");
}

/// KicksDB ranks; the mirror's own search (as the user types, or when KicksDB cannot answer)
/// is ranked by the live index kept beside it (`tests/kicksdb_index.rs`), and its hits read
/// from the mirror itself: a hit store of the mirror would go unused, yet cost a start seconds
/// and memory at a large mirror.
#[tokio::test(flavor = "multi_thread")]
async fn no_hit_store_is_made_of_the_mirror() {
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let mirror = dir.path().join("mirror.sqlite");
    let first = start_over(&mock, dir.path(), |_, _| {}).await;
    assert_eq!(raw(&first, "/search?query=jordan").await.0, 200);
    drop(first);
    // A second start, over a mirror that now holds products.
    let held: i64 = rusqlite::Connection::open(&mirror)
        .unwrap()
        .query_row("SELECT count(*) FROM products", [], |row| row.get(0))
        .unwrap();
    assert!(held > 0);
    let again = start_over(&mock, dir.path(), |_, _| {}).await;
    let (status, _, page) = raw(&again, "/search?query=chicago").await;
    assert_eq!(status, 200, "{page}");
    assert!(!page["hits"].as_array().unwrap().is_empty());
    let hits = solescope::search::HitStore::file_for(&mirror);
    assert!(!hits.exists(), "{} was written", hits.display());
}

#[tokio::test(flavor = "multi_thread")]
async fn search_as_you_type_reads_the_mirror_without_a_call() {
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let server = start_over(&mock, dir.path(), |_, _| {}).await;
    let client = client(&server);
    client.search(&SearchQuery::text("dunk")).await.unwrap();
    let calls = mock.seen().len();
    for typed in ["d", "du", "dun", "dunk"] {
        let page = client
            .search(&SearchQuery {
                cached_only: true,
                ..SearchQuery::text(typed)
            })
            .await
            .unwrap();
        assert!(!page.hits.is_empty(), "{typed}");
        assert_eq!(client.data_origin().unwrap().source, "kicksdb-mirror");
    }
    assert_eq!(mock.seen().len(), calls, "no KicksDB call per keystroke");
}

#[tokio::test(flavor = "multi_thread")]
async fn never_more_than_60_real_time_calls_a_minute_under_a_load_of_200() {
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    // Four pro keys of the service, 50 requests each: within each key's own budget (60 a
    // minute), so only the upstream's count stands between the load and KicksDB.
    let keys: Vec<String> = {
        let mirror = solescope::catalogue::mirror::open_or_create(
            &dir.path().join("mirror.sqlite"),
            "kicksdb",
        )
        .unwrap();
        (0..4)
            .map(|n| {
                let key = solescope::catalogue::keys::new_key();
                solescope::catalogue::keys::insert(
                    mirror.connection(),
                    &key,
                    solescope::model::Tier::Pro,
                    &format!("load {n}"),
                    "2026-11-22T00:00:00Z",
                )
                .unwrap();
                key
            })
            .collect()
    };
    let server = start_over(&mock, dir.path(), |live, _| {
        // Nothing reused.
        live.ttl.realtime = Duration::ZERO;
    })
    .await;
    let pair = chicago();
    let http = reqwest::Client::new();
    let mut tasks = Vec::new();
    for at in 0..200 {
        let key = keys[at % keys.len()].clone();
        let url = if at % 2 == 0 {
            format!(
                "{}/api/v3/realtime/resale-a/products/{}",
                server.base_url(),
                pair.goat_id
            )
        } else {
            format!(
                "{}/api/v3/realtime/resale-b/products/{}/related",
                server.base_url(),
                pair.id
            )
        };
        let http = http.clone();
        tasks.push(tokio::spawn(async move {
            let response = http
                .get(url)
                .header("Authorization", key)
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            let retry_after = response.headers().get("retry-after").is_some();
            let body: serde_json::Value = response.json().await.unwrap();
            (status, retry_after, body)
        }));
    }
    let mut ok = 0;
    let mut refused = 0;
    for task in tasks {
        let (status, retry_after, body) = task.await.unwrap();
        match status {
            200 => ok += 1,
            429 => {
                refused += 1;
                assert!(retry_after, "{body}");
                assert!(
                    body["message"]
                        .as_str()
                        .unwrap()
                        .contains("60 real-time calls a minute"),
                    "{body}"
                );
            }
            other => panic!("{other}: {body}"),
        }
    }
    let max = mock.max_realtime_calls_per_minute();
    assert!(max <= 60, "the mock saw {max} real-time calls in a minute");
    assert_eq!(ok, 60, "the whole budget is used");
    assert_eq!(refused, 140);
}

/// The service over KicksDB lets each key make no more real-time calls a minute than KicksDB
/// allows, however it was set (the window, the command line, `serve` and the tests start it in
/// one place, `service::start::kicksdb_state`): what the service was set to allow, or
/// KicksDB's own limit when that is smaller. Every real-time answer says the limit.
#[tokio::test(flavor = "multi_thread")]
async fn the_real_time_limit_per_key_is_never_more_than_kicksdb_allows() {
    let pair = chicago();
    for (service_allows, kicksdb_allows, said) in [(120, 60, "60"), (20, 60, "20"), (90, 200, "90")]
    {
        let mock = MockKicksdb::start(MockConfig::default());
        let dir = tempfile::tempdir().unwrap();
        let server = start_over(&mock, dir.path(), |live, config| {
            live.realtime_per_minute = kicksdb_allows;
            config.realtime_per_minute = service_allows;
        })
        .await;
        let (status, headers, body) = raw(
            &server,
            &format!("/api/v3/realtime/resale-a/products/{}", pair.goat_id),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            headers
                .get("x-ratelimit-limit")
                .and_then(|v| v.to_str().ok()),
            Some(said),
            "set to allow {service_allows}, over a KicksDB allowing {kicksdb_allows}"
        );
    }
}

/// A first start on a fresh home: the data folder is not there yet (nothing built the demo
/// catalogue, which made it before). The service over KicksDB makes it and answers.
#[tokio::test(flavor = "multi_thread")]
async fn a_first_start_makes_the_folder_of_the_mirror() {
    let mock = MockKicksdb::start(MockConfig::default());
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join(".local/share/solescope");
    let server = start_over(&mock, &data, |_, _| {}).await;
    let page = client(&server)
        .search(&SearchQuery::text("chicago"))
        .await
        .unwrap();
    assert!(!page.hits.is_empty());
    assert!(data.join("mirror.sqlite").is_file());
}

#[tokio::test(flavor = "multi_thread")]
async fn identical_requests_in_flight_are_sent_once() {
    let mock = MockKicksdb::start(MockConfig::default());
    mock.set_mode(Mode::Slow(Duration::from_millis(300)));
    let dir = tempfile::tempdir().unwrap();
    let server = start_over(&mock, dir.path(), |_, _| {}).await;
    let client = client(&server);
    let pair = chicago();
    let id = pair.goat_id.to_string();
    let (a, b) = tokio::join!(client.resale_a_product(&id), client.resale_a_product(&id));
    assert_eq!(a.unwrap().data, b.unwrap().data);
    assert_eq!(
        mock.count(Endpoint::RealtimeGoat),
        1,
        "two panels, one call"
    );
    // And reused for a short while after.
    client.resale_a_product(&id).await.unwrap();
    assert_eq!(mock.count(Endpoint::RealtimeGoat), 1);
}
