//! What the ranking asks of a live segment over the index it ranks (the segment's part of one
//! search), so that module `query` ranks the index's documents and the segment's as one
//! index's without depending on module `live`, which implements it (`live::LiveQuery`) and
//! calls the ranking.
//!
//! Documents are numbered as one index's: the index's own `0..base`, then the live documents
//! by their slot in the segment (`base + slot` is `docs().live_doc(slot)`).

use super::QueryWord;
use crate::search::bucket::LiveEntry;
use crate::search::docs::LiveDocs;
use crate::search::scratch::Expansion;
use crate::search::wordsets::ExactSet;
use crate::search::{SearchOutcome, SearchRequest};

/// A live segment's part of one search (see the module documentation).
pub(in crate::search) trait LivePart {
    /// Whether base document `doc` was replaced or deleted.
    fn is_dead(&self, doc: u32) -> bool;

    /// The base documents replaced or deleted, one bit each; `None` when none was.
    fn dead(&self) -> Option<&[u64]>;

    /// Terms of the base and the segment: union ids are below this.
    fn term_count(&self) -> usize;

    /// The live documents, by their numbers past the base's.
    fn docs(&self) -> &dyn LiveDocs;

    /// Live candidates (code hits aside).
    fn candidate_count(&self) -> usize;

    /// The terms query word `word` matches over the base and the segment.
    fn expand(&self, word_index: usize, word: &QueryWord, out: &mut Vec<Expansion>);

    /// The live documents within the request's `sku` and `gtin` filters (as `query::filtered`
    /// for the base); whether any live document passes them.
    fn filter(&mut self, request: &SearchRequest<'_>) -> bool;

    /// The products named exactly by a code in `text`: the base's (`base_hits`, increasing,
    /// within the filters and not replaced) and the segment's, in document order, numbered
    /// for this search.
    fn with_code_hits(&mut self, text: &str, base_hits: &[u32]) -> Vec<u32>;

    /// Finds the live candidates of the query whose words expand to `expansions`: each
    /// document holding a word, with the words it holds (at which typo level each) and which
    /// of `exact_sets` it is in, in document order.
    fn find_candidates(
        &mut self,
        expansions: &[Expansion],
        word_count: usize,
        exact_sets: &[ExactSet],
    );

    /// How many live candidates have `matched` words and `typos` typos.
    fn bucket_size(&self, matched: usize, typos: usize) -> u64;

    /// The live candidates with `matched` words and `typos` typos, in document order, each
    /// made when taken.
    fn bucket(&self, matched: usize, typos: usize) -> Box<dyn Iterator<Item = LiveEntry> + '_>;

    /// Adds the live candidates to `per_count` by words matched.
    fn count_by_matched(&self, per_count: &mut [u64]);

    /// Adds the live candidates with `matched` words to `per_typos` by typos.
    fn count_by_typos(&self, matched: usize, per_typos: &mut [u64]);

    /// The page `offset..offset + limit` of `ranked` (this search's numbers).
    fn page(&self, ranked: &[u32], offset: usize, limit: usize, total: u64) -> SearchOutcome;

    /// The products by popularity (a search without words): the base's within `allowed`
    /// (increasing, not replaced) or all it did not replace, and the segment's within the
    /// filters or all, in document order.
    fn listing(&mut self, allowed: Option<&[u32]>, offset: usize, limit: usize) -> SearchOutcome;
}
