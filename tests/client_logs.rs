//! The API key never reaches a log line, at trace level, from any crate: a global subscriber
//! (this binary's only test, so it owns the process) records everything the client, reqwest,
//! hyper and the service log while calls succeed, fail, are refused and retried.

mod common;

use std::time::Duration;

use solescope::catalogue::keys;
use solescope::client::{Client, ClientConfig, ErrorKind, RelatedQuery, SearchQuery};
use solescope::model::{Country, Tier};
use solescope::service::{self, ServiceConfig, ServiceState};

const CANARY_KEY: &str = "sk_canary_7Hq2ZxW9pLm4";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_appears_in_no_log_line_at_trace_level() {
    let buffer = common::LogBuffer::install_trace_subscriber();

    let dir = tempfile::tempdir().unwrap();
    let path = common::catalogue(dir.path(), "logs.sqlite", 60, 3);
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

    let logs = buffer.text();
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
