//! The client's one error type: a [`ClientError`] with an [`ErrorKind`] the UI can act on
//! (ask for a key, offer an upgrade, wait, retry), the server's own message, and the facts that
//! came with the answer (status, required tier, `Retry-After`).
//!
//! How answers map to kinds:
//!
//! | answer | kind |
//! |---|---|
//! | 400 and any other 4xx not below | [`ErrorKind::BadRequest`] |
//! | 401 | [`ErrorKind::Unauthorized`] |
//! | 403 | [`ErrorKind::Forbidden`], tier from `X-Required-Tier`, else from the message |
//! | 404 | [`ErrorKind::NotFound`] |
//! | 429 | [`ErrorKind::RateLimited`], with `Retry-After` |
//! | 5xx (500, 502 `upstream_failed`, 504 `upstream_timeout`, ...) | [`ErrorKind::Server`] |
//! | no answer in time | [`ErrorKind::Timeout`] |
//! | refused, reset or dropped connection, unreadable body | [`ErrorKind::Connection`] |
//! | a 2xx body that is not the expected JSON (HTML, truncated, wrong types) | [`ErrorKind::Decode`], naming the field path |
//! | a 2xx body over [`ClientConfig::max_body_bytes`](super::ClientConfig::max_body_bytes) (an error status over it keeps its own kind) | [`ErrorKind::TooLarge`] |
//!
//! An error status whose body is not JSON (a proxy's HTML 502 page, say) keeps the kind of its
//! status, because the status is what the caller can act on (a 502 is worth retrying, a decode
//! error is not); the message says the body was not JSON and quotes its start.

use std::fmt;
use std::time::Duration;

use crate::model::Tier;

/// What went wrong, in terms a caller can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The client was set up wrong (a base URL that is not `http(s)://`, a key that cannot be
    /// sent in a header) or asked for something no URL can carry; no request was sent.
    Config,
    /// 401: no key, or a key the server does not know.
    Unauthorized,
    /// 403: the key's tier is too low; [`ClientError::required_tier`] says which is needed.
    Forbidden,
    /// 429: the real-time budget is spent; [`ClientError::retry_after`] says for how long.
    RateLimited,
    /// 404: no such product, slug or path.
    NotFound,
    /// 400 (or another 4xx): the request was refused as malformed; the message says why.
    BadRequest,
    /// 5xx: the server or the marketplace behind it failed.
    Server,
    /// No complete answer within the connect or request timeout.
    Timeout,
    /// The connection could not be made or broke before the answer was complete.
    Connection,
    /// A successful answer whose body is not the expected JSON.
    Decode,
    /// An answer (or an image) larger than the client accepts: its body was not read past the
    /// cap, or its picture is bigger than the decoder is allowed to allocate.
    TooLarge,
}

impl ErrorKind {
    /// A short lowercase name, e.g. `"rate limited"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Config => "client setup",
            ErrorKind::Unauthorized => "unauthorized",
            ErrorKind::Forbidden => "forbidden",
            ErrorKind::RateLimited => "rate limited",
            ErrorKind::NotFound => "not found",
            ErrorKind::BadRequest => "bad request",
            ErrorKind::Server => "server error",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Connection => "connection failed",
            ErrorKind::Decode => "unexpected response",
            ErrorKind::TooLarge => "answer too large",
        }
    }

    /// The kind an HTTP error status maps to (see the module table).
    #[must_use]
    pub fn from_status(status: u16) -> ErrorKind {
        match status {
            401 => ErrorKind::Unauthorized,
            403 => ErrorKind::Forbidden,
            404 => ErrorKind::NotFound,
            429 => ErrorKind::RateLimited,
            500..=599 => ErrorKind::Server,
            400..=499 => ErrorKind::BadRequest,
            // A 1xx/3xx that reached us is not an answer this interface gives.
            _ => ErrorKind::Decode,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed client call. `Clone`, so a UI can keep it in its state and show it again.
///
/// Displayed as `kind (HTTP status): message: url`; [`message`](Self::message) alone is the
/// sentence to show a person. Never contains the API key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct ClientError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// The server's message when it sent one, else a sentence saying what happened.
    pub message: String,
    /// The HTTP status, when an answer came.
    pub status: Option<u16>,
    /// The server's machine-readable code (`not_found`, `upstream_failed`, ...), when it sent one.
    pub code: Option<String>,
    /// For [`ErrorKind::Forbidden`]: the lowest tier that may make the request.
    pub required_tier: Option<Tier>,
    /// For [`ErrorKind::RateLimited`] (and 5xx that send it): how long to wait.
    pub retry_after: Option<Duration>,
    /// The URL asked for (it never carries the key), when a request was made.
    pub url: Option<String>,
    /// Requests sent for this call, retries included (0 when none was sent).
    pub attempts: u32,
}

impl ClientError {
    /// An error of `kind` with `message` and nothing else known.
    #[must_use]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            status: None,
            code: None,
            required_tier: None,
            retry_after: None,
            url: None,
            attempts: 0,
        }
    }

    /// Whether trying again later may succeed: connection failures, timeouts, 5xx and 429
    /// (after [`retry_after`](Self::retry_after)). Never for other 4xx, decode or setup errors.
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::Connection | ErrorKind::Timeout | ErrorKind::Server | ErrorKind::RateLimited
        )
    }

    /// What failed, in a sentence a user reads: the server's own words when it answered (they
    /// name what failed and where, such as "kith.com has no product …"), else what happened on
    /// the way. Never the request's URL (an in-process service's address means nothing to a
    /// user; [`Display`](fmt::Display) keeps it for logs and details).
    #[must_use]
    pub fn user_text(&self) -> String {
        match self.kind {
            ErrorKind::Connection => format!("the service could not be reached: {}", self.message),
            ErrorKind::Timeout => format!("no answer in time: {}", self.message),
            _ => self.message.clone(),
        }
    }

    pub(crate) fn with_url(mut self, url: &str) -> Self {
        self.url = Some(url.to_owned());
        self
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(status) = self.status {
            write!(f, " (HTTP {status})")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(url) = &self.url {
            write!(f, ": {url}")?;
        }
        Ok(())
    }
}

/// The tier a 403 message names as needed, for servers that send no `X-Required-Tier`:
/// the first tier word other than `free` (a refusal never asks for free), e.g. `pro` in
/// "this needs a pro or ultra key; this key is free".
#[must_use]
pub fn required_tier_from_message(message: &str) -> Option<Tier> {
    words(message)
        .filter_map(|word| word.parse::<Tier>().ok())
        .find(|tier| *tier != Tier::Free)
}

/// The key's own tier when a 403 message states it ("... this key is free").
#[must_use]
pub fn key_tier_from_message(message: &str) -> Option<Tier> {
    let words: Vec<&str> = words(message).collect();
    words.windows(3).find_map(|w| {
        (w[0].eq_ignore_ascii_case("key") && w[1].eq_ignore_ascii_case("is"))
            .then(|| w[2].parse::<Tier>().ok())
            .flatten()
    })
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_kinds() {
        assert_eq!(ErrorKind::from_status(401), ErrorKind::Unauthorized);
        assert_eq!(ErrorKind::from_status(403), ErrorKind::Forbidden);
        assert_eq!(ErrorKind::from_status(404), ErrorKind::NotFound);
        assert_eq!(ErrorKind::from_status(429), ErrorKind::RateLimited);
        assert_eq!(ErrorKind::from_status(400), ErrorKind::BadRequest);
        assert_eq!(ErrorKind::from_status(405), ErrorKind::BadRequest);
        for status in [500, 502, 503, 504] {
            assert_eq!(ErrorKind::from_status(status), ErrorKind::Server);
        }
        assert_eq!(ErrorKind::from_status(302), ErrorKind::Decode);
    }

    #[test]
    fn only_transient_kinds_are_retryable() {
        let retryable = [
            ErrorKind::Connection,
            ErrorKind::Timeout,
            ErrorKind::Server,
            ErrorKind::RateLimited,
        ];
        let final_kinds = [
            ErrorKind::Config,
            ErrorKind::Unauthorized,
            ErrorKind::Forbidden,
            ErrorKind::NotFound,
            ErrorKind::BadRequest,
            ErrorKind::Decode,
            ErrorKind::TooLarge,
        ];
        for kind in retryable {
            assert!(ClientError::new(kind, "x").is_retryable(), "{kind}");
        }
        for kind in final_kinds {
            assert!(!ClientError::new(kind, "x").is_retryable(), "{kind}");
        }
    }

    #[test]
    fn tiers_are_read_from_refusal_messages() {
        let message = "this needs a pro or ultra key; this key is free";
        assert_eq!(required_tier_from_message(message), Some(Tier::Pro));
        assert_eq!(key_tier_from_message(message), Some(Tier::Free));
        assert_eq!(
            required_tier_from_message("Requires an ULTRA subscription"),
            Some(Tier::Ultra)
        );
        assert_eq!(required_tier_from_message("forbidden"), None);
        assert_eq!(key_tier_from_message("forbidden"), None);
    }

    #[test]
    fn display_puts_the_url_last() {
        let mut err = ClientError::new(ErrorKind::NotFound, "no product with id or slug \"x\"")
            .with_url("http://127.0.0.1:1/product/x");
        err.status = Some(404);
        assert_eq!(
            err.to_string(),
            "not found (HTTP 404): no product with id or slug \"x\": http://127.0.0.1:1/product/x"
        );
    }
}
