//! One search's part in the live segment: its filters, code hits and candidates there, with
//! each candidate's bucket (words matched, typos) and what ranking within a bucket reads of it,
//! in document order, so that module `query` ranks the base's documents and these together as
//! one index's.
//!
//! The live documents a search meets are numbered after the base's (`base + i` is `docs[i]`),
//! in the order this search listed them; module `docs` reads their forward entries.

use super::view::View;
use crate::catalogue::generate::normalize_sku;
use crate::search::bucket::{EXACT_SHIFT, LiveEntry};
use crate::search::docs::LiveDoc;
use crate::search::gtins::parse_gtin;
use crate::search::query::{CodeKey, LivePart, QueryWord, each_code_key};
use crate::search::scratch::Expansion;
use crate::search::wordsets::ExactSet;
use crate::search::{LEVELS, SearchOutcome, SearchRequest, bits};

/// A live document's place in document order: popularity, highest first, then key.
type DocKey = (std::cmp::Reverse<i64>, i64);

/// A live candidate of the search.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    /// Its number in the search (`base + i`).
    doc: u32,
    ins: u32,
    matched: u8,
    typos: u8,
    /// As `Scratch::window_words`: the query words it holds, and how many exactly.
    words: u32,
}

/// The live segment's part of one search (see the module documentation).
pub(in crate::search) struct LiveQuery<'a> {
    view: View<'a>,
    docs: Vec<&'a LiveDoc>,
    /// The filters' live slots, in document order; `None` without filters.
    allowed: Option<Vec<u32>>,
    /// The same slots, one bit each.
    allowed_bits: Option<Vec<u64>>,
    /// Live code hits' slots (ranked first, so not candidates).
    code_slots: Vec<u32>,
    candidates: Vec<Candidate>,
}

impl<'a> LiveQuery<'a> {
    pub(in crate::search) fn new(view: View<'a>) -> Self {
        Self {
            view,
            docs: Vec::new(),
            allowed: None,
            allowed_bits: None,
            code_slots: Vec::new(),
            candidates: Vec::new(),
        }
    }

    fn base_len(&self) -> u32 {
        self.view.base.len() as u32
    }

    /// The number of `slot`'s live document in this search (listed now), and its `ins`.
    fn number(&mut self, slot: u32) -> Option<(u32, u32)> {
        let doc: &'a LiveDoc = self.view.segment.doc(slot)?;
        let number = self.base_len() + self.docs.len() as u32;
        self.docs.push(doc);
        Some((number, doc.ins))
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
        let mut keyed: Vec<((std::cmp::Reverse<i64>, i64), u32)> = slots
            .iter()
            .filter_map(|&slot| {
                let doc = segment.doc(slot)?;
                Some(((std::cmp::Reverse(doc.popularity), doc.pk), slot))
            })
            .collect();
        keyed.sort_unstable();
        slots.clear();
        slots.extend(keyed.into_iter().map(|(_, slot)| slot));
    }

    fn is_allowed(&self, slot: u32) -> bool {
        self.allowed_bits
            .as_ref()
            .is_none_or(|allowed| bits::contains(allowed, slot))
    }

    /// The product key of document `doc` of this search.
    fn pk_of(&self, doc: u32) -> Option<i64> {
        let base = self.view.base;
        if doc < self.base_len() {
            return base.pks.get(doc as usize).copied();
        }
        self.docs
            .get((doc - self.base_len()) as usize)
            .map(|live| live.pk)
    }
}

impl<'a> LivePart for LiveQuery<'a> {
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

    fn docs(&self) -> &[&LiveDoc] {
        &self.docs
    }

    fn candidate_count(&self) -> usize {
        self.candidates.len()
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
        let mut live = Vec::with_capacity(slots.len());
        for slot in slots {
            if let Some(numbered) = self.number(slot) {
                live.push(numbered);
            }
        }
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
        // Word `w`'s documents with at most `l` typos: set `w * LEVELS + l`.
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
        let set = |word: usize, level: usize| &sets[(word * LEVELS + level) * blocks..][..blocks];
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
        let found = bits::count(&any) as usize;
        if found == 0 {
            return;
        }
        // A candidate's words, typos and exact words, from the sets above.
        let of_slot = |slot: u32| {
            let (mut matched, mut typos, mut held) = (0u8, 0u8, 0u32);
            for word in 0..word_count {
                if !bits::contains(set(word, LEVELS - 1), slot) {
                    continue;
                }
                matched += 1;
                held |= 1 << word;
                typos += (0..LEVELS)
                    .find(|&level| bits::contains(set(word, level), slot))
                    .unwrap_or(LEVELS - 1) as u8;
            }
            let mut terms = exact_terms.iter();
            let exactly = exact_sets
                .iter()
                .filter(|exact| match exact {
                    ExactSet::Word(word) => bits::contains(set(*word, 0), slot),
                    ExactSet::Term(_) => terms.next().is_some_and(|set| bits::contains(set, slot)),
                })
                .count() as u32;
            (matched, typos, held | exactly << EXACT_SHIFT)
        };
        // Numbered in document order, as they are met: many (a common word's) picked out of
        // the segment's order in one walk, a few sorted by their keys.
        let base_len = self.base_len();
        let add = |doc: &'a LiveDoc, slot: u32, docs: &mut Vec<&'a LiveDoc>| {
            let (matched, typos, words) = of_slot(slot);
            let number = base_len + docs.len() as u32;
            docs.push(doc);
            Candidate {
                doc: number,
                ins: doc.ins,
                matched,
                typos,
                words,
            }
        };
        self.candidates.reserve(found);
        if found * 8 > segment.alive {
            for ordered in &segment.order {
                if bits::contains(&any, ordered.slot) {
                    let candidate = add(&ordered.doc, ordered.slot, &mut self.docs);
                    self.candidates.push(candidate);
                }
            }
        } else {
            let mut keyed: Vec<(DocKey, u32, &'a LiveDoc)> = Vec::with_capacity(found);
            bits::for_each(&any, |slot| {
                if let Some(doc) = segment.doc(slot) {
                    keyed.push(((std::cmp::Reverse(doc.popularity), doc.pk), slot, doc));
                }
                true
            });
            keyed.sort_unstable_by_key(|&(key, _, _)| key);
            for (_, slot, doc) in keyed {
                let candidate = add(doc, slot, &mut self.docs);
                self.candidates.push(candidate);
            }
        }
    }

    fn bucket(&self, matched: usize, typos: usize) -> Vec<LiveEntry> {
        self.candidates
            .iter()
            .filter(|c| usize::from(c.matched) == matched && usize::from(c.typos) == typos)
            .map(|c| LiveEntry {
                doc: c.doc,
                words: c.words,
                ins: c.ins,
            })
            .collect()
    }

    fn count_by_matched(&self, per_count: &mut [u64]) {
        for c in &self.candidates {
            if let Some(count) = per_count.get_mut(usize::from(c.matched)) {
                *count += 1;
            }
        }
    }

    fn count_by_typos(&self, matched: usize, per_typos: &mut [u64]) {
        for c in &self.candidates {
            if usize::from(c.matched) == matched
                && let Some(count) = per_typos.get_mut(usize::from(c.typos))
            {
                *count += 1;
            }
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
