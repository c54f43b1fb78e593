//! The plumbing every outside HTTP source shares: the window's client (to a Solescope server)
//! and the service's upstreams (KicksDB, Shopify storefronts). One place for body caps,
//! timeouts, same-origin redirects, `Retry-After` and telling JSON from an HTML error page, so a
//! source is trusted no more than a remote server is.
//!
//! [`Upstream`] is a fetcher bound to one outside service (GET, and POST with a JSON body for
//! batched calls): every request has a connect
//! and a total timeout, follows redirects only to the same scheme, host and port (at most
//! [`UpstreamConfig::max_redirects`]), reads at most [`UpstreamConfig::max_body_bytes`] of a body,
//! and fails with an [`FetchError`] whose [`FetchKind`] a source maps to its own words and the
//! service to a status. Errors name the upstream and never carry the URL (its query may hold
//! what the user typed) nor a header (one holds the key).

pub mod body;
pub mod redirect;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::header::HeaderMap;

pub use self::body::{BodyTooLarge, ReadError, read_body_capped};

/// What went wrong with an upstream call, coarse enough for a source to map and a service to
/// answer with a status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchKind {
    /// 401: the upstream refused the credentials (or asks for a password).
    Unauthorized,
    /// 403: the credentials are fine, the plan or the site refuses this request.
    Forbidden,
    /// 404: the upstream has nothing by that name.
    NotFound,
    /// 429 (or a count of our own): too many requests; see [`FetchError::retry_after`].
    RateLimited,
    /// 5xx: the upstream failed or is overloaded.
    Unavailable,
    /// Any other 4xx (our request was not to its taste).
    Rejected,
    /// No complete answer in time.
    Timeout,
    /// No connection (refused, DNS, TLS, reset).
    Unreachable,
    /// The body was larger than the cap.
    TooLarge,
    /// An HTML (or other non-JSON) page where JSON was asked for.
    NotJson,
    /// JSON, but not of the expected shape.
    Malformed,
}

impl FetchKind {
    /// The kind of an HTTP error status (`None` for a success or a redirect).
    #[must_use]
    pub fn from_status(status: u16) -> Option<Self> {
        Some(match status {
            401 => Self::Unauthorized,
            403 => Self::Forbidden,
            404 | 410 => Self::NotFound,
            429 => Self::RateLimited,
            500..=599 => Self::Unavailable,
            400..=499 => Self::Rejected,
            _ => return None,
        })
    }

    /// Whether trying again later may succeed.
    #[must_use]
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            Self::RateLimited | Self::Unavailable | Self::Timeout | Self::Unreachable
        )
    }
}

/// A failed upstream call. Displays as "<upstream>: <message>".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError {
    /// Which upstream, as the user knows it ("KicksDB", "storefront kith.com").
    pub upstream: Arc<str>,
    /// What kind of failure.
    pub kind: FetchKind,
    /// The HTTP status, when the upstream answered.
    pub status: Option<u16>,
    /// How long the upstream asked us to wait (`Retry-After`), when it did.
    pub retry_after: Option<Duration>,
    /// A sentence for a person; never the URL or a header.
    pub message: String,
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.upstream, self.message)
    }
}

impl std::error::Error for FetchError {}

impl FetchError {
    /// An error of `kind` from `upstream`.
    pub fn new(upstream: &Arc<str>, kind: FetchKind, message: impl Into<String>) -> Self {
        Self {
            upstream: Arc::clone(upstream),
            kind,
            status: None,
            retry_after: None,
            message: message.into(),
        }
    }
}

/// How to reach one upstream.
#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    /// The upstream's name in errors and logs.
    pub name: String,
    /// Longest wait for a TCP (and TLS) connection.
    pub connect_timeout: Duration,
    /// Longest wait for one request, from connecting to the last byte of the body.
    pub request_timeout: Duration,
    /// Largest body read; no more is ever held.
    pub max_body_bytes: usize,
    /// Redirects followed, each to the same scheme, host and port only.
    pub max_redirects: usize,
    /// The `User-Agent` sent.
    pub user_agent: String,
}

impl UpstreamConfig {
    /// Defaults: connect 5 s, request 10 s, 8 MiB bodies, 3 same-origin redirects, a
    /// `User-Agent` naming Solescope.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(10),
            max_body_bytes: 8 * 1024 * 1024,
            max_redirects: 3,
            user_agent: USER_AGENT.to_owned(),
        }
    }
}

/// The `User-Agent` of every upstream request: names the program and where to learn about it.
pub const USER_AGENT: &str = concat!(
    "Solescope/",
    env!("CARGO_PKG_VERSION"),
    " (sneaker market dashboard; +https://example.invalid/solescope)"
);

/// An answer of any status, its body read within the cap.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The HTTP status.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body (at most the cap).
    pub body: Vec<u8>,
}

/// An HTTP fetcher for one upstream (GET, and POST with a JSON body). Cheap to clone.
#[derive(Debug, Clone)]
pub struct Upstream {
    name: Arc<str>,
    http: reqwest::Client,
    request_timeout: Duration,
    max_body_bytes: usize,
}

impl Upstream {
    /// A fetcher for `config`. Sends nothing.
    pub fn new(config: &UpstreamConfig) -> Result<Self, FetchError> {
        let name: Arc<str> = Arc::from(config.name.as_str());
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            .user_agent(config.user_agent.as_str())
            .redirect(redirect::same_origin(config.max_redirects))
            .build()
            .map_err(|err| {
                FetchError::new(
                    &name,
                    FetchKind::Unreachable,
                    format!(
                        "the HTTP client could not be built: {}",
                        body::error_chain(&err)
                    ),
                )
            })?;
        Ok(Self {
            name,
            http,
            request_timeout: config.request_timeout,
            max_body_bytes: config.max_body_bytes,
        })
    }

    /// The upstream's name.
    #[must_use]
    pub fn name(&self) -> &Arc<str> {
        &self.name
    }

    /// `GET url` with `headers` (mark a secret one sensitive). Any status is an answer; only a
    /// transport failure, a timeout or a body over the cap is an error here.
    pub async fn get(&self, url: Url, headers: HeaderMap) -> Result<Fetched, FetchError> {
        self.send(self.http.get(url).headers(headers)).await
    }

    /// `POST url` with `headers` and `body` as `application/json`, under the same timeouts, body
    /// cap and same-origin redirect rule as [`get`](Self::get) (a 307 or 308 sends the body
    /// again, to the same origin only).
    pub async fn post_json(
        &self,
        url: Url,
        headers: HeaderMap,
        body: Vec<u8>,
    ) -> Result<Fetched, FetchError> {
        let request = self
            .http
            .post(url)
            .headers(headers)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        self.send(request).await
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Result<Fetched, FetchError> {
        let response = request
            .send()
            .await
            .map_err(|err| self.transport_error(&err))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = read_body_capped(response, self.max_body_bytes)
            .await
            .map_err(|err| match err {
                ReadError::TooLarge(too_large) => {
                    FetchError::new(&self.name, FetchKind::TooLarge, too_large.to_string())
                }
                ReadError::Transport(err) => self.transport_error(&err),
            })?;
        Ok(Fetched {
            status,
            headers,
            body,
        })
    }

    fn transport_error(&self, err: &reqwest::Error) -> FetchError {
        let chain = body::error_chain(err);
        let (kind, message) = if err.is_timeout() {
            (
                FetchKind::Timeout,
                if err.is_connect() {
                    format!("could not connect in time: {chain}")
                } else {
                    format!(
                        "no complete answer within {} s",
                        self.request_timeout.as_secs_f32()
                    )
                },
            )
        } else if err.is_redirect() {
            (FetchKind::Rejected, format!("refused redirect: {chain}"))
        } else if err.is_connect() {
            (
                FetchKind::Unreachable,
                format!("could not connect: {chain}"),
            )
        } else {
            (
                FetchKind::Unreachable,
                format!("the connection failed before the answer was complete: {chain}"),
            )
        };
        FetchError::new(&self.name, kind, message)
    }
}

impl Fetched {
    /// Whether the status is 2xx.
    #[must_use]
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body as `T`: an HTML page is [`FetchKind::NotJson`], a wrong shape
    /// [`FetchKind::Malformed`] naming the field path.
    pub fn json<T: serde::de::DeserializeOwned>(
        &self,
        upstream: &Arc<str>,
    ) -> Result<T, FetchError> {
        body::decode_json(&self.body, &self.headers).map_err(|message| {
            let kind = if body::looks_like_json(&self.body) {
                FetchKind::Malformed
            } else {
                FetchKind::NotJson
            };
            let mut err = FetchError::new(upstream, kind, message);
            err.status = Some(self.status);
            err
        })
    }

    /// The error of a non-2xx answer, with `message` (a source's own words for it), its status
    /// and its `Retry-After`; `None` for a success.
    #[must_use]
    pub fn status_error(
        &self,
        upstream: &Arc<str>,
        message: impl Into<String>,
    ) -> Option<FetchError> {
        let kind = FetchKind::from_status(self.status)?;
        let mut err = FetchError::new(upstream, kind, message);
        err.status = Some(self.status);
        err.retry_after = body::retry_after(&self.headers);
        Some(err)
    }

    /// A header as trimmed text.
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        body::header_text(&self.headers, name)
    }

    /// Whether the body is an HTML page.
    #[must_use]
    pub fn is_html(&self) -> bool {
        body::looks_like_html(&self.body, &self.headers)
    }
}
