//! The retail storefronts' table (`stores.sql`): the stores the user listed in Settings, in the
//! order they are asked. Each write is one statement, so atomic on its own.

use rusqlite::{OptionalExtension as _, params};

use super::{UserDb, UserDbError};
use crate::model::StoreUrl;

/// The `meta` key of the least minutes between two readings of a store's catalogue.
const PASS_MINUTES_KEY: &str = "store_pass_minutes";

impl UserDb {
    /// The least minutes between two readings of a store's whole catalogue the user set
    /// (`None`: the default; a value that does not read as minutes reads as none).
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails.
    pub fn store_pass_minutes(&self) -> Result<Option<u32>, UserDbError> {
        Ok(self
            .meta(PASS_MINUTES_KEY)?
            .and_then(|text| text.parse::<u32>().ok())
            .filter(|minutes| (1..=10_080).contains(minutes)))
    }

    /// Saves it.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the write fails.
    pub fn set_store_pass_minutes(&self, minutes: u32) -> Result<(), UserDbError> {
        self.set_meta(PASS_MINUTES_KEY, &minutes.clamp(1, 10_080).to_string())
    }

    /// The stored storefronts, in order. A row that no longer reads as a store address (written
    /// by hand) is skipped with a warning rather than failing the list.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails.
    pub fn retailer_stores(&self) -> Result<Vec<StoreUrl>, UserDbError> {
        let mut statement = self
            .conn
            .prepare_cached("SELECT url FROM retailer_store ORDER BY position, added_at")
            .map_err(|e| self.error(e))?;
        let urls: Vec<String> = statement
            .query_map([], |row| row.get(0))
            .and_then(Iterator::collect)
            .map_err(|e| self.error(e))?;
        Ok(urls
            .iter()
            .filter_map(|url| {
                StoreUrl::parse(url)
                    .inspect_err(|err| tracing::warn!("a stored storefront is skipped: {err}"))
                    .ok()
            })
            .collect())
    }

    /// Adds `store` at the end at `now` (Unix seconds); `false` when it was stored already.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the write fails.
    pub fn add_retailer_store(&mut self, store: &StoreUrl, now: i64) -> Result<bool, UserDbError> {
        let existing: Option<i64> = self
            .conn
            .query_row(
                "SELECT 1 FROM retailer_store WHERE url = ?1",
                [store.as_str()],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| self.error(e))?;
        if existing.is_some() {
            return Ok(false);
        }
        self.conn
            .execute(
                "INSERT INTO retailer_store (url, position, added_at)
                 VALUES (?1, (SELECT COALESCE(MAX(position), -1) + 1 FROM retailer_store), ?2)",
                params![store.as_str(), now],
            )
            .map_err(|e| self.error(e))?;
        Ok(true)
    }

    /// Removes `store`; whether it was stored.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the write fails.
    pub fn remove_retailer_store(&mut self, store: &StoreUrl) -> Result<bool, UserDbError> {
        let removed = self
            .conn
            .execute(
                "DELETE FROM retailer_store WHERE url = ?1",
                [store.as_str()],
            )
            .map_err(|e| self.error(e))?;
        Ok(removed > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_keep_their_order_survive_a_reopen_and_are_stored_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(UserDb::FILE_NAME);
        let kith = StoreUrl::parse("kith.com").unwrap();
        let local = StoreUrl::parse("http://127.0.0.1:8081").unwrap();
        {
            let mut db = UserDb::open(&path).unwrap();
            assert!(db.add_retailer_store(&kith, 1).unwrap());
            assert!(db.add_retailer_store(&local, 2).unwrap());
            assert!(!db.add_retailer_store(&kith, 3).unwrap());
        }
        let mut db = UserDb::open(&path).unwrap();
        assert_eq!(db.retailer_stores().unwrap(), [kith.clone(), local.clone()]);
        assert!(db.remove_retailer_store(&kith).unwrap());
        assert!(!db.remove_retailer_store(&kith).unwrap());
        assert_eq!(db.retailer_stores().unwrap(), [local]);
    }
}
