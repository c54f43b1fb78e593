//! The Drops tab's own data (`drops.sql`): the starred drops with their
//! reminders. A reminder is taken by one atomic update (`reminded_at` set where it is still
//! NULL), so the window and `solescope monitor` (two processes over this file) show it once
//! between them.

use rusqlite::params;

use super::{UserDb, UserDbError};

/// A starred drop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DropStar {
    /// Its key: its style code's letters and digits in upper case (else its title's).
    pub key: String,
    /// Its title when starred.
    pub title: String,
    /// Its style code as written.
    pub style_code: String,
    /// The catalogue product, when there is one.
    pub product_id: Option<String>,
    /// When it opens (RFC 3339 UTC).
    pub starts_at: String,
    /// Minutes before it opens the reminder is shown.
    pub remind_minutes: u32,
    /// When the reminder was shown (RFC 3339 UTC), once it was.
    pub reminded_at: Option<String>,
}

/// The key a drop is starred under: its first style code's letters and digits in upper case,
/// else its title's.
#[must_use]
pub fn star_key(style_code: &str, title: &str) -> String {
    let key = |text: &str| -> String {
        text.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_uppercase())
            .collect()
    };
    let code = crate::model::releases::style_code_keys(style_code);
    code.into_iter().next().unwrap_or_else(|| key(title))
}

impl UserDb {
    /// The starred drops, soonest first.
    pub fn drop_stars(&self) -> Result<Vec<DropStar>, UserDbError> {
        let read = || -> rusqlite::Result<Vec<DropStar>> {
            let mut statement = self.conn.prepare(
                "SELECT key, title, style_code, product_id, starts_at, remind_minutes,
                     reminded_at FROM drop_stars ORDER BY starts_at, key",
            )?;
            statement
                .query_map([], |row| {
                    Ok(DropStar {
                        key: row.get(0)?,
                        title: row.get(1)?,
                        style_code: row.get(2)?,
                        product_id: row.get(3)?,
                        starts_at: row.get(4)?,
                        remind_minutes: row.get(5)?,
                        reminded_at: row.get(6)?,
                    })
                })?
                .collect()
        };
        read().map_err(|e| self.error(e))
    }

    /// Stars `star` (or updates it: a new time or lead makes its reminder due again).
    pub fn star_drop(&self, star: &DropStar) -> Result<(), UserDbError> {
        self.conn
            .execute(
                "INSERT INTO drop_stars (key, title, style_code, product_id, starts_at,
                     remind_minutes, reminded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL)
                 ON CONFLICT (key) DO UPDATE SET title = excluded.title,
                     style_code = excluded.style_code, product_id = excluded.product_id,
                     starts_at = excluded.starts_at, remind_minutes = excluded.remind_minutes,
                     reminded_at = CASE WHEN drop_stars.starts_at = excluded.starts_at
                         AND drop_stars.remind_minutes = excluded.remind_minutes
                         THEN drop_stars.reminded_at END",
                params![
                    star.key,
                    star.title,
                    star.style_code,
                    star.product_id,
                    star.starts_at,
                    star.remind_minutes,
                ],
            )
            .map(drop)
            .map_err(|e| self.error(e))
    }

    /// Unstars the drop with `key`; whether it was starred.
    pub fn unstar_drop(&self, key: &str) -> Result<bool, UserDbError> {
        self.conn
            .execute("DELETE FROM drop_stars WHERE key = ?1", [key])
            .map(|n| n > 0)
            .map_err(|e| self.error(e))
    }

    /// Takes the reminder of the drop with `key` at `now` (RFC 3339): `true` for the one
    /// caller that took it, `false` when it was taken before (by this process or another).
    pub fn take_reminder(&self, key: &str, now: &str) -> Result<bool, UserDbError> {
        self.conn
            .execute(
                "UPDATE drop_stars SET reminded_at = ?2 WHERE key = ?1 AND reminded_at IS NULL",
                params![key, now],
            )
            .map(|n| n == 1)
            .map_err(|e| self.error(e))
    }
}
