//! The routes, one module per resource, and the small input checks they share.

pub(crate) mod catalogue;
pub(crate) mod flips;
pub(crate) mod images;
pub(crate) mod prices;
pub(crate) mod realtime;
pub(crate) mod releases;
pub(crate) mod sources;
pub(crate) mod subscriptions;
pub(crate) mod v2;

use std::sync::Arc;

use axum::Router;
use axum::routing::get;

use super::ServiceState;
use super::error::ApiError;

/// Longest id or slug accepted in a path.
pub(crate) const MAX_ID_CHARS: usize = 200;

/// The ids and slugs [`checked_id`] accepts, as a JSON Schema pattern for the OpenAPI document:
/// no control characters (`char::is_control`), and at least one character that is not white
/// space (Unicode `White_Space`, which `str::trim` removes). Written out instead of `\s` so the
/// JavaScript and Python regex engines of API tools read it as Rust does.
pub(crate) const ID_PATTERN: &str = concat!(
    "^[^\\u0000-\\u001f\\u007f-\\u009f]*",
    "[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]",
    "[^\\u0000-\\u001f\\u007f-\\u009f]*$"
);

pub(super) fn router(state: Arc<ServiceState>) -> Router {
    let realtime = Router::new()
        .route(
            "/api/v3/realtime/resale-a/products/{id}",
            get(realtime::resale_a_product),
        )
        .route(
            "/api/v3/realtime/resale-b/products/{id}/related",
            get(realtime::resale_b_related),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            realtime::budget,
        ));
    Router::new()
        .route("/search", get(catalogue::search))
        .route("/product/{id}", get(catalogue::product))
        .route("/stats", get(catalogue::stats))
        .route("/api/v2/products/{id}", get(v2::product))
        .route("/api/v2/products/{id}/orders", get(v2::orders))
        .route("/api/v2/sources", get(sources::sources))
        .route("/api/v2/prices", get(prices::prices))
        .route("/api/v2/budget", get(prices::budget))
        .route("/api/v2/flips", get(flips::flips))
        .route("/api/v2/releases", get(releases::releases))
        .route("/api/v2/subscriptions", get(subscriptions::list))
        .route("/api/v2/subscriptions/{tier}", get(subscriptions::one))
        .route(
            "/api/v3/retailer-a/products/{slug}",
            get(realtime::retailer_product),
        )
        .route("/images/products/{file}", images::route())
        .merge(realtime)
        .with_state(state)
}

/// Query parameters in order, as sent (repeated names keep their first value).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(transparent)]
pub(crate) struct Params(Vec<(String, String)>);

impl Params {
    /// The first value of `name` as sent; `None` when absent.
    pub(crate) fn raw(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The first value of `name`, trimmed; `None` when absent or empty.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.raw(name)
            .map(str::trim)
            .filter(|value| !value.is_empty())
    }

    /// An optional text parameter of at most `max_chars` characters as sent (before trimming).
    pub(crate) fn text(&self, name: &str, max_chars: usize) -> Result<Option<&str>, ApiError> {
        let raw_chars = self.raw(name).map_or(0, |value| value.chars().count());
        if raw_chars > max_chars {
            return Err(ApiError::BadRequest(format!(
                "{name} has {raw_chars} characters; at most {max_chars} are allowed"
            )));
        }
        Ok(self.get(name))
    }

    /// An optional positive integer parameter, bounded: `default` when absent; sent empty
    /// (`page=`) it is no number, and refused as any other.
    pub(crate) fn number(&self, name: &str, default: u32, max: u32) -> Result<u32, ApiError> {
        let Some(text) = self.raw(name).map(str::trim) else {
            return Ok(default);
        };
        match text.parse::<u32>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(ApiError::BadRequest(format!(
                "{name} must be a whole number from 1 to {max}, not {:?}",
                truncate(text, 40)
            ))),
        }
    }
}

/// An id or slug from a path, checked ([`ID_PATTERN`]): not blank, at most [`MAX_ID_CHARS`]
/// characters as sent, no control characters. Returned trimmed.
pub(crate) fn checked_id<'a>(what: &str, raw: &'a str) -> Result<&'a str, ApiError> {
    let id = raw.trim();
    if id.is_empty() {
        return Err(ApiError::BadRequest(format!("the {what} is empty")));
    }
    if raw.chars().count() > MAX_ID_CHARS {
        return Err(ApiError::BadRequest(format!(
            "the {what} is longer than {MAX_ID_CHARS} characters"
        )));
    }
    if raw.chars().any(char::is_control) {
        return Err(ApiError::BadRequest(format!(
            "the {what} contains control characters"
        )));
    }
    Ok(id)
}

pub(crate) use crate::service::source::truncate;
