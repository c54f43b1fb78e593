//! The demo catalogue a collector believes: real releases with their real codes, unique
//! titles, premiums and weekly orders calibrated to a public marketplace snapshot,
//! and the famous pairs (the real releases the snapshot prices) at its level.
//!
//! The figures are read with `catalogue::stats` from one 20,000-product catalogue. To check
//! them against another file (for example one built by an older generator, to see these tests
//! fail on it), set `SOLESCOPE_TEST_CATALOGUE=path`.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::Value;
use solescope::catalogue::Catalogue;
use solescope::catalogue::generate::data::SizeRun;
use solescope::catalogue::generate::releases::{self, Release};
use solescope::catalogue::generate::snapshot::{self, SnapshotLevel};
use solescope::catalogue::stats::{self, CatalogueStats};

const PRODUCTS: u32 = 20_000;
const SEED: u64 = 20_261_122;

fn catalogue_path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        if let Some(path) = std::env::var_os("SOLESCOPE_TEST_CATALOGUE") {
            return PathBuf::from(path);
        }
        // Kept for the whole test run; the OS temp dir is cleaned by the system.
        let dir = tempfile::tempdir().unwrap().keep();
        common::catalogue(&dir, "demo.sqlite", PRODUCTS, SEED)
    })
}

fn figures() -> &'static CatalogueStats {
    static STATS: OnceLock<CatalogueStats> = OnceLock::new();
    STATS.get_or_init(|| {
        let catalogue = Catalogue::open_read_only(catalogue_path()).unwrap();
        let stats = stats::compute(catalogue.connection()).unwrap();
        println!("{stats}");
        stats
    })
}

#[test]
fn every_real_release_is_in_the_catalogue_with_its_own_code() {
    let stats = figures();
    assert!(stats.real_releases >= 400, "{}", stats.real_releases);
    assert_eq!(stats.real_products, stats.real_releases);
    let catalogue = Catalogue::open_read_only(catalogue_path()).unwrap();
    let conn = catalogue.connection();
    let titles_of = |sku: &str| -> Vec<String> {
        let mut statement = conn
            .prepare("SELECT title FROM products WHERE sku = ?1")
            .unwrap();
        statement
            .query_map([sku], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(
        titles_of("DZ5485-612"),
        ["Air Jordan 1 Retro High OG 'Chicago Lost and Found'"]
    );
    assert_eq!(
        titles_of("FD1437-612"),
        ["Air Jordan 1 Retro High OG 'Chicago Lost and Found' (GS)"]
    );
    // Nobody else wears the name: no invented code under a famous nickname.
    let famous: i64 = conn
        .query_row(
            "SELECT count(*) FROM products WHERE title LIKE '%Chicago Lost and Found%'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(famous, 2);
}

/// Every release with all its facts is in the catalogue once, with those facts as the table
/// gives them (retail, release date, colourway). How many there must be is checked beside the
/// table (`releases::tests`).
#[test]
fn every_complete_release_keeps_its_facts_in_the_catalogue() {
    let complete: Vec<&Release> = releases::releases()
        .iter()
        .filter(|r| r.is_complete())
        .collect();
    assert_eq!(complete.len(), releases::complete_count());
    assert!(!complete.is_empty());
    assert_eq!(figures().real_complete, complete.len());
    let catalogue = Catalogue::open_read_only(catalogue_path()).unwrap();
    let mut statement = catalogue
        .connection()
        .prepare("SELECT title, retail_usd_cents, release_date, color FROM products WHERE sku = ?1")
        .unwrap();
    for release in complete {
        let rows: Vec<(String, i64, String, String)> = statement
            .query_map([release.style_code], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let expected = (
            release.title.to_owned(),
            i64::from(release.retail_usd.unwrap()) * 100,
            release.release_date.unwrap().to_string(),
            release.colourway.unwrap().to_owned(),
        );
        assert_eq!(rows, [expected], "{}", release.style_code);
    }
}

#[test]
fn titles_are_unique() {
    let stats = figures();
    assert!(
        stats.duplicated_titles <= 0.005,
        "{:.2}% of products share a title",
        stats.duplicated_titles * 100.0
    );
}

#[test]
fn premiums_match_the_market_snapshot() {
    let stats = figures();
    let all = stats.premium_all;
    let s = all.spread;
    assert!((1.15..=1.35).contains(&s.p50), "median {}", s.p50);
    assert!((1.7..=2.4).contains(&s.p90), "p90 {}", s.p90);
    assert!((3.2..=5.0).contains(&s.p99), "p99 {}", s.p99);
    assert!(
        all.above_5x > 0.0 && all.above_5x < 0.01,
        "above 5x {}",
        all.above_5x
    );
    // Above 3x only for collaborations and limited releases, and for the few general releases
    // the 2023 snapshot prices there (the Black Cat, the 2021 UNC Dunk, ...).
    let catalogue = Catalogue::open_read_only(catalogue_path()).unwrap();
    let mut statement = catalogue
        .connection()
        .prepare(
            "SELECT sku FROM products WHERE retail_usd_cents > 0
               AND avg_usd_cents > 3 * retail_usd_cents
               AND labels NOT LIKE '%\"collaboration\"%' AND labels NOT LIKE '%\"limited\"%'",
        )
        .unwrap();
    let above_3x: Vec<String> = statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let unpriced: Vec<&String> = above_3x
        .iter()
        .filter(|sku| snapshot::level_of(sku).is_none())
        .collect();
    assert!(
        unpriced.is_empty(),
        "general releases above 3x: {unpriced:?}"
    );
    assert!(
        stats.premium_general.above_3x < 0.001,
        "{}",
        stats.premium_general.above_3x
    );
    assert!(stats.premium_collab.above_3x > 0.05);
    // About one general release in ten trades below retail.
    let below = stats.premium_general.below_retail;
    assert!((0.05..=0.18).contains(&below), "below retail {below}");
}

#[test]
fn mens_sizes_smile_and_kids_pay_less() {
    let stats = figures();
    assert!(
        stats.smallest_to_middle > 1.03,
        "{}",
        stats.smallest_to_middle
    );
    assert!(
        stats.largest_to_middle > 1.08,
        "{}",
        stats.largest_to_middle
    );
    assert!(
        stats.cheapest_in_middle > 0.75,
        "{}",
        stats.cheapest_in_middle
    );
    let kids = stats.kids_to_adult;
    assert!(
        kids.count >= 200,
        "{} kids' pairs with a men's pair",
        kids.count
    );
    assert!((0.45..=0.9).contains(&kids.p50), "median {}", kids.p50);
    assert!(stats.kids_above_adult <= 0.05, "{}", stats.kids_above_adult);
}

#[test]
fn weekly_orders_are_calibrated_and_ranked() {
    let stats = figures();
    let newest = stats.newest_week_orders;
    assert!((2.0..=20.0).contains(&newest.p50), "median {}", newest.p50);
    assert!(newest.p90 <= 80.0, "p90 {}", newest.p90);
    assert!((40.0..=800.0).contains(&newest.p99), "p99 {}", newest.p99);
    let peak = stats.peak_week_orders;
    assert!(
        (300.0..=3_000.0).contains(&peak.max),
        "busiest week {}",
        peak.max
    );
    assert!(peak.p99 <= 1_500.0, "p99 of busiest weeks {}", peak.p99);
    assert!(stats.rank_inconsistent < f64::EPSILON);
}

/// Each famous pair of the catalogue with its snapshot level and (average price in USD, cheapest
/// size in USD, weekly orders newest first).
fn famous_pairs() -> Vec<(&'static SnapshotLevel, f64, f64, Vec<f64>)> {
    let catalogue = Catalogue::open_read_only(catalogue_path()).unwrap();
    let conn = catalogue.connection();
    let mut product = conn
        .prepare("SELECT pk, avg_usd_cents, min_usd_cents FROM products WHERE sku = ?1")
        .unwrap();
    let mut orders = conn
        .prepare("SELECT orders FROM weekly_orders WHERE product_pk = ?1 ORDER BY week_start DESC")
        .unwrap();
    snapshot::levels()
        .iter()
        .map(|level| {
            let (pk, avg, min): (i64, i64, i64) = product
                .query_row([level.style_code], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .unwrap_or_else(|err| panic!("{}: {err}", level.style_code));
            let weeks: Vec<f64> = orders
                .query_map([pk], |r| r.get::<_, i64>(0))
                .unwrap()
                .map(|o| o.unwrap() as f64)
                .collect();
            (level, avg as f64 / 100.0, min as f64 / 100.0, weeks)
        })
        .collect()
}

/// no famous pair more than 30% from the snapshot's average sale, and the ratio
/// `catalogue stats` prints (median, p10) where the issue wants it.
#[test]
fn famous_pairs_sit_at_the_snapshots_level() {
    let pairs = famous_pairs();
    assert!(pairs.len() >= 100, "{} famous pairs", pairs.len());
    let drifted: Vec<String> = pairs
        .iter()
        .filter(|(level, avg, _, _)| (avg / level.average_sale_usd - 1.0).abs() > 0.3)
        .map(|(level, avg, _, _)| {
            format!(
                "{} ({}): ${avg:.0} against ${:.0}",
                level.style_code, level.snapshot_title, level.average_sale_usd
            )
        })
        .collect();
    assert!(drifted.is_empty(), "more than 30% off: {drifted:#?}");
    let ratio = figures().famous_to_snapshot;
    assert_eq!(ratio.count, pairs.len());
    assert!((0.8..=1.25).contains(&ratio.p50), "median {}", ratio.p50);
    assert!(ratio.p10 >= 0.7, "p10 {}", ratio.p10);
}

/// the cheapest size sits where the snapshot's lowest ask does (within the bounds
/// of `snapshot::cheapest_size_share`), and the pairs sell the snapshot's volume every week.
#[test]
fn famous_pairs_keep_the_snapshots_size_spread_and_volume() {
    for (level, avg, min, weeks) in famous_pairs() {
        let share = min / avg;
        assert!(
            (share - level.cheapest_size_share()).abs() < 0.04,
            "{}: cheapest size {share:.2} of the average, snapshot {:.2}",
            level.style_code,
            level.cheapest_size_share()
        );
        let mean = weeks.iter().sum::<f64>() / weeks.len() as f64;
        // Poisson noise over 52 weeks and the seasons (about +5% over a year).
        let slack = 3.0 * (level.sales_in_period / 52.0).sqrt() + 0.1 * level.sales_in_period;
        assert!(
            (mean - 1.05 * level.sales_in_period).abs() <= slack,
            "{}: {mean:.1} a week, snapshot {}",
            level.style_code,
            level.sales_in_period
        );
    }
}

/// Kids' versions the snapshot does not price, of a men's pair it does, follow that pair's level
/// (as the model's kids' pairs follow their men's pair): priced from the model's premium of the
/// men's pair they sat at about a fifth of the snapshot's level (seed 11: 0.20-0.29).
#[test]
fn unpriced_kids_pairs_follow_their_priced_mens_pair() {
    let catalogue = Catalogue::open_read_only(catalogue_path()).unwrap();
    let average = |code: &str| -> f64 {
        catalogue
            .connection()
            .query_row(
                "SELECT avg_usd_cents FROM products WHERE sku = ?1",
                [code],
                |row| row.get::<_, i64>(0),
            )
            .unwrap() as f64
            / 100.0
    };
    let mut kids_total = 0.0;
    let mut mens_level_total = 0.0;
    for kids in releases::releases()
        .iter()
        .filter(|r| r.run.is_kids() && snapshot::level_of(r.style_code).is_none())
    {
        let mens_level = releases::releases()
            .iter()
            .filter(|r| r.run == SizeRun::Men && r.title == kids.family_title())
            .find_map(|r| snapshot::level_of(r.style_code));
        if let Some(level) = mens_level {
            kids_total += average(kids.style_code);
            mens_level_total += level.average_sale_usd;
        }
    }
    assert!(mens_level_total > 0.0, "no such kids' pair");
    let share = kids_total / mens_level_total;
    assert!(
        share >= 0.3,
        "kids' pairs at {share:.2} of their men's pair's level"
    );
}

/// Every 12th release, the Chicago pair and a kids' release with its adult pair.
fn sample() -> Vec<&'static Release> {
    releases::releases()
        .iter()
        .enumerate()
        .filter(|(i, r)| i % 12 == 0 || r.style_code == "FD1437-612")
        .map(|(_, r)| r)
        .collect()
}

async fn search(server: &solescope::service::ServerHandle, query: &str) -> Vec<Value> {
    let response = reqwest::Client::new()
        .get(format!("{}/search", server.base_url()))
        .query(&[("query", query), ("limit", "10")])
        .header("Authorization", "demo-pro")
        .send()
        .await
        .unwrap();
    assert!(
        response.status().is_success(),
        "{query}: {}",
        response.status()
    );
    let body: Value = response.json().await.unwrap();
    body["hits"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn real_codes_and_names_find_the_real_pair_first() {
    let server = common::start(common::config(catalogue_path())).await;
    let catalogue = Catalogue::open_read_only(catalogue_path()).unwrap();
    let conn = catalogue.connection();
    let mut named = 0;
    for release in sample() {
        for query in [
            release.style_code.to_owned(),
            release.style_code.replace('-', ""),
        ] {
            let hits = search(&server, &query).await;
            let first = hits
                .first()
                .map(|h| h["title"].as_str().unwrap_or_default());
            assert_eq!(first, Some(release.title), "query {query}");
        }
        // By name: the adult pair of the colourway comes before its kids' versions.
        let family = release.family_title();
        let adult: Option<String> = conn
            .query_row(
                "SELECT title FROM products WHERE title = ?1 AND age_group = 'adult'",
                [family],
                |row| row.get(0),
            )
            .ok();
        if let Some(adult) = adult {
            let hits = search(&server, family).await;
            let first = hits
                .first()
                .map(|h| h["title"].as_str().unwrap_or_default());
            assert_eq!(first, Some(adult.as_str()), "query {family}");
            named += 1;
        }
    }
    assert!(named >= 40, "{named} names searched");
    server.shutdown().await;
}

#[test]
fn catalogue_stats_prints_the_figures() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_solescope"))
        .args(["catalogue", "stats"])
        .arg(catalogue_path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    for expected in [
        "by brand: ",
        "by age group: ",
        "duplicated titles: ",
        "premium over retail, general releases",
        "premium over retail, collaborations and limited",
        "kids vs men's pair",
        "weekly orders, newest week",
        "famous pairs vs the 2023 snapshot (",
        &format!("real products: {} of the", figures().real_products),
    ] {
        assert!(text.contains(expected), "{expected:?} in {text}");
    }
    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_solescope"))
        .args(["catalogue", "stats", "/nonexistent/catalogue.sqlite"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no catalogue"));
}
