//! Rules 3-5 of the ranking within one bucket (same words matched, same typos): proximity,
//! field importance and exactness per document, computed only for the documents that can
//! still enter the page (see the module documentation of [`super`]).

use std::collections::BinaryHeap;

use super::docs::Docs;
use super::parts::{
    MAX_TITLE_POSITION, META_POSITION_SHIFT, META_RANK_MASK, META_TITLE, TitleSketch,
};
use super::scratch::{COUNT_PLANES, QueryTerms, Scratch};
use super::stages::{self, Stage};
use super::wordsets::{ExactSet, SetView, WordSet};
use super::{LEVELS, MAX_QUERY_WORDS, SearchIndex, bits};

/// Proximity cost of a pair of words not both in the title.
const FAR: u32 = 8;

/// The documents with `matched` words matched and `typos` typos.
pub(super) struct Bucket<'q> {
    pub(super) matched: usize,
    pub(super) word_count: usize,
    /// Words in the text, kept or not: more than `word_count` when the text had more than
    /// [`MAX_QUERY_WORDS`] words and the rest were dropped.
    pub(super) typed_words: usize,
    pub(super) typos: u32,
    /// Per query word that is itself a term: the set of documents holding that term, the only
    /// documents where the word can count as matched exactly.
    pub(super) exact_sets: &'q [ExactSet],
    /// Per query word: the documents it matches.
    pub(super) word_sets: &'q [WordSet],
    /// The best bucket there can be (every word, each with the fewest typos its terms have;
    /// `candidates::top_pass`): each of its documents holds every word that has an exact term
    /// with no typo, so exactly, and its window is collected without reading the words' sets.
    /// (Were that wrong for a document, it would only lower the document's bound, which may be
    /// low: more documents scored, never another page.)
    pub(super) best: bool,
}

/// `Scratch::window_words` of a window document: the query words it holds (one bit each), the
/// number it holds exactly (from [`EXACT_SHIFT`]), and whether it was scored already.
const HELD_WORDS: u32 = (1 << MAX_QUERY_WORDS) - 1;
pub(super) const EXACT_SHIFT: u32 = 16;
const SCORED: u32 = 1 << 31;

impl Bucket<'_> {
    /// The bucket's documents in increasing order, the first `skip` aside, into `window` until
    /// it holds `limit`; beside each, in `words`, the query words it holds and how many of them
    /// exactly (`Scratch::window_words`), read from its block's word sets once per block
    /// instead of looked up document by document.
    fn collect_window(
        &self,
        index: &SearchIndex,
        scratch: &Scratch,
        (skip, limit): (usize, usize),
        window: &mut Vec<u32>,
        words: &mut Vec<u32>,
    ) {
        let view = SetView::new(index, scratch);
        let mut cursors = WordSet::cursors(self.word_sets);
        let mut exact_cursors = [0usize; MAX_QUERY_WORDS];
        let mut levels = [[0u64; LEVELS]; MAX_QUERY_WORDS];
        let mut exact_levels = [0u64; MAX_QUERY_WORDS];
        let mut exact = [0u64; MAX_QUERY_WORDS];
        let every_word = self.matched == self.word_count;
        let exact_words = ExactSet::words_of(self.exact_sets);
        let mut seen = 0usize;
        for (&b, planes) in scratch.active.iter().zip(&scratch.planes) {
            let mut lanes = bits::lanes_equal(&planes[..COUNT_PLANES], self.matched as u32)
                & bits::lanes_equal(&planes[COUNT_PLANES..], self.typos);
            let count = lanes.count_ones() as usize;
            if lanes == 0 || seen + count <= skip {
                seen += count;
                continue;
            }
            // Which words each document holds, and which exactly: for a bucket of every word,
            // only the typo-free level is read; for the best bucket, not even that (its
            // documents hold each word with an exact term at level 0, see `Bucket::best`).
            let word_sets = self.word_sets.iter().zip(&mut cursors).enumerate();
            for (word, (set, cursor)) in word_sets {
                if !every_word {
                    levels[word] = set.levels_at(&view, b, cursor);
                    exact_levels[word] = levels[word][0];
                } else if self.best {
                    exact_levels[word] = u64::MAX;
                    debug_assert!(
                        exact_words & 1 << word == 0
                            || lanes & !set.level_at(&view, 0, b, &mut set.cursor()) == 0,
                        "a document of the best bucket lacks word {word} without typo"
                    );
                } else if exact_words & 1 << word != 0 {
                    exact_levels[word] = set.level_at(&view, 0, b, cursor);
                }
            }
            let exact_sets = self.exact_sets.iter().zip(&mut exact_cursors);
            for ((set, cursor), bits) in exact_sets.zip(&mut exact) {
                *bits = set.block_at(index, &view, &exact_levels, b, cursor);
            }
            while lanes != 0 {
                let lane = lanes.trailing_zeros();
                lanes &= lanes - 1;
                seen += 1;
                if seen <= skip {
                    continue;
                }
                let mut held = 0;
                if every_word {
                    held = (1 << self.word_count) - 1;
                } else {
                    for (word, levels) in levels[..self.word_count].iter().enumerate() {
                        held |= ((levels[LEVELS - 1] >> lane) as u32 & 1) << word;
                    }
                }
                let exactly: u32 = exact[..self.exact_sets.len()]
                    .iter()
                    .map(|bits| (bits >> lane) as u32 & 1)
                    .sum();
                window.push(b * 64 + lane);
                words.push(held | exactly << EXACT_SHIFT);
                if window.len() == limit {
                    return;
                }
            }
        }
    }

    /// Whether a document may have its title equal to the query (rule 5), which the early
    /// stop below cannot bound: such documents are scored up front.
    fn may_equal_title(&self, title_distinct: u8) -> bool {
        self.matched == self.word_count && usize::from(title_distinct) <= self.typed_words
    }

    /// [`Bucket::may_equal_title`] for document `doc` of a window: its block's floor first
    /// (`Forward::title_distinct_floor`), its own count only where that floor allows it.
    fn may_equal_title_of(&self, docs: &Docs<'_>, doc: u32) -> bool {
        self.may_equal_title(docs.title_distinct_floor(doc))
            && self.may_equal_title(docs.title_distinct(doc))
    }

    /// The best key a document whose title cannot equal the query can have: every matched
    /// word next to the previous one in the title, all in the title, every word that can be
    /// matched whole matched whole (what [`Bucket::plain_bound`] gives at best).
    fn floor(&self) -> u32 {
        self.plain_bound((self.exact_sets.len() as u32) << EXACT_SHIFT)
    }

    /// The best key a document whose title cannot equal the query can have, knowing only how
    /// many words it holds exactly (`words`, see `Scratch::window_words`): every matched word
    /// next to the previous one in the title, all in the title.
    fn plain_bound(&self, words: u32) -> u32 {
        pack_key(
            self.matched as u32 - 1,
            0,
            false,
            self.word_count as u32 - exact_count(words),
        )
    }

    /// [`Bucket::plain_bound`] with the proximity the document's title sketch allows
    /// (`parts::TitleSketch`): the sketch shows each held word's title positions, or more
    /// (codes are a hash; `code_words` says which query words have a term of each code), so
    /// the proximity of each pair computed from it is at most the document's, and a word the
    /// sketch does not show is not in the title (its pairs cost [`FAR`]). A title longer than
    /// its sketch keeps the plain bound's proximity.
    fn sketch_bound(&self, code_words: &[u16; 256], words: u32, sketch: &TitleSketch) -> u32 {
        let Some(codes) = sketch.whole_title() else {
            return self.plain_bound(words);
        };
        let held = words & HELD_WORDS;
        let mut positions = [0u32; MAX_QUERY_WORDS];
        for (position, &code) in codes.iter().enumerate() {
            let mut here = u32::from(code_words[usize::from(code)]) & held;
            while here != 0 {
                positions[here.trailing_zeros() as usize] |= 1 << position;
                here &= here - 1;
            }
        }
        let mut proximity = 0;
        let mut previous: Option<usize> = None;
        for word in 0..self.word_count {
            if held & (1 << word) == 0 {
                continue;
            }
            if let Some(before) = previous {
                proximity += pair_cost(positions[before], positions[word]);
            }
            previous = Some(word);
        }
        pack_key(
            proximity,
            0,
            false,
            self.word_count as u32 - exact_count(words),
        )
    }
}

/// The number of words held exactly, from `Scratch::window_words`.
fn exact_count(words: u32) -> u32 {
    (words & !SCORED) >> EXACT_SHIFT
}

fn pack_key(proximity: u32, attribute: u32, title_equal: bool, inexact_words: u32) -> u32 {
    proximity << 24 | attribute << 16 | u32::from(!title_equal) << 8 | inexact_words
}

/// A live document of a bucket (module `live`): its number in the ranking's [`Docs`], its
/// `Scratch::window_words` value, and the index documents before it in document order.
#[derive(Debug, Clone, Copy)]
pub(super) struct LiveEntry {
    pub(super) doc: u32,
    pub(super) words: u32,
    pub(super) ins: u32,
}

/// A bucket's live documents in document order, made as the ranking's windows take them (a
/// common word's bucket holds thousands of live documents, and its first window only the few
/// before the window's last index document).
pub(super) type LiveEntries<'a> = std::iter::Peekable<Box<dyn Iterator<Item = LiveEntry> + 'a>>;

/// No live document (a bucket over the index alone).
pub(super) fn no_live_entries<'a>() -> LiveEntries<'a> {
    let none: Box<dyn Iterator<Item = LiveEntry> + 'a> = Box::new(std::iter::empty());
    none.peekable()
}

/// Appends up to `wanted` documents of the bucket, ordered by rules 3-5 then document, in
/// windows of `Scratch::rank_window` ([`super::RANK_WINDOW`]) documents. `live` gives the
/// bucket's live documents in document order: each window is taken from the index's and
/// those together, in document order, as from one index holding both.
pub(super) fn rank_bucket(
    index: &SearchIndex,
    scratch: &mut Scratch,
    (bucket, docs, live): (&Bucket, &Docs<'_>, &mut LiveEntries<'_>),
    wanted: usize,
    out: &mut Vec<u32>,
) {
    let mut window = std::mem::take(&mut scratch.window);
    let mut window_words = std::mem::take(&mut scratch.window_words);
    let mut keys = std::mem::take(&mut scratch.keys);
    let rank_window = scratch.rank_window;
    let mut remaining = wanted;
    let mut skip = 0usize;
    loop {
        window.clear();
        window_words.clear();
        let range = (skip, rank_window);
        let timer = stages::start_if(bucket.best, Stage::Window);
        bucket.collect_window(index, scratch, range, &mut window, &mut window_words);
        timer.stop();
        skip += if live.peek().is_none() {
            window.len()
        } else {
            merge_live(&mut window, &mut window_words, live, rank_window)
        };
        if window.is_empty() {
            break;
        }
        keys.clear();
        if window.len() <= remaining || !scratch.shortcuts.bounded {
            let info = &scratch.terms;
            keys_of(docs, info, bucket, &window, &mut keys);
            keys.sort_unstable();
            let taken = keys.len().min(remaining);
            out.extend(keys[..taken].iter().map(|&key| window[key as u32 as usize]));
            remaining -= taken;
            if remaining == 0 || window.len() < rank_window {
                break;
            }
            continue;
        }
        let mut heap = top_of_window(
            docs,
            scratch,
            bucket,
            (&window, &mut window_words),
            remaining,
        );
        keys.extend(heap.drain());
        scratch.heap = heap;
        keys.sort_unstable();
        out.extend(keys.iter().map(|&key| window[key as u32 as usize]));
        break;
    }
    scratch.window = window;
    scratch.window_words = window_words;
    scratch.keys = keys;
}

/// The `capacity` best keys of a window larger than that. Documents are scored (their keys
/// computed from the forward index) in order of a lower bound of their key, then most popular
/// first: once the worst kept key beats the next bound, no later document can enter.
///
/// First, a few dozen in popularity order ([`scan_in_order`]), which ends many broad queries'
/// windows without a bound. Then the plain bound, which knows only the words held exactly
/// ([`Bucket::plain_bound`]); when the best keys are not that good (the words are not next to
/// each other in the titles), every document has the same plain bound, and after a few times
/// the page's worth of documents scored, the title sketches are read
/// ([`Bucket::sketch_bound`]): their bound is the key itself for most documents, so only a
/// few more are scored. Reading a sketch costs a cache miss per document (16 MB of them at a
/// million products), so it is done only where the plain bound failed.
fn top_of_window(
    docs: &Docs<'_>,
    scratch: &mut Scratch,
    bucket: &Bucket,
    (window, words): (&[u32], &mut [u32]),
    capacity: usize,
) -> BinaryHeap<u64> {
    let mut heap = std::mem::take(&mut scratch.heap);
    let mut bounds = std::mem::take(&mut scratch.bounds);
    let mut sketches = std::mem::take(&mut scratch.window_sketches);
    heap.clear();
    let info = &scratch.terms;
    let mut by_bound = 0u64;
    let score = |heap: &mut BinaryHeap<u64>, at: usize, words: &mut [u32]| {
        keep(heap, capacity, key_of(docs, info, bucket, window, at));
        words[at] |= SCORED;
    };
    // `None`: the scan in order ended the window, and only the titles that may equal the
    // query are left to score.
    let timer = stages::start_if(bucket.best, Stage::InOrder);
    let scanned = if scratch.shortcuts.in_order {
        scan_in_order(
            docs,
            bucket,
            window,
            capacity,
            &mut heap,
            &mut |heap, at| {
                score(heap, at, words);
            },
        )
    } else {
        Some(0)
    };
    timer.stop();
    let timer = stages::start_if(bucket.best, Stage::Bounds);
    bounds.clear();
    for at in 0..window.len() {
        if bucket.may_equal_title_of(docs, window[at]) {
            score(&mut heap, at, words);
        } else if scanned.is_some_and(|scanned| at >= scanned) {
            bounds.push(u64::from(bucket.plain_bound(words[at])) << 32 | at as u64);
        }
    }
    let patience = if scratch.shortcuts.plain_first {
        4 * capacity + 64
    } else {
        0
    };
    timer.stop();
    let timer = stages::start_if(bucket.best, Stage::ByBound);
    let ended = scanned.is_none()
        || score_in_bound_order(
            docs,
            &mut heap,
            window,
            &mut bounds,
            capacity,
            Some(patience),
            |heap, at| {
                by_bound += 1;
                score(heap, at, words);
            },
        );
    timer.stop();
    let timer = stages::start_if(bucket.best, Stage::Sketches);
    if !ended {
        // The sketches are read in a loop of their own, whose reads do not wait on each other.
        sketches.clear();
        sketches.extend(window.iter().map(|&doc| docs.sketch(doc)));
        bounds.clear();
        // Those not scored yet: the titles that may equal the query were, above.
        for (at, sketch) in sketches.iter().enumerate() {
            if words[at] & SCORED == 0 {
                let bound = if scratch.shortcuts.sketched {
                    bucket.sketch_bound(&scratch.code_words, words[at], sketch)
                } else {
                    bucket.plain_bound(words[at])
                };
                bounds.push(u64::from(bound) << 32 | at as u64);
            }
        }
        score_in_bound_order(
            docs,
            &mut heap,
            window,
            &mut bounds,
            capacity,
            None,
            |heap, at| {
                by_bound += 1;
                score(heap, at, words);
            },
        );
    }
    timer.stop();
    scratch.scored += by_bound;
    scratch.bounds = bounds;
    scratch.window_sketches = sketches;
    heap
}
/// Scores the window's documents in order (popularity), those that may equal the title
/// aside (the caller scores them), while that can end the window: every other key of the
/// bucket is at least [`Bucket::floor`], so once `heap` holds `capacity` keys below the floor
/// followed by the document just scored, no later one can enter (scoring the titles later
/// only lowers the worst kept key). Many broad queries have plenty of such documents (all
/// words next to each other in the title, whole), found among the first few dozen; then the
/// window needs no bounds at all. `None` when it ended the window, else the window's position
/// up to which its documents were scored (a few dozen at most), for the bounds to skip.
fn scan_in_order(
    docs: &Docs<'_>,
    bucket: &Bucket,
    window: &[u32],
    capacity: usize,
    heap: &mut BinaryHeap<u64>,
    score: &mut dyn FnMut(&mut BinaryHeap<u64>, usize),
) -> Option<usize> {
    let floor = u64::from(bucket.floor()) << 32;
    let budget = 2 * capacity + 16;
    let mut scored = 0;
    for (at, &doc) in window.iter().enumerate() {
        if scored == budget {
            return Some(at);
        }
        if at % WARM_BATCH == 0 {
            warm(docs, window[at..].iter().copied());
        }
        if bucket.may_equal_title_of(docs, doc) {
            continue;
        }
        score(heap, at);
        scored += 1;
        if heap.len() == capacity && heap.peek().is_some_and(|&worst| worst <= floor | at as u64) {
            return None;
        }
    }
    None
}

/// Scores the documents of `bounds` (`bound << 32 | position in the window`) in order of
/// their bound, then document, until the worst of the `capacity` kept keys beats the next
/// bound: `true` then, or when every one was scored; `false` when `patience` documents were
/// scored first.
fn score_in_bound_order(
    docs: &Docs<'_>,
    heap: &mut BinaryHeap<u64>,
    window: &[u32],
    bounds: &mut [u64],
    capacity: usize,
    patience: Option<usize>,
    mut score: impl FnMut(&mut BinaryHeap<u64>, usize),
) -> bool {
    let mut order = SortedPrefix::new(2 * capacity + 64);
    for tried in 0..bounds.len() {
        order.sort_through(bounds, tried);
        let entry = bounds[tried];
        if tried % WARM_BATCH == 0 {
            let next = bounds[tried..].iter();
            warm(docs, next.map(|&entry| window[entry as u32 as usize]));
        }
        let at = entry as u32 as usize;
        let bound = entry >> 32 << 32 | at as u64;
        if heap.len() == capacity && heap.peek().is_some_and(|&worst| worst < bound) {
            return true;
        }
        if patience == Some(tried) {
            return false;
        }
        score(heap, at);
    }
    true
}

/// Sorts a slice a stretch at a time, as far as it is read: a window's bounds are thousands,
/// and the scoring in bound order usually stops after a few pages' worth of them (119
/// documents scored per window on average at a million products), so sorting them all was
/// mostly wasted. Each stretch is the next smallest entries in order (a selection, then a sort
/// of the stretch), twice as long as the one before; the entries are distinct, so the order
/// read is the one a whole sort gives.
struct SortedPrefix {
    sorted: usize,
    stretch: usize,
}

impl SortedPrefix {
    fn new(first_stretch: usize) -> Self {
        Self {
            sorted: 0,
            // Whole batches, so that each batch warmed ([`warm`]) is sorted already.
            stretch: first_stretch.next_multiple_of(WARM_BATCH).max(WARM_BATCH),
        }
    }

    /// Sorts `entries` through position `at`, reading positions in increasing order.
    fn sort_through(&mut self, entries: &mut [u64], at: usize) {
        if at < self.sorted {
            return;
        }
        let rest = &mut entries[self.sorted..];
        let take = self.stretch.min(rest.len());
        if take < rest.len() {
            rest.select_nth_unstable(take);
        }
        rest[..take].sort_unstable();
        self.sorted += take;
        self.stretch *= 2;
    }
}

/// Keeps the `capacity` smallest keys in `heap` (a max-heap).
fn keep(heap: &mut BinaryHeap<u64>, capacity: usize, key: u64) {
    if heap.len() < capacity {
        heap.push(key);
    } else if heap.peek().is_some_and(|&worst| key < worst) {
        heap.pop();
        heap.push(key);
    }
}

/// The sort key of the window's document at `at`: rules 3-5, then its place in the window,
/// which is document order (popularity).
fn key_of(docs: &Docs<'_>, terms: &QueryTerms, bucket: &Bucket, window: &[u32], at: usize) -> u64 {
    u64::from(fine_key(docs, terms, bucket, window[at])) << 32 | at as u64
}

/// Documents scored together: their forward entries are brought into the cache first
/// ([`warm`]).
const WARM_BATCH: usize = 8;

/// Reads the header and first forward entry of each of `docs`, so that [`key_of`] then finds
/// them in the cache. Scoring a document waits on two cache misses, its header and then its
/// entries (`perf` of the slowest queries at a million products: 82-88 % of `key_of`'s and
/// `DocHits::scan`'s samples on those two loads); one document after another, each miss is
/// waited for alone. Here the loads of a batch do not depend on each other, so they overlap.
/// Why by hand: a prefetch instruction needs `unsafe`, which the crate forbids, and the
/// compiler does not hoist loads out of the scoring of the documents before.
fn warm(docs: &Docs<'_>, batch: impl Iterator<Item = u32>) {
    let mut touched = 0u32;
    for doc in batch.take(WARM_BATCH) {
        touched ^= docs.first_entry(doc);
    }
    std::hint::black_box(touched);
}

/// The keys of the window's documents, appended to `keys`, a batch at a time ([`warm`]).
fn keys_of(
    docs: &Docs<'_>,
    terms: &QueryTerms,
    bucket: &Bucket,
    window: &[u32],
    keys: &mut Vec<u64>,
) {
    for start in (0..window.len()).step_by(WARM_BATCH) {
        let end = (start + WARM_BATCH).min(window.len());
        warm(docs, window[start..end].iter().copied());
        keys.extend((start..end).map(|at| key_of(docs, terms, bucket, window, at)));
    }
}

/// Takes the window (the index's next documents of the bucket, in `window` and `words`) and
/// the bucket's next live documents together, in document order, as one window of at most
/// `limit`; returns how many of the index's it took (the live ones taken are gone from `live`).
fn merge_live(
    window: &mut Vec<u32>,
    words: &mut Vec<u32>,
    live: &mut LiveEntries<'_>,
    limit: usize,
) -> usize {
    let (mut merged, mut merged_words) = (Vec::with_capacity(limit), Vec::with_capacity(limit));
    let mut from_index = 0;
    while merged.len() < limit {
        let index_next = window.get(from_index);
        let take_live = match (index_next, live.peek()) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(&doc), Some(entry)) => entry.ins <= doc,
        };
        if take_live && let Some(entry) = live.next() {
            merged.push(entry.doc);
            merged_words.push(entry.words);
        } else if let Some(&doc) = index_next {
            merged.push(doc);
            merged_words.push(words[from_index]);
            from_index += 1;
        } else {
            break;
        }
    }
    *window = merged;
    *words = merged_words;
    from_index
}

/// Rules 3-5 for one document as a key, lower is better: proximity, field importance, then
/// exactness (title equal to the query, then words matched whole).
fn fine_key(docs: &Docs<'_>, terms: &QueryTerms, bucket: &Bucket, doc: u32) -> u32 {
    let (header, entries) = docs.doc(doc);
    let start = header.start as usize;
    let description = header.description as usize;
    let end = header.end as usize;

    let mut hits = DocHits::default();
    hits.scan(&entries[start..description], terms);
    if (hits.matched.count_ones() as usize) < bucket.matched {
        hits.scan(&entries[description..end], terms);
    }
    let DocHits {
        best_rank,
        positions,
        matched,
        exact,
        title_hit,
    } = hits;

    let mut proximity = 0;
    let mut attribute = 0;
    let mut previous: Option<usize> = None;
    for word in 0..bucket.word_count {
        if matched & (1 << word) == 0 {
            continue;
        }
        attribute += u32::from(best_rank[word]);
        if let Some(before) = previous {
            proximity += pair_cost(positions[before], positions[word]);
        }
        previous = Some(word);
    }
    let title_len = u32::from(header.title_len);
    let all_words = (1u32 << bucket.word_count) - 1;
    let covers_title = if bucket.typed_words > bucket.word_count {
        // The words past MAX_QUERY_WORDS were dropped, so equality cannot be checked word by
        // word: the title counts as equal when it is as long as the text and the kept words
        // are its first words (a long exact title then beats the same title plus " (GS)").
        title_len as usize == bucket.typed_words && title_hit & all_words == all_words
    } else {
        title_hit == (1u32 << title_len) - 1
    };
    let title_equal = matched == all_words
        && bucket.may_equal_title(header.title_distinct)
        && title_len > 0
        && title_len <= u32::from(MAX_TITLE_POSITION)
        && positions[..bucket.word_count].iter().all(|&p| p != 0)
        && covers_title;
    let inexact = bucket.word_count as u32 - (exact & matched).count_ones();
    pack_key(proximity, attribute, title_equal, inexact)
}

/// What one document's terms say about the query words.
struct DocHits {
    /// Best field rank per word.
    best_rank: [u8; MAX_QUERY_WORDS],
    /// Title positions per word, as a bit mask.
    positions: [u32; MAX_QUERY_WORDS],
    /// Words matched, and words matched by an exact (whole, typo-free) term.
    matched: u32,
    exact: u32,
    /// Title positions matched by any word.
    title_hit: u32,
}

impl Default for DocHits {
    fn default() -> Self {
        Self {
            best_rank: [u8::MAX; MAX_QUERY_WORDS],
            positions: [0; MAX_QUERY_WORDS],
            matched: 0,
            exact: 0,
            title_hit: 0,
        }
    }
}

impl DocHits {
    fn scan(&mut self, entries: &[u32], terms: &QueryTerms) {
        for &entry in entries {
            let info = terms.get(entry >> 8);
            if info == 0 {
                continue;
            }
            let meta = entry as u8;
            let rank = meta & META_RANK_MASK;
            let in_title = meta & META_TITLE != 0;
            let position = meta >> META_POSITION_SHIFT;
            let mut rest = info;
            while rest != 0 {
                let bit = rest.trailing_zeros();
                let word = (bit / 2) as usize;
                if bit.is_multiple_of(2) {
                    self.matched |= 1 << word;
                    self.best_rank[word] = self.best_rank[word].min(rank);
                    if in_title {
                        self.positions[word] |= 1 << position;
                        self.title_hit |= 1 << position;
                    }
                } else {
                    self.exact |= 1 << word;
                }
                rest &= rest - 1;
            }
        }
    }
}

/// Distance of two words in the title, given their title position masks: 1 when adjacent in
/// query order, one more when reversed, [`FAR`] when either is not in the title.
fn pair_cost(first: u32, second: u32) -> u32 {
    if first == 0 || second == 0 {
        return FAR;
    }
    let mut best = FAR - 1;
    let mut a = first;
    while a != 0 {
        let pa = a.trailing_zeros();
        let mut b = second;
        while b != 0 {
            let pb = b.trailing_zeros();
            let cost = if pb > pa { pb - pa } else { pa - pb + 1 };
            best = best.min(cost);
            b &= b - 1;
        }
        a &= a - 1;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_cost_prefers_adjacent_in_order() {
        assert_eq!(pair_cost(1 << 2, 1 << 3), 1);
        assert_eq!(pair_cost(1 << 3, 1 << 2), 2);
        assert_eq!(pair_cost(1 << 1, 1 << 5), 4);
        assert_eq!(pair_cost(1 << 1, 1 << 30), FAR - 1);
        assert_eq!(pair_cost(0, 1), FAR);
    }
}
