//! Running one query: filters, code hits, term expansion, then the bucket sort of the ranking
//! rules (see the module documentation of [`super`] for the rules themselves).

use std::collections::BinaryHeap;

use fst::{Automaton, IntoStreamer, Streamer};

use super::build::{
    MAX_TITLE_POSITION, META_POSITION_SHIFT, META_RANK_MASK, META_TITLE, parse_gtin,
};
use super::text::{for_each_word, typo_budget};
use super::typo::TypoAutomaton;
use super::{MAX_QUERY_WORDS, RANK_WINDOW, SearchIndex, SearchOutcome, SearchRequest, bits};
use crate::catalogue::generate::normalize_sku;

/// Typo derivations kept per query word (in dictionary order), bounding the cost of a word.
const MAX_TYPO_EXPANSIONS: usize = 128;
/// Whitespace-separated chunks of the text examined for codes.
const MAX_CODE_CHUNKS: usize = 32;
/// Longest normalized text looked up as a style code.
const MAX_CODE_BYTES: usize = 32;

const COUNT_PLANES: usize = 4;
const TYPO_PLANES: usize = 5;
const PLANES: usize = COUNT_PLANES + TYPO_PLANES;
/// Proximity cost of a pair of words not both in the title.
const FAR: u32 = 8;

/// Per-query buffers, reused across queries (see `SearchIndex::scratch`).
pub(crate) struct Scratch {
    /// Term id -> for each query word `i`: bit `2i` the term matches it, bit `2i+1` exactly.
    term_info: Vec<u32>,
    /// Bitsets, `blocks` words each, back to back.
    sets: Vec<u64>,
    sets_used: usize,
    blocks: usize,
    /// Blocks with at least one candidate, and their bit-sliced counters.
    active: Vec<u32>,
    planes: Vec<[u64; PLANES]>,
    expansions: Vec<Expansion>,
    window: Vec<u32>,
    keys: Vec<u64>,
    bounds: Vec<u64>,
    heap: BinaryHeap<u64>,
}

impl Scratch {
    pub(crate) fn new(term_count: usize, doc_count: usize) -> Self {
        Self {
            term_info: vec![0; term_count],
            sets: Vec::new(),
            sets_used: 0,
            blocks: bits::blocks_for(doc_count),
            active: Vec::new(),
            planes: Vec::new(),
            expansions: Vec::new(),
            window: Vec::new(),
            keys: Vec::new(),
            bounds: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// A zeroed bitset; its number is valid until the end of the query.
    fn fresh_set(&mut self) -> usize {
        let index = self.sets_used;
        self.sets_used += 1;
        let end = self.sets_used * self.blocks;
        if self.sets.len() < end {
            self.sets.resize(end, 0);
        }
        self.sets[index * self.blocks..end].fill(0);
        index
    }

    fn set(&self, index: usize) -> &[u64] {
        &self.sets[index * self.blocks..(index + 1) * self.blocks]
    }

    fn set_mut(&mut self, index: usize) -> &mut [u64] {
        &mut self.sets[index * self.blocks..(index + 1) * self.blocks]
    }

    fn copy_set(&mut self, from: usize) -> usize {
        let to = self.fresh_set();
        let blocks = self.blocks;
        self.sets
            .copy_within(from * blocks..(from + 1) * blocks, to * blocks);
        to
    }
}

/// One word of the query.
struct QueryWord {
    text: String,
    /// The last word, still being typed: it also matches as a prefix.
    prefix: bool,
    budget: u8,
}

/// A term one query word matches.
#[derive(Clone, Copy)]
struct Expansion {
    word: usize,
    term: u32,
    typos: u8,
    exact: bool,
}

pub(crate) fn run(
    index: &SearchIndex,
    scratch: &mut Scratch,
    request: &SearchRequest<'_>,
) -> SearchOutcome {
    let allowed = filtered(index, request);
    if allowed.as_ref().is_some_and(Vec::is_empty) {
        return SearchOutcome {
            product_pks: Vec::new(),
            estimated_total_hits: 0,
        };
    }
    let words = parse_words(request.text);
    if words.is_empty() {
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
    let code_hits = code_hits(index, request.text, allowed.as_deref());
    let need = request.offset.saturating_add(request.limit);
    scratch.sets_used = 0;
    let (ranked, total) = rank(index, scratch, &words, allowed.as_deref(), &code_hits, need);
    for expansion in &scratch.expansions {
        scratch.term_info[expansion.term as usize] = 0;
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
fn filtered(index: &SearchIndex, request: &SearchRequest<'_>) -> Option<Vec<u32>> {
    let mut result: Option<Vec<u32>> = None;
    if let Some(sku) = request.sku.filter(|s| !s.trim().is_empty()) {
        let norm = normalize_sku(sku);
        result = Some(index.codes.skus.get(norm.as_str()).collect());
    }
    if let Some(gtin) = request.gtin.filter(|s| !s.trim().is_empty()) {
        let docs: Vec<u32> = parse_gtin(gtin)
            .map(|value| index.codes.gtins.get(&value).collect())
            .unwrap_or_default();
        result = Some(match result {
            Some(previous) => previous.into_iter().filter(|d| docs.contains(d)).collect(),
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

/// Products named exactly by a code in the text: style code (with or without dash or space),
/// GTIN, product id, slug or link. Increasing document order.
fn code_hits(index: &SearchIndex, text: &str, allowed: Option<&[u32]>) -> Vec<u32> {
    let codes = &index.codes;
    let mut hits = Vec::new();
    let chunks: Vec<&str> = text.split_whitespace().take(MAX_CODE_CHUNKS).collect();
    let style_code = |normalized: &str, hits: &mut Vec<u32>| {
        if (4..=MAX_CODE_BYTES).contains(&normalized.len()) {
            hits.extend(codes.skus.get(normalized));
            if let Some(value) = parse_gtin(normalized) {
                hits.extend(codes.gtins.get(&value));
            }
        }
    };
    for chunk in &chunks {
        style_code(&normalize_sku(chunk), &mut hits);
        let trimmed = chunk.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        if trimmed.len() >= 32
            && let Ok(id) = uuid::Uuid::try_parse(trimmed)
        {
            hits.extend(codes.ids.get(&id.as_u128()));
        }
        let path = trimmed.split(['?', '#']).next().unwrap_or("");
        let segment = path.rsplit('/').next().unwrap_or("");
        if segment.contains('-') {
            hits.extend(codes.slugs.get(segment.to_ascii_lowercase().as_str()));
        }
    }
    for pair in chunks.windows(2) {
        let mut joined = normalize_sku(pair[0]);
        joined.push_str(&normalize_sku(pair[1]));
        style_code(&joined, &mut hits);
    }
    if chunks.len() > 2 {
        style_code(&normalize_sku(text), &mut hits);
    }
    if let Some(allowed) = allowed {
        hits.retain(|doc| allowed.binary_search(doc).is_ok());
    }
    hits.sort_unstable();
    hits.dedup();
    hits
}

/// The terms query word `word` matches: itself, its completions if it is the last word, and
/// the words within its typo budget.
fn expand(index: &SearchIndex, word_index: usize, word: &QueryWord, out: &mut Vec<Expansion>) {
    let dictionary = &index.dictionary;
    let bytes = word.text.as_bytes();
    let exact = dictionary
        .words
        .get(bytes)
        .or_else(|| dictionary.codes.get(bytes))
        .map(|id| id as u32);
    let mut push = |term: u32, typos: u8, exact: bool| {
        out.push(Expansion {
            word: word_index,
            term,
            typos,
            exact,
        });
    };
    if let Some(term) = exact {
        push(term, 0, true);
    }
    if word.prefix {
        if let Some(completions) = dictionary.crowded_prefixes.get(bytes) {
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
        let automaton = TypoAutomaton::new(bytes, word.budget, word.prefix);
        let mut stream = dictionary.words.search_with_state(&automaton).into_stream();
        let mut kept = 0;
        while let Some((_, id, state)) = stream.next() {
            let typos = automaton.distance(&state);
            if typos == 0 {
                continue; // the word itself or a completion, taken above
            }
            push(id as u32, typos, false);
            kept += 1;
            if kept == MAX_TYPO_EXPANSIONS {
                break;
            }
        }
    }
}

/// Ranks the candidates; returns the first `need` documents in order and the number of hits.
fn rank(
    index: &SearchIndex,
    scratch: &mut Scratch,
    words: &[QueryWord],
    allowed: Option<&[u32]>,
    code_hits: &[u32],
    need: usize,
) -> (Vec<u32>, u64) {
    let word_count = words.len();
    scratch.expansions.clear();
    for (i, word) in words.iter().enumerate() {
        expand(index, i, word, &mut scratch.expansions);
    }

    // Per word: documents matching with at most 0, 1 and 2 typos.
    let mut word_sets = [[0usize; 3]; MAX_QUERY_WORDS];
    let expansions = std::mem::take(&mut scratch.expansions);
    for (i, word) in words.iter().enumerate() {
        let mut level = scratch.fresh_set();
        for typos in 0..=2u8 {
            if typos > 0 && typos <= word.budget {
                let has_any = expansions.iter().any(|e| e.word == i && e.typos == typos);
                if has_any {
                    level = scratch.copy_set(level);
                }
            }
            for e in expansions
                .iter()
                .filter(|e| e.word == i && e.typos == typos)
            {
                index
                    .postings
                    .union_into(e.term, scratch.set_mut(level), None);
            }
            word_sets[i][typos as usize] = level;
        }
        for e in expansions.iter().filter(|e| e.word == i) {
            let info = &mut scratch.term_info[e.term as usize];
            *info |= 1 << (2 * i);
            if e.exact {
                *info |= 1 << (2 * i + 1);
            }
        }
    }
    // Documents holding each word exactly (the word itself as a term): without a prefix that
    // is the typo-free set; for the prefix word, the postings of its exact term alone.
    let mut exact_sets = Vec::with_capacity(word_count);
    for (i, word) in words.iter().enumerate() {
        let Some(exact) = expansions.iter().find(|e| e.word == i && e.exact) else {
            continue;
        };
        if word.prefix {
            let set = scratch.fresh_set();
            index
                .postings
                .union_into(exact.term, scratch.set_mut(set), None);
            exact_sets.push(set);
        } else {
            exact_sets.push(word_sets[i][0]);
        }
    }
    scratch.expansions = expansions;

    // Candidates: documents matching at least one word, within the filters, minus code hits.
    let candidates = scratch.fresh_set();
    let blocks = scratch.blocks;
    for sets in &word_sets[..word_count] {
        let source = sets[2];
        for b in 0..blocks {
            let value = scratch.sets[source * blocks + b];
            scratch.sets[candidates * blocks + b] |= value;
        }
    }
    if let Some(allowed) = allowed {
        let mask = scratch.fresh_set();
        for &doc in allowed {
            bits::insert(scratch.set_mut(mask), doc);
        }
        for b in 0..blocks {
            let keep = scratch.sets[mask * blocks + b];
            scratch.sets[candidates * blocks + b] &= keep;
        }
    }
    for &doc in code_hits {
        let set = scratch.set_mut(candidates);
        set[doc as usize / 64] &= !(1 << (doc % 64));
    }
    let total = bits::count(scratch.set(candidates)) + code_hits.len() as u64;

    // Rules 1 and 2 as bit-sliced counters per block of 64 documents.
    let mut active = std::mem::take(&mut scratch.active);
    let mut all_planes = std::mem::take(&mut scratch.planes);
    active.clear();
    all_planes.clear();
    for (b, &block) in scratch.set(candidates).iter().enumerate() {
        if block != 0 {
            active.push(b as u32);
        }
    }
    for &b in &active {
        let b = b as usize;
        let candidates_block = scratch.sets[candidates * blocks + b];
        let mut planes = [0u64; PLANES];
        for sets in &word_sets[..word_count] {
            let block = |set: usize| scratch.sets[set * blocks + b];
            let any = block(sets[2]) & candidates_block;
            let one_or_less = block(sets[1]);
            let one_typo = one_or_less & !block(sets[0]) & candidates_block;
            let two_typos = any & !one_or_less;
            bits::add_bit(&mut planes[..COUNT_PLANES], any);
            bits::add_bit(&mut planes[COUNT_PLANES..], one_typo);
            bits::add_bit(&mut planes[COUNT_PLANES + 1..], two_typos);
        }
        all_planes.push(planes);
    }
    scratch.active = active;
    scratch.planes = all_planes;

    let mut out: Vec<u32> = Vec::with_capacity(need.min(code_hits.len() + 1024));
    out.extend_from_slice(code_hits);
    if out.len() >= need {
        return (out, total);
    }
    let max_typos: u32 = words.iter().map(|w| u32::from(w.budget)).sum();
    let any_sets: Vec<usize> = word_sets[..word_count].iter().map(|sets| sets[2]).collect();
    let mut top_sets: Vec<usize> = Vec::new();
    let mut per_count = [0u64; MAX_QUERY_WORDS + 1];
    for planes in &scratch.planes {
        for (c, slot) in per_count
            .iter_mut()
            .enumerate()
            .take(word_count + 1)
            .skip(1)
        {
            *slot += u64::from(bits::lanes_equal(&planes[..COUNT_PLANES], c as u32).count_ones());
        }
    }
    for matched in (1..=word_count).rev() {
        if per_count[matched] == 0 {
            continue;
        }
        let mut per_typos = [0u64; 2 * MAX_QUERY_WORDS + 1];
        for planes in &scratch.planes {
            let lanes = bits::lanes_equal(&planes[..COUNT_PLANES], matched as u32);
            if lanes == 0 {
                continue;
            }
            for (t, slot) in per_typos
                .iter_mut()
                .enumerate()
                .take(max_typos as usize + 1)
            {
                let typo_lanes = bits::lanes_equal(&planes[COUNT_PLANES..], t as u32);
                *slot += u64::from((lanes & typo_lanes).count_ones());
            }
        }
        for (typos, &size) in per_typos.iter().enumerate() {
            if size == 0 {
                continue;
            }
            let bucket = Bucket {
                matched,
                word_count,
                typos: typos as u32,
                exact_sets: &exact_sets,
                any_sets: &any_sets,
            };
            let wanted = need - out.len();
            rank_bucket(index, scratch, &bucket, &mut top_sets, wanted, &mut out);
            if out.len() >= need {
                return (out, total);
            }
        }
    }
    (out, total)
}

/// The documents with `matched` words matched and `typos` typos.
struct Bucket<'q> {
    matched: usize,
    word_count: usize,
    typos: u32,
    /// Per query word that is itself a term: the set of documents holding that term, the only
    /// documents where the word can count as matched exactly.
    exact_sets: &'q [usize],
    /// Per query word: the documents it matches.
    any_sets: &'q [usize],
}

impl Bucket<'_> {
    /// Calls `each` with the bucket's documents in increasing order until it returns `false`.
    fn for_each(&self, scratch: &Scratch, mut each: impl FnMut(u32) -> bool) {
        for (&b, planes) in scratch.active.iter().zip(&scratch.planes) {
            let mut lanes = bits::lanes_equal(&planes[..COUNT_PLANES], self.matched as u32)
                & bits::lanes_equal(&planes[COUNT_PLANES..], self.typos);
            while lanes != 0 {
                if !each(b * 64 + lanes.trailing_zeros()) {
                    return;
                }
                lanes &= lanes - 1;
            }
        }
    }

    /// Whether a document may have its title equal to the query (rule 5), which the early
    /// stop below cannot bound: such documents are scored up front.
    fn may_equal_title(&self, index: &SearchIndex, doc: u32) -> bool {
        self.matched == self.word_count
            && usize::from(index.forward.docs[doc as usize].title_distinct) <= self.word_count
    }

    /// The best key any other document of the bucket can have.
    /// The best key `doc` can have, if its title cannot equal the query: every matched word
    /// next to the previous one in the title, all in the title, exact wherever it can be.
    /// With `top_sets` (per word, documents matching it in the title or code), the bound also
    /// knows which words cannot be in the title.
    fn lower_bound(&self, scratch: &Scratch, top_sets: &[usize], doc: u32) -> u32 {
        let mut proximity = 0;
        let mut attribute = 0;
        if top_sets.len() == self.word_count {
            // A word matched outside the title and code has a field rank of at least 1, and a
            // pair with such a word is not both in the title.
            let mut previous_on_top: Option<bool> = None;
            for (&any, &top) in self.any_sets.iter().zip(top_sets) {
                if !bits::contains(scratch.set(any), doc) {
                    continue;
                }
                let on_top = bits::contains(scratch.set(top), doc);
                attribute += u32::from(!on_top);
                if let Some(before) = previous_on_top {
                    proximity += if before && on_top { 1 } else { FAR };
                }
                previous_on_top = Some(on_top);
            }
        } else {
            proximity = self.matched as u32 - 1;
        }
        let exact_at_most = self
            .exact_sets
            .iter()
            .filter(|&&set| bits::contains(scratch.set(set), doc))
            .count();
        pack_key(
            proximity,
            attribute,
            false,
            (self.word_count - exact_at_most) as u32,
        )
    }
}

fn pack_key(proximity: u32, attribute: u32, title_equal: bool, inexact_words: u32) -> u32 {
    proximity << 24 | attribute << 16 | u32::from(!title_equal) << 8 | inexact_words
}

/// Appends up to `wanted` documents of the bucket, ordered by rules 3-5 then document, in
/// windows of [`RANK_WINDOW`] documents.
fn rank_bucket(
    index: &SearchIndex,
    scratch: &mut Scratch,
    bucket: &Bucket,
    top_sets: &mut Vec<usize>,
    wanted: usize,
    out: &mut Vec<u32>,
) {
    let mut window = std::mem::take(&mut scratch.window);
    let mut keys = std::mem::take(&mut scratch.keys);
    let mut heap = std::mem::take(&mut scratch.heap);
    let mut bounds = std::mem::take(&mut scratch.bounds);
    let mut remaining = wanted;
    let mut skip = 0usize;
    loop {
        window.clear();
        let mut seen = 0usize;
        bucket.for_each(scratch, |doc| {
            seen += 1;
            if seen > skip {
                window.push(doc);
            }
            window.len() < RANK_WINDOW
        });
        skip += window.len();
        if window.is_empty() {
            break;
        }
        if window.len() <= remaining {
            let info = &scratch.term_info;
            keys.clear();
            keys.extend(window.iter().map(|&doc| key_of(index, info, bucket, doc)));
            keys.sort_unstable();
            out.extend(keys.iter().map(|&key| key as u32));
            remaining -= window.len();
            if remaining == 0 || window.len() < RANK_WINDOW {
                break;
            }
            continue;
        }
        // Top `remaining` of the window. Documents are taken in order of a cheap lower bound
        // of their key, then most popular first: once the worst kept key beats the next bound,
        // no later document can enter. The bound ignores the top field until that proves too
        // weak to stop early; then the top-field sets are built and the window is redone.
        let patience = 4 * remaining + 64;
        loop {
            let info = &scratch.term_info;
            heap.clear();
            for &doc in window.iter().filter(|&&d| bucket.may_equal_title(index, d)) {
                keep(&mut heap, remaining, key_of(index, info, bucket, doc));
            }
            bounds.clear();
            bounds.extend(
                window
                    .iter()
                    .filter(|&&d| !bucket.may_equal_title(index, d))
                    .map(|&d| {
                        u64::from(bucket.lower_bound(scratch, top_sets, d)) << 32 | u64::from(d)
                    }),
            );
            bounds.sort_unstable();
            let mut gave_up = false;
            for (scored, &bound) in bounds.iter().enumerate() {
                let full = heap.len() == remaining;
                if full && heap.peek().is_some_and(|&worst| worst < bound) {
                    break;
                }
                if top_sets.is_empty() && scored == patience {
                    gave_up = true;
                    break;
                }
                keep(
                    &mut heap,
                    remaining,
                    key_of(index, info, bucket, bound as u32),
                );
            }
            if !gave_up {
                break;
            }
            build_top_sets(index, scratch, bucket.word_count, top_sets);
        }
        keys.clear();
        keys.extend(heap.drain());
        keys.sort_unstable();
        out.extend(keys.iter().map(|&key| key as u32));
        break;
    }
    scratch.window = window;
    scratch.keys = keys;
    scratch.heap = heap;
    scratch.bounds = bounds;
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

/// The sort key of a document: rules 3-5, then the document number (popularity).
fn key_of(index: &SearchIndex, term_info: &[u32], bucket: &Bucket, doc: u32) -> u64 {
    u64::from(fine_key(index, term_info, bucket, doc)) << 32 | u64::from(doc)
}

/// Per query word, the documents where it matches in the title or style code.
fn build_top_sets(
    index: &SearchIndex,
    scratch: &mut Scratch,
    word_count: usize,
    top_sets: &mut Vec<usize>,
) {
    let expansions = std::mem::take(&mut scratch.expansions);
    for i in 0..word_count {
        let set = scratch.fresh_set();
        for e in expansions.iter().filter(|e| e.word == i) {
            index
                .top_field
                .union_into(e.term, scratch.set_mut(set), Some(&index.postings));
        }
        top_sets.push(set);
    }
    scratch.expansions = expansions;
}

/// Rules 3-5 for one document as a key, lower is better: proximity, field importance, then
/// exactness (title equal to the query, then words matched whole).
fn fine_key(index: &SearchIndex, term_info: &[u32], bucket: &Bucket, doc: u32) -> u32 {
    let header = index.forward.docs[doc as usize];
    let entries = &index.forward.entries;
    let start = header.start as usize;
    let description = header.description as usize;
    let end = header.end as usize;

    let mut hits = DocHits::default();
    hits.scan(&entries[start..description], term_info);
    if (hits.matched.count_ones() as usize) < bucket.matched {
        hits.scan(&entries[description..end], term_info);
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
    let title_equal = matched == all_words
        && bucket.may_equal_title(index, doc)
        && title_len > 0
        && title_len <= u32::from(MAX_TITLE_POSITION)
        && positions[..bucket.word_count].iter().all(|&p| p != 0)
        && title_hit == (1u32 << title_len) - 1;
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
    fn scan(&mut self, entries: &[u32], term_info: &[u32]) {
        for &entry in entries {
            let info = term_info[(entry >> 8) as usize];
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
