//! The API key never reaches a log line, at trace level, from any crate: a global subscriber
//! (this binary's only test, so it owns the process) records everything the client, reqwest,
//! hyper and the service log while calls succeed, fail, are refused and retried.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::NaiveDate;
use solescope::catalogue::generate::{self, GenerateOptions};
use solescope::catalogue::keys;
use solescope::client::{Client, ClientConfig, ErrorKind, RelatedQuery, SearchQuery};
use solescope::model::{Country, Tier};
use solescope::service::{self, ServiceConfig, ServiceState};

const CANARY_KEY: &str = "sk_canary_7Hq2ZxW9pLm4";

/// A writer into a shared buffer.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_appears_in_no_log_line_at_trace_level() {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("logs.sqlite");
    let options = GenerateOptions {
        products: 60,
        seed: 3,
        as_of: NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
        demo_keys: false,
    };
    generate::generate(&options, &path, &mut |_| {}).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    keys::insert(
        &conn,
        CANARY_KEY,
        Tier::Pro,
        "canary",
        "2026-11-22T00:00:00Z",
    )
    .unwrap();
    drop(conn);

    let state = tokio::task::spawn_blocking(move || {
        let mut config = ServiceConfig::new(&path);
        config.simulator.latency_ms = 0;
        ServiceState::open(&config)
    })
    .await
    .unwrap()
    .unwrap();
    let server = service::spawn("127.0.0.1:0", state).await.unwrap();

    let mut config = ClientConfig::new(server.base_url(), Some(CANARY_KEY.to_owned()));
    config.retry_backoff = Duration::from_millis(5);
    let client = Client::new(config.clone()).unwrap();
    let hits = client
        .search(&SearchQuery::text("nike"))
        .await
        .unwrap()
        .hits;
    let hit = &hits[0];
    client.product(&hit.id, Country::Fr).await.unwrap();
    client.product_v2(&hit.slug).await.unwrap();
    client.orders(&hit.id).await.unwrap();
    client.resale_a_product(&hit.slug).await.unwrap();
    client
        .resale_b_related(&hit.id, &RelatedQuery::default())
        .await
        .unwrap();
    assert_eq!(
        client.product_v2("no-such").await.unwrap_err().kind,
        ErrorKind::NotFound
    );
    assert_eq!(
        client.tier(),
        Some(Tier::Pro),
        "the canary key was accepted"
    );

    // A refused key and a retried connection failure log too.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut unreachable = config.clone();
    unreachable.base_url = format!("http://127.0.0.1:{port}");
    let err = Client::new(unreachable).unwrap().stats().await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Connection);
    assert!(!err.to_string().contains(CANARY_KEY));
    let mut wrong = config.clone();
    wrong.api_key = Some(format!("{CANARY_KEY}-revoked"));
    let err = Client::new(wrong).unwrap().stats().await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unauthorized);

    server.shutdown().await;

    let logs = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = logs.lines().collect();
    assert!(
        lines.len() > 20,
        "the subscriber saw too little to prove anything: {logs}"
    );
    assert!(
        lines.iter().any(|line| line.contains("TRACE")),
        "no trace-level line was recorded"
    );
    for target in [
        "solescope::client",
        "hyper_util::client",
        "solescope::service",
    ] {
        assert!(
            lines.iter().any(|line| line.contains(target)),
            "no line from {target} was recorded"
        );
    }
    for line in &lines {
        assert!(
            !line.contains(CANARY_KEY),
            "the key leaked into a log line: {line}"
        );
    }
    let shown = format!("{client:?} {config:?}");
    assert!(!shown.contains(CANARY_KEY), "{shown}");
}
