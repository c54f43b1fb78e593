//! The documents a ranking scores, as module `bucket` reads them: the index's own (numbered
//! `0..base`, read from its forward index) and, over a live index, the live segment's products
//! (numbered from `base` on by their slot in the segment, [`LiveDocs`]; module `live`).
//!
//! A live segment's product ([`LiveDoc`]) is defined here, below module `live`, because the
//! ranking reads it; module `live` builds, keeps and orders them.

use std::sync::Arc;

use super::analyze::ProductCodes;
use super::parts::{DocHeader, Forward, TitleSketch};

/// A product in the live segment.
#[derive(Debug, Clone)]
pub(crate) struct LiveDoc {
    pub(crate) pk: i64,
    pub(crate) popularity: i64,
    /// Base documents before it in document order (`popularity DESC, pk`).
    pub(crate) ins: u32,
    /// `union term << 8 | meta`, as a base document's forward entries.
    pub(crate) entries: Box<[u32]>,
    pub(crate) description: u32,
    pub(crate) title_len: u8,
    pub(crate) title_distinct: u8,
    pub(crate) sketch: TitleSketch,
    pub(crate) codes: ProductCodes,
    pub(crate) gtins: Box<[u64]>,
    pub(crate) print: u64,
    pub(crate) hit: HitLoc,
}

/// Where a product's stored hit record is: a live index file, from `offset`, `len` bytes.
#[derive(Debug, Clone)]
pub(crate) struct HitLoc {
    pub(crate) file: Arc<std::fs::File>,
    pub(crate) offset: u64,
    pub(crate) len: u32,
}

/// The live documents a ranking may score, by their number past the index's (`base + at`).
/// Looked up one at a time, as a window reaches them: a search numbers none of them ahead.
pub(crate) trait LiveDocs {
    /// Live document `at`, if there is one.
    fn live_doc(&self, at: u32) -> Option<&LiveDoc>;
}

/// Forward entries and title facts of every document a ranking may score.
pub(crate) struct Docs<'a> {
    forward: &'a Forward,
    /// Documents of the index: below this number.
    base: u32,
    /// Document `base + at` is `live.live_doc(at)`.
    live: Option<&'a dyn LiveDocs>,
}

impl<'a> Docs<'a> {
    pub(crate) fn new(forward: &'a Forward, live: Option<&'a dyn LiveDocs>) -> Self {
        Self {
            forward,
            base: forward.docs.len() as u32,
            live,
        }
    }

    /// The live document numbered `doc`, if it is one.
    #[inline]
    fn live_doc(&self, doc: u32) -> Option<&'a LiveDoc> {
        let at = doc.checked_sub(self.base)?;
        self.live?.live_doc(at)
    }

    /// Document `doc`'s header and the entries its offsets point into.
    #[inline]
    pub(crate) fn doc(&self, doc: u32) -> (DocHeader, &'a [u32]) {
        if doc < self.base {
            return (self.forward.docs[doc as usize], &self.forward.entries);
        }
        match self.live_doc(doc) {
            Some(live) => (
                DocHeader {
                    start: 0,
                    description: live.description,
                    end: live.entries.len() as u32,
                    title_len: live.title_len,
                    title_distinct: live.title_distinct,
                },
                &live.entries,
            ),
            None => (DocHeader::EMPTY, &[]),
        }
    }

    /// The fewest distinct title words of `doc`'s block of 64 (its own for a live document).
    #[inline]
    pub(crate) fn title_distinct_floor(&self, doc: u32) -> u8 {
        if doc < self.base {
            self.forward.title_distinct_floor[doc as usize / 64]
        } else {
            self.title_distinct(doc)
        }
    }

    /// `doc`'s distinct title words.
    #[inline]
    pub(crate) fn title_distinct(&self, doc: u32) -> u8 {
        if doc < self.base {
            self.forward.title_distinct[doc as usize]
        } else {
            self.live_doc(doc).map_or(0, |live| live.title_distinct)
        }
    }

    /// `doc`'s title sketch.
    #[inline]
    pub(crate) fn sketch(&self, doc: u32) -> TitleSketch {
        if doc < self.base {
            self.forward.sketches[doc as usize]
        } else {
            self.live_doc(doc).map_or_else(
                || TitleSketch::of(&DocHeader::EMPTY, &[]),
                |live| live.sketch,
            )
        }
    }

    /// Where `doc`'s header and first entry are, for bringing them into the cache.
    #[inline]
    pub(crate) fn first_entry(&self, doc: u32) -> u32 {
        if doc < self.base {
            let start = self.forward.docs[doc as usize].start;
            self.forward
                .entries
                .get(start as usize)
                .copied()
                .unwrap_or(0)
        } else {
            0
        }
    }
}
