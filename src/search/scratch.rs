//! Per-query buffers, reused across queries: bitsets, counters and the rest of a ranking's
//! working memory (see `SearchIndex::scratch`).

use std::collections::BinaryHeap;

use super::bits;

/// Typo levels: exact (0), at most 1, at most 2 typos.
pub(super) const LEVELS: usize = 3;

/// A word whose list postings hold more documents than `blocks / SPARSE_SHARE` is spread into
/// full-width bitsets (`Scratch::spread_from_docs`, module `wordsets`): past that, sorting its
/// documents into blocks costs more than a bitset.
pub(super) const SPARSE_SHARE: usize = 4;

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

/// Per-query buffers, reused across queries (see `SearchIndex::scratch`).
pub(crate) struct Scratch {
    /// Term id -> for each query word `i`: bit `2i` the term matches it, bit `2i+1` exactly.
    pub(super) term_info: Vec<u32>,
    /// Bitsets, `blocks` words each, back to back.
    pub(super) sets: Vec<u64>,
    pub(super) sets_used: usize,
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
    /// Whether rule 1's counters are computed only for the blocks of the best tiers that hold
    /// the page (`false`: for every candidate block; tests compare both).
    pub(super) prune: bool,
    /// Whether a ranking looks at the best bucket there can be first, and stops there when it
    /// holds the page (`candidates::top_pass`; `false`: the passes over every bucket, which
    /// tests compare with).
    pub(super) top_first: bool,
    /// The most documents of one bucket ranked at a time ([`super::RANK_WINDOW`]; tests make
    /// it small, so that their small catalogues' buckets outgrow it).
    pub(super) rank_window: usize,
    /// Whether a bucket's window is first scored in document order, while that can end it
    /// (`bucket::scan_in_order`; `false`: bounds for every document, which tests compare with).
    pub(super) in_order: bool,
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
    pub(super) keys: Vec<u64>,
    pub(super) bounds: Vec<u64>,
    pub(super) heap: BinaryHeap<u64>,
}

impl Scratch {
    pub(crate) fn new(term_count: usize, doc_count: usize) -> Self {
        Self {
            term_info: vec![0; term_count],
            sets: Vec::new(),
            sets_used: 0,
            blocks: bits::blocks_for(doc_count),
            counted: Vec::new(),
            counts: Vec::new(),
            candidate_bits: Vec::new(),
            visit: Vec::new(),
            allowed_bits: Vec::new(),
            tiers: Vec::new(),
            prune: true,
            top_first: true,
            rank_window: super::RANK_WINDOW,
            in_order: true,
            sparse: Vec::new(),
            pending: Vec::new(),
            spread_from_docs: bits::blocks_for(doc_count) / SPARSE_SHARE,
            active: Vec::new(),
            planes: Vec::new(),
            expansions: Vec::new(),
            window: Vec::new(),
            keys: Vec::new(),
            bounds: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// A zeroed bitset; its number is valid until the end of the query.
    pub(super) fn fresh_set(&mut self) -> usize {
        let index = self.unfilled_set();
        self.set_mut(index).fill(0);
        index
    }

    /// A bitset holding whatever the last query left in it, for a caller that overwrites it.
    pub(super) fn unfilled_set(&mut self) -> usize {
        let index = self.sets_used;
        self.sets_used += 1;
        let end = self.sets_used * self.blocks;
        if self.sets.len() < end {
            self.sets.resize(end, 0);
        }
        index
    }

    pub(super) fn set(&self, index: usize) -> &[u64] {
        &self.sets[index * self.blocks..(index + 1) * self.blocks]
    }

    pub(super) fn set_mut(&mut self, index: usize) -> &mut [u64] {
        &mut self.sets[index * self.blocks..(index + 1) * self.blocks]
    }

    pub(super) fn copy_set(&mut self, from: usize) -> usize {
        // Not zeroed first: the copy overwrites every block.
        let to = self.unfilled_set();
        let blocks = self.blocks;
        self.sets
            .copy_within(from * blocks..(from + 1) * blocks, to * blocks);
        to
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
