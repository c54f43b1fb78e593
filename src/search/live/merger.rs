//! When a live index merges: the merge policy, and the thread that merges in the background
//! when the policy says a merge is due (module `commit` does the merge itself).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

use super::commit::merge;
use super::index::Shared;
use super::updater::lock;

/// When the live segment is folded into a new base: once the live products and the base
/// products they replaced or deleted number at least [`min_changes`](Self::min_changes) and a
/// [`base_share`](Self::base_share)th of the base. A merge builds the new base beside the old
/// one (both in memory until the swap: some 2x the index's memory at its peak), so it is rare by
/// design; writes wait only for the swap (the writes made meanwhile are replayed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergePolicy {
    /// Changes (live products, and base products replaced or deleted) a merge waits for...
    pub min_changes: usize,
    /// ...and at least the base's products divided by this.
    pub base_share: usize,
}

impl Default for MergePolicy {
    fn default() -> Self {
        Self {
            min_changes: 20_000,
            base_share: 16,
        }
    }
}

impl MergePolicy {
    /// Whether `changes` over a base of `base_products` call for a merge.
    #[must_use]
    pub fn due(&self, base_products: usize, changes: usize) -> bool {
        let share = base_products / self.base_share.max(1);
        changes > 0 && changes >= self.min_changes.max(share)
    }
}

/// The merging side of a live index: one merge at a time, the background thread's wake-up,
/// and whether the last merge failed.
#[derive(Default)]
pub(super) struct Merger {
    /// Held for the length of a merge.
    pub(super) one_at_a_time: Mutex<()>,
    signal: Mutex<Signal>,
    wake: Condvar,
    failed: AtomicBool,
}

#[derive(Default)]
struct Signal {
    wanted: bool,
    stop: bool,
}

impl Merger {
    /// Wakes the merging thread.
    pub(super) fn want(&self) {
        lock(&self.signal).wanted = true;
        self.wake.notify_one();
    }

    /// Ends the merging thread after the merge it is in.
    pub(super) fn stop(&self) {
        lock(&self.signal).stop = true;
        self.wake.notify_all();
    }

    /// Whether the last merge failed.
    pub(super) fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }
}

/// Whether the index's segment is due for a merge ([`MergePolicy`]).
pub(super) fn due(shared: &Shared) -> bool {
    let snapshot = shared.current.load();
    let changes = snapshot.segment.alive + snapshot.segment.dead_count;
    shared.config.merge_policy.due(snapshot.base.len(), changes)
}

/// The merging thread: waits to be woken, merges when due, until stopped.
pub(super) fn merge_when_wanted(shared: &Shared) {
    lower_priority();
    let merger = &shared.merger;
    loop {
        {
            let mut state = lock(&merger.signal);
            while !state.wanted && !state.stop {
                state = merger
                    .wake
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
            Ok(_) => merger.failed.store(false, Ordering::Relaxed),
            Err(err) => {
                merger.failed.store(true, Ordering::Relaxed);
                tracing::error!("live index: merge failed, the segment stays as it is: {err}");
            }
        }
    }
}

/// Merges run beside searches at nice 10 (Linux): they yield the cores to the searches.
pub(super) fn lower_priority() {
    #[cfg(target_os = "linux")]
    if let Err(err) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 10) {
        tracing::debug!("live index merges at normal CPU priority: {err}");
    }
}
