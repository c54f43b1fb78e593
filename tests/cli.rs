//! The `solescope` binary's subcommands, run as a user would.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use solescope::catalogue::{Catalogue, keys};
use solescope::model::Tier;

/// Fails the test with the command's stderr unless it exited with success.
fn assert_succeeded(output: &std::process::Output) {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn solescope() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_solescope"));
    // Keep the user's real data directory out of tests.
    command.env("HOME", std::env::temp_dir()).env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join("solescope-cli-test-data"),
    );
    command
}

fn generate(path: &Path, products: u32) {
    let output = solescope()
        .args([
            "catalogue",
            "generate",
            "--products",
            &products.to_string(),
            "--seed",
            "4",
            "--as-of",
            "2026-11-22",
            "--out",
        ])
        .arg(path)
        .output()
        .unwrap();
    assert_succeeded(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains(&format!("{products} products")), "{stdout}");
}

#[test]
fn keys_are_added_shown_once_listed_without_the_key_and_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.sqlite");
    generate(&path, 30);

    let output = solescope()
        .args([
            "keys",
            "add",
            "--tier",
            "pro",
            "--label",
            "reseller bot",
            "--catalogue",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert_succeeded(&output);
    let key = String::from_utf8(output.stdout).unwrap().trim().to_owned();
    assert!(
        key.starts_with("sk_") && key.len() > 40,
        "a random key: {key}"
    );
    {
        let catalogue = Catalogue::open(&path).unwrap();
        assert_eq!(
            keys::tier_of(catalogue.connection(), &key).unwrap(),
            Some(Tier::Pro)
        );
    }
    let raw = std::fs::read(&path).unwrap();
    assert!(
        !raw.windows(key.len()).any(|w| w == key.as_bytes()),
        "the key is not stored in the file"
    );

    let output = solescope()
        .args(["keys", "list", "--catalogue"])
        .arg(&path)
        .output()
        .unwrap();
    let listing = String::from_utf8(output.stdout).unwrap();
    assert!(
        listing.contains("reseller bot") && listing.contains("pro"),
        "{listing}"
    );
    assert!(!listing.contains(&key), "list never shows a key");
    let id = &keys::hash(&key)[..12];
    assert!(listing.contains(id), "{listing}");

    let output = solescope()
        .args(["keys", "revoke", id, "--catalogue"])
        .arg(&path)
        .output()
        .unwrap();
    assert_succeeded(&output);
    let catalogue = Catalogue::open(&path).unwrap();
    assert_eq!(keys::tier_of(catalogue.connection(), &key).unwrap(), None);
    let again = solescope()
        .args(["keys", "revoke", id, "--catalogue"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!again.status.success(), "revoking twice is an error");
}

#[test]
fn serve_answers_the_readme_curl() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("serve.sqlite");
    generate(&path, 50);
    let (mut child, base) = serve(&path, &["--addr", "127.0.0.1:0"]);
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");

    let slug: String = {
        let catalogue = Catalogue::open(&path).unwrap();
        catalogue
            .connection()
            .query_row("SELECT slug FROM products LIMIT 1", [], |row| row.get(0))
            .unwrap()
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (status, tier, body) = runtime.block_on(async {
        let response = reqwest::Client::new()
            .get(format!("{base}/api/v2/products/{slug}"))
            .header("Authorization", "demo-pro")
            .send()
            .await
            .unwrap();
        let status = response.status();
        let tier = response.headers()["x-key-type"]
            .to_str()
            .unwrap()
            .to_owned();
        (
            status,
            tier,
            response.json::<serde_json::Value>().await.unwrap(),
        )
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(status, 200);
    assert_eq!(tier, "pro");
    assert_eq!(body["data"]["slug"], slug.as_str());
    assert!(body["data"]["retail_prices"].is_array());
}

#[test]
fn an_unknown_screenshot_view_is_refused_with_every_view_named() {
    let output = solescope()
        .args(["--screenshot", "unused.png", "--view", "chart"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    for view in solescope::ui::state::View::ALL {
        assert!(
            stderr.contains(view.name()),
            "{} missing: {stderr}",
            view.name()
        );
    }
}

#[test]
fn a_failed_import_exits_non_zero_and_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.jsonl");
    std::fs::write(&input, "{\"id\": 1}\n").unwrap();
    let out = dir.path().join("out.sqlite");
    let output = solescope()
        .args(["catalogue", "import"])
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("line 1"), "{stderr}");
    assert!(!out.exists());
}

/// Starts `solescope serve --catalogue path` with `args`; returns it and the URL it printed,
/// with the host replaced by 127.0.0.1 (the service may listen on every address).
fn serve(path: &Path, args: &[&str]) -> (std::process::Child, String) {
    let mut child = solescope()
        .arg("serve")
        .args(args)
        .arg("--catalogue")
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line.trim().rsplit(' ').next().unwrap().to_owned();
    let port = base.rsplit(':').next().unwrap();
    (child, format!("http://127.0.0.1:{port}"))
}

/// Status of `GET base/stats` with `key`.
fn stats_status(base: &str, key: &str) -> u16 {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        reqwest::Client::new()
            .get(format!("{base}/stats"))
            .header("Authorization", key)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    })
}

/// Stops `child` and returns what it wrote to stderr.
fn stop(mut child: std::process::Child) -> String {
    use std::io::Read as _;
    child.kill().unwrap();
    child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    stderr
}

#[test]
fn serve_off_loopback_refuses_the_demo_keys_unless_told_to_accept_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("public.sqlite");
    generate(&path, 20);
    let own_key = {
        let catalogue = Catalogue::open(&path).unwrap();
        let key = keys::new_key();
        keys::insert(
            catalogue.connection(),
            &key,
            Tier::Free,
            "test",
            "2026-11-22",
        )
        .unwrap();
        key
    };

    let (child, base) = serve(&path, &["--addr", "0.0.0.0:0"]);
    let demo = stats_status(&base, "demo-free");
    let pro = stats_status(&base, "demo-pro");
    let own = stats_status(&base, &own_key);
    let stderr = stop(child);
    assert_eq!((demo, pro), (401, 401), "demo keys refused off loopback");
    assert_eq!(own, 200, "real keys still work");
    assert!(stderr.contains("demo keys are refused"), "{stderr}");
    assert!(!stderr.contains(&own_key), "the key is never logged");

    let (child, base) = serve(&path, &["--addr", "0.0.0.0:0", "--demo-keys"]);
    let demo = stats_status(&base, "demo-free");
    let stderr = stop(child);
    assert_eq!(demo, 200, "--demo-keys accepts them");
    assert!(
        stderr.contains("--demo-keys on a non-loopback address"),
        "{stderr}"
    );

    let (child, base) = serve(&path, &["--addr", "127.0.0.1:0"]);
    let demo = stats_status(&base, "demo-ultra");
    stop(child);
    assert_eq!(demo, 200, "loopback keeps them");
}

#[test]
fn serve_keeps_answering_when_nobody_reads_its_log_and_writes_it_without_colours() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.sqlite");
    generate(&path, 20);
    // `serve` logs a line per request; its stderr is a pipe this test does not read until the
    // end, so the pipe (64 KB on Linux) fills after a few hundred lines. A request that wrote
    // its own line would then wait on the pipe forever.
    let (child, base) = serve(&path, &["--addr", "127.0.0.1:0"]);
    let requests = 3_000;
    let answered = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let client = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(10))
            .build()
            .unwrap();
        let mut answered = 0;
        for _ in 0..requests {
            let sent = client
                .get(format!("{base}/api/v2/subscriptions"))
                .header("Authorization", "demo-pro")
                .send()
                .await;
            match sent {
                Ok(response) if response.status() == 200 => answered += 1,
                _ => break,
            }
        }
        answered
    });
    let stderr = stop(child);
    assert_eq!(answered, requests, "answers before the first failure");
    assert!(
        stderr.len() >= 60 * 1024,
        "the log reached what the pipe holds unread: {} bytes",
        stderr.len()
    );
    let head = stderr.get(..200).unwrap_or(&stderr);
    assert!(stderr.contains("status=200"), "{head}");
    assert!(!stderr.contains('\u{1b}'), "no terminal colours in a pipe");
}
