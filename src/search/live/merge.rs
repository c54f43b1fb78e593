//! A merge: the base's documents that were not replaced or deleted and the live segment's,
//! made into one new base, numbered, posted and mapped as a build from a catalogue of the same
//! products (module `build`'s last steps; a test compares the saved bytes).
//!
//! The base's documents are taken from its forward index and exact maps, not from the
//! catalogue (a live product may be in no catalogue): their terms are renamed from the
//! base's dictionary, the live documents' from theirs.

use fst::Streamer;

use super::segment::Segment;
use super::view::{BaseSupport, View};
use crate::search::build::{CodeEntries, DocOrder, Gathered, ProductEntries, assemble};
use crate::search::gtins::{GtinMap, check_digit};
use crate::search::numbering::each_term_once;
use crate::search::sorted_map::TextEntries;
use crate::search::terms::TermTable;
use crate::search::{SearchError, SearchIndex};

/// Where a document of the merged base comes from.
#[derive(Clone, Copy)]
enum Source {
    Base(u32),
    Live(u32),
}

/// The base made of `base`'s documents that `segment` did not replace and `segment`'s.
pub(crate) fn merged(
    base: &SearchIndex,
    support: &BaseSupport,
    segment: &Segment,
) -> Result<SearchIndex, SearchError> {
    let view = View {
        base,
        support,
        segment,
    };
    let sources = document_order(base, segment);
    let doc_count = sources.len();
    if u32::try_from(doc_count).is_err() {
        return Err(SearchError::TooManyProducts { count: doc_count });
    }
    // The new document of each base document (u32::MAX: replaced or deleted).
    let mut new_of_base = vec![u32::MAX; base.len()];
    let mut order = DocOrder {
        pks: Vec::with_capacity(doc_count),
        popularity: Vec::with_capacity(doc_count),
    };
    for (new, source) in sources.iter().enumerate() {
        match *source {
            Source::Base(doc) => {
                new_of_base[doc as usize] = new as u32;
                order.pks.push(base.pks[doc as usize]);
                order.popularity.push(base.popularity[doc as usize]);
            }
            Source::Live(slot) => {
                let doc = segment.doc(slot).ok_or(SearchError::CatalogueChanged)?;
                order.pks.push(doc.pk);
                order.popularity.push(doc.popularity);
            }
        }
    }

    // Every term some document still has, renumbered in union order.
    let names = union_names(base, segment);
    let term_count = view.term_count();
    let mut provisional = vec![u32::MAX; term_count];
    let mut table = TermTable::default();
    for (term, slot) in provisional.iter_mut().enumerate() {
        if view.alive(term as u32) {
            let (id, _) = table.intern(names.name(term));
            *slot = id;
        }
    }
    let mut doc_count_of = vec![0u32; table.len()];

    let forward = &base.forward;
    let mut products = ProductEntries::with_capacity(doc_count, forward.entries.len());
    let push = |products: &mut ProductEntries, entries: &[u32], description: usize| {
        let start = products.terms.len();
        products.starts.push(start as u32);
        products
            .description_starts
            .push((start + description) as u32);
        for &entry in entries {
            products.terms.push(provisional[(entry >> 8) as usize]);
            products.meta.push(entry as u8);
        }
    };
    for source in &sources {
        match *source {
            Source::Base(doc) => {
                let header = forward.docs[doc as usize];
                let entries = &forward.entries[header.start as usize..header.end as usize];
                push(
                    &mut products,
                    entries,
                    (header.description - header.start) as usize,
                );
                products.title_len.push(header.title_len);
                products.title_distinct.push(header.title_distinct);
                each_term_once(
                    &forward.entries,
                    &[header.start, header.end],
                    0,
                    &mut |t, _| {
                        doc_count_of[provisional[t as usize] as usize] += 1;
                    },
                );
            }
            Source::Live(slot) => {
                let doc = segment.doc(slot).ok_or(SearchError::CatalogueChanged)?;
                push(&mut products, &doc.entries, doc.description as usize);
                products.title_len.push(doc.title_len);
                products.title_distinct.push(doc.title_distinct);
                for term in doc.distinct_terms() {
                    doc_count_of[provisional[term as usize] as usize] += 1;
                }
            }
        }
    }
    debug_assert!(
        doc_count_of.iter().all(|&count| count > 0),
        "a live term without documents"
    );

    let codes = &base.codes;
    let mut skus = TextEntries::default();
    let mut slugs = TextEntries::default();
    let mut product_ids = Vec::new();
    for (map, entries) in [(&codes.skus, &mut skus), (&codes.slugs, &mut slugs)] {
        for (i, &doc) in map.docs.iter().enumerate() {
            let new = new_of_base[doc as usize];
            if new != u32::MAX
                && let Ok(key) = std::str::from_utf8(map.key(i))
            {
                entries.push(key, new);
            }
        }
    }
    for (&id, &doc) in codes.ids.keys.iter().zip(&codes.ids.docs) {
        let new = new_of_base[doc as usize];
        if new != u32::MAX {
            product_ids.push((id, new));
        }
    }
    let mut live_gtins = Vec::new();
    for (new, source) in sources.iter().enumerate() {
        let Source::Live(slot) = *source else {
            continue;
        };
        let Some(doc) = segment.doc(slot) else {
            continue;
        };
        let new = new as u32;
        if let Some(sku) = &doc.codes.sku {
            skus.push(sku, new);
        }
        if let Some(slug) = &doc.codes.slug {
            slugs.push(slug, new);
        }
        if let Some(id) = doc.codes.id {
            product_ids.push((id, new));
        }
        live_gtins.extend(doc.gtins.iter().map(|&gtin| (gtin, new)));
    }
    live_gtins.sort_unstable();
    let gtin_map = codes.gtins.map().ok_or(SearchError::GtinsPending)?;
    let gtins = GtinMap::from_sorted(merge_gtins(gtin_map, &new_of_base, live_gtins));

    assemble(Gathered {
        order,
        names: table,
        doc_count: doc_count_of,
        entries: products,
        codes: CodeEntries {
            skus,
            product_ids,
            slugs,
        },
        gtins,
    })
}

/// The merged base's documents in document order: the base's alive ones and the live ones.
fn document_order(base: &SearchIndex, segment: &Segment) -> Vec<Source> {
    let mut sources = Vec::with_capacity(base.len() - segment.dead_count + segment.alive);
    let mut live = segment
        .order
        .iter()
        .map(|ordered| (ordered.slot, ordered.doc.ins))
        .peekable();
    for doc in 0..base.len() as u32 {
        while let Some((slot, _)) = live.next_if(|&(_, ins)| ins <= doc) {
            sources.push(Source::Live(slot));
        }
        if !segment.is_dead(doc) {
            sources.push(Source::Base(doc));
        }
    }
    sources.extend(live.map(|(slot, _)| Source::Live(slot)));
    sources
}

/// Every union term's name: the base's from its dictionary, the segment's new ones from it.
struct Names {
    text: Vec<u8>,
    /// Base term `t` is `text[spans[t].0..][..spans[t].1]`.
    spans: Vec<(u32, u32)>,
    new: Vec<std::sync::Arc<str>>,
}

impl Names {
    fn name(&self, term: usize) -> &str {
        match self.spans.get(term) {
            Some(&(start, len)) => {
                std::str::from_utf8(&self.text[start as usize..(start + len) as usize])
                    .unwrap_or("")
            }
            None => self
                .new
                .get(term - self.spans.len())
                .map_or("", |name| name),
        }
    }
}

fn union_names(base: &SearchIndex, segment: &Segment) -> Names {
    let dictionary = &base.dictionary;
    let mut text = Vec::new();
    let mut spans = vec![(0u32, 0u32); dictionary.term_count()];
    for map in [&dictionary.words, &dictionary.codes] {
        let mut stream = map.stream();
        while let Some((name, id)) = stream.next() {
            if let Some(span) = spans.get_mut(id as usize) {
                *span = (text.len() as u32, name.len() as u32);
                text.extend_from_slice(name);
            }
        }
    }
    Names {
        text,
        spans,
        new: segment.new_names.iter().cloned().collect(),
    }
}

/// The base's GTINs of the documents kept (renumbered) and the live documents' (`live`,
/// sorted), as one increasing stream of (GTIN, document).
fn merge_gtins<'m>(
    map: &'m GtinMap,
    new_of_base: &'m [u32],
    live: Vec<(u64, u32)>,
) -> impl Iterator<Item = (u64, u32)> + 'm {
    let renumber = move |(gtin, doc): (u64, u32)| {
        let new = new_of_base[doc as usize];
        (new != u32::MAX).then_some((gtin, new))
    };
    let runs = map
        .starts
        .iter()
        .zip(&map.lengths)
        .zip(&map.docs)
        .flat_map(|((&start, &length), &doc)| {
            (start..start + u64::from(length)).map(move |body| (body * 10 + check_digit(body), doc))
        })
        .filter_map(renumber);
    let others = map
        .others
        .keys
        .iter()
        .zip(&map.others.docs)
        .map(|(&gtin, &doc)| (gtin, doc))
        .filter_map(renumber);
    merge_sorted(merge_sorted(runs, others), live.into_iter())
}

/// Two increasing streams as one.
fn merge_sorted<T: Ord + Copy>(
    a: impl Iterator<Item = T>,
    b: impl Iterator<Item = T>,
) -> impl Iterator<Item = T> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if y < x => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}
