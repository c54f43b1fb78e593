//! The `solescope` binary: parses the command line, sets up logging, and either opens the window
//! or runs a subcommand. Everything it calls lives in the library crate.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use solescope::app::{self, StartupStatus};
use solescope::catalogue::generate::{self, GenerateOptions, Phase, Progress};
use solescope::catalogue::{demo, import};

/// Solescope: a desktop market dashboard for sneakers.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build or import catalogues.
    #[command(subcommand)]
    Catalogue(CatalogueCommand),
}

#[derive(Debug, Subcommand)]
enum CatalogueCommand {
    /// Generate a realistic synthetic catalogue (deterministic for a seed and date).
    Generate(GenerateArgs),
    /// Import search hits (one JSON object per line) into a new catalogue.
    Import {
        /// JSON-lines file of search hits.
        file: PathBuf,
        /// Where to write the catalogue (replaced only if the import succeeds).
        #[arg(long)]
        out: PathBuf,
    },
    /// Print where the demo catalogue lives.
    Path,
}

#[derive(Debug, Args)]
struct GenerateArgs {
    /// Number of products.
    #[arg(long, default_value_t = demo::DEMO_PRODUCTS)]
    products: u32,
    /// Random seed: the same seed and date give the same data.
    #[arg(long, default_value_t = demo::DEMO_SEED)]
    seed: u64,
    /// The day the data describes (YYYY-MM-DD); default today. Weekly orders end the week before.
    #[arg(long)]
    as_of: Option<chrono::NaiveDate>,
    /// Leave out the demo API keys (demo-free, demo-pro, demo-ultra).
    #[arg(long)]
    no_demo_keys: bool,
    /// Where to write the catalogue.
    #[arg(long)]
    out: PathBuf,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    init_logging();
    match cli.command {
        None => run_window(),
        Some(Command::Catalogue(command)) => run_catalogue(command),
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SOLESCOPE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

fn run_catalogue(command: CatalogueCommand) -> anyhow::Result<()> {
    match command {
        CatalogueCommand::Generate(args) => {
            let options = GenerateOptions {
                products: args.products,
                seed: args.seed,
                as_of: args
                    .as_of
                    .unwrap_or_else(|| chrono::Utc::now().date_naive()),
                demo_keys: !args.no_demo_keys,
            };
            let started = Instant::now();
            let bar = progress_bar();
            let report = generate::generate(&options, &args.out, &mut |p| show_progress(&bar, p))
                .with_context(|| format!("generating {}", args.out.display()))?;
            bar.finish_and_clear();
            println!(
                "{} products, {} variants, {} weekly records in {:.1} s: {}",
                report.products,
                report.variants,
                report.weekly_orders,
                started.elapsed().as_secs_f64(),
                args.out.display()
            );
        }
        CatalogueCommand::Import { file, out } => {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {pos} products imported ({per_sec})")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            let report = import::import(&file, &out, &mut |n| bar.set_position(n))
                .with_context(|| format!("importing {}", file.display()))?;
            bar.finish_and_clear();
            println!(
                "{} products, {} variants: {}",
                report.products,
                report.variants,
                out.display()
            );
        }
        CatalogueCommand::Path => match demo::default_path() {
            Some(path) => println!("{}", path.display()),
            None => anyhow::bail!("no home directory, so no data directory"),
        },
    }
    Ok(())
}

fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::new(1);
    bar.set_style(
        ProgressStyle::with_template("{msg:>8} [{bar:40}] {pos}/{len} ({per_sec}, {eta} left)")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

fn show_progress(bar: &ProgressBar, progress: Progress) {
    let phase = match progress.phase {
        Phase::Products => "products",
        Phase::Orders => "weeks",
        Phase::Indexes => "indexes",
    };
    if bar.message() != phase {
        bar.set_message(phase);
        bar.reset();
    }
    bar.set_length(progress.total);
    bar.set_position(progress.done);
}

fn run_window() -> anyhow::Result<()> {
    let path =
        demo::default_path().context("no home directory, so no place for the demo catalogue")?;
    let status = StartupStatus::new();
    let worker_status = status.clone();
    let prepare = move |repaint: Box<dyn Fn() + Send>| {
        std::thread::spawn(move || {
            let result = demo::ensure(
                &path,
                &mut |message| {
                    tracing::warn!("{message}");
                    worker_status.set_message(message);
                    repaint();
                },
                &mut |progress| {
                    worker_status.set_progress(progress_fraction(progress));
                    repaint();
                },
            );
            match result {
                Ok(outcome) => worker_status.finish(Ok(format!("{outcome:?}: {}", path.display()))),
                Err(err) => {
                    tracing::error!("demo catalogue: {err:#}");
                    worker_status.finish(Err(format!("{err:#}")));
                }
            }
            repaint();
        });
    };
    app::run(status, Box::new(prepare)).map_err(|err| anyhow::anyhow!("window: {err}"))
}

/// Products are most of the work; weeks and indexes the rest.
fn progress_fraction(progress: Progress) -> f32 {
    let part = progress.done as f32 / progress.total.max(1) as f32;
    match progress.phase {
        Phase::Products => part * 0.8,
        Phase::Orders => 0.8 + part * 0.1,
        Phase::Indexes => 0.9 + part * 0.1,
    }
}
