//! The binary's subcommands over the user's own data: `solescope monitor` (the alert monitor
//! without a window), `solescope portfolio import | export | value`, `solescope flips` and
//! `solescope releases`. Like `main`, this is
//! where the service and the window's parts are wired together: each command starts the
//! service in this process (the demo, or KicksDB with the key from the environment), talks to
//! it through the client, and uses the user database in the data directory, as the window
//! does. The library does the work (`app::monitor`, `app::portfolio_cli`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, Subcommand, ValueEnum};
use solescope::app::monitor::{
    self, LockError, MonitorConfig, MonitorKind, MonitorLock, PlanConfig,
};
use solescope::app::notify::DesktopNotifier;
use solescope::app::portfolio_cli;
use solescope::catalogue::demo;
use solescope::client::{Client, ClientConfig, KeyStore as _, KeyringStore};
use solescope::model::budget::{BudgetSettings, BudgetSettingsCell};
use solescope::service::kicksdb::KicksdbConfig;
use solescope::service::{self, ServerHandle, ServiceConfig, ServiceState};
use solescope::userdb::{UserDb, UserDbHandle};

use super::{KICKSDB_KEY_ENV, SourceArg, catalogue_or_demo};

mod flips;
mod listing;
mod man;
mod releases;

pub use self::flips::{FlipsArgs, run_flips};
pub use self::releases::{ReleasesArgs, run_releases};
pub use man::{ManArgs, run_man};

/// The KicksDB budget, as Settings sets it; given here, it is saved in the user database for
/// the window and every command alike.
#[derive(Debug, Args)]
pub struct BudgetArgs {
    /// The KicksDB plan's monthly quota of calls (unset: 1,000 assumed for Solescope's own
    /// calls, and KicksDB's count not held to it).
    #[arg(long, value_name = "CALLS")]
    kicksdb_quota: Option<u64>,
    /// The percent of the quota Solescope may spend (1 to 100).
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(1..=100))]
    kicksdb_share: Option<u8>,
}

impl BudgetArgs {
    /// `saved` with what was given here.
    fn over(&self, saved: BudgetSettings) -> BudgetSettings {
        BudgetSettings {
            monthly_quota: self.kicksdb_quota.or(saved.monthly_quota),
            share_percent: self.kicksdb_share.unwrap_or(saved.share_percent),
        }
    }

    fn given(&self) -> bool {
        self.kicksdb_quota.is_some() || self.kicksdb_share.is_some()
    }

    /// The settings for `serve` (no user database there: what is given, else the defaults).
    pub fn cell(&self) -> BudgetSettingsCell {
        let settings = self.over(BudgetSettings::default());
        if settings.monthly_quota.is_none() {
            tracing::warn!(
                "the KicksDB plan's monthly quota is not set (--kicksdb-quota): Solescope's own calls are held to {} a month",
                settings.allowance()
            );
        }
        BudgetSettingsCell::new(settings)
    }
}

/// Where prices come from and how much of the KicksDB key they may spend.
#[derive(Debug, Args)]
pub struct SourceArgs {
    /// `demo` (the demo catalogue) or `kicksdb` (live, the key in `SOLESCOPE_KICKSDB_KEY`, the
    /// address in `SOLESCOPE_KICKSDB_URL` or --kicksdb-url).
    #[arg(long, value_enum, default_value_t = SourceArg::Demo)]
    source: SourceArg,
    /// KicksDB's base URL (with --source kicksdb).
    #[arg(long, value_name = "URL")]
    kicksdb_url: Option<String>,
    #[command(flatten)]
    budget: BudgetArgs,
}

/// `solescope monitor`.
#[derive(Debug, Args)]
pub struct MonitorArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// How often the alerts are wished checked (planned no faster than 1m, and spaced out
    /// when the KicksDB budget cannot carry it): 90s, 5m, 1h.
    #[arg(long, value_name = "INTERVAL", value_parser = parse_interval, default_value = "1m")]
    alerts_every: Duration,
    /// Also price the portfolio's style codes this often, into the price history.
    #[arg(long, value_name = "INTERVAL", value_parser = parse_interval)]
    portfolio_every: Option<Duration>,
    /// Also price the watchlist's style codes this often, into the price history.
    #[arg(long, value_name = "INTERVAL", value_parser = parse_interval)]
    watchlist_every: Option<Duration>,
    /// While the flip alerts are on (the window's Flips tab): how often the flip list's prices
    /// are wished scanned on KicksDB (planned with the alerts, spaced out to fit the budget).
    #[arg(long, value_name = "INTERVAL", value_parser = parse_interval, default_value = "30m")]
    flips_every: Duration,
}

/// `solescope portfolio ...`.
#[derive(Debug, Subcommand)]
pub enum PortfolioCommand {
    /// Add every pair of a CSV file (the window's columns) to the portfolio: all or nothing.
    Import {
        /// The CSV file.
        file: PathBuf,
        /// The currency of amounts whose line names none.
        #[arg(long, default_value = "USD")]
        currency: String,
    },
    /// Write every pair and sale as CSV (to standard output, or to --out).
    Export {
        /// The file to write (replaced only once complete).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The market value and P&L of each held pair, priced in batches of 50 style codes.
    Value {
        #[command(flatten)]
        source: SourceArgs,
        /// `table` for a person, `csv` for a script.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
}

/// How `portfolio value` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns and totals per currency.
    Table,
    /// One line per held pair, with a header.
    Csv,
}

/// `90s`, `15m`, `1h`, `2d` (a bare number is seconds).
fn parse_interval(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not an interval such as 90s, 15m, 1h or 2d"))?;
    let secs = match unit.trim() {
        "" | "s" => 1,
        "m" | "min" => 60,
        "h" => 3_600,
        "d" => 86_400,
        other => return Err(format!("unknown unit {other:?}: use s, m, h or d")),
    };
    Ok(Duration::from_secs(number.saturating_mul(secs)))
}

/// The user database's path in the data directory.
fn user_db_path() -> anyhow::Result<PathBuf> {
    let dir = demo::data_dir().context("no home directory, so no data directory")?;
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir.join(UserDb::FILE_NAME))
}

/// The budget settings saved in the user database, with `budget`'s flags saved over them.
fn budget_settings(
    db_path: &std::path::Path,
    budget: &BudgetArgs,
) -> anyhow::Result<BudgetSettings> {
    let db = UserDb::open(db_path)?;
    let settings = budget.over(db.budget_settings()?);
    if budget.given() {
        db.set_budget_settings(settings)?;
    }
    Ok(settings)
}

/// The KicksDB key: `SOLESCOPE_KICKSDB_KEY`, else the one the window's Settings keep in the
/// desktop keyring (a systemd user service reaches it in the user's session).
fn kicksdb_key() -> anyhow::Result<String> {
    if let Some(key) = std::env::var(KICKSDB_KEY_ENV)
        .ok()
        .filter(|k| !k.trim().is_empty())
    {
        return Ok(key);
    }
    let keyring = KeyringStore::new().get(solescope::app::KICKSDB_ACCOUNT);
    match keyring {
        Ok(Some(key)) if !key.trim().is_empty() => Ok(key),
        Ok(_) => anyhow::bail!(
            "--source kicksdb needs your KicksDB key: set {KICKSDB_KEY_ENV}, or paste it once in the window's Settings (it goes to the desktop keyring)"
        ),
        Err(err) => anyhow::bail!(
            "--source kicksdb needs your KicksDB key: {KICKSDB_KEY_ENV} is not set and the desktop keyring could not be read ({err})"
        ),
    }
}

/// The stores the user added in the window's Settings (kept in the user database), read as
/// the window reads them: crawled into `stores.sqlite` beside it and matched against the
/// service's catalogue (a pass at most as often as Settings say, 30 minutes by default, counted
/// from the last on disk, so the window and the monitor do not read a store twice in a row).
fn users_stores(
    db_path: &std::path::Path,
) -> anyhow::Result<solescope::service::storefront::StoreReading> {
    let db = UserDb::open(db_path)?;
    let stores = solescope::model::RetailerStores::new(db.retailer_stores()?);
    let interval = db
        .store_pass_minutes()?
        .map_or(service::start::STORE_PASS_INTERVAL, |m| {
            std::time::Duration::from_secs(u64::from(m) * 60)
        });
    let dir = db_path.parent().unwrap_or(std::path::Path::new("."));
    Ok(service::start::crawled_store_reading(
        stores,
        &dir.join(service::start::STORES_FILE),
        interval,
    ))
}

/// The service this command talks to, on `runtime`, and a client of it; with the user's
/// stores when `stores_of` (the user database) is given, and `extra` stores besides.
fn start_service(
    runtime: &tokio::runtime::Runtime,
    source: &SourceArgs,
    settings: &BudgetSettingsCell,
    stores_of: Option<&std::path::Path>,
    extra: &[solescope::model::StoreUrl],
) -> anyhow::Result<(ServerHandle, Client)> {
    let reading = match stores_of {
        Some(db_path) => Some(users_stores(db_path)?),
        None => None,
    };
    if let Some(reading) = &reading {
        for store in extra {
            reading.stores().add(store.clone());
        }
    }
    let state = match source.source {
        SourceArg::Demo => {
            let catalogue = catalogue_or_demo(None)?;
            let mut config = ServiceConfig::new(&catalogue);
            config.store_reading.clone_from(&reading);
            ServiceState::open(&config)
                .with_context(|| format!("opening {}", catalogue.display()))?
        }
        SourceArg::Kicksdb => {
            let key = kicksdb_key()?;
            let mirror = demo::data_dir()
                .context("no home directory, so no place for the KicksDB mirror")?
                .join(service::start::KICKSDB_MIRROR_FILE);
            let mut live = KicksdbConfig::new(key, &mirror);
            live.base_url = service::start::kicksdb_base_url(source.kicksdb_url.as_deref());
            live.budget.settings = settings.clone();
            let mut config = ServiceConfig::new(&mirror);
            config.store_reading.clone_from(&reading);
            service::start::kicksdb_state(config, &live)?
        }
    };
    let server = runtime
        .block_on(service::spawn("127.0.0.1:0", state))
        .context("starting the in-process service")?;
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        Some("demo-ultra".to_owned()),
    ))
    .context("the service's client")?;
    Ok((server, client))
}

/// `solescope monitor`: the alert monitor without a window, until Ctrl-C or SIGTERM.
pub fn run_monitor(args: &MonitorArgs) -> anyhow::Result<()> {
    let db_path = user_db_path()?;
    let dir = db_path
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    // Refused before anything starts when another `solescope monitor` runs.
    match MonitorLock::try_acquire(&dir, MonitorKind::Headless) {
        Ok(lock) => drop(lock),
        Err(LockError::Held {
            holder: Some(holder),
            ..
        }) if holder.kind == MonitorKind::Window => {}
        Err(err) => anyhow::bail!("not started: {err}"),
    }
    let settings = BudgetSettingsCell::new(budget_settings(&db_path, &args.source.budget)?);
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let (server, client) = start_service(&runtime, &args.source, &settings, Some(&db_path), &[])?;
    let plan = PlanConfig {
        alerts_every: args.alerts_every,
        portfolio_every: args.portfolio_every,
        watchlist_every: args.watchlist_every,
        flips_every: args.flips_every,
        budget_settings: Some(settings),
    };
    runtime.block_on(async move {
        let (db, opened) = UserDbHandle::spawn(db_path.clone());
        tokio::task::spawn_blocking(move || opened.block_and_take())
            .await
            .context("opening the user database")??;
        // Starred drops' reminders, beside the alerts (shown once with the window's).
        let reminders = tokio::spawn(solescope::app::reminders::run(
            Some(client.clone()),
            db.clone(),
            Arc::new(DesktopNotifier),
            Arc::new(solescope::model::budget::SystemClock),
        ));
        let (handle, run) = monitor::headless(
            client,
            db,
            Arc::new(DesktopNotifier),
            MonitorConfig::default(),
            plan,
        )
        .await
        .context("not started")?;
        println!(
            "Checking the alerts of {}; stop with Ctrl-C",
            db_path.display()
        );
        let task = tokio::spawn(run);
        let mut shown_plan = None;
        loop {
            tokio::select! {
                () = stop_signal() => break,
                () = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
            for firing in handle.take_firings() {
                let (title, body) = solescope::app::notify::notification_text(&firing);
                tracing::info!("alert fired: {title}: {body}");
            }
            for notice in handle.take_flip_notices() {
                let (title, body) =
                    solescope::app::notify::flip_notification_text(std::slice::from_ref(&notice));
                tracing::info!("flip: {title}: {body}");
            }
            let note = handle.plan_status().note;
            if note != shown_plan {
                if let Some(note) = &note {
                    tracing::warn!("{note}");
                }
                shown_plan = note;
            }
        }
        tracing::info!("stopping");
        handle.stop();
        reminders.abort();
        let _ = tokio::time::timeout(Duration::from_secs(5), task).await;
        server.shutdown().await;
        Ok(())
    })
}

/// Ctrl-C, or SIGTERM (how systemd stops a service).
async fn stop_signal() {
    #[cfg(unix)]
    {
        let terminate = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut signal) => {
                    signal.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            () = terminate => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// `solescope portfolio ...`.
pub fn run_portfolio(command: PortfolioCommand) -> anyhow::Result<()> {
    let db_path = user_db_path()?;
    match command {
        PortfolioCommand::Import { file, currency } => {
            let imported = portfolio_cli::import_csv(&db_path, &file, &currency, |read| {
                eprintln!(
                    "read {read} pairs from {}; writing them in one transaction",
                    file.display()
                );
            })?;
            println!("imported {imported} pairs into {}", db_path.display());
        }
        PortfolioCommand::Export { out } => {
            let text = portfolio_cli::export_csv(&db_path)?;
            match out {
                Some(path) => solescope::durable::write_bytes(&path, text.as_bytes())
                    .with_context(|| format!("writing {}", path.display()))?,
                None => print!("{text}"),
            }
        }
        PortfolioCommand::Value { source, format } => {
            let settings = BudgetSettingsCell::new(budget_settings(&db_path, &source.budget)?);
            let holdings = {
                let mut db = UserDb::open(&db_path)?;
                solescope::userdb::portfolio::holdings(&mut db)?
            };
            let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
            let (server, client) = start_service(&runtime, &source, &settings, None, &[])?;
            let rows = runtime.block_on(portfolio_cli::value(&client, holdings));
            runtime.block_on(server.shutdown());
            let rows = rows?;
            let now = chrono::Utc::now();
            match format {
                Format::Csv => print!("{}", portfolio_cli::value_csv(&rows, now)?),
                Format::Table => print!("{}", portfolio_cli::value_table(&rows, now)),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_interval;
    use std::time::Duration;

    #[test]
    fn intervals_read_with_their_units() {
        assert_eq!(parse_interval("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_interval("15m"), Ok(Duration::from_secs(900)));
        assert_eq!(parse_interval("1h"), Ok(Duration::from_secs(3_600)));
        assert_eq!(parse_interval("45"), Ok(Duration::from_secs(45)));
        assert!(parse_interval("soon").is_err());
        assert!(parse_interval("5w").is_err());
    }
}
