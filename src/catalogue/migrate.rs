//! Brings catalogue files of older schema versions up to [`super::SCHEMA_VERSION`].
//!
//! Each step upgrades one version inside its own transaction together with `user_version`, so a
//! failed step leaves the file exactly as it was.

use std::path::Path;

use rusqlite::Connection;

use super::CatalogueError;

/// `STEPS[i]` upgrades a file from version `i + 1` to `i + 2`.
const STEPS: &[&str] = &[
    // 1 -> 2: popularity (orders of the newest four weeks) for search tie-breaks.
    "ALTER TABLE products ADD COLUMN popularity INTEGER NOT NULL DEFAULT 0;
     UPDATE products SET popularity = COALESCE((
         SELECT sum(orders) FROM (
             SELECT orders FROM weekly_orders w
             WHERE w.product_pk = products.pk
             ORDER BY week_start DESC LIMIT 4)), 0);
     CREATE INDEX products_popularity ON products(popularity DESC, pk);",
    // 2 -> 3: live sources: where a mirrored product came from and when, asks per size, exact
    // weekly GMV.
    "ALTER TABLE variants ADD COLUMN asks_usd INTEGER;
     ALTER TABLE variants ADD COLUMN asks_eur INTEGER;
     ALTER TABLE weekly_orders ADD COLUMN gmv_cents INTEGER;
     CREATE TABLE product_sources (
         product_pk        INTEGER PRIMARY KEY REFERENCES products(pk) ON DELETE CASCADE,
         source            TEXT NOT NULL,
         fetched_at        TEXT NOT NULL,
         weeks_fetched_at  TEXT
     );",
];

pub(super) fn migrate(conn: &mut Connection, from: u32, path: &Path) -> Result<(), CatalogueError> {
    for version in from..super::SCHEMA_VERSION {
        let step = STEPS
            .get(version as usize - 1)
            .ok_or_else(|| CatalogueError::Corrupt {
                path: path.to_path_buf(),
                detail: format!("no migration from schema version {version}"),
            })?;
        let tx = conn.transaction()?;
        tx.execute_batch(step)?;
        tx.pragma_update(None, "user_version", version + 1)?;
        tx.commit()?;
        tracing::info!(from = version, to = version + 1, path = %path.display(), "migrated catalogue");
    }
    Ok(())
}
