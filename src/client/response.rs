//! Turning an answer into a value or a [`ClientError`]: reading the body within its size cap,
//! decoding JSON with the field path of a mismatch, mapping error statuses and transport
//! failures to kinds.

use std::time::Duration;

use reqwest::header::{self, HeaderMap};
use serde::de::DeserializeOwned;

use super::budget::retry_after;
use super::error::{ClientError, ErrorKind, required_tier_from_message};
use crate::model::Tier;

/// Response header naming the tier a refused request needs.
const REQUIRED_TIER_HEADER: &str = "x-required-tier";
/// Characters of a non-JSON body quoted in an error message.
const BODY_SNIPPET_CHARS: usize = 120;

/// A body longer than the reader's cap. Displayed as a sentence for a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the answer is larger than the {} KB this client reads{}", .max_bytes.div_ceil(1024), announced_text(*.announced_bytes))]
pub struct BodyTooLarge {
    /// The cap that was exceeded.
    pub max_bytes: usize,
    /// The `Content-Length` the server announced, when it did (and it was over the cap).
    pub announced_bytes: Option<u64>,
}

fn announced_text(announced: Option<u64>) -> String {
    announced.map_or_else(String::new, |bytes| {
        format!(" (it announced {bytes} bytes)")
    })
}

/// Why [`read_body_capped`] gave no body.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Over the cap.
    #[error(transparent)]
    TooLarge(#[from] BodyTooLarge),
    /// The connection failed or timed out while reading.
    #[error("reading the body: {0}")]
    Transport(#[from] reqwest::Error),
}

/// Reads `response`'s body, never holding more than `max_bytes` of it: an announced
/// `Content-Length` over the cap fails before reading, and a body that runs past it (a server
/// that lies about or omits its length) fails at the chunk that crosses it. Dropping the
/// response then closes the connection instead of draining the rest.
pub async fn read_body_capped(
    mut response: reqwest::Response,
    max_bytes: usize,
) -> Result<Vec<u8>, ReadError> {
    let announced = response.content_length();
    if let Some(length) = announced.filter(|length| *length > max_bytes as u64) {
        return Err(BodyTooLarge {
            max_bytes,
            announced_bytes: Some(length),
        }
        .into());
    }
    // Preallocate what was announced (it fits the cap), so honest answers copy once.
    let capacity = announced.map_or(0, |length| usize::try_from(length).unwrap_or(0));
    let mut body = Vec::with_capacity(capacity);
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > max_bytes {
            return Err(BodyTooLarge {
                max_bytes,
                announced_bytes: None,
            }
            .into());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

pub(super) fn header_text<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name)?.to_str().ok().map(str::trim)
}

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

/// `err` and its causes, `: `-separated, without the URL (the error carries it once).
pub(super) fn error_chain(err: &reqwest::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|part| part.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    if parts.is_empty() {
        parts.push(if err.is_timeout() {
            "timed out".to_owned()
        } else {
            "request failed".to_owned()
        });
    }
    parts.join(": ")
}

/// Decodes a successful body, naming the field path of a mismatch (`hits[3].price: ...`).
pub(super) fn decode<T: DeserializeOwned>(
    body: &[u8],
    headers: &HeaderMap,
) -> Result<T, ClientError> {
    if !looks_like_json(body) {
        return Err(ClientError::new(ErrorKind::Decode, not_json(body, headers)));
    }
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let value = serde_path_to_error::deserialize::<_, T>(&mut deserializer).map_err(|err| {
        let path = err.path().to_string();
        let message = if path == "." {
            format!("the body is not the expected JSON: {}", err.inner())
        } else {
            format!("{path}: {}", err.inner())
        };
        ClientError::new(ErrorKind::Decode, message)
    })?;
    deserializer.end().map_err(|err| {
        ClientError::new(
            ErrorKind::Decode,
            format!("the body is not the expected JSON: {err}"),
        )
    })?;
    Ok(value)
}

fn looks_like_json(body: &[u8]) -> bool {
    matches!(
        body.iter().find(|byte| !byte.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// "the body is not JSON (text/html, 512 bytes): "<!DOCTYPE html>..."".
fn not_json(body: &[u8], headers: &HeaderMap) -> String {
    if body.iter().all(u8::is_ascii_whitespace) {
        return "the body is empty".to_owned();
    }
    let content_type =
        header_text(headers, header::CONTENT_TYPE.as_str()).unwrap_or("no content type");
    let text = String::from_utf8_lossy(body);
    let mut snippet: String = text.trim().chars().take(BODY_SNIPPET_CHARS).collect();
    if text.trim().chars().count() > BODY_SNIPPET_CHARS {
        snippet.push('…');
    }
    format!(
        "the body is not JSON ({content_type}, {} bytes): {snippet:?}",
        body.len()
    )
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
