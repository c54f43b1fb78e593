//! The mirror: a catalogue file filled from a live source (KicksDB), in the catalogue's own
//! schema, so everything that reads a catalogue reads it; plus, per product, which source it
//! came from and when (`product_sources`). What was fetched stays for when the source cannot
//! be reached: search, product and orders then answer from here, with their age.
//!
//! One writer (the live source, on the blocking pool) and any number of readers (the service's
//! pool): the file is in WAL mode, each write is one transaction.

use std::path::Path;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params};

use super::{Catalogue, CatalogueError};
use crate::model::Country;

/// One product as a live source knows it, priced in one market (the other market's prices are
/// kept as they were, 0 when never fetched).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MirrorProduct {
    /// UUID, lower case.
    pub id: String,
    /// The source's slug.
    pub slug: String,
    /// Style code as written by the source.
    pub sku: String,
    /// Title.
    pub title: String,
    /// Brand.
    pub brand: String,
    /// Silhouette (empty when unknown).
    pub model: String,
    /// Category path (`Sneakers > Air Jordan`), empty when unknown.
    pub category: String,
    /// Colorway, empty when unknown.
    pub color: String,
    /// Gender as the source writes it.
    pub gender: String,
    /// Age group, empty when unknown.
    pub age_group: String,
    /// Size system of the sizes (`US M`), empty when unknown.
    pub size_system: String,
    /// Availability as derived from the asks (`in stock`, `sold out`), empty when unknown.
    pub availability: String,
    /// HTML description, `None` when the source had none.
    pub description: Option<String>,
    /// Picture URL.
    pub image: String,
    /// The product's page at the source.
    pub link: String,
    /// `YYYY-MM-DD`, or empty when unknown.
    pub release_date: String,
    /// Retail price in cents and its currency, when the source gives it.
    pub retail: Option<(i64, String)>,
    /// Lowest, average and highest ask over sizes in cents of the market's currency (0: none).
    pub min_cents: i64,
    /// See `min_cents`.
    pub avg_cents: i64,
    /// See `min_cents`.
    pub max_cents: i64,
    /// Orders of the last week as the source counts them (search tie-breaks), 0 when unknown.
    pub popularity: i64,
    /// Sizes, smallest first.
    pub variants: Vec<MirrorVariant>,
}

/// One size of a [`MirrorProduct`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MirrorVariant {
    /// The source's variant UUID.
    pub id: uuid::Uuid,
    /// US size label.
    pub size: String,
    /// Barcode, when given.
    pub gtin: Option<String>,
    /// Lowest ask in cents of the market's currency; 0 when no ask.
    pub price_cents: i64,
    /// Asks open for the size, when given.
    pub asks: Option<i64>,
}

/// One week of sales: Monday 00:00Z in Unix seconds, orders, GMV in cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MirrorWeek {
    /// The Monday of the week at 00:00:00Z, Unix seconds.
    pub week_start: i64,
    /// Orders of the week.
    pub orders: i64,
    /// Sum of each day's orders times its average price, in cents.
    pub gmv_cents: i64,
}

/// Where a product's figures came from and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The source (`kicksdb`).
    pub source: String,
    /// When it was fetched, RFC 3339 UTC.
    pub fetched_at: String,
}

/// Opens the mirror at `path`, creating an empty catalogue there first when there is none.
pub fn open_or_create(path: &Path, source: &str) -> Result<Catalogue, CatalogueError> {
    if !path.exists() {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| CatalogueError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        // Built beside under a temporary name and renamed: a crash never leaves half a schema.
        super::atomic::write_atomically(path, |temp| {
            let conn = Connection::open(temp)?;
            super::create_schema(&conn)?;
            let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            super::write_meta(
                &conn,
                &[("kind", "mirror"), ("source", source), ("built_at", &now)],
            )?;
            // The well-known demo keys, as in a demo catalogue: the window's in-process
            // service answers it with one; `serve` accepts them on loopback only.
            for (key, tier) in super::generate::DEMO_KEYS {
                super::keys::insert(&conn, key, tier, "demo", &now)?;
            }
            Ok(())
        })?;
    }
    let catalogue = Catalogue::open(path)?;
    catalogue
        .connection()
        .pragma_update(None, "journal_mode", "WAL")?;
    Ok(catalogue)
}

fn columns(country: Country) -> &'static str {
    match country {
        Country::Us => "usd",
        Country::Fr => "eur",
    }
}

/// Writes `product` (priced for `country`) as fetched from `source` at `fetched_at`, in one
/// transaction; returns its `pk`. A product already mirrored keeps its `pk`, its other market's
/// prices and its weekly orders; its sizes are matched by variant id.
pub fn upsert(
    conn: &mut Connection,
    product: &MirrorProduct,
    country: Country,
    source: &str,
    fetched_at: &str,
) -> Result<i64, CatalogueError> {
    let cur = columns(country);
    let tx = conn.transaction()?;
    let sku_norm = super::generate::normalize_sku(&product.sku);
    // A slug is unique: another product that held it (renamed at the source) gives it up.
    tx.execute(
        "UPDATE products SET slug = slug || '~' || pk WHERE slug = ?1 AND id != ?2",
        params![product.slug, product.id],
    )?;
    let existing: Option<i64> = tx
        .query_row(
            "SELECT pk FROM products WHERE id = ?1",
            [&product.id],
            |row| row.get(0),
        )
        .optional()?;
    // A product seen for the first time starts as an empty row (no price in either market,
    // first seen now); the one update below fills it as it refreshes a known one.
    let pk = if let Some(pk) = existing {
        pk
    } else {
        tx.execute(
            "INSERT INTO products (id, slug, sku, sku_norm, title, brand, model, category,
                color, gender, age_group, size_system, condition, availability, image, link,
                release_date, retail_usd_cents, retail_eur_cents,
                min_usd_cents, avg_usd_cents, max_usd_cents, base_usd_cents,
                min_eur_cents, avg_eur_cents, max_eur_cents, base_eur_cents,
                labels, inserted_at)
             VALUES (?1, ?2, '', '', '', '', '', '', '', '', '', '', '', '', '', '', '',
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '[]', ?3)",
            params![product.id, product.slug, fetched_at],
        )?;
        tx.last_insert_rowid()
    };
    let retail_cents = product.retail.as_ref().map_or(0, |(cents, _)| *cents);
    tx.execute(
        &format!(
            // What this answer lacks (a search carries no traits: colorway, release date,
            // retail price) keeps what an earlier answer gave.
            "UPDATE products SET slug = ?2, sku = ?3, sku_norm = ?4, title = ?5, brand = ?6,
                model = COALESCE(NULLIF(?7, ''), model),
                category = COALESCE(NULLIF(?8, ''), category),
                color = COALESCE(NULLIF(?9, ''), color), gender = ?10, age_group = ?11,
                size_system = COALESCE(NULLIF(?12, ''), size_system), availability = ?13,
                description = COALESCE(?14, description), image = ?15,
                link = ?16, release_date = COALESCE(NULLIF(?17, ''), release_date),
                retail_{cur}_cents = CASE WHEN ?18 > 0 THEN ?18 ELSE retail_{cur}_cents END,
                min_{cur}_cents = ?19, avg_{cur}_cents = ?20, max_{cur}_cents = ?21,
                popularity = ?22
             WHERE pk = ?1"
        ),
        params![
            pk,
            product.slug,
            product.sku,
            sku_norm,
            product.title,
            product.brand,
            product.model,
            product.category,
            product.color,
            product.gender,
            product.age_group,
            product.size_system,
            product.availability,
            product.description,
            product.image,
            product.link,
            product.release_date,
            retail_cents,
            product.min_cents,
            product.avg_cents,
            product.max_cents,
            product.popularity,
        ],
    )?;
    write_variants(&tx, pk, product, cur)?;
    write_facts(&tx, pk, product)?;
    tx.execute(
        "INSERT INTO product_sources (product_pk, source, fetched_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (product_pk) DO UPDATE SET source = excluded.source,
            fetched_at = excluded.fetched_at",
        params![pk, source, fetched_at],
    )?;
    tx.commit()?;
    Ok(pk)
}

fn write_variants(
    tx: &rusqlite::Transaction<'_>,
    pk: i64,
    product: &MirrorProduct,
    cur: &str,
) -> Result<(), CatalogueError> {
    let kept: Vec<Value> = product
        .variants
        .iter()
        .map(|v| Value::Blob(v.id.as_bytes().to_vec()))
        .collect();
    // Sizes the source no longer lists go; the others are updated in place.
    tx.execute(
        "DELETE FROM variants WHERE product_pk = ?1 AND id NOT IN rarray(?2)",
        params![pk, std::rc::Rc::new(kept)],
    )?;
    for (position, variant) in product.variants.iter().enumerate() {
        // A barcode belongs to one size: a stale holder elsewhere lets go of it.
        if let Some(gtin) = &variant.gtin {
            tx.execute(
                "UPDATE variants SET gtin = NULL WHERE gtin = ?1 AND id != ?2",
                params![gtin, variant.id.as_bytes().as_slice()],
            )?;
        }
        // One set of values for the update and, when the size is new, the insert.
        let values = params![
            pk,
            variant.id.as_bytes().as_slice(),
            position as i64,
            variant.size,
            variant.gtin,
            variant.price_cents,
            variant.asks,
        ];
        let updated = tx.execute(
            &format!(
                "UPDATE variants SET position = ?3, size = ?4, gtin = COALESCE(?5, gtin),
                    price_{cur}_cents = ?6, asks_{cur} = ?7
                 WHERE product_pk = ?1 AND id = ?2"
            ),
            values,
        )?;
        if updated == 0 {
            // The other market's price is 0 (no price) until that market is fetched.
            let other = if cur == "usd" { "eur" } else { "usd" };
            tx.execute(
                &format!(
                    "INSERT INTO variants (id, product_pk, position, size, gtin, price_{other}_cents,
                        price_{cur}_cents, asks_{cur})
                     VALUES (?2, ?1, ?3, ?4, ?5, 0, ?6, ?7)"
                ),
                values,
            )?;
        }
    }
    Ok(())
}

/// Release date, retail price and link, from the source's facts; a fact this answer lacks keeps
/// the earlier one.
fn write_facts(
    tx: &rusqlite::Transaction<'_>,
    pk: i64,
    product: &MirrorProduct,
) -> Result<(), CatalogueError> {
    tx.execute("DELETE FROM links WHERE product_pk = ?1", [pk])?;
    if !product.release_date.is_empty() {
        tx.execute("DELETE FROM release_dates WHERE product_pk = ?1", [pk])?;
        tx.execute(
            "INSERT INTO release_dates (product_pk, release_date, source)
             VALUES (?1, ?2, 'resale_b_yyyy_mm_dd')",
            params![pk, product.release_date],
        )?;
    }
    if let Some((cents, currency)) = &product.retail {
        tx.execute(
            "DELETE FROM retail_prices WHERE product_pk = ?1 AND currency = ?2",
            params![pk, currency],
        )?;
        tx.execute(
            "INSERT INTO retail_prices (product_pk, price_cents, currency, source)
             VALUES (?1, ?2, ?3, 'srp')",
            params![pk, cents, currency],
        )?;
    }
    if !product.link.is_empty() {
        tx.execute(
            "INSERT INTO links (product_pk, link, target, min_price_cents)
             VALUES (?1, ?2, 'resale_b', (SELECT min_usd_cents FROM products WHERE pk = ?1))",
            params![pk, product.link],
        )?;
    }
    Ok(())
}

/// Replaces the weekly figures of product `pk` (the rank is unknown to a live source: stored as
/// 0, read as `null`), and notes when they were fetched.
pub fn replace_weeks(
    conn: &mut Connection,
    pk: i64,
    weeks: &[MirrorWeek],
    fetched_at: &str,
) -> Result<(), CatalogueError> {
    let tx = conn.transaction()?;
    tx.execute("DELETE FROM weekly_orders WHERE product_pk = ?1", [pk])?;
    insert_weeks(&tx, pk, weeks.iter())?;
    commit_weeks(tx, pk, fetched_at)
}

/// Notes when product `pk`'s weeks were fetched and commits `tx`: how a replacement and a
/// top-up of its weeks both end.
fn commit_weeks(
    tx: rusqlite::Transaction<'_>,
    pk: i64,
    fetched_at: &str,
) -> Result<(), CatalogueError> {
    tx.execute(
        "UPDATE product_sources SET weeks_fetched_at = ?2 WHERE product_pk = ?1",
        params![pk, fetched_at],
    )?;
    tx.commit()?;
    Ok(())
}

/// Inserts `weeks` of product `pk`, each week's average order value from its GMV and orders
/// (the rank is unknown to a live source: stored as 0, read as `null`).
fn insert_weeks<'w>(
    tx: &rusqlite::Transaction<'_>,
    pk: i64,
    weeks: impl Iterator<Item = &'w MirrorWeek>,
) -> Result<(), CatalogueError> {
    let mut insert = tx.prepare(
        "INSERT INTO weekly_orders (product_pk, week_start, position, orders, aov_cents,
            gmv_cents) VALUES (?1, ?2, 0, ?3, ?4, ?5)",
    )?;
    for week in weeks {
        let aov_cents = if week.orders > 0 {
            (week.gmv_cents as f64 / week.orders as f64).round() as i64
        } else {
            0
        };
        insert.execute(params![
            pk,
            week.week_start,
            week.orders,
            aov_cents,
            week.gmv_cents
        ])?;
    }
    Ok(())
}

/// Weeks kept per product: the 52 a chart shows, and a few more for a top-up to land beside.
const WEEKS_KEPT: i64 = 60;

/// Tops up the weekly figures of product `pk`: the weeks from `from_week_start` (a Monday,
/// Unix seconds) on are replaced by `weeks` (those before it are ignored), older ones stay as
/// they were, at most [`WEEKS_KEPT`] are kept; and notes when they were fetched.
pub fn top_up_weeks(
    conn: &mut Connection,
    pk: i64,
    from_week_start: i64,
    weeks: &[MirrorWeek],
    fetched_at: &str,
) -> Result<(), CatalogueError> {
    let tx = conn.transaction()?;
    tx.execute(
        "DELETE FROM weekly_orders WHERE product_pk = ?1 AND week_start >= ?2",
        params![pk, from_week_start],
    )?;
    insert_weeks(
        &tx,
        pk,
        weeks.iter().filter(|w| w.week_start >= from_week_start),
    )?;
    tx.execute(
        "DELETE FROM weekly_orders WHERE product_pk = ?1 AND week_start NOT IN
            (SELECT week_start FROM weekly_orders WHERE product_pk = ?1
             ORDER BY week_start DESC LIMIT ?2)",
        params![pk, WEEKS_KEPT],
    )?;
    commit_weeks(tx, pk, fetched_at)
}

/// Where product `pk` came from and when (`None`: not from a live source).
pub fn origin(conn: &Connection, pk: i64) -> Result<Option<Origin>, CatalogueError> {
    Ok(conn
        .prepare_cached("SELECT source, fetched_at FROM product_sources WHERE product_pk = ?1")?
        .query_row([pk], |row| {
            Ok(Origin {
                source: row.get(0)?,
                fetched_at: row.get(1)?,
            })
        })
        .optional()?)
}

/// When product `pk`'s weekly figures were fetched, if ever.
pub fn weeks_fetched_at(conn: &Connection, pk: i64) -> Result<Option<String>, CatalogueError> {
    Ok(conn
        .prepare_cached("SELECT weeks_fetched_at FROM product_sources WHERE product_pk = ?1")?
        .query_row([pk], |row| row.get(0))
        .optional()?
        .flatten())
}

/// The oldest fetch time among `pks` (the age of a page answered from the mirror).
pub fn oldest_fetch(conn: &Connection, pks: &[i64]) -> Result<Option<String>, CatalogueError> {
    if pks.is_empty() {
        return Ok(None);
    }
    let keys = std::rc::Rc::new(pks.iter().copied().map(Value::from).collect::<Vec<_>>());
    Ok(conn
        .prepare_cached(
            "SELECT min(fetched_at) FROM product_sources WHERE product_pk IN rarray(?1)",
        )?
        .query_row([&keys], |row| row.get(0))?)
}
