//! `/api/v2/products/{id}` and `/api/v2/products/{id}/orders`, in the v2 envelope.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Extension, Path, State};

use axum::http::HeaderMap;

use super::{checked_id, truncate};
use crate::model::{Feature, Product, V2Envelope, WeeklyOrder};
use crate::service::ServiceState;
use crate::service::auth::Caller;
use crate::service::error::ApiError;
use crate::service::source::Sourced;

/// `GET /api/v2/products/{id}`: UUID or slug; free keys get no release dates or retail prices.
#[utoipa::path(get, path = "/api/v2/products/{id}", tag = "v2",
    params(("id" = String, Path, description = "Product UUID or slug")),
    responses((status = 200, body = V2Envelope<Product>, description = "Free keys get no release_dates or retail_prices"),
        (status = 400, body = V2Envelope<serde_json::Value>), (status = 401, body = V2Envelope<serde_json::Value>),
        (status = 404, body = V2Envelope<serde_json::Value>),
        (status = 429, body = V2Envelope<serde_json::Value>, description = "A live source's own limit (KicksDB), with Retry-After"),
        (status = 502, body = V2Envelope<serde_json::Value>, description = "A live source failed or refused its key or plan"),
        (status = 504, body = V2Envelope<serde_json::Value>, description = "A live source did not answer in time")),
    security(("api_key" = [])))]
pub(crate) async fn product(
    State(state): State<Arc<ServiceState>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<(HeaderMap, Json<V2Envelope<Product>>), ApiError> {
    let id = checked_id("product id", &id)?.to_owned();
    let full = caller.tier.allows(Feature::ReleaseAndRetail);
    let Sourced {
        value: product,
        origin,
    } = state.catalogue.product(&id, full).await?;
    Ok((origin.headers(), Json(V2Envelope::success(product))))
}

/// `GET /api/v2/products/{id}/orders`: pro; UUID only; newest week first, at most 52.
#[utoipa::path(get, path = "/api/v2/products/{id}/orders", tag = "v2",
    params(("id" = String, Path, description = "Product UUID (a slug is refused with 400)")),
    responses((status = 200, body = V2Envelope<Vec<WeeklyOrder>>, description = "At most 52 weeks, newest first"),
        (status = 400, body = V2Envelope<serde_json::Value>), (status = 401, body = V2Envelope<serde_json::Value>),
        (status = 403, body = V2Envelope<serde_json::Value>, description = "Needs pro"),
        (status = 404, body = V2Envelope<serde_json::Value>),
        (status = 429, body = V2Envelope<serde_json::Value>, description = "A live source's own limit (KicksDB), with Retry-After"),
        (status = 502, body = V2Envelope<serde_json::Value>, description = "A live source failed or refused its key or plan"),
        (status = 504, body = V2Envelope<serde_json::Value>, description = "A live source did not answer in time")),
    security(("api_key" = [])))]
pub(crate) async fn orders(
    State(state): State<Arc<ServiceState>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<(HeaderMap, Json<V2Envelope<Vec<WeeklyOrder>>>), ApiError> {
    caller.require(Feature::WeeklyOrders)?;
    let id = checked_id("product id", &id)?;
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(ApiError::BadRequest(format!(
            "orders take the product's UUID, not a slug or other text ({:?}); look the product up by slug at /api/v2/products/{{slug}} to get its id",
            truncate(id, 80)
        )));
    }
    let Sourced {
        value: orders,
        origin,
    } = state.catalogue.orders(id).await?;
    Ok((origin.headers(), Json(V2Envelope::success(orders))))
}
