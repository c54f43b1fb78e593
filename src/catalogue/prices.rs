//! Prices held in a catalogue file by style code, size by size: the demo's own, or what a live
//! source's mirror last fetched (with when). The batched-prices endpoint answers from here in
//! the demo, and for what a live source cannot price right now.

use rusqlite::{Connection, OptionalExtension as _};

use super::CatalogueError;
use super::generate::normalize_sku;
use crate::model::Country;

/// One product's prices as held.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldPrices {
    /// Product UUID.
    pub product_id: String,
    /// Its style code as written.
    pub sku: String,
    /// The currency of the dataset read.
    pub currency: String,
    /// When a live source fetched its sizes (RFC 3339), for a mirror's product.
    pub fetched_at: Option<String>,
    /// Sizes with a price, smallest first: (label, price in cents, asks when known).
    pub sizes: Vec<(String, i64, Option<i64>)>,
}

/// The most popular product with the style code `code` (dash, space and case ignored), with
/// its sizes priced in `country`'s dataset; sizes without a price are left out.
pub fn by_style_code(
    conn: &Connection,
    code: &str,
    country: Country,
) -> Result<Option<HeldPrices>, CatalogueError> {
    let norm = normalize_sku(code);
    if norm.is_empty() {
        return Ok(None);
    }
    let Some((pk, product_id, sku)) = conn
        .prepare_cached(
            "SELECT pk, id, sku FROM products WHERE sku_norm = ?1
             ORDER BY popularity DESC, pk LIMIT 1",
        )?
        .query_row([&norm], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
            ))
        })
        .optional()?
    else {
        return Ok(None);
    };
    let (price, asks) = match country {
        Country::Us => ("price_usd_cents", "asks_usd"),
        Country::Fr => ("price_eur_cents", "asks_eur"),
    };
    let sizes = conn
        .prepare_cached(&format!(
            "SELECT size, {price}, {asks} FROM variants
             WHERE product_pk = ?1 AND {price} > 0 ORDER BY position"
        ))?
        .query_map([pk], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    let fetched_at = conn
        .prepare_cached("SELECT fetched_at FROM product_sources WHERE product_pk = ?1")?
        .query_row([pk], |row| row.get(0))
        .optional()?;
    Ok(Some(HeldPrices {
        product_id,
        sku,
        currency: country.currency().to_owned(),
        fetched_at,
        sizes,
    }))
}

/// The interface's answer for `codes` from this catalogue: each code's held prices (named
/// `source`, as of its fetch time, else the catalogue's build time), and the codes it lacks.
pub fn answer(
    conn: &Connection,
    codes: &[String],
    country: Country,
    source: &str,
) -> Result<(Vec<crate::model::prices::CodePrices>, Vec<String>), CatalogueError> {
    let built_at: Option<String> = conn
        .prepare_cached("SELECT value FROM meta WHERE key = 'built_at'")?
        .query_row([], |row| row.get(0))
        .optional()?;
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for code in codes {
        match by_style_code(conn, code, country)? {
            Some(held) => found.push(code_prices_from_held(
                code,
                held,
                source,
                built_at.as_deref(),
            )),
            None => missing.push(code.clone()),
        }
    }
    Ok((found, missing))
}

/// One code's answer from what is held.
#[must_use]
pub fn code_prices_from_held(
    code: &str,
    held: HeldPrices,
    source: &str,
    built_at: Option<&str>,
) -> crate::model::prices::CodePrices {
    crate::model::prices::CodePrices {
        sku: code.to_owned(),
        product_sku: held.sku,
        product_id: held.product_id,
        currency: held.currency,
        source: source.to_owned(),
        as_of: held
            .fetched_at
            .or_else(|| built_at.map(str::to_owned))
            .unwrap_or_default(),
        sizes: held
            .sizes
            .into_iter()
            .map(|(size, cents, asks)| crate::model::prices::SizePrice {
                size,
                lowest_ask: cents as f64 / 100.0,
                asks: asks.and_then(|a| u32::try_from(a).ok()),
            })
            .collect(),
    }
}

/// Weekly records summed for a product's recent sales: four weeks (28 days).
pub const SALES_WEEKS: u32 = 4;

/// What the catalogue holds of the recent sales of each of `codes`' products (the most popular
/// product with the code): the orders of its newest [`SALES_WEEKS`] complete weekly records, as
/// the product's (every size together). A mirrored product counts only weeks that ended before
/// its weeks were fetched (the week under way is not complete); a product with fewer complete
/// weeks held has no figure (`None`): too little to count on.
pub fn held_sales(
    conn: &Connection,
    codes: &[String],
    source: &str,
) -> Result<Vec<Option<crate::model::flips::HeldSales>>, CatalogueError> {
    let built_at: Option<String> = conn
        .prepare_cached("SELECT value FROM meta WHERE key = 'built_at'")?
        .query_row([], |row| row.get(0))
        .optional()?;
    let mut found = Vec::with_capacity(codes.len());
    for code in codes {
        let norm = normalize_sku(code);
        let product = if norm.is_empty() {
            None
        } else {
            conn.prepare_cached(
                "SELECT p.pk, s.product_pk IS NOT NULL, s.weeks_fetched_at
                 FROM products p LEFT JOIN product_sources s ON s.product_pk = p.pk
                 WHERE p.sku_norm = ?1 ORDER BY p.popularity DESC, p.pk LIMIT 1",
            )?
            .query_row([&norm], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, bool>(1)?,
                    row.get::<_, Option<String>>(2)?,
                ))
            })
            .optional()?
        };
        let Some((pk, mirrored, weeks_fetched_at)) = product else {
            found.push(None);
            continue;
        };
        let (as_of, before) = if mirrored {
            let Some(at) = weeks_fetched_at else {
                found.push(None);
                continue;
            };
            let Ok(time) = chrono::DateTime::parse_from_rfc3339(&at) else {
                found.push(None);
                continue;
            };
            // Weeks that ended by the time they were fetched.
            (at, time.timestamp() - 7 * 86_400)
        } else {
            (built_at.clone().unwrap_or_default(), i64::MAX)
        };
        let orders: Vec<i64> = conn
            .prepare_cached(
                "SELECT orders FROM weekly_orders WHERE product_pk = ?1 AND week_start <= ?2
                 ORDER BY week_start DESC LIMIT ?3",
            )?
            .query_map(
                rusqlite::params![pk, before, i64::from(SALES_WEEKS)],
                |row| row.get(0),
            )?
            .collect::<Result<_, _>>()?;
        found.push((orders.len() == SALES_WEEKS as usize).then(|| {
            crate::model::flips::HeldSales {
                sku: code.clone(),
                source: source.to_owned(),
                as_of,
                product_count: u32::try_from(orders.iter().sum::<i64>().max(0)).ok(),
                product_days: SALES_WEEKS * 7,
                sizes: Vec::new(),
            }
        }));
    }
    Ok(found)
}
