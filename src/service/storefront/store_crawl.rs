//! What a service keeps of the stores' catalogues, as one value that answers every question
//! either way: the crawl's matches ([`StoreCrawl::Crawled`]), or nothing
//! ([`StoreCrawl::LookupsOnly`]: each store is asked product by product, by the catalogue's
//! slug). The flips, the release calendar, `in_stock_at` and the retailer lookups ask it without
//! knowing which it is; a lookups-only service answers "not kept" (its stores'
//! [`CrawlStatus::NotKept`]), no stock, no drops and no offers.

use std::path::Path;

use super::crawled_stores::{
    CrawlStatus, CrawlTask, CrawledStores, CrawledStoresError, FlipStock, MatchedProduct,
};
use super::drops::StoreDrop;
use super::feed::CrawledProduct;
use super::shelf_feed::ShelfSink;
use crate::model::{RetailerStores, StoreUrl};

/// What a service keeps of the stores' catalogues. Cheap to clone; clones share.
#[derive(Debug, Clone)]
pub enum StoreCrawl {
    /// No crawl: stores are looked up product by product, by the catalogue's slug.
    LookupsOnly,
    /// Each store's catalogue read whole and matched to the catalogue.
    Crawled(CrawledStores),
}

impl StoreCrawl {
    /// The crawl's front, when catalogues are kept (for what only a crawl does: a pass now, a
    /// store's unmatched products).
    #[must_use]
    pub fn crawled(&self) -> Option<&CrawledStores> {
        match self {
            Self::LookupsOnly => None,
            Self::Crawled(crawl) => Some(crawl),
        }
    }

    /// How `store`'s crawl stands ([`CrawlStatus::NotKept`] without a crawl).
    #[must_use]
    pub fn status(&self, store: &StoreUrl) -> CrawlStatus {
        self.crawled()
            .map_or(CrawlStatus::NotKept, |crawl| crawl.status(store))
    }

    /// A count that moves whenever a store's products are matched again (0, for ever, without
    /// a crawl).
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.crawled().map_or(0, CrawledStores::generation)
    }

    /// What the stores just published or publish ahead, as matched against `catalogue`.
    #[must_use]
    pub fn drops(&self, catalogue: &Path) -> Vec<StoreDrop> {
        self.crawled()
            .map_or_else(Vec::new, |crawl| crawl.drops(catalogue))
    }

    /// What each of `stores` read so far has in stock of `catalogue`'s products (none without a
    /// crawl: each store's [`status`](Self::status) says why).
    pub async fn flip_stock(&self, catalogue: &Path, stores: &[StoreUrl]) -> Vec<FlipStock> {
        match self {
            Self::LookupsOnly => Vec::new(),
            Self::Crawled(crawl) => crawl.flip_stock(catalogue, stores).await,
        }
    }

    /// The keys of the products `store` has in stock (in `size` when given), matched against
    /// `catalogue`; else how its crawl stands ([`CrawlStatus::NotKept`]: it is never read).
    ///
    /// # Errors
    /// The store's status when it has no stock to tell of.
    pub fn stock_keys(
        &self,
        catalogue: &Path,
        store: &StoreUrl,
        size: Option<&str>,
    ) -> Result<Vec<i64>, CrawlStatus> {
        self.crawled()
            .and_then(|crawl| crawl.in_stock(catalogue, store, size))
            .ok_or_else(|| self.status(store))
    }

    /// The store products that are catalogue product `catalogue_id` of `catalogue` (none
    /// without a crawl).
    ///
    /// # Errors
    /// The store file could not be read.
    pub async fn offers_in(
        &self,
        catalogue: &Path,
        catalogue_id: &str,
    ) -> Result<Vec<MatchedProduct>, CrawledStoresError> {
        match self {
            Self::LookupsOnly => Ok(Vec::new()),
            Self::Crawled(crawl) => crawl.offers_in(catalogue, catalogue_id).await,
        }
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
        match self {
            Self::LookupsOnly => Ok(None),
            Self::Crawled(crawl) => crawl.product_by_handle(store, handle).await,
        }
    }

    /// Matches stores against `catalogue` from now on, its store-only products handed to
    /// `sink` (nothing to match without a crawl).
    pub fn add_catalogue_shelf(&self, catalogue: &Path, sink: ShelfSink) {
        if let Self::Crawled(crawl) = self {
            crawl.add_catalogue_shelf(catalogue, sink);
        }
    }

    /// The background crawl of `stores` (`None`: nothing to run without a crawl).
    #[must_use]
    pub fn spawn(&self, stores: RetailerStores) -> Option<CrawlTask> {
        self.crawled().map(|crawl| crawl.spawn(stores))
    }

    /// A service that joined the running crawl: its catalogue matched from disk now.
    pub async fn rematch_all(&self, stores: &RetailerStores) {
        if let Self::Crawled(crawl) = self {
            crawl.rematch_all(stores).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_service_that_keeps_no_catalogues_answers_not_kept_and_nothing_read() {
        let crawl = StoreCrawl::LookupsOnly;
        let store = StoreUrl::parse("https://kith.com").expect("a store");
        let file = Path::new("catalogue.sqlite");
        let status = crawl.status(&store);
        assert_eq!(status, CrawlStatus::NotKept);
        // Asked by the catalogue's slug, as a store that refuses its feed is.
        assert!(status.uses_lookups());
        // Settings shows no crawl line for it.
        assert_eq!(status.for_settings(), None);
        assert!(status.to_string().contains("keeps no store catalogue"));
        assert_eq!(crawl.generation(), 0);
        assert!(crawl.drops(file).is_empty());
        assert_eq!(
            crawl.stock_keys(file, &store, None),
            Err(CrawlStatus::NotKept)
        );
        assert!(
            crawl
                .flip_stock(file, std::slice::from_ref(&store))
                .await
                .is_empty()
        );
        assert!(
            crawl
                .offers_in(file, "some-id")
                .await
                .expect("no read")
                .is_empty()
        );
        assert!(crawl.spawn(RetailerStores::default()).is_none());
        assert!(crawl.crawled().is_none());
    }
}
