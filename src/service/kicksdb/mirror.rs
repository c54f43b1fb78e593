//! The KicksDB source's own cache: the mirror catalogue file (`catalogue::mirror`), opened and
//! written only by the source. One writer connection, used for a local transaction at a time
//! (never held across a call to KicksDB), a pool of readers for what the mirror answers when
//! KicksDB cannot, and the live search index over it (`search::live`): every product the
//! mirror writes joins the index in the same turn, so search as you type and every search
//! KicksDB cannot answer are ranked by the same engine as the demo (typos, prefixes, style
//! codes with or without their dash), never spending a call.
//!
//! The index is kept beside the mirror (`<mirror>.search-index`, `<mirror>.search-live/`).
//! The mirror is its truth: a start after the mirror changed rebuilds the index from the
//! mirror (milliseconds for the few thousand products a user mirrors; 0.1 s at 20,000), so a
//! write the index lost (a crash between the mirror's commit and the index's log) is back.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::Connection;

use crate::catalogue::read::search_hits;
use crate::catalogue::{Catalogue, CatalogueError};
use crate::model::{Country, SearchHit};
use crate::search::SearchRequest;
use crate::search::live::{LiveConfig, LiveError, LiveIndex, LiveProduct};
use crate::service::error::ApiError;
use crate::service::pool::Pool;
use crate::service::shelf::{Shelf, is_store_pk, store_hit};
use crate::upstream::{FetchError, FetchKind};

/// The mirror file, its writer, its readers and its search index.
pub(super) struct Mirror {
    path: PathBuf,
    writer: Arc<Mutex<Catalogue>>,
    readers: Arc<Pool>,
    index: Arc<LiveIndex>,
    /// The stores' products no mirrored product matched, in `index` (`service::shelf`).
    shelf: Shelf,
}

/// A page of the mirror's own search: its hits, the size of the whole result, and when the
/// oldest of the hits was fetched.
pub(super) struct HeldPage {
    pub(super) hits: Vec<SearchHit>,
    /// When each hit was fetched (`None` for a store-only product, which KicksDB never gave).
    pub(super) fetched_at: Vec<Option<String>>,
    pub(super) estimated_total_hits: u64,
    pub(super) as_of: Option<String>,
}

/// What can keep the mirror from opening.
#[derive(Debug, thiserror::Error)]
pub enum MirrorError {
    /// The file.
    #[error(transparent)]
    Catalogue(#[from] CatalogueError),
    /// Its search index (its files are rebuilt from the mirror when unreadable: this is a
    /// disk that refuses).
    #[error("its search index: {0}")]
    Index(#[from] LiveError),
}

impl Mirror {
    /// Opens the mirror at `path`, creating an empty one there first when there is none, and
    /// its search index (built from the mirror when the mirror changed since it was kept).
    /// Blocking.
    pub(super) fn open(path: &Path) -> Result<Self, MirrorError> {
        let writer = crate::catalogue::mirror::open_or_create(path, "kicksdb")?;
        let readers = Pool::open(path)?;
        let index = LiveIndex::open(path, writer.connection(), LiveConfig::default())?;
        Ok(Self {
            path: path.to_path_buf(),
            writer: Arc::new(Mutex::new(writer)),
            readers: Arc::new(readers),
            index: Arc::new(index),
            shelf: Shelf::default(),
        })
    }

    /// [`write`](Self::write) of products: `work` returns the answer and the `pk`s of the
    /// products it wrote, which join the search index before the answer is given (a search
    /// that starts after it finds them). An index write that fails is logged: the products
    /// are in the mirror, and the index is rebuilt from it at the next start.
    pub(super) async fn write_products<T, F>(&self, work: F) -> Result<T, FetchError>
    where
        F: FnOnce(&mut Connection) -> Result<(T, Vec<i64>), CatalogueError> + Send + 'static,
        T: Send + 'static,
    {
        let index = Arc::clone(&self.index);
        self.write(move |conn| {
            let (answer, pks) = work(conn)?;
            let products = pks
                .iter()
                .filter_map(|&pk| LiveProduct::read(conn, pk).transpose())
                .collect::<Result<Vec<_>, _>>();
            let indexed = products.and_then(|products| index.upsert_many(&products));
            if let Err(err) = indexed {
                tracing::error!(
                    "KicksDB mirror: products not searchable until the next start: {err}"
                );
            }
            Ok(answer)
        })
        .await
    }

    /// A page of the mirror's own products for `request`, ranked by its search index, with
    /// their hits for `country` as the mirror holds them.
    pub(super) async fn search(
        &self,
        request: SearchRequest<'_>,
        country: Country,
    ) -> Result<HeldPage, ApiError> {
        // Ranked here (pure CPU over a small index, as the local catalogue ranks on its
        // worker); the hits and their age are read on the blocking pool.
        let outcome = self
            .index
            .search(&request)
            .map_err(crate::service::source::search_error)?;
        let estimated_total_hits = outcome.estimated_total_hits;
        let pks = outcome.product_pks.clone();
        // A store-only product's hit is the index's; the mirror's products' are the mirror's.
        let shelved: Vec<(usize, SearchHit)> = pks
            .iter()
            .enumerate()
            .filter(|(_, pk)| is_store_pk(**pk))
            .filter_map(|(at, &pk)| Some((at, store_hit(&self.index, pk, country, true)?)))
            .collect();
        self.read(move |conn| {
            let mirrored: Vec<i64> = pks.iter().copied().filter(|pk| !is_store_pk(*pk)).collect();
            let as_of = crate::catalogue::mirror::oldest_fetch(conn, &mirrored)?;
            let mut hits = search_hits(conn, &mirrored, country)?;
            let mut fetched_at = mirrored
                .iter()
                .map(|&pk| Ok(crate::catalogue::mirror::origin(conn, pk)?.map(|o| o.fetched_at)))
                .collect::<Result<Vec<_>, CatalogueError>>()?;
            for (at, hit) in shelved {
                fetched_at.insert(at.min(hits.len()), None);
                hits.insert(at.min(hits.len()), hit);
            }
            Ok(HeldPage {
                hits,
                fetched_at,
                estimated_total_hits,
                as_of,
            })
        })
        .await
    }

    /// Makes `products` `store`'s store-only products in the index (logged when refused).
    /// Blocking.
    pub(super) fn shelve(&self, store: &crate::model::StoreUrl, products: &[LiveProduct]) {
        self.shelf.take(&self.index, store, products);
    }

    /// The index the mirror's products and the store-only ones are searched in.
    pub(super) fn index(&self) -> &LiveIndex {
        &self.index
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
