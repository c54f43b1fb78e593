//! The stores' catalogue products in stock, as the flips read them: what each store's last
//! matching kept in memory (no request to a store, no read of the store file), made again first
//! where the catalogue file changed since. A store is never read more often than its crawl's
//! interval for this: the flips only read what the crawl's passes left.

use std::path::Path;
use std::sync::Arc;

use super::super::offers::StockedProduct;
use super::{CrawlStatus, CrawledStores, StoreMatches};
use crate::model::StoreUrl;

/// One store's catalogue products in stock, as its last pass read them.
#[derive(Debug, Clone)]
pub struct FlipStock {
    /// The store.
    pub store: StoreUrl,
    /// Its currency (`/meta.json`), when known.
    pub currency: Option<String>,
    /// When the pass that read the prices and stock ended (Unix seconds).
    pub read_at_unix: Option<i64>,
    /// How its crawl stands.
    pub status: CrawlStatus,
    matches: Arc<StoreMatches>,
}

impl FlipStock {
    /// Its catalogue products in at least one size, with the sizes in stock.
    #[must_use]
    pub fn products(&self) -> &[StockedProduct] {
        &self.matches.stocked
    }
}

impl CrawledStores {
    /// A count that moves whenever a store's products are matched again (a pass landed, the
    /// catalogue changed): what was read from `flip_stock` may be stale once it moved.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.inner
            .generation
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// What each of `stores` read so far has in stock of `catalogue`'s products (stores not
    /// read yet are left out).
    pub async fn flip_stock(&self, catalogue: &Path, stores: &[StoreUrl]) -> Vec<FlipStock> {
        self.fresh_matches(catalogue, stores)
            .await
            .into_iter()
            .map(|(store, matches)| FlipStock {
                status: self.status(&store),
                currency: matches.currency.clone(),
                read_at_unix: matches.read_at,
                store,
                matches,
            })
            .collect()
    }
}
