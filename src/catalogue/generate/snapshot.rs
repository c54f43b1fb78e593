//! The famous pairs at the market's level: the real releases that the 2023 marketplace snapshot
//! prices (`snapshot_levels.tsv`, compiled in, derived by [`super::snapshot_match`]) take its
//! average sale price, its spread between sizes and its sales volume, instead of the premium,
//! size curve and orders the market model would draw for them.
//!
//! - Average price: the snapshot's average sale, carried to the catalogue's as-of date *flat*
//!   ([`SnapshotLevel::average_sale_usd_at`]): no source gives a drift per year for these pairs.
//! - Spread between sizes: the snapshot's lowest ask is its cheapest size; the run's usual curve
//!   (smiling for men's sizes) is deepened or flattened so that its cheapest size sits at the
//!   lowest ask over the average sale, kept between [`CHEAPEST_SIZE_SHARE_MIN`] and
//!   [`CHEAPEST_SIZE_SHARE_MAX`] (an ask above the average, or far below it, says more about the
//!   day of the scrape than about the sizes).
//! - Sales volume: the snapshot's sales in its period, read as a week (as the market model reads
//!   the snapshot), every week, flat, with the market's seasons and the release week's rush.
//!
//! Kids' versions the snapshot does not price, of a men's pair it does, follow that pair's level
//! as the model's kids' pairs follow theirs. Their prices and orders are drawn from a random
//! stream of their own, so every other product of a catalogue is the same as before.

use std::collections::HashMap;
use std::sync::LazyLock;

use chrono::NaiveDate;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::generated::GeneratedProduct;
use super::market;
use super::releases::{ReleaseKind, data_lines};

/// The table, tab-separated, one row per matched release.
pub const TABLE: &str = include_str!("snapshot_levels.tsv");

/// The cheapest size never sits lower than this share of the run's average price.
pub const CHEAPEST_SIZE_SHARE_MIN: f64 = 0.75;
/// Nor higher than this (every run has some spread between its sizes).
pub const CHEAPEST_SIZE_SHARE_MAX: f64 = 0.97;

/// The newest release date the snapshot lists (its header in `snapshot_levels.tsv` says so):
/// every pair it prices was out by then, whatever the release's own (maybe unknown) date.
pub fn out_by() -> NaiveDate {
    NaiveDate::from_ymd_opt(2023, 4, 22).unwrap_or(NaiveDate::MIN)
}

/// The snapshot's figures for one real release.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotLevel {
    /// The release's style code.
    pub style_code: &'static str,
    /// How it was matched (`title` or `date`, see [`super::snapshot_match`]).
    pub matched_by: &'static str,
    /// The title the snapshot lists it under.
    pub snapshot_title: &'static str,
    /// Average sale price in USD (spring 2023).
    pub average_sale_usd: f64,
    /// Lowest ask in USD: the cheapest size on offer.
    pub lowest_ask_usd: f64,
    /// Sales in the period the snapshot recorded.
    pub sales_in_period: f64,
}

impl SnapshotLevel {
    /// The average sale price at `as_of`: flat, the snapshot's own figure at any date.
    pub fn average_sale_usd_at(&self, _as_of: NaiveDate) -> f64 {
        self.average_sale_usd
    }

    /// The cheapest size's price over the run's average price.
    pub fn cheapest_size_share(&self) -> f64 {
        (self.lowest_ask_usd / self.average_sale_usd)
            .clamp(CHEAPEST_SIZE_SHARE_MIN, CHEAPEST_SIZE_SHARE_MAX)
    }
}

/// Every level of the table, in table order.
pub fn levels() -> &'static [SnapshotLevel] {
    static LEVELS: LazyLock<Vec<SnapshotLevel>> =
        LazyLock::new(|| data_lines(TABLE).filter_map(parse_row).collect());
    &LEVELS
}

/// The level of the release with `style_code`, when the snapshot prices it.
pub fn level_of(style_code: &str) -> Option<&'static SnapshotLevel> {
    static BY_CODE: LazyLock<HashMap<&'static str, &'static SnapshotLevel>> =
        LazyLock::new(|| levels().iter().map(|l| (l.style_code, l)).collect());
    BY_CODE.get(style_code).copied()
}

/// The table's data rows (not comments), for checking that every row parsed.
pub fn table_rows() -> usize {
    data_lines(TABLE).count()
}

fn parse_row(line: &'static str) -> Option<SnapshotLevel> {
    let cells: Vec<&'static str> = line.split('\t').collect();
    let [code, rule, title, _rows, average, lowest, sales] = cells.as_slice() else {
        return None;
    };
    let level = SnapshotLevel {
        style_code: code,
        matched_by: rule,
        snapshot_title: title,
        average_sale_usd: average.parse().ok()?,
        lowest_ask_usd: lowest.parse().ok()?,
        sales_in_period: sales.parse().ok()?,
    };
    (level.average_sale_usd > 0.0 && level.lowest_ask_usd >= 0.0 && level.sales_in_period >= 0.0)
        .then_some(level)
}

/// What a real release follows instead of the model.
#[derive(Debug, Clone, Copy)]
pub(super) enum Follow {
    /// The snapshot prices it: its level.
    Snapshot(&'static SnapshotLevel),
    /// A kids' pair the snapshot does not price, whose men's pair it does at this premium over
    /// retail: the kids' pair follows that premium as the model's kids' pairs follow theirs.
    AdultAtSnapshot(f64),
}

/// What the market facts of a real release need besides what it follows.
pub(super) struct Market {
    /// How it was sold.
    pub kind: ReleaseKind,
    /// The retail its premium is measured against (an estimate when unknown).
    pub reference_usd: f64,
    /// Its release date (an estimate when unknown).
    pub release_date: NaiveDate,
    /// The newest week of the catalogue.
    pub newest_week: NaiveDate,
    /// The catalogue's as-of date.
    pub as_of: NaiveDate,
    /// USD to EUR before the product's own wobble.
    pub eur_per_usd: f64,
}

/// Re-prices `product` (the real release at `index` of a catalogue of `seed`) after what it
/// follows. The draws come from a stream of their own: the catalogue's main stream drew for it as
/// for any real release, so every other product stays the same.
pub(super) fn follow(
    product: &mut GeneratedProduct,
    follows: Follow,
    market: &Market,
    (seed, index): (u64, u32),
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(u64::from(index) + 1);
    let len = product.variants.len();
    match follows {
        Follow::Snapshot(level) => {
            let curve =
                market::size_curve_with_cheapest(product.run, len, level.cheapest_size_share());
            let average = level.average_sale_usd_at(market.as_of);
            price_sizes(product, average, &curve, market.eur_per_usd, &mut rng);
            product.weekly_orders = market::weekly_orders_at_volume(
                &mut rng,
                market.newest_week,
                level.sales_in_period,
                market.kind,
                // An unknown date was estimated: the snapshot knows the pair was out.
                market.release_date.min(out_by()),
            );
        }
        Follow::AdultAtSnapshot(adult) => {
            let premium = market::kids_premium(adult, market.kind, &mut rng);
            let curve = market::size_curve(product.run, len);
            let average = market.reference_usd * premium;
            price_sizes(product, average, &curve, market.eur_per_usd, &mut rng);
        }
    }
}

/// Prices every size of `product` around `average_usd` along `curve`, and its order value.
fn price_sizes(
    product: &mut GeneratedProduct,
    average_usd: f64,
    curve: &[f64],
    eur_per_usd: f64,
    rng: &mut ChaCha8Rng,
) {
    let eur_factor = eur_per_usd * rng.random_range(0.97..1.08);
    for (variant, lift) in product.variants.iter_mut().zip(curve) {
        let noise = 1.0 + rng.random_range(-0.02..0.02);
        let usd = (average_usd * lift * noise).round().max(25.0);
        variant.price_usd_cents = usd as i64 * 100;
        variant.price_eur_cents = (usd * eur_factor).round() as i64 * 100;
    }
    let count = product.variants.len().max(1) as i64;
    product.aov_cents = (product
        .variants
        .iter()
        .map(|v| v.price_usd_cents)
        .sum::<i64>()
        / count) as u32;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses_and_codes_are_real_and_unique() {
        assert_eq!(levels().len(), table_rows());
        assert!(levels().len() >= 100, "{}", levels().len());
        let codes: std::collections::HashSet<_> = levels().iter().map(|l| l.style_code).collect();
        assert_eq!(codes.len(), levels().len());
        for level in levels() {
            assert!(
                super::super::releases::releases()
                    .iter()
                    .any(|r| r.style_code == level.style_code),
                "{}",
                level.style_code
            );
        }
    }

    #[test]
    fn out_by_is_the_newest_release_the_table_header_names() {
        assert!(TABLE.contains(&format!("({})", out_by())), "{}", out_by());
    }

    #[test]
    fn the_level_is_flat_over_time_and_the_spread_bounded() {
        let black_cat = level_of("CU1110-010").unwrap();
        assert_eq!(black_cat.matched_by, "title");
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        for as_of in [day(2023, 4, 1), day(2026, 11, 23)] {
            let drift = black_cat.average_sale_usd_at(as_of) - black_cat.average_sale_usd;
            assert!(drift.abs() < 1e-9, "{as_of}: {drift}");
        }
        for level in levels() {
            let share = level.cheapest_size_share();
            assert!((CHEAPEST_SIZE_SHARE_MIN..=CHEAPEST_SIZE_SHARE_MAX).contains(&share));
        }
    }
}
