//! The live segment made again from the write log at start (and after a merge, from the writes
//! made meanwhile): the segment applying the records one by one would make, built at once.
//!
//! One by one, each record cost a write's work (some 200 µs at a million products: a
//! persistent-map update per term of the product); a log of tens of thousands of writes made
//! a second start last seconds. Here only each key's last state is kept while the log is read,
//! the products that remain are analyzed on two threads, and the segment's maps are filled as
//! plain maps and made persistent once, a key at a time instead of a posting at a time.

use std::collections::HashMap;
use std::sync::Arc;

use imbl::Vector;

use super::log::{Kind, Record};
use super::product::IndexFields;
use super::segment::{Analyzed, Ordered, Segment, TermRef, analyze, make_doc};
use crate::search::SearchIndex;
use crate::search::docs::{HitLoc, LiveDoc};
use crate::search::text::has_digit;

/// A key's state as the records so far leave it.
enum State {
    /// The base's product, with the hit a later record gave it.
    BaseHit(HitLoc),
    /// A product written live, with its hit.
    Live(Box<IndexFields>, HitLoc),
    /// Deleted.
    Gone,
}

/// The records of a log, read in order.
pub(crate) struct Replay<'b> {
    base: &'b SearchIndex,
    /// Each key a record named, in the order of its first record, with its state now.
    states: HashMap<i64, (u64, State)>,
    next: u64,
}

impl<'b> Replay<'b> {
    pub(crate) fn new(base: &'b SearchIndex) -> Self {
        Self {
            base,
            states: HashMap::new(),
            next: 0,
        }
    }

    fn in_base(&self, pk: i64) -> bool {
        self.base.live_support().doc_of_pk.get(pk).is_some()
    }

    /// Takes the next record.
    pub(crate) fn add(&mut self, record: Record) {
        let order = self.next;
        self.next += 1;
        let pk = record.pk;
        let previous = self.states.remove(&pk);
        let in_base = self.in_base(pk);
        let state = match (record.kind, previous) {
            (Kind::Product, _) => match (record.fields, record.hit) {
                (Some(fields), Some(hit)) => Some(State::Live(Box::new(fields), hit)),
                _ => None,
            },
            (Kind::Delete, _) | (Kind::Hit, Some((_, State::Gone))) => Some(State::Gone),
            (Kind::Hit, Some((_, State::Live(fields, _)))) => {
                record.hit.map(|hit| State::Live(fields, hit))
            }
            (Kind::Hit, Some((_, State::BaseHit(_))) | None) if in_base => {
                record.hit.map(State::BaseHit)
            }
            (Kind::Hit, None | Some(_)) => None,
        };
        if let Some(state) = state {
            self.states.insert(pk, (order, state));
        }
    }

    /// The segment the records make over the base.
    pub(crate) fn finish(self) -> Segment {
        let base = self.base;
        let mut states: Vec<(u64, i64, State)> = self
            .states
            .into_iter()
            .map(|(pk, (order, state))| (order, pk, state))
            .collect();
        states.sort_unstable_by_key(|&(order, pk, _)| (order, pk));
        let mut segment = Segment::default();
        let mut live: Vec<(IndexFields, HitLoc)> = Vec::new();
        let support = base.live_support();
        for (_, pk, state) in states {
            let base_doc = support.doc_of_pk.get(pk);
            match state {
                State::BaseHit(hit) => {
                    segment.base_hits.insert(pk, hit);
                }
                State::Live(fields, hit) => {
                    if let Some(doc) = base_doc {
                        segment.kill_base(base, doc);
                    }
                    live.push((*fields, hit));
                }
                State::Gone => {
                    if let Some(doc) = base_doc {
                        segment.kill_base(base, doc);
                    }
                }
            }
        }
        let analyzed = analyze_all(base, &live);
        fill(base, &mut segment, live, analyzed);
        segment
    }
}

/// `live`'s products analyzed, on two threads when there are many.
fn analyze_all(base: &SearchIndex, live: &[(IndexFields, HitLoc)]) -> Vec<Analyzed> {
    let two = std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2);
    if !two || live.len() < 256 {
        return live
            .iter()
            .map(|(fields, _)| analyze(base, fields))
            .collect();
    }
    let (first, second) = live.split_at(live.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| {
            second
                .iter()
                .map(|(fields, _)| analyze(base, fields))
                .collect::<Vec<_>>()
        });
        let mut analyzed: Vec<Analyzed> = first
            .iter()
            .map(|(fields, _)| analyze(base, fields))
            .collect();
        analyzed.extend(
            other
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        );
        analyzed
    })
}

/// Adds the live products to `segment` (empty of live products), its maps filled as plain
/// maps first.
fn fill(
    base: &SearchIndex,
    segment: &mut Segment,
    live: Vec<(IndexFields, HitLoc)>,
    analyzed: Vec<Analyzed>,
) {
    let base_terms = base.dictionary.term_count();
    let mut touched: HashMap<Arc<str>, u32> = HashMap::new();
    let mut new_names: Vec<Arc<str>> = Vec::new();
    let mut postings: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut delta: HashMap<u32, i64> = segment.delta.iter().map(|(&t, &d)| (t, d)).collect();
    let mut skus: HashMap<Arc<str>, Vec<u32>> = HashMap::new();
    let mut slugs: HashMap<Arc<str>, Vec<u32>> = HashMap::new();
    let mut ids: HashMap<u128, Vec<u32>> = HashMap::new();
    let mut gtins: HashMap<u64, Vec<u32>> = HashMap::new();
    let mut docs: Vec<Arc<LiveDoc>> = Vec::with_capacity(live.len());
    for ((fields, hit), analyzed) in live.into_iter().zip(analyzed) {
        let slot = docs.len() as u32;
        let mut id_of = |term: &TermRef| {
            if let Some(id) = term.base {
                if !touched.contains_key(&*term.name) {
                    touched.insert(Arc::from(&*term.name), id);
                }
                return id;
            }
            if let Some(&id) = touched.get(&*term.name) {
                return id;
            }
            let id = (base_terms + new_names.len()) as u32;
            let name: Arc<str> = Arc::from(&*term.name);
            new_names.push(Arc::clone(&name));
            touched.insert(name, id);
            id
        };
        let doc = make_doc(base, &mut id_of, &fields, analyzed, hit);
        for term in doc.distinct_terms() {
            postings.entry(term).or_default().push(slot);
            *delta.entry(term).or_default() += 1;
        }
        if let Some(sku) = &doc.codes.sku {
            skus.entry(Arc::from(&**sku)).or_default().push(slot);
        }
        if let Some(slug) = &doc.codes.slug {
            slugs.entry(Arc::from(&**slug)).or_default().push(slot);
        }
        if let Some(id) = doc.codes.id {
            ids.entry(id).or_default().push(slot);
        }
        for &gtin in &doc.gtins {
            gtins.entry(gtin).or_default().push(slot);
        }
        docs.push(Arc::new(doc));
    }
    let mut order: Vec<u32> = (0..docs.len() as u32).collect();
    order.sort_unstable_by_key(|&slot| {
        let doc = &docs[slot as usize];
        (std::cmp::Reverse(doc.popularity), doc.pk)
    });
    segment.order = order
        .into_iter()
        .map(|slot| Ordered {
            slot,
            doc: Arc::clone(&docs[slot as usize]),
        })
        .collect();
    segment.by_pk = docs
        .iter()
        .enumerate()
        .map(|(slot, doc)| (doc.pk, slot as u32))
        .collect();
    segment.alive = docs.len();
    segment.slots = docs.into_iter().map(Some).collect();
    segment.postings = persistent(postings);
    for &term in delta.keys() {
        segment.note_term(term);
    }
    segment.delta = delta.into_iter().collect();
    segment.new_words = new_names
        .iter()
        .enumerate()
        .filter(|(_, name)| !has_digit(name))
        .map(|(at, name)| (Arc::clone(name), (base_terms + at) as u32))
        .collect();
    segment.new_names = new_names.into_iter().collect();
    segment.touched = touched.into_iter().collect();
    segment.skus = persistent(skus);
    segment.slugs = persistent(slugs);
    segment.ids = persistent(ids);
    segment.gtins = persistent(gtins);
}

/// A plain map of slot lists as the segment's persistent one (each list sorted, once each).
fn persistent<K: std::hash::Hash + Eq + Clone>(
    map: HashMap<K, Vec<u32>>,
) -> super::segment::PMap<K, Vector<u32>> {
    map.into_iter()
        .map(|(key, mut slots)| {
            slots.sort_unstable();
            slots.dedup();
            (key, slots.into_iter().collect::<Vector<u32>>())
        })
        .collect()
}
