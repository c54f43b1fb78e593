//! The base and the live segment seen as one index: term frequencies, term lookups and the
//! base's facts a write needs (a product's document, a document's codes).

use std::sync::OnceLock;

use imbl::Vector;

use super::segment::{Segment, codes_print, item_print};
use crate::search::SearchIndex;
use crate::search::analyze::ProductCodes;
use crate::search::documents::DocOfPk;
use crate::search::parts::Posting;

/// What a live index needs of its base beyond ranking, made once per base (module `live`).
pub(in crate::search) struct BaseSupport {
    /// Product key -> document.
    pub(in crate::search) doc_of_pk: DocOfPk,
    /// Documents of each dense posting (a listed term's are its list's length).
    dense_counts: Vec<u32>,
    /// Per document, the print of its codes (`segment::codes_print`), made on first use; `None`
    /// while the base's GTIN map is still to be read.
    code_prints: OnceLock<Option<Vec<u64>>>,
    /// The names of the terms the crowded-prefix table keeps (module `expand` breaks ties of
    /// frequency by name), made on first use: one walk of the dictionary.
    kept_names: OnceLock<foldhash::HashMap<u32, Box<str>>>,
}

impl BaseSupport {
    pub(in crate::search) fn new(base: &SearchIndex) -> Self {
        let postings = &base.postings;
        let blocks = postings.blocks.max(1);
        let dense_counts = postings
            .dense
            .chunks(blocks)
            .map(|set| crate::search::bits::count(set) as u32)
            .collect();
        Self {
            doc_of_pk: DocOfPk::new(&base.pks),
            dense_counts,
            code_prints: OnceLock::new(),
            kept_names: OnceLock::new(),
        }
    }

    /// Documents of the base having `term` (0 for a term it does not have).
    pub(in crate::search) fn frequency(&self, base: &SearchIndex, term: u32) -> u64 {
        match base.postings.of_term.get(term as usize) {
            Some(Posting::List { len, .. }) => u64::from(*len),
            Some(Posting::Dense { index }) => {
                u64::from(self.dense_counts.get(*index as usize).copied().unwrap_or(0))
            }
            None => 0,
        }
    }

    /// The names of the terms the base's crowded-prefix table keeps.
    pub(in crate::search) fn kept_names(
        &self,
        base: &SearchIndex,
    ) -> &foldhash::HashMap<u32, Box<str>> {
        self.kept_names.get_or_init(|| {
            use fst::Streamer;
            let dictionary = &base.dictionary;
            let mut kept = vec![0u64; crate::search::bits::blocks_for(dictionary.term_count())];
            for &term in dictionary
                .crowded_prefixes
                .values()
                .flat_map(|terms| terms.iter())
            {
                crate::search::bits::insert(&mut kept, term);
            }
            let mut names = foldhash::HashMap::default();
            for map in [&dictionary.words, &dictionary.codes] {
                let mut stream = map.stream();
                while let Some((name, id)) = stream.next() {
                    let id = id as u32;
                    if crate::search::bits::contains(&kept, id) {
                        names.insert(id, String::from_utf8_lossy(name).into());
                    }
                }
            }
            names
        })
    }

    /// The print of base document `doc`'s codes, when the base's GTINs are read.
    pub(in crate::search) fn code_print(&self, base: &SearchIndex, doc: u32) -> Option<u64> {
        let prints = self.code_prints.get_or_init(|| code_prints(base));
        prints.as_ref()?.get(doc as usize).copied()
    }
}

/// Every base document's code print, from the base's exact maps.
fn code_prints(base: &SearchIndex) -> Option<Vec<u64>> {
    let gtins = base.codes.gtins.map()?;
    let mut prints = vec![0u64; base.len()];
    let mut add = |doc: u32, print: u64| {
        if let Some(slot) = prints.get_mut(doc as usize) {
            *slot ^= print;
        }
    };
    let codes = &base.codes;
    for (i, &doc) in codes.skus.docs.iter().enumerate() {
        add(doc, item_print(0, codes.skus.key(i)));
    }
    for (id, &doc) in codes.ids.keys.iter().zip(&codes.ids.docs) {
        add(doc, item_print(1, &id.to_le_bytes()));
    }
    for (i, &doc) in codes.slugs.docs.iter().enumerate() {
        add(doc, item_print(2, codes.slugs.key(i)));
    }
    for ((&start, &length), &doc) in gtins.starts.iter().zip(&gtins.lengths).zip(&gtins.docs) {
        for body in start..start + u64::from(length) {
            let gtin = body * 10 + crate::search::gtins::check_digit(body);
            add(doc, item_print(3, &gtin.to_le_bytes()));
        }
    }
    for (gtin, &doc) in gtins.others.keys.iter().zip(&gtins.others.docs) {
        add(doc, item_print(3, &gtin.to_le_bytes()));
    }
    // A product with no code at all prints 0, as `codes_print` of no code does.
    debug_assert_eq!(codes_print(&ProductCodes::default(), &[]), 0);
    Some(prints)
}

/// The base and a live segment over it, as one index.
#[derive(Clone, Copy)]
pub(in crate::search) struct View<'a> {
    pub(in crate::search) base: &'a SearchIndex,
    pub(in crate::search) support: &'a BaseSupport,
    pub(in crate::search) segment: &'a Segment,
}

impl<'a> View<'a> {
    /// Terms of both: union ids are below this.
    pub(in crate::search) fn term_count(&self) -> usize {
        self.base.dictionary.term_count() + self.segment.new_names.len()
    }

    /// Documents having `term`, of either.
    pub(in crate::search) fn frequency(&self, term: u32) -> u64 {
        let base = self.support.frequency(self.base, term);
        if !self.segment.may_have(term) {
            return base;
        }
        let delta = self.segment.delta.get(&term).copied().unwrap_or(0);
        (base as i64 + delta).max(0) as u64
    }

    /// Whether a document of either has `term` (a rebuild would have it in its dictionary).
    pub(in crate::search) fn alive(&self, term: u32) -> bool {
        self.frequency(term) > 0
    }

    /// Whether `term`'s frequency differs from the base's.
    pub(in crate::search) fn changed(&self, term: u32) -> bool {
        self.segment.may_have(term)
            && self
                .segment
                .delta
                .get(&term)
                .is_some_and(|&delta| delta != 0)
    }

    /// The union id of `word`, when either has it (alive or not).
    pub(in crate::search) fn lookup(&self, word: &str) -> Option<u32> {
        let dictionary = &self.base.dictionary;
        let bytes = word.as_bytes();
        dictionary
            .words
            .get(bytes)
            .or_else(|| dictionary.codes.get(bytes))
            .map(|id| id as u32)
            .or_else(|| self.segment.touched.get(word).copied())
    }

    /// The live documents' slots having `term`.
    pub(in crate::search) fn postings(&self, term: u32) -> Option<&'a Vector<u32>> {
        if !self.segment.may_have(term) {
            return None;
        }
        self.segment.postings.get(&term)
    }
}
