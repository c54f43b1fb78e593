//! Reads of the catalogue in the shapes of the interface: search hits, the v2 product, weekly
//! orders and statistics. Money is stored in cents and leaves here as plain numbers.

use std::collections::HashMap;

use std::rc::Rc;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row};

use super::CatalogueError;
use crate::model::{
    Country, DatasetStats, Link, Product, ReleaseDate, RetailPrice, SearchHit, SearchVariant,
    Stats, Variant, VariantMetadata, WeeklyOrder,
};

/// Cents to a plain money number.
fn money(cents: i64) -> f64 {
    cents as f64 / 100.0
}

/// A product key as the interface accepts it: a UUID or a slug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProductKey<'a> {
    /// The product's UUID (any case).
    Id(&'a str),
    /// The product's slug.
    Slug(&'a str),
}

impl<'a> ProductKey<'a> {
    /// UUID if it parses as one, slug otherwise.
    pub fn parse(text: &'a str) -> Self {
        if uuid::Uuid::parse_str(text).is_ok() {
            ProductKey::Id(text)
        } else {
            ProductKey::Slug(text)
        }
    }
}

/// The internal key (`products.pk`) of a product.
pub fn product_pk(conn: &Connection, key: ProductKey<'_>) -> Result<Option<i64>, CatalogueError> {
    let found = match key {
        ProductKey::Id(id) => conn
            .prepare_cached("SELECT pk FROM products WHERE id = ?1")?
            .query_row([id.to_ascii_lowercase()], |row| row.get(0))
            .optional()?,
        ProductKey::Slug(slug) => conn
            .prepare_cached("SELECT pk FROM products WHERE slug = ?1")?
            .query_row([slug], |row| row.get(0))
            .optional()?,
    };
    Ok(found)
}

/// The products with a variant whose GTIN, read as a number, is `gtin` (a GTIN-14 number):
/// stored with 8, 12, 13 or 14 digits, as the search index reads GTINs. One lookup in the
/// `variants_gtin` index per width the number fits.
///
/// A number over 14 digits is no GTIN: no product. The only error is `SQLite`'s.
pub fn product_pks_with_gtin(conn: &Connection, gtin: u64) -> rusqlite::Result<Vec<i64>> {
    if gtin >= 10u64.pow(14) {
        return Ok(Vec::new());
    }
    // Every width the number fits; a missing one repeats the widest.
    let form = |width: usize| {
        let width = if gtin < 10u64.pow(width as u32) {
            width
        } else {
            14
        };
        format!("{gtin:0width$}")
    };
    let mut statement = conn.prepare_cached(
        "SELECT DISTINCT product_pk FROM variants WHERE gtin IN (?1, ?2, ?3, ?4)",
    )?;
    statement
        .query_map([form(8), form(12), form(13), form(14)], |row| row.get(0))?
        .collect()
}

const HIT_COLUMNS: &str = "pk, id, slug, sku, title, brand, category, color, gender, age_group,
    size_system, condition, availability, description, image, link, release_date, is_bundle,
    labels, inserted_at";

/// Search hits for `pks`, in the order given, priced for `country`. Unknown pks are skipped.
/// `conn` must come from [`Catalogue`](super::Catalogue) (it registers `rarray`).
pub fn search_hits(
    conn: &Connection,
    pks: &[i64],
    country: Country,
) -> Result<Vec<SearchHit>, CatalogueError> {
    Ok(search_hits_by_pk(conn, pks, country)?
        .into_iter()
        .map(|(_, hit)| hit)
        .collect())
}

/// [`search_hits`] with each hit's `pk`.
pub fn search_hits_by_pk(
    conn: &Connection,
    pks: &[i64],
    country: Country,
) -> Result<Vec<(i64, SearchHit)>, CatalogueError> {
    if pks.is_empty() {
        return Ok(Vec::new());
    }
    let currency = price_columns(country);
    // One statement whatever the number of keys: the list is bound as one `rarray` parameter.
    let keys = Rc::new(pks.iter().copied().map(Value::from).collect::<Vec<_>>());
    let sql = format!(
        "SELECT {HIT_COLUMNS}, min_{currency}_cents, avg_{currency}_cents, max_{currency}_cents,
                base_{currency}_cents, retail_{currency}_cents
         FROM products WHERE pk IN rarray(?1)"
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let mut hits: HashMap<i64, SearchHit> = HashMap::with_capacity(pks.len());
    let mut rows = statement.query([&keys])?;
    while let Some(row) = rows.next()? {
        let pk: i64 = row.get(0)?;
        hits.insert(pk, hit_from_row(row, country)?);
    }
    drop(rows);

    let sql = format!(
        "SELECT v.product_pk, v.id, v.size, v.gtin, v.link, v.price_{currency}_cents
         FROM variants v WHERE v.product_pk IN rarray(?1) ORDER BY v.product_pk, v.position"
    );
    let mut statement = conn.prepare_cached(&sql)?;
    let mut rows = statement.query([&keys])?;
    while let Some(row) = rows.next()? {
        let pk: i64 = row.get(0)?;
        let Some(hit) = hits.get_mut(&pk) else {
            continue;
        };
        let size: String = row.get(2)?;
        let link: Option<String> = row.get(4)?;
        hit.variants.push(SearchVariant {
            variant_id: uuid_text(row, 1)?,
            gtin: row.get(3)?,
            variant_link: link.unwrap_or_else(|| variant_link(&hit.link, &size)),
            price: money(row.get(5)?),
            size,
        });
    }
    Ok(pks
        .iter()
        .filter_map(|pk| hits.remove(pk).map(|hit| (*pk, hit)))
        .collect())
}

fn price_columns(country: Country) -> &'static str {
    match country {
        Country::Us => "usd",
        Country::Fr => "eur",
    }
}

fn hit_from_row(row: &Row<'_>, country: Country) -> Result<SearchHit, CatalogueError> {
    let labels: String = row.get(18)?;
    let retail_cents: i64 = row.get(24)?;
    Ok(SearchHit {
        id: row.get(1)?,
        slug: row.get(2)?,
        sku: row.get(3)?,
        title: row.get(4)?,
        brand: row.get(5)?,
        category: row.get(6)?,
        color: row.get(7)?,
        gender: row.get(8)?,
        age_group: row.get(9)?,
        size_system: row.get(10)?,
        condition: row.get(11)?,
        availability: row.get(12)?,
        description: row.get(13)?,
        image: row.get(14)?,
        link: row.get(15)?,
        release_date: row.get(16)?,
        is_bundle: row.get(17)?,
        labels: serde_json::from_str(&labels).unwrap_or_default(),
        inserted_at: row.get(19)?,
        min_price: money(row.get(20)?),
        avg_price: money(row.get(21)?),
        max_price: money(row.get(22)?),
        base_price: money(row.get(23)?),
        retail_price: retail_text(retail_cents),
        currency: country.currency().to_owned(),
        variants: Vec::new(),
    })
}

/// Variant ids are stored as 16 raw bytes (generated) and read back as UUID text.
fn uuid_text(row: &Row<'_>, index: usize) -> Result<String, CatalogueError> {
    let bytes: Vec<u8> = row.get(index)?;
    Ok(uuid::Uuid::from_slice(&bytes)
        .map(|id| id.to_string())
        .unwrap_or_default())
}

/// What a catalogue holds to name a product: enough to find it elsewhere (by style code) and
/// to say which it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldProduct {
    /// UUID.
    pub id: String,
    /// The catalogue's slug.
    pub slug: String,
    /// Style code as written.
    pub sku: String,
    /// Title.
    pub title: String,
}

/// The product with UUID or slug `id`, named ([`HeldProduct`]); `None` when there is none.
pub fn held_product(conn: &Connection, id: &str) -> Result<Option<HeldProduct>, CatalogueError> {
    let Some(pk) = product_pk(conn, ProductKey::parse(id))? else {
        return Ok(None);
    };
    let held = conn
        .prepare_cached("SELECT id, slug, sku, title FROM products WHERE pk = ?1")?
        .query_row([pk], |row| {
            Ok(HeldProduct {
                id: row.get(0)?,
                slug: row.get(1)?,
                sku: row.get(2)?,
                title: row.get(3)?,
            })
        })?;
    Ok(Some(held))
}

/// The colorway of the product with `slug`; `None` when there is none. A one-column read by the
/// unique slug index (the full product read would also load its variants).
pub fn colorway(conn: &Connection, slug: &str) -> Result<Option<String>, CatalogueError> {
    Ok(conn
        .prepare_cached("SELECT color FROM products WHERE slug = ?1")?
        .query_row([slug], |row| row.get(0))
        .optional()?)
}

/// A retail price as the spec writes it: a decimal carried as text, empty when unknown (0).
pub fn retail_text(cents: i64) -> String {
    if cents > 0 {
        format!("{}.{:02}", cents / 100, cents % 100)
    } else {
        String::new()
    }
}

/// A variant's link when the catalogue has none (`NULL`): the product's link with the size,
/// `https://.../slug` + size 9.5 -> `https://.../slug?size=9.5`.
fn variant_link(product_link: &str, size: &str) -> String {
    let separator = if product_link.contains('?') { '&' } else { '?' };
    format!("{product_link}{separator}size={}", size_in_link(size))
}

/// A size as a variant link carries it: letters, digits and points kept, anything else `-`.
pub(crate) fn size_in_link(size: &str) -> String {
    size.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// What the free tier may see of a product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Without release dates and retail prices (the keys are absent).
    Reduced,
    /// Everything.
    Full,
}

/// The v2 catalogue product.
pub fn product(
    conn: &Connection,
    pk: i64,
    detail: Detail,
) -> Result<Option<Product>, CatalogueError> {
    let mut statement = conn.prepare_cached(
        "SELECT id, slug, sku, title, brand, category, color, gender, description, image,
                avg_usd_cents, min_usd_cents, max_usd_cents, trending, model, link, size_system
         FROM products WHERE pk = ?1",
    )?;
    // The product's model, link and size system are read once here for all its variants.
    let Some((mut p, model, product_link, size_system)) = statement
        .query_row([pk], |row| {
            Ok((
                Product {
                    id: row.get(0)?,
                    slug: row.get(1)?,
                    sku: row.get(2)?,
                    title: row.get(3)?,
                    brand: row.get(4)?,
                    category: row.get(5)?,
                    color: row.get(6)?,
                    gender: row.get(7)?,
                    description: row.get::<_, Option<String>>(8)?.unwrap_or_default(),
                    image: row.get(9)?,
                    images: None,
                    currency: "USD".to_owned(),
                    avg_price: money(row.get(10)?),
                    min_price: money(row.get(11)?),
                    max_price: money(row.get(12)?),
                    trending: row.get(13)?,
                    release_dates: None,
                    retail_prices: None,
                    links: Vec::new(),
                    variants: Vec::new(),
                },
                row.get::<_, String>(14)?,
                row.get::<_, String>(15)?,
                row.get::<_, String>(16)?,
            ))
        })
        .optional()?
    else {
        return Ok(None);
    };

    let mut links = conn
        .prepare_cached("SELECT link, target, min_price_cents FROM links WHERE product_pk = ?1")?;
    p.links = links
        .query_map([pk], |row| {
            Ok(Link {
                link: row.get(0)?,
                target: row.get(1)?,
                min_price: money(row.get(2)?),
            })
        })?
        .collect::<Result<_, _>>()?;

    let mut variants = conn.prepare_cached(
        "SELECT id, size, size_uk, size_eu, gtin, link, price_usd_cents, asks_usd
         FROM variants WHERE product_pk = ?1 ORDER BY position",
    )?;
    let mut rows = variants.query([pk])?;
    while let Some(row) = rows.next()? {
        let size: String = row.get(1)?;
        let size_uk: String = row.get(2)?;
        let size_eu: String = row.get(3)?;
        let link: Option<String> = row.get(5)?;
        let mut tags = Vec::new();
        if !size_system.is_empty() {
            tags.push(size_system.clone());
        }
        if !size_uk.is_empty() {
            tags.push(format!("UK {size_uk}"));
        }
        if !size_eu.is_empty() {
            tags.push(format!("EU {size_eu}"));
        }
        p.variants.push(Variant {
            id: uuid_text(row, 0)?,
            product_id: p.id.clone(),
            sku: p.sku.clone(),
            title: p.title.clone(),
            description: p.description.clone(),
            brand: p.brand.clone(),
            category: p.category.clone(),
            color: p.color.clone(),
            gender: p.gender.clone(),
            gtin: row.get::<_, Option<String>>(4)?.unwrap_or_default(),
            link: link.unwrap_or_else(|| variant_link(&product_link, &size)),
            size,
            image: p.image.clone(),
            price: money(row.get(6)?),
            currency: "USD".to_owned(),
            tags,
            metadata: VariantMetadata {
                category: p.category.clone(),
                model: model.clone(),
            },
            source: "resale_b".to_owned(),
            asks: row.get::<_, Option<i64>>(7)?.map(|asks| asks.max(0) as u32),
        });
    }
    drop(rows);

    if detail == Detail::Full {
        let mut dates = conn.prepare_cached(
            "SELECT release_date, source FROM release_dates WHERE product_pk = ?1",
        )?;
        p.release_dates = Some(
            dates
                .query_map([pk], |row| {
                    Ok(ReleaseDate {
                        sku: p.sku.clone(),
                        release_date: row.get(0)?,
                        source: row.get(1)?,
                    })
                })?
                .collect::<Result<_, _>>()?,
        );
        let mut prices = conn.prepare_cached(
            "SELECT price_cents, currency, source FROM retail_prices WHERE product_pk = ?1",
        )?;
        p.retail_prices = Some(
            prices
                .query_map([pk], |row| {
                    Ok(RetailPrice {
                        sku: p.sku.clone(),
                        price: money(row.get(0)?),
                        currency: row.get(1)?,
                        source: row.get(2)?,
                    })
                })?
                .collect::<Result<_, _>>()?,
        );
    }
    Ok(Some(p))
}

/// Up to 52 weekly order records, newest first. `gmv` is the stored exact GMV where a live
/// source gave one, else `orders x aov`, exact to the cent; `position` is `None` when unknown.
pub fn weekly_orders(conn: &Connection, pk: i64) -> Result<Vec<WeeklyOrder>, CatalogueError> {
    let mut statement = conn.prepare_cached(
        "SELECT week_start, position, orders, aov_cents, gmv_cents FROM weekly_orders
         WHERE product_pk = ?1 ORDER BY week_start DESC LIMIT 52",
    )?;
    let rows = statement.query_map([pk], |row| {
        let week_start: i64 = row.get(0)?;
        let orders: i64 = row.get(2)?;
        let aov_cents: i64 = row.get(3)?;
        let gmv_cents: Option<i64> = row.get(4)?;
        let position: u32 = row.get(1)?;
        Ok(WeeklyOrder {
            // 0: the source gave no rank.
            position: (position > 0).then_some(position),
            orders: orders as u32,
            aov: money(aov_cents),
            gmv: money(gmv_cents.unwrap_or(orders * aov_cents)),
            inserted_at: chrono::DateTime::from_timestamp(week_start, 0)
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                .unwrap_or_default(),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Product and variant counts per dataset, and when the catalogue was built.
pub fn stats(conn: &Connection) -> Result<Stats, CatalogueError> {
    let products: i64 = conn.query_row("SELECT count(*) FROM products", [], |row| row.get(0))?;
    let variants: i64 = conn.query_row("SELECT count(*) FROM variants", [], |row| row.get(0))?;
    let built_at: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'built_at'", [], |row| {
            row.get(0)
        })
        .optional()?;
    let version: u32 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    Ok(Stats {
        // Both datasets hold the same products, priced in their own currency.
        datasets: Country::ALL
            .iter()
            .map(|country| DatasetStats {
                country: country.code().to_owned(),
                currency: country.currency().to_owned(),
                products: products as u64,
                variants: Some(variants as u64),
            })
            .collect(),
        built_at: built_at.unwrap_or_default(),
        schema_version: version,
    })
}
