//! `solescope monitor` and `solescope portfolio`, run as a user would, against the mock
//! KicksDB on a real socket and the user's database in a data directory of the test's own:
//! the headless monitor fires a desktop notification (a `Notify` call on the session bus) for a
//! price the mock dropped, with no window open, and a second one refuses to start and says
//! why; an import killed halfway leaves the database as it was; `portfolio value` prices 200
//! pairs over 120 style codes in 3 calls, counted at the mock.
//!
//! The notification test needs a session bus (`.ci/run` runs the tests inside
//! `dbus-run-session`; locally: `dbus-run-session -- cargo test --test monitor_cli`). Without
//! one it prints a notice and passes; with `SOLESCOPE_REQUIRE_KEYRING=1` or `CI` set it fails.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::mock_kicksdb::{Endpoint, MockConfig, MockKicksdb};
use solescope::figures::portfolio_csv;
use solescope::model::budget::BudgetSettings;
use solescope::model::portfolio::{Condition, Pair};
use solescope::model::{AlertKind, NewAlert, ProductRef};
use solescope::userdb::UserDb;

/// The binary with its data directory in `data` (never the user's own), and KicksDB at `mock`.
fn solescope(data: &Path, mock: Option<&MockKicksdb>) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_solescope"));
    command.env("HOME", data).env("XDG_DATA_HOME", data);
    if let Some(mock) = mock {
        command
            .env("SOLESCOPE_KICKSDB_KEY", mock.key())
            .env("SOLESCOPE_KICKSDB_URL", mock.base_url());
    }
    command
}

/// The user database the binary uses for data directory `data`.
fn user_db(data: &Path) -> UserDb {
    let dir = data.join("solescope");
    std::fs::create_dir_all(&dir).unwrap();
    let db = UserDb::open(&dir.join(UserDb::FILE_NAME)).unwrap();
    db.set_budget_settings(BudgetSettings {
        monthly_quota: Some(100_000),
        share_percent: 100,
    })
    .unwrap();
    db
}

/// A process killed (SIGTERM, as systemd stops a service) when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let pid = self.0.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn pair(sku: &str, size: &str, cost_cents: i64) -> Pair {
    Pair {
        product_id: String::new(),
        slug: String::new(),
        sku: sku.to_owned(),
        title: format!("Pair {sku}"),
        size: size.to_owned(),
        condition: Condition::New,
        purchased_on: chrono::NaiveDate::from_ymd_opt(2026, 2, 3).unwrap(),
        cost_cents,
        currency: "USD".into(),
        bought_from: "a shop".into(),
        notes: String::new(),
        tags: Vec::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_headless_monitor_notifies_a_price_the_mock_dropped_and_a_second_one_refuses() {
    let Some((_bus, received)) = common::notifications::own_notification_bus().await else {
        return;
    };
    let mock = MockKicksdb::start(MockConfig {
        quota_start: 0,
        ..MockConfig::default()
    });
    let data = tempfile::tempdir().unwrap();
    {
        let mut db = user_db(data.path());
        // Size 9 of the 'Chicago' asks $1,725 on the mock: an alert at $1,700 or less.
        db.add_alert(
            &NewAlert {
                product: ProductRef {
                    product_id: "4a37fa2d-f2d7-440f-8785-9faeecc3f80c".into(),
                    style_code: "555088-101".into(),
                    title: "Jordan 1 Retro High OG Chicago (2015)".into(),
                },
                size: Some("9".into()),
                kind: AlertKind::AskAtOrBelow,
                price_cents: Some(170_000),
                currency: "USD".into(),
            },
            chrono::Utc::now().timestamp(),
        )
        .unwrap();
    }
    // The price drops to $1,650.
    mock.set_ask_usd("555088-101", "9", 1_650);
    let mut child = solescope(data.path(), Some(&mock))
        .args(["monitor", "--source", "kicksdb"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let first = Proc(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    assert!(line.starts_with("Checking the alerts"), "{line:?}");

    let (app_name, summary, body) =
        tokio::task::spawn_blocking(move || received.recv_timeout(Duration::from_secs(30)))
            .await
            .unwrap()
            .expect("a Notify call within 30 s");
    assert_eq!(app_name, "Solescope");
    assert!(summary.contains("Chicago"), "{summary}");
    assert!(body.contains("Size 9"), "{body}");
    let digits: String = body.chars().filter(|c| *c != ',').collect();
    assert!(digits.contains("1650.00"), "{body}");
    assert!(body.contains("resale-b"), "{body}");
    // One batched call priced it; no real-time call was made.
    assert_eq!(mock.count(Endpoint::Prices), 1, "{:?}", mock.counts());
    assert_eq!(mock.count(Endpoint::RealtimeGoat), 0);

    // A second monitor refuses at once, naming the first.
    let mut second = solescope(data.path(), Some(&mock))
        .args(["monitor", "--source", "kicksdb"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = second.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = second.kill();
            let _ = second.wait();
            panic!("a second monitor started beside the first instead of refusing");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!status.success());
    let mut said = String::new();
    std::io::Read::read_to_string(&mut second.stderr.take().unwrap(), &mut said).unwrap();
    assert!(
        said.contains("another monitor checks the alerts")
            && said.contains(&format!("`solescope monitor` (process {}", first.0.id())),
        "{said}"
    );
    // It did not check: still one call.
    assert_eq!(mock.count(Endpoint::Prices), 1);

    // The firing is in the user's database, for the window to show.
    let db = UserDb::open(&data.path().join("solescope").join(UserDb::FILE_NAME)).unwrap();
    let firings = db.alert_firings().unwrap();
    assert_eq!(firings.len(), 1);
    assert_eq!(firings[0].price_cents, Some(165_000));
    drop(first);
}

#[test]
fn an_import_killed_halfway_leaves_the_database_as_it_was() {
    let data = tempfile::tempdir().unwrap();
    let db_path = data.path().join("solescope").join(UserDb::FILE_NAME);
    let before: Vec<Pair> = ["DD1391-100", "CP9654", "555088-101"]
        .iter()
        .map(|sku| pair(sku, "10", 12_000))
        .collect();
    {
        let mut db = user_db(data.path());
        let rows: Vec<(Pair, Option<_>)> = before.iter().cloned().map(|p| (p, None)).collect();
        solescope::userdb::portfolio::add_holdings(&mut db, &rows).unwrap();
    }
    // A large file: its one transaction takes long enough to be killed in.
    let big: Vec<Pair> = (0..150_000)
        .map(|i| {
            pair(
                &format!("MK{}-{:03}", 1_000 + i % 5_000, i % 900),
                "9.5",
                10_000 + i,
            )
        })
        .collect();
    let csv = portfolio_csv(big.iter().map(|p| (p, None))).unwrap();
    let file = data.path().join("big.csv");
    std::fs::write(&file, csv).unwrap();

    let mut child = solescope(data.path(), None)
        .args(["portfolio", "import"])
        .arg(&file)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "the import ended early"
        );
        if line.contains("writing them in one transaction") {
            break;
        }
    }
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the import ended before it could be killed"
    );
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success());

    let mut db = UserDb::open(&db_path).unwrap();
    let integrity: String = db
        .conn()
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    let held: Vec<Pair> = solescope::userdb::portfolio::holdings(&mut db)
        .unwrap()
        .into_iter()
        .map(|h| h.pair)
        .collect();
    assert_eq!(held, before, "the database as it was");
    drop(db);

    // A small file imported whole, then exported: the same pairs come back.
    let small: Vec<Pair> = (0..5)
        .map(|i| pair("DD1391-100", "11", 9_000 + i))
        .collect();
    std::fs::write(
        data.path().join("small.csv"),
        portfolio_csv(small.iter().map(|p| (p, None))).unwrap(),
    )
    .unwrap();
    let output = solescope(data.path(), None)
        .args(["portfolio", "import"])
        .arg(data.path().join("small.csv"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("imported 5 pairs"));
    let exported = solescope(data.path(), None)
        .args(["portfolio", "export"])
        .output()
        .unwrap();
    assert!(exported.status.success());
    let expected = portfolio_csv(before.iter().chain(&small).map(|p| (p, None))).unwrap();
    assert_eq!(String::from_utf8_lossy(&exported.stdout), expected);

    // A broken file: a clear error, nothing written.
    std::fs::write(
        data.path().join("broken.csv"),
        "style_code,size\nDD1391-100",
    )
    .unwrap();
    let output = solescope(data.path(), None)
        .args(["portfolio", "import"])
        .arg(data.path().join("broken.csv"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("nothing was imported"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn valuing_200_pairs_over_120_style_codes_costs_3_calls_at_the_mock() {
    let mock = MockKicksdb::start(MockConfig {
        extra_products: 115,
        quota_start: 0,
        ..MockConfig::default()
    });
    let codes = mock.style_codes();
    let data = tempfile::tempdir().unwrap();
    {
        let mut db = user_db(data.path());
        let rows: Vec<(Pair, Option<_>)> = (0..200)
            .map(|i| {
                (
                    pair(codes[i % 120], ["8", "9", "10", "11"][i % 4], 15_000),
                    None,
                )
            })
            .collect();
        solescope::userdb::portfolio::add_holdings(&mut db, &rows).unwrap();
    }
    let output = solescope(data.path(), Some(&mock))
        .args([
            "portfolio",
            "value",
            "--source",
            "kicksdb",
            "--format",
            "csv",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(mock.count(Endpoint::Prices), 3, "{:?}", mock.counts());
    assert!(mock.seen().len() <= 6);
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 201, "{text}");
    assert_eq!(
        lines[0],
        "style_code,size,currency,market_price,source,as_of,age,value,cost,pnl_before_fees"
    );
    // The 'Chicago' in size 9 (index 1 of the codes): $1,725 asked, bought at $150.
    let chicago: Vec<&str> = lines
        .iter()
        .find(|l| l.starts_with("555088-101,9,"))
        .unwrap()
        .split(',')
        .collect();
    assert_eq!(chicago[3], "1725.00");
    assert_eq!(chicago[4], "kicksdb");
    assert_eq!(chicago[6], "just now");
    assert_eq!(chicago[9], "1575.00");

    // As a table, with the totals; and the budget flags are saved for every command.
    let output = solescope(data.path(), Some(&mock))
        .args([
            "portfolio",
            "value",
            "--source",
            "kicksdb",
            "--kicksdb-quota",
            "5000",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("total USD: value"));
    let db = UserDb::open(&data.path().join("solescope").join(UserDb::FILE_NAME)).unwrap();
    assert_eq!(db.budget_settings().unwrap().monthly_quota, Some(5_000));
}
