//! Store matching benchmark: 20 stores of 5,000 crawled products each matched against
//! a 1,000,000-product catalogue, the way the service does it at start and after each pass
//! ([`CrawledStores::rematch`]: the catalogue's codes read, each store's products read back
//! from `stores.sqlite`, matched by code, the rest by barcode, the matches named).
//!
//! ```text
//! cargo run --release -- catalogue generate --products 1000000 --seed 1 --out target/bench-data/1m.sqlite
//! cargo bench --bench store_match
//! SOLESCOPE_BENCH_CATALOGUE=FILE SOLESCOPE_BENCH_STORES=20 SOLESCOPE_BENCH_STORE_PRODUCTS=5000 cargo bench --bench store_match
//! ```
//!
//! Setup (not timed): a store file with 20 x 5,000 products that never repeat, drawn from the
//! catalogue (every tenth product, so no two stores share one): 60 % with the style code in
//! their SKUs with a size after it (`DD1391-100-095`, some lower case), 15 % with the code in the
//! title only, 5 % with no code but a barcode (a catalogue GTIN), 20 % store-only (their own SKUs;
//! a quarter of them with a barcode the catalogue lacks, so the GTIN index is asked in vain too).
//!
//! Timed, `SOLESCOPE_BENCH_RUNS` times (3), each on a fresh handle (the codes read again): the 20
//! stores rematched in turn. Prints min/p50/max, the peak resident memory of the runs (`VmHWM`,
//! reset after setup), and baselines measured in the same run: reading the catalogue's codes
//! alone, and reading the 100,000 store products alone. Checks every store's unmatched count and
//! a sample of 2,000 planted products matched to their own catalogue product. Targets: every run
//! at most 5 s, peak at most 300 MB. A FAIL exits 1.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[allow(dead_code, reason = "each benchmark uses a part of the shared helpers")]
mod common;

use common::{env_number, proc_status_mb};
use rusqlite::types::Value;
use solescope::model::{RetailerStores, StoreUrl};
use solescope::service::storefront::crawl::CrawlConfig;
use solescope::service::storefront::crawled_stores::CrawledStores;
use solescope::service::storefront::feed::{CrawledProduct, CrawledVariant};
use solescope::service::storefront::store_db::StoreDb;
use solescope::service::storefront::{StorefrontConfig, Storefronts};

/// A catalogue product a store sells.
struct Drawn {
    pk: i64,
    id: String,
    sku: String,
    brand: String,
    title: String,
    gtin: Option<String>,
}

fn draw(catalogue: &Path, count: usize) -> Vec<Drawn> {
    let conn = rusqlite::Connection::open_with_flags(
        catalogue,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("catalogue");
    rusqlite::vtab::array::load_module(&conn).expect("rarray");
    let total: i64 = conn
        .query_row("SELECT max(pk) FROM products", [], |row| row.get(0))
        .expect("count");
    let step = (total / i64::try_from(count).expect("count")).max(1);
    let pks: Vec<Value> = (0..count)
        .map(|i| Value::Integer(1 + i64::try_from(i).expect("index") * step))
        .collect();
    let mut statement = conn
        .prepare(
            "SELECT p.pk, p.id, p.sku, p.brand, p.title,
                 (SELECT v.gtin FROM variants v WHERE v.product_pk = p.pk AND v.gtin IS NOT NULL LIMIT 1)
             FROM products p WHERE p.pk IN rarray(?1)",
        )
        .expect("query");
    statement
        .query_map([Rc::new(pks)], |row| {
            Ok(Drawn {
                pk: row.get(0)?,
                id: row.get(1)?,
                sku: row.get(2)?,
                brand: row.get(3)?,
                title: row.get(4)?,
                gtin: row.get(5)?,
            })
        })
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows")
}

/// How a planted product says what it is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plant {
    Sku,
    Title,
    Barcode,
    StoreOnly,
}

fn plant_of(index: usize) -> Plant {
    match index % 20 {
        0..=11 => Plant::Sku,
        12..=14 => Plant::Title,
        15 => Plant::Barcode,
        _ => Plant::StoreOnly,
    }
}

fn store_product(index: usize, drawn: &Drawn, plant: Plant) -> CrawledProduct {
    let id = 7_000_000_000_000 + index as u64;
    let sizes = [7.0, 8.0, 8.5, 9.0, 9.5, 10.0, 11.0, 12.0];
    let code = if index.is_multiple_of(7) {
        drawn.sku.to_lowercase()
    } else {
        drawn.sku.clone()
    };
    let variants = sizes
        .iter()
        .enumerate()
        .map(|(i, us)| CrawledVariant {
            variant_id: id * 10 + i as u64,
            size: format!("US {us}"),
            sku: match plant {
                Plant::Sku => format!("{code}-{:03}", (us * 10.0) as u32),
                Plant::StoreOnly => format!("SHOP-{index:06}-{i}"),
                Plant::Title | Plant::Barcode => String::new(),
            },
            price: "120.00".into(),
            available: i % 3 != 0,
            barcode: match plant {
                Plant::Barcode if i == 0 => drawn.gtin.clone(),
                Plant::StoreOnly if i == 0 && index.is_multiple_of(4) => {
                    Some(format!("0{:012}", 990_000_000_000 + index as u64))
                }
                _ => None,
            },
        })
        .collect();
    let (title, vendor) = match plant {
        Plant::Title => (
            format!("{} {}", drawn.title, drawn.sku),
            drawn.brand.clone(),
        ),
        Plant::StoreOnly => (format!("Shop Hoodie {index}"), "Shop".to_owned()),
        Plant::Sku | Plant::Barcode => (drawn.title.clone(), drawn.brand.clone()),
    };
    CrawledProduct {
        product_id: id,
        handle: format!("store-product-{index}"),
        title,
        vendor,
        product_type: "Sneakers".into(),
        tags: vec!["Sneakers".into()],
        updated_at: "2026-11-01T10:00:00-05:00".into(),
        published_at: String::new(),
        variants,
        images: vec![],
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok { "PASS" } else { "FAIL" }
}

fn store_url(index: usize) -> StoreUrl {
    StoreUrl::parse(&format!("https://store-{index}.example")).expect("store URL")
}

#[tokio::main]
async fn main() -> ExitCode {
    common::print_build();
    let catalogue: PathBuf = std::env::var_os("SOLESCOPE_BENCH_CATALOGUE").map_or_else(
        || PathBuf::from("target/bench-data/1m.sqlite"),
        PathBuf::from,
    );
    if !catalogue.exists() {
        println!(
            "FAIL: no catalogue at {} (make it with: cargo run --release -- catalogue generate --products 1000000 --seed 1 --out {})",
            catalogue.display(),
            catalogue.display()
        );
        return ExitCode::FAILURE;
    }
    let stores: usize = env_number("SOLESCOPE_BENCH_STORES").unwrap_or(20);
    let per_store: usize = env_number("SOLESCOPE_BENCH_STORE_PRODUCTS").unwrap_or(5_000);
    let runs: usize = env_number("SOLESCOPE_BENCH_RUNS").unwrap_or(3);

    // Setup: the store file.
    let setup = Instant::now();
    let drawn = draw(&catalogue, stores * per_store);
    assert_eq!(drawn.len(), stores * per_store, "drawn products");
    let dir = tempfile::tempdir().expect("temporary directory");
    let store_file = dir.path().join("stores.sqlite");
    let mut expected_unmatched = vec![0_usize; stores];
    {
        let (mut db, _) = StoreDb::open(&store_file).expect("store file");
        for (s, expected) in expected_unmatched.iter_mut().enumerate() {
            let row = db.store(&store_url(s)).expect("store");
            let pass = db.begin_pass(row.store_id, 0).expect("pass");
            let products: Vec<CrawledProduct> = (0..per_store)
                .map(|i| {
                    let index = s * per_store + i;
                    let plant = plant_of(index);
                    if plant == Plant::StoreOnly
                        || (plant == Plant::Barcode && drawn[index].gtin.is_none())
                    {
                        *expected += 1;
                    }
                    store_product(index, &drawn[index], plant)
                })
                .collect();
            for page in products.chunks(250) {
                db.write_page(row.store_id, pass, page, 1).expect("page");
            }
        }
    }
    println!(
        "setup: {stores} stores x {per_store} products from {} in {:.1} s",
        catalogue.display(),
        setup.elapsed().as_secs_f64()
    );

    // Baselines.
    let started = Instant::now();
    let codes = {
        let conn = rusqlite::Connection::open_with_flags(
            &catalogue,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("catalogue");
        let mut statement = conn
            .prepare("SELECT sku_norm, pk FROM products INDEXED BY products_sku")
            .expect("query");
        let mut rows = statement.query([]).expect("rows");
        let mut count = 0_usize;
        while let Some(row) = rows.next().expect("row") {
            let _ = row.get_ref(0).expect("code");
            count += 1;
        }
        count
    };
    let read_codes = started.elapsed();
    let started = Instant::now();
    let mut read_back = 0;
    {
        let (mut db, _) = StoreDb::open(&store_file).expect("store file");
        for s in 0..stores {
            let row = db.store(&store_url(s)).expect("store");
            read_back += db.products(row.store_id, None).expect("products").len();
        }
    }
    let read_products = started.elapsed();
    println!(
        "baseline: the catalogue's {codes} codes read in {:.0} ms; the {read_back} store products read back in {:.0} ms",
        read_codes.as_secs_f64() * 1000.0,
        read_products.as_secs_f64() * 1000.0
    );

    // Peak memory from here on.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let rss_before = proc_status_mb("VmRSS");
    let storefronts = Arc::new(Storefronts::new(
        RetailerStores::default(),
        StorefrontConfig::default(),
    ));
    let mut times: Vec<Duration> = Vec::new();
    let mut failed = false;
    for run in 0..runs {
        let (crawl, _) = CrawledStores::open(
            &store_file,
            Arc::clone(&storefronts),
            CrawlConfig::default(),
        )
        .expect("store catalogue");
        crawl.add_catalogue(&catalogue);
        let started = Instant::now();
        for s in 0..stores {
            crawl.rematch(&store_url(s)).await.expect("rematch");
        }
        let time = started.elapsed();
        times.push(time);
        println!("run {}: {:.2} s", run + 1, time.as_secs_f64());
        if run == 0 {
            for (s, expected) in expected_unmatched.iter().enumerate() {
                let unmatched = crawl.unmatched(&store_url(s)).await.expect("unmatched");
                if unmatched.len() != *expected {
                    println!(
                        "FAIL: store {s}: {} unmatched, {expected} planted",
                        unmatched.len()
                    );
                    failed = true;
                    for miss in &unmatched {
                        let index: usize = miss.product.handle["store-product-".len()..]
                            .parse()
                            .expect("index");
                        let plant = plant_of(index);
                        if plant != Plant::StoreOnly && plant != Plant::Barcode {
                            println!(
                                "  {:?} {} ({}, {}): {}",
                                miss.product.title,
                                drawn[index].sku,
                                drawn[index].brand,
                                miss.product.variants[0].sku,
                                miss.why
                            );
                        }
                    }
                }
            }
            let mut wrong = 0;
            let sample = (0..drawn.len()).step_by((drawn.len() / 2_000).max(1));
            let mut checked = 0;
            for index in sample {
                let plant = plant_of(index);
                if plant == Plant::StoreOnly
                    || drawn[index].gtin.is_none() && plant == Plant::Barcode
                {
                    continue;
                }
                checked += 1;
                let offers = crawl.offers(&drawn[index].id).await.expect("offers");
                let handle = format!("store-product-{index}");
                if !(offers.len() == 1 && offers[0].product.handle == handle) {
                    wrong += 1;
                    if wrong <= 5 {
                        println!(
                            "  product {} (pk {}, {}): {offers:?}",
                            drawn[index].sku, drawn[index].pk, handle
                        );
                    }
                }
            }
            println!(
                "{}: {checked} planted products checked, {wrong} not matched to their own",
                verdict(wrong == 0)
            );
            failed |= wrong > 0;
        }
    }
    times.sort_unstable();
    let peak = proc_status_mb("VmHWM");
    let worst = *times.last().expect("a run");
    println!(
        "20 stores rematched: min {:.2} s, p50 {:.2} s, max {:.2} s; peak resident {peak:.0} MB (before the runs {rss_before:.0} MB)",
        times[0].as_secs_f64(),
        times[times.len() / 2].as_secs_f64(),
        worst.as_secs_f64()
    );
    let time_ok = worst <= Duration::from_secs(5);
    let memory_ok = peak <= 300.0;
    println!("{}: every run <= 5 s", verdict(time_ok));
    println!("{}: peak resident <= 300 MB", verdict(memory_ok));
    if failed || !time_ok || !memory_ok {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
