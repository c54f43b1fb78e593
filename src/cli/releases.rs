//! `solescope releases`: the coming releases (the listing's flags sit on `ReleasesArgs`), and
//! `solescope releases backtest`, the premium estimate's published backtest over a marketplace
//! snapshot. The library does the work (`figures::premium_backtest`); this reads the file and
//! prints.

use std::io::Read as _;
use std::path::PathBuf;

use anyhow::Context as _;
use chrono::NaiveDate;
use clap::{Args, Subcommand, ValueEnum};
use solescope::figures::premium::ModelParams;
use solescope::figures::premium_backtest::{
    self, Backtest, backtest_csv, backtest_summary, parse_snapshot,
};

/// The largest snapshot read: the 2023 one is 200 KB; anything near this is not a snapshot.
const MAX_SNAPSHOT_BYTES: u64 = 64 * 1024 * 1024;

/// The first release date the published backtest predicts.
pub const BACKTEST_FROM: NaiveDate = match NaiveDate::from_ymd_opt(2022, 7, 1) {
    Some(date) => date,
    None => panic!("a valid date"),
};

/// `solescope releases ...`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ReleasesArgs {
    #[command(subcommand)]
    command: Option<ReleasesCommand>,
    /// The listing's flags (without a subcommand).
    #[command(flatten)]
    listing: super::listing::ListingArgs,
}

/// What `solescope releases` does besides listing.
#[derive(Debug, Subcommand)]
pub enum ReleasesCommand {
    /// Backtest the premium estimate over a marketplace snapshot: each release from 2022-07-01
    /// on predicted from the releases before its month, beside the brand-median baseline.
    Backtest(BacktestArgs),
}

/// `solescope releases backtest`.
#[derive(Debug, Args)]
pub struct BacktestArgs {
    /// The snapshot CSV (`item`, `brand`, `retail`, `release`, `pricePremium` columns).
    #[arg(long, value_name = "FILE")]
    snapshot: PathBuf,
    /// `table`: each release and the figures; `csv`: one line per release (the figures go to
    /// standard error).
    #[arg(long, value_enum, default_value_t = BacktestFormat::Table)]
    format: BacktestFormat,
}

/// How `releases backtest` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BacktestFormat {
    /// Aligned columns, then the figures.
    Table,
    /// `item,release_date,horizon_days,predicted,actual,low,high,baseline,no_estimate`.
    Csv,
}

/// `solescope releases ...`.
pub fn run_releases(args: ReleasesArgs) -> anyhow::Result<()> {
    match args.command {
        Some(ReleasesCommand::Backtest(args)) => run_backtest(&args),
        None => super::listing::run_listing(&args.listing),
    }
}

fn run_backtest(args: &BacktestArgs) -> anyhow::Result<()> {
    let text = read_snapshot(&args.snapshot)?;
    let snapshot =
        parse_snapshot(&text).with_context(|| format!("reading {}", args.snapshot.display()))?;
    let backtest =
        premium_backtest::backtest(&snapshot.releases, BACKTEST_FROM, ModelParams::default())
            .with_context(|| {
                format!(
                    "too few releases from {BACKTEST_FROM} on to score in {}",
                    args.snapshot.display()
                )
            })?;
    let summary = backtest_summary(&snapshot, &backtest);
    match args.format {
        BacktestFormat::Csv => {
            print!("{}", backtest_csv(&backtest)?);
            eprint!("{summary}");
        }
        BacktestFormat::Table => {
            print!("{}", table(&backtest));
            print!("{summary}");
        }
    }
    Ok(())
}

/// The file as text, refused when larger than [`MAX_SNAPSHOT_BYTES`].
fn read_snapshot(path: &std::path::Path) -> anyhow::Result<String> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_SNAPSHOT_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    anyhow::ensure!(
        bytes.len() as u64 <= MAX_SNAPSHOT_BYTES,
        "larger than {} MB, so not a snapshot: {}",
        MAX_SNAPSHOT_BYTES / (1024 * 1024),
        path.display()
    );
    String::from_utf8(bytes).with_context(|| format!("not UTF-8 text: {}", path.display()))
}

/// One line per release: date, days, actual, predicted with its band, baseline, title.
fn table(backtest: &Backtest) -> String {
    use std::fmt::Write as _;
    let pct = |value: f64| format!("{:+.0}%", value * 100.0);
    let mut text = format!(
        "{:<10} {:>5} {:>7} {:>7} {:>17} {:>8}  {}\n",
        "released", "days", "actual", "model", "band", "baseline", "item"
    );
    for row in &backtest.rows {
        let (model, band) = match &row.predicted {
            Ok((predicted, low, high)) => {
                (pct(*predicted), format!("{} to {}", pct(*low), pct(*high)))
            }
            Err(reason) => ("-".to_owned(), reason.clone()),
        };
        let _ = writeln!(
            text,
            "{:<10} {:>5} {:>7} {:>7} {:>17} {:>8}  {}",
            row.release_date,
            row.horizon_days,
            pct(row.actual),
            model,
            band,
            row.baseline.map_or_else(|| "-".to_owned(), pct),
            row.item
        );
    }
    text
}
