//! [`LiveIndex`]: its generations on disk, its writes, its searches and its merges.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use arc_swap::ArcSwap;
use sha2::{Digest, Sha256};

use super::encode::stored_record;
use super::log::{Kind, Log};
use super::product::LiveProduct;
use super::replay::Replay;
use super::segment::{Segment, analyze};
use super::view::View;
use super::writes::{
    WriteOutcome, delete, held_hit, holds, read_hit, replace, set_hit, unchanged, write_overlay,
    written_hit,
};
use super::{LiveError, LiveQuery, Snapshot};
use crate::model::Country;
use crate::search::gtins::GtinLookup;
use crate::search::hits::{HitError, overlay, write_record};
use crate::search::{HitStore, SearchError, SearchIndex, SearchOutcome, SearchRequest, persist};

/// When a live index folds its segment into a new base.
#[derive(Debug, Clone)]
pub struct LiveConfig {
    /// A merge starts once the live products and the base products they replaced or deleted
    /// number at least this many...
    pub merge_min_changes: usize,
    /// ...and at least the base's products divided by this.
    pub merge_base_share: usize,
    /// Whether a thread of the index merges on its own (at a lower CPU priority); else only
    /// [`LiveIndex::merge_now`] does.
    pub background_merges: bool,
    /// A pause in the middle of each merge, after the new base is written and before it is
    /// switched to (tests kill a process there).
    #[doc(hidden)]
    pub merge_pause: Option<Duration>,
}

impl Default for LiveConfig {
    fn default() -> Self {
        Self {
            merge_min_changes: 20_000,
            merge_base_share: 16,
            background_merges: true,
            merge_pause: None,
        }
    }
}

/// A live index's sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveStats {
    /// Merges since the catalogue's index (the generation of the base in force).
    pub generation: u64,
    /// Products of the base.
    pub base_products: usize,
    /// Products written since the base (the live segment).
    pub live_products: usize,
    /// Base products replaced or deleted since.
    pub replaced: usize,
    /// Products searched (base and live, less those replaced or deleted).
    pub products: usize,
    /// Bytes of the write log.
    pub log_bytes: u64,
    /// Writes applied since the index was opened.
    pub writes: u64,
}

/// A search index that takes products while it serves (see module `live`). `Send + Sync`:
/// searches from any number of threads, writes from any (serialized).
pub struct LiveIndex {
    shared: Arc<Shared>,
    merger: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for LiveIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveIndex")
            .field("folder", &self.shared.folder)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

struct Shared {
    current: ArcSwap<Snapshot>,
    writer: Mutex<Writer>,
    folder: PathBuf,
    /// The identity of generation 0's base (the catalogue's, for [`LiveIndex::open`]).
    identity: [u8; 32],
    config: LiveConfig,
    /// One merge at a time.
    merging: Mutex<()>,
    signal: (Mutex<Signal>, Condvar),
    writes: AtomicU64,
    merge_failed: AtomicBool,
}

struct Writer {
    log: Log,
    generation: u64,
}

#[derive(Default)]
struct Signal {
    wanted: bool,
    stop: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock left the value whole (each change is one assignment).
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The identity the files of generation `generation` are made for.
fn identity_of(identity: &[u8; 32], generation: u64) -> [u8; 32] {
    if generation == 0 {
        return *identity;
    }
    let mut hasher = Sha256::new();
    hasher.update(b"solescope live index generation");
    hasher.update(identity);
    hasher.update(generation.to_le_bytes());
    hasher.finalize().into()
}

fn base_path(folder: &Path, generation: u64) -> PathBuf {
    folder.join(format!("base-{generation}.search-index"))
}

fn hits_path(folder: &Path, generation: u64) -> PathBuf {
    folder.join(format!("hits-{generation}.search-hits"))
}

fn log_path(folder: &Path, generation: u64) -> PathBuf {
    folder.join(format!("log-{generation}.search-log"))
}

const MANIFEST: &str = "MANIFEST";
const MANIFEST_HEAD: &str = "solescope live index 1";

/// The manifest's identity and generation, when there is a readable one.
fn read_manifest(folder: &Path) -> Option<([u8; 32], u64)> {
    let text = std::fs::read_to_string(folder.join(MANIFEST)).ok()?;
    let mut lines = text.lines();
    if lines.next()? != MANIFEST_HEAD {
        return None;
    }
    let identity = lines.next()?.strip_prefix("identity ")?;
    let generation = lines.next()?.strip_prefix("generation ")?.parse().ok()?;
    let mut bytes = [0u8; 32];
    if identity.len() != 64 {
        return None;
    }
    for (at, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(identity.get(2 * at..2 * at + 2)?, 16).ok()?;
    }
    Some((bytes, generation))
}

/// Switches the folder to `generation` (atomically and durably: module `durable`).
fn write_manifest(folder: &Path, identity: &[u8; 32], generation: u64) -> Result<(), LiveError> {
    let hex = identity.iter().fold(String::new(), |mut hex, byte| {
        use std::fmt::Write as _;
        let _ = write!(hex, "{byte:02x}");
        hex
    });
    let text = format!("{MANIFEST_HEAD}\nidentity {hex}\ngeneration {generation}\n");
    let path = folder.join(MANIFEST);
    crate::durable::write_bytes(&path, text.as_bytes()).map_err(|err| LiveError::io(&path, err))
}

/// Removes the folder's files of every generation but `keep`.
fn remove_other_generations(folder: &Path, keep: u64) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let generation = ["base-", "hits-", "log-"]
            .iter()
            .find_map(|prefix| name.strip_prefix(prefix))
            .and_then(|rest| rest.split('.').next())
            .and_then(|number| number.parse::<u64>().ok());
        if generation.is_some_and(|generation| generation != keep)
            && let Err(err) = std::fs::remove_file(entry.path())
        {
            tracing::warn!(path = %entry.path().display(), "live index: old file not removed: {err}");
        }
    }
}

impl LiveIndex {
    /// The live index folder kept beside `catalogue`: `<catalogue>.search-live`.
    pub fn folder_for(catalogue: &Path) -> PathBuf {
        let mut name = catalogue.file_name().unwrap_or_default().to_os_string();
        name.push(".search-live");
        catalogue.with_file_name(name)
    }

    /// The live index of the catalogue at `catalogue` (open as `conn`), in
    /// [`folder_for`](Self::folder_for): the last merged base and the writes since, read back;
    /// or, the first time and whenever the catalogue file changed, the catalogue's index
    /// ([`SearchIndex::open`]) with no write yet (the writes made over the catalogue as it was
    /// are dropped then: their owner writes them again).
    pub fn open(
        catalogue: &Path,
        conn: &rusqlite::Connection,
        config: LiveConfig,
    ) -> Result<LiveIndex, LiveError> {
        let identity =
            persist::catalogue_identity(catalogue).map_err(|err| LiveError::io(catalogue, err))?;
        Self::open_in(
            &Self::folder_for(catalogue),
            identity,
            || Ok(SearchIndex::open(catalogue, conn)?.0),
            config,
        )
    }

    /// The live index kept in `folder` over the base `base` makes, which `identity` names (a
    /// different identity drops what the folder kept): the last merged base and the writes
    /// since, read back, or `base()` and the writes since it. `base` is called only when the
    /// folder holds no merged base of that identity.
    pub fn open_in(
        folder: &Path,
        identity: [u8; 32],
        base: impl FnOnce() -> Result<SearchIndex, LiveError>,
        config: LiveConfig,
    ) -> Result<LiveIndex, LiveError> {
        Self::open_shared(folder, identity, || base().map(Arc::new), config)
    }

    /// [`open_in`](Self::open_in) over a base the caller keeps serving too (the local
    /// catalogue's index, when store-only products join it): no second copy of it is made
    /// until a merge folds the live products in.
    pub fn open_over(
        folder: &Path,
        identity: [u8; 32],
        base: Arc<SearchIndex>,
        config: LiveConfig,
    ) -> Result<LiveIndex, LiveError> {
        Self::open_shared(folder, identity, || Ok(base), config)
    }

    fn open_shared(
        folder: &Path,
        identity: [u8; 32],
        base: impl FnOnce() -> Result<Arc<SearchIndex>, LiveError>,
        config: LiveConfig,
    ) -> Result<LiveIndex, LiveError> {
        std::fs::create_dir_all(folder).map_err(|err| LiveError::io(folder, err))?;
        let mut generation = match read_manifest(folder) {
            Some((kept, generation)) if kept == identity => generation,
            Some(_) => {
                tracing::warn!(folder = %folder.display(), "live index: made over another state of its base; its writes are dropped");
                remove_other_generations(folder, u64::MAX);
                0
            }
            None => 0,
        };
        let mut overlay = None;
        let mut merged = None;
        if generation > 0 {
            let files = identity_of(&identity, generation);
            let path = base_path(folder, generation);
            match persist::load(&path, &files) {
                Ok(index) => {
                    merged = Some(index);
                    let hits = hits_path(folder, generation);
                    match overlay::open_records(&hits, &files) {
                        Ok(store) => overlay = Some(Arc::new(store)),
                        Err(err) => {
                            tracing::error!(path = %hits.display(), "live index: the hits of its products are not read: {err}");
                        }
                    }
                }
                Err(err) => {
                    tracing::error!(path = %path.display(), "live index: its base is unreadable, starting over from the catalogue's (its products must be written again): {err}");
                    remove_other_generations(folder, u64::MAX);
                    generation = 0;
                }
            }
        }
        let base = match merged {
            Some(index) => Arc::new(index),
            None => base()?,
        };
        let files = identity_of(&identity, generation);
        let path = log_path(folder, generation);
        let mut replay = Replay::new(&base);
        let log = Log::open(&path, &files, |record| {
            replay.add(record);
            Ok(())
        });
        let (log, segment) = match log {
            Ok(Some(log)) => (log, replay.finish()),
            Ok(None) => (
                Log::create(&path, &files).map_err(|err| LiveError::io(&path, err))?,
                Segment::default(),
            ),
            Err(LiveError::Damaged { path, what }) => {
                tracing::error!(path = %path.display(), "live index: write log not used ({what}); its writes must be made again");
                (
                    Log::create(&path, &files).map_err(|err| LiveError::io(&path, err))?,
                    Segment::default(),
                )
            }
            Err(err) => return Err(err),
        };
        write_manifest(folder, &identity, generation)?;
        remove_other_generations(folder, generation);
        tracing::info!(
            generation,
            base_products = base.len(),
            live_products = segment.alive,
            replaced = segment.dead_count,
            "live index open"
        );
        let shared = Arc::new(Shared {
            current: ArcSwap::from_pointee(Snapshot {
                base,
                segment,
                overlay,
            }),
            writer: Mutex::new(Writer { log, generation }),
            folder: folder.to_path_buf(),
            identity,
            config,
            merging: Mutex::new(()),
            signal: (Mutex::new(Signal::default()), Condvar::new()),
            writes: AtomicU64::new(0),
            merge_failed: AtomicBool::new(false),
        });
        let merging_thread = shared.config.background_merges.then(|| {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("live-index-merge".into())
                .spawn(move || merge_when_wanted(&shared))
        });
        let merge_thread = match merging_thread.transpose() {
            Ok(thread) => thread,
            Err(err) => {
                tracing::error!("live index: no merging thread, merges wait for merge_now: {err}");
                None
            }
        };
        // What searches over a live segment read of the base, made off the caller's thread.
        let warm = Arc::clone(&shared.current.load().base);
        let warmed = std::thread::Builder::new()
            .name("live-index-warm".into())
            .spawn(move || {
                lower_priority();
                warm.live_support().kept_names(&warm);
            });
        if let Err(err) = warmed {
            tracing::debug!("live index: made on first use instead: {err}");
        }
        let index = LiveIndex {
            shared,
            merger: merge_thread,
        };
        index.signal_if_due();
        Ok(index)
    }

    /// Runs one search over the base and the live segment (as [`SearchIndex::search`] over
    /// one index of the same products). Pure CPU: no lock a write holds is waited on.
    pub fn search(&self, request: &SearchRequest<'_>) -> Result<SearchOutcome, SearchError> {
        let snapshot = self.shared.current.load();
        search_over(&snapshot.base, &snapshot.segment, request)
    }

    /// Appends the JSON of product `pk`'s search hit, as the hit store writes it, when the
    /// product was written to this index (since the catalogue's index); else
    /// [`HitError::Unknown`], and the caller writes it from the catalogue's hit store.
    pub fn write_hit(
        &self,
        pk: i64,
        country: Country,
        full: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), HitError> {
        let snapshot = self.shared.current.load();
        if let Some(loc) = written_hit(&snapshot.segment, pk) {
            let record = read_hit(&loc)?;
            return write_record(pk, &record, country, full, out);
        }
        match &snapshot.overlay {
            Some(store) => store.write_hit(pk, country, full, out),
            None => Err(HitError::Unknown(pk)),
        }
    }

    /// Writes `product`: added, or replacing the product of its key (its hit alone when its
    /// index fields are unchanged; nothing when its hit is too, [`WriteOutcome::Unchanged`]).
    /// Durable (the write log synced) and searchable when it returns. A product the index
    /// cannot take is refused whole ([`LiveProduct::check`]).
    pub fn upsert(&self, product: &LiveProduct) -> Result<WriteOutcome, LiveError> {
        let outcomes = self.upsert_many(std::slice::from_ref(product))?;
        Ok(outcomes.first().copied().unwrap_or(WriteOutcome::Added))
    }

    /// Writes `products` in order, with one sync of the log for all of them, and makes them
    /// searchable together. Refused whole when any is refused.
    pub fn upsert_many(&self, products: &[LiveProduct]) -> Result<Vec<WriteOutcome>, LiveError> {
        for product in products {
            product.check()?;
        }
        self.write(|(base, overlay), segment, log| {
            let mut outcomes = Vec::with_capacity(products.len());
            for product in products {
                let fields = product.index_fields();
                let analyzed = analyze(base, &fields);
                let hit = stored_record(product);
                let outcome = if !unchanged(base, segment, &fields, &analyzed) {
                    let loc = log.append(Kind::Product, product.pk, Some(&fields), Some(&hit))?;
                    replace(base, segment, &fields, analyzed, loc)
                } else if held_hit(segment, overlay, product.pk).as_deref() == Some(&hit[..]) {
                    WriteOutcome::Unchanged
                } else {
                    let loc = log.append(Kind::Hit, product.pk, None, Some(&hit))?;
                    set_hit(base, segment, product.pk, loc);
                    WriteOutcome::HitOnly
                };
                outcomes.push(outcome);
            }
            Ok(outcomes)
        })
    }

    /// Deletes the product of key `pk`; [`WriteOutcome::Absent`] when the index holds none.
    pub fn delete(&self, pk: i64) -> Result<WriteOutcome, LiveError> {
        let outcomes = self.delete_many(&[pk])?;
        Ok(outcomes.first().copied().unwrap_or(WriteOutcome::Absent))
    }

    /// Deletes the products of keys `pks`, with one sync of the log for all of them (a
    /// store's list that lost hundreds of products); each [`WriteOutcome::Deleted`], or
    /// [`WriteOutcome::Absent`] when the index holds none of that key.
    pub fn delete_many(&self, pks: &[i64]) -> Result<Vec<WriteOutcome>, LiveError> {
        self.write(|(base, _), segment, log| {
            let mut outcomes = Vec::with_capacity(pks.len());
            for &pk in pks {
                if !holds(base, segment, pk) {
                    outcomes.push(WriteOutcome::Absent);
                    continue;
                }
                log.append(Kind::Delete, pk, None, None)?;
                delete(base, segment, pk);
                outcomes.push(WriteOutcome::Deleted);
            }
            Ok(outcomes)
        })
    }

    /// One write: `change` under the writer's lock on a copy of the segment (over the base
    /// and the hits of the last merge), the log synced, then the copy swapped in. On an error
    /// nothing is swapped in and the log is cut back; when `change` appended nothing, nothing
    /// is synced nor swapped in.
    fn write<T>(
        &self,
        change: impl FnOnce(
            (&SearchIndex, Option<&HitStore>),
            &mut Segment,
            &mut Log,
        ) -> Result<T, std::io::Error>,
    ) -> Result<T, LiveError> {
        let mut writer = lock(&self.shared.writer);
        let current = self.shared.current.load_full();
        let base = &current.base;
        let held = base.len() + current.segment.slots.len();
        if held >= u32::MAX as usize / 2 {
            return Err(LiveError::Full { count: held });
        }
        let mut segment = current.segment.clone();
        let start = writer.log.end();
        let path = log_path(&self.shared.folder, writer.generation);
        let changed = change(
            (base, current.overlay.as_deref()),
            &mut segment,
            &mut writer.log,
        );
        let changed = match changed {
            Ok(value) if writer.log.end() == start => return Ok(value),
            changed => changed.and_then(|value| writer.log.sync().map(|()| value)),
        };
        let value = match changed {
            Ok(value) => value,
            Err(err) => {
                if let Err(cut) = writer.log.cut_back(start) {
                    tracing::error!(path = %path.display(), "live index: a failed write stays in the log: {cut}");
                }
                return Err(LiveError::io(&path, err));
            }
        };
        self.shared.current.store(Arc::new(Snapshot {
            base: Arc::clone(base),
            segment,
            overlay: current.overlay.clone(),
        }));
        drop(writer);
        self.shared.writes.fetch_add(1, Ordering::Relaxed);
        self.signal_if_due();
        Ok(value)
    }

    /// Wakes the merging thread when the segment is due for a merge.
    fn signal_if_due(&self) {
        if !self.shared.config.background_merges || !self.merge_due() {
            return;
        }
        let (signal, wake) = &self.shared.signal;
        lock(signal).wanted = true;
        wake.notify_one();
    }

    /// Whether the segment holds enough changes for a merge ([`LiveConfig`]).
    pub fn merge_due(&self) -> bool {
        due(&self.shared)
    }

    /// Folds the live segment into a new base now, on this thread: saved, then swapped in with
    /// the writes made meanwhile. Searches go on meanwhile; writes wait only for the swap.
    /// `false` when there was nothing to merge.
    pub fn merge_now(&self) -> Result<bool, LiveError> {
        merge(&self.shared)
    }

    /// The base in force (tests look into it).
    #[cfg(test)]
    pub(crate) fn base(&self) -> Arc<SearchIndex> {
        Arc::clone(&self.shared.current.load().base)
    }

    /// The index's sizes now.
    pub fn stats(&self) -> LiveStats {
        let snapshot = self.shared.current.load();
        let writer = lock(&self.shared.writer);
        let segment = &snapshot.segment;
        LiveStats {
            generation: writer.generation,
            base_products: snapshot.base.len(),
            live_products: segment.alive,
            replaced: segment.dead_count,
            products: snapshot.base.len() - segment.dead_count + segment.alive,
            log_bytes: writer.log.end(),
            writes: self.shared.writes.load(Ordering::Relaxed),
        }
    }

    /// Whether the last merge failed (it is tried again on the next write; the reason was
    /// logged).
    pub fn merge_failed(&self) -> bool {
        self.shared.merge_failed.load(Ordering::Relaxed)
    }
}

impl Drop for LiveIndex {
    fn drop(&mut self) {
        let (signal, wake) = &self.shared.signal;
        lock(signal).stop = true;
        wake.notify_all();
        if let Some(merger) = self.merger.take()
            && merger.join().is_err()
        {
            tracing::error!("live index: the merging thread panicked");
        }
    }
}

fn due(shared: &Shared) -> bool {
    let snapshot = shared.current.load();
    let changes = snapshot.segment.alive + snapshot.segment.dead_count;
    let share = snapshot.base.len() / shared.config.merge_base_share.max(1);
    changes > 0 && changes >= shared.config.merge_min_changes.max(share)
}

/// The merging thread: waits to be woken, merges, until stopped.
fn merge_when_wanted(shared: &Shared) {
    lower_priority();
    let (signal, wake) = &shared.signal;
    loop {
        {
            let mut state = lock(signal);
            while !state.wanted && !state.stop {
                state = wake
                    .wait(state)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
            if state.stop {
                return;
            }
            state.wanted = false;
        }
        if !due(shared) {
            continue;
        }
        match merge(shared) {
            Ok(_) => shared.merge_failed.store(false, Ordering::Relaxed),
            Err(err) => {
                shared.merge_failed.store(true, Ordering::Relaxed);
                tracing::error!("live index: merge failed, the segment stays as it is: {err}");
            }
        }
    }
}

/// Merges run beside searches at nice 10 (Linux): they yield the cores to the searches.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    if let Err(err) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 10) {
        tracing::debug!("live index merges at normal CPU priority: {err}");
    }
}

/// See [`LiveIndex::merge_now`].
fn merge(shared: &Shared) -> Result<bool, LiveError> {
    let _one_at_a_time = lock(&shared.merging);
    let (snapshot, generation, log_at) = {
        let writer = lock(&shared.writer);
        (
            shared.current.load_full(),
            writer.generation,
            writer.log.end(),
        )
    };
    if snapshot.segment.is_empty() {
        return Ok(false);
    }
    let started = std::time::Instant::now();
    let folder = &shared.folder;
    let next = generation + 1;
    let files = identity_of(&shared.identity, next);
    let base = &snapshot.base;
    let merged = super::merge::merged(base, base.live_support(), &snapshot.segment)?;
    let path = base_path(folder, next);
    persist::save(&merged, &path, &files).map_err(|err| LiveError::io(&path, err))?;
    // Served as read back from its file, as the next start will: the build's many grown lists
    // are returned at once and what is served is the saved bytes exactly (resident after
    // 100,000 writes and two merges, `benches/search_live.rs`: 621 MB against 659 MB serving
    // the built one, one run each).
    drop(merged);
    let merged = persist::load(&path, &files).map_err(|err| LiveError::Damaged {
        path: path.clone(),
        what: match err {
            persist::LoadError::Io(_) => "the merged base could not be read back",
            _ => "the merged base did not read back whole",
        },
    })?;
    let hits = hits_path(folder, next);
    write_overlay(&snapshot, &merged, &hits, &files)?;
    if let Some(pause) = shared.config.merge_pause {
        std::thread::sleep(pause);
    }
    merged.live_support().kept_names(&merged);
    let merged = Arc::new(merged);

    // The writes made meanwhile go to the next log, then the manifest switches generations.
    let mut writer = lock(&shared.writer);
    let path = log_path(folder, next);
    let tail = writer
        .log
        .bytes_from(log_at)
        .map_err(|err| LiveError::io(&path, err))?;
    let mut log = Log::create(&path, &files).map_err(|err| LiveError::io(&path, err))?;
    log.append_raw(&tail)
        .and_then(|()| log.sync())
        .map_err(|err| LiveError::io(&path, err))?;
    drop(log);
    let mut replay = Replay::new(&merged);
    let log = Log::open(&path, &files, |record| {
        replay.add(record);
        Ok(())
    })?
    .ok_or_else(|| LiveError::Damaged {
        path: path.clone(),
        what: "the new write log is gone",
    })?;
    let segment = replay.finish();
    let store = overlay::open_records(&hits, &files).map_err(|err| LiveError::io(&hits, err))?;
    write_manifest(folder, &shared.identity, next)?;
    *writer = Writer {
        log,
        generation: next,
    };
    shared.current.store(Arc::new(Snapshot {
        base: Arc::clone(&merged),
        segment,
        overlay: Some(Arc::new(store)),
    }));
    drop(writer);
    remove_other_generations(folder, next);
    tracing::info!(
        generation = next,
        products = merged.len(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "live index merged"
    );
    Ok(true)
}

/// One search over `base` and `segment` (the base alone when the segment changes nothing).
fn search_over(
    base: &SearchIndex,
    segment: &Segment,
    request: &SearchRequest<'_>,
) -> Result<SearchOutcome, SearchError> {
    if segment.is_empty() {
        return base.search(request);
    }
    crate::search::check_length(request)?;
    let view = View {
        base,
        support: base.live_support(),
        segment,
    };
    let mut live = LiveQuery::new(view);
    let mut scratch = base.take_scratch();
    let outcome = if let Some(map) = base.codes.gtins.map() {
        Ok(crate::search::query::run_over(
            base,
            &mut scratch,
            request,
            &GtinLookup::Map(map),
            Some(&mut live),
        ))
    } else {
        let asked = std::cell::RefCell::default();
        let outcome = crate::search::query::run_over(
            base,
            &mut scratch,
            request,
            &GtinLookup::Noting(&asked),
            Some(&mut live),
        );
        if asked.into_inner().is_empty() {
            Ok(outcome)
        } else {
            Err(SearchError::GtinsPending)
        }
    };
    base.return_scratch(scratch);
    outcome
}
