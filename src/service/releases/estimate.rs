//! The estimate of each calendar entry: the premium model (`figures::premium`) fitted on the
//! catalogue's releases before today (what each fetched in its first 30 days where the
//! catalogue's weekly figures reach back to them, else its price now at the days since), each
//! entry estimated for its first 30 days from its title, brand and retail, never from its own
//! price. Per size where its model line (the catalogue's silhouette) has past products priced
//! by size: the estimate scaled by how each size priced against its product's average.

use std::collections::HashMap;

use chrono::NaiveDate;

use super::catalogue::PastRelease;
use super::merge::Merged;
use crate::figures::premium::{
    BAND_COVERAGE, ObservedPremium, PremiumModel, Release, SizeRelative, size_relatives,
};
use crate::model::releases::{EstimateBasis, PremiumEstimate, PremiumModelInfo, SizeEstimate};

/// The model as fitted for one build of the calendar, and the size curves of model lines.
pub struct FittedModel {
    model: PremiumModel,
    /// How each model line's sizes price, by silhouette (lower case).
    sizes: HashMap<String, Vec<SizeRelative>>,
}

impl std::fmt::Debug for FittedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FittedModel")
            .field("releases", &self.model.releases())
            .finish_non_exhaustive()
    }
}

/// `history` as the model's releases (retail in US cents).
fn releases(history: &[PastRelease]) -> Vec<Release> {
    history
        .iter()
        .map(|past| Release {
            title: past.product.title.clone(),
            brand: past.product.brand.clone(),
            style_code: Some(past.product.sku.clone()),
            release_date: past.product.release_date,
            retail_cents: past.retail_usd_cents,
            currency: "USD".to_owned(),
            observed: Some(ObservedPremium {
                premium: past.premium,
                horizon_days: past.horizon_days,
            }),
        })
        .collect()
}

/// Fits the model on `history` (the catalogue's releases before `today`).
#[must_use]
pub fn fit(history: &[PastRelease], today: NaiveDate) -> FittedModel {
    let model = PremiumModel::fit(&releases(history), today);
    let mut by_line: HashMap<String, Vec<&[(String, f64)]>> = HashMap::new();
    for past in history {
        let line = past.product.model.trim().to_lowercase();
        if !line.is_empty() && !past.size_prices.is_empty() {
            by_line.entry(line).or_default().push(&past.size_prices);
        }
    }
    let sizes = by_line
        .into_iter()
        .map(|(line, products)| (line, size_relatives(products)))
        .collect();
    FittedModel { model, sizes }
}

impl FittedModel {
    /// What it was fitted on.
    #[must_use]
    pub fn info(&self) -> PremiumModelInfo {
        let releases = self.model.releases();
        PremiumModelInfo {
            releases: releases as u64,
            fitted_before: self.model.fitted_before().format("%Y-%m-%d").to_string(),
            note: (releases < crate::figures::premium::MIN_RELEASES).then(|| {
                format!("no estimates: the catalogue holds {releases} past releases with a premium")
            }),
        }
    }

    /// The estimate for `entry`, or why there is none.
    ///
    /// # Errors
    /// A sentence saying why there is no estimate ("no estimate: 2 releases of Vans").
    pub fn estimate(&self, entry: &Merged) -> Result<PremiumEstimate, String> {
        let Some((retail_cents, currency)) = &entry.retail else {
            return Err("no estimate: no retail price".to_owned());
        };
        let release = Release {
            title: entry.release.title.clone(),
            brand: entry.release.brand.clone(),
            style_code: Some(entry.release.style_code.clone()),
            release_date: entry.date,
            retail_cents: *retail_cents,
            currency: currency.clone(),
            observed: None,
        };
        let estimate = self
            .model
            .estimate_first_month(&release)
            .map_err(|why| why.to_string())?;
        let line = entry.model.trim().to_lowercase();
        let sizes = self
            .sizes
            .get(&line)
            .map(|relatives| {
                estimate
                    .per_size(relatives)
                    .into_iter()
                    .filter_map(Result::ok)
                    .map(|size| SizeEstimate {
                        size: size.size,
                        premium_pct: tenth(size.premium_pct),
                        low_pct: tenth(size.low_pct),
                        high_pct: tenth(size.high_pct),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let basis = &estimate.basis;
        let summary = format!(
            "{} releases before {}, {} of {} and {} of its model line; reads {}",
            basis.releases,
            basis.fitted_before,
            basis.brand_releases,
            entry.release.brand,
            basis.line_releases,
            basis.features.join(", ")
        );
        Ok(PremiumEstimate {
            premium_pct: tenth(estimate.premium_pct),
            low_pct: tenth(estimate.low_pct),
            high_pct: tenth(estimate.high_pct),
            basis: EstimateBasis {
                releases: basis.releases as u64,
                similar: Some(basis.line_releases as u64),
                features: basis.features.iter().map(|f| (*f).to_owned()).collect(),
                horizon_days: estimate.horizon_days,
                band_coverage: if estimate.band_coverage_claimed > 0.0 {
                    estimate.band_coverage_claimed
                } else {
                    BAND_COVERAGE
                },
                fitted_before: basis.fitted_before.format("%Y-%m-%d").to_string(),
                summary,
            },
            sizes,
        })
    }
}

/// A percentage to a tenth of a point, as the calendar shows it: a band some 100 points wide
/// has no meaning in the fifteenth digit, which only made each page's JSON twice as long.
fn tenth(pct: f64) -> f64 {
    (pct * 10.0).round() / 10.0
}
