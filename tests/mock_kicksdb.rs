//! The mock KicksDB itself, through plain reqwest on its real socket: auth, every endpoint's
//! shape and paging, the filters, each failure mode, `stop`, and the sliding-window counter the
//! live source's budget tests rely on.

mod common;

use std::time::{Duration, Instant};

use common::mock_kicksdb::data::PAIRS;
use common::mock_kicksdb::{
    Endpoint, MockConfig, MockKicksdb, Mode, PlanGate, Seen, TEST_KEY, max_calls_in_window,
};
use reqwest::StatusCode;
use serde_json::{Value, json};

const CHICAGO: &str = "4a37fa2d-f2d7-440f-8785-9faeecc3f80c";
const CHICAGO_SLUG: &str = "air-jordan-1-retro-high-og-chicago";

fn mock() -> MockKicksdb {
    MockKicksdb::start(MockConfig::default())
}

/// GET `path` with the mock's key.
async fn call(mock: &MockKicksdb, path: &str, query: &[(&str, &str)]) -> reqwest::Response {
    reqwest::Client::new()
        .get(format!("{}{path}", mock.base_url()))
        .query(query)
        .bearer_auth(mock.key())
        .send()
        .await
        .unwrap()
}

/// GET `path` with the mock's key: status and JSON body.
async fn call_json(mock: &MockKicksdb, path: &str, query: &[(&str, &str)]) -> (StatusCode, Value) {
    let response = call(mock, path, query).await;
    let status = response.status();
    (status, response.json().await.unwrap())
}

fn ids(data: &Value) -> Vec<String> {
    data.as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect()
}

/// GS1 check: weights 1 and 3 alternating from the right, check digit included, sum to 0 mod 10.
fn gtin_is_valid(code: &str) -> bool {
    let digits: Vec<u32> = code.chars().filter_map(|c| c.to_digit(10)).collect();
    digits.len() == code.len()
        && [12, 13, 14].contains(&digits.len())
        && digits
            .iter()
            .rev()
            .enumerate()
            .map(|(i, d)| if i % 2 == 1 { d * 3 } else { *d })
            .sum::<u32>()
            % 10
            == 0
}

#[tokio::test]
async fn only_the_exact_bearer_key_is_accepted_and_every_answer_carries_the_quota() {
    let mock = mock();
    let url = format!("{}/v3/utils/brands", mock.base_url());
    let client = reqwest::Client::new();
    let attempts = [
        None,
        Some("Bearer KICKS-WRONG".to_owned()),
        Some(TEST_KEY.to_owned()),
        Some(format!("Bearer {TEST_KEY}")),
    ];
    let mut quotas = Vec::new();
    for (i, authorization) in attempts.iter().enumerate() {
        let mut request = client.get(&url);
        if let Some(value) = authorization {
            request = request.header("Authorization", value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.headers()["x-key-type"], "pro");
        quotas.push(
            response.headers()["x-quota-current"]
                .to_str()
                .unwrap()
                .to_owned(),
        );
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        if i < 3 {
            assert_eq!(status, StatusCode::UNAUTHORIZED, "attempt {i}");
            assert_eq!(
                body,
                json!({"title": "Unauthorized", "detail": "Invalid key"})
            );
        } else {
            assert_eq!(status, StatusCode::OK);
            assert!(body["data"].is_array());
        }
    }
    assert_eq!(quotas, ["1201", "1202", "1203", "1204"]);
    assert_eq!(mock.quota_current(), 1204);
    let seen = mock.seen();
    let authorized: Vec<bool> = seen.iter().map(|s| s.authorized).collect();
    assert_eq!(authorized, [false, false, false, true]);
    let statuses: Vec<u16> = seen.iter().map(|s| s.status).collect();
    assert_eq!(statuses, [401, 401, 401, 200]);
    assert!(
        seen.iter()
            .all(|s| s.method == "GET" && s.path == "/v3/utils/brands")
    );
}

#[tokio::test]
async fn search_pages_until_a_short_page_then_null() {
    let mock = mock();
    let mut all = Vec::new();
    let mut lengths = Vec::new();
    for page in 1..=4 {
        let page = page.to_string();
        let (status, body) = call_json(
            &mock,
            "/v3/stockx/products",
            &[("limit", "2"), ("page", &page)],
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        if body["data"].is_null() {
            lengths.push(0);
            continue;
        }
        assert_eq!(
            body["meta"],
            json!({"limit": 2, "page": page.parse::<i64>().unwrap()})
        );
        let page_ids = ids(&body["data"]);
        lengths.push(page_ids.len());
        all.extend(page_ids);
    }
    assert_eq!(lengths, [2, 2, 1, 0]);
    let mut distinct = all.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), PAIRS.len());
    // Default order is rank: the Panda Dunk (rank 1) first.
    assert_eq!(all[0], "045f21da-1563-43d8-9463-75dce47682e6");
    let query = "limit";
    assert!(mock.seen().iter().all(|s| s.query.contains(query)));
}

#[tokio::test]
async fn search_matches_words_sorts_and_shows_variants_only_when_asked() {
    let mock = mock();
    let (_, body) = call_json(&mock, "/v3/stockx/products", &[("query", "jordan CHICAGO")]).await;
    let titles: Vec<&str> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Jordan 1 Retro High OG Chicago (2015)",
            "Jordan 1 Retro High OG Chicago Lost and Found"
        ]
    );
    assert!(body["data"][0].get("variants").is_none());

    let (_, body) = call_json(
        &mock,
        "/v3/stockx/products",
        &[("query", "555088-101"), ("display[variants]", "true")],
    )
    .await;
    assert_eq!(ids(&body["data"]), [CHICAGO]);
    assert_eq!(body["data"][0]["variants"].as_array().unwrap().len(), 5);

    let (_, body) = call_json(&mock, "/v3/stockx/products", &[("sort", "release_date")]).await;
    assert_eq!(body["data"][0]["sku"], "DZ5485-612");

    let (status, body) = call_json(&mock, "/v3/stockx/products", &[("sort", "price")]).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["errors"][0]["location"], "query.sort");
    let (status, _) = call_json(&mock, "/v3/stockx/products", &[("page", "0")]).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn filters_find_a_product_by_sku_or_barcode() {
    let mock = mock();
    let search = |filters: &'static str| {
        let mock = &mock;
        async move {
            call_json(
                mock,
                "/v3/stockx/products",
                &[
                    ("filters", filters),
                    ("display[variants]", "true"),
                    ("display[identifiers]", "true"),
                ],
            )
            .await
        }
    };
    let (_, body) = search("sku = 'CU1110-010'").await;
    assert_eq!(body["data"].as_array().unwrap().len(), 1);
    assert_eq!(body["data"][0]["title"], "Jordan 4 Retro Black Cat (2020)");

    let (_, body) = search("barcodes IN ['4059467108909']").await;
    assert_eq!(body["data"].as_array().unwrap().len(), 1);
    let product = &body["data"][0];
    assert_eq!(product["sku"], "CP9654");
    let nine = &product["variants"][1];
    assert_eq!(nine["size"], "9");
    assert_eq!(
        nine["identifiers"],
        json!([{"identifier": "4059467108909", "identifier_type": "EAN-13"}])
    );

    let (_, body) = search("barcodes IN ['000000000000', \"190658121001\"]").await;
    assert_eq!(ids(&body["data"]), [CHICAGO]);
    let (_, body) = search("barcodes IN ['000000000000']").await;
    assert!(body["data"].is_null());
    let (_, body) = search("sku = '555088-101' AND brand = 'Nike'").await;
    assert!(body["data"].is_null());

    let (status, body) = search("colorway = 'Black'").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["status"], 400);
}

#[tokio::test]
async fn a_product_by_uuid_or_slug_with_prices_of_its_market() {
    let mock = mock();
    let full = [
        ("display[variants]", "true"),
        ("display[prices]", "true"),
        ("display[traits]", "true"),
        ("display[identifiers]", "true"),
    ];
    let path = format!("/v3/stockx/products/{CHICAGO}");
    let (status, us) = call_json(&mock, &path, &full).await;
    assert_eq!(status, StatusCode::OK);
    let (_, by_slug) =
        call_json(&mock, &format!("/v3/stockx/products/{CHICAGO_SLUG}"), &full).await;
    assert_eq!(us, by_slug);
    let product = &us["data"];
    assert_eq!(product["id"], CHICAGO);
    assert_eq!(product["sku"], "555088-101");
    assert!(product["rank"].is_i64() && product["weekly_orders"].is_i64());
    assert!(product["min_price"].is_i64() && product["avg_price"].is_f64());
    assert_eq!(product["upcoming"], false);
    assert_eq!(
        product["traits"],
        json!([
            {"trait": "Colorway", "value": "White/Black-Varsity Red"},
            {"trait": "Release Date", "value": "2015-05-30"},
            {"trait": "Retail Price", "value": "160"},
        ])
    );

    let mut fr_query = full.to_vec();
    fr_query.push(("market", "FR"));
    let (_, fr) = call_json(&mock, &path, &fr_query).await;
    let us_variants = product["variants"].as_array().unwrap();
    let fr_variants = fr["data"]["variants"].as_array().unwrap();
    assert_eq!(us_variants.len(), 5);
    for (us_v, fr_v) in us_variants.iter().zip(fr_variants) {
        assert_eq!(
            (us_v["currency"].as_str(), us_v["market"].as_str()),
            (Some("USD"), Some("US"))
        );
        assert_eq!(
            (fr_v["currency"].as_str(), fr_v["market"].as_str()),
            (Some("EUR"), Some("FR"))
        );
        assert_eq!(us_v["id"], fr_v["id"]);
        assert!(us_v["lowest_ask"].is_i64() && us_v["total_asks"].is_i64());
        let identifiers = us_v["identifiers"].as_array().unwrap();
        assert_eq!(identifiers[0]["identifier_type"], "UPC");
        assert!(gtin_is_valid(
            identifiers[0]["identifier"].as_str().unwrap()
        ));
        if us_v["total_asks"] == 0 {
            // Size 9.5 has no ask: 0, in every market, and no price rows.
            assert_eq!(
                (us_v["lowest_ask"].as_i64(), fr_v["lowest_ask"].as_i64()),
                (Some(0), Some(0))
            );
            assert_eq!(us_v["prices"], json!([]));
        } else {
            assert_ne!(us_v["lowest_ask"], fr_v["lowest_ask"]);
            assert_eq!(us_v["prices"][0]["price"], us_v["lowest_ask"]);
        }
    }
    assert_eq!(us_variants[1]["size"], "9");
    assert_eq!(us_variants[1]["lowest_ask"], 1725);

    let (_, bare) = call_json(&mock, &path, &[]).await;
    for absent in ["variants", "traits", "statistics"] {
        assert!(bare["data"].get(absent).is_none(), "{absent}");
    }
    let (_, no_ids) = call_json(&mock, &path, &[("display[variants]", "true")]).await;
    assert!(no_ids["data"]["variants"][0].get("identifiers").is_none());
    assert!(no_ids["data"]["variants"][0].get("prices").is_none());

    let (status, body) = call_json(&mock, "/v3/stockx/products/no-such-shoe", &[]).await;
    assert_eq!(
        (status, body["status"].as_i64()),
        (StatusCode::NOT_FOUND, Some(404))
    );
    let (status, _) = call_json(&mock, &path, &[("market", "XX")]).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn daily_sales_page_newest_first_through_430_days() {
    let mock = mock();
    let path = format!("/v3/stockx/products/{CHICAGO}/sales/daily");
    let (status, first) = call_json(&mock, &path, &[("limit", "364"), ("market", "US")]).await;
    assert_eq!(status, StatusCode::OK);
    let (_, second) = call_json(&mock, &path, &[("limit", "364"), ("page", "2")]).await;
    let (_, third) = call_json(&mock, &path, &[("limit", "364"), ("page", "3")]).await;
    let (_, whole) = call_json(&mock, &path, &[("limit", "1000")]).await;
    let first = first["data"].as_array().unwrap();
    let second = second["data"].as_array().unwrap();
    assert_eq!((first.len(), second.len()), (364, 66));
    assert!(third["data"].is_null());
    let joined: Vec<Value> = first.iter().chain(second).cloned().collect();
    assert_eq!(whole["data"].as_array().unwrap(), &joined);

    let mut day = chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
    let mut quiet_days = 0;
    for sale in &joined {
        assert_eq!(sale["product_id"], CHICAGO);
        assert_eq!(sale["date"], day.to_string());
        let orders = sale["orders"].as_i64().unwrap();
        let average = sale["avg_amount"].as_f64().unwrap();
        if orders == 0 {
            quiet_days += 1;
            assert!(average.abs() < f64::EPSILON);
        } else {
            assert!((1_000.0..2_500.0).contains(&average), "{average}");
        }
        day = day.pred_opt().unwrap();
    }
    assert!(quiet_days > 0 && quiet_days < 100, "{quiet_days}");

    let (_, again) = call_json(&mock, &path, &[("limit", "1000")]).await;
    assert_eq!(again, whole);
    let (_, germany) = call_json(&mock, &path, &[("limit", "7"), ("market", "DE")]).await;
    assert_ne!(germany["data"].as_array().unwrap(), &joined[..7]);
    let (status, body) = call_json(&mock, &path, &[("market", "FR")]).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["errors"][0]["location"], "query.market");
}

#[tokio::test]
async fn the_goat_real_time_product_has_the_interface_resale_a_shape() {
    let mock = mock();
    let (status, by_id) = call_json(&mock, "/v3/realtime/goat/products/361722", &[]).await;
    assert_eq!(status, StatusCode::OK);
    let (_, by_slug) = call_json(
        &mock,
        "/v3/realtime/goat/products/air-jordan-1-retro-high-og-chicago-2015-555088-101",
        &[],
    )
    .await;
    assert_eq!(by_id, by_slug);
    assert!(by_id["meta"]["execution_time"].is_i64());
    let product: solescope::model::ResaleAProduct =
        serde_json::from_value(by_id["data"].clone()).unwrap();
    assert_eq!((product.id, product.sku.as_str()), (361_722, "555088 101"));
    assert_eq!(product.size_range, [8.0, 9.0, 9.5, 10.0, 11.0]);
    // Size 9.5 has no ask, so it is not available; prices are US cents in whole dollars.
    let sizes: Vec<(f64, &str, i64)> = product
        .available_sizes_new
        .iter()
        .map(|s| {
            (
                s["size"].as_f64().unwrap(),
                s["presentation"].as_str().unwrap(),
                s["lowestPriceCents"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        sizes,
        [
            (8.0, "8", 156_900),
            (9.0, "9", 182_900),
            (10.0, "10", 179_100),
            (11.0, "11", 165_400)
        ]
    );
    assert_eq!(product.lowest_price_cents, 156_900);
    assert_eq!(
        product.localized_special_display_price_cents.currency,
        "USD"
    );

    let (status, _) = call_json(&mock, "/v3/realtime/goat/products/999", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn related_real_time_products_have_the_resale_b_shape_in_the_asked_currency() {
    let mock = mock();
    let path = format!("/v3/realtime/stockx/products/{CHICAGO_SLUG}/related");
    let (status, usd) = call_json(
        &mock,
        &path,
        &[("currency", "USD"), ("country", "US"), ("market", "US")],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, eur) = call_json(
        &mock,
        &path,
        &[("currency", "EUR"), ("country", "FR"), ("market", "FR")],
    )
    .await;
    let usd: Vec<solescope::model::ResaleBEdge> =
        serde_json::from_value(usd["data"].clone()).unwrap();
    let eur: Vec<solescope::model::ResaleBEdge> =
        serde_json::from_value(eur["data"].clone()).unwrap();
    assert_eq!(usd.len(), PAIRS.len() - 1);
    assert!(usd.iter().all(|edge| edge.node.id != CHICAGO));
    // Same brand first.
    assert_eq!(usd[0].node.brand, "Jordan");
    assert_eq!(usd[1].node.brand, "Jordan");
    for (dollars, euros) in usd.iter().zip(&eur) {
        assert_eq!(dollars.node.id, euros.node.id);
        let ratio =
            euros.node.market.state.lowest_ask.amount / dollars.node.market.state.lowest_ask.amount;
        assert!((ratio - 0.93).abs() < 0.01, "{ratio}");
    }
    let (status, _) = call_json(&mock, &path, &[("currency", "XYZ")]).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn brands_page_with_integer_counts() {
    let mock = mock();
    let mut lengths = Vec::new();
    for page in ["1", "2", "3", "4"] {
        let (_, body) =
            call_json(&mock, "/v3/utils/brands", &[("limit", "5"), ("page", page)]).await;
        lengths.push(body["data"].as_array().map_or(0, Vec::len));
        if let Some(first) = body["data"].get(0) {
            assert!(first["brand"].is_string() && first["count"].is_i64());
        }
    }
    assert_eq!(lengths, [5, 5, 2, 0]);
}

#[tokio::test]
async fn the_unauthorized_mode_refuses_even_the_right_key() {
    let mock = mock();
    mock.set_mode(Mode::Unauthorized);
    let (status, body) = call_json(&mock, "/v3/utils/brands", &[]).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["detail"], "Invalid key");
    assert!(mock.seen()[0].authorized);
}

#[tokio::test]
async fn plan_gates_answer_403_naming_the_plan() {
    let mock = MockKicksdb::start(MockConfig {
        plan_gates: vec![PlanGate::realtime_needs_pro(), PlanGate::sales_need_paid()],
        key_type: "free".to_owned(),
        ..MockConfig::default()
    });
    let (status, body) = call_json(&mock, "/v3/realtime/goat/products/361722", &[]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        (body["status"].as_i64(), body["title"].as_str()),
        (Some(403), Some("Forbidden"))
    );
    assert!(body["detail"].as_str().unwrap().contains("Pro plan"));
    let related = format!("/v3/realtime/stockx/products/{CHICAGO}/related");
    assert_eq!(
        call(&mock, &related, &[]).await.status(),
        StatusCode::FORBIDDEN
    );
    let sales = format!("/v3/stockx/products/{CHICAGO}/sales/daily");
    let (status, body) = call_json(&mock, &sales, &[]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(body["detail"].as_str().unwrap().contains("Starter plan"));
    let product = format!("/v3/stockx/products/{CHICAGO}");
    let response = call(&mock, &product, &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["x-key-type"], "free");

    mock.set_plan_gates(Vec::new());
    assert_eq!(call(&mock, &sales, &[]).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn rate_limited_and_server_error_modes() {
    let mock = mock();
    mock.set_mode(Mode::RateLimited {
        retry_after_secs: 7,
    });
    let response = call(&mock, "/v3/utils/brands", &[]).await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(response.headers()["retry-after"], "7");
    assert!(response.headers().contains_key("x-quota-current"));
    for code in [500, 502, 503] {
        mock.set_mode(Mode::ServerError(code));
        let (status, body) = call_json(&mock, "/v3/utils/brands", &[]).await;
        assert_eq!(status.as_u16(), code);
        assert_eq!(body["status"], code);
    }
}

#[tokio::test]
async fn the_slow_mode_answers_after_the_delay() {
    let mock = mock();
    mock.set_mode(Mode::Slow(Duration::from_millis(600)));
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_millis(150))
        .build()
        .unwrap();
    let error = impatient
        .get(format!("{}/v3/utils/brands", mock.base_url()))
        .bearer_auth(TEST_KEY)
        .send()
        .await
        .unwrap_err();
    assert!(error.is_timeout());
    let started = Instant::now();
    let (status, _) = call_json(&mock, "/v3/utils/brands", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(started.elapsed() >= Duration::from_millis(600));
}

#[tokio::test]
async fn the_huge_mode_streams_megabytes_with_and_without_a_length() {
    let mock = mock();
    for content_length in [true, false] {
        mock.set_mode(Mode::Huge {
            megabytes: 3,
            content_length,
        });
        let mut response = call(&mock, "/v3/utils/brands", &[]).await;
        assert_eq!(response.status(), StatusCode::OK);
        let expected = 3 << 20;
        assert_eq!(
            response.content_length(),
            content_length.then_some(expected)
        );
        let mut received = 0u64;
        let mut head = Vec::new();
        while let Some(chunk) = response.chunk().await.unwrap() {
            if head.len() < 9 {
                head.extend_from_slice(&chunk[..chunk.len().min(9)]);
            }
            received += chunk.len() as u64;
        }
        assert_eq!(received, expected);
        assert!(head.starts_with(br#"{"data":""#));
    }
}

#[tokio::test]
async fn malformed_html_and_wrong_type_modes() {
    let mock = mock();
    let product = format!("/v3/stockx/products/{CHICAGO}");
    let variants = [("display[variants]", "true")];

    mock.set_mode(Mode::MalformedJson);
    let response = call(&mock, &product, &variants).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/json");
    let bytes = response.bytes().await.unwrap();
    assert!(bytes.starts_with(b"{\"data\":"));
    assert!(serde_json::from_slice::<Value>(&bytes).is_err());

    mock.set_mode(Mode::Html { status: 502 });
    let response = call(&mock, &product, &variants).await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(
        response
            .text()
            .await
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );

    mock.set_mode(Mode::WrongType);
    let (status, body) = call_json(&mock, &product, &variants).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["data"]["variants"][0]["lowest_ask"], "1480");
    assert_eq!(body["data"]["min_price"], "1480");
    assert!(body["data"]["variants"][0]["total_asks"].is_i64());
    let (_, sales) = call_json(&mock, &format!("{product}/sales/daily"), &[]).await;
    assert!(sales["data"][0]["orders"].is_string());
    let (_, goat) = call_json(&mock, "/v3/realtime/goat/products/361722", &[]).await;
    assert!(goat["data"]["availableSizesNew"][0]["lowestPriceCents"].is_string());
}

#[tokio::test]
async fn modes_switch_per_endpoint_and_for_the_next_requests_only() {
    let mock = mock();
    mock.set_mode_for(&Endpoint::REALTIME, Mode::ServerError(503));
    let goat = "/v3/realtime/goat/products/361722";
    assert_eq!(
        call(&mock, goat, &[]).await.status(),
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_eq!(
        call(&mock, "/v3/stockx/products", &[]).await.status(),
        StatusCode::OK
    );
    mock.set_mode(Mode::Normal);
    assert_eq!(call(&mock, goat, &[]).await.status(), StatusCode::OK);

    mock.set_mode_next(2, Mode::ServerError(500));
    let statuses = [
        call(&mock, goat, &[]).await.status().as_u16(),
        call(&mock, "/v3/utils/brands", &[]).await.status().as_u16(),
        call(&mock, goat, &[]).await.status().as_u16(),
    ];
    assert_eq!(statuses, [500, 500, 200]);

    let counts = mock.counts();
    assert_eq!(counts.get(&Endpoint::RealtimeGoat), Some(&4));
    assert_eq!(counts.get(&Endpoint::Search), Some(&1));
    assert_eq!(counts.get(&Endpoint::Product), None);
    assert_eq!(mock.count(Endpoint::Brands), 1);
}

#[tokio::test]
async fn after_stop_the_port_refuses_connections() {
    let mock = mock();
    assert_eq!(
        call(&mock, "/v3/utils/brands", &[]).await.status(),
        StatusCode::OK
    );
    mock.stop();
    let error = reqwest::Client::new()
        .get(format!("{}/v3/utils/brands", mock.base_url()))
        .bearer_auth(TEST_KEY)
        .send()
        .await
        .unwrap_err();
    assert!(error.is_connect(), "{error:#}");
    assert_eq!(mock.seen().len(), 1);
    mock.stop();
}

fn seen_at(at: Instant) -> Seen {
    Seen {
        at,
        method: "GET".to_owned(),
        path: "/v3/realtime/goat/products/1".to_owned(),
        query: String::new(),
        endpoint: Some(Endpoint::RealtimeGoat),
        authorized: true,
        status: 200,
    }
}

#[test]
fn the_sliding_window_counts_the_busiest_minute() {
    let base = Instant::now();
    let minute = Duration::from_secs(60);
    // 60 calls a second apart, then one exactly a minute after the first: never 61 in a minute.
    let mut seen: Vec<Seen> = (0..60)
        .map(|s| seen_at(base + Duration::from_secs(s)))
        .collect();
    seen.push(seen_at(base + minute));
    assert_eq!(max_calls_in_window(&seen, minute), 60);
    // One more just before the minute is out: 61 in the window that starts at the first call.
    seen.push(seen_at(base + Duration::from_millis(59_500)));
    assert_eq!(max_calls_in_window(&seen, minute), 61);
    // A burst late in the run counts even though the average is low.
    let mut spread: Vec<Seen> = (0..10).map(|m| seen_at(base + minute * m)).collect();
    spread.extend((0..5).map(|i| seen_at(base + minute * 20 + Duration::from_millis(i))));
    assert_eq!(max_calls_in_window(&spread, minute), 5);
    assert_eq!(max_calls_in_window(&[], minute), 0);
}

#[tokio::test]
async fn the_real_time_limit_refuses_the_call_past_the_limit_and_counts_it() {
    let mock = MockKicksdb::start(MockConfig {
        realtime_limit_per_minute: Some(3),
        ..MockConfig::default()
    });
    let goat = "/v3/realtime/goat/products/361722";
    let related = format!("/v3/realtime/stockx/products/{CHICAGO}/related");
    for path in [goat, &related, goat] {
        assert_eq!(call(&mock, path, &[]).await.status(), StatusCode::OK);
    }
    let response = call(&mock, &related, &[]).await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=61).contains(&retry), "{retry}");
    assert_eq!(
        call(&mock, "/v3/stockx/products", &[]).await.status(),
        StatusCode::OK
    );
    assert_eq!(mock.max_realtime_calls_per_minute(), 4);
}

#[test]
fn the_data_has_valid_unique_barcodes_and_unique_ids() {
    let mut codes: Vec<&str> = PAIRS
        .iter()
        .flat_map(|p| p.sizes.iter().map(|s| s.gtin))
        .collect();
    assert!(codes.iter().all(|c| gtin_is_valid(c)), "{codes:?}");
    assert!(!gtin_is_valid("190658120807"));
    let count = codes.len();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), count);
    let mut ids: Vec<&str> = PAIRS
        .iter()
        .flat_map(|p| [p.id, p.slug, p.goat_slug])
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), PAIRS.len() * 3);
}

/// JSON type names as the research note writes them.
fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int",
        Value::Number(_) => "float",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[tokio::test]
async fn a_stockx_product_carries_every_field_of_the_research_note_with_its_type() {
    // `StockXProduct` and `StockXVariant` of ../shared/research/kicksdb-v3.md §3, required fields.
    const PRODUCT: &[(&str, &str)] = &[
        ("id", "string"),
        ("slug", "string"),
        ("title", "string"),
        ("primary_title", "string"),
        ("secondary_title", "string"),
        ("brand", "string"),
        ("model", "string"),
        ("gender", "string"),
        ("description", "string"),
        ("image", "string"),
        ("gallery", "array"),
        ("gallery_360", "array"),
        ("link", "string"),
        ("sku", "string"),
        ("product_type", "string"),
        ("category", "string"),
        ("secondary_category", "string"),
        ("categories", "array"),
        ("breadcrumbs", "array"),
        ("country_of_manufacture", "string"),
        ("rank", "int"),
        ("weekly_orders", "int"),
        ("min_price", "int"),
        ("max_price", "int"),
        ("avg_price", "float"),
        ("upcoming", "bool"),
        ("updated_at", "string"),
        ("created_at", "string"),
        ("short_description", "string"),
        ("traits", "array"),
        ("statistics", "object"),
        ("variants", "array"),
    ];
    const VARIANT: &[(&str, &str)] = &[
        ("id", "string"),
        ("size", "string"),
        ("size_type", "string"),
        ("sizes", "array"),
        ("position", "int"),
        ("hidden", "bool"),
        ("lowest_ask", "int"),
        ("total_asks", "int"),
        ("currency", "string"),
        ("market", "string"),
        ("sales_count_15_days", "int"),
        ("sales_count_30_days", "int"),
        ("sales_count_60_days", "int"),
        ("updated_at", "string"),
        ("identifiers", "array"),
        ("prices", "array"),
    ];
    const PRICE: &[(&str, &str)] = &[
        ("price", "int"),
        ("asks", "int"),
        ("beat_us_price", "int"),
        ("sell_faster", "int"),
        ("earn_more", "int"),
        ("type", "string"),
    ];
    let mock = mock();
    let every = ["variants", "prices", "traits", "identifiers", "statistics"]
        .map(|part| (format!("display[{part}]"), "true"));
    let query: Vec<(&str, &str)> = every.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let (_, body) = call_json(
        &mock,
        "/v3/stockx/products/air-jordan-4-retro-black-cat-2020",
        &query,
    )
    .await;
    let check = |object: &Value, fields: &[(&str, &str)], what: &str| {
        for (name, kind) in fields {
            assert_eq!(type_of(&object[name]), *kind, "{what}.{name}");
        }
    };
    let product = &body["data"];
    check(product, PRODUCT, "product");
    check(
        &product["breadcrumbs"][0],
        &[("alias", "string"), ("level", "int"), ("value", "string")],
        "breadcrumb",
    );
    check(
        &product["traits"][0],
        &[("trait", "string"), ("value", "string")],
        "trait",
    );
    assert!(type_of(&product["statistics"]["annual_sales_count"]) == "int");
    assert!(type_of(&product["statistics"]["annual_high"]) == "float");
    let variant = &product["variants"][0];
    check(variant, VARIANT, "variant");
    check(
        &variant["identifiers"][0],
        &[("identifier", "string"), ("identifier_type", "string")],
        "identifier",
    );
    check(&variant["prices"][0], PRICE, "price");
    // Daily sales and brands too (`ProductSale`, `{brand, count}`).
    let sales = format!(
        "/v3/stockx/products/{}/sales/daily",
        product["id"].as_str().unwrap()
    );
    let (_, body) = call_json(&mock, &sales, &[("limit", "1")]).await;
    check(
        &body["data"][0],
        &[
            ("product_id", "string"),
            ("date", "string"),
            ("orders", "int"),
            ("avg_amount", "float"),
        ],
        "sale",
    );
    let (_, body) = call_json(&mock, "/v3/utils/brands", &[("limit", "1")]).await;
    check(
        &body["data"][0],
        &[("brand", "string"), ("count", "int")],
        "brand",
    );
}

#[tokio::test]
async fn two_hundred_concurrent_real_time_calls_are_all_answered_and_logged() {
    let mock = mock();
    let client = reqwest::Client::new();
    let url = format!("{}/v3/realtime/goat/products/361722", mock.base_url());
    let calls = (0..200).map(|_| client.get(&url).bearer_auth(TEST_KEY).send());
    let responses = futures_util::future::join_all(calls).await;
    assert!(
        responses
            .iter()
            .all(|r| r.as_ref().unwrap().status() == StatusCode::OK)
    );
    assert_eq!(mock.count(Endpoint::RealtimeGoat), 200);
    assert_eq!(mock.max_realtime_calls_per_minute(), 200);
    assert!(mock.seen().iter().all(|s| s.status == 200 && s.authorized));
}

#[tokio::test]
async fn stop_does_not_wait_for_a_slow_answer() {
    let mock = mock();
    mock.set_mode(Mode::Slow(Duration::from_secs(30)));
    let request = reqwest::Client::new()
        .get(format!("{}/v3/utils/brands", mock.base_url()))
        .bearer_auth(TEST_KEY)
        .send();
    let pending = tokio::spawn(request);
    while mock.seen().is_empty() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let started = Instant::now();
    mock.stop();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let outcome = tokio::time::timeout(Duration::from_secs(5), pending)
        .await
        .unwrap()
        .unwrap();
    assert!(
        outcome.is_err(),
        "the slow request should fail when the mock stops"
    );
}
