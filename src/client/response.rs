//! Turning an answer into a value or a [`ClientError`]: reading the body within its size cap,
//! decoding JSON with the field path of a mismatch, mapping error statuses and transport
//! failures to kinds.

use std::time::Duration;

use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

use super::budget::retry_after;
use super::error::{ClientError, ErrorKind, required_tier_from_message};
use crate::model::Tier;
pub use crate::upstream::body::{error_chain, header_text};
use crate::upstream::body::{looks_like_json, not_json};
pub use crate::upstream::{BodyTooLarge, ReadError, read_body_capped};

/// Response header naming the tier a refused request needs.
const REQUIRED_TIER_HEADER: &str = "x-required-tier";
/// A request that got no complete answer.
pub(super) fn transport_error(err: &reqwest::Error, timeout: Duration) -> ClientError {
    let chain = error_chain(err);
    if err.is_timeout() {
        let message = if err.is_connect() {
            format!("could not connect in time: {chain}")
        } else {
            format!("no complete answer within {} ms", timeout.as_millis())
        };
        ClientError::new(ErrorKind::Timeout, message)
    } else if err.is_connect() {
        ClientError::new(ErrorKind::Connection, format!("could not connect: {chain}"))
    } else if err.is_builder() {
        ClientError::new(
            ErrorKind::Config,
            format!("the request could not be built: {chain}"),
        )
    } else {
        ClientError::new(
            ErrorKind::Connection,
            format!("the connection failed before the answer was complete: {chain}"),
        )
    }
}

/// Decodes a successful body, naming the field path of a mismatch (`hits[3].price: ...`).
pub(super) fn decode<T: DeserializeOwned>(
    body: &[u8],
    headers: &HeaderMap,
) -> Result<T, ClientError> {
    crate::upstream::body::decode_json(body, headers)
        .map_err(|message| ClientError::new(ErrorKind::Decode, message))
}

/// The error body of either shape: `{status, error, message}` or the v2 envelope.
#[derive(serde::Deserialize)]
struct WireError {
    #[serde(default)]
    error: String,
    #[serde(default)]
    message: String,
}

/// An answer with an error status.
pub(super) fn status_error(status: u16, headers: &HeaderMap, body: &[u8]) -> ClientError {
    let kind = ErrorKind::from_status(status);
    let reason = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|code| code.canonical_reason())
        .unwrap_or("error");
    let wire = serde_json::from_slice::<WireError>(body).ok();
    let (code, message) = match wire {
        Some(wire) if !wire.message.trim().is_empty() => (
            Some(wire.error).filter(|code| !code.is_empty()),
            wire.message,
        ),
        Some(wire) => (
            Some(wire.error).filter(|code| !code.is_empty()),
            reason.to_owned(),
        ),
        None if looks_like_json(body) => (
            None,
            format!("{reason}; the error body is not the expected JSON"),
        ),
        None => (None, format!("{reason}; {}", not_json(body, headers))),
    };
    let required_tier = (kind == ErrorKind::Forbidden)
        .then(|| {
            header_text(headers, REQUIRED_TIER_HEADER)
                .and_then(|text| text.parse::<Tier>().ok())
                .or_else(|| required_tier_from_message(&message))
        })
        .flatten();
    let mut err = ClientError::new(kind, message);
    err.status = Some(status);
    err.code = code;
    err.required_tier = required_tier;
    err.retry_after = retry_after(headers);
    err
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SearchResponse, Stats};

    #[test]
    fn decode_names_the_field_path() {
        let body = br#"{"hits":[],"estimatedTotalHits":"many","limit":20,"processingTimeMs":1,"query":""}"#;
        let err = decode::<SearchResponse>(body, &HeaderMap::new()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Decode);
        assert!(
            err.message.starts_with("estimatedTotalHits: invalid type"),
            "{}",
            err.message
        );
        let err = decode::<SearchResponse>(b"<html>oops</html>", &HeaderMap::new()).unwrap_err();
        assert!(err.message.contains("not JSON"), "{}", err.message);
        let err = decode::<Stats>(b"{\"datasets\":[]} trailing", &HeaderMap::new()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Decode);
    }

    #[test]
    fn error_bodies_of_both_shapes_give_the_server_message() {
        let plain = br#"{"status":"error","error":"not_found","message":"no product with id or slug \"x\""}"#;
        let err = status_error(404, &HeaderMap::new(), plain);
        assert_eq!(err.kind, ErrorKind::NotFound);
        assert_eq!(err.code.as_deref(), Some("not_found"));
        assert_eq!(err.message, "no product with id or slug \"x\"");
        let v2 = br#"{"status":"error","error":"forbidden","message":"this needs a pro or ultra key; this key is free","query":{},"data":null,"meta":null}"#;
        let err = status_error(403, &HeaderMap::new(), v2);
        assert_eq!(err.kind, ErrorKind::Forbidden);
        assert_eq!(err.required_tier, Some(Tier::Pro));
        let err = status_error(
            502,
            &HeaderMap::new(),
            b"<html><body>Bad Gateway</body></html>",
        );
        assert_eq!(err.kind, ErrorKind::Server);
        assert!(err.message.contains("not JSON"), "{}", err.message);
    }
}
