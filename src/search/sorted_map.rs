//! Sorted multimaps from keys to documents: the exact maps of ids and of the GTINs that fit no
//! run (module `gtins`), and of style codes and slugs ([`TextMap`]).

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

/// A multimap from text keys to documents, the keys back to back in one buffer: the style
/// codes and the slugs of every product. Keys are in the order of their [`key_hash`], then of
/// their bytes: only looked up exactly, never by range.
///
/// As a `SortedMap<Box<str>>`, each key was an allocation of its own (its pointer and the heap
/// block some 48 bytes for a dozen bytes of text: 50 MB more at a million products), and each
/// step of a lookup's binary search followed a pointer to compare two texts, two cache misses a
/// step, for every word and pair of words of every query (4 % of the service's time under
/// distinct queries at a million). Here the search runs on each key's hash kept beside it, and
/// reads texts only among keys of the query's hash. In byte order, sorting a million slugs
/// (63 bytes long in the middle, 98 % sharing their first 32 bytes with another) compared
/// most pairs with `memcmp`: the longest part of the exact maps' thread at a first start.
/// Written by hand: `fst` maps a key to one value, not to several documents, and would change
/// the index file.
pub(crate) struct TextMap {
    /// Key `i`'s [`key_hash`], non-decreasing.
    heads: Vec<u64>,
    /// Key `i` is `bytes[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    bytes: Vec<u8>,
    /// `docs[i]` goes with key `i`.
    pub(crate) docs: Vec<u32>,
    /// The heads present, one bit each ([`HeadFilter`]).
    present: HeadFilter,
}

/// Keys with their documents as the index build collects them, in any order: the keys back to
/// back in one buffer, what [`TextMap::new`] sorts.
///
/// Each key had been a `Box<str>` of its own: two million allocations at a million products,
/// freed by the thread that built the maps into the arena of the thread that read them, whose
/// next large allocation then merged them all back (`malloc_consolidate`, half a second of the
/// first start's longest thread in `perf record`).
#[derive(Default)]
pub(crate) struct TextEntries {
    bytes: Vec<u8>,
    /// Key `i` starts at `starts[i]` and ends where the next starts (the last, at the end).
    starts: Vec<usize>,
    docs: Vec<u32>,
}

impl TextEntries {
    pub(crate) fn push(&mut self, key: &str, doc: u32) {
        self.starts.push(self.bytes.len());
        self.bytes.extend_from_slice(key.as_bytes());
        self.docs.push(doc);
    }

    /// Adds `other`'s entries after these.
    pub(crate) fn append(&mut self, other: &TextEntries) {
        let offset = self.bytes.len();
        self.starts
            .extend(other.starts.iter().map(|start| start + offset));
        self.bytes.extend_from_slice(&other.bytes);
        self.docs.extend_from_slice(&other.docs);
    }

    fn len(&self) -> usize {
        self.docs.len()
    }

    fn key(&self, i: usize) -> &[u8] {
        let end = self.starts.get(i + 1).copied().unwrap_or(self.bytes.len());
        &self.bytes[self.starts[i]..end]
    }
}

/// Entries from pairs (the tests' way to make them).
#[cfg(test)]
impl<'a> FromIterator<(&'a str, u32)> for TextEntries {
    fn from_iter<I: IntoIterator<Item = (&'a str, u32)>>(iter: I) -> Self {
        let mut entries = Self::default();
        for (key, doc) in iter {
            entries.push(key, doc);
        }
        entries
    }
}

impl TextMap {
    /// The map of `entries`, duplicates allowed; `None` when their keys take 4 GB or more.
    pub(crate) fn new(entries: &TextEntries) -> Option<Self> {
        // Sorted by hash, 16 bytes an entry; texts are compared only where hashes are equal
        // (the same key twice, or a collision).
        let mut keyed: Vec<(u64, u32)> = (0..entries.len())
            .map(|i| Some((key_hash(entries.key(i)), u32::try_from(i).ok()?)))
            .collect::<Option<_>>()?;
        let key = |i: u32| entries.key(i as usize);
        let doc = |i: u32| entries.docs[i as usize];
        keyed.sort_unstable_by(|a, b| {
            (a.0.cmp(&b.0))
                .then_with(|| key(a.1).cmp(key(b.1)))
                .then_with(|| doc(a.1).cmp(&doc(b.1)))
        });
        keyed.dedup_by(|a, b| a.0 == b.0 && key(a.1) == key(b.1) && doc(a.1) == doc(b.1));
        let lengths: Vec<u32> = keyed
            .iter()
            .map(|&(_, i)| u32::try_from(key(i).len()).ok())
            .collect::<Option<_>>()?;
        let mut bytes = Vec::with_capacity(lengths.iter().map(|&len| len as usize).sum());
        for &(_, i) in &keyed {
            bytes.extend_from_slice(key(i));
        }
        let docs = keyed.iter().map(|&(_, i)| doc(i)).collect();
        let heads = keyed.into_iter().map(|(hash, _)| hash).collect();
        Self::assemble(&lengths, bytes, docs, Some(heads))
    }

    /// A map from its saved parts: each key's length, the keys back to back and each key's
    /// document; `None` unless they pair up and the keys are in order.
    pub(crate) fn from_parts(lengths: &[u32], bytes: Vec<u8>, docs: Vec<u32>) -> Option<Self> {
        let map = Self::assemble(lengths, bytes, docs, None)?;
        let sorted = (1..map.len()).all(|i| {
            map.heads[i - 1] < map.heads[i]
                || (map.heads[i - 1] == map.heads[i] && map.key(i - 1) <= map.key(i))
        });
        sorted.then_some(map)
    }

    /// The map of parts as [`from_parts`](Self::from_parts) takes them, their order not
    /// checked (`new` has just sorted them, and hands their hashes as `heads`); `None` unless
    /// they pair up.
    fn assemble(
        lengths: &[u32],
        bytes: Vec<u8>,
        docs: Vec<u32>,
        heads: Option<Vec<u64>>,
    ) -> Option<Self> {
        if lengths.len() != docs.len() {
            return None;
        }
        let mut starts = Vec::with_capacity(lengths.len() + 1);
        let mut end = 0u32;
        starts.push(end);
        for &length in lengths {
            end = end.checked_add(length)?;
            starts.push(end);
        }
        if end as usize != bytes.len() {
            return None;
        }
        let heads: Vec<u64> = heads.unwrap_or_else(|| {
            starts
                .windows(2)
                .map(|key| key_hash(&bytes[key[0] as usize..key[1] as usize]))
                .collect()
        });
        let present = HeadFilter::of(&heads);
        Some(Self {
            heads,
            starts,
            bytes,
            docs,
            present,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.docs.len()
    }

    /// Key `i`.
    pub(crate) fn key(&self, i: usize) -> &[u8] {
        &self.bytes[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// The keys in order (each once per document).
    pub(crate) fn keys(&self) -> impl ExactSizeIterator<Item = &[u8]> + Clone {
        (0..self.len()).map(|i| self.key(i))
    }

    /// Documents under `key`, in increasing order.
    pub(crate) fn get<'a>(&'a self, key: &'a str) -> impl Iterator<Item = u32> + 'a {
        let key = key.as_bytes();
        let wanted = key_hash(key);
        let (low, high) = if self.present.may_hold(wanted) {
            let low = self.heads.partition_point(|&head| head < wanted);
            (
                low,
                low + self.heads[low..].partition_point(|&head| head == wanted),
            )
        } else {
            (0, 0)
        };
        // The first key at least `key` among those of its hash.
        let (mut first, mut last) = (low, high);
        while first < last {
            let middle = first + (last - first) / 2;
            if self.key(middle) < key {
                first = middle + 1;
            } else {
                last = middle;
            }
        }
        (first..high)
            .take_while(move |&i| self.key(i) == key)
            .map(|i| self.docs[i])
    }
}

/// A 64-bit hash of `key`, eight bytes a step (multiply and rotate, then a final mix).
///
/// Written here rather than taken from a hashing crate: the index file keeps the keys in this
/// order, so its definition must not change with a crate's version (a changed order would
/// only be refused and the index rebuilt, but at every start).
pub(super) fn key_hash(key: &[u8]) -> u64 {
    const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut hash = key.len() as u64;
    let mut words = key.chunks_exact(8);
    for word in &mut words {
        hash = (hash ^ u64::from_le_bytes(padded(word)))
            .wrapping_mul(MULTIPLIER)
            .rotate_left(29);
    }
    hash = (hash ^ u64::from_le_bytes(padded(words.remainder()))).wrapping_mul(MULTIPLIER);
    hash ^= hash >> 32;
    hash = hash.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    hash ^ (hash >> 32)
}

/// One bit per head (a key's hash), set for the heads of the map: a lookup whose head's bit is
/// clear is answered without the binary search.
///
/// Most words and pairs of words of a query are not style codes or slugs, and each was a
/// binary search over a million heads, its last dozen steps cache misses: 4 % of the service's
/// time under distinct queries at a million products (`perf record`). With eight bits a head,
/// about one absent head in nine passes (a Bloom filter of one hash; the map's own bytes are
/// some 40 a key). Written by hand: one shift and one bit (a head is a hash already), where a
/// filter crate's hashing and several probes would cost more than they save at this rate.
struct HeadFilter {
    bits: Vec<u64>,
    /// `64 - log2(bits.len() * 64)`: the head's top bits choose the bit.
    shift: u32,
}

impl HeadFilter {
    /// The filter of `heads`: at least one word of bits, so every head has a bit.
    fn of(heads: &[u64]) -> Self {
        let bit_count = heads.len().saturating_mul(8).next_power_of_two().max(64);
        let mut filter = Self {
            bits: vec![0; bit_count / 64],
            shift: 64 - bit_count.trailing_zeros(),
        };
        for &head in heads {
            let bit = filter.bit_of(head);
            filter.bits[bit / 64] |= 1 << (bit % 64);
        }
        filter
    }

    fn bit_of(&self, head: u64) -> usize {
        (head >> self.shift) as usize
    }

    /// `false` when no key has this head; `true` when one may.
    fn may_hold(&self, head: u64) -> bool {
        let bit = self.bit_of(head);
        self.bits[bit / 64] & (1 << (bit % 64)) != 0
    }
}

/// The first eight bytes of `text` as a big-endian number (zero-padded): ordered as the texts
/// are, where they differ in those bytes.
pub(super) fn head(text: &str) -> u64 {
    u64::from_be_bytes(padded(text.as_bytes()))
}

/// The first `N` bytes of `text`, zeros after its end.
fn padded<const N: usize>(text: &[u8]) -> [u8; N] {
    let mut bytes = [0u8; N];
    let len = text.len().min(N);
    bytes[..len].copy_from_slice(&text[..len]);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys that share their first eight bytes (and sixteen, and 32), keys that are the start of
    /// others, keys with several documents, and a key that is all of another's first eight
    /// bytes.
    fn entries() -> Vec<(Box<str>, u32)> {
        let keys = [
            ("nike-air-max-1", 4),
            ("nike-air-max-1", 2),
            ("nike-air-max-90", 7),
            ("nike-air", 9),
            ("nike-ai", 3),
            ("nike-air-max-1-og", 1),
            ("new-balance-9060-wolf-grey", 10),
            ("new-balance-9060-gum", 11),
            ("new-balance-9060-ba", 15),
            ("new-balance-9060-ab", 16),
            ("new-balance-9060-wolf-grey-black-cloud-white-b", 12),
            ("new-balance-9060-wolf-grey-black-cloud-white-a", 13),
            ("new-balance-9060-wolf-grey-black", 14),
            ("DD1391100", 5),
            ("DD1391", 6),
            ("a", 8),
            ("", 0),
            ("nike-air-max-1", 4),
        ];
        keys.iter()
            .map(|&(key, doc)| (Box::from(key), doc))
            .collect()
    }

    fn naive(entries: &[(Box<str>, u32)], key: &str) -> Vec<u32> {
        let mut docs: Vec<u32> = entries
            .iter()
            .filter(|(k, _)| &**k == key)
            .map(|&(_, doc)| doc)
            .collect();
        docs.sort_unstable();
        docs.dedup();
        docs
    }

    #[test]
    fn lookups_find_every_document_of_a_key_and_nothing_else() {
        let entries = entries();
        let map = TextMap::new(&entries.iter().map(|(k, d)| (&**k, *d)).collect()).unwrap();
        let probes = [
            "nike-air-max-1",
            "nike-air-max-90",
            "nike-air-max",
            "nike-air",
            "nike-ai",
            "nike-a",
            "nike-air-max-1-og",
            "nike-air-max-1-ogx",
            "new-balance-9060-wolf-grey",
            "new-balance-9060-wolf-grey-black",
            "new-balance-9060-wolf-grey-black-cloud-white-a",
            "new-balance-9060-wolf-grey-black-cloud-white-c",
            "new-balance-9060",
            "new-balance-9060-ab",
            "new-balance-9060-ba",
            "DD1391100",
            "DD1391",
            "DD13911",
            "a",
            "",
            "zzz",
        ];
        for probe in probes {
            assert_eq!(
                map.get(probe).collect::<Vec<_>>(),
                naive(&entries, probe),
                "{probe:?}"
            );
        }
    }

    #[test]
    fn the_head_filter_passes_every_key_and_stops_most_absent_ones() {
        let entries: Vec<(Box<str>, u32)> = (0..20_000u32)
            .map(|i| (format!("DD{:06}", i * 7).into_boxed_str(), i))
            .collect();
        let map = TextMap::new(&entries.iter().map(|(k, d)| (&**k, *d)).collect()).unwrap();
        for (key, doc) in &entries {
            assert!(map.present.may_hold(key_hash(key.as_bytes())), "{key}");
            assert_eq!(map.get(key).collect::<Vec<_>>(), [*doc], "{key}");
        }
        // Absent keys, some a character away from present ones.
        let absent: Vec<String> = (0..20_000u32)
            .map(|i| format!("DD{:06}", i * 7 + 3))
            .chain((0..20_000u32).map(|i| format!("word{i}")))
            .collect();
        let passed = absent
            .iter()
            .filter(|key| map.present.may_hold(key_hash(key.as_bytes())))
            .count();
        // About one in nine passes with eight bits a key; one in five is allowed.
        assert!(
            passed * 5 < absent.len(),
            "{passed} of {} passed",
            absent.len()
        );
        for key in &absent {
            assert_eq!(map.get(key).count(), 0, "{key}");
        }
    }

    /// The hash orders the keys of saved index files: pinned, so that a change to it comes with
    /// a new file version (module `persist`) instead of every saved file refused at start.
    #[test]
    fn the_key_hash_is_the_one_saved_files_were_ordered_by() {
        let hashes: Vec<u64> = ["", "dd1391100", "nike-air-max-90-infrared-2020"]
            .iter()
            .map(|key| key_hash(key.as_bytes()))
            .collect();
        assert_eq!(
            hashes,
            [0, 2_911_784_361_600_289_635, 5_066_205_004_060_793_227]
        );
    }

    #[test]
    fn saved_parts_read_back_to_the_same_map_and_unsorted_parts_are_refused() {
        let map = TextMap::new(&entries().iter().map(|(k, d)| (&**k, *d)).collect()).unwrap();
        let lengths: Vec<u32> = map.keys().map(|key| key.len() as u32).collect();
        let bytes: Vec<u8> = map.keys().flatten().copied().collect();
        let again = TextMap::from_parts(&lengths, bytes.clone(), map.docs.clone()).unwrap();
        assert!(map.keys().eq(again.keys()));
        assert_eq!(again.get("nike-air-max-1").collect::<Vec<_>>(), [2, 4]);

        // The same keys written in reverse order are not a map.
        let mut reversed: Vec<&[u8]> = map.keys().collect();
        reversed.reverse();
        let lengths: Vec<u32> = reversed.iter().map(|key| key.len() as u32).collect();
        let bytes: Vec<u8> = reversed.concat();
        assert!(TextMap::from_parts(&lengths, bytes, map.docs.clone()).is_none());
        // Two keys in and out of their hashes' order.
        let (one, two) = ("nike-air-max-1", "nike-air-max-90");
        let (first, second) = if key_hash(one.as_bytes()) < key_hash(two.as_bytes()) {
            (one, two)
        } else {
            (two, one)
        };
        let lengths = [first.len() as u32, second.len() as u32];
        let ordered = [first, second].concat().into_bytes();
        assert!(TextMap::from_parts(&lengths, ordered, vec![0, 1]).is_some());
        let swapped = [second, first].concat().into_bytes();
        let lengths = [lengths[1], lengths[0]];
        assert!(TextMap::from_parts(&lengths, swapped, vec![0, 1]).is_none());
        // Lengths that do not add up to the bytes, or documents that do not pair up.
        assert!(TextMap::from_parts(&[1, 2], b"abcd".to_vec(), vec![0, 1]).is_none());
        assert!(TextMap::from_parts(&[1, 2], b"abc".to_vec(), vec![0]).is_none());
    }
}
