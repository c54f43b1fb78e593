//! A small pool of read-only SQLite connections to the catalogue.
//!
//! Written by hand: `r2d2_sqlite` and `deadpool-sqlite` pin their own rusqlite versions, and
//! what the service needs is twenty lines: take an idle connection or open one, give it back.
//! Queries are short indexed lookups (well under a millisecond), so handlers run them inline.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use rusqlite::Connection;

use crate::catalogue::{Catalogue, CatalogueError};

/// Idle connections kept for reuse.
const MAX_IDLE: usize = 16;

/// Read-only connections to one catalogue file.
#[derive(Debug)]
pub struct Pool {
    path: PathBuf,
    idle: Mutex<Vec<Catalogue>>,
}

impl Pool {
    /// A pool for the catalogue at `path`; opens one connection now to check the file.
    pub fn open(path: &Path) -> Result<Self, CatalogueError> {
        let first = Catalogue::open_read_only(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            idle: Mutex::new(vec![first]),
        })
    }

    /// A connection, returned to the pool when dropped.
    pub fn get(&self) -> Result<Pooled<'_>, CatalogueError> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let catalogue = match idle {
            Some(catalogue) => catalogue,
            None => Catalogue::open_read_only(&self.path)?,
        };
        Ok(Pooled {
            pool: self,
            catalogue: Some(catalogue),
        })
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
            let mut idle = self
                .pool
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if idle.len() < MAX_IDLE {
                idle.push(catalogue);
            }
        }
    }
}
