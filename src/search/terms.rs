//! The distinct terms met while building the index, numbered in order of first appearance.

/// Distinct terms, numbered in order of first appearance: all their text in one buffer and a
/// hash table of ids over it.
///
/// Written here because a map from boxed strings costs two small allocations per term (the key
/// and the name kept by id), six million at a million products, whose freed memory the
/// allocator then keeps: the service's resident memory after a first start was some 200 MB
/// above a second start's. Three large buffers instead are returned whole when dropped.
#[derive(Default)]
pub(super) struct TermTable {
    text: String,
    /// Term `t` is `text[ends[t - 1]..ends[t]]` (from 0 for the first).
    ends: Vec<usize>,
    /// Ids, found by the hash of their text. Never iterated, so the hasher cannot change the
    /// index: foldhash's is several times cheaper than `SipHash` on short words.
    ids: hashbrown::HashTable<u32>,
    /// The ids of short words met lately, in front of `ids`: empty until the first word.
    recent: Vec<RecentSlot>,
}

/// Slots of [`TermTable::recent`]: 384 KB, which stays in the core's cache.
const RECENT_SLOTS: usize = 1 << 14;
/// Words longer than this skip [`TermTable::recent`].
const RECENT_MAX_LEN: usize = 16;

/// A short word and its id, or `id == u32::MAX` for an empty slot.
///
/// Written here, a direct-mapped cache by hash, because at a million products the table has
/// some three million terms: `ids`, `ends` and `text` are each a cache miss away, three per
/// word, and a product has some forty words. Most of them are the same few thousand title,
/// colour and description words, whose ids this cache answers without leaving the core.
#[derive(Clone, Copy)]
struct RecentSlot {
    /// The word's bytes ([`RecentSlot::key`]).
    key: [u64; 2],
    len: u32,
    id: u32,
}

impl RecentSlot {
    const EMPTY: Self = Self {
        key: [0; 2],
        len: 0,
        id: u32::MAX,
    };

    /// `word`'s bytes as two words that, with its length, tell it from any other word, if it
    /// is short enough: its first and last eight bytes (four from 4 to 7 bytes long; the first,
    /// middle and last byte below that), which overlap in a word shorter than sixteen. Read as
    /// whole integers, not copied into a zeroed array: that copy (a `memcpy` call of the
    /// word's length) was the hottest line of reading the products for the index at a million
    /// products (`perf` of a first start).
    fn key(word: &str) -> Option<[u64; 2]> {
        let bytes = word.as_bytes();
        let len = bytes.len();
        Some(match len {
            0 => [0; 2],
            1..=3 => {
                let three = [bytes[0], bytes[len / 2], bytes[len - 1]];
                [three.iter().fold(0, |key, &b| key << 8 | u64::from(b)), 0]
            }
            4..=7 => [
                u64::from(u32::from_le_bytes(*bytes.first_chunk()?)),
                u64::from(u32::from_le_bytes(*bytes.last_chunk()?)),
            ],
            8..=RECENT_MAX_LEN => [
                u64::from_le_bytes(*bytes.first_chunk()?),
                u64::from_le_bytes(*bytes.last_chunk()?),
            ],
            _ => return None,
        })
    }
}

impl TermTable {
    fn hash(word: &str) -> u64 {
        use std::hash::BuildHasher;
        foldhash::fast::FixedState::with_seed(0).hash_one(word)
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(super) fn reserve(&mut self, terms: usize) {
        self.ends.reserve(terms);
        self.text.reserve(terms * 8);
        self.ids.reserve(terms, |&id| {
            Self::hash(Self::name_in(&self.text, &self.ends, id))
        });
    }

    pub(super) fn name(&self, id: u32) -> &str {
        Self::name_in(&self.text, &self.ends, id)
    }

    fn name_in<'a>(text: &'a str, ends: &[usize], id: u32) -> &'a str {
        let id = id as usize;
        let start = if id == 0 { 0 } else { ends[id - 1] };
        &text[start..ends[id]]
    }

    /// The id of `word`, and whether it is new.
    pub(super) fn intern(&mut self, word: &str) -> (u32, bool) {
        let hash = Self::hash(word);
        self.intern_through(word, hash, hash as usize % RECENT_SLOTS)
    }

    /// [`Self::intern`] through slot `at` of the recent words.
    fn intern_through(&mut self, word: &str, hash: u64, at: usize) -> (u32, bool) {
        let Some(key) = RecentSlot::key(word) else {
            return self.intern_hashed(word, hash);
        };
        if self.recent.is_empty() {
            self.recent = vec![RecentSlot::EMPTY; RECENT_SLOTS];
        }
        let slot = self.recent[at];
        if slot.id != u32::MAX && slot.len as usize == word.len() && slot.key == key {
            return (slot.id, false);
        }
        let (id, new) = self.intern_hashed(word, hash);
        self.recent[at] = RecentSlot {
            key,
            len: word.len() as u32,
            id,
        };
        (id, new)
    }

    /// [`Self::intern`] through the hash table alone.
    fn intern_hashed(&mut self, word: &str, hash: u64) -> (u32, bool) {
        let (text, ends) = (&self.text, &self.ends);
        if let Some(&id) = self
            .ids
            .find(hash, |&id| Self::name_in(text, ends, id) == word)
        {
            return (id, false);
        }
        let id = self.ends.len() as u32;
        self.text.push_str(word);
        self.ends.push(self.text.len());
        let (text, ends) = (&self.text, &self.ends);
        self.ids
            .insert_unique(hash, id, |&id| Self::hash(Self::name_in(text, ends, id)));
        (id, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids are numbered in order of first appearance, whether a word is answered by the cache
    /// of recent words or the table: words of every length, more distinct short words than
    /// the cache has slots (so they evict each other), words that differ in one byte of any
    /// part of their key in the cache, and words whose keys are the same but for their length
    /// (a word and itself twice over; trailing zero bytes); then all of them through one slot.
    #[test]
    fn each_word_keeps_the_id_of_its_first_appearance() {
        let mut words: Vec<String> = (0..3 * RECENT_SLOTS).map(|n| format!("w{n}")).collect();
        words.extend(["ab".into(), "ab\0".into(), "ab\0\0".into()]);
        // Pairs one after the other, so that they meet in the one slot below: the same length
        // and the same bytes but one, in the middle, in the second half, past the eighth.
        for pair in [
            ["aba", "aca"],
            ["abcdefg", "abcdxyz"],
            ["abcdefghij", "abcdefghXY"],
            ["abcdefgh", "abcdefghabcdefgh"],
        ] {
            words.extend(pair.map(String::from));
        }
        words.push("a-word-longer-than-sixteen-bytes".into());
        words.push("x".repeat(RECENT_MAX_LEN));
        words.push("x".repeat(RECENT_MAX_LEN + 1));
        let mut table = TermTable::default();
        let mut expected = std::collections::HashMap::new();
        for round in 0..3 {
            for n in 0..words.len() {
                // Every round in another order, so slots are taken by other words each time.
                let word = &words[(n * (2 * round + 1)) % words.len()];
                let next = expected.len() as u32;
                let want = *expected.entry(word.clone()).or_insert(next);
                let (id, new) = table.intern(word);
                assert_eq!((id, new), (want, want == next), "{word:?} in round {round}");
                assert_eq!(table.name(id), word);
            }
        }
        assert_eq!(table.len(), words.len());
        let mut one_slot = TermTable::default();
        for round in 0..2 {
            for (want, word) in words.iter().enumerate() {
                let (id, new) = one_slot.intern_through(word, TermTable::hash(word), 0);
                assert_eq!((id, new), (want as u32, round == 0), "{word:?}");
            }
        }
    }
}
