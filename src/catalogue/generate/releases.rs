//! The real releases every demo catalogue contains, read from `releases.tsv` (compiled in).
//!
//! Facts a collector checks first (title, style code, retail, release date, colourway) come from
//! this table, never from the random generator; see the header of `releases.tsv` for where such
//! facts are published. A cell left empty there is a fact not known for certain.

use std::sync::LazyLock;

use chrono::NaiveDate;

use super::data::SizeRun;

/// The table, tab-separated, one row per release.
pub(super) const TABLE: &str = include_str!("releases.tsv");

/// How a release was sold: it decides how far above retail the market may take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseKind {
    /// A general release: the bulk of the market; never above 3x retail.
    General,
    /// A limited release (SB, Yeezy, special materials).
    Limited,
    /// A collaboration (Travis Scott, Off-White, ...).
    Collaboration,
}

impl ReleaseKind {
    /// The product label that marks the kind (`None` for general releases).
    pub fn label(self) -> Option<&'static str> {
        match self {
            ReleaseKind::General => None,
            ReleaseKind::Limited => Some("limited"),
            ReleaseKind::Collaboration => Some("collaboration"),
        }
    }
}

/// One real release.
#[derive(Debug, Clone)]
pub struct Release {
    /// Brand as the generator writes it (`Jordan`, `Nike`, `adidas`, `New Balance`, `ASICS`).
    pub brand: &'static str,
    /// The size run.
    pub run: SizeRun,
    /// The style code as the brand prints it (`DZ5485-612`).
    pub style_code: &'static str,
    /// The title as marketplaces write it, run suffix included.
    pub title: &'static str,
    /// USD retail in whole dollars, when known.
    pub retail_usd: Option<u32>,
    /// EUR retail in whole euros, when known.
    pub retail_eur: Option<u32>,
    /// Release date, when known.
    pub release_date: Option<NaiveDate>,
    /// The brand's colourway string, when known.
    pub colourway: Option<&'static str>,
    /// How it was sold.
    pub kind: ReleaseKind,
    /// Average resale over retail as public market figures give it, when they do (the 2023
    /// snapshot's level wins where it prices the release: `snapshot`).
    pub market_level: Option<f64>,
}

impl Release {
    /// Whether the row carries every fact a collector checks: USD retail, release date and
    /// colourway (title and style code every row has). EUR retail is not required.
    pub fn is_complete(&self) -> bool {
        self.retail_usd.is_some_and(|usd| usd > 0)
            && self.release_date.is_some()
            && self.colourway.is_some()
    }

    /// The title without the run suffix: what the adult pair and its kids' versions share.
    pub fn family_title(&self) -> &'static str {
        family_title(self.title)
    }

    /// The model: the title before the nickname, without the brand's own name.
    pub fn model(&self) -> &'static str {
        let before = self.title.split(" '").next().unwrap_or(self.title).trim();
        // A collaboration's model is the brand's (`Off-White x Air Jordan 1 ...`).
        let before = before.rsplit(" x ").next().unwrap_or(before);
        let prefix = match self.brand {
            "Jordan" => "",
            brand => brand,
        };
        before.strip_prefix(prefix).map_or(before, str::trim_start)
    }
}

/// `title` without a trailing run suffix (` (GS)`, ` (PS)`, ` (TD)`, ` (Women's)`).
pub fn family_title(title: &str) -> &str {
    [" (GS)", " (PS)", " (TD)", " (Women's)"]
        .iter()
        .find_map(|suffix| title.strip_suffix(suffix))
        .unwrap_or(title)
}

/// Every release of the table, in table order.
pub fn releases() -> &'static [Release] {
    static RELEASES: LazyLock<Vec<Release>> =
        LazyLock::new(|| data_lines(TABLE).filter_map(parse_row).collect());
    &RELEASES
}

/// How many releases carry every fact ([`Release::is_complete`]).
pub fn complete_count() -> usize {
    releases().iter().filter(|r| r.is_complete()).count()
}

/// The table's data rows (not comments), for checking that every row parsed.
pub fn table_rows() -> usize {
    data_lines(TABLE).count()
}

/// The data rows of a compiled-in tab-separated table: its lines without comments (`#`) and
/// blank lines (this table and the snapshot's levels).
pub(super) fn data_lines(table: &'static str) -> impl Iterator<Item = &'static str> {
    table
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
}

fn parse_row(line: &'static str) -> Option<Release> {
    let cells: Vec<&'static str> = line.split('\t').collect();
    let (cells, level) = match cells.as_slice() {
        [first @ .., level] if first.len() == 9 => (first, level.parse().ok()),
        cells => (cells, None),
    };
    let [brand, run, code, title, usd, eur, date, colourway, kind] = cells else {
        return None;
    };
    let brand = match *brand {
        "Jordan" => "Jordan",
        "Nike" => "Nike",
        "adidas" => "adidas",
        "New Balance" => "New Balance",
        "ASICS" => "ASICS",
        _ => return None,
    };
    let run = match *run {
        "M" => SizeRun::Men,
        "W" => SizeRun::Women,
        "GS" => SizeRun::GradeSchool,
        "PS" => SizeRun::PreSchool,
        "TD" => SizeRun::Toddler,
        _ => return None,
    };
    let kind = match *kind {
        "general" => ReleaseKind::General,
        "limited" => ReleaseKind::Limited,
        "collab" => ReleaseKind::Collaboration,
        _ => return None,
    };
    let optional = |cell: &'static str| (!cell.is_empty()).then_some(cell);
    Some(Release {
        brand,
        run,
        style_code: code,
        title,
        retail_usd: optional(usd).and_then(|v| v.parse().ok()),
        retail_eur: optional(eur).and_then(|v| v.parse().ok()),
        release_date: optional(date).and_then(|v| v.parse().ok()),
        colourway: optional(colourway),
        kind,
        market_level: level,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_row_parses_and_codes_and_titles_are_unique() {
        let releases = releases();
        assert_eq!(releases.len(), table_rows());
        assert!(releases.len() >= 400, "{}", releases.len());
        let codes: HashSet<_> = releases.iter().map(|r| r.style_code).collect();
        let titles: HashSet<_> = releases.iter().map(|r| r.title).collect();
        assert_eq!(codes.len(), releases.len());
        assert_eq!(titles.len(), releases.len());
    }

    #[test]
    fn complete_releases_have_plausible_facts() {
        assert!(complete_count() > 0);
        for release in releases().iter().filter(|r| r.is_complete()) {
            let date = release.release_date.unwrap();
            assert!(
                (1980..=2026).contains(&chrono::Datelike::year(&date)),
                "{}: {date}",
                release.style_code
            );
            let usd = release.retail_usd.unwrap();
            assert!(
                (20..=2_000).contains(&usd),
                "{}: ${usd}",
                release.style_code
            );
            assert!(!release.colourway.unwrap().trim().is_empty());
        }
    }

    #[test]
    fn the_chicago_lost_and_found_has_its_own_codes_per_run() {
        let by_code = |code: &str| releases().iter().find(|r| r.style_code == code).unwrap();
        let men = by_code("DZ5485-612");
        let gs = by_code("FD1437-612");
        assert_eq!(men.run, SizeRun::Men);
        assert_eq!(gs.run, SizeRun::GradeSchool);
        assert_eq!(men.family_title(), gs.family_title());
        assert_eq!(men.model(), "Air Jordan 1 Retro High OG");
        assert_eq!(men.retail_usd, Some(180));
        assert_eq!(men.colourway, Some("Varsity Red/Black-Sail-Muslin"));
        let off_white = by_code("AA3834-101");
        assert_eq!(off_white.model(), "Air Jordan 1 Retro High OG");
        assert_eq!(off_white.market_level, Some(14.0));
    }
}
