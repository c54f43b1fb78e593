//! `GET /api/v2/releases`, an addition to the interface: the release calendar (module
//! `service::releases`), coming drops in date order, one entry per pair, each with its
//! mechanics where known and its premium estimate. Release dates and retail prices are what
//! the pro tier gets (`Feature::ReleaseAndRetail`), so the calendar needs pro.

use std::sync::Arc;

use axum::extract::{Extension, Query, State};
use axum::http::header;
use axum::response::IntoResponse;

use super::{Params, truncate};
use crate::model::releases::{
    DEFAULT_RELEASE_DAYS, DEFAULT_RELEASE_LIMIT, MAX_RELEASE_DAYS, MAX_RELEASE_LIMIT,
    ReleasesAnswer,
};
use crate::model::{Feature, V2Envelope};
use crate::service::ServiceState;
use crate::service::auth::Caller;
use crate::service::error::ApiError;
use crate::service::releases::ReleasesQuery;

/// Longest brand or size text, in characters as sent.
pub(crate) const MAX_FILTER_CHARS: usize = 100;

/// Pages a request may ask for at most.
pub(crate) const MAX_RELEASE_PAGE: u32 = 1000;

/// The first day of the window: `YYYY-MM-DD` (any day chrono reads, year 0000 to 9999), or
/// today when absent.
fn from_day(params: &Params) -> Result<Option<chrono::NaiveDate>, ApiError> {
    let Some(text) = params.raw("from") else {
        return Ok(None);
    };
    let text = text.trim();
    let bad = || {
        ApiError::BadRequest(format!(
            "from must be a day written YYYY-MM-DD, not {:?}",
            truncate(text, 40)
        ))
    };
    if text.len() != 10 {
        return Err(bad());
    }
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map(Some)
        .map_err(|_| bad())
}

/// `GET /api/v2/releases`: coming drops in date order.
#[utoipa::path(get, path = "/api/v2/releases", tag = "v2",
    params(
        ("days" = Option<u32>, Query, description = "Days the window covers, from `from` (1 to 366; default 30)"),
        ("from" = Option<String>, Query, description = "The window's first day, YYYY-MM-DD (default today, UTC)"),
        ("brand" = Option<String>, Query, description = "Only this brand (any case)"),
        ("size" = Option<String>, Query, description = "Only pairs listing this US size (`10.5`)"),
        ("page" = Option<u32>, Query, description = "1-based page (default 1)"),
        ("limit" = Option<u32>, Query, description = "Entries per page (1 to 500; default 100)"),
    ),
    responses((status = 200, body = V2Envelope<ReleasesAnswer>, description = "`data.releases` in date order (then time, then title), one entry per pair across the catalogue, KicksDB's coming StockX products, SNKRS launches and the stores read; `total` counts the window's entries on every page; `sources` says what each source gave and how old it is"),
        (status = 400, body = V2Envelope<serde_json::Value>), (status = 401, body = V2Envelope<serde_json::Value>),
        (status = 403, body = V2Envelope<serde_json::Value>, description = "Needs pro (release dates and retail prices)")),
    security(("api_key" = [])))]
pub(crate) async fn releases(
    State(state): State<Arc<ServiceState>>,
    Extension(caller): Extension<Caller>,
    Query(params): Query<Params>,
) -> Result<impl IntoResponse, ApiError> {
    caller.require(Feature::ReleaseAndRetail)?;
    let query = ReleasesQuery {
        from: from_day(&params)?,
        days: params.number("days", DEFAULT_RELEASE_DAYS, MAX_RELEASE_DAYS)?,
        page: params.number("page", 1, MAX_RELEASE_PAGE)?,
        limit: params.number("limit", DEFAULT_RELEASE_LIMIT, MAX_RELEASE_LIMIT)?,
        brand: params.text("brand", MAX_FILTER_CHARS)?.map(str::to_owned),
        size: params.text("size", MAX_FILTER_CHARS)?.map(str::to_owned),
    };
    let body = state.calendar.answer_json(&state, &query).await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body))
}
