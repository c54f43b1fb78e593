//! The live index: a [`SearchIndex`] that takes products while it serves. A newcomer starts from
//! [`LiveIndex`], its front (see *Where to start reading* below).
//!
//! # Design
//!
//! An immutable base (a [`SearchIndex`], built from the catalogue or by an earlier merge), a
//! live segment of the products written since (module `segment`: persistent collections, so a
//! write copies only what it changes), and tombstones over the base's documents that a write
//! replaced or deleted. Readers take the current pair (base, segment) through an
//! [`arc_swap::ArcSwap`] and keep it alive for as long as their search runs; a write builds the
//! next pair and swaps it in, so a product is found by the first search that starts after its
//! write returns, with no queue between them and no lock a search waits on (anchors: tantivy's
//! `segment_updater` and reader, Lucene's near-real-time readers).
//!
//! In the background (or on [`LiveIndex::merge_now`]), a merge folds the segment into a new
//! base (module `merge`), saves it, and swaps it in with the writes made meanwhile; searches
//! go on over the old pair until then.
//!
//! # Ranking over base and segment
//!
//! The pages are those of one index built from the same products: the same products, in the
//! same order, for every query and page (`tests/search_live.rs` compares every page of a set of
//! queries with a full rebuild). The places where ranking depends on the whole corpus are
//! computed over both: which terms exist and how many documents have each (prefix expansion to
//! the most frequent completions, the first typo derivations in byte order: module `expand`),
//! document order (a live product is placed among the base's documents by popularity and key),
//! the buckets' windows of [`RANK_WINDOW`](super::RANK_WINDOW) documents (taken from both in
//! document order: module `query`) and the exact code maps (module `query`).
//!
//! Not equal: `estimated_total_hits` in a catalogue of 262,144 products or more, where the
//! count past the best bucket's window is estimated from a sample of the base's blocks (the
//! live segment's candidates are counted exactly and added): the sample's blocks are not the
//! ones a rebuild would sample, so the estimate may differ by about the estimate's own error
//! (about 1 %). Below that size the count is exact and equal.
//!
//! # Writes
//!
//! [`LiveIndex::upsert`] takes a [`LiveProduct`]: what the index reads of it and its search
//! hit (both datasets), so a page with live products is written without the catalogue
//! ([`LiveIndex::write_hit`]). A write whose index fields are those of the product it
//! replaces (a price change) replaces the hit alone; one whose hit is also the one the index
//! holds (a store's list or an upstream's answer repeating a product) is no write at all
//! ([`WriteOutcome::Unchanged`]: nothing appended, nothing synced). Writes are serialized;
//! each is appended to the write log and synced before it is applied and the call returns.
//!
//! # API
//!
//! - [`LiveIndex::open`]`(catalogue: &Path, conn: &Connection, config: LiveConfig) ->
//!   Result<LiveIndex, LiveError>`: the catalogue's index ([`SearchIndex::open`](super::SearchIndex::open))
//!   as generation 0, or the last merged base, and the writes since, read back.
//!   [`LiveIndex::open_in`]`(folder, identity: [u8; 32], base: impl FnOnce() ->
//!   Result<SearchIndex, LiveError>, config)` over any base (`base` is called only when the
//!   folder holds no merged base of `identity`).
//! - [`LiveIndex::upsert`]`(&LiveProduct) -> Result<WriteOutcome, LiveError>`,
//!   [`LiveIndex::upsert_many`]`(&[LiveProduct]) -> Result<Vec<WriteOutcome>, LiveError>`
//!   (one sync for all), [`LiveIndex::delete`]`(pk: i64) -> Result<WriteOutcome, LiveError>`.
//! - [`LiveIndex::search`]`(&SearchRequest) -> Result<SearchOutcome, SearchError>`.
//! - [`LiveIndex::write_hit`]`(pk, Country, full: bool, &mut Vec<u8>) -> Result<(), HitError>`:
//!   the hit of a product written here; [`HitError::Unknown`](super::HitError::Unknown) for
//!   the catalogue's own, which its [`HitStore`](super::HitStore) writes.
//! - [`LiveIndex::merge_now`]`() -> Result<bool, LiveError>`, [`LiveIndex::merge_due`],
//!   [`LiveIndex::merge_failed`], [`LiveIndex::stats`]`() -> LiveStats`.
//! - [`LiveProduct::read`]`(conn, pk)`: a catalogue product as a write carries it;
//!   [`LiveProduct::check`]: what a write refuses ([`MAX_FIELD_BYTES`] a field,
//!   [`MAX_VARIANTS`] sizes, [`MAX_LABELS`] labels).
//!
//! Threading: `LiveIndex` is `Send + Sync`; searches from any number of threads take the
//! current (base, segment) pair without a lock; writes from any thread are serialized by one
//! mutex (the same key written from two threads at once: one write, then the other, each
//! whole). A thread of its own merges at nice 10 when [`LiveConfig::background_merges`].
//!
//! Merge policy ([`MergePolicy`], in [`LiveConfig::merge_policy`]): once the live products and
//! the base products they replaced or deleted number at least 20,000 and a 16th of the base. A
//! merge builds the new base beside the old one (both in memory until the swap: some 2x the
//! index's memory at its peak), so it is rare by design; writes wait only for the swap (the
//! writes made meanwhile are replayed).
//!
//! Memory: the base as a [`SearchIndex`], plus per live product its forward entries (4 bytes
//! a term), its place in the segment's persistent maps (postings, frequency changes, codes)
//! and its hit's place in the log (the hit itself stays on disk, read with positioned reads).
//!
//! # On disk
//!
//! In the live index's folder (`<catalogue>.search-live` for [`LiveIndex::open`]), module
//! `manifest`: `MANIFEST` (the generation in force), `log-<g>.search-log` (the writes since base
//! `g`, module `log`), and from the first merge on `base-<g>.search-index` (module
//! `persist`'s format) and `hits-<g>.search-hits` (the hits of every product written live,
//! module `search::hits`' format). A merge writes generation `g + 1` beside `g` and switches
//! the manifest last: a crash at any point leaves `g` whole (its base and complete log), and
//! the next start recovers it.
//!
//! # Where to start reading
//!
//! [`LiveIndex`] (module `index`) is the front: opening, searching, writing and merging each
//! start there and go to one room:
//!
//! - `manifest`: the folder's files per generation, the manifest, the recovery at a start;
//! - `updater`: the one writer: its lock, the write log in force, a write's copy-sync-swap;
//! - `edits`: what a write changes in the segment (added, replaced, hit only, deleted);
//! - `held`: the one lookup of a written product's hit;
//! - `shared`: what the parts share ([`LiveConfig`], the current pair, the updater, the
//!   merging side) and whether a merge is due;
//! - `merger`: the merge policy ([`MergePolicy`]) and the background merging thread's side;
//! - `merge`: the new base built from the base and the segment;
//! - `commit`: a merge saved as the next generation and switched to;
//! - `segment`, `replay`, `log`, `encode`: the live segment, rebuilt from the log at a start,
//!   and the log's records;
//! - `view`, `query`, `expand`: searches over base and segment together.

// The front: start here.
mod index;
// Its rooms, each with one job.
mod commit;
mod edits;
mod encode;
mod expand;
mod held;
mod log;
mod manifest;
mod merge;
mod merger;
mod product;
mod query;
mod replay;
mod segment;
mod shared;
mod updater;
mod view;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use self::edits::WriteOutcome;
pub use self::index::{LiveIndex, LiveStats};
pub use self::merger::MergePolicy;
pub use self::product::{
    HitPrices, HitVariant, LiveProduct, MAX_FIELD_BYTES, MAX_LABELS, MAX_VARIANTS, ProductHit,
    write_to_catalogue,
};
pub use self::shared::LiveConfig;

pub(in crate::search) use self::query::LiveQuery;
pub(in crate::search) use self::view::BaseSupport;

use super::SearchError;

/// What can go wrong with a live index: its files, or a write refused.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// Reading or writing one of its files failed.
    #[error("live index: {source}: {}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// One of its files does not hold together (it is then not used).
    #[error("live index: {what}: {}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        what: &'static str,
    },
    /// Building, merging or searching the index failed.
    #[error("live index: {0}")]
    Search(#[from] SearchError),
    /// Reading a product from the catalogue failed ([`LiveProduct::read`]).
    #[error("live index: catalogue: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A product's field is longer than the index takes.
    #[error("product {pk}: {field} has {bytes} bytes; at most {max_bytes} are taken")]
    FieldTooLong {
        /// The product.
        pk: i64,
        /// The field.
        field: &'static str,
        /// Its length.
        bytes: usize,
        /// [`MAX_FIELD_BYTES`].
        max_bytes: usize,
    },
    /// A product has more sizes than the index takes.
    #[error("product {pk} has {count} sizes; at most {max} are taken")]
    TooManyVariants {
        /// The product.
        pk: i64,
        /// Its sizes.
        count: usize,
        /// [`MAX_VARIANTS`].
        max: usize,
    },
    /// A product has more labels than the index takes.
    #[error("product {pk} has {count} labels; at most {max} are taken")]
    TooManyLabels {
        /// The product.
        pk: i64,
        /// Its labels.
        count: usize,
        /// [`MAX_LABELS`].
        max: usize,
    },
    /// The index holds as many products as it numbers.
    #[error("live index: {count} products is more than one index holds")]
    Full {
        /// Products held.
        count: usize,
    },
}

impl LiveError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        LiveError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The base and the segment a search runs over (one generation of the live index).
pub(crate) struct Snapshot {
    pub(crate) base: Arc<super::SearchIndex>,
    pub(crate) segment: segment::Segment,
    /// Hits of the products written before the base was merged (from the first merge on).
    pub(crate) overlay: Option<Arc<super::HitStore>>,
}

#[cfg(test)]
mod tests;
