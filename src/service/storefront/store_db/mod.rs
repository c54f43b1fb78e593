//! What the catalogue crawl read, kept on disk: `stores.sqlite` in the user's data directory,
//! beside `user.sqlite` and apart from it (schema in `schema.sql`).
//!
//! - **Atomic:** a page of the feed is written in one transaction with its pass's progress, and
//!   a pass's end (its outcome, the products gone from the store, when the next pass may run) in
//!   another; a pass cut off (the app closed) is marked `interrupted` at the next open. A product's
//!   row (and its sizes) is rewritten only when its `updated_at` changed.
//! - **WAL**, `synchronous = NORMAL`: a crash may lose the last transactions, never tear one; the
//!   data can be read again from the stores.
//! - **Replaceable:** unlike the user's own data, everything here can be read again. A file that
//!   is damaged (`quick_check`), not a database, or of another schema version is moved aside to
//!   `stores.sqlite.damaged-<time>` (never deleted) and a new one created; [`Opened`] says so.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use super::feed::CrawledProduct;
use crate::model::StoreUrl;

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 2;

const SCHEMA: &str = include_str!("schema.sql");

/// What went wrong with the crawl's file.
#[derive(Debug, thiserror::Error)]
pub enum StoreDbError {
    /// SQLite refused (a full disk, a locked file).
    #[error("store database {}: {source}", path.display())]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
    /// Moving a damaged file aside, or creating the folder, failed.
    #[error("store database {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The task that writes the file ended (it panicked, or the runtime is closing).
    #[error("the store database's writer ended: {0}")]
    Gone(String),
}

/// How the file was found when opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// There was none: created.
    Created,
    /// Read back.
    Reused,
    /// It was damaged or of another version: moved aside and created afresh.
    Rebuilt {
        /// What was wrong.
        reason: String,
        /// Where it was moved.
        moved_to: PathBuf,
    },
}

/// Whether a store's feed can be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedState {
    /// Not tried yet.
    Unknown,
    /// Read by the last pass that reached it.
    Read,
    /// The store refuses it: its products are looked up one by one.
    Refused,
}

impl FeedState {
    fn as_str(self) -> &'static str {
        match self {
            Self::Unknown => "unknown",
            Self::Read => "read",
            Self::Refused => "refused",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "read" => Self::Read,
            "refused" => Self::Refused,
            _ => Self::Unknown,
        }
    }
}

/// A store's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreRow {
    /// Its key in this file.
    pub store_id: i64,
    /// `/meta.json` `name`.
    pub shop_name: Option<String>,
    /// The feed's currency (`/meta.json`).
    pub currency: Option<String>,
    /// Whether the feed can be read.
    pub feed: FeedState,
    /// Why it is refused.
    pub feed_detail: Option<String>,
    /// No pass before this time (Unix seconds).
    pub next_pass_at: Option<i64>,
}

/// How a pass ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassOutcome {
    /// Every page read.
    Complete,
    /// Some pages read: a cap, a repeating page, a store that asked to wait, skipped pages.
    Partial,
    /// The store refuses its feed.
    Refused,
    /// Nothing read (unreachable, timed out, a server error).
    Failed,
    /// Cut off (the app closed during the pass).
    Interrupted,
}

impl PassOutcome {
    fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Partial => "partial",
            Self::Refused => "refused",
            Self::Failed => "failed",
            Self::Interrupted => "interrupted",
        }
    }

    fn parse(text: Option<&str>) -> Self {
        match text {
            Some("complete") => Self::Complete,
            Some("partial") => Self::Partial,
            Some("refused") => Self::Refused,
            Some("failed") => Self::Failed,
            _ => Self::Interrupted,
        }
    }
}

/// A pass as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassRow {
    /// Its key.
    pub pass_id: i64,
    /// Started (Unix seconds).
    pub started_at: i64,
    /// Finished; `None` while running or when cut off.
    pub finished_at: Option<i64>,
    /// Requests sent (`/meta.json` and pages).
    pub requests: u32,
    /// Pages read.
    pub pages_read: u32,
    /// Products on them.
    pub products_seen: u32,
    /// Products new or changed.
    pub products_written: u32,
    /// Products gone from the store.
    pub products_removed: u32,
    /// What `/meta.json` said the store has.
    pub expected_products: Option<u64>,
    /// How it ended (`Interrupted` while running).
    pub outcome: PassOutcome,
    /// Why partial, refused or failed, and pages skipped.
    pub detail: Option<String>,
}

/// A pass's end, as [`StoreDb::finish_pass`] writes it.
#[derive(Debug, Clone)]
pub struct PassEnd<'a> {
    /// When it finished.
    pub finished_at: i64,
    /// How.
    pub outcome: PassOutcome,
    /// Why, in sentences.
    pub detail: Option<&'a str>,
    /// Requests sent.
    pub requests: u32,
    /// The feed's state after it.
    pub feed: FeedState,
    /// When the next pass may start.
    pub next_pass_at: i64,
    /// On a complete pass, every product id seen: the others are gone from the store.
    pub seen: Option<&'a HashSet<u64>>,
}

/// The crawl's file, open.
pub struct StoreDb {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for StoreDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreDb")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// What `map_err` turns a SQLite error on the file at `path` into. It only borrows the path,
/// so it is `Copy` (one serves every call of a function) and leaves the connection free for a
/// transaction.
fn sqlite_error_at(path: &Path) -> impl Fn(rusqlite::Error) -> StoreDbError + Copy + '_ {
    move |source| StoreDbError::Sqlite {
        path: path.to_path_buf(),
        source,
    }
}

/// `stores.sqlite` -> `stores.sqlite.damaged-20261122T153812`.
fn aside_path(path: &Path) -> PathBuf {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3f");
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".damaged-{stamp}"));
    path.with_file_name(name)
}

/// Why the file at `path` cannot be used as it is (`None`: it can, or there is none yet).
fn problem_with(conn: &Connection) -> Option<String> {
    let check: rusqlite::Result<String> =
        conn.query_row("PRAGMA quick_check(1)", [], |row| row.get(0));
    match check {
        Ok(verdict) if verdict == "ok" => {}
        Ok(verdict) => return Some(verdict),
        Err(err) => return Some(err.to_string()),
    }
    let version: i64 = match conn.query_row("PRAGMA user_version", [], |row| row.get(0)) {
        Ok(version) => version,
        Err(err) => return Some(err.to_string()),
    };
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))
        .unwrap_or(0);
    match version {
        SCHEMA_VERSION => None,
        0 if tables == 0 => None,
        other => Some(format!(
            "schema version {other}, this build writes {SCHEMA_VERSION}"
        )),
    }
}

impl StoreDb {
    /// The file's name in the data directory.
    pub const FILE_NAME: &'static str = "stores.sqlite";

    /// Opens (creating, or moving a damaged file aside and creating) the file at `path`.
    ///
    /// # Errors
    /// The folder or file cannot be created or written.
    pub fn open(path: &Path) -> Result<(Self, Opened), StoreDbError> {
        let io = |source| StoreDbError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let existed = path.exists();
        let problem = if existed {
            match Connection::open(path) {
                Ok(conn) => problem_with(&conn),
                Err(err) => Some(err.to_string()),
            }
        } else {
            None
        };
        let opened = if let Some(reason) = problem {
            let moved_to = aside_path(path);
            std::fs::rename(path, &moved_to).map_err(io)?;
            for suffix in ["-wal", "-shm"] {
                let mut side = path.as_os_str().to_owned();
                side.push(suffix);
                let _ = std::fs::remove_file(PathBuf::from(side));
            }
            tracing::warn!(
                "the crawled stores' file was unusable ({reason}); it was moved to {} and is read again from the stores",
                moved_to.display()
            );
            Opened::Rebuilt { reason, moved_to }
        } else if existed {
            Opened::Reused
        } else {
            Opened::Created
        };
        let sqlite = sqlite_error_at(path);
        let conn = Connection::open(path).map_err(sqlite)?;
        conn.busy_timeout(Duration::from_secs(5)).map_err(sqlite)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sqlite)?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(sqlite)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(sqlite)?;
        if version == 0 {
            conn.execute_batch(&format!(
                "BEGIN; {SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))
            .map_err(sqlite)?;
        }
        // A pass the app's end cut off.
        conn.execute(
            "UPDATE pass SET outcome = 'interrupted' WHERE finished_at IS NULL AND outcome IS NULL",
            [],
        )
        .map_err(sqlite)?;
        Ok((
            Self {
                conn,
                path: path.to_path_buf(),
            },
            opened,
        ))
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, source: rusqlite::Error) -> StoreDbError {
        StoreDbError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// The store's row, created when new.
    ///
    /// # Errors
    /// SQLite refused.
    pub fn store(&mut self, url: &StoreUrl) -> Result<StoreRow, StoreDbError> {
        self.conn
            .execute(
                "INSERT INTO store (url) VALUES (?1) ON CONFLICT (url) DO NOTHING",
                [url.as_str()],
            )
            .map_err(|e| self.error(e))?;
        self.conn
            .query_row(
                "SELECT store_id, shop_name, currency, feed, feed_detail, next_pass_at
                 FROM store WHERE url = ?1",
                [url.as_str()],
                |row| {
                    Ok(StoreRow {
                        store_id: row.get(0)?,
                        shop_name: row.get(1)?,
                        currency: row.get(2)?,
                        feed: FeedState::parse(&row.get::<_, String>(3)?),
                        feed_detail: row.get(4)?,
                        next_pass_at: row.get(5)?,
                    })
                },
            )
            .map_err(|e| self.error(e))
    }

    /// Starts a pass; its row is written now.
    ///
    /// # Errors
    /// SQLite refused.
    pub fn begin_pass(&mut self, store_id: i64, started_at: i64) -> Result<i64, StoreDbError> {
        self.conn
            .execute(
                "INSERT INTO pass (store_id, started_at) VALUES (?1, ?2)",
                params![store_id, started_at],
            )
            .map_err(|e| self.error(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Notes what `/meta.json` said: the shop's name, currency and product count.
    ///
    /// # Errors
    /// SQLite refused.
    pub fn note_shop(
        &mut self,
        store_id: i64,
        pass_id: i64,
        name: Option<&str>,
        currency: Option<&str>,
        expected_products: Option<u64>,
    ) -> Result<(), StoreDbError> {
        let sqlite = sqlite_error_at(&self.path);
        let tx = self.conn.transaction().map_err(sqlite)?;
        tx.execute(
            "UPDATE store SET shop_name = coalesce(?2, shop_name), currency = coalesce(?3, currency)
             WHERE store_id = ?1",
            params![store_id, name, currency],
        )
        .and_then(|_| {
            tx.execute(
                "UPDATE pass SET expected_products = ?2 WHERE pass_id = ?1",
                params![pass_id, expected_products.and_then(|n| i64::try_from(n).ok())],
            )
        })
        .and_then(|_| tx.commit())
        .map_err(sqlite)
    }

    /// Writes a page of the feed, with the pass's progress, in one transaction: each product new
    /// or with another `updated_at` is (re)written with its sizes (a size's barcode, read
    /// earlier, is kept by its variant id); the others are left alone. Returns how many were
    /// written.
    ///
    /// # Errors
    /// SQLite refused; nothing of the page is written.
    pub fn write_page(
        &mut self,
        store_id: i64,
        pass_id: i64,
        products: &[CrawledProduct],
        requests: u32,
    ) -> Result<u32, StoreDbError> {
        let sqlite = sqlite_error_at(&self.path);
        let tx = self.conn.transaction().map_err(sqlite)?;
        let mut written = 0_u32;
        {
            let mut known = tx
                .prepare_cached(
                    "SELECT updated_at FROM product WHERE store_id = ?1 AND product_id = ?2",
                )
                .map_err(sqlite)?;
            let mut old_barcodes = tx
                .prepare_cached(
                    "SELECT variant_id, barcode FROM variant
                     WHERE store_id = ?1 AND product_id = ?2 AND barcode IS NOT NULL",
                )
                .map_err(sqlite)?;
            let mut put_product = tx
                .prepare_cached(
                    "INSERT INTO product (store_id, product_id, handle, title, vendor, product_type,
                         tags, images, updated_at, published_at, written_pass, first_pass,
                         first_seen)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11,
                         (SELECT started_at FROM pass WHERE pass_id = ?11))
                     ON CONFLICT (store_id, product_id) DO UPDATE SET handle = excluded.handle,
                         title = excluded.title, vendor = excluded.vendor,
                         product_type = excluded.product_type, tags = excluded.tags,
                         images = excluded.images, updated_at = excluded.updated_at,
                         published_at = excluded.published_at,
                         written_pass = excluded.written_pass",
                )
                .map_err(sqlite)?;
            let mut drop_variants = tx
                .prepare_cached("DELETE FROM variant WHERE store_id = ?1 AND product_id = ?2")
                .map_err(sqlite)?;
            let mut put_variant = tx
                .prepare_cached(
                    "INSERT INTO variant (store_id, product_id, position, variant_id, size, sku,
                         price, available, barcode)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )
                .map_err(sqlite)?;
            for product in products {
                let id = i64::try_from(product.product_id).unwrap_or(i64::MAX);
                let before: Option<String> = known
                    .query_row(params![store_id, id], |row| row.get(0))
                    .optional()
                    .map_err(sqlite)?;
                if before.as_deref() == Some(product.updated_at.as_str()) {
                    continue;
                }
                let barcodes: HashMap<i64, String> = old_barcodes
                    .query_map(params![store_id, id], |row| Ok((row.get(0)?, row.get(1)?)))
                    .map_err(sqlite)?
                    .collect::<Result<_, _>>()
                    .map_err(sqlite)?;
                put_product
                    .execute(params![
                        store_id,
                        id,
                        product.handle,
                        product.title,
                        product.vendor,
                        product.product_type,
                        serde_json::to_string(&product.tags).unwrap_or_else(|_| "[]".into()),
                        serde_json::to_string(&product.images).unwrap_or_else(|_| "[]".into()),
                        product.updated_at,
                        product.published_at,
                        pass_id,
                    ])
                    .map_err(sqlite)?;
                drop_variants
                    .execute(params![store_id, id])
                    .map_err(sqlite)?;
                for (position, variant) in product.variants.iter().enumerate() {
                    let variant_id = i64::try_from(variant.variant_id).unwrap_or(i64::MAX);
                    let barcode = variant
                        .barcode
                        .clone()
                        .or_else(|| barcodes.get(&variant_id).cloned());
                    put_variant
                        .execute(params![
                            store_id,
                            id,
                            i64::try_from(position).unwrap_or(i64::MAX),
                            variant_id,
                            variant.size,
                            variant.sku,
                            variant.price,
                            variant.available,
                            barcode,
                        ])
                        .map_err(sqlite)?;
                }
                written += 1;
            }
        }
        tx.execute(
            "UPDATE pass SET requests = ?2, pages_read = pages_read + 1,
                 products_seen = products_seen + ?3, products_written = products_written + ?4
             WHERE pass_id = ?1",
            params![
                pass_id,
                requests,
                i64::try_from(products.len()).unwrap_or(i64::MAX),
                written
            ],
        )
        .map_err(sqlite)?;
        tx.commit().map_err(sqlite)?;
        Ok(written)
    }

    /// Ends a pass in one transaction: its outcome, the store's feed state and next pass time,
    /// and, after a complete pass, the products it did not see removed. Returns how many were.
    ///
    /// # Errors
    /// SQLite refused; nothing of the end is written.
    pub fn finish_pass(
        &mut self,
        store_id: i64,
        pass_id: i64,
        end: &PassEnd<'_>,
    ) -> Result<u32, StoreDbError> {
        let sqlite = sqlite_error_at(&self.path);
        let tx = self.conn.transaction().map_err(sqlite)?;
        let mut removed = 0_u32;
        if let Some(seen) = end.seen {
            let ids: Vec<i64> = {
                let mut statement = tx
                    .prepare("SELECT product_id FROM product WHERE store_id = ?1")
                    .map_err(sqlite)?;
                statement
                    .query_map([store_id], |row| row.get(0))
                    .map_err(sqlite)?
                    .collect::<Result<_, _>>()
                    .map_err(sqlite)?
            };
            let mut drop = tx
                .prepare("DELETE FROM product WHERE store_id = ?1 AND product_id = ?2")
                .map_err(sqlite)?;
            for id in ids {
                if !u64::try_from(id).is_ok_and(|id| seen.contains(&id)) {
                    drop.execute(params![store_id, id]).map_err(sqlite)?;
                    removed += 1;
                }
            }
        }
        tx.execute(
            "UPDATE pass SET finished_at = ?2, outcome = ?3, detail = ?4, requests = ?5,
                 products_removed = ?6
             WHERE pass_id = ?1",
            params![
                pass_id,
                end.finished_at,
                end.outcome.as_str(),
                end.detail,
                end.requests,
                removed
            ],
        )
        .map_err(sqlite)?;
        let detail = (end.feed == FeedState::Refused)
            .then_some(end.detail)
            .flatten();
        tx.execute(
            "UPDATE store SET feed = ?2, feed_detail = ?3, next_pass_at = ?4 WHERE store_id = ?1",
            params![store_id, end.feed.as_str(), detail, end.next_pass_at],
        )
        .map_err(sqlite)?;
        tx.commit().map_err(sqlite)?;
        Ok(removed)
    }

    /// Keeps the barcodes read from `/products/{handle}.json` for product `product_id` as it was
    /// at `updated_at` (`variant id -> barcode`), in one transaction.
    ///
    /// # Errors
    /// SQLite refused.
    pub fn set_barcodes(
        &mut self,
        store_id: i64,
        product_id: u64,
        updated_at: &str,
        barcodes: &HashMap<u64, String>,
    ) -> Result<(), StoreDbError> {
        let sqlite = sqlite_error_at(&self.path);
        let id = i64::try_from(product_id).unwrap_or(i64::MAX);
        let tx = self.conn.transaction().map_err(sqlite)?;
        {
            let mut put = tx
                .prepare_cached(
                    "UPDATE variant SET barcode = ?3
                     WHERE store_id = ?1 AND product_id = ?2 AND variant_id = ?4",
                )
                .map_err(sqlite)?;
            for (variant, barcode) in barcodes {
                let variant = i64::try_from(*variant).unwrap_or(i64::MAX);
                put.execute(params![store_id, id, barcode, variant])
                    .map_err(sqlite)?;
            }
        }
        tx.execute(
            "UPDATE product SET barcodes_for = ?3 WHERE store_id = ?1 AND product_id = ?2",
            params![store_id, id, updated_at],
        )
        .map_err(sqlite)?;
        tx.commit().map_err(sqlite)
    }
}

mod read;
#[cfg(test)]
mod tests;
