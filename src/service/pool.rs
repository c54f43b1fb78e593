//! A small pool of read-only SQLite connections to the catalogue.
//!
//! Written by hand: `r2d2_sqlite` and `deadpool-sqlite` pin their own rusqlite versions, and
//! what the service needs is forty lines: take an idle connection or open one, give it back.
//! Callers run on tokio's blocking pool ([`Pool::read`]), never on the async workers,
//! so waiting here for a free connection blocks no async task. At most [`MAX_OPEN`] connections
//! exist at once: each holds its own page cache, so a flood must not open hundreds.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use rusqlite::Connection;

use super::error::ApiError;
use crate::catalogue::{Catalogue, CatalogueError};

/// Connections open at once (idle or on loan).
pub const MAX_OPEN: usize = 16;

/// Parts a [`Pool::read_parts`] runs at once, at most.
pub const PARTS: usize = 4;

/// Items a part of a [`Pool::read_parts`] holds at least.
pub const PART_MIN: usize = 8;

/// Read-only connections to one catalogue file.
#[derive(Debug)]
pub struct Pool {
    path: PathBuf,
    slots: Mutex<Slots>,
    /// Signalled when a connection comes back.
    returned: Condvar,
}

#[derive(Debug)]
struct Slots {
    idle: Vec<Catalogue>,
    /// Connections open, idle ones included.
    open: usize,
}

impl Pool {
    /// A pool for the catalogue at `path`; opens one connection now to check the file.
    pub fn open(path: &Path) -> Result<Self, CatalogueError> {
        let first = Catalogue::open_read_only(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            slots: Mutex::new(Slots {
                idle: vec![first],
                open: 1,
            }),
            returned: Condvar::new(),
        })
    }

    /// A connection, returned to the pool when dropped: an idle one, a new one while fewer
    /// than [`MAX_OPEN`] are open, or else the next one given back. Blocking.
    pub fn get(&self) -> Result<Pooled<'_>, CatalogueError> {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(catalogue) = slots.idle.pop() {
                return Ok(self.loan(catalogue));
            }
            if slots.open < MAX_OPEN {
                slots.open += 1;
                drop(slots);
                return match Catalogue::open_read_only(&self.path) {
                    Ok(catalogue) => Ok(self.loan(catalogue)),
                    Err(err) => {
                        self.slots
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .open -= 1;
                        self.returned.notify_one();
                        Err(err)
                    }
                };
            }
            slots = self
                .returned
                .wait(slots)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Runs `work` on a pooled connection on tokio's blocking pool, so the async workers keep
    /// answering while it reads.
    pub async fn read<T, F>(self: &Arc<Self>, work: F) -> Result<T, ApiError>
    where
        F: FnOnce(&Connection) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let pool = Arc::clone(self);
        tokio::task::spawn_blocking(move || work(&*pool.get()?))
            .await
            .map_err(|err| {
                tracing::error!("a blocking read failed: {err:#}");
                ApiError::Internal
            })?
    }

    /// Runs `work` over `items` cut in up to [`PARTS`] parts (of at least [`PART_MIN`] items), each
    /// on a connection of its own on tokio's blocking pool, all at once; the parts' answers in
    /// `items`' order. Lookups by style code in a catalogue the page cache does not hold are disk
    /// reads one after another; parts in flight together overlap them (and use both cores when
    /// the file is cached).
    ///
    /// # Errors
    /// The first part's error, in `items`' order.
    pub async fn read_parts<I, T, F>(
        self: &Arc<Self>,
        items: &[I],
        work: F,
    ) -> Result<Vec<T>, ApiError>
    where
        I: Clone + Send + 'static,
        F: Fn(&Connection, &[I]) -> Result<T, ApiError> + Send + Sync + 'static,
        T: Send + 'static,
    {
        let work = Arc::new(work);
        let size = items.len().div_ceil(PARTS).max(PART_MIN);
        let parts: Vec<_> = items
            .chunks(size)
            .map(|part| {
                let (pool, work, part) = (Arc::clone(self), Arc::clone(&work), part.to_vec());
                tokio::task::spawn_blocking(move || work(&*pool.get()?, &part))
            })
            .collect();
        let mut answers = Vec::with_capacity(parts.len());
        for part in parts {
            answers.push(part.await.map_err(|err| {
                tracing::error!("a blocking read failed: {err:#}");
                ApiError::Internal
            })??);
        }
        Ok(answers)
    }

    fn loan(&self, catalogue: Catalogue) -> Pooled<'_> {
        Pooled {
            pool: self,
            catalogue: Some(catalogue),
        }
    }
}

/// A connection on loan from a [`Pool`].
pub struct Pooled<'pool> {
    pool: &'pool Pool,
    catalogue: Option<Catalogue>,
}

impl Deref for Pooled<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        // Present until drop.
        match &self.catalogue {
            Some(catalogue) => catalogue.connection(),
            None => unreachable!("connection taken before drop"),
        }
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(catalogue) = self.catalogue.take() {
            self.pool
                .slots
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .idle
                .push(catalogue);
            self.pool.returned.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::generate::{GenerateOptions, generate};

    fn pool(dir: &Path) -> Arc<Pool> {
        let path = dir.join("catalogue.sqlite");
        let options = GenerateOptions {
            products: 20,
            seed: 3,
            as_of: chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
            demo_keys: false,
        };
        generate(&options, &path, &mut |_| {}).unwrap();
        Arc::new(Pool::open(&path).unwrap())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn parts_answer_in_the_items_order_and_an_error_is_the_answer() {
        let dir = tempfile::tempdir().unwrap();
        let pool = pool(dir.path());
        let items: Vec<u32> = (0..37).collect();
        // Each part reads the catalogue and answers its items: four parts, in order.
        let parts = pool
            .read_parts(&items, |conn, part| {
                let products: u32 = conn
                    .query_row("SELECT count(*) FROM products", [], |row| row.get(0))
                    .unwrap();
                assert_eq!(products, 20);
                Ok(part.to_vec())
            })
            .await
            .unwrap();
        assert_eq!(parts.len(), PARTS);
        assert_eq!(parts.concat(), items);
        // A few items: one part.
        let few = pool
            .read_parts(&items[..5], |_, part| Ok(part.len()))
            .await
            .unwrap();
        assert_eq!(few, [5]);
        // A part that fails fails the whole read.
        let failed = pool
            .read_parts(&items, |_, part| {
                if part.contains(&30) {
                    Err(ApiError::Internal)
                } else {
                    Ok(part.len())
                }
            })
            .await;
        assert!(failed.is_err());
    }
}
