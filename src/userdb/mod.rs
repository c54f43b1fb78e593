//! The user's own database: what the user made (watchlist, portfolio, alerts, price history),
//! kept in its own SQLite file in the data directory, apart from the catalogue. A catalogue can be
//! replaced or regenerated; this file never is.
//!
//! - **Schema:** `PRAGMA user_version` counts the migration steps applied; each step in
//!   [`MIGRATIONS`] runs once, in order, in its own transaction together with the version bump, so a
//!   crash mid-step leaves the previous version intact.
//! - **A copy before each migration:** before the first pending step runs, a consistent copy of the
//!   file (`VACUUM INTO`, which also takes what the WAL holds) is written beside it as
//!   `<file>.before-v<N>` and made durable with [`crate::durable`]; the migration does not start
//!   unless the copy is on disk.
//! - **Durability:** WAL with `synchronous = FULL` (a committed write survives a power cut), foreign
//!   keys on, a busy timeout so a second instance waits a little instead of failing at once.
//! - **Off the UI thread:** [`UserDbHandle`] owns the one connection on its own thread; the window
//!   sends it closures and polls the promise it gets back.
//!
//! A module that needs tables adds one step at the end of [`MIGRATIONS`]: a step is never edited
//! once released, since users' files have already run it.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use poll_promise::Promise;
use rusqlite::Connection;

use crate::durable;

pub mod alerts;
pub mod budget;
pub mod drops;
pub mod flips;
pub mod history;
pub mod portfolio;
pub mod sizes;
pub mod stores;
pub mod watchlist;

/// The migration steps, in order; step `i` takes the file from version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // 1: a key-value table for one-off facts (such as "the old watchlist was moved here").
    "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT;",
    // alerts: alerts, their firings and per-size price history.
    include_str!("alerts.sql"),
    // portfolio: the pairs held and their sales.
    include_str!("portfolio.sql"),
    // watchlist: moved here from the window's eframe storage.
    include_str!("watchlist.sql"),
    // retail storefronts: the stores listed in Settings.
    include_str!("stores.sql"),
    // price history: the store a retail price was read at, part of the key.
    include_str!("history_store.sql"),
    // my sizes: the US sizes the user wears or resells (the Flips and Drops filters).
    include_str!("sizes.sql"),
    // drops: the starred drops with their reminders.
    include_str!("drops.sql"),
    // flips: the flip settings and the flip alerts' memory.
    include_str!("flips.sql"),
];

/// What can go wrong with the user's database.
#[derive(Debug, thiserror::Error)]
pub enum UserDbError {
    /// SQLite refused: a locked file, a full disk, a damaged file, or a constraint.
    #[error("user database {path}: {source}")]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
    /// Reading or writing the file (or its pre-migration copy) failed.
    #[error("user database {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The file was written by a newer Solescope: its schema is not understood here, and it is left
    /// untouched.
    #[error(
        "user database {path} is at schema version {found}, newer than this Solescope knows ({known}); it was left untouched"
    )]
    TooNew {
        /// The file.
        path: PathBuf,
        /// The file's version.
        found: usize,
        /// The newest this build knows.
        known: usize,
    },
    /// The database thread is gone (it ended after a panic, or the app is closing).
    #[error("the user database is closed")]
    Closed,
    /// The data handed in or read back does not make sense (a bad amount, an unknown holding).
    #[error("{0}")]
    Invalid(String),
}

/// The user's database, open and at the newest schema.
pub struct UserDb {
    conn: Connection,
    path: PathBuf,
}

impl UserDb {
    /// The file's name in the data directory.
    pub const FILE_NAME: &'static str = "user.sqlite";

    /// Opens (creating if missing) and migrates the file at `path`.
    ///
    /// # Errors
    /// [`UserDbError`]: the file cannot be opened, is damaged or too new, or a migration (or the
    /// copy before it) failed; the file is then left at its last complete version.
    pub fn open(path: &Path) -> Result<Self, UserDbError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| UserDbError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        }
        let sqlite = |source| UserDbError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let mut conn = Connection::open(path).map_err(sqlite)?;
        conn.busy_timeout(Duration::from_secs(5)).map_err(sqlite)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(sqlite)?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(sqlite)?;
        migrate(&mut conn, path, MIGRATIONS)?;
        Ok(Self {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The connection, for the modules that own tables.
    pub fn conn(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Wraps a SQLite error with this file's path.
    pub fn error(&self, source: rusqlite::Error) -> UserDbError {
        UserDbError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// A value from the `meta` table.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails.
    pub fn meta(&self, key: &str) -> Result<Option<String>, UserDbError> {
        use rusqlite::OptionalExtension;
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
                row.get(0)
            })
            .optional()
            .map_err(|e| self.error(e))
    }

    /// Sets a value in the `meta` table.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the write fails.
    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), UserDbError> {
        self.conn
            .execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [key, value],
            )
            .map(drop)
            .map_err(|e| self.error(e))
    }
}

/// The schema version of an open connection.
fn version(conn: &Connection) -> rusqlite::Result<usize> {
    conn.pragma_query_value(None, "user_version", |row| row.get::<_, i64>(0))
        .map(|v| usize::try_from(v).unwrap_or(usize::MAX))
}

/// Runs the pending steps of `steps` (the app passes [`MIGRATIONS`]), after a copy of the file as
/// it was.
fn migrate(conn: &mut Connection, path: &Path, steps: &[&str]) -> Result<(), UserDbError> {
    let sqlite = |source| UserDbError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let found = version(conn).map_err(sqlite)?;
    if found > steps.len() {
        return Err(UserDbError::TooNew {
            path: path.to_path_buf(),
            found,
            known: steps.len(),
        });
    }
    if found == steps.len() {
        return Ok(());
    }
    if found > 0 {
        backup(conn, path, found)?;
    }
    for (step, sql) in steps.iter().enumerate().skip(found) {
        let tx = conn.transaction().map_err(sqlite)?;
        tx.execute_batch(sql).map_err(sqlite)?;
        tx.pragma_update(
            None,
            "user_version",
            i64::try_from(step + 1).unwrap_or(i64::MAX),
        )
        .map_err(sqlite)?;
        tx.commit().map_err(sqlite)?;
    }
    Ok(())
}

/// The copy kept before migrating from `version`: `<file>.before-v<version>`.
pub fn backup_path(path: &Path, version: usize) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".before-v{version}"));
    path.with_file_name(name)
}

/// Writes a consistent copy of the database (WAL included) beside it, durably: `VACUUM INTO` a
/// staged temporary name, then [`durable`]'s flush and rename.
fn backup(conn: &Connection, path: &Path, version: usize) -> Result<(), UserDbError> {
    let target = backup_path(path, version);
    let io = |source| UserDbError::Io {
        path: target.clone(),
        source,
    };
    let staged = durable::stage(&target).map_err(io)?;
    // VACUUM INTO refuses an existing file, even an empty one.
    std::fs::remove_file(staged.path()).map_err(io)?;
    let staged_path = staged.path().to_string_lossy().into_owned();
    conn.execute("VACUUM INTO ?1", [&staged_path])
        .map_err(|source| UserDbError::Sqlite {
            path: path.to_path_buf(),
            source,
        })?;
    staged.commit().map_err(io)
}

/// A closure for the database thread; `None` when the database could not be opened or is gone.
type Job = Box<dyn FnOnce(Option<&mut UserDb>) + Send>;

/// The user's database on its own thread: every read and write runs there, in the order sent, and
/// the caller polls a promise. Cloning shares the thread; it ends when the last handle is dropped.
#[derive(Clone)]
pub struct UserDbHandle {
    jobs: mpsc::Sender<Job>,
}

impl UserDbHandle {
    /// Opens the file on a new thread; the promise settles once it is open and migrated (or not).
    /// When opening fails, every later job settles with [`UserDbError::Closed`].
    pub fn spawn(path: PathBuf) -> (Self, Promise<Result<(), UserDbError>>) {
        let (jobs, receiver) = mpsc::channel::<Job>();
        let (opened, promise) = Promise::new();
        let thread = std::thread::Builder::new()
            .name("solescope-userdb".into())
            .spawn(move || {
                let mut db = match UserDb::open(&path) {
                    Ok(db) => {
                        opened.send(Ok(()));
                        Some(db)
                    }
                    Err(e) => {
                        opened.send(Err(e));
                        None
                    }
                };
                for job in receiver {
                    job(db.as_mut());
                }
            });
        match thread {
            Ok(_) => (Self { jobs }, promise),
            Err(source) => {
                let (sender, failed) = Promise::new();
                sender.send(Err(UserDbError::Io {
                    path: PathBuf::new(),
                    source,
                }));
                (Self { jobs }, failed)
            }
        }
    }

    /// Runs `job` on the database thread; the promise holds its result, or
    /// [`UserDbError::Closed`] when the database is not open. A job that panics settles as
    /// [`UserDbError::Invalid`] and the thread goes on.
    pub fn run<T, F>(&self, job: F) -> Promise<Result<T, UserDbError>>
    where
        T: Send + 'static,
        F: FnOnce(&mut UserDb) -> Result<T, UserDbError> + Send + 'static,
    {
        let (sender, promise) = Promise::new();
        let boxed: Job = Box::new(move |db: Option<&mut UserDb>| {
            let result = match db {
                None => Err(UserDbError::Closed),
                Some(db) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(db)))
                    .unwrap_or_else(|_| {
                        Err(UserDbError::Invalid("a user database task failed".into()))
                    }),
            };
            sender.send(result);
        });
        if let Err(mpsc::SendError(job)) = self.jobs.send(boxed) {
            job(None);
        }
        promise
    }
}

#[cfg(test)]
mod tests;
