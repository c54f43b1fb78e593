//! A merge from start to finish: the new base built (module `merge`), saved as the next
//! generation with the hits of every product written live, and committed: the writes made
//! meanwhile moved to the next log, the manifest switched, the new pair swapped in.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use super::held::held_record;
use super::log::Log;
use super::manifest::{Generation, remove_other_generations};
use super::replay::Replay;
use super::shared::Shared;
use super::updater::{Writer, lock};
use super::{LiveError, Snapshot};
use crate::search::hits::overlay;
use crate::search::{SearchIndex, persist};

/// See [`LiveIndex::merge_now`](super::LiveIndex::merge_now).
pub(super) fn merge(shared: &Shared) -> Result<bool, LiveError> {
    let _one_at_a_time = lock(&shared.merger.one_at_a_time);
    let (snapshot, generation, log_at) = {
        let writer = shared.updater.lock();
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
    let next = Generation::new(folder, &shared.identity, generation + 1);
    let base = &snapshot.base;
    let merged = super::merge::merged(base, base.live_support(), &snapshot.segment)?;
    let path = next.base_path();
    persist::save(&merged, &path, &next.files).map_err(|err| LiveError::io(&path, err))?;
    // Served as read back from its file, as the next start will: the build's many grown lists
    // are returned at once and what is served is the saved bytes exactly (resident after
    // 100,000 writes and two merges, `benches/search_live.rs`: 621 MB against 659 MB serving
    // the built one, one run each).
    drop(merged);
    let merged = persist::load(&path, &next.files).map_err(|err| LiveError::Damaged {
        path: path.clone(),
        what: match err {
            persist::LoadError::Io(_) => "the merged base could not be read back",
            _ => "the merged base did not read back whole",
        },
    })?;
    let hits = next.hits_path();
    write_overlay(&snapshot, &merged, &hits, &next.files)?;
    if let Some(pause) = shared.config.merge_pause {
        std::thread::sleep(pause);
    }
    merged.live_support().kept_names(&merged);
    let merged = Arc::new(merged);

    // The writes made meanwhile go to the next log, then the manifest switches generations.
    let mut writer = shared.updater.lock();
    let path = next.log_path();
    let tail = writer
        .log
        .bytes_from(log_at)
        .map_err(|err| LiveError::io(&path, err))?;
    let mut log = Log::create(&path, &next.files).map_err(|err| LiveError::io(&path, err))?;
    log.append_raw(&tail)
        .and_then(|()| log.sync())
        .map_err(|err| LiveError::io(&path, err))?;
    drop(log);
    let mut replay = Replay::new(&merged);
    let log = Log::open(&path, &next.files, |record| {
        replay.add(record);
        Ok(())
    })?
    .ok_or_else(|| LiveError::Damaged {
        path: path.clone(),
        what: "the new write log is gone",
    })?;
    let segment = replay.finish();
    let store =
        overlay::open_records(&hits, &next.files).map_err(|err| LiveError::io(&hits, err))?;
    next.switch_to(&shared.identity)?;
    *writer = Writer {
        log,
        generation: next.number,
    };
    shared.current.store(Arc::new(Snapshot {
        base: Arc::clone(&merged),
        segment,
        overlay: Some(Arc::new(store)),
    }));
    drop(writer);
    remove_other_generations(folder, next.number);
    tracing::info!(
        generation = next.number,
        products = merged.len(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "live index merged"
    );
    Ok(true)
}

/// Writes the hits of every product written so far that `merged` holds, each as the index
/// holds it (module `held`).
fn write_overlay(
    snapshot: &Snapshot,
    merged: &SearchIndex,
    path: &Path,
    identity: &[u8; 32],
) -> Result<(), LiveError> {
    let segment = &snapshot.segment;
    let mut written: BTreeSet<i64> = segment.base_hits.keys().copied().collect();
    if let Some(store) = &snapshot.overlay {
        written.extend(store.product_keys());
    }
    written.extend(
        segment
            .by_pk
            .iter()
            .filter(|&(_, &slot)| segment.doc(slot).is_some())
            .map(|(&pk, _)| pk),
    );
    let held = &merged.live_support().doc_of_pk;
    let overlay_store = snapshot.overlay.as_deref();
    let records = written
        .into_iter()
        .filter(|pk| held.get(*pk).is_some())
        .map(|pk| {
            held_record(segment, overlay_store, pk)
                .map(|record| (pk, record))
                .map_err(|err| std::io::Error::other(err.to_string()))
        });
    let mut staged = crate::durable::stage(path).map_err(|err| LiveError::io(path, err))?;
    overlay::write_records(staged.file(), identity, records)
        .and_then(|()| staged.commit())
        .map_err(|err| LiveError::io(path, err))
}
