//! `GET /api/v2/prices` and `GET /api/v2/budget`, two additions to the interface
//! (docs/interface.md, "Additions to the spec"): the lowest ask of every size of up to 50
//! products by style code in one request, and the live source's monthly budget of calls.
//!
//! The window prices its portfolio, its watchlist and its ask alerts through the first, so a
//! live source with a monthly quota (KicksDB) spends one batched call per 50 style codes; the
//! demo answers from its catalogue. Which source answers is the source's business
//! (`CatalogueSource::prices`); each product says where its prices come from and how old they
//! are.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Extension, Query, State};
use axum::http::HeaderMap;

use super::{Params, truncate};
use crate::model::budget::BudgetStatus;
use crate::model::prices::{MAX_PRICE_CODES, PricesAnswer};
use crate::model::tiers::country_feature;
use crate::model::{Country, V2Envelope};
use crate::service::ServiceState;
use crate::service::auth::Caller;
use crate::service::error::ApiError;
use crate::service::source::Sourced;

/// Longest style code, in characters as sent.
pub(crate) const MAX_CODE_CHARS: usize = 100;

/// The style codes of a request: every `sku` (1 to [`MAX_PRICE_CODES`]), each 1 to
/// [`MAX_CODE_CHARS`] characters with no control characters, trimmed.
fn codes(params: &Params) -> Result<Vec<String>, ApiError> {
    let codes: Vec<&str> = params
        .0
        .iter()
        .filter(|(name, _)| name == "sku")
        .map(|(_, value)| value.as_str())
        .collect();
    if codes.is_empty() {
        return Err(ApiError::BadRequest(
            "give at least one style code as sku=...".into(),
        ));
    }
    if codes.len() > MAX_PRICE_CODES {
        return Err(ApiError::BadRequest(format!(
            "{} style codes were given; at most {MAX_PRICE_CODES} are priced per request",
            codes.len()
        )));
    }
    codes
        .into_iter()
        .map(|code| {
            let trimmed = code.trim();
            if trimmed.is_empty() {
                Err(ApiError::BadRequest("a style code (sku) is empty".into()))
            } else if code.chars().count() > MAX_CODE_CHARS {
                Err(ApiError::BadRequest(format!(
                    "the style code {:?} is longer than {MAX_CODE_CHARS} characters",
                    truncate(code, 40)
                )))
            } else if code.chars().any(char::is_control) {
                Err(ApiError::BadRequest(
                    "a style code (sku) contains control characters".into(),
                ))
            } else {
                Ok(trimmed.to_owned())
            }
        })
        .collect()
}

/// `GET /api/v2/prices`: per size, the lowest ask and the asks open, of up to 50 products.
#[utoipa::path(get, path = "/api/v2/prices", tag = "v2",
    params(
        ("sku" = Vec<String>, Query, description = "Style codes (dash, space and case ignored), repeated: 1 to 50"),
        ("market" = Option<String>, Query, description = "`FR` (pro or ultra) or empty for US"),
    ),
    responses((status = 200, body = V2Envelope<PricesAnswer>, description = "Each product names its source and the time of its prices; codes nobody priced are in `missing`"),
        (status = 400, body = V2Envelope<serde_json::Value>), (status = 401, body = V2Envelope<serde_json::Value>),
        (status = 403, body = V2Envelope<serde_json::Value>, description = "FR needs pro"),
        (status = 429, body = V2Envelope<serde_json::Value>, description = "A live source's own limit or its monthly budget, with Retry-After"),
        (status = 502, body = V2Envelope<serde_json::Value>, description = "A live source failed or refused its key or plan, and held no prices"),
        (status = 504, body = V2Envelope<serde_json::Value>, description = "A live source did not answer in time")),
    security(("api_key" = [])))]
pub(crate) async fn prices(
    State(state): State<Arc<ServiceState>>,
    Extension(caller): Extension<Caller>,
    Query(params): Query<Params>,
) -> Result<(HeaderMap, Json<V2Envelope<PricesAnswer>>), ApiError> {
    let market = params.get("market").unwrap_or("");
    let country = Country::parse(market).map_err(|_| {
        ApiError::BadRequest(format!(
            "market must be FR or empty (US), not {:?}",
            truncate(market, 20)
        ))
    })?;
    caller.require(country_feature(country))?;
    let codes = codes(&params)?;
    let Sourced { value, origin } = state.catalogue.prices(&codes, country).await?;
    Ok((origin.headers(), Json(V2Envelope::success(value))))
}

/// `GET /api/v2/budget`: the live source's monthly budget of calls (`data` is null for a
/// source that has none, such as the demo).
#[utoipa::path(get, path = "/api/v2/budget", tag = "v2",
    responses((status = 200, body = V2Envelope<Option<BudgetStatus>>, description = "`data` null: the source has no monthly budget"),
        (status = 401, body = V2Envelope<serde_json::Value>),
        (status = 502, body = V2Envelope<serde_json::Value>, description = "The month's count could not be read")),
    security(("api_key" = [])))]
pub(crate) async fn budget(
    State(state): State<Arc<ServiceState>>,
) -> Result<Json<V2Envelope<Option<BudgetStatus>>>, ApiError> {
    let status = match state.catalogue.budget().await {
        None => None,
        Some(Ok(status)) => Some(status),
        Some(Err(message)) => return Err(ApiError::UpstreamFailed(message)),
    };
    Ok(Json(V2Envelope::success(status)))
}
