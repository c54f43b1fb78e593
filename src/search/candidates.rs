//! The candidate passes of a ranking: which documents match at least one query word (within the
//! filters, code hits aside), how many miss at most a few words, and rule 1's bit-sliced
//! counters for the blocks the page is taken from (see `query::rank`).

use super::scratch::{CHUNK, COUNT_PLANES, PLANES, Scratch};
use super::wordsets::{SetView, WordSet};
use super::{LEVELS, MAX_QUERY_WORDS, SearchIndex, bits};

/// Tiers of rule 1 the first pass tells apart: candidates missing none, one, two or three of
/// the query's words.
pub(super) const TIERS: usize = 4;

/// What the candidate passes mask out of the words' documents.
pub(super) struct Filters<'r> {
    /// Whether `Scratch::allowed_bits` holds the filters' documents of each visited block.
    pub(super) filtered: bool,
    /// Code hits (block, bit), increasing: ranked first, so not among the candidates.
    pub(super) removed: &'r [(u32, u64)],
    /// Over a live index, the documents it replaced or deleted, one bit each (module `live`).
    pub(super) dead: Option<&'r [u64]>,
}

/// Block `b` of `dead` (none past its end).
#[inline]
pub(super) fn dead_at(dead: &[u64], b: usize) -> u64 {
    dead.get(b).copied().unwrap_or(0)
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
        if let Some(dead) = self.dead {
            any &= !dead_at(dead, b as usize);
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
    if !filters.filtered && scratch.visit.len() == scratch.blocks {
        // Every block, in order.
        let mut buffers = std::mem::take(&mut scratch.chunks);
        let view = SetView::new(index, scratch);
        let first = first_pass_every_block(&view, word_sets, filters, &mut tiers, &mut buffers);
        scratch.tiers = tiers;
        scratch.chunks = buffers;
        return first;
    }
    let view = SetView::new(index, scratch);
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

/// Blocks the passes over every block fold at once: for each such group, every word's values
/// are read once and the running results stay in (vector) registers. Word by word over a whole
/// chunk instead, each word read and wrote the chunk's running results again (five arrays in
/// the first pass): those loads and stores were the hottest loops of ranking at a million
/// products (`perf` of `serve` under distinct queries).
/// Why by hand: the compiler does not interchange the two loops itself.
const GROUP: usize = 4;

/// Each word's documents with at most `level(word)` typos in blocks `start..start + len`: its
/// full-width part read in place, or its buffer filled ([`WordSet::level_in`]).
fn chunk_values<'s>(
    view: &SetView<'s>,
    word_sets: &[WordSet],
    level: impl Fn(usize) -> usize,
    (start, len): (usize, usize),
    cursors: &mut [u32; MAX_QUERY_WORDS],
    buffers: &'s mut [[u64; CHUNK]],
) -> [&'s [u64]; MAX_QUERY_WORDS] {
    let mut values: [&[u64]; MAX_QUERY_WORDS] = [&[]; MAX_QUERY_WORDS];
    for (word, ((set, cursor), buffer)) in word_sets
        .iter()
        .zip(cursors.iter_mut())
        .zip(buffers.iter_mut())
        .enumerate()
    {
        values[word] = set.level_in(view, level(word), start, len, cursor, buffer);
    }
    values
}

/// Blocks `at..at + N` of the words' `values` into `any` (their union) and, per tier `t`,
/// `missing_at_most[t]` (the lanes that missed at most `t` of the words).
#[inline]
fn fold_tiers<const N: usize>(
    values: &[&[u64]],
    at: usize,
    any: &mut [u64],
    missing_at_most: &mut [[u64; CHUNK]; TIERS],
) {
    let mut lanes = [0u64; N];
    let mut missing = [[u64::MAX; N]; TIERS];
    for value in values {
        for (k, &word) in value[at..at + N].iter().enumerate() {
            lanes[k] |= word;
            for t in (1..TIERS).rev() {
                missing[t][k] &= word | missing[t - 1][k];
            }
            missing[0][k] &= word;
        }
    }
    any[at..at + N].copy_from_slice(&lanes);
    for (tier, group) in missing_at_most.iter_mut().zip(&missing) {
        tier[at..at + N].copy_from_slice(group);
    }
}

/// Blocks `at..at + N` of the words' `values` into `out`: their union (`ALL` false) or
/// intersection.
#[inline]
fn fold_lanes<const N: usize, const ALL: bool>(values: &[&[u64]], at: usize, out: &mut [u64]) {
    let mut lanes = [if ALL { u64::MAX } else { 0 }; N];
    for value in values {
        for (lane, &word) in lanes.iter_mut().zip(&value[at..at + N]) {
            if ALL {
                *lane &= word;
            } else {
                *lane |= word;
            }
        }
    }
    out[at..at + N].copy_from_slice(&lanes);
}

/// Blocks [`fold_chunk`] folds at once. A union or an intersection keeps one running result
/// per block (the tiers' fold keeps five), so a group four times [`GROUP`] still fits the
/// vector registers; and each word's slice is found and its bounds checked once per 16 blocks
/// instead of once per 4, which was most of the fold's instructions (callgrind at a million
/// products: 6.8 % fewer instructions per search, same pages).
const LANE_GROUP: usize = 16;

/// [`fold_lanes`] over the whole of `out`, a group at a time: their union (`ALL` false) or
/// intersection, chosen at compile time so the loop over the words carries no branch.
fn fold_chunk<const ALL: bool>(values: &[&[u64]], out: &mut [u64]) {
    let whole = out.len() - out.len() % LANE_GROUP;
    for at in (0..whole).step_by(LANE_GROUP) {
        fold_lanes::<LANE_GROUP, ALL>(values, at, out);
    }
    for at in whole..out.len() {
        fold_lanes::<1, ALL>(values, at, out);
    }
}

/// [`first_pass`] over every block, a chunk of blocks at a time: the same figures, from tight
/// loops over slices (a full-width part is read in place), a group of blocks at a time (see
/// [`GROUP`]). Block by block, with a branch per word and block to find its part, this pass
/// was half of a search's ranking at a million products.
fn first_pass_every_block(
    view: &SetView<'_>,
    word_sets: &[WordSet],
    filters: &Filters<'_>,
    tiers: &mut Vec<u8>,
    buffers: &mut [[u64; CHUNK]],
) -> FirstPass {
    let blocks = view.blocks();
    let mut first = FirstPass::default();
    let mut cursors = WordSet::cursors(word_sets);
    let mut any = [0u64; CHUNK];
    // `missing_at_most[t]`: lanes that missed at most `t` of the words.
    let mut missing_at_most = [[0u64; CHUNK]; TIERS];
    let mut next_removed = 0;
    for start in (0..blocks).step_by(CHUNK) {
        let len = CHUNK.min(blocks - start);
        let values = chunk_values(
            view,
            word_sets,
            |_| LEVELS - 1,
            (start, len),
            &mut cursors,
            buffers,
        );
        let values = &values[..word_sets.len()];
        let whole = len - len % GROUP;
        for at in (0..whole).step_by(GROUP) {
            fold_tiers::<GROUP>(values, at, &mut any, &mut missing_at_most);
        }
        for at in whole..len {
            fold_tiers::<1>(values, at, &mut any, &mut missing_at_most);
        }
        for (at, bit) in code_hits_in(filters.removed, &mut next_removed, start, len) {
            any[at] &= !bit;
        }
        if let Some(dead) = filters.dead {
            for (at, lanes) in any[..len].iter_mut().enumerate() {
                *lanes &= !dead_at(dead, start + at);
            }
        }
        for (i, &candidates) in any[..len].iter().enumerate() {
            let missing = std::array::from_fn(|t| missing_at_most[t][i]);
            tiers.push(first.add_block(candidates, missing));
        }
    }
    first
}

/// What [`top_pass`] found.
pub(super) struct TopPass {
    /// Candidates (code hits aside), in every block: counted in each, or past the best
    /// bucket's window estimated from a sample of each chunk ([`SAMPLE_SHARE`]) in a catalogue
    /// of at least `Scratch::sampled_from_blocks` blocks
    /// ([`super::scratch::SAMPLED_FROM_BLOCKS`]).
    pub(super) total: u64,
    /// Documents of the best bucket in `Scratch::active`: all of them, or (when it holds more)
    /// those of the blocks holding its first `Scratch::rank_window`.
    pub(super) top: u64,
}

/// Past the best bucket's window, a large catalogue's candidates are counted in the first
/// `1 / SAMPLE_SHARE` of each chunk's blocks, and the rest estimated from them. The count is
/// only `estimatedTotalHits`, which the interface calls an estimate; counting every block read
/// every frequent word's whole bitset (125 KB at a million products) for the count alone, and
/// was most of the pass for a broad query, whose window fills in its first chunks.
const SAMPLE_SHARE: usize = 4;

/// The best bucket's pass gives up, once it has read at least `1 / ABANDON_AFTER` of the
/// blocks, when the bucket's documents found so far, projected over every block, are fewer
/// than half the page needs: the bucket most likely cannot hold the page, and the passes over
/// every bucket would follow the whole pass anyway. (Giving up wrongly costs time, never the
/// page: those passes rank exactly as the best bucket does.)
const ABANDON_AFTER: usize = 16;

/// Candidates counted in part of the blocks, for the estimate of the rest.
#[derive(Default)]
struct Sample {
    counted: u64,
    read: u64,
    skipped: u64,
}

impl Sample {
    /// The candidates of the blocks read and skipped, estimated from those read.
    fn estimate(&self) -> u64 {
        let whole = self.read + self.skipped;
        // Nothing read (no chunk past the window): nothing to estimate.
        (u128::from(self.counted) * u128::from(whole) + u128::from(self.read / 2))
            .checked_div(u128::from(self.read))
            .map_or(0, |estimate| estimate as u64)
    }
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
/// and the rest of the pass only counts the candidates (from a sample, in a large catalogue).
///
/// `None` when the bucket holds fewer than `wanted` documents, or is projected to
/// ([`ABANDON_AFTER`]).
pub(super) fn top_pass(
    index: &SearchIndex,
    scratch: &mut Scratch,
    word_sets: &[WordSet],
    levels: &[usize],
    (removed, dead): (&[(u32, u64)], Option<&[u64]>),
    wanted: u64,
) -> Option<TopPass> {
    let mut active = std::mem::take(&mut scratch.active);
    let mut all_planes = std::mem::take(&mut scratch.planes);
    let mut buffers = std::mem::take(&mut scratch.chunks);
    active.clear();
    all_planes.clear();
    let view = SetView::new(index, scratch);
    let blocks = scratch.blocks;
    let window = scratch.rank_window as u64;
    let sampling = blocks >= scratch.sampled_from_blocks;
    let abandon = scratch.shortcuts.abandon;
    let matched = word_sets.len();
    let typos: usize = levels.iter().sum();
    let mut any_cursors = WordSet::cursors(word_sets);
    let mut top_cursors = any_cursors;
    let mut any = [0u64; CHUNK];
    let mut top = [0u64; CHUNK];
    let mut pass = TopPass { total: 0, top: 0 };
    let mut sample = Sample::default();
    let mut abandoned = false;
    let mut next_removed = 0;
    for start in (0..blocks).step_by(CHUNK) {
        let len = CHUNK.min(blocks - start);
        let collecting = pass.top < window;
        // The blocks whose candidates are counted: all, or past the window a sample.
        let read = if collecting || !sampling {
            len
        } else {
            len.div_ceil(SAMPLE_SHARE)
        };
        let any = &mut any[..read];
        let values = chunk_values(
            &view,
            word_sets,
            |_| LEVELS - 1,
            (start, read),
            &mut any_cursors,
            &mut buffers,
        );
        fold_chunk::<false>(&values[..word_sets.len()], any);
        let top = &mut top[..len];
        if collecting {
            let values = chunk_values(
                &view,
                word_sets,
                |word| levels[word],
                (start, len),
                &mut top_cursors,
                &mut buffers,
            );
            fold_chunk::<true>(&values[..word_sets.len()], top);
        }
        for (at, bit) in code_hits_in(removed, &mut next_removed, start, len) {
            if let Some(lanes) = any.get_mut(at) {
                *lanes &= !bit;
            }
            top[at] &= !bit;
        }
        if let Some(dead) = dead {
            for (at, lanes) in top.iter_mut().enumerate() {
                let gone = dead_at(dead, start + at);
                *lanes &= !gone;
                if let Some(lanes) = any.get_mut(at) {
                    *lanes &= !gone;
                }
            }
        }
        let counted = any
            .iter()
            .map(|lanes| u64::from(lanes.count_ones()))
            .sum::<u64>();
        if read == len {
            pass.total += counted;
        } else {
            sample.counted += counted;
            sample.read += read as u64;
            sample.skipped += (len - read) as u64;
        }
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
        let done = (start + len) as u64;
        if abandon
            && pass.top < wanted
            && done * ABANDON_AFTER as u64 >= blocks as u64
            && pass.top * blocks as u64 * 2 < wanted * done
        {
            abandoned = true;
            break;
        }
    }
    pass.total += sample.estimate();
    scratch.active = active;
    scratch.planes = all_planes;
    scratch.chunks = buffers;
    scratch.abandoned = abandoned;
    (!abandoned && pass.top >= wanted).then_some(pass)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The grouped fold gives every block's union and intersection, for chunks shorter and
    /// longer than a group and not a multiple of one (the tests' chunks of six blocks never
    /// reach [`LANE_GROUP`]).
    #[test]
    fn folding_a_chunk_a_group_at_a_time_gives_each_blocks_union_and_intersection() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(25);
        let mut next = || rng.random::<u64>();
        for len in [0, 1, 15, 16, 17, 40, 256] {
            for words in 1..=4 {
                let values: Vec<Vec<u64>> = (0..words)
                    .map(|_| (0..len).map(|_| next() | next()).collect())
                    .collect();
                let slices: Vec<&[u64]> = values.iter().map(Vec::as_slice).collect();
                for all in [false, true] {
                    let mut out = vec![0x5555; len];
                    if all {
                        fold_chunk::<true>(&slices, &mut out);
                    } else {
                        fold_chunk::<false>(&slices, &mut out);
                    }
                    for (block, &lanes) in out.iter().enumerate() {
                        let expected = values.iter().map(|value| value[block]).fold(
                            if all { u64::MAX } else { 0 },
                            |lanes, word| {
                                if all { lanes & word } else { lanes | word }
                            },
                        );
                        assert_eq!(lanes, expected, "len {len}, {words} words, block {block}");
                    }
                }
            }
        }
    }
}
