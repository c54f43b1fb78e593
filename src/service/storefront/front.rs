//! The storefronts in front of a source's marketplaces: the real-time seam as the routes see it.
//! With stores configured, `retailer-a` is answered by them (each answer naming its store), and
//! `?store=` reads one of them; without, the source behind answers it as it can. The resale
//! lookups always go to the source behind. What it offers (`GET /api/v2/sources`) is the source's,
//! with the stores and their health as the retailer's.

use std::sync::Arc;

use super::Storefronts;
use crate::model::{
    RealtimeInfo, ResaleAProduct, ResaleBNode, RetailerInfo, RetailerProduct, StoreInfo,
};
use crate::service::marketplace::{Marketplaces, RelatedQuery, UpstreamError};
use crate::service::origin::names::STOREFRONT;
use crate::service::origin::{AnswerOrigin, Sourced};
use crate::service::source::CatalogueSource;

/// [`Storefronts`] in front of `behind` for `retailer-a`.
pub struct StoresInFront {
    stores: Storefronts,
    behind: Arc<dyn Marketplaces>,
    /// Turns a catalogue id into what the stores are asked for.
    catalogue: Arc<dyn CatalogueSource>,
}

impl StoresInFront {
    /// `stores` in front of `behind`; `catalogue` is where a catalogue id is looked up.
    pub fn new(
        stores: Storefronts,
        behind: Arc<dyn Marketplaces>,
        catalogue: Arc<dyn CatalogueSource>,
    ) -> Self {
        Self {
            stores,
            behind,
            catalogue,
        }
    }

    /// The handle to ask the stores for: the id as given, except that a catalogue UUID (what
    /// the window and its alerts hold) stands for its product's catalogue slug.
    async fn handle_for(&self, id: &str) -> Result<String, UpstreamError> {
        if uuid::Uuid::parse_str(id).is_err() {
            return Ok(id.to_owned());
        }
        match self.catalogue.held(id).await {
            Ok(Some(held)) => Ok(held.slug),
            Ok(None) => Ok(id.to_owned()),
            Err(err) => Err(UpstreamError::Internal(format!(
                "looking the product up in the catalogue: {err}"
            ))),
        }
    }
}

#[async_trait::async_trait]
impl Marketplaces for StoresInFront {
    fn sources(&self) -> RealtimeInfo {
        let mut info = self.behind.sources();
        let stores = self.stores.stores();
        if !stores.is_empty() {
            info.retailer_a = Some(RetailerInfo {
                source: STOREFRONT.to_owned(),
                stores: stores
                    .list()
                    .into_iter()
                    .map(|url| {
                        let health = stores.health(&url);
                        StoreInfo {
                            name: url.label().to_owned(),
                            url: url.as_str().to_owned(),
                            failures_in_row: health.failures_in_row,
                            last_error: health.last_error,
                            paused_until_unix: health.paused_until_unix,
                        }
                    })
                    .collect(),
            });
        }
        info
    }

    async fn resale_a_product(&self, id: &str) -> Result<Sourced<ResaleAProduct>, UpstreamError> {
        self.behind.resale_a_product(id).await
    }

    async fn resale_b_related(
        &self,
        id: &str,
        query: &RelatedQuery,
    ) -> Result<Sourced<Vec<ResaleBNode>>, UpstreamError> {
        self.behind.resale_b_related(id, query).await
    }

    async fn retailer_product(
        &self,
        id: &str,
        store: Option<&str>,
    ) -> Result<Sourced<RetailerProduct>, UpstreamError> {
        if !self.stores.is_active() {
            return self.behind.retailer_product(id, store).await;
        }
        let handle = self.handle_for(id).await?;
        let (product, url) = self.stores.product_and_store(&handle, store).await?;
        Ok(Sourced {
            value: product,
            origin: AnswerOrigin::store(url.label()),
        })
    }
}
