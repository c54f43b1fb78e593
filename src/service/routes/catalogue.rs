//! `/search`, `/product/{id}` and `/stats`: the search dataset, US by default, FR for pro keys.

use std::sync::Arc;
use std::time::Instant;

use axum::Json;
use axum::extract::{Extension, Path, Query, State};
use axum::response::IntoResponse as _;

use super::{Params, checked_id, truncate};
use crate::model::tiers::country_feature;
use crate::model::{Country, ErrorBody, SearchHit, SearchResponse, Stats};
use crate::service::ServiceState;
use crate::service::auth::{Caller, strip_omitted_fields};
use crate::service::error::ApiError;
use crate::service::source::{SearchArgs, Sourced};
use axum::http::HeaderMap;

/// Default hits per page (the spec's shown response).
pub(crate) const DEFAULT_LIMIT: u32 = 20;
/// Largest page.
pub(crate) const MAX_LIMIT: u32 = 100;
/// Highest page number: deep paging of a relevance ranking is never useful, and a bound keeps
/// `page x limit` from meaning a scan of the whole catalogue.
pub(crate) const MAX_PAGE: u32 = 1000;
/// Longest `gtin` or `sku` filter, in characters.
pub(crate) const MAX_FILTER_CHARS: usize = 100;
/// Longest `query`, in characters as sent (the search counts it again after trimming).
pub(crate) const MAX_QUERY_CHARS: usize = crate::search::MAX_QUERY_CHARS;
/// The `country` values accepted (any case, white space around ignored), as a JSON Schema
/// pattern.
pub(crate) const COUNTRY_PATTERN: &str = "^ *([Uu][Ss]|[Ff][Rr])? *$";

/// The start of a search page's JSON, before its hits: the page is written into one buffer,
/// head, hits (from the service's hit store) and [`end_search_page`], instead of the hits
/// copied into it after (some 80 KB a page).
const SEARCH_PAGE_HEAD: &[u8] = b"{\"hits\":";

/// Ends the [`SearchResponse`] JSON after its hits: the same JSON, field for field and in the
/// same order, as serializing the struct.
fn end_search_page(
    body: &mut Vec<u8>,
    estimated_total_hits: u64,
    limit: u32,
    processing_time_ms: u64,
    query: &str,
) {
    body.extend_from_slice(
        format!(
            ",\"estimatedTotalHits\":{estimated_total_hits},\"limit\":{limit},\"processingTimeMs\":{processing_time_ms},\"query\":"
        )
        .as_bytes(),
    );
    // Writing a `&str` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *body, query);
    body.push(b'}');
}

/// The dataset asked for, checked against the caller's tier.
fn country(params: &Params, caller: &Caller) -> Result<Country, ApiError> {
    let country = Country::parse(params.get("country").unwrap_or("")).map_err(|_| {
        ApiError::BadRequest(format!(
            "country must be FR or empty (US), not {:?}",
            truncate(params.get("country").unwrap_or(""), 20)
        ))
    })?;
    caller.require(country_feature(country))?;
    Ok(country)
}

/// The products `in_stock_at=` names a store to have in stock (in `size=` when given), as
/// keys of the source's index; `None` without `in_stock_at`.
fn in_stock_at(
    state: &ServiceState,
    params: &Params,
) -> Result<Option<std::sync::Arc<[i64]>>, ApiError> {
    // Any length is taken: a name no store has is a 404, a size no store writes matches none.
    let Some(name) = params.get("in_stock_at") else {
        return Ok(None);
    };
    let size = params.get("size");
    state.store_stock(name, size).map(|pks| Some(pks.into()))
}

/// `GET /search`.
#[utoipa::path(get, path = "/search", tag = "catalogue",
    params(
        ("query" = Option<String>, Query, description = "Search text, at most 1000 characters"),
        ("q" = Option<String>, Query, description = "The same as `query` (used when `query` is absent)"),
        ("page" = Option<u32>, Query, description = "Page, 1-based (max 1000)"),
        ("limit" = Option<u32>, Query, description = "Hits per page, 1 to 100, default 20"),
        ("gtin" = Option<String>, Query, description = "Exact GTIN filter"),
        ("sku" = Option<String>, Query, description = "Exact style-code filter (dash and case ignored)"),
        ("country" = Option<String>, Query, description = "`FR` (pro or ultra) or empty for US"),
        ("in_stock_at" = Option<String>, Query, description = "Only what this store (a configured one, by its address or host) has in stock, as its catalogue was last read (an addition to the interface)"),
        ("size" = Option<String>, Query, description = "With `in_stock_at`: in stock in this US size (`9`, `9.5`)"),
    ),
    responses((status = 200, body = SearchResponse), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "`in_stock_at` names no store this service reads, or it keeps no store catalogue"),
        (status = 429, body = ErrorBody, description = "A live source's own limit (KicksDB), with Retry-After"),
        (status = 502, body = ErrorBody, description = "A live source failed or refused its key or plan"),
        (status = 503, body = ErrorBody, description = "`in_stock_at`: the store's catalogue is not read yet (Retry-After), or the service is busy"),
        (status = 504, body = ErrorBody, description = "A live source did not answer in time")),
    security(("api_key" = [])))]
pub(crate) async fn search(
    State(state): State<Arc<ServiceState>>,
    Extension(caller): Extension<Caller>,
    Query(params): Query<Params>,
    headers: HeaderMap,
) -> Result<axum::response::Response, ApiError> {
    let started = Instant::now();
    let country = country(&params, &caller)?;
    let limit = params.number("limit", DEFAULT_LIMIT, MAX_LIMIT)?;
    let page = params.number("page", 1, MAX_PAGE)?;
    let text = params
        .text("query", MAX_QUERY_CHARS)?
        .or(params.text("q", MAX_QUERY_CHARS)?)
        .unwrap_or("")
        .to_owned();
    let args = SearchArgs {
        text,
        sku: params.text("sku", MAX_FILTER_CHARS)?.map(str::to_owned),
        gtin: params.text("gtin", MAX_FILTER_CHARS)?.map(str::to_owned),
        page,
        limit,
        country,
        tier: caller.tier,
        cached_only: only_if_cached(&headers),
        only: in_stock_at(&state, &params)?,
    };
    // About 3.7 KB per hit with a dozen variants, and the page's head and end.
    let mut body = Vec::with_capacity(limit as usize * 4096 + args.text.len() + 128);
    body.extend_from_slice(SEARCH_PAGE_HEAD);
    let Sourced { value, origin } = state.catalogue.search(&args, &mut body).await?;
    let estimated_total_hits = value.estimated_total_hits;
    end_search_page(
        &mut body,
        estimated_total_hits,
        limit,
        started.elapsed().as_millis() as u64,
        &args.text,
    );
    let mut response = (
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response();
    response.headers_mut().extend(origin.headers());
    Ok(response)
}

/// Whether the request asks for held answers only (`Cache-Control: only-if-cached`, RFC 9111):
/// search as you type.
fn only_if_cached(headers: &HeaderMap) -> bool {
    headers
        .get_all(axum::http::header::CACHE_CONTROL)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|directive| directive.trim().eq_ignore_ascii_case("only-if-cached"))
}

/// `GET /product/{id}`: UUID or slug, in the search-hit shape.
#[utoipa::path(get, path = "/product/{id}", tag = "catalogue",
    params(("id" = String, Path, description = "Product UUID or slug"),
        ("country" = Option<String>, Query, description = "`FR` (pro or ultra) or empty for US")),
    responses((status = 200, body = SearchHit, description = "Free keys get no release_date or retail_price"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "FR needs pro"), (status = 404, body = ErrorBody),
        (status = 429, body = ErrorBody, description = "A live source's own limit (KicksDB), with Retry-After"),
        (status = 502, body = ErrorBody, description = "A live source failed or refused its key or plan"),
        (status = 504, body = ErrorBody, description = "A live source did not answer in time")),
    security(("api_key" = [])))]
pub(crate) async fn product(
    State(state): State<Arc<ServiceState>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    Query(params): Query<Params>,
) -> Result<(HeaderMap, Json<serde_json::Value>), ApiError> {
    let id = checked_id("product id", &id)?.to_owned();
    let country = country(&params, &caller)?;
    let Sourced { value: hit, origin } = state.catalogue.product_hit(&id, country).await?;
    let mut body = serde_json::to_value(hit).map_err(|err| {
        tracing::error!("serializing a product: {err:#}");
        ApiError::Internal
    })?;
    strip_omitted_fields(&mut body, caller.tier);
    Ok((origin.headers(), Json(body)))
}

/// `GET /stats`.
#[utoipa::path(get, path = "/stats", tag = "catalogue",
    responses((status = 200, body = Stats), (status = 401, body = ErrorBody),
        (status = 429, body = ErrorBody, description = "A live source's own limit (KicksDB), with Retry-After"),
        (status = 502, body = ErrorBody, description = "A live source failed or refused its key or plan"),
        (status = 504, body = ErrorBody, description = "A live source did not answer in time")),
    security(("api_key" = [])))]
pub(crate) async fn stats(
    State(state): State<Arc<ServiceState>>,
) -> Result<(HeaderMap, Json<Stats>), ApiError> {
    let Sourced { value, origin } = state.catalogue.stats().await?;
    Ok((origin.headers(), Json(value)))
}
