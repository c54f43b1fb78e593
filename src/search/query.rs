//! Running one query: filters, code hits, term expansion, then the bucket sort of the ranking
//! rules (see the module documentation of [`super`] for the rules themselves).

use fst::{Automaton, IntoStreamer, Streamer};

use super::bucket::{Bucket, LiveEntries, no_live_entries, rank_bucket};
use super::candidates::{Filters, TIERS, count_pass, first_pass, top_pass};
use super::docs::Docs;
use super::gtins::{GtinLookup, parse_gtin};
use super::parts::title_code;
use super::scratch::{COUNT_PLANES, Expansion, PLANES, Scratch};
use super::stages::{self, Path, Stage};
use super::text::{for_each_word, typo_budget};
use super::wordsets::{ExactSet, SetView, WordSet};
use super::{MAX_QUERY_WORDS, PREFIX_EXPANSIONS, SearchIndex, SearchOutcome, SearchRequest, bits};
use crate::catalogue::generate::{normalize_sku, normalize_sku_into};

mod live_part;

pub(in crate::search) use self::live_part::LivePart;

/// Whitespace-separated chunks of the text examined for codes.
pub(super) const MAX_CODE_CHUNKS: usize = 32;
/// Longest normalized text looked up as a style code.
const MAX_CODE_BYTES: usize = 32;

/// One word of the query.
pub(super) struct QueryWord {
    pub(super) text: String,
    /// The last word, still being typed: it also matches as a prefix.
    pub(super) prefix: bool,
    pub(super) budget: u8,
}

pub(crate) fn run(
    index: &SearchIndex,
    scratch: &mut Scratch,
    request: &SearchRequest<'_>,
    gtins: &GtinLookup<'_>,
) -> SearchOutcome {
    run_over(index, scratch, request, gtins, None)
}

/// [`run`], over the index and, when given, a live segment over it (module `live`): ranked as
/// one index holding the index's documents it did not replace and the segment's.
pub(crate) fn run_over(
    index: &SearchIndex,
    scratch: &mut Scratch,
    request: &SearchRequest<'_>,
    gtins: &GtinLookup<'_>,
    mut live: Option<&mut (dyn LivePart + '_)>,
) -> SearchOutcome {
    stages::begin();
    let mut allowed = filtered(index, request, gtins);
    let mut live_allowed = false;
    if let Some(live) = live.as_deref_mut() {
        if let Some(docs) = &mut allowed {
            docs.retain(|&doc| !live.is_dead(doc));
        }
        live_allowed = live.filter(request);
    }
    if allowed.as_ref().is_some_and(Vec::is_empty) && !live_allowed {
        stages::took(Path::Unranked);
        return SearchOutcome {
            product_pks: Vec::new(),
            estimated_total_hits: 0,
        };
    }
    let words = parse_words(request.text);
    if words.is_empty() {
        stages::took(Path::Unranked);
        if let Some(live) = live {
            return live.listing(allowed.as_deref(), request.offset, request.limit);
        }
        // No text: by popularity, which is document order.
        if let Some(docs) = allowed {
            return page(index, &docs, request, docs.len() as u64);
        }
        let start = request.offset.min(index.len());
        let end = start.saturating_add(request.limit).min(index.len());
        return SearchOutcome {
            product_pks: index.pks[start..end].to_vec(),
            estimated_total_hits: index.len() as u64,
        };
    }
    let mut code_hits = code_hits(index, request.text, allowed.as_deref(), gtins);
    if let Some(live) = live.as_deref_mut() {
        code_hits.retain(|&doc| !live.is_dead(doc));
        code_hits = live.with_code_hits(request.text, &code_hits);
    }
    let need = request.offset.saturating_add(request.limit);
    scratch.spreads.clear();
    scratch.abandoned = false;
    scratch.sparse.clear();
    scratch.tiers.clear();
    let mut typed_words = 0usize;
    for_each_word(request.text, |_| typed_words += 1);
    let (ranked, total) = rank(
        index,
        scratch,
        (&words, typed_words),
        allowed.as_deref(),
        &code_hits,
        need,
        live.as_deref_mut(),
    );
    scratch.terms.clear();
    if let Some(live) = live {
        return live.page(&ranked, request.offset, request.limit, total);
    }
    page(index, &ranked, request, total)
}

fn page(
    index: &SearchIndex,
    docs: &[u32],
    request: &SearchRequest<'_>,
    total: u64,
) -> SearchOutcome {
    let start = request.offset.min(docs.len());
    let end = start.saturating_add(request.limit).min(docs.len());
    SearchOutcome {
        product_pks: docs[start..end]
            .iter()
            .map(|&doc| index.pks[doc as usize])
            .collect(),
        estimated_total_hits: total,
    }
}

/// Documents passing the `sku` and `gtin` filters, increasing; `None` without filters.
/// A filter that is empty or blank counts as absent (`?sku=` in a URL).
fn filtered(
    index: &SearchIndex,
    request: &SearchRequest<'_>,
    gtins: &GtinLookup<'_>,
) -> Option<Vec<u32>> {
    let mut result: Option<Vec<u32>> = None;
    if let Some(sku) = request.sku.filter(|s| !s.trim().is_empty()) {
        let norm = normalize_sku(sku);
        result = Some(index.codes.skus.get(norm.as_str()).collect());
    }
    if let Some(gtin) = request.gtin.filter(|s| !s.trim().is_empty()) {
        let docs: Vec<u32> = parse_gtin(gtin)
            .map(|value| gtins.get(value))
            .unwrap_or_default();
        result = Some(match result {
            Some(previous) => previous.into_iter().filter(|d| docs.contains(d)).collect(),
            None => docs,
        });
    }
    if let Some(pks) = request.pks {
        let docs = index.docs_of_pks(pks);
        result = Some(match result {
            Some(previous) => previous
                .into_iter()
                .filter(|d| docs.binary_search(d).is_ok())
                .collect(),
            None => docs,
        });
    }
    if let Some(docs) = &mut result {
        docs.sort_unstable();
        docs.dedup();
    }
    result
}

fn parse_words(text: &str) -> Vec<QueryWord> {
    let mut words = Vec::new();
    let mut total = 0usize;
    for_each_word(text, |word| {
        total += 1;
        if words.len() < MAX_QUERY_WORDS {
            words.push(QueryWord {
                text: word.to_owned(),
                prefix: false,
                budget: typo_budget(word),
            });
        }
    });
    // The last word is still being typed unless the text ends with a space.
    let still_typing = text.chars().last().is_some_and(|c| !c.is_whitespace());
    if still_typing
        && total == words.len()
        && let Some(last) = words.last_mut()
    {
        last.prefix = true;
    }
    words
}

/// A code looked up exactly: a style code (normalized), GTIN-14 number, product id or slug.
#[derive(Debug, Clone, Copy)]
pub(super) enum CodeKey<'t> {
    Sku(&'t str),
    Gtin(u64),
    Id(u128),
    Slug(&'t str),
}

/// Products named exactly by a code in the text: style code (with or without dash or space),
/// GTIN, product id, slug or link. Increasing document order.
fn code_hits(
    index: &SearchIndex,
    text: &str,
    allowed: Option<&[u32]>,
    gtins: &GtinLookup<'_>,
) -> Vec<u32> {
    let codes = &index.codes;
    let mut hits = Vec::new();
    each_code_key(text, |key| match key {
        CodeKey::Sku(sku) => hits.extend(codes.skus.get(sku)),
        CodeKey::Gtin(value) => hits.extend(gtins.get(value)),
        CodeKey::Id(id) => hits.extend(codes.ids.get(&id)),
        CodeKey::Slug(slug) => hits.extend(codes.slugs.get(slug)),
    });
    if let Some(allowed) = allowed {
        hits.retain(|doc| allowed.binary_search(doc).is_ok());
    }
    hits.sort_unstable();
    hits.dedup();
    hits
}

/// Calls `each` with every code the text may name (module `live` looks them up in its own maps).
pub(super) fn each_code_key(text: &str, mut each: impl FnMut(CodeKey<'_>)) {
    let style_code = |normalized: &str, each: &mut dyn FnMut(CodeKey<'_>)| {
        if (4..=MAX_CODE_BYTES).contains(&normalized.len()) {
            each(CodeKey::Sku(normalized));
            if let Some(value) = parse_gtin(normalized) {
                each(CodeKey::Gtin(value));
            }
        }
    };
    // The chunks normalized once, back to back in one string: chunk `i` is
    // `normalized[ends[i]..ends[i + 1]]`, a pair of chunks the slice over both, and the whole
    // text (normalizing drops whitespace) that string with the chunks past the first
    // `MAX_CODE_CHUNKS` appended.
    let mut words = text.split_whitespace();
    let mut normalized = String::with_capacity(text.len());
    let mut ends = Vec::with_capacity(MAX_CODE_CHUNKS + 1);
    ends.push(0);
    for chunk in words.by_ref().take(MAX_CODE_CHUNKS) {
        let start = normalized.len();
        normalize_sku_into(chunk, &mut normalized);
        ends.push(normalized.len());
        style_code(&normalized[start..], &mut each);
        let trimmed = chunk.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        if trimmed.len() >= 32
            && let Ok(id) = uuid::Uuid::try_parse(trimmed)
        {
            each(CodeKey::Id(id.as_u128()));
        }
        let path = trimmed.split(['?', '#']).next().unwrap_or("");
        let segment = path.rsplit('/').next().unwrap_or("");
        if segment.contains('-') {
            each(CodeKey::Slug(segment.to_ascii_lowercase().as_str()));
        }
    }
    for pair in ends.windows(3) {
        style_code(&normalized[pair[0]..pair[2]], &mut each);
    }
    // More than two chunks: the whole text is neither one chunk nor a pair.
    if ends.len() > 3 {
        for rest in words {
            normalize_sku_into(rest, &mut normalized);
        }
        style_code(&normalized, &mut each);
    }
}

/// The terms query word `word` matches: itself, its completions if it is the last word, and
/// the words within its typo budget.
pub(super) fn expand(
    index: &SearchIndex,
    word_index: usize,
    word: &QueryWord,
    out: &mut Vec<Expansion>,
) {
    let dictionary = &index.dictionary;
    let bytes = word.text.as_bytes();
    let exact = dictionary
        .words
        .get(bytes)
        .or_else(|| dictionary.codes.get(bytes))
        .map(|id| id as u32);
    let mut push = Expansion::pusher(out, word_index);
    if let Some(term) = exact {
        push(term, 0, true);
    }
    if word.prefix {
        if let Some(completions) = dictionary.crowded_prefixes.get(bytes) {
            let completions = &completions[..completions.len().min(PREFIX_EXPANSIONS)];
            for &term in completions.iter().filter(|&&t| Some(t) != exact) {
                push(term, 0, false);
            }
        } else {
            for map in [&dictionary.words, &dictionary.codes] {
                let automaton = fst::automaton::Str::new(&word.text).starts_with();
                let mut stream = map.search(automaton).into_stream();
                while let Some((key, id)) = stream.next() {
                    if key != bytes {
                        push(id as u32, 0, false);
                    }
                }
            }
        }
    }
    if word.budget > 0 {
        let derived = index
            .derivations
            .derive(dictionary, bytes, word.budget, word.prefix);
        for &(term, typos) in derived.iter() {
            push(term, typos, false);
        }
    }
}

/// Ranks the candidates; returns the first `need` documents in order and the number of hits.
fn rank(
    index: &SearchIndex,
    scratch: &mut Scratch,
    (words, typed_words): (&[QueryWord], usize),
    allowed: Option<&[u32]>,
    code_hits: &[u32],
    need: usize,
    mut live: Option<&mut (dyn LivePart + '_)>,
) -> (Vec<u32>, u64) {
    let word_count = words.len();
    let timer = stages::start(Stage::WordSets);
    scratch.expansions.clear();
    for (i, word) in words.iter().enumerate() {
        match live.as_deref() {
            Some(live) => live.expand(i, word, &mut scratch.expansions),
            None => expand(index, i, word, &mut scratch.expansions),
        }
    }
    if let Some(live) = live.as_deref() {
        scratch.terms.ensure(live.term_count());
    }

    // Per word: documents matching with at most 0, 1 and 2 typos (module `wordsets`).
    let mut word_sets = [WordSet::default(); MAX_QUERY_WORDS];
    let expansions = std::mem::take(&mut scratch.expansions);
    let index_terms = index.dictionary.term_count();
    for (i, set) in word_sets[..word_count].iter_mut().enumerate() {
        let of_index = |e: &&Expansion| e.word == i && (e.term as usize) < index_terms;
        *set = WordSet::build(index, scratch, expansions.iter().filter(of_index));
        for e in expansions.iter().filter(|e| e.word == i) {
            let exact = if e.exact { 1 << (2 * i + 1) } else { 0 };
            scratch.terms.mark(e.term, 1 << (2 * i) | exact);
        }
    }
    let word_sets = &word_sets[..word_count];
    timer.stop();
    scratch.code_words.fill(0);
    for e in &expansions {
        scratch.code_words[usize::from(title_code(e.term))] |= 1 << e.word;
    }
    // Documents holding each word exactly (the word itself as a term): without a prefix that
    // is the typo-free set; for the prefix word, the postings of its exact term alone.
    let mut exact_sets = Vec::with_capacity(word_count);
    for (i, word) in words.iter().enumerate() {
        let Some(exact) = expansions.iter().find(|e| e.word == i && e.exact) else {
            continue;
        };
        exact_sets.push(if word.prefix {
            ExactSet::Term(exact.term)
        } else {
            ExactSet::Word(i)
        });
    }
    if let Some(live) = live.as_deref_mut() {
        let timer = stages::start(Stage::WordSets);
        live.find_candidates(&expansions, word_count, &exact_sets);
        timer.stop();
    }
    scratch.expansions = expansions;

    // Candidates: documents matching at least one word, within the filters, minus code hits.
    // Only the blocks that can hold one are visited: the filters' blocks when filtered, every
    // block when a word has a full-width part, else the blocks of the words' sparse parts (so
    // rare words cost what their postings cost).
    let mut visit = std::mem::take(&mut scratch.visit);
    visit.clear();
    let mut allowed_bits = std::mem::take(&mut scratch.allowed_bits);
    allowed_bits.clear();
    if let Some(allowed) = allowed {
        for &doc in allowed {
            let (block, bit) = (doc / 64, 1u64 << (doc % 64));
            if visit.last() == Some(&block) {
                if let Some(last) = allowed_bits.last_mut() {
                    *last |= bit;
                }
            } else {
                visit.push(block);
                allowed_bits.push(bit);
            }
        }
    } else if word_sets.iter().any(WordSet::has_dense) {
        visit.extend(0..scratch.blocks as u32);
    } else {
        let view = SetView::new(index, scratch);
        for set in word_sets {
            visit.extend(set.sparse_blocks(&view).iter().map(|entry| entry.block));
        }
        visit.sort_unstable();
        visit.dedup();
    }
    scratch.visit = visit;
    scratch.allowed_bits = allowed_bits;
    let index_docs = index.len() as u32;
    let mut removed: Vec<(u32, u64)> = code_hits
        .iter()
        .filter(|&&doc| doc < index_docs)
        .map(|&doc| (doc / 64, 1u64 << (doc % 64)))
        .collect();
    removed.sort_unstable();
    let live = live.as_deref();
    let filters = Filters {
        filtered: allowed.is_some(),
        removed: &removed,
        dead: live.and_then(LivePart::dead),
    };
    let live_count = live.map_or(0, |live| live.candidate_count() as u64);

    let query = PageQuery {
        words,
        typed_words,
        word_sets,
        exact_sets: &exact_sets,
        live,
    };
    match top_bucket_page(index, scratch, &query, &filters, code_hits, need) {
        Ok(found) => {
            stages::took(Path::BestBucket);
            return found;
        }
        Err(path) => stages::took(path),
    }

    // The first pass: the number of hits, and how many candidates miss none, one, two or three
    // of the words, with each block's best tier. The page is then taken from the blocks of the
    // fewest tiers that hold enough documents: rule 1's counters (the second pass) and rule 2's
    // are computed for those blocks only, not for every block a frequent word touches.
    let timer = stages::start(Stage::FirstPass);
    let first = first_pass(index, scratch, word_sets, &filters);
    timer.stop();
    let total = code_hits.len() as u64 + first.total + live_count;
    let mut out: Vec<u32> = Vec::with_capacity(need.min(code_hits.len() + 1024));
    out.extend_from_slice(code_hits);
    if out.len() >= need {
        return (out, total);
    }
    let wanted = (need - out.len()) as u64;
    let chosen = (0..TIERS)
        .take(word_count)
        .find(|&tier| scratch.shortcuts.prune && first.at_least[tier] >= wanted)
        .unwrap_or(TIERS);
    for tiers in [chosen, TIERS] {
        let timer = stages::start(Stage::CountPass);
        count_pass(index, scratch, word_sets, &filters, tiers);
        timer.stop();
        // With the blocks of the best tiers only, the buckets of fewer words matched than those
        // tiers are incomplete; they hold enough documents for the page, so they are never
        // reached (should they be, the page is ranked again over every candidate block).
        let floor = if tiers < TIERS { word_count - tiers } else { 1 };
        if fill_page(index, scratch, &query, floor, need, &mut out) {
            break;
        }
        out.truncate(code_hits.len());
        if tiers == TIERS {
            break;
        }
    }
    (out, total)
}

/// The page from the best bucket there can be, when that bucket holds it (every word matched,
/// each with the fewest typos its terms have: module `candidates`, [`top_pass`]); else the path
/// the ranking takes instead, which says why. The bucket is not looked for when the query is
/// filtered or visits only the blocks of rare words: then the passes over every bucket are
/// cheap.
fn top_bucket_page(
    index: &SearchIndex,
    scratch: &mut Scratch,
    query: &PageQuery<'_>,
    filters: &Filters<'_>,
    code_hits: &[u32],
    need: usize,
) -> Result<(Vec<u32>, u64), Path> {
    if filters.filtered {
        return Err(Path::EveryBucket);
    }
    if scratch.visit.len() != scratch.blocks {
        return Err(Path::RareWords);
    }
    let wanted = need
        .checked_sub(code_hits.len())
        .filter(|wanted| (1..=scratch.rank_window).contains(wanted))
        .ok_or(Path::EveryBucket)?;
    if !scratch.shortcuts.top_first {
        return Err(Path::EveryBucket);
    }
    let word_count = query.words.len();
    let mut levels = [0usize; MAX_QUERY_WORDS];
    for (i, level) in levels[..word_count].iter_mut().enumerate() {
        let fewest = scratch.expansions.iter().filter(|e| e.word == i);
        *level = usize::from(fewest.map(|e| e.typos).min().ok_or(Path::EveryBucket)?);
    }
    let levels = &levels[..word_count];
    let timer = stages::start(Stage::TopPass);
    let typos = levels.iter().sum::<usize>();
    let live_best = query
        .live
        .map_or(0, |live| live.bucket_size(word_count, typos));
    let top = top_pass(
        index,
        scratch,
        query.word_sets,
        levels,
        (filters.removed, filters.dead),
        (wanted as u64).saturating_sub(live_best),
    );
    timer.stop();
    let top = top.ok_or(if scratch.abandoned {
        Path::GaveUp
    } else {
        Path::BestBucketShort
    })?;
    let bucket = Bucket {
        matched: word_count,
        word_count,
        typed_words: query.typed_words,
        typos: typos as u32,
        exact_sets: query.exact_sets,
        word_sets: query.word_sets,
        best: true,
    };
    let mut out = Vec::with_capacity(need);
    out.extend_from_slice(code_hits);
    let docs = Docs::new(&index.forward, query.live.map(LivePart::docs));
    let mut live_best = live_entries(query.live, word_count, typos);
    rank_bucket(
        index,
        scratch,
        (&bucket, &docs, &mut live_best),
        wanted,
        &mut out,
    );
    let live_count = query.live.map_or(0, |live| live.candidate_count() as u64);
    Ok((out, code_hits.len() as u64 + top.total + live_count))
}

/// What ranking a bucket needs to know of the query.
struct PageQuery<'q> {
    words: &'q [QueryWord],
    typed_words: usize,
    word_sets: &'q [WordSet],
    exact_sets: &'q [ExactSet],
    /// The live segment's part of the query, over a live index.
    live: Option<&'q dyn LivePart>,
}

/// Appends the page's documents to `out` from the counted blocks, bucket by bucket (rules 1 and
/// 2, then rules 3-5 within a bucket), until it holds `need`; `false` when that would take a
/// bucket of fewer than `floor` words matched, whose documents the counted blocks may not all
/// hold.
fn fill_page(
    index: &SearchIndex,
    scratch: &mut Scratch,
    query: &PageQuery<'_>,
    floor: usize,
    need: usize,
    out: &mut Vec<u32>,
) -> bool {
    let PageQuery {
        words,
        typed_words,
        word_sets,
        exact_sets,
        live,
    } = *query;
    let docs = Docs::new(&index.forward, live.map(LivePart::docs));
    let word_count = words.len();
    let max_typos: u32 = words.iter().map(|w| u32::from(w.budget)).sum();
    let mut per_count = [0u64; MAX_QUERY_WORDS + 1];
    // Bucket sizes: each lane is counted once, in the first count (or typo total) it equals,
    // and a block stops once all its lanes are counted (most match few words, with no typo).
    for counters in &scratch.counts {
        let lanes = counters.iter().fold(0, |lanes, plane| lanes | plane);
        bits::tally(counters, lanes, 1..=word_count, &mut per_count);
    }
    if let Some(live) = live {
        live.count_by_matched(&mut per_count);
    }
    // The fewest words matched that the page can need: the buckets down to there hold enough
    // documents. Typo counters are computed for the blocks holding those buckets; should the
    // page need more (it should not), for every block.
    let wanted = (need - out.len()) as u64;
    let mut enough_from = 1;
    let mut above = 0u64;
    for matched in (1..=word_count).rev() {
        above += per_count[matched];
        if above >= wanted {
            enough_from = matched;
            break;
        }
    }
    let timer = stages::start(Stage::TypoCounters);
    typo_planes(index, scratch, word_sets, enough_from);
    timer.stop();
    for matched in (1..=word_count).rev() {
        if matched < floor {
            return false;
        }
        if per_count[matched] == 0 {
            continue;
        }
        if matched < enough_from && enough_from > 1 {
            enough_from = 1;
            let timer = stages::start(Stage::TypoCounters);
            typo_planes(index, scratch, word_sets, 1);
            timer.stop();
        }
        let mut per_typos = [0u64; 2 * MAX_QUERY_WORDS + 1];
        for planes in &scratch.planes {
            let lanes = bits::lanes_equal(&planes[..COUNT_PLANES], matched as u32);
            if lanes == 0 {
                continue;
            }
            let typo_counters = &planes[COUNT_PLANES..];
            bits::tally(typo_counters, lanes, 0..=max_typos as usize, &mut per_typos);
        }
        if let Some(live) = live {
            live.count_by_typos(matched, &mut per_typos);
        }
        for (typos, &size) in per_typos.iter().enumerate() {
            if size == 0 {
                continue;
            }
            let bucket = Bucket {
                matched,
                word_count,
                typed_words,
                typos: typos as u32,
                exact_sets,
                word_sets,
                best: false,
            };
            let wanted = need - out.len();
            let timer = stages::start(Stage::Buckets);
            let mut live_part = live_entries(live, matched, typos);
            rank_bucket(
                index,
                scratch,
                (&bucket, &docs, &mut live_part),
                wanted,
                out,
            );
            timer.stop();
            if out.len() >= need {
                return true;
            }
        }
    }
    true
}

/// The live candidates of bucket (`matched`, `typos`), in document order, as the ranking
/// takes them.
fn live_entries(live: Option<&dyn LivePart>, matched: usize, typos: usize) -> LiveEntries<'_> {
    live.map_or_else(no_live_entries, |live| {
        live.bucket(matched, typos).peekable()
    })
}

/// Fills `scratch.active` and `scratch.planes` (rules 1 and 2) with the counted blocks holding a
/// document that matches at least `from_matched` words.
fn typo_planes(
    index: &SearchIndex,
    scratch: &mut Scratch,
    word_sets: &[WordSet],
    from_matched: usize,
) {
    let mut active = std::mem::take(&mut scratch.active);
    let mut all_planes = std::mem::take(&mut scratch.planes);
    active.clear();
    all_planes.clear();
    let view = SetView::new(index, scratch);
    let mut cursors = WordSet::cursors(word_sets);
    for ((&b, counters), &candidates_block) in scratch
        .counted
        .iter()
        .zip(&scratch.counts)
        .zip(&scratch.candidate_bits)
    {
        let wanted = if from_matched <= 1 {
            u64::MAX
        } else {
            (from_matched..=word_sets.len())
                .fold(0, |lanes, c| lanes | bits::lanes_equal(counters, c as u32))
        };
        if wanted == 0 {
            continue;
        }
        let mut planes = [0u64; PLANES];
        planes[..COUNT_PLANES].copy_from_slice(counters);
        for (set, cursor) in word_sets.iter().zip(&mut cursors) {
            let [none, one_or_less, any] = set.levels_at(&view, b, cursor);
            let any = any & candidates_block;
            let one_typo = one_or_less & !none & candidates_block;
            let two_typos = any & !one_or_less;
            bits::add_bit(&mut planes[COUNT_PLANES..], one_typo);
            bits::add_bit(&mut planes[COUNT_PLANES + 1..], two_typos);
        }
        active.push(b);
        all_planes.push(planes);
    }
    scratch.active = active;
    scratch.planes = all_planes;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_word_is_a_prefix_only_while_typing() {
        let words = parse_words("jordan 1 chic");
        assert!(words[2].prefix && !words[0].prefix);
        assert!(!parse_words("jordan 1 chic ")[2].prefix);
        let many = parse_words(&"a ".repeat(30));
        assert_eq!(many.len(), MAX_QUERY_WORDS);
        assert!(many.iter().all(|w| !w.prefix));
    }
}
