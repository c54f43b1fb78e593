//! Building the index from the catalogue: one pass over products (most popular first), one over
//! variant GTINs, then the term dictionary, posting lists and prefix table.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::sync::Mutex;

use rusqlite::{Connection, Row};

use super::text::{for_each_word, has_digit, strip_tags};
use super::{PREFIX_EXPANSIONS, SearchError, SearchIndex, bits};
use crate::catalogue::generate::normalize_sku;

/// Field importance, best first (rule 4). Title and style code share the top rank.
pub(crate) const RANK_TITLE: u8 = 0;
const RANK_BRAND: u8 = 1;
const RANK_COLOR: u8 = 2;
const RANK_DESCRIPTION: u8 = 3;

/// Title positions are kept up to this one; later words share it.
pub(crate) const MAX_TITLE_POSITION: u8 = 31;

/// Forward-index entry flags, packed in a byte: rank in bits 0-1, title flag, title position.
pub(crate) const META_RANK_MASK: u8 = 0b11;
pub(crate) const META_TITLE: u8 = 0b100;
pub(crate) const META_POSITION_SHIFT: u8 = 3;

/// The term dictionary: two FSTs (term -> term id) and the table of crowded prefixes.
pub(crate) struct Dictionary {
    /// Terms without digits: the ones typo tolerance applies to (a few thousand words).
    pub(crate) words: fst::Map<Vec<u8>>,
    /// Terms with a digit: style codes and their parts, model numbers, years.
    pub(crate) codes: fst::Map<Vec<u8>>,
    /// Prefixes with more than [`PREFIX_EXPANSIONS`] completions -> the most frequent ones.
    pub(crate) crowded_prefixes: HashMap<Box<[u8]>, Box<[u32]>>,
    term_count: usize,
}

impl Dictionary {
    /// A dictionary from parts read back from disk.
    pub(crate) fn from_parts(
        words: fst::Map<Vec<u8>>,
        codes: fst::Map<Vec<u8>>,
        crowded_prefixes: HashMap<Box<[u8]>, Box<[u32]>>,
        term_count: usize,
    ) -> Self {
        Self {
            words,
            codes,
            crowded_prefixes,
            term_count,
        }
    }

    /// Number of distinct terms; term ids are `0..term_count`, most frequent first.
    pub(crate) fn term_count(&self) -> usize {
        self.term_count
    }
}

/// Where a term's documents are.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Posting {
    /// `docs[start..start + len]`, increasing.
    List { start: u32, len: u32 },
    /// Bitset number `index` of `dense` (for terms in at least 1/32 of documents).
    Dense { index: u32 },
    /// The same documents as the term's posting in the main [`Postings`] (top-field postings
    /// only: the term never occurs outside the title and code).
    SameAsAll,
}

/// Term id -> documents: all of them (`SearchIndex::postings`), or those where the term is in
/// the title or style code (`SearchIndex::top_field`, which bounds rules 3-4 cheaply).
pub(crate) struct Postings {
    pub(crate) of_term: Vec<Posting>,
    pub(crate) docs: Vec<u32>,
    /// Bitsets of frequent terms, `blocks` words each, back to back.
    pub(crate) dense: Vec<u64>,
    pub(crate) blocks: usize,
}

impl Postings {
    /// Adds the documents of `term` to `set`; `all` stands in for [`Posting::SameAsAll`].
    pub(crate) fn union_into(&self, term: u32, set: &mut [u64], all: Option<&Postings>) {
        match self.of_term[term as usize] {
            Posting::SameAsAll => {
                if let Some(all) = all {
                    all.union_into(term, set, None);
                }
            }
            Posting::List { start, len } => {
                let start = start as usize;
                for &doc in &self.docs[start..start + len as usize] {
                    bits::insert(set, doc);
                }
            }
            Posting::Dense { index } => {
                let start = index as usize * self.blocks;
                bits::union_with(set, &self.dense[start..start + self.blocks]);
            }
        }
    }
}

/// Document -> its terms: title words in order (with positions), then the other fields' terms
/// not already seen, best field first, description-only terms last.
///
/// Ranking reads documents scattered over the index, so each one costs about two cache
/// misses: its header, then its entries (term id and flags packed in one `u32`).
pub(crate) struct Forward {
    pub(crate) docs: Vec<DocHeader>,
    /// `term << 8 | meta` (see [`META_RANK_MASK`]).
    pub(crate) entries: Vec<u32>,
}

/// Where one document's entries are, and its title's shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DocHeader {
    pub(crate) start: u32,
    /// Entries from here to `end` are found only in the description.
    pub(crate) description: u32,
    pub(crate) end: u32,
    /// Words in the title (capped at 255).
    pub(crate) title_len: u8,
    /// Distinct words in the title (capped at 255).
    pub(crate) title_distinct: u8,
}

/// Term ids must fit the 24 bits a forward entry keeps for them.
const MAX_TERMS: usize = 1 << 24;

impl Postings {
    /// Packs per-term document lists (`None`: [`Posting::SameAsAll`]); frequent terms become
    /// bitsets.
    fn from_lists(lists: Vec<Option<Vec<u32>>>, doc_count: usize) -> Self {
        let blocks = bits::blocks_for(doc_count);
        let mut of_term = Vec::with_capacity(lists.len());
        let mut docs = Vec::new();
        let mut dense = Vec::new();
        let mut dense_count = 0u32;
        for list in lists {
            let Some(list) = list else {
                of_term.push(Posting::SameAsAll);
                continue;
            };
            if list.len() >= 64 && list.len() * 32 >= doc_count {
                let start = dense.len();
                dense.resize(start + blocks, 0);
                for &doc in &list {
                    bits::insert(&mut dense[start..], doc);
                }
                of_term.push(Posting::Dense { index: dense_count });
                dense_count += 1;
            } else {
                of_term.push(Posting::List {
                    start: docs.len() as u32,
                    len: list.len() as u32,
                });
                docs.extend_from_slice(&list);
            }
        }
        Self {
            of_term,
            docs,
            dense,
            blocks,
        }
    }
}

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

/// Exact identifiers typed as text or given as filters.
pub(crate) struct Codes {
    /// `products.sku_norm`.
    pub(crate) skus: SortedMap<Box<str>>,
    /// Variant GTINs as GTIN-14 numbers.
    pub(crate) gtins: super::gtins::GtinMap,
    /// `products.id` (UUID).
    pub(crate) ids: SortedMap<u128>,
    /// `products.slug`, lower case (the last segment of `products.link`).
    pub(crate) slugs: SortedMap<Box<str>>,
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

/// Reads the catalogue and builds the index.
pub(crate) fn build(conn: &Connection) -> Result<SearchIndex, SearchError> {
    let mut builder = Builder::default();
    let mut statement = conn.prepare(
        "SELECT pk, id, slug, sku, sku_norm, title, brand, model, category, color, gender,
                description
           FROM products ORDER BY popularity DESC, pk",
    )?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        builder.add_product(row)?;
    }
    let doc_count = builder.pks.len();
    if u32::try_from(doc_count).is_err() {
        return Err(SearchError::TooManyProducts { count: doc_count });
    }

    let doc_of_pk: HashMap<i64, u32> = builder
        .pks
        .iter()
        .enumerate()
        .map(|(doc, &pk)| (pk, doc as u32))
        .collect();
    let mut gtins = Vec::new();
    let mut statement = conn
        .prepare("SELECT product_pk, gtin FROM variants WHERE gtin IS NOT NULL AND gtin <> ''")?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let pk: i64 = row.get(0)?;
        let gtin = text(row, 1)?;
        if let (Some(&doc), Some(value)) = (doc_of_pk.get(&pk), parse_gtin(gtin)) {
            gtins.push((value, doc));
        }
    }
    builder.finish(gtins)
}

fn text<'r>(row: &'r Row<'_>, index: usize) -> Result<&'r str, rusqlite::Error> {
    Ok(row.get_ref(index)?.as_str_or_null()?.unwrap_or(""))
}

#[derive(Default)]
struct Builder {
    pks: Vec<i64>,
    /// Term -> provisional id (order of first appearance).
    ids: HashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
    /// Provisional term id -> documents.
    postings: Vec<Vec<u32>>,
    /// Provisional term id -> documents having it in the title or style code.
    top_field: Vec<Vec<u32>>,
    /// Provisional term id -> last document (+1) that used it, to keep one entry per document.
    seen_in: Vec<u32>,
    starts: Vec<u32>,
    description_starts: Vec<u32>,
    terms: Vec<u32>,
    meta: Vec<u8>,
    title_len: Vec<u8>,
    title_distinct: Vec<u8>,
    skus: Vec<(Box<str>, u32)>,
    product_ids: Vec<(u128, u32)>,
    slugs: Vec<(Box<str>, u32)>,
}

impl Builder {
    fn add_product(&mut self, row: &Row<'_>) -> Result<(), rusqlite::Error> {
        let doc = self.pks.len() as u32;
        self.pks.push(row.get(0)?);
        let stamp = doc + 1;
        self.starts.push(self.terms.len() as u32);

        let mut position = 0u32;
        let mut distinct = 0u32;
        for_each_word(text(row, 5)?, |word| {
            let term = self.intern(word);
            if self.seen_in[term as usize] != stamp {
                self.seen_in[term as usize] = stamp;
                self.postings[term as usize].push(doc);
                self.top_field[term as usize].push(doc);
                distinct += 1;
            }
            let slot = position.min(u32::from(MAX_TITLE_POSITION)) as u8;
            self.terms.push(term);
            self.meta
                .push(RANK_TITLE | META_TITLE | (slot << META_POSITION_SHIFT));
            position += 1;
        });
        self.title_len.push(position.min(255) as u8);
        self.title_distinct.push(distinct.min(255) as u8);

        let sku = text(row, 3)?;
        let sku_norm = text(row, 4)?;
        for_each_word(sku, |word| self.add_term(word, RANK_TITLE, stamp));
        self.add_term(&sku_norm.to_ascii_lowercase(), RANK_TITLE, stamp);
        for column in [6, 7] {
            for_each_word(text(row, column)?, |word| {
                self.add_term(word, RANK_BRAND, stamp);
            });
        }
        for column in [8, 9, 10] {
            for_each_word(text(row, column)?, |word| {
                self.add_term(word, RANK_COLOR, stamp);
            });
        }
        self.description_starts.push(self.terms.len() as u32);
        for_each_word(&strip_tags(text(row, 11)?), |word| {
            self.add_term(word, RANK_DESCRIPTION, stamp);
        });

        let normalized = normalize_sku(sku_norm);
        if !normalized.is_empty() {
            self.skus.push((normalized.into_boxed_str(), doc));
        }
        if let Ok(id) = uuid::Uuid::try_parse(text(row, 1)?) {
            self.product_ids.push((id.as_u128(), doc));
        }
        let slug = text(row, 2)?.to_ascii_lowercase();
        if !slug.is_empty() {
            self.slugs.push((slug.into_boxed_str(), doc));
        }
        Ok(())
    }

    /// Adds a non-title term unless the document already has it (from a better field).
    fn add_term(&mut self, word: &str, rank: u8, stamp: u32) {
        if word.is_empty() {
            return;
        }
        let term = self.intern(word);
        if self.seen_in[term as usize] == stamp {
            return;
        }
        self.seen_in[term as usize] = stamp;
        self.postings[term as usize].push(stamp - 1);
        if rank == RANK_TITLE {
            self.top_field[term as usize].push(stamp - 1);
        }
        self.terms.push(term);
        self.meta.push(rank);
    }

    fn intern(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.ids.get(word) {
            return id;
        }
        let id = self.names.len() as u32;
        let name: Box<str> = word.into();
        self.ids.insert(name.clone(), id);
        self.names.push(name);
        self.postings.push(Vec::new());
        self.top_field.push(Vec::new());
        self.seen_in.push(0);
        id
    }

    fn finish(mut self, gtins: Vec<(u64, u32)>) -> Result<SearchIndex, SearchError> {
        let doc_count = self.pks.len();
        self.starts.push(self.terms.len() as u32);
        self.ids = HashMap::new();

        if self.names.len() > MAX_TERMS {
            return Err(SearchError::TooManyTerms {
                count: self.names.len(),
            });
        }
        // Final term ids: most frequent first, so the hot end of per-query term tables is small.
        let mut order: Vec<u32> = (0..self.names.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            self.postings[b]
                .len()
                .cmp(&self.postings[a].len())
                .then_with(|| self.names[a].cmp(&self.names[b]))
        });
        let mut final_id = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            final_id[old as usize] = new as u32;
        }
        for term in &mut self.terms {
            *term = final_id[*term as usize];
        }

        let frequency: Vec<u32> = order
            .iter()
            .map(|&old| self.postings[old as usize].len() as u32)
            .collect();
        let mut top_field = Vec::with_capacity(order.len());
        for &old in &order {
            let (all, top) = (&self.postings[old as usize], &self.top_field[old as usize]);
            top_field.push(if top.len() == all.len() {
                None
            } else {
                Some(std::mem::take(&mut self.top_field[old as usize]))
            });
        }
        self.top_field = Vec::new();
        let all: Vec<Option<Vec<u32>>> = order
            .iter()
            .map(|&old| Some(std::mem::take(&mut self.postings[old as usize])))
            .collect();
        let postings = Postings::from_lists(all, doc_count);
        let top_field = Postings::from_lists(top_field, doc_count);

        let mut sorted: Vec<(&str, u32)> = order
            .iter()
            .enumerate()
            .map(|(new, &old)| (&*self.names[old as usize], new as u32))
            .collect();
        sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut words = fst::MapBuilder::memory();
        let mut codes = fst::MapBuilder::memory();
        for &(name, id) in &sorted {
            if has_digit(name) {
                codes.insert(name, u64::from(id))?;
            } else {
                words.insert(name, u64::from(id))?;
            }
        }
        let crowded_prefixes = crowded_prefixes(&sorted, &frequency);
        let dictionary = Dictionary {
            words: fst::Map::new(words.into_inner()?)?,
            codes: fst::Map::new(codes.into_inner()?)?,
            crowded_prefixes,
            term_count: order.len(),
        };

        Ok(SearchIndex {
            pks: self.pks,
            dictionary,
            postings,
            top_field,
            forward: Forward {
                docs: (0..doc_count)
                    .map(|doc| DocHeader {
                        start: self.starts[doc],
                        description: self.description_starts[doc],
                        end: self.starts[doc + 1],
                        title_len: self.title_len[doc],
                        title_distinct: self.title_distinct[doc],
                    })
                    .collect(),
                entries: self
                    .terms
                    .iter()
                    .zip(&self.meta)
                    .map(|(&term, &meta)| term << 8 | u32::from(meta))
                    .collect(),
            },
            codes: Codes {
                skus: SortedMap::new(self.skus),
                gtins: super::gtins::GtinMap::new(gtins),
                ids: SortedMap::new(self.product_ids),
                slugs: SortedMap::new(self.slugs),
            },
            scratch: Mutex::new(Vec::new()),
            derivations: super::derive::DerivationCache::new(),
        })
    }
}

/// For every prefix shared by more than [`PREFIX_EXPANSIONS`] terms, its most frequent
/// completions (`sorted` is in byte order, so each prefix's terms are contiguous).
fn crowded_prefixes(sorted: &[(&str, u32)], frequency: &[u32]) -> HashMap<Box<[u8]>, Box<[u32]>> {
    let mut table = HashMap::new();
    for length in 1.. {
        let mut crowded_any = false;
        let mut i = 0;
        while i < sorted.len() {
            let bytes = sorted[i].0.as_bytes();
            if bytes.len() < length {
                i += 1;
                continue;
            }
            let prefix = &bytes[..length];
            let mut j = i + 1;
            while j < sorted.len() && sorted[j].0.as_bytes().starts_with(prefix) {
                j += 1;
            }
            if j - i > PREFIX_EXPANSIONS {
                crowded_any = true;
                let mut group: Vec<u32> = sorted[i..j].iter().map(|&(_, id)| id).collect();
                // Ids are ordered by frequency already; the sort makes that explicit.
                group.sort_unstable_by_key(|&id| (std::cmp::Reverse(frequency[id as usize]), id));
                group.truncate(PREFIX_EXPANSIONS);
                table.insert(prefix.into(), group.into_boxed_slice());
            }
            i = j;
        }
        if !crowded_any {
            break;
        }
    }
    table
}
