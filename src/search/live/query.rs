//! One search's part in the live segment: its filters, code hits and candidates there, with
//! each candidate's bucket (words matched, typos) and what ranking within a bucket reads of it,
//! in document order, so that module `query` ranks the base's documents and these together as
//! one index's.
//!
//! A live document is numbered past the base's by its slot (`base + slot`). Its candidates
//! are kept as sets, one bit a slot, with bit-sliced counters of words matched and typos per
//! block of 64 slots (as module `candidates` counts the base's): a bucket's size is counted
//! from them, and its documents are listed in document order only as the ranking's windows
//! take them, so a common word's thousands of live candidates cost a few operations a block
//! rather than a visit each.

use super::segment::Segment;
use super::view::View;
use crate::catalogue::generate::normalize_sku;
use crate::search::bucket::{EXACT_SHIFT, LiveEntry};
use crate::search::docs::{LiveDoc, LiveDocs};
use crate::search::gtins::parse_gtin;
use crate::search::query::{CodeKey, LivePart, QueryWord, each_code_key};
use crate::search::scratch::{COUNT_PLANES, Expansion, PLANES};
use crate::search::wordsets::ExactSet;
use crate::search::{LEVELS, SearchOutcome, SearchRequest, bits};

/// A live document's place in document order: popularity, highest first, then key.
type DocKey = (std::cmp::Reverse<i64>, i64);

/// The live candidates of one search (see the module documentation).
#[derive(Default)]
struct Candidates {
    word_count: usize,
    /// Blocks of 64 slots.
    blocks: usize,
    /// Word `w`'s slots with at most `l` typos: set `w * LEVELS + l`, `blocks` long each.
    sets: Vec<u64>,
    exact_sets: Vec<ExactSet>,
    /// The slots of each [`ExactSet::Term`] of `exact_sets`, in order.
    exact_terms: Vec<Vec<u64>>,
    /// Every candidate.
    any: Vec<u64>,
    /// Per block: words matched (the first [`COUNT_PLANES`]) and typos, bit-sliced.
    planes: Vec<[u64; PLANES]>,
    count: usize,
}

impl Candidates {
    fn set(&self, word: usize, level: usize) -> &[u64] {
        &self.sets[(word * LEVELS + level) * self.blocks..][..self.blocks]
    }

    /// Block `block`'s candidates with `matched` words and `typos` typos.
    fn lanes(&self, block: usize, matched: usize, typos: usize) -> u64 {
        let planes = &self.planes[block];
        self.any[block]
            & bits::lanes_equal(&planes[..COUNT_PLANES], matched as u32)
            & bits::lanes_equal(&planes[COUNT_PLANES..], typos as u32)
    }

    /// As `Scratch::window_words`: the query words candidate `slot` holds, and how many
    /// exactly.
    fn words(&self, slot: u32) -> u32 {
        let mut held = 0u32;
        for word in 0..self.word_count {
            if bits::contains(self.set(word, LEVELS - 1), slot) {
                held |= 1 << word;
            }
        }
        let mut terms = self.exact_terms.iter();
        let exactly = self
            .exact_sets
            .iter()
            .filter(|exact| match exact {
                ExactSet::Word(word) => bits::contains(self.set(*word, 0), slot),
                ExactSet::Term(_) => terms.next().is_some_and(|set| bits::contains(set, slot)),
            })
            .count() as u32;
        held | exactly << EXACT_SHIFT
    }
}

/// The live segment's part of one search (see the module documentation).
pub(in crate::search) struct LiveQuery<'a> {
    view: View<'a>,
    /// The filters' live slots, in document order; `None` without filters.
    allowed: Option<Vec<u32>>,
    /// The same slots, one bit each.
    allowed_bits: Option<Vec<u64>>,
    /// Live code hits' slots (ranked first, so not candidates).
    code_slots: Vec<u32>,
    candidates: Candidates,
}

impl<'a> LiveQuery<'a> {
    pub(in crate::search) fn new(view: View<'a>) -> Self {
        Self {
            view,
            allowed: None,
            allowed_bits: None,
            code_slots: Vec::new(),
            candidates: Candidates::default(),
        }
    }

    fn base_len(&self) -> u32 {
        self.view.base.len() as u32
    }

    /// The number of `slot`'s live document in this search, and its `ins`.
    fn number(&self, slot: u32) -> Option<(u32, u32)> {
        let doc = self.view.segment.doc(slot)?;
        Some((self.base_len() + slot, doc.ins))
    }

    /// Slots in document order. Many of the segment's (a common word's) are picked out of its
    /// order as it is kept; a few are sorted by their keys.
    fn in_order(&self, slots: &mut Vec<u32>) {
        let segment = self.view.segment;
        slots.sort_unstable();
        slots.dedup();
        if slots.len() * 8 > segment.alive {
            let mut wanted = vec![0u64; crate::search::bits::blocks_for(segment.slots.len())];
            for &slot in slots.iter() {
                bits::insert(&mut wanted, slot);
            }
            slots.clear();
            slots.extend(
                segment
                    .order
                    .iter()
                    .map(|ordered| ordered.slot)
                    .filter(|&slot| bits::contains(&wanted, slot)),
            );
            return;
        }
        let sorted = by_doc_key(segment, slots);
        slots.clear();
        slots.extend(sorted.into_iter().map(|(slot, _)| slot));
    }

    fn is_allowed(&self, slot: u32) -> bool {
        self.allowed_bits
            .as_ref()
            .is_none_or(|allowed| bits::contains(allowed, slot))
    }

    /// The product key of document `doc` of this search.
    fn pk_of(&self, doc: u32) -> Option<i64> {
        match doc.checked_sub(self.base_len()) {
            None => self.view.base.pks.get(doc as usize).copied(),
            Some(slot) => self.view.segment.doc(slot).map(|live| live.pk),
        }
    }
}

impl LiveDocs for LiveQuery<'_> {
    fn live_doc(&self, at: u32) -> Option<&LiveDoc> {
        self.view.segment.doc(at).map(|doc| &**doc)
    }
}

impl LivePart for LiveQuery<'_> {
    fn is_dead(&self, doc: u32) -> bool {
        self.view.segment.is_dead(doc)
    }

    fn dead(&self) -> Option<&[u64]> {
        let segment = self.view.segment;
        (segment.dead_count > 0).then_some(segment.dead.as_slice())
    }

    fn term_count(&self) -> usize {
        self.view.term_count()
    }

    fn docs(&self) -> &dyn LiveDocs {
        self
    }

    fn candidate_count(&self) -> usize {
        self.candidates.count
    }

    fn expand(&self, word_index: usize, word: &QueryWord, out: &mut Vec<Expansion>) {
        super::expand::expand(&self.view, word_index, word, out);
    }

    fn filter(&mut self, request: &SearchRequest<'_>) -> bool {
        let segment = self.view.segment;
        let mut result: Option<Vec<u32>> = None;
        if let Some(sku) = request.sku.filter(|sku| !sku.trim().is_empty()) {
            let norm = normalize_sku(sku);
            result = Some(
                segment
                    .skus
                    .get(norm.as_str())
                    .map(|slots| slots.iter().copied().collect())
                    .unwrap_or_default(),
            );
        }
        if let Some(gtin) = request.gtin.filter(|gtin| !gtin.trim().is_empty()) {
            let slots: Vec<u32> = parse_gtin(gtin)
                .and_then(|value| segment.gtins.get(&value))
                .map(|slots| slots.iter().copied().collect())
                .unwrap_or_default();
            result = Some(match result {
                Some(previous) => previous.into_iter().filter(|s| slots.contains(s)).collect(),
                None => slots,
            });
        }
        if let Some(pks) = request.pks {
            let slots: Vec<u32> = pks
                .iter()
                .filter_map(|pk| segment.by_pk.get(pk).copied())
                .collect();
            result = Some(match result {
                Some(previous) => previous.into_iter().filter(|s| slots.contains(s)).collect(),
                None => slots,
            });
        }
        if let Some(slots) = &mut result {
            self.in_order(slots);
            let mut allowed = vec![0u64; bits::blocks_for(segment.slots.len())];
            for &slot in slots.iter() {
                bits::insert(&mut allowed, slot);
            }
            self.allowed_bits = Some(allowed);
        }
        let any = result.as_ref().is_some_and(|slots| !slots.is_empty());
        self.allowed = result;
        any
    }

    fn with_code_hits(&mut self, text: &str, base_hits: &[u32]) -> Vec<u32> {
        let segment = self.view.segment;
        let mut slots: Vec<u32> = Vec::new();
        each_code_key(text, |key| {
            let found = match key {
                CodeKey::Sku(sku) => segment.skus.get(sku),
                CodeKey::Gtin(value) => segment.gtins.get(&value),
                CodeKey::Id(id) => segment.ids.get(&id),
                CodeKey::Slug(slug) => segment.slugs.get(slug),
            };
            if let Some(found) = found {
                slots.extend(found.iter().copied());
            }
        });
        slots.retain(|&slot| self.is_allowed(slot));
        self.in_order(&mut slots);
        self.code_slots.clone_from(&slots);
        let live: Vec<(u32, u32)> = slots
            .into_iter()
            .filter_map(|slot| self.number(slot))
            .collect();
        merge_in_order(base_hits, &live)
    }

    fn find_candidates(
        &mut self,
        expansions: &[Expansion],
        word_count: usize,
        exact_sets: &[ExactSet],
    ) {
        let segment = self.view.segment;
        if segment.alive == 0 {
            return;
        }
        let blocks = bits::blocks_for(segment.slots.len());
        let mut sets = vec![0u64; word_count * LEVELS * blocks];
        // Each posting read once, into its own level; the levels above take it after.
        for e in expansions {
            let Some(slots) = self.view.postings(e.term) else {
                continue;
            };
            let level = usize::from(e.typos).min(LEVELS - 1);
            let set = &mut sets[(e.word * LEVELS + level) * blocks..][..blocks];
            for &slot in slots {
                bits::insert(set, slot);
            }
        }
        for word in 0..word_count {
            for level in 1..LEVELS {
                let (below, at) = sets[(word * LEVELS + level - 1) * blocks..].split_at_mut(blocks);
                bits::union_with(&mut at[..blocks], below);
            }
        }
        let mut exact_terms: Vec<Vec<u64>> = Vec::new();
        for exact in exact_sets {
            if let ExactSet::Term(term) = exact {
                let mut set = vec![0u64; blocks];
                for &slot in self.view.postings(*term).into_iter().flatten() {
                    bits::insert(&mut set, slot);
                }
                exact_terms.push(set);
            }
        }
        let set = |word: usize, level: usize| &sets[(word * LEVELS + level) * blocks..][..blocks];
        let mut any = vec![0u64; blocks];
        for word in 0..word_count {
            bits::union_with(&mut any, set(word, LEVELS - 1));
        }
        for &slot in &self.code_slots {
            any[slot as usize / 64] &= !(1 << (slot % 64));
        }
        if let Some(allowed) = &self.allowed_bits {
            for (block, allowed) in any.iter_mut().zip(allowed) {
                *block &= allowed;
            }
        }
        // Words matched and typos (a word's typos: 0, 1 or 2, the first level holding it), as
        // bit-sliced counters per block.
        let planes = any
            .iter()
            .enumerate()
            .map(|(block, &lanes)| {
                let mut planes = [0u64; PLANES];
                if lanes == 0 {
                    return planes;
                }
                for word in 0..word_count {
                    let matched = set(word, LEVELS - 1)[block] & lanes;
                    bits::add_bit(&mut planes[..COUNT_PLANES], matched);
                    for level in 0..LEVELS - 1 {
                        bits::add_bit(
                            &mut planes[COUNT_PLANES..],
                            matched & !set(word, level)[block],
                        );
                    }
                }
                planes
            })
            .collect();
        self.candidates = Candidates {
            word_count,
            blocks,
            exact_sets: exact_sets.to_vec(),
            exact_terms,
            count: bits::count(&any) as usize,
            any,
            planes,
            sets,
        };
    }

    fn bucket_size(&self, matched: usize, typos: usize) -> u64 {
        let found = &self.candidates;
        (0..found.any.len())
            .map(|block| u64::from(found.lanes(block, matched, typos).count_ones()))
            .sum()
    }

    fn bucket(&self, matched: usize, typos: usize) -> Box<dyn Iterator<Item = LiveEntry> + '_> {
        let found = &self.candidates;
        let want: Vec<u64> = (0..found.any.len())
            .map(|block| found.lanes(block, matched, typos))
            .collect();
        let count = bits::count(&want) as usize;
        if count == 0 {
            return Box::new(std::iter::empty());
        }
        let segment = self.view.segment;
        let base_len = self.base_len();
        let entry = move |slot: u32, doc: &LiveDoc| LiveEntry {
            doc: base_len + slot,
            ins: doc.ins,
            words: found.words(slot),
        };
        if count * 8 > segment.alive {
            // Many: met in one walk of the segment's order, as far as the ranking reads.
            return Box::new(
                segment
                    .order
                    .iter()
                    .filter(move |ordered| bits::contains(&want, ordered.slot))
                    .map(move |ordered| entry(ordered.slot, &ordered.doc)),
            );
        }
        let mut slots = Vec::with_capacity(count);
        bits::for_each(&want, |slot| {
            slots.push(slot);
            true
        });
        Box::new(
            by_doc_key(segment, &slots)
                .into_iter()
                .map(move |(slot, doc)| entry(slot, doc)),
        )
    }

    fn count_by_matched(&self, per_count: &mut [u64]) {
        let found = &self.candidates;
        for (planes, &lanes) in found.planes.iter().zip(&found.any) {
            bits::tally(
                &planes[..COUNT_PLANES],
                lanes,
                1..=found.word_count.min(per_count.len().saturating_sub(1)),
                per_count,
            );
        }
    }

    fn count_by_typos(&self, matched: usize, per_typos: &mut [u64]) {
        let found = &self.candidates;
        let most = per_typos.len().saturating_sub(1);
        for (planes, &any) in found.planes.iter().zip(&found.any) {
            let lanes = any & bits::lanes_equal(&planes[..COUNT_PLANES], matched as u32);
            bits::tally(&planes[COUNT_PLANES..], lanes, 0..=most, per_typos);
        }
    }

    fn page(&self, ranked: &[u32], offset: usize, limit: usize, total: u64) -> SearchOutcome {
        let start = offset.min(ranked.len());
        let end = start.saturating_add(limit).min(ranked.len());
        SearchOutcome {
            product_pks: ranked[start..end]
                .iter()
                .filter_map(|&doc| self.pk_of(doc))
                .collect(),
            estimated_total_hits: total,
        }
    }

    fn listing(&mut self, allowed: Option<&[u32]>, offset: usize, limit: usize) -> SearchOutcome {
        let segment = self.view.segment;
        let live_slots: Vec<u32> = match self.allowed.take() {
            Some(slots) => slots,
            None => segment.order.iter().map(|ordered| ordered.slot).collect(),
        };
        let live: Vec<(i64, u32)> = live_slots
            .iter()
            .filter_map(|&slot| segment.doc(slot).map(|doc| (doc.pk, doc.ins)))
            .collect();
        let base = self.view.base;
        let base_docs: Box<dyn Iterator<Item = u32>> = match allowed {
            Some(docs) => Box::new(docs.iter().copied()),
            None => Box::new((0..base.len() as u32).filter(|&doc| !segment.is_dead(doc))),
        };
        let base_total = match allowed {
            Some(docs) => docs.len(),
            None => base.len() - segment.dead_count,
        };
        let total = (base_total + live.len()) as u64;
        let mut pks = Vec::with_capacity(limit.min(100));
        let mut base_docs = base_docs.peekable();
        let mut live = live.into_iter().peekable();
        let mut seen = 0usize;
        while pks.len() < limit {
            let take_live = match (base_docs.peek(), live.peek()) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(&doc), Some(&(_, ins))) => ins <= doc,
            };
            let pk = if take_live {
                live.next().map(|(pk, _)| pk)
            } else {
                base_docs.next().map(|doc| base.pks[doc as usize])
            };
            let Some(pk) = pk else {
                break;
            };
            if seen >= offset {
                pks.push(pk);
            }
            seen += 1;
        }
        SearchOutcome {
            product_pks: pks,
            estimated_total_hits: total,
        }
    }
}

/// A few of the segment's `slots` in document order, sorted by their documents' keys.
fn by_doc_key<'s>(segment: &'s Segment, slots: &[u32]) -> Vec<(u32, &'s LiveDoc)> {
    let mut keyed: Vec<(DocKey, u32, &LiveDoc)> = slots
        .iter()
        .filter_map(|&slot| {
            let doc = segment.doc(slot)?;
            Some(((std::cmp::Reverse(doc.popularity), doc.pk), slot, &**doc))
        })
        .collect();
    keyed.sort_unstable_by_key(|&(key, _, _)| key);
    keyed
        .into_iter()
        .map(|(_, slot, doc)| (slot, doc))
        .collect()
}

/// `base` (base documents, increasing) and `live` (this search's numbers of live documents
/// with their `ins`, in document order) merged in document order.
fn merge_in_order(base: &[u32], live: &[(u32, u32)]) -> Vec<u32> {
    let mut out = Vec::with_capacity(base.len() + live.len());
    let (mut b, mut l) = (0, 0);
    while b < base.len() || l < live.len() {
        let take_live = match (base.get(b), live.get(l)) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(&doc), Some(&(_, ins))) => ins <= doc,
        };
        if take_live {
            out.push(live[l].0);
            l += 1;
        } else {
            out.push(base[b]);
            b += 1;
        }
    }
    out
}
