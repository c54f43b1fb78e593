//! Reading the store file back: a store's passes, its products with their sizes, a product by
//! its handle.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use super::{PassOutcome, PassRow, StoreDb, StoreDbError};
use crate::service::storefront::feed::{CrawledProduct, CrawledVariant};

impl StoreDb {
    /// The store's newest passes, newest first.
    ///
    /// # Errors
    /// SQLite refused.
    pub fn passes(&self, store_id: i64, limit: u32) -> Result<Vec<PassRow>, StoreDbError> {
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT pass_id, started_at, finished_at, requests, pages_read, products_seen,
                     products_written, products_removed, expected_products, outcome, detail
                 FROM pass WHERE store_id = ?1 ORDER BY pass_id DESC LIMIT ?2",
            )
            .map_err(|e| self.error(e))?;
        statement
            .query_map(params![store_id, limit], |row| {
                Ok(PassRow {
                    pass_id: row.get(0)?,
                    started_at: row.get(1)?,
                    finished_at: row.get(2)?,
                    requests: row.get(3)?,
                    pages_read: row.get(4)?,
                    products_seen: row.get(5)?,
                    products_written: row.get(6)?,
                    products_removed: row.get(7)?,
                    expected_products: row
                        .get::<_, Option<i64>>(8)?
                        .and_then(|n| u64::try_from(n).ok()),
                    outcome: PassOutcome::parse(row.get::<_, Option<String>>(9)?.as_deref()),
                    detail: row.get(10)?,
                })
            })
            .map_err(|e| self.error(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.error(e))
    }

    /// The store's products (all, or those with the ids given), sizes in order; with each, the
    /// `updated_at` its barcodes were read at.
    ///
    /// # Errors
    /// SQLite refused.
    pub fn products(
        &self,
        store_id: i64,
        only: Option<&[u64]>,
    ) -> Result<Vec<(CrawledProduct, Option<String>)>, StoreDbError> {
        const PRODUCT: &str = "SELECT product_id, handle, title, vendor, product_type, updated_at,
                 tags, images, barcodes_for, published_at FROM product";
        const VARIANT: &str = "SELECT product_id, variant_id, size, sku, price, available, barcode
                 FROM variant";
        let sqlite = |e| self.error(e);
        let mut variants: HashMap<i64, Vec<CrawledVariant>> = HashMap::new();
        let mut products = Vec::new();
        let read_product = |row: &rusqlite::Row<'_>| {
            let tags: String = row.get(6)?;
            let images: String = row.get(7)?;
            Ok((
                row.get::<_, i64>(0)?,
                CrawledProduct {
                    product_id: u64::try_from(row.get::<_, i64>(0)?).unwrap_or(0),
                    handle: row.get(1)?,
                    title: row.get(2)?,
                    vendor: row.get(3)?,
                    product_type: row.get(4)?,
                    updated_at: row.get(5)?,
                    published_at: row.get(9)?,
                    tags: serde_json::from_str(&tags).unwrap_or_default(),
                    images: serde_json::from_str(&images).unwrap_or_default(),
                    variants: Vec::new(),
                },
                row.get::<_, Option<String>>(8)?,
            ))
        };
        let read_variant = |row: &rusqlite::Row<'_>| {
            Ok((
                row.get::<_, i64>(0)?,
                CrawledVariant {
                    variant_id: u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                    size: row.get(2)?,
                    sku: row.get(3)?,
                    price: row.get(4)?,
                    available: row.get(5)?,
                    barcode: row.get(6)?,
                },
            ))
        };
        match only {
            None => {
                let mut statement = self
                    .conn
                    .prepare_cached(&format!(
                        "{PRODUCT} WHERE store_id = ?1 ORDER BY product_id"
                    ))
                    .map_err(sqlite)?;
                for row in statement
                    .query_map([store_id], read_product)
                    .map_err(sqlite)?
                {
                    products.push(row.map_err(sqlite)?);
                }
                let mut statement = self
                    .conn
                    .prepare_cached(&format!(
                        "{VARIANT} WHERE store_id = ?1 ORDER BY product_id, position"
                    ))
                    .map_err(sqlite)?;
                for row in statement
                    .query_map([store_id], read_variant)
                    .map_err(sqlite)?
                {
                    let (product, variant) = row.map_err(sqlite)?;
                    variants.entry(product).or_default().push(variant);
                }
            }
            Some(ids) => {
                let mut one = self
                    .conn
                    .prepare_cached(&format!(
                        "{PRODUCT} WHERE store_id = ?1 AND product_id = ?2"
                    ))
                    .map_err(sqlite)?;
                let mut sizes = self
                    .conn
                    .prepare_cached(&format!(
                        "{VARIANT} WHERE store_id = ?1 AND product_id = ?2 ORDER BY position"
                    ))
                    .map_err(sqlite)?;
                for &id in ids {
                    let id = i64::try_from(id).unwrap_or(i64::MAX);
                    if let Some(row) = one
                        .query_row(params![store_id, id], read_product)
                        .optional()
                        .map_err(sqlite)?
                    {
                        products.push(row);
                    }
                    for row in sizes
                        .query_map(params![store_id, id], read_variant)
                        .map_err(sqlite)?
                    {
                        let (product, variant) = row.map_err(sqlite)?;
                        variants.entry(product).or_default().push(variant);
                    }
                }
            }
        }
        Ok(products
            .into_iter()
            .map(|(id, mut product, barcodes_for)| {
                product.variants = variants.remove(&id).unwrap_or_default();
                (product, barcodes_for)
            })
            .collect())
    }

    /// The store's product with `handle`, if it has one.
    ///
    /// # Errors
    /// SQLite refused.
    pub fn product_id_by_handle(
        &self,
        store_id: i64,
        handle: &str,
    ) -> Result<Option<u64>, StoreDbError> {
        self.conn
            .query_row(
                "SELECT product_id FROM product WHERE store_id = ?1 AND handle = ?2",
                params![store_id, handle],
                |row| row.get::<_, i64>(0),
            )
            .optional()
            .map(|id| id.and_then(|id| u64::try_from(id).ok()))
            .map_err(|e| self.error(e))
    }

    /// The store's products that came after its first pass that read pages: new to the store
    /// since it was first read (a product in the first pass is no arrival, whatever its age),
    /// each with when the pass that first wrote it started (Unix seconds).
    ///
    /// # Errors
    /// SQLite refused.
    pub fn arrivals(&self, store_id: i64) -> Result<HashMap<u64, i64>, StoreDbError> {
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT product_id, first_seen FROM product
                 WHERE store_id = ?1 AND first_pass > (
                     SELECT coalesce(min(pass_id), 0) FROM pass
                     WHERE store_id = ?1 AND pages_read > 0)",
            )
            .map_err(|e| self.error(e))?;
        statement
            .query_map([store_id], |row| {
                Ok((
                    u64::try_from(row.get::<_, i64>(0)?).unwrap_or(0),
                    row.get::<_, i64>(1)?,
                ))
            })
            .map_err(|e| self.error(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.error(e))
    }
}
