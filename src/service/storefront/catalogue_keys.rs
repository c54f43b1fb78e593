//! A catalogue file as the matcher needs it (`matching.rs`): its style codes read once into a
//! [`CodeIndex`] (from the `products_sku` index alone, never the wide product rows), its GTINs
//! asked in batches through the `variants_gtin` index, and the matched products' ids, slugs and
//! brands read by row id. Works on any catalogue of `catalogue/schema.sql`: the demo's, an
//! imported one, or the KicksDB mirror.
//!
//! A last guard after the codes: where the store's `vendor` names a brand Solescope knows (Nike,
//! adidas, New Balance, ...) and the matched catalogue product is of another brand, the match is
//! refused. A code read from a title can be another brand's code by chance: a Nike style
//! `CW2288-111` whose first half `CW2288` is also the shape of an adidas code.

use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

use rusqlite::types::Value;

use super::matching::{self, CodeIndex, CodeKey, GtinLookup, Matched, ProductKeys, Unmatched};
use crate::catalogue::Catalogue;

/// Why the catalogue could not be read for matching.
#[derive(Debug, Clone, thiserror::Error)]
#[error("reading the catalogue for matching: {0}")]
pub struct CatalogueKeysError(String);

/// A catalogue product a store product matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogueProduct {
    /// The catalogue's row id (valid for this file only).
    pub pk: i64,
    /// Its UUID, as the interface names it.
    pub id: String,
    /// Its slug.
    pub slug: String,
    /// Its brand.
    pub brand: String,
    /// Its style code, as the catalogue writes it.
    pub sku: String,
    /// Its title.
    pub title: String,
}

/// The matcher's answer for one store product, with the catalogue product named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogueMatch {
    /// It is this catalogue product, by this evidence.
    Product(CatalogueProduct, matching::Evidence),
    /// It is none.
    No(NoMatch),
}

/// Why a store product is no catalogue product.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoMatch {
    /// Its codes or barcodes are not in the catalogue, or name several products.
    #[error("{0}")]
    Unmatched(Unmatched),
    /// Its code is a catalogue product of another brand than the store's vendor.
    #[error("its code is a {brand} product in the catalogue, but the store sells it as {vendor}")]
    BrandConflict {
        /// The store's vendor.
        vendor: String,
        /// The catalogue product's brand.
        brand: String,
    },
}

/// The size and modification time of a catalogue file and of its write-ahead log: when any
/// changes, its keys are read again. (A catalogue written in WAL mode, such as KicksDB's
/// mirror, changes in its `-wal` file until a checkpoint; the main file alone would not show a
/// product written a moment ago.)
pub type FileStamp = [(u64, Option<SystemTime>); 2];

/// The stamp of the catalogue file at `path` and its `-wal` beside it.
#[must_use]
pub fn file_stamp(path: &Path) -> Option<FileStamp> {
    let stamp = |path: &Path| {
        std::fs::metadata(path)
            .ok()
            .map(|meta| (meta.len(), meta.modified().ok()))
    };
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    Some([stamp(path)?, stamp(Path::new(&wal)).unwrap_or((0, None))])
}

/// A catalogue's codes in memory and its file open for GTINs and names.
pub struct CatalogueKeys {
    catalogue: Catalogue,
    codes: CodeIndex,
    stamp: Option<FileStamp>,
}

impl std::fmt::Debug for CatalogueKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogueKeys")
            .field("path", &self.catalogue.path())
            .field("codes", &self.codes.len())
            .finish_non_exhaustive()
    }
}

/// GTINs asked of SQLite in one statement.
const GTINS_PER_QUERY: usize = 500;

impl CatalogueKeys {
    /// Opens the catalogue at `path` read-only and reads its style codes.
    ///
    /// # Errors
    /// The file is missing, not a catalogue of this version, or unreadable.
    pub fn open(path: &Path) -> Result<Self, CatalogueKeysError> {
        let failed = |err: &dyn std::fmt::Display| {
            CatalogueKeysError(format!("{err:#}: {}", path.display()))
        };
        let stamp = file_stamp(path);
        let catalogue = Catalogue::open_read_only(path).map_err(|err| failed(&err))?;
        let mut pairs: Vec<(CodeKey, i64)> = Vec::new();
        {
            let conn = catalogue.connection();
            // Served by the covering index `products_sku(sku_norm)`: a few MB, not the rows.
            let mut statement = conn
                .prepare("SELECT sku_norm, pk FROM products INDEXED BY products_sku")
                .map_err(|err| failed(&err))?;
            let mut rows = statement.query([]).map_err(|err| failed(&err))?;
            while let Some(row) = rows.next().map_err(|err| failed(&err))? {
                let code = row.get_ref(0).map_err(|err| failed(&err))?;
                let pk: i64 = row.get(1).map_err(|err| failed(&err))?;
                if let Ok(text) = code.as_str()
                    && let Some(key) = CodeKey::parse(text)
                {
                    pairs.push((key, pk));
                }
            }
        }
        let codes = CodeIndex::from_pairs(&mut pairs);
        Ok(Self {
            catalogue,
            codes,
            stamp,
        })
    }

    /// The file read.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.catalogue.path()
    }

    /// Whether the file changed since it was read (another catalogue took its place).
    #[must_use]
    pub fn is_stale(&self) -> bool {
        file_stamp(self.catalogue.path()) != self.stamp
    }

    /// The codes read.
    #[must_use]
    pub fn codes(&self) -> &CodeIndex {
        &self.codes
    }

    /// Each of `products` matched: the catalogue product with its evidence, or why none.
    ///
    /// # Errors
    /// The catalogue's GTINs or names could not be read.
    pub fn match_products(
        &self,
        products: &[(ProductKeys<'_>, &str)],
    ) -> Result<Vec<CatalogueMatch>, CatalogueKeysError> {
        let keys: Vec<ProductKeys<'_>> = products.iter().map(|(keys, _)| *keys).collect();
        let mut gtins = GtinsOf {
            catalogue: &self.catalogue,
        };
        let answers =
            matching::match_products(&self.codes, &mut gtins, &keys).map_err(CatalogueKeysError)?;
        let mut pks: Vec<i64> = answers
            .iter()
            .filter_map(|answer| match answer {
                Matched::Product { pk, .. } => Some(*pk),
                Matched::No(_) => None,
            })
            .collect();
        pks.sort_unstable();
        pks.dedup();
        let named = self.products(&pks)?;
        Ok(answers
            .into_iter()
            .zip(products)
            .map(|(answer, (_, vendor))| match answer {
                Matched::No(why) => CatalogueMatch::No(NoMatch::Unmatched(why)),
                Matched::Product { pk, by } => match named.get(&pk) {
                    None => CatalogueMatch::No(NoMatch::Unmatched(Unmatched::NotInCatalogue)),
                    Some(product) if brands_conflict(vendor, &product.brand) => {
                        CatalogueMatch::No(NoMatch::BrandConflict {
                            vendor: (*vendor).to_owned(),
                            brand: product.brand.clone(),
                        })
                    }
                    Some(product) => CatalogueMatch::Product(product.clone(), by),
                },
            })
            .collect())
    }

    /// The products `pks` (sorted), by row id.
    fn products(&self, pks: &[i64]) -> Result<HashMap<i64, CatalogueProduct>, CatalogueKeysError> {
        let failed = |err: rusqlite::Error| {
            CatalogueKeysError(format!("{err:#}: {}", self.catalogue.path().display()))
        };
        let mut statement = self
            .catalogue
            .connection()
            .prepare_cached("SELECT id, slug, brand, sku, title FROM products WHERE pk = ?1")
            .map_err(failed)?;
        let mut named = HashMap::with_capacity(pks.len());
        for &pk in pks {
            let row = statement.query_row([pk], |row| {
                Ok(CatalogueProduct {
                    pk,
                    id: row.get(0)?,
                    slug: row.get(1)?,
                    brand: row.get(2)?,
                    sku: row.get(3)?,
                    title: row.get(4)?,
                })
            });
            match row {
                Ok(product) => {
                    named.insert(pk, product);
                }
                Err(rusqlite::Error::QueryReturnedNoRows) => {}
                Err(err) => return Err(failed(err)),
            }
        }
        Ok(named)
    }
}

/// The catalogue's `variants_gtin` index, asked in batches.
struct GtinsOf<'a> {
    catalogue: &'a Catalogue,
}

impl GtinLookup for GtinsOf<'_> {
    fn products_of(&mut self, gtins: &[u64]) -> Result<HashMap<u64, i64>, String> {
        let failed = |err: rusqlite::Error| format!("{err:#}: {}", self.catalogue.path().display());
        let mut statement = self
            .catalogue
            .connection()
            .prepare_cached("SELECT gtin, product_pk FROM variants WHERE gtin IN rarray(?1)")
            .map_err(failed)?;
        let mut found = HashMap::new();
        for batch in gtins.chunks(GTINS_PER_QUERY) {
            // The catalogue writes a UPC-A in 12 digits and an EAN-13 in 13: ask both forms.
            let mut texts: Vec<Value> = Vec::with_capacity(batch.len() * 2);
            for &gtin in batch {
                if gtin < 1_000_000_000_000 {
                    texts.push(Value::Text(format!("{gtin:012}")));
                }
                if gtin < 10_000_000_000_000 {
                    texts.push(Value::Text(format!("{gtin:013}")));
                } else {
                    texts.push(Value::Text(format!("{gtin:014}")));
                }
            }
            let list = std::rc::Rc::new(texts);
            let mut rows = statement.query([list]).map_err(failed)?;
            while let Some(row) = rows.next().map_err(failed)? {
                let text: String = row.get(0).map_err(failed)?;
                let pk: i64 = row.get(1).map_err(failed)?;
                if let Some(gtin) = matching::gtin_number(&text) {
                    found.insert(gtin, pk);
                }
            }
        }
        Ok(found)
    }
}

/// The brand families a vendor or a catalogue brand is recognised by (lower case, letters and
/// digits only; a name containing the key belongs to the family). Jordan is Nike's; Yeezy was
/// adidas'.
const BRAND_FAMILIES: &[(&str, &str)] = &[
    ("jordan", "nike"),
    ("nike", "nike"),
    ("yeezy", "adidas"),
    ("adidas", "adidas"),
    ("newbalance", "newbalance"),
    ("asics", "asics"),
    ("onitsuka", "asics"),
    ("converse", "converse"),
    ("puma", "puma"),
    ("salomon", "salomon"),
    ("vans", "vans"),
    ("reebok", "reebok"),
    ("hoka", "hoka"),
    ("saucony", "saucony"),
];

/// The family `name` belongs to, when it names a brand Solescope knows.
#[must_use]
pub fn brand_family(name: &str) -> Option<&'static str> {
    let plain: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    BRAND_FAMILIES
        .iter()
        .find(|(key, _)| plain.contains(key))
        .map(|(_, family)| *family)
}

/// Whether the store's `vendor` and the catalogue's `brand` are both known and differ.
#[must_use]
pub fn brands_conflict(vendor: &str, brand: &str) -> bool {
    matches!((brand_family(vendor), brand_family(brand)), (Some(a), Some(b)) if a != b)
}

/// The matcher's answers for `products`, in order.
pub(super) fn match_store_products(
    keys: &CatalogueKeys,
    products: &[(super::feed::CrawledProduct, Option<String>)],
) -> Result<Vec<CatalogueMatch>, CatalogueKeysError> {
    let skus: Vec<Vec<&str>> = products
        .iter()
        .map(|(p, _)| p.variants.iter().map(|v| v.sku.as_str()).collect())
        .collect();
    let barcodes: Vec<Vec<&str>> = products
        .iter()
        .map(|(p, _)| {
            p.variants
                .iter()
                .filter_map(|v| v.barcode.as_deref())
                .collect()
        })
        .collect();
    let keyed: Vec<(ProductKeys<'_>, &str)> = products
        .iter()
        .zip(skus.iter().zip(&barcodes))
        .map(|((product, _), (skus, barcodes))| {
            (
                ProductKeys {
                    title: &product.title,
                    handle: &product.handle,
                    skus,
                    barcodes,
                },
                product.vendor.as_str(),
            )
        })
        .collect();
    keys.match_products(&keyed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brands_conflict_only_when_both_are_known_and_differ() {
        assert!(!brands_conflict("Jordan", "Nike"));
        assert!(!brands_conflict("Nike Sportswear", "Jordan"));
        assert!(!brands_conflict("adidas Originals", "adidas"));
        assert!(!brands_conflict("Kith", "adidas"));
        assert!(!brands_conflict("", "Nike"));
        assert!(brands_conflict("Nike", "adidas"));
        assert!(brands_conflict("New Balance", "ASICS"));
    }

    #[test]
    fn codes_gtins_and_names_are_read_from_a_catalogue_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.sqlite");
        crate::catalogue::generate::for_tests(&path, 800, 7);
        let keys = CatalogueKeys::open(&path).unwrap();
        assert!(keys.codes().len() >= 700, "{}", keys.codes().len());
        let conn = rusqlite::Connection::open(&path).unwrap();
        let (gtin, id): (String, String) = conn
            .query_row(
                "SELECT v.gtin, p.id FROM variants v JOIN products p ON p.pk = v.product_pk
                 WHERE p.sku = 'DZ5485-612' AND v.gtin IS NOT NULL LIMIT 1",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        // The UPC-A also written as EAN-13, with its leading zero.
        let ean = format!("0{gtin}");
        let barcodes = [ean.as_str()];
        let products = [
            (
                ProductKeys {
                    title: "AJ1 High OG",
                    handle: "aj1",
                    skus: &[],
                    barcodes: &barcodes,
                },
                "Jordan",
            ),
            (
                ProductKeys {
                    title: "Dunk",
                    handle: "d",
                    skus: &["dd1391-100-095"],
                    barcodes: &[],
                },
                "Nike",
            ),
            (
                ProductKeys {
                    title: "Dunk",
                    handle: "d",
                    skus: &["dd1391-100-095"],
                    barcodes: &[],
                },
                "Puma",
            ),
        ];
        let answers = keys.match_products(&products).unwrap();
        match &answers[0] {
            CatalogueMatch::Product(product, matching::Evidence::Barcode) => {
                assert_eq!(product.id, id);
            }
            other => panic!("{other:?}"),
        }
        match &answers[1] {
            CatalogueMatch::Product(product, matching::Evidence::Sku) => {
                assert!(product.slug.contains("dd1391-100"), "{}", product.slug);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            answers[2],
            CatalogueMatch::No(NoMatch::BrandConflict { .. })
        ));
    }
}
