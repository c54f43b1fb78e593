//! The KicksDB source's own cache: the mirror catalogue file (`catalogue::mirror`), opened and
//! written only by the source. One writer connection, used for a local transaction at a time
//! (never held across a call to KicksDB), and a pool of readers for what the mirror answers when
//! KicksDB cannot.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::Connection;

use crate::catalogue::{Catalogue, CatalogueError};
use crate::service::error::ApiError;
use crate::service::pool::Pool;
use crate::upstream::{FetchError, FetchKind};

/// The mirror file, its writer and its readers.
pub(super) struct Mirror {
    path: PathBuf,
    writer: Arc<Mutex<Catalogue>>,
    readers: Arc<Pool>,
}

impl Mirror {
    /// Opens the mirror at `path`, creating an empty one there first when there is none.
    pub(super) fn open(path: &Path) -> Result<Self, CatalogueError> {
        let writer = crate::catalogue::mirror::open_or_create(path, "kicksdb")?;
        let readers = Pool::open(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            writer: Arc::new(Mutex::new(writer)),
            readers: Arc::new(readers),
        })
    }

    /// The file.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `work` on the writer connection on the blocking pool: a write and, in the same
    /// turn, the read of what the answer needs of it.
    pub(super) async fn write<T, F>(&self, work: F) -> Result<T, FetchError>
    where
        F: FnOnce(&mut Connection) -> Result<T, CatalogueError> + Send + 'static,
        T: Send + 'static,
    {
        let writer = Arc::clone(&self.writer);
        tokio::task::spawn_blocking(move || {
            let mut catalogue = writer.lock().unwrap_or_else(PoisonError::into_inner);
            work(catalogue.connection_mut())
        })
        .await
        .map_err(|err| mirror_failed(&err.to_string()))?
        .map_err(|err| mirror_failed(&err.to_string()))
    }

    /// Runs `work` on a reader connection on the blocking pool.
    pub(super) async fn read<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce(&Connection) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        self.readers.read(work).await
    }

    /// [`read`](Self::read), blocking (the key table, read by the auth layer off the workers).
    pub(super) fn read_now<T>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        work(&*self.readers.get()?)
    }
}

fn mirror_failed(detail: &str) -> FetchError {
    FetchError::new(
        &Arc::from("KicksDB mirror"),
        FetchKind::Unavailable,
        format!("writing the mirror failed: {detail}"),
    )
}
