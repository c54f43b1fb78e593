//! The one thread that owns the crawl's store file and the catalogue's codes: every read and
//! write of `stores.sqlite` and every matching pass runs there, in turn, off the async workers.
//! One thread, not the blocking pool: the codes of a million-product catalogue are read and
//! dropped on the thread that uses them, so the allocator keeps one arena's worth of memory
//! instead of one per pool thread (measured in `benches/store_match.rs`: 8 runs in the pool grew
//! the peak to 461 MB, on one thread it stays at about 130 MB). At nice 10, as the service's other
//! background threads.

use std::sync::mpsc;

use super::catalogue_keys::CatalogueKeys;
use super::store_db::{StoreDb, StoreDbError};

/// What the thread owns.
pub struct Owned {
    /// The store file.
    pub db: StoreDb,
    /// The catalogue's codes, once read (read again when the catalogue file changes).
    pub keys: Option<CatalogueKeys>,
}

type Job = Box<dyn FnOnce(&mut Owned) + Send>;

/// A handle to the thread; cheap to clone. The thread ends when the last handle is dropped.
#[derive(Clone)]
pub struct StoreWorker {
    jobs: mpsc::Sender<Job>,
}

impl std::fmt::Debug for StoreWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreWorker").finish_non_exhaustive()
    }
}

impl StoreWorker {
    /// Starts the thread owning `db`.
    ///
    /// # Errors
    /// The thread cannot be started.
    pub fn start(db: StoreDb) -> Result<Self, StoreDbError> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let path = db.path().to_path_buf();
        std::thread::Builder::new()
            .name("store-crawl-db".into())
            .spawn(move || {
                crate::service::background::lower_cpu_priority();
                let mut owned = Owned { db, keys: None };
                while let Ok(job) = queue.recv() {
                    job(&mut owned);
                }
            })
            .map_err(|source| StoreDbError::Io { path, source })?;
        Ok(Self { jobs })
    }

    /// Runs `job` on the thread and waits for its answer.
    ///
    /// # Errors
    /// `job`'s error, or [`StoreDbError::Gone`] when the thread ended (a job panicked).
    pub async fn run<T, E>(
        &self,
        job: impl FnOnce(&mut Owned) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreDbError> + Send + 'static,
    {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Box::new(move |owned: &mut Owned| {
                let _ = reply.send(job(owned));
            }))
            .map_err(|_| StoreDbError::Gone("the store file's thread has ended".into()))?;
        answer
            .await
            .map_err(|_| StoreDbError::Gone("a job on the store file's thread panicked".into()))?
    }
}
