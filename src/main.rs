//! The `solescope` binary: parses the command line, sets up logging, and either opens the window
//! or runs a subcommand. Everything it calls lives in the library crate.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use clap::{Args, CommandFactory as _, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use solescope::app::{self, StartupStatus};
use solescope::catalogue::generate::{self, GenerateOptions, Phase, Progress};
use solescope::catalogue::{Catalogue, demo, import, keys, stats};
use solescope::client::{KeyStore, KeyringStore, MemoryKeyStore};
use solescope::model::{RetailerStores, StoreUrl, Tier};
use solescope::service::kicksdb::{self, Kicksdb, KicksdbConfig};
use solescope::service::marketplace::{Marketplaces, SimulatorConfig};
use solescope::service::shared::RedisStore;
use solescope::service::source::CatalogueSource;
use solescope::service::{self, ServiceConfig, ServiceState};
use solescope::userdb::UserDb;

mod cli;

/// jemalloc on Linux: a long-running `serve` or window gives back what it freed (see Cargo.toml).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Solescope: a desktop market dashboard for sneakers.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    screenshot: ScreenshotArgs,
    /// A Shopify storefront the window's local service reads for retail prices and stock, in
    /// addition to those listed in Settings (not saved); repeatable.
    #[arg(long = "retailer-store", value_name = "URL", value_parser = parse_store)]
    retailer_stores: Vec<StoreUrl>,
}

/// Taking a screenshot of the demo instead of opening the window for use.
#[derive(Debug, Args)]
struct ScreenshotArgs {
    /// Render the first settled frame of the demo to this PNG file and exit.
    #[arg(long, value_name = "FILE.png")]
    screenshot: Option<PathBuf>,
    /// With --screenshot: the view to show (product, orders, realtime, watchlist, alerts,
    /// portfolio, settings).
    #[arg(long, requires = "screenshot", value_parser = parse_view, default_value = "product")]
    view: app::View,
    /// With --screenshot: the search text.
    #[arg(long, requires = "screenshot", default_value = "")]
    query: String,
    /// With --screenshot: the demo key's tier.
    #[arg(long, requires = "screenshot", default_value = "pro")]
    tier: Tier,
    /// With --screenshot: where prices come from; `kicksdb` reads the key from
    /// `SOLESCOPE_KICKSDB_KEY` (and the address from `SOLESCOPE_KICKSDB_URL`).
    #[arg(long = "source", requires = "screenshot", value_enum, default_value_t = SourceArg::Demo)]
    screenshot_source: SourceArg,
}

fn parse_view(name: &str) -> Result<app::View, String> {
    app::View::parse(name).ok_or_else(|| {
        let names: Vec<&str> = app::View::ALL.iter().map(|view| view.name()).collect();
        format!(
            "unknown view {name:?}; expected one of {}",
            names.join(", ")
        )
    })
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build or import catalogues.
    #[command(subcommand)]
    Catalogue(CatalogueCommand),
    /// Run the Sneaker Market Data Service as a standalone HTTP server.
    Serve(ServeArgs),
    /// Manage the API keys of a catalogue (for a real deployment).
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Check the alerts without a window (desktop notifications; one monitor at a time).
    Monitor(cli::MonitorArgs),
    /// The portfolio on the command line: import a CSV, export, value.
    #[command(subcommand)]
    Portfolio(cli::PortfolioCommand),
    /// The sizes in stock at your stores that pay after fees, ranked by profit.
    Flips(cli::FlipsArgs),
    /// Write the manual pages, generated from this command line (for packaging).
    #[command(hide = true)]
    Man(cli::ManArgs),
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// Catalogue file; default: the demo catalogue (built on first use).
    #[arg(long)]
    catalogue: Option<PathBuf>,
    /// Simulated marketplace latency in milliseconds.
    #[arg(long, default_value_t = SimulatorConfig::default().latency_ms)]
    upstream_latency_ms: u64,
    /// Share of simulated marketplace calls that fail with 502 (0 to 1).
    #[arg(long, default_value_t = 0.0)]
    upstream_failure_rate: f64,
    /// Accept the well-known demo keys (demo-free, demo-pro, demo-ultra) on a non-loopback
    /// address too; on loopback they are always accepted.
    #[arg(long)]
    demo_keys: bool,
    /// Share the real-time budget and the API keys with other replicas through this Redis
    /// (redis://HOST:PORT/DB); the keys are then managed with `keys ... --redis`.
    #[arg(long, value_name = "URL")]
    redis: Option<String>,
    /// Where prices come from: `demo` (the catalogue and the simulator) or `kicksdb` (live, with
    /// the KicksDB key in the environment variable `SOLESCOPE_KICKSDB_KEY`; --catalogue is then
    /// the mirror kept for offline, default kicksdb-mirror.sqlite in the data directory).
    #[arg(long, value_enum, default_value_t = SourceArg::Demo)]
    source: SourceArg,
    /// KicksDB's base URL (with --source kicksdb).
    #[arg(long, value_name = "URL", default_value = kicksdb::DEFAULT_BASE_URL)]
    kicksdb_url: String,
    /// A Shopify storefront answering for retailer-a (its own address, such as kith.com),
    /// read keyless from its public product JSON; repeat for more, asked in order. Without
    /// one the simulator answers.
    #[arg(long = "retailer-store", value_name = "URL", value_parser = parse_store)]
    retailer_stores: Vec<StoreUrl>,
    /// Where the stores' catalogues are kept (default: stores.sqlite in the data directory).
    #[arg(long, value_name = "PATH")]
    stores_file: Option<PathBuf>,
    /// Least minutes between two readings of a store's whole catalogue.
    #[arg(long, value_name = "N", default_value_t = 30)]
    store_pass_minutes: u32,
    #[command(flatten)]
    budget: cli::BudgetArgs,
}

fn parse_store(text: &str) -> Result<StoreUrl, String> {
    StoreUrl::parse(text).map_err(|err| err.to_string())
}

/// `serve --source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SourceArg {
    /// The catalogue file and the marketplace simulator.
    Demo,
    /// KicksDB, live, with a mirror for when it cannot be reached.
    Kicksdb,
}

/// The environment variable `serve --source kicksdb` reads the KicksDB key from (never an
/// argument: arguments are visible to every user of the machine).
const KICKSDB_KEY_ENV: &str = "SOLESCOPE_KICKSDB_KEY";

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Create a key; it is printed once and stored only as a hash.
    Add {
        /// The key's tier.
        #[arg(long)]
        tier: Tier,
        /// A note to recognise the key by in `keys list`.
        #[arg(long, default_value = "")]
        label: String,
        /// Catalogue file; default: the demo catalogue.
        #[arg(long, conflicts_with = "redis")]
        catalogue: Option<PathBuf>,
        /// The Redis of replicas started with `serve --redis` (instead of a catalogue).
        #[arg(long, value_name = "URL")]
        redis: Option<String>,
    },
    /// List keys (their ids, tiers and labels; never the keys).
    List {
        /// Catalogue file; default: the demo catalogue.
        #[arg(long, conflicts_with = "redis")]
        catalogue: Option<PathBuf>,
        /// The Redis of replicas started with `serve --redis` (instead of a catalogue).
        #[arg(long, value_name = "URL")]
        redis: Option<String>,
    },
    /// Revoke a key by the id `keys list` shows.
    Revoke {
        /// The key id (at least 8 hex digits).
        id: String,
        /// Catalogue file; default: the demo catalogue.
        #[arg(long, conflicts_with = "redis")]
        catalogue: Option<PathBuf>,
        /// The Redis of replicas started with `serve --redis` (instead of a catalogue).
        #[arg(long, value_name = "URL")]
        redis: Option<String>,
    },
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
    /// Print what a data person checks first: products by brand and age group, duplicated
    /// titles, premiums over retail, kids' prices, size curve, weekly orders, real releases.
    Stats {
        /// Catalogue file.
        path: PathBuf,
    },
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
    // The window's own service would log every request (one per thumbnail), and `flips` its
    // polls of the list; `serve` should.
    let quiet = matches!(cli.command, None | Some(Command::Flips(_)));
    let _log = init_logging(if quiet {
        "info,solescope::service=warn"
    } else {
        "info"
    });
    match cli.command {
        None => run_window(&cli.screenshot, &cli.retailer_stores),
        Some(Command::Catalogue(command)) => run_catalogue(command),
        Some(Command::Serve(args)) => run_serve(&args),
        Some(Command::Keys(command)) => run_keys(command),
        Some(Command::Monitor(args)) => cli::run_monitor(&args),
        Some(Command::Portfolio(command)) => cli::run_portfolio(command),
        Some(Command::Flips(args)) => cli::run_flips(&args),
        Some(Command::Man(args)) => cli::run_man(&args, Cli::command()),
    }
}

/// The catalogue given, or the demo catalogue (built or repaired first if needed).
fn catalogue_or_demo(path: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    if let Some(path) = path {
        return Ok(path);
    }
    let path = demo::default_path().context("no home directory, so no data directory")?;
    let bar = progress_bar();
    let outcome = demo::ensure(
        &path,
        &mut |message| tracing::warn!("{message}"),
        &mut |p| show_progress(&bar, p),
    )
    .with_context(|| format!("preparing the demo catalogue at {}", path.display()))?;
    bar.finish_and_clear();
    tracing::info!("demo catalogue: {outcome:?}");
    Ok(path)
}

fn run_serve(args: &ServeArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        (0.0..=1.0).contains(&args.upstream_failure_rate),
        "--upstream-failure-rate is a share from 0 to 1"
    );
    let kicksdb_key = match args.source {
        SourceArg::Demo => None,
        SourceArg::Kicksdb => Some(std::env::var(KICKSDB_KEY_ENV).ok().filter(|k| !k.trim().is_empty()).with_context(|| {
            format!("--source kicksdb reads your KicksDB key from the environment variable {KICKSDB_KEY_ENV}, which is not set")
        })?),
    };
    let catalogue = match (&kicksdb_key, args.catalogue.clone()) {
        (Some(_), Some(path)) => path,
        (Some(_), None) => demo::data_dir()
            .context("no home directory, so no place for the KicksDB mirror (pass --catalogue)")?
            .join(KICKSDB_MIRROR_FILE),
        (None, path) => catalogue_or_demo(path)?,
    };
    let mut config = ServiceConfig::new(&catalogue);
    config.simulator.latency_ms = args.upstream_latency_ms;
    config.simulator.failure_rate = args.upstream_failure_rate;
    let stores_file = match &args.stores_file {
        Some(file) => file.clone(),
        None => demo::data_dir()
            .context(
                "no home directory, so no place for the stores' catalogues (pass --stores-file)",
            )?
            .join(service::start::STORES_FILE),
    };
    config.store_reading = Some(service::start::crawled_store_reading(
        RetailerStores::new(args.retailer_stores.iter().cloned()),
        &stores_file,
        &catalogue,
        std::time::Duration::from_secs(60 * u64::from(args.store_pass_minutes.max(1))),
    ));
    for store in &args.retailer_stores {
        tracing::info!("retailer-a reads the storefront {store}");
    }
    // Anyone may know the demo keys: off a loopback address they open the service to everyone.
    let loopback = is_loopback(&args.addr);
    config.demo_keys = args.demo_keys || loopback;
    if !loopback {
        if args.demo_keys {
            tracing::warn!(
                "--demo-keys on a non-loopback address: anyone who can reach {} may use the well-known demo keys",
                args.addr
            );
        } else {
            tracing::warn!(
                "not a loopback address: the demo keys are refused (pass --demo-keys to accept them): {}",
                args.addr
            );
        }
    }
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    if let Some(url) = &args.redis {
        // Connected on the serving runtime: the connection manager's tasks live there.
        let store = runtime
            .block_on(RedisStore::connect(url))
            .context("connecting to Redis (--redis)")?;
        tracing::info!("real-time budget and API keys shared through Redis");
        config.shared = Some(Arc::new(store));
    }
    let state = match kicksdb_key {
        None => ServiceState::open(&config)
            .with_context(|| format!("opening {}", catalogue.display()))?,
        Some(key) => {
            let mut live = KicksdbConfig::new(key, &catalogue);
            live.base_url.clone_from(&args.kicksdb_url);
            live.budget.settings = args.budget.cell();
            // The service cannot promise its clients more real-time calls than KicksDB allows.
            config.realtime_per_minute = config.realtime_per_minute.min(live.realtime_per_minute);
            let source = Arc::new(
                Kicksdb::new(&live, config.shared.clone())
                    .context("starting the KicksDB source")?,
            );
            tracing::info!(base_url = %args.kicksdb_url, mirror = %catalogue.display(), "prices from KicksDB");
            ServiceState::with_sources(
                &config,
                Arc::new(Arc::clone(&source)) as Arc<dyn Marketplaces>,
                Arc::new(source) as Arc<dyn CatalogueSource>,
            )
            .with_context(|| format!("opening the mirror {}", catalogue.display()))?
        }
    };
    runtime.block_on(async {
        let handle = service::spawn(&args.addr, state).await?;
        println!("Serving {} on {}", catalogue.display(), handle.base_url());
        tokio::signal::ctrl_c()
            .await
            .context("waiting for Ctrl-C")?;
        tracing::info!("shutting down");
        handle.shutdown().await;
        Ok(())
    })
}

/// The KicksDB mirror's file name in the data directory.
const KICKSDB_MIRROR_FILE: &str = "kicksdb-mirror.sqlite";

/// Whether every address `addr` names is a loopback one (an unresolvable name counts as not).
fn is_loopback(addr: &str) -> bool {
    use std::net::ToSocketAddrs as _;
    addr.to_socket_addrs().is_ok_and(|addrs| {
        let addrs: Vec<_> = addrs.collect();
        !addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback())
    })
}

/// Connects to the Redis of `serve --redis` for one `keys` command.
fn redis_keys(url: &str) -> anyhow::Result<(tokio::runtime::Runtime, RedisStore)> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let store = runtime
        .block_on(RedisStore::connect(url))
        .context("connecting to Redis (--redis)")?;
    Ok((runtime, store))
}

fn print_keys(records: &[keys::KeyRecord]) {
    println!(
        "{:<14} {:<6} {:<22} {:<22} label",
        "id", "tier", "created", "revoked"
    );
    for key in records {
        println!(
            "{:<14} {:<6} {:<22} {:<22} {}",
            key.id,
            key.tier,
            key.created_at,
            key.revoked_at.as_deref().unwrap_or("-"),
            key.label
        );
    }
}

fn run_keys(command: KeysCommand) -> anyhow::Result<()> {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    match command {
        KeysCommand::Add {
            tier,
            label,
            redis: Some(url),
            ..
        } => {
            let (runtime, store) = redis_keys(&url)?;
            let key = keys::new_key();
            runtime.block_on(store.add_key(&key, tier, &label, &now))?;
            println!("{key}");
            eprintln!("A new {tier} key. It is shown only now: keep it somewhere safe.");
        }
        KeysCommand::List {
            redis: Some(url), ..
        } => {
            let (runtime, store) = redis_keys(&url)?;
            print_keys(&runtime.block_on(store.list_keys())?);
        }
        KeysCommand::Revoke {
            id,
            redis: Some(url),
            ..
        } => {
            let (runtime, store) = redis_keys(&url)?;
            anyhow::ensure!(
                runtime.block_on(store.revoke(&id, &now))?,
                "no valid key with id {id}"
            );
            println!("revoked {id}");
        }
        KeysCommand::Add {
            tier,
            label,
            catalogue,
            redis: None,
        } => {
            let path = catalogue_or_demo(catalogue)?;
            let catalogue = Catalogue::open(&path)?;
            let key = keys::new_key();
            keys::insert(catalogue.connection(), &key, tier, &label, &now)?;
            println!("{key}");
            eprintln!("A new {tier} key. It is shown only now: keep it somewhere safe.");
        }
        KeysCommand::List {
            catalogue,
            redis: None,
        } => {
            let path = catalogue_or_demo(catalogue)?;
            let catalogue = Catalogue::open(&path)?;
            print_keys(&keys::list(catalogue.connection())?);
        }
        KeysCommand::Revoke {
            id,
            catalogue,
            redis: None,
        } => {
            let path = catalogue_or_demo(catalogue)?;
            let catalogue = Catalogue::open(&path)?;
            anyhow::ensure!(
                keys::revoke(catalogue.connection(), &id, &now)?,
                "no valid key with id {id}"
            );
            println!("revoked {id}");
        }
    }
    Ok(())
}

/// Logs to stderr; `SOLESCOPE_LOG` overrides `default_filter`. The lines are written by a
/// thread of their own (`tracing_appender::non_blocking`), so that no request waits on stderr:
/// written by each request's own thread, a stderr nobody reads (a full pipe) stopped every
/// request at its log line. Should the log fall 128,000 lines behind, later lines are dropped
/// rather than wait. Colours only on a terminal: a log file gets plain text. The returned guard
/// writes what is pending when dropped, at the end of `main`.
fn init_logging(default_filter: &str) -> tracing_appender::non_blocking::WorkerGuard {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SOLESCOPE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let (writer, guard) = tracing_appender::non_blocking(std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(writer)
        .init();
    guard
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
        CatalogueCommand::Stats { path } => {
            let catalogue = Catalogue::open_read_only(&path)?;
            let stats = stats::compute(catalogue.connection())
                .with_context(|| format!("reading {}", path.display()))?;
            println!("{stats}");
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

fn run_window(screenshot: &ScreenshotArgs, extra_stores: &[StoreUrl]) -> anyhow::Result<()> {
    let path =
        demo::default_path().context("no home directory, so no place for the demo catalogue")?;
    // The runtime lives as long as the window: the local service and every fetch run on it.
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let runtime_handle = runtime.handle().clone();
    // One list shared by the local service (which reads it on every retailer lookup) and the
    // window (whose Settings edit it): a store added there is used at once.
    let retailer_stores = RetailerStores::new(extra_stores.iter().cloned());
    // The KicksDB budget's settings, shared the same way: Settings edits them (from the user
    // database), the in-process KicksDB service reads them before every call.
    let budget_settings = solescope::model::budget::BudgetSettingsCell::default();
    let status = StartupStatus::new()
        .with_retailer_stores(retailer_stores.clone())
        .with_budget_settings(budget_settings.clone());
    // The demo's and the KicksDB service's one reading of the stores: one crawl of each, kept
    // in the data directory (a screenshot's in its own temporary folder).
    let screenshot_dir = match &screenshot.screenshot {
        Some(_) => Some(tempfile::tempdir().context("a folder for the screenshot's user data")?),
        None => None,
    };
    let data_dir = match &screenshot_dir {
        Some(dir) => Some(dir.path().to_path_buf()),
        None => demo::data_dir(),
    };
    let store_reading = service::start::crawled_store_reading(
        retailer_stores.clone(),
        &data_dir
            .clone()
            .unwrap_or_default()
            .join(service::start::STORES_FILE),
        &path,
        service::start::STORE_PASS_INTERVAL,
    );
    let live_stores = store_reading.clone();
    let worker_status = status.clone();
    let service_runtime = runtime_handle.clone();
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
            )
            .with_context(|| format!("preparing the demo catalogue at {}", path.display()))
            .and_then(|outcome| {
                worker_status.set_message("Starting the local service…");
                repaint();
                let mut config = ServiceConfig::new(&path);
                config.store_reading = Some(store_reading);
                let state = ServiceState::open(&config)
                    .with_context(|| format!("opening {}", path.display()))?;
                let server = service_runtime
                    .block_on(service::spawn("127.0.0.1:0", state))
                    .context("starting the local service")?;
                let base_url = server.base_url();
                // Dropping the handle stops the service: keep it on the runtime, which stops
                // with the window.
                service_runtime.spawn(async move {
                    let _server = server;
                    std::future::pending::<()>().await;
                });
                Ok(app::Ready {
                    summary: format!("{outcome:?}: {}", path.display()),
                    base_url,
                })
            });
            match result {
                Ok(ready) => {
                    tracing::info!("demo service at {}: {}", ready.base_url, ready.summary);
                    worker_status.finish(Ok(ready));
                }
                Err(err) => {
                    tracing::error!("{err:#}");
                    worker_status.finish(Err(format!("{err:#}")));
                }
            }
            repaint();
        });
    };
    let (key_store, plan): (Arc<dyn KeyStore>, _) = match &screenshot.screenshot {
        // A screenshot uses the demo key of the tier asked for, in memory: it must neither
        // need nor touch the user's keyring.
        Some(path) => {
            let store = MemoryKeyStore::new();
            store
                .set(app::LOCAL_DEMO_ACCOUNT, &app::demo_key(screenshot.tier))
                .context("setting the demo key")?;
            let feed = match screenshot.screenshot_source {
                SourceArg::Demo => app::Feed::Demo,
                SourceArg::Kicksdb => {
                    let key = std::env::var(KICKSDB_KEY_ENV).ok().filter(|k| !k.trim().is_empty()).with_context(|| {
                        format!("--source kicksdb reads the KicksDB key from {KICKSDB_KEY_ENV}, which is not set")
                    })?;
                    store
                        .set(app::KICKSDB_ACCOUNT, &key)
                        .context("setting the KicksDB key")?;
                    app::Feed::Kicksdb
                }
            };
            let plan = app::ScreenshotPlan {
                state: app::AppState {
                    view: screenshot.view,
                    last_query: screenshot.query.clone(),
                    feed,
                    ..app::AppState::default()
                },
                request: app::ScreenshotRequest::new(path.clone()),
            };
            (Arc::new(store), Some(plan))
        }
        None => (Arc::new(KeyringStore::new()), None),
    };
    let request = plan.as_ref().map(|plan| plan.request.clone());
    let state_path = demo::data_dir().map(|dir| dir.join("app.ron"));
    // A screenshot must not touch the user's own data: it gets a user database of its own
    // (portfolio, alerts), in a temporary folder, which the autopilot fills with a few pairs.
    let user_db = data_dir.map(|dir| dir.join(UserDb::FILE_NAME));
    let live = kicksdb_launcher(&runtime_handle, live_stores, budget_settings);
    let outcome = app::run(
        status,
        Box::new(prepare),
        runtime_handle,
        key_store,
        plan,
        state_path,
        user_db,
        Some(live),
    )
    .map_err(|err| anyhow::anyhow!("window: {err}"));
    // Requests in flight are not waited for on exit.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    outcome?;
    if let Some(request) = request {
        match request.outcome() {
            Some(Ok(())) => println!("{}", request.path.display()),
            Some(Err(err)) => anyhow::bail!("screenshot: {err}"),
            None => anyhow::bail!("screenshot: the window closed before it was taken"),
        }
    }
    Ok(())
}

/// The window's KicksDB source: given the user's key, starts an in-process service over KicksDB
/// (`SOLESCOPE_KICKSDB_URL`, default the real one) with its mirror in the data directory, and
/// answers its base URL. A second launch (a new key) stops the first service.
fn kicksdb_launcher(
    runtime: &tokio::runtime::Handle,
    store_reading: service::storefront::StoreReading,
    budget_settings: solescope::model::budget::BudgetSettingsCell,
) -> app::LiveLauncher {
    let running: Arc<tokio::sync::Mutex<Option<service::ServerHandle>>> = Arc::default();
    let runtime = runtime.clone();
    Arc::new(move |key: String| {
        let running = Arc::clone(&running);
        let runtime = runtime.clone();
        let store_reading = store_reading.clone();
        let budget_settings = budget_settings.clone();
        Box::pin(async move {
            if let Some(old) = running.lock().await.take() {
                old.shutdown().await;
            }
            let base_url = std::env::var("SOLESCOPE_KICKSDB_URL")
                .ok()
                .filter(|url| !url.trim().is_empty())
                .unwrap_or_else(|| kicksdb::DEFAULT_BASE_URL.to_owned());
            let mirror = demo::data_dir()
                .ok_or("no home directory, so no place for the KicksDB mirror")?
                .join(KICKSDB_MIRROR_FILE);
            let handle = runtime
                .spawn(async move {
                    service::start::kicksdb_in_window(
                        key,
                        base_url,
                        &mirror,
                        store_reading,
                        budget_settings,
                    )
                    .await
                })
                .await
                .map_err(|err| format!("starting the KicksDB service: {err}"))??;
            let url = handle.base_url();
            *running.lock().await = Some(handle);
            Ok(url)
        })
    })
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
