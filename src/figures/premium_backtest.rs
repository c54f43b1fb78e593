//! The premium model's published backtest: a marketplace snapshot read into releases, each
//! release from a start date on predicted by a model fitted on the releases before its month,
//! beside the brand-median baseline; the figures and the per-release CSV.
//!
//! Pure computation over text already read: the command line reads the file.

use std::collections::HashSet;
use std::fmt::Write as _;

use chrono::{Datelike as _, Days, NaiveDate};

use super::premium::{BAND_COVERAGE, ModelParams, ObservedPremium, PremiumModel, Release};

/// The snapshot's currency: the marketplace listed US prices.
const SNAPSHOT_CURRENCY: &str = "USD";

/// The least releases a backtest must score for its figures to mean anything.
pub const MIN_SCORED: usize = 20;

/// A marketplace snapshot read into releases.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// One release per (title, release date), with the premium it was listed at.
    pub releases: Vec<Release>,
    /// Rows in the file.
    pub rows: usize,
    /// Rows left out for a retail of 0 (no premium over nothing).
    pub zero_retail: usize,
    /// Rows (with a retail price) left out for no release date (nothing to order them by).
    pub undated: usize,
    /// Rows left out as a repeat of an earlier row's title and release date.
    pub repeats: usize,
    /// The day the snapshot is taken to have been read: the day after its newest release.
    pub read_on: NaiveDate,
}

/// Why a snapshot could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// Not CSV, or a row of another shape.
    #[error("not a readable CSV: {0}")]
    Csv(#[from] csv::Error),
    /// A column the backtest needs is missing.
    #[error("no column {0:?} in the header")]
    MissingColumn(&'static str),
    /// A value that is not what its column holds.
    #[error("line {line}: {column} {value:?} is not a {expected}")]
    BadValue {
        /// The line in the file (the header is line 1).
        line: usize,
        /// The column.
        column: &'static str,
        /// The value as written.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// No dated release with a retail price.
    #[error("no dated release with a retail price")]
    Empty,
}

/// Reads a snapshot in the marketplace's export shape (columns `item`, `brand`, `retail` in
/// dollars, `release` as YYYY-MM-DD, `pricePremium` as a fraction; others ignored).
///
/// A row whose title and release date repeat an earlier row's is the same release listed
/// again (the file's second thousand rows repeat about 300 of the first with other prices, read
/// at another time): the first listing is kept and the repeats are counted.
pub fn parse_snapshot(text: &str) -> Result<Snapshot, SnapshotError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .from_reader(text.as_bytes());
    let header = reader.headers()?.clone();
    let column = |name: &'static str| {
        header
            .iter()
            .position(|field| field.trim() == name)
            .ok_or(SnapshotError::MissingColumn(name))
    };
    let (item, brand, retail, release, premium) = (
        column("item")?,
        column("brand")?,
        column("retail")?,
        column("release")?,
        column("pricePremium")?,
    );
    let mut snapshot = Snapshot {
        releases: Vec::new(),
        rows: 0,
        zero_retail: 0,
        undated: 0,
        repeats: 0,
        read_on: NaiveDate::MIN,
    };
    let mut seen: HashSet<(String, NaiveDate)> = HashSet::new();
    for (index, record) in reader.records().enumerate() {
        let record = record?;
        let line = index + 2;
        snapshot.rows += 1;
        let field = |at: usize| record.get(at).unwrap_or("").trim();
        let bad =
            |name: &'static str, value: &str, expected: &'static str| SnapshotError::BadValue {
                line,
                column: name,
                value: value.to_owned(),
                expected,
            };
        let retail_dollars: f64 = field(retail)
            .parse()
            .ok()
            .filter(|value: &f64| value.is_finite() && *value >= 0.0)
            .ok_or_else(|| bad("retail", field(retail), "price"))?;
        let retail_cents = (retail_dollars * 100.0).round() as i64;
        if retail_cents == 0 {
            snapshot.zero_retail += 1;
            continue;
        }
        let date_text = field(release);
        if date_text.is_empty() {
            snapshot.undated += 1;
            continue;
        }
        let date = NaiveDate::parse_from_str(date_text, "%Y-%m-%d")
            .map_err(|_| bad("release", date_text, "date (YYYY-MM-DD)"))?;
        let observed: f64 = field(premium)
            .parse()
            .ok()
            .filter(|value: &f64| value.is_finite() && *value > -1.0)
            .ok_or_else(|| bad("pricePremium", field(premium), "premium above -1"))?;
        let title = field(item).to_owned();
        if !seen.insert((title.clone(), date)) {
            snapshot.repeats += 1;
            continue;
        }
        snapshot.releases.push(Release {
            title,
            brand: field(brand).to_owned(),
            style_code: None,
            release_date: date,
            retail_cents,
            currency: SNAPSHOT_CURRENCY.to_owned(),
            observed: Some(ObservedPremium {
                premium: observed,
                horizon_days: 0,
            }),
        });
    }
    let newest = snapshot
        .releases
        .iter()
        .map(|release| release.release_date)
        .max()
        .ok_or(SnapshotError::Empty)?;
    snapshot.read_on = newest + Days::new(1);
    for release in &mut snapshot.releases {
        let horizon = (snapshot.read_on - release.release_date).num_days();
        if let Some(observed) = &mut release.observed {
            observed.horizon_days = u32::try_from(horizon).unwrap_or(u32::MAX);
        }
    }
    Ok(snapshot)
}

/// One release of the backtest.
#[derive(Debug, Clone, PartialEq)]
pub struct BacktestRow {
    /// The release's title.
    pub item: String,
    /// Its date.
    pub release_date: NaiveDate,
    /// The horizon predicted: days from release to the snapshot's read.
    pub horizon_days: u32,
    /// The premium seen in the snapshot (a fraction).
    pub actual: f64,
    /// The model's prediction, band low and band high (fractions); `None` with the reason
    /// when it gave no estimate.
    pub predicted: Result<(f64, f64, f64), String>,
    /// The brand-median baseline: the median premium of the brand's releases before.
    pub baseline: Option<f64>,
}

/// The backtest's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Backtest {
    /// Every release from the start date on, in date order.
    pub rows: Vec<BacktestRow>,
    /// The first release date predicted.
    pub from: NaiveDate,
    /// Releases with both a prediction and a baseline: the figures are over these.
    pub scored: usize,
    /// Median absolute error of the model's premium (a fraction).
    pub model_median_error: f64,
    /// Median absolute error of the brand-median baseline (a fraction).
    pub baseline_median_error: f64,
    /// Share of scored releases whose actual premium fell inside the band.
    pub band_coverage: f64,
    /// What the band claims.
    pub band_coverage_claimed: f64,
}

impl Backtest {
    /// How much smaller the model's median error is than the baseline's: 0.2 is 20 % smaller.
    pub fn improvement(&self) -> f64 {
        1.0 - self.model_median_error / self.baseline_median_error
    }
}

/// Predicts every release of `releases` dated `from` on with a model fitted, once a month, on
/// the releases dated before that month's first day, and scores it against the brand median of
/// the releases before each one's date. `None` when fewer than [`MIN_SCORED`] releases could be
/// scored.
pub fn backtest(releases: &[Release], from: NaiveDate, params: ModelParams) -> Option<Backtest> {
    let mut coming: Vec<&Release> = releases
        .iter()
        .filter(|release| release.release_date >= from && release.observed.is_some())
        .collect();
    coming.sort_by(|a, b| {
        a.release_date
            .cmp(&b.release_date)
            .then_with(|| a.title.cmp(&b.title))
    });
    let mut rows = Vec::with_capacity(coming.len());
    let mut model: Option<PremiumModel> = None;
    for release in coming {
        let Some(observed) = release.observed else {
            continue;
        };
        let month = release
            .release_date
            .with_day(1)
            .unwrap_or(release.release_date);
        if model.as_ref().is_none_or(|m| m.fitted_before() != month) {
            model = Some(PremiumModel::fit_with(releases, month, params));
        }
        let predicted = model.as_ref().map_or(Err("no model".to_owned()), |model| {
            model
                .estimate(release, observed.horizon_days)
                .map(|estimate| (estimate.premium(), estimate.low(), estimate.high()))
                .map_err(|reason| reason.to_string())
        });
        rows.push(BacktestRow {
            item: release.title.clone(),
            release_date: release.release_date,
            horizon_days: observed.horizon_days,
            actual: observed.premium,
            predicted,
            baseline: brand_median(releases, release),
        });
    }
    let mut model_errors = Vec::new();
    let mut baseline_errors = Vec::new();
    let mut inside = 0_usize;
    for row in &rows {
        let (Ok((predicted, low, high)), Some(baseline)) = (&row.predicted, row.baseline) else {
            continue;
        };
        model_errors.push((predicted - row.actual).abs());
        baseline_errors.push((baseline - row.actual).abs());
        if (*low..=*high).contains(&row.actual) {
            inside += 1;
        }
    }
    let scored = model_errors.len();
    if scored < MIN_SCORED {
        return None;
    }
    Some(Backtest {
        rows,
        from,
        scored,
        model_median_error: median(&mut model_errors),
        baseline_median_error: median(&mut baseline_errors),
        band_coverage: inside as f64 / scored as f64,
        band_coverage_claimed: BAND_COVERAGE,
    })
}

/// The median premium of `release`'s brand over the releases dated before it (from their
/// observed premiums); `None` when the brand has none before.
pub fn brand_median(releases: &[Release], release: &Release) -> Option<f64> {
    let mut premiums: Vec<f64> = releases
        .iter()
        .filter(|other| {
            other.release_date < release.release_date
                && other.brand.eq_ignore_ascii_case(&release.brand)
        })
        .filter_map(|other| other.observed.map(|observed| observed.premium))
        .collect();
    (!premiums.is_empty()).then(|| median(&mut premiums))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len().is_multiple_of(2) {
        f64::midpoint(values[middle - 1], values[middle])
    } else {
        values[middle]
    }
}

/// The per-release CSV: `item,release_date,horizon_days,predicted,actual,low,high,baseline`
/// (fractions; predicted, low and high empty, and `no_estimate` saying why, when the model gave
/// none).
pub fn backtest_csv(backtest: &Backtest) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record([
        "item",
        "release_date",
        "horizon_days",
        "predicted",
        "actual",
        "low",
        "high",
        "baseline",
        "no_estimate",
    ])?;
    let number = |value: f64| format!("{value:.4}");
    for row in &backtest.rows {
        let (predicted, low, high, reason) = match &row.predicted {
            Ok((predicted, low, high)) => (
                number(*predicted),
                number(*low),
                number(*high),
                String::new(),
            ),
            Err(reason) => (String::new(), String::new(), String::new(), reason.clone()),
        };
        writer.write_record([
            row.item.clone(),
            row.release_date.to_string(),
            row.horizon_days.to_string(),
            predicted,
            number(row.actual),
            low,
            high,
            row.baseline.map(number).unwrap_or_default(),
            reason,
        ])?;
    }
    let bytes = writer
        .into_inner()
        .map_err(csv::IntoInnerError::into_error)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The three figures and what they rest on, for a person.
pub fn backtest_summary(snapshot: &Snapshot, backtest: &Backtest) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "snapshot: {} rows; left out: {} with a retail of 0, {} without a release date, {} repeating an earlier row's title and date; {} releases; read on {} (the day after the newest release)",
        snapshot.rows,
        snapshot.zero_retail,
        snapshot.undated,
        snapshot.repeats,
        snapshot.releases.len(),
        snapshot.read_on,
    );
    let no_estimate = backtest
        .rows
        .iter()
        .filter(|row| row.predicted.is_err())
        .count();
    let _ = writeln!(
        text,
        "predicted: {} releases from {} on ({} with no estimate); scored: {}",
        backtest.rows.len(),
        backtest.from,
        no_estimate,
        backtest.scored,
    );
    let _ = writeln!(
        text,
        "median absolute error, model:          {:.4} ({:.1} points of premium)",
        backtest.model_median_error,
        backtest.model_median_error * 100.0
    );
    let _ = writeln!(
        text,
        "median absolute error, brand median:   {:.4} ({:.1} points); the model's is {:.1} % smaller",
        backtest.baseline_median_error,
        backtest.baseline_median_error * 100.0,
        backtest.improvement() * 100.0
    );
    let _ = writeln!(
        text,
        "band coverage: {:.1} % of actual premiums inside the band (it claims {:.0} %)",
        backtest.band_coverage * 100.0,
        backtest.band_coverage_claimed * 100.0
    );
    text
}
