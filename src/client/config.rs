//! How to reach a server ([`ClientConfig`]) and the parameters of the calls that take more
//! than an id ([`SearchQuery`], [`RelatedQuery`]).

use std::fmt;
use std::time::Duration;

use reqwest::Url;

use super::error::{ClientError, ErrorKind};
use crate::model::Country;

/// Largest body the client reads by default: a page of 100 hits with all their variants is a
/// few hundred KB, so 16 MiB leaves room without letting a server fill memory.
pub const DEFAULT_MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// How to reach a server. `Debug` never shows the key.
#[derive(Clone)]
pub struct ClientConfig {
    /// `http(s)://host[:port][/prefix]`; the endpoint paths are appended.
    pub base_url: String,
    /// The API key, sent as `Authorization: <key>`; `None` (or empty) sends no key.
    pub api_key: Option<String>,
    /// Longest wait for a TCP (and TLS) connection.
    pub connect_timeout: Duration,
    /// Longest wait for one request: from connecting to the last byte of the body.
    pub request_timeout: Duration,
    /// Longest time for a whole call, retries and waits between them included.
    pub call_timeout: Duration,
    /// Attempts after the first for failures worth retrying (connection, timeout, 5xx, short 429).
    pub retries: u32,
    /// Wait before the first retry; doubled for each further one (capped at 5 s), with jitter.
    pub retry_backoff: Duration,
    /// Longest `Retry-After` (on 429, or a budget known to be spent) the client waits out by
    /// itself; a longer one is returned as [`ErrorKind::RateLimited`] at once.
    pub max_retry_after: Duration,
    /// Largest body read from one answer (success or error); no more is ever read. Over it, a
    /// success is [`ErrorKind::TooLarge`]; an error status keeps its kind, saying so.
    pub max_body_bytes: usize,
}

impl ClientConfig {
    /// Defaults for a server: connect 5 s, request 15 s, call 30 s, 2 retries from 250 ms,
    /// waits out a `Retry-After` of up to 5 s, bodies up to [`DEFAULT_MAX_BODY_BYTES`].
    #[must_use]
    pub fn new(base_url: impl Into<String>, api_key: Option<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(15),
            call_timeout: Duration::from_secs(30),
            retries: 2,
            retry_backoff: Duration::from_millis(250),
            max_retry_after: Duration::from_secs(5),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        }
    }
}

impl fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("call_timeout", &self.call_timeout)
            .field("retries", &self.retries)
            .field("retry_backoff", &self.retry_backoff)
            .field("max_retry_after", &self.max_retry_after)
            .field("max_body_bytes", &self.max_body_bytes)
            .finish()
    }
}

/// Parameters of [`Client::search`]; `SearchQuery::default()` is the first page of everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchQuery {
    /// Search text; empty matches everything.
    pub text: String,
    /// Page, 1-based; `None` for the server's default (1).
    pub page: Option<u32>,
    /// Hits per page; `None` for the server's default (20).
    pub limit: Option<u32>,
    /// Exact GTIN filter.
    pub gtin: Option<String>,
    /// Exact style-code filter.
    pub sku: Option<String>,
    /// The country dataset; FR needs a pro or ultra key.
    pub country: Country,
    /// Ask only for what the server already holds (`Cache-Control: only-if-cached`): search
    /// as you type against a live source, which then spends no upstream call per keystroke.
    pub cached_only: bool,
    /// Only what this store (its label, `kith.com`) has in stock (`in_stock_at=`).
    pub in_stock_at: Option<String>,
    /// With `in_stock_at`: in stock in this US size.
    pub size: Option<String>,
}

impl SearchQuery {
    /// The first page of hits for `text` in the US dataset.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }
}

/// Parameters of [`Client::resale_b_related`]; each `None` leaves the server's default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RelatedQuery {
    /// Country to retrieve market data for, e.g. `US`.
    pub country: Option<String>,
    /// Currency of the market data, e.g. `USD`.
    pub currency: Option<String>,
    /// Market to retrieve market data for.
    pub market: Option<String>,
}

/// Checks and normalises the base URL. Messages never quote a URL that carries credentials.
pub(super) fn parse_base_url(text: &str) -> Result<Url, ClientError> {
    let text = text.trim();
    let url = Url::parse(text).map_err(|err| {
        ClientError::new(
            ErrorKind::Config,
            format!("the base URL is not a URL ({err}): {text}"),
        )
    })?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ClientError::new(
            ErrorKind::Config,
            "the base URL must not carry credentials; the API key goes in the key field",
        ));
    }
    if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
        return Err(ClientError::new(
            ErrorKind::Config,
            format!("the base URL must start with http:// or https://: {text}"),
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(ClientError::new(
            ErrorKind::Config,
            format!("the base URL must not have a query or fragment: {text}"),
        ));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::super::Client;
    use super::*;

    #[test]
    fn bad_base_urls_and_keys_are_config_errors() {
        for url in ["not a url", "ftp://host", "http://host/?q=1", "mailto:x@y"] {
            let err = Client::new(ClientConfig::new(url, None)).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Config, "{url}");
        }
        let err = Client::new(ClientConfig::new("http://user:hunter2@host", None)).unwrap_err();
        assert!(!err.to_string().contains("hunter2"), "{err}");
        let err = Client::new(ClientConfig::new(
            "http://host",
            Some("line\nbreak-key".into()),
        ))
        .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Config);
        assert!(!err.to_string().contains("break-key"), "{err}");
    }

    #[test]
    fn debug_output_redacts_the_key() {
        let config = ClientConfig::new("http://host", Some("sekrit-key-123".into()));
        let shown = format!("{config:?} {:?}", Client::new(config.clone()).unwrap());
        assert!(!shown.contains("sekrit-key-123"), "{shown}");
        assert!(shown.contains("[redacted]"), "{shown}");
    }
}
