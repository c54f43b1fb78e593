//! The storefronts in front of a source's marketplaces: the real-time seam as the routes see it.
//! With stores configured, `retailer-a` is answered by them (each answer naming its store), and
//! `?store=` reads one of them; without, the source behind answers it as it can. The resale
//! lookups always go to the source behind. What it offers (`GET /api/v2/sources`) is the source's,
//! with the stores, their health and their crawl as the retailer's.
//!
//! A store is asked for the product it sells under its own handle: the one the crawl matched to
//! the catalogue product by style code or barcode (`crawled_stores`), never the catalogue's
//! slug, unless the store refuses its feed (then the slug is all there is to ask by). Until its
//! catalogue is read, it is not asked for a catalogue product at all (a 503 with
//! `Retry-After`: the slug would only cost it a request). Its price
//! and stock are read live (`/products/{handle}.json` and `.js`); when that read fails, the
//! crawl's price and stock answer, with their age.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use super::Storefronts;
use super::crawl::CrawlConfig;
use super::crawled_stores::{CrawlStatus, CrawlTask, CrawledStores, MatchedProduct};
use super::feed::CrawledProduct;
use super::shelf_feed::ShelfSink;
use super::store_crawl::StoreCrawl;
use super::store_db::StoreDbError;
use super::{StorefrontConfig, StorefrontError};
use crate::model::{
    RealtimeInfo, ResaleAProduct, ResaleBNode, RetailerInfo, RetailerProduct, RetailerStores,
    RetailerVariant, StoreInfo, StoreUrl,
};
use crate::service::marketplace::{Marketplaces, RelatedQuery, UpstreamError};
use crate::service::origin::names::STOREFRONT;
use crate::service::origin::{AnswerOrigin, Sourced};
use crate::service::source::CatalogueSource;

impl std::fmt::Debug for StoreReading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreReading")
            .field("stores", &self.storefronts.stores().list())
            .field("crawl", &self.crawl)
            .finish_non_exhaustive()
    }
}

/// How a service reads the stores: one paced reader shared by the lookups and the crawl, and
/// the crawled catalogues when they are kept. Clones share; the window's two services (demo and
/// KicksDB) share one, so a store is read by one crawl at one pace.
#[derive(Clone)]
pub struct StoreReading {
    storefronts: Arc<Storefronts>,
    crawl: StoreCrawl,
    /// The background crawl, once started; it stops when the last clone is dropped.
    task: Arc<Mutex<Option<CrawlTask>>>,
}

impl StoreReading {
    /// Per-product lookups only, no crawl (a store is asked for the catalogue's slug).
    #[must_use]
    pub fn lookups_only(stores: RetailerStores, config: StorefrontConfig) -> Self {
        Self {
            storefronts: Arc::new(Storefronts::new(stores, config)),
            crawl: StoreCrawl::LookupsOnly,
            task: Arc::default(),
        }
    }

    /// Lookups and the crawl of each store's catalogue, kept in `file` (`stores.sqlite` in the
    /// data directory), matched against the catalogue file of each service that reads the
    /// stores through it, as that service starts. Sends nothing until [`start`](Self::start).
    pub fn with_crawl(
        stores: RetailerStores,
        config: StorefrontConfig,
        file: &std::path::Path,
        crawl: CrawlConfig,
    ) -> Result<Self, StoreDbError> {
        let storefronts = Arc::new(Storefronts::new(stores, config));
        let (crawled, opened) = CrawledStores::open(file, Arc::clone(&storefronts), crawl)?;
        tracing::info!(?opened, file = %file.display(), "crawled stores");
        Ok(Self {
            storefronts,
            crawl: StoreCrawl::Crawled(crawled),
            task: Arc::default(),
        })
    }

    /// Starts the background crawl of the configured stores on the current runtime, once
    /// however many services share this reading.
    pub fn start(&self) {
        let crawl = &self.crawl;
        let mut task = self.task.lock().unwrap_or_else(PoisonError::into_inner);
        if task.is_none() {
            *task = crawl.spawn(self.storefronts.stores().clone());
        } else {
            // A service that joined the running crawl: its catalogue matched from disk now
            // (its shelf filled), not at the next pass.
            let crawl = crawl.clone();
            let stores = self.storefronts.stores().clone();
            tokio::spawn(async move { crawl.rematch_all(&stores).await });
        }
    }

    /// What this reading keeps of the stores' catalogues.
    #[must_use]
    pub fn crawl(&self) -> &StoreCrawl {
        &self.crawl
    }

    /// The stores read (the list the user or `--retailer-store` configured).
    #[must_use]
    pub fn stores(&self) -> &RetailerStores {
        self.storefronts.stores()
    }
}

/// The stores of a [`StoreReading`] in front of `behind` for `retailer-a`.
pub struct StoresInFront {
    reading: StoreReading,
    behind: Arc<dyn Marketplaces>,
    /// Turns a catalogue id into what the stores are asked for.
    catalogue: Arc<dyn CatalogueSource>,
    /// The catalogue file the crawl matches stores against for this service.
    codes_file: PathBuf,
}

/// What to ask one store for a product.
enum Ask {
    /// Its own handle, and what the crawl read of it when it matched.
    Handle(String, Option<Box<MatchedProduct>>),
    /// It does not sell it (its catalogue, read, has no such product): the sentence why.
    NotSold(String),
    /// Nothing yet: its catalogue is still being read, or could not be (the sentence why). It
    /// names its products its own way, so the catalogue's slug would only cost it a request.
    NotReadYet(String),
}

impl StoresInFront {
    /// `reading`'s stores in front of `behind`; `catalogue` is where a catalogue id is looked
    /// up, and what the crawl matches stores against.
    pub fn new(
        reading: StoreReading,
        behind: Arc<dyn Marketplaces>,
        catalogue: Arc<dyn CatalogueSource>,
    ) -> Self {
        let codes_file = catalogue.codes_file();
        // The source's shelf takes the products the crawl matches to nothing in its file;
        // a service dropped (the window switched sources) takes no more.
        let source = Arc::downgrade(&catalogue);
        let sink: ShelfSink = Arc::new(move |store, products| {
            if let Some(source) = source.upgrade() {
                source.take_store_products(store, products);
            }
        });
        reading.crawl().add_catalogue_shelf(&codes_file, sink);
        Self {
            reading,
            behind,
            catalogue,
            codes_file,
        }
    }

    fn stores(&self) -> &Storefronts {
        &self.reading.storefronts
    }

    /// What to ask `store` for the product `id` (a catalogue UUID or slug, or the store's own
    /// handle), given the crawl's `offers` of the catalogue product `held_id`.
    async fn ask_for(
        &self,
        store: &StoreUrl,
        id: &str,
        held: Option<&crate::catalogue::read::HeldProduct>,
        offers: &[MatchedProduct],
    ) -> Ask {
        if let Some(offer) = offers.iter().find(|offer| offer.store == *store) {
            return Ask::Handle(offer.product.handle.clone(), Some(Box::new(offer.clone())));
        }
        let crawl = self.reading.crawl();
        let ours = held.is_some() || crate::service::shelf::store_pk_of_id(id).is_some();
        let status = crawl.status(store);
        match status {
            CrawlStatus::Read { .. } => {
                // The store's own handle (what its pages and a user paste name), or the id of
                // one of its store-only products.
                if let Ok(Some(product)) = crawl.product_by_handle(store, id).await {
                    return Ask::Handle(product.handle, None);
                }
                if ours {
                    return Ask::NotSold(format!(
                        "{} sells no product with this style code or barcode ({status})",
                        store.label()
                    ));
                }
            }
            CrawlStatus::NotYet | CrawlStatus::Crawling { .. } | CrawlStatus::Failed { .. }
                if ours =>
            {
                return Ask::NotReadYet(format!(
                    "{}: {status}; it is asked for the product by its own name for it once its \
                     catalogue is read",
                    store.label()
                ));
            }
            // The store refuses its feed, or no catalogue is kept: the catalogue's slug is all
            // there is to ask by.
            CrawlStatus::Lookups { .. } | CrawlStatus::NotKept => {
                return Ask::Handle(held.map_or_else(|| id.to_owned(), |h| h.slug.clone()), None);
            }
            _ => {}
        }
        // A name the caller gave that is no product of ours: the store's own handle, as typed.
        Ask::Handle(id.to_owned(), None)
    }

    /// `store`'s answer for the product: read live by its handle; when that fails and the
    /// crawl read the product, the crawl's price and stock with their age.
    async fn read_store(
        &self,
        store: &StoreUrl,
        ask: Ask,
    ) -> Result<Sourced<RetailerProduct>, StorefrontError> {
        let (handle, offer) = match ask {
            Ask::Handle(handle, offer) => (handle, offer),
            Ask::NotSold(why) => {
                return Err(StorefrontError::NotSold {
                    store: store.label().to_owned(),
                    why,
                });
            }
            Ask::NotReadYet(why) => {
                return Err(StorefrontError::NotReadYet {
                    store: store.label().to_owned(),
                    why,
                });
            }
        };
        match self.stores().product_at(store, &handle).await {
            Ok(product) => Ok(Sourced {
                value: product,
                origin: AnswerOrigin::store(store.label()),
            }),
            Err(err) if err.is_answer() => Err(err),
            Err(err) => match offer {
                Some(offer) => {
                    let mut origin = AnswerOrigin::store(store.label());
                    origin.as_of = offer.read_at_unix.and_then(rfc3339);
                    origin.stale_reason = Some(err.to_string());
                    Ok(Sourced {
                        value: product_from_offer(&offer),
                        origin,
                    })
                }
                None => Err(err),
            },
        }
    }
}

fn rfc3339(unix: i64) -> Option<String> {
    chrono::DateTime::from_timestamp(unix, 0)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// The crawl's reading of a store product in the interface's `retailer-a` shape: the feed has
/// the sizes, their price (the shop's currency) and stock; no description or barcode unless read.
fn product_from_offer(offer: &MatchedProduct) -> RetailerProduct {
    let product: &CrawledProduct = &offer.product;
    let currency = offer.currency.clone().unwrap_or_default();
    let skus: Vec<&str> = product.variants.iter().map(|v| v.sku.as_str()).collect();
    RetailerProduct {
        id: format!("gid://shopify/Product/{}", product.product_id),
        title: product.title.clone(),
        slug: product.handle.clone(),
        product_type: product.product_type.clone(),
        brand: product.vendor.clone(),
        description: String::new(),
        sku: super::mapping::common_sku(&skus),
        images: product.images.clone(),
        colorway: String::new(),
        release_date: String::new(),
        updated_at: String::new(),
        variants: product
            .variants
            .iter()
            .map(|variant| {
                let barcode = variant.barcode.clone().unwrap_or_default();
                RetailerVariant {
                    id: format!("gid://shopify/ProductVariant/{}", variant.variant_id),
                    size: variant.size.clone(),
                    price: variant.price.trim().parse::<f64>().unwrap_or(0.0),
                    currency: currency.clone(),
                    barcode_type: super::mapping::barcode_type(&barcode).to_owned(),
                    barcode,
                    available: variant.available,
                    updated_at: String::new(),
                }
            })
            .collect(),
    }
}

#[async_trait::async_trait]
impl Marketplaces for StoresInFront {
    fn sources(&self) -> RealtimeInfo {
        let mut info = self.behind.sources();
        let stores = self.stores().stores();
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
                            catalogue: self.reading.crawl().status(&url).for_settings(),
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

    async fn simulated_stock(
        &self,
        limit: usize,
    ) -> Option<Result<Vec<crate::service::marketplace::RetailStock>, UpstreamError>> {
        self.behind.simulated_stock(limit).await
    }

    async fn retailer_product(
        &self,
        id: &str,
        store: Option<&str>,
    ) -> Result<Sourced<RetailerProduct>, UpstreamError> {
        if !self.stores().is_active() {
            return self.behind.retailer_product(id, store).await;
        }
        let stores = self.stores().named_or_all(store)?;
        let held = self.catalogue.held(id).await.map_err(|err| {
            UpstreamError::Internal(format!("looking the product up in the catalogue: {err}"))
        })?;
        let offers = match &held {
            Some(held) => self
                .reading
                .crawl()
                .offers_in(&self.codes_file, &held.id)
                .await
                .unwrap_or_else(|err| {
                    tracing::warn!("the crawled catalogues could not be read: {err:#}");
                    Vec::new()
                }),
            None => Vec::new(),
        };
        let mut failures: Vec<StorefrontError> = Vec::new();
        for url in stores {
            let ask = self.ask_for(&url, id, held.as_ref(), &offers).await;
            match self.read_store(&url, ask).await {
                Ok(answer) => return Ok(answer),
                Err(err) => failures.push(err),
            }
        }
        Err(super::failures_error(&failures, id))
    }
}
