//! Where an answer came from: each source says it with its answer ([`Sourced`]), and the routes
//! pass it on in headers, never asking which implementation answered. A leaf of the service:
//! both seams (the catalogue side, `source`, and the real-time side, `marketplace`) and the
//! routes use it, so it imports neither.

use axum::http::{HeaderMap, HeaderValue};

pub use crate::model::origin::{
    AS_OF_HEADER, QUOTA_HEADER, SOURCE_HEADER, STALE_REASON_HEADER, STORE_HEADER,
};

/// The source names answers carry (`X-Solescope-Source`).
pub mod names {
    /// A catalogue file ranked and read by the service itself (the demo, generated, imported).
    pub const CATALOGUE: &str = "catalogue";
    /// The marketplace simulator.
    pub const SIMULATOR: &str = "simulator";
    /// KicksDB, fetched for this answer.
    pub const KICKSDB: &str = "kicksdb";
    /// What KicksDB answered earlier, kept by the service (its mirror, or a real-time answer
    /// reused); `X-Solescope-As-Of` says when it was fetched.
    pub const KICKSDB_MIRROR: &str = "kicksdb-mirror";
    /// A Shopify storefront; `X-Solescope-Store` names which.
    pub const STOREFRONT: &str = "storefront";
}

/// Where an answer came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerOrigin {
    /// One of [`names`].
    pub source: &'static str,
    /// The store that answered, for a storefront's answer (its label: `kith.com`).
    pub store: Option<String>,
    /// When its figures were fetched (RFC 3339 UTC), for an answer kept from earlier.
    pub as_of: Option<String>,
    /// Why a kept answer was given instead of a fresh one (the live source's error), when so.
    pub stale_reason: Option<String>,
}

impl AnswerOrigin {
    /// An answer fresh from `source`.
    #[must_use]
    pub fn fresh(source: &'static str) -> Self {
        Self {
            source,
            store: None,
            as_of: None,
            stale_reason: None,
        }
    }

    /// An answer from the store labelled `store`.
    #[must_use]
    pub fn store(store: &str) -> Self {
        Self {
            store: Some(store.to_owned()),
            ..Self::fresh(names::STOREFRONT)
        }
    }

    /// An answer kept from earlier by `source`, fetched at `as_of`, given because of `reason`
    /// (none: reused while still fresh enough).
    #[must_use]
    pub fn kept(source: &'static str, as_of: Option<String>, reason: Option<String>) -> Self {
        Self {
            source,
            store: None,
            as_of,
            stale_reason: reason,
        }
    }

    /// The headers that say it.
    #[must_use]
    pub fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(SOURCE_HEADER, HeaderValue::from_static(self.source));
        for (name, text) in [
            (STORE_HEADER, self.store.as_deref()),
            (AS_OF_HEADER, self.as_of.as_deref()),
            (STALE_REASON_HEADER, self.stale_reason.as_deref()),
        ] {
            if let Some(value) = text.and_then(header_value) {
                headers.insert(name, value);
            }
        }
        headers
    }
}

/// `text` as a header value: visible ASCII only (anything else becomes `?`), at most 300
/// characters.
fn header_value(text: &str) -> Option<HeaderValue> {
    let ascii: String = text
        .chars()
        .take(300)
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect();
    HeaderValue::from_str(&ascii).ok()
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Its origin.
    pub origin: AnswerOrigin,
}

impl<T> Sourced<T> {
    /// `value` fresh from `source`.
    pub fn fresh(value: T, source: &'static str) -> Self {
        Self {
            value,
            origin: AnswerOrigin::fresh(source),
        }
    }

    /// The value changed by `f`, with the same origin.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Sourced<U> {
        Sourced {
            value: f(self.value),
            origin: self.origin,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_say_the_source_the_store_and_the_age_in_ascii() {
        let mut origin = AnswerOrigin::store("kith.com");
        origin.stale_reason = Some("caf\u{e9} closed\nnow".into());
        let headers = origin.headers();
        assert_eq!(headers[SOURCE_HEADER], "storefront");
        assert_eq!(headers[STORE_HEADER], "kith.com");
        assert_eq!(headers[STALE_REASON_HEADER], "caf? closed?now");
        assert!(headers.get(AS_OF_HEADER).is_none());
    }
}
