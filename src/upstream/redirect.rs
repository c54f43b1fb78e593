//! Which redirects an outside fetch follows: only to the same scheme, host and port as the URL
//! first asked for, so a server cannot turn a fetch into one from another host (an intranet
//! address, say) or over a scheme nobody chose.

use reqwest::Url;
use reqwest::redirect::Policy;

/// Follow at most `max_hops` redirects, each to the origin first asked for; stop at any other,
/// so the 3xx itself is the answer (and the call fails on its status).
#[must_use]
pub fn same_origin(max_hops: usize) -> Policy {
    Policy::custom(move |attempt| {
        let Some(first) = attempt.previous().first() else {
            return attempt.stop();
        };
        if attempt.previous().len() > max_hops {
            attempt.error(format!("more than {max_hops} redirects"))
        } else if is_same_origin(first, attempt.url()) {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// Same scheme, host and port (the default port counted as the port).
#[must_use]
pub fn is_same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}
