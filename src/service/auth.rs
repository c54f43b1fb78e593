//! API keys and tiers: `Authorization: <key>` (or `Bearer <key>`) -> the key's tier, checked
//! against the catalogue's key table (keys are stored hashed). Every answer to a known key
//! carries `X-Key-Type: free|pro|ultra`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;

use super::ServiceState;
use super::error::ApiError;
use crate::catalogue::keys;
pub(crate) use crate::model::tiers::strip_omitted_fields;
use crate::model::{Feature, Tier};

/// Response header naming the caller's tier.
pub const KEY_TYPE_HEADER: &str = "x-key-type";

/// The authenticated caller, put in the request's extensions by [`authenticate`].
#[derive(Debug, Clone)]
pub struct Caller {
    /// The key's tier.
    pub tier: Tier,
    /// The key's stored digest: the identity used for rate limits (never the key itself).
    pub key_id: String,
}

impl Caller {
    /// `Ok` if the caller's tier gets `feature` (the tier rule of `model::tiers`).
    pub fn require(&self, feature: Feature) -> Result<(), ApiError> {
        if self.tier.allows(feature) {
            Ok(())
        } else {
            Err(ApiError::Forbidden {
                needed: feature.minimum_tier(),
                have: self.tier,
            })
        }
    }
}

/// Paths anyone may read without a key: the API description and the subscription pages, so a
/// client can explain a refusal even when its key is wrong.
fn is_public(path: &str) -> bool {
    path == "/openapi.json"
        || path.starts_with("/api/v2/subscriptions")
        || path.starts_with("/images/")
}

/// The key from `Authorization: <key>` or `Authorization: Bearer <key>`.
pub fn key_from_headers(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| {
            ApiError::Unauthorized("the Authorization header is not readable text".into())
        })?
        .trim();
    let key = match value.split_once(' ') {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim(),
        _ => value,
    };
    Ok((!key.is_empty()).then_some(key))
}

/// Resolves the caller's tier and stamps `X-Key-Type` on the answer.
pub async fn authenticate(
    State(state): State<Arc<ServiceState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    let public = is_public(&path);
    let key = match key_from_headers(request.headers()) {
        Ok(key) => key.map(str::to_owned),
        Err(_) if public => None,
        Err(err) => return err.into_response_for(&path),
    };
    let resolved = match key {
        None => Ok(None),
        Some(key) => match &state.shared {
            Some(shared) => resolve_shared(&state, shared, &key).await,
            // The key table is SQLite: read off the async workers.
            None => state.blocking(move |state| resolve(state, &key)).await,
        },
    };
    let caller = match resolved {
        Ok(caller) => caller,
        Err(_) if public => None,
        Err(err) => return err.into_response_for(&path),
    };
    let Some(caller) = caller else {
        if public {
            return next.run(request).await;
        }
        return ApiError::Unauthorized(
            "missing API key: send it in the Authorization header".into(),
        )
        .into_response_for(&path);
    };
    let tier = caller.tier;
    request.extensions_mut().insert(caller);
    let mut response = next.run(request).await;
    response
        .headers_mut()
        .insert(KEY_TYPE_HEADER, HeaderValue::from_static(tier.as_str()));
    response
}

/// The tier of `key` if it is one of the well-known demo keys; refused when they are off.
fn demo_tier(state: &ServiceState, key: &str) -> Result<Option<Tier>, ApiError> {
    let Some((_, tier)) = crate::catalogue::generate::DEMO_KEYS
        .iter()
        .find(|(demo, _)| *demo == key)
    else {
        return Ok(None);
    };
    if !state.demo_keys {
        return Err(ApiError::Unauthorized(
            "the demo keys are switched off on this server (start it with --demo-keys to allow them)"
                .into(),
        ));
    }
    Ok(Some(*tier))
}

/// With shared state (`serve --redis`): the demo keys are accepted by each replica from its own
/// settings (they are public, so there is nothing to revoke); every other key is looked up in
/// the shared store.
async fn resolve_shared(
    state: &ServiceState,
    shared: &super::shared::Shared,
    key: &str,
) -> Result<Option<Caller>, ApiError> {
    let key_id = keys::hash(key);
    if let Some(tier) = demo_tier(state, key)? {
        return Ok(Some(Caller { tier, key_id }));
    }
    match shared.tier_of_hash(&key_id).await? {
        Some(tier) => Ok(Some(Caller { tier, key_id })),
        None => Err(ApiError::Unauthorized("unknown or revoked API key".into())),
    }
}

fn resolve(state: &ServiceState, key: &str) -> Result<Option<Caller>, ApiError> {
    demo_tier(state, key)?;
    // One digest per request: it finds the key and names it for the rate limiter.
    let key_id = keys::hash(key);
    match state.catalogue.key_tier(&key_id)? {
        Some(tier) => Ok(Some(Caller { tier, key_id })),
        None => Err(ApiError::Unauthorized("unknown or revoked API key".into())),
    }
}
