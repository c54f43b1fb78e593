//! The product search behind `/search`: an in-memory index built from the catalogue, ranked like
//! Meilisearch (typo tolerance, prefix search, bucket sort by ranking rules) and faster.
//!
//! # Engine, and why
//!
//! A hand-built inverted index: an [`fst`] term dictionary walked by a lazy Levenshtein automaton
//! (module `typo`), posting lists (dense bitsets for frequent terms, sorted lists for the rest), a
//! forward index of each product's terms and title positions, and exact maps for style codes,
//! GTINs (as runs of consecutive numbers, module `gtins`), ids and slugs. Documents are numbered by popularity (`popularity DESC, pk`), so every
//! bitset iterates in the final tie-break order and a page is filled without sorting the tail.
//!
//! Why this and not the alternatives the issue names, measured by `cargo bench --bench search`
//! on 100,000 generated products (release, 2 shared cores, 1,000 queries per class, the same
//! queries through both engines in the same run, best of 3 runs per query):
//!
//! | class     | this index p50 / p99 | `SQLite` FTS5 `MATCH` p50 / p99 | typo no-hit (index / FTS5) |
//! |-----------|----------------------|---------------------------------|----------------------------|
//! | words     | 0.08 / 0.35 ms       | 2.6 / 23 ms                     |                            |
//! | prefixes  | 0.11 / 0.24 ms       | 7.1 / 32 ms                     |                            |
//! | one typo  | 0.10 / 0.41 ms       | 0.17 / 99 ms                    | 0.0% / 98.9%               |
//! | codes     | 0.007 / 0.03 ms      | 0.09 / 0.3 ms                   |                            |
//!
//! Build: 1.3 s and about 100 MB resident for the index, against 2.3 s for the FTS5 table.
//! FTS5 has no typo tolerance (its trigram tokenizer, not measured here, matches substrings,
//! not edits) and ranks by bm25 over whole result sets, hence its tail on frequent words
//! and prefixes. tantivy would bring typo search through the same kind of automaton, but as a
//! disk-oriented engine with segment files and scoring we would replace anyway by the bucket
//! rules below; Meilisearch's own figures (1.6 / 3.5 ms, 6.5% typo misses) are over HTTP and
//! out of process. In memory, with documents numbered so that ties need no sort, the rules cost
//! one pass of bitset arithmetic plus a bounded, early-stopping look at one bucket.
//!
//! # Kept on disk
//!
//! [`SearchIndex::open`] reads the index back from `<catalogue>.search-index` when that file was
//! written for the catalogue as it is now, and builds and saves it otherwise (module `persist`:
//! identity, checksum, validation, atomic write).
//!
//! Beside it, [`HitStore`] (module `hits`) keeps every product's search hit ready as a compact
//! record, so the service writes a page of hits without reading the catalogue: building the page
//! (20 products with all their variants, ~80 KB of JSON) had cost more than ranking.
//!
//! # Taking products while serving: [`live::LiveIndex`]
//!
//! The index above is immutable once built. [`live::LiveIndex`] wraps one as its base and takes
//! writes while it serves (module [`live`] has the design):
//!
//! - `LiveIndex::open(catalogue, conn, LiveConfig)` (base: this index of the catalogue, kept in
//!   `<catalogue>.search-live/` with its write log), or `LiveIndex::open_in(folder, identity,
//!   base, config)` over any base (an empty one for a source with no catalogue of its own);
//! - `upsert(&LiveProduct)` / `upsert_many(&[LiveProduct])` / `delete(pk)`: synced to the log,
//!   searchable when they return ([`live::WriteOutcome`] says whether the postings or only the
//!   hit changed); `search(&SearchRequest)` as [`SearchIndex::search`] over one index of the
//!   same products; `write_hit(pk, country, full, out)` for the products written to it
//!   ([`HitError::Unknown`] for the others: the catalogue's [`HitStore`] has them);
//! - merges in the background (`LiveConfig`), or `merge_now()`; `stats()`.
//!
//! Searches take no lock a write holds (an `arc-swap` of the base and segment pair); writes are
//! serialized. [`RecentSearches`] keeps pages for an immutable index: over a live index, a
//! kept page must be dropped when a write lands (key it by `LiveStats::writes`).
//!
//! # Ranking
//!
//! Code hits first: a style code (with or without dash), GTIN, product id, slug or link typed in
//! the text. Then the rules, in order, each splitting the ties of the one before:
//! 1. more query words matched (a word matches a term in any field);
//! 2. fewer typos (sum over matched words of the fewest typos of a matching term);
//! 3. proximity: matched words close together and in query order in the title;
//! 4. field importance: title and code > brand > colorway, category, gender > description;
//! 5. exactness: the title equals the query (for a text of more than [`MAX_QUERY_WORDS`] words:
//!    the title is as long as the text and starts with the kept words), then more words
//!    matched whole (not as prefix);
//! 6. popularity (higher first), then `pk` (lower first).
//!
//! The best bucket there can be is looked at first: every word matched, each with the fewest
//! typos its terms have. When it holds the page, one pass counts the candidates and finds that
//! bucket's documents (module `candidates`, `top_pass`), and no other bucket is computed; in a
//! catalogue of 262,144 products or more, the count past the bucket's first [`RANK_WINDOW`]
//! documents is estimated from a quarter of the blocks. The pass gives up early when the
//! bucket, projected from the blocks read, cannot hold the page. Else
//! rule 1 is computed over bitsets for all candidates (bit-sliced counters), rule 2 the same way
//! but only in the blocks of 64 documents that hold the buckets the page is taken from. Rules 3-5
//! are computed per document only for the buckets that fill the page, visiting documents in
//! order of a cheap lower bound of their key and stopping once no later one can enter the
//! page (first, a few dozen in popularity order: when the page fills with keys no other
//! document can beat, no bound is needed). That bound knows which words a document holds and
//! how many exactly, not where: when it cannot stop the scoring early (the words are seldom
//! next to each other in the titles), each document's title sketch (its first 15 title words
//! as one-byte codes, 16 bytes a product, module `parts`) gives the proximity it can have at
//! best, which for most documents is its own, and only a few more are scored. A bucket of more
//! than [`RANK_WINDOW`] documents is
//! ranked in windows of that many documents taken in popularity order, so the cost of a page is
//! bounded (this is the one place where the order is an approximation; it is the same for every
//! page size, so paging is stable).
//!
//! # Matching
//!
//! Words follow module `text`. Each query word matches the terms within its typo budget (none under
//! 5 characters, 1 from 5, 2 from 9; none for words with digits); the last word, unless the text
//! ends with a space, also matches as a prefix, expanded to its [`PREFIX_EXPANSIONS`] most
//! frequent completions. A word's typo derivations are remembered across queries (module
//! `derive`: words repeat even when queries do not), and so are the full-width sets of a word
//! with several frequent terms (module `spreads`). At most [`MAX_QUERY_WORDS`] words are used; text over
//! [`MAX_QUERY_CHARS`] characters is refused with [`SearchError::QueryTooLong`] (a 400).

mod analyze;
mod bits;
mod bucket;
mod build;
mod candidates;
mod cursor;
mod derive;
mod docs;
mod documents;
mod gtins;
pub mod hits;
pub mod live;
mod numbering;
mod parts;
mod persist;
mod prefixes;
mod query;
mod recent;
mod scratch;
mod sorted_map;
mod spreads;
pub mod stages;
mod terms;
mod text;
mod typo;
mod wordsets;

pub use self::hits::{HitError, HitFor, HitStore, UnbuiltHitStore, WarmUp};
pub use self::persist::{IndexSource, UnsavedIndex};
pub use self::recent::RecentSearches;
pub use self::text::words;

use std::sync::Mutex;

/// Longest accepted query text, in characters; longer text is a client error (400).
pub const MAX_QUERY_CHARS: usize = 1_000;
/// Query words beyond this many are ignored, as Meilisearch does.
pub const MAX_QUERY_WORDS: usize = 10;
/// Typo levels of a query word's documents: exact (0), at most 1, at most 2 typos.
const LEVELS: usize = 3;
/// How many completions the last word's prefix expands to (the most frequent ones).
pub const PREFIX_EXPANSIONS: usize = 64;
/// Buckets larger than this are ranked by rules 3-5 within windows of this many documents.
pub const RANK_WINDOW: usize = 4_096;

/// The search index over one catalogue. Immutable once built; `Send + Sync`, so the service
/// shares it behind an `Arc` and searches from many threads at once.
pub struct SearchIndex {
    /// `products.pk` of each document; documents are numbered by popularity.
    pks: Vec<i64>,
    /// `products.popularity` of each document (decreasing; ties by `pk`): where a product
    /// written live falls among the documents (module `live`).
    popularity: Vec<i64>,
    dictionary: parts::Dictionary,
    postings: parts::Postings,
    forward: parts::Forward,
    codes: parts::Codes,
    /// Reusable per-query buffers (one per concurrent search), so a search allocates little.
    scratch: Mutex<Vec<scratch::Scratch>>,
    /// Typo derivations of the words searched so far (module `derive`).
    derivations: derive::DerivationCache,
    /// Full-width sets of the words spread so far (module `spreads`).
    spreads: spreads::SpreadCache,
    /// What a live index over this one needs beyond ranking (module `live`), made on first use.
    live_support: std::sync::OnceLock<live::BaseSupport>,
    /// `(pk, document)` sorted by pk, made by the first search narrowed to a list of products
    /// (12 bytes a product; none until then).
    doc_of_pk: std::sync::OnceLock<Vec<(i64, u32)>>,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("products", &self.pks.len())
            .field("terms", &self.dictionary.term_count())
            .finish_non_exhaustive()
    }
}

/// What can go wrong when building the index or searching.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// Reading the catalogue failed while building the index (a 500).
    #[error("search index: catalogue database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Writing the hit store failed (module `hits`; the service then keeps it in a temporary
    /// file, and fails to start only when that fails too).
    #[error("search hit store: {0}")]
    Io(#[from] std::io::Error),
    /// Building the term dictionary failed (a 500; it means a bug, terms are sorted first).
    #[error("search index: term dictionary: {0}")]
    Dictionary(#[from] fst::Error),
    /// The catalogue changed while the index was read from it (its products are read on two
    /// connections); opening again builds from the catalogue as it is then.
    #[error("search index: the catalogue changed while it was read")]
    CatalogueChanged,
    /// The catalogue has more products than the index numbers (over `u32::MAX`).
    #[error("search index: {count} products is more than one index holds")]
    TooManyProducts {
        /// Products in the catalogue.
        count: usize,
    },
    /// The catalogue has more distinct words than one index numbers (over 16,777,216).
    #[error("search index: {count} distinct words is more than one index holds")]
    TooManyTerms {
        /// Distinct words in the catalogue.
        count: usize,
    },
    /// The catalogue's style codes or slugs take 4 GB or more, more than one index holds.
    #[error("search index: the style codes or slugs take more than one index holds (4 GB)")]
    CodesTooLarge,
    /// The search looks a GTIN up and the index's GTIN map is still being read from the
    /// catalogue (in the seconds after a large catalogue's first start): the caller asks again
    /// with [`SearchIndex::search_resolving_gtins`].
    #[error("search index: the GTIN map is still being read")]
    GtinsPending,
    /// The query text is longer than [`MAX_QUERY_CHARS`] (a 400).
    #[error("the search text has {actual_chars} characters; at most {max_chars} are allowed")]
    QueryTooLong {
        /// Characters in the text.
        actual_chars: usize,
        /// The limit, [`MAX_QUERY_CHARS`].
        max_chars: usize,
    },
}

/// One search: free text, optional exact filters, and the page wanted.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest<'a> {
    /// Free text, may be empty (then products come by popularity).
    pub text: &'a str,
    /// Exact filter on the style code, compared normalized (upper case, letters and digits only).
    pub sku: Option<&'a str>,
    /// Exact filter: products having a variant with this GTIN (GTIN-8/12/13/14, compared as
    /// GTIN-14, so a UPC-A matches its EAN-13 form with a leading zero).
    pub gtin: Option<&'a str>,
    /// Hits to skip: `(page - 1) * limit`, computed by the caller.
    pub offset: usize,
    /// Hits per page, 1..=100, validated by the caller.
    pub limit: usize,
    /// Only these products (their keys, ascending): a search narrowed to what a store has
    /// in stock (`service::shelf`). `None`: every product.
    pub pks: Option<&'a [i64]>,
}

/// The page of hits and the size of the whole result.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOutcome {
    /// `products.pk` of the requested page, best first.
    pub product_pks: Vec<i64>,
    /// Number of products matching at least one query word (or the filters), code hits
    /// included: exact for the query as run, except that prefix expansion is capped and, in a
    /// catalogue of 262,144 products or more, when the best bucket holds the page the count
    /// past its window is estimated from a sample (module `candidates`, `top_pass`; within
    /// about 1 % at a million products). The interface calls it an estimate.
    pub estimated_total_hits: u64,
}

impl SearchIndex {
    /// Builds the index from every product of the catalogue behind `conn`.
    pub fn build(conn: &rusqlite::Connection) -> Result<SearchIndex, SearchError> {
        build::build(conn, None)
    }

    /// An index of no product, for a service whose searches are ranked elsewhere.
    pub fn empty() -> Result<SearchIndex, SearchError> {
        let conn = rusqlite::Connection::open_in_memory()?;
        crate::catalogue::create_schema(&conn)
            .map_err(|err| SearchError::Io(std::io::Error::other(err.to_string())))?;
        build::build(&conn, None)
    }

    /// Whether the GTIN map is still to be read ([`read_gtins_later`](Self::read_gtins_later)).
    #[must_use]
    pub fn gtins_pending(&self) -> bool {
        self.codes.gtins.map().is_none()
    }

    /// Reads the GTIN map of an index opened without it, from `conn`, the catalogue it was
    /// built from; nothing when it has it.
    pub fn read_gtins_later(&self, conn: &rusqlite::Connection) -> Result<(), SearchError> {
        gtins::read_later(self, conn)
    }

    /// Runs one search. Pure CPU: no I/O, no locks held beyond taking a scratch buffer.
    ///
    /// [`SearchError::GtinsPending`] when it looks a GTIN up while the GTIN map is still to be
    /// read.
    pub fn search(&self, request: &SearchRequest<'_>) -> Result<SearchOutcome, SearchError> {
        check_length(request)?;
        if let Some(map) = self.codes.gtins.map() {
            return Ok(self.run(request, &gtins::GtinLookup::Map(map)));
        }
        let (outcome, asked) = self.run_noting_gtins(request);
        if asked.is_empty() {
            Ok(outcome)
        } else {
            Err(SearchError::GtinsPending)
        }
    }

    /// [`search`](Self::search), with the GTINs it looks up found by `product_pks` (the
    /// products with a variant of that GTIN-14 number, in the catalogue the index was built
    /// from) while the GTIN map is still to be read. The same page as once the map is read.
    pub fn search_resolving_gtins(
        &self,
        request: &SearchRequest<'_>,
        product_pks: &mut dyn FnMut(u64) -> Result<Vec<i64>, SearchError>,
    ) -> Result<SearchOutcome, SearchError> {
        check_length(request)?;
        let Some(doc_of_pk) = self.codes.gtins.doc_of_pk() else {
            return self.search(request);
        };
        let (outcome, mut asked) = self.run_noting_gtins(request);
        if asked.is_empty() {
            return Ok(outcome);
        }
        asked.sort_unstable();
        asked.dedup();
        let mut resolved = Vec::with_capacity(asked.len());
        for gtin in asked {
            let mut docs: Vec<u32> = product_pks(gtin)?
                .into_iter()
                .filter_map(|pk| doc_of_pk.get(pk))
                .collect();
            docs.sort_unstable();
            docs.dedup();
            resolved.push((gtin, docs));
        }
        Ok(self.run(request, &gtins::GtinLookup::Resolved(&resolved)))
    }

    /// The search run with GTINs found by none, and the GTINs it looked up.
    fn run_noting_gtins(&self, request: &SearchRequest<'_>) -> (SearchOutcome, Vec<u64>) {
        let asked = std::cell::RefCell::default();
        let outcome = self.run(request, &gtins::GtinLookup::Noting(&asked));
        (outcome, asked.into_inner())
    }

    fn run(&self, request: &SearchRequest<'_>, gtins: &gtins::GtinLookup<'_>) -> SearchOutcome {
        let mut scratch = self.take_scratch();
        let outcome = query::run(self, &mut scratch, request, gtins);
        self.return_scratch(scratch);
        outcome
    }

    /// What a live index over this one needs beyond ranking (made on first use).
    /// The documents of the products `pks` (ascending) the index holds, ascending.
    pub(in crate::search) fn docs_of_pks(&self, pks: &[i64]) -> Vec<u32> {
        let by_pk = self.doc_of_pk.get_or_init(|| {
            let mut pairs: Vec<(i64, u32)> = self
                .pks
                .iter()
                .enumerate()
                .map(|(doc, &pk)| (pk, doc as u32))
                .collect();
            pairs.sort_unstable();
            pairs
        });
        let mut docs: Vec<u32> = pks
            .iter()
            .filter_map(|pk| {
                by_pk
                    .binary_search_by_key(pk, |&(key, _)| key)
                    .ok()
                    .map(|at| by_pk[at].1)
            })
            .collect();
        docs.sort_unstable();
        docs.dedup();
        docs
    }

    pub(in crate::search) fn live_support(&self) -> &live::BaseSupport {
        self.live_support
            .get_or_init(|| live::BaseSupport::new(self))
    }

    /// Number of products in the index.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pks.len()
    }

    /// Whether the index holds no product.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pks.is_empty()
    }

    fn take_scratch(&self) -> scratch::Scratch {
        let pooled = match self.scratch.lock() {
            Ok(mut pool) => pool.pop(),
            // A panic elsewhere while holding the lock only lost a buffer; start a new one.
            Err(poisoned) => poisoned.into_inner().pop(),
        };
        pooled.unwrap_or_else(|| scratch::Scratch::new(self.dictionary.term_count(), self.len()))
    }

    fn return_scratch(&self, scratch: scratch::Scratch) {
        let mut pool = match self.scratch.lock() {
            Ok(pool) => pool,
            Err(poisoned) => poisoned.into_inner(),
        };
        pool.push(scratch);
    }
}

/// [`SearchError::QueryTooLong`] for a text over [`MAX_QUERY_CHARS`].
fn check_length(request: &SearchRequest<'_>) -> Result<(), SearchError> {
    let actual_chars = request.text.chars().count();
    if actual_chars > MAX_QUERY_CHARS {
        return Err(SearchError::QueryTooLong {
            actual_chars,
            max_chars: MAX_QUERY_CHARS,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
