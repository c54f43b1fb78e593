//! `solescope catalogue stats`: the figures a data person checks first in a catalogue: what it
//! holds by brand and age group, how many titles repeat, premiums over retail (all products,
//! general releases, collaborations and limited releases), kids' prices against the adult pair
//! of the same colourway, the men's size curve, weekly orders, how many real releases it
//! carries, and how the famous pairs (the real releases the 2023 marketplace snapshot prices)
//! compare with the snapshot.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use rusqlite::Connection;

use super::CatalogueError;
use super::generate::releases::{self, family_title};
use super::generate::snapshot;

/// Nearest-rank percentiles of a sample.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Percentiles {
    /// Sample size.
    pub count: usize,
    /// 10th percentile.
    pub p10: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest value.
    pub max: f64,
}

impl Percentiles {
    /// Percentiles of `values` (any order); all zero for an empty sample.
    pub fn of(mut values: Vec<f64>) -> Self {
        if values.is_empty() {
            return Self::default();
        }
        values.sort_by(f64::total_cmp);
        let at = |q: f64| {
            let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
            values[rank - 1]
        };
        Self {
            count: values.len(),
            p10: at(0.10),
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            max: values[values.len() - 1],
        }
    }
}

/// Premiums (average resale over retail) of one group of products with a known retail.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Premiums {
    /// The distribution.
    pub spread: Percentiles,
    /// Share trading below retail.
    pub below_retail: f64,
    /// Share above 3x retail.
    pub above_3x: f64,
    /// Share above 5x retail.
    pub above_5x: f64,
}

impl Premiums {
    fn of(values: Vec<f64>) -> Self {
        let n = values.len().max(1) as f64;
        let share = |f: &dyn Fn(f64) -> bool| values.iter().filter(|&&v| f(v)).count() as f64 / n;
        Self {
            below_retail: share(&|v| v < 1.0),
            above_3x: share(&|v| v > 3.0),
            above_5x: share(&|v| v > 5.0),
            spread: Percentiles::of(values),
        }
    }
}

/// Everything `catalogue stats` prints.
#[derive(Debug, Clone, Default)]
pub struct CatalogueStats {
    /// Products in the file.
    pub products: usize,
    /// Products per brand, most first.
    pub by_brand: Vec<(String, usize)>,
    /// Products per age group, most first.
    pub by_age_group: Vec<(String, usize)>,
    /// Share of products whose exact title another product also carries.
    pub duplicated_titles: f64,
    /// The most products sharing one title.
    pub most_per_title: usize,
    /// Premiums of every product with a known retail.
    pub premium_all: Premiums,
    /// Premiums of general releases (neither labelled `collaboration` nor `limited`).
    pub premium_general: Premiums,
    /// Premiums of collaborations and limited releases.
    pub premium_collab: Premiums,
    /// Kids' average price over the men's pair of the same colourway.
    pub kids_to_adult: Percentiles,
    /// Share of those kids' pairs dearer than the men's pair.
    pub kids_above_adult: f64,
    /// Men's pairs: smallest size over the middle size, averaged.
    pub smallest_to_middle: f64,
    /// Men's pairs: largest size over the middle size, averaged.
    pub largest_to_middle: f64,
    /// Share of men's pairs whose cheapest size is in the middle third of the run.
    pub cheapest_in_middle: f64,
    /// Orders per product in the newest week.
    pub newest_week_orders: Percentiles,
    /// Each product's busiest week.
    pub peak_week_orders: Percentiles,
    /// Share of products whose newest-week rank disagrees with their orders (must be 0).
    pub rank_inconsistent: f64,
    /// Products that are real releases (style code and title of the releases table).
    pub real_products: usize,
    /// Releases in the table.
    pub real_releases: usize,
    /// Real products that carry every fact a collector checks: USD retail, release date and
    /// colourway.
    pub real_complete: usize,
    /// Real products the 2023 snapshot prices: their average price over the snapshot's average
    /// sale.
    pub famous_to_snapshot: Percentiles,
}

/// What the figures need of one product.
struct Row {
    title: String,
    size_system: String,
    avg: f64,
    retail: f64,
    special: bool,
}

/// Computes the figures of the catalogue behind `conn`.
pub fn compute(conn: &Connection) -> Result<CatalogueStats, CatalogueError> {
    let mut stats = CatalogueStats::default();
    let real: HashSet<(&str, &str)> = releases::releases()
        .iter()
        .map(|r| (r.style_code, r.title))
        .collect();
    stats.real_releases = real.len();

    let mut brands: HashMap<String, usize> = HashMap::new();
    let mut ages: HashMap<String, usize> = HashMap::new();
    let mut titles: HashMap<String, usize> = HashMap::new();
    let mut rows = Vec::new();
    let mut famous = Vec::new();
    let mut statement = conn.prepare(
        "SELECT title, brand, age_group, size_system, sku, retail_usd_cents, avg_usd_cents, labels,
                release_date != '' AND color != ''
         FROM products",
    )?;
    let mut query = statement.query([])?;
    while let Some(row) = query.next()? {
        let title: String = row.get(0)?;
        let brand: String = row.get(1)?;
        let age: String = row.get(2)?;
        let sku: String = row.get(4)?;
        let labels: String = row.get(7)?;
        *brands.entry(brand).or_default() += 1;
        *ages.entry(age).or_default() += 1;
        *titles.entry(title.clone()).or_default() += 1;
        if real.contains(&(sku.as_str(), title.as_str())) {
            stats.real_products += 1;
            let dated_and_coloured: bool = row.get(8)?;
            if dated_and_coloured && row.get::<_, i64>(5)? > 0 {
                stats.real_complete += 1;
            }
            if let Some(level) = snapshot::level_of(&sku) {
                let average_usd = row.get::<_, i64>(6)? as f64 / 100.0;
                famous.push(average_usd / level.average_sale_usd);
            }
        }
        rows.push(Row {
            title,
            size_system: row.get(3)?,
            avg: row.get::<_, i64>(6)? as f64,
            retail: row.get::<_, i64>(5)? as f64,
            special: labels.contains("\"collaboration\"") || labels.contains("\"limited\""),
        });
    }
    stats.products = rows.len();
    stats.famous_to_snapshot = Percentiles::of(famous);
    stats.by_brand = most_first(brands);
    stats.by_age_group = most_first(ages);
    let shared: usize = titles.values().filter(|&&n| n > 1).sum();
    stats.duplicated_titles = shared as f64 / rows.len().max(1) as f64;
    stats.most_per_title = titles.values().copied().max().unwrap_or(0);

    let premium = |row: &Row| (row.retail > 0.0).then(|| row.avg / row.retail);
    stats.premium_all = Premiums::of(rows.iter().filter_map(premium).collect());
    stats.premium_general = Premiums::of(
        rows.iter()
            .filter(|r| !r.special)
            .filter_map(premium)
            .collect(),
    );
    stats.premium_collab = Premiums::of(
        rows.iter()
            .filter(|r| r.special)
            .filter_map(premium)
            .collect(),
    );

    let men: HashMap<&str, f64> = rows
        .iter()
        .filter(|r| r.size_system == "US M")
        .map(|r| (r.title.as_str(), r.avg))
        .collect();
    let ratios: Vec<f64> = rows
        .iter()
        .filter(|r| matches!(r.size_system.as_str(), "US GS" | "US PS" | "US TD"))
        .filter_map(|r| {
            let adult = men.get(family_title(&r.title))?;
            (*adult > 0.0).then(|| r.avg / adult)
        })
        .collect();
    stats.kids_above_adult =
        ratios.iter().filter(|&&r| r > 1.0).count() as f64 / ratios.len().max(1) as f64;
    stats.kids_to_adult = Percentiles::of(ratios);

    size_curve(conn, &mut stats)?;
    weekly_orders(conn, &mut stats)?;
    Ok(stats)
}

fn most_first(counts: HashMap<String, usize>) -> Vec<(String, usize)> {
    let mut list: Vec<(String, usize)> = counts.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    list
}

fn size_curve(conn: &Connection, stats: &mut CatalogueStats) -> Result<(), CatalogueError> {
    let mut statement = conn.prepare(
        "SELECT v.product_pk, v.price_usd_cents FROM variants v
         JOIN products p ON p.pk = v.product_pk
         WHERE p.size_system = 'US M' ORDER BY v.product_pk, v.position",
    )?;
    let mut runs: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    let mut query = statement.query([])?;
    while let Some(row) = query.next()? {
        runs.entry(row.get(0)?)
            .or_default()
            .push(row.get::<_, i64>(1)? as f64);
    }
    let (mut small, mut large, mut middle_cheapest, mut n) = (0.0, 0.0, 0usize, 0usize);
    for prices in runs.values().filter(|p| p.len() >= 3) {
        let len = prices.len();
        let mid = prices[len / 2];
        if mid <= 0.0 {
            continue;
        }
        n += 1;
        small += prices[0] / mid;
        large += prices[len - 1] / mid;
        let cheapest = prices
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |(i, _)| i);
        if (len / 3..len - len / 3).contains(&cheapest) {
            middle_cheapest += 1;
        }
    }
    let n_f = n.max(1) as f64;
    stats.smallest_to_middle = small / n_f;
    stats.largest_to_middle = large / n_f;
    stats.cheapest_in_middle = middle_cheapest as f64 / n_f;
    Ok(())
}

fn weekly_orders(conn: &Connection, stats: &mut CatalogueStats) -> Result<(), CatalogueError> {
    let newest: Option<i64> =
        conn.query_row("SELECT max(week_start) FROM weekly_orders", [], |row| {
            row.get(0)
        })?;
    let Some(newest) = newest else {
        return Ok(());
    };
    let mut statement =
        conn.prepare("SELECT product_pk, week_start, orders, position FROM weekly_orders")?;
    let mut peaks: HashMap<i64, f64> = HashMap::new();
    let mut latest: Vec<(i64, i64)> = Vec::new();
    let mut query = statement.query([])?;
    while let Some(row) = query.next()? {
        let pk: i64 = row.get(0)?;
        let orders: i64 = row.get(2)?;
        let peak = peaks.entry(pk).or_default();
        *peak = peak.max(orders as f64);
        if row.get::<_, i64>(1)? == newest {
            latest.push((orders, row.get(3)?));
        }
    }
    stats.newest_week_orders = Percentiles::of(latest.iter().map(|&(o, _)| o as f64).collect());
    stats.peak_week_orders = Percentiles::of(peaks.into_values().collect());
    // Ranked by position, orders never increase.
    latest.sort_by_key(|&(_, position)| position);
    let inconsistent = latest.windows(2).filter(|w| w[1].0 > w[0].0).count();
    stats.rank_inconsistent = inconsistent as f64 / latest.len().max(1) as f64;
    Ok(())
}

impl fmt::Display for CatalogueStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |items: &[(String, usize)]| {
            items
                .iter()
                .map(|(name, n)| format!("{name} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(f, "products: {}", self.products)?;
        writeln!(f, "by brand: {}", list(&self.by_brand))?;
        writeln!(f, "by age group: {}", list(&self.by_age_group))?;
        writeln!(
            f,
            "real products: {} of the {} real releases known; {} with USD retail, release date and colourway",
            self.real_products, self.real_releases, self.real_complete
        )?;
        let famous = self.famous_to_snapshot;
        writeln!(
            f,
            "famous pairs vs the 2023 snapshot ({} real releases it prices): average price over \
             the snapshot's average sale p10 {:.2}, median {:.2}, p90 {:.2}",
            famous.count, famous.p10, famous.p50, famous.p90
        )?;
        writeln!(
            f,
            "duplicated titles: {:.2}% of products (at most {} products share one title)",
            self.duplicated_titles * 100.0,
            self.most_per_title
        )?;
        for (name, p) in [
            ("all products", &self.premium_all),
            ("general releases", &self.premium_general),
            ("collaborations and limited", &self.premium_collab),
        ] {
            let s = p.spread;
            writeln!(
                f,
                "premium over retail, {name} ({}): p10 {:.2}x, median {:.2}x, p90 {:.2}x, \
                 p99 {:.2}x, max {:.2}x; below retail {:.1}%, above 3x {:.2}%, above 5x {:.2}%",
                s.count,
                s.p10,
                s.p50,
                s.p90,
                s.p99,
                s.max,
                p.below_retail * 100.0,
                p.above_3x * 100.0,
                p.above_5x * 100.0
            )?;
        }
        let k = self.kids_to_adult;
        writeln!(
            f,
            "kids vs men's pair of the same colourway ({} pairs): p10 {:.2}, median {:.2}, \
             p90 {:.2}; dearer than the men's pair {:.1}%",
            k.count,
            k.p10,
            k.p50,
            k.p90,
            self.kids_above_adult * 100.0
        )?;
        writeln!(
            f,
            "men's size curve: smallest size {:.2}x and largest {:.2}x the middle size; \
             cheapest size in the middle third {:.1}%",
            self.smallest_to_middle,
            self.largest_to_middle,
            self.cheapest_in_middle * 100.0
        )?;
        for (name, p) in [
            ("newest week", &self.newest_week_orders),
            ("busiest week per product", &self.peak_week_orders),
        ] {
            writeln!(
                f,
                "weekly orders, {name}: p10 {}, median {}, p90 {}, p99 {}, max {}",
                p.p10, p.p50, p.p90, p.p99, p.max
            )?;
        }
        write!(
            f,
            "rank order disagreeing with orders: {:.2}%",
            self.rank_inconsistent * 100.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let p = Percentiles::of((1..=100).map(f64::from).collect());
        assert_eq!(
            (p.p10, p.p50, p.p90, p.p99, p.max),
            (10.0, 50.0, 90.0, 99.0, 100.0)
        );
        assert_eq!(Percentiles::of(Vec::new()), Percentiles::default());
    }
}
