//! The real-time endpoints (`/api/v3/...`): live lookups on the marketplaces behind
//! [`Marketplaces`](crate::service::marketplace::Marketplaces), with the per-key budget.

use std::sync::Arc;
use std::time::Instant;

use axum::Json;
use axum::extract::{Extension, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{Params, checked_id};
use crate::model::{
    ErrorBody, ExecutionMeta, Feature, ResaleAEnvelope, ResaleBEdge, ResaleBEnvelope,
    RetailerEnvelope,
};
use crate::service::ServiceState;
use crate::service::auth::{Caller, strip_omitted_fields};
use crate::service::error::ApiError;
use crate::service::limits::Budget;
use crate::service::marketplace::{RelatedQuery, UpstreamError};
use crate::service::origin::Sourced;

impl From<UpstreamError> for ApiError {
    fn from(err: UpstreamError) -> Self {
        match err {
            UpstreamError::NotFound(message) => ApiError::NotFound(message),
            UpstreamError::BadRequest(message) => ApiError::BadRequest(message),
            UpstreamError::Failed(message) => ApiError::UpstreamFailed(message),
            UpstreamError::Timeout(message) => ApiError::UpstreamTimeout(message),
            UpstreamError::Internal(message) => {
                tracing::error!("marketplace: {message}");
                ApiError::Internal
            }
            UpstreamError::RateLimited {
                message,
                retry_after_secs,
            } => ApiError::UpstreamRateLimited {
                message,
                retry_after_secs,
            },
            UpstreamError::KeyRefused(message) => ApiError::UpstreamKeyRefused(message),
            UpstreamError::PlanRefused(message) => ApiError::UpstreamPlan(message),
            UpstreamError::NotReady {
                message,
                retry_after_secs,
            } => ApiError::Unavailable {
                message,
                retry_after_secs,
            },
        }
    }
}

fn set_budget_headers(response: &mut Response, budget: Budget) {
    let headers = response.headers_mut();
    headers.insert("x-ratelimit-limit", HeaderValue::from(budget.limit));
    headers.insert("x-ratelimit-remaining", HeaderValue::from(budget.remaining));
    headers.insert("x-ratelimit-reset", HeaderValue::from(budget.reset_secs));
}

/// Pro or better, then one request from the key's budget; the budget is reported on every answer.
pub(crate) async fn budget(
    State(state): State<Arc<ServiceState>>,
    Extension(caller): Extension<Caller>,
    request: Request,
    next: Next,
) -> Response {
    if let Err(err) = caller.require(Feature::Realtime) {
        return err.into_response();
    }
    let counted = match &state.shared {
        Some(shared) => {
            shared
                .count_realtime(&caller.key_id, state.realtime_per_minute, 60)
                .await
        }
        None => Ok(state.realtime_budget.check(&caller.key_id)),
    };
    let counted = match counted {
        Ok(counted) => counted,
        Err(err) => return err.into_response(),
    };
    match counted {
        Ok(budget) => {
            let mut response = next.run(request).await;
            set_budget_headers(&mut response, budget);
            response
        }
        Err(budget) => {
            let mut response = ApiError::RateLimited {
                limit: budget.limit,
                retry_after_secs: budget.reset_secs,
            }
            .into_response();
            set_budget_headers(&mut response, budget);
            response
        }
    }
}

/// Milliseconds since `started`, for `meta.execution_time`.
fn elapsed_ms(started: Instant) -> i64 {
    started.elapsed().as_millis() as i64
}

/// `GET /api/v3/realtime/resale-a/products/{id}`: numeric id or slug (pro).
#[utoipa::path(get, path = "/api/v3/realtime/resale-a/products/{id}", tag = "real-time",
    params(("id" = String, Path, description = "Numeric id or slug on resale-a (catalogue UUID and slug work too)")),
    responses((status = 200, body = ResaleAEnvelope), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "Needs pro"), (status = 404, body = ErrorBody),
        (status = 429, body = ErrorBody, description = "120 per minute per key, with Retry-After"),
        (status = 502, body = ErrorBody), (status = 504, body = ErrorBody)),
    security(("api_key" = [])))]
pub(crate) async fn resale_a_product(
    State(state): State<Arc<ServiceState>>,
    Path(id): Path<String>,
) -> Result<(HeaderMap, Json<ResaleAEnvelope>), ApiError> {
    let started = Instant::now();
    let id = checked_id("product id", &id)?;
    let Sourced {
        value: data,
        origin,
    } = state.marketplaces.resale_a_product(id).await?;
    Ok((
        origin.headers(),
        Json(ResaleAEnvelope {
            status: "success".to_owned(),
            data,
            meta: ExecutionMeta {
                execution_time: elapsed_ms(started),
            },
        }),
    ))
}

/// `GET /api/v3/realtime/resale-b/products/{id}/related?country=&currency=&market=` (pro).
#[utoipa::path(get, path = "/api/v3/realtime/resale-b/products/{id}/related", tag = "real-time",
    params(("id" = String, Path, description = "UUID or slug (or resale-b urlKey)"),
        ("country" = Option<String>, Query, description = "Country for market data (default US)"),
        ("currency" = Option<String>, Query, description = "Currency of market data (default USD)"),
        ("market" = Option<String>, Query, description = "Market for market data")),
    responses((status = 200, body = ResaleBEnvelope), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "Needs pro"), (status = 404, body = ErrorBody),
        (status = 429, body = ErrorBody), (status = 502, body = ErrorBody), (status = 504, body = ErrorBody)),
    security(("api_key" = [])))]
pub(crate) async fn resale_b_related(
    State(state): State<Arc<ServiceState>>,
    Path(id): Path<String>,
    Query(params): Query<Params>,
) -> Result<(HeaderMap, Json<ResaleBEnvelope>), ApiError> {
    let started = Instant::now();
    let id = checked_id("product id", &id)?;
    let query = RelatedQuery {
        country: params.get("country").map(str::to_owned),
        currency: params.get("currency").map(str::to_owned),
        market: params.get("market").map(str::to_owned),
    };
    let Sourced {
        value: nodes,
        origin,
    } = state.marketplaces.resale_b_related(id, &query).await?;
    Ok((
        origin.headers(),
        Json(ResaleBEnvelope {
            status: "success".to_owned(),
            query: serde_json::Map::new(),
            data: nodes.into_iter().map(|node| ResaleBEdge { node }).collect(),
            meta: ExecutionMeta {
                execution_time: elapsed_ms(started),
            },
        }),
    ))
}

/// Longest `store` parameter accepted (a store's origin or host).
const MAX_STORE_CHARS: usize = 300;

/// `GET /api/v3/retailer-a/products/{slug}?store=` (free; slugs only): from the storefronts the
/// service reads (in turn, or the one `store` names), else from its one retailer.
#[utoipa::path(get, path = "/api/v3/retailer-a/products/{slug}", tag = "real-time",
    params(("slug" = String, Path, description = "Product slug: with retail storefronts configured, the product's handle in the stores (a catalogue UUID stands for its catalogue slug)"),
        ("store" = Option<String>, Query, max_length = 300, description = "Read only this store: one of the storefronts the service is configured with (`serve --retailer-store`), named by its host (`kith.com`, `127.0.0.1:8081`) or its origin. Any other value is answered 404 (no such store here): the service never fetches an address a request names. Without it, the configured stores are read in turn and the first that has the handle answers")),
    responses((status = 200, body = RetailerEnvelope), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No product by that handle, or no configured store by that name"), (status = 502, body = ErrorBody, description = "The store failed or refused: password-protected, refuses automated reading, asked to slow down (429/503), redirected elsewhere, or is paused after repeated failures"), (status = 504, body = ErrorBody)),
    security(("api_key" = [])))]
pub(crate) async fn retailer_product(
    State(state): State<Arc<ServiceState>>,
    Extension(caller): Extension<Caller>,
    Path(slug): Path<String>,
    Query(params): Query<Params>,
) -> Result<(HeaderMap, Json<serde_json::Value>), ApiError> {
    let slug = checked_id("slug", &slug)?;
    let store = params.text("store", MAX_STORE_CHARS)?;
    let Sourced {
        value: data,
        origin,
    } = state.marketplaces.retailer_product(slug, store).await?;
    let mut body = serde_json::to_value(RetailerEnvelope {
        status: "success".to_owned(),
        data,
    })
    .map_err(|err| {
        tracing::error!("serializing a retailer product: {err:#}");
        ApiError::Internal
    })?;
    strip_omitted_fields(&mut body, caller.tier);
    let headers = origin.headers();
    Ok((headers, Json(body)))
}
