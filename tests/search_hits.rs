//! The hit store beside the catalogue (`search::hits`): every product's hit written from it is
//! byte for byte the JSON the catalogue path gives (`catalogue::read::search_hits`, then the
//! tier rule), for both datasets and every tier; it is reused while the catalogue is unchanged,
//! rebuilt when the catalogue changes or the file is damaged; and a damaged record is refused,
//! never served.

mod common;

use std::path::Path;

use solescope::model::{Country, Feature, Tier};
use solescope::search::{HitError, HitFor, HitStore, IndexSource};

fn open(catalogue: &Path) -> (HitStore, IndexSource) {
    let conn = rusqlite::Connection::open(catalogue).unwrap();
    HitStore::open(catalogue, &conn).unwrap()
}

/// The hit's JSON as the service wrote it before the store: read from the catalogue,
/// serialized through a `serde_json::Value`, the tier's omitted fields removed.
fn from_catalogue(conn: &rusqlite::Connection, pk: i64, country: Country, tier: Tier) -> Vec<u8> {
    rusqlite::vtab::array::load_module(conn).unwrap();
    let hit = solescope::catalogue::read::search_hits(conn, &[pk], country)
        .unwrap()
        .pop()
        .unwrap();
    let mut value = serde_json::to_value(&hit).unwrap();
    for field in tier.omitted_fields() {
        value.as_object_mut().unwrap().remove(field);
    }
    serde_json::to_vec(&value).unwrap()
}

fn from_store(
    store: &HitStore,
    pk: i64,
    country: Country,
    tier: Tier,
) -> Result<Vec<u8>, HitError> {
    let mut out = Vec::new();
    let full = tier.allows(Feature::ReleaseAndRetail);
    store.write_hit(pk, HitFor { country, full }, &mut out)?;
    Ok(out)
}

#[test]
fn every_hit_is_the_catalogue_json_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 300, 5);
    let conn = rusqlite::Connection::open(&catalogue).unwrap();
    // Cover the rarer shapes too: no description, a variant link and no GTIN, odd labels,
    // text that needs escaping, an unknown retail price, a product link with a query string.
    conn.execute_batch(
        "UPDATE products SET description = NULL WHERE pk = 2;
         UPDATE products SET labels = '[\"limited\",\"\\u00e9t\\u00e9 \\\"quoted\\\"\"]',
                             title = 'Tab\there \"quoted\" <br> caf\u{e9}' WHERE pk = 3;
         UPDATE products SET labels = 'not json', retail_usd_cents = 0, retail_eur_cents = 0 WHERE pk = 4;
         UPDATE variants SET link = 'https://example.invalid/v?x=1', gtin = NULL
          WHERE pk = (SELECT min(pk) FROM variants WHERE product_pk = 5);
         UPDATE products SET link = link || '?ref=feed' WHERE pk = 6;",
    )
    .unwrap();
    drop(conn);
    let (store, source) = open(&catalogue);
    assert_eq!(source, IndexSource::Built);
    let conn = rusqlite::Connection::open(&catalogue).unwrap();
    let pks: Vec<i64> = conn
        .prepare("SELECT pk FROM products ORDER BY pk")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(store.len(), pks.len());
    for &pk in &pks {
        for country in Country::ALL {
            for tier in [Tier::Free, Tier::Pro, Tier::Ultra] {
                let expected = from_catalogue(&conn, pk, country, tier);
                let got = from_store(&store, pk, country, tier).unwrap();
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    String::from_utf8(expected).unwrap(),
                    "product {pk}, {country:?}, {tier:?}"
                );
            }
        }
    }
    assert!(matches!(
        from_store(&store, 1_000_000, Country::Us, Tier::Pro),
        Err(HitError::Unknown(1_000_000))
    ));
}

#[test]
fn store_is_reused_rebuilt_when_stale_or_damaged_and_never_serves_a_damaged_record() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 200, 9);
    let file = HitStore::file_for(&catalogue);
    assert_eq!(file, dir.path().join("catalogue.sqlite.search-hits"));
    assert_eq!(open(&catalogue).1, IndexSource::Built);
    assert!(file.exists());
    let (store, source) = open(&catalogue);
    assert_eq!(source, IndexSource::Loaded);
    let good = std::fs::read(&file).unwrap();
    // Warming the page cache reads every record: all of the file but the directory (16 bytes a
    // product) and the 32-byte trailer.
    let records = good.len() as u64 - 16 * store.len() as u64 - 32;
    // Opened from disk, the records may not be in the page cache: the service writes pages off
    // its async workers, reading a page's records ahead at once, until they are read through.
    assert!(!store.is_cached());
    store.prefetch(&[3, 1, 9_999, 200]);
    assert!(from_store(&store, 3, Country::Us, Tier::Pro).is_ok());
    let warm_up = store.warm_page_cache().unwrap();
    assert_eq!(warm_up.covered, records);
    assert!(warm_up.read <= records);
    assert!(store.is_cached());
    // A store this process built is in the page cache.
    std::fs::remove_file(&file).unwrap();
    let (built, source) = open(&catalogue);
    assert_eq!(source, IndexSource::Built);
    assert!(built.is_cached());

    // A flipped byte inside a record: the file opens (only the directory is checked whole), the
    // record is refused on read, every other record still served.
    let conn = rusqlite::Connection::open(&catalogue).unwrap();
    let mut damaged = good.clone();
    damaged[200] ^= 0x5A;
    std::fs::write(&file, &damaged).unwrap();
    let (store, source) = open(&catalogue);
    assert_eq!(source, IndexSource::Loaded);
    let results: Vec<_> = (1..=200)
        .map(|pk| from_store(&store, pk, Country::Us, Tier::Pro))
        .collect();
    assert!(
        matches!(results[0], Err(HitError::Damaged(1))),
        "{:?}",
        results[0].as_ref().err()
    );
    for (pk, result) in (2..).zip(&results[1..]) {
        assert_eq!(
            result.as_ref().unwrap(),
            &from_catalogue(&conn, pk, Country::Us, Tier::Pro)
        );
    }

    // Damaged directory, truncated, empty, foreign: rebuilt, no crash.
    for damaged in [
        {
            let mut bytes = good.clone();
            let at = bytes.len() - 100;
            bytes[at] ^= 0x01;
            bytes
        },
        good[..good.len() / 2].to_vec(),
        good[..good.len() - 1].to_vec(),
        Vec::new(),
        [&good[..48], &[0xFF; 4096][..]].concat(),
        b"not a hit store".to_vec(),
    ] {
        std::fs::write(&file, &damaged).unwrap();
        let (store, source) = open(&catalogue);
        assert_eq!(source, IndexSource::Built);
        assert_eq!(store.len(), 200);
        assert_eq!(std::fs::read(&file).unwrap(), good, "rewritten as before");
    }

    // The catalogue changes: rebuilt, and the hit shows the change.
    conn.execute(
        "UPDATE products SET title = 'Zzyzx Quokka Runner' WHERE pk = 7",
        [],
    )
    .unwrap();
    drop(conn);
    let (store, source) = open(&catalogue);
    assert_eq!(source, IndexSource::Built);
    let hit = from_store(&store, 7, Country::Us, Tier::Free).unwrap();
    assert!(
        String::from_utf8(hit)
            .unwrap()
            .contains("Zzyzx Quokka Runner")
    );
    assert_eq!(open(&catalogue).1, IndexSource::Loaded);
}

/// A record the page cache holds is written without waiting for the disk, the same bytes as
/// `write_hit` writes; one it does not hold is refused as not cached (the service then writes
/// the page on the blocking pool), and nothing is left in the output. The warm-up reads only
/// what the page cache does not hold, and brings all of it back.
#[test]
#[cfg(target_os = "linux")]
fn a_hit_is_written_without_waiting_only_when_the_page_cache_holds_its_record() {
    // Under the target directory, not the system's temporary one: a tmpfs holds every page in
    // memory, so nothing there can be evicted.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 300, 5);
    let (store, _) = open(&catalogue);
    let us_full = HitFor {
        country: Country::Us,
        full: true,
    };
    // The store's pages are clean (its write was synced): `DONTNEED` drops them. The kernel
    // may keep a page it is still writing back, so the drop is asked again (a few times at
    // most) until the record is refused; a store that never refuses still fails here.
    let file = std::fs::File::open(HitStore::file_for(&catalogue)).unwrap();
    file.sync_all().unwrap();
    let mut out = b"head".to_vec();
    let mut refused = Ok(());
    for _ in 0..20 {
        rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed).unwrap();
        refused = store.write_cached_hit(150, us_full, &mut out);
        if refused.is_err() {
            break;
        }
        out.truncate(4);
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(matches!(refused, Err(HitError::NotCached)), "{refused:?}");
    assert_eq!(out, b"head");

    let mut waited = Vec::new();
    store.write_hit(150, us_full, &mut waited).unwrap();
    let mut cached = Vec::new();
    store.write_cached_hit(150, us_full, &mut cached).unwrap();
    assert_eq!(cached, waited);
    let conn = rusqlite::Connection::open(&catalogue).unwrap();
    assert_eq!(cached, from_catalogue(&conn, 150, Country::Us, Tier::Pro));

    // The warm-up reads what the page cache does not hold, and only that.
    let first = store.warm_page_cache().unwrap();
    assert!(first.read > 0 && first.read <= first.covered, "{first:?}");
    let again = store.warm_page_cache().unwrap();
    assert_eq!((again.covered, again.read), (first.covered, 0));

    // Dropped again, the warm-up brings back every record, not only the bytes it waits on. The
    // kernel may keep pages the warm-up just read (it honoured the drop above, yet kept every
    // page here once under load), so the drop is asked again until it took whole; a warm-up
    // that reads less than every record still fails here.
    let mut brought_back = 0;
    for _ in 0..20 {
        rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed).unwrap();
        brought_back = store.warm_page_cache().unwrap().read;
        if brought_back == first.covered {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(brought_back, first.covered);
    for pk in 1..=300 {
        let mut out = Vec::new();
        let written = store.write_cached_hit(pk, us_full, &mut out);
        assert!(written.is_ok(), "product {pk}: {written:?}");
    }
}

#[test]
fn an_unwritable_folder_keeps_the_store_in_a_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 40, 3);
    // A directory where the store file should be: it can be neither read nor replaced.
    std::fs::create_dir(HitStore::file_for(&catalogue)).unwrap();
    let (store, source) = open(&catalogue);
    assert_eq!(source, IndexSource::Built);
    assert_eq!(store.len(), 40);
    assert!(from_store(&store, 1, Country::Fr, Tier::Ultra).is_ok());
}

#[tokio::test]
async fn service_answers_damaged_records_from_the_catalogue() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 120, 4);
    let server = common::start(common::config(&catalogue)).await;
    let client = reqwest::Client::new();
    let hits = |key: &'static str| {
        let client = client.clone();
        let url = format!("{}/search?query=nike&limit=30", server.base_url());
        async move {
            let answer = client
                .get(url)
                .header("Authorization", key)
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 200);
            let body: serde_json::Value = answer.json().await.unwrap();
            body["hits"].clone()
        }
    };
    let before = (hits("demo-pro").await, hits("demo-free").await);
    assert!(before.0.as_array().unwrap().len() > 5, "{}", before.0);
    assert!(before.0[0].get("retail_price").is_some());
    assert!(before.1[0].get("retail_price").is_none());

    // Every record damaged under the running service (the directory at the end left intact):
    // each hit fails its checksum and is answered from the catalogue, the same JSON.
    let file = HitStore::file_for(&catalogue);
    let mut bytes = std::fs::read(&file).unwrap();
    let directory = 32 + 16 * 120;
    let end = bytes.len() - directory;
    for byte in &mut bytes[60..end] {
        *byte ^= 0x21;
    }
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!((hits("demo-pro").await, hits("demo-free").await), before);
    server.shutdown().await;
}

#[tokio::test]
async fn a_store_built_after_the_start_answers_as_the_catalogue_did_meanwhile() {
    // A large catalogue's hit store is built, and its index saved, once the service answers;
    // `background_from: 0` makes a small one large.
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 3_000, 6);
    let mut config = common::config(&catalogue);
    config.background_from = 0;
    let (state, local) = tokio::task::spawn_blocking(move || {
        let local =
            solescope::service::local::LocalCatalogue::open(&config, Box::new(|| {})).unwrap();
        let simulator = solescope::service::marketplace::Simulator::open(
            &config.catalogue,
            config.simulator.clone(),
        )
        .unwrap();
        let state = solescope::service::ServiceState::with_sources(
            &config,
            std::sync::Arc::new(simulator),
            std::sync::Arc::new(std::sync::Arc::clone(&local)),
        )
        .unwrap();
        (state, local)
    })
    .await
    .unwrap();
    let server = solescope::service::spawn("127.0.0.1:0", state.clone())
        .await
        .unwrap();
    let client = reqwest::Client::new();
    let pages = || async {
        let mut pages = Vec::new();
        for (query, key) in [
            ("nike", "demo-pro"),
            ("jordan 1", "demo-free"),
            ("", "demo-ultra"),
        ] {
            let answer = client
                .get(format!(
                    "{}/search?query={query}&limit=50",
                    server.base_url()
                ))
                .header("Authorization", key)
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 200);
            let mut page = answer.json::<serde_json::Value>().await.unwrap();
            page.as_object_mut().unwrap().remove("processingTimeMs");
            pages.push(page);
        }
        pages
    };
    // Answered at once, while the store of 3,000 products is still being built.
    let was_ready = local.hits_ready();
    let meanwhile = pages().await;
    assert!(!was_ready, "the store was built before the first search");
    let started = std::time::Instant::now();
    while !local.hits_ready() {
        assert!(
            started.elapsed().as_secs() < 60,
            "the hit store never became ready"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(HitStore::file_for(&catalogue).exists());
    assert!(
        pages().await == meanwhile,
        "pages differ once the store is ready"
    );
    // The index built at the start is saved after the store: a second start reads it back.
    let index_file = solescope::search::SearchIndex::file_for(&catalogue);
    while !index_file.exists() {
        assert!(
            started.elapsed().as_secs() < 60,
            "the index was never saved"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(meanwhile[0]["hits"].as_array().unwrap().len() > 10);
    server.shutdown().await;
}
