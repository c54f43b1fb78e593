//! The service never logs an API key, even at trace level with every dependency's logs on.

mod common;

use solescope::catalogue::{Catalogue, keys};
use solescope::model::Tier;

#[tokio::test]
async fn keys_appear_in_no_log_line_at_trace_level() {
    let buffer = common::LogBuffer::install_trace_subscriber();

    let dir = tempfile::tempdir().unwrap();
    let path = common::catalogue(dir.path(), "logs.sqlite", 80, 3);
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
    let server = common::start(common::config(&path)).await;
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

    let logs = buffer.text();
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
