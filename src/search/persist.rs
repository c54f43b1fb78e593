//! The index kept on disk beside the catalogue, so a start with an unchanged catalogue reads it
//! back instead of rebuilding it (seconds at 100,000 products, half a minute at a million).
//!
//! # Trust
//!
//! The file is keyed to the catalogue's identity: its size, modification time and the hash of
//! its first 100 bytes (the SQLite header, whose change counter moves with every write), and the
//! same for a `-wal` file beside it. Any difference, a format version or byte order other than
//! this build's, a checksum mismatch (SHA-256 over the whole body, checked before any of it is
//! used), a truncated file or a body that does not hold together (every offset and id in
//! range) makes [`SearchIndex::open`] rebuild and rewrite it: a damaged file costs a rebuild,
//! never a crash or a wrong answer. Every length is checked against the bytes left in the file
//! before anything is allocated, so a forged length cannot ask for unbounded memory.
//!
//! # Format
//!
//! Hand-written (no serialization crate in the tree fits: the body is a dozen flat arrays that
//! are read straight into their vectors with `bytemuck`, at memory speed, no per-item decoding):
//! a 16-byte header (magic, version, byte-order mark), the catalogue identity (32 bytes), the
//! body (length-prefixed arrays in native little-endian order), then a trailer: body length and
//! SHA-256. Written to a temporary file in the same directory, synced, then renamed over the old
//! one, so a crash mid-write leaves the previous file or none, never half of one.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use fst::Streamer;
use sha2::{Digest, Sha256};

use super::gtins::{GtinMap, IndexGtins};
use super::parts::{Codes, Dictionary, DocHeader, Forward, Posting, Postings};
use super::sorted_map::{SortedMap, TextMap};
use super::{SearchError, SearchIndex, bits};

const MAGIC: &[u8; 8] = b"SOLSRCH\0";
/// Bumped whenever the body's layout or the index's meaning changes.
const VERSION: u32 = 5;
const BYTE_ORDER: u32 = 0x0102_0304;
const HEADER_BYTES: u64 = 16 + 32;
const TRAILER_BYTES: u64 = 8 + 32;
/// The reader's buffer: large reads keep the copy at memory speed.
const BUFFER_BYTES: usize = 1 << 20;

/// Where an index handed out by [`SearchIndex::open`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexSource {
    /// Read back from the index file: the catalogue had not changed.
    Loaded,
    /// Built from the catalogue (no usable index file), then saved for the next start.
    Built,
}

/// Why an index file was not used (logged, then the index is rebuilt).
#[derive(Debug, thiserror::Error)]
pub(crate) enum LoadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("not an index file of this version")]
    Format,
    #[error("made for another state of the catalogue")]
    Stale,
    #[error("checksum mismatch (damaged file)")]
    Checksum,
    #[error("malformed: {0}")]
    Malformed(&'static str),
}

impl SearchIndex {
    /// The index file kept beside `catalogue`: `<catalogue>.search-index`.
    pub fn file_for(catalogue: &Path) -> PathBuf {
        let mut name = catalogue.file_name().unwrap_or_default().to_os_string();
        name.push(".search-index");
        catalogue.with_file_name(name)
    }

    /// The index of the catalogue at `catalogue` (open as `conn`): read back from
    /// [`file_for`](Self::file_for) when that was made for the catalogue as it is now, else built
    /// and saved there. A file that cannot be read or trusted is rebuilt (and the reason logged);
    /// a file that cannot be written only costs a rebuild at the next start.
    pub fn open(
        catalogue: &Path,
        conn: &rusqlite::Connection,
    ) -> Result<(SearchIndex, IndexSource), SearchError> {
        let (index, source, unsaved) = Self::open_unsaved(catalogue, conn, None)?;
        if let Some(unsaved) = unsaved {
            unsaved.save(&index);
        }
        Ok((index, source))
    }

    /// [`open`](Self::open), except that an index it builds is not saved yet: the caller saves
    /// it with [`UnsavedIndex::save`] when it has the time (the service: once it answers; at a
    /// million products writing the file takes some 2 s). From `defer_gtins_from` products, an
    /// index it builds has no GTIN map yet: the caller reads it with
    /// [`read_gtins_later`](Self::read_gtins_later) before saving it.
    pub fn open_unsaved(
        catalogue: &Path,
        conn: &rusqlite::Connection,
        defer_gtins_from: Option<usize>,
    ) -> Result<(SearchIndex, IndexSource, Option<UnsavedIndex>), SearchError> {
        let path = Self::file_for(catalogue);
        let identity = match catalogue_identity(catalogue) {
            Ok(identity) => identity,
            Err(err) => {
                tracing::warn!(catalogue = %catalogue.display(), "search index not kept: {err}");
                let index = super::build::build(conn, defer_gtins_from)?;
                return Ok((index, IndexSource::Built, None));
            }
        };
        let started = Instant::now();
        match load(&path, &identity) {
            Ok(index) => {
                tracing::info!(
                    products = index.len(),
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    path = %path.display(),
                    "search index read back"
                );
                return Ok((index, IndexSource::Loaded, None));
            }
            Err(LoadError::Io(err)) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => {
                tracing::warn!(path = %path.display(), "search index file not used, rebuilding: {err}");
            }
        }
        let index = super::build::build(conn, defer_gtins_from)?;
        tracing::info!(
            gtins_pending = index.gtins_pending(),
            products = index.len(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "search index built"
        );
        Ok((
            index,
            IndexSource::Built,
            Some(UnsavedIndex { path, identity }),
        ))
    }
}

/// Where and for which catalogue state a freshly built index is to be kept.
#[derive(Debug)]
#[must_use = "the index is kept only once saved"]
pub struct UnsavedIndex {
    path: PathBuf,
    identity: [u8; 32],
}

impl UnsavedIndex {
    /// Writes `index` (the one built with this) beside its catalogue; a failure is logged and
    /// only costs a rebuild at the next start.
    pub fn save(self, index: &SearchIndex) {
        let started = Instant::now();
        match save(index, &self.path, &self.identity) {
            Ok(()) => tracing::info!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                path = %self.path.display(),
                "search index saved"
            ),
            Err(err) => {
                tracing::warn!(path = %self.path.display(), "search index not saved: {err}");
            }
        }
    }
}

/// What identifies a state of the catalogue file (see the module documentation).
pub(super) fn catalogue_identity(catalogue: &Path) -> std::io::Result<[u8; 32]> {
    let mut hasher = Sha256::new();
    hasher.update(VERSION.to_le_bytes());
    let mut wal = catalogue.as_os_str().to_os_string();
    wal.push("-wal");
    for (path, required) in [(catalogue.to_path_buf(), true), (PathBuf::from(wal), false)] {
        let mut file = match File::open(&path) {
            Ok(file) => file,
            Err(err) if !required && err.kind() == std::io::ErrorKind::NotFound => {
                hasher.update([0u8]);
                continue;
            }
            Err(err) => return Err(err),
        };
        let metadata = file.metadata()?;
        hasher.update([1u8]);
        hasher.update(metadata.len().to_le_bytes());
        let modified = metadata
            .modified()?
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        hasher.update(modified.as_secs().to_le_bytes());
        hasher.update(modified.subsec_nanos().to_le_bytes());
        let mut head = Vec::with_capacity(100);
        (&mut file).take(100).read_to_end(&mut head)?;
        hasher.update(&head);
    }
    Ok(hasher.finalize().into())
}

/// Writes `index` to `path` atomically ([`crate::durable`]: temporary file, fsync, rename).
pub(crate) fn save(index: &SearchIndex, path: &Path, identity: &[u8; 32]) -> std::io::Result<()> {
    let mut staged = crate::durable::stage(path)?;
    write_file(index, staged.file(), identity)?;
    staged.commit()
}

fn write_file(index: &SearchIndex, file: &mut File, identity: &[u8; 32]) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(BUFFER_BYTES, file);
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    out.write_all(&BYTE_ORDER.to_ne_bytes())?;
    out.write_all(identity)?;
    let mut body = BodyWriter {
        out,
        hasher: Sha256::new(),
        length: 0,
    };
    write_body(index, &mut body)?;
    let BodyWriter {
        mut out,
        hasher,
        length,
    } = body;
    out.write_all(&length.to_le_bytes())?;
    out.write_all(&hasher.finalize())?;
    out.flush()
}

struct BodyWriter<'a> {
    out: BufWriter<&'a mut File>,
    hasher: Sha256,
    length: u64,
}

impl BodyWriter<'_> {
    fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hasher.update(bytes);
        self.length += bytes.len() as u64;
        self.out.write_all(bytes)
    }

    fn number(&mut self, value: u64) -> std::io::Result<()> {
        self.bytes(&value.to_le_bytes())
    }

    /// A length-prefixed array of plain numbers.
    fn array<T: bytemuck::Pod>(&mut self, items: &[T]) -> std::io::Result<()> {
        self.number(items.len() as u64)?;
        self.bytes(bytemuck::cast_slice(items))
    }

    /// A list of byte strings: lengths, then the bytes back to back.
    fn strings<'a>(
        &mut self,
        items: impl ExactSizeIterator<Item = &'a [u8]> + Clone,
    ) -> std::io::Result<()> {
        let lengths: Vec<u32> = items.clone().map(|item| item.len() as u32).collect();
        self.array(&lengths)?;
        let bytes: Vec<u8> = items.flatten().copied().collect();
        self.array(&bytes)
    }
}

fn write_body(index: &SearchIndex, body: &mut BodyWriter<'_>) -> std::io::Result<()> {
    body.array(&index.pks)?;
    body.array(&index.popularity)?;
    let dictionary = &index.dictionary;
    body.array(dictionary.words.as_fst().as_bytes())?;
    body.array(dictionary.codes.as_fst().as_bytes())?;
    body.number(dictionary.term_count() as u64)?;
    let mut crowded: Vec<(&[u8], &[u32])> = dictionary
        .crowded_prefixes
        .iter()
        .map(|(prefix, terms)| (&**prefix, &**terms))
        .collect();
    crowded.sort_unstable();
    body.strings(crowded.iter().map(|(prefix, _)| *prefix))?;
    let lengths: Vec<u32> = crowded
        .iter()
        .map(|(_, terms)| terms.len() as u32)
        .collect();
    body.array(&lengths)?;
    let terms: Vec<u32> = crowded
        .iter()
        .flat_map(|(_, terms)| terms.iter().copied())
        .collect();
    body.array(&terms)?;
    let postings = &index.postings;
    let of_term: Vec<[u32; 3]> = postings
        .of_term
        .iter()
        .map(|posting| match *posting {
            Posting::List { start, len } => [0, start, len],
            Posting::Dense { index } => [1, index, 0],
        })
        .collect();
    body.array(&of_term)?;
    body.array(&postings.docs)?;
    body.array(&postings.dense)?;
    let headers: Vec<[u32; 4]> = index
        .forward
        .docs
        .iter()
        .map(|h| {
            [
                h.start,
                h.description,
                h.end,
                u32::from(h.title_len) | u32::from(h.title_distinct) << 8,
            ]
        })
        .collect();
    body.array(&headers)?;
    body.array(&index.forward.entries)?;
    let codes = &index.codes;
    let gtins = codes.gtins.map().ok_or_else(|| {
        std::io::Error::other("the GTIN map is not read yet (a file without it would be wrong)")
    })?;
    body.strings(codes.skus.keys())?;
    body.array(&codes.skus.docs)?;
    body.array(&gtins.starts)?;
    body.array(&gtins.lengths)?;
    body.array(&gtins.docs)?;
    body.array(&gtins.others.keys)?;
    body.array(&gtins.others.docs)?;
    body.array(&codes.ids.keys)?;
    body.array(&codes.ids.docs)?;
    body.strings(codes.slugs.keys())?;
    body.array(&codes.slugs.docs)
}

/// Reads the index at `path` if it was written for `identity` and holds together.
pub(crate) fn load(path: &Path, identity: &[u8; 32]) -> Result<SearchIndex, LoadError> {
    let file = File::open(path)?;
    let size = file.metadata()?.len();
    if size < HEADER_BYTES + TRAILER_BYTES {
        return Err(LoadError::Format);
    }
    let mut input = BufReader::with_capacity(BUFFER_BYTES, file);
    let mut header = [0u8; HEADER_BYTES as usize];
    input.read_exact(&mut header)?;
    let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
    let order = u32::from_ne_bytes([header[12], header[13], header[14], header[15]]);
    if &header[..8] != MAGIC || version != VERSION || order != BYTE_ORDER {
        return Err(LoadError::Format);
    }
    if header[16..] != identity[..] {
        return Err(LoadError::Stale);
    }
    let mut body = BodyReader {
        input,
        hasher: Sha256::new(),
        remaining: size - HEADER_BYTES - TRAILER_BYTES,
    };
    let (words, codes, assemble) = read_body(&mut body)?;
    if body.remaining != 0 {
        return Err(LoadError::Malformed("bytes after the body"));
    }
    let mut trailer = [0u8; TRAILER_BYTES as usize];
    body.input.read_exact(&mut trailer)?;
    let length = size - HEADER_BYTES - TRAILER_BYTES;
    if trailer[..8] != length.to_le_bytes() || trailer[8..] != body.hasher.finalize()[..] {
        return Err(LoadError::Checksum);
    }
    // The dictionaries are opened only now: `fst` trusts the bytes it walks.
    let fst_of =
        |bytes: Vec<u8>| fst::Map::new(bytes).map_err(|_| LoadError::Malformed("term dictionary"));
    let index = assemble(fst_of(words)?, fst_of(codes)?);
    index.validate()?;
    Ok(index)
}

struct BodyReader {
    input: BufReader<File>,
    hasher: Sha256,
    /// Body bytes not read yet: no length may claim more.
    remaining: u64,
}

impl BodyReader {
    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), LoadError> {
        if bytes.len() as u64 > self.remaining {
            return Err(LoadError::Malformed(
                "a length runs past the end of the file",
            ));
        }
        self.input.read_exact(bytes)?;
        self.hasher.update(&*bytes);
        self.remaining -= bytes.len() as u64;
        Ok(())
    }

    fn number(&mut self) -> Result<u64, LoadError> {
        let mut bytes = [0u8; 8];
        self.fill(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    }

    fn array<T: bytemuck::Pod>(&mut self) -> Result<Vec<T>, LoadError> {
        let count = self.number()?;
        let item = std::mem::size_of::<T>() as u64;
        if count.saturating_mul(item) > self.remaining {
            return Err(LoadError::Malformed(
                "an array runs past the end of the file",
            ));
        }
        let mut items = vec![T::zeroed(); count as usize];
        self.fill(bytemuck::cast_slice_mut(&mut items))?;
        Ok(items)
    }

    fn strings(&mut self) -> Result<Vec<Box<[u8]>>, LoadError> {
        let (lengths, bytes) = self.string_parts()?;
        let mut at = 0;
        Ok(lengths
            .iter()
            .map(|&length| {
                let item: Box<[u8]> = bytes[at..at + length as usize].into();
                at += length as usize;
                item
            })
            .collect())
    }

    /// Strings as written ([`BodyWriter::strings`]): their lengths and their bytes, which
    /// the lengths add up to.
    fn string_parts(&mut self) -> Result<(Vec<u32>, Vec<u8>), LoadError> {
        let lengths: Vec<u32> = self.array()?;
        let bytes: Vec<u8> = self.array()?;
        let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        if total != bytes.len() as u64 {
            return Err(LoadError::Malformed("string lengths"));
        }
        Ok((lengths, bytes))
    }

    /// A text map as written: its keys ([`BodyWriter::strings`]), then its documents.
    fn text_map(&mut self) -> Result<Option<TextMap>, LoadError> {
        let (lengths, bytes) = self.string_parts()?;
        Ok(TextMap::from_parts(&lengths, bytes, self.array()?))
    }
}

/// The body's arrays: the two dictionaries' bytes, and what makes the index of them once the
/// checksum is known to hold.
type Assemble = Box<dyn FnOnce(fst::Map<Vec<u8>>, fst::Map<Vec<u8>>) -> SearchIndex>;

fn read_body(body: &mut BodyReader) -> Result<(Vec<u8>, Vec<u8>, Assemble), LoadError> {
    let pks: Vec<i64> = body.array()?;
    let popularity: Vec<i64> = body.array()?;
    let words: Vec<u8> = body.array()?;
    let codes: Vec<u8> = body.array()?;
    let term_count =
        usize::try_from(body.number()?).map_err(|_| LoadError::Malformed("term count"))?;
    let prefixes = body.strings()?;
    let lengths: Vec<u32> = body.array()?;
    let terms: Vec<u32> = body.array()?;
    if prefixes.len() != lengths.len()
        || lengths.iter().map(|&l| l as usize).sum::<usize>() != terms.len()
    {
        return Err(LoadError::Malformed("crowded prefixes"));
    }
    let mut crowded_prefixes = HashMap::with_capacity(prefixes.len());
    let mut at = 0;
    for (prefix, &length) in prefixes.into_iter().zip(&lengths) {
        let group: Box<[u32]> = terms[at..at + length as usize].into();
        at += length as usize;
        crowded_prefixes.insert(prefix, group);
    }
    let blocks = bits::blocks_for(pks.len());
    let of_term: Vec<[u32; 3]> = body.array()?;
    let of_term = of_term
        .into_iter()
        .map(|[kind, a, b]| match kind {
            0 => Ok(Posting::List { start: a, len: b }),
            1 => Ok(Posting::Dense { index: a }),
            _ => Err(LoadError::Malformed("posting kind")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let postings = Postings {
        of_term,
        docs: body.array()?,
        dense: body.array()?,
        blocks,
    };
    let headers: Vec<[u32; 4]> = body.array()?;
    let forward = Forward::new(
        headers
            .into_iter()
            .map(|[start, description, end, title]| DocHeader {
                start,
                description,
                end,
                title_len: title as u8,
                title_distinct: (title >> 8) as u8,
            })
            .collect(),
        body.array()?,
    );
    let skus = body.text_map()?;
    let (starts, lengths, runs) = (body.array()?, body.array()?, body.array()?);
    let gtins = SortedMap::from_sorted(body.array()?, body.array()?)
        .and_then(|others| GtinMap::from_parts(starts, lengths, runs, others));
    let ids = SortedMap::from_sorted(body.array()?, body.array()?);
    let slugs = body.text_map()?;
    let (Some(skus), Some(gtins), Some(ids), Some(slugs)) = (skus, gtins, ids, slugs) else {
        return Err(LoadError::Malformed("code tables"));
    };
    let assemble = move |words: fst::Map<Vec<u8>>, codes: fst::Map<Vec<u8>>| SearchIndex {
        pks,
        popularity,
        dictionary: Dictionary::from_parts(words, codes, crowded_prefixes, term_count),
        postings,
        forward,
        codes: Codes {
            skus,
            gtins: IndexGtins::ready(gtins),
            ids,
            slugs,
        },
        scratch: Mutex::new(Vec::new()),
        derivations: super::derive::DerivationCache::new(),
        spreads: super::spreads::SpreadCache::new(),
        live_support: std::sync::OnceLock::new(),
        doc_of_pk: std::sync::OnceLock::new(),
    };
    Ok((words, codes, Box::new(assemble)))
}

impl SearchIndex {
    /// Checks that every offset and id of the index is in range, so a search cannot index out
    /// of bounds whatever the file held (a checksum only proves the file is the one written).
    fn validate(&self) -> Result<(), LoadError> {
        let docs = self.pks.len();
        let terms = self.dictionary.term_count();
        // Documents in popularity order, ties by key: a live index places its products by it.
        let ordered = self.popularity.len() == docs
            && (1..docs).all(|d| {
                (self.popularity[d], self.pks[d - 1]) < (self.popularity[d - 1], self.pks[d])
            });
        if !ordered {
            return Err(LoadError::Malformed("document order"));
        }
        let doc_ok = |doc: &u32| (*doc as usize) < docs;
        let term_ok = |term: u64| term < terms as u64;
        for map in [&self.dictionary.words, &self.dictionary.codes] {
            let mut stream = map.stream();
            while let Some((_, term)) = stream.next() {
                if !term_ok(term) {
                    return Err(LoadError::Malformed("term id"));
                }
            }
        }
        if !self
            .dictionary
            .crowded_prefixes
            .values()
            .flat_map(|group| group.iter())
            .all(|&t| term_ok(u64::from(t)))
        {
            return Err(LoadError::Malformed("term id"));
        }
        let postings = &self.postings;
        if postings.of_term.len() != terms
            || !postings.dense.len().is_multiple_of(postings.blocks.max(1))
            || !postings.docs.iter().all(doc_ok)
        {
            return Err(LoadError::Malformed("postings"));
        }
        let dense_sets = postings.dense.len() / postings.blocks.max(1);
        let in_range = postings.of_term.iter().all(|posting| match *posting {
            Posting::List { start, len } => {
                u64::from(start) + u64::from(len) <= postings.docs.len() as u64
            }
            Posting::Dense { index } => (index as usize) < dense_sets,
        });
        if !in_range {
            return Err(LoadError::Malformed("postings"));
        }
        let entries = self.forward.entries.len();
        let headers_ok = self.forward.docs.len() == docs
            && self.forward.docs.iter().all(|h| {
                h.start <= h.description && h.description <= h.end && h.end as usize <= entries
            });
        if !headers_ok
            || !self
                .forward
                .entries
                .iter()
                .all(|&e| term_ok(u64::from(e >> 8)))
        {
            return Err(LoadError::Malformed("forward index"));
        }
        let codes = &self.codes;
        let codes_ok = codes.skus.docs.iter().all(doc_ok)
            && codes
                .gtins
                .map()
                .is_some_and(|gtins| gtins.docs().all(|doc| doc_ok(&doc)))
            && codes.ids.docs.iter().all(doc_ok)
            && codes.slugs.docs.iter().all(doc_ok);
        if !codes_ok {
            return Err(LoadError::Malformed("code tables"));
        }
        Ok(())
    }
}
