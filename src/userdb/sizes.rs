//! "My sizes" (`sizes.sql`): the US sizes the user wears or resells, shared by the Flips tab
//! (its filter and its alerts) and the Drops calendar. Sizes are kept as the flip list writes a
//! US size (`model::sizes::us_size_key`), so a filter compares them as text.

use super::{UserDb, UserDbError};
use crate::model::sizes::{sort_sizes, us_size_key};

/// Most sizes kept (a whole men's run, and some).
pub const MAX_SIZES: usize = 40;

impl UserDb {
    /// The user's sizes, smallest first. A row that does not read as a US size (written by
    /// hand) is left out.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails.
    pub fn my_sizes(&self) -> Result<Vec<String>, UserDbError> {
        let read = || -> rusqlite::Result<Vec<String>> {
            let mut statement = self.conn.prepare_cached("SELECT size FROM my_sizes")?;
            statement.query_map([], |row| row.get(0))?.collect()
        };
        let mut sizes: Vec<String> = read()
            .map_err(|e| self.error(e))?
            .iter()
            .filter_map(|size: &String| us_size_key(size))
            .collect();
        sort_sizes(&mut sizes);
        sizes.dedup();
        Ok(sizes)
    }

    /// Replaces the user's sizes with `sizes` (each read as a US size: `US 9.5` is kept as
    /// `9.5`; blanks left out), in one transaction.
    ///
    /// # Errors
    /// [`UserDbError::Invalid`] for a size that is not a US size or more than [`MAX_SIZES`]
    /// (nothing is written); [`UserDbError::Sqlite`] when the write fails.
    pub fn set_my_sizes(&mut self, sizes: &[String]) -> Result<(), UserDbError> {
        let mut keys = Vec::new();
        for size in sizes.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
            let key = us_size_key(size).ok_or_else(|| {
                UserDbError::Invalid(format!(
                    "{size:?} is not a US size (a whole or half size from 1 to 22)"
                ))
            })?;
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        if keys.len() > MAX_SIZES {
            return Err(UserDbError::Invalid(format!(
                "{} sizes: at most {MAX_SIZES} are kept",
                keys.len()
            )));
        }
        let write = |db: &mut UserDb| -> rusqlite::Result<()> {
            let tx = db.conn.transaction()?;
            tx.execute("DELETE FROM my_sizes", [])?;
            for key in &keys {
                tx.execute("INSERT INTO my_sizes (size) VALUES (?1)", [key])?;
            }
            tx.commit()
        };
        write(self).map_err(|e| self.error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn my_sizes_are_kept_as_us_size_keys_and_a_bad_one_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(UserDb::FILE_NAME);
        {
            let mut db = UserDb::open(&path).unwrap();
            assert!(db.my_sizes().unwrap().is_empty());
            db.set_my_sizes(&["US 10.5".into(), "9".into(), " ".into(), "9.0".into()])
                .unwrap();
        }
        let mut db = UserDb::open(&path).unwrap();
        assert_eq!(db.my_sizes().unwrap(), ["9", "10.5"]);
        let err = db.set_my_sizes(&["11".into(), "EU 44".into()]).unwrap_err();
        assert!(err.to_string().contains("EU 44"), "{err}");
        assert_eq!(db.my_sizes().unwrap(), ["9", "10.5"]);
        db.set_my_sizes(&[]).unwrap();
        assert!(db.my_sizes().unwrap().is_empty());
    }
}
