//! The deterministic catalogue generator: `solescope catalogue generate`.
//!
//! Same options (seed, product count, `as_of` date) give identical data. Every catalogue starts
//! with the real releases of [`releases`] (real titles and style codes); generated products fill
//! the rest from [`data`]: real silhouettes, invented colorways with unique titles, size charts and
//! each brand's style-code format. Prices and weekly orders follow the market model of `market`
//! (premiums, size curve, kids' pairs below adults, release spikes and a long tail); GTINs carry
//! valid check digits and are unique, and `position` is a true weekly ranking.
//!
//! The file is built under a unique temporary name beside `out`, flushed to disk and renamed over
//! `out` only when complete ([`crate::durable`]), so a failed or interrupted run never leaves a
//! half-written catalogue behind, and two runs never share a file.

pub mod data;
mod market;
mod product;
pub mod releases;
mod writer;

use std::path::Path;

use chrono::{Datelike, Duration, NaiveDate};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::Connection;

use self::product::Generator;
pub use self::product::slugify;
use self::writer::Writer;
use super::{CatalogueError, gtin, keys};
use crate::model::Tier;

/// The generator's revision, bumped by hand whenever the same options would give different
/// data (a change to the market model, the silhouettes, the titles). Changes to the releases
/// table need no bump: [`generator_version`] carries its digest.
pub const GENERATOR_REVISION: u32 = 2;

/// The `meta` key under which a catalogue records the [`generator_version`] that built it.
pub const GENERATOR_VERSION_KEY: &str = "generator_version";

/// The version of the generator's output: its revision and a digest of the releases table
/// (`r2-1a2b3c4d5e6f7a8b`). A demo catalogue built by another version is rebuilt.
pub fn generator_version() -> &'static str {
    static VERSION: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| version_for(releases::TABLE));
    &VERSION
}

/// The generator version with `table` as the releases table.
fn version_for(table: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(table.as_bytes());
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    format!("r{GENERATOR_REVISION}-{:016x}", u64::from_be_bytes(head))
}

/// Weeks of order history per product.
pub const WEEKS: usize = 52;

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    /// Number of products.
    pub products: u32,
    /// Seed of the random generator.
    pub seed: u64,
    /// The day the catalogue describes: the newest weekly record is the last full week before it.
    pub as_of: NaiveDate,
    /// Whether to store the demo API keys (`demo-free`, `demo-pro`, `demo-ultra`).
    pub demo_keys: bool,
}

/// The demo keys, one per tier.
pub const DEMO_KEYS: [(&str, Tier); 3] = [
    ("demo-free", Tier::Free),
    ("demo-pro", Tier::Pro),
    ("demo-ultra", Tier::Ultra),
];

/// Where the generator is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Writing products and variants.
    Products,
    /// Ranking and writing weekly orders.
    Orders,
    /// Building indexes.
    Indexes,
}

/// A progress report: `done` of `total` units of `phase`.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// The current phase.
    pub phase: Phase,
    /// Units done.
    pub done: u64,
    /// Units in all.
    pub total: u64,
}

/// What was written.
#[derive(Debug, Clone, Copy)]
pub struct GenerateReport {
    /// Products written.
    pub products: u64,
    /// Variants written.
    pub variants: u64,
    /// Weekly order records written.
    pub weekly_orders: u64,
}

/// The Monday of the newest full week before `as_of`.
pub fn newest_week_start(as_of: NaiveDate) -> NaiveDate {
    let monday = as_of - Duration::days(i64::from(as_of.weekday().num_days_from_monday()));
    monday - Duration::days(7)
}

/// Generates a catalogue at `out` (replacing any file there only once the new one is complete).
pub fn generate(
    options: &GenerateOptions,
    out: &Path,
    progress: &mut dyn FnMut(Progress),
) -> Result<GenerateReport, CatalogueError> {
    super::import::write_atomically(out, |partial| generate_into(options, partial, progress))
}

fn generate_into(
    options: &GenerateOptions,
    path: &Path,
    progress: &mut dyn FnMut(Progress),
) -> Result<GenerateReport, CatalogueError> {
    let mut conn = Connection::open(path)?;
    // The file is private until renamed, and flushed once before the rename, so durability
    // during the build buys nothing.
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144;",
    )?;
    let (tables, indexes) = super::schema_parts();
    conn.execute_batch(tables)?;

    let tx = conn.transaction()?;
    let mut generator = Generator::new(options);
    let total = u64::from(options.products);
    let mut orders: Vec<[u32; WEEKS]> = Vec::with_capacity(options.products as usize);
    let mut aovs: Vec<u32> = Vec::with_capacity(options.products as usize);
    let mut variants_written = 0u64;
    {
        let mut writer = Writer::new(&tx)?;
        for index in 0..options.products {
            let product = generator.product(index);
            variants_written += product.variants.len() as u64;
            writer.write(&product)?;
            orders.push(product.weekly_orders);
            aovs.push(product.aov_cents);
            if index % 1024 == 0 {
                progress(Progress {
                    phase: Phase::Products,
                    done: u64::from(index),
                    total,
                });
            }
        }
    }
    progress(Progress {
        phase: Phase::Products,
        done: total,
        total,
    });

    let positions = weekly_positions(&orders, progress);
    write_orders(&tx, &generator, &orders, &aovs, &positions)?;

    // Trending: the top 2% by recent orders.
    tx.execute(
        "UPDATE products SET trending = 1 WHERE pk IN
           (SELECT pk FROM products ORDER BY popularity DESC, pk LIMIT ?1)",
        [i64::from(options.products / 50)],
    )?;
    if options.demo_keys {
        for (key, tier) in DEMO_KEYS {
            keys::insert(&tx, key, tier, "demo", &options.as_of.to_string())?;
        }
    }
    super::write_meta(
        &tx,
        &[
            (
                "kind",
                if options.demo_keys {
                    "demo"
                } else {
                    "generated"
                },
            ),
            (
                "generator",
                concat!("solescope ", env!("CARGO_PKG_VERSION")),
            ),
            (GENERATOR_VERSION_KEY, generator_version()),
            ("seed", &options.seed.to_string()),
            ("as_of", &options.as_of.to_string()),
            (
                "built_at",
                &chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            ),
        ],
    )?;
    progress(Progress {
        phase: Phase::Indexes,
        done: 0,
        total: 1,
    });
    tx.execute_batch(indexes)?;
    tx.commit()?;
    conn.pragma_update(None, "user_version", super::SCHEMA_VERSION)?;
    // The planner's statistics from a sample of each index (SQLite's recommended limit): a full
    // ANALYZE reads every row of every index, tens of seconds at a million products.
    conn.execute_batch("PRAGMA journal_mode = DELETE; PRAGMA analysis_limit = 1000; ANALYZE;")?;
    progress(Progress {
        phase: Phase::Indexes,
        done: 1,
        total: 1,
    });
    Ok(GenerateReport {
        products: total,
        variants: variants_written,
        weekly_orders: total * WEEKS as u64,
    })
}

/// Seconds since the Unix epoch at 00:00:00Z of `day`, as `weekly_orders.week_start` stores it.
pub fn week_start_seconds(day: NaiveDate) -> i64 {
    day.and_hms_opt(0, 0, 0)
        .map_or(0, |time| time.and_utc().timestamp())
}

/// Ranks every product in every week: 1 = most orders, ties broken by catalogue order.
fn weekly_positions(
    orders: &[[u32; WEEKS]],
    progress: &mut dyn FnMut(Progress),
) -> Vec<[u32; WEEKS]> {
    let mut positions = vec![[0u32; WEEKS]; orders.len()];
    let mut ranked: Vec<u32> = (0..orders.len() as u32).collect();
    for week in 0..WEEKS {
        ranked.sort_unstable_by_key(|&i| (std::cmp::Reverse(orders[i as usize][week]), i));
        for (rank, &i) in ranked.iter().enumerate() {
            positions[i as usize][week] = rank as u32 + 1;
        }
        progress(Progress {
            phase: Phase::Orders,
            done: week as u64,
            total: WEEKS as u64,
        });
    }
    positions
}

fn write_orders(
    tx: &rusqlite::Transaction<'_>,
    generator: &Generator,
    orders: &[[u32; WEEKS]],
    aovs: &[u32],
    positions: &[[u32; WEEKS]],
) -> Result<(), CatalogueError> {
    // One statement per product (52 rows) keeps the per-statement overhead off the hot path.
    let row = "(?,?,?,?,?)";
    let sql = format!(
        "INSERT INTO weekly_orders (product_pk, week_start, position, orders, aov_cents) VALUES {}",
        vec![row; WEEKS].join(",")
    );
    let mut statement = tx.prepare(&sql)?;
    let weeks: Vec<i64> = (0..WEEKS)
        .map(|w| week_start_seconds(generator.newest_week - Duration::weeks(w as i64)))
        .collect();
    let mut values: Vec<rusqlite::types::Value> = Vec::with_capacity(WEEKS * 5);
    for (i, product_orders) in orders.iter().enumerate() {
        values.clear();
        let pk = i as i64 + 1;
        let mut noise =
            ChaCha8Rng::seed_from_u64(generator.seed ^ (pk as u64).wrapping_mul(0x9E37));
        for week in 0..WEEKS {
            let count = product_orders[week];
            // Weeks without orders have no order value.
            let aov = if count == 0 {
                0
            } else {
                let wobble: f64 = noise.random_range(0.95..1.05);
                (f64::from(aovs[i]) * wobble).round() as i64
            };
            values.push(pk.into());
            values.push(weeks[week].into());
            values.push(i64::from(positions[i][week]).into());
            values.push(i64::from(count).into());
            values.push(aov.into());
        }
        statement.execute(rusqlite::params_from_iter(values.iter()))?;
    }
    Ok(())
}

/// Upper case without dashes, spaces and slashes: how users type codes (`dz5485 612`).
pub fn normalize_sku(sku: &str) -> String {
    sku.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Weekday;

    #[test]
    fn the_generator_version_changes_with_the_releases_table() {
        assert_eq!(generator_version(), version_for(releases::TABLE));
        let edited = releases::TABLE.replacen("\t180\t", "\t185\t", 1);
        assert_ne!(edited, releases::TABLE);
        assert_ne!(version_for(&edited), generator_version());
        assert!(generator_version().starts_with(&format!("r{GENERATOR_REVISION}-")));
    }

    #[test]
    fn slugs_are_kebab_case_ascii() {
        assert_eq!(
            slugify("Air Jordan 1 Retro High OG 'Chicago' (2022)"),
            "air-jordan-1-retro-high-og-chicago-2022"
        );
        assert_eq!(
            slugify("SB Dunk Low 'Ben & Jerry's'"),
            "sb-dunk-low-ben-and-jerrys"
        );
    }

    #[test]
    fn sku_normalization_ignores_dash_space_case() {
        assert_eq!(normalize_sku("dz5485 612"), "DZ5485612");
        assert_eq!(normalize_sku("DZ5485-612"), "DZ5485612");
    }

    #[test]
    fn newest_week_is_a_full_week_before_as_of() {
        let as_of = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(); // a Sunday
        let newest = newest_week_start(as_of);
        assert_eq!(newest.weekday(), Weekday::Mon);
        assert_eq!(newest.to_string(), "2026-11-09");
    }
}
