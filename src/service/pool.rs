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
