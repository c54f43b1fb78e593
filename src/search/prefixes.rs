//! The crowded-prefix table: for every prefix shared by more than [`PREFIX_EXPANSIONS`] terms,
//! its most frequent completions, so that the last word of a query, still being typed, expands
//! without walking thousands of terms.
//!
//! Built in one pass over the terms in byte order. Terms sharing a prefix are contiguous there,
//! and the groups of every prefix length nest: they are the intervals of the longest common
//! prefixes of neighbours (the "lcp-intervals" of a suffix array's traversal, Abouelhoda,
//! Kurtz and Ohlebusch, 2004), kept on a stack. Each group's best completions are merged from
//! its children's. The pass it replaces scanned every term once per prefix length, comparing
//! bytes each time (a second of the dictionary's thread at a million products).

use std::cmp::Reverse;
use std::collections::HashMap;

use super::PREFIX_EXPANSIONS;

/// Completions kept per crowded prefix: the [`PREFIX_EXPANSIONS`] a query expands to, and as
/// many after them, so that a live index can tell its own most frequent completions when some
/// of these lost documents (module `live`) without walking the dictionary.
pub(crate) const CROWDED_KEPT: usize = 2 * PREFIX_EXPANSIONS;

/// Prefix -> its [`CROWDED_KEPT`] most frequent completions (term ids, most frequent first,
/// ties by id; a query takes the first [`PREFIX_EXPANSIONS`]), for every prefix of at least
/// one byte that more than [`PREFIX_EXPANSIONS`] terms share. `sorted` holds the terms (distinct) with their ids, in
/// byte order; `frequency` is each id's number of documents.
pub(crate) fn crowded_prefixes(
    sorted: &[(&str, u32)],
    frequency: &[u32],
) -> HashMap<Box<[u8]>, Box<[u32]>> {
    let order = |id: &u32| (Reverse(frequency[*id as usize]), *id);
    let mut table = HashMap::new();
    // Open groups, outermost first: the bytes their terms share (the root: none), their first
    // term, and the best completions found in them so far.
    let mut open = vec![Group {
        shared: 0,
        first: 0,
        best: Vec::new(),
    }];
    for (at, &(name, id)) in sorted.iter().enumerate() {
        let next = sorted
            .get(at + 1)
            .map_or(0, |&(next, _)| common_prefix(name, next));
        if next > innermost_shared(&open) {
            open.push(Group {
                shared: next,
                first: at,
                best: Vec::new(),
            });
        }
        let innermost = open.last_mut().expect("the root is never closed");
        innermost.best.push(id);
        // Groups that end with this term.
        while open.last().is_some_and(|group| next < group.shared) {
            let mut closed = open.pop().expect("checked above");
            let outer = innermost_shared(&open).max(next);
            if at + 1 - closed.first > PREFIX_EXPANSIONS {
                keep_best(&mut closed.best, order);
                closed.best.sort_unstable_by_key(order);
                let best: Box<[u32]> = closed.best[..CROWDED_KEPT.min(closed.best.len())].into();
                let bytes = sorted[closed.first].0.as_bytes();
                for length in outer + 1..=closed.shared {
                    table.insert(bytes[..length].into(), best.clone());
                }
            }
            if next > innermost_shared(&open) {
                // The closed group and the terms after this one share `next` bytes: a group
                // of its own, begun with the closed group's first term.
                closed.shared = next;
                open.push(closed);
            } else {
                let outer = open.last_mut().expect("the root is never closed");
                outer.best.append(&mut closed.best);
                keep_best(&mut outer.best, order);
            }
        }
    }
    table
}

struct Group {
    shared: usize,
    first: usize,
    best: Vec<u32>,
}

/// The bytes shared in the innermost open group (none at the root).
fn innermost_shared(open: &[Group]) -> usize {
    open.last().map_or(0, |group| group.shared)
}

/// Drops all but the [`CROWDED_KEPT`] first ids in `order`, once there are over twice as many
/// (so merging stays linear, and a group of more keeps at least that many).
fn keep_best(ids: &mut Vec<u32>, order: impl Fn(&u32) -> (Reverse<u32>, u32)) {
    if ids.len() > 2 * CROWDED_KEPT {
        ids.select_nth_unstable_by_key(CROWDED_KEPT - 1, &order);
        ids.truncate(CROWDED_KEPT);
    }
}

/// Bytes `a` and `b` share at their start.
fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table as defined: every prefix length, every group of terms sharing it.
    fn by_definition(sorted: &[(&str, u32)], frequency: &[u32]) -> HashMap<Box<[u8]>, Box<[u32]>> {
        let mut table = HashMap::new();
        let longest = sorted.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
        for length in 1..=longest {
            let mut groups: HashMap<&[u8], Vec<u32>> = HashMap::new();
            for &(name, id) in sorted {
                if name.len() >= length {
                    groups
                        .entry(&name.as_bytes()[..length])
                        .or_default()
                        .push(id);
                }
            }
            for (prefix, mut ids) in groups {
                if ids.len() > PREFIX_EXPANSIONS {
                    ids.sort_unstable_by_key(|&id| (Reverse(frequency[id as usize]), id));
                    ids.truncate(CROWDED_KEPT);
                    table.insert(prefix.into(), ids.into_boxed_slice());
                }
            }
        }
        table
    }

    /// Random terms over a few letters (so that prefixes crowd at several depths and groups
    /// nest and end together), checked against the definition.
    #[test]
    fn every_crowded_prefix_and_only_those_with_their_best_completions() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        for (terms, letters) in [(0, 2), (1, 2), (64, 2), (65, 2), (3_000, 3), (20_000, 5)] {
            let mut names: Vec<String> = (0..terms)
                .map(|_| {
                    let length = 1 + next(12) as usize;
                    (0..length)
                        .map(|_| char::from(b'a' + next(letters) as u8))
                        .collect()
                })
                .collect();
            names.push("é".repeat(3));
            names.sort_unstable();
            names.dedup();
            let frequency: Vec<u32> = (0..names.len()).map(|_| next(50) as u32).collect();
            let mut ids: Vec<u32> = (0..names.len() as u32).collect();
            // Ids in no relation to the byte order.
            for i in (1..ids.len()).rev() {
                ids.swap(i, next(i as u64 + 1) as usize);
            }
            let sorted: Vec<(&str, u32)> = names.iter().map(String::as_str).zip(ids).collect();
            let expected = by_definition(&sorted, &frequency);
            assert_eq!(
                crowded_prefixes(&sorted, &frequency),
                expected,
                "{terms} terms"
            );
            if terms >= 3_000 {
                assert!(expected.keys().any(|prefix| prefix.len() >= 3), "{terms}");
            }
        }
    }
}
