//! The documents each query word matches, at each typo level (none, at most one, at most two),
//! kept as cheaply as the word's postings allow.
//!
//! Ranking had spread every word into full-width bitsets, three per word (one per typo level),
//! then read them all in one pass over every block of 64 documents: at a million products
//! 15,625 words per set, whatever the word's postings cost, so a rare word cost as much as
//! `nike`. Now:
//! - a frequent term's bitset (a dense posting) is read in place in the index, not copied;
//! - the documents of rare terms (sorted posting lists) are kept as a sorted list of the
//!   non-empty 64-document blocks, with the word's documents at each typo level;
//! - only a word with several dense terms or very long lists (a short prefix) is spread into
//!   full-width bitsets as before, kept across queries (module `spreads`).
//!
//! When no word has a dense part, ranking visits only the blocks the words' lists touch, so a
//! query of rare words costs what their postings cost; otherwise it visits every block, but
//! reads one bitset per frequent word instead of three copies of every word's.

use super::parts::Posting;
use super::scratch::{Expansion, Scratch, SparseBlock};
use super::{LEVELS, MAX_QUERY_WORDS, SearchIndex};

/// A full-width bitset: a dense posting of the index, or set `set` of the query's spread word
/// `slot` (`Scratch::spreads`, module `spreads`), numbered `slot * LEVELS + set`.
#[derive(Debug, Clone, Copy)]
enum Dense {
    Index(u32),
    Spread(u8),
}

/// Sets of the query's spread words a view resolves up front: every level of every word.
const SPREAD_SETS: usize = MAX_QUERY_WORDS * LEVELS;

/// The documents one query word matches: per typo level a full-width part (or none), and the
/// sparse part `Scratch::sparse[start..end]`, blocks increasing.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct WordSet {
    dense: [Option<Dense>; LEVELS],
    start: u32,
    end: u32,
}

/// Reads the parts of the words' sets; borrows the index and the scratch buffers.
pub(super) struct SetView<'a> {
    index_dense: &'a [u64],
    /// The query's spread sets ([`Dense::Spread`]), resolved once per view: read block by
    /// block, a set behind its `Arc` cost a pointer chase and a bounds check more per read
    /// than a dense posting (callgrind at a million products: 2 % more instructions).
    spread_sets: [&'a [u64]; SPREAD_SETS],
    sparse: &'a [SparseBlock],
    blocks: usize,
}

impl<'a> SetView<'a> {
    pub(super) fn new(index: &'a SearchIndex, scratch: &'a Scratch) -> Self {
        let mut spread_sets: [&[u64]; SPREAD_SETS] = [&[]; SPREAD_SETS];
        for (slots, spread) in spread_sets.chunks_mut(LEVELS).zip(&scratch.spreads) {
            for (slot, set) in slots.iter_mut().zip(spread.sets(scratch.blocks)) {
                *slot = set;
            }
        }
        Self {
            index_dense: &index.postings.dense,
            spread_sets,
            sparse: &scratch.sparse,
            blocks: scratch.blocks,
        }
    }

    /// Blocks of 64 documents in a full-width set.
    pub(super) fn blocks(&self) -> usize {
        self.blocks
    }

    /// Blocks `start..start + len` of a full-width part.
    #[inline]
    fn dense_slice(&self, dense: Dense, start: usize, len: usize) -> &'a [u64] {
        match dense {
            Dense::Index(set) => {
                let from = set as usize * self.blocks + start;
                &self.index_dense[from..from + len]
            }
            Dense::Spread(set) => &self.spread_sets[usize::from(set)][start..start + len],
        }
    }

    #[inline]
    fn dense_block(&self, dense: Dense, block: usize) -> u64 {
        match dense {
            Dense::Index(set) => self.index_dense[set as usize * self.blocks + block],
            Dense::Spread(set) => self.spread_sets[usize::from(set)][block],
        }
    }
}

impl WordSet {
    /// The word's set from its expansions (all of them for this word).
    pub(super) fn build<'e>(
        index: &SearchIndex,
        scratch: &mut Scratch,
        expansions: impl Iterator<Item = &'e Expansion> + Clone,
    ) -> WordSet {
        let postings = &index.postings;
        let mut dense_terms = 0usize;
        let mut dense_term = None;
        let mut list_docs = 0usize;
        for e in expansions.clone() {
            match postings.of_term[e.term as usize] {
                Posting::Dense { index } => {
                    dense_terms += 1;
                    dense_term = Some((index, e.typos));
                }
                Posting::List { len, .. } => list_docs += len as usize,
            }
        }
        if dense_terms > 1 || list_docs > scratch.spread_from_docs {
            return Self::spread(index, scratch, &expansions);
        }
        let mut set = WordSet::default();
        if let Some((dense, typos)) = dense_term {
            for level in usize::from(typos)..LEVELS {
                set.dense[level] = Some(Dense::Index(dense));
            }
        }
        // Documents with their typos (`doc << 2 | typos`), sorted, then grouped by block.
        let mut pending = std::mem::take(&mut scratch.pending);
        pending.clear();
        let mut lists = 0;
        for e in expansions {
            if let Posting::List { start, len } = postings.of_term[e.term as usize] {
                let docs = &postings.docs[start as usize..(start + len) as usize];
                pending.extend(
                    docs.iter()
                        .map(|&doc| u64::from(doc) << 2 | u64::from(e.typos)),
                );
                lists += 1;
            }
        }
        if lists > 1 {
            pending.sort_unstable();
        }
        set.start = scratch.sparse.len() as u32;
        for &entry in &pending {
            let doc = (entry >> 2) as u32;
            let typos = (entry & 3) as usize;
            let block = doc / 64;
            let bit = 1u64 << (doc % 64);
            if scratch.sparse.last().is_none_or(|last| last.block != block)
                || scratch.sparse.len() == set.start as usize
            {
                scratch.sparse.push(SparseBlock {
                    block,
                    levels: [0; LEVELS],
                });
            }
            if let Some(last) = scratch.sparse.last_mut() {
                for level in typos.min(LEVELS)..LEVELS {
                    last.levels[level] |= bit;
                }
            }
        }
        set.end = scratch.sparse.len() as u32;
        scratch.pending = pending;
        set
    }

    /// The word spread into one full-width set per typo level, kept across queries (module
    /// `spreads`).
    fn spread<'e>(
        index: &SearchIndex,
        scratch: &mut Scratch,
        expansions: &(impl Iterator<Item = &'e Expansion> + Clone),
    ) -> WordSet {
        let terms = expansions.clone().map(|e| (e.term, e.typos)).collect();
        let spread = index.spreads.spread(&index.postings, &terms);
        // At most one spread a query word, so the numbers fit (`SPREAD_SETS`).
        let first = (scratch.spreads.len() * LEVELS) as u8;
        let mut set = WordSet::default();
        for (level, dense) in set.dense.iter_mut().enumerate() {
            *dense = Some(Dense::Spread(first + spread.set_of_level(level)));
        }
        scratch.spreads.push(spread);
        set.start = scratch.sparse.len() as u32;
        set.end = set.start;
        set
    }

    /// Whether any part of the word is full width (then every block may hold its documents).
    pub(super) fn has_dense(&self) -> bool {
        self.dense[LEVELS - 1].is_some()
    }

    /// The first of the word's sparse blocks, where a cursor starts.
    pub(super) fn cursor(&self) -> u32 {
        self.start
    }

    /// A cursor at the start of each of `sets` (for [`WordSet::any_at`] and the like).
    pub(super) fn cursors(sets: &[WordSet]) -> [u32; MAX_QUERY_WORDS] {
        let mut cursors = [0u32; MAX_QUERY_WORDS];
        for (cursor, set) in cursors.iter_mut().zip(sets) {
            *cursor = set.cursor();
        }
        cursors
    }

    /// The blocks of the sparse part.
    pub(super) fn sparse_blocks<'v>(&self, view: &SetView<'v>) -> &'v [SparseBlock] {
        &view.sparse[self.start as usize..self.end as usize]
    }

    /// The word's documents in block `block` at every typo level. `cursor` starts at
    /// [`WordSet::cursor`] and moves forward, so `block` must not decrease between calls.
    pub(super) fn levels_at(&self, view: &SetView<'_>, block: u32, cursor: &mut u32) -> [u64; 3] {
        let mut levels = [0u64; LEVELS];
        for (level, dense) in levels.iter_mut().zip(self.dense) {
            if let Some(dense) = dense {
                *level = view.dense_block(dense, block as usize);
            }
        }
        while *cursor < self.end && view.sparse[*cursor as usize].block < block {
            *cursor += 1;
        }
        if *cursor < self.end {
            let sparse = &view.sparse[*cursor as usize];
            if sparse.block == block {
                for (level, bits) in levels.iter_mut().zip(sparse.levels) {
                    *level |= bits;
                }
            }
        }
        levels
    }

    /// The word's documents in block `block` at any typo level ([`WordSet::levels_at`]'s last).
    pub(super) fn any_at(&self, view: &SetView<'_>, block: u32, cursor: &mut u32) -> u64 {
        self.level_at(view, LEVELS - 1, block, cursor)
    }

    /// The word's documents with at most `level` typos in block `block` (one of
    /// [`WordSet::levels_at`]'s, the others not read). `cursor` as there.
    pub(super) fn level_at(
        &self,
        view: &SetView<'_>,
        level: usize,
        block: u32,
        cursor: &mut u32,
    ) -> u64 {
        let mut bits = self.dense[level].map_or(0, |dense| view.dense_block(dense, block as usize));
        while *cursor < self.end && view.sparse[*cursor as usize].block < block {
            *cursor += 1;
        }
        if *cursor < self.end {
            let sparse = &view.sparse[*cursor as usize];
            if sparse.block == block {
                bits |= sparse.levels[level];
            }
        }
        bits
    }

    /// The word's documents with at most `level` typos in blocks `start..start + len`: the
    /// full-width part itself when none of the sparse part's blocks is among them (no copy),
    /// else `buffer` filled. `cursor` as for [`WordSet::any_at`]; `start` must not decrease.
    pub(super) fn level_in<'s>(
        &self,
        view: &SetView<'s>,
        level: usize,
        start: usize,
        len: usize,
        cursor: &mut u32,
        buffer: &'s mut [u64],
    ) -> &'s [u64] {
        let first = *cursor as usize;
        while *cursor < self.end && (view.sparse[*cursor as usize].block as usize) < start + len {
            *cursor += 1;
        }
        let sparse = &view.sparse[first..*cursor as usize];
        let dense = self.dense[level].map(|dense| view.dense_slice(dense, start, len));
        if let Some(dense) = dense
            && sparse.is_empty()
        {
            return dense;
        }
        let buffer = &mut buffer[..len];
        match dense {
            Some(dense) => buffer.copy_from_slice(dense),
            None => buffer.fill(0),
        }
        for entry in sparse.iter().filter(|entry| entry.block as usize >= start) {
            buffer[entry.block as usize - start] |= entry.levels[level];
        }
        buffer
    }
}

/// The documents where a query word counts as matched exactly: the typo-free level of a word,
/// or (for the word being typed, whose typo-free level holds its completions) the postings of
/// its own term.
#[derive(Debug, Clone, Copy)]
pub(super) enum ExactSet {
    Word(usize),
    Term(u32),
}

impl ExactSet {
    /// The query words among `sets` that are [`ExactSet::Word`]s, one bit each.
    pub(super) fn words_of(sets: &[ExactSet]) -> u32 {
        sets.iter().fold(0, |words, set| match set {
            ExactSet::Word(word) => words | 1 << word,
            ExactSet::Term(_) => words,
        })
    }

    /// The set's documents in block `block`, given the query words' typo-free documents there
    /// (`exact_levels`, per word). `cursor` starts at 0 and moves forward with the blocks,
    /// which must not decrease between calls.
    pub(super) fn block_at(
        self,
        index: &SearchIndex,
        view: &SetView<'_>,
        exact_levels: &[u64],
        block: u32,
        cursor: &mut usize,
    ) -> u64 {
        match self {
            ExactSet::Word(word) => exact_levels[word],
            // A term of the live segment alone (module `live`): no document of the index.
            ExactSet::Term(term) => match index.postings.of_term.get(term as usize).copied() {
                None => 0,
                Some(Posting::List { start, len }) => {
                    let docs = &index.postings.docs[start as usize..(start + len) as usize];
                    let first = block * 64;
                    *cursor += docs[*cursor..].partition_point(|&doc| doc < first);
                    let mut bits = 0u64;
                    for &doc in docs[*cursor..].iter().take_while(|&&doc| doc - first < 64) {
                        bits |= 1 << (doc - first);
                    }
                    bits
                }
                Some(Posting::Dense { index: set }) => {
                    view.dense_block(Dense::Index(set), block as usize)
                }
            },
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::gtins::GtinLookup;
    use super::super::{SearchIndex, SearchOutcome, SearchRequest};
    use super::super::{candidates, query};
    use super::*;

    /// Every request ranked with two scratch settings, asserted to give the same outcome; the
    /// outcomes, with the number of requests where the first setting's `differs` held.
    fn same_both_ways(
        index: &SearchIndex,
        requests: &[SearchRequest<'_>],
        setup: [fn(&mut Scratch); 2],
        differs: fn(&Scratch) -> bool,
    ) -> (Vec<SearchOutcome>, usize) {
        let mut first = Scratch::new(index.dictionary.term_count(), index.len());
        setup[0](&mut first);
        let mut second = Scratch::new(index.dictionary.term_count(), index.len());
        setup[1](&mut second);
        let mut differing = 0;
        let mut outcomes = Vec::new();
        for request in requests {
            let gtins = GtinLookup::Map(index.codes.gtins.map().unwrap());
            let one = query::run(index, &mut first, request, &gtins);
            differing += usize::from(differs(&first));
            let other = query::run(index, &mut second, request, &gtins);
            assert_eq!(one, other, "{request:?}");
            outcomes.push(one);
        }
        (outcomes, differing)
    }

    /// A generated catalogue's index, and texts of every kind: titles, parts of titles, typos,
    /// prefixes, codes, no match; with three style codes for filters.
    pub(in crate::search) fn fixture() -> (SearchIndex, Vec<String>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let catalogue = super::super::tests::generated_catalogue(dir.path(), 3_001, 9);
        let conn = rusqlite::Connection::open(&catalogue).unwrap();
        let index = SearchIndex::build(&conn).unwrap();
        let mut texts: Vec<String> = conn
            .prepare("SELECT title, sku FROM products ORDER BY pk LIMIT 40")
            .unwrap()
            .query_map([], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
            })
            .unwrap()
            .flat_map(|row| {
                let (title, sku) = row.unwrap();
                let words: Vec<&str> = title.split_whitespace().collect();
                let typo: String = title.chars().filter(|&c| c != 'o').collect();
                vec![
                    title.clone(),
                    words[..words.len().min(2)].join(" "),
                    words[words.len() / 2..].join(" "),
                    typo,
                    title.chars().take(5).collect(),
                    format!("{sku} {}", words[0]),
                    format!("{} zzzq qqzx", words[words.len() - 1]),
                ]
            })
            .collect();
        texts.extend(
            [
                "nike",
                "jordan 1 chicgo",
                "yezy",
                "new balence 550",
                "a",
                "j",
                "zzzz q",
                "dunk lo ",
                "nike jordan adidas yeezy asics puma salomon balance",
            ]
            .map(String::from),
        );
        let skus: Vec<String> = conn
            .prepare("SELECT sku FROM products ORDER BY pk LIMIT 3")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        (index, texts, skus)
    }

    /// Each text on two pages (20 from the first, 100 from the 21st) and filtered by a code.
    pub(in crate::search) fn requests<'t>(
        texts: &'t [String],
        skus: &'t [String],
    ) -> Vec<SearchRequest<'t>> {
        let mut requests = Vec::new();
        for text in texts {
            for (offset, limit) in [(0, 20), (20, 100)] {
                requests.push(SearchRequest {
                    text,
                    offset,
                    limit,
                    ..SearchRequest::default()
                });
            }
            requests.push(SearchRequest {
                text,
                sku: Some(&skus[0]),
                limit: 20,
                ..SearchRequest::default()
            });
        }
        requests
    }

    #[test]
    fn sparse_word_sets_rank_as_full_width_bitsets_do() {
        let (index, texts, skus) = fixture();
        let requests = requests(&texts, &skus);
        let (kept, sparse_words) = same_both_ways(
            &index,
            &requests,
            [
                |scratch| scratch.spread_from_docs = usize::MAX,
                |scratch| {
                    scratch.spread_from_docs = 0;
                    scratch.shortcuts.top_first = false;
                },
            ],
            |scratch| !scratch.sparse.is_empty(),
        );
        // The comparison means something only if words were kept sparse.
        assert!(sparse_words > requests.len() / 2, "{sparse_words} sparse");
        assert!(
            kept.iter()
                .any(|outcome| outcome.estimated_total_hits > 1_000)
        );
    }

    #[test]
    fn counting_only_the_best_tiers_blocks_ranks_as_counting_every_block() {
        let (index, texts, skus) = fixture();
        let requests = requests(&texts, &skus);
        let (_, fewer) = same_both_ways(
            &index,
            &requests,
            // Without the best bucket first, which would leave the passes compared unused.
            [
                |scratch| {
                    scratch.shortcuts.prune = true;
                    scratch.shortcuts.top_first = false;
                },
                |scratch| {
                    scratch.shortcuts.prune = false;
                    scratch.shortcuts.top_first = false;
                },
            ],
            |scratch| {
                let candidate_blocks = scratch
                    .tiers
                    .iter()
                    .filter(|&&tier| usize::from(tier) <= candidates::TIERS);
                scratch.counted.len() < candidate_blocks.count()
            },
        );
        // The comparison means something only if blocks were left out.
        assert!(
            fewer > requests.len() / 5,
            "{fewer} of {} pruned",
            requests.len()
        );
    }

    #[test]
    fn the_best_bucket_alone_ranks_as_every_bucket_does_and_counts_every_hit() {
        let (index, texts, skus) = fixture();
        let mut requests = requests(&texts, &skus);
        // Pages deep enough that the best bucket (or the window) no longer holds them, and
        // pages of two (where a style code's other products, a small best bucket, hold the
        // rest after its hit).
        for text in &texts {
            for (offset, limit) in [(900, 100), (0, 2), (40, 30)] {
                requests.push(SearchRequest {
                    text,
                    offset,
                    limit,
                    ..SearchRequest::default()
                });
            }
        }
        let (_, stopped) = same_both_ways(
            &index,
            &requests,
            // Buckets ranked 64 documents at a time, so that many outgrow the window and the
            // pass stops looking for the best bucket's documents before the last block.
            [
                |scratch| {
                    scratch.shortcuts.top_first = true;
                    scratch.rank_window = 64;
                },
                |scratch| {
                    scratch.shortcuts.top_first = false;
                    scratch.rank_window = 64;
                },
            ],
            // The best bucket held the page: it was ranked, and no first pass ran.
            |scratch| scratch.tiers.is_empty() && !scratch.active.is_empty(),
        );
        // The comparison means something only if many pages came from the best bucket alone,
        // and some did not.
        assert!(
            stopped > requests.len() / 10 && stopped < requests.len(),
            "{stopped} of {} from the best bucket",
            requests.len()
        );
    }

    #[test]
    fn giving_up_on_the_best_bucket_early_ranks_and_counts_as_reading_it_to_the_end() {
        let (index, texts, skus) = fixture();
        let requests = requests(&texts, &skus);
        let (_, abandoned) = same_both_ways(
            &index,
            &requests,
            [
                |scratch| scratch.shortcuts.abandon = true,
                |scratch| scratch.shortcuts.abandon = false,
            ],
            |scratch| scratch.abandoned,
        );
        // The comparison means something only if passes were given up.
        assert!(
            abandoned > requests.len() / 20,
            "{abandoned} of {} given up",
            requests.len()
        );
    }

    #[test]
    fn the_count_past_the_window_is_estimated_from_a_sample_with_the_same_pages() {
        let (index, texts, skus) = fixture();
        let requests = requests(&texts, &skus);
        // Windows of 64 documents, so that the best bucket fills one in the first chunk and
        // the rest of the pass counts from the sample.
        let scratch = |sampled_from_blocks| {
            let mut scratch = Scratch::new(index.dictionary.term_count(), index.len());
            scratch.rank_window = 64;
            scratch.sampled_from_blocks = sampled_from_blocks;
            scratch
        };
        let (mut sampled, mut counted) = (scratch(0), scratch(usize::MAX));
        let (mut estimated, mut large) = (0, 0);
        for request in &requests {
            let gtins = GtinLookup::Map(index.codes.gtins.map().unwrap());
            let estimate = query::run(&index, &mut sampled, request, &gtins);
            let exact = query::run(&index, &mut counted, request, &gtins);
            assert_eq!(estimate.product_pks, exact.product_pks, "{request:?}");
            let (estimate, exact) = (estimate.estimated_total_hits, exact.estimated_total_hits);
            estimated += usize::from(estimate != exact);
            if exact >= 1_000 {
                large += 1;
                // A fifth of the fixture's blocks are read past the window: within a fifth.
                assert!(
                    estimate.abs_diff(exact) * 5 <= exact,
                    "{request:?}: {estimate} estimated, {exact} counted"
                );
            }
        }
        // The comparison means something only if many counts were estimated, large ones
        // among them.
        assert!(estimated > requests.len() / 20, "{estimated} estimated");
        assert!(large > 10, "{large} large counts");
    }

    #[test]
    fn scoring_a_window_in_order_first_ranks_as_bounds_alone_do() {
        let (index, texts, skus) = fixture();
        let requests = requests(&texts, &skus);
        let (_, ended) = same_both_ways(
            &index,
            &requests,
            [
                |scratch| scratch.shortcuts.in_order = true,
                |scratch| scratch.shortcuts.in_order = false,
            ],
            // A window larger than the page was ranked without a bound: the scan in order
            // ended it (or every document could equal the title, which none of these can).
            |scratch| scratch.bounds.is_empty() && scratch.window.len() > 100,
        );
        // The comparison means something only if the scan ended many windows.
        assert!(
            ended > requests.len() / 10,
            "{ended} of {} ended in order",
            requests.len()
        );
    }

    #[test]
    fn ranking_a_window_by_bounds_gives_the_page_scoring_every_document_gives() {
        let (index, texts, skus) = fixture();
        let mut requests = requests(&texts, &skus);
        for text in &texts {
            requests.push(SearchRequest {
                text,
                offset: 40,
                limit: 30,
                ..SearchRequest::default()
            });
        }
        // Windows of 256 documents, so that the fixture's buckets outgrow them; the second
        // way scores every document of every window.
        let (_, bounded) = same_both_ways(
            &index,
            &requests,
            [
                |scratch| scratch.rank_window = 256,
                |scratch| {
                    scratch.rank_window = 256;
                    scratch.shortcuts.bounded = false;
                },
            ],
            |scratch| !scratch.bounds.is_empty(),
        );
        // The comparison means something only if many windows were ranked by bounds.
        assert!(
            bounded > requests.len() / 5,
            "{bounded} of {} by bounds",
            requests.len()
        );
    }

    #[test]
    fn title_sketches_bound_a_window_so_that_fewer_documents_are_scored() {
        let (index, texts, skus) = fixture();
        let requests = requests(&texts, &skus);
        // Windows of 256 documents, ranked by bounds from the start: with the sketches', or
        // throughout with the bound that knows no position.
        let settings: [fn(&mut Scratch); 2] = [
            |scratch| {
                scratch.rank_window = 256;
                scratch.shortcuts.plain_first = false;
            },
            |scratch| {
                scratch.rank_window = 256;
                scratch.shortcuts.plain_first = false;
                scratch.shortcuts.sketched = false;
            },
        ];
        let (_, bounded) = same_both_ways(&index, &requests, settings, |scratch| {
            !scratch.bounds.is_empty()
        });
        assert!(bounded > requests.len() / 5, "{bounded} by bounds");
        let scored = |setup: fn(&mut Scratch)| {
            let mut scratch = Scratch::new(index.dictionary.term_count(), index.len());
            setup(&mut scratch);
            for request in &requests {
                let gtins = GtinLookup::Map(index.codes.gtins.map().unwrap());
                query::run(&index, &mut scratch, request, &gtins);
            }
            scratch.scored
        };
        let (with, without) = (scored(settings[0]), scored(settings[1]));
        // The sketches' positions tell apart the titles whose words are not next to each
        // other, so far fewer documents are scored to prove a page.
        assert!(
            with * 2 < without,
            "{with} scored with sketches, {without} without"
        );
    }
}
