//! The live index against a full rebuild: products written into a live index over a generated
//! catalogue (added, their text, codes, popularity or prices changed, deleted), every page of
//! a set of queries compared with an index built from a catalogue holding the same products.

use std::path::{Path, PathBuf};

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rusqlite::Connection;

use super::*;
use crate::model::Country;
use crate::search::scratch::Scratch;
use crate::search::{HitFor, SearchIndex, SearchRequest, words};

/// Windows of this many documents in the tests' scratch buffers, so that the buckets of a
/// small catalogue outgrow them and pages come from windows taken over base and segment.
const SMALL_WINDOW: usize = 48;

fn generated(dir: &Path, name: &str, products: u32, seed: u64) -> PathBuf {
    let path = dir.join(name);
    crate::catalogue::generate::for_tests(&path, products, seed);
    path
}

fn all_pks(conn: &Connection) -> Vec<i64> {
    let mut statement = conn.prepare("SELECT pk FROM products ORDER BY pk").unwrap();
    statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Gives `index` scratch buffers ranking in windows of `window` documents.
fn small_windows(index: &SearchIndex, window: usize) {
    let mut pool = index.scratch.lock().unwrap();
    pool.clear();
    for _ in 0..4 {
        let mut scratch = Scratch::new(index.dictionary.term_count(), index.len());
        scratch.rank_window = window;
        pool.push(scratch);
    }
}

/// A write to both the live index and the reference catalogue.
enum Change {
    Upsert(Box<LiveProduct>),
    Delete(i64),
}

/// A mix of writes over the catalogue `base` (products of `pool` added with new keys).
fn changes(base: &Connection, pool: &Connection, seed: u64, count: usize) -> Vec<Change> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let base_pks = all_pks(base);
    let pool_pks = all_pks(pool);
    let mut added: Vec<i64> = Vec::new();
    let mut out = Vec::new();
    let vocabulary: Vec<String> = ["zephyr", "quokka", "marlow", "nebula", "crimson", "ollie"]
        .iter()
        .map(|word| (*word).to_owned())
        .collect();
    for step in 0..count {
        let roll = rng.random_range(0..100);
        let base_pk = *base_pks.choose(&mut rng).unwrap();
        let read = |pk| LiveProduct::read(base, pk).unwrap();
        match roll {
            // A new product, from the pool, under a key of its own.
            0..=29 => {
                let from = *pool_pks.choose(&mut rng).unwrap();
                let mut product = LiveProduct::read(pool, from).unwrap().unwrap();
                product.pk = 1_000_000 + step as i64;
                product.id = uuid::Uuid::from_u128(0xabc0_0000 + step as u128).to_string();
                product.slug = format!("{}-live-{step}", product.slug);
                // The catalogue keeps a GTIN on one size only: new ones for the new product.
                for (n, variant) in product.hit.variants.iter_mut().enumerate() {
                    if variant.gtin.is_some() {
                        variant.gtin = Some(format!(
                            "{:013}",
                            2_000_000_000_000u64 + step as u64 * 1_000 + n as u64
                        ));
                    }
                }
                if rng.random_bool(0.3) {
                    // A word no product had, so the dictionary grows.
                    let word = vocabulary.choose(&mut rng).unwrap();
                    // Letters only: a word typo derivations walk (module `expand`).
                    let letter = char::from(b'a' + (step % 26) as u8);
                    product.title = format!("{} {word}{letter} {word}{}", product.title, step % 7);
                }
                added.push(product.pk);
                out.push(Change::Upsert(Box::new(product)));
            }
            // A title changed: a word added or dropped.
            30..=44 => {
                let Some(mut product) = read(base_pk) else {
                    continue;
                };
                let mut title: Vec<String> = product.title.split(' ').map(str::to_owned).collect();
                if rng.random_bool(0.5) && title.len() > 2 {
                    title.remove(rng.random_range(0..title.len()));
                } else {
                    title.insert(0, vocabulary.choose(&mut rng).unwrap().clone());
                }
                product.title = title.join(" ");
                out.push(Change::Upsert(Box::new(product)));
            }
            // Codes changed: style code and a GTIN.
            45..=54 => {
                let Some(mut product) = read(base_pk) else {
                    continue;
                };
                product.sku = format!("ZZ{:04}-{:03}", step, step % 1000);
                product.sku_norm = crate::catalogue::generate::normalize_sku(&product.sku);
                if let Some(variant) = product.hit.variants.first_mut() {
                    variant.gtin = Some(format!("{:012}", 400_000_000_000u64 + step as u64));
                }
                out.push(Change::Upsert(Box::new(product)));
            }
            // Popularity changed: the product moves in document order.
            55..=62 => {
                let Some(mut product) = read(base_pk) else {
                    continue;
                };
                product.popularity = rng.random_range(0..50);
                out.push(Change::Upsert(Box::new(product)));
            }
            // Prices changed: the hit alone.
            63..=77 => {
                let Some(mut product) = read(base_pk) else {
                    continue;
                };
                product.hit.usd.min_cents += 100;
                if let Some(variant) = product.hit.variants.last_mut() {
                    variant.price_usd_cents += 250;
                }
                out.push(Change::Upsert(Box::new(product)));
            }
            // A live product changed again.
            78..=87 => {
                let Some(&pk) = added.choose(&mut rng) else {
                    continue;
                };
                let previous = out.iter().rev().find_map(|change| match change {
                    Change::Upsert(product) if product.pk == pk => Some((**product).clone()),
                    _ => None,
                });
                let Some(mut product) = previous else {
                    continue;
                };
                if rng.random_bool(0.5) {
                    product.title =
                        format!("{} {}", vocabulary.choose(&mut rng).unwrap(), product.title);
                } else {
                    product.hit.eur.max_cents += 1;
                }
                out.push(Change::Upsert(Box::new(product)));
            }
            // Deletes, of the base's products and of live ones.
            _ => {
                let pk = if rng.random_bool(0.3) {
                    added.choose(&mut rng).copied().unwrap_or(base_pk)
                } else {
                    base_pk
                };
                out.push(Change::Delete(pk));
            }
        }
    }
    out
}

/// Applies `changes` to the live index and to the reference catalogue.
fn apply(live: &LiveIndex, reference: &Connection, changes: &[Change]) -> Vec<WriteOutcome> {
    let mut outcomes = Vec::new();
    for change in changes {
        match change {
            Change::Upsert(product) => {
                outcomes.push(live.upsert(product).unwrap());
                write_to_catalogue(reference, product).unwrap();
            }
            Change::Delete(pk) => {
                outcomes.push(live.delete(*pk).unwrap());
                reference
                    .execute("DELETE FROM variants WHERE product_pk = ?1", [pk])
                    .unwrap();
                reference
                    .execute("DELETE FROM products WHERE pk = ?1", [pk])
                    .unwrap();
            }
        }
    }
    outcomes
}

/// Queries of every kind over the catalogue behind `conn`: titles and parts of them, typos,
/// prefixes, codes with and without dashes, GTINs, brand words.
fn queries(conn: &Connection, seed: u64) -> Vec<String> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut statement = conn
        .prepare(
            "SELECT p.title, p.sku, p.brand, (SELECT gtin FROM variants v WHERE v.product_pk = p.pk
               AND gtin IS NOT NULL LIMIT 1) FROM products p ORDER BY random() LIMIT 40",
        )
        .unwrap();
    let rows: Vec<(String, String, String, Option<String>)> = statement
        .query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut out: Vec<String> = [
        "nike",
        "jordan 1",
        "dunk lo",
        "air",
        "zephyr",
        "zephr",
        "quokak",
        "marlow 9",
        "nebul",
        "crimso",
        "new balance",
        "yeezy boost",
        "a",
        "1",
        "low",
        "high og",
        "retro",
    ]
    .iter()
    .map(|query| (*query).to_owned())
    .collect();
    for (title, sku, brand, gtin) in rows {
        let title_words = words(&title);
        out.push(title.clone());
        if title_words.len() > 2 {
            out.push(title_words[..2].join(" "));
            let last = &title_words[title_words.len() - 1];
            let cut = &last[..last.len().div_ceil(2)];
            out.push(format!(
                "{} {cut}",
                title_words[..title_words.len() - 1].join(" ")
            ));
        }
        if let Some(word) = title_words.iter().find(|word| word.len() >= 5) {
            let mut typo: Vec<char> = word.chars().collect();
            let at = rng.random_range(1..typo.len());
            typo.swap(at - 1, at);
            out.push(typo.into_iter().collect());
        }
        out.push(sku.clone());
        out.push(sku.replace(['-', ' '], ""));
        out.push(format!(
            "{brand} {}",
            title_words.last().cloned().unwrap_or_default()
        ));
        if let Some(gtin) = gtin {
            out.push(gtin);
        }
    }
    out
}

/// Every page of every query (20 a page, the first ten pages, and one page of 100) over the
/// live index and over `rebuilt`: the same products in the same order, the same totals.
fn assert_same_pages(live: &LiveIndex, rebuilt: &SearchIndex, queries: &[String]) {
    let mut compared = 0;
    for text in queries {
        for (offset, limit) in (0..10).map(|page| (page * 20, 20)).chain([(0, 100)]) {
            let request = SearchRequest {
                text,
                offset,
                limit,
                ..SearchRequest::default()
            };
            let got = live.search(&request).unwrap();
            let expected = rebuilt.search(&request).unwrap();
            assert_eq!(got, expected, "{text:?}, offset {offset}, limit {limit}");
            compared += usize::from(!expected.product_pks.is_empty());
        }
    }
    assert!(
        compared > queries.len(),
        "too few pages with hits: {compared}"
    );
    for request in [
        SearchRequest {
            offset: 0,
            limit: 50,
            ..SearchRequest::default()
        },
        SearchRequest {
            offset: 1_000,
            limit: 50,
            ..SearchRequest::default()
        },
    ] {
        assert_eq!(
            live.search(&request).unwrap(),
            rebuilt.search(&request).unwrap(),
            "no text: {request:?}"
        );
    }
}

fn config() -> LiveConfig {
    LiveConfig {
        background_merges: false,
        ..LiveConfig::default()
    }
}

/// The fixture: a base catalogue, a pool of other products, and a copy of the base that the
/// writes also go to (the reference).
struct Fixture {
    _dir: tempfile::TempDir,
    base: PathBuf,
    reference: Connection,
    pool: Connection,
}

fn fixture(products: u32) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let base = generated(dir.path(), "base.sqlite", products, 62);
    let pool = generated(dir.path(), "pool.sqlite", products / 3, 63);
    let copy = dir.path().join("reference.sqlite");
    std::fs::copy(&base, &copy).unwrap();
    Fixture {
        reference: Connection::open(&copy).unwrap(),
        pool: Connection::open(&pool).unwrap(),
        base,
        _dir: dir,
    }
}

fn open_live(fixture: &Fixture) -> LiveIndex {
    let conn = Connection::open(&fixture.base).unwrap();
    LiveIndex::open(&fixture.base, &conn, config()).unwrap()
}

#[test]
fn pages_over_base_and_segment_are_a_rebuilds_pages() {
    let fixture = fixture(3_000);
    let live = open_live(&fixture);
    let base = Connection::open(&fixture.base).unwrap();
    let changes = changes(&base, &fixture.pool, 7, 600);
    let outcomes = apply(&live, &fixture.reference, &changes);
    for kind in [
        WriteOutcome::Added,
        WriteOutcome::Replaced,
        WriteOutcome::HitOnly,
        WriteOutcome::Deleted,
    ] {
        assert!(outcomes.contains(&kind), "no {kind:?} among the writes");
    }
    let stats = live.stats();
    assert!(
        stats.live_products > 100 && stats.replaced > 50,
        "{stats:?}"
    );
    let rebuilt = SearchIndex::build(&fixture.reference).unwrap();
    let queries = queries(&fixture.reference, 9);
    assert_same_pages(&live, &rebuilt, &queries);

    // Windows smaller than the buckets: each taken over base and segment in document order.
    small_windows(&live.base(), SMALL_WINDOW);
    small_windows(&rebuilt, SMALL_WINDOW);
    assert_same_pages(&live, &rebuilt, &queries);
}

#[test]
fn a_merged_base_is_a_rebuild_byte_for_byte_and_survives_a_restart() {
    let fixture = fixture(2_000);
    let base = Connection::open(&fixture.base).unwrap();
    let changes = changes(&base, &fixture.pool, 11, 400);
    let (first, second) = changes.split_at(300);
    {
        let live = open_live(&fixture);
        apply(&live, &fixture.reference, first);
        assert!(live.merge_now().unwrap());
        assert_eq!(live.stats().generation, 1);
        assert_eq!(live.stats().live_products, 0);
        let rebuilt = SearchIndex::build(&fixture.reference).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let saved = |index: &SearchIndex, name: &str| {
            let path = dir.path().join(name);
            crate::search::persist::save(index, &path, &[3; 32]).unwrap();
            std::fs::read(path).unwrap()
        };
        let merged = saved(&live.base(), "merged");
        assert!(
            merged == saved(&rebuilt, "rebuilt"),
            "the merged base differs"
        );
        // Writes after the merge, then a restart: the merged base and the log read back.
        apply(&live, &fixture.reference, second);
    }
    let live = open_live(&fixture);
    let stats = live.stats();
    assert_eq!(stats.generation, 1, "{stats:?}");
    assert!(stats.live_products > 0, "{stats:?}");
    let rebuilt = SearchIndex::build(&fixture.reference).unwrap();
    assert_same_pages(&live, &rebuilt, &queries(&fixture.reference, 5));
}

/// The hits of written products are the catalogue's hits of the same products, byte for byte,
/// before and after a merge; a price change shows in the hit without a change of postings.
#[test]
fn hits_of_written_products_are_the_catalogue_stores_hits() {
    let fixture = fixture(600);
    let live = open_live(&fixture);
    let base = Connection::open(&fixture.base).unwrap();
    let changes = changes(&base, &fixture.pool, 3, 200);
    apply(&live, &fixture.reference, &changes);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("hits.sqlite");
    fixture
        .reference
        .execute("VACUUM INTO ?1", [copy.to_str().unwrap()])
        .unwrap();
    let store = crate::search::HitStore::open(&copy, &Connection::open(&copy).unwrap())
        .unwrap()
        .0;
    let written: Vec<i64> = changes
        .iter()
        .filter_map(|change| match change {
            Change::Upsert(product) => Some(product.pk),
            Change::Delete(_) => None,
        })
        .collect();
    let check = |live: &LiveIndex| {
        let mut checked = 0;
        for &pk in &written {
            for country in [Country::Us, Country::Fr] {
                let (mut ours, mut theirs) = (Vec::new(), Vec::new());
                let expected = store.write_hit(
                    pk,
                    HitFor {
                        country,
                        full: true,
                    },
                    &mut theirs,
                );
                let got = live.write_hit(
                    pk,
                    HitFor {
                        country,
                        full: true,
                    },
                    &mut ours,
                );
                if expected.is_err() {
                    // Deleted since.
                    continue;
                }
                got.unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&ours),
                    String::from_utf8_lossy(&theirs),
                    "product {pk}"
                );
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked} hits checked");
    };
    check(&live);
    live.merge_now().unwrap();
    check(&live);
}

/// Bad input is refused with a clear error or indexed, never a panic.
#[test]
fn odd_products_are_indexed_or_refused() {
    let fixture = fixture(300);
    let live = open_live(&fixture);
    let base = Connection::open(&fixture.base).unwrap();
    let template = LiveProduct::read(&base, 1).unwrap().unwrap();
    let mut long = template.clone();
    long.pk = 5_000_001;
    long.description = Some("sneaker colourway ".repeat(5_000));
    assert_eq!(live.upsert(&long).unwrap(), WriteOutcome::Added);
    let mut too_long = template.clone();
    too_long.pk = 5_000_002;
    too_long.description = Some("x".repeat(MAX_FIELD_BYTES + 1));
    assert!(matches!(
        live.upsert(&too_long),
        Err(LiveError::FieldTooLong { .. })
    ));
    let mut sizes = template.clone();
    sizes.pk = 5_000_003;
    sizes.hit.variants = (0..500)
        .map(|n| HitVariant {
            id: Some(uuid::Uuid::from_u128(n)),
            size: format!("{n}"),
            gtin: Some(format!("{:012}", 500_000_000_000u64 + n as u64)),
            link: None,
            price_usd_cents: 100,
            price_eur_cents: 100,
        })
        .collect();
    assert_eq!(live.upsert(&sizes).unwrap(), WriteOutcome::Added);
    let mut odd = template.clone();
    odd.pk = 5_000_004;
    odd.title = "😀 Ünïcödé \u{0} \u{202e}évité ﬁ ＡＢＣ".to_owned();
    odd.sku = "--".to_owned();
    odd.sku_norm = String::new();
    assert_eq!(live.upsert(&odd).unwrap(), WriteOutcome::Added);
    let mut empty = template;
    empty.pk = 5_000_005;
    empty.title = String::new();
    assert_eq!(live.upsert(&empty).unwrap(), WriteOutcome::Added);
    for text in ["sneaker colourway", "évité", "abc", "", "😀"] {
        live.search(&SearchRequest {
            text,
            limit: 20,
            ..SearchRequest::default()
        })
        .unwrap();
    }
    let found = live
        .search(&SearchRequest {
            text: "500000000499",
            limit: 5,
            ..SearchRequest::default()
        })
        .unwrap();
    assert_eq!(found.product_pks, [5_000_003]);
    // The same key written from two threads at once: one wins whole.
    std::thread::scope(|scope| {
        for n in 0..2 {
            let live = &live;
            let mut product = sizes.clone();
            product.title = format!("twice {n}");
            scope.spawn(move || live.upsert(&product).unwrap());
        }
    });
    let found = live
        .search(&SearchRequest {
            text: "twice",
            limit: 5,
            ..SearchRequest::default()
        })
        .unwrap();
    assert_eq!(found.product_pks, [5_000_003]);
}

/// Deletes in one write: each product of the index gone from the search, an unknown key
/// `Absent`, one record each in the log.
#[test]
fn products_deleted_together_leave_the_search() {
    let fixture = fixture(300);
    let live = open_live(&fixture);
    let base = Connection::open(&fixture.base).unwrap();
    let mut written = Vec::new();
    for n in 0..3 {
        let mut product = LiveProduct::read(&base, 1 + n).unwrap().unwrap();
        product.pk = 6_000_000 + n;
        product.title = format!("{} qxvelbrand{n}", product.title);
        written.push(product);
    }
    live.upsert_many(&written).unwrap();
    let found = |word: &str| {
        live.search(&SearchRequest {
            text: word,
            limit: 20,
            ..SearchRequest::default()
        })
        .unwrap()
        .product_pks
    };
    assert_eq!(found("qxvelbrand0"), [6_000_000]);
    let outcomes = live
        .delete_many(&[6_000_000, 6_000_002, 9_999_999])
        .unwrap();
    assert_eq!(
        outcomes,
        [
            WriteOutcome::Deleted,
            WriteOutcome::Deleted,
            WriteOutcome::Absent
        ]
    );
    assert!(found("qxvelbrand0").is_empty());
    assert!(found("qxvelbrand2").is_empty());
    assert_eq!(found("qxvelbrand1"), [6_000_001]);
    assert_eq!(live.stats().live_products, 1);
}

/// A store's list and an upstream's answers repeat most products as they were: such a write
/// appends nothing and syncs nothing, over the segment and over a merged base's hits alike;
/// a price change is still a write, and a base product no write touched is written.
#[test]
fn a_write_of_what_the_index_holds_is_no_write() {
    let fixture = fixture(300);
    let live = open_live(&fixture);
    let base = Connection::open(&fixture.base).unwrap();
    let mut product = LiveProduct::read(&base, 5).unwrap().unwrap();
    product.pk = 7_000_000;
    product.title = format!("{} qxrepeated", product.title);
    let untouched = LiveProduct::read(&base, 9).unwrap().unwrap();
    assert_eq!(live.upsert(&product).unwrap(), WriteOutcome::Added);
    let log_bytes = live.stats().log_bytes;
    assert_eq!(live.upsert(&product).unwrap(), WriteOutcome::Unchanged);
    assert_eq!(
        live.stats().log_bytes,
        log_bytes,
        "an unchanged write was logged"
    );

    // The catalogue's own product: its hit is the catalogue's, which the index does not read.
    assert_eq!(live.upsert(&untouched).unwrap(), WriteOutcome::HitOnly);
    assert_eq!(live.upsert(&untouched).unwrap(), WriteOutcome::Unchanged);

    let mut cheaper = product.clone();
    cheaper.hit.usd.min_cents -= 100;
    assert_eq!(live.upsert(&cheaper).unwrap(), WriteOutcome::HitOnly);
    assert_eq!(
        live.upsert_many(&[cheaper.clone(), product.clone()])
            .unwrap(),
        [WriteOutcome::Unchanged, WriteOutcome::HitOnly],
        "the second of one batch compared with the first"
    );

    // After a merge, the hits are read from the merged base's store.
    assert!(live.merge_now().unwrap());
    let log_bytes = live.stats().log_bytes;
    assert_eq!(live.upsert(&product).unwrap(), WriteOutcome::Unchanged);
    assert_eq!(live.upsert(&untouched).unwrap(), WriteOutcome::Unchanged);
    assert_eq!(live.stats().log_bytes, log_bytes);
    assert_eq!(live.upsert(&cheaper).unwrap(), WriteOutcome::HitOnly);
    let mut hit = Vec::new();
    live.write_hit(
        7_000_000,
        HitFor {
            country: Country::Us,
            full: true,
        },
        &mut hit,
    )
    .unwrap();
    let hit: serde_json::Value = serde_json::from_slice(&hit).unwrap();
    assert!(hit.to_string().contains("qxrepeated"), "{hit}");
}

/// Writes, searches and merges at once: every product is found by each search that starts
/// after its write returned, through the merges' swaps, and no search fails.
#[test]
fn products_written_while_searches_and_merges_run_are_found_from_their_write_on() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    const WRITES: usize = 240;

    let fixture = fixture(600);
    let live = open_live(&fixture);
    let base = Connection::open(&fixture.base).unwrap();
    let products: Vec<LiveProduct> = (0..WRITES)
        .map(|n| {
            let mut product = LiveProduct::read(&base, 1 + (n as i64 % 500))
                .unwrap()
                .unwrap();
            product.pk = 8_000_000 + n as i64;
            product.title = format!("{} {}", product.title, word_of(n));
            product
        })
        .collect();
    let written = AtomicUsize::new(0);
    let done = AtomicBool::new(false);
    let merges = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            for (n, product) in products.iter().enumerate() {
                live.upsert(product).unwrap();
                written.store(n + 1, Ordering::SeqCst);
            }
            done.store(true, Ordering::SeqCst);
        });
        scope.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                if live.merge_now().unwrap() {
                    merges.fetch_add(1, Ordering::SeqCst);
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        });
        for seed in 0..3u64 {
            let (live, written, done) = (&live, &written, &done);
            scope.spawn(move || {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                let mut searched = 0;
                while !done.load(Ordering::SeqCst) || searched < 50 {
                    let upto = written.load(Ordering::SeqCst);
                    searched += 1;
                    if upto == 0 {
                        continue;
                    }
                    let n = rng.random_range(0..upto);
                    let found = live
                        .search(&SearchRequest {
                            text: &word_of(n),
                            limit: 5,
                            ..SearchRequest::default()
                        })
                        .unwrap()
                        .product_pks;
                    assert!(
                        found.contains(&(8_000_000 + n as i64)),
                        "product {n} written before this search is not found: {found:?}"
                    );
                }
            });
        }
    });
    assert!(
        merges.load(Ordering::SeqCst) >= 2,
        "the merges did not run beside the writes"
    );
    assert_eq!(live.stats().products, 600 + WRITES);
}

/// A word of its own for product `n` (letters only, no other product's).
fn word_of(n: usize) -> String {
    let letters: String = format!("{n:04}")
        .bytes()
        .map(|digit| char::from(b'f' + (digit - b'0')))
        .collect();
    format!("qxconc{letters}")
}
