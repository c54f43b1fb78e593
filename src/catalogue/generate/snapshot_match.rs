//! Which real releases of `releases.tsv` the 2023 marketplace snapshot prices
//! (`shared/research/marketplace-snapshot-2023.csv`), and the derivation of `snapshot_levels.tsv`
//! from it.
//!
//! The two sides name the same pair differently: the releases table writes
//! `Air Jordan 4 Retro 'Black Cat' (2020)`, the snapshot `Jordan 4 Retro Black Cat (2020)`. A title
//! is reduced to a [`TitleKey`]: its size run (from ` (GS)`, ` (PS)`, ` (TD)`, ` (W)` or
//! ` (Women's)`, anywhere in the title; the snapshot's `(Kids)` and `(Infants)` are kids' runs
//! no release of the table names), and its words in order, lower case, without quotes or
//! punctuation, without the words `Retro` and `OG` (each side writes them for some pairs and not
//! others) and the collaboration's `x`, and with `Air Jordan` written `Jordan`. A release is
//! matched to a snapshot title by one of two rules, tried in order:
//!
//! 1. **title**: the keys are equal (so the size run is equal: a GS pair is never matched to the
//!    adult row), and where both sides give a release date, the dates are equal (a restock or
//!    another year's retro under the same name is another release);
//! 2. **date**: the release date is known and equal, the size run is equal, and the snapshot
//!    title holds every word of the release's nickname (the quoted part), every word with a digit
//!    (model number, `V2`, the year) and `High`/`Low`/`Mid` where the release's title has it; for a
//!    collaboration, the collaborators' names may stand in for the nickname
//!    (`Jordan 1 Retro High Travis Scott` is `Travis Scott x Air Jordan 1 Retro High OG 'Mocha'`).
//!    Exactly one snapshot title may qualify, or the release stays unmatched.
//!
//! A snapshot title claimed by two releases prices neither. The snapshot repeats some products
//! (two scrapes): their rows are combined, the average sale weighted by the pairs each row's
//! average is over (`deadstockSold`), the lowest ask and the sales in the period averaged.
//!
//! The binary never reads the snapshot: `tests/snapshot_levels.rs` runs [`derive`] over it and
//! checks that the compiled-in `snapshot_levels.tsv` is exactly its output (and rewrites the file
//! when asked).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Deserialize;

use super::releases::Release;
use crate::catalogue::CatalogueError;

/// The size run a title names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TitleRun {
    /// No run marker: men's or unisex sizes.
    Adult,
    /// `(W)`, `(Women's)`, `(WMNS)`.
    Women,
    /// `(GS)`.
    GradeSchool,
    /// `(PS)`.
    PreSchool,
    /// `(TD)`.
    Toddler,
    /// Kids' sizes the releases table never names (`(Kids)`, `(Infants)`): never an adult pair.
    OtherKids,
}

/// A title reduced to what both naming styles share (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TitleKey {
    /// The size run the title names.
    pub run: TitleRun,
    /// The title's words, in order, separated by one space.
    pub words: String,
}

/// `title` reduced to its [`TitleKey`].
pub fn title_key(title: &str) -> TitleKey {
    let mut run = TitleRun::Adult;
    let mut words = Vec::new();
    for word in normalized_words(title) {
        match word.as_str() {
            "(gs)" => run = TitleRun::GradeSchool,
            "(ps)" => run = TitleRun::PreSchool,
            "(td)" => run = TitleRun::Toddler,
            "(w)" | "(women's)" | "(womens)" | "(wmns)" => run = TitleRun::Women,
            "(kids)" | "(infants)" | "(infant)" => run = TitleRun::OtherKids,
            _ => words.extend(plain_words(&word)),
        }
    }
    // `Air Jordan` is `Jordan` wherever it stands (`Off-White x Air Jordan 1`).
    let mut at = 0;
    while at + 1 < words.len() {
        if words[at] == "air" && words[at + 1] == "jordan" {
            words.remove(at);
        }
        at += 1;
    }
    words.retain(|w| w != "retro" && w != "og" && w != "x");
    TitleKey {
        run,
        words: words.join(" "),
    }
}

/// Lower-case, whitespace-separated pieces, the typographic apostrophe made plain.
fn normalized_words(title: &str) -> impl Iterator<Item = String> + '_ {
    title
        .split_whitespace()
        .map(|w| w.replace('\u{2019}', "'").to_lowercase())
}

/// The alphanumeric words of one piece: quotes dropped (`'black` -> `black`, `'07` -> `07`),
/// any other punctuation a separator (`off-white` -> `off white`, `2.0` -> `2 0`).
fn plain_words(piece: &str) -> impl Iterator<Item = String> + '_ {
    piece
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.replace('\'', ""))
        .filter(|w| !w.is_empty())
}

/// The quoted nickname of a title: from a ` '` not followed by a digit (`'07` is part of the
/// model) to the next `'` that ends a word (`Brooklyn's` does not).
fn nickname(title: &str) -> Option<&str> {
    let (open, _) = title.match_indices(" '").find(|(at, _)| {
        title[at + 2..]
            .chars()
            .next()
            .is_some_and(|c| !c.is_ascii_digit())
    })?;
    let rest = &title[open + 2..];
    let (close, _) = rest.char_indices().find(|&(at, c)| {
        c == '\''
            && rest[at + 1..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace)
    })?;
    Some(&rest[..close])
}

/// The words a snapshot title must hold to be the release titled `title` by rule 2: by its
/// nickname, and (for a collaboration) by its collaborators' names. An empty set gives nothing
/// to look for.
fn required_words(title: &str) -> (Vec<String>, Vec<String>) {
    let key = title_key(title);
    let all: Vec<&str> = key.words.split(' ').collect();
    let nickname = nickname(title)
        .map(|n| title_key(n).words)
        .unwrap_or_default();
    let mut shared: Vec<String> = all
        .iter()
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()) || matches!(**w, "high" | "low" | "mid"))
        .map(|w| (*w).to_owned())
        .collect();
    shared.sort();
    shared.dedup();
    let with = |extra: &str| -> Vec<String> {
        let mut words = shared.clone();
        words.extend(
            extra
                .split(' ')
                .filter(|w| !w.is_empty())
                .map(str::to_owned),
        );
        words
    };
    let by_nickname = if nickname.is_empty() {
        Vec::new()
    } else {
        with(&nickname)
    };
    // `Travis Scott x Fragment x Air Jordan 1 ...`: everything before the last ` x `.
    let collaborators = title
        .rsplit_once(" x ")
        .map(|(names, _)| with(&title_key(names).words))
        .unwrap_or_default();
    (by_nickname, collaborators)
}

/// One row of the snapshot, as far as the levels need it.
#[derive(Debug, Deserialize)]
struct SnapshotRow {
    item: String,
    release: String,
    #[serde(rename = "lowestAsk")]
    lowest_ask: f64,
    #[serde(rename = "salesThisPeriod")]
    sales_this_period: f64,
    #[serde(rename = "deadstockSold")]
    deadstock_sold: f64,
    #[serde(rename = "averageDeadstockPrice")]
    average_deadstock_price: f64,
}

/// How a release was matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchRule {
    /// Rule 1: equal title keys.
    Title,
    /// Rule 2: release date, run and the release's name words.
    Date,
}

impl MatchRule {
    /// The word the table writes.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchRule::Title => "title",
            MatchRule::Date => "date",
        }
    }
}

/// Why a release is not priced by the snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unmatched {
    /// Released after the newest release the snapshot lists: it could not be in it.
    AfterTheSnapshot,
    /// A snapshot row has the same title under another release date (a restock, another year).
    OtherReleaseDate,
    /// Several snapshot titles qualify by rule 2, or two releases claim one snapshot title.
    Ambiguous,
    /// No snapshot row qualifies (the snapshot holds 2,000 of the market's products).
    NotInTheSnapshot,
    /// No row with this title, and no release date to look by.
    NotInTheSnapshotNoDate,
}

impl Unmatched {
    fn describe(self) -> &'static str {
        match self {
            Unmatched::AfterTheSnapshot => "released after the newest release the snapshot lists",
            Unmatched::OtherReleaseDate => {
                "the snapshot has the title under another release date (a restock or another year)"
            }
            Unmatched::Ambiguous => "more than one snapshot title qualifies",
            Unmatched::NotInTheSnapshot => {
                "no snapshot row by title or by date and name (the snapshot holds 2,000 products)"
            }
            Unmatched::NotInTheSnapshotNoDate => {
                "no snapshot row with the title, and no release date to match by"
            }
        }
    }
}

/// The level of one matched release, combined over its snapshot rows.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchedLevel {
    /// The release's style code.
    pub style_code: &'static str,
    /// The rule that matched it.
    pub rule: MatchRule,
    /// The snapshot's title.
    pub snapshot_title: String,
    /// Snapshot rows combined.
    pub rows: usize,
    /// Average sale price in USD.
    pub average_sale_usd: f64,
    /// Lowest ask in USD.
    pub lowest_ask_usd: f64,
    /// Sales in the period the snapshot recorded.
    pub sales_in_period: f64,
}

/// What [`derive`] found.
#[derive(Debug, Clone)]
pub struct Derivation {
    /// Matched releases, in table order.
    pub matched: Vec<MatchedLevel>,
    /// Unmatched releases by reason (style codes, in table order).
    pub unmatched: BTreeMap<Unmatched, Vec<&'static str>>,
    /// The newest release date the snapshot lists.
    pub newest_snapshot_release: String,
}

impl Derivation {
    /// Releases matched by `rule`.
    pub fn matched_by(&self, rule: MatchRule) -> usize {
        self.matched.iter().filter(|m| m.rule == rule).count()
    }

    /// The text of `snapshot_levels.tsv`.
    pub fn table(&self) -> String {
        let mut out = String::from(HEADER);
        let total = self.matched.len() + self.unmatched.values().map(Vec::len).sum::<usize>();
        let _ = writeln!(
            out,
            "# {} of the {total} releases match: {} by title, {} by date and name. Not matched:",
            self.matched.len(),
            self.matched_by(MatchRule::Title),
            self.matched_by(MatchRule::Date)
        );
        for (reason, codes) in &self.unmatched {
            let detail = if *reason == Unmatched::AfterTheSnapshot {
                format!(" ({})", self.newest_snapshot_release)
            } else {
                String::new()
            };
            let _ = writeln!(out, "#   {}: {}{detail}", codes.len(), reason.describe());
        }
        out.push_str(
            "# Columns: style code, rule (title or date), snapshot title, snapshot rows combined, \
             average sale USD, lowest ask USD, sales in the period.\n",
        );
        for level in &self.matched {
            let _ = writeln!(
                out,
                "{}\t{}\t{}\t{}\t{:.2}\t{:.2}\t{:.1}",
                level.style_code,
                level.rule.as_str(),
                level.snapshot_title,
                level.rows,
                level.average_sale_usd,
                level.lowest_ask_usd,
                level.sales_in_period
            );
        }
        out
    }
}

const HEADER: &str = "\
# The 2023 marketplace snapshot's level of every real release it prices: derived from
# shared/research/marketplace-snapshot-2023.csv by catalogue::generate::snapshot_match::derive
# (how titles are matched is documented there). Do not edit: tests/snapshot_levels.rs checks this
# file is the derivation's output; SOLESCOPE_WRITE_SNAPSHOT_LEVELS=1 cargo test --test
# snapshot_levels rewrites it.
# Carried to a catalogue's as-of date flat: the snapshot's figures are used as they are, whatever
# the date (no source gives a drift per year for these pairs).
";

/// Matches `releases` against the snapshot CSV `csv_text`.
pub fn derive(csv_text: &str, releases: &'static [Release]) -> Result<Derivation, CatalogueError> {
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let mut by_title: HashMap<String, Vec<SnapshotRow>> = HashMap::new();
    for (index, row) in reader.deserialize::<SnapshotRow>().enumerate() {
        let row = row.map_err(|err| CatalogueError::Import {
            line: index + 2,
            message: format!("marketplace snapshot: {err}"),
        })?;
        if row.average_deadstock_price > 0.0 {
            by_title.entry(row.item.clone()).or_default().push(row);
        }
    }
    let mut titles_by_key: HashMap<TitleKey, Vec<&str>> = HashMap::new();
    for title in by_title.keys() {
        titles_by_key
            .entry(title_key(title))
            .or_default()
            .push(title);
    }
    for titles in titles_by_key.values_mut() {
        titles.sort_unstable();
    }
    let newest_snapshot_release = by_title
        .values()
        .flatten()
        .map(|r| r.release.as_str())
        .max()
        .unwrap_or_default()
        .to_owned();

    // First each release's candidate, then conflicts between releases.
    let mut found: Vec<Result<(MatchRule, TitleKey, String), Unmatched>> = Vec::new();
    for release in releases {
        let date = release.release_date.map(|d| d.to_string());
        found.push(match_release(
            release,
            date.as_deref(),
            &titles_by_key,
            &by_title,
            &newest_snapshot_release,
        ));
    }
    let mut claims: HashMap<TitleKey, usize> = HashMap::new();
    for (_, key, _) in found.iter().flatten() {
        *claims.entry(key.clone()).or_default() += 1;
    }
    let mut derivation = Derivation {
        matched: Vec::new(),
        unmatched: BTreeMap::new(),
        newest_snapshot_release,
    };
    for (release, result) in releases.iter().zip(found) {
        let result = result.and_then(|(rule, key, date)| {
            if claims[&key] > 1 {
                return Err(Unmatched::Ambiguous);
            }
            Ok(combine(
                release.style_code,
                rule,
                &key,
                &date,
                &titles_by_key,
                &by_title,
            ))
        });
        match result {
            Ok(level) => derivation.matched.push(level),
            Err(reason) => derivation
                .unmatched
                .entry(reason)
                .or_default()
                .push(release.style_code),
        }
    }
    Ok(derivation)
}

/// The snapshot key (and the release date its rows must carry, empty for any) of `release`.
fn match_release(
    release: &Release,
    date: Option<&str>,
    titles_by_key: &HashMap<TitleKey, Vec<&str>>,
    by_title: &HashMap<String, Vec<SnapshotRow>>,
    newest_snapshot_release: &str,
) -> Result<(MatchRule, TitleKey, String), Unmatched> {
    let key = title_key(release.title);
    let rows_of = |key: &TitleKey| {
        titles_by_key
            .get(key)
            .into_iter()
            .flatten()
            .flat_map(|title| &by_title[*title])
    };
    let same_title: Vec<&SnapshotRow> = rows_of(&key).collect();
    if !same_title.is_empty() {
        match date {
            Some(date) if same_title.iter().any(|r| dated(r, date)) => {
                return Ok((MatchRule::Title, key, date.to_owned()));
            }
            None => {
                let first = &same_title[0].release;
                return if same_title.iter().all(|r| &r.release == first) {
                    Ok((MatchRule::Title, key, String::new()))
                } else {
                    Err(Unmatched::Ambiguous)
                };
            }
            Some(_) => {}
        }
    }
    let Some(date) = date else {
        return Err(Unmatched::NotInTheSnapshotNoDate);
    };
    if date > newest_snapshot_release {
        return Err(Unmatched::AfterTheSnapshot);
    }
    let (by_nickname, collaborators) = required_words(release.title);
    for required in [by_nickname, collaborators] {
        if required.is_empty() {
            continue;
        }
        let mut qualifying: Vec<&TitleKey> = titles_by_key
            .keys()
            .filter(|candidate| candidate.run == key.run)
            .filter(|candidate| {
                let words: Vec<&str> = candidate.words.split(' ').collect();
                required.iter().all(|w| words.contains(&w.as_str()))
            })
            .filter(|candidate| rows_of(candidate).any(|r| r.release == date))
            .collect();
        qualifying.sort_unstable();
        match qualifying.as_slice() {
            [one] => return Ok((MatchRule::Date, (*one).clone(), date.to_owned())),
            [] => {}
            _ => return Err(Unmatched::Ambiguous),
        }
    }
    Err(if same_title.is_empty() {
        Unmatched::NotInTheSnapshot
    } else {
        Unmatched::OtherReleaseDate
    })
}

/// Whether `row` was released on `date`, or gives no date.
fn dated(row: &SnapshotRow, date: &str) -> bool {
    row.release == date || row.release.is_empty()
}

/// The rows of `key` (released on `date`, or any date when empty) combined into one level.
fn combine(
    style_code: &'static str,
    rule: MatchRule,
    key: &TitleKey,
    date: &str,
    titles_by_key: &HashMap<TitleKey, Vec<&str>>,
    by_title: &HashMap<String, Vec<SnapshotRow>>,
) -> MatchedLevel {
    let titles = &titles_by_key[key];
    let rows: Vec<&SnapshotRow> = titles
        .iter()
        .flat_map(|title| &by_title[*title])
        .filter(|r| date.is_empty() || dated(r, date))
        .collect();
    let n = rows.len().max(1) as f64;
    let sold: f64 = rows.iter().map(|r| r.deadstock_sold).sum();
    let average_sale_usd = if sold > 0.0 {
        rows.iter()
            .map(|r| r.average_deadstock_price * r.deadstock_sold)
            .sum::<f64>()
            / sold
    } else {
        rows.iter().map(|r| r.average_deadstock_price).sum::<f64>() / n
    };
    MatchedLevel {
        style_code,
        rule,
        snapshot_title: titles.join(" | "),
        rows: rows.len(),
        average_sale_usd,
        lowest_ask_usd: rows.iter().map(|r| r.lowest_ask).sum::<f64>() / n,
        sales_in_period: rows.iter().map(|r| r.sales_this_period).sum::<f64>() / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_naming_styles_reduce_to_one_key() {
        assert_eq!(
            title_key("Air Jordan 4 Retro 'Black Cat' (2020)"),
            title_key("Jordan 4 Retro Black Cat (2020)")
        );
        assert_eq!(
            title_key("Nike Dunk Low Retro 'UNC' (2021)"),
            title_key("Nike Dunk Low UNC (2021)")
        );
        assert_eq!(
            title_key("Air Jordan 1 Retro High OG 'Dark Mocha'").words,
            "jordan 1 high dark mocha"
        );
        assert_eq!(
            title_key("Nike Dunk Low Retro 'Panda' (Women's)"),
            title_key("Nike Dunk Low Panda (W)")
        );
    }

    #[test]
    fn a_kids_title_never_shares_the_adult_key() {
        let adult = title_key("Jordan 1 Retro High Dark Mocha");
        let gs = title_key("Air Jordan 1 Retro High OG 'Dark Mocha' (GS)");
        assert_eq!(gs.words, adult.words);
        assert_eq!(gs.run, TitleRun::GradeSchool);
        assert_ne!(gs, adult);
        assert_eq!(title_key("X (PS)").run, TitleRun::PreSchool);
        assert_eq!(title_key("X (TD)").run, TitleRun::Toddler);
        // Another year is another release.
        assert_ne!(
            title_key("Air Jordan 11 Retro 'Bred' (2019)"),
            title_key("Air Jordan 11 Retro 'Bred' (2012)")
        );
    }

    #[test]
    fn the_nickname_is_the_quoted_words() {
        assert_eq!(
            nickname("Nike Air Force 1 '07 'Triple White'"),
            Some("Triple White")
        );
        assert_eq!(
            nickname("Nike Sabrina 1 EP 'Brooklyn's Finest' (Women's)"),
            Some("Brooklyn's Finest")
        );
        assert_eq!(nickname("Nike Air Max 90"), None);
    }

    #[test]
    fn rule_two_asks_for_the_nickname_the_numbers_and_the_cut() {
        let (nickname, collaborators) = required_words("Air Jordan 1 Retro High OG 'Obsidian'");
        assert_eq!(nickname, ["1", "high", "obsidian"]);
        assert!(collaborators.is_empty());
        let (nickname, collaborators) =
            required_words("Travis Scott x Air Jordan 1 Retro High OG 'Mocha'");
        assert_eq!(nickname, ["1", "high", "mocha"]);
        assert_eq!(collaborators, ["1", "high", "travis", "scott"]);
    }
}
