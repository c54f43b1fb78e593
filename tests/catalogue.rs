//! Integrity of generated catalogues, determinism, migration and damaged-file handling.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use chrono::{Datelike, NaiveDate, Weekday};
use rusqlite::Connection;
use solescope::catalogue::generate::{self, WEEKS};
use solescope::catalogue::{Catalogue, CatalogueError, SCHEMA_VERSION, demo, gtin, keys};
use solescope::model::Tier;

use common::as_of;

fn build(dir: &Path, name: &str, products: u32, seed: u64) -> PathBuf {
    common::catalogue(dir, name, products, seed)
}

fn scalar(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |row| row.get(0)).unwrap()
}

#[test]
fn generated_catalogue_is_internally_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "c.sqlite", 3000, 11);
    let catalogue = Catalogue::open(&path).unwrap();
    let conn = catalogue.connection();
    assert_eq!(catalogue.product_count().unwrap(), 3000);
    // Nothing but the catalogue is left in its folder: no temporary file from the build.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, ["c.sqlite"]);

    // Every GTIN valid and unique.
    let mut statement = conn.prepare("SELECT gtin FROM variants").unwrap();
    let gtins: Vec<String> = statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        gtins.len() > 3000 * 7,
        "size runs are full: {}",
        gtins.len()
    );
    assert!(gtins.iter().all(|g| gtin::is_valid(g)), "all GTINs valid");
    assert_eq!(
        gtins.iter().collect::<HashSet<_>>().len(),
        gtins.len(),
        "GTINs unique"
    );

    // Every variant belongs to a product; every product has variants.
    assert_eq!(
        scalar(
            conn,
            "SELECT count(*) FROM variants v LEFT JOIN products p ON p.pk = v.product_pk WHERE p.pk IS NULL"
        ),
        0
    );
    assert_eq!(
        scalar(
            conn,
            "SELECT count(*) FROM products p WHERE NOT EXISTS (SELECT 1 FROM variants v WHERE v.product_pk = p.pk)"
        ),
        0
    );

    // min <= avg <= max, and they agree with the variants, in both currencies.
    for currency in ["usd", "eur"] {
        let bad = scalar(
            conn,
            &format!(
                "SELECT count(*) FROM products p JOIN (
                   SELECT product_pk, min(price_{currency}_cents) lo, max(price_{currency}_cents) hi
                   FROM variants GROUP BY product_pk) v ON v.product_pk = p.pk
                 WHERE NOT (p.min_{currency}_cents <= p.avg_{currency}_cents
                            AND p.avg_{currency}_cents <= p.max_{currency}_cents
                            AND p.min_{currency}_cents = v.lo AND p.max_{currency}_cents = v.hi
                            AND p.min_{currency}_cents > 0)"
            ),
        );
        assert_eq!(bad, 0, "{currency} price ranges");
    }

    // FR dataset: EUR prices exist for every product and sit near the USD ones.
    let (low, high): (f64, f64) = conn
        .query_row(
            "SELECT min(avg_eur_cents * 1.0 / avg_usd_cents), max(avg_eur_cents * 1.0 / avg_usd_cents) FROM products",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert!(low > 0.8 && high < 1.1, "EUR/USD ratios {low}..{high}");
    // Retail is recorded where it is known: every generated product, the real releases whose
    // retail is known for certain.
    let known_eur = scalar(
        conn,
        "SELECT count(*) FROM products WHERE retail_eur_cents > 0",
    );
    let unknown_real = generate::releases::releases()
        .iter()
        .filter(|r| r.retail_eur.is_none())
        .count() as i64;
    assert_eq!(known_eur, 3000 - unknown_real);
    assert_eq!(
        scalar(
            conn,
            "SELECT count(DISTINCT product_pk) FROM retail_prices WHERE currency = 'EUR'"
        ),
        known_eur
    );

    // 52 weekly records per product, one week apart, newest first, starting on Mondays.
    assert_eq!(
        scalar(
            conn,
            "SELECT count(*) FROM (SELECT product_pk FROM weekly_orders GROUP BY product_pk HAVING count(*) = 52)"
        ),
        3000
    );
    let newest = generate::week_start_seconds(generate::newest_week_start(as_of()));
    assert_eq!(
        scalar(conn, "SELECT max(week_start) FROM weekly_orders"),
        newest
    );
    assert_eq!(
        scalar(conn, "SELECT min(week_start) FROM weekly_orders"),
        newest - 51 * 7 * 86_400
    );
    assert_eq!(
        scalar(conn, "SELECT count(DISTINCT week_start) FROM weekly_orders"),
        WEEKS as i64
    );
    let monday = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap() + chrono::Duration::seconds(newest);
    assert_eq!(monday.weekday(), Weekday::Mon);

    // Positions are a true ranking: unique per week, 1..N, and more orders rank higher.
    assert_eq!(
        scalar(conn, "SELECT count(*) FROM (SELECT week_start FROM weekly_orders GROUP BY week_start
                      HAVING count(DISTINCT position) != count(*) OR min(position) != 1 OR max(position) != count(*))"),
        0
    );
    assert_eq!(
        scalar(conn, "SELECT count(*) FROM weekly_orders a JOIN weekly_orders b
                      ON a.week_start = b.week_start AND a.position < b.position AND a.orders < b.orders"),
        0
    );

    // A long tail: many products sell nothing in the newest week, a few sell a lot.
    let zero = scalar(
        conn,
        &format!("SELECT count(*) FROM weekly_orders WHERE week_start = {newest} AND orders = 0"),
    );
    let top = scalar(
        conn,
        &format!("SELECT max(orders) FROM weekly_orders WHERE week_start = {newest}"),
    );
    assert!(zero > 300, "slow sellers: {zero}");
    assert!(top > 50, "best seller: {top}");
    // Weeks without orders have no order value; weeks with orders have one.
    assert_eq!(
        scalar(
            conn,
            "SELECT count(*) FROM weekly_orders WHERE (orders = 0) != (aov_cents = 0)"
        ),
        0
    );
}

#[test]
fn prices_follow_sizes_and_codes_follow_brands() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "c.sqlite", 1500, 5);
    let catalogue = Catalogue::open(&path).unwrap();
    let conn = catalogue.connection();
    // On average the largest size is dearer than the middle of the run.
    let (largest, middle): (f64, f64) = conn
        .query_row(
            "SELECT avg(big.price_usd_cents), avg(mid.price_usd_cents) FROM products p
             JOIN variants big ON big.product_pk = p.pk AND big.position =
                 (SELECT max(position) FROM variants WHERE product_pk = p.pk)
             JOIN variants mid ON mid.product_pk = p.pk AND mid.position =
                 (SELECT max(position) FROM variants WHERE product_pk = p.pk) / 2",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert!(
        largest > middle * 1.15,
        "largest {largest} vs middle {middle}"
    );

    let mut statement = conn
        .prepare("SELECT brand, sku, slug, title FROM products")
        .unwrap();
    let rows: Vec<(String, String, String, String)> = statement
        .query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut skus = HashSet::new();
    for (brand, sku, slug, title) in &rows {
        assert!(skus.insert(sku.clone()), "unique style code {sku}");
        assert!(
            slug.ends_with(&sku.to_ascii_lowercase().replace(['-', ' '], ""))
                || slug.ends_with(&sku.to_ascii_lowercase()),
            "slug {slug} ends with the style code {sku}"
        );
        assert!(
            !title.starts_with(' ') && title.contains('\''),
            "title {title:?}"
        );
        let b = sku.as_bytes();
        let ok = match brand.as_str() {
            "Nike" | "Jordan" => {
                sku.len() == 10
                    && b[6] == b'-'
                    && sku[..6].bytes().all(|c| c.is_ascii_alphanumeric())
                    && sku[7..].bytes().all(|c| c.is_ascii_digit())
            }
            // `GW2871`, and older one-letter codes (`B75806`).
            "adidas" => {
                sku.len() == 6 && b[0].is_ascii_uppercase() && b[2..].iter().all(u8::is_ascii_digit)
            }
            // `1201A019-107`; real codes use other letters than `A` (`1011B548-250`).
            "ASICS" => sku.len() == 12 && b[4].is_ascii_uppercase() && b[8] == b'-',
            "New Balance" => sku
                .bytes()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()),
            _ => !sku.is_empty(),
        };
        assert!(ok, "{brand} style code {sku}");
    }
}

#[test]
fn same_seed_gives_identical_data_and_another_seed_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let dump = |path: &Path| -> Vec<String> {
        let conn = Connection::open(path).unwrap();
        let mut out = Vec::new();
        for table in [
            "products",
            "variants",
            "release_dates",
            "retail_prices",
            "links",
            "weekly_orders",
            "api_keys",
        ] {
            let mut statement = conn
                .prepare(&format!("SELECT * FROM {table} ORDER BY 1, 2"))
                .unwrap();
            let columns = statement.column_count();
            let rows = statement
                .query_map([], |row| {
                    let values: Vec<String> = (0..columns)
                        .map(|i| format!("{:?}", row.get_ref(i).unwrap()))
                        .collect();
                    Ok(values.join("|"))
                })
                .unwrap();
            out.extend(rows.map(Result::unwrap));
        }
        out
    };
    let a = dump(&build(dir.path(), "a.sqlite", 400, 42));
    let b = dump(&build(dir.path(), "b.sqlite", 400, 42));
    let c = dump(&build(dir.path(), "c.sqlite", 400, 43));
    assert_eq!(a.len(), b.len());
    assert!(a == b, "same seed, same data");
    assert!(a != c, "another seed, other data");
}

#[test]
fn demo_keys_are_stored_hashed_with_their_tiers() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "c.sqlite", 50, 1);
    let catalogue = Catalogue::open(&path).unwrap();
    let conn = catalogue.connection();
    assert_eq!(keys::tier_of(conn, "demo-free").unwrap(), Some(Tier::Free));
    assert_eq!(keys::tier_of(conn, "demo-pro").unwrap(), Some(Tier::Pro));
    assert_eq!(
        keys::tier_of(conn, "demo-ultra").unwrap(),
        Some(Tier::Ultra)
    );
    assert_eq!(keys::tier_of(conn, "demo-gold").unwrap(), None);
    assert_eq!(
        scalar(
            conn,
            "SELECT count(*) FROM api_keys WHERE key_hash LIKE 'demo%'"
        ),
        0
    );

    let key = keys::new_key();
    keys::insert(conn, &key, Tier::Pro, "ci", "2026-11-22").unwrap();
    assert_eq!(keys::tier_of(conn, &key).unwrap(), Some(Tier::Pro));
    let id = keys::hash(&key)[..12].to_owned();
    assert!(keys::revoke(conn, &id, "2026-11-23").unwrap());
    assert_eq!(
        keys::tier_of(conn, &key).unwrap(),
        None,
        "revoked keys stop working"
    );
    assert!(
        keys::revoke(conn, "abc", "x").is_err(),
        "too short an id is refused"
    );
}

#[test]
fn an_older_schema_is_migrated_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "c.sqlite", 300, 3);
    let popularity = |conn: &Connection| -> Vec<i64> {
        let mut statement = conn
            .prepare("SELECT popularity FROM products ORDER BY pk")
            .unwrap();
        statement
            .query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let before = popularity(&Connection::open(&path).unwrap());
    assert!(before.iter().any(|&p| p > 0));
    {
        // Turn the file into what version 1 wrote: no popularity column, none of version 3's
        // live-source columns and table.
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP INDEX products_popularity; ALTER TABLE products DROP COLUMN popularity;
             ALTER TABLE variants DROP COLUMN asks_usd; ALTER TABLE variants DROP COLUMN asks_eur;
             ALTER TABLE weekly_orders DROP COLUMN gmv_cents; DROP TABLE product_sources;
             PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let catalogue = Catalogue::open(&path).unwrap();
    assert_eq!(
        scalar(catalogue.connection(), "PRAGMA user_version"),
        i64::from(SCHEMA_VERSION)
    );
    assert_eq!(
        popularity(catalogue.connection()),
        before,
        "popularity recomputed from orders"
    );
    assert_eq!(
        scalar(
            catalogue.connection(),
            "SELECT count(*) FROM product_sources"
        ),
        0,
        "version 3's table of mirrored products is there, empty"
    );
    assert_eq!(
        scalar(
            catalogue.connection(),
            "SELECT count(*) FROM weekly_orders WHERE gmv_cents IS NOT NULL"
        ),
        0
    );
}

#[test]
fn a_newer_or_foreign_file_is_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "c.sqlite", 20, 3);
    Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99;")
        .unwrap();
    let err = Catalogue::open(&path).unwrap_err();
    assert!(
        matches!(err, CatalogueError::TooNew { found: 99, .. }),
        "{err}"
    );

    let junk = dir.path().join("junk.sqlite");
    std::fs::write(
        &junk,
        b"this is not a database, just text that is long enough to look like a header",
    )
    .unwrap();
    let err = Catalogue::open(&junk).unwrap_err();
    assert!(matches!(err, CatalogueError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("junk.sqlite"));

    let missing = Catalogue::open(&dir.path().join("none.sqlite")).unwrap_err();
    assert!(matches!(missing, CatalogueError::Missing { .. }));
}

#[test]
fn a_damaged_demo_catalogue_is_moved_aside_and_rebuilt_after_telling_the_user() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(demo::DEMO_FILE_NAME);
    std::fs::write(&path, vec![0x5a; 8192]).unwrap();
    let mut told = Vec::new();
    let outcome = demo::ensure(&path, &mut |m| told.push(m.to_owned()), &mut |_| {}).unwrap();
    let demo::DemoOutcome::Rebuilt { moved_to, .. } = outcome else {
        panic!("expected a rebuild, got {outcome:?}");
    };
    assert_eq!(told.len(), 1);
    assert!(told[0].contains("damaged"), "{told:?}");
    assert_eq!(
        std::fs::read(&moved_to).unwrap(),
        vec![0x5a; 8192],
        "the damaged file is kept"
    );
    let catalogue = Catalogue::open(&path).unwrap();
    assert_eq!(
        catalogue.product_count().unwrap(),
        u64::from(demo::DEMO_PRODUCTS)
    );
    drop(catalogue);

    // A second run reuses it without building.
    let mut told_again = Vec::new();
    let outcome = demo::ensure(&path, &mut |m| told_again.push(m.to_owned()), &mut |_| {}).unwrap();
    assert_eq!(outcome, demo::DemoOutcome::Reused);
    assert!(told_again.is_empty());
}
