//! The mock KicksDB's routes: query parameters, the `filters` subset it understands, and one
//! handler per endpoint answering `{data, meta}` from [`super::data`], or an ErrorModel.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router, middleware};
use serde_json::{Value, json};

use super::Shared;
use super::data::{self, BRANDS, Display, Pair, pair_by_goat_key};

/// The mock's router, every request passing `super::gate` first.
pub(super) fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v3/stockx/products", get(search))
        .route("/v3/stockx/products/{id}", get(product))
        .route("/v3/stockx/products/{id}/sales/daily", get(daily_sales))
        .route("/v3/goat/products", get(goat_search))
        .route("/v3/realtime/goat/products/{id}", get(goat_product))
        .route(
            "/v3/realtime/stockx/products/{id}/related",
            get(related_products),
        )
        .route("/v3/utils/brands", get(brands))
        .route("/v3/stockx/prices", post(prices))
        .route("/v3/snkrs/products", get(snkrs))
        .fallback(|| async { Refusal::new(StatusCode::NOT_FOUND, "No such path") })
        .layer(middleware::from_fn_with_state(
            Arc::clone(&shared),
            super::gate,
        ))
        .with_state(shared)
}

/// An error answer in the RFC 7807-style ErrorModel of the note (§3, "Errors"), sent as
/// `application/problem+json`.
pub(super) struct Refusal {
    status: StatusCode,
    detail: String,
    errors: Vec<Value>,
}

impl Refusal {
    /// `status` with `detail`.
    pub(super) fn new(status: StatusCode, detail: &str) -> Self {
        Self {
            status,
            detail: detail.to_owned(),
            errors: Vec::new(),
        }
    }

    /// A 422 naming the bad query parameter in the ErrorModel's `errors` list.
    fn bad_param(name: &str, value: &str, message: &str) -> Self {
        Self {
            errors: vec![
                json!({"location": format!("query.{name}"), "message": message, "value": value}),
            ],
            ..Self::new(StatusCode::UNPROCESSABLE_ENTITY, "validation failed")
        }
    }

    fn not_found(id: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, &format!("product {id} not found"))
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut body = json!({
            "type": "about:blank",
            "title": self.status.canonical_reason().unwrap_or("Error"),
            "status": self.status.as_u16(),
            "detail": self.detail,
        });
        if !self.errors.is_empty() {
            body["errors"] = Value::Array(self.errors);
        }
        (
            self.status,
            [(header::CONTENT_TYPE, "application/problem+json")],
            body.to_string(),
        )
            .into_response()
    }
}

/// Query parameters as given (the last of repeated names wins).
type Params = Query<HashMap<String, String>>;

/// A positive integer parameter, or `default` when absent.
fn positive(
    params: &HashMap<String, String>,
    name: &str,
    default: usize,
) -> Result<usize, Refusal> {
    match params.get(name) {
        None => Ok(default),
        Some(text) => text
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| Refusal::bad_param(name, text, "expected an integer of at least 1")),
    }
}

/// A `true`/`false` parameter, false when absent.
fn flag(params: &HashMap<String, String>, name: &str) -> Result<bool, Refusal> {
    match params.get(name).map(String::as_str) {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(other) => Err(Refusal::bad_param(name, other, "expected a boolean")),
    }
}

fn display(params: &HashMap<String, String>) -> Result<Display, Refusal> {
    Ok(Display {
        variants: flag(params, "display[variants]")?,
        prices: flag(params, "display[prices]")?,
        traits: flag(params, "display[traits]")?,
        identifiers: flag(params, "display[identifiers]")?,
        statistics: flag(params, "display[statistics]")?,
    })
}

/// The `market` parameter, US when absent; one of the note's list M.
fn market(params: &HashMap<String, String>) -> Result<String, Refusal> {
    let market = params.get("market").map_or("US", String::as_str);
    data::currency_of_market(market)
        .map(|_| market.to_owned())
        .ok_or_else(|| Refusal::bad_param("market", market, "unknown market"))
}

/// One clause of `filters` the mock understands.
enum Filter {
    Equals(String, String),
    BarcodesIn(Vec<String>),
    Upcoming(bool),
}

fn unquote(text: &str) -> String {
    text.trim().trim_matches(['\'', '"']).to_owned()
}

/// Parses `sku = 'X'`, `slug = 'x'`, `brand = 'X'` and `barcodes IN ['A', 'B']` (Meilisearch
/// syntax, as in the note's examples), joined by `AND`; anything else is a 400.
fn parse_filters(text: &str) -> Result<Vec<Filter>, Refusal> {
    let unsupported = || {
        Refusal::new(
            StatusCode::BAD_REQUEST,
            &format!(
                "invalid filter (the mock knows sku/slug/brand = '...' and barcodes IN [...]): \
                 {text}"
            ),
        )
    };
    let clause = |clause: &str| {
        if let Some((field, list)) = clause.split_once(" IN ") {
            let inner = list
                .trim()
                .strip_prefix('[')
                .and_then(|l| l.strip_suffix(']'))
                .filter(|_| field.trim() == "barcodes")
                .ok_or_else(unsupported)?;
            return Ok(Filter::BarcodesIn(inner.split(',').map(unquote).collect()));
        }
        match clause.split_once('=') {
            Some((field, value)) if field.trim() == "upcoming" => match value.trim() {
                "true" => Ok(Filter::Upcoming(true)),
                "false" => Ok(Filter::Upcoming(false)),
                _ => Err(unsupported()),
            },
            Some((field, value)) if ["sku", "slug", "brand"].contains(&field.trim()) => {
                Ok(Filter::Equals(field.trim().to_owned(), unquote(value)))
            }
            _ => Err(unsupported()),
        }
    };
    text.split(" AND ").map(clause).collect()
}

fn passes(pair: &Pair, filter: &Filter, today: &str) -> bool {
    match filter {
        Filter::Upcoming(upcoming) => (pair.release_date > today) == *upcoming,
        Filter::Equals(field, value) => match field.as_str() {
            "sku" => pair.sku == value,
            "slug" => pair.slug == value,
            _ => pair.brand == value,
        },
        Filter::BarcodesIn(codes) => pair.sizes.iter().any(|s| codes.iter().any(|c| c == s.gtin)),
    }
}

/// Every word of `query` (case-insensitive) appears in the pair's searchable text.
fn matches_query(pair: &Pair, query: &str) -> bool {
    let text = format!(
        "{} {} {} {} {} {}",
        pair.title, pair.brand, pair.model, pair.sku, pair.slug, pair.colorway
    )
    .to_lowercase();
    query
        .to_lowercase()
        .split_whitespace()
        .all(|word| text.contains(word))
}

/// Page `page` (from 1) of `items`, in the envelope with the `{limit, page}` meta seen in use;
/// `data` is `null` when the page is empty (note §3: list `data` may be null).
fn page_answer(items: impl Iterator<Item = Value>, page: usize, limit: usize) -> Response {
    let items: Vec<Value> = items
        .skip((page - 1).saturating_mul(limit))
        .take(limit)
        .collect();
    let data = if items.is_empty() {
        Value::Null
    } else {
        Value::Array(items)
    };
    Json(json!({"data": data, "meta": {"limit": limit, "page": page}})).into_response()
}

async fn search(
    State(shared): State<Arc<Shared>>,
    Query(params): Params,
) -> Result<Response, Refusal> {
    let page = positive(&params, "page", 1)?;
    let limit = positive(&params, "limit", 20)?;
    let market = market(&params)?;
    let display = display(&params)?;
    let filters = match params.get("filters") {
        Some(text) if !text.trim().is_empty() => parse_filters(text)?,
        _ => Vec::new(),
    };
    let query = params.get("query").map_or("", String::as_str);
    let today = shared.config.today.format("%Y-%m-%d").to_string();
    let mut pairs: Vec<&Pair> = shared
        .pairs()
        .into_iter()
        .filter(|p| matches_query(p, query) && filters.iter().all(|f| passes(p, f, &today)))
        .collect();
    match params.get("sort").map(String::as_str) {
        None | Some("rank") => pairs.sort_by_key(|p| p.rank),
        Some("release_date") => pairs.sort_by(|a, b| b.release_date.cmp(a.release_date)),
        Some(other) => {
            return Err(Refusal::bad_param(
                "sort",
                other,
                "expected rank or release_date",
            ));
        }
    }
    let products = pairs
        .into_iter()
        .map(|p| data::stockx_product(p, &market, display, shared.config.today));
    Ok(page_answer(products, page, limit))
}

async fn product(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(params): Params,
) -> Result<Response, Refusal> {
    let market = market(&params)?;
    let display = display(&params)?;
    let pair = shared
        .pair_by_stockx_key(&id)
        .ok_or_else(|| Refusal::not_found(&id))?;
    let product = data::stockx_product(pair, &market, display, shared.config.today);
    Ok(Json(json!({"data": product, "meta": {}})).into_response())
}

async fn daily_sales(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(params): Params,
) -> Result<Response, Refusal> {
    let page = positive(&params, "page", 1)?;
    let limit = positive(&params, "limit", 30)?;
    let market = params.get("market").map_or("US", String::as_str);
    if !["US", "DE"].contains(&market) {
        let message = "daily sales exist for US and DE only";
        return Err(Refusal::bad_param("market", market, message));
    }
    let pair = shared
        .pair_by_stockx_key(&id)
        .ok_or_else(|| Refusal::not_found(&id))?;
    let days = data::daily_sales(pair, market, shared.config.today);
    Ok(page_answer(days, page, limit))
}

/// `GET /v3/goat/products?sku=&query=&page=&limit=` (free): GOAT's cached catalogue, the fields
/// of `GoatProduct` the live source reads (`id` a number, `slug`, `sku`, `name`).
async fn goat_search(
    State(shared): State<Arc<Shared>>,
    Query(params): Params,
) -> Result<Response, Refusal> {
    let page = positive(&params, "page", 1)?;
    let limit = positive(&params, "limit", 20)?;
    let sku = params.get("sku").map(|s| s.trim().to_ascii_uppercase());
    let query = params.get("query").map(|q| q.to_lowercase());
    let found = shared
        .pairs()
        .into_iter()
        .filter(|pair| {
            sku.as_deref()
                .is_none_or(|s| pair.sku.eq_ignore_ascii_case(s))
        })
        .filter(|pair| query.as_deref().is_none_or(|q| matches_query(pair, q)))
        .map(|pair| {
            json!({
                "id": pair.goat_id as f64,
                "slug": pair.goat_slug,
                "sku": pair.sku,
                "name": pair.title,
                "brand": pair.brand,
            })
        });
    Ok(page_answer(found, page, limit))
}

async fn goat_product(Path(id): Path<String>) -> Result<Response, Refusal> {
    let pair = pair_by_goat_key(&id).ok_or_else(|| Refusal::not_found(&id))?;
    let body = json!({"data": data::goat_product(pair), "meta": {"execution_time": 1_840}});
    Ok(Json(body).into_response())
}

async fn related_products(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(params): Params,
) -> Result<Response, Refusal> {
    let currency = params.get("currency").map_or("USD", String::as_str);
    let rate = data::rate_of_currency(currency)
        .ok_or_else(|| Refusal::bad_param("currency", currency, "unknown currency"))?;
    if params.contains_key("market") {
        market(&params)?;
    }
    let pair = shared
        .pair_by_stockx_key(&id)
        .ok_or_else(|| Refusal::not_found(&id))?;
    let body = json!({"data": data::related_nodes(pair, rate), "meta": {"execution_time": 2_310}});
    Ok(Json(body).into_response())
}

async fn brands(Query(params): Params) -> Result<Response, Refusal> {
    let page = positive(&params, "page", 1)?;
    let limit = positive(&params, "limit", 20)?;
    let brands = BRANDS
        .iter()
        .map(|(brand, count)| json!({"brand": brand, "count": count}));
    Ok(page_answer(brands, page, limit))
}

/// A 422 naming a bad field of a JSON body, in the ErrorModel's `errors` list.
fn bad_body(location: &str, message: &str) -> Refusal {
    Refusal {
        errors: vec![json!({"location": format!("body.{location}"), "message": message})],
        ..Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, "validation failed")
    }
}

/// `POST /v3/stockx/prices` (paid): body `market` (required; the note's list M), `show_sizes`
/// (required), `skus[]` and/or `product_ids[]` (at least one code, at most 50 in each); answers
/// `StockXPriceOutput[]` for the codes it knows, in the order asked, and leaves the others out
/// (the note does not say what an unknown code gives: the mock chooses to omit it).
async fn prices(
    State(shared): State<Arc<Shared>>,
    body: axum::body::Bytes,
) -> Result<Response, Refusal> {
    let body: Value = serde_json::from_slice(&body)
        .map_err(|err| bad_body("", &format!("the body is not JSON: {err}")))?;
    let market = body
        .get("market")
        .and_then(Value::as_str)
        .ok_or_else(|| bad_body("market", "required"))?;
    if data::currency_of_market(market).is_none() {
        return Err(bad_body("market", "unknown market"));
    }
    let show_sizes = body
        .get("show_sizes")
        .and_then(Value::as_bool)
        .ok_or_else(|| bad_body("show_sizes", "required, a boolean"))?;
    let list = |name: &str| -> Result<Vec<String>, Refusal> {
        match body.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) if items.len() <= 50 => items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| bad_body(name, "expected strings"))
                })
                .collect(),
            Some(Value::Array(_)) => Err(bad_body(name, "at most 50 items")),
            Some(_) => Err(bad_body(name, "expected an array")),
        }
    };
    let skus = list("skus")?;
    let ids = list("product_ids")?;
    if skus.is_empty() && ids.is_empty() {
        return Err(bad_body("skus", "at least one sku or product id"));
    }
    let found: Vec<Value> = skus
        .iter()
        .filter_map(|sku| shared.pair_by_sku(sku))
        .chain(ids.iter().filter_map(|id| shared.pair_by_stockx_key(id)))
        .map(|pair| data::price_output(pair, market, show_sizes, |size| shared.ask_usd(pair, size)))
        .collect();
    let data = if found.is_empty() {
        Value::Null
    } else {
        Value::Array(found)
    };
    Ok(Json(json!({"data": data, "meta": {}})).into_response())
}

/// `GET /v3/snkrs/products?query=&filters=&sort=id:asc|id:desc` (paid): the launches of
/// `data::snkrs_products` when the mock serves coming releases, else none (`data: null`). The
/// note lists no paging for it: one answer.
async fn snkrs(
    State(shared): State<Arc<Shared>>,
    Query(params): Params,
) -> Result<Response, Refusal> {
    if let Some(sort) = params.get("sort")
        && !["id:asc", "id:desc"].contains(&sort.as_str())
    {
        return Err(Refusal::bad_param(
            "sort",
            sort,
            "expected id:asc or id:desc",
        ));
    }
    let launches = if shared.config.coming_releases {
        data::snkrs_products(shared.config.today)
    } else {
        Vec::new()
    };
    let data = if launches.is_empty() {
        Value::Null
    } else {
        Value::Array(launches)
    };
    Ok(Json(json!({"data": data, "meta": {}})).into_response())
}
