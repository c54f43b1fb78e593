//! A lazy Levenshtein automaton (transposition = one edit) over the term dictionary's bytes.
//!
//! The `fst` crate walks its dictionary with any [`fst::Automaton`]; this one carries the last
//! two rows of the edit-distance table as its state, so building it costs nothing per query
//! (the eager DFAs of `levenshtein_automata` allocate 1 KiB per state, hundreds of states for a
//! two-typo word) and each dictionary byte costs one row of at most [`MAX_TYPO_BYTES`] cells.
//! Branches whose whole row exceeds the budget are pruned, so a walk touches a few hundred
//! dictionary nodes. Distances count bytes; terms are ASCII after folding (see `text`).

/// Query words longer than this (in bytes) are matched without typos.
pub(crate) const MAX_TYPO_BYTES: usize = 24;
const ROW: usize = MAX_TYPO_BYTES + 1;

/// Matches dictionary terms within `max` edits of `query` (whole term), or, in prefix mode,
/// terms that have a prefix within `max` edits of `query` (search as you type).
pub(crate) struct TypoAutomaton<'q> {
    query: &'q [u8],
    max: u8,
    prefix: bool,
}

/// Two rows of the optimal-string-alignment table plus what the prefix mode remembers.
#[derive(Clone)]
pub(crate) struct TypoState {
    previous: [u8; ROW],
    current: [u8; ROW],
    /// The key byte that produced `current` (for transpositions); `None` at the start.
    last: Option<u8>,
    /// Prefix mode: the smallest distance of the whole query to a key prefix seen so far.
    best: u8,
    /// Key bytes read so far (saturating): cells of the row further than `max` from it cannot
    /// be within the budget, so only the band around it is computed.
    depth: u8,
}

impl<'q> TypoAutomaton<'q> {
    /// An automaton for `query` (at most [`MAX_TYPO_BYTES`] bytes, longer ones are cut).
    pub(crate) fn new(query: &'q [u8], max: u8, prefix: bool) -> Self {
        let query = &query[..query.len().min(MAX_TYPO_BYTES)];
        Self { query, max, prefix }
    }

    /// The distance a final state stands for: to the whole term, or to its best prefix.
    pub(crate) fn distance(&self, state: &TypoState) -> u8 {
        if self.prefix {
            state.best
        } else {
            state.current[self.query.len()]
        }
    }

    fn cap(&self) -> u8 {
        self.max.saturating_add(1)
    }
}

impl fst::Automaton for TypoAutomaton<'_> {
    type State = TypoState;

    fn start(&self) -> TypoState {
        let cap = self.cap();
        let mut current = [cap; ROW];
        for (i, cell) in current.iter_mut().enumerate().take(self.query.len() + 1) {
            *cell = (i as u8).min(cap);
        }
        TypoState {
            previous: [cap; ROW],
            current,
            last: None,
            best: current[self.query.len()],
            depth: 0,
        }
    }

    fn is_match(&self, state: &TypoState) -> bool {
        self.distance(state) <= self.max
    }

    fn can_match(&self, state: &TypoState) -> bool {
        if self.prefix && state.best <= self.max {
            return true;
        }
        state.current[..=self.query.len()]
            .iter()
            .any(|&cell| cell <= self.max)
    }

    fn will_always_match(&self, state: &TypoState) -> bool {
        self.prefix && state.best <= self.max
    }

    fn accept(&self, state: &TypoState, byte: u8) -> TypoState {
        let cap = self.cap();
        let n = self.query.len();
        let mut next = [cap; ROW];
        next[0] = state.current[0].saturating_add(1).min(cap);
        // Every cell at distance over `max` from the diagonal holds at least that many edits,
        // so it is `cap`, as `next` starts: only the band of `2 * max + 1` cells is computed
        // (the cells left of it, read below, are `cap` in both rows too).
        let depth = usize::from(state.depth) + 1;
        let first = depth.saturating_sub(usize::from(self.max)).max(1);
        let last = (depth + usize::from(self.max)).min(n);
        for i in first..=last {
            let query_byte = self.query[i - 1];
            let substitution = state.current[i - 1] + u8::from(query_byte != byte);
            let mut cell = substitution.min(state.current[i] + 1).min(next[i - 1] + 1);
            if i >= 2
                && state.last == Some(query_byte)
                && self.query[i - 2] == byte
                && query_byte != byte
            {
                cell = cell.min(state.previous[i - 2] + 1);
            }
            next[i] = cell.min(cap);
        }
        TypoState {
            previous: state.current,
            current: next,
            last: Some(byte),
            best: state.best.min(next[n]),
            depth: state.depth.saturating_add(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use fst::{Automaton, IntoStreamer, Streamer};

    use super::*;

    fn distance(query: &str, key: &str, prefix: bool) -> Option<u8> {
        let automaton = TypoAutomaton::new(query.as_bytes(), 2, prefix);
        let mut state = automaton.start();
        for &b in key.as_bytes() {
            state = automaton.accept(&state, b);
        }
        automaton
            .is_match(&state)
            .then(|| automaton.distance(&state))
    }

    #[test]
    fn counts_edits_and_transpositions() {
        assert_eq!(distance("jordan", "jordan", false), Some(0));
        assert_eq!(distance("jodran", "jordan", false), Some(1));
        assert_eq!(distance("jordon", "jordan", false), Some(1));
        assert_eq!(distance("chicgo", "chicago", false), Some(1));
        assert_eq!(distance("balence", "balance", false), Some(1));
        assert_eq!(distance("univrsety", "university", false), Some(2));
        assert_eq!(distance("abc", "xyzabc", false), None);
    }

    #[test]
    fn prefix_mode_measures_the_best_prefix() {
        assert_eq!(distance("chic", "chicago", true), Some(0));
        assert_eq!(distance("chcag", "chicago", true), Some(1));
        assert_eq!(distance("zzzz", "chicago", true), None);
    }

    /// The full optimal-string-alignment table, no band, no cap.
    fn full_table_distance(query: &[u8], key: &[u8]) -> Vec<usize> {
        let mut rows = vec![(0..=query.len()).collect::<Vec<usize>>()];
        for (j, &b) in key.iter().enumerate() {
            let mut row = vec![j + 1; query.len() + 1];
            for i in 1..=query.len() {
                let above = &rows[j];
                row[i] = (above[i - 1] + usize::from(query[i - 1] != b))
                    .min(above[i] + 1)
                    .min(row[i - 1] + 1);
                if i >= 2 && j >= 1 && query[i - 1] == key[j - 1] && query[i - 2] == b {
                    row[i] = row[i].min(rows[j - 1][i - 2] + 1);
                }
            }
            rows.push(row);
        }
        // Per key prefix, the distance of the whole query to it.
        rows.iter().map(|row| row[query.len()]).collect()
    }

    #[test]
    fn banded_rows_agree_with_the_full_table() {
        // Every pair of words over a small alphabet up to 6 bytes: the band skips cells, so a
        // band one cell too narrow changes some distance here.
        let mut words: Vec<Vec<u8>> = vec![Vec::new()];
        let mut frontier = words.clone();
        for _ in 0..6 {
            frontier = frontier
                .iter()
                .flat_map(|w| {
                    b"abc".iter().map(move |&c| {
                        let mut next = w.clone();
                        next.push(c);
                        next
                    })
                })
                .collect();
            words.extend(frontier.iter().cloned());
        }
        let queries: Vec<&Vec<u8>> = words.iter().filter(|w| w.len() >= 3).step_by(7).collect();
        for query in queries {
            for key in words.iter().step_by(3) {
                let per_prefix = full_table_distance(query, key);
                let whole = per_prefix[key.len()];
                let best = per_prefix.iter().copied().min().unwrap_or(usize::MAX);
                let (query, key) = (
                    std::str::from_utf8(query).unwrap(),
                    std::str::from_utf8(key).unwrap(),
                );
                let expected = |d: usize| (d <= 2).then(|| u8::try_from(d).unwrap());
                assert_eq!(
                    distance(query, key, false),
                    expected(whole),
                    "{query} / {key}"
                );
                assert_eq!(
                    distance(query, key, true),
                    expected(best),
                    "{query} / {key}*"
                );
            }
        }
    }

    #[test]
    fn walks_an_fst() {
        let set = fst::Set::from_iter(["black", "blank", "brack", "white"]).unwrap();
        let automaton = TypoAutomaton::new(b"blakc", 1, false);
        let mut stream = set.search(automaton).into_stream();
        let mut found = Vec::new();
        while let Some(key) = stream.next() {
            found.push(String::from_utf8(key.to_vec()).unwrap());
        }
        assert_eq!(found, ["black"]);
    }
}
