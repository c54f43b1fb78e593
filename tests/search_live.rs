//! The live search index as a process sees it: writes survive a crash in the middle of a merge
//! (a child process killed there), and the next start recovers the last good index with every
//! write. (Ranking against a full rebuild is compared page by page in `search::live`'s unit
//! tests, where the ranking windows can be made small.)

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use rusqlite::Connection;
use solescope::catalogue::generate::{GenerateOptions, generate};
use solescope::search::SearchRequest;
use solescope::search::live::{LiveConfig, LiveIndex, LiveProduct};

const PRODUCTS: u32 = 1_500;
const WRITES: i64 = 300;
/// Set in the child process: the folder holding its catalogues.
const CHILD_DIR: &str = "SOLESCOPE_LIVE_CHILD_DIR";

fn catalogue(path: &Path, products: u32, seed: u64) {
    let options = GenerateOptions {
        products,
        seed,
        as_of: NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
        demo_keys: false,
    };
    generate(&options, path, &mut |_| {}).unwrap();
}

/// The products the child writes: the pool's, under keys and codes of their own.
fn written(pool: &Connection) -> Vec<LiveProduct> {
    (1..=WRITES)
        .map(|pk| {
            let mut product = LiveProduct::read(pool, pk).unwrap().unwrap();
            product.pk = 900_000 + pk;
            product.sku = format!("LV{pk:05}-001");
            product.sku_norm = solescope::catalogue::generate::normalize_sku(&product.sku);
            product.slug = format!("live-product-{pk}");
            product
        })
        .collect()
}

/// The child: writes every product, then merges with a long pause after the new base is
/// written and before it is switched to. The parent kills it in that pause.
#[test]
#[ignore = "run by live_writes_survive_a_kill_in_the_middle_of_a_merge as its child"]
fn child_writes_then_merges() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let base = dir.join("base.sqlite");
    let config = LiveConfig {
        background_merges: false,
        merge_pause: Some(Duration::from_secs(120)),
        ..LiveConfig::default()
    };
    let live = LiveIndex::open(&base, &Connection::open(&base).unwrap(), config).unwrap();
    let products = written(&Connection::open(dir.join("pool.sqlite")).unwrap());
    for product in &products {
        live.upsert(product).unwrap();
    }
    live.delete(1).unwrap();
    println!("written");
    live.merge_now().unwrap();
    panic!("the merge's pause ended before the kill");
}

#[test]
fn live_writes_survive_a_kill_in_the_middle_of_a_merge() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.sqlite");
    catalogue(&base, PRODUCTS, 62);
    catalogue(&dir.path().join("pool.sqlite"), PRODUCTS / 3, 63);
    let folder = LiveIndex::folder_for(&base);
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_writes_then_merges",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD_DIR, dir.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The merge has written the next base and its hits, and pauses before the switch.
    let started = Instant::now();
    while !(folder.join("base-1.search-index").exists()
        && folder.join("hits-1.search-hits").exists())
    {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the child never reached the merge"
        );
        assert!(child.try_wait().unwrap().is_none(), "the child ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();

    // The next start: the last good generation (the catalogue's index and the whole log).
    let config = LiveConfig {
        background_merges: false,
        ..LiveConfig::default()
    };
    let live = LiveIndex::open(&base, &Connection::open(&base).unwrap(), config.clone()).unwrap();
    let stats = live.stats();
    assert_eq!(stats.generation, 0, "{stats:?}");
    assert_eq!(stats.live_products, WRITES as usize, "{stats:?}");
    assert_eq!(stats.replaced, 1, "{stats:?}");
    assert!(
        !folder.join("base-1.search-index").exists(),
        "the half-merged generation is left behind"
    );
    let products = written(&Connection::open(dir.path().join("pool.sqlite")).unwrap());
    let found = |live: &LiveIndex, text: &str| {
        live.search(&SearchRequest {
            text,
            limit: 5,
            ..SearchRequest::default()
        })
        .unwrap()
        .product_pks
    };
    for product in &products {
        assert_eq!(
            found(&live, &product.sku_norm),
            [product.pk],
            "{}",
            product.sku
        );
    }
    let first = LiveProduct::read(&Connection::open(&base).unwrap(), 1)
        .unwrap()
        .unwrap();
    assert!(
        !found(&live, &first.sku_norm).contains(&1),
        "the deleted product is found"
    );
    // Merged now, and read back merged: the same products found.
    assert!(live.merge_now().unwrap());
    drop(live);
    let live = LiveIndex::open(&base, &Connection::open(&base).unwrap(), config).unwrap();
    assert_eq!(live.stats().generation, 1);
    assert_eq!(live.stats().live_products, 0);
    for product in &products {
        assert_eq!(
            found(&live, &product.sku_norm),
            [product.pk],
            "{}",
            product.sku
        );
    }
    let mut hit = Vec::new();
    let asker = solescope::search::HitFor {
        country: solescope::model::Country::Us,
        full: true,
    };
    live.write_hit(products[0].pk, asker, &mut hit).unwrap();
    assert!(String::from_utf8_lossy(&hit).contains(&products[0].sku));
}
