//! A write's edits of the live segment: a product added or replaced, a hit replaced, a
//! delete (the updater makes them on its copy of the segment), and what each did.

use super::product::IndexFields;
use super::segment::{Analyzed, Segment, codes_print, live_doc};
use crate::search::SearchIndex;
use crate::search::docs::{HitLoc, LiveDoc};

/// Whether the index holds a product of key `pk`.
pub(super) fn holds(base: &SearchIndex, segment: &Segment, pk: i64) -> bool {
    segment.by_pk.contains_key(&pk)
        || base
            .live_support()
            .doc_of_pk
            .get(pk)
            .is_some_and(|doc| !segment.is_dead(doc))
}

/// Whether a write of `fields` (analyzed as `analyzed`) leaves the postings of the product of
/// its key as they are: same terms with the same flags, same title, codes and popularity.
pub(super) fn unchanged(
    base: &SearchIndex,
    segment: &Segment,
    fields: &IndexFields,
    analyzed: &Analyzed,
) -> bool {
    if let Some(doc) = segment
        .by_pk
        .get(&fields.pk)
        .and_then(|&slot| segment.doc(slot))
    {
        return doc.print == analyzed.print;
    }
    let support = base.live_support();
    let Some(doc) = support.doc_of_pk.get(fields.pk) else {
        return false;
    };
    if segment.is_dead(doc) || base.popularity[doc as usize] != fields.popularity {
        return false;
    }
    let header = base.forward.docs[doc as usize];
    let entries = &base.forward.entries[header.start as usize..header.end as usize];
    let same_terms = entries.len() == analyzed.terms.len()
        && entries
            .iter()
            .zip(&analyzed.terms)
            .all(|(&entry, (term, meta))| {
                term.base.map(|id| id << 8 | u32::from(*meta)) == Some(entry)
            });
    same_terms
        && header.description - header.start == analyzed.description
        && header.title_len == analyzed.title_len
        && header.title_distinct == analyzed.title_distinct
        && support.code_print(base, doc) == Some(codes_print(&analyzed.codes, &analyzed.gtins))
}

/// Adds the product of `fields`, replacing the one of its key.
pub(super) fn replace(
    base: &SearchIndex,
    segment: &mut Segment,
    fields: &IndexFields,
    analyzed: Analyzed,
    hit: Option<HitLoc>,
) -> WriteOutcome {
    let outcome = if holds(base, segment, fields.pk) {
        delete(base, segment, fields.pk);
        WriteOutcome::Replaced
    } else {
        WriteOutcome::Added
    };
    let Some(hit) = hit else {
        return outcome;
    };
    let doc = live_doc(base, segment, fields, analyzed, hit);
    segment.insert(doc);
    outcome
}

/// Replaces the hit of the product of key `pk` (nothing when the index holds none).
pub(super) fn set_hit(base: &SearchIndex, segment: &mut Segment, pk: i64, hit: Option<HitLoc>) {
    let Some(hit) = hit else {
        return;
    };
    if let Some(&slot) = segment.by_pk.get(&pk) {
        if let Some(doc) = segment.doc(slot) {
            let doc = LiveDoc {
                hit,
                ..LiveDoc::clone(doc)
            };
            segment.set_doc(slot, doc);
        }
    } else if holds(base, segment, pk) {
        segment.base_hits.insert(pk, hit);
    }
}

/// Deletes the product of key `pk`, live or in the base.
pub(super) fn delete(base: &SearchIndex, segment: &mut Segment, pk: i64) {
    if let Some(&slot) = segment.by_pk.get(&pk) {
        segment.remove(slot);
    } else if let Some(doc) = base.live_support().doc_of_pk.get(pk)
        && !segment.is_dead(doc)
    {
        segment.kill_base(base, doc);
    }
}

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOutcome {
    /// A product of a key the index did not hold.
    Added,
    /// The product of the same key replaced (its text, codes or popularity changed).
    Replaced,
    /// Only the product's hit replaced (its index fields were unchanged: a price change).
    HitOnly,
    /// Nothing to write: the index holds the product exactly so (a store's list or an
    /// upstream's answer that repeats what it gave before). Nothing is appended to the log.
    Unchanged,
    /// The product deleted.
    Deleted,
    /// A delete of a key the index did not hold.
    Absent,
}
