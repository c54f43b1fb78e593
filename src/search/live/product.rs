//! A product as a write to the live index carries it: what the index reads of it (the fields the
//! build reads from the catalogue) and its search hit (what `/search` writes for it, both
//! datasets), so that a page with live products is written without reading the catalogue.

use rusqlite::{Connection, OptionalExtension};

use super::LiveError;
use crate::search::analyze::ProductText;

/// Longest text field accepted, in bytes (a description of 10,000 words is some 70 KB).
pub const MAX_FIELD_BYTES: usize = 256 << 10;
/// Most sizes (variants) a product may have.
pub const MAX_VARIANTS: usize = 1_000;
/// Most labels a product may have.
pub const MAX_LABELS: usize = 64;

/// One product written to the live index. Keyed by `pk`, the catalogue's key: its owner assigns
/// it; a second write of the same `pk` replaces the first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiveProduct {
    /// `products.pk`.
    pub pk: i64,
    /// `products.popularity` (higher first; ties by `pk`).
    pub popularity: i64,
    /// `products.id` (a UUID, found exactly when typed).
    pub id: String,
    /// `products.slug` (found exactly when typed, or as the last part of a link).
    pub slug: String,
    /// Style code as written (`DZ5485-612`).
    pub sku: String,
    /// The style code normalized: [`normalize_sku`](crate::catalogue::generate::normalize_sku)
    /// of `sku` (what the catalogue's `sku_norm` holds).
    pub sku_norm: String,
    /// Title.
    pub title: String,
    /// Brand.
    pub brand: String,
    /// Silhouette.
    pub model: String,
    /// Category.
    pub category: String,
    /// Colorway.
    pub color: String,
    /// Gender.
    pub gender: String,
    /// HTML description, `None` when the product has none.
    pub description: Option<String>,
    /// The rest of the search hit.
    pub hit: ProductHit,
}

/// The part of a product's search hit the index does not read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProductHit {
    /// `products.age_group`.
    pub age_group: String,
    /// `products.availability`.
    pub availability: String,
    /// `products.condition`.
    pub condition: String,
    /// `products.image`.
    pub image: String,
    /// `products.inserted_at`.
    pub inserted_at: String,
    /// `products.link`.
    pub link: String,
    /// `products.release_date`.
    pub release_date: String,
    /// `products.size_system`.
    pub size_system: String,
    /// `products.is_bundle`.
    pub is_bundle: bool,
    /// `products.labels`.
    pub labels: Vec<String>,
    /// US prices (dataset `us`).
    pub usd: HitPrices,
    /// FR prices (dataset `fr`).
    pub eur: HitPrices,
    /// Sizes, in order.
    pub variants: Vec<HitVariant>,
}

/// One dataset's prices of a product, in cents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HitPrices {
    /// Lowest ask over sizes.
    pub min_cents: i64,
    /// Average ask.
    pub avg_cents: i64,
    /// Highest ask.
    pub max_cents: i64,
    /// Base price.
    pub base_cents: i64,
    /// Retail price (0: unknown).
    pub retail_cents: i64,
}

/// One size of a product.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HitVariant {
    /// The variant's UUID (`None`: shown empty, as a catalogue id that is not one).
    pub id: Option<uuid::Uuid>,
    /// Size label.
    pub size: String,
    /// Barcode (GTIN-8/12/13/14 are found exactly when typed).
    pub gtin: Option<String>,
    /// The variant's own link; `None`: the product's link with `size=`.
    pub link: Option<String>,
    /// Price in US cents.
    pub price_usd_cents: i64,
    /// Price in euro cents.
    pub price_eur_cents: i64,
}

/// What the index reads of a product (kept in the write log; module `log`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct IndexFields {
    pub(crate) pk: i64,
    pub(crate) popularity: i64,
    /// id, slug, sku, `sku_norm`, title, brand, model, category, color, gender.
    pub(crate) texts: [String; 10],
    pub(crate) description: Option<String>,
    /// GTIN-14 numbers, sorted, once each.
    pub(crate) gtins: Vec<u64>,
}

impl IndexFields {
    /// The fields as module `analyze` reads them.
    pub(crate) fn text(&self) -> ProductText<'_> {
        let texts = self.texts.each_ref().map(String::as_str);
        ProductText {
            id: texts[0],
            slug: texts[1],
            sku: texts[2],
            sku_norm: texts[3],
            title: texts[4],
            brand: texts[5],
            model: texts[6],
            category: texts[7],
            color: texts[8],
            gender: texts[9],
            description: self.description.as_deref().unwrap_or(""),
        }
    }
}

impl LiveProduct {
    /// What the index reads of the product.
    pub(crate) fn index_fields(&self) -> IndexFields {
        let mut gtins: Vec<u64> = self
            .hit
            .variants
            .iter()
            .filter_map(|variant| crate::search::gtins::parse_gtin(variant.gtin.as_deref()?))
            .collect();
        gtins.sort_unstable();
        gtins.dedup();
        IndexFields {
            pk: self.pk,
            popularity: self.popularity,
            texts: [
                self.id.clone(),
                self.slug.clone(),
                self.sku.clone(),
                self.sku_norm.clone(),
                self.title.clone(),
                self.brand.clone(),
                self.model.clone(),
                self.category.clone(),
                self.color.clone(),
                self.gender.clone(),
            ],
            description: self.description.clone(),
            gtins,
        }
    }

    /// Refuses what the index cannot take whole: a field over [`MAX_FIELD_BYTES`], more than
    /// [`MAX_VARIANTS`] sizes or [`MAX_LABELS`] labels. Odd characters are fine (text is
    /// stored as given and indexed by module `text`'s rule); an empty title is fine too.
    pub fn check(&self) -> Result<(), LiveError> {
        let hit = &self.hit;
        let texts = [
            ("id", self.id.as_str()),
            ("slug", &self.slug),
            ("sku", &self.sku),
            ("sku_norm", &self.sku_norm),
            ("title", &self.title),
            ("brand", &self.brand),
            ("model", &self.model),
            ("category", &self.category),
            ("color", &self.color),
            ("gender", &self.gender),
            ("description", self.description.as_deref().unwrap_or("")),
            ("age_group", &hit.age_group),
            ("availability", &hit.availability),
            ("condition", &hit.condition),
            ("image", &hit.image),
            ("inserted_at", &hit.inserted_at),
            ("link", &hit.link),
            ("release_date", &hit.release_date),
            ("size_system", &hit.size_system),
        ];
        let variant_texts = hit.variants.iter().flat_map(|variant| {
            [
                ("variant size", variant.size.as_str()),
                ("variant gtin", variant.gtin.as_deref().unwrap_or("")),
                ("variant link", variant.link.as_deref().unwrap_or("")),
            ]
        });
        let label_texts = hit.labels.iter().map(|label| ("label", label.as_str()));
        for (field, text) in texts.into_iter().chain(variant_texts).chain(label_texts) {
            if text.len() > MAX_FIELD_BYTES {
                return Err(LiveError::FieldTooLong {
                    pk: self.pk,
                    field,
                    bytes: text.len(),
                    max_bytes: MAX_FIELD_BYTES,
                });
            }
        }
        if hit.variants.len() > MAX_VARIANTS {
            return Err(LiveError::TooManyVariants {
                pk: self.pk,
                count: hit.variants.len(),
                max: MAX_VARIANTS,
            });
        }
        if hit.labels.len() > MAX_LABELS {
            return Err(LiveError::TooManyLabels {
                pk: self.pk,
                count: hit.labels.len(),
                max: MAX_LABELS,
            });
        }
        Ok(())
    }

    /// Product `pk` as the catalogue behind `conn` holds it (what a write of it carries);
    /// `None` when it has no such product.
    pub fn read(conn: &Connection, pk: i64) -> Result<Option<LiveProduct>, LiveError> {
        let mut statement = conn.prepare_cached(
            "SELECT pk, popularity, id, slug, sku, sku_norm, title, brand, model, category, color,
                    gender, description, age_group, availability, condition, image, inserted_at,
                    link, release_date, size_system, is_bundle, labels,
                    min_usd_cents, avg_usd_cents, max_usd_cents, base_usd_cents, retail_usd_cents,
                    min_eur_cents, avg_eur_cents, max_eur_cents, base_eur_cents, retail_eur_cents
               FROM products WHERE pk = ?1",
        )?;
        let text = |row: &rusqlite::Row<'_>, at: usize| -> rusqlite::Result<String> {
            Ok(row.get::<_, Option<String>>(at)?.unwrap_or_default())
        };
        let product = statement
            .query_row([pk], |row| {
                let prices = |from: usize| -> rusqlite::Result<HitPrices> {
                    Ok(HitPrices {
                        min_cents: row.get(from)?,
                        avg_cents: row.get(from + 1)?,
                        max_cents: row.get(from + 2)?,
                        base_cents: row.get(from + 3)?,
                        retail_cents: row.get(from + 4)?,
                    })
                };
                let labels: String = text(row, 22)?;
                Ok(LiveProduct {
                    pk: row.get(0)?,
                    popularity: row.get(1)?,
                    id: text(row, 2)?,
                    slug: text(row, 3)?,
                    sku: text(row, 4)?,
                    sku_norm: text(row, 5)?,
                    title: text(row, 6)?,
                    brand: text(row, 7)?,
                    model: text(row, 8)?,
                    category: text(row, 9)?,
                    color: text(row, 10)?,
                    gender: text(row, 11)?,
                    description: row.get(12)?,
                    hit: ProductHit {
                        age_group: text(row, 13)?,
                        availability: text(row, 14)?,
                        condition: text(row, 15)?,
                        image: text(row, 16)?,
                        inserted_at: text(row, 17)?,
                        link: text(row, 18)?,
                        release_date: text(row, 19)?,
                        size_system: text(row, 20)?,
                        is_bundle: row.get(21)?,
                        // As the hit store reads them: a list of strings, else none.
                        labels: serde_json::from_str(&labels).unwrap_or_default(),
                        usd: prices(23)?,
                        eur: prices(28)?,
                        variants: Vec::new(),
                    },
                })
            })
            .optional()?;
        let Some(mut product) = product else {
            return Ok(None);
        };
        let mut variants = conn.prepare_cached(
            "SELECT id, size, gtin, link, price_usd_cents, price_eur_cents
               FROM variants WHERE product_pk = ?1 ORDER BY position",
        )?;
        let mut rows = variants.query([pk])?;
        while let Some(row) = rows.next()? {
            let id = match row.get_ref(0)? {
                rusqlite::types::ValueRef::Blob(bytes) => uuid::Uuid::from_slice(bytes).ok(),
                _ => None,
            };
            product.hit.variants.push(HitVariant {
                id,
                size: row.get::<_, Option<String>>(1)?.unwrap_or_default(),
                gtin: row.get(2)?,
                link: row.get(3)?,
                price_usd_cents: row.get(4)?,
                price_eur_cents: row.get(5)?,
            });
        }
        Ok(Some(product))
    }
}

/// Writes `product` into the catalogue behind `conn` as its row and its sizes (replacing the
/// product of its key): what a catalogue holding the products written to a live index holds,
/// for the tests that compare the live index with a full rebuild from such a catalogue.
#[doc(hidden)]
pub fn write_to_catalogue(conn: &Connection, product: &LiveProduct) -> Result<(), LiveError> {
    let hit = &product.hit;
    conn.execute("DELETE FROM variants WHERE product_pk = ?1", [product.pk])?;
    conn.execute(
        "INSERT OR REPLACE INTO products (pk, id, slug, sku, sku_norm, title, brand, model,
           category, color, gender, age_group, size_system, condition, availability, description,
           image, link, release_date, retail_usd_cents, retail_eur_cents, min_usd_cents,
           avg_usd_cents, max_usd_cents, base_usd_cents, min_eur_cents, avg_eur_cents,
           max_eur_cents, base_eur_cents, is_bundle, labels, inserted_at, popularity)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
           ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33)",
        rusqlite::params![
            product.pk,
            product.id,
            product.slug,
            product.sku,
            product.sku_norm,
            product.title,
            product.brand,
            product.model,
            product.category,
            product.color,
            product.gender,
            hit.age_group,
            hit.size_system,
            hit.condition,
            hit.availability,
            product.description,
            hit.image,
            hit.link,
            hit.release_date,
            hit.usd.retail_cents,
            hit.eur.retail_cents,
            hit.usd.min_cents,
            hit.usd.avg_cents,
            hit.usd.max_cents,
            hit.usd.base_cents,
            hit.eur.min_cents,
            hit.eur.avg_cents,
            hit.eur.max_cents,
            hit.eur.base_cents,
            hit.is_bundle,
            serde_json::to_string(&hit.labels).unwrap_or_else(|_| "[]".to_owned()),
            hit.inserted_at,
            product.popularity,
        ],
    )?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO variants (id, product_pk, position, size, gtin, link, price_usd_cents,
           price_eur_cents) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for (position, variant) in hit.variants.iter().enumerate() {
        let id: Vec<u8> = variant
            .id
            .map(|id| id.as_bytes().to_vec())
            .unwrap_or_default();
        insert.execute(rusqlite::params![
            id,
            product.pk,
            position as i64,
            variant.size,
            variant.gtin,
            variant.link,
            variant.price_usd_cents,
            variant.price_eur_cents,
        ])?;
    }
    Ok(())
}
