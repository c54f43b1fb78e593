//! The SQLite catalogue: schema, migrations, generator, importer and the demo catalogue.
//!
//! One file holds products, variants, release dates, retail prices, links, weekly orders, the US
//! and FR datasets (every price in USD and EUR) and the API keys. The schema lives in
//! `schema.sql`; its version is `PRAGMA user_version`, and older files are migrated in place
//! (see [`migrate`]) instead of being rejected.

mod atomic;
pub mod demo;
pub mod generate;
pub mod gtin;
pub mod import;
pub mod keys;
mod migrate;
pub mod mirror;
pub mod prices;
pub mod read;
pub mod stats;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension};

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: u32 = 3;

const SCHEMA: &str = include_str!("schema.sql");
const INDEX_MARKER: &str = "-- Indexes for every lookup";

/// What can go wrong with a catalogue file.
#[derive(Debug, thiserror::Error)]
pub enum CatalogueError {
    /// SQLite refused an operation.
    #[error("catalogue database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A file operation failed.
    #[error("{source}: {}", path.display())]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// There is no catalogue at the path.
    #[error("no catalogue at {}", path.display())]
    Missing {
        /// The path looked at.
        path: PathBuf,
    },
    /// The file is not a SQLite database or not a catalogue, or is damaged.
    #[error("the file is not a readable Solescope catalogue ({detail}): {}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        detail: String,
    },
    /// The file was written by a newer Solescope.
    #[error(
        "the catalogue has schema version {found}, newer than this build's {supported}: {}",
        path.display()
    )]
    TooNew {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: u32,
        /// The newest this build reads.
        supported: u32,
    },
    /// An argument was not usable.
    #[error("{0}")]
    Invalid(String),
    /// An import line could not be used.
    #[error("line {line}: {message}")]
    Import {
        /// 1-based line number in the input.
        line: usize,
        /// What was wrong, naming the field.
        message: String,
    },
}

/// An open catalogue.
#[derive(Debug)]
pub struct Catalogue {
    conn: Connection,
    path: PathBuf,
}

impl Catalogue {
    /// Opens an existing catalogue for reading and writing, migrating an older schema first.
    pub fn open(path: &Path) -> Result<Self, CatalogueError> {
        if !path.exists() {
            return Err(CatalogueError::Missing {
                path: path.to_path_buf(),
            });
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags)?;
        configure(&conn)?;
        let version = read_version(&conn, path)?;
        if version > SCHEMA_VERSION {
            return Err(CatalogueError::TooNew {
                path: path.to_path_buf(),
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        if version < SCHEMA_VERSION {
            migrate::migrate(&mut conn, version, path)?;
        }
        Ok(Self {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Opens an existing, current catalogue read-only (no migration). For readers beside a writer.
    pub fn open_read_only(path: &Path) -> Result<Self, CatalogueError> {
        if !path.exists() {
            return Err(CatalogueError::Missing {
                path: path.to_path_buf(),
            });
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)?;
        configure(&conn)?;
        let version = read_version(&conn, path)?;
        if version != SCHEMA_VERSION {
            return Err(CatalogueError::Corrupt {
                path: path.to_path_buf(),
                detail: format!(
                    "schema version {version}, expected {SCHEMA_VERSION}; open it read-write once to migrate"
                ),
            });
        }
        Ok(Self {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The SQLite connection.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// The SQLite connection, mutably (for transactions).
    pub fn connection_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A value of the `meta` table.
    pub fn meta(&self, key: &str) -> Result<Option<String>, CatalogueError> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
                row.get(0)
            })
            .optional()?)
    }

    /// Number of products.
    pub fn product_count(&self) -> Result<u64, CatalogueError> {
        let count: i64 = self
            .conn
            .query_row("SELECT count(*) FROM products", [], |row| row.get(0))?;
        Ok(count as u64)
    }

    /// Runs SQLite's own consistency check; `Err(Corrupt)` names the first problem.
    pub fn integrity_check(&self) -> Result<(), CatalogueError> {
        let verdict: String = self
            .conn
            .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))?;
        if verdict == "ok" {
            Ok(())
        } else {
            Err(CatalogueError::Corrupt {
                path: self.path.clone(),
                detail: verdict,
            })
        }
    }
}

fn configure(conn: &Connection) -> Result<(), CatalogueError> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    // `rarray(?)`: reads bind a list of keys as one parameter (see `read::search_hits`).
    rusqlite::vtab::array::load_module(conn)?;
    conn.execute_batch("PRAGMA foreign_keys = ON;")?;
    Ok(())
}

/// Reads `user_version`, telling a damaged or foreign file apart from a catalogue.
fn read_version(conn: &Connection, path: &Path) -> Result<u32, CatalogueError> {
    let corrupt = |detail: String| CatalogueError::Corrupt {
        path: path.to_path_buf(),
        detail,
    };
    let version: u32 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|err| corrupt(err.to_string()))?;
    let has_products: bool = conn
        .query_row(
            "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'products'",
            [],
            |row| row.get(0),
        )
        .map_err(|err| corrupt(err.to_string()))?;
    if version == 0 || !has_products {
        return Err(corrupt("no catalogue schema in the file".into()));
    }
    Ok(version)
}

/// The schema split into table definitions and index definitions, so bulk loads can add the
/// indexes after the rows (several times faster than maintaining them row by row).
pub(crate) fn schema_parts() -> (&'static str, &'static str) {
    SCHEMA.split_at(SCHEMA.find(INDEX_MARKER).unwrap_or(SCHEMA.len()))
}

/// Creates an empty catalogue with the full current schema at `path`.
pub(crate) fn create_schema(conn: &Connection) -> Result<(), CatalogueError> {
    conn.execute_batch(SCHEMA)?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    Ok(())
}

pub(crate) fn write_meta(
    conn: &Connection,
    entries: &[(&str, &str)],
) -> Result<(), CatalogueError> {
    let mut statement = conn.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")?;
    for (key, value) in entries {
        statement.execute([key, value])?;
    }
    Ok(())
}

/// Runs `read` with `conn`'s file read through a memory map, closed again afterwards.
///
/// For reads of whole tables at start (the search index, the hit store, the related-products
/// index: a million products and 14 million variants, many reached by one B-tree lookup each):
/// a page read is then a memory access instead of a `pread` copy into `SQLite`'s small page
/// cache. The map is closed after because its pages would count as the service's resident
/// memory while it stays open.
pub fn with_file_mapped<T, E: From<rusqlite::Error>>(
    conn: &Connection,
    read: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let restore = map_file(conn)?;
    let outcome = read();
    conn.query_row(&format!("PRAGMA mmap_size = {restore}"), [], |_| Ok(()))
        .or_else(ignore_no_rows)?;
    outcome
}

/// Reads `conn`'s file through a memory map from now on; returns the setting to restore.
fn map_file(conn: &Connection) -> Result<i64, rusqlite::Error> {
    let was: i64 = match conn.query_row("PRAGMA mmap_size", [], |row| row.get(0)) {
        Err(rusqlite::Error::QueryReturnedNoRows) => 0,
        read => read?,
    };
    // 64 GB: more than any catalogue here. `SQLite` caps it at its compile-time limit, raised
    // to the same in `.cargo/config.toml` (2 GB by default).
    conn.query_row("PRAGMA mmap_size = 68719476736", [], |_| Ok(()))
        .or_else(ignore_no_rows)?;
    Ok(was)
}

/// `PRAGMA mmap_size` answers the size, or nothing where there is no file to map (a database
/// in memory).
fn ignore_no_rows(err: rusqlite::Error) -> Result<(), rusqlite::Error> {
    match err {
        rusqlite::Error::QueryReturnedNoRows => Ok(()),
        err => Err(err),
    }
}

/// Column `column` of `row` as text, borrowed (no `String` per field when a whole table is read).
pub(crate) fn text_at<'row>(
    row: &'row rusqlite::Row<'_>,
    column: usize,
) -> rusqlite::Result<&'row str> {
    row.get_ref(column)?
        .as_str()
        .map_err(|err| conversion(column, err))
}

/// Column `column` of `row` as text or `NULL`, borrowed.
pub(crate) fn optional_text_at<'row>(
    row: &'row rusqlite::Row<'_>,
    column: usize,
) -> rusqlite::Result<Option<&'row str>> {
    row.get_ref(column)?
        .as_str_or_null()
        .map_err(|err| conversion(column, err))
}

/// A column that is not text, as an error naming the column.
fn conversion(column: usize, err: rusqlite::types::FromSqlError) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, Box::new(err))
}
