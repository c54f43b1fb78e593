//! What the market does with a product: its premium over retail, the price of each size and
//! the orders of each week, calibrated to a public 2023 snapshot of the largest resale
//! marketplace (`shared/research/marketplace-snapshot-2023.csv`: average resale / retail median
//! 1.27x, 10th percentile 0.93x, 90th 2.04x, 99th 4.04x, above 5x for 0.6% of products; sales
//! median 25 and maximum 2,675 in the period recorded).

use chrono::{Datelike, Duration, NaiveDate};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::data::{self, SizeRun};
use super::releases::ReleaseKind;

/// Above this the model never prices a general release: only collaborations and limited releases
/// go higher (and the real releases the 2023 snapshot prices there, see `snapshot`).
pub const GENERAL_CEILING: f64 = 2.9;
/// No product trades above this multiple of retail (the snapshot's maximum was 13.9x).
const CEILING: f64 = 14.0;
/// The most orders one product takes in one week, even in its release week.
const WEEKLY_CEILING: f64 = 2_800.0;

/// The average resale price over retail for an adult pair of `kind`; `hype` is the line's
/// (1.0 for an ordinary line).
pub fn premium(kind: ReleaseKind, hype: f64, rng: &mut ChaCha8Rng) -> f64 {
    // Shifted log-normals: a floor below retail (some pairs trade under it), a long right tail.
    let value = match kind {
        ReleaseKind::General => {
            let excess = 0.36 * (hype / 1.1) * lognormal(rng, 0.0, 0.75);
            (0.86 + excess).min(GENERAL_CEILING)
        }
        ReleaseKind::Limited => 1.25 + 0.85 * lognormal(rng, 0.0, 0.6),
        ReleaseKind::Collaboration => 1.45 + 1.25 * lognormal(rng, 0.0, 0.72),
    };
    value.clamp(0.6, CEILING)
}

/// The premium of a kids' pair whose adult pair of `kind` trades at `adult` (same colourway):
/// kids' pairs follow the adult pair's hype at a fraction of it, and only rarely reach it.
pub fn kids_premium(adult: f64, kind: ReleaseKind, rng: &mut ChaCha8Rng) -> f64 {
    let premium = if rng.random_bool(0.02) {
        adult * rng.random_range(1.3..1.5)
    } else if adult > 1.0 {
        1.0 + (adult - 1.0) * rng.random_range(0.35..0.8)
    } else {
        adult * rng.random_range(0.92..1.0)
    };
    if kind == ReleaseKind::General {
        premium.min(GENERAL_CEILING)
    } else {
        premium
    }
}

/// The premium of a kids' pair with no adult pair in the catalogue.
pub fn lone_kids_premium(rng: &mut ChaCha8Rng) -> f64 {
    (0.9 + 0.22 * lognormal(rng, 0.0, 0.6)).min(GENERAL_CEILING)
}

/// Retail of a run relative to the men's pair of the same colourway.
pub fn run_retail_factor(run: SizeRun) -> f64 {
    match run {
        SizeRun::Men | SizeRun::Women => 1.0,
        SizeRun::GradeSchool => 0.72,
        SizeRun::PreSchool => 0.58,
        SizeRun::Toddler => 0.45,
    }
}

/// Price of size `position` of a run of `len` relative to the run's average. Men's runs smile:
/// the smallest and the largest sizes are scarce and dearer, the middle sizes sell most and are
/// cheapest. Other runs are flatter.
pub fn size_curve(run: SizeRun, len: usize) -> Vec<f64> {
    curve(curve_lifts(run), len)
}

/// The run's curve deepened or flattened (the same shape) so that its cheapest size sits at
/// `cheapest_share` of the run's average price.
pub fn size_curve_with_cheapest(run: SizeRun, len: usize, cheapest_share: f64) -> Vec<f64> {
    let (low, high) = curve_lifts(run);
    let raw = raw_curve((low, high), len);
    // Scaling the lifts by `scale` makes the raw cheapest size 1 + scale * a and the raw mean
    // 1 + scale * b (the cheapest size stays the same one); their ratio is the share to reach.
    let a = raw.iter().copied().fold(f64::INFINITY, f64::min) - 1.0;
    let b = raw.iter().sum::<f64>() / raw.len().max(1) as f64 - 1.0;
    let share = cheapest_share.clamp(0.05, 1.0);
    let denominator = share * b - a;
    if len < 3 || denominator <= f64::EPSILON {
        return curve((low, high), len);
    }
    let scale = (1.0 - share) / denominator;
    curve((low * scale, high * scale), len)
}

/// How much dearer the smallest and the largest sizes of a run are than the middle one, raw.
fn curve_lifts(run: SizeRun) -> (f64, f64) {
    match run {
        SizeRun::Men => (0.12, 0.28),
        SizeRun::Women => (0.06, 0.1),
        _ => (0.03, 0.04),
    }
}

fn curve(lifts: (f64, f64), len: usize) -> Vec<f64> {
    let raw = raw_curve(lifts, len);
    let mean = raw.iter().sum::<f64>() / raw.len().max(1) as f64;
    raw.into_iter().map(|r| r / mean).collect()
}

fn raw_curve((low, high): (f64, f64), len: usize) -> Vec<f64> {
    let last = len.saturating_sub(1).max(1) as f64;
    (0..len)
        .map(|position| {
            // -1 at the smallest size, 0 in the middle, +1 at the largest.
            let x = 2.0 * position as f64 / last - 1.0;
            let lift = if x < 0.0 { low } else { high };
            1.0 + lift * x * x
        })
        .collect()
}

/// A resale reference price for a release whose retail is not known: what its line lists at.
pub fn reference_retail_usd(brand: &str, title: &str, run: SizeRun) -> f64 {
    let lower = title.to_ascii_lowercase();
    let base = if lower.contains("slide") || lower.contains("sandal") || lower.contains("mule") {
        65.0
    } else {
        match brand {
            "Jordan" => 190.0,
            "New Balance" | "ASICS" => 140.0,
            "Nike" => 125.0,
            _ => 110.0,
        }
    };
    base * run_retail_factor(run)
}

/// 52 weeks of orders, newest first, for a product trading at `premium` over retail.
pub fn weekly_orders(
    rng: &mut ChaCha8Rng,
    newest_week: NaiveDate,
    premium: f64,
    kind: ReleaseKind,
    run: SizeRun,
    release: NaiveDate,
) -> [u32; super::WEEKS] {
    // The long tail: one product in eight barely trades at all.
    let mut base = if rng.random_bool(0.12) {
        rng.random_range(0.0..0.6)
    } else {
        lognormal(rng, 4.0f64.ln(), 0.95) * premium.max(0.8).powf(0.7)
    };
    if run.is_kids() {
        base *= 0.5;
    }
    if kind == ReleaseKind::Collaboration {
        base *= 1.4;
    }
    // Hyped pairs open with a rush; most pairs with a small bump.
    let hyped = kind != ReleaseKind::General || premium > 1.6;
    let (spike, half_life_weeks) = launch(rng, hyped);
    let trend: f64 = rng.random_range(-0.01..0.01);
    orders_over_weeks(
        rng,
        newest_week,
        base,
        (spike, half_life_weeks),
        trend,
        release,
    )
}

/// 52 weeks of orders, newest first, for a product that sells `per_week` pairs in an ordinary
/// week: flat (no trend), with the seasons and, for a release inside the year, its launch rush.
pub fn weekly_orders_at_volume(
    rng: &mut ChaCha8Rng,
    newest_week: NaiveDate,
    per_week: f64,
    kind: ReleaseKind,
    release: NaiveDate,
) -> [u32; super::WEEKS] {
    let launch = launch(rng, kind != ReleaseKind::General);
    orders_over_weeks(rng, newest_week, per_week.max(0.0), launch, 0.0, release)
}

/// The launch rush over the base volume and its half-life in weeks.
fn launch(rng: &mut ChaCha8Rng, hyped: bool) -> (f64, f64) {
    let spike = if hyped {
        lognormal(rng, 16.0f64.ln(), 0.6)
    } else {
        lognormal(rng, 2.5f64.ln(), 0.6)
    };
    (spike, rng.random_range(1.0..4.0))
}

fn orders_over_weeks(
    rng: &mut ChaCha8Rng,
    newest_week: NaiveDate,
    base: f64,
    (spike, half_life_weeks): (f64, f64),
    trend: f64,
    release: NaiveDate,
) -> [u32; super::WEEKS] {
    let mut orders = [0u32; super::WEEKS];
    for (week, slot) in orders.iter_mut().enumerate() {
        let start = newest_week - Duration::weeks(week as i64);
        let end = start + Duration::days(6);
        if release > end {
            continue; // not out yet that week
        }
        let weeks_since_release = (start - release).num_days().max(0) as f64 / 7.0;
        let launch = 1.0 + spike * 0.5f64.powf(weeks_since_release / half_life_weeks);
        let drift = (1.0 + trend).powf(-(week as f64));
        let lambda = (base * launch * season_lift(start) * drift).min(WEEKLY_CEILING);
        *slot = poisson(rng, lambda);
    }
    orders
}

fn season_lift(week_start: NaiveDate) -> f64 {
    let (month, day) = (week_start.month(), week_start.day());
    data::SEASONS
        .iter()
        .find(|(m, first, last, _)| *m == month && (*first..=*last).contains(&day))
        .map_or(1.0, |season| season.3)
}

/// `exp(N(mu, sigma))`.
pub fn lognormal(rng: &mut ChaCha8Rng, mu: f64, sigma: f64) -> f64 {
    (mu + sigma * standard_normal(rng)).exp()
}

fn standard_normal(rng: &mut ChaCha8Rng) -> f64 {
    // Box-Muller; rand_distr would add a dependency for two lines.
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A Poisson draw with mean `lambda` (normal approximation above 30).
pub fn poisson(rng: &mut ChaCha8Rng, lambda: f64) -> u32 {
    if lambda <= 0.0 {
        return 0;
    }
    if lambda < 30.0 {
        // Knuth's method: exact, and cheap for small means.
        let limit = (-lambda).exp();
        let mut k = 0u32;
        let mut p = 1.0;
        loop {
            p *= rng.random::<f64>();
            if p <= limit {
                return k;
            }
            k += 1;
        }
    }
    (lambda + lambda.sqrt() * standard_normal(rng))
        .round()
        .max(0.0) as u32
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn poisson_mean_is_close_to_lambda() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for lambda in [0.5, 4.0, 80.0] {
            let n = 20_000;
            let sum: u64 = (0..n).map(|_| u64::from(poisson(&mut rng, lambda))).sum();
            let mean = sum as f64 / f64::from(n);
            assert!(
                (mean - lambda).abs() < lambda * 0.05 + 0.05,
                "{lambda}: {mean}"
            );
        }
    }

    #[test]
    fn general_releases_stay_under_the_ceiling_and_some_trade_below_retail() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let draws: Vec<f64> = (0..20_000)
            .map(|_| premium(ReleaseKind::General, 1.6, &mut rng))
            .collect();
        assert!(draws.iter().all(|&p| p <= GENERAL_CEILING));
        assert!(draws.iter().any(|&p| p < 1.0));
    }

    #[test]
    fn a_curve_with_a_given_cheapest_size_keeps_its_shape() {
        for (run, len) in [
            (SizeRun::Men, 15),
            (SizeRun::GradeSchool, 9),
            (SizeRun::Men, 14),
        ] {
            let usual = size_curve(run, len);
            for share in [0.75, 0.85, 0.97] {
                let curve = size_curve_with_cheapest(run, len, share);
                let mean = curve.iter().sum::<f64>() / len as f64;
                assert!((mean - 1.0).abs() < 1e-9, "{run:?} {share}: mean {mean}");
                let cheapest = curve.iter().copied().fold(f64::INFINITY, f64::min);
                assert!(
                    (cheapest - share).abs() < 1e-9,
                    "{run:?} {share}: {cheapest}"
                );
                // The same sizes are the cheapest and the dearest.
                let order = |c: &[f64]| {
                    let mut positions: Vec<usize> = (0..c.len()).collect();
                    positions.sort_by(|&a, &b| c[a].total_cmp(&c[b]));
                    positions
                };
                assert_eq!(order(&curve), order(&usual), "{run:?} {share}");
            }
        }
    }

    #[test]
    fn orders_at_a_volume_stay_near_it_every_week() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let newest = NaiveDate::from_ymd_opt(2026, 6, 1).unwrap();
        let release = NaiveDate::from_ymd_opt(2020, 1, 22).unwrap();
        let orders =
            weekly_orders_at_volume(&mut rng, newest, 100.0, ReleaseKind::General, release);
        let mean = orders.iter().map(|&o| f64::from(o)).sum::<f64>() / orders.len() as f64;
        assert!((95.0..=115.0).contains(&mean), "{mean}");
        assert!(
            orders.iter().all(|&o| (60..=180).contains(&o)),
            "{orders:?}"
        );
    }

    #[test]
    fn the_mens_curve_smiles_and_averages_one() {
        let curve = size_curve(SizeRun::Men, 15);
        let mean = curve.iter().sum::<f64>() / 15.0;
        assert!((mean - 1.0).abs() < 1e-9);
        let cheapest = curve
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, _)| i);
        assert_eq!(cheapest, Some(7));
        assert!(curve[14] > curve[0] && curve[0] > curve[7]);
    }
}
