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
mod generated;
mod market;
mod product;
pub mod releases;
pub mod snapshot;
pub mod snapshot_match;
mod writer;

use std::path::Path;

use chrono::{Datelike, Duration, NaiveDate};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::Connection;

use self::product::Generator;
pub use self::product::slugify;
use self::writer::{ProductRow, Writer};
use super::{CatalogueError, gtin, keys};
use crate::model::Tier;

/// The generator's revision, bumped by hand whenever the same options would give different
/// data (a change to the market model, the silhouettes, the titles). Changes to the releases
/// table or to the snapshot's levels need no bump: [`generator_version`] carries their digest.
/// 3: the real releases the 2023 snapshot prices take its level (`snapshot`).
pub const GENERATOR_REVISION: u32 = 3;

/// The `meta` key under which a catalogue records the [`generator_version`] that built it.
pub const GENERATOR_VERSION_KEY: &str = "generator_version";

/// The version of the generator's output: its revision and a digest of the releases table and
/// the snapshot's levels (`r3-1a2b3c4d5e6f7a8b`). A demo catalogue built by another version is
/// rebuilt.
pub fn generator_version() -> &'static str {
    static VERSION: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| version_for(releases::TABLE, snapshot::TABLE));
    &VERSION
}

/// The generator version with `table` as the releases table and `levels` as the snapshot's.
fn version_for(table: &str, levels: &str) -> String {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    hasher.update(table.as_bytes());
    // Length-prefixed, so moving text from one table to the other changes the digest too.
    hasher.update((levels.len() as u64).to_le_bytes());
    hasher.update(levels.as_bytes());
    let digest = hasher.finalize();
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    format!("r{GENERATOR_REVISION}-{:016x}", u64::from_be_bytes(head))
}

/// Weeks of order history per product.
pub const WEEKS: usize = 52;

/// Products per batch handed from the generating thread to the writing thread.
const BATCH: usize = 512;
/// Batches that may wait in the channel: bounds the memory the generator can run ahead with.
const BATCHES_IN_FLIGHT: usize = 8;

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
    super::atomic::write_atomically(out, |partial| generate_into(options, partial, progress))
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
    let total = u64::from(options.products);
    let mut orders: Vec<[u32; WEEKS]> = Vec::with_capacity(options.products as usize);
    let mut aovs: Vec<u32> = Vec::with_capacity(options.products as usize);
    let mut variants_written = 0u64;
    let started = std::time::Instant::now();
    // Two threads: one invents the products (and works out every derived column), this one
    // writes them. The channel is bounded, so at most a few batches wait in memory.
    std::thread::scope(|scope| -> Result<(), CatalogueError> {
        let (sender, receiver) =
            std::sync::mpsc::sync_channel::<Vec<ProductRow>>(BATCHES_IN_FLIGHT);
        let producer = scope.spawn(move || {
            let mut generator = Generator::new(options);
            let mut batch = Vec::with_capacity(BATCH);
            for index in 0..options.products {
                batch.push(ProductRow::new(generator.product(index)));
                if batch.len() == BATCH {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    // The writer stopped (an error): nothing more to do.
                    if sender.send(full).is_err() {
                        return;
                    }
                }
            }
            if !batch.is_empty() {
                let _ = sender.send(batch);
            }
        });
        let mut writer = Writer::new(&tx)?;
        let mut done = 0u64;
        // Returning early drops the receiver, which stops the producer before the scope joins it.
        for batch in receiver {
            writer.write(&batch)?;
            for row in &batch {
                variants_written += row.product.variants.len() as u64;
                orders.push(row.product.weekly_orders);
                aovs.push(row.product.aov_cents);
            }
            done += batch.len() as u64;
            progress(Progress {
                phase: Phase::Products,
                done,
                total,
            });
        }
        // A panic in the generator is a bug: raise it here as the single-threaded code did.
        producer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok(())
    })?;
    tracing::debug!(elapsed = ?started.elapsed(), "generate: products written");

    let positions = weekly_positions(&orders, progress);
    tracing::debug!(elapsed = ?started.elapsed(), "generate: weekly positions ranked");
    let newest_week = newest_week_start(options.as_of);
    write_orders(&tx, options.seed, newest_week, &orders, &aovs, &positions)?;
    drop((orders, positions));
    tracing::debug!(elapsed = ?started.elapsed(), "generate: weekly orders written");

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
    // The sorter of CREATE INDEX may use a helper thread (the generator's thread is done).
    tx.execute_batch("PRAGMA threads = 2;")?;
    tx.execute_batch(indexes)?;
    tx.commit()?;
    tracing::debug!(elapsed = ?started.elapsed(), "generate: indexes built");
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
    let most = orders.iter().flatten().copied().max().unwrap_or(0) as usize;
    // Weekly orders are small counts (the market caps a week at a few thousand), so a counting
    // sort ranks a week in one pass: linear, where sorting a million products 52 times took
    // seconds. A few lines, not worth a dependency. The comparison sort stays for any count range.
    let counting = most <= orders.len().max(1 << 16);
    let mut first_position = if counting {
        vec![0u32; most + 1]
    } else {
        Vec::new()
    };
    let mut ranked: Vec<u32> = if counting {
        Vec::new()
    } else {
        (0..orders.len() as u32).collect()
    };
    for week in 0..WEEKS {
        if counting {
            first_position.fill(0);
            for product in orders {
                first_position[product[week] as usize] += 1;
            }
            // Turn the counts into the position before the first product of each count, the
            // largest count first.
            let mut before = 0u32;
            for slot in first_position.iter_mut().rev() {
                let count = *slot;
                *slot = before;
                before += count;
            }
            // In catalogue order, so ties go to the lower pk.
            for (product, position) in orders.iter().zip(positions.iter_mut()) {
                let slot = &mut first_position[product[week] as usize];
                *slot += 1;
                position[week] = *slot;
            }
        } else {
            ranked.sort_unstable_by_key(|&i| (std::cmp::Reverse(orders[i as usize][week]), i));
            for (rank, &i) in ranked.iter().enumerate() {
                positions[i as usize][week] = rank as u32 + 1;
            }
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
    seed: u64,
    newest_week: NaiveDate,
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
        .map(|w| week_start_seconds(newest_week - Duration::weeks(w as i64)))
        .collect();
    let mut aov = [0i64; WEEKS];
    for (i, product_orders) in orders.iter().enumerate() {
        let pk = i as i64 + 1;
        let mut noise = ChaCha8Rng::seed_from_u64(seed ^ (pk as u64).wrapping_mul(0x9E37));
        // The noise is drawn newest week first, as it always was.
        for (week, slot) in aov.iter_mut().enumerate() {
            let count = product_orders[week];
            // Weeks without orders have no order value.
            *slot = if count == 0 {
                0
            } else {
                let wobble: f64 = noise.random_range(0.95..1.05);
                (f64::from(aovs[i]) * wobble).round() as i64
            };
        }
        // Rows go in oldest week first: primary-key order, so every insert appends to the
        // table's last page instead of searching the tree and splitting pages half full.
        let mut parameter = 1;
        for week in (0..WEEKS).rev() {
            let values = [
                pk,
                weeks[week],
                i64::from(positions[i][week]),
                i64::from(product_orders[week]),
                aov[week],
            ];
            for value in values {
                statement.raw_bind_parameter(parameter, value)?;
                parameter += 1;
            }
        }
        statement.raw_execute()?;
    }
    Ok(())
}

/// Upper case without dashes, spaces and slashes: how users type codes (`dz5485 612`).
pub fn normalize_sku(sku: &str) -> String {
    let mut out = String::with_capacity(sku.len());
    normalize_sku_into(sku, &mut out);
    out
}

/// [`normalize_sku`] appended to `out` (a buffer reused from product to product).
pub fn normalize_sku_into(sku: &str, out: &mut String) {
    out.extend(
        sku.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_uppercase()),
    );
}

/// Generates `products` products (seed `seed`, as of 2026-11-22, without demo keys) into a new
/// catalogue at `path`: the fixture of tests across the crate.
#[cfg(test)]
pub(crate) fn for_tests(path: &Path, products: u32, seed: u64) {
    let options = GenerateOptions {
        products,
        seed,
        as_of: NaiveDate::from_ymd_opt(2026, 11, 22).expect("a date"),
        demo_keys: false,
    };
    generate(&options, path, &mut |_| {}).expect("catalogue generated");
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Weekday;

    #[test]
    fn the_generator_version_changes_with_the_releases_table() {
        assert_eq!(
            generator_version(),
            version_for(releases::TABLE, snapshot::TABLE)
        );
        let edited = releases::TABLE.replacen("\t180\t", "\t185\t", 1);
        assert_ne!(edited, releases::TABLE);
        assert_ne!(version_for(&edited, snapshot::TABLE), generator_version());
        // So does a new level from the snapshot.
        let levels = snapshot::TABLE.replacen("\ttitle\t", "\tdate\t", 1);
        assert_ne!(levels, snapshot::TABLE);
        assert_ne!(version_for(releases::TABLE, &levels), generator_version());
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

    /// The ranking by sorting every week, as the generator first did it.
    fn ranked_by_sorting(orders: &[[u32; WEEKS]]) -> Vec<[u32; WEEKS]> {
        let mut positions = vec![[0u32; WEEKS]; orders.len()];
        for week in 0..WEEKS {
            let mut ranked: Vec<usize> = (0..orders.len()).collect();
            ranked.sort_by_key(|&i| (std::cmp::Reverse(orders[i][week]), i));
            for (rank, &i) in ranked.iter().enumerate() {
                positions[i][week] = rank as u32 + 1;
            }
        }
        positions
    }

    #[test]
    fn weekly_positions_rank_by_orders_with_ties_in_catalogue_order() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        // Few distinct counts, so most products tie with others.
        let orders: Vec<[u32; WEEKS]> = (0..2_000)
            .map(|_| std::array::from_fn(|_| rng.random_range(0..12)))
            .collect();
        let positions = weekly_positions(&orders, &mut |_| {});
        assert!(positions == ranked_by_sorting(&orders));
        // Spot check by hand: the first two products tie in week 0 when their counts match.
        let tied = [[3u32; WEEKS], [3u32; WEEKS], [7u32; WEEKS]];
        let positions = weekly_positions(&tied, &mut |_| {});
        assert_eq!(
            [positions[0][0], positions[1][0], positions[2][0]],
            [2, 3, 1]
        );
    }

    #[test]
    fn weekly_positions_handle_counts_far_beyond_the_counting_range() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let orders: Vec<[u32; WEEKS]> = (0..500)
            .map(|_| std::array::from_fn(|_| rng.random_range(0..4) * (u32::MAX / 4)))
            .collect();
        assert!(weekly_positions(&orders, &mut |_| {}) == ranked_by_sorting(&orders));
    }

    #[test]
    fn newest_week_is_a_full_week_before_as_of() {
        let as_of = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(); // a Sunday
        let newest = newest_week_start(as_of);
        assert_eq!(newest.weekday(), Weekday::Mon);
        assert_eq!(newest.to_string(), "2026-11-09");
    }
}
