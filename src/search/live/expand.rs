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

/// The most frequent completions among the base's kept ones and the live documents' terms,
/// when those alone settle them: `None` when a term the base did not keep could enter, or when
/// frequencies tie at the cut (the names decide then).
fn best_of_kept(view: &View<'_>, kept: &[u32], touched: &[(&str, u32)]) -> Option<Vec<u32>> {
    let mut candidates: Vec<(u64, u32)> = kept
        .iter()
        .copied()
        .chain(touched.iter().map(|&(_, id)| id))
        .map(|term| (view.frequency(term), term))
        .collect();
    candidates.sort_unstable_by_key(|&(_, term)| term);
    candidates.dedup_by_key(|&mut (_, term)| term);
    candidates.retain(|&(frequency, _)| frequency > 0);
    candidates.sort_unstable_by_key(|&(frequency, term)| (std::cmp::Reverse(frequency), term));
    // Terms the base did not keep have at most the last kept one's documents (now as before).
    let complete = kept.len() < CROWDED_KEPT;
    let not_kept = match kept.last() {
        Some(&last) if !complete => view.support.frequency(view.base, last),
        _ => 0,
    };
    if candidates.len() <= PREFIX_EXPANSIONS {
        return complete.then(|| candidates.iter().map(|&(_, term)| term).collect());
    }
    let cut = candidates[PREFIX_EXPANSIONS - 1].0;
    let next = candidates[PREFIX_EXPANSIONS].0;
    (cut > next.max(not_kept)).then(|| {
        candidates[..PREFIX_EXPANSIONS]
            .iter()
            .map(|&(_, term)| term)
            .collect()
    })
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
    for (name, &term) in &view.segment.new_words {
        if let Some(typos) = distance(&automaton, name.as_bytes())
            && typos > 0
            && view.alive(term)
        {
            new.push((name, term, typos));
        }
    }
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

/// The typo distance `automaton` gives term `name` in a dictionary walk, when it matches.
fn distance(automaton: &TypoAutomaton<'_>, name: &[u8]) -> Option<u8> {
    let mut state = automaton.start();
    for &byte in name {
        if !automaton.can_match(&state) {
            return None;
        }
        state = automaton.accept(&state, byte);
    }
    automaton
        .is_match(&state)
        .then(|| automaton.distance(&state))
}
