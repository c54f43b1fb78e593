//! [`LiveIndex`], the front of the live index: where a reader starts. It opens the folder
//! (module `manifest`), serves searches over the current (base, segment) pair, hands writes to
//! the updater (module `updater`), and runs merges (modules `merger` and `commit`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arc_swap::ArcSwap;

use super::commit::merge;
use super::edits::WriteOutcome;
use super::held::held_record;
use super::manifest::{Generation, Recovered, recover, remove_other_generations};
use super::merger::{Merger, lower_priority};
use super::product::LiveProduct;
use super::segment::Segment;
use super::shared::{LiveConfig, Shared, due};
use super::updater::{Updater, Writer};
use super::view::View;
use super::{LiveError, LiveQuery, Snapshot};
use crate::search::gtins::GtinLookup;
use crate::search::hits::{HitError, HitFor, write_record};
use crate::search::{SearchError, SearchIndex, SearchOutcome, SearchRequest, persist};

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
    merging_thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for LiveIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveIndex")
            .field("folder", &self.shared.folder)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
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
        let Recovered {
            generation,
            merged,
            overlay,
        } = recover(folder, &identity);
        let base = match merged {
            Some(index) => Arc::new(index),
            None => base()?,
        };
        let kept = Generation::new(folder, &identity, generation);
        let (log, segment) = kept.open_log(&base)?;
        kept.switch_to(&identity)?;
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
            updater: Updater::new(Writer { log, generation }, folder.to_path_buf(), identity),
            merger: Merger::default(),
            folder: folder.to_path_buf(),
            identity,
            config,
        });
        let merging_thread = shared.config.background_merges.then(|| {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("live-index-merge".into())
                .spawn(move || shared.merger.run(|| due(&shared).then(|| merge(&shared))))
        });
        let merging_thread = match merging_thread.transpose() {
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
            merging_thread,
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

    /// Appends the JSON of product `pk`'s search hit for `asker`, as the hit store writes it,
    /// when the product was written to this index (since the catalogue's index); else
    /// [`HitError::Unknown`], and the caller writes it from the catalogue's hit store.
    pub fn write_hit(&self, pk: i64, asker: HitFor, out: &mut Vec<u8>) -> Result<(), HitError> {
        let snapshot = self.shared.current.load();
        let record = held_record(&snapshot.segment, snapshot.overlay.as_deref(), pk)?;
        write_record(pk, &record, asker, out)
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
        let (outcomes, written) = self
            .shared
            .updater
            .upsert_many(&self.shared.current, products)?;
        if written {
            self.signal_if_due();
        }
        Ok(outcomes)
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
        let (outcomes, written) = self.shared.updater.delete_many(&self.shared.current, pks)?;
        if written {
            self.signal_if_due();
        }
        Ok(outcomes)
    }

    /// Wakes the merging thread when the segment is due for a merge.
    fn signal_if_due(&self) {
        if self.shared.config.background_merges && self.merge_due() {
            self.shared.merger.want();
        }
    }

    /// Whether the segment holds enough changes for a merge ([`LiveConfig::merge_policy`]).
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
        let writer = self.shared.updater.lock();
        let segment = &snapshot.segment;
        LiveStats {
            generation: writer.generation,
            base_products: snapshot.base.len(),
            live_products: segment.alive,
            replaced: segment.dead_count,
            products: snapshot.base.len() - segment.dead_count + segment.alive,
            log_bytes: writer.log.end(),
            writes: self.shared.updater.writes(),
        }
    }

    /// Whether the last merge failed (it is tried again on the next write; the reason was
    /// logged).
    pub fn merge_failed(&self) -> bool {
        self.shared.merger.failed()
    }
}

impl Drop for LiveIndex {
    fn drop(&mut self) {
        self.shared.merger.stop();
        if let Some(thread) = self.merging_thread.take()
            && thread.join().is_err()
        {
            tracing::error!("live index: the merging thread panicked");
        }
    }
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
