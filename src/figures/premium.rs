//! The expected premium of a coming release over its retail price, estimated from the releases
//! before it, with a band and the basis it rests on; and the same per size, from how a model
//! line's sizes price against its product average.
//!
//! The model is a ridge regression of `ln(1 + premium)` on the title's words (collaborations,
//! kids' and women's runs all show in the title), the model line (the two words after the
//! brand), the brand, the currency, the logarithm of the retail price and the logarithm of the
//! horizon (days after release the premium is read at: premiums move after a drop, so the
//! horizon is a feature, known in advance). It is made robust (reweighted towards the median
//! error, which is what the backtest scores) and weights a release by its age (half as much
//! every two years: the market moves). It is fitted only on releases dated before a given day:
//! a release's own price, or anything observed on or after its date, never reaches its
//! estimate. The band is the spread of the model's leave-one-out errors (each release's error
//! with the model fitted without it) on the latest releases it was fitted on, at
//! [`BAND_COVERAGE`]. `docs/premium-backtest.md` says how it fares on a real marketplace
//! snapshot.
//!
//! Pure computation: no I/O. The regression is the `sparse-ridge` crate's (nalgebra).

use std::collections::HashMap;
use std::fmt;

use chrono::NaiveDate;

use sparse_ridge::{self as ridge, SparseRow};

/// The horizon of the calendar's estimate: the first 30 days after release.
pub const FIRST_MONTH_DAYS: u32 = 30;

/// The share of releases the band claims to hold: 0.8 is an 80 % band (from the 10th to the
/// 90th percentile of the model's errors on releases it has not seen).
pub const BAND_COVERAGE: f64 = 0.8;

/// Fewer releases before the date than this, and the model makes no estimate at all.
pub const MIN_RELEASES: usize = 30;

/// Fewer releases of the same brand (and currency) before the date than this, and the release
/// gets no estimate: the model would be guessing from other brands' pairs.
pub const MIN_BRAND_RELEASES: usize = 3;

/// Fewer products behind a size's relative price than this, and the size gets no estimate.
pub const MIN_SIZE_PRODUCTS: usize = 3;

/// What the model reads, for the window's "based on" line.
pub const FEATURES: &[&str] = &[
    "model line",
    "title words (collaboration, colourway, women's and kids' runs)",
    "brand",
    "retail price",
    "days after release",
];

/// A release: a product's first day on sale at its retail price, and, for a release in the
/// past, the premium it was seen at.
#[derive(Debug, Clone, PartialEq)]
pub struct Release {
    /// The product's title as listed (`Jordan 4 Retro SB Pine Green`).
    pub title: String,
    /// The brand (`Jordan`, `Nike`, `New Balance`).
    pub brand: String,
    /// The style code, when known (`DR5415-103`); not read by the model.
    pub style_code: Option<String>,
    /// The release date.
    pub release_date: NaiveDate,
    /// The retail price in minor units of `currency` (22500 is $225.00).
    pub retail_cents: i64,
    /// ISO 4217 code of `retail_cents` (`USD`).
    pub currency: String,
    /// The premium seen after release; `None` for a coming release (and ignored by
    /// [`PremiumModel::estimate`], which never reads a release's own price).
    pub observed: Option<ObservedPremium>,
}

/// A premium over retail seen some days after a release.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObservedPremium {
    /// `(resale − retail) / retail`: 0.25 is 25 % over retail, −0.1 is 10 % under.
    pub premium: f64,
    /// Days after the release date the resale price was read at.
    pub horizon_days: u32,
}

/// What an estimate rests on.
#[derive(Debug, Clone, PartialEq)]
pub struct Basis {
    /// Releases the model was fitted on (all dated before `fitted_before`).
    pub releases: usize,
    /// Of them, releases of the same brand.
    pub brand_releases: usize,
    /// Of them, releases of the same model line (the title's first two words after the brand,
    /// `Jordan 4`, `Dunk Low`).
    pub line_releases: usize,
    /// The title's words the model has learned a weight for (seen in at least two releases).
    pub known_words: Vec<String>,
    /// Only releases dated before this day were read.
    pub fitted_before: NaiveDate,
    /// What the model reads: [`FEATURES`].
    pub features: &'static [&'static str],
}

/// The expected premium of a release over its retail price, with its band and basis.
#[derive(Debug, Clone, PartialEq)]
pub struct PremiumEstimate {
    /// The expected premium in percent: 25.0 is 25 % over retail.
    pub premium_pct: f64,
    /// The band's low end, in percent.
    pub low_pct: f64,
    /// The band's high end, in percent.
    pub high_pct: f64,
    /// The share of releases the band claims to hold ([`BAND_COVERAGE`]).
    pub band_coverage_claimed: f64,
    /// The horizon estimated, in days after release ([`FIRST_MONTH_DAYS`] for the calendar's
    /// first-month estimate, which averages days 1 to 30).
    pub horizon_days: u32,
    /// What it rests on.
    pub basis: Basis,
}

impl PremiumEstimate {
    /// The expected premium as a fraction (0.25 is 25 %).
    pub fn premium(&self) -> f64 {
        self.premium_pct / 100.0
    }

    /// The band's low end as a fraction.
    pub fn low(&self) -> f64 {
        self.low_pct / 100.0
    }

    /// The band's high end as a fraction.
    pub fn high(&self) -> f64 {
        self.high_pct / 100.0
    }
}

/// Why a release gets no estimate: an answer, never a guess.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoEstimate {
    /// Too few releases before the date to fit anything.
    ThinHistory {
        /// Releases before the date.
        releases: usize,
    },
    /// Too few releases of the brand (in the release's currency) before the date.
    ThinBrand {
        /// The brand.
        brand: String,
        /// Its releases before the date.
        releases: usize,
    },
    /// No retail price (0 or less), so no premium over it.
    NoRetail,
    /// The model could not be fitted (its equations were singular).
    Unfitted,
    /// Too few products behind a size's relative price.
    ThinSize {
        /// The size.
        size: String,
        /// Products with a price in that size.
        products: usize,
    },
}

impl fmt::Display for NoEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ThinHistory { releases } => {
                write!(f, "no estimate: {}", releases_text(*releases))
            }
            Self::ThinBrand { brand, releases } => {
                write!(f, "no estimate: {} of {brand}", releases_text(*releases))
            }
            Self::NoRetail => f.write_str("no estimate: no retail price"),
            Self::Unfitted => f.write_str("no estimate: the model could not be fitted"),
            Self::ThinSize { size, products } => write!(
                f,
                "no estimate for size {size}: {products} product{} with its price",
                if *products == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::error::Error for NoEstimate {}

fn releases_text(releases: usize) -> String {
    if releases == 1 {
        "1 release".to_owned()
    } else {
        format!("{releases} releases")
    }
}

/// The model's settings; [`ModelParams::default`] is what the backtest measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelParams {
    /// Ridge penalty of a word, brand or currency weight (in units of releases).
    pub word_penalty: f64,
    /// Ridge penalty of the retail and horizon terms (small: they are few and well fed).
    pub numeric_penalty: f64,
    /// Least releases a word (or model line) must appear in to get a weight.
    pub min_word_releases: usize,
    /// A release this many days older than the fit's date counts half as much (the market
    /// moves); `None`: all count the same.
    pub half_life_days: Option<u32>,
    /// Reweighting rounds towards the median error (0: least squares on `ln(1 + premium)`).
    pub robust_rounds: usize,
}

impl Default for ModelParams {
    fn default() -> Self {
        Self {
            word_penalty: 20.0,
            numeric_penalty: 0.01,
            min_word_releases: 2,
            half_life_days: Some(730),
            robust_rounds: 5,
        }
    }
}

/// The band is read from the model's errors on this many of the latest releases it was fitted
/// on: the market moves, and the latest are the closest in time to the releases estimated.
const BAND_RELEASES: usize = 300;
/// The smallest error (in `ln(1 + premium)`) a robust reweighting divides by.
const ROBUST_FLOOR: f64 = 0.05;
/// Numeric columns, after the word, brand and currency columns, then the intercept.
const NUMERIC: usize = 5;
/// Centres of the logarithms, so the squares and products stay small.
const LN_RETAIL_CENTRE: f64 = 5.0;
const LN_HORIZON_CENTRE: f64 = 5.0;

/// A premium model fitted on the releases before a date.
#[derive(Debug, Clone)]
pub struct PremiumModel {
    fitted_before: NaiveDate,
    releases: usize,
    /// Indicator columns by name (`w:dunk`, `l:nike|dunk low`, `b:nike`, `c:USD`); numeric
    /// columns follow them,
    /// then the intercept.
    columns: HashMap<String, usize>,
    /// The fitted weights; empty when the fit failed or the history was thin.
    weights: Vec<f64>,
    /// The band: quantiles of the leave-one-out errors in `ln(1 + premium)`.
    error_low: f64,
    error_high: f64,
    /// Releases by brand (lower-cased, with the currency) and by model line.
    brand_releases: HashMap<String, usize>,
    line_releases: HashMap<String, usize>,
}

impl PremiumModel {
    /// Fits the model on the releases of `history` dated before `before` that have an observed
    /// premium and a retail price (the others, and every release on or after `before`, are not
    /// read), with the default [`ModelParams`].
    pub fn fit(history: &[Release], before: NaiveDate) -> Self {
        Self::fit_with(history, before, ModelParams::default())
    }

    /// [`PremiumModel::fit`] with other settings.
    pub fn fit_with(history: &[Release], before: NaiveDate, params: ModelParams) -> Self {
        let known: Vec<(&Release, ObservedPremium)> = history
            .iter()
            .filter(|release| release.release_date < before && release.retail_cents > 0)
            .filter_map(|release| {
                let observed = release.observed?;
                (observed.premium.is_finite() && observed.premium > -1.0)
                    .then_some((release, observed))
            })
            .collect();
        // Oldest first: the band is read from the errors on the latest releases.
        let mut known = known;
        known.sort_by(|(a, _), (b, _)| {
            a.release_date
                .cmp(&b.release_date)
                .then_with(|| a.title.cmp(&b.title))
        });
        let mut model = Self {
            fitted_before: before,
            releases: known.len(),
            columns: HashMap::new(),
            weights: Vec::new(),
            error_low: 0.0,
            error_high: 0.0,
            brand_releases: HashMap::new(),
            line_releases: HashMap::new(),
        };
        for (release, _) in &known {
            *model.brand_releases.entry(brand_key(release)).or_default() += 1;
            *model
                .line_releases
                .entry(model_line(&release.title, &release.brand))
                .or_default() += 1;
        }
        if known.len() < MIN_RELEASES {
            return model;
        }
        let indicators: Vec<Vec<String>> = known
            .iter()
            .map(|(release, _)| indicators(release))
            .collect();
        let mut counts: HashMap<&String, usize> = HashMap::new();
        for name in indicators.iter().flatten() {
            *counts.entry(name).or_default() += 1;
        }
        let mut names: Vec<&String> = counts
            .into_iter()
            .filter(|(name, count)| {
                !(name.starts_with("w:") || name.starts_with("l:"))
                    || *count >= params.min_word_releases
            })
            .map(|(name, _)| name)
            .collect();
        names.sort();
        model.columns = names
            .into_iter()
            .enumerate()
            .map(|(column, name)| (name.clone(), column))
            .collect();
        let rows: Vec<SparseRow> = known
            .iter()
            .zip(&indicators)
            .map(|((release, observed), names)| {
                model.row(release, names, f64::from(observed.horizon_days))
            })
            .collect();
        let targets: Vec<f64> = known
            .iter()
            .map(|(_, observed)| observed.premium.ln_1p())
            .collect();
        let row_weights: Vec<f64> = known
            .iter()
            .map(|(release, _)| {
                params.half_life_days.map_or(1.0, |half_life| {
                    let age_days = (before - release.release_date).num_days() as f64;
                    0.5_f64.powf(age_days / f64::from(half_life.max(1)))
                })
            })
            .collect();
        let penalties = model.penalties(params);
        let Some(fitted) = ridge::fit(&ridge::Problem {
            rows: &rows,
            targets: &targets,
            row_weights: &row_weights,
            penalties: &penalties,
            robust_rounds: params.robust_rounds,
            robust_floor: ROBUST_FLOOR,
            errors_of_last: BAND_RELEASES,
        }) else {
            return model;
        };
        let (low, high) = band(fitted.leave_one_out);
        model.weights = fitted.weights;
        model.error_low = low;
        model.error_high = high;
        model
    }

    /// The day before which releases were read.
    pub fn fitted_before(&self) -> NaiveDate {
        self.fitted_before
    }

    /// Releases the model rests on.
    pub fn releases(&self) -> usize {
        self.releases
    }

    /// The expected premium of `release` `horizon_days` after its date, with its band and
    /// basis. Reads the release's title, brand, currency and retail price, never its observed
    /// premium.
    pub fn estimate(
        &self,
        release: &Release,
        horizon_days: u32,
    ) -> Result<PremiumEstimate, NoEstimate> {
        self.estimate_over(release, horizon_days, &[horizon_days])
    }

    /// The calendar's estimate: the expected premium over the first [`FIRST_MONTH_DAYS`]
    /// days, the mean of the model's premium on each of them.
    pub fn estimate_first_month(&self, release: &Release) -> Result<PremiumEstimate, NoEstimate> {
        let days: Vec<u32> = (1..=FIRST_MONTH_DAYS).collect();
        self.estimate_over(release, FIRST_MONTH_DAYS, &days)
    }

    fn estimate_over(
        &self,
        release: &Release,
        horizon_days: u32,
        days: &[u32],
    ) -> Result<PremiumEstimate, NoEstimate> {
        if release.retail_cents <= 0 {
            return Err(NoEstimate::NoRetail);
        }
        if self.releases < MIN_RELEASES {
            return Err(NoEstimate::ThinHistory {
                releases: self.releases,
            });
        }
        let brand_releases = self
            .brand_releases
            .get(&brand_key(release))
            .copied()
            .unwrap_or(0);
        if brand_releases < MIN_BRAND_RELEASES {
            return Err(NoEstimate::ThinBrand {
                brand: release.brand.clone(),
                releases: brand_releases,
            });
        }
        if self.weights.is_empty() {
            return Err(NoEstimate::Unfitted);
        }
        let names = indicators(release);
        let mut sum = [0.0_f64; 3];
        for &day in days {
            let row = self.row(release, &names, f64::from(day.max(1)));
            let centre = ridge::predict(&row, &self.weights);
            sum[0] += centre.exp_m1();
            sum[1] += (centre + self.error_low).exp_m1();
            sum[2] += (centre + self.error_high).exp_m1();
        }
        let n = days.len().max(1) as f64;
        let known_words = words(&release.title)
            .into_iter()
            .filter(|word| self.columns.contains_key(&format!("w:{word}")))
            .collect();
        Ok(PremiumEstimate {
            premium_pct: sum[0] / n * 100.0,
            low_pct: sum[1] / n * 100.0,
            high_pct: sum[2] / n * 100.0,
            band_coverage_claimed: BAND_COVERAGE,
            horizon_days,
            basis: Basis {
                releases: self.releases,
                brand_releases,
                line_releases: self
                    .line_releases
                    .get(&model_line(&release.title, &release.brand))
                    .copied()
                    .unwrap_or(0),
                known_words,
                fitted_before: self.fitted_before,
                features: FEATURES,
            },
        })
    }

    /// The feature row of a release read at `horizon_days`: its known indicators, then the
    /// numeric terms, then the intercept.
    fn row(&self, release: &Release, names: &[String], horizon_days: f64) -> SparseRow {
        let mut row: SparseRow = names
            .iter()
            .filter_map(|name| self.columns.get(name).map(|&column| (column, 1.0)))
            .collect();
        let retail = (release.retail_cents as f64 / 100.0).ln() - LN_RETAIL_CENTRE;
        let horizon = horizon_days.max(1.0).ln() - LN_HORIZON_CENTRE;
        let numeric = self.columns.len();
        row.extend([
            (numeric, retail),
            (numeric + 1, horizon),
            (numeric + 2, horizon * horizon),
            (numeric + 3, horizon * retail),
            (numeric + 4, retail * retail),
            (numeric + NUMERIC, 1.0),
        ]);
        row
    }

    fn penalties(&self, params: ModelParams) -> Vec<f64> {
        let indicators = self.columns.len();
        let mut penalties = vec![params.word_penalty; indicators];
        penalties.extend([params.numeric_penalty; NUMERIC]);
        // The intercept: a trace of penalty keeps the system positive definite.
        penalties.push(1e-6);
        penalties
    }
}

/// The band's ends: the quantiles of `errors` that leave `(1 − BAND_COVERAGE) / 2` out on each
/// side.
fn band(mut errors: Vec<f64>) -> (f64, f64) {
    errors.retain(|error| error.is_finite());
    if errors.is_empty() {
        return (0.0, 0.0);
    }
    errors.sort_by(f64::total_cmp);
    let tail = (1.0 - BAND_COVERAGE) / 2.0;
    (quantile(&errors, tail), quantile(&errors, 1.0 - tail))
}

/// The `q` quantile of sorted `values`, linearly interpolated.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = position.ceil() as usize;
    let share = position - below as f64;
    sorted[below] * (1.0 - share) + sorted[above] * share
}

/// The lower-cased words of a title: letters and digits, apostrophes dropped (`Women's` is
/// `womens`, `'86` is `86`).
fn words(title: &str) -> Vec<String> {
    let mut words: Vec<String> = title
        .to_lowercase()
        .replace(['\'', '’'], "")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect();
    words.sort();
    words.dedup();
    words
}

/// The indicator names of a release: its title's words, its model line, its brand and its
/// currency.
fn indicators(release: &Release) -> Vec<String> {
    let mut names: Vec<String> = words(&release.title)
        .into_iter()
        .map(|word| format!("w:{word}"))
        .collect();
    // The model line as one indicator: `Jordan 4 Retro` apart from a `4` or a `Retro` elsewhere.
    names.push(format!(
        "l:{}|{}",
        release.brand.trim().to_lowercase(),
        model_line(&release.title, &release.brand)
    ));
    names.push(format!("b:{}", release.brand.trim().to_lowercase()));
    names.push(format!("c:{}", release.currency.trim().to_uppercase()));
    names
}

fn brand_key(release: &Release) -> String {
    format!(
        "{}|{}",
        release.brand.trim().to_lowercase(),
        release.currency.trim().to_uppercase()
    )
}

/// A title's model line: its first two words after the brand's own (`Jordan 4 Retro SB Pine
/// Green` of Jordan is `4 retro`, `Nike Dunk Low Retro Panda` of Nike is `dunk low`).
fn model_line(title: &str, brand: &str) -> String {
    let brand_words: Vec<String> = brand
        .to_lowercase()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let title = title.to_lowercase();
    let mut words = title.split_whitespace().peekable();
    for brand_word in &brand_words {
        if words.peek() == Some(&brand_word.as_str()) {
            words.next();
        }
    }
    words.take(2).collect::<Vec<_>>().join(" ")
}

/// How one size of a model line prices against its product's average, over the line's past
/// products.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeRelative {
    /// The size label (`US 10`).
    pub size: String,
    /// The median of the size's price over its product's average price: 1.1 is 10 % above.
    pub relative: f64,
    /// Products with a price in this size.
    pub products: usize,
}

/// Each size's [`SizeRelative`] over `products`, each a list of `(size, price)` of one past
/// product of the model line (prices in one currency per product; sizes without a positive
/// price are skipped). Sizes are listed in the order first seen.
pub fn size_relatives<'a, I>(products: I) -> Vec<SizeRelative>
where
    I: IntoIterator<Item = &'a [(String, f64)]>,
{
    let mut order: Vec<String> = Vec::new();
    let mut by_size: HashMap<String, Vec<f64>> = HashMap::new();
    for sizes in products {
        let priced: Vec<&(String, f64)> = sizes
            .iter()
            .filter(|(_, price)| price.is_finite() && *price > 0.0)
            .collect();
        if priced.is_empty() {
            continue;
        }
        let average = priced.iter().map(|(_, price)| price).sum::<f64>() / priced.len() as f64;
        for (size, price) in priced {
            let ratios = by_size.entry(size.clone()).or_insert_with(|| {
                order.push(size.clone());
                Vec::new()
            });
            ratios.push(price / average);
        }
    }
    order
        .into_iter()
        .filter_map(|size| {
            let mut ratios = by_size.remove(&size)?;
            ratios.sort_by(f64::total_cmp);
            Some(SizeRelative {
                relative: quantile(&ratios, 0.5),
                products: ratios.len(),
                size,
            })
        })
        .collect()
}

/// One size's expected premium.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeEstimate {
    /// The size label.
    pub size: String,
    /// The expected premium of this size in percent.
    pub premium_pct: f64,
    /// The band's low end, in percent.
    pub low_pct: f64,
    /// The band's high end, in percent.
    pub high_pct: f64,
    /// The size's price over its product's average ([`SizeRelative::relative`]).
    pub relative: f64,
    /// Products the relative rests on.
    pub products: usize,
}

impl PremiumEstimate {
    /// Each size's premium: the product's expected average resale, `retail × (1 + premium)`,
    /// times the size's relative price, over retail. A size with fewer than
    /// [`MIN_SIZE_PRODUCTS`] products behind its relative gets [`NoEstimate::ThinSize`].
    pub fn per_size(&self, sizes: &[SizeRelative]) -> Vec<Result<SizeEstimate, NoEstimate>> {
        let scale = |pct: f64, relative: f64| ((1.0 + pct / 100.0) * relative - 1.0) * 100.0;
        sizes
            .iter()
            .map(|size| {
                if size.products < MIN_SIZE_PRODUCTS || !size.relative.is_finite() {
                    return Err(NoEstimate::ThinSize {
                        size: size.size.clone(),
                        products: size.products,
                    });
                }
                Ok(SizeEstimate {
                    size: size.size.clone(),
                    premium_pct: scale(self.premium_pct, size.relative),
                    low_pct: scale(self.low_pct, size.relative),
                    high_pct: scale(self.high_pct, size.relative),
                    relative: size.relative,
                    products: size.products,
                })
            })
            .collect()
    }
}
