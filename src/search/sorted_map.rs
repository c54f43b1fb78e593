//! A sorted multimap from keys to documents: the exact maps of style codes, ids, slugs and the
//! GTINs that fit no run (module `gtins`).

use std::borrow::Borrow;

/// A sorted multimap from a key to documents.
pub(crate) struct SortedMap<K> {
    /// Sorted; `docs[i]` goes with `keys[i]`. Two arrays, not pairs: a GTIN entry takes 12
    /// bytes instead of 16 (there are some 15 GTINs per product).
    pub(crate) keys: Vec<K>,
    pub(crate) docs: Vec<u32>,
}

impl<K: Ord> SortedMap<K> {
    /// A map from arrays read back from disk; `None` unless they pair up and are sorted.
    pub(crate) fn from_sorted(keys: Vec<K>, docs: Vec<u32>) -> Option<Self> {
        (keys.len() == docs.len() && keys.is_sorted()).then_some(Self { keys, docs })
    }

    pub(crate) fn new(mut entries: Vec<(K, u32)>) -> Self {
        entries.sort_unstable();
        entries.dedup();
        let (keys, docs) = entries.into_iter().unzip();
        Self { keys, docs }
    }

    /// Documents under `key`, in increasing order.
    pub(crate) fn get<'a, Q>(&'a self, key: &'a Q) -> impl Iterator<Item = u32> + 'a
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let start = self.keys.partition_point(|k| k.borrow() < key);
        self.keys[start..]
            .iter()
            .zip(&self.docs[start..])
            .take_while(move |(k, _)| (*k).borrow() == key)
            .map(|(_, &doc)| doc)
    }
}

impl SortedMap<Box<str>> {
    /// [`SortedMap::new`] for text keys: sorted by their first eight bytes as one number
    /// first, which settles most comparisons of a million style codes without `memcmp`.
    pub(crate) fn of_text(entries: Vec<(Box<str>, u32)>) -> Self {
        let mut keyed: Vec<(u64, Box<str>, u32)> = entries
            .into_iter()
            .map(|(key, doc)| (head(&key), key, doc))
            .collect();
        keyed.sort_unstable();
        keyed.dedup();
        let (keys, docs) = keyed.into_iter().map(|(_, key, doc)| (key, doc)).unzip();
        Self { keys, docs }
    }
}

/// The first eight bytes of `text` as a big-endian number (zero-padded): ordered as the texts
/// are, where they differ in those bytes.
pub(super) fn head(text: &str) -> u64 {
    let mut bytes = [0u8; 8];
    let len = text.len().min(8);
    bytes[..len].copy_from_slice(&text.as_bytes()[..len]);
    u64::from_be_bytes(bytes)
}
