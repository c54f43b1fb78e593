//! The parts of a built index, as ranking and the saved file read them: the term dictionary,
//! posting lists, the forward index with its entry flags, and the exact code maps. Built by
//! module `build`, written and read back by module `persist`.

use std::collections::HashMap;

use super::bits;
use super::gtins::GtinMap;
use super::sorted_map::SortedMap;

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
    /// The same documents as the term's posting in the main [`Postings`] (top-field postings
    /// only: the term never occurs outside the title and code).
    SameAsAll,
}

/// Term id -> documents: all of them (`SearchIndex::postings`), or those where the term is in
/// the title or style code (`SearchIndex::top_field`, which bounds rules 3-4 cheaply).
pub(crate) struct Postings {
    pub(crate) of_term: Vec<Posting>,
    pub(crate) docs: Vec<u32>,
    /// Bitsets of frequent terms, `blocks` words each, back to back.
    pub(crate) dense: Vec<u64>,
    pub(crate) blocks: usize,
}

impl Postings {
    /// Adds the documents of `term` to `set`; `all` stands in for [`Posting::SameAsAll`].
    pub(crate) fn union_into(&self, term: u32, set: &mut [u64], all: Option<&Postings>) {
        match self.of_term[term as usize] {
            Posting::SameAsAll => {
                if let Some(all) = all {
                    all.union_into(term, set, None);
                }
            }
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
}

impl Forward {
    pub(crate) fn new(docs: Vec<DocHeader>, entries: Vec<u32>) -> Self {
        let title_distinct = docs.iter().map(|doc| doc.title_distinct).collect();
        Self {
            docs,
            entries,
            title_distinct,
        }
    }
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

/// Exact identifiers typed as text or given as filters.
pub(crate) struct Codes {
    /// `products.sku_norm`.
    pub(crate) skus: SortedMap<Box<str>>,
    /// Variant GTINs as GTIN-14 numbers.
    pub(crate) gtins: GtinMap,
    /// `products.id` (UUID).
    pub(crate) ids: SortedMap<u128>,
    /// `products.slug`, lower case (the last segment of `products.link`).
    pub(crate) slugs: SortedMap<Box<str>>,
}
