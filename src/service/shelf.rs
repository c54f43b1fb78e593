//! Store-only products on a source's shelf: what the stores sell that is no product of the
//! source's catalogue (the crawl matched nothing to it by style code or barcode) enters the
//! source's live search index (`search::live`) as a retail-only product, with its store, its
//! price and its stock, so the search ranks it with the source's own products as one index
//! would. The crawl hands each store's whole list after every matching (at start, after a pass,
//! after the catalogue changed); a product no longer on it (gone from the store, or now matched)
//! leaves the index.
//!
//! A store-only product's key in the index is [`STORE_PK_BASE`] plus the store's product id
//! (Shopify's product ids are unique across shops), far above any catalogue row's key; its id
//! and slug name the store and its handle.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

use crate::model::{Product, SearchHit};
use crate::search::live::{LiveError, LiveIndex, LiveProduct};
use crate::service::error::ApiError;
use crate::service::origin::Sourced;
use crate::service::source::product_not_found;

/// Keys of store-only products start here (catalogue rows count from 1 and never get near).
pub const STORE_PK_BASE: i64 = 1 << 60;

/// The id of a store-only product's hit: `store-<product id>`.
pub const STORE_ID_PREFIX: &str = "store-";

/// Whether `pk` is a store-only product's.
#[must_use]
pub fn is_store_pk(pk: i64) -> bool {
    pk >= STORE_PK_BASE
}

/// The index key of a store-only product id (`store-123`), when it is one.
#[must_use]
pub fn store_pk_of_id(id: &str) -> Option<i64> {
    let number: i64 = id.strip_prefix(STORE_ID_PREFIX)?.parse().ok()?;
    (0..STORE_PK_BASE)
        .contains(&number)
        .then_some(STORE_PK_BASE + number)
}

/// The store-only products in one live index, by store.
#[derive(Debug, Default)]
pub struct Shelf {
    by_store: Mutex<HashMap<String, HashSet<i64>>>,
}

impl Shelf {
    /// Makes `products` the store's whole shelf in `index`: each written (a product whose
    /// words did not change rewrites its hit alone), and those of the store's previous list
    /// that are not in it deleted. Blocking (the index's write log is synced).
    ///
    /// # Errors
    /// The index refused the writes (a product it cannot take refuses the batch: the shelf
    /// keeps its previous list).
    pub fn replace(
        &self,
        index: &LiveIndex,
        store: &str,
        products: &[LiveProduct],
    ) -> Result<(), LiveError> {
        let mut by_store = self.by_store.lock().unwrap_or_else(PoisonError::into_inner);
        let now: HashSet<i64> = products.iter().map(|p| p.pk).collect();
        let before = by_store.remove(store).unwrap_or_default();
        let gone: Vec<i64> = before.difference(&now).copied().collect();
        let written = index
            .upsert_many(products)
            .and_then(|_| index.delete_many(&gone))
            .map(drop);
        match written {
            Ok(()) => {
                by_store.insert(store.to_owned(), now);
                Ok(())
            }
            Err(err) => {
                by_store.insert(store.to_owned(), before);
                Err(err)
            }
        }
    }

    /// [`replace`](Self::replace), a refusal logged: the products stay out of the search
    /// until the store's next list. Blocking.
    pub fn take(
        &self,
        index: &LiveIndex,
        store: &crate::model::StoreUrl,
        products: &[LiveProduct],
    ) {
        if let Err(err) = self.replace(index, store.label(), products) {
            tracing::error!(
                "{}: its store-only products are not searchable: {err}",
                store.label()
            );
        }
    }

    /// How many store-only products are on the shelf.
    #[must_use]
    pub fn len(&self) -> usize {
        self.by_store
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .map(HashSet::len)
            .sum()
    }

    /// Whether the shelf is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The product route's answers for a store-only product's id (`store-<product id>`) from
/// `index` (none yet: not found); `None` when `id` names no store-only product, for the source's
/// own catalogue to answer.
pub fn product_hit(
    index: Option<&LiveIndex>,
    id: &str,
    country: crate::model::Country,
) -> Option<Result<Sourced<SearchHit>, ApiError>> {
    let pk = store_pk_of_id(id)?;
    Some(
        index
            .and_then(|index| store_hit(index, pk, country, true))
            .map(|hit| Sourced {
                origin: origin_of_hit(&hit),
                value: hit,
            })
            .ok_or_else(|| product_not_found(id)),
    )
}

/// [`product_hit`] as the v2 product (`full`: the tier may see the retail price).
pub fn product(
    index: Option<&LiveIndex>,
    id: &str,
    full: bool,
) -> Option<Result<Sourced<Product>, ApiError>> {
    let hit = product_hit(index, id, crate::model::Country::Us)?;
    Some(hit.map(|hit| Sourced {
        value: product_of_hit(hit.value, full),
        origin: hit.origin,
    }))
}

/// A store-only product's search hit, as the index keeps it; `None` when it is not there.
#[must_use]
pub fn store_hit(
    index: &LiveIndex,
    pk: i64,
    country: crate::model::Country,
    full: bool,
) -> Option<SearchHit> {
    let mut json = Vec::new();
    index
        .write_hit(pk, crate::search::HitFor { country, full }, &mut json)
        .ok()?;
    serde_json::from_slice(&json).ok()
}

/// A store-only product as the product route answers it: what its hit says (its store's
/// sizes and prices, its link), with no market figures (no marketplace sells it). Its retail
/// price is the store's lowest (a retailer sells at retail) and it has no release date the
/// store gives; both withheld unless `full` (the tier's rule, as for any product).
#[must_use]
pub fn product_of_hit(hit: SearchHit, full: bool) -> Product {
    use crate::model::v2::{Link, Variant, VariantMetadata};
    let model = hit
        .category
        .rsplit(" > ")
        .next()
        .unwrap_or_default()
        .to_owned();
    let variants = hit
        .variants
        .iter()
        .map(|variant| Variant {
            id: variant.variant_id.clone(),
            product_id: hit.id.clone(),
            sku: hit.sku.clone(),
            title: format!("{} - {}", hit.title, variant.size),
            description: String::new(),
            brand: hit.brand.clone(),
            category: hit.category.clone(),
            color: hit.color.clone(),
            gender: hit.gender.clone(),
            gtin: variant.gtin.clone().unwrap_or_default(),
            size: variant.size.clone(),
            link: variant.variant_link.clone(),
            image: hit.image.clone(),
            price: variant.price,
            currency: hit.currency.clone(),
            tags: hit.labels.clone(),
            metadata: VariantMetadata {
                category: hit.category.clone(),
                model: model.clone(),
            },
            source: crate::service::origin::names::STOREFRONT.to_owned(),
            asks: None,
        })
        .collect();
    let retail_prices = (full && hit.min_price > 0.0).then(|| {
        vec![crate::model::v2::RetailPrice {
            sku: hit.sku.clone(),
            price: hit.min_price,
            currency: hit.currency.clone(),
            source: crate::service::origin::names::STOREFRONT.to_owned(),
        }]
    });
    Product {
        links: vec![Link {
            link: hit.link.clone(),
            target: crate::service::origin::names::STOREFRONT.to_owned(),
            min_price: hit.min_price,
        }],
        id: hit.id,
        slug: hit.slug,
        sku: hit.sku,
        title: hit.title,
        brand: hit.brand,
        category: hit.category,
        color: hit.color,
        gender: hit.gender,
        description: hit.description.unwrap_or_default(),
        image: hit.image,
        images: None,
        currency: hit.currency,
        avg_price: hit.avg_price,
        min_price: hit.min_price,
        max_price: hit.max_price,
        trending: false,
        release_dates: full.then(Vec::new),
        retail_prices,
        variants,
    }
}

/// Where a store-only product's answer comes from: its store (the `store:` label its hit
/// carries), as the crawl read it.
#[must_use]
pub fn origin_of_hit(hit: &SearchHit) -> crate::service::origin::AnswerOrigin {
    let store = hit
        .labels
        .iter()
        .find_map(|label| label.strip_prefix("store:"))
        .unwrap_or_default();
    crate::service::origin::AnswerOrigin::store(store)
}
