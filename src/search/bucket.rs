//! Rules 3-5 of the ranking within one bucket (same words matched, same typos): proximity,
//! field importance and exactness per document, computed only for the documents that can
//! still enter the page (see the module documentation of [`super`]).

use std::collections::BinaryHeap;

use super::parts::{MAX_TITLE_POSITION, META_POSITION_SHIFT, META_RANK_MASK, META_TITLE};
use super::scratch::{COUNT_PLANES, LEVELS, Scratch};
use super::wordsets::{ExactSet, SetView, WordSet};
use super::{MAX_QUERY_WORDS, SearchIndex, bits};

/// Proximity cost of a pair of words not both in the title.
const FAR: u32 = 8;

/// The documents with `matched` words matched and `typos` typos.
pub(super) struct Bucket<'q> {
    pub(super) matched: usize,
    pub(super) word_count: usize,
    /// Words in the text, kept or not: more than `word_count` when the text had more than
    /// [`MAX_QUERY_WORDS`] words and the rest were dropped.
    pub(super) typed_words: usize,
    pub(super) typos: u32,
    /// Per query word that is itself a term: the set of documents holding that term, the only
    /// documents where the word can count as matched exactly.
    pub(super) exact_sets: &'q [ExactSet],
    /// Per query word: the documents it matches.
    pub(super) word_sets: &'q [WordSet],
}

impl Bucket<'_> {
    /// Calls `each` with the bucket's documents in increasing order until it returns `false`.
    fn for_each(&self, scratch: &Scratch, mut each: impl FnMut(u32) -> bool) {
        for (&b, planes) in scratch.active.iter().zip(&scratch.planes) {
            let mut lanes = bits::lanes_equal(&planes[..COUNT_PLANES], self.matched as u32)
                & bits::lanes_equal(&planes[COUNT_PLANES..], self.typos);
            while lanes != 0 {
                if !each(b * 64 + lanes.trailing_zeros()) {
                    return;
                }
                lanes &= lanes - 1;
            }
        }
    }

    /// Whether a document may have its title equal to the query (rule 5), which the early
    /// stop below cannot bound: such documents are scored up front.
    fn may_equal_title(&self, index: &SearchIndex, doc: u32) -> bool {
        self.matched == self.word_count
            && usize::from(index.forward.title_distinct[doc as usize]) <= self.typed_words
    }

    /// The best key a document whose title cannot equal the query can have: every matched
    /// word next to the previous one in the title, all in the title, every word that can be
    /// matched whole matched whole (what [`Bucket::lower_bound`] gives at best).
    fn floor(&self) -> u32 {
        pack_key(
            self.matched as u32 - 1,
            0,
            false,
            (self.word_count - self.exact_sets.len()) as u32,
        )
    }

    /// The best key `doc` can have, if its title cannot equal the query: every matched word
    /// next to the previous one in the title, all in the title, exact wherever it can be.
    /// With `top_sets` (per word, documents matching it in the title or code), the bound also
    /// knows which words cannot be in the title.
    fn lower_bound(
        &self,
        index: &SearchIndex,
        scratch: &Scratch,
        top_sets: &[usize],
        doc: u32,
    ) -> u32 {
        let view = SetView::new(index, scratch);
        let mut proximity = 0;
        let mut attribute = 0;
        if top_sets.len() == self.word_count {
            // A word matched outside the title and code has a field rank of at least 1, and a
            // pair with such a word is not both in the title.
            let mut previous_on_top: Option<bool> = None;
            for (any, &top) in self.word_sets.iter().zip(top_sets) {
                if !any.contains(&view, doc, LEVELS - 1) {
                    continue;
                }
                let on_top = bits::contains(scratch.set(top), doc);
                attribute += u32::from(!on_top);
                if let Some(before) = previous_on_top {
                    proximity += if before && on_top { 1 } else { FAR };
                }
                previous_on_top = Some(on_top);
            }
        } else {
            proximity = self.matched as u32 - 1;
        }
        let exact_at_most = self
            .exact_sets
            .iter()
            .filter(|set| set.contains(index, &view, self.word_sets, doc))
            .count();
        pack_key(
            proximity,
            attribute,
            false,
            (self.word_count - exact_at_most) as u32,
        )
    }
}

fn pack_key(proximity: u32, attribute: u32, title_equal: bool, inexact_words: u32) -> u32 {
    proximity << 24 | attribute << 16 | u32::from(!title_equal) << 8 | inexact_words
}

/// Appends up to `wanted` documents of the bucket, ordered by rules 3-5 then document, in
/// windows of `Scratch::rank_window` ([`super::RANK_WINDOW`]) documents.
pub(super) fn rank_bucket(
    index: &SearchIndex,
    scratch: &mut Scratch,
    bucket: &Bucket,
    top_sets: &mut Vec<usize>,
    wanted: usize,
    out: &mut Vec<u32>,
) {
    let mut window = std::mem::take(&mut scratch.window);
    let mut keys = std::mem::take(&mut scratch.keys);
    let mut heap = std::mem::take(&mut scratch.heap);
    let mut bounds = std::mem::take(&mut scratch.bounds);
    let rank_window = scratch.rank_window;
    let mut remaining = wanted;
    let mut skip = 0usize;
    loop {
        window.clear();
        let mut seen = 0usize;
        bucket.for_each(scratch, |doc| {
            seen += 1;
            if seen > skip {
                window.push(doc);
            }
            window.len() < rank_window
        });
        skip += window.len();
        if window.is_empty() {
            break;
        }
        if window.len() <= remaining {
            let info = &scratch.term_info;
            keys.clear();
            keys.extend(window.iter().map(|&doc| key_of(index, info, bucket, doc)));
            keys.sort_unstable();
            out.extend(keys.iter().map(|&key| key as u32));
            remaining -= window.len();
            if remaining == 0 || window.len() < rank_window {
                break;
            }
            continue;
        }
        // Top `remaining` of the window. Documents are taken in order of a cheap lower bound
        // of their key, then most popular first: once the worst kept key beats the next bound,
        // no later document can enter. The bound ignores the top field until that proves too
        // weak to stop early; then the top-field sets are built and the window is redone.
        let patience = 4 * remaining + 64;
        loop {
            let info = &scratch.term_info;
            heap.clear();
            bounds.clear();
            // `None`: the scan in order ended the window, and only the titles that may equal
            // the query are left to score.
            let scanned = if top_sets.is_empty() && scratch.in_order {
                scan_in_order(index, info, bucket, &window, remaining, &mut heap)
            } else {
                Some(0)
            };
            for (at, &doc) in window.iter().enumerate() {
                if bucket.may_equal_title(index, doc) {
                    keep(&mut heap, remaining, key_of(index, info, bucket, doc));
                } else if scanned.is_some_and(|scanned| at >= scanned) {
                    let bound = bucket.lower_bound(index, scratch, top_sets, doc);
                    bounds.push(u64::from(bound) << 32 | u64::from(doc));
                }
            }
            if scanned.is_none() {
                break;
            }
            bounds.sort_unstable();
            let mut gave_up = false;
            for (scored, &bound) in bounds.iter().enumerate() {
                let full = heap.len() == remaining;
                if full && heap.peek().is_some_and(|&worst| worst < bound) {
                    break;
                }
                if top_sets.is_empty() && scored == patience {
                    gave_up = true;
                    break;
                }
                keep(
                    &mut heap,
                    remaining,
                    key_of(index, info, bucket, bound as u32),
                );
            }
            if !gave_up {
                break;
            }
            build_top_sets(index, scratch, bucket.word_count, top_sets);
        }
        keys.clear();
        keys.extend(heap.drain());
        keys.sort_unstable();
        out.extend(keys.iter().map(|&key| key as u32));
        break;
    }
    scratch.window = window;
    scratch.keys = keys;
    scratch.heap = heap;
    scratch.bounds = bounds;
}

/// Scores the window's documents in order (popularity), those that may equal the title
/// aside (the caller scores them), while that can end the window: every other key of the
/// bucket is at least [`Bucket::floor`], so once `heap` holds `capacity` keys below the floor
/// followed by the document just scored, no later one can enter (scoring the titles later
/// only lowers the worst kept key). Many broad queries have plenty of such documents (all
/// words next to each other in the title, whole), found among the first few dozen; then the
/// window needs no bounds at all. `None` when it ended the window, else the window's position
/// up to which its documents were scored (a few dozen at most), for the bounds to skip.
fn scan_in_order(
    index: &SearchIndex,
    info: &[u32],
    bucket: &Bucket,
    window: &[u32],
    capacity: usize,
    heap: &mut BinaryHeap<u64>,
) -> Option<usize> {
    let floor = u64::from(bucket.floor()) << 32;
    let budget = 2 * capacity + 16;
    let mut scored = 0;
    for (at, &doc) in window.iter().enumerate() {
        if scored == budget {
            return Some(at);
        }
        if bucket.may_equal_title(index, doc) {
            continue;
        }
        keep(heap, capacity, key_of(index, info, bucket, doc));
        scored += 1;
        if heap.len() == capacity
            && heap
                .peek()
                .is_some_and(|&worst| worst <= floor | u64::from(doc))
        {
            return None;
        }
    }
    None
}

/// Keeps the `capacity` smallest keys in `heap` (a max-heap).
fn keep(heap: &mut BinaryHeap<u64>, capacity: usize, key: u64) {
    if heap.len() < capacity {
        heap.push(key);
    } else if heap.peek().is_some_and(|&worst| key < worst) {
        heap.pop();
        heap.push(key);
    }
}

/// The sort key of a document: rules 3-5, then the document number (popularity).
fn key_of(index: &SearchIndex, term_info: &[u32], bucket: &Bucket, doc: u32) -> u64 {
    u64::from(fine_key(index, term_info, bucket, doc)) << 32 | u64::from(doc)
}

/// Per query word, the documents where it matches in the title or style code.
fn build_top_sets(
    index: &SearchIndex,
    scratch: &mut Scratch,
    word_count: usize,
    top_sets: &mut Vec<usize>,
) {
    let expansions = std::mem::take(&mut scratch.expansions);
    for i in 0..word_count {
        let set = scratch.fresh_set();
        for e in expansions.iter().filter(|e| e.word == i) {
            index
                .top_field
                .union_into(e.term, scratch.set_mut(set), Some(&index.postings));
        }
        top_sets.push(set);
    }
    scratch.expansions = expansions;
}

/// Rules 3-5 for one document as a key, lower is better: proximity, field importance, then
/// exactness (title equal to the query, then words matched whole).
fn fine_key(index: &SearchIndex, term_info: &[u32], bucket: &Bucket, doc: u32) -> u32 {
    let header = index.forward.docs[doc as usize];
    let entries = &index.forward.entries;
    let start = header.start as usize;
    let description = header.description as usize;
    let end = header.end as usize;

    let mut hits = DocHits::default();
    hits.scan(&entries[start..description], term_info);
    if (hits.matched.count_ones() as usize) < bucket.matched {
        hits.scan(&entries[description..end], term_info);
    }
    let DocHits {
        best_rank,
        positions,
        matched,
        exact,
        title_hit,
    } = hits;

    let mut proximity = 0;
    let mut attribute = 0;
    let mut previous: Option<usize> = None;
    for word in 0..bucket.word_count {
        if matched & (1 << word) == 0 {
            continue;
        }
        attribute += u32::from(best_rank[word]);
        if let Some(before) = previous {
            proximity += pair_cost(positions[before], positions[word]);
        }
        previous = Some(word);
    }
    let title_len = u32::from(header.title_len);
    let all_words = (1u32 << bucket.word_count) - 1;
    let covers_title = if bucket.typed_words > bucket.word_count {
        // The words past MAX_QUERY_WORDS were dropped, so equality cannot be checked word by
        // word: the title counts as equal when it is as long as the text and the kept words
        // are its first words (a long exact title then beats the same title plus " (GS)").
        title_len as usize == bucket.typed_words && title_hit & all_words == all_words
    } else {
        title_hit == (1u32 << title_len) - 1
    };
    let title_equal = matched == all_words
        && bucket.may_equal_title(index, doc)
        && title_len > 0
        && title_len <= u32::from(MAX_TITLE_POSITION)
        && positions[..bucket.word_count].iter().all(|&p| p != 0)
        && covers_title;
    let inexact = bucket.word_count as u32 - (exact & matched).count_ones();
    pack_key(proximity, attribute, title_equal, inexact)
}

/// What one document's terms say about the query words.
struct DocHits {
    /// Best field rank per word.
    best_rank: [u8; MAX_QUERY_WORDS],
    /// Title positions per word, as a bit mask.
    positions: [u32; MAX_QUERY_WORDS],
    /// Words matched, and words matched by an exact (whole, typo-free) term.
    matched: u32,
    exact: u32,
    /// Title positions matched by any word.
    title_hit: u32,
}

impl Default for DocHits {
    fn default() -> Self {
        Self {
            best_rank: [u8::MAX; MAX_QUERY_WORDS],
            positions: [0; MAX_QUERY_WORDS],
            matched: 0,
            exact: 0,
            title_hit: 0,
        }
    }
}

impl DocHits {
    fn scan(&mut self, entries: &[u32], term_info: &[u32]) {
        for &entry in entries {
            let info = term_info[(entry >> 8) as usize];
            if info == 0 {
                continue;
            }
            let meta = entry as u8;
            let rank = meta & META_RANK_MASK;
            let in_title = meta & META_TITLE != 0;
            let position = meta >> META_POSITION_SHIFT;
            let mut rest = info;
            while rest != 0 {
                let bit = rest.trailing_zeros();
                let word = (bit / 2) as usize;
                if bit.is_multiple_of(2) {
                    self.matched |= 1 << word;
                    self.best_rank[word] = self.best_rank[word].min(rank);
                    if in_title {
                        self.positions[word] |= 1 << position;
                        self.title_hit |= 1 << position;
                    }
                } else {
                    self.exact |= 1 << word;
                }
                rest &= rest - 1;
            }
        }
    }
}

/// Distance of two words in the title, given their title position masks: 1 when adjacent in
/// query order, one more when reversed, [`FAR`] when either is not in the title.
fn pair_cost(first: u32, second: u32) -> u32 {
    if first == 0 || second == 0 {
        return FAR;
    }
    let mut best = FAR - 1;
    let mut a = first;
    while a != 0 {
        let pa = a.trailing_zeros();
        let mut b = second;
        while b != 0 {
            let pb = b.trailing_zeros();
            let cost = if pb > pa { pb - pa } else { pa - pb + 1 };
            best = best.min(cost);
            b &= b - 1;
        }
        a &= a - 1;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_cost_prefers_adjacent_in_order() {
        assert_eq!(pair_cost(1 << 2, 1 << 3), 1);
        assert_eq!(pair_cost(1 << 3, 1 << 2), 2);
        assert_eq!(pair_cost(1 << 1, 1 << 5), 4);
        assert_eq!(pair_cost(1 << 1, 1 << 30), FAR - 1);
        assert_eq!(pair_cost(0, 1), FAR);
    }
}
