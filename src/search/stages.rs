//! Where a search's time goes: the path it took through the ranking, and the time of each
//! stage on that path. The bench's `--rank-only` profile prints them per path
//! (`SOLESCOPE_BENCH_STAGES`), which says which stage a change to the ranking has to shrink.
//!
//! Off unless [`record`] turns it on, and the service never does: a stage then costs one
//! relaxed load of a flag. On, each thread keeps the figures of its last search ([`take`]), and
//! a stage costs two clock reads and an update of a thread-local value.
//!
//! Why by hand: with `tracing` spans, this module would still be written, as the subscriber
//! that sums a search's spans by stage and sorts searches by path; without it, what is left is
//! a flag, a clock and a thread-local value.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The way a search went through the ranking (module `query`, `rank`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Path {
    /// Not ranked: no word in the text (popularity order), or nothing within the filters.
    Unranked,
    /// Only rare words: the passes visit the blocks of their postings alone.
    RareWords,
    /// The best bucket held the page (module `candidates`, `top_pass`); no other bucket.
    BestBucket,
    /// The best bucket's pass gave up early, projected too small; the passes over every
    /// bucket followed.
    GaveUp,
    /// The best bucket's pass read every block and the bucket was too small; the passes over
    /// every bucket followed.
    BestBucketShort,
    /// The passes over every bucket without trying the best bucket: the query is filtered,
    /// the code hits hold the page, the page ends past the best bucket's window, or a word
    /// matches no term.
    EveryBucket,
}

impl Path {
    /// Every path, in the order of the profile's table.
    pub const ALL: [Path; 6] = [
        Path::Unranked,
        Path::RareWords,
        Path::BestBucket,
        Path::GaveUp,
        Path::BestBucketShort,
        Path::EveryBucket,
    ];

    /// The path's name in the profile's table.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Path::Unranked => "unranked",
            Path::RareWords => "rare words",
            Path::BestBucket => "best bucket",
            Path::GaveUp => "gave up",
            Path::BestBucketShort => "best short",
            Path::EveryBucket => "every bucket",
        }
    }
}

/// A timed stage of the ranking. The best bucket's window stages are timed on
/// [`Path::BestBucket`] only; on the other paths they are part of [`Stage::Buckets`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Each query word's terms found and its sets built (typo derivations, prefix expansion).
    WordSets,
    /// The best bucket's pass over the blocks (`candidates::top_pass`).
    TopPass,
    /// The best bucket's window collected, in popularity order (`Bucket::collect_window`).
    Window,
    /// The window's first documents scored in order (`bucket::scan_in_order`).
    InOrder,
    /// Every other document of the window given its plain bound.
    Bounds,
    /// Documents scored in order of their plain bound.
    ByBound,
    /// Title sketches read, and documents scored in order of those bounds.
    Sketches,
    /// The first pass over every bucket's blocks (`candidates::first_pass`).
    FirstPass,
    /// Rule 1's counters for the chosen blocks (`candidates::count_pass`).
    CountPass,
    /// Rule 2's counters for the blocks of the buckets the page is taken from
    /// (`query::typo_planes`).
    TypoCounters,
    /// Rules 3-5 of each bucket the page is taken from, every stage of its window together
    /// (`bucket::rank_bucket`).
    Buckets,
}

/// How many stages there are: the last one's index, plus one.
const STAGES: usize = Stage::Buckets as usize + 1;

impl Stage {
    /// Every stage, in the order of the profile's columns.
    pub const ALL: [Stage; STAGES] = [
        Stage::WordSets,
        Stage::TopPass,
        Stage::Window,
        Stage::InOrder,
        Stage::Bounds,
        Stage::ByBound,
        Stage::Sketches,
        Stage::FirstPass,
        Stage::CountPass,
        Stage::TypoCounters,
        Stage::Buckets,
    ];

    /// The stage's column heading in the profile's table.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Stage::WordSets => "word sets",
            Stage::TopPass => "top pass",
            Stage::Window => "window",
            Stage::InOrder => "in order",
            Stage::Bounds => "bounds",
            Stage::ByBound => "by bound",
            Stage::Sketches => "sketches",
            Stage::FirstPass => "first pass",
            Stage::CountPass => "count pass",
            Stage::TypoCounters => "typo count",
            Stage::Buckets => "buckets",
        }
    }
}

/// One search's path and the nanoseconds of each stage ([`Stage::ALL`]'s order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// The path taken; `None` when the search was not profiled or stopped before the ranking
    /// (an overlong text).
    pub path: Option<Path>,
    /// Nanoseconds per stage, summed over the stage's runs in the search.
    pub nanos: [u64; STAGES],
}

impl Profile {
    /// The nanoseconds of `stage`.
    #[must_use]
    pub fn nanos_of(&self, stage: Stage) -> u64 {
        self.nanos[stage as usize]
    }
}

static RECORDING: AtomicBool = AtomicBool::new(false);

thread_local! {
    static LAST: Cell<Profile> = const {
        Cell::new(Profile {
            path: None,
            nanos: [0; STAGES],
        })
    };
}

/// Turns the profile on or off for every thread.
pub fn record(on: bool) {
    RECORDING.store(on, Ordering::Relaxed);
}

/// The profile of this thread's last search since the last `take` (an empty one when none was
/// profiled).
#[must_use]
pub fn take() -> Profile {
    LAST.with(Cell::take)
}

fn recording() -> bool {
    RECORDING.load(Ordering::Relaxed)
}

/// Changes this thread's profile.
fn update(change: impl FnOnce(&mut Profile)) {
    LAST.with(|last| {
        let mut profile = last.get();
        change(&mut profile);
        last.set(profile);
    });
}

/// A new search begins: this thread's profile starts empty.
pub(super) fn begin() {
    if recording() {
        LAST.with(|last| last.set(Profile::default()));
    }
}

/// The search took `path`.
pub(super) fn took(path: Path) {
    if recording() {
        update(|profile| profile.path = Some(path));
    }
}

/// A stage being timed; [`Timer::stop`] adds its time to the profile.
#[must_use = "a timer adds its time when stopped"]
pub(super) struct Timer {
    stage: Stage,
    started: Option<Instant>,
}

/// Starts timing `stage` (nothing when not recording).
pub(super) fn start(stage: Stage) -> Timer {
    start_if(true, stage)
}

/// Starts timing `stage` when `timed` (for a stage timed on one path only).
pub(super) fn start_if(timed: bool, stage: Stage) -> Timer {
    Timer {
        stage,
        started: (timed && recording()).then(Instant::now),
    }
}

impl Timer {
    /// Adds the time since [`start`] to the stage.
    pub(super) fn stop(self) {
        let Some(started) = self.started else {
            return;
        };
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        update(|profile| {
            let slot = &mut profile.nanos[self.stage as usize];
            *slot = slot.saturating_add(nanos);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::gtins::GtinLookup;
    use super::super::query;
    use super::super::scratch::Scratch;
    use super::super::wordsets::tests::{fixture, requests};
    use super::*;

    /// Each search's profile names the path the scratch buffers show it took, with the time of
    /// the stages on that path and of none off it.
    #[test]
    fn the_profile_names_the_path_each_search_took_and_times_its_stages() {
        let (index, texts, skus) = fixture();
        let mut requests = requests(&texts, &skus);
        requests.push(super::super::SearchRequest {
            limit: 20,
            ..Default::default()
        });
        let mut scratch = Scratch::new(index.dictionary.term_count(), index.len());
        let gtins = GtinLookup::Map(index.codes.gtins.map().unwrap());
        let mut seen = std::collections::BTreeMap::new();
        record(true);
        for request in &requests {
            query::run(&index, &mut scratch, request, &gtins);
            let profile = take();
            let path = profile.path.expect("a profiled search names its path");
            *seen.entry(path).or_insert(0) += 1;
            let ran = |stage| profile.nanos_of(stage) > 0;
            let message = format!("{request:?}: {profile:?}");
            let rare = scratch.visit.len() < scratch.blocks && request.sku.is_none();
            match path {
                Path::Unranked => {
                    assert!(request.text.trim().is_empty(), "{message}");
                    assert_eq!(profile.nanos, [0; STAGES], "{message}");
                }
                Path::BestBucket => {
                    let ranked_alone = scratch.tiers.is_empty() && !scratch.active.is_empty();
                    assert!(ranked_alone, "{message}");
                    assert!(ran(Stage::TopPass) && ran(Stage::Window), "{message}");
                    assert!(!ran(Stage::FirstPass) && !ran(Stage::Buckets), "{message}");
                }
                Path::GaveUp | Path::BestBucketShort => {
                    assert_eq!(scratch.abandoned, path == Path::GaveUp, "{message}");
                    assert!(ran(Stage::TopPass) && ran(Stage::FirstPass), "{message}");
                    assert!(ran(Stage::Buckets) && !ran(Stage::Window), "{message}");
                }
                Path::RareWords | Path::EveryBucket => {
                    assert_eq!(rare, path == Path::RareWords, "{message}");
                    assert!(!ran(Stage::TopPass) && ran(Stage::FirstPass), "{message}");
                }
            }
            if path != Path::Unranked {
                assert!(ran(Stage::WordSets), "{message}");
            }
        }
        // The profile is the last search's alone: a ranked search, then an unranked one.
        query::run(&index, &mut scratch, &requests[0], &gtins);
        query::run(&index, &mut scratch, requests.last().unwrap(), &gtins);
        let last = take();
        assert_eq!(last.path, Some(Path::Unranked));
        assert_eq!(last.nanos, [0; STAGES], "{last:?}");
        record(false);
        query::run(&index, &mut scratch, &requests[0], &gtins);
        assert_eq!(take(), Profile::default(), "nothing is recorded when off");
        // The fixture's requests take every path but the rarest.
        for path in Path::ALL {
            if path != Path::BestBucketShort {
                assert!(seen.contains_key(&path), "{path:?} never taken: {seen:?}");
            }
        }
    }
}
