//! A store's products matched to the catalogues: from disk at start, after each pass, and
//! again when a catalogue file changed; and the barcodes worth reading for the products no
//! style code matched.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};

use super::super::catalogue_keys::{
    self, CatalogueKeys, CatalogueMatch, NoMatch, match_store_products,
};
use super::super::crawl::on_db;
use super::super::drops::{looks_like_a_shoe, store_drops};
use super::super::feed::CrawledProduct;
use super::super::matching::Unmatched;
use super::super::offers::{StockList, StockedProduct};
use super::super::shelf_feed::{live_product, store_pk};
use super::{CrawlStatus, CrawledStores, CrawledStoresError, StoreMatches};
use crate::model::{RetailerStores, StoreUrl};

impl CrawledStores {
    /// Every store of `stores` matched again from disk against every catalogue (a service
    /// that joined a running crawl gets its shelf). Sends nothing; a failure is logged.
    pub async fn rematch_all(&self, stores: &RetailerStores) {
        for store in stores.list() {
            if let Err(err) = self.rematch(&store).await {
                tracing::warn!("matching what was read from {}: {err:#}", store.label());
            }
        }
    }

    /// `store`'s products on disk matched again against every catalogue that is there (at
    /// start, after a pass, after a catalogue changed). Sends nothing. A catalogue file not
    /// there yet is matched once it is (by the background task); one that cannot be read is
    /// logged and left until it changes, and the others are matched all the same.
    ///
    /// # Errors
    /// The store file could not be read.
    pub async fn rematch(&self, store: &StoreUrl) -> Result<(), CrawledStoresError> {
        for catalogue in self.catalogues() {
            self.rematch_or_log(&catalogue, store).await?;
        }
        Ok(())
    }

    /// [`rematch_in`](Self::rematch_in) when `catalogue` is there and not known unreadable as
    /// it is; a catalogue that cannot be read is logged once per state of its file.
    async fn rematch_or_log(
        &self,
        catalogue: &Path,
        store: &StoreUrl,
    ) -> Result<(), CrawledStoresError> {
        let stamp = catalogue_keys::file_stamp(catalogue);
        let unreadable = || {
            self.inner
                .unreadable
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        };
        if stamp.is_none() || unreadable().get(catalogue) == Some(&stamp) {
            return Ok(());
        }
        match self.rematch_in(catalogue, store).await {
            Ok(()) => {
                unreadable().remove(catalogue);
                Ok(())
            }
            Err(CrawledStoresError::Catalogue(err)) => {
                tracing::warn!(
                    "stores are not matched against a catalogue until it changes: {err:#}"
                );
                unreadable().insert(catalogue.to_path_buf(), stamp);
                Ok(())
            }
            Err(err) => Err(err),
        }
    }

    /// Every store of `stores` that was read matched again against each catalogue that
    /// changed since its matches were made (or that is there now and was not): the KicksDB
    /// mirror gains products with every answer. Sends nothing; a failure is logged.
    pub(super) async fn match_changed_catalogues(&self, stores: &[StoreUrl]) {
        let main = self.main_catalogue();
        for catalogue in self.catalogues() {
            let Some(stamp) = catalogue_keys::file_stamp(&catalogue) else {
                continue;
            };
            for store in stores {
                if !matches!(
                    self.status(store),
                    CrawlStatus::Read { .. } | CrawlStatus::Failed { .. }
                ) {
                    continue;
                }
                let matched_at = self
                    .matches_in(&catalogue, store)
                    .and_then(|matches| matches.catalogue_stamp);
                if matched_at == Some(stamp) {
                    continue;
                }
                let matched = self.rematch_or_log(&catalogue, store).await;
                let refreshed = match matched {
                    Ok(()) if catalogue == main => self.refresh_status(store).await,
                    other => other,
                };
                if let Err(err) = refreshed {
                    tracing::warn!("matching {} again: {err:#}", store.label());
                }
            }
        }
    }

    /// `store`'s products on disk matched against `catalogue`.
    async fn rematch_in(
        &self,
        catalogue: &Path,
        store: &StoreUrl,
    ) -> Result<(), CrawledStoresError> {
        let url = store.clone();
        let stamp = catalogue_keys::file_stamp(catalogue);
        let catalogue = catalogue.to_path_buf();
        let key = (catalogue.clone(), store.clone());
        let sink = self
            .inner
            .shelves
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&catalogue)
            .cloned();
        let shelved = sink.is_some();
        let (matches, store_only) = self
            .inner
            .crawler
            .db()
            .run(move |owned| {
                let (row, products, read_at, arrivals) = {
                    let db = &mut owned.db;
                    let row = db.store(&url)?;
                    let products = db.products(row.store_id, None)?;
                    let arrivals = db.arrivals(row.store_id)?;
                    let read_at = db
                        .passes(row.store_id, 20)?
                        .iter()
                        .find(|p| p.pages_read > 0 && p.finished_at.is_some())
                        .and_then(|p| p.finished_at);
                    (row, products, read_at, arrivals)
                };
                let keys = &mut owned.keys;
                if keys
                    .as_ref()
                    .is_none_or(|k| k.path() != catalogue || k.is_stale())
                {
                    *keys = Some(CatalogueKeys::open(&catalogue)?);
                }
                let Some(keys) = keys.as_ref() else {
                    return Ok::<_, CrawledStoresError>((StoreMatches::default(), Vec::new()));
                };
                let answers = match_store_products(keys, &products)?;
                let mut matches = StoreMatches {
                    store_id: row.store_id,
                    currency: row.currency,
                    read_at,
                    catalogue_stamp: stamp,
                    ..StoreMatches::default()
                };
                let mut stocked: Vec<(i64, &CrawledProduct)> = Vec::new();
                let mut store_only = Vec::new();
                for ((product, _), answer) in products.iter().zip(answers) {
                    match answer {
                        CatalogueMatch::Product(found, by) => {
                            stocked.push((found.pk, product));
                            let in_stock = StockedProduct::new(&found, by, product);
                            matches.stocked.extend(in_stock);
                            matches
                                .by_catalogue
                                .entry(found.id)
                                .or_default()
                                .push((product.product_id, by));
                        }
                        CatalogueMatch::No(why) => {
                            // A store-only shoe: on the source's shelf, and in the stock list.
                            if shelved && looks_like_a_shoe(product) {
                                stocked.push((store_pk(product.product_id), product));
                                store_only.push(live_product(
                                    &url,
                                    matches.currency.as_deref(),
                                    product,
                                ));
                            }
                            matches.unmatched.push((product.product_id, why));
                        }
                    }
                }
                matches.stock = StockList::new(stocked);
                let (currency, by_code) = (matches.currency.as_deref(), &matches.by_catalogue);
                let now = chrono::Utc::now().timestamp();
                matches.drops = store_drops(&url, currency, &products, by_code, &arrivals, now);
                Ok((matches, store_only))
            })
            .await?;
        self.inner
            .matches
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, Arc::new(matches));
        self.inner.generation.fetch_add(1, Ordering::Relaxed);
        if let Some(sink) = sink {
            let store = store.clone();
            // The index's write log is synced: off the async workers.
            let _ = tokio::task::spawn_blocking(move || sink(&store, store_only)).await;
        }
        Ok(())
    }

    /// Matches of `stores` against `catalogue`, made again from disk first where there are
    /// none yet or the catalogue file changed since (a mirror that took new products: a store
    /// must not be said not to sell a product only because it was matched before the product
    /// arrived). A store whose matching fails keeps its old matches (logged).
    pub(super) async fn fresh_matches(
        &self,
        catalogue: &Path,
        stores: &[StoreUrl],
    ) -> Vec<(StoreUrl, Arc<StoreMatches>)> {
        let stamp = catalogue_keys::file_stamp(catalogue);
        let mut found = Vec::new();
        for store in stores {
            let current = self.matches_in(catalogue, store);
            let stale = current.as_ref().is_none_or(|m| m.catalogue_stamp != stamp);
            let read = self.status(store) != CrawlStatus::NotYet
                || self
                    .inner
                    .matches
                    .read()
                    .unwrap_or_else(PoisonError::into_inner)
                    .keys()
                    .any(|(_, matched)| matched == store);
            if stale
                && read
                && let Err(err) = self.rematch_or_log(catalogue, store).await
            {
                tracing::warn!("matching {} again: {err:#}", store.label());
            }
            if let Some(matches) = self.matches_in(catalogue, store) {
                found.push((store.clone(), matches));
            }
        }
        found
    }

    /// Products of `store` no code matched whose barcodes were not read at their current
    /// `updated_at`: shoes first, newest first.
    pub(super) async fn barcodes_wanted(
        &self,
        store: &StoreUrl,
    ) -> Result<Vec<(u64, String, String)>, CrawledStoresError> {
        let Some(matches) = self.store_matches(store) else {
            return Ok(Vec::new());
        };
        let ids: Vec<u64> = matches
            .unmatched
            .iter()
            .filter(|(_, why)| *why == NoMatch::Unmatched(Unmatched::NotInCatalogue))
            .map(|(id, _)| *id)
            .collect();
        let store_id = matches.store_id;
        let products = on_db(self.inner.crawler.db(), move |db| {
            db.products(store_id, Some(&ids))
        })
        .await?;
        let mut wanted: Vec<(bool, CrawledProduct)> = products
            .into_iter()
            .filter(|(product, barcodes_for)| {
                barcodes_for.as_deref() != Some(product.updated_at.as_str())
            })
            .map(|(product, _)| (looks_like_a_shoe(&product), product))
            .collect();
        wanted.sort_by(|(shoe_a, a), (shoe_b, b)| {
            shoe_b
                .cmp(shoe_a)
                .then_with(|| b.updated_at.cmp(&a.updated_at))
        });
        Ok(wanted
            .into_iter()
            .take(self.inner.crawler.config().barcode_reads_per_pass as usize)
            .map(|(_, p)| (p.product_id, p.handle, p.updated_at))
            .collect())
    }
}
