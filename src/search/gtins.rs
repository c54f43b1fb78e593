//! GTIN -> documents, kept as runs.
//!
//! A brand numbers the sizes of one product one after the other: the GTINs of a size run share
//! their company prefix and have consecutive item references, so without their check digits they
//! are consecutive numbers. Kept as one run (first number, length, document) per product instead
//! of one entry per GTIN, the map of a million products with fifteen sizes each takes 16 MB
//! instead of 180 MB, which was the largest single part of the service's memory at that size.
//! A GTIN that does not fit a run (a wrong check digit, or the same GTIN on two products) is
//! kept as it is in an exact map beside the runs, so every lookup stays exact.
//!
//! No crate keeps integer ranges with a value this compactly and exactly (`rangemap` holds a
//! `BTreeMap` node per range and merges equal values across gaps), hence this small module.

use std::cell::RefCell;
use std::sync::{Arc, Mutex, OnceLock};

use rusqlite::Connection;

use super::documents::DocOfPk;
use super::sorted_map::SortedMap;
use super::{SearchError, SearchIndex};

/// GTINs (as GTIN-14 numbers) to the documents carrying them.
pub(crate) struct GtinMap {
    /// First number of each run (a GTIN without its check digit), increasing; runs are
    /// disjoint.
    pub(crate) starts: Vec<u64>,
    /// Numbers in each run (at least 1).
    pub(crate) lengths: Vec<u32>,
    /// The document of each run.
    pub(crate) docs: Vec<u32>,
    /// GTINs kept exactly: a wrong check digit, or carried by more than one document.
    pub(crate) others: SortedMap<u64>,
}

/// The check digit a GTIN-14 number with body `body` (the number without its check digit) must
/// end with (GS1: weights 3 and 1 from the right, then up to a multiple of ten).
pub(crate) fn check_digit(mut body: u64) -> u64 {
    let mut sum = 0;
    let mut weight = 3;
    while body > 0 {
        sum += (body % 10) * weight;
        weight = 4 - weight;
        body /= 10;
    }
    (10 - sum % 10) % 10
}

fn is_valid(gtin: u64) -> bool {
    check_digit(gtin / 10) == gtin % 10
}

impl GtinMap {
    /// The map of `entries` (GTIN-14 number, document), in any order, duplicates allowed.
    pub(crate) fn new(mut entries: Vec<(u64, u32)>) -> Self {
        entries.sort_unstable();
        Self::from_sorted(entries)
    }

    /// The map of `entries` in increasing order (duplicates allowed): what [`GtinMap::new`]
    /// makes of them in any order. A live index's merge (module `live`) streams a million
    /// products' GTINs through here without collecting them.
    pub(crate) fn from_sorted(entries: impl IntoIterator<Item = (u64, u32)>) -> Self {
        let mut others = Vec::new();
        let mut starts: Vec<u64> = Vec::new();
        let mut lengths: Vec<u32> = Vec::new();
        let mut docs: Vec<u32> = Vec::new();
        let mut entries = entries.into_iter().peekable();
        let mut group: Vec<u32> = Vec::new();
        while let Some((gtin, doc)) = entries.next() {
            group.clear();
            group.push(doc);
            while let Some(&(next, next_doc)) = entries.peek() {
                if next != gtin {
                    break;
                }
                if group.last() != Some(&next_doc) {
                    group.push(next_doc);
                }
                entries.next();
            }
            if group.len() > 1 || !is_valid(gtin) {
                // Every document of this GTIN goes to the exact map.
                others.extend(group.iter().map(|&doc| (gtin, doc)));
                continue;
            }
            let body = gtin / 10;
            let extends = match (starts.last(), lengths.last_mut(), docs.last()) {
                (Some(&start), Some(length), Some(&last_doc))
                    if last_doc == doc
                        && *length < u32::MAX
                        && start + u64::from(*length) == body =>
                {
                    *length += 1;
                    true
                }
                _ => false,
            };
            if !extends {
                starts.push(body);
                lengths.push(1);
                docs.push(doc);
            }
        }
        Self {
            starts,
            lengths,
            docs,
            others: SortedMap::new(others),
        }
    }

    /// A map read back from disk; `None` unless the runs are sorted, non-empty and disjoint.
    pub(crate) fn from_parts(
        starts: Vec<u64>,
        lengths: Vec<u32>,
        docs: Vec<u32>,
        others: SortedMap<u64>,
    ) -> Option<Self> {
        let paired = starts.len() == lengths.len() && starts.len() == docs.len();
        let ordered = paired
            && lengths.iter().all(|&length| length > 0)
            && starts
                .windows(2)
                .zip(&lengths)
                .all(|(pair, &length)| pair[0].checked_add(u64::from(length)) <= Some(pair[1]));
        ordered.then_some(Self {
            starts,
            lengths,
            docs,
            others,
        })
    }

    /// Documents carrying `gtin`, in increasing order.
    pub(crate) fn get(&self, gtin: u64) -> Vec<u32> {
        let mut found: Vec<u32> = self.others.get(&gtin).collect();
        if found.is_empty() && is_valid(gtin) {
            let body = gtin / 10;
            let run = self.starts.partition_point(|&start| start <= body);
            if let Some(last) = run.checked_sub(1)
                && body - self.starts[last] < u64::from(self.lengths[last])
            {
                found.push(self.docs[last]);
            }
        }
        found
    }

    /// Every document the map names.
    pub(crate) fn docs(&self) -> impl Iterator<Item = u32> + '_ {
        self.docs.iter().chain(&self.others.docs).copied()
    }
}

/// The index's GTIN map: built with it, read back with it, or read from the catalogue once the
/// service answers (after a large catalogue's first start: 14 million variant rows and their sort
/// are some 3 s of a core, a third of the build's). Until then, lookups are answered by the
/// caller from the catalogue ([`SearchIndex::search_resolving_gtins`](super::SearchIndex)).
pub(crate) struct IndexGtins {
    map: OnceLock<GtinMap>,
    /// Until `map` is set: each product's document, to number the catalogue's answers with.
    pending: Mutex<Option<Arc<DocOfPk>>>,
}

impl IndexGtins {
    /// The index's GTINs: `map` when read with it, else pending, with each product's document.
    pub(crate) fn new(map: Option<GtinMap>, doc_of_pk: DocOfPk) -> Self {
        map.map_or_else(|| Self::pending(doc_of_pk), Self::ready)
    }

    pub(crate) fn ready(map: GtinMap) -> Self {
        Self {
            map: OnceLock::from(map),
            pending: Mutex::new(None),
        }
    }

    fn pending(doc_of_pk: DocOfPk) -> Self {
        Self {
            map: OnceLock::new(),
            pending: Mutex::new(Some(Arc::new(doc_of_pk))),
        }
    }

    /// The map, once built.
    pub(crate) fn map(&self) -> Option<&GtinMap> {
        self.map.get()
    }

    /// While the map is still to be built: the products' documents.
    pub(crate) fn doc_of_pk(&self) -> Option<Arc<DocOfPk>> {
        if self.map.get().is_some() {
            return None;
        }
        self.pending_slot().clone()
    }

    /// Sets the map built from the catalogue (a second one is dropped) and frees the documents.
    pub(crate) fn set(&self, map: GtinMap) {
        let _ = self.map.set(map);
        *self.pending_slot() = None;
    }

    fn pending_slot(&self) -> std::sync::MutexGuard<'_, Option<Arc<DocOfPk>>> {
        // A panic elsewhere while holding the lock left a whole `Option` behind.
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Reads the GTIN map of an index built without it (a large catalogue's: module `build`); nothing
/// when it has one. `conn` is the catalogue the index was built from.
pub(crate) fn read_later(index: &SearchIndex, conn: &Connection) -> Result<(), SearchError> {
    let Some(doc_of_pk) = index.codes.gtins.doc_of_pk() else {
        return Ok(());
    };
    let map = crate::catalogue::with_file_mapped(conn, || read_gtins(conn, &doc_of_pk))?;
    index.codes.gtins.set(map);
    Ok(())
}

/// Every variant GTIN, as its GTIN-14 number, with its product's document.
///
/// Every row is read: `NULL` and empty GTINs are skipped here, as no GTIN (`parse_gtin`), and
/// not by a `WHERE` that `SQLite` would evaluate for each of some 14 million rows (2.2 s
/// instead of 2.8 s at a million products).
pub(crate) fn read_gtins(conn: &Connection, doc_of_pk: &DocOfPk) -> Result<GtinMap, SearchError> {
    let mut gtins = Vec::new();
    let mut statement = conn.prepare("SELECT product_pk, gtin FROM variants")?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let pk: i64 = row.get(0)?;
        let gtin = crate::catalogue::optional_text_at(row, 1)?.unwrap_or("");
        if let (Some(doc), Some(value)) = (doc_of_pk.get(pk), parse_gtin(gtin)) {
            gtins.push((value, doc));
        }
    }
    Ok(GtinMap::new(gtins))
}

/// Where one search's GTIN lookups go.
pub(crate) enum GtinLookup<'a> {
    Map(&'a GtinMap),
    /// The map is not built: each GTIN asked is noted and found on no document (the search's
    /// page is then not used).
    Noting(&'a RefCell<Vec<u64>>),
    /// The map is not built: the documents of the GTINs the search asks, found in the catalogue.
    Resolved(&'a [(u64, Vec<u32>)]),
}

impl GtinLookup<'_> {
    /// Documents carrying `gtin`, in increasing order.
    pub(crate) fn get(&self, gtin: u64) -> Vec<u32> {
        match self {
            Self::Map(map) => map.get(gtin),
            Self::Noting(asked) => {
                asked.borrow_mut().push(gtin);
                Vec::new()
            }
            Self::Resolved(found) => found
                .iter()
                .find(|(value, _)| *value == gtin)
                .map(|(_, docs)| docs.clone())
                .unwrap_or_default(),
        }
    }
}

/// A GTIN-8/12/13/14 as its GTIN-14 number; `None` for anything else.
pub(crate) fn parse_gtin(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits_only = text.bytes().all(|b| b.is_ascii_digit());
    if !digits_only || !matches!(text.len(), 8 | 12 | 13 | 14) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A valid GTIN-14 number with body `body`.
    fn gtin(body: u64) -> u64 {
        body * 10 + check_digit(body)
    }

    #[test]
    fn check_digits_follow_gs1() {
        // Real UPC-A codes (read as GTIN-14 numbers) from the demo catalogue's format.
        assert!(is_valid(197_082_585_393));
        assert!(is_valid(197_082_585_409));
        assert!(!is_valid(197_082_585_394));
    }

    #[test]
    fn runs_keep_every_gtin_exactly() {
        let mut entries = Vec::new();
        // Product 0: 15 consecutive sizes; product 1 follows straight on; product 2 has a gap.
        for size in 0..15 {
            entries.push((gtin(19_708_258_539 + size), 0));
            entries.push((gtin(19_708_258_554 + size), 1));
        }
        entries.push((gtin(19_708_259_000), 2));
        entries.push((gtin(19_708_259_002), 2));
        // A wrong check digit, and one GTIN on two products.
        entries.push((gtin(555) + 1, 3));
        entries.push((gtin(777), 4));
        entries.push((gtin(777), 5));
        entries.push((gtin(19_708_258_539), 0)); // a duplicate row
        let map = GtinMap::new(entries.clone());
        assert_eq!(map.starts.len(), 4, "two runs of 15, two of one");
        for &(value, doc) in &entries {
            assert!(map.get(value).contains(&doc), "{value} -> {doc}");
        }
        assert_eq!(map.get(gtin(777)), [4, 5]);
        assert!(
            map.get(gtin(19_708_259_001)).is_empty(),
            "the gap is not a GTIN"
        );
        assert!(
            map.get(gtin(19_708_258_539) + 1).is_empty(),
            "wrong check digit"
        );
        assert!(
            map.get(gtin(555)).is_empty(),
            "only the stored, invalid one"
        );
        assert_eq!(map.get(gtin(555) + 1), [3]);
        assert!(
            map.get(gtin(19_708_258_569)).is_empty(),
            "past the last run"
        );
        assert!(map.get(0).is_empty());

        let back = GtinMap::from_parts(
            map.starts.clone(),
            map.lengths.clone(),
            map.docs.clone(),
            SortedMap::from_sorted(map.others.keys.clone(), map.others.docs.clone()).unwrap(),
        )
        .unwrap();
        assert_eq!(back.get(gtin(19_708_258_560)), [1]);
        let overlapping =
            GtinMap::from_parts(vec![10, 12], vec![3, 1], vec![0, 1], SortedMap::new(vec![]));
        assert!(overlapping.is_none());
    }
}
