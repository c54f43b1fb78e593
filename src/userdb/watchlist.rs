//! The watchlist's table (`watchlist.sql`), and its move from the window's eframe storage: the
//! list an older version kept there is written here once, on first start, and the `meta` key
//! [`MIGRATED_KEY`] records that it was, so a later start never brings removed stars back.

use rusqlite::params;

use super::{UserDb, UserDbError};
use crate::model::Country;

/// The `meta` key set once the old watchlist was moved here.
pub const MIGRATED_KEY: &str = "watchlist_migrated";

/// A starred product as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchRow {
    /// Product UUID.
    pub product_id: String,
    /// Title when starred.
    pub title: String,
    /// Style code.
    pub sku: String,
    /// The dataset its prices come from.
    pub country: Country,
    /// Currency of the prices.
    pub currency: String,
    /// Lowest price when starred, in currency units; `None` when it had none.
    pub price_when_starred: Option<f64>,
}

/// The watchlist, in the user's order.
pub fn watchlist(db: &mut UserDb) -> Result<Vec<WatchRow>, UserDbError> {
    let read = |db: &mut UserDb| -> rusqlite::Result<Vec<WatchRow>> {
        let mut statement = db.conn().prepare(
            "SELECT product_id, title, sku, country, currency, price_when_starred_cents
             FROM watchlist ORDER BY position",
        )?;
        let rows = statement.query_map([], |row| {
            let country: String = row.get(3)?;
            Ok(WatchRow {
                product_id: row.get(0)?,
                title: row.get(1)?,
                sku: row.get(2)?,
                country: Country::parse(&country).unwrap_or_default(),
                currency: row.get(4)?,
                price_when_starred: row
                    .get::<_, Option<i64>>(5)?
                    .map(|cents| cents as f64 / 100.0),
            })
        })?;
        rows.collect()
    };
    read(db).map_err(|e| db.error(e))
}

/// Replaces the watchlist with `rows`, in one transaction.
pub fn save_watchlist(db: &mut UserDb, rows: &[WatchRow]) -> Result<(), UserDbError> {
    let write = |db: &mut UserDb| -> rusqlite::Result<()> {
        let tx = db.conn().transaction()?;
        tx.execute("DELETE FROM watchlist", [])?;
        {
            let mut insert = tx.prepare(
                "INSERT OR REPLACE INTO watchlist (product_id, position, title, sku, country,
                     currency, price_when_starred_cents) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for (position, row) in rows.iter().enumerate() {
                insert.execute(params![
                    row.product_id,
                    position as i64,
                    row.title,
                    row.sku,
                    row.country.code(),
                    row.currency,
                    row.price_when_starred
                        .filter(|p| p.is_finite())
                        .map(|p| (p * 100.0).round() as i64),
                ])?;
            }
        }
        tx.commit()
    };
    write(db).map_err(|e| db.error(e))
}

/// The watchlist, after moving `from_old_storage` here if that was never done. Returns the
/// stored list (the moved one on the first start).
pub fn load_watchlist_migrating(
    db: &mut UserDb,
    from_old_storage: &[WatchRow],
) -> Result<Vec<WatchRow>, UserDbError> {
    if db.meta(MIGRATED_KEY)?.is_none() {
        // One transaction would be nicer, but each write is atomic on its own and the order
        // makes a crash between them harmless: the list is written again on the next start.
        let mut rows = watchlist(db)?;
        for row in from_old_storage {
            if !rows.iter().any(|r| r.product_id == row.product_id) {
                rows.push(row.clone());
            }
        }
        save_watchlist(db, &rows)?;
        db.set_meta(MIGRATED_KEY, "1")?;
    }
    watchlist(db)
}
