//! The page of hits kept ready: every product's search hit in a compact binary record, in a
//! file beside the catalogue (`<catalogue>.search-hits`), so a page of `/search` is a few
//! positioned reads and one JSON writer pass instead of two `SQLite` queries over a dozen
//! variants per product and a `serde_json::Value` round trip per hit.
//!
//! # Why
//!
//! Profiled at 100,000 products, ranking a query costs well under a millisecond while building
//! its page (20 products with all their variants read from `SQLite`, each turned into a `Value`,
//! stripped for the tier, serialized) cost several: that was most of a `/search` answer. A record
//! holds one product with both datasets' prices (US and FR) and its variants; the JSON of either
//! dataset and tier is written from it directly, byte for byte what the catalogue path gives
//! (`tests/search_hits.rs` compares them over a whole catalogue).
//!
//! # Memory
//!
//! Only the directory (`pk` and offset per product, 16 bytes each) is held in memory; records
//! are read with positioned reads, so they live in the page cache and not in the service's
//! resident memory (a memory map would count every page touched).
//!
//! # Trust
//!
//! Keyed to the catalogue's identity as the index file is (module `persist`), written atomically.
//! The directory is checked whole when the file is opened (checksum, order, every offset in
//! range); each record carries its own CRC-32, checked on every read, so a damaged record is
//! never served: the caller falls back to the catalogue for that hit.
//!
//! # Format
//!
//! Header: magic, version, byte-order mark, catalogue identity (48 bytes). Records back to back
//! (CRC-32 of the payload, then the payload). Directory: `pk` (i64) per product in increasing
//! order, then the offset (u64) of each record. Trailer: product count, directory offset,
//! CRC-32 of the directory, magic.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rusqlite::Connection;

use crate::catalogue::{optional_text_at, text_at};

use self::record::TEXT_FIELDS;
use super::persist::catalogue_identity;
use super::{IndexSource, SearchError};
use crate::model::Country;

pub(crate) mod overlay;
mod record;

pub(in crate::search) use self::record::Encoder;

const MAGIC: &[u8; 8] = b"SOLHITS\0";
/// Bumped whenever the record layout changes.
const VERSION: u32 = 2;
const BYTE_ORDER: u32 = 0x0102_0304;
const HEADER_BYTES: u64 = 16 + 32;
const TRAILER_BYTES: u64 = 8 + 8 + 4 + 4 + 8;
/// Longest record accepted when reading (a product with thousands of variants stays far below).
const MAX_RECORD_BYTES: u64 = 16 << 20;

/// Every product's hit, ready to be written as JSON. `Send + Sync`: reads are positioned.
#[derive(Debug)]
pub struct HitStore {
    file: File,
    /// `products.pk`, increasing.
    pks: Vec<i64>,
    /// Record start of each product; one more entry: where the last record ends.
    offsets: Vec<u64>,
    /// Whether the records were read (or written) since the store was opened, so that they are
    /// most probably in the page cache ([`HitStore::warm_page_cache`]); until then a page of
    /// hits is written on an async worker only if the page cache holds all its records
    /// ([`HitStore::write_cached_hit`]), else on the blocking pool after [`HitStore::prefetch`].
    cached: AtomicBool,
}

/// Why a store file was not used (logged, then it is rebuilt).
#[derive(Debug, thiserror::Error)]
enum LoadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("not a hit store of this version")]
    Format,
    #[error("made for another state of the catalogue")]
    Stale,
    #[error("malformed: {0}")]
    Malformed(&'static str),
}

/// Why one hit could not be written from the store (the caller falls back to the catalogue).
#[derive(Debug, thiserror::Error)]
pub enum HitError {
    /// The product is not in the store.
    #[error("product {0} is not in the hit store")]
    Unknown(i64),
    /// Reading the file failed.
    #[error("reading the hit store: {0}")]
    Io(#[from] std::io::Error),
    /// The record failed its checksum or does not decode.
    #[error("damaged hit record for product {0}")]
    Damaged(i64),
    /// The store is still being built (the service answers from the catalogue meanwhile).
    #[error("the hit store is still being built")]
    NotReady,
    /// The records may not be in the page cache yet (read them off the async workers).
    #[error("the hit store is not read into the page cache yet")]
    NotCached,
}

/// A hit store that must be built: what [`HitStore::open_existing`] answers when none usable is
/// kept beside the catalogue (missing, stale or damaged; the reason is logged).
#[derive(Debug)]
#[must_use = "the store is there only once built"]
pub struct UnbuiltHitStore {
    catalogue: PathBuf,
    /// The catalogue's identity, when it could be read (else the store is not kept beside it).
    identity: Option<[u8; 32]>,
}

impl HitStore {
    /// The store kept beside `catalogue`: `<catalogue>.search-hits`.
    pub fn file_for(catalogue: &Path) -> PathBuf {
        let mut name = catalogue.file_name().unwrap_or_default().to_os_string();
        name.push(".search-hits");
        catalogue.with_file_name(name)
    }

    /// The store of the catalogue at `catalogue` (open as `conn`): opened when the file was made
    /// for the catalogue as it is now, else built from the catalogue and written there. A file
    /// that cannot be trusted is rebuilt (and the reason logged); when none can be written beside
    /// the catalogue (a read-only folder), the store is built in an anonymous temporary file.
    pub fn open(
        catalogue: &Path,
        conn: &Connection,
    ) -> Result<(HitStore, IndexSource), SearchError> {
        match Self::open_existing(catalogue) {
            Ok(store) => Ok((store, IndexSource::Loaded)),
            Err(unbuilt) => Ok((unbuilt.build(conn)?, IndexSource::Built)),
        }
    }

    /// The store kept beside `catalogue` when it was made for the catalogue as it is now (a
    /// few milliseconds: the directory is read, the records stay on disk); else what is needed
    /// to build it ([`UnbuiltHitStore::build`]).
    pub fn open_existing(catalogue: &Path) -> Result<HitStore, UnbuiltHitStore> {
        let path = Self::file_for(catalogue);
        let started = Instant::now();
        let unbuilt = |identity| UnbuiltHitStore {
            catalogue: catalogue.to_path_buf(),
            identity,
        };
        let identity = match catalogue_identity(catalogue) {
            Ok(identity) => identity,
            Err(err) => {
                tracing::warn!(catalogue = %catalogue.display(), "hit store not kept: {err}");
                return Err(unbuilt(None));
            }
        };
        match File::open(&path)
            .map_err(LoadError::from)
            .and_then(|file| load(file, &identity))
        {
            Ok(store) => {
                tracing::info!(
                    products = store.len(),
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "hit store opened"
                );
                return Ok(store);
            }
            Err(LoadError::Io(err)) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => {
                tracing::warn!(path = %path.display(), "hit store not used, rebuilding: {err}");
            }
        }
        Err(unbuilt(Some(identity)))
    }

    /// Reads the records once, front to back, so that the operating system holds them in its
    /// page cache; returns the bytes covered and the bytes that had to be read. `/search` reads
    /// records on the async workers: after a restart with a cold page cache (a reboot,
    /// gigabytes written meanwhile) each record was a disk read there, and at a million
    /// products the service answered 165 searches/s with a p99 of 633 ms for its first half
    /// minute (measured). Read in order, the 2 GB take about a second from disk.
    ///
    /// A stretch the page cache already holds is not copied out again ([`stretch_is_cached`]):
    /// after a restart with the store cached, the read-through had taken 1.5 s of a core, in
    /// the first second, beside the first searches (`perf record`). One it does not hold is
    /// read by the kernel alone ([`read_into_page_cache`]).
    pub fn warm_page_cache(&self) -> std::io::Result<WarmUp> {
        let end = self.offsets.last().copied().unwrap_or(0);
        let mut buffer = Vec::new();
        let mut warm_up = WarmUp::default();
        while warm_up.covered < end {
            let at = warm_up.covered;
            let len = (end - at).min(WARM_UP_STRETCH);
            if !stretch_is_cached(&self.file, at, len) {
                read_into_page_cache(&self.file, at, len, &mut buffer)?;
                warm_up.read += len;
            }
            warm_up.covered += len;
        }
        self.cached.store(true, Ordering::Release);
        Ok(warm_up)
    }

    /// Whether the records were read through once since the store was opened (or written by
    /// this process): a hit then costs no disk read, and may be written on an async worker.
    #[must_use]
    pub fn is_cached(&self) -> bool {
        self.cached.load(Ordering::Acquire)
    }

    /// Asks the operating system to start reading the records of `pks` now, all at once, so
    /// that the reads of a page wait for the disk once and not once per hit. Read one after the
    /// other from a cold page cache, the 20 records of a page were 20 disk round trips in
    /// turn; a product not in the store is skipped. A hint: errors are ignored.
    pub fn prefetch(&self, pks: &[i64]) {
        for (start, length) in pks.iter().filter_map(|&pk| self.record_of(pk)) {
            advise_will_need(&self.file, start, length as u64);
        }
    }

    /// Where product `pk`'s record is in the file: its start and length.
    fn record_of(&self, pk: i64) -> Option<(u64, usize)> {
        let slot = slot_of(&self.pks, pk)?;
        let start = self.offsets[slot];
        Some((start, (self.offsets[slot + 1] - start) as usize))
    }

    /// Number of products in the store.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pks.len()
    }

    /// Whether the store holds no product.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pks.is_empty()
    }

    /// Appends the JSON of product `pk`'s search hit to `out`, written for `asker` (its market
    /// and tier). On error `out` is left as it was.
    pub fn write_hit(&self, pk: i64, asker: HitFor, out: &mut Vec<u8>) -> Result<(), HitError> {
        self.write_hit_reading(pk, asker, false, out)
    }

    /// [`write_hit`](Self::write_hit) when the page cache holds the record, read without
    /// waiting (`preadv2` with `RWF_NOWAIT`); [`HitError::NotCached`] when the disk would be
    /// read (or the system cannot tell), so that the caller reads it where waiting is allowed.
    ///
    /// Before the store has been read through once, every page had gone to the blocking pool,
    /// cached or not: after a restart with the store still in the page cache, the first
    /// second's p99 was some 29 ms against 5 in the steady state (`benches/cold_restart.sh`).
    pub fn write_cached_hit(
        &self,
        pk: i64,
        asker: HitFor,
        out: &mut Vec<u8>,
    ) -> Result<(), HitError> {
        self.write_hit_reading(pk, asker, true, out)
    }

    fn write_hit_reading(
        &self,
        pk: i64,
        asker: HitFor,
        cached_only: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), HitError> {
        let (start, length) = self.record_of(pk).ok_or(HitError::Unknown(pk))?;
        thread_local! {
            /// The record being read, reused by the thread's next hit.
            static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        BUFFER.with_borrow_mut(|buffer| {
            buffer.clear();
            buffer.resize(length, 0);
            if cached_only {
                if !read_cached_at(&self.file, buffer, start) {
                    return Err(HitError::NotCached);
                }
            } else {
                read_exact_at(&self.file, buffer, start)?;
            }
            write_record(pk, buffer, asker, out)
        })
    }
}

/// Who a hit is written for: its prices in `country`'s market, and the release date and retail
/// price only when `full` (the tier rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HitFor {
    /// The market the hit is priced in.
    pub country: Country,
    /// Whether the asker's tier sees the release date and retail price.
    pub full: bool,
}

/// Writes the record of product `pk`, read into `buffer`, as JSON for `asker`.
pub(crate) fn write_record(
    pk: i64,
    buffer: &[u8],
    asker: HitFor,
    out: &mut Vec<u8>,
) -> Result<(), HitError> {
    let damaged = || HitError::Damaged(pk);
    let (crc, payload) = buffer.split_at(4.min(buffer.len()));
    if crc.len() < 4
        || u32::from_le_bytes(crc.try_into().map_err(|_| damaged())?) != crc32fast::hash(payload)
    {
        return Err(damaged());
    }
    let mark = out.len();
    if record::write_json(payload, asker.country, asker.full, out).is_none() {
        out.truncate(mark);
        return Err(damaged());
    }
    Ok(())
}

/// What [`HitStore::warm_page_cache`] did: the bytes of records it covered, and of those the
/// bytes it read (the rest the page cache held already).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WarmUp {
    /// Bytes of records covered: all of them once it ends.
    pub covered: u64,
    /// Bytes read from the file (the stretches the page cache did not hold).
    pub read: u64,
}

/// The warm-up reads the store in stretches of this many bytes.
const WARM_UP_STRETCH: u64 = 4 << 20;

/// The page cache is asked about one byte in this many of a stretch.
const CACHE_PROBE_STEP: u64 = 64 << 10;

/// Whether the page cache holds the stretch of `len` bytes from `at`, as far as one byte in
/// every 64 KB (and the last) tells, each read without waiting ([`read_cached_at`]): 64
/// system calls for 4 MB instead of copying them. A page missed between two probes is read
/// when a hit needs it, as after any eviction.
fn stretch_is_cached(file: &File, at: u64, len: u64) -> bool {
    let mut byte = [0u8; 1];
    probed_offsets(at, len).all(|offset| read_cached_at(file, &mut byte, offset))
}

/// The bytes of a stretch that [`stretch_is_cached`] asks about: one in every
/// [`CACHE_PROBE_STEP`], and the last.
fn probed_offsets(at: u64, len: u64) -> impl Iterator<Item = u64> {
    let last = at + len.saturating_sub(1);
    (at..=last)
        .step_by(CACHE_PROBE_STEP as usize)
        .chain(std::iter::once(last))
}

/// Where `pk` is in `pks` (increasing, no repeats).
///
/// Keys are `INTEGER PRIMARY KEY`s: consecutive from the first unless products were deleted.
/// The key `pk - first` places after the first is then `pk` itself, found with one read. A
/// binary search over a million keys was some twenty dependent reads, most of them cache
/// misses, twice for each of a page's hits (its prefetch, then its record): 6 % of the
/// service's time under distinct queries at a million products (`perf record`). With gaps,
/// `pk` can only sit at or before that place (each key is at least one more than the one
/// before it), so the search runs below it.
fn slot_of(pks: &[i64], pk: i64) -> Option<usize> {
    let first = *pks.first()?;
    let below = match pk.checked_sub(first).map(usize::try_from) {
        // Below the first key.
        Some(Err(_)) => return None,
        Some(Ok(distance)) => match pks.get(distance) {
            Some(&there) if there == pk => return Some(distance),
            Some(_) => &pks[..distance],
            None => pks,
        },
        // Further from the first key than an `i64` reaches.
        None => pks,
    };
    below.binary_search(&pk).ok()
}

/// Brings the stretch of `len` bytes from `at` into the page cache, and returns once it is
/// there, as far as [`stretch_is_cached`] looks. The kernel reads it on its own
/// (`posix_fadvise(WILLNEED)`), and one byte in every [`CACHE_PROBE_STEP`] is then read to
/// wait for it: the records are not copied out (2 GB at a million products, copied beside a
/// cold restart's first searches). Alternated cold restarts (`benches/cold_restart.sh 1000000
/// 3`, two rounds each): the first second answered 815-1,595 searches/s against 748-1,053 when
/// copied, with the same p99 (median 38.1 against 39.3 ms); the 2 GB were cached after 1.2 s
/// instead of 2.4 s. Where the system has no such hint, or refuses it, the stretch is read
/// into `buffer`.
fn read_into_page_cache(
    file: &File,
    at: u64,
    len: u64,
    buffer: &mut Vec<u8>,
) -> std::io::Result<()> {
    if advise_will_need(file, at, len) {
        let mut byte = [0u8; 1];
        return probed_offsets(at, len)
            .try_for_each(|offset| read_exact_at(file, &mut byte, offset));
    }
    buffer.resize(len as usize, 0);
    read_exact_at(file, buffer, at)
}

/// `posix_fadvise(WILLNEED)`: the kernel starts reading the range into the page cache and
/// returns at once; `false` when the system refused. The standard library has no such call;
/// rustix has it without `unsafe`.
#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
fn advise_will_need(file: &File, start: u64, length: u64) -> bool {
    let Some(length) = std::num::NonZeroU64::new(length) else {
        return true;
    };
    rustix::fs::fadvise(file, start, Some(length), rustix::fs::Advice::WillNeed).is_ok()
}

/// No read-ahead hint where the call is missing (`false`): records are read as asked.
#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
fn advise_will_need(_file: &File, _start: u64, _length: u64) -> bool {
    false
}

/// Fills `buffer` from `offset` if the page cache holds all of it, without waiting for the
/// disk: `preadv2(RWF_NOWAIT)` (Linux 4.14; the standard library has no such read, rustix has it
/// without `unsafe`). `false` when it would wait, when only part is cached, and on any error
/// (the caller then reads the usual way, which reports a real one).
#[cfg(target_os = "linux")]
fn read_cached_at(file: &File, buffer: &mut [u8], offset: u64) -> bool {
    let flags = rustix::io::ReadWriteFlags::NOWAIT;
    let mut parts = [std::io::IoSliceMut::new(buffer)];
    let wanted = parts[0].len();
    rustix::io::preadv2(file, &mut parts, offset, flags).is_ok_and(|read| read == wanted)
}

/// Elsewhere the page cache cannot be asked: every record counts as not cached.
#[cfg(not(target_os = "linux"))]
fn read_cached_at(_file: &File, _buffer: &mut [u8], _offset: u64) -> bool {
    false
}

#[cfg(unix)]
pub(crate) fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
}

#[cfg(windows)]
pub(crate) fn read_exact_at(
    file: &File,
    mut buffer: &mut [u8],
    mut offset: u64,
) -> std::io::Result<()> {
    while !buffer.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buffer, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buffer = &mut buffer[n..];
                offset += n as u64;
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

impl UnbuiltHitStore {
    /// The catalogue the store is for.
    pub fn catalogue(&self) -> &Path {
        &self.catalogue
    }

    /// Builds the store from the catalogue (open as `conn`) and writes it beside it; when it
    /// cannot be written there (a read-only folder), in an anonymous temporary file.
    pub fn build(self, conn: &Connection) -> Result<HitStore, SearchError> {
        let path = HitStore::file_for(&self.catalogue);
        let started = Instant::now();
        let beside = match self.identity {
            Some(identity) => build_beside(conn, &path, &identity),
            None => Err(SearchError::Io(std::io::Error::other(
                "no catalogue identity",
            ))),
        };
        let store = match beside {
            Ok(store) => store,
            Err(SearchError::Io(err)) => {
                tracing::warn!(path = %path.display(), "hit store not written beside the catalogue, kept in a temporary file: {err}");
                let mut file = tempfile::tempfile()?;
                let identity = [0u8; 32];
                write_store(conn, &mut file, &identity)?;
                load(file, &identity)
                    .map_err(|err| SearchError::Io(std::io::Error::other(err.to_string())))?
            }
            Err(err) => return Err(err),
        };
        tracing::info!(
            products = store.len(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "hit store built"
        );
        // Just written: in the page cache.
        store.cached.store(true, Ordering::Release);
        Ok(store)
    }
}

// ---------------------------------------------------------------------------------------------
// Writing

/// Writes every product of the catalogue as a record: one pass over products and one over
/// variants, both in `pk` order, merged.
fn write_store(conn: &Connection, file: &mut File, identity: &[u8; 32]) -> Result<(), SearchError> {
    let io = SearchError::Io;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    write_header(&mut out, identity).map_err(io)?;
    let mut position = HEADER_BYTES;

    let columns = TEXT_FIELDS.join(", ");
    let mut products = conn.prepare(&format!(
        "SELECT pk, {columns}, description, is_bundle, labels,
                min_usd_cents, avg_usd_cents, max_usd_cents, base_usd_cents, retail_usd_cents,
                min_eur_cents, avg_eur_cents, max_eur_cents, base_eur_cents, retail_eur_cents
         FROM products ORDER BY pk"
    ))?;
    let mut variants = conn.prepare(
        "SELECT product_pk, id, size, gtin, link, price_usd_cents, price_eur_cents
         FROM variants ORDER BY product_pk, position",
    )?;
    let mut variant_rows = variants.query([])?;
    let mut pending = variant_rows.next()?;
    let mut pks = Vec::new();
    let mut offsets = Vec::new();
    let mut encoder = Encoder::default();
    let mut rows = products.query([])?;
    while let Some(row) = rows.next()? {
        let pk: i64 = row.get(0)?;
        encoder.bytes.clear();
        for column in 1..=16 {
            encoder.text(text_at(row, column)?);
        }
        encoder.optional_text(optional_text_at(row, 17)?);
        encoder.bytes.push(u8::from(row.get::<_, bool>(18)?));
        encoder.labels(text_at(row, 19)?);
        for column in 20..30 {
            encoder.i64(row.get(column)?);
        }
        let count_at = encoder.bytes.len();
        encoder.u32(0);
        let mut count = 0u32;
        // Variants of products the catalogue lacks (none with foreign keys on) are skipped.
        while let Some(variant) = pending {
            let owner: i64 = variant.get(0)?;
            if owner > pk {
                break;
            }
            if owner == pk {
                encoder.variant_id(variant.get_ref(1)?.as_blob().map_err(|err| {
                    rusqlite::Error::FromSqlConversionFailure(
                        1,
                        rusqlite::types::Type::Blob,
                        Box::new(err),
                    )
                })?);
                let size = text_at(variant, 2)?;
                encoder.text(size);
                encoder.optional_text(optional_text_at(variant, 3)?);
                encoder.variant_link(optional_text_at(variant, 4)?, size);
                encoder.i64(variant.get(5)?);
                encoder.i64(variant.get(6)?);
                count += 1;
            }
            pending = variant_rows.next()?;
        }
        encoder.bytes[count_at..count_at + 4].copy_from_slice(&count.to_le_bytes());
        pks.push(pk);
        offsets.push(position);
        out.write_all(&crc32fast::hash(&encoder.bytes).to_le_bytes())
            .map_err(io)?;
        out.write_all(&encoder.bytes).map_err(io)?;
        position += 4 + encoder.bytes.len() as u64;
    }
    write_directory(&mut out, &pks, &offsets, position).map_err(io)
}

/// Writes a store's header: what [`load`] checks before it reads anything else. The first
/// record follows at [`HEADER_BYTES`].
fn write_header(out: &mut impl Write, identity: &[u8; 32]) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    out.write_all(&BYTE_ORDER.to_ne_bytes())?;
    out.write_all(identity)
}

/// Ends a store whose records (product `pks[i]`'s at `offsets[i]`) end at `directory_at`: the
/// directory, then the trailer that locates and checks it; flushes `out`.
fn write_directory(
    out: &mut impl Write,
    pks: &[i64],
    offsets: &[u64],
    directory_at: u64,
) -> std::io::Result<()> {
    let mut hasher = crc32fast::Hasher::new();
    for chunk in [
        bytemuck::cast_slice::<i64, u8>(pks),
        bytemuck::cast_slice::<u64, u8>(offsets),
    ] {
        hasher.update(chunk);
        out.write_all(chunk)?;
    }
    out.write_all(&(pks.len() as u64).to_le_bytes())?;
    out.write_all(&directory_at.to_le_bytes())?;
    out.write_all(&hasher.finalize().to_le_bytes())?;
    out.write_all(&0u32.to_le_bytes())?;
    out.write_all(MAGIC)?;
    out.flush()
}

/// Writes the store to `path` atomically ([`crate::durable`]) and opens it.
fn build_beside(
    conn: &Connection,
    path: &Path,
    identity: &[u8; 32],
) -> Result<HitStore, SearchError> {
    let mut staged = crate::durable::stage(path)?;
    // Every product and variant is read, the variants one index lookup each: through a memory
    // map, as the index build reads them.
    crate::catalogue::with_file_mapped(conn, || write_store(conn, staged.file(), identity))?;
    staged.commit()?;
    let file = File::open(path)?;
    load(file, identity).map_err(|err| SearchError::Io(std::io::Error::other(err.to_string())))
}

// ---------------------------------------------------------------------------------------------
// Reading

/// The store in `file` if it was written for `identity` and its directory holds together.
fn load(file: File, identity: &[u8; 32]) -> Result<HitStore, LoadError> {
    let size = file.metadata()?.len();
    if size < HEADER_BYTES + TRAILER_BYTES {
        return Err(LoadError::Format);
    }
    let mut header = [0u8; HEADER_BYTES as usize];
    read_exact_at(&file, &mut header, 0)?;
    if &header[..8] != MAGIC
        || header[8..12] != VERSION.to_le_bytes()
        || header[12..16] != BYTE_ORDER.to_ne_bytes()
    {
        return Err(LoadError::Format);
    }
    if header[16..] != identity[..] {
        return Err(LoadError::Stale);
    }
    let mut trailer = [0u8; TRAILER_BYTES as usize];
    read_exact_at(&file, &mut trailer, size - TRAILER_BYTES)?;
    let number = |at: usize| u64::from_le_bytes(trailer[at..at + 8].try_into().unwrap_or_default());
    let (count, directory_at) = (number(0), number(8));
    let crc = u32::from_le_bytes(trailer[16..20].try_into().unwrap_or_default());
    if &trailer[24..] != MAGIC {
        return Err(LoadError::Malformed("trailer"));
    }
    // Checked before allocating: the directory must fit between the records and the trailer.
    let directory_bytes = count
        .checked_mul(16)
        .ok_or(LoadError::Malformed("product count"))?;
    if directory_at < HEADER_BYTES
        || directory_at.checked_add(directory_bytes) != Some(size - TRAILER_BYTES)
    {
        return Err(LoadError::Malformed("directory bounds"));
    }
    let count = count as usize;
    let mut pks = vec![0i64; count];
    let mut offsets = vec![0u64; count + 1];
    read_exact_at(&file, bytemuck::cast_slice_mut(&mut pks), directory_at)?;
    read_exact_at(
        &file,
        bytemuck::cast_slice_mut(&mut offsets[..count]),
        directory_at + 8 * count as u64,
    )?;
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(bytemuck::cast_slice(&pks));
    hasher.update(bytemuck::cast_slice(&offsets[..count]));
    if hasher.finalize() != crc {
        return Err(LoadError::Malformed("directory checksum"));
    }
    offsets[count] = directory_at;
    if pks.windows(2).any(|pair| pair[0] >= pair[1]) {
        return Err(LoadError::Malformed("product order"));
    }
    let mut previous = HEADER_BYTES;
    for &offset in &offsets {
        if offset < previous || offset > directory_at {
            return Err(LoadError::Malformed("record offsets"));
        }
        previous = offset;
    }
    if offsets
        .windows(2)
        .any(|pair| pair[1] - pair[0] < 4 || pair[1] - pair[0] > MAX_RECORD_BYTES)
    {
        return Err(LoadError::Malformed("record length"));
    }
    Ok(HitStore {
        file,
        pks,
        offsets,
        cached: AtomicBool::new(false),
    })
}

#[cfg(test)]
mod tests {
    use super::slot_of;

    /// Every key of `pks` is found at its place, and keys around them are not found.
    fn check(pks: &[i64]) {
        for (slot, &pk) in pks.iter().enumerate() {
            assert_eq!(slot_of(pks, pk), Some(slot), "{pk} in {pks:?}");
        }
        let probes = pks
            .iter()
            .flat_map(|&pk| [pk.saturating_sub(1), pk.saturating_add(1)])
            .chain([i64::MIN, -1, 0, i64::MAX]);
        for probe in probes {
            assert_eq!(
                slot_of(pks, probe),
                pks.binary_search(&probe).ok(),
                "{probe} in {pks:?}"
            );
        }
    }

    #[test]
    fn keys_are_found_with_and_without_gaps_and_absent_keys_are_not() {
        check(&[]);
        check(&[7]);
        check(&(1..=1000).collect::<Vec<_>>());
        // Deleted products: gaps at the start, in the middle and at the end.
        check(&[3, 4, 5, 9, 10, 11, 12, 40, 41, 1_000_000]);
        check(&(1..=1000).filter(|pk| pk % 7 != 0).collect::<Vec<_>>());
        // Keys far apart, the differences past what an `i64` holds.
        check(&[i64::MIN, -3, 0, 5, i64::MAX]);
        check(&[-10, -9, -8, i64::MAX - 1, i64::MAX]);
    }
}
