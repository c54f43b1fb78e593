//! The typo derivations of query words, remembered across queries.
//!
//! Walking the term dictionary with a Levenshtein automaton was the largest single cost of
//! ranking a query (about a fifth of its instructions under callgrind on distinct queries at
//! 100,000 products). Queries that never repeat still repeat their words: the vocabulary of
//! titles, brands and colours is small next to the number of queries. So the derivations of a
//! word (its terms within the typo budget, with their typos) are kept per word, budget and
//! prefix mode, for the life of the index (which is immutable, so an entry never goes stale).
//! This caches words, not queries or pages: every query is still ranked in full.
//!
//! Bounded by bytes (keys and values), evicted by `quick_cache`'s CLOCK-Pro policy.

use std::sync::Arc;

use fst::{IntoStreamer, Streamer};

use super::parts::Dictionary;
use super::typo::TypoAutomaton;

/// Typo derivations kept per query word (in dictionary order), bounding the cost of a word.
pub(super) const MAX_TYPO_EXPANSIONS: usize = 128;
/// Bytes of keys and derivations the cache holds at most.
const CACHE_BYTES: u64 = 16 << 20;
/// Words the cache expects to hold (sizes its tables).
const CACHE_WORDS: usize = 100_000;

/// A word as searched: its text, typo budget and whether it is the prefix being typed.
type Key = (Box<[u8]>, u8, bool);
/// The terms within the budget (typo-free matches excluded), with their typos.
pub(super) type Derivations = Arc<[(u32, u8)]>;

#[derive(Clone)]
struct Bytes;

impl quick_cache::Weighter<Key, Derivations> for Bytes {
    fn weight(&self, key: &Key, value: &Derivations) -> u64 {
        (key.0.len() + 16 + value.len() * std::mem::size_of::<(u32, u8)>()) as u64
    }
}

/// The cache of one index.
pub(super) struct DerivationCache {
    cache: quick_cache::sync::Cache<Key, Derivations, Bytes>,
}

impl DerivationCache {
    pub(super) fn new() -> Self {
        Self {
            cache: quick_cache::sync::Cache::with_weighter(CACHE_WORDS, CACHE_BYTES, Bytes),
        }
    }

    /// The terms of `dictionary` within `budget` typos of `word` (as a prefix when `prefix`),
    /// at most [`MAX_TYPO_EXPANSIONS`], without the typo-free ones.
    pub(super) fn derive(
        &self,
        dictionary: &Dictionary,
        word: &[u8],
        budget: u8,
        prefix: bool,
    ) -> Derivations {
        let key: Key = (word.into(), budget, prefix);
        if let Some(found) = self.cache.get(&key) {
            return found;
        }
        let derived = walk(dictionary, word, budget, prefix);
        self.cache.insert(key, Arc::clone(&derived));
        derived
    }
}

/// The dictionary walk itself.
fn walk(dictionary: &Dictionary, word: &[u8], budget: u8, prefix: bool) -> Derivations {
    let automaton = TypoAutomaton::new(word, budget, prefix);
    let mut stream = dictionary.words.search_with_state(&automaton).into_stream();
    let mut derived = Vec::new();
    while let Some((_, id, state)) = stream.next() {
        let typos = automaton.distance(&state);
        if typos == 0 {
            continue; // the word itself or a completion, taken by the caller
        }
        derived.push((id as u32, typos));
        if derived.len() == MAX_TYPO_EXPANSIONS {
            break;
        }
    }
    derived.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_word_gives_what_the_walk_gives() {
        let mut builder = fst::MapBuilder::memory();
        for (id, term) in ["jordan", "jordans", "jorden", "jordon", "nike"]
            .iter()
            .enumerate()
        {
            builder.insert(term, id as u64).unwrap();
        }
        let codes = fst::MapBuilder::memory().into_map();
        let dictionary = Dictionary::from_parts(
            builder.into_map(),
            codes,
            std::collections::HashMap::default(),
            5,
        );
        let cache = DerivationCache::new();
        for prefix in [false, true] {
            let walked = walk(&dictionary, b"jordan", 1, prefix);
            assert!(!walked.is_empty());
            assert_eq!(cache.derive(&dictionary, b"jordan", 1, prefix), walked);
            assert_eq!(cache.derive(&dictionary, b"jordan", 1, prefix), walked);
        }
        assert_ne!(
            cache.derive(&dictionary, b"jordan", 1, false),
            cache.derive(&dictionary, b"jordan", 1, true),
            "prefix mode is part of the key"
        );
    }
}
