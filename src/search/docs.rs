//! The documents a ranking scores, as module `bucket` reads them: the index's own (numbered
//! `0..base`, read from its forward index) and, over a live index, the live segment's products
//! a query met (numbered from `base` on, in the order the query listed them; module `live`).

use super::live::LiveDoc;
use super::parts::{DocHeader, Forward, TitleSketch};

/// Forward entries and title facts of every document a ranking may score.
pub(crate) struct Docs<'a> {
    forward: &'a Forward,
    /// Documents of the index: below this number.
    base: u32,
    /// Document `base + i` is `live[i]`.
    live: &'a [&'a LiveDoc],
}

impl<'a> Docs<'a> {
    pub(crate) fn new(forward: &'a Forward, live: &'a [&'a LiveDoc]) -> Self {
        Self {
            forward,
            base: forward.docs.len() as u32,
            live,
        }
    }

    /// The live document numbered `doc`, if it is one.
    #[inline]
    fn live_doc(&self, doc: u32) -> Option<&'a LiveDoc> {
        doc.checked_sub(self.base)
            .and_then(|at| self.live.get(at as usize))
            .copied()
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
            None => (
                DocHeader {
                    start: 0,
                    description: 0,
                    end: 0,
                    title_len: 0,
                    title_distinct: 0,
                },
                &[],
            ),
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
                || {
                    TitleSketch::of(
                        &DocHeader {
                            start: 0,
                            description: 0,
                            end: 0,
                            title_len: 0,
                            title_distinct: 0,
                        },
                        &[],
                    )
                },
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
