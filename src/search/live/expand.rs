//! A query word's terms over the base and the live segment together: the terms one index
//! built from all their products would expand it to. Three things there depend on the whole
//! corpus, and each is computed here as that index would:
//!
//! - only terms some product has exist (a term whose every document was replaced or deleted is
//!   gone, one only a live product has is there);
//! - a prefix shared by more than [`PREFIX_EXPANSIONS`] terms expands to its most frequent
//!   completions, by the documents of both (ties in byte order);
//! - a word's typo derivations are the first [`MAX_TYPO_EXPANSIONS`] in byte order.
//!
//! Each takes the base's answer as it is when the segment changes nothing it depends on (the
//! common case: one dictionary lookup more than the base alone), and otherwise works out the
//! answer from the base's kept completions ([`CROWDED_KEPT`]) or, when those cannot tell, by
//! walking the base's dictionary.

use std::ops::Bound;

use fst::{Automaton, IntoStreamer, Streamer};

use super::view::View;
use crate::search::PREFIX_EXPANSIONS;
use crate::search::derive::MAX_TYPO_EXPANSIONS;
use crate::search::prefixes::CROWDED_KEPT;
use crate::search::query::QueryWord;
use crate::search::scratch::Expansion;
use crate::search::typo::TypoAutomaton;

/// The terms query word `word` (number `word_index`) matches over `view`: as
/// `query::expand` over one index of the same products.
pub(crate) fn expand(
    view: &View<'_>,
    word_index: usize,
    word: &QueryWord,
    out: &mut Vec<Expansion>,
) {
    let exact = view.lookup(&word.text).filter(|&term| view.alive(term));
    let mut push = Expansion::pusher(out, word_index);
    if let Some(term) = exact {
        push(term, 0, true);
    }
    if word.prefix {
        for term in completions(view, &word.text) {
            if Some(term) != exact {
                push(term, 0, false);
            }
        }
    }
    if word.budget > 0 {
        for (term, typos) in derivations(view, word.text.as_bytes(), word.budget, word.prefix) {
            push(term, typos, false);
        }
    }
}

/// Terms a live document has that start with `prefix`, with their ids.
fn touched_with<'v>(view: &View<'v>, prefix: &str) -> Vec<(&'v str, u32)> {
    let bounds: (Bound<&str>, Bound<&str>) = (Bound::Included(prefix), Bound::Unbounded);
    view.segment
        .touched
        .range::<_, str>(bounds)
        .take_while(|(name, _)| name.starts_with(prefix))
        .map(|(name, &id)| (&**name, id))
        .collect()
}

/// The completions of `prefix` (itself included when a term) a query expands to.
fn completions(view: &View<'_>, prefix: &str) -> Vec<u32> {
    let touched = touched_with(view, prefix);
    if let Some(kept) = view.base.dictionary.crowded_prefixes.get(prefix.as_bytes()) {
        let first = &kept[..kept.len().min(PREFIX_EXPANSIONS)];
        if touched.is_empty() && first.iter().all(|&term| !view.changed(term)) {
            // Nothing the segment changed can enter: the base's own.
            return first.to_vec();
        }
        if let Some(best) = best_of_kept(view, kept, &touched) {
            return best;
        }
    }
    every_completion(view, prefix, &touched)
}

/// The most frequent completions among the base's kept ones and the live documents' terms
/// (ties by name), when those alone settle them: `None` when a term the base did not keep
/// could enter.
fn best_of_kept(view: &View<'_>, kept: &[u32], touched: &[(&str, u32)]) -> Option<Vec<u32>> {
    let names = view.support.kept_names(view.base);
    let mut candidates: Vec<(u64, &str, u32)> = Vec::with_capacity(kept.len() + touched.len());
    for &(name, term) in touched {
        candidates.push((view.frequency(term), name, term));
    }
    for &term in kept {
        if let Some(name) = names.get(&term) {
            candidates.push((view.frequency(term), name, term));
        }
    }
    candidates.sort_unstable_by_key(|&(_, _, term)| term);
    candidates.dedup_by_key(|&mut (_, _, term)| term);
    candidates.retain(|&(frequency, _, _)| frequency > 0);
    let order =
        |a: &(u64, &str, u32), b: &(u64, &str, u32)| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1));
    candidates.sort_unstable_by(order);
    let take = candidates.len().min(PREFIX_EXPANSIONS);
    // A term the base did not keep, nor a live document has, comes after the last kept one in
    // the base's order, and has not gained documents since: the candidates settle the best
    // unless that last kept one's place could be among them.
    if kept.len() >= CROWDED_KEPT
        && let Some(&last) = kept.last()
    {
        let bound = (
            view.support.frequency(view.base, last),
            names.get(&last).map_or("", |n| &**n),
        );
        let settled = take == PREFIX_EXPANSIONS
            && order(&candidates[take - 1], &(bound.0, bound.1, last)).is_lt();
        if !settled {
            return None;
        }
    }
    Some(
        candidates[..take]
            .iter()
            .map(|&(_, _, term)| term)
            .collect(),
    )
}

/// Every completion of `prefix` in the base's dictionary and the live documents, the most
/// frequent [`PREFIX_EXPANSIONS`] when there are more (ties in byte order).
fn every_completion(view: &View<'_>, prefix: &str, touched: &[(&str, u32)]) -> Vec<u32> {
    let dictionary = &view.base.dictionary;
    let mut all: Vec<(String, u32)> = Vec::new();
    for map in [&dictionary.words, &dictionary.codes] {
        let automaton = fst::automaton::Str::new(prefix).starts_with();
        let mut stream = map.search(automaton).into_stream();
        while let Some((key, id)) = stream.next() {
            all.push((String::from_utf8_lossy(key).into_owned(), id as u32));
        }
    }
    all.extend(touched.iter().map(|&(name, id)| (name.to_owned(), id)));
    all.sort_unstable_by_key(|(_, term)| *term);
    all.dedup_by_key(|(_, term)| *term);
    let mut alive: Vec<(u64, String, u32)> = all
        .into_iter()
        .map(|(name, term)| (view.frequency(term), name, term))
        .filter(|&(frequency, _, _)| frequency > 0)
        .collect();
    if alive.len() > PREFIX_EXPANSIONS {
        alive.sort_unstable_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        alive.truncate(PREFIX_EXPANSIONS);
    }
    alive.into_iter().map(|(_, _, term)| term).collect()
}

/// The terms within `budget` typos of `word` (as a prefix when `prefix`), typo-free ones
/// aside: the first [`MAX_TYPO_EXPANSIONS`] in byte order among the terms of either.
fn derivations(view: &View<'_>, word: &[u8], budget: u8, prefix: bool) -> Vec<(u32, u8)> {
    let base = view.base;
    let of_base = base
        .derivations
        .derive(&base.dictionary, word, budget, prefix);
    let automaton = TypoAutomaton::new(word, budget, prefix);
    let mut new: Vec<(&str, u32, u8)> = Vec::new();
    walk_new_words(view, &automaton, |name, term, typos| {
        if typos > 0 && view.alive(term) {
            new.push((name, term, typos));
        }
    });
    let gone = |term: u32| view.changed(term) && !view.alive(term);
    if new.is_empty() && !of_base.iter().any(|&(term, _)| gone(term)) {
        return of_base.to_vec();
    }
    // The base's dictionary walked again, by name, its terms no product has any more skipped.
    let mut named: Vec<(Vec<u8>, u32, u8)> = Vec::new();
    let mut stream = base
        .dictionary
        .words
        .search_with_state(&automaton)
        .into_stream();
    while let Some((key, id, state)) = stream.next() {
        let typos = automaton.distance(&state);
        if typos == 0 || gone(id as u32) {
            continue;
        }
        named.push((key.to_vec(), id as u32, typos));
        if named.len() == MAX_TYPO_EXPANSIONS {
            break;
        }
    }
    named.extend(
        new.into_iter()
            .map(|(name, term, typos)| (name.as_bytes().to_vec(), term, typos)),
    );
    named.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    named.truncate(MAX_TYPO_EXPANSIONS);
    named
        .into_iter()
        .map(|(_, term, typos)| (term, typos))
        .collect()
}

/// Calls `each` with every new word of the segment `automaton` matches and its distance, as
/// a walk of a dictionary of them would: names sharing a prefix share the automaton's states
/// along it, and every name under a prefix the automaton cannot match from is skipped with
/// one range lookup (a trie's pruning over the sorted map). Walking each name from the start,
/// a search at a million products with a few thousand new words spent milliseconds here.
fn walk_new_words<'v>(
    view: &View<'v>,
    automaton: &TypoAutomaton<'_>,
    mut each: impl FnMut(&'v str, u32, u8),
) {
    let words = &view.segment.new_words;
    // `states[d]`: the state after the first `d` bytes of `previous`.
    let mut states = vec![automaton.start()];
    let mut previous: &[u8] = &[];
    let mut from: Option<String> = None;
    loop {
        let next = match &from {
            None => words.iter().next(),
            Some(bound) => {
                let bounds: (Bound<&str>, Bound<&str>) = (Bound::Included(bound), Bound::Unbounded);
                words.range::<_, str>(bounds).next()
            }
        };
        let Some((name, &term)) = next else {
            return;
        };
        let bytes = name.as_bytes();
        let shared = previous
            .iter()
            .zip(bytes)
            .take_while(|(a, b)| a == b)
            .count()
            .min(states.len() - 1);
        states.truncate(shared + 1);
        let mut dead_at = None;
        for (depth, &byte) in bytes.iter().enumerate().skip(shared) {
            let state = &states[depth];
            if !automaton.can_match(state) {
                dead_at = Some(depth);
                break;
            }
            let next_state = automaton.accept(state, byte);
            states.push(next_state);
        }
        previous = bytes;
        // The next name after this one (names hold no NUL).
        let after = format!("{name}\0");
        if let Some(depth) = dead_at {
            // No name under this prefix can match: on to the first name past all of them
            // (past this one alone when that bound is not text, in a word of other scripts).
            let Some(bound) = successor(&bytes[..depth]) else {
                return;
            };
            from = Some(String::from_utf8(bound).unwrap_or(after));
        } else {
            let state = &states[bytes.len()];
            if automaton.is_match(state) {
                each(name, term, automaton.distance(state));
            }
            from = Some(after);
        }
    }
}

/// The smallest byte string greater than every string starting with `prefix` (`None`: no
/// such string, the prefix is all `0xff` or empty).
fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut bytes = prefix.to_vec();
    while let Some(last) = bytes.pop() {
        if last < 0xff {
            bytes.push(last + 1);
            return Some(bytes);
        }
    }
    None
}
