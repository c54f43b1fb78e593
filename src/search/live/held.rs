//! The hit of a product written to the live index: one lookup, for the pages
//! ([`LiveIndex::write_hit`](super::LiveIndex::write_hit)), for a write that may repeat what
//! the index holds, and for a merge that carries the hits into its generation.

use super::segment::Segment;
use crate::search::HitStore;
use crate::search::docs::HitLoc;
use crate::search::hits::HitError;

/// Where product `pk`'s hit is when a write since the last merge set it: its live document's,
/// or the hit-only write over its base document.
fn written_hit(segment: &Segment, pk: i64) -> Option<HitLoc> {
    segment
        .by_pk
        .get(&pk)
        .and_then(|&slot| segment.doc(slot))
        .map(|doc| doc.hit.clone())
        .or_else(|| segment.base_hits.get(&pk).cloned())
}

/// Product `pk`'s stored hit record as the index holds it: written since the last merge (the
/// segment's), else written before it (the last merge's hits, `overlay`);
/// [`HitError::Unknown`] for a product of the catalogue's own that no write touched.
pub(super) fn held_record(
    segment: &Segment,
    overlay: Option<&HitStore>,
    pk: i64,
) -> Result<Vec<u8>, HitError> {
    match written_hit(segment, pk) {
        Some(loc) => {
            let mut record = vec![0u8; loc.len as usize];
            crate::search::hits::read_exact_at(&loc.file, &mut record, loc.offset)?;
            Ok(record)
        }
        None => overlay.ok_or(HitError::Unknown(pk))?.stored_record_of(pk),
    }
}
