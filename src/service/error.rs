//! The service's one error type. Every variant documents the HTTP status it maps to; every error
//! body is JSON: the v2 envelope on `/api/v2/` paths, `{status, error, message}` elsewhere.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::catalogue::CatalogueError;
use crate::model::{ErrorBody, Tier, V2Envelope};

/// Header naming the tier a refused request needs, so clients need not parse the message.
pub const REQUIRED_TIER_HEADER: &str = "x-required-tier";

/// An error answered to a client.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    /// 400: a malformed id, number, country or parameter; the message says which.
    #[error("{0}")]
    BadRequest(String),
    /// 401: no key, or a key the service does not know.
    #[error("{0}")]
    Unauthorized(String),
    /// 403: the key's tier is too low; names the tier needed.
    #[error("this needs a {needed} or ultra key; this key is {have}", needed = .needed.as_str(), have = .have.as_str())]
    Forbidden {
        /// The lowest tier that may make the request.
        needed: Tier,
        /// The key's tier.
        have: Tier,
    },
    /// 404: no such product or path.
    #[error("{0}")]
    NotFound(String),
    /// 429: the real-time budget of the key is spent until the window resets.
    #[error(
        "real-time limit of {limit} requests per minute reached; retry in {retry_after_secs} s"
    )]
    RateLimited {
        /// Requests allowed per window.
        limit: u32,
        /// Seconds until the window resets.
        retry_after_secs: u64,
    },
    /// 500: something failed inside the service (the details are logged, not sent).
    #[error("internal error")]
    Internal,
    /// 502: the upstream marketplace failed.
    #[error("{0}")]
    UpstreamFailed(String),
    /// 504: the upstream marketplace did not answer in time.
    #[error("{0}")]
    UpstreamTimeout(String),
    /// 503: the service is at its limit of work in flight; retry after `Retry-After` seconds.
    #[error("{message}")]
    Unavailable {
        /// What is busy.
        message: String,
        /// Seconds to wait before retrying.
        retry_after_secs: u64,
    },
    /// 504: the request took longer than the service allows itself for one answer.
    #[error("{0}")]
    TimedOut(String),
    /// 429: a live source's own limit is spent (KicksDB's 60 real-time calls a minute, or its
    /// 429); retry after `Retry-After` seconds.
    #[error("{message}")]
    UpstreamRateLimited {
        /// Which limit, and when the next call is free.
        message: String,
        /// Seconds to wait.
        retry_after_secs: u64,
    },
    /// 502: the live source refused the service's key for it (KicksDB's 401): the operator's
    /// (or the desktop user's) KicksDB key is wrong, not the caller's.
    #[error("{0}")]
    UpstreamKeyRefused(String),
    /// 502: the live source's plan does not include this (KicksDB's 403); names the plan.
    #[error("{0}")]
    UpstreamPlan(String),
}

impl ApiError {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::RateLimited { .. } | ApiError::UpstreamRateLimited { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            ApiError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::UpstreamFailed(_)
            | ApiError::UpstreamKeyRefused(_)
            | ApiError::UpstreamPlan(_) => StatusCode::BAD_GATEWAY,
            ApiError::UpstreamTimeout(_) | ApiError::TimedOut(_) => StatusCode::GATEWAY_TIMEOUT,
            ApiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The machine-readable code in the `error` field.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad_request",
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::Forbidden { .. } => "forbidden",
            ApiError::NotFound(_) => "not_found",
            ApiError::RateLimited { .. } => "rate_limited",
            ApiError::Internal => "internal_error",
            ApiError::UpstreamFailed(_) => "upstream_failed",
            ApiError::UpstreamTimeout(_) => "upstream_timeout",
            ApiError::Unavailable { .. } => "unavailable",
            ApiError::TimedOut(_) => "timeout",
            ApiError::UpstreamRateLimited { .. } => "upstream_rate_limited",
            ApiError::UpstreamKeyRefused(_) => "upstream_key_refused",
            ApiError::UpstreamPlan(_) => "upstream_plan",
        }
    }

    /// The response in the shape the path calls for.
    pub fn into_response_for(self, path: &str) -> Response {
        let status = self.status();
        let body = if is_v2(path) {
            serde_json::to_vec(&V2Envelope::error(self.code(), self.to_string()))
        } else {
            serde_json::to_vec(&ErrorBody::new(self.code(), self.to_string()))
        }
        .unwrap_or_default();
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        match &self {
            ApiError::Forbidden { needed, .. } => {
                headers.insert(
                    REQUIRED_TIER_HEADER,
                    HeaderValue::from_static(needed.as_str()),
                );
            }
            ApiError::RateLimited {
                retry_after_secs, ..
            }
            | ApiError::Unavailable {
                retry_after_secs, ..
            }
            | ApiError::UpstreamRateLimited {
                retry_after_secs, ..
            } => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after_secs));
            }
            _ => {}
        }
        // The JSON-error layer reads this to leave already-shaped errors alone.
        response.extensions_mut().insert(Shaped);
        response
    }
}

/// Marks a response whose error body is already in the interface's shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shaped;

/// Whether `path` is under the v2 API (errors use the v2 envelope).
pub fn is_v2(path: &str) -> bool {
    path.starts_with("/api/v2/")
}

impl From<CatalogueError> for ApiError {
    fn from(err: CatalogueError) -> Self {
        tracing::error!("catalogue: {err:#}");
        ApiError::Internal
    }
}

/// Handlers return [`ApiError`]; a layer (see `mod.rs`) reshapes the body for the path. Without
/// the path here, the plain shape is written and marked for reshaping.
impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = self.clone().into_response_for("");
        response.extensions_mut().insert(self);
        response
    }
}
