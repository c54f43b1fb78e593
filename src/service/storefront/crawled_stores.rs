//! Stores as the crawl read them: the handle the service asks which store products are a
//! catalogue product ([`CrawledStores::offers`]), which are no catalogue product
//! ([`CrawledStores::unmatched`]), and how each store's crawl stands ([`CrawledStores::status`],
//! a sentence for Settings). Its parts: a pass over a store now (here), the matching
//! (`rematch.rs`), the background task that runs the passes (`schedule.rs`,
//! [`CrawledStores::spawn`]), and what the flips and the calendar read (`flip_stock.rs`,
//! `published.rs`).
//!
//! A store's cycle: a pass over its feed (`crawl.rs`), its products matched to each catalogue
//! (`matching.rs`, `catalogue_keys.rs`), then the barcodes of a few products no code matched read
//! from `/products/{handle}.json` (the feed has none; [`CrawlConfig::barcode_reads_per_pass`]
//! a pass, shoes first, newest first; a product's barcodes are read again only when its
//! `updated_at` changes) and those matched again. Matches are kept in memory and made again at
//! start from what is on disk (no request).
//!
//! The catalogues are those of the services that share the crawl, each joining as its service
//! starts ([`CrawledStores::add_catalogue_shelf`]): a store is matched against a catalogue as
//! soon as it is there, never against one still to be built. A catalogue file that changes (the
//! KicksDB mirror taking the products of an answer) has every store that was read matched
//! against it again within [`CrawlConfig::watch_interval`], so a product the mirror gains is
//! found at the stores that sell it without waiting for their next pass.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use super::Storefronts;
use super::catalogue_keys::{self, CatalogueKeysError, NoMatch};
use super::crawl::{CrawlConfig, Crawler, PassReport, on_db};
use super::drops::StoreDrop;
use super::feed::CrawledProduct;
use super::matching::Evidence;
use super::offers::{StockList, StockedProduct};
use super::shelf_feed::ShelfSink;
use super::store_db::{FeedState, Opened, PassOutcome, StoreDb, StoreDbError};
use super::worker::StoreWorker;
use crate::model::StoreUrl;

/// Why the crawled stores could not answer.
#[derive(Debug, thiserror::Error)]
pub enum CrawledStoresError {
    /// The store file.
    #[error(transparent)]
    Db(#[from] StoreDbError),
    /// The catalogue file.
    #[error(transparent)]
    Catalogue(#[from] CatalogueKeysError),
}

pub use self::flip_stock::FlipStock;
pub use super::crawl_status::CrawlStatus;
pub use super::offers::{MatchedProduct, UnmatchedProduct};
mod flip_stock;
mod published;
mod rematch;
mod schedule;

pub use self::schedule::CrawlTask;

/// A store, its matches, and its products that are one catalogue product.
type StoreHits = (StoreUrl, Arc<StoreMatches>, Vec<(u64, Evidence)>);

/// One store's matches against one catalogue file.
#[derive(Debug, Default)]
struct StoreMatches {
    store_id: i64,
    currency: Option<String>,
    read_at: Option<i64>,
    /// The catalogue file as it was when matched (size and modification time).
    catalogue_stamp: Option<catalogue_keys::FileStamp>,
    by_catalogue: HashMap<String, Vec<(u64, Evidence)>>,
    unmatched: Vec<(u64, NoMatch)>,
    /// What it has in stock, by catalogue row (or shelf) key.
    stock: StockList,
    /// Its catalogue products in stock, with their sizes' prices (the flips).
    stocked: Vec<StockedProduct>,
    /// What it just published or publishes ahead (`drops.rs`).
    drops: Vec<StoreDrop>,
}

struct Inner {
    crawler: Crawler,
    /// The catalogue files stores are matched against, the main one (the newest service's)
    /// last: the window's services share one crawl, and the demo's catalogue and KicksDB's
    /// mirror each have theirs.
    catalogues: Mutex<Vec<PathBuf>>,
    /// Matches per catalogue file and store.
    matches: RwLock<HashMap<(PathBuf, StoreUrl), Arc<StoreMatches>>>,
    statuses: RwLock<HashMap<StoreUrl, CrawlStatus>>,
    /// Where each catalogue file's store-only products go (its source's shelf).
    shelves: RwLock<HashMap<PathBuf, ShelfSink>>,
    /// Catalogue files that could not be read, as they were then: left alone (and not logged
    /// again) until they change.
    unreadable: Mutex<HashMap<PathBuf, Option<catalogue_keys::FileStamp>>>,
    /// Counts the matchings made (a store's pass landed, or the catalogue changed).
    generation: AtomicU64,
}

/// Stores as the crawl read them, matched to the catalogue. Cheap to clone; clones share.
#[derive(Clone)]
pub struct CrawledStores {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for CrawledStores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrawledStores").finish_non_exhaustive()
    }
}

impl CrawledStores {
    /// Opens the store file at `path` (`stores.sqlite` in the data directory; created, or moved
    /// aside and created when damaged); stores are matched against the catalogues added
    /// ([`add_catalogue`](Self::add_catalogue)). Reads through `storefronts`' per-store queues.
    /// Sends nothing until asked or spawned.
    ///
    /// # Errors
    /// The store file cannot be created or written.
    pub fn open(
        path: &Path,
        storefronts: Arc<Storefronts>,
        config: CrawlConfig,
    ) -> Result<(Self, Opened), StoreDbError> {
        let (db, opened) = StoreDb::open(path)?;
        let crawler = Crawler::new(storefronts, StoreWorker::start(db)?, config);
        Ok((
            Self {
                inner: Arc::new(Inner {
                    crawler,
                    catalogues: Mutex::new(Vec::new()),
                    matches: RwLock::new(HashMap::new()),
                    statuses: RwLock::new(HashMap::new()),
                    shelves: RwLock::new(HashMap::new()),
                    unreadable: Mutex::new(HashMap::new()),
                    generation: AtomicU64::new(0),
                }),
            },
            opened,
        ))
    }

    /// Matches against `catalogue` too, as the main one (its service is the newest: a second
    /// service over another catalogue file shares this crawl); its matches are made from disk
    /// when first asked ([`offers_in`](Self::offers_in)), or by the background task.
    pub fn add_catalogue(&self, catalogue: &Path) {
        let mut catalogues = self
            .inner
            .catalogues
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        catalogues.retain(|c| c != catalogue);
        catalogues.push(catalogue.to_path_buf());
    }

    /// Matches against `catalogue` too, and hands its source's shelf (`sink`) each store's
    /// store-only products after every matching (from disk first, at once when the crawl
    /// runs: [`rematch_all`](Self::rematch_all)).
    pub fn add_catalogue_shelf(&self, catalogue: &Path, sink: ShelfSink) {
        self.add_catalogue(catalogue);
        self.inner
            .shelves
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(catalogue.to_path_buf(), sink);
    }

    /// The keys (ascending) of the products `store` has in stock (in `size` when given) as
    /// matched against `catalogue`: its catalogue products' rows and its store-only products'
    /// shelf keys. `None` when the store was not read or matched against it yet.
    #[must_use]
    pub fn in_stock(
        &self,
        catalogue: &Path,
        store: &StoreUrl,
        size: Option<&str>,
    ) -> Option<Vec<i64>> {
        Some(self.matches_in(catalogue, store)?.stock.pks(size))
    }

    fn catalogues(&self) -> Vec<PathBuf> {
        self.inner
            .catalogues
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn main_catalogue(&self) -> PathBuf {
        self.catalogues().pop().unwrap_or_default()
    }

    /// How `store`'s crawl stands.
    #[must_use]
    pub fn status(&self, store: &StoreUrl) -> CrawlStatus {
        self.inner
            .statuses
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(store)
            .cloned()
            .unwrap_or(CrawlStatus::NotYet)
    }

    fn set_status(&self, store: &StoreUrl, status: CrawlStatus) {
        self.inner
            .statuses
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(store.clone(), status);
    }

    /// A pass over `store` now (whatever the interval; still at the store's pace), then its
    /// products matched, a few barcodes read, and matched again.
    ///
    /// # Errors
    /// The store file or the catalogue could not be read or written.
    pub async fn crawl_now(&self, store: &StoreUrl) -> Result<PassReport, CrawledStoresError> {
        self.set_status(store, CrawlStatus::Crawling { page: 1 });
        let progress = {
            let this = self.clone();
            let store = store.clone();
            move |page: u32| this.set_status(&store, CrawlStatus::Crawling { page: page + 1 })
        };
        let report = match self.inner.crawler.pass(store, &progress).await {
            Ok(report) => report,
            Err(err) => {
                self.set_status(
                    store,
                    CrawlStatus::Failed {
                        why: err.to_string(),
                    },
                );
                return Err(err.into());
            }
        };
        if report.pages_read > 0 {
            self.rematch(store).await?;
            let wanted = self.barcodes_wanted(store).await?;
            if !wanted.is_empty() {
                let store_id = self.store_matches(store).map_or(0, |m| m.store_id);
                let requests = self
                    .inner
                    .crawler
                    .read_barcodes(store, store_id, &wanted)
                    .await?;
                if requests > 0 {
                    self.rematch(store).await?;
                }
            }
        }
        self.refresh_status(store).await?;
        Ok(report)
    }

    fn store_matches(&self, store: &StoreUrl) -> Option<Arc<StoreMatches>> {
        self.matches_in(&self.main_catalogue(), store)
    }

    fn matches_in(&self, catalogue: &Path, store: &StoreUrl) -> Option<Arc<StoreMatches>> {
        self.inner
            .matches
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(catalogue.to_path_buf(), store.clone()))
            .cloned()
    }

    /// The status from the file: the newest pass, or the refusal kept with the store.
    async fn refresh_status(&self, store: &StoreUrl) -> Result<(), CrawledStoresError> {
        let url = store.clone();
        let (row, passes) = on_db(self.inner.crawler.db(), move |db| {
            let row = db.store(&url)?;
            let passes = db.passes(row.store_id, 10)?;
            Ok((row, passes))
        })
        .await?;
        let matched = self.store_matches(store).map_or(0, |m| {
            u32::try_from(m.by_catalogue.values().map(Vec::len).sum::<usize>()).unwrap_or(u32::MAX)
        });
        let unmatched = self
            .store_matches(store)
            .map_or(0, |m| u32::try_from(m.unmatched.len()).unwrap_or(u32::MAX));
        let newest = passes
            .iter()
            .find(|p| p.outcome != PassOutcome::Interrupted);
        let status = match (row.feed, newest) {
            (FeedState::Refused, _) => CrawlStatus::Lookups {
                why: row
                    .feed_detail
                    .unwrap_or_else(|| "the store refuses its feed".into()),
            },
            (_, None) => CrawlStatus::NotYet,
            (_, Some(pass)) if pass.outcome == PassOutcome::Failed => CrawlStatus::Failed {
                why: pass.detail.clone().unwrap_or_default(),
            },
            (_, Some(pass)) => CrawlStatus::Read {
                at_unix: pass.finished_at.unwrap_or(pass.started_at),
                products: matched + unmatched,
                matched,
                partial: (pass.outcome == PassOutcome::Partial)
                    .then(|| pass.detail.clone().unwrap_or_default()),
            },
        };
        self.set_status(store, status);
        Ok(())
    }

    /// Every store product that is catalogue product `catalogue_id`, with its sizes' price and
    /// stock as the crawl last read them, the currency and the read's time.
    ///
    /// # Errors
    /// The store file could not be read.
    pub async fn offers(
        &self,
        catalogue_id: &str,
    ) -> Result<Vec<MatchedProduct>, CrawledStoresError> {
        self.offers_in(&self.main_catalogue(), catalogue_id).await
    }

    /// [`offers`](Self::offers) of the product `catalogue_id` of `catalogue` (one of the files
    /// given to [`open`](Self::open) or [`add_catalogue`](Self::add_catalogue)), its stores
    /// matched again first when the file changed since.
    ///
    /// # Errors
    /// The store file could not be read.
    pub async fn offers_in(
        &self,
        catalogue: &Path,
        catalogue_id: &str,
    ) -> Result<Vec<MatchedProduct>, CrawledStoresError> {
        // The stores read or matched so far (a store matched from disk after a restart has no
        // status until its cycle starts).
        let mut stores: Vec<StoreUrl> = self
            .inner
            .statuses
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect();
        stores.extend(
            self.inner
                .matches
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .keys()
                .map(|(_, store)| store.clone()),
        );
        stores.sort();
        stores.dedup();
        let found: Vec<StoreHits> = self
            .fresh_matches(catalogue, &stores)
            .await
            .into_iter()
            .filter_map(|(store, matches)| {
                let ids = matches.by_catalogue.get(catalogue_id)?.clone();
                Some((store, matches, ids))
            })
            .collect();
        let mut offers = Vec::new();
        for (store, matches, ids) in found {
            let store_id = matches.store_id;
            let wanted: Vec<u64> = ids.iter().map(|(id, _)| *id).collect();
            let products = on_db(self.inner.crawler.db(), move |db| {
                db.products(store_id, Some(&wanted))
            })
            .await?;
            for (product, _) in products {
                let by = ids
                    .iter()
                    .find(|(id, _)| *id == product.product_id)
                    .map_or(Evidence::Sku, |(_, by)| *by);
                offers.push(MatchedProduct {
                    store: store.clone(),
                    product,
                    by,
                    currency: matches.currency.clone(),
                    read_at_unix: matches.read_at,
                });
            }
        }
        offers.sort_by(|a, b| {
            a.store
                .cmp(&b.store)
                .then(a.product.handle.cmp(&b.product.handle))
        });
        Ok(offers)
    }

    /// The catalogue product (id) that `store`'s product `handle` is, if it is one.
    #[must_use]
    pub fn catalogue_id_of(&self, store: &StoreUrl, product_id: u64) -> Option<String> {
        let matches = self.store_matches(store)?;
        matches
            .by_catalogue
            .iter()
            .find(|(_, ids)| ids.iter().any(|(id, _)| *id == product_id))
            .map(|(catalogue, _)| catalogue.clone())
    }

    /// `store`'s product with the store's own handle `handle`, if the crawl read one.
    ///
    /// # Errors
    /// The store file could not be read.
    pub async fn product_by_handle(
        &self,
        store: &StoreUrl,
        handle: &str,
    ) -> Result<Option<CrawledProduct>, CrawledStoresError> {
        let (url, handle) = (store.clone(), handle.to_owned());
        Ok(on_db(self.inner.crawler.db(), move |db| {
            let row = db.store(&url)?;
            // A store-only product's id (`store-<product id>`) names it too.
            let by_id = crate::service::shelf::store_pk_of_id(&handle)
                .map(|pk| u64::try_from(pk - crate::service::shelf::STORE_PK_BASE).unwrap_or(0));
            let Some(id) = by_id.or(db.product_id_by_handle(row.store_id, &handle)?) else {
                return Ok(None);
            };
            Ok(db
                .products(row.store_id, Some(&[id]))?
                .into_iter()
                .next()
                .map(|(p, _)| p))
        })
        .await?)
    }

    /// `store`'s products that are no catalogue product, with why (store-only products).
    ///
    /// # Errors
    /// The store file could not be read.
    pub async fn unmatched(
        &self,
        store: &StoreUrl,
    ) -> Result<Vec<UnmatchedProduct>, CrawledStoresError> {
        let Some(matches) = self.store_matches(store) else {
            return Ok(Vec::new());
        };
        let store_id = matches.store_id;
        let ids: Vec<u64> = matches.unmatched.iter().map(|(id, _)| *id).collect();
        let products = on_db(self.inner.crawler.db(), move |db| {
            db.products(store_id, Some(&ids))
        })
        .await?;
        let why: HashMap<u64, &NoMatch> =
            matches.unmatched.iter().map(|(id, w)| (*id, w)).collect();
        Ok(products
            .into_iter()
            .filter_map(|(product, _)| {
                let why = (*why.get(&product.product_id)?).clone();
                Some(UnmatchedProduct { product, why })
            })
            .collect())
    }
}
