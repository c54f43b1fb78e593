//! The headers in which the service says where an answer's figures come from: named once here
//! for the service that writes them and the client that reads them.

/// Header: where an answer's figures come from (`catalogue`, `simulator`, `kicksdb`,
/// `kicksdb-mirror`, `storefront`; a client must accept names it does not know).
pub const SOURCE_HEADER: &str = "x-solescope-source";
/// Header: when the figures were fetched (RFC 3339 UTC), on answers from a mirror.
pub const AS_OF_HEADER: &str = "x-solescope-as-of";
/// Header: why a mirror answered instead of the live source.
pub const STALE_REASON_HEADER: &str = "x-solescope-stale-reason";
/// Header: the live source's count of this month's requests (KicksDB's `X-Quota-Current`).
pub const QUOTA_HEADER: &str = "x-upstream-quota-current";
/// Header: which store answered, on a storefront's answer (its label: `kith.com`).
pub const STORE_HEADER: &str = "x-solescope-store";
