//! `solescope releases` without a subcommand: the release calendar on the command line, from
//! the service started in this process (the demo catalogue with the user's stores, or
//! KicksDB), as a table, CSV or JSON, and as an iCalendar file for any calendar app.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use solescope::app::releases_export;
use solescope::client::releases::ReleasesRequest;
use solescope::model::budget::BudgetSettingsCell;
use solescope::model::releases::MAX_RELEASE_DAYS;

use super::{SourceArgs, budget_settings, start_service, user_db_path};

/// How `releases` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListingFormat {
    /// Aligned columns, times in the local zone.
    Table,
    /// One line a drop with a header, times in UTC.
    Csv,
    /// The API's answer (`data` of `GET /api/v2/releases`).
    Json,
}

/// The listing's flags.
#[derive(Debug, Args)]
pub struct ListingArgs {
    /// Days ahead, from today.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_RELEASE_DAYS)))]
    pub days: u32,
    /// `table` for a person, `csv` for a script, `json` as the API answers.
    #[arg(long, value_enum, default_value_t = ListingFormat::Table)]
    pub format: ListingFormat,
    /// Also write the drops as an iCalendar file (one event a drop, with its start and a link).
    #[arg(long, value_name = "FILE")]
    pub ics: Option<PathBuf>,
    #[command(flatten)]
    pub source: SourceArgs,
}

/// Pages of 500 read at most (a calendar of 10,000 drops).
const MAX_PAGES: u32 = 20;

/// `solescope releases`.
pub fn run_listing(args: &ListingArgs) -> anyhow::Result<()> {
    let db_path = user_db_path()?;
    let settings = BudgetSettingsCell::new(budget_settings(&db_path, &args.source.budget)?);
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let (server, client) = start_service(&runtime, &args.source, &settings, Some(&db_path), &[])?;
    let request = ReleasesRequest {
        days: Some(args.days),
        ..ReleasesRequest::default()
    };
    let answer = runtime.block_on(client.releases_all(&request, MAX_PAGES));
    runtime.block_on(server.shutdown());
    let answer = answer.context("reading the release calendar")?;
    match args.format {
        ListingFormat::Table => print!(
            "{}",
            releases_export::releases_table(&answer, &chrono::Local)
        ),
        ListingFormat::Csv => print!("{}", releases_export::releases_csv(&answer)?),
        ListingFormat::Json => println!("{}", serde_json::to_string_pretty(&answer)?),
    }
    if let Some(path) = &args.ics {
        let text = releases_export::releases_ics(&answer, chrono::Utc::now());
        solescope::durable::write_bytes(path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        eprintln!(
            "{} drops written to {}",
            answer.releases.len(),
            path.display()
        );
    }
    Ok(())
}
