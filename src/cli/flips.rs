//! `solescope flips`: the flip list on the command line. Starts the service in this process as
//! the window does (the demo catalogue, or KicksDB through `service::start`), reading the
//! stores of Settings and those given with `--retailer-store` (crawled into `stores.sqlite` in
//! the data directory, so a store the window read lately is not read again), waits for the list
//! to be built, and prints a page as a table, CSV or JSON.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use solescope::model::StoreUrl;
use solescope::model::budget::BudgetSettingsCell;
use solescope::model::flips::{FlipsAnswer, FlipsRequest};

use super::{SourceArgs, budget_settings, parse_interval, start_service, user_db_path};

/// `solescope flips`.
#[derive(Debug, Args)]
pub struct FlipsArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// A Shopify store to scan besides those of Settings (its own address, such as kith.com);
    /// repeatable. Without any store the demo's simulated retailer stands in.
    #[arg(long = "retailer-store", value_name = "URL", value_parser = super::super::parse_store)]
    retailer_stores: Vec<StoreUrl>,
    /// `table` for a person, `csv` or `json` for a script.
    #[arg(long, value_enum, default_value_t = FlipsFormat::Table)]
    format: FlipsFormat,
    /// Rows with at least this profit (major units; negative to see losses too).
    #[arg(long, allow_hyphen_values = true)]
    min_profit: Option<f64>,
    /// Rows with at least this return on the buy cost (0.2 = 20 %).
    #[arg(long, allow_hyphen_values = true)]
    min_roi: Option<f64>,
    /// Only these US sizes (repeatable): your sizes.
    #[arg(long = "size", value_name = "US SIZE")]
    sizes: Vec<String>,
    /// Only these stores (repeatable).
    #[arg(long = "store", value_name = "STORE")]
    stores: Vec<String>,
    /// Only these brands (repeatable).
    #[arg(long = "brand", value_name = "BRAND")]
    brands: Vec<String>,
    /// Your seller level at the largest marketplace, 1 to 5 (9 % commission at 1 down to 7 %).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
    seller_level: Option<u8>,
    /// Shipping per pair from a store, major units (default 10.00).
    #[arg(long)]
    shipping: Option<f64>,
    /// Sales tax at US-dollar stores, percent (default 7.5).
    #[arg(long)]
    tax: Option<f64>,
    /// Rows per page (1 to 100).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=100))]
    limit: u32,
    /// The page, from 1.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    page: u32,
    /// How long to wait for the stores to be read and the list built: 90s, 5m.
    #[arg(long, value_name = "INTERVAL", value_parser = parse_interval, default_value = "3m")]
    wait: Duration,
}

/// How `flips` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FlipsFormat {
    /// Aligned columns, what the rows rest on above them.
    Table,
    /// One line per row, amounts in major units, a header first.
    Csv,
    /// The answer of `GET /api/v2/flips`, amounts in cents.
    Json,
}

/// Whether every store of the answer has been read (or said why not) and the list is built.
fn settled(answer: &FlipsAnswer) -> bool {
    !answer.building
        && answer.stores.iter().all(|store| {
            store.read_at.is_some()
                || !(store.status.contains("not been read yet") || store.status.contains("reading"))
        })
}

/// `solescope flips`.
pub fn run_flips(args: &FlipsArgs) -> anyhow::Result<()> {
    let db_path = user_db_path()?;
    let settings = BudgetSettingsCell::new(budget_settings(&db_path, &args.source.budget)?);
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let (server, client) = start_service(
        &runtime,
        &args.source,
        &settings,
        Some(&db_path),
        &args.retailer_stores,
    )?;
    let request = FlipsRequest {
        page: Some(args.page),
        limit: Some(args.limit),
        min_profit: args.min_profit,
        min_roi: args.min_roi,
        sizes: args.sizes.clone(),
        stores: args.stores.clone(),
        brands: args.brands.clone(),
        seller_level: args.seller_level,
        shipping: args.shipping,
        tax: args.tax,
        ..FlipsRequest::default()
    };
    let answer = runtime.block_on(async {
        let started = Instant::now();
        let mut shown_wait = false;
        loop {
            let answer = client.flips(&request).await?;
            if settled(&answer) || started.elapsed() >= args.wait {
                return Ok::<_, solescope::client::ClientError>(answer);
            }
            if !shown_wait {
                eprintln!(
                    "Reading the stores and pricing their sizes (at most {} s)…",
                    args.wait.as_secs()
                );
                shown_wait = true;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    });
    runtime.block_on(server.shutdown());
    let answer = answer.context("asking the service for the flips")?;
    if !settled(&answer) {
        eprintln!(
            "Not every store was read within {} s: the list shows what was in hand.",
            args.wait.as_secs()
        );
    }
    match args.format {
        FlipsFormat::Table => print!("{}", solescope::figures::flips_table(&answer)),
        FlipsFormat::Csv => print!("{}", solescope::figures::flips_csv(&answer.flips)?),
        FlipsFormat::Json => println!("{}", serde_json::to_string_pretty(&answer)?),
    }
    Ok(())
}
