//! The simulator's reads of the catalogue: product and variant rows, recent orders, and an
//! in-memory index of products by model and brand for the related-products lookup.
//!
//! Every read is a short indexed query on one of a few connections, each behind its own
//! `std::sync::Mutex`; no lock is ever held across an `.await` (the callers are synchronous).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use rusqlite::{Connection, OptionalExtension, Row};

use super::UpstreamError;
use crate::catalogue::Catalogue;

/// Connections kept open: the machine has two cores, and each query takes microseconds.
const CONNECTIONS: usize = 2;

/// One catalogue product, with what the marketplaces derive their listings from.
#[derive(Debug, Clone)]
pub(super) struct ProductRow {
    pub pk: i64,
    pub id: String,
    pub slug: String,
    pub sku: String,
    pub sku_norm: String,
    pub title: String,
    pub brand: String,
    pub model: String,
    pub category: String,
    pub color: String,
    pub gender: String,
    pub size_system: String,
    pub availability: String,
    pub description: Option<String>,
    pub image: String,
    /// `YYYY-MM-DD`, or empty when only the year is known.
    pub release_date: String,
    pub retail_usd_cents: i64,
    pub min_usd_cents: i64,
    pub avg_usd_cents: i64,
    pub max_usd_cents: i64,
    pub min_eur_cents: i64,
    /// Orders of the newest four weeks.
    pub popularity: i64,
    pub trending: bool,
}

const PRODUCT_COLUMNS: &str = "pk, id, slug, sku, sku_norm, title, brand, model, category, color,
    gender, size_system, availability, description, image, release_date, retail_usd_cents,
    min_usd_cents, avg_usd_cents, max_usd_cents, min_eur_cents, popularity, trending";

impl ProductRow {
    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            pk: row.get(0)?,
            id: row.get(1)?,
            slug: row.get(2)?,
            sku: row.get(3)?,
            sku_norm: row.get(4)?,
            title: row.get(5)?,
            brand: row.get(6)?,
            model: row.get(7)?,
            category: row.get(8)?,
            color: row.get(9)?,
            gender: row.get(10)?,
            size_system: row.get(11)?,
            availability: row.get(12)?,
            description: row.get(13)?,
            image: row.get(14)?,
            release_date: row.get(15)?,
            retail_usd_cents: row.get(16)?,
            min_usd_cents: row.get(17)?,
            avg_usd_cents: row.get(18)?,
            max_usd_cents: row.get(19)?,
            min_eur_cents: row.get(20)?,
            popularity: row.get(21)?,
            trending: row.get(22)?,
        })
    }
}

/// One size of a catalogue product.
#[derive(Debug, Clone)]
pub(super) struct VariantRow {
    pub pk: i64,
    /// US label (`9`, `5.5Y`, `7C`), or whatever an imported source wrote.
    pub size: String,
    pub size_uk: String,
    pub size_eu: String,
    pub gtin: Option<String>,
    pub price_usd_cents: i64,
    pub price_eur_cents: i64,
}

/// A product with its sizes and recent sales, everything a listing is made from.
#[derive(Debug, Clone)]
pub(super) struct Listing {
    pub product: ProductRow,
    pub variants: Vec<VariantRow>,
    /// Orders per week lately: the newest week blended with the four-week average.
    pub weekly_orders: f64,
}

/// Products in popularity order, grouped for the related-products lookup.
#[derive(Debug, Default)]
struct RelatedIndex {
    by_model: HashMap<(String, String), Vec<i64>>,
    by_brand: HashMap<String, Vec<i64>>,
}

/// The catalogue as the simulator reads it.
#[derive(Debug)]
pub(super) struct Store {
    connections: Vec<Mutex<Catalogue>>,
    /// Built on a thread of its own ([`RelatedIndexLater`]; a scan of every product, seconds at
    /// a million), so `serve` answers searches at once; the first related-products lookup waits
    /// for it.
    related: std::sync::Arc<std::sync::OnceLock<RelatedIndex>>,
}

/// The related-products index of a [`Store`], to be built on a thread of its own: when
/// [`start`](Self::start)ed, or when dropped unstarted (a lookup must never wait forever).
///
/// The service starts it once its search index is built: at a first start with a million
/// products, both cores build that index, and the scan beside it, even at nice 10, took a
/// third of a core from it (`perf`, 1,287 of 6,837 samples).
#[must_use = "dropping it starts the build at once"]
pub struct RelatedIndexLater {
    /// Nothing to build when the store is gone.
    related: std::sync::Weak<std::sync::OnceLock<RelatedIndex>>,
    catalogue: Option<Catalogue>,
}

impl RelatedIndexLater {
    /// Starts the build.
    pub fn start(mut self) {
        self.spawn();
    }

    fn spawn(&mut self) {
        let (Some(catalogue), Some(filled)) = (self.catalogue.take(), self.related.upgrade())
        else {
            return;
        };
        let failed = |filled: &std::sync::OnceLock<RelatedIndex>, err: &dyn std::fmt::Display| {
            // No related products rather than a lookup waiting forever.
            tracing::error!("building the related-products index: {err}");
            let _ = filled.set(RelatedIndex::default());
        };
        let spawned = std::thread::Builder::new()
            .name("related-index".into())
            .spawn({
                let filled = std::sync::Arc::clone(&filled);
                move || {
                    // Wanted only by the first related-products lookup, and it reads the disk
                    // after a cold restart.
                    crate::service::background::lower_priorities();
                    match RelatedIndex::build(catalogue.connection()) {
                        Ok(index) => {
                            let _ = filled.set(index);
                        }
                        Err(err) => failed(&filled, &err),
                    }
                }
            });
        if let Err(err) = spawned {
            failed(&filled, &err);
        }
    }
}

impl Drop for RelatedIndexLater {
    fn drop(&mut self) {
        self.spawn();
    }
}

fn internal(err: &rusqlite::Error) -> UpstreamError {
    UpstreamError::Internal(format!("reading the catalogue: {err}"))
}

impl Store {
    /// Opens `CONNECTIONS` read-only connections; the products' index by model and brand is
    /// built by the [`RelatedIndexLater`] returned beside.
    pub fn open(path: &Path) -> Result<(Self, RelatedIndexLater), UpstreamError> {
        let open = || {
            Catalogue::open_read_only(path)
                .map_err(|err| UpstreamError::Internal(format!("opening the catalogue: {err}")))
        };
        let related = std::sync::Arc::new(std::sync::OnceLock::new());
        let later = RelatedIndexLater {
            related: std::sync::Arc::downgrade(&related),
            catalogue: Some(open()?),
        };
        let first = open()?;
        let mut connections = vec![Mutex::new(first)];
        for _ in 1..CONNECTIONS {
            connections.push(Mutex::new(open()?));
        }
        Ok((
            Self {
                connections,
                related,
            },
            later,
        ))
    }

    /// Runs `read` on a free connection (or waits briefly for one); maps `SQLite` errors to
    /// [`UpstreamError::Internal`].
    pub fn read<T>(
        &self,
        read: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, UpstreamError> {
        let guard = self
            .connections
            .iter()
            .find_map(|slot| slot.try_lock().ok())
            .unwrap_or_else(|| {
                // All busy: queue on the first. A poisoned lock still holds a sound connection,
                // as every read is a single statement.
                self.connections[0]
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
            });
        read(guard.connection()).map_err(|err| internal(&err))
    }

    /// Pks of up to `limit` products related to `product`: the same model first, then the same
    /// brand, each best-selling first; never the product itself.
    pub fn related_pks(&self, product: &ProductRow, limit: usize) -> Vec<i64> {
        let related = self.related.wait();
        let same_model = related
            .by_model
            .get(&(product.brand.clone(), product.model.clone()))
            .map_or(&[][..], Vec::as_slice);
        let mut pks: Vec<i64> = same_model
            .iter()
            .copied()
            .filter(|&pk| pk != product.pk)
            .take(limit)
            .collect();
        if pks.len() < limit {
            let same_brand = related
                .by_brand
                .get(&product.brand)
                .map_or(&[][..], Vec::as_slice);
            let more: Vec<i64> = same_brand
                .iter()
                .copied()
                .filter(|&pk| pk != product.pk && !pks.contains(&pk))
                .take(limit - pks.len())
                .collect();
            pks.extend(more);
        }
        pks
    }
}

impl RelatedIndex {
    /// One read of every product; a key is allocated once per brand and model, not once per
    /// product. (Not through a memory map as the first start's builds read: this runs at every
    /// start, and the mapped pages would count as resident memory meanwhile.)
    fn build(conn: &Connection) -> rusqlite::Result<Self> {
        let mut index = Self::default();
        let mut statement =
            conn.prepare("SELECT pk, brand, model FROM products ORDER BY popularity DESC, pk")?;
        let mut rows = statement.query([])?;
        let mut key = (String::new(), String::new());
        while let Some(row) = rows.next()? {
            let pk: i64 = row.get(0)?;
            let brand = crate::catalogue::text_at(row, 1)?;
            let model = crate::catalogue::text_at(row, 2)?;
            match index.by_brand.get_mut(brand) {
                Some(pks) => pks.push(pk),
                None => {
                    index.by_brand.insert(brand.to_owned(), vec![pk]);
                }
            }
            key.0.clear();
            key.0.push_str(brand);
            key.1.clear();
            key.1.push_str(model);
            match index.by_model.get_mut(&key) {
                Some(pks) => pks.push(pk),
                None => {
                    index.by_model.insert(key.clone(), vec![pk]);
                }
            }
        }
        Ok(index)
    }
}

/// The product with internal key `pk`.
pub(super) fn product_by_pk(conn: &Connection, pk: i64) -> rusqlite::Result<Option<ProductRow>> {
    conn.prepare_cached(&format!(
        "SELECT {PRODUCT_COLUMNS} FROM products WHERE pk = ?1"
    ))?
    .query_row([pk], ProductRow::from_row)
    .optional()
}

/// The `limit` most popular products with a known retail price, most popular first.
pub(super) fn popular_at_retail(
    conn: &Connection,
    limit: usize,
) -> rusqlite::Result<Vec<ProductRow>> {
    conn.prepare_cached(&format!(
        "SELECT {PRODUCT_COLUMNS} FROM products WHERE retail_usd_cents > 0
         ORDER BY popularity DESC, pk LIMIT ?1"
    ))?
    .query_map(
        [i64::try_from(limit).unwrap_or(i64::MAX)],
        ProductRow::from_row,
    )?
    .collect()
}

/// The product with catalogue UUID `id` (any case).
pub(super) fn product_by_uuid(conn: &Connection, id: &str) -> rusqlite::Result<Option<ProductRow>> {
    conn.prepare_cached(&format!(
        "SELECT {PRODUCT_COLUMNS} FROM products WHERE id = ?1"
    ))?
    .query_row([id.to_ascii_lowercase()], ProductRow::from_row)
    .optional()
}

/// The product with catalogue slug `slug`.
pub(super) fn product_by_slug(
    conn: &Connection,
    slug: &str,
) -> rusqlite::Result<Option<ProductRow>> {
    conn.prepare_cached(&format!(
        "SELECT {PRODUCT_COLUMNS} FROM products WHERE slug = ?1"
    ))?
    .query_row([slug], ProductRow::from_row)
    .optional()
}

/// Products whose normalized style code is `sku_norm`.
pub(super) fn products_by_sku_norm(
    conn: &Connection,
    sku_norm: &str,
) -> rusqlite::Result<Vec<ProductRow>> {
    conn.prepare_cached(&format!(
        "SELECT {PRODUCT_COLUMNS} FROM products WHERE sku_norm = ?1 ORDER BY pk LIMIT 20"
    ))?
    .query_map([sku_norm], ProductRow::from_row)?
    .collect()
}

/// The catalogue UUID or slug `key`: a UUID if it parses as one, else a slug (as typed, then in
/// lower case, as users paste slugs from anywhere).
pub(super) fn product_by_catalogue_key(
    conn: &Connection,
    key: &str,
) -> rusqlite::Result<Option<ProductRow>> {
    if uuid::Uuid::parse_str(key).is_ok() {
        return product_by_uuid(conn, key);
    }
    if let Some(product) = product_by_slug(conn, key)? {
        return Ok(Some(product));
    }
    let lower = key.to_ascii_lowercase();
    if lower == key {
        return Ok(None);
    }
    product_by_slug(conn, &lower)
}

/// The sizes of product `pk`, smallest first.
pub(super) fn variants(conn: &Connection, pk: i64) -> rusqlite::Result<Vec<VariantRow>> {
    conn.prepare_cached(
        "SELECT pk, size, size_uk, size_eu, gtin, price_usd_cents, price_eur_cents
         FROM variants WHERE product_pk = ?1 ORDER BY position, pk",
    )?
    .query_map([pk], |row| {
        Ok(VariantRow {
            pk: row.get(0)?,
            size: row.get(1)?,
            size_uk: row.get(2)?,
            size_eu: row.get(3)?,
            gtin: row.get(4)?,
            price_usd_cents: row.get(5)?,
            price_eur_cents: row.get(6)?,
        })
    })?
    .collect()
}

/// Orders in the newest recorded week of product `pk` (0 without records).
fn newest_week_orders(conn: &Connection, pk: i64) -> rusqlite::Result<i64> {
    Ok(conn
        .prepare_cached(
            "SELECT orders FROM weekly_orders WHERE product_pk = ?1 ORDER BY week_start DESC LIMIT 1",
        )?
        .query_row([pk], |row| row.get(0))
        .optional()?
        .unwrap_or(0))
}

/// `product` with its sizes and recent weekly orders.
pub(super) fn listing(conn: &Connection, product: ProductRow) -> rusqlite::Result<Listing> {
    let variants = variants(conn, product.pk)?;
    let newest = newest_week_orders(conn, product.pk)?;
    // The newest week says what sells now; the four-week figure smooths a one-week blip.
    let weekly_orders = f64::midpoint(newest as f64, product.popularity as f64 / 4.0);
    Ok(Listing {
        product,
        variants,
        weekly_orders,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small generated catalogue in `dir`.
    fn catalogue(dir: &Path) -> std::path::PathBuf {
        let path = dir.join("catalogue.sqlite");
        crate::catalogue::generate::for_tests(&path, 50, 3);
        path
    }

    /// The first product's related pks, once the index is there.
    fn related_of_first(store: &Store) -> Vec<i64> {
        let product = store.read(|conn| product_by_pk(conn, 1)).unwrap().unwrap();
        store.related_pks(&product, 5)
    }

    #[test]
    fn the_related_index_waits_for_start_and_is_built_when_the_handle_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = catalogue(dir.path());
        let (store, later) = Store::open(&path).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(store.related.get().is_none(), "built before it was started");
        later.start();
        let started = related_of_first(&store);
        assert!(!started.is_empty());

        // Dropped unstarted: built all the same, so that a lookup never waits forever.
        let (store, later) = Store::open(&path).unwrap();
        drop(later);
        assert_eq!(related_of_first(&store), started);

        // The store gone first: nothing is built, and nothing panics.
        let (store, later) = Store::open(&path).unwrap();
        drop(store);
        later.start();
    }
}
