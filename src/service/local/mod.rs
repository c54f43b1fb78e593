//! The local catalogue: a catalogue file (the demo, a generated or imported one) ranked by the
//! service's own search index and written from its hit store, as a [`CatalogueSource`]. It owns
//! its read pool, index, hit store and counts; nothing else opens its file while it serves.

mod index;

use std::sync::{Arc, OnceLock};

use self::index::{finish_in_background, open_local_index};
use super::error::ApiError;
use super::origin::Sourced;
use super::origin::names::CATALOGUE;
use super::pool::Pool;
use super::source::{
    CatalogueSource, HeldProduct, SearchArgs, SearchPage, no_product_with_slug, product_not_found,
    search_error, write_hits_json,
};
use super::{ServiceConfig, ServiceError};
use crate::catalogue::read::{self, Detail, ProductKey};
use crate::model::{CatalogueInfo, Country, Product, SearchHit, Stats, Tier, WeeklyOrder};
use crate::search::live::{LiveIndex, LiveProduct};
use crate::search::{HitStore, RecentSearches, SearchIndex};
use crate::service::shelf::{self, Shelf, is_store_pk};

/// The catalogue file itself, ranked by the service's search index.
pub struct LocalCatalogue {
    /// The catalogue file.
    path: std::path::PathBuf,
    pool: Arc<Pool>,
    search: Arc<SearchIndex>,
    /// Every product's search hit, ready to be written as JSON (see [`HitStore`]); empty while
    /// it is built after the start (hits come from the catalogue meanwhile).
    hits: OnceLock<HitStore>,
    /// Counted once at start: the catalogue does not change while it is served, and counting
    /// 1.4 million variants costs milliseconds per request.
    stats: Stats,
    /// The pages of recent searches over `search` (a search asked again is not ranked again).
    recent_searches: RecentSearches,
    /// The stores' products no catalogue product matched, in a live index over `search`
    /// (`service::shelf`): made when the first arrives; searches go through it while it holds
    /// any.
    store_only: arc_swap::ArcSwapOption<StoreOnly>,
}

/// A live index over the catalogue's, holding the store-only products, in a folder of its own
/// for this run (the crawl hands them again at each start).
struct StoreOnly {
    index: LiveIndex,
    shelf: Shelf,
    _folder: tempfile::TempDir,
}

impl std::fmt::Debug for LocalCatalogue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalCatalogue")
            .field("pool", &self.pool)
            .field("products", &self.search.len())
            .finish_non_exhaustive()
    }
}

impl LocalCatalogue {
    /// Opens `config.catalogue`, opens or builds its search index and hit store (what is left
    /// for a large catalogue is done once the service answers), then `after_warm_up` once the
    /// hit store kept beside the catalogue has been read through (at once when there is none to
    /// read). Blocking: call it before the runtime or from `spawn_blocking`.
    pub fn open(
        config: &ServiceConfig,
        after_warm_up: Box<dyn FnOnce() + Send>,
    ) -> Result<Arc<Self>, ServiceError> {
        let pool = Pool::open(&config.catalogue)?;
        let conn = pool.get()?;
        let (search, hits, hits_later, unsaved) = open_local_index(config, &conn)?;
        let stats = read::stats(&conn)?;
        drop(conn);
        let local = Arc::new(Self {
            path: config.catalogue.clone(),
            pool: Arc::new(pool),
            search: Arc::new(search),
            hits,
            stats,
            recent_searches: RecentSearches::default(),
            store_only: arc_swap::ArcSwapOption::empty(),
        });
        finish_in_background(
            &local,
            &config.catalogue,
            hits_later,
            unsaved,
            after_warm_up,
        );
        Ok(local)
    }

    /// Whether the hit store is ready (hits come from the catalogue until it is).
    #[must_use]
    pub fn hits_ready(&self) -> bool {
        self.hits.get().is_some()
    }

    /// Runs `work` on a pooled connection on tokio's blocking pool.
    async fn read<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce(&rusqlite::Connection) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        self.pool.read(work).await
    }

    /// Appends the JSON array of the search hits of `pks`, in order, to `out`, all from the hit
    /// store (no catalogue read, so it may run on an async worker); the first hit it cannot
    /// give ends it, with `out` as it was.
    fn hits_json_from_store(
        &self,
        pks: &[i64],
        args: &SearchArgs,
        out: &mut Vec<u8>,
    ) -> Result<(), crate::search::HitError> {
        let store = self.hits.get().ok_or(crate::search::HitError::NotReady)?;
        // Until the store has been read through once, a record may be a disk read, which must
        // not wait on an async worker: records are read here only from the page cache, and the
        // first that is not there sends the page to the blocking pool.
        let cached_only = !store.is_cached();
        write_hits(store, pks, args, cached_only, out, |pk, err, out| {
            self.shelved_hit(pk, args, out).ok_or(err)
        })
    }

    /// For a store-only product's `pk`, appends its hit from the live index (`Some(true)`;
    /// `Some(false)` when it has left the shelf); `None` for a catalogue product's.
    fn shelved_hit(&self, pk: i64, args: &SearchArgs, out: &mut Vec<u8>) -> Option<bool> {
        if !is_store_pk(pk) {
            return None;
        }
        let full = args.tier.allows(crate::model::Feature::ReleaseAndRetail);
        let shelved = self.store_only.load_full()?;
        let asker = crate::search::HitFor {
            country: args.country,
            full,
        };
        Some(shelved.index.write_hit(pk, asker, out).is_ok())
    }

    /// Appends the JSON array of the search hits of `pks`, in order, to `out`. From the hit
    /// store, a hit it cannot give (a damaged record) from the catalogue instead; the whole page
    /// from the catalogue while the store is being built. A pk the catalogue does not have is
    /// skipped, as `search_hits` does. On an error `out` is as it was. Blocking.
    fn hits_json(
        &self,
        conn: &rusqlite::Connection,
        pks: &[i64],
        args: &SearchArgs,
        out: &mut Vec<u8>,
    ) -> Result<(), ApiError> {
        let Some(store) = self.hits.get() else {
            return hits_from_catalogue(conn, pks, args, out);
        };
        if !store.is_cached() {
            store.prefetch(pks);
        }
        write_hits(store, pks, args, false, out, |pk, err, out| {
            if let Some(found) = self.shelved_hit(pk, args, out) {
                return Ok(found);
            }
            tracing::error!("search hit from the catalogue instead: {err}");
            let mut page = Vec::new();
            hits_from_catalogue(conn, &[pk], args, &mut page)?;
            // `[hit]`, or `[]` when the catalogue has no such product.
            out.extend_from_slice(&page[1..page.len() - 1]);
            Ok(page.len() > 2)
        })
    }

    /// The live index of the store-only products, while it holds any.
    fn shelved(&self) -> Option<Arc<StoreOnly>> {
        self.store_only.load_full().filter(|s| !s.shelf.is_empty())
    }

    /// The pks of a page of `args`, ranked on this async worker when the index can, else on
    /// the blocking pool (a GTIN looked up while the GTIN map is still being read).
    async fn ranked(
        self: &Arc<Self>,
        args: &SearchArgs,
    ) -> Result<Arc<crate::search::SearchOutcome>, ApiError> {
        let request = args.request();
        // With store-only products, the live index over the catalogue's ranks (as one index
        // of both would); without, the catalogue's own with its recent pages.
        if let Some(shelved) = self.shelved() {
            match shelved.index.search(&request) {
                Err(crate::search::SearchError::GtinsPending) => {}
                ranked => return ranked.map(Arc::new).map_err(search_error),
            }
        }
        // Ranked on this async worker, not through `spawn_blocking`: ranking is pure CPU,
        // bounded by the query limits (the hop to the blocking pool and back cost about a
        // seventh of a search's CPU time under load). A search asked recently is not ranked
        // again.
        match self.recent_searches.search(&self.search, &request) {
            // In the seconds after a large catalogue's first start: its GTINs are looked up in
            // the catalogue.
            Err(crate::search::SearchError::GtinsPending) => {
                let args = args.clone();
                let local = Arc::clone(self);
                self.read(move |conn| {
                    local
                        .recent_searches
                        .search_resolving_gtins(&local.search, &args.request(), &mut |gtin| {
                            Ok(read::product_pks_with_gtin(conn, gtin)?)
                        })
                        .map_err(search_error)
                })
                .await
            }
            ranked => ranked.map_err(search_error),
        }
    }
}

/// Appends the JSON array of the search hits of `pks`, read from the catalogue in one query, to
/// `out` (as it was on an error).
fn hits_from_catalogue(
    conn: &rusqlite::Connection,
    pks: &[i64],
    args: &SearchArgs,
    out: &mut Vec<u8>,
) -> Result<(), ApiError> {
    let hits = read::search_hits(conn, pks, args.country)?;
    write_hits_json(&hits, args.tier, out)
}

/// The JSON array of the hits of `pks` from `store` (from the page cache alone when
/// `cached_only`: [`HitStore::write_cached_hit`]); `missing` appends a hit the store cannot give
/// (`Ok(false)`: skip it) or ends the page with its error.
fn write_hits<E>(
    store: &HitStore,
    pks: &[i64],
    args: &SearchArgs,
    cached_only: bool,
    out: &mut Vec<u8>,
    mut missing: impl FnMut(i64, crate::search::HitError, &mut Vec<u8>) -> Result<bool, E>,
) -> Result<(), E> {
    let full = args.tier.allows(crate::model::Feature::ReleaseAndRetail);
    let start = out.len();
    out.push(b'[');
    let mut written = 0usize;
    for &pk in pks {
        let mark = out.len();
        if written > 0 {
            out.push(b',');
        }
        let asker = crate::search::HitFor {
            country: args.country,
            full,
        };
        let written_from_store = if cached_only {
            store.write_cached_hit(pk, asker, out)
        } else {
            store.write_hit(pk, asker, out)
        };
        let found = match written_from_store {
            Ok(()) => true,
            Err(err) => match missing(pk, err, out) {
                Ok(found) => found,
                Err(err) => {
                    out.truncate(start);
                    return Err(err);
                }
            },
        };
        if found {
            written += 1;
        } else {
            out.truncate(mark);
        }
    }
    out.push(b']');
    Ok(())
}

/// A live index over `base` for the store-only products, in a temporary folder of its own.
fn open_store_only(base: &Arc<SearchIndex>) -> Result<StoreOnly, String> {
    let folder = tempfile::Builder::new()
        .prefix("solescope-store-only")
        .tempdir()
        .map_err(|err| err.to_string())?;
    let index = LiveIndex::open_over(
        folder.path(),
        [0; 32],
        Arc::clone(base),
        crate::search::live::LiveConfig::default(),
    )
    .map_err(|err| err.to_string())?;
    Ok(StoreOnly {
        index,
        shelf: Shelf::default(),
        _folder: folder,
    })
}

/// The catalogue key of the product a path names by id or slug, or a 404 naming what was sent.
fn product_pk(conn: &rusqlite::Connection, id: &str) -> Result<i64, ApiError> {
    read::product_pk(conn, ProductKey::parse(id))?.ok_or_else(|| product_not_found(id))
}

#[async_trait::async_trait]
impl CatalogueSource for Arc<LocalCatalogue> {
    fn info(&self) -> CatalogueInfo {
        CatalogueInfo {
            source: CATALOGUE.to_owned(),
            live: false,
            keeps_copy: false,
            countries: Country::ALL
                .iter()
                .map(|country| country.code().to_owned())
                .collect(),
            weekly_rank: true,
        }
    }

    async fn search(
        &self,
        args: &SearchArgs,
        out: &mut Vec<u8>,
    ) -> Result<Sourced<SearchPage>, ApiError> {
        let outcome = self.ranked(args).await?;
        let page = SearchPage {
            hits: outcome.product_pks.len(),
            estimated_total_hits: outcome.estimated_total_hits,
        };
        // From the hit store on this worker (no catalogue read); only a hit the store cannot
        // give (a damaged record, a store still being built or not yet read into the page
        // cache after a cold start) sends the page to the blocking pool, where the store's
        // records are read ahead all at once or the hits read from the catalogue.
        if self
            .hits_json_from_store(&outcome.product_pks, args, out)
            .is_err()
        {
            let local = Arc::clone(self);
            let args = args.clone();
            let mut body = std::mem::take(out);
            *out = self
                .read(move |conn| {
                    local.hits_json(conn, &outcome.product_pks, &args, &mut body)?;
                    Ok(body)
                })
                .await?;
        }
        Ok(Sourced::fresh(page, CATALOGUE))
    }

    async fn product_hit(
        &self,
        id: &str,
        country: Country,
    ) -> Result<Sourced<SearchHit>, ApiError> {
        let shelved = self.store_only.load_full();
        if let Some(answer) = shelf::product_hit(shelved.as_ref().map(|s| &s.index), id, country) {
            return answer;
        }
        let id = id.to_owned();
        let hit = self
            .read(move |conn| {
                let pk = product_pk(conn, &id)?;
                read::search_hits(conn, &[pk], country)?
                    .pop()
                    .ok_or_else(|| product_not_found(&id))
            })
            .await?;
        Ok(Sourced::fresh(hit, CATALOGUE))
    }

    async fn product(&self, id: &str, full: bool) -> Result<Sourced<Product>, ApiError> {
        let shelved = self.store_only.load_full();
        if let Some(answer) = shelf::product(shelved.as_ref().map(|s| &s.index), id, full) {
            return answer;
        }
        let id = id.to_owned();
        let detail = if full { Detail::Full } else { Detail::Reduced };
        let product = self
            .read(move |conn| {
                let pk = product_pk(conn, &id)?;
                read::product(conn, pk, detail)?.ok_or_else(|| product_not_found(&id))
            })
            .await?;
        Ok(Sourced::fresh(product, CATALOGUE))
    }

    async fn orders(&self, id: &str) -> Result<Sourced<Vec<WeeklyOrder>>, ApiError> {
        let id = id.to_owned();
        let weeks = self
            .read(move |conn| {
                let pk = read::product_pk(conn, ProductKey::Id(&id))?
                    .ok_or_else(|| ApiError::NotFound(format!("no product with id {id}")))?;
                Ok(read::weekly_orders(conn, pk)?)
            })
            .await?;
        Ok(Sourced::fresh(weeks, CATALOGUE))
    }

    async fn stats(&self) -> Result<Sourced<Stats>, ApiError> {
        Ok(Sourced::fresh(self.stats.clone(), CATALOGUE))
    }

    async fn held(&self, id: &str) -> Result<Option<HeldProduct>, ApiError> {
        let id = id.to_owned();
        self.read(move |conn| Ok(read::held_product(conn, &id)?))
            .await
    }

    async fn colorway(&self, slug: &str) -> Result<String, ApiError> {
        let slug = slug.to_owned();
        self.read(move |conn| {
            read::colorway(conn, &slug)?.ok_or_else(|| no_product_with_slug(&slug))
        })
        .await
    }

    fn codes_file(&self) -> std::path::PathBuf {
        self.path.clone()
    }

    /// A catalogue file counts no monthly quota.
    fn quota_used(&self) -> Option<u64> {
        None
    }

    /// No upstream and no monthly budget: what it holds is its answer.
    async fn held_prices(
        &self,
        codes: &[String],
        country: Country,
    ) -> Result<Sourced<crate::model::prices::PricesAnswer>, ApiError> {
        self.prices(codes, country).await
    }

    /// No monthly budget of calls.
    async fn budget(&self) -> Option<Result<crate::model::budget::BudgetStatus, String>> {
        None
    }

    /// No upstream of coming launches: the calendar reads the file's release dates.
    async fn coming(
        &self,
        _wait: std::time::Duration,
    ) -> Option<crate::service::source::ComingFromUpstream> {
        None
    }

    fn take_store_products(&self, store: &crate::model::StoreUrl, products: Vec<LiveProduct>) {
        let shelved = match self.store_only.load_full() {
            Some(shelved) => shelved,
            None if products.is_empty() => return,
            None => match open_store_only(&self.search) {
                // Two stores' lists may arrive at once: the first index made is the one kept.
                Ok(made) => {
                    let made = Arc::new(made);
                    let before = self
                        .store_only
                        .compare_and_swap(&None::<Arc<StoreOnly>>, Some(Arc::clone(&made)));
                    before.as_ref().map_or(made, Arc::clone)
                }
                Err(err) => {
                    tracing::error!("store-only products are not searchable: {err}");
                    return;
                }
            },
        };
        shelved.shelf.take(&shelved.index, store, &products);
    }

    fn key_tier(&self, key_digest: &str) -> Result<Option<Tier>, ApiError> {
        let conn = self.pool.get()?;
        Ok(crate::catalogue::keys::tier_of_hash(&conn, key_digest)?)
    }

    async fn prices(
        &self,
        codes: &[String],
        country: Country,
    ) -> Result<Sourced<crate::model::prices::PricesAnswer>, ApiError> {
        let parts = self
            .pool
            .read_parts(codes, move |conn, part| {
                Ok(crate::catalogue::prices::answer(
                    conn, part, country, CATALOGUE,
                )?)
            })
            .await?;
        let (mut products, mut missing) = (Vec::new(), Vec::new());
        for (found, lacking) in parts {
            products.extend(found);
            missing.extend(lacking);
        }
        Ok(Sourced::fresh(
            crate::model::prices::PricesAnswer {
                market: country.code().to_owned(),
                products,
                missing,
            },
            CATALOGUE,
        ))
    }

    async fn held_sales(
        &self,
        codes: &[String],
    ) -> Result<Vec<Option<crate::model::flips::HeldSales>>, ApiError> {
        let parts = self
            .pool
            .read_parts(codes, |conn, part| {
                Ok(crate::catalogue::prices::held_sales(conn, part, CATALOGUE)?)
            })
            .await?;
        Ok(parts.into_iter().flatten().collect())
    }
}
