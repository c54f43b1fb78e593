//! Per-query buffers, reused across queries: bitsets, counters and the rest of a ranking's
//! working memory (see `SearchIndex::scratch`).

use std::collections::BinaryHeap;
use std::sync::Arc;

use super::parts::TitleSketch;
use super::spreads::Spread;
use super::{LEVELS, bits};

/// Blocks a pass over every block takes at a time (module `candidates`; a few in tests, so
/// that their small catalogues make several chunks, and a chunk ends with blocks that fill
/// no whole group of `candidates::GROUP`).
pub(super) const CHUNK: usize = if cfg!(test) { 6 } else { 256 };

/// A word whose list postings hold more documents than `blocks / SPARSE_SHARE` is spread into
/// full-width bitsets (`Scratch::spread_from_docs`, module `wordsets`): past that, sorting its
/// documents into blocks costs more than a bitset.
pub(super) const SPARSE_SHARE: usize = 4;

/// Catalogues of at least this many blocks (262,144 documents) count the candidates past the
/// best bucket's window from a sample (`Scratch::sampled_from_blocks`, `candidates::top_pass`);
/// smaller ones count every block.
pub(super) const SAMPLED_FROM_BLOCKS: usize = 4_096;

/// One non-empty block of 64 documents of a word: its documents at each typo level.
#[derive(Debug, Clone, Copy)]
pub(super) struct SparseBlock {
    pub(super) block: u32,
    pub(super) levels: [u64; LEVELS],
}

/// Bit planes of the rule-1 counters (words matched, at most [`super::MAX_QUERY_WORDS`]).
pub(super) const COUNT_PLANES: usize = 4;
/// Bit planes of the rule-2 counters (typos, at most two per word).
const TYPO_PLANES: usize = 5;
pub(super) const PLANES: usize = COUNT_PLANES + TYPO_PLANES;

/// Ways a ranking saves work without changing its pages, all taken by default; tests turn each
/// off to compare the pages with and without it.
#[derive(Debug, Clone, Copy)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent switches, each compared on its own by a test"
)]
pub(super) struct Shortcuts {
    /// Rule 1's counters computed only for the blocks of the best tiers that hold the page
    /// (`false`: for every candidate block).
    pub(super) prune: bool,
    /// The best bucket there can be looked at first, and the ranking stopped there when it
    /// holds the page (`candidates::top_pass`; `false`: the passes over every bucket).
    pub(super) top_first: bool,
    /// The best bucket's pass given up early when it is projected to hold fewer documents than
    /// the page needs (`candidates::top_pass`; `false`: read to the end).
    pub(super) abandon: bool,
    /// A bucket's window first scored in document order, while that can end it
    /// (`bucket::scan_in_order`; `false`: bounds for every document).
    pub(super) in_order: bool,
    /// A window larger than the page ranked by bounds (`false`: every document of it scored).
    pub(super) bounded: bool,
    /// The bound without positions tried first, for a few times the page's worth of documents
    /// (`false`: the title sketches read at once).
    pub(super) plain_first: bool,
    /// The title sketches read where the bound without positions fails (`false`: that bound
    /// throughout; tests count the documents scored either way).
    pub(super) sketched: bool,
}

impl Default for Shortcuts {
    fn default() -> Self {
        Self {
            prune: true,
            top_first: true,
            abandon: true,
            in_order: true,
            bounded: true,
            plain_first: true,
            sketched: true,
        }
    }
}

/// Per-query buffers, reused across queries (see `SearchIndex::scratch`).
pub(crate) struct Scratch {
    /// What each term is to the query's words.
    pub(super) terms: QueryTerms,
    /// The query's spread words (module `spreads`), held until the next query.
    pub(super) spreads: Vec<Arc<Spread>>,
    pub(super) blocks: usize,
    /// Blocks with at least one candidate, and their bit-sliced word counters (rule 1).
    pub(super) counted: Vec<u32>,
    pub(super) counts: Vec<[u64; COUNT_PLANES]>,
    /// The candidates of each counted block.
    pub(super) candidate_bits: Vec<u64>,
    /// The blocks the candidate pass visits, and the filters' documents in each (when filtered).
    pub(super) visit: Vec<u32>,
    pub(super) allowed_bits: Vec<u64>,
    /// Per visited block, the best rule-1 tier of its candidates (module `query`).
    pub(super) tiers: Vec<u8>,
    /// The ranking's shortcuts, each of which tests turn off to compare with.
    pub(super) shortcuts: Shortcuts,
    /// The most documents of one bucket ranked at a time ([`super::RANK_WINDOW`]; tests make
    /// it small, so that their small catalogues' buckets outgrow it).
    pub(super) rank_window: usize,
    /// Documents scored in order of a bound (their rules 3-5 computed from the forward index
    /// to prove a page) by this scratch so far.
    pub(super) scored: u64,
    /// Whether the last query's best-bucket pass was given up early (`candidates::top_pass`).
    pub(super) abandoned: bool,
    /// From this many blocks, the best bucket's pass counts the candidates past its window
    /// from a sample ([`SAMPLED_FROM_BLOCKS`]; tests make it small).
    pub(super) sampled_from_blocks: usize,
    /// The sparse parts of the query words' sets (module `wordsets`), and the documents of a
    /// word's lists being sorted into blocks.
    pub(super) sparse: Vec<SparseBlock>,
    pub(super) pending: Vec<u64>,
    /// A word whose list postings hold more documents than this is spread into full-width
    /// bitsets (module `wordsets`).
    pub(super) spread_from_docs: usize,
    /// The blocks the buckets looked at so far lie in, with their words and typo counters.
    pub(super) active: Vec<u32>,
    pub(super) planes: Vec<[u64; PLANES]>,
    pub(super) expansions: Vec<Expansion>,
    pub(super) window: Vec<u32>,
    /// Per document of `window`: the query words it holds (a bit each, from bit 0), the number
    /// of them it holds exactly (from bit 16), and whether it was scored (bit 31); from its
    /// block's word sets (module `bucket`).
    pub(super) window_words: Vec<u32>,
    /// Per document of `window`: its title sketch, read in a loop of their own when the bound
    /// without positions failed (the reads are independent there, so they overlap where one
    /// per bound would wait on each).
    pub(super) window_sketches: Vec<TitleSketch>,
    /// Title-sketch code -> the query words having a term of that code (`parts::title_code`).
    pub(super) code_words: Box<[u16; 256]>,
    pub(super) keys: Vec<u64>,
    pub(super) bounds: Vec<u64>,
    pub(super) heap: BinaryHeap<u64>,
    /// One chunk of [`CHUNK`] blocks per query word, for the passes over every block (module
    /// `candidates`): a word's documents there when its full-width part cannot be read in place.
    pub(super) chunks: Vec<[u64; CHUNK]>,
}

impl Scratch {
    pub(crate) fn new(term_count: usize, doc_count: usize) -> Self {
        Self {
            terms: QueryTerms::new(term_count),
            spreads: Vec::new(),
            blocks: bits::blocks_for(doc_count),
            counted: Vec::new(),
            counts: Vec::new(),
            candidate_bits: Vec::new(),
            visit: Vec::new(),
            allowed_bits: Vec::new(),
            tiers: Vec::new(),
            shortcuts: Shortcuts::default(),
            rank_window: super::RANK_WINDOW,
            scored: 0,
            abandoned: false,
            sampled_from_blocks: SAMPLED_FROM_BLOCKS,
            sparse: Vec::new(),
            pending: Vec::new(),
            spread_from_docs: bits::blocks_for(doc_count) / SPARSE_SHARE,
            active: Vec::new(),
            planes: Vec::new(),
            expansions: Vec::new(),
            window: Vec::new(),
            window_words: Vec::new(),
            window_sketches: Vec::new(),
            code_words: Box::new([0; 256]),
            keys: Vec::new(),
            bounds: Vec::new(),
            heap: BinaryHeap::new(),
            chunks: vec![[0; CHUNK]; super::MAX_QUERY_WORDS],
        }
    }
}

/// Bits of [`QueryTerms`]'s filter.
const TERM_FILTER_BITS: usize = 4_096;

/// Term id -> for each query word `i`: bit `2i` the term matches it, bit `2i+1` exactly; with a
/// filter of the query's terms (bit `term % 4096`) that answers most other terms without
/// reading their entry.
///
/// Scoring a document reads what each of its terms is to the query (module `bucket`): dozens
/// of terms a document, nearly all of them no query word's, each a read at a random place of
/// a table of 4 bytes a term (megabytes at a million products) that mostly missed the cache:
/// half of `DocHits::scan`'s samples sat on that read (`perf record` of `benches/search.rs
/// --rank-only` at a million products). The filter is 512 bytes, kept in the nearest cache, and
/// a query of a few hundred terms leaves most of its bits clear; with it, the scan's share of
/// the same run fell from 6.0 % to 4.1 %, same pages. Why by hand: a Bloom filter crate hashes
/// each key, and one query's term ids (a prefix's completions are neighbours in the
/// dictionary's order) spread over the bits well enough as they are.
pub(crate) struct QueryTerms {
    info: Vec<u32>,
    filter: Box<[u64; TERM_FILTER_BITS / 64]>,
    /// The terms marked since the last clearing, so that clearing resets only their entries.
    marked: Vec<u32>,
}

impl QueryTerms {
    fn new(term_count: usize) -> Self {
        Self {
            info: vec![0; term_count],
            filter: Box::new([0; TERM_FILTER_BITS / 64]),
            marked: Vec::new(),
        }
    }

    /// `term`'s word of the filter and its bit there.
    #[inline]
    fn filter_bit(term: u32) -> (usize, u64) {
        let bit = term as usize % TERM_FILTER_BITS;
        (bit / 64, 1 << (bit % 64))
    }

    /// Makes room for terms numbered below `term_count` (a live index numbers its new terms
    /// after the index's own, module `live`).
    pub(super) fn ensure(&mut self, term_count: usize) {
        if self.info.len() < term_count {
            self.info.resize(term_count, 0);
        }
    }

    /// Adds `bits` to what `term` is to the query.
    pub(super) fn mark(&mut self, term: u32, bits: u32) {
        self.info[term as usize] |= bits;
        let (word, bit) = Self::filter_bit(term);
        self.filter[word] |= bit;
        self.marked.push(term);
    }

    /// What `term` is to the query's words (0: none of them).
    #[inline]
    pub(super) fn get(&self, term: u32) -> u32 {
        let (word, bit) = Self::filter_bit(term);
        if self.filter[word] & bit == 0 {
            return 0;
        }
        self.info[term as usize]
    }

    /// Forgets every term marked since the last clearing.
    pub(super) fn clear(&mut self) {
        for term in self.marked.drain(..) {
            self.info[term as usize] = 0;
        }
        self.filter.fill(0);
    }
}

/// A term one query word matches.
#[derive(Clone, Copy)]
pub(super) struct Expansion {
    pub(super) word: usize,
    pub(super) term: u32,
    pub(super) typos: u8,
    pub(super) exact: bool,
}

impl Expansion {
    /// What adds query word `word`'s terms to `out`: each call one term, with its typos and
    /// whether it is the word itself. The index's expansion and the live index's record a term
    /// through it, so that the two cannot record one differently.
    #[inline]
    pub(super) fn pusher(out: &mut Vec<Self>, word: usize) -> impl FnMut(u32, u8, bool) + '_ {
        move |term, typos, exact| {
            out.push(Self {
                word,
                term,
                typos,
                exact,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A marked term answers what it was marked with, whatever else shares its filter bit; an
    /// unmarked term answers 0 (its filter bit clear or not); clearing forgets every mark.
    #[test]
    fn query_terms_answer_their_marks_and_forget_them_when_cleared() {
        let bits = TERM_FILTER_BITS as u32;
        let mut terms = QueryTerms::new(3 * TERM_FILTER_BITS);
        let marked = [
            (5, 0b01),
            (6, 0b11),
            (5 + 2 * bits, 0b100),
            (bits - 1, 0b1000),
        ];
        for &(term, info) in &marked {
            terms.mark(term, info);
        }
        terms.mark(6, 0b100);
        for &(term, info) in &marked {
            let extra = if term == 6 { 0b100 } else { 0 };
            assert_eq!(terms.get(term), info | extra, "term {term}");
        }
        // 5 + bits shares term 5's filter bit, 7 has a bit of its own: neither is the query's.
        for term in [5 + bits, 7, 2 * bits - 1 + bits, 0] {
            assert_eq!(terms.get(term), 0, "term {term}");
        }
        terms.clear();
        assert!(terms.filter.iter().all(|&word| word == 0));
        assert!(terms.info.iter().all(|&info| info == 0));
    }
}
