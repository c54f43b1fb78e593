//! A write's effect on the live segment (a product added or replaced, a hit replaced, a
//! delete), and the hits a merge keeps.

use std::path::Path;

use super::product::IndexFields;
use super::segment::{Analyzed, Segment, codes_print, live_doc};
use super::{LiveError, Snapshot};
use crate::search::SearchIndex;
use crate::search::docs::{HitLoc, LiveDoc};
use crate::search::hits::HitError;
use crate::search::hits::overlay;

/// Writes the hits of every product written so far that `merged` holds: the segment's, else
/// the last merge's.
pub(crate) fn write_overlay(
    snapshot: &Snapshot,
    merged: &SearchIndex,
    path: &Path,
    identity: &[u8; 32],
) -> Result<(), LiveError> {
    enum From {
        Loc(HitLoc),
        Overlay,
    }
    let segment = &snapshot.segment;
    let mut sources: std::collections::BTreeMap<i64, From> = std::collections::BTreeMap::new();
    if let Some(store) = &snapshot.overlay {
        for &pk in store.product_keys() {
            sources.insert(pk, From::Overlay);
        }
    }
    for (&pk, loc) in &segment.base_hits {
        sources.insert(pk, From::Loc(loc.clone()));
    }
    for (&pk, &slot) in &segment.by_pk {
        if let Some(doc) = segment.doc(slot) {
            sources.insert(pk, From::Loc(doc.hit.clone()));
        }
    }
    let held = &merged.live_support().doc_of_pk;
    let records = sources
        .into_iter()
        .filter(|(pk, _)| held.get(*pk).is_some())
        .map(|(pk, from)| {
            let record = match from {
                From::Loc(loc) => {
                    read_hit(&loc).map_err(|err| std::io::Error::other(err.to_string()))?
                }
                From::Overlay => snapshot
                    .overlay
                    .as_ref()
                    .ok_or_else(|| std::io::Error::other("no overlay"))?
                    .stored_record_of(pk)
                    .map_err(|err| std::io::Error::other(err.to_string()))?,
            };
            Ok((pk, record))
        });
    let mut staged = crate::durable::stage(path).map_err(|err| LiveError::io(path, err))?;
    overlay::write_records(staged.file(), identity, records)
        .and_then(|()| staged.commit())
        .map_err(|err| LiveError::io(path, err))
}

/// Whether the index holds a product of key `pk`.
pub(crate) fn holds(base: &SearchIndex, segment: &Segment, pk: i64) -> bool {
    segment.by_pk.contains_key(&pk)
        || base
            .live_support()
            .doc_of_pk
            .get(pk)
            .is_some_and(|doc| !segment.is_dead(doc))
}

/// Whether a write of `fields` (analyzed as `analyzed`) leaves the postings of the product of
/// its key as they are: same terms with the same flags, same title, codes and popularity.
pub(crate) fn unchanged(
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

/// Where product `pk`'s hit is when a write since the last merge set it: its live document's,
/// or the hit-only write over its base document.
pub(crate) fn written_hit(segment: &Segment, pk: i64) -> Option<HitLoc> {
    segment
        .by_pk
        .get(&pk)
        .and_then(|&slot| segment.doc(slot))
        .map(|doc| doc.hit.clone())
        .or_else(|| segment.base_hits.get(&pk).cloned())
}

/// Product `pk`'s hit as this index holds it (its stored record), when it was written here:
/// `None` for a product of the catalogue's own that no write touched, or one unreadable.
pub(crate) fn held_hit(
    segment: &Segment,
    overlay: Option<&crate::search::HitStore>,
    pk: i64,
) -> Option<Vec<u8>> {
    match written_hit(segment, pk) {
        Some(loc) => read_hit(&loc).ok(),
        None => overlay?.stored_record_of(pk).ok(),
    }
}

/// Adds the product of `fields`, replacing the one of its key.
pub(crate) fn replace(
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
pub(crate) fn set_hit(base: &SearchIndex, segment: &mut Segment, pk: i64, hit: Option<HitLoc>) {
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
pub(crate) fn delete(base: &SearchIndex, segment: &mut Segment, pk: i64) {
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

pub(crate) fn read_hit(loc: &HitLoc) -> Result<Vec<u8>, HitError> {
    let mut record = vec![0u8; loc.len as usize];
    crate::search::hits::read_exact_at(&loc.file, &mut record, loc.offset)?;
    Ok(record)
}
