//! Times as tests write them: one parser for the RFC 3339 strings the unit tests of every layer
//! pin their clocks and dates to.

use chrono::{DateTime, Utc};

/// `text` (RFC 3339, any offset) as a UTC time. Panics on a malformed time: only tests call it,
/// with times they spell out.
pub(crate) fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}
