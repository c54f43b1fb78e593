//! When a live index merges: the merge policy, and the merging thread's side: its wake-up, one
//! merge at a time, whether the last one failed (module `commit` does the merge itself).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

use super::LiveError;
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

    /// The merging thread: waits to be woken, then runs `merge_if_due` (`None` when no merge
    /// was due), until stopped. A failed merge is logged and noted; the segment stays as it is
    /// and the next write wakes the thread again.
    pub(super) fn run(&self, mut merge_if_due: impl FnMut() -> Option<Result<bool, LiveError>>) {
        lower_priority();
        loop {
            {
                let mut state = lock(&self.signal);
                while !state.wanted && !state.stop {
                    state = self
                        .wake
                        .wait(state)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                if state.stop {
                    return;
                }
                state.wanted = false;
            }
            match merge_if_due() {
                None => {}
                Some(Ok(_)) => self.failed.store(false, Ordering::Relaxed),
                Some(Err(err)) => {
                    self.failed.store(true, Ordering::Relaxed);
                    tracing::error!("live index: merge failed, the segment stays as it is: {err}");
                }
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
