//! Tests of the premium model and its backtest, on small histories made here.

use chrono::{Days, NaiveDate};

use super::premium::{
    BAND_COVERAGE, MIN_BRAND_RELEASES, NoEstimate, ObservedPremium, PremiumModel, Release,
    SizeRelative, size_relatives,
};
use super::premium_backtest::{backtest_csv, brand_median, parse_snapshot};

fn day(n: u64) -> NaiveDate {
    NaiveDate::from_ymd_opt(2021, 1, 1).unwrap() + Days::new(n)
}

fn release(title: &str, brand: &str, date: NaiveDate, retail: i64, premium: f64) -> Release {
    Release {
        title: title.to_owned(),
        brand: brand.to_owned(),
        style_code: None,
        release_date: date,
        retail_cents: retail * 100,
        currency: "USD".to_owned(),
        observed: Some(ObservedPremium {
            premium,
            horizon_days: 400,
        }),
    }
}

/// 60 releases over 120 days: collaborations (`Travis Scott`) around +150 %, general releases
/// around +10 %, a Dunk line around +40 %; a little spread in each so the band is not empty.
fn history() -> Vec<Release> {
    (0..60_u64)
        .map(|n| {
            let wobble = ((n * 37) % 11) as f64 / 100.0 - 0.05;
            let date = day(n * 2);
            match n % 3 {
                0 => release(
                    &format!("Jordan 1 Retro High Travis Scott Colorway {n}"),
                    "Jordan",
                    date,
                    175,
                    1.5 + wobble * 3.0,
                ),
                1 => release(
                    &format!("Nike Dunk Low Colorway {n}"),
                    "Nike",
                    date,
                    110,
                    0.4 + wobble,
                ),
                _ => release(
                    &format!("Jordan 1 Mid Colorway {n}"),
                    "Jordan",
                    date,
                    125,
                    0.1 + wobble,
                ),
            }
        })
        .collect()
}

#[test]
fn a_releases_own_price_never_changes_its_prediction() {
    let mut history = history();
    let coming = history[45].clone();
    let model = PremiumModel::fit(&history, coming.release_date);
    let before = model.estimate(&coming, 30).unwrap();
    // Its own premium, and every premium on or after its date, changed wildly.
    for later in history
        .iter_mut()
        .filter(|r| r.release_date >= coming.release_date)
    {
        later.observed = Some(ObservedPremium {
            premium: 9.0,
            horizon_days: 3,
        });
    }
    let refitted = PremiumModel::fit(&history, coming.release_date);
    let mut changed = coming.clone();
    changed.observed = Some(ObservedPremium {
        premium: -0.5,
        horizon_days: 1,
    });
    assert_eq!(refitted.estimate(&changed, 30).unwrap(), before);
    // The same change to a release before its date does move it: the test can see a leak.
    history[44].observed = Some(ObservedPremium {
        premium: 9.0,
        horizon_days: 400,
    });
    let leaked = PremiumModel::fit(&history, coming.release_date);
    assert_ne!(leaked.estimate(&coming, 30).unwrap(), before);
}

#[test]
fn collaborations_are_estimated_above_general_releases() {
    let history = history();
    let model = PremiumModel::fit(&history, day(200));
    let travis = release(
        "Jordan 1 Retro High Travis Scott Reverse Mocha",
        "Jordan",
        day(200),
        175,
        0.0,
    );
    let mid = release("Jordan 1 Mid Shadow", "Jordan", day(200), 125, 0.0);
    let travis = model.estimate(&travis, 400).unwrap();
    let mid = model.estimate(&mid, 400).unwrap();
    assert!(
        travis.premium_pct > 100.0 && mid.premium_pct < 30.0,
        "{travis:?} {mid:?}"
    );
    for estimate in [&travis, &mid] {
        assert!(estimate.low_pct < estimate.premium_pct);
        assert!(estimate.premium_pct < estimate.high_pct);
        assert!((estimate.band_coverage_claimed - BAND_COVERAGE).abs() < 1e-12);
        assert_eq!(estimate.basis.releases, 60);
        assert_eq!(estimate.basis.brand_releases, 40);
        assert_eq!(estimate.basis.fitted_before, day(200));
    }
    assert_eq!(travis.basis.line_releases, 20, "{:?}", travis.basis);
    assert!(travis.basis.known_words.contains(&"travis".to_owned()));
}

#[test]
fn a_thin_basis_is_an_answer_not_a_guess() {
    let mut history = history();
    history.push(release("MSCHF Big Red Boot", "MSCHF", day(10), 350, 1.4));
    history.push(release("MSCHF Big Blue Boot", "MSCHF", day(20), 350, 0.9));
    let model = PremiumModel::fit(&history, day(200));
    let boot = release("MSCHF Big Green Boot", "MSCHF", day(200), 350, 0.0);
    let answer = model.estimate(&boot, 30).unwrap_err();
    assert_eq!(
        answer,
        NoEstimate::ThinBrand {
            brand: "MSCHF".to_owned(),
            releases: 2
        }
    );
    assert_eq!(answer.to_string(), "no estimate: 2 releases of MSCHF");
    const { assert!(MIN_BRAND_RELEASES > 2) };
    // Too little history at all.
    let early = PremiumModel::fit(&history, day(10));
    assert_eq!(
        early.estimate(&boot, 30).unwrap_err().to_string(),
        "no estimate: 5 releases"
    );
    // No retail, no premium.
    let mut free = boot.clone();
    free.brand = "Nike".to_owned();
    free.retail_cents = 0;
    assert_eq!(model.estimate(&free, 30), Err(NoEstimate::NoRetail));
}

#[test]
fn the_first_month_estimate_averages_its_days() {
    let model = PremiumModel::fit(&history(), day(200));
    let dunk = release("Nike Dunk Low Panda", "Nike", day(200), 110, 0.0);
    let month = model.estimate_first_month(&dunk).unwrap();
    let days: Vec<f64> = (1..=30)
        .map(|d| model.estimate(&dunk, d).unwrap().premium_pct)
        .collect();
    let mean = days.iter().sum::<f64>() / 30.0;
    assert!((month.premium_pct - mean).abs() < 1e-9);
    assert_eq!(month.horizon_days, 30);
}

#[test]
fn sizes_scale_the_products_premium_by_their_relative_price() {
    let model = PremiumModel::fit(&history(), day(200));
    let dunk = release("Nike Dunk Low Panda", "Nike", day(200), 110, 0.0);
    let estimate = model.estimate(&dunk, 30).unwrap();
    let past: Vec<Vec<(String, f64)>> = vec![
        vec![("US 9".into(), 100.0), ("US 13".into(), 140.0)],
        vec![("US 9".into(), 90.0), ("US 13".into(), 150.0)],
        vec![
            ("US 9".into(), 110.0),
            ("US 13".into(), 130.0),
            ("US 4".into(), 0.0),
        ],
    ];
    let relatives = size_relatives(past.iter().map(Vec::as_slice));
    // US 9: 100/120, 90/120, 110/120 -> median 100/120; US 13: 140/120, 150/120, 130/120.
    assert_eq!(relatives.len(), 2);
    assert_eq!(relatives[0].size, "US 9");
    assert!((relatives[0].relative - 100.0 / 120.0).abs() < 1e-12);
    assert!((relatives[1].relative - 140.0 / 120.0).abs() < 1e-12);
    assert_eq!(relatives[1].products, 3);
    let mut sizes = relatives;
    sizes.push(SizeRelative {
        size: "US 18".into(),
        relative: 2.0,
        products: 1,
    });
    let per_size = estimate.per_size(&sizes);
    let nine = per_size[0].as_ref().unwrap();
    let expected = ((1.0 + estimate.premium()) * 100.0 / 120.0 - 1.0) * 100.0;
    assert!((nine.premium_pct - expected).abs() < 1e-9);
    assert!(nine.low_pct < nine.premium_pct && nine.premium_pct < nine.high_pct);
    assert!(per_size[1].as_ref().unwrap().premium_pct > estimate.premium_pct);
    assert_eq!(
        per_size[2].as_ref().unwrap_err().to_string(),
        "no estimate for size US 18: 1 product with its price"
    );
}

const SNAPSHOT: &str = "\
,item,brand,retail,release,lowestAsk,pricePremium,lastSale
0,Jordan 4 Retro SB Pine Green,Jordan,225,2023-03-21,325,0.542,347
1,Nike Dunk Low Panda,Nike,110,2021-03-10,139,0.325,145
2,Crocs Classic Clog Cinnamon Toast Crunch (GS),Crocs,0,2022-04-28,90,0.0,0
3,Nike Dunk High Obsidian,Nike,120,,150,0.2,144
4,Nike Dunk Low Panda,Nike,110,2021-03-10,190,0.773,195
";

#[test]
fn a_snapshot_keeps_one_release_per_title_and_date() {
    let snapshot = parse_snapshot(SNAPSHOT).unwrap();
    assert_eq!(snapshot.rows, 5);
    assert_eq!(snapshot.zero_retail, 1);
    assert_eq!(snapshot.undated, 1);
    assert_eq!(snapshot.repeats, 1);
    assert_eq!(snapshot.releases.len(), 2);
    assert_eq!(
        snapshot.read_on,
        NaiveDate::from_ymd_opt(2023, 3, 22).unwrap()
    );
    let panda = &snapshot.releases[1];
    assert_eq!(panda.retail_cents, 11_000);
    let observed = panda.observed.unwrap();
    assert!(
        (observed.premium - 0.325).abs() < 1e-12,
        "the first listing is kept"
    );
    // 2021-03-10 to 2023-03-22.
    assert_eq!(observed.horizon_days, 742);
    assert_eq!(snapshot.releases[0].observed.unwrap().horizon_days, 1);
}

#[test]
fn a_broken_snapshot_says_where() {
    let missing = parse_snapshot("item,brand,retail\nA,B,1\n").unwrap_err();
    assert_eq!(missing.to_string(), "no column \"release\" in the header");
    let bad = parse_snapshot("item,brand,retail,release,pricePremium\nA,Nike,110,2023-13-40,0.1\n")
        .unwrap_err();
    assert_eq!(
        bad.to_string(),
        "line 2: release \"2023-13-40\" is not a date (YYYY-MM-DD)"
    );
    assert!(parse_snapshot("item,brand,retail,release,pricePremium\n").is_err());
    assert!(parse_snapshot("").is_err());
}

#[test]
fn the_baseline_is_the_brands_median_before_the_date() {
    let history = history();
    let coming = release("Nike Dunk Low New", "Nike", day(7), 110, 0.0);
    // Nike releases before day 7: n = 1 (day 2), n = 4 would be day 8: only one.
    let median = brand_median(&history, &coming).unwrap();
    assert!((median - history[1].observed.unwrap().premium).abs() < 1e-12);
    let unknown = release("Vans Old Skool", "Vans", day(7), 70, 0.0);
    assert_eq!(brand_median(&history, &unknown), None);
}

#[test]
fn the_backtest_beats_the_brand_median_where_words_matter() {
    let mut history = history();
    // Later releases, to be predicted.
    for n in 60..90_u64 {
        let mut r = history[(n % 60) as usize].clone();
        r.title = format!("{} Again {n}", r.title);
        r.release_date = day(n * 2);
        history.push(r);
    }
    let backtest = super::premium_backtest::backtest(
        &history,
        day(120),
        super::premium::ModelParams::default(),
    )
    .unwrap();
    assert_eq!(backtest.rows.len(), 30);
    assert!(
        backtest.model_median_error < backtest.baseline_median_error / 2.0,
        "{backtest:?}"
    );
    let csv = backtest_csv(&backtest).unwrap();
    assert!(csv.starts_with("item,release_date,horizon_days,predicted,actual,low,high,baseline"));
    assert_eq!(csv.lines().count(), 31);
}
