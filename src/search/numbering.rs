//! The index build's last steps: the terms numbered for good (most frequent first), the
//! forward index put in document order with those numbers, the posting lists filled from it and
//! the term dictionary.

use super::SearchError;
use super::bits;
use super::parts::{Dictionary, META_TITLE, Posting, Postings};
use super::prefixes::crowded_prefixes;
use super::sorted_map::head;
use super::terms::TermTable;
use super::text::has_digit;

/// The forward entries as the builders read them: products in key order.
pub(super) struct Read<'a> {
    /// Provisional term ids and their flags, product after product.
    pub(super) terms: Vec<u32>,
    pub(super) meta: Vec<u8>,
    /// Product -> its first entry, and the end after the last product.
    pub(super) starts: &'a [u32],
    /// Document -> product.
    pub(super) row_of_doc: &'a [u32],
}

/// The terms numbered for good: most frequent first, so the hot end of per-query term tables is
/// small, ties in byte order.
pub(super) struct Numbering {
    /// Provisional ids in byte order of their terms.
    by_name: Vec<u32>,
    /// Provisional id -> final id.
    final_id: Vec<u32>,
    /// Final id -> documents having the term.
    pub(super) frequency: Vec<u32>,
}

/// The forward index in document order, with final term ids.
pub(super) struct Numbered {
    /// `final id << 8 | meta`, document after document.
    pub(super) entries: Vec<u32>,
    /// Document -> its first entry, and the end after the last document.
    pub(super) starts: Vec<u32>,
}

impl Numbering {
    /// One string sort, not two: terms in byte order (for the dictionary), then by frequency
    /// with a stable sort (most of a million products' terms are codes found once, so a
    /// frequency sort breaking ties by name would compare strings for nearly every pair).
    pub(super) fn new(names: &TermTable, docs_of_term: &[u32]) -> Self {
        let by_name = sorted_by_name(names);
        let order = by_frequency(&by_name, docs_of_term);
        let mut final_id = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            final_id[old as usize] = new as u32;
        }
        Self {
            frequency: order
                .iter()
                .map(|&old| docs_of_term[old as usize])
                .collect(),
            by_name,
            final_id,
        }
    }

    /// The entries as read, put in document order with their final ids. Consumed: the
    /// provisional entries (some 200 MB at a million products) are freed here.
    pub(super) fn renumber(&self, read: Read<'_>) -> Numbered {
        let Read {
            terms,
            meta,
            starts: read_starts,
            row_of_doc,
        } = read;
        let final_id = &self.final_id;
        let mut entries = Vec::with_capacity(terms.len());
        let mut starts = Vec::with_capacity(row_of_doc.len() + 1);
        for &row in row_of_doc {
            starts.push(entries.len() as u32);
            let of_row = read_starts[row as usize] as usize..read_starts[row as usize + 1] as usize;
            entries.extend(
                terms[of_row.clone()]
                    .iter()
                    .zip(&meta[of_row])
                    .map(|(&term, &meta)| final_id[term as usize] << 8 | u32::from(meta)),
            );
        }
        starts.push(entries.len() as u32);
        Numbered { entries, starts }
    }

    /// The term dictionary.
    pub(super) fn dictionary(&self, names: &TermTable) -> Result<Dictionary, SearchError> {
        let frequency = &self.frequency;
        let sorted: Vec<(&str, u32)> = self
            .by_name
            .iter()
            .map(|&old| (names.name(old), self.final_id[old as usize]))
            .collect();
        let mut words = fst::MapBuilder::memory();
        let mut codes = fst::MapBuilder::memory();
        for &(name, id) in &sorted {
            if has_digit(name) {
                codes.insert(name, u64::from(id))?;
            } else {
                words.insert(name, u64::from(id))?;
            }
        }
        let dictionary = Dictionary::from_parts(
            fst::Map::new(words.into_inner()?)?,
            fst::Map::new(codes.into_inner()?)?,
            crowded_prefixes(&sorted, frequency),
            frequency.len(),
        );
        Ok(dictionary)
    }
}

impl Numbered {
    /// Every term's documents: a list for most, a bitset for a frequent term (in at least 64
    /// documents and one in 32).
    ///
    /// Filled in one pass over the forward index, straight into their final places: each
    /// term's count is known, so its list starts where the counts before it end, and a
    /// frequent term's documents are set in its bitset at once. (Filled into per-term lists
    /// first and packed after, the documents of the frequent terms, half of all, were written
    /// twice and read once more; as a growing `Vec` per term, the allocator's work for three
    /// million terms at a million products cost more than the arithmetic.)
    pub(super) fn postings(&self, frequency: &[u32]) -> Postings {
        let starts = &self.starts[..];
        let doc_count = starts.len() - 1;
        let blocks = bits::blocks_for(doc_count);
        let mut of_term = Vec::with_capacity(frequency.len());
        // A listed term's next free place in `docs`.
        let mut next = vec![0u32; frequency.len()];
        let (mut listed, mut dense_count) = (0u32, 0u32);
        for (term, &count) in frequency.iter().enumerate() {
            if count >= 64 && count as usize * 32 >= doc_count {
                of_term.push(Posting::Dense { index: dense_count });
                dense_count += 1;
            } else {
                of_term.push(Posting::List {
                    start: listed,
                    len: count,
                });
                next[term] = listed;
                listed += count;
            }
        }
        let mut docs = vec![0u32; listed as usize];
        let mut dense = vec![0u64; dense_count as usize * blocks];
        for doc in 0..doc_count {
            each_term_once(
                &self.entries,
                starts,
                doc,
                &mut |term, _| match of_term[term as usize] {
                    Posting::Dense { index } => {
                        let start = index as usize * blocks;
                        bits::insert(&mut dense[start..start + blocks], doc as u32);
                    }
                    Posting::List { .. } => {
                        let slot = &mut next[term as usize];
                        docs[*slot as usize] = doc as u32;
                        *slot += 1;
                    }
                },
            );
        }
        debug_assert!(
            of_term
                .iter()
                .zip(&next)
                .all(|(posting, &next)| match posting {
                    Posting::List { start, len } => start + len == next,
                    Posting::Dense { .. } => true,
                })
        );
        Postings {
            of_term,
            docs,
            dense,
            blocks,
        }
    }
}

/// Calls `add` with each term of document `doc` once (term, flags), in forward-index order. A
/// document has one entry per term, except for title words said twice (`Dunk Low ... Low`):
/// those repeats are skipped (a title has a dozen words, so looking back is cheap).
pub(super) fn each_term_once(
    entries: &[u32],
    starts: &[u32],
    doc: usize,
    add: &mut dyn FnMut(u32, u8),
) {
    let doc_entries = &entries[starts[doc] as usize..starts[doc + 1] as usize];
    for (at, &entry) in doc_entries.iter().enumerate() {
        let meta = entry as u8;
        let repeated = meta & META_TITLE != 0
            && doc_entries[..at]
                .iter()
                .any(|&earlier| earlier >> 8 == entry >> 8);
        if !repeated {
            add(entry >> 8, meta);
        }
    }
}

/// Indexes of `names` (all distinct) in byte order of the names. Compares their first eight
/// bytes as one number first, which settles nearly every comparison without `memcmp`.
fn sorted_by_name(names: &TermTable) -> Vec<u32> {
    let mut keyed: Vec<(u64, u32)> = (0..names.len() as u32)
        .map(|id| (head(names.name(id)), id))
        .collect();
    keyed.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| names.name(a.1).cmp(names.name(b.1)))
    });
    keyed.into_iter().map(|(_, id)| id).collect()
}

/// `by_name` (provisional ids in byte order of their terms) reordered most frequent first, ties
/// kept in byte order: a counting sort. As a stable sort, each comparison read two terms'
/// counts at random (half a second at a million products, on the longest thread).
fn by_frequency(by_name: &[u32], docs_of_term: &[u32]) -> Vec<u32> {
    let count = |term: u32| docs_of_term[term as usize] as usize;
    let most = by_name.iter().map(|&term| count(term)).max().unwrap_or(0);
    // Where the terms of each count go: after every term found more often.
    let mut next = vec![0usize; most + 1];
    for &term in by_name {
        next[count(term)] += 1;
    }
    let mut before = 0;
    for slot in next.iter_mut().rev() {
        (*slot, before) = (before, before + *slot);
    }
    let mut order = vec![0u32; by_name.len()];
    for &term in by_name {
        let at = &mut next[count(term)];
        order[*at] = term;
        *at += 1;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_numbered_most_frequent_first_ties_in_byte_order() {
        let docs_of_term = [3, 1, 7, 3, 0, 1, 7, 2];
        let by_name = [6, 1, 4, 0, 2, 7, 3, 5];
        let mut stable = by_name.to_vec();
        stable.sort_by_key(|&term| std::cmp::Reverse(docs_of_term[term as usize]));
        assert_eq!(by_frequency(&by_name, &docs_of_term), stable);
        assert_eq!(stable, [6, 2, 0, 3, 7, 1, 5, 4]);
        assert!(by_frequency(&[], &[]).is_empty());
    }
}
