//! A flood of distinct placeholder pictures at once: the service draws only a few at a time,
//! refuses the excess with 503 and `Retry-After`, its memory stays bounded, and `/search` keeps
//! answering meanwhile. Alone in its test binary, so the process's peak memory is its own.

mod common;

use std::time::{Duration, Instant};

use reqwest::StatusCode;

/// Distinct pictures asked for at once (each at the widest size).
const FLOOD: usize = 400;

/// Peak resident memory of this process so far, in KiB (`VmHWM`), on Linux.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_distinct_pictures_is_bounded_and_search_keeps_answering() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::catalogue(dir.path(), "flood.sqlite", FLOOD as u32, 8);
    let slugs: Vec<String> = {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let mut statement = conn.prepare("SELECT slug FROM products").unwrap();
        statement
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert_eq!(slugs.len(), FLOOD);
    let server = common::start(common::config(&path)).await;
    let base = server.base_url();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    // Warm: the search index and one picture, so the baseline holds what any use holds.
    let warm = client
        .get(format!("{base}/search?query=dunk"))
        .header("Authorization", "demo-free")
        .send()
        .await
        .unwrap();
    assert_eq!(warm.status(), StatusCode::OK);
    let warm = client
        .get(format!("{base}/images/products/{}.png?w=768", slugs[0]))
        .send()
        .await
        .unwrap();
    assert_eq!(warm.status(), StatusCode::OK);
    let baseline_kib = peak_rss_kib();

    let flood: Vec<_> = slugs
        .iter()
        .map(|slug| {
            let request = client.get(format!("{base}/images/products/{slug}.png?w=768"));
            tokio::spawn(async move {
                let response = request.send().await.unwrap();
                let status = response.status();
                let retry_after = response.headers().get("retry-after").cloned();
                response.bytes().await.unwrap();
                (status, retry_after)
            })
        })
        .collect();
    // Meanwhile, searches are answered, and promptly.
    tokio::time::sleep(Duration::from_millis(20)).await;
    for query in ["jordan", "samba", "550", "yeezy", "kayano"] {
        let started = Instant::now();
        let answer = client
            .get(format!("{base}/search?query={query}"))
            .header("Authorization", "demo-free")
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::OK, "/search during the flood");
        let waited = started.elapsed();
        assert!(
            waited < Duration::from_secs(5),
            "/search took {waited:?} during the flood"
        );
    }

    let (mut drawn, mut refused) = (0, 0);
    for task in flood {
        let (status, retry_after) = task.await.unwrap();
        match status {
            StatusCode::OK => drawn += 1,
            StatusCode::SERVICE_UNAVAILABLE => {
                assert!(retry_after.is_some(), "a 503 says when to retry");
                refused += 1;
            }
            other => panic!("a flooded picture answered {other}"),
        }
    }
    assert!(drawn > 0, "some pictures are drawn");
    assert!(
        refused > 0,
        "the excess is refused at once instead of queued without bound ({drawn} drawn)"
    );
    if let (Some(before), Some(after)) = (baseline_kib, peak_rss_kib()) {
        let grown_mib = after.saturating_sub(before) / 1024;
        eprintln!(
            "flood of {FLOOD}: {drawn} drawn, {refused} refused with 503; peak RSS {before} KiB -> {after} KiB (+{grown_mib} MiB)"
        );
        assert!(
            grown_mib < 64,
            "peak memory grew by {grown_mib} MiB under the flood"
        );
    }
    server.shutdown().await;
}
