//! The full-width bitsets of query words, remembered across queries.
//!
//! A query word with several frequent terms (a prefix and its completions, a word and its
//! typo neighbours) or very long posting lists is spread into one full-width bitset per typo
//! level (module `wordsets`). At a million products that is 125 KB a level, zeroed, filled from
//! every term's postings and copied for the next level: 45-56 µs a word, 5 % of ranking over the
//! HTTP bench's distinct queries. Those queries never repeat, but their spread words do: over
//! 20,000 of them (`q1m.txt`, a million products) 5,730 words were spread, only 155 distinct,
//! the 64 most frequent 93 % of them (a probe build, not kept). So a word's sets are kept,
//! keyed by its expansions (each term with its typos, which is all the sets are made of), for
//! the life of the index, which is immutable: an entry never goes stale.
//!
//! Bounded by bytes, evicted by `quick_cache`'s CLOCK-Pro policy (a word spread once does not
//! push out the ones spread again and again). Shared by the threads that search: an entry is
//! read in place, never copied, for as long as a query holds it. A word not kept is spread into
//! a new allocation, whose pages the system maps in as it is filled, where the scratch sets it
//! replaces were reused from query to query: a stream of words never seen before pays that (not
//! measured; in the load above, 97 % of the spreads were of a word spread before).

use std::sync::Arc;

use super::LEVELS;
use super::parts::Postings;

/// Bytes of keys and bitsets the cache holds at most: about 100 words of two levels at a
/// million products.
const CACHE_BYTES: u64 = 24 << 20;
/// Words the cache expects to hold (sizes its tables). Also what bounds its shards: `quick_cache`
/// splits the bytes evenly between shards of at least 32 words, so this many makes at most 4
/// shards of 6 MB, each holding dozens of words at a million products. (Its default, four shards
/// a core, would give a many-core server 32 shards of 768 KB: a handful of words each.)
const CACHE_WORDS: usize = 128;

/// A word as spread: its terms with their typos (`scratch::Expansion`), in the order the
/// word's expansion gave them.
pub(super) type Key = Box<[(u32, u8)]>;

/// One word's full-width bitsets: the distinct ones back to back, `blocks` words each, and
/// which of them holds each typo level (levels with no term of their own share the one below).
#[derive(Debug)]
pub(super) struct Spread {
    sets: Box<[u64]>,
    of_level: [u8; LEVELS],
}

impl Spread {
    /// The word of `terms` (each with its typos) spread over `postings`' documents.
    fn build(postings: &Postings, terms: &[(u32, u8)]) -> Spread {
        let blocks = postings.blocks;
        let of_typos = |typos: usize| {
            terms
                .iter()
                .filter(move |&&(_, t)| usize::from(t) == typos)
                .map(|&(term, _)| term)
        };
        let has_level: [bool; LEVELS] =
            std::array::from_fn(|typos| of_typos(typos).next().is_some());
        let distinct = 1 + has_level[1..].iter().filter(|&&has| has).count();
        let mut sets = vec![0u64; distinct * blocks];
        let mut of_level = [0u8; LEVELS];
        let mut current = 0usize;
        for (typos, level) in of_level.iter_mut().enumerate() {
            if typos > 0 && has_level[typos] {
                // Each level holds the documents of the levels below it too.
                sets.copy_within(
                    current * blocks..(current + 1) * blocks,
                    (current + 1) * blocks,
                );
                current += 1;
            }
            let set = &mut sets[current * blocks..(current + 1) * blocks];
            for term in of_typos(typos) {
                postings.union_into(term, set);
            }
            *level = current as u8;
        }
        Spread {
            sets: sets.into_boxed_slice(),
            of_level,
        }
    }

    /// The set holding typo level `level` (its number among the word's distinct sets).
    pub(super) fn set_of_level(&self, level: usize) -> u8 {
        self.of_level[level]
    }

    /// The word's distinct sets in order ([`Spread::set_of_level`] numbers them), `blocks`
    /// words each.
    pub(super) fn sets(&self, blocks: usize) -> std::slice::ChunksExact<'_, u64> {
        self.sets.chunks_exact(blocks)
    }
}

#[derive(Clone)]
struct Bytes;

impl quick_cache::Weighter<Key, Arc<Spread>> for Bytes {
    fn weight(&self, key: &Key, value: &Arc<Spread>) -> u64 {
        let key_bytes = std::mem::size_of_val::<[(u32, u8)]>(key);
        let set_bytes = std::mem::size_of_val::<[u64]>(&value.sets);
        (key_bytes + set_bytes + 64) as u64
    }
}

/// The cache of one index.
pub(super) struct SpreadCache {
    cache: quick_cache::sync::Cache<Key, Arc<Spread>, Bytes>,
}

impl SpreadCache {
    pub(super) fn new() -> Self {
        Self {
            cache: quick_cache::sync::Cache::with_weighter(CACHE_WORDS, CACHE_BYTES, Bytes),
        }
    }

    /// The word of `terms` spread over `postings`: kept from an earlier query, or built now
    /// (and kept). A thread asking for a word another is building waits for it rather than
    /// building it again.
    pub(super) fn spread(&self, postings: &Postings, terms: &Key) -> Arc<Spread> {
        let Ok(spread) = self.cache.get_or_insert_with(terms, || {
            Ok::<_, std::convert::Infallible>(Arc::new(Spread::build(postings, terms)))
        });
        spread
    }
}

#[cfg(test)]
mod tests {
    use super::super::parts::Posting;
    use super::*;

    /// Two blocks of documents; term 0 dense (documents 0 and 70), terms 1 and 2 listed
    /// (documents 1 and 64; 2).
    fn postings() -> Postings {
        Postings {
            of_term: vec![
                Posting::Dense { index: 0 },
                Posting::List { start: 0, len: 2 },
                Posting::List { start: 2, len: 1 },
            ],
            docs: vec![1, 64, 2],
            dense: vec![1, 1 << 6],
            blocks: 2,
        }
    }

    fn word(terms: &[(u32, u8)]) -> Key {
        terms.into()
    }

    /// The documents of each typo level, one bit a document.
    fn levels(spread: &Spread) -> [[u64; 2]; LEVELS] {
        std::array::from_fn(|level| {
            let set = spread
                .sets(2)
                .nth(spread.set_of_level(level).into())
                .unwrap();
            [set[0], set[1]]
        })
    }

    /// Each level holds its own terms' documents and those of the levels below; a level with
    /// no term of its own is the set below it, not a copy.
    #[test]
    fn a_spread_word_holds_each_levels_documents_and_those_below() {
        let postings = postings();
        let cache = SpreadCache::new();
        let spread = cache.spread(&postings, &word(&[(0, 0), (2, 2)]));
        assert_eq!(
            levels(&spread),
            [[1, 1 << 6], [1, 1 << 6], [1 | 1 << 2, 1 << 6]]
        );
        assert_eq!(spread.set_of_level(1), spread.set_of_level(0));
        assert_eq!(
            spread.sets.len(),
            2 * 2,
            "two distinct levels, two blocks each"
        );

        let spread = cache.spread(&postings, &word(&[(1, 1), (0, 0)]));
        let level_0 = [1, 1 << 6];
        let level_1 = [1 | 1 << 1, 1 << 6 | 1];
        assert_eq!(levels(&spread), [level_0, level_1, level_1]);
    }

    /// A word spread again is the kept sets themselves; the same terms with other typos are
    /// another word, spread on their own.
    #[test]
    fn a_word_is_kept_by_its_terms_and_their_typos() {
        let postings = postings();
        let cache = SpreadCache::new();
        let first = cache.spread(&postings, &word(&[(0, 0), (1, 1)]));
        let again = cache.spread(&postings, &word(&[(0, 0), (1, 1)]));
        assert!(Arc::ptr_eq(&first, &again));

        let other = cache.spread(&postings, &word(&[(0, 0), (1, 2)]));
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(levels(&first)[1], [1 | 1 << 1, 1 << 6 | 1]);
        assert_eq!(
            levels(&other)[1],
            [1, 1 << 6],
            "term 1 is two typos away here"
        );
        assert_eq!(cache.cache.len(), 2);
    }
}
