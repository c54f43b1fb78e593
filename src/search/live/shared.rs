//! What the parts of a live index share: how it runs ([`LiveConfig`]), the pair searches run
//! over, the updater, the merging side and the folder; and whether a merge is due.

use std::path::PathBuf;

use arc_swap::ArcSwap;

use super::Snapshot;
use super::merger::{MergePolicy, Merger};
use super::updater::Updater;

/// How a live index runs.
#[derive(Debug, Clone)]
pub struct LiveConfig {
    /// When the live segment is folded into a new base.
    pub merge_policy: MergePolicy,
    /// Whether a thread of the index merges on its own (at a lower CPU priority); else only
    /// [`LiveIndex::merge_now`](super::LiveIndex::merge_now) does.
    pub background_merges: bool,
    /// A pause in the middle of each merge, after the new base is written and before it is
    /// switched to (tests kill a process there).
    #[doc(hidden)]
    pub merge_pause: Option<std::time::Duration>,
}

impl Default for LiveConfig {
    fn default() -> Self {
        Self {
            merge_policy: MergePolicy::default(),
            background_merges: true,
            merge_pause: None,
        }
    }
}

/// What the front, the updater's callers and a merge share.
pub(super) struct Shared {
    /// The pair searches run over; the updater and a merge's commit swap in the next.
    pub(super) current: ArcSwap<Snapshot>,
    pub(super) updater: Updater,
    pub(super) merger: Merger,
    pub(super) folder: PathBuf,
    /// The identity of generation 0's base (the catalogue's, for [`LiveIndex::open`](super::LiveIndex::open)).
    pub(super) identity: [u8; 32],
    pub(super) config: LiveConfig,
}

/// Whether the index's segment is due for a merge ([`MergePolicy`]).
pub(super) fn due(shared: &Shared) -> bool {
    let snapshot = shared.current.load();
    let changes = snapshot.segment.alive + snapshot.segment.dead_count;
    shared.config.merge_policy.due(snapshot.base.len(), changes)
}
