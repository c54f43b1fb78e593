//! The service never logs an API key, even at trace level with every dependency's logs on.

use std::io::Write;
use std::sync::{Arc, Mutex};

use chrono::NaiveDate;
use solescope::catalogue::generate::{self, GenerateOptions};
use solescope::catalogue::{Catalogue, keys};
use solescope::model::Tier;
use solescope::service::{self, ServiceConfig, ServiceState};

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

#[tokio::test]
async fn keys_appear_in_no_log_line_at_trace_level() {
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
        products: 80,
        seed: 3,
        as_of: NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
        demo_keys: true,
    };
    generate::generate(&options, &path, &mut |_| {}).unwrap();
    let known = "sk_canary_known_5f1e2d";
    let unknown = "sk_canary_unknown_9a8b7c";
    {
        let catalogue = Catalogue::open(&path).unwrap();
        keys::insert(
            catalogue.connection(),
            known,
            Tier::Pro,
            "canary",
            "2026-11-22",
        )
        .unwrap();
    }
    let mut config = ServiceConfig::new(&path);
    config.simulator.latency_ms = 0;
    let state = tokio::task::spawn_blocking(move || ServiceState::open(&config))
        .await
        .unwrap()
        .unwrap();
    let server = service::spawn("127.0.0.1:0", state).await.unwrap();
    let client = reqwest::Client::new();
    let base = server.base_url();
    let slug: String = {
        let catalogue = Catalogue::open(&path).unwrap();
        catalogue
            .connection()
            .query_row("SELECT slug FROM products LIMIT 1", [], |r| r.get(0))
            .unwrap()
    };
    for key in [known, unknown] {
        for header in [key.to_owned(), format!("Bearer {key}")] {
            for path in [
                "/search?query=dunk".to_owned(),
                format!("/api/v2/products/{slug}"),
                format!("/api/v3/realtime/resale-a/products/{slug}"),
                "/nope".to_owned(),
            ] {
                let response = client
                    .get(format!("{base}{path}"))
                    .header("Authorization", &header)
                    .send()
                    .await
                    .unwrap();
                response.bytes().await.unwrap();
            }
        }
    }
    server.shutdown().await;

    let logs = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("request") && logs.contains("status=401") && logs.contains("status=200"),
        "request lines were captured:\n{logs}"
    );
    assert!(logs.contains("path=/search"), "paths are logged");
    assert!(!logs.contains(known), "the known key leaked into the logs");
    assert!(
        !logs.contains(unknown),
        "the unknown key leaked into the logs"
    );
    assert!(
        !logs.contains(&keys::hash(known)),
        "not even its digest is logged"
    );
}
