//! `src/catalogue/generate/snapshot_levels.tsv` is exactly what the title match derives from the
//! 2023 marketplace snapshot (`../shared/research/marketplace-snapshot-2023.csv`), and the match
//! does what its documentation says (`catalogue::generate::snapshot_match`).
//!
//! To rewrite the table after a change to the releases table or to the match:
//! `SOLESCOPE_WRITE_SNAPSHOT_LEVELS=1 cargo test --test snapshot_levels`.

use std::path::PathBuf;

use solescope::catalogue::generate::data::SizeRun;
use solescope::catalogue::generate::releases;
use solescope::catalogue::generate::snapshot::{self, SnapshotLevel};
use solescope::catalogue::generate::snapshot_match::{
    Derivation, MatchRule, TitleRun, Unmatched, derive, title_key,
};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn derivation() -> Derivation {
    let path = manifest().join("../shared/research/marketplace-snapshot-2023.csv");
    let csv = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("{err}: {} (../shared beside the repo)", path.display()));
    derive(&csv, releases::releases()).unwrap()
}

#[test]
fn the_levels_table_is_the_snapshots_derivation() {
    let table = derivation().table();
    if std::env::var_os("SOLESCOPE_WRITE_SNAPSHOT_LEVELS").is_some() {
        let path = manifest().join("src/catalogue/generate/snapshot_levels.tsv");
        std::fs::write(&path, &table).unwrap();
        println!("wrote {}", path.display());
        return;
    }
    assert!(
        snapshot::TABLE == table,
        "snapshot_levels.tsv is not the derivation's output: rewrite it with \
         SOLESCOPE_WRITE_SNAPSHOT_LEVELS=1 cargo test --test snapshot_levels"
    );
}

fn level(code: &str) -> &'static SnapshotLevel {
    snapshot::level_of(code).unwrap_or_else(|| panic!("{code} is not priced"))
}

fn release(code: &str) -> &'static releases::Release {
    releases::releases()
        .iter()
        .find(|r| r.style_code == code)
        .unwrap()
}

#[test]
fn how_many_releases_match_and_why_the_others_do_not() {
    let derivation = derivation();
    let total = releases::releases().len();
    let unmatched: usize = derivation.unmatched.values().map(Vec::len).sum();
    assert_eq!(derivation.matched.len() + unmatched, total);
    let by_title = derivation.matched_by(MatchRule::Title);
    let by_date = derivation.matched_by(MatchRule::Date);
    println!(
        "{} of {total} matched ({by_title} by title, {by_date} by date and name)",
        derivation.matched.len()
    );
    for (reason, codes) in &derivation.unmatched {
        println!("{reason:?}: {} {codes:?}", codes.len());
    }
    assert!(by_title >= 90, "{by_title} by title");
    assert!(by_date >= 20, "{by_date} by date");
    // Most rows of the table's later block (a retailer's 2025 listings) have no release date,
    // and their titles are not among the snapshot's 2,000 products of spring 2023.
    assert!(derivation.unmatched[&Unmatched::NotInTheSnapshotNoDate].len() >= 500);
    // The Fragment x Travis Scott Jordan 1 Low is listed under two titles the same day.
    assert_eq!(derivation.unmatched[&Unmatched::Ambiguous], ["DM7866-140"]);
    // Same title, another date: the 2021 Glow Green slide is not the 2022 restock of the table,
    // which the snapshot lists apart (and its kids' sizes apart again).
    let glow_green = derivation
        .matched
        .iter()
        .find(|m| m.style_code == "HQ6447")
        .unwrap();
    assert_eq!(glow_green.rule, MatchRule::Date);
    assert_eq!(
        glow_green.snapshot_title,
        "adidas Yeezy Slide Glow Green (2022) (Restock)"
    );
}

#[test]
fn the_issues_pairs_are_priced_at_their_own_rows() {
    // Air Jordan 4 Retro 'Black Cat' (2020): two rows, $849 over 1,500 pairs and $764 over 2,505.
    let black_cat = level("CU1110-010");
    assert_eq!(black_cat.snapshot_title, "Jordan 4 Retro Black Cat (2020)");
    let expected = (849.0 * 1_500.0 + 764.0 * 2_505.0) / 4_005.0;
    assert!((black_cat.average_sale_usd - expected).abs() < 0.01);
    // The GS Dark Mocha has its own row ($508), never the adult one's.
    let gs = level("575441-105");
    assert_eq!(release("575441-105").run, SizeRun::GradeSchool);
    assert_eq!(gs.snapshot_title, "Jordan 1 Retro High Dark Mocha (GS)");
    assert!((gs.average_sale_usd - 508.0).abs() < 0.01);
    let adult = level("555088-105");
    assert_eq!(adult.snapshot_title, "Jordan 1 Retro High Dark Mocha");
    // Matched by date and name: the snapshot calls it 'Obsidian UNC'.
    let obsidian = level("555088-140");
    assert_eq!(obsidian.matched_by, "date");
    assert_eq!(obsidian.snapshot_title, "Jordan 1 Retro High Obsidian UNC");
}

#[test]
fn every_match_keeps_the_size_run() {
    for level in snapshot::levels() {
        let release = release(level.style_code);
        let wanted = match release.run {
            SizeRun::Men => TitleRun::Adult,
            SizeRun::Women => TitleRun::Women,
            SizeRun::GradeSchool => TitleRun::GradeSchool,
            SizeRun::PreSchool => TitleRun::PreSchool,
            SizeRun::Toddler => TitleRun::Toddler,
        };
        for title in level.snapshot_title.split(" | ") {
            assert_eq!(title_key(title).run, wanted, "{} -> {title}", release.title);
        }
    }
}
