//! The service over a real socket: every endpoint x tier x error case, with exact body shapes.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::OnceLock;

use reqwest::StatusCode;
use serde_json::Value;
use solescope::service::{ServerHandle, ServiceConfig};

const PRODUCTS: u32 = 400;

/// One catalogue for the whole file: generating is the slow part.
fn catalogue() -> PathBuf {
    static PATH: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = common::catalogue(dir.path(), "service.sqlite", PRODUCTS, 99);
        (dir, path)
    })
    .1
    .clone()
}

fn config() -> ServiceConfig {
    common::config(&catalogue())
}

async fn start(config: ServiceConfig) -> ServerHandle {
    common::start(config).await
}

struct Answer {
    status: StatusCode,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

async fn get(server: &ServerHandle, path: &str, key: Option<&str>) -> Answer {
    let mut request = reqwest::Client::new().get(format!("{}{path}", server.base_url()));
    if let Some(key) = key {
        request = request.header("Authorization", key);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("{path}: body is not JSON ({err}): {text:?}"));
    Answer {
        status,
        headers,
        body,
    }
}

fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .cloned()
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn assert_plain_error(answer: &Answer, status: StatusCode, code: &str) {
    assert_eq!(answer.status, status, "{}", answer.body);
    assert_eq!(
        keys(&answer.body),
        set(&["status", "error", "message"]),
        "{}",
        answer.body
    );
    assert_eq!(answer.body["status"], "error");
    assert_eq!(answer.body["error"], code);
    assert!(!answer.body["message"].as_str().unwrap().is_empty());
    assert_eq!(answer.header("content-type"), Some("application/json"));
}

fn assert_v2_error(answer: &Answer, status: StatusCode, code: &str) {
    assert_eq!(answer.status, status, "{}", answer.body);
    assert_eq!(
        keys(&answer.body),
        set(&["status", "error", "message", "query", "data", "meta"])
    );
    assert_eq!(answer.body["status"], "error");
    assert_eq!(answer.body["error"], code);
    assert!(answer.body["meta"].is_null());
    assert_eq!(answer.body["query"], serde_json::json!({}));
    assert!(!answer.body["message"].as_str().unwrap().is_empty());
}

async fn some_product(server: &ServerHandle) -> Value {
    let answer = get(server, "/search?query=jordan&limit=1", Some("demo-pro")).await;
    answer.body["hits"][0].clone()
}

#[tokio::test]
async fn keys_decide_access_and_every_answer_names_the_tier() {
    let server = start(config()).await;
    let missing = get(&server, "/search?query=dunk", None).await;
    assert_plain_error(&missing, StatusCode::UNAUTHORIZED, "unauthorized");
    assert!(missing.header("x-key-type").is_none());
    let unknown = get(&server, "/search?query=dunk", Some("demo-gold")).await;
    assert_plain_error(&unknown, StatusCode::UNAUTHORIZED, "unauthorized");
    let v2_missing = get(&server, "/api/v2/products/anything", None).await;
    assert_v2_error(&v2_missing, StatusCode::UNAUTHORIZED, "unauthorized");

    for (key, tier) in [
        ("demo-free", "free"),
        ("demo-pro", "pro"),
        ("demo-ultra", "ultra"),
    ] {
        let answer = get(&server, "/search?query=dunk", Some(key)).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.header("x-key-type"), Some(tier));
        let bearer = get(&server, "/stats", Some(&format!("Bearer {key}"))).await;
        assert_eq!(bearer.status, StatusCode::OK);
        assert_eq!(bearer.header("x-key-type"), Some(tier));
        // Refusals after auth still name the tier.
        let missing = get(&server, "/product/no-such-product-slug", Some(key)).await;
        assert_plain_error(&missing, StatusCode::NOT_FOUND, "not_found");
        assert_eq!(missing.header("x-key-type"), Some(tier));
    }
}

#[tokio::test]
async fn search_answers_in_the_spec_envelope() {
    let server = start(config()).await;
    let answer = get(&server, "/search?query=air%20jordan%201", Some("demo-pro")).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        keys(&answer.body),
        set(&[
            "hits",
            "estimatedTotalHits",
            "limit",
            "processingTimeMs",
            "query"
        ])
    );
    assert_eq!(answer.body["limit"], 20);
    assert_eq!(answer.body["query"], "air jordan 1");
    assert!(answer.body["processingTimeMs"].is_u64());
    let hits = answer.body["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 20);
    assert!(answer.body["estimatedTotalHits"].as_u64().unwrap() >= hits.len() as u64);
    let hit = &hits[0];
    assert!(
        hit["title"].as_str().unwrap().contains("Jordan 1"),
        "{}",
        hit["title"]
    );
    assert_eq!(hit["currency"], "USD");
    assert!(hit["retail_price"].is_string());
    let variant = &hit["variants"][0];
    assert!(variant.get("variant_link").is_some() && variant.get("link").is_none());
    for key in [
        "age_group",
        "availability",
        "avg_price",
        "base_price",
        "brand",
        "category",
        "color",
        "condition",
        "currency",
        "gender",
        "id",
        "image",
        "inserted_at",
        "retail_price",
        "release_date",
        "is_bundle",
        "labels",
        "link",
        "max_price",
        "min_price",
        "size_system",
        "sku",
        "slug",
        "title",
        "variants",
    ] {
        assert!(hit.get(key).is_some(), "hit lacks {key}");
    }

    // `q` is accepted too; limit and page shape the page.
    let answer = get(&server, "/search?q=dunk&limit=5&page=2", Some("demo-free")).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body["limit"], 5);
    assert!(answer.body["hits"].as_array().unwrap().len() <= 5);
}

#[tokio::test]
async fn search_filters_by_sku_and_gtin_exactly() {
    let server = start(config()).await;
    let product = some_product(&server).await;
    let sku = product["sku"].as_str().unwrap();
    let gtin = product["variants"][0]["gtin"].as_str().unwrap();
    let by_sku = get(&server, &format!("/search?sku={sku}"), Some("demo-free")).await;
    assert_eq!(by_sku.body["hits"][0]["id"], product["id"]);
    assert_eq!(by_sku.body["hits"].as_array().unwrap().len(), 1);
    let by_gtin = get(&server, &format!("/search?gtin={gtin}"), Some("demo-free")).await;
    assert_eq!(by_gtin.body["hits"].as_array().unwrap().len(), 1);
    assert_eq!(by_gtin.body["hits"][0]["id"], product["id"]);
    let none = get(&server, "/search?gtin=000000000000", Some("demo-free")).await;
    assert_eq!(none.status, StatusCode::OK);
    assert!(none.body["hits"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn search_refuses_bad_parameters_with_a_clear_400() {
    let server = start(config()).await;
    for path in [
        "/search?query=dunk&limit=101",
        "/search?query=dunk&limit=0",
        "/search?query=dunk&limit=ten",
        "/search?query=dunk&page=0",
        "/search?query=dunk&page=-3",
        "/search?query=dunk&page=99999999999999999999",
        "/search?query=dunk&page=",
        "/search?sku=x&limit=%20",
        "/search?query=dunk&country=DE",
    ] {
        let answer = get(&server, path, Some("demo-pro")).await;
        assert_plain_error(&answer, StatusCode::BAD_REQUEST, "bad_request");
    }
    let answer = get(&server, "/search?query=dunk&limit=101", Some("demo-pro")).await;
    assert!(answer.body["message"].as_str().unwrap().contains("limit"));
}

#[tokio::test]
async fn the_fr_dataset_needs_pro_and_is_priced_in_euros() {
    let server = start(config()).await;
    let free = get(&server, "/search?query=samba&country=FR", Some("demo-free")).await;
    assert_plain_error(&free, StatusCode::FORBIDDEN, "forbidden");
    assert!(free.body["message"].as_str().unwrap().contains("pro"));
    assert_eq!(free.header("x-required-tier"), Some("pro"));
    assert_eq!(free.header("x-key-type"), Some("free"));

    let us = get(&server, "/search?query=samba", Some("demo-pro")).await;
    let fr = get(
        &server,
        "/search?query=samba&country=FR",
        Some("demo-ultra"),
    )
    .await;
    assert_eq!(fr.status, StatusCode::OK);
    let us_hit = &us.body["hits"][0];
    let fr_hit = &fr.body["hits"][0];
    assert_eq!(us_hit["id"], fr_hit["id"], "same ranking");
    assert_eq!(fr_hit["currency"], "EUR");
    assert_ne!(us_hit["avg_price"], fr_hit["avg_price"]);
    let lowercase = get(&server, "/search?query=samba&country=fr", Some("demo-pro")).await;
    assert_eq!(lowercase.body["hits"][0]["currency"], "EUR");
}

#[tokio::test]
async fn product_by_uuid_or_slug_in_the_search_hit_shape() {
    let server = start(config()).await;
    let product = some_product(&server).await;
    let by_id = get(
        &server,
        &format!("/product/{}", product["id"].as_str().unwrap()),
        Some("demo-free"),
    )
    .await;
    let by_slug = get(
        &server,
        &format!("/product/{}", product["slug"].as_str().unwrap()),
        Some("demo-free"),
    )
    .await;
    assert_eq!(by_id.status, StatusCode::OK);
    assert_eq!(by_id.body, by_slug.body);
    assert_eq!(by_id.body["id"], product["id"]);
    assert!(by_id.body["variants"][0].get("variant_link").is_some());

    let long = "x".repeat(300);
    let answer = get(&server, &format!("/product/{long}"), Some("demo-free")).await;
    assert_plain_error(&answer, StatusCode::BAD_REQUEST, "bad_request");
    let answer = get(&server, "/product/%E2%9C%A8%F0%9F%91%9F", Some("demo-free")).await;
    assert_plain_error(&answer, StatusCode::NOT_FOUND, "not_found");
    let answer = get(&server, "/product/%FF%FE", Some("demo-free")).await;
    assert_plain_error(&answer, StatusCode::BAD_REQUEST, "bad_request");
}

#[tokio::test]
async fn stats_count_both_datasets() {
    let server = start(config()).await;
    let answer = get(&server, "/stats", Some("demo-free")).await;
    assert_eq!(answer.status, StatusCode::OK);
    let datasets = answer.body["datasets"].as_array().unwrap();
    assert_eq!(datasets.len(), 2);
    assert_eq!(datasets[0]["country"], "US");
    assert_eq!(datasets[1]["currency"], "EUR");
    assert_eq!(datasets[0]["products"], u64::from(PRODUCTS));
    assert!(!answer.body["built_at"].as_str().unwrap().is_empty());
}

#[tokio::test]
async fn v2_product_hides_release_dates_and_retail_prices_from_free_keys() {
    let server = start(config()).await;
    // A real release whose date and retail the releases table knows (any product would do for
    // the keys, but the pro view must show a date, and some real releases have none).
    let answer = get(
        &server,
        "/search?query=DZ5485-612&limit=1",
        Some("demo-pro"),
    )
    .await;
    let product = answer.body["hits"][0].clone();
    assert_eq!(product["sku"], "DZ5485-612");
    let slug = product["slug"].as_str().unwrap();
    let free = get(
        &server,
        &format!("/api/v2/products/{slug}"),
        Some("demo-free"),
    )
    .await;
    assert_eq!(free.status, StatusCode::OK);
    assert_eq!(
        keys(&free.body),
        set(&["status", "error", "message", "query", "data", "meta"])
    );
    assert_eq!(free.body["status"], "success");
    assert_eq!(free.body["error"], "");
    assert!(free.body["meta"].is_null());
    let base = [
        "id",
        "slug",
        "sku",
        "title",
        "brand",
        "category",
        "color",
        "gender",
        "description",
        "image",
        "images",
        "currency",
        "avg_price",
        "min_price",
        "max_price",
        "trending",
        "links",
        "variants",
    ];
    assert_eq!(keys(&free.body["data"]), set(&base));

    let id = product["id"].as_str().unwrap();
    let pro = get(&server, &format!("/api/v2/products/{id}"), Some("demo-pro")).await;
    let mut full = base.to_vec();
    full.extend(["release_dates", "retail_prices"]);
    assert_eq!(keys(&pro.body["data"]), set(&full));
    assert!(
        !pro.body["data"]["release_dates"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let variant = &pro.body["data"]["variants"][0];
    assert_eq!(
        keys(variant),
        set(&[
            "id",
            "product_id",
            "sku",
            "title",
            "description",
            "brand",
            "category",
            "color",
            "gender",
            "gtin",
            "size",
            "link",
            "image",
            "price",
            "currency",
            "tags",
            "metadata",
            "source"
        ])
    );
    assert_eq!(variant["product_id"], product["id"]);
    assert_eq!(keys(&variant["metadata"]), set(&["category", "model"]));

    let missing = get(
        &server,
        "/api/v2/products/00000000-0000-4000-8000-000000000000",
        Some("demo-pro"),
    )
    .await;
    assert_v2_error(&missing, StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn orders_are_pro_only_uuid_only_and_52_weeks_newest_first() {
    let server = start(config()).await;
    let product = some_product(&server).await;
    let id = product["id"].as_str().unwrap();
    let path = format!("/api/v2/products/{id}/orders");

    let free = get(&server, &path, Some("demo-free")).await;
    assert_v2_error(&free, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(free.header("x-required-tier"), Some("pro"));

    let pro = get(&server, &path, Some("demo-pro")).await;
    assert_eq!(pro.status, StatusCode::OK);
    let weeks = pro.body["data"].as_array().unwrap();
    assert_eq!(weeks.len(), 52);
    let mut previous: Option<chrono::DateTime<chrono::Utc>> = None;
    for week in weeks {
        assert_eq!(
            keys(week),
            set(&["position", "orders", "aov", "gmv", "inserted_at"])
        );
        let start: chrono::DateTime<chrono::Utc> =
            week["inserted_at"].as_str().unwrap().parse().unwrap();
        assert!(
            week["inserted_at"]
                .as_str()
                .unwrap()
                .ends_with("T00:00:00Z")
        );
        if let Some(previous) = previous {
            assert_eq!(
                previous - start,
                chrono::Duration::weeks(1),
                "one week apart, newest first"
            );
        }
        previous = Some(start);
        let orders = week["orders"].as_f64().unwrap();
        let aov = week["aov"].as_f64().unwrap();
        let gmv = week["gmv"].as_f64().unwrap();
        assert!(
            (orders * aov - gmv).abs() < 0.005,
            "gmv = orders x aov: {week}"
        );
        assert!(week["position"].as_u64().unwrap() >= 1);
    }

    let slug = product["slug"].as_str().unwrap();
    let by_slug = get(
        &server,
        &format!("/api/v2/products/{slug}/orders"),
        Some("demo-ultra"),
    )
    .await;
    assert_v2_error(&by_slug, StatusCode::BAD_REQUEST, "bad_request");
    assert!(by_slug.body["message"].as_str().unwrap().contains("UUID"));
    let unknown = get(
        &server,
        "/api/v2/products/00000000-0000-4000-8000-000000000000/orders",
        Some("demo-pro"),
    )
    .await;
    assert_v2_error(&unknown, StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn real_time_lookups_need_pro_and_report_the_budget() {
    let server = start(config()).await;
    let product = some_product(&server).await;
    let slug = product["slug"].as_str().unwrap();
    let id = product["id"].as_str().unwrap();

    let a_path = format!("/api/v3/realtime/resale-a/products/{slug}");
    let free = get(&server, &a_path, Some("demo-free")).await;
    assert_plain_error(&free, StatusCode::FORBIDDEN, "forbidden");
    assert!(
        free.header("x-ratelimit-remaining").is_none(),
        "refusals do not spend the budget"
    );

    let pro = get(&server, &a_path, Some("demo-pro")).await;
    assert_eq!(pro.status, StatusCode::OK, "{}", pro.body);
    assert_eq!(keys(&pro.body), set(&["status", "data", "meta"]));
    assert_eq!(pro.body["status"], "success");
    assert!(pro.body["meta"]["execution_time"].is_i64());
    assert!(pro.body["data"]["id"].is_i64());
    assert!(pro.body["data"]["lowestPriceCents"].is_i64());
    assert_eq!(pro.header("x-ratelimit-limit"), Some("120"));
    let remaining: u32 = pro
        .header("x-ratelimit-remaining")
        .unwrap()
        .parse()
        .unwrap();
    assert!(remaining < 120);
    let reset: u32 = pro.header("x-ratelimit-reset").unwrap().parse().unwrap();
    assert!((1..=60).contains(&reset));

    let numeric = pro.body["data"]["id"].as_i64().unwrap();
    let again = get(
        &server,
        &format!("/api/v3/realtime/resale-a/products/{numeric}"),
        Some("demo-pro"),
    )
    .await;
    assert_eq!(again.body["data"]["sku"], pro.body["data"]["sku"]);
    let next: u32 = again
        .header("x-ratelimit-remaining")
        .unwrap()
        .parse()
        .unwrap();
    assert!(next < remaining || reset <= 2, "the budget goes down");

    let related = get(
        &server,
        &format!(
            "/api/v3/realtime/resale-b/products/{id}/related?country=FR&currency=EUR&market=FR"
        ),
        Some("demo-ultra"),
    )
    .await;
    assert_eq!(related.status, StatusCode::OK, "{}", related.body);
    assert_eq!(
        keys(&related.body),
        set(&["status", "query", "data", "meta"])
    );
    let first = &related.body["data"][0];
    assert_eq!(keys(first), set(&["node"]));
    assert!(first["node"]["market"]["state"]["lowestAsk"]["amount"].is_number());
    let bad_currency = get(
        &server,
        &format!("/api/v3/realtime/resale-b/products/{id}/related?currency=XYZ"),
        Some("demo-pro"),
    )
    .await;
    assert_plain_error(&bad_currency, StatusCode::BAD_REQUEST, "bad_request");

    let retailer = get(
        &server,
        &format!("/api/v3/retailer-a/products/{slug}"),
        Some("demo-free"),
    )
    .await;
    assert_eq!(retailer.status, StatusCode::OK, "{}", retailer.body);
    assert_eq!(keys(&retailer.body), set(&["status", "data"]));
    assert!(
        retailer.body["data"]["id"]
            .as_str()
            .unwrap()
            .starts_with("gid://")
    );
    let unknown = get(
        &server,
        "/api/v3/retailer-a/products/no-such-shoe",
        Some("demo-free"),
    )
    .await;
    assert_plain_error(&unknown, StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn exactly_120_real_time_requests_per_key_per_minute() {
    // Stay clear of a minute boundary, where the window (aligned to the clock) resets.
    let second = chrono::Utc::now().timestamp() % 60;
    if second > 40 {
        tokio::time::sleep(std::time::Duration::from_secs((61 - second) as u64)).await;
    }
    let server = start(config()).await;
    let product = some_product(&server).await;
    let path = format!(
        "/api/v3/realtime/resale-a/products/{}",
        product["slug"].as_str().unwrap()
    );
    for i in 0..120 {
        let answer = get(&server, &path, Some("demo-pro")).await;
        assert_eq!(answer.status, StatusCode::OK, "request {}", i + 1);
        assert_eq!(
            answer.header("x-ratelimit-remaining"),
            Some((119 - i).to_string().as_str())
        );
    }
    let refused = get(&server, &path, Some("demo-pro")).await;
    assert_plain_error(&refused, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    let retry: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    assert_eq!(refused.header("x-ratelimit-remaining"), Some("0"));
    // The other real-time endpoint shares the budget; another key has its own.
    let related = get(
        &server,
        &format!(
            "/api/v3/realtime/resale-b/products/{}/related",
            product["id"].as_str().unwrap()
        ),
        Some("demo-pro"),
    )
    .await;
    assert_eq!(related.status, StatusCode::TOO_MANY_REQUESTS);
    let other = get(&server, &path, Some("demo-ultra")).await;
    assert_eq!(other.status, StatusCode::OK);
    assert_eq!(other.header("x-ratelimit-remaining"), Some("119"));
    // Non-real-time endpoints are not limited by it.
    assert_eq!(
        get(&server, "/search?query=dunk", Some("demo-pro"))
            .await
            .status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn upstream_failures_and_timeouts_are_502_and_504() {
    let mut failing = config();
    failing.simulator.failure_rate = 1.0;
    let server = start(failing).await;
    let product = some_product(&server).await;
    let path = format!(
        "/api/v3/realtime/resale-a/products/{}",
        product["slug"].as_str().unwrap()
    );
    let answer = get(&server, &path, Some("demo-pro")).await;
    assert_plain_error(&answer, StatusCode::BAD_GATEWAY, "upstream_failed");
    assert!(answer.header("x-ratelimit-remaining").is_some());

    let mut slow = config();
    slow.simulator.latency_ms = 5_000;
    slow.simulator.timeout_ms = 200;
    let server = start(slow).await;
    let started = std::time::Instant::now();
    let answer = get(&server, &path, Some("demo-pro")).await;
    assert_plain_error(&answer, StatusCode::GATEWAY_TIMEOUT, "upstream_timeout");
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
}

#[tokio::test]
async fn unknown_paths_methods_and_odd_bytes_get_json_errors() {
    let server = start(config()).await;
    let answer = get(&server, "/nope", Some("demo-free")).await;
    assert_plain_error(&answer, StatusCode::NOT_FOUND, "not_found");
    let answer = get(&server, "/api/v2/nope", Some("demo-free")).await;
    assert_v2_error(&answer, StatusCode::NOT_FOUND, "not_found");
    let answer = get(&server, "/search?query=%FF%FE", Some("demo-free")).await;
    assert!(answer.status == StatusCode::OK || answer.status == StatusCode::BAD_REQUEST);

    let response = reqwest::Client::new()
        .post(format!("{}/search", server.base_url()))
        .header("Authorization", "demo-free")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "error");
}

#[tokio::test]
async fn hostile_query_text_is_data_never_a_500() {
    let server = start(config()).await;
    let long = "a".repeat(10_000);
    for text in [
        "\"",
        "\"jordan",
        "*",
        "jor*",
        "-",
        "-dunk",
        "NEAR",
        "jordan NEAR dunk",
        "OR",
        "jordan OR dunk",
        "(",
        "((dunk)",
        ")",
        "AND",
        "NOT",
        "👟🔥",
        "^",
        ":",
        "title:jordan",
        "'",
        "%",
        "\\",
        "",
        "   ",
        &long,
    ] {
        let url = reqwest::Url::parse_with_params(
            &format!("{}/search", server.base_url()),
            [("query", text)],
        )
        .unwrap();
        let answer = reqwest::Client::new()
            .get(url)
            .header("Authorization", "demo-free")
            .send()
            .await
            .unwrap();
        let status = answer.status();
        let body: Value = answer.json().await.unwrap();
        assert!(
            status == StatusCode::OK || status == StatusCode::BAD_REQUEST,
            "{text:.20}: {status} {body}"
        );
        if status == StatusCode::OK {
            assert!(body["hits"].is_array());
        } else {
            assert_eq!(body["error"], "bad_request");
        }
    }
}

#[tokio::test]
async fn subscriptions_explain_the_tiers_without_a_key() {
    let server = start(config()).await;
    let list = get(&server, "/api/v2/subscriptions", None).await;
    assert_eq!(list.status, StatusCode::OK);
    let tiers: Vec<&str> = list.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["tier"].as_str().unwrap())
        .collect();
    assert_eq!(tiers, ["pro", "ultra"]);
    let free = get(&server, "/api/v2/subscriptions/free", Some("demo-free")).await;
    assert_eq!(free.header("x-key-type"), Some("free"));
    assert_eq!(
        free.body["data"]["product_fields_omitted"],
        serde_json::json!([
            "release_date",
            "retail_price",
            "release_dates",
            "retail_prices"
        ])
    );
    let pro = get(&server, "/api/v2/subscriptions/pro", None).await;
    assert_eq!(pro.body["data"]["realtime_requests_per_minute"], 120);
    let gold = get(&server, "/api/v2/subscriptions/gold", None).await;
    assert_v2_error(&gold, StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn openapi_document_lists_every_path() {
    let server = start(config()).await;
    let answer = get(&server, "/openapi.json", None).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.body["openapi"].as_str().unwrap().starts_with("3."));
    let paths = keys(&answer.body["paths"]);
    for path in [
        "/search",
        "/product/{id}",
        "/stats",
        "/api/v2/products/{id}",
        "/api/v2/products/{id}/orders",
        "/api/v3/realtime/resale-a/products/{id}",
        "/api/v3/realtime/resale-b/products/{id}/related",
        "/api/v3/retailer-a/products/{slug}",
        "/api/v2/subscriptions",
        "/api/v2/subscriptions/{tier}",
    ] {
        assert!(paths.contains(path), "openapi lacks {path}");
    }
}

#[tokio::test]
async fn repeated_searches_answer_the_same_hits_as_product_lookups() {
    let server = start(config()).await;
    let first = get(
        &server,
        "/search?query=dunk%20low&limit=10",
        Some("demo-pro"),
    )
    .await;
    let second = get(
        &server,
        "/search?query=dunk%20low&limit=10",
        Some("demo-pro"),
    )
    .await;
    assert_eq!(
        first.body["hits"], second.body["hits"],
        "cached hits equal fresh ones"
    );
    for hit in first.body["hits"].as_array().unwrap() {
        let id = hit["id"].as_str().unwrap();
        let product = get(&server, &format!("/product/{id}"), Some("demo-pro")).await;
        assert_eq!(&product.body, hit);
    }
    let fr = get(
        &server,
        "/search?query=dunk%20low&limit=10&country=FR",
        Some("demo-pro"),
    )
    .await;
    assert_eq!(fr.body["hits"][0]["id"], first.body["hits"][0]["id"]);
    assert_eq!(
        fr.body["hits"][0]["currency"], "EUR",
        "datasets are cached apart"
    );
}

/// Every object key anywhere in `value`.
fn all_keys(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                out.insert(key.clone());
                all_keys(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| all_keys(item, out)),
        _ => {}
    }
}

#[tokio::test]
async fn free_keys_get_no_release_date_or_retail_price_on_any_endpoint() {
    let server = start(config()).await;
    // The rule as the service publishes it.
    let free = get(&server, "/api/v2/subscriptions/free", None).await;
    let omitted: BTreeSet<String> = free.body["data"]["product_fields_omitted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|field| field.as_str().unwrap().to_owned())
        .collect();
    assert!(omitted.contains("release_date") && omitted.contains("retail_price"));

    let product = some_product(&server).await;
    let (id, slug) = (
        product["id"].as_str().unwrap(),
        product["slug"].as_str().unwrap(),
    );
    let endpoints = [
        "/search?query=jordan&limit=50".to_owned(),
        format!("/search?sku={}", product["sku"].as_str().unwrap()),
        format!("/product/{id}"),
        format!("/product/{slug}"),
        format!("/api/v2/products/{id}"),
        format!("/api/v2/products/{slug}"),
        format!("/api/v3/retailer-a/products/{slug}"),
    ];
    for path in &endpoints {
        let answer = get(&server, path, Some("demo-free")).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.body);
        let mut seen = BTreeSet::new();
        all_keys(&answer.body, &mut seen);
        let leaked: Vec<_> = seen.intersection(&omitted).collect();
        assert!(leaked.is_empty(), "{path} gave a free key {leaked:?}");
        // The same answer to a pro key carries them: the rule, not a missing column.
        let answer = get(&server, path, Some("demo-pro")).await;
        let mut seen = BTreeSet::new();
        all_keys(&answer.body, &mut seen);
        assert!(
            seen.intersection(&omitted).next().is_some(),
            "{path} gave a pro key none of {omitted:?}"
        );
    }
    // A free search answered after a pro one (or the other way round) is not served from the
    // other tier's cached hits.
    let pro = get(&server, "/search?query=dunk", Some("demo-pro")).await;
    let free = get(&server, "/search?query=dunk", Some("demo-free")).await;
    assert!(pro.body["hits"][0].get("retail_price").is_some());
    assert!(free.body["hits"][0].get("retail_price").is_none());
    assert_eq!(pro.body["hits"][0]["id"], free.body["hits"][0]["id"]);
}

#[tokio::test]
async fn openapi_document_states_the_bounds_and_statuses_the_service_enforces() {
    let server = start(config()).await;
    let document = get(&server, "/openapi.json", None).await.body;
    let parameter = |path: &str, name: &str| -> Value {
        document["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap_or_else(|| panic!("{path} has no parameters"))
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{path} has no {name}"))["schema"]
            .clone()
    };
    // The bounds the handlers enforce, and the refusal when they are crossed.
    assert_eq!(parameter("/search", "limit")["maximum"], 100);
    assert_eq!(parameter("/search", "limit")["minimum"], 1);
    assert_eq!(parameter("/search", "page")["maximum"], 1000);
    assert_eq!(parameter("/search", "query")["maxLength"], 1000);
    let id = parameter("/product/{id}", "id");
    assert_eq!(id["maxLength"], 200);
    assert!(id["pattern"].as_str().unwrap().contains("u001f"), "{id}");
    let long = get(
        &server,
        &format!("/search?query={}", "a%20".repeat(1001)),
        Some("demo-free"),
    )
    .await;
    assert_plain_error(&long, StatusCode::BAD_REQUEST, "bad_request");
    let gtin = get(
        &server,
        &format!("/search?gtin={}", "1".repeat(101)),
        Some("demo-free"),
    )
    .await;
    assert_plain_error(&gtin, StatusCode::BAD_REQUEST, "bad_request");
    assert_eq!(
        parameter("/api/v2/subscriptions/{tier}", "tier")["enum"],
        serde_json::json!(["free", "pro", "ultra"])
    );
    let upper = get(&server, "/api/v2/subscriptions/FREE", None).await;
    assert_v2_error(&upper, StatusCode::NOT_FOUND, "not_found");
    // Every status a request can meet is listed: the service's own limits on every path, the
    // tier refusal of `/product/{id}?country=FR`.
    for (path, item) in document["paths"].as_object().unwrap() {
        let responses = keys(&item["get"]["responses"]);
        for status in ["503", "504"] {
            assert!(responses.contains(status), "{path} lacks {status}");
        }
    }
    assert!(keys(&document["paths"]["/product/{id}"]["get"]["responses"]).contains("403"));
    let fr = get(
        &server,
        &format!(
            "/product/{}?country=FR",
            some_product(&server).await["slug"].as_str().unwrap()
        ),
        Some("demo-free"),
    )
    .await;
    assert_plain_error(&fr, StatusCode::FORBIDDEN, "forbidden");
}

#[tokio::test]
async fn the_service_sheds_requests_beyond_its_limit_and_times_out_slow_answers() {
    let mut config = config();
    // A slow marketplace (its own timeout out of the way), one request at a time, a short limit.
    config.simulator.latency_ms = 1_000;
    config.simulator.timeout_ms = 20_000;
    config.max_in_flight = 1;
    config.request_timeout = std::time::Duration::from_millis(300);
    let server = start(config).await;
    let slug = some_product(&server).await["slug"]
        .as_str()
        .unwrap()
        .to_owned();
    let base = server.base_url();
    let slow = tokio::spawn(async move {
        reqwest::Client::new()
            .get(format!("{base}/api/v3/retailer-a/products/{slug}"))
            .header("Authorization", "demo-free")
            .send()
            .await
            .unwrap()
    });
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let shed = get(&server, "/stats", Some("demo-free")).await;
    assert_plain_error(&shed, StatusCode::SERVICE_UNAVAILABLE, "unavailable");
    assert_eq!(shed.header("retry-after"), Some("1"));

    let slow = slow.await.unwrap();
    assert_eq!(slow.status(), StatusCode::GATEWAY_TIMEOUT);
    let body: Value = slow.json().await.unwrap();
    assert_eq!(body["error"], "timeout", "{body}");
    // The slot is free again.
    assert_eq!(
        get(&server, "/stats", Some("demo-free")).await.status,
        StatusCode::OK
    );
}
