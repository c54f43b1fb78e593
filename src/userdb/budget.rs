//! The KicksDB budget's settings (the plan's quota, the share Solescope may use), kept in the
//! user database's `meta` table so that the window, `solescope monitor` and `solescope
//! portfolio` all spend from the same budget.

use super::{UserDb, UserDbError};
use crate::model::budget::BudgetSettings;

/// The `meta` key the settings are kept under, as JSON.
pub const BUDGET_KEY: &str = "kicksdb_budget";

impl UserDb {
    /// The budget settings as saved (the defaults when never saved or unreadable).
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails.
    pub fn budget_settings(&self) -> Result<BudgetSettings, UserDbError> {
        Ok(self
            .meta(BUDGET_KEY)?
            .and_then(|text| serde_json::from_str::<BudgetSettings>(&text).ok())
            .map(BudgetSettings::checked)
            .unwrap_or_default())
    }

    /// Saves the budget settings.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the write fails.
    pub fn set_budget_settings(&self, settings: BudgetSettings) -> Result<(), UserDbError> {
        let text = serde_json::to_string(&settings.checked()).unwrap_or_default();
        self.set_meta(BUDGET_KEY, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_settings_are_kept_and_a_damaged_value_reads_as_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let db = UserDb::open(&dir.path().join(UserDb::FILE_NAME)).unwrap();
        assert_eq!(db.budget_settings().unwrap(), BudgetSettings::default());
        let mine = BudgetSettings {
            monthly_quota: Some(20_000),
            share_percent: 60,
        };
        db.set_budget_settings(mine).unwrap();
        assert_eq!(db.budget_settings().unwrap(), mine);
        db.set_meta(BUDGET_KEY, "{not json").unwrap();
        assert_eq!(db.budget_settings().unwrap(), BudgetSettings::default());
    }
}
