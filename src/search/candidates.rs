//! The candidate passes of a ranking: which documents match at least one query word (within the
//! filters, code hits aside), how many miss at most a few words, and rule 1's bit-sliced
//! counters for the blocks the page is taken from (see `query::rank`).

use super::scratch::{COUNT_PLANES, PLANES, Scratch};
use super::wordsets::{SetView, WordSet};
use super::{SearchIndex, bits};

/// Tiers of rule 1 the first pass tells apart: candidates missing none, one, two or three of
/// the query's words.
pub(super) const TIERS: usize = 4;

/// What the candidate passes mask out of the words' documents.
pub(super) struct Filters<'r> {
    /// Whether `Scratch::allowed_bits` holds the filters' documents of each visited block.
    pub(super) filtered: bool,
    /// Code hits (block, bit), increasing: ranked first, so not among the candidates.
    pub(super) removed: &'r [(u32, u64)],
}

impl Filters<'_> {
    /// `any` (the words' documents in block `b`, the `at`-th visited) within the filters and
    /// without code hits; `next` (the first code hit not passed yet) moves forward with the
    /// blocks.
    fn apply(
        &self,
        scratch_allowed: &[u64],
        at: usize,
        b: u32,
        mut any: u64,
        next: &mut usize,
    ) -> u64 {
        if self.filtered {
            any &= scratch_allowed[at];
        }
        while *next < self.removed.len() && self.removed[*next].0 < b {
            *next += 1;
        }
        while *next < self.removed.len() && self.removed[*next].0 == b {
            any &= !self.removed[*next].1;
            *next += 1;
        }
        any
    }
}

/// The first pass's figures.
#[derive(Default)]
pub(super) struct FirstPass {
    /// Candidates (code hits aside).
    pub(super) total: u64,
    /// `at_least[t]`: candidates matching at least all of the words but `t`.
    pub(super) at_least: [u64; TIERS],
}

impl FirstPass {
    /// Counts one block's `candidates` and, per tier, its lanes that missed at most that many
    /// words; returns the block's best tier (see [`first_pass`]).
    fn add_block(&mut self, candidates: u64, missing_at_most: [u64; TIERS]) -> u8 {
        self.total += u64::from(candidates.count_ones());
        let mut tier = u8::from(candidates == 0);
        for (lanes, count) in missing_at_most.iter().zip(&mut self.at_least) {
            let lanes = lanes & candidates;
            *count += u64::from(lanes.count_ones());
            tier += u8::from(lanes == 0);
        }
        tier
    }
}

/// One pass over the visited blocks with plain AND/OR (no counters): the candidates, and per
/// tier `t` the candidates missing at most `t` words. `Scratch::tiers` gets each visited
/// block's best tier (`TIERS` for a block whose candidates all miss more, `TIERS + 1` for one
/// without candidates).
pub(super) fn first_pass(
    index: &SearchIndex,
    scratch: &mut Scratch,
    word_sets: &[WordSet],
    filters: &Filters<'_>,
) -> FirstPass {
    let mut tiers = std::mem::take(&mut scratch.tiers);
    tiers.clear();
    let view = SetView::new(index, scratch);
    if !filters.filtered && scratch.visit.len() == scratch.blocks {
        // Every block, in order.
        let first = first_pass_every_block(
            &view,
            word_sets,
            filters.removed,
            scratch.blocks,
            &mut tiers,
        );
        scratch.tiers = tiers;
        return first;
    }
    let mut first = FirstPass::default();
    let mut cursors = WordSet::cursors(word_sets);
    let mut next_removed = 0;
    for (at, &b) in scratch.visit.iter().enumerate() {
        let mut any = 0u64;
        // `missing_at_most[t]`: lanes that missed at most `t` of the words so far.
        let mut missing_at_most = [u64::MAX; TIERS];
        for (set, cursor) in word_sets.iter().zip(&mut cursors) {
            let value = set.any_at(&view, b, cursor);
            any |= value;
            for t in (1..TIERS).rev() {
                missing_at_most[t] &= value | missing_at_most[t - 1];
            }
            missing_at_most[0] &= value;
        }
        let any = filters.apply(&scratch.allowed_bits, at, b, any, &mut next_removed);
        tiers.push(first.add_block(any, missing_at_most));
    }
    scratch.tiers = tiers;
    first
}

/// Blocks a pass over every block takes at a time (a few in tests, so that their small
/// catalogues make several chunks).
const CHUNK: usize = if cfg!(test) { 4 } else { 256 };

/// [`first_pass`] over every block, a chunk of blocks at a time and word by word: the same
/// figures, from tight loops over slices (a full-width part is read in place) that the compiler
/// turns into vector instructions. Block by block, with a branch per word and block to find its
/// part, this pass was half of a search's ranking at a million products.
fn first_pass_every_block(
    view: &SetView<'_>,
    word_sets: &[WordSet],
    removed: &[(u32, u64)],
    blocks: usize,
    tiers: &mut Vec<u8>,
) -> FirstPass {
    let mut first = FirstPass::default();
    let mut cursors = WordSet::cursors(word_sets);
    let mut buffer = [0u64; CHUNK];
    let mut any = [0u64; CHUNK];
    // `missing_at_most[t]`: lanes that missed at most `t` of the words so far.
    let mut missing_at_most = [[0u64; CHUNK]; TIERS];
    let mut next_removed = 0;
    for start in (0..blocks).step_by(CHUNK) {
        let len = CHUNK.min(blocks - start);
        let any = &mut any[..len];
        any.fill(0);
        for tier in &mut missing_at_most {
            tier[..len].fill(u64::MAX);
        }
        for (set, cursor) in word_sets.iter().zip(&mut cursors) {
            let value = set.any_in(view, start, len, cursor, &mut buffer);
            for (lanes, word) in any.iter_mut().zip(value) {
                *lanes |= word;
            }
            for t in (1..TIERS).rev() {
                let (fewer, this) = missing_at_most.split_at_mut(t);
                for ((lanes, below), word) in
                    this[0][..len].iter_mut().zip(&fewer[t - 1]).zip(value)
                {
                    *lanes &= word | below;
                }
            }
            for (lanes, word) in missing_at_most[0][..len].iter_mut().zip(value) {
                *lanes &= word;
            }
        }
        for (at, bit) in code_hits_in(removed, &mut next_removed, start, len) {
            any[at] &= !bit;
        }
        for (i, &candidates) in any.iter().enumerate() {
            let missing = std::array::from_fn(|t| missing_at_most[t][i]);
            tiers.push(first.add_block(candidates, missing));
        }
    }
    first
}

/// What [`top_pass`] found.
pub(super) struct TopPass {
    /// Candidates (code hits aside), in every block.
    pub(super) total: u64,
    /// Documents of the best bucket in `Scratch::active`: all of them, or (when it holds more)
    /// those of the blocks holding its first `Scratch::rank_window`.
    pub(super) top: u64,
}

/// The best bucket there can be: every word matched, word `i` with `levels[i]` typos, the
/// fewest any of its terms has. No candidate matches more words, nor all of them with fewer
/// typos, so when this bucket holds the page no other is looked at.
///
/// One pass over every block (no filters), a chunk at a time: the candidates are counted, and
/// the blocks holding the bucket's documents go to `Scratch::active` with counters
/// (`Scratch::planes`) that say every word and the sum of `levels` typos for those documents
/// and for no other. Once they hold `Scratch::rank_window` documents, the most of one bucket
/// ranked at a time (`bucket::rank_bucket`), the bucket's later blocks cannot change the page,
/// and the rest of the pass only counts the candidates.
pub(super) fn top_pass(
    index: &SearchIndex,
    scratch: &mut Scratch,
    word_sets: &[WordSet],
    levels: &[usize],
    removed: &[(u32, u64)],
) -> TopPass {
    let mut active = std::mem::take(&mut scratch.active);
    let mut all_planes = std::mem::take(&mut scratch.planes);
    active.clear();
    all_planes.clear();
    let view = SetView::new(index, scratch);
    let blocks = scratch.blocks;
    let window = scratch.rank_window as u64;
    let matched = word_sets.len();
    let typos: usize = levels.iter().sum();
    let mut any_cursors = WordSet::cursors(word_sets);
    let mut top_cursors = any_cursors;
    let mut buffer = [0u64; CHUNK];
    let mut any = [0u64; CHUNK];
    let mut top = [0u64; CHUNK];
    let mut pass = TopPass { total: 0, top: 0 };
    let mut next_removed = 0;
    for start in (0..blocks).step_by(CHUNK) {
        let len = CHUNK.min(blocks - start);
        let any = &mut any[..len];
        any.fill(0);
        for (set, cursor) in word_sets.iter().zip(&mut any_cursors) {
            let value = set.any_in(&view, start, len, cursor, &mut buffer);
            for (lanes, word) in any.iter_mut().zip(value) {
                *lanes |= word;
            }
        }
        let collecting = pass.top < window;
        let top = &mut top[..len];
        if collecting {
            top.fill(u64::MAX);
            for ((set, cursor), &level) in word_sets.iter().zip(&mut top_cursors).zip(levels) {
                let value = set.level_in(&view, level, start, len, cursor, &mut buffer);
                for (lanes, word) in top.iter_mut().zip(value) {
                    *lanes &= word;
                }
            }
        }
        for (at, bit) in code_hits_in(removed, &mut next_removed, start, len) {
            any[at] &= !bit;
            top[at] &= !bit;
        }
        pass.total += any
            .iter()
            .map(|lanes| u64::from(lanes.count_ones()))
            .sum::<u64>();
        if !collecting {
            continue;
        }
        for (i, &lanes) in top.iter().enumerate() {
            if lanes == 0 {
                continue;
            }
            pass.top += u64::from(lanes.count_ones());
            active.push((start + i) as u32);
            let mut planes = [0u64; PLANES];
            bits::set_counter(&mut planes[..COUNT_PLANES], lanes, matched);
            bits::set_counter(&mut planes[COUNT_PLANES..], lanes, typos);
            all_planes.push(planes);
            if pass.top >= window {
                break;
            }
        }
    }
    scratch.active = active;
    scratch.planes = all_planes;
    pass
}

/// The code hits (`removed`) in blocks `start..start + len`, as (block - `start`, bit);
/// `next`, the first code hit not passed yet, moves past them (blocks must not decrease).
fn code_hits_in<'r>(
    removed: &'r [(u32, u64)],
    next: &'r mut usize,
    start: usize,
    len: usize,
) -> impl Iterator<Item = (usize, u64)> + 'r {
    std::iter::from_fn(move || {
        let &(block, bit) = removed.get(*next)?;
        let block = block as usize;
        if block >= start + len {
            return None;
        }
        *next += 1;
        Some((block - start, bit))
    })
}

/// Rule 1 as bit-sliced counters (words matched per candidate) for the visited blocks whose
/// best tier is at most `tiers` (all candidate blocks for [`TIERS`]), into `Scratch::counted`,
/// `counts` and `candidate_bits`.
pub(super) fn count_pass(
    index: &SearchIndex,
    scratch: &mut Scratch,
    word_sets: &[WordSet],
    filters: &Filters<'_>,
    tiers: usize,
) {
    let mut counted = std::mem::take(&mut scratch.counted);
    let mut counts = std::mem::take(&mut scratch.counts);
    let mut candidate_bits = std::mem::take(&mut scratch.candidate_bits);
    counted.clear();
    counts.clear();
    candidate_bits.clear();
    let view = SetView::new(index, scratch);
    let mut cursors = WordSet::cursors(word_sets);
    let mut next_removed = 0;
    for ((at, &b), &tier) in scratch.visit.iter().enumerate().zip(&scratch.tiers) {
        if usize::from(tier) > tiers {
            continue;
        }
        let mut planes = [0u64; COUNT_PLANES];
        let mut any = 0u64;
        for (set, cursor) in word_sets.iter().zip(&mut cursors) {
            let value = set.any_at(&view, b, cursor);
            any |= value;
            bits::add_bit(&mut planes, value);
        }
        let any = filters.apply(&scratch.allowed_bits, at, b, any, &mut next_removed);
        if any != 0 {
            // Counters only for candidates: each lane counts on its own, so masking the
            // planes is masking every set first.
            for plane in &mut planes {
                *plane &= any;
            }
            counted.push(b);
            counts.push(planes);
            candidate_bits.push(any);
        }
    }
    scratch.counted = counted;
    scratch.counts = counts;
    scratch.candidate_bits = candidate_bits;
}
