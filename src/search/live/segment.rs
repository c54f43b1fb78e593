//! The live segment: the products written since the base was built, and the base documents
//! they replaced or deleted (tombstones), as one immutable value that a write copies and
//! changes. Its collections are persistent (`imbl`): a copy shares all but the paths a write
//! changes, so a write costs what its own terms cost, not the segment's size, and a search
//! holds the segment it started with for as long as it runs.

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

use imbl::{OrdMap, Vector};

/// The segment's persistent hash maps, hashed with `foldhash` (their keys are term ids,
/// product keys and codes of this process; `SipHash` cost more than the lookup's walk).
pub(crate) type PMap<K, V> =
    imbl::GenericHashMap<K, V, foldhash::fast::RandomState, imbl::shared_ptr::DefaultSharedPtr>;

use super::product::IndexFields;
use crate::search::SearchIndex;
use crate::search::analyze::{ProductCodes, TermSink, codes_of, each_term};
use crate::search::docs::{HitLoc, LiveDoc};
use crate::search::parts::{DocHeader, META_TITLE, TitleSketch};
use crate::search::text::has_digit;

/// A term of a written product: its name, and its id when the base has it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct TermRef {
    pub(crate) name: Box<str>,
    pub(crate) base: Option<u32>,
}

/// A written product as the index takes it: its terms in forward-index order with their flags
/// (as module `analyze` gives them), its title's shape and its codes.
#[derive(Debug, Clone)]
pub(crate) struct Analyzed {
    pub(crate) terms: Vec<(TermRef, u8)>,
    /// Entries from here on are found only in the description.
    pub(crate) description: u32,
    pub(crate) title_len: u8,
    pub(crate) title_distinct: u8,
    pub(crate) codes: ProductCodes,
    pub(crate) gtins: Box<[u64]>,
    /// A hash of everything above with the popularity: equal prints, same postings.
    pub(crate) print: u64,
}

/// Terms of one product into an [`Analyzed`], a term once unless a repeated title word.
struct Sink<'a> {
    base: &'a SearchIndex,
    terms: Vec<(TermRef, u8)>,
    seen: foldhash::HashSet<TermRef>,
    title_len: u32,
    title_distinct: u32,
    description: u32,
}

impl Sink<'_> {
    fn resolve(&self, word: &str) -> TermRef {
        let dictionary = &self.base.dictionary;
        let found = if has_digit(word) {
            dictionary.codes.get(word)
        } else {
            dictionary.words.get(word)
        };
        TermRef {
            name: word.into(),
            base: found.map(|id| id as u32),
        }
    }
}

impl TermSink for Sink<'_> {
    fn title_word(&mut self, word: &str, meta: u8) {
        let term = self.resolve(word);
        if self.seen.insert(term.clone()) {
            self.title_distinct += 1;
        }
        self.terms.push((term, meta));
        self.title_len += 1;
    }

    fn term(&mut self, word: &str, rank: u8) {
        if word.is_empty() {
            return;
        }
        let term = self.resolve(word);
        if self.seen.insert(term.clone()) {
            self.terms.push((term, rank));
        }
    }

    fn description_starts(&mut self) {
        self.description = self.terms.len() as u32;
    }
}

/// `product` as the index takes it, its terms looked up in `base`'s dictionary.
pub(crate) fn analyze(base: &SearchIndex, product: &IndexFields) -> Analyzed {
    let text = product.text();
    let mut sink = Sink {
        base,
        terms: Vec::new(),
        seen: foldhash::HashSet::default(),
        title_len: 0,
        title_distinct: 0,
        description: 0,
    };
    let mut buffer = String::new();
    each_term(&text, &mut sink, &mut buffer);
    let codes = codes_of(&text, &mut buffer);
    let gtins: Box<[u64]> = product.gtins.as_slice().into();
    let mut hasher = print_hasher();
    for (term, meta) in &sink.terms {
        hasher.write(term.name.as_bytes());
        hasher.write_u8(0xff);
        hasher.write_u8(*meta);
    }
    hasher.write_u32(sink.description);
    hasher.write_u32(sink.title_len);
    hasher.write_i64(product.popularity);
    hasher.write_u64(codes_print(&codes, &gtins));
    Analyzed {
        description: sink.description,
        title_len: sink.title_len.min(255) as u8,
        title_distinct: sink.title_distinct.min(255) as u8,
        codes,
        gtins,
        print: hasher.finish(),
        terms: sink.terms,
    }
}

fn print_hasher() -> impl Hasher {
    foldhash::fast::FixedState::with_seed(62).build_hasher()
}

/// A hash of a product's codes that does not depend on their order: what a base document's
/// codes are compared by (`BaseSupport`) when a write may change its price alone.
pub(crate) fn codes_print(codes: &ProductCodes, gtins: &[u64]) -> u64 {
    let mut print = 0u64;
    if let Some(sku) = &codes.sku {
        print ^= item_print(0, sku.as_bytes());
    }
    if let Some(id) = codes.id {
        print ^= item_print(1, &id.to_le_bytes());
    }
    if let Some(slug) = &codes.slug {
        print ^= item_print(2, slug.as_bytes());
    }
    for gtin in gtins {
        print ^= item_print(3, &gtin.to_le_bytes());
    }
    print
}

/// One code's share of [`codes_print`].
pub(crate) fn item_print(kind: u8, bytes: &[u8]) -> u64 {
    let mut hasher = print_hasher();
    hasher.write_u8(kind);
    hasher.write(bytes);
    hasher.finish()
}

impl LiveDoc {
    /// Whether it comes before `other` in document order.
    pub(crate) fn before(&self, other: &LiveDoc) -> bool {
        (std::cmp::Reverse(self.popularity), self.pk)
            < (std::cmp::Reverse(other.popularity), other.pk)
    }

    /// Each distinct term once (title words said twice once).
    pub(crate) fn distinct_terms(&self) -> impl Iterator<Item = u32> + '_ {
        self.entries.iter().enumerate().filter_map(|(at, &entry)| {
            let repeated = entry as u8 & META_TITLE != 0
                && self.entries[..at]
                    .iter()
                    .any(|&earlier| earlier >> 8 == entry >> 8);
            (!repeated).then_some(entry >> 8)
        })
    }
}

/// The live segment (see the module documentation).
#[derive(Clone, Default)]
pub(crate) struct Segment {
    /// Live documents by slot, in the order written; `None` once replaced or deleted.
    pub(crate) slots: Vector<Option<Arc<LiveDoc>>>,
    /// The live documents in document order, each with its slot (a search walking them needs
    /// no lookup by slot).
    pub(crate) order: Vector<Ordered>,
    /// Union term -> the slots of the live documents having it, increasing.
    pub(crate) postings: PMap<u32, Vector<u32>>,
    /// Union term -> documents having it now, less those having it in the base.
    pub(crate) delta: PMap<u32, i64>,
    /// Every term a live document has (base or new), by name.
    pub(crate) touched: OrdMap<Arc<str>, u32>,
    /// The new terms without digits, by name: typo derivations walk them.
    pub(crate) new_words: OrdMap<Arc<str>, u32>,
    /// New term `base terms + i` is `new_names[i]`.
    pub(crate) new_names: Vector<Arc<str>>,
    /// Exact codes of the live documents -> their slots.
    pub(crate) skus: PMap<Arc<str>, Vector<u32>>,
    pub(crate) slugs: PMap<Arc<str>, Vector<u32>>,
    pub(crate) ids: PMap<u128, Vector<u32>>,
    pub(crate) gtins: PMap<u64, Vector<u32>>,
    /// Product key -> its slot.
    pub(crate) by_pk: PMap<i64, u32>,
    /// Base documents replaced or deleted, one bit each (empty while none is).
    pub(crate) dead: Arc<Vec<u64>>,
    pub(crate) dead_count: usize,
    /// Hits that replace a base product's (a write that changed its hit alone).
    pub(crate) base_hits: PMap<i64, HitLoc>,
    /// Live documents.
    pub(crate) alive: usize,
    /// The union terms with postings or a changed frequency here, as a one-hash filter
    /// ([`Segment::may_have`]): a query's hundreds of expansion terms are nearly all terms of
    /// no live document, and each lookup in the persistent maps is a walk of a few nodes.
    pub(crate) terms_filter: Arc<Vec<u64>>,
}

/// A live document in [`Segment::order`], with its slot.
#[derive(Clone)]
pub(crate) struct Ordered {
    pub(crate) slot: u32,
    pub(crate) doc: Arc<LiveDoc>,
}

/// Bits of [`Segment::terms_filter`]: 128 KB, copied by a write that adds a term.
const FILTER_BITS: u32 = 20;

fn filter_bit(term: u32) -> (usize, u64) {
    let bit = (u64::from(term).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - FILTER_BITS)) as usize;
    (bit / 64, 1 << (bit % 64))
}

impl Segment {
    /// Whether `term` may have postings or a changed frequency here (`false`: it has neither).
    #[inline]
    pub(crate) fn may_have(&self, term: u32) -> bool {
        let (word, bit) = filter_bit(term);
        self.terms_filter
            .get(word)
            .is_some_and(|bits| bits & bit != 0)
    }

    /// Notes `term` in [`Segment::terms_filter`].
    pub(crate) fn note_term(&mut self, term: u32) {
        let (word, bit) = filter_bit(term);
        if self
            .terms_filter
            .get(word)
            .is_some_and(|bits| bits & bit != 0)
        {
            return;
        }
        let filter = Arc::make_mut(&mut self.terms_filter);
        if filter.is_empty() {
            filter.resize(1 << (FILTER_BITS - 6), 0);
        }
        filter[word] |= bit;
    }

    /// Whether the segment changes nothing of its base.
    pub(crate) fn is_empty(&self) -> bool {
        self.alive == 0 && self.dead_count == 0 && self.base_hits.is_empty()
    }

    /// The live document in `slot`.
    pub(crate) fn doc(&self, slot: u32) -> Option<&Arc<LiveDoc>> {
        self.slots.get(slot as usize)?.as_ref()
    }

    /// Whether base document `doc` was replaced or deleted.
    pub(crate) fn is_dead(&self, doc: u32) -> bool {
        self.dead
            .get(doc as usize / 64)
            .is_some_and(|block| block & (1 << (doc % 64)) != 0)
    }

    /// The union id of term `name` of a written product, a new one when no document had it.
    pub(crate) fn new_term_id(&mut self, base_terms: usize, name: &str) -> u32 {
        if let Some(&id) = self.touched.get(name) {
            return id;
        }
        let id = (base_terms + self.new_names.len()) as u32;
        let name: Arc<str> = name.into();
        self.new_names.push_back(Arc::clone(&name));
        if !has_digit(&name) {
            self.new_words.insert(Arc::clone(&name), id);
        }
        self.touched.insert(name, id);
        id
    }

    /// Adds `doc` in a new slot.
    pub(crate) fn insert(&mut self, doc: LiveDoc) {
        let slot = self.slots.len() as u32;
        for term in doc.distinct_terms() {
            self.postings.entry(term).or_default().push_back(slot);
            *self.delta.entry(term).or_default() += 1;
            self.note_term(term);
        }
        let codes = &doc.codes;
        if let Some(sku) = &codes.sku {
            add_slot(self.skus.entry(Arc::from(&**sku)).or_default(), slot);
        }
        if let Some(slug) = &codes.slug {
            add_slot(self.slugs.entry(Arc::from(&**slug)).or_default(), slot);
        }
        if let Some(id) = codes.id {
            add_slot(self.ids.entry(id).or_default(), slot);
        }
        for &gtin in &doc.gtins {
            add_slot(self.gtins.entry(gtin).or_default(), slot);
        }
        let at = self.order.binary_search_by(|other| {
            if other.doc.before(&doc) {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }
        });
        let at = at.unwrap_or_else(|at| at);
        self.by_pk.insert(doc.pk, slot);
        let doc = Arc::new(doc);
        self.slots.push_back(Some(Arc::clone(&doc)));
        self.order.insert(at, Ordered { slot, doc });
        self.alive += 1;
    }

    /// Removes the live document in `slot`.
    pub(crate) fn remove(&mut self, slot: u32) {
        let Some(doc) = self.slots.get(slot as usize).cloned().flatten() else {
            return;
        };
        for term in doc.distinct_terms() {
            if let Some(list) = self.postings.get_mut(&term) {
                remove_slot(list, slot);
                if list.is_empty() {
                    self.postings.remove(&term);
                }
            }
            *self.delta.entry(term).or_default() -= 1;
        }
        let codes = &doc.codes;
        if let Some(sku) = &codes.sku {
            drop_slot(&mut self.skus, &**sku, slot);
        }
        if let Some(slug) = &codes.slug {
            drop_slot(&mut self.slugs, &**slug, slot);
        }
        if let Some(id) = codes.id {
            drop_slot(&mut self.ids, &id, slot);
        }
        for gtin in &doc.gtins {
            drop_slot(&mut self.gtins, gtin, slot);
        }
        if let Some(at) = self.order_position(&doc) {
            self.order.remove(at);
        }
        if self.by_pk.get(&doc.pk) == Some(&slot) {
            self.by_pk.remove(&doc.pk);
        }
        self.slots.set(slot as usize, None);
        self.alive -= 1;
    }

    /// Where `doc` (a live document, by identity) is in [`Segment::order`].
    fn order_position(&self, doc: &Arc<LiveDoc>) -> Option<usize> {
        self.order
            .binary_search_by(|other| {
                if Arc::ptr_eq(&other.doc, doc) {
                    std::cmp::Ordering::Equal
                } else if other.doc.before(doc) {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Greater
                }
            })
            .ok()
    }

    /// Puts `doc` in `slot` in place of the live document there, which it equals in document
    /// order and postings (a new hit).
    pub(crate) fn set_doc(&mut self, slot: u32, doc: LiveDoc) {
        let Some(old) = self.doc(slot).cloned() else {
            return;
        };
        let doc = Arc::new(doc);
        if let Some(at) = self.order_position(&old) {
            self.order.set(
                at,
                Ordered {
                    slot,
                    doc: Arc::clone(&doc),
                },
            );
        }
        self.slots.set(slot as usize, Some(doc));
    }

    /// Marks base document `doc` replaced or deleted: its terms count one document less.
    pub(crate) fn kill_base(&mut self, base: &SearchIndex, doc: u32) {
        if self.is_dead(doc) {
            return;
        }
        let blocks = crate::search::bits::blocks_for(base.len());
        let dead = Arc::make_mut(&mut self.dead);
        if dead.len() < blocks {
            dead.resize(blocks, 0);
        }
        dead[doc as usize / 64] |= 1 << (doc % 64);
        self.dead_count += 1;
        self.base_hits.remove(&base.pks[doc as usize]);
        let mut terms = Vec::new();
        crate::search::numbering::each_term_once(
            &base.forward.entries,
            &[
                base.forward.docs[doc as usize].start,
                base.forward.docs[doc as usize].end,
            ],
            0,
            &mut |term, _| terms.push(term),
        );
        for term in terms {
            *self.delta.entry(term).or_default() -= 1;
            self.note_term(term);
        }
    }
}

/// A document made of `analyzed` (its new terms numbered in `segment`), placed after the
/// `ins` base documents before it.
pub(crate) fn live_doc(
    base: &SearchIndex,
    segment: &mut Segment,
    product: &IndexFields,
    analyzed: Analyzed,
    hit: HitLoc,
) -> LiveDoc {
    let base_terms = base.dictionary.term_count();
    make_doc(
        base,
        &mut |term| match term.base {
            Some(id) => {
                // A base term a live document has is kept by name too: prefix expansion
                // finds it there (module `expand`).
                if !segment.touched.contains_key(&*term.name) {
                    segment.touched.insert(Arc::from(&*term.name), id);
                }
                id
            }
            None => segment.new_term_id(base_terms, &term.name),
        },
        product,
        analyzed,
        hit,
    )
}

/// A document made of `analyzed`, its terms numbered by `id_of`.
pub(crate) fn make_doc(
    base: &SearchIndex,
    id_of: &mut dyn FnMut(&TermRef) -> u32,
    product: &IndexFields,
    analyzed: Analyzed,
    hit: HitLoc,
) -> LiveDoc {
    let entries: Vec<u32> = analyzed
        .terms
        .iter()
        .map(|(term, meta)| id_of(term) << 8 | u32::from(*meta))
        .collect();
    let header = DocHeader {
        start: 0,
        description: analyzed.description,
        end: entries.len() as u32,
        title_len: analyzed.title_len,
        title_distinct: analyzed.title_distinct,
    };
    let sketch = TitleSketch::of(&header, &entries);
    let key = (std::cmp::Reverse(product.popularity), product.pk);
    let ins = partition_docs(base, |doc| {
        (
            std::cmp::Reverse(base.popularity[doc as usize]),
            base.pks[doc as usize],
        ) < key
    });
    LiveDoc {
        pk: product.pk,
        popularity: product.popularity,
        ins,
        entries: entries.into(),
        description: analyzed.description,
        title_len: analyzed.title_len,
        title_distinct: analyzed.title_distinct,
        sketch,
        codes: analyzed.codes,
        gtins: analyzed.gtins,
        print: analyzed.print,
        hit,
    }
}

/// The first base document for which `before` is false (documents for which it holds come
/// first).
fn partition_docs(base: &SearchIndex, before: impl Fn(u32) -> bool) -> u32 {
    let (mut low, mut high) = (0u32, base.len() as u32);
    while low < high {
        let middle = low + (high - low) / 2;
        if before(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

fn add_slot(list: &mut Vector<u32>, slot: u32) {
    if let Err(at) = list.binary_search(&slot) {
        list.insert(at, slot);
    }
}

fn remove_slot(list: &mut Vector<u32>, slot: u32) {
    if let Ok(at) = list.binary_search(&slot) {
        list.remove(at);
    }
}

fn drop_slot<K, Q>(map: &mut PMap<K, Vector<u32>>, key: &Q, slot: u32)
where
    K: std::hash::Hash + Eq + Clone + std::borrow::Borrow<Q>,
    Q: std::hash::Hash + Eq + ?Sized,
{
    if let Some(list) = map.get_mut(key) {
        remove_slot(list, slot);
        if list.is_empty() {
            map.remove(key);
        }
    }
}
