//! A search narrowed to what one store has in stock (`/search?in_stock_at=`), against
//! the same searches over the whole catalogue, in the same run, one thread, in process.
//!
//! ```text
//! cargo bench --bench search_narrowed -- CATALOGUE [--queries N] [--stock N]
//! cargo bench --bench search_narrowed -- target/bench-data/1m.sqlite
//! ```
//!
//! Over the catalogue's index (read back from beside the file, or built), with twenty stores'
//! stock lists of `--stock` products each (5,000: a large sneaker store) drawn at random, and
//! `--queries` distinct queries (2,000) of one or two title words of random products (the last
//! one half typed every third query): every query is timed whole (baseline) and narrowed to a
//! store's list, each the fastest of three runs. Then the same over a live index (`search::live`)
//! holding 5,000 store-only products over the catalogue's, as the demo serves a search once
//! stores are read. Prints p50/p99/max of each; FAIL (exit 1) when a narrowed p99 is over
//! 5 ms. The first narrowed search makes the index's map from product keys to documents (once
//! per index): timed apart and printed.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::Connection;
use solescope::search::live::{
    HitPrices, HitVariant, LiveConfig, LiveIndex, LiveProduct, ProductHit,
};
use solescope::search::{SearchIndex, SearchRequest};

#[allow(dead_code, reason = "each benchmark uses a part of the shared helpers")]
mod common;
use common::{ms, percentile, proc_status_mb};

const STORES: usize = 20;
const P99_LIMIT_MS: f64 = 5.0;
/// A store-only product's key starts here (`service::shelf::STORE_PK_BASE`).
const STORE_PK_BASE: i64 = 1 << 60;

struct Options {
    catalogue: PathBuf,
    queries: usize,
    stock: usize,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut options = Options {
        catalogue: PathBuf::new(),
        queries: 2_000,
        stock: 5_000,
    };
    let mut i = 0;
    while i < args.len() {
        match (
            args[i].as_str(),
            args.get(i + 1).and_then(|v| v.parse().ok()),
        ) {
            ("--queries", Some(v)) => {
                options.queries = v;
                i += 2;
            }
            ("--stock", Some(v)) => {
                options.stock = v;
                i += 2;
            }
            (path, _) => {
                options.catalogue = PathBuf::from(path);
                i += 1;
            }
        }
    }
    assert!(
        options.catalogue.exists(),
        "usage: cargo bench --bench search_narrowed -- CATALOGUE [--queries N] [--stock N]"
    );
    options
}

/// `(pk, title)` of every product.
fn products(conn: &Connection) -> Vec<(i64, String)> {
    let mut statement = conn.prepare("SELECT pk, title FROM products").unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Distinct queries: one or two words of a random title, the last half typed every third.
fn queries(products: &[(i64, String)], count: usize, rng: &mut ChaCha8Rng) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    while out.len() < count {
        let (_, title) = &products[rng.random_range(0..products.len())];
        let words: Vec<&str> = title
            .split_whitespace()
            .filter(|w| w.chars().all(char::is_alphanumeric) && w.len() > 2)
            .collect();
        if words.is_empty() {
            continue;
        }
        let take = rng.random_range(1..=2.min(words.len()));
        let start = rng.random_range(0..=words.len() - take);
        let mut query = words[start..start + take].join(" ").to_lowercase();
        if out.len() % 3 == 0 {
            let keep = query.len() - query.split(' ').next_back().unwrap_or("").len() / 2;
            query.truncate(keep.max(2));
        }
        if seen.insert(query.clone()) {
            out.push(query);
        }
    }
    out
}

/// A first page of 20 for `text`, narrowed to `pks` when given.
fn request<'a>(text: &'a str, pks: Option<&'a [i64]>) -> SearchRequest<'a> {
    SearchRequest {
        text,
        limit: 20,
        pks,
        ..SearchRequest::default()
    }
}

/// The fastest of three runs of `search`.
fn fastest(mut search: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            search();
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn report(name: &str, mut times: Vec<Duration>) -> f64 {
    times.sort_unstable();
    let p99 = ms(percentile(&times, 0.99));
    println!(
        "  {name}: p50 {:.3} ms, p99 {p99:.3} ms, max {:.3} ms ({} queries)",
        ms(percentile(&times, 0.50)),
        ms(*times.last().unwrap_or(&Duration::ZERO)),
        times.len()
    );
    p99
}

/// A store-only product, as the crawl hands one: a sneaker title of random words.
fn store_product(n: i64, words: &[&str], rng: &mut ChaCha8Rng) -> LiveProduct {
    let title: Vec<&str> = (0..4)
        .map(|_| *words.choose(rng).unwrap_or(&"shoe"))
        .collect();
    let price = HitPrices {
        min_cents: 11_000,
        avg_cents: 11_000,
        max_cents: 11_000,
        base_cents: 11_000,
        retail_cents: 11_000,
    };
    LiveProduct {
        pk: STORE_PK_BASE + n,
        popularity: 0,
        id: format!("store-{n}"),
        slug: format!("bench-store-{n}"),
        sku: format!("ZZ{n:07}"),
        sku_norm: format!("ZZ{n:07}"),
        title: title.join(" "),
        brand: "Bench".into(),
        model: "Sneakers".into(),
        category: "Sneakers > Bench".into(),
        color: String::new(),
        gender: String::new(),
        description: None,
        hit: ProductHit {
            availability: "in stock".into(),
            condition: "new".into(),
            size_system: "US".into(),
            labels: vec!["retail-only".into(), "store:bench.example".into()],
            usd: price,
            variants: (7..12)
                .map(|size| HitVariant {
                    size: size.to_string(),
                    price_usd_cents: 11_000,
                    ..HitVariant::default()
                })
                .collect(),
            ..ProductHit::default()
        },
    }
}

fn main() {
    common::print_build();
    let options = options();
    let mut rng = ChaCha8Rng::seed_from_u64(63);
    let conn = Connection::open(&options.catalogue).unwrap();
    let started = Instant::now();
    let (index, source) = SearchIndex::open(&options.catalogue, &conn).unwrap();
    println!(
        "index of {} products ({source:?}) in {:.2} s, RSS {:.0} MB",
        index.len(),
        started.elapsed().as_secs_f64(),
        proc_status_mb("VmRSS")
    );
    let all = products(&conn);
    let queries = queries(&all, options.queries, &mut rng);
    let stores: Vec<Vec<i64>> = (0..STORES)
        .map(|_| {
            let mut pks: Vec<i64> = all
                .choose_multiple(&mut rng, options.stock)
                .map(|(pk, _)| *pk)
                .collect();
            pks.sort_unstable();
            pks
        })
        .collect();
    let started = Instant::now();
    let first = index.search(&request("nike", Some(&stores[0]))).unwrap();
    println!(
        "first narrowed search (makes the map of product keys): {:.1} ms, {} hits; RSS {:.0} MB",
        ms(started.elapsed()),
        first.estimated_total_hits,
        proc_status_mb("VmRSS")
    );

    let mut failed = false;
    println!(
        "over the index ({} queries, {STORES} stores of {} products):",
        queries.len(),
        options.stock
    );
    let (whole, narrowed) = time_both(&queries, &stores, |text, pks| {
        index.search(&request(text, pks)).unwrap();
    });
    report("baseline: the whole catalogue", whole);
    failed |= report("narrowed to a store's stock", narrowed) > P99_LIMIT_MS;

    // The demo once stores are read: a live index over the catalogue's with store-only products.
    let folder = tempfile::tempdir().unwrap();
    let live = LiveIndex::open_over(
        folder.path(),
        [0; 32],
        Arc::new(index),
        LiveConfig {
            background_merges: false,
            ..LiveConfig::default()
        },
    )
    .unwrap();
    let words: Vec<&str> = all
        .iter()
        .take(50_000)
        .flat_map(|(_, title)| title.split_whitespace())
        .filter(|w| w.len() > 2)
        .collect();
    let shelf: Vec<LiveProduct> = (0..5_000)
        .map(|n| store_product(n, &words, &mut rng))
        .collect();
    live.upsert_many(&shelf).unwrap();
    let stores: Vec<Vec<i64>> = stores
        .into_iter()
        .enumerate()
        .map(|(s, mut pks)| {
            pks.extend((0..250).map(|n| STORE_PK_BASE + (s as i64 * 250 + n) % 5_000));
            pks.sort_unstable();
            pks.dedup();
            pks
        })
        .collect();
    println!("over a live index with 5,000 store-only products (each store 250 of them):");
    let (whole, narrowed) = time_both(&queries, &stores, |text, pks| {
        live.search(&request(text, pks)).unwrap();
    });
    report("baseline: the whole catalogue", whole);
    failed |= report("narrowed to a store's stock", narrowed) > P99_LIMIT_MS;
    println!("RSS {:.0} MB", proc_status_mb("VmRSS"));
    if failed {
        println!("FAIL narrowed p99 over {P99_LIMIT_MS} ms");
        std::process::exit(1);
    }
    println!("PASS narrowed p99 at most {P99_LIMIT_MS} ms");
}

/// Each query timed whole and narrowed to a store's list (stores in turn), interleaved.
fn time_both(
    queries: &[String],
    stores: &[Vec<i64>],
    mut search: impl FnMut(&str, Option<&[i64]>),
) -> (Vec<Duration>, Vec<Duration>) {
    let mut whole = Vec::with_capacity(queries.len());
    let mut narrowed = Vec::with_capacity(queries.len());
    for (i, query) in queries.iter().enumerate() {
        whole.push(fastest(|| search(query, None)));
        let pks = &stores[i % stores.len()];
        narrowed.push(fastest(|| search(query, Some(pks))));
    }
    (whole, narrowed)
}
