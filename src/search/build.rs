//! Building the index from the catalogue: one pass over products (in key order, each noted with
//! its document: most popular first), one over variant GTINs (module `gtins`; for a large
//! catalogue, once the service answers), then the term dictionary, posting lists and prefix table
//! (module `numbering`).
//!
//! At a million products this is some 9-10 s of CPU without the GTINs; on two cores it takes about
//! half that: the products are read in two parts on two threads, and the posting lists, the
//! dictionary and the exact maps are then built at once.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rusqlite::{Connection, Row};

use super::analyze::{ProductText, TermSink, codes_of, each_term};
use super::derive::DerivationCache;
use super::documents::{DocOfPk, rows_in_doc_order};
use super::gtins::{IndexGtins, read_gtins};
use super::numbering::{Numbering, Read};
use super::parts::{Codes, DocHeader, Forward};
use super::sorted_map::{SortedMap, TextEntries, TextMap};
use super::terms::TermTable;
use super::{SearchError, SearchIndex};

/// Term ids must fit the 24 bits a forward entry keeps for them.
const MAX_TERMS: usize = 1 << 24;

/// Below this many products the index is read on one thread (a second connection and thread
/// cost more than they save).
const TWO_THREADS_FROM: usize = 20_000;

/// Reads the catalogue and builds the index; its GTIN map too, unless the catalogue has at
/// least `defer_gtins_from` products (then [`SearchIndex::read_gtins_later`] reads it).
pub(crate) fn build(
    conn: &Connection,
    defer_gtins_from: Option<usize>,
) -> Result<SearchIndex, SearchError> {
    let two_threads = std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2);
    build_with(
        conn,
        two_threads.then_some(TWO_THREADS_FROM),
        defer_gtins_from,
    )
}

/// [`build`], reading the products on two threads when there are at least `two_threads_from`
/// of them and the catalogue is a file a second connection can open.
pub(crate) fn build_with(
    conn: &Connection,
    two_threads_from: Option<usize>,
    defer_gtins_from: Option<usize>,
) -> Result<SearchIndex, SearchError> {
    // The products and variants are read in key order, front to back through a memory map.
    let (order, first, second, gtins) = crate::catalogue::with_file_mapped(conn, || {
        read_catalogue(conn, two_threads_from, defer_gtins_from)
    })?;
    first.finish(second, order, gtins)
}

const PRODUCTS_BETWEEN: &str = "SELECT pk, id, slug, sku, sku_norm, title, brand, model,
        category, color, gender, description
   FROM products WHERE pk >= ?1 AND pk <= ?2 ORDER BY pk";

/// Products a chunk of [`Chunks`] holds (fewer in tests, so the test catalogues' products
/// are spread over both threads' builders in many chunks).
const CHUNK: usize = if cfg!(test) { 256 } else { 1 << 15 };

/// The products in chunks of consecutive keys, each taken by one reader: the next to take is
/// `next`. Chunk `i` holds the keys from `starts[i]` below `starts[i + 1]` (the last one, to the
/// end).
struct Chunks {
    starts: Vec<i64>,
    next: AtomicUsize,
}

impl Chunks {
    fn of(pks: &[i64]) -> Self {
        let mut keys = pks.to_vec();
        keys.sort_unstable();
        Self {
            starts: keys.iter().step_by(CHUNK).copied().collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// The first and last keys of the next chunk not taken yet (the last chunk's last key is
    /// `i64::MAX`).
    fn take(&self) -> Option<(i64, i64)> {
        let at = self.next.fetch_add(1, Ordering::Relaxed);
        let start = *self.starts.get(at)?;
        let end = self.starts.get(at + 1).map_or(i64::MAX, |next| next - 1);
        Some((start, end))
    }
}

/// The products in document order (most popular first), every product into a builder, and
/// every variant GTIN with its document (or, from `defer_gtins_from` products, what reads them
/// later).
///
/// The rows are read in key order, which is the table's order on disk, and not in popularity
/// order: through the popularity index, each row was a B-tree descent to a page of its own
/// (5.2 s for the rows of a million products, against about 1.2 s front to back). The builder
/// notes each row's document and [`Builder::finish`] puts them in document order.
///
/// With two threads, the second reads the variants first (on its own connection) when they are
/// read now, then both take chunks of products until none is left, each into its own builder;
/// the two are merged after. (A fixed share of the products for the second thread left one
/// thread or the other idle for a second at a million products, depending on the machine.) The
/// index is the same either way (final term ids depend only on frequency and spelling; a test
/// compares the saved bytes).
fn read_catalogue(
    conn: &Connection,
    two_threads_from: Option<usize>,
    defer_gtins_from: Option<usize>,
) -> Result<(DocOrder, Builder, Option<Builder>, IndexGtins), SearchError> {
    // Documents in order, from the popularity index alone (no table read).
    let mut statement =
        conn.prepare("SELECT pk, popularity FROM products ORDER BY popularity DESC, pk")?;
    let mut pks = Vec::new();
    let mut popularity = Vec::new();
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        pks.push(row.get::<_, i64>(0)?);
        popularity.push(row.get::<_, i64>(1)?);
    }
    if u32::try_from(pks.len()).is_err() {
        return Err(SearchError::TooManyProducts { count: pks.len() });
    }
    let doc_of_pk = DocOfPk::new(&pks);
    let gtins_now = defer_gtins_from.is_none_or(|from| pks.len() < from);
    let chunks = Chunks::of(&pks);
    let path = conn.path().filter(|path| !path.is_empty());
    let second_thread = match (two_threads_from, path) {
        (Some(from), Some(path)) if pks.len() >= from => Some(path),
        _ => None,
    };
    let Some(path) = second_thread else {
        let builder = read_products(conn, &chunks, pks.len(), &doc_of_pk)?;
        let gtins = gtins_now
            .then(|| read_gtins(conn, &doc_of_pk))
            .transpose()?;
        let order = DocOrder { pks, popularity };
        return Ok((order, builder, None, IndexGtins::new(gtins, doc_of_pk)));
    };
    // The second thread's share when it also reads the variants (about as long as reading
    // three quarters of the products).
    let (first_share, second_share) = if gtins_now {
        (pks.len() / 8 * 7, pks.len() / 8)
    } else {
        (pks.len() / 2, pks.len() / 2)
    };
    let (first, second, gtins) = std::thread::scope(|scope| {
        let second = scope.spawn(|| -> Result<_, SearchError> {
            let conn = Connection::open_with_flags(
                path,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                    | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            crate::catalogue::with_file_mapped(&conn, || {
                let gtins = gtins_now
                    .then(|| read_gtins(&conn, &doc_of_pk))
                    .transpose()?;
                Ok((
                    read_products(&conn, &chunks, second_share, &doc_of_pk)?,
                    gtins,
                ))
            })
        });
        let first = read_products(conn, &chunks, first_share, &doc_of_pk);
        let second = second
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let (second, gtins) = second?;
        Ok::<_, SearchError>((first?, second, gtins))
    })?;
    let order = DocOrder { pks, popularity };
    Ok((
        order,
        first,
        Some(second),
        IndexGtins::new(gtins, doc_of_pk),
    ))
}

/// The products of the chunks this reader takes, some `expected` of them, into a builder.
fn read_products(
    conn: &Connection,
    chunks: &Chunks,
    expected: usize,
    doc_of_pk: &DocOfPk,
) -> Result<Builder, SearchError> {
    let mut builder = Builder::default();
    // Some three terms a product are its own (style code parts, model numbers): room for them
    // up front instead of growing the table through every power of two.
    builder.names.reserve(expected * 3);
    let mut statement = conn.prepare(PRODUCTS_BETWEEN)?;
    while let Some(keys) = chunks.take() {
        let mut rows = statement.query(<[i64; 2]>::from(keys))?;
        while let Some(row) = rows.next()? {
            // A product the order did not list: the catalogue changed between the two reads.
            let doc = doc_of_pk
                .get(row.get(0)?)
                .ok_or(SearchError::CatalogueChanged)?;
            builder.add_product(row, doc)?;
        }
    }
    Ok(builder)
}

/// Column `index` of `row` as text, `NULL` as empty.
fn text<'r>(row: &'r Row<'_>, index: usize) -> Result<&'r str, rusqlite::Error> {
    Ok(crate::catalogue::optional_text_at(row, index)?.unwrap_or(""))
}

/// Every document's product key and popularity, in document order (`popularity DESC, pk`).
pub(super) struct DocOrder {
    pub(super) pks: Vec<i64>,
    pub(super) popularity: Vec<i64>,
}

/// An index's parts as the live index's merge gathers them (module `live`): every product in
/// document order, its terms already numbered (provisional ids into `names`).
pub(super) struct Gathered {
    pub(super) order: DocOrder,
    /// Terms by provisional id, and the documents having each (none at zero).
    pub(super) names: TermTable,
    pub(super) doc_count: Vec<u32>,
    /// Every document's entries and title facts, in document order.
    pub(super) entries: ProductEntries,
    pub(super) codes: CodeEntries,
    pub(super) gtins: super::gtins::GtinMap,
}

/// The index of `gathered`: numbered, posted and mapped as a build from a catalogue of the same
/// products numbers, posts and maps them (the same saved bytes).
pub(super) fn assemble(gathered: Gathered) -> Result<SearchIndex, SearchError> {
    let Gathered {
        order,
        names,
        doc_count,
        entries,
        codes,
        gtins,
    } = gathered;
    let docs = (0..order.pks.len() as u32).collect();
    let builder = Builder {
        docs,
        names,
        doc_count,
        seen_in: Vec::new(),
        entries,
        codes,
        buffer: String::new(),
    };
    builder.finish(None, order, IndexGtins::ready(gtins))
}

/// The products as read (in key order), each with its document; every per-product vector here
/// is in that order, not in document order.
#[derive(Default)]
struct Builder {
    /// Product (as read) -> its document.
    docs: Vec<u32>,
    /// Terms by provisional id (order of first appearance).
    names: TermTable,
    /// Provisional term id -> number of documents having it.
    doc_count: Vec<u32>,
    /// Provisional term id -> last document (+1) that used it, to keep one entry per document.
    seen_in: Vec<u32>,
    entries: ProductEntries,
    codes: CodeEntries,
    /// A product's code or slug as written to the index, reused from product to product.
    buffer: String,
}

/// Every product's forward entries and title facts, product after product (in the order the
/// products were read, or the merge's document order); one type for the build's products and
/// the merge's, so that the merge hands its own to the build's last steps as they are.
#[derive(Default)]
pub(super) struct ProductEntries {
    /// Product -> its first entry in `terms` and `meta`, and its first description entry.
    pub(super) starts: Vec<u32>,
    pub(super) description_starts: Vec<u32>,
    /// Each entry's provisional term id and meta byte.
    pub(super) terms: Vec<u32>,
    pub(super) meta: Vec<u8>,
    pub(super) title_len: Vec<u8>,
    pub(super) title_distinct: Vec<u8>,
}

impl ProductEntries {
    /// Room for `products` products of `entries` entries in all.
    pub(super) fn with_capacity(products: usize, entries: usize) -> Self {
        Self {
            starts: Vec::with_capacity(products),
            description_starts: Vec::with_capacity(products),
            terms: Vec::with_capacity(entries),
            meta: Vec::with_capacity(entries),
            title_len: Vec::with_capacity(products),
            title_distinct: Vec::with_capacity(products),
        }
    }

    /// Adds `other`'s products after these, their term ids renamed by `id_here`.
    fn append(&mut self, other: &ProductEntries, id_here: &[u32]) {
        let entries_before = self.terms.len() as u32;
        self.starts
            .extend(other.starts.iter().map(|start| start + entries_before));
        self.description_starts.extend(
            other
                .description_starts
                .iter()
                .map(|start| start + entries_before),
        );
        self.terms
            .extend(other.terms.iter().map(|&term| id_here[term as usize]));
        self.meta.extend_from_slice(&other.meta);
        self.title_len.extend_from_slice(&other.title_len);
        self.title_distinct.extend_from_slice(&other.title_distinct);
    }
}

/// The exact maps' entries as the products are read (or as the merge gathers them).
#[derive(Default)]
pub(super) struct CodeEntries {
    pub(super) skus: TextEntries,
    pub(super) product_ids: Vec<(u128, u32)>,
    pub(super) slugs: TextEntries,
}

impl CodeEntries {
    fn append(&mut self, other: &CodeEntries) {
        self.skus.append(&other.skus);
        self.product_ids.extend_from_slice(&other.product_ids);
        self.slugs.append(&other.slugs);
    }

    /// The exact maps; `None` when the style codes or slugs take 4 GB or more.
    fn build(self, gtins: IndexGtins) -> Option<Codes> {
        Some(Codes {
            skus: TextMap::new(&self.skus)?,
            gtins,
            ids: SortedMap::new(self.product_ids),
            slugs: TextMap::new(&self.slugs)?,
        })
    }
}

impl Builder {
    fn add_product(&mut self, row: &Row<'_>, doc: u32) -> Result<(), rusqlite::Error> {
        let product = ProductText {
            id: text(row, 1)?,
            slug: text(row, 2)?,
            sku: text(row, 3)?,
            sku_norm: text(row, 4)?,
            title: text(row, 5)?,
            brand: text(row, 6)?,
            model: text(row, 7)?,
            category: text(row, 8)?,
            color: text(row, 9)?,
            gender: text(row, 10)?,
            description: text(row, 11)?,
        };
        self.add_text(&product, doc);
        Ok(())
    }

    /// Adds one product as document `doc` (module `analyze` says which terms, in which order).
    pub(super) fn add_text(&mut self, product: &ProductText<'_>, doc: u32) {
        self.docs.push(doc);
        // Stamps count this builder's products (a product's terms are marked with it).
        let stamp = self.docs.len() as u32;
        self.entries.starts.push(self.entries.terms.len() as u32);
        // One buffer for the product's lower-case code, normalized code and slug, instead of
        // a new string for each.
        let mut buffer = std::mem::take(&mut self.buffer);
        let mut sink = BuildSink {
            builder: self,
            stamp,
            position: 0,
            distinct: 0,
        };
        each_term(product, &mut sink, &mut buffer);
        let codes = codes_of(product, &mut buffer);
        if let Some(sku) = &codes.sku {
            self.codes.skus.push(sku, doc);
        }
        if let Some(id) = codes.id {
            self.codes.product_ids.push((id, doc));
        }
        if let Some(slug) = &codes.slug {
            self.codes.slugs.push(slug, doc);
        }
        self.buffer = buffer;
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
        self.doc_count[term as usize] += 1;
        self.entries.terms.push(term);
        self.entries.meta.push(rank);
    }

    fn intern(&mut self, word: &str) -> u32 {
        let (id, new) = self.names.intern(word);
        if new {
            self.doc_count.push(0);
            self.seen_in.push(0);
        }
        id
    }

    /// Adds the products `other` read after this builder's, their codes aside
    /// ([`Builder::finish`] takes both builders' codes before).
    fn append(&mut self, other: &Builder) {
        // `other`'s term ids -> this builder's.
        let mut id_here = Vec::with_capacity(other.names.len());
        for (term, doc_count) in other.doc_count.iter().enumerate() {
            let id = self.intern(other.names.name(term as u32));
            self.doc_count[id as usize] += doc_count;
            id_here.push(id);
        }
        self.entries.append(&other.entries, &id_here);
        self.docs.extend_from_slice(&other.docs);
    }

    /// Adds the products `other` read (when two readers did), numbers the terms for good, puts
    /// the products in document order (`pks` is that order) and builds the posting lists, the
    /// dictionary and the exact maps. Three independent parts run at once: the exact maps
    /// (sorting a million style codes, ids and slugs; begun before the term tables are merged,
    /// which is half a second of one thread at a million products), the posting lists, and the
    /// dictionary.
    fn finish(
        mut self,
        mut other: Option<Builder>,
        order: DocOrder,
        gtins: IndexGtins,
    ) -> Result<SearchIndex, SearchError> {
        let DocOrder { pks, popularity } = order;
        let mut codes = std::mem::take(&mut self.codes);
        let other_codes = other.as_mut().map(|other| std::mem::take(&mut other.codes));
        std::thread::scope(|scope| {
            let codes = scope.spawn(move || {
                if let Some(other_codes) = other_codes {
                    codes.append(&other_codes);
                }
                codes.build(gtins)
            });
            if let Some(other) = other {
                self.append(&other);
            }
            let Builder {
                docs,
                names,
                doc_count: docs_of_term,
                entries:
                    ProductEntries {
                        mut starts,
                        description_starts,
                        terms,
                        meta,
                        title_len,
                        title_distinct,
                    },
                ..
            } = self;
            let doc_count = pks.len();
            let row_of_doc = rows_in_doc_order(&docs, doc_count)?;
            drop(docs);
            starts.push(terms.len() as u32);
            if names.len() > MAX_TERMS {
                return Err(SearchError::TooManyTerms { count: names.len() });
            }
            let read = Read {
                terms,
                meta,
                starts: &starts,
                row_of_doc: &row_of_doc,
            };
            let numbering = Numbering::new(&names, &docs_of_term);
            let (numbered, postings, dictionary) = std::thread::scope(|scope| {
                // The dictionary needs the numbering alone: it is built beside the forward
                // index's renumbering, not after it (it was the last part to end).
                let dictionary = scope.spawn(|| numbering.dictionary(&names));
                let numbered = numbering.renumber(read);
                let postings = numbered.postings(&numbering.frequency);
                let dictionary = dictionary
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                dictionary.map(|dictionary| (numbered, postings, dictionary))
            })?;
            let docs = (0..doc_count)
                .map(|doc| {
                    let row = row_of_doc[doc] as usize;
                    let start = numbered.starts[doc];
                    DocHeader {
                        start,
                        description: start + (description_starts[row] - starts[row]),
                        end: numbered.starts[doc + 1],
                        title_len: title_len[row],
                        title_distinct: title_distinct[row],
                    }
                })
                .collect();
            let codes = codes
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                .ok_or(SearchError::CodesTooLarge)?;
            Ok(SearchIndex {
                pks,
                popularity,
                dictionary,
                postings,
                forward: Forward::new(docs, numbered.entries),
                codes,
                scratch: Mutex::new(Vec::new()),
                derivations: DerivationCache::new(),
                spreads: super::spreads::SpreadCache::new(),
                live_support: std::sync::OnceLock::new(),
                doc_of_pk: std::sync::OnceLock::new(),
            })
        })
    }
}

/// A product's terms into a [`Builder`]: each term's document count, title length and
/// distinct title words as the product goes.
struct BuildSink<'b> {
    builder: &'b mut Builder,
    stamp: u32,
    position: u32,
    distinct: u32,
}

impl TermSink for BuildSink<'_> {
    fn title_word(&mut self, word: &str, meta: u8) {
        let builder = &mut *self.builder;
        let term = builder.intern(word);
        if builder.seen_in[term as usize] != self.stamp {
            builder.seen_in[term as usize] = self.stamp;
            builder.doc_count[term as usize] += 1;
            self.distinct += 1;
        }
        builder.entries.terms.push(term);
        builder.entries.meta.push(meta);
        self.position += 1;
    }

    fn term(&mut self, word: &str, rank: u8) {
        self.builder.add_term(word, rank, self.stamp);
    }

    fn description_starts(&mut self) {
        let entries = &mut self.builder.entries;
        entries.title_len.push(self.position.min(255) as u8);
        entries.title_distinct.push(self.distinct.min(255) as u8);
        entries.description_starts.push(entries.terms.len() as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::super::parts::{META_RANK_MASK, META_TITLE, RANK_DESCRIPTION};
    use super::super::text::for_each_word;
    use super::*;

    /// The index as its saved bytes.
    fn saved(index: &SearchIndex, dir: &std::path::Path, name: &str) -> Vec<u8> {
        let path = dir.join(name);
        super::super::persist::save(index, &path, &[7; 32]).unwrap();
        std::fs::read(path).unwrap()
    }

    /// Every document (popularity order) holds its own product's title words, in order, and
    /// its description terms where its header says, whether one thread read the products or
    /// two (each a part, merged after).
    #[test]
    fn each_document_holds_its_own_products_terms() {
        use fst::Streamer;
        let dir = tempfile::tempdir().unwrap();
        let catalogue = super::super::tests::generated_catalogue(dir.path(), 3_001, 5);
        let conn = Connection::open(&catalogue).unwrap();
        let mut statement = conn
            .prepare("SELECT pk, title FROM products ORDER BY popularity DESC, pk")
            .unwrap();
        let by_popularity: Vec<(i64, String)> = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for two_threads_from in [None, Some(2)] {
            let index = build_with(&conn, two_threads_from, None).unwrap();
            let mut name_of = vec![String::new(); index.dictionary.term_count()];
            for map in [&index.dictionary.words, &index.dictionary.codes] {
                let mut stream = map.stream();
                while let Some((name, id)) = stream.next() {
                    name_of[id as usize] = String::from_utf8(name.to_vec()).unwrap();
                }
            }
            let pks: Vec<i64> = by_popularity.iter().map(|(pk, _)| *pk).collect();
            assert_eq!(index.pks, pks);
            for (doc, (_, title)) in by_popularity.iter().enumerate() {
                let header = index.forward.docs[doc];
                let (start, description, end) = (
                    header.start as usize,
                    header.description as usize,
                    header.end as usize,
                );
                let entries = &index.forward.entries;
                let title_words: Vec<&str> = entries[start..end]
                    .iter()
                    .filter(|&&entry| entry as u8 & META_TITLE != 0)
                    .map(|&entry| name_of[(entry >> 8) as usize].as_str())
                    .collect();
                let mut words = Vec::new();
                for_each_word(title, |word| words.push(word.to_owned()));
                assert_eq!(title_words, words, "document {doc}");
                assert_eq!(usize::from(header.title_len), words.len());
                let rank = |entry: &u32| *entry as u8 & META_RANK_MASK;
                assert!(
                    entries[start..description]
                        .iter()
                        .all(|e| rank(e) != RANK_DESCRIPTION)
                );
                assert!(
                    entries[description..end]
                        .iter()
                        .all(|e| rank(e) == RANK_DESCRIPTION)
                );
            }
        }
    }

    #[test]
    fn two_threads_build_the_index_one_thread_builds() {
        let dir = tempfile::tempdir().unwrap();
        let catalogue = super::super::tests::generated_catalogue(dir.path(), 3_001, 5);
        let conn = Connection::open(&catalogue).unwrap();
        let one = build_with(&conn, None, None).unwrap();
        let two = build_with(&conn, Some(2), None).unwrap();
        assert_eq!(one.len(), 3_001);
        let (one, two) = (
            saved(&one, dir.path(), "one"),
            saved(&two, dir.path(), "two"),
        );
        assert!(one == two, "the two builds differ");
        // The memory map used for reading is closed again.
        let mmap: i64 = conn
            .query_row("PRAGMA mmap_size", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mmap, 0);
    }
}
