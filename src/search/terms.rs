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
