//! The parts of a built index, as ranking and the saved file read them: the term dictionary,
//! posting lists, the forward index with its entry flags, and the exact code maps. Built by
//! module `build`, written and read back by module `persist`.

use std::collections::HashMap;

use super::bits;
use super::gtins::IndexGtins;
use super::sorted_map::{SortedMap, TextMap};

/// Field importance, best first (rule 4). Title and style code share the top rank.
pub(crate) const RANK_TITLE: u8 = 0;
pub(crate) const RANK_BRAND: u8 = 1;
pub(crate) const RANK_COLOR: u8 = 2;
pub(crate) const RANK_DESCRIPTION: u8 = 3;

/// Title positions are kept up to this one; later words share it.
pub(crate) const MAX_TITLE_POSITION: u8 = 31;

/// Forward-index entry flags, packed in a byte: rank in bits 0-1, title flag, title position.
pub(crate) const META_RANK_MASK: u8 = 0b11;
pub(crate) const META_TITLE: u8 = 0b100;
pub(crate) const META_POSITION_SHIFT: u8 = 3;

/// The term dictionary: two FSTs (term -> term id) and the table of crowded prefixes.
pub(crate) struct Dictionary {
    /// Terms without digits: the ones typo tolerance applies to (a few thousand words).
    pub(crate) words: fst::Map<Vec<u8>>,
    /// Terms with a digit: style codes and their parts, model numbers, years.
    pub(crate) codes: fst::Map<Vec<u8>>,
    /// Prefixes with more than [`PREFIX_EXPANSIONS`] completions -> the most frequent ones.
    pub(crate) crowded_prefixes: HashMap<Box<[u8]>, Box<[u32]>>,
    term_count: usize,
}

impl Dictionary {
    /// A dictionary from parts read back from disk.
    pub(crate) fn from_parts(
        words: fst::Map<Vec<u8>>,
        codes: fst::Map<Vec<u8>>,
        crowded_prefixes: HashMap<Box<[u8]>, Box<[u32]>>,
        term_count: usize,
    ) -> Self {
        Self {
            words,
            codes,
            crowded_prefixes,
            term_count,
        }
    }

    /// Number of distinct terms; term ids are `0..term_count`, most frequent first.
    pub(crate) fn term_count(&self) -> usize {
        self.term_count
    }
}

/// Where a term's documents are.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Posting {
    /// `docs[start..start + len]`, increasing.
    List { start: u32, len: u32 },
    /// Bitset number `index` of `dense` (for terms in at least 1/32 of documents).
    Dense { index: u32 },
}

/// Term id -> the documents having it (`SearchIndex::postings`).
pub(crate) struct Postings {
    pub(crate) of_term: Vec<Posting>,
    pub(crate) docs: Vec<u32>,
    /// Bitsets of frequent terms, `blocks` words each, back to back.
    pub(crate) dense: Vec<u64>,
    pub(crate) blocks: usize,
}

impl Postings {
    /// Adds the documents of `term` to `set`.
    pub(crate) fn union_into(&self, term: u32, set: &mut [u64]) {
        match self.of_term[term as usize] {
            Posting::List { start, len } => {
                let start = start as usize;
                for &doc in &self.docs[start..start + len as usize] {
                    bits::insert(set, doc);
                }
            }
            Posting::Dense { index } => {
                let start = index as usize * self.blocks;
                bits::union_with(set, &self.dense[start..start + self.blocks]);
            }
        }
    }
}

/// Document -> its terms: title words in order (with positions), then the other fields' terms
/// not already seen, best field first, description-only terms last.
///
/// Ranking reads documents scattered over the index, so each one costs about two cache
/// misses: its header, then its entries (term id and flags packed in one `u32`).
pub(crate) struct Forward {
    pub(crate) docs: Vec<DocHeader>,
    /// `term << 8 | meta` (see [`META_RANK_MASK`]).
    pub(crate) entries: Vec<u32>,
    /// `docs[d].title_distinct` of every document, packed: ranking reads it for every document
    /// of a bucket's window (thousands, scattered over the index), a byte per document fits the
    /// cache where the 16-byte headers did not (1 MB at a million documents, not kept on disk).
    pub(crate) title_distinct: Vec<u8>,
    /// Per block of 64 documents, the fewest distinct title words of its documents (16 KB at
    /// a million documents, kept in the cache where the byte per document is not). A window
    /// looks up every document's count to find the titles that may equal the query, and few
    /// titles are as short as a query. A block whose floor is above the query's word count
    /// has no such title, and its documents' bytes are not read: the check's line went from
    /// 12.0 % of `bucket::rank_bucket`'s `perf` samples (cache misses scattered over a
    /// megabyte) to 5.5 % (`--rank-only` at a million, same pages).
    pub(crate) title_distinct_floor: Vec<u8>,
    /// Every document's title in 16 bytes ([`TitleSketch`]), read for the windows whose pages
    /// a bound without positions could not prove (16 MB at a million documents, derived from
    /// the entries, not kept on disk).
    pub(crate) sketches: Vec<TitleSketch>,
}

impl Forward {
    pub(crate) fn new(docs: Vec<DocHeader>, entries: Vec<u32>) -> Self {
        let title_distinct: Vec<u8> = docs.iter().map(|doc| doc.title_distinct).collect();
        let title_distinct_floor = title_distinct
            .chunks(64)
            .map(|block| block.iter().copied().fold(u8::MAX, u8::min))
            .collect();
        let sketches = docs
            .iter()
            .map(|header| TitleSketch::of(header, &entries))
            .collect();
        Self {
            docs,
            entries,
            title_distinct,
            title_distinct_floor,
            sketches,
        }
    }
}

/// Title positions a [`TitleSketch`] holds.
pub(crate) const SKETCH_POSITIONS: usize = 15;

/// A document's title as rule 3 bounds it without reading the document: a one-byte code
/// ([`title_code`]) of the word at each of the first [`SKETCH_POSITIONS`] positions, and the
/// title's length. Codes are a hash, so a sketch may show a query word where the title has
/// another one (never the reverse): proximity computed from it is at most the title's (module
/// `bucket`).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
pub(crate) struct TitleSketch {
    codes: [u8; SKETCH_POSITIONS],
    /// Words in the title (capped at 255).
    len: u8,
}

impl TitleSketch {
    pub(crate) fn of(header: &DocHeader, entries: &[u32]) -> Self {
        let mut codes = [0u8; SKETCH_POSITIONS];
        let end = (header.start as usize).saturating_add(usize::from(header.title_len));
        let title = entries.get(header.start as usize..end).unwrap_or(&[]);
        for (code, &entry) in codes.iter_mut().zip(title) {
            *code = title_code(entry >> 8);
        }
        Self {
            codes,
            len: header.title_len,
        }
    }

    /// The codes of the title's words in order, when the sketch holds all of them.
    pub(crate) fn whole_title(&self) -> Option<&[u8]> {
        self.codes.get(..usize::from(self.len))
    }
}

/// A term's code in a [`TitleSketch`]: a multiplicative hash of its id to one byte.
pub(crate) fn title_code(term: u32) -> u8 {
    (term.wrapping_mul(0x9E37_79B9) >> 24) as u8
}

/// Where one document's entries are, and its title's shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DocHeader {
    pub(crate) start: u32,
    /// Entries from here to `end` are found only in the description.
    pub(crate) description: u32,
    pub(crate) end: u32,
    /// Words in the title (capped at 255).
    pub(crate) title_len: u8,
    /// Distinct words in the title (capped at 255).
    pub(crate) title_distinct: u8,
}

impl DocHeader {
    /// A document without entries or title words: what a number no document has reads as.
    pub(crate) const EMPTY: Self = Self {
        start: 0,
        description: 0,
        end: 0,
        title_len: 0,
        title_distinct: 0,
    };
}

/// Exact identifiers typed as text or given as filters.
pub(crate) struct Codes {
    /// `products.sku_norm`.
    pub(crate) skus: TextMap,
    /// Variant GTINs as GTIN-14 numbers.
    pub(crate) gtins: IndexGtins,
    /// `products.id` (UUID).
    pub(crate) ids: SortedMap<u128>,
    /// `products.slug`, lower case (the last segment of `products.link`).
    pub(crate) slugs: TextMap,
}
