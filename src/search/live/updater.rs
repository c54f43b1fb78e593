//! The updater: the one writer of a live index. It owns the writer's lock, the write log of the
//! generation in force, and the step every write takes: the change made on a copy of the
//! segment, the log synced, the copy swapped in for the searches.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use arc_swap::ArcSwap;

use super::edits::{WriteOutcome, delete, holds, replace, set_hit, unchanged};
use super::encode::stored_record;
use super::held::held_record;
use super::log::{Kind, Log};
use super::manifest::Generation;
use super::product::LiveProduct;
use super::segment::{Segment, analyze};
use super::{LiveError, Snapshot};
use crate::search::{HitStore, SearchIndex};

/// The writer's state: the log writes go to, and the generation whose log it is.
pub(super) struct Writer {
    pub(super) log: Log,
    pub(super) generation: u64,
}

/// The live index's one writer (see the module).
pub(super) struct Updater {
    writer: Mutex<Writer>,
    folder: PathBuf,
    identity: [u8; 32],
    /// Writes applied since the index was opened.
    writes: AtomicU64,
}

/// Locks `mutex`, taking over a poisoned one: a panic while holding it left the value whole
/// (each change is one assignment).
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Updater {
    pub(super) fn new(writer: Writer, folder: PathBuf, identity: [u8; 32]) -> Self {
        Self {
            writer: Mutex::new(writer),
            folder,
            identity,
            writes: AtomicU64::new(0),
        }
    }

    /// The writer, for a merge's commit and for the index's sizes.
    pub(super) fn lock(&self) -> MutexGuard<'_, Writer> {
        lock(&self.writer)
    }

    /// Writes applied since the index was opened.
    pub(super) fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }

    /// See [`LiveIndex::upsert_many`](super::LiveIndex::upsert_many); also whether anything was
    /// written.
    pub(super) fn upsert_many(
        &self,
        current: &ArcSwap<Snapshot>,
        products: &[LiveProduct],
    ) -> Result<(Vec<WriteOutcome>, bool), LiveError> {
        for product in products {
            product.check()?;
        }
        self.write(current, |(base, overlay), segment, log| {
            let mut outcomes = Vec::with_capacity(products.len());
            for product in products {
                let fields = product.index_fields();
                let analyzed = analyze(base, &fields);
                let hit = stored_record(product);
                let outcome = if !unchanged(base, segment, &fields, &analyzed) {
                    let loc = log.append(Kind::Product, product.pk, Some(&fields), Some(&hit))?;
                    replace(base, segment, &fields, analyzed, loc)
                } else if held_record(segment, overlay, product.pk).ok().as_deref()
                    == Some(&hit[..])
                {
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

    /// See [`LiveIndex::delete_many`](super::LiveIndex::delete_many); also whether anything was
    /// written.
    pub(super) fn delete_many(
        &self,
        current: &ArcSwap<Snapshot>,
        pks: &[i64],
    ) -> Result<(Vec<WriteOutcome>, bool), LiveError> {
        self.write(current, |(base, _), segment, log| {
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
    /// is synced nor swapped in (then `false`).
    fn write<T>(
        &self,
        current: &ArcSwap<Snapshot>,
        change: impl FnOnce(
            (&SearchIndex, Option<&HitStore>),
            &mut Segment,
            &mut Log,
        ) -> Result<T, std::io::Error>,
    ) -> Result<(T, bool), LiveError> {
        let mut writer = self.lock();
        let now = current.load_full();
        let base = &now.base;
        let held = base.len() + now.segment.slots.len();
        if held >= u32::MAX as usize / 2 {
            return Err(LiveError::Full { count: held });
        }
        let mut segment = now.segment.clone();
        let start = writer.log.end();
        let generation = writer.generation;
        let log_path = || Generation::new(&self.folder, &self.identity, generation).log_path();
        let changed = change(
            (base, now.overlay.as_deref()),
            &mut segment,
            &mut writer.log,
        );
        let changed = match changed {
            Ok(value) if writer.log.end() == start => return Ok((value, false)),
            changed => changed.and_then(|value| writer.log.sync().map(|()| value)),
        };
        let value = match changed {
            Ok(value) => value,
            Err(err) => {
                if let Err(cut) = writer.log.cut_back(start) {
                    tracing::error!(path = %log_path().display(), "live index: a failed write stays in the log: {cut}");
                }
                return Err(LiveError::io(&log_path(), err));
            }
        };
        current.store(Arc::new(Snapshot {
            base: Arc::clone(base),
            segment,
            overlay: now.overlay.clone(),
        }));
        drop(writer);
        self.writes.fetch_add(1, Ordering::Relaxed);
        Ok((value, true))
    }
}
