//! The premium estimate's published backtest over the real 2023 marketplace snapshot
//! (`../shared/research/marketplace-snapshot-2023.csv`, beside the repository here and in CI):
//! each release from 2022-07-01 on predicted from the releases before its month. Fails when the
//! model stops beating the brand-median baseline by 20 % in median absolute error, or when its
//! band's coverage drifts more than 10 points from what it claims.

use std::path::PathBuf;

use chrono::NaiveDate;
use solescope::figures::premium::ModelParams;
use solescope::figures::premium_backtest::{backtest, parse_snapshot};

fn snapshot_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/research/marketplace-snapshot-2023.csv")
}

#[test]
fn the_model_beats_the_brand_median_and_its_band_holds_what_it_claims() {
    let path = snapshot_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!(
            "the snapshot must be beside the repository: {err}: {}",
            path.display()
        )
    });
    let snapshot = parse_snapshot(&text).unwrap();
    // The file as it is: what is left out, and the day it was read.
    assert_eq!(snapshot.rows, 2_000);
    assert_eq!(snapshot.zero_retail, 10);
    assert_eq!(
        snapshot.read_on,
        NaiveDate::from_ymd_opt(2023, 4, 23).unwrap()
    );
    let from = NaiveDate::from_ymd_opt(2022, 7, 1).unwrap();
    let result = backtest(&snapshot.releases, from, ModelParams::default()).unwrap();
    assert!(result.scored >= 450, "{} releases scored", result.scored);
    assert!(
        result.improvement() >= 0.20,
        "median absolute error {:.4} against the brand median's {:.4}: {:.1} % smaller, not 20 %",
        result.model_median_error,
        result.baseline_median_error,
        result.improvement() * 100.0
    );
    assert!(
        (result.band_coverage - result.band_coverage_claimed).abs() <= 0.10,
        "the band holds {:.1} % of actual premiums, it claims {:.0} %",
        result.band_coverage * 100.0,
        result.band_coverage_claimed * 100.0
    );
}
