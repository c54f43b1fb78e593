//! Two `solescope serve --redis` replicas on one catalogue and one real `redis-server`: one
//! real-time budget between them, revocations seen by both within a second, and defined
//! behaviour while Redis is down and after it is back.
//!
//! Skipped with a notice when `redis-server` is not on PATH, unless `SOLESCOPE_REQUIRE_REDIS=1`
//! (CI sets it and installs Redis).

use std::io::{BufRead as _, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use solescope::catalogue::{Catalogue, keys};

/// A child process killed (and reaped) when dropped, so no test run leaves one behind.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn solescope() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_solescope"));
    // Keep the user's real data directory out of tests.
    command.env("HOME", std::env::temp_dir()).env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join("solescope-replicas-test-data"),
    );
    command
}

fn redis_available() -> bool {
    Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `redis-server` on `port`, its append-only file in `dir` (so keys survive a restart,
/// as docs/deployment.md advises), and waits until it accepts connections.
fn start_redis(port: u16, dir: &Path) -> Proc {
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "yes", "--daemonize", "no"])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let redis = Proc(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    redis
}

/// Stops Redis as an operator would (SIGTERM: it writes its append-only file and exits).
fn stop_redis(redis: &mut Proc) {
    let pid = redis.0.id().to_string();
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    let _ = redis.0.wait();
}

/// Starts a replica; returns it and its base URL.
fn replica(catalogue: &Path, redis_url: &str) -> (Proc, String) {
    start_replica(&["--upstream-latency-ms", "0"], &[], catalogue, redis_url)
}

/// Starts a `serve --source kicksdb` replica against the mock KicksDB at `kicksdb_url`, its
/// mirror at `mirror`, the KicksDB key in the environment; returns it and its base URL.
fn kicksdb_replica(mirror: &Path, redis_url: &str, kicksdb_url: &str, key: &str) -> (Proc, String) {
    start_replica(
        &["--source", "kicksdb", "--kicksdb-url", kicksdb_url],
        &[("SOLESCOPE_KICKSDB_KEY", key)],
        mirror,
        redis_url,
    )
}

/// `solescope serve --redis` with `options` and `env` on a free port.
fn start_replica(
    options: &[&str],
    env: &[(&str, &str)],
    catalogue: &Path,
    redis_url: &str,
) -> (Proc, String) {
    let mut child = solescope()
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(options)
        .envs(env.iter().copied())
        .args(["--redis", redis_url, "--catalogue"])
        .arg(catalogue)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let replica = Proc(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let base = line.trim().rsplit(' ').next().unwrap().to_owned();
    assert!(base.starts_with("http://127.0.0.1:"), "{line:?}");
    (replica, base)
}

fn keys_cli(args: &[&str]) -> String {
    let output = solescope().arg("keys").args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

struct Http {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
}

/// An answer: status, `X-RateLimit-Remaining` if any, body.
struct Answer {
    status: u16,
    remaining: Option<u32>,
    body: String,
}

impl Http {
    fn get(&self, url: &str, key: &str) -> Answer {
        self.runtime.block_on(async {
            let response = self
                .client
                .get(url)
                .header("Authorization", key)
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            let remaining = response
                .headers()
                .get("x-ratelimit-remaining")
                .and_then(|v| v.to_str().ok()?.parse().ok());
            let body = response.text().await.unwrap();
            Answer {
                status,
                remaining,
                body,
            }
        })
    }
}

/// Polls `check` until it holds; returns how long that took, or `None` after `limit`.
fn within(limit: Duration, mut check: impl FnMut() -> bool) -> Option<Duration> {
    let started = Instant::now();
    loop {
        if check() {
            return Some(started.elapsed());
        }
        if started.elapsed() > limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn two_replicas_share_one_budget_and_one_key_table_through_redis() {
    if !redis_available() {
        assert!(
            std::env::var("SOLESCOPE_REQUIRE_REDIS").as_deref() != Ok("1"),
            "SOLESCOPE_REQUIRE_REDIS=1 but redis-server is not on PATH"
        );
        eprintln!("NOTICE: redis-server is not on PATH; the replicas test is skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let catalogue = dir.path().join("replicas.sqlite");
    let output = solescope()
        .args(["catalogue", "generate", "--products", "30", "--seed", "4"])
        .args(["--as-of", "2026-11-22", "--out"])
        .arg(&catalogue)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let slug: String = Catalogue::open(&catalogue)
        .unwrap()
        .connection()
        .query_row("SELECT slug FROM products LIMIT 1", [], |row| row.get(0))
        .unwrap();

    let port = free_port();
    let redis_dir = dir.path().join("redis");
    std::fs::create_dir(&redis_dir).unwrap();
    let mut redis = start_redis(port, &redis_dir);
    let url = format!("redis://127.0.0.1:{port}/0");

    let spender = keys_cli(&["add", "--tier", "pro", "--redis", &url]);
    let doomed = keys_cli(&["add", "--tier", "pro", "--redis", &url]);
    let survivor = keys_cli(&["add", "--tier", "pro", "--redis", &url]);
    let listing = keys_cli(&["list", "--redis", &url]);
    assert_eq!(
        listing.lines().count(),
        4,
        "a header and three keys: {listing}"
    );
    assert!(!listing.contains(&spender), "never the key itself");

    let (_a, a) = replica(&catalogue, &url);
    let (_b, b) = replica(&catalogue, &url);
    let replicas = [a.as_str(), b.as_str()];
    let http = Http {
        runtime: tokio::runtime::Runtime::new().unwrap(),
        client: reqwest::Client::new(),
    };
    let realtime = |base: &str| format!("{base}/api/v3/realtime/resale-a/products/{slug}");
    let search = |base: &str| format!("{base}/search?q=a");

    // 150 real-time calls for one key, alternating replicas, inside one window: exactly 120
    // pass between them. Started early in a minute so the window does not turn meanwhile.
    let into_minute = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        % 60;
    if into_minute > 45 {
        std::thread::sleep(Duration::from_secs(61 - into_minute));
    }
    let answers: Vec<Answer> = (0..150)
        .map(|i| http.get(&realtime(replicas[i % 2]), &spender))
        .collect();
    let allowed = answers.iter().filter(|a| a.status == 200).count();
    let refused = answers.iter().filter(|a| a.status == 429).count();
    assert_eq!(
        (allowed, refused),
        (120, 30),
        "one budget for both replicas"
    );
    assert_eq!(answers[0].remaining, Some(119));
    assert_eq!(
        answers[1].remaining,
        Some(118),
        "the other replica counts on"
    );
    assert_eq!(answers[119].remaining, Some(0));
    assert_eq!(answers[149].remaining, Some(0));

    // A key revoked with the keys CLI is refused by both replicas within a second, though
    // both had just accepted it.
    for base in replicas {
        assert_eq!(http.get(&search(base), &doomed).status, 200);
        assert_eq!(http.get(&search(base), &survivor).status, 200);
    }
    let id = &keys::hash(&doomed)[..12];
    keys_cli(&["revoke", id, "--redis", &url]);
    for base in replicas {
        let took = within(Duration::from_secs(1), || {
            http.get(&search(base), &doomed).status == 401
        });
        assert!(took.is_some(), "{base} still accepts a key revoked 1 s ago");
    }

    // Redis stopped: real-time answers 503 with a JSON error (never an unlimited budget);
    // search keeps serving the keys checked a moment ago.
    stop_redis(&mut redis);
    for base in replicas {
        for key in [survivor.as_str(), "demo-pro"] {
            let answer = http.get(&realtime(base), key);
            assert_eq!(answer.status, 503, "{}", answer.body);
            let body: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
            assert!(
                body["message"].as_str().unwrap().contains("Redis"),
                "{body}"
            );
        }
        let answer = http.get(&search(base), &survivor);
        assert_eq!(answer.status, 200, "{}", answer.body);
    }

    // Redis back (its append-only file keeps the keys): all is well again, on its own.
    let _redis = start_redis(port, &redis_dir);
    for base in replicas {
        let took = within(Duration::from_secs(10), || {
            http.get(&realtime(base), &survivor).status == 200
        });
        assert!(took.is_some(), "{base} did not recover");
        assert_eq!(http.get(&search(base), &survivor).status, 200);
        assert_eq!(
            http.get(&search(base), &doomed).status,
            401,
            "still revoked"
        );
    }
}

#[test]
fn replicas_on_kicksdb_share_its_60_real_time_calls_a_minute_through_redis() {
    if !redis_available() {
        assert!(
            std::env::var("SOLESCOPE_REQUIRE_REDIS").as_deref() != Ok("1"),
            "SOLESCOPE_REQUIRE_REDIS=1 but redis-server is not on PATH"
        );
        eprintln!("NOTICE: redis-server is not on PATH; the KicksDB replicas test is skipped");
        return;
    }
    let mock =
        common::mock_kicksdb::MockKicksdb::start(common::mock_kicksdb::MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let redis_dir = dir.path().join("redis");
    std::fs::create_dir(&redis_dir).unwrap();
    let _redis = start_redis(port, &redis_dir);
    let url = format!("redis://127.0.0.1:{port}/0");
    let (_a, base_a) = kicksdb_replica(
        &dir.path().join("a.sqlite"),
        &url,
        &mock.base_url(),
        &mock.key(),
    );
    let (_b, base_b) = kicksdb_replica(
        &dir.path().join("b.sqlite"),
        &url,
        &mock.base_url(),
        &mock.key(),
    );

    // 200 real-time lookups at once, spread over both replicas and two client keys (each key's
    // own budget is 60 a minute, so only KicksDB's shared count can hold them to 60), every one
    // for another product so nothing is reused.
    let http = Http {
        runtime: tokio::runtime::Runtime::new().unwrap(),
        client: reqwest::Client::new(),
    };
    let statuses: Vec<u16> = http.runtime.block_on(async {
        let mut tasks = Vec::new();
        for at in 0..200u32 {
            let base = if at % 2 == 0 { &base_a } else { &base_b };
            let key = if at % 4 < 2 { "demo-pro" } else { "demo-ultra" };
            let request = http
                .client
                .get(format!(
                    "{base}/api/v3/realtime/resale-a/products/{}",
                    1_000 + at
                ))
                .header("Authorization", key);
            tasks.push(tokio::spawn(async move {
                request.send().await.unwrap().status().as_u16()
            }));
        }
        let mut statuses = Vec::new();
        for task in tasks {
            statuses.push(task.await.unwrap());
        }
        statuses
    });
    let sent = mock.count(common::mock_kicksdb::Endpoint::RealtimeGoat);
    let max = mock.max_realtime_calls_per_minute();
    assert!(
        max <= 60,
        "KicksDB saw {max} real-time calls in a minute from two replicas"
    );
    assert_eq!(sent, 60, "the shared budget is spent whole: {statuses:?}");
    assert_eq!(
        statuses.iter().filter(|s| **s == 429).count(),
        140,
        "{statuses:?}"
    );
}

#[test]
fn replicas_on_kicksdb_spend_one_monthly_budget_through_redis() {
    if !redis_available() {
        assert!(
            std::env::var("SOLESCOPE_REQUIRE_REDIS").as_deref() != Ok("1"),
            "SOLESCOPE_REQUIRE_REDIS=1 but redis-server is not on PATH"
        );
        eprintln!(
            "NOTICE: redis-server is not on PATH; the monthly budget replicas test is skipped"
        );
        return;
    }
    let mock = common::mock_kicksdb::MockKicksdb::start(common::mock_kicksdb::MockConfig {
        extra_products: 40,
        // The key's own count starts at nothing: the share is what holds.
        quota_start: 0,
        ..common::mock_kicksdb::MockConfig::default()
    });
    let codes = mock.style_codes();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let redis_dir = dir.path().join("redis");
    std::fs::create_dir(&redis_dir).unwrap();
    let _redis = start_redis(port, &redis_dir);
    let url = format!("redis://127.0.0.1:{port}/0");
    // A quota of 20 of which Solescope may use half: ten calls this month, between both.
    let options = [
        "--source",
        "kicksdb",
        "--kicksdb-url",
        &mock.base_url(),
        "--kicksdb-quota",
        "20",
        "--kicksdb-share",
        "50",
    ];
    let env = [("SOLESCOPE_KICKSDB_KEY", mock.key())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (_a, base_a) = start_replica(&options, &env, &dir.path().join("a.sqlite"), &url);
    let (_b, base_b) = start_replica(&options, &env, &dir.path().join("b.sqlite"), &url);

    // Forty batched pricings at once, each of another style code, spread over both replicas.
    let http = Http {
        runtime: tokio::runtime::Runtime::new().unwrap(),
        client: reqwest::Client::new(),
    };
    let statuses: Vec<u16> = http.runtime.block_on(async {
        let mut tasks = Vec::new();
        for (at, code) in codes.iter().take(40).enumerate() {
            let base = if at % 2 == 0 { &base_a } else { &base_b };
            let request = http
                .client
                .get(format!("{base}/api/v2/prices?sku={code}"))
                .header("Authorization", "demo-pro");
            tasks.push(tokio::spawn(async move {
                request.send().await.unwrap().status().as_u16()
            }));
        }
        let mut statuses = Vec::new();
        for task in tasks {
            statuses.push(task.await.unwrap());
        }
        statuses
    });
    assert_eq!(
        mock.count(common::mock_kicksdb::Endpoint::Prices),
        10,
        "one budget of ten between two replicas: {statuses:?}"
    );
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 10);
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 30);
    let budget = http.get(&format!("{base_b}/api/v2/budget"), "demo-pro");
    assert_eq!(budget.status, 200);
    let budget: serde_json::Value = serde_json::from_str(&budget.body).unwrap();
    assert_eq!(budget["data"]["spend"]["counted"], 10, "{budget}");
    assert_eq!(budget["data"]["shared"], true, "{budget}");
}
