//! The estimate of each calendar entry: the premium model fitted on the catalogue's releases
//! before today.

use chrono::NaiveDate;

use super::catalogue::PastRelease;
use super::merge::Merged;
use crate::model::releases::{PremiumEstimate, PremiumModelInfo};

/// The model as fitted for one build of the calendar.
#[derive(Debug)]
pub struct FittedModel {
    releases: usize,
    fitted_before: NaiveDate,
}

/// Fits the model on `history` (releases before `today`).
#[must_use]
pub fn fit(history: &[PastRelease], today: NaiveDate) -> FittedModel {
    FittedModel {
        releases: history.len(),
        fitted_before: today,
    }
}

impl FittedModel {
    /// What it was fitted on.
    #[must_use]
    pub fn info(&self) -> PremiumModelInfo {
        PremiumModelInfo {
            releases: self.releases as u64,
            fitted_before: self.fitted_before.format("%Y-%m-%d").to_string(),
            note: Some("the premium model is not in this build".to_owned()),
        }
    }

    /// The estimate for `entry`, or why there is none.
    ///
    /// # Errors
    /// A sentence saying why there is no estimate.
    pub fn estimate(&self, entry: &Merged) -> Result<PremiumEstimate, String> {
        let _ = entry;
        Err("no estimate: the premium model is not in this build".to_owned())
    }
}
