//! The monitor on a KicksDB key with a monthly budget, counted at the mock KicksDB: a simulated
//! month (a clock the test moves) of 10 alerts, a portfolio of 200 pairs over 120 style codes
//! valued every hour and 50 starred products every 15 minutes, at a budget of 10,000 calls:
//! never more than 10,000 calls, every alert checked at least every 15 minutes. And one round
//! pricing that portfolio and those 50 stars: at most 6 calls.
//!
//! The month passes in a minute or so of real time, so what counts real time is set aside here:
//! answer reuse (a price kept five minutes would answer every check of a simulated month) and
//! KicksDB's 640 calls a real minute. The monthly budget and the plan run on the test's clock.

mod common;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use common::mock_kicksdb::{MockConfig, MockKicksdb};
use solescope::app::monitor::{MonitorDriver, PlanConfig};
use solescope::app::notify::{Notifier, NotifyError};
use solescope::client::{Client, ClientConfig};
use solescope::model::budget::{
    BudgetSettings, BudgetSettingsCell, Clock as _, DemandKind, ManualClock,
};
use solescope::model::portfolio::{Condition, Pair};
use solescope::model::{AlertFiring, AlertKind, Country, NewAlert, ProductRef};
use solescope::service::kicksdb::{KicksdbConfig, Ttl};
use solescope::service::{self, ServerHandle, ServiceConfig};
use solescope::userdb::watchlist::WatchRow;
use solescope::userdb::{UserDb, UserDbHandle};

struct Silent;

impl Notifier for Silent {
    fn notify(&self, _: &AlertFiring) -> Result<(), NotifyError> {
        Ok(())
    }
}

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

/// A service over the mock with a budget of `quota` calls, on `clock`, reusing no answer.
async fn start_over(
    mock: &MockKicksdb,
    dir: &std::path::Path,
    quota: u64,
    clock: &ManualClock,
) -> ServerHandle {
    let mirror = dir.join("mirror.sqlite");
    let mut live = KicksdbConfig::new(mock.key(), &mirror);
    live.base_url = mock.base_url();
    live.calls_per_minute = 1_000_000;
    live.ttl = Ttl {
        realtime: Duration::ZERO,
        search: Duration::ZERO,
        product: Duration::ZERO,
        slow: Duration::ZERO,
    };
    live.budget.settings = BudgetSettingsCell::new(BudgetSettings {
        monthly_quota: Some(quota),
        share_percent: 100,
    });
    live.budget.clock = Arc::new(clock.clone());
    service::start::spawn_kicksdb(ServiceConfig::new(&mirror), live, "127.0.0.1:0")
        .await
        .unwrap()
}

/// The user's database: 200 pairs over the first 120 of `codes`, the next 50 starred, and an
/// ask alert on each of the 10 after (never firing: a cent).
fn fill_user_db(path: &std::path::Path, codes: &[&str], now: i64) {
    let mut db = UserDb::open(path).unwrap();
    let pairs: Vec<(Pair, Option<_>)> = (0..200)
        .map(|i| {
            let sku = codes[i % 120];
            (
                Pair {
                    product_id: String::new(),
                    slug: String::new(),
                    sku: sku.to_owned(),
                    title: format!("Pair {sku}"),
                    size: ["9", "10", "11"][i % 3].to_owned(),
                    condition: Condition::New,
                    purchased_on: chrono::NaiveDate::from_ymd_opt(2026, 1, 5).unwrap(),
                    cost_cents: 15_000,
                    currency: "USD".into(),
                    bought_from: String::new(),
                    notes: String::new(),
                    tags: Vec::new(),
                },
                None,
            )
        })
        .collect();
    solescope::userdb::portfolio::add_holdings(&mut db, &pairs).unwrap();
    let stars: Vec<WatchRow> = codes[120..170]
        .iter()
        .map(|sku| WatchRow {
            product_id: format!("id-{sku}"),
            title: format!("Starred {sku}"),
            sku: (*sku).to_owned(),
            country: Country::Us,
            currency: "USD".into(),
            price_when_starred: None,
        })
        .collect();
    solescope::userdb::watchlist::save_watchlist(&mut db, &stars).unwrap();
    for sku in &codes[170..180] {
        db.add_alert(
            &NewAlert {
                product: ProductRef {
                    product_id: format!("id-{sku}"),
                    style_code: (*sku).to_owned(),
                    title: format!("Alerted {sku}"),
                },
                size: None,
                kind: AlertKind::AskAtOrBelow,
                price_cents: Some(1),
                currency: "USD".into(),
            },
            now,
        )
        .unwrap();
    }
}

/// A folder for the user database, in memory where the system has one: a month of rounds
/// writes the history thousands of times, each write flushed to disk.
fn user_dir() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    }
}

struct Setup {
    mock: MockKicksdb,
    _dir: tempfile::TempDir,
    user: tempfile::TempDir,
    _server: ServerHandle,
    driver: MonitorDriver,
    clock: ManualClock,
}

async fn setup(start: DateTime<Utc>, plan: PlanConfig) -> Setup {
    let mock = MockKicksdb::start(MockConfig {
        extra_products: 175,
        quota_start: 0,
        ..MockConfig::default()
    });
    let codes = mock.style_codes();
    assert!(codes.len() >= 180);
    let dir = tempfile::tempdir().unwrap();
    let user = user_dir();
    let clock = ManualClock::new(start);
    let db_path = user.path().join(UserDb::FILE_NAME);
    fill_user_db(&db_path, &codes, start.timestamp());
    let server = start_over(&mock, dir.path(), 10_000, &clock).await;
    let mut config = ClientConfig::new(server.base_url(), Some("demo-ultra".to_owned()));
    config.retries = 0;
    let client = Client::new(config).unwrap();
    let (db, opened) = UserDbHandle::spawn(db_path);
    tokio::task::spawn_blocking(move || opened.block_and_take())
        .await
        .unwrap()
        .unwrap();
    let driver = MonitorDriver::new(client, db, Arc::new(Silent), plan, Arc::new(clock.clone()));
    Setup {
        mock,
        _dir: dir,
        user,
        _server: server,
        driver,
        clock,
    }
}

fn month_plan() -> PlanConfig {
    PlanConfig {
        alerts_every: Duration::from_secs(60),
        portfolio_every: Some(Duration::from_secs(3_600)),
        watchlist_every: Some(Duration::from_secs(15 * 60)),
        budget_settings: None,
        ..PlanConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_prices_200_pairs_over_120_codes_and_50_stars_in_at_most_6_calls() {
    let plan = PlanConfig {
        alerts_every: Duration::from_secs(60),
        ..month_plan()
    };
    let mut setup = setup(at("2026-12-10T09:00:00Z"), plan).await;
    let report = setup
        .driver
        .round()
        .await
        .unwrap()
        .expect("KicksDB is metered");
    assert!(report.ran.contains(&DemandKind::Portfolio), "{report:?}");
    assert!(report.ran.contains(&DemandKind::Watchlist), "{report:?}");
    let counts = setup.mock.counts();
    let calls: usize = counts.values().sum();
    // 120 codes in 3 batches, 50 stars in 1, the 10 alerted codes in 1.
    assert_eq!(calls, 5, "{counts:?}");
    assert!(calls <= 6);
    let status = setup.driver.handle().status();
    assert_eq!(status.last_error, None, "{status:?}");
    // Every code priced is in the history, size by size: one row per size with an ask at the
    // mock (every size of a pair; one fewer for every fourth invented pair, whose third size
    // nobody asks for), for the portfolio's 120 codes, the 50 stars and the 10 alerted codes.
    let codes = setup.mock.style_codes();
    let pairs: std::collections::HashMap<&str, &common::mock_kicksdb::data::Pair> =
        common::mock_kicksdb::data::PAIRS
            .iter()
            .chain(common::mock_kicksdb::data::generated_pairs(175))
            .map(|pair| (pair.sku, pair))
            .collect();
    let db = UserDb::open(&setup.user.path().join(UserDb::FILE_NAME)).unwrap();
    let mut wrong = Vec::new();
    for (at, code) in codes.iter().enumerate() {
        let expected = if at < 180 {
            pairs[code].sizes.iter().filter(|s| s.ask_usd > 0).count()
        } else {
            0
        };
        let rows = db.price_history(code, &[]).unwrap();
        if rows.len() != expected || rows.iter().any(|r| r.lowest_ask_cents.is_none()) {
            wrong.push((*code, rows.len(), expected));
        }
    }
    assert!(wrong.is_empty(), "(code, rows, expected): {wrong:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simulated_month_stays_inside_10000_calls_and_checks_every_alert_every_15_minutes() {
    let start = at("2026-12-01T00:00:00Z");
    let end = at("2027-01-01T00:00:00Z");
    let mut setup = setup(start, month_plan()).await;
    let mut checks: std::collections::HashMap<i64, Vec<DateTime<Utc>>> =
        std::collections::HashMap::new();
    let mut rounds = 0u64;
    let mut spaced_out = false;
    while setup.clock.now() < end {
        let now = setup.clock.now();
        let report = setup
            .driver
            .round()
            .await
            .unwrap()
            .expect("KicksDB is metered");
        rounds += 1;
        for id in &report.alerts_checked {
            checks.entry(*id).or_default().push(now);
        }
        let plan = setup.driver.handle().plan_status();
        spaced_out |= plan.note.is_some();
        if rounds.is_multiple_of(1_000) {
            eprintln!(
                "{now}: every {:?}, left {:?}, ran {:?}, err {:?}",
                plan.plan.as_ref().map(|p| p
                    .demands
                    .iter()
                    .map(|d| (d.demand.kind, d.every_secs))
                    .collect::<Vec<_>>()),
                plan.budget.as_ref().map(|b| b.calls_left),
                report.ran,
                setup.driver.handle().status().last_error
            );
        }
        let next = report
            .next_due
            .unwrap_or(now + chrono::Duration::minutes(1))
            .max(now + chrono::Duration::seconds(1));
        setup.clock.set(next);
    }
    let calls = setup.mock.seen().len();
    eprintln!(
        "a month: {calls} calls at the mock ({:?}), {rounds} rounds",
        setup.mock.counts()
    );
    assert!(calls <= 10_000, "{calls} calls");
    // The budget is used, not hoarded: the month spends most of what the plan may.
    assert!(calls >= 8_000, "{calls} calls");
    assert_eq!(checks.len(), 10, "every alert checked");
    for (id, times) in &checks {
        let mut previous = start;
        let mut longest = chrono::Duration::zero();
        for time in times.iter().chain(std::iter::once(&end)) {
            if *time - previous > chrono::Duration::minutes(15) {
                eprintln!("alert {id}: {previous} to {time}");
            }
            longest = longest.max(*time - previous);
            previous = *time;
        }
        assert!(
            longest <= chrono::Duration::minutes(15),
            "alert {id}: {} min without a check",
            longest.num_minutes()
        );
    }
    assert!(
        spaced_out,
        "the wishes (every minute) cannot fit: the status says so"
    );
    let status = setup.driver.handle().plan_status();
    eprintln!(
        "last plan: alerts every {:?} s, forecast {:?}",
        status.alert_every_secs, status.forecast_calls
    );
}
