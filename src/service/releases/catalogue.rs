//! The catalogue file's side of the calendar (blocking SQLite reads, on the calendar's build
//! thread): its products with a release day in the calendar's span, and the releases before
//! today with what they fetched, which the premium model learns from.
//!
//! What a past release fetched: where the file holds its first weeks (52 weeks of weekly
//! figures), the average order value over the weeks that started in its first 30 days, weighted
//! by their orders (the premium 30 days on); otherwise its average price now, with the days
//! since its release as the horizon. A release with no retail price, no sale and no price has
//! no premium and is left out.

use chrono::{Datelike as _, NaiveDate};
use rusqlite::{Connection, OpenFlags, params};

/// Releases before today the model learns from at most (the newest ones): the model is a dense
/// ridge regression, its fit growing with releases times words squared; a thousand recent
/// releases fit in about a second.
pub const HISTORY_MAX: usize = 1_000;

/// Days after release the premium is read over.
pub const FIRST_DAYS: i64 = 30;

/// A catalogue product with a release day in the calendar's span.
#[derive(Debug, Clone, PartialEq)]
pub struct ComingProduct {
    /// UUID.
    pub id: String,
    /// Style code as written.
    pub sku: String,
    /// Title.
    pub title: String,
    /// Brand.
    pub brand: String,
    /// Silhouette.
    pub model: String,
    /// Release day.
    pub release_date: NaiveDate,
    /// Retail in US cents; `None` when unknown.
    pub retail_usd_cents: Option<i64>,
    /// Picture.
    pub image: String,
    /// Its page at the source.
    pub link: String,
    /// Labels (`collaboration`, `limited`, ...).
    pub labels: Vec<String>,
    /// US sizes.
    pub sizes: Vec<String>,
}

/// A release before today with what it fetched.
#[derive(Debug, Clone, PartialEq)]
pub struct PastRelease {
    /// The product (its sizes left empty).
    pub product: ComingProduct,
    /// Its retail in US cents (> 0).
    pub retail_usd_cents: i64,
    /// Its premium over retail (a fraction: 0.25 = 25% above).
    pub premium: f64,
    /// Days after release the premium was observed at.
    pub horizon_days: u32,
    /// Its sizes with their price now (US cents), for how a model line's sizes price.
    pub size_prices: Vec<(String, f64)>,
}

/// What the file holds for the calendar.
#[derive(Debug, Clone, Default)]
pub struct CatalogueReleases {
    /// Products with a release day in the span, by day.
    pub coming: Vec<ComingProduct>,
    /// Releases before `today` with a premium, newest first, at most [`HISTORY_MAX`].
    pub history: Vec<PastRelease>,
}

/// Why the file could not be read.
#[derive(Debug, thiserror::Error)]
#[error("the catalogue's release dates: {0}")]
pub struct ReadError(#[from] rusqlite::Error);

fn row_product(row: &rusqlite::Row<'_>) -> rusqlite::Result<Option<(i64, ComingProduct, i64)>> {
    let date: String = row.get(6)?;
    let Ok(release_date) = NaiveDate::parse_from_str(&date, "%Y-%m-%d") else {
        return Ok(None);
    };
    let retail: i64 = row.get(7)?;
    let labels: String = row.get(10)?;
    Ok(Some((
        row.get(0)?,
        ComingProduct {
            id: row.get(1)?,
            sku: row.get(2)?,
            title: row.get(3)?,
            brand: row.get(4)?,
            model: row.get(5)?,
            release_date,
            retail_usd_cents: (retail > 0).then_some(retail),
            image: row.get(8)?,
            link: row.get(9)?,
            labels: serde_json::from_str(&labels).unwrap_or_default(),
            sizes: Vec::new(),
        },
        row.get::<_, i64>(11)?,
    )))
}

const COLUMNS: &str = "pk, id, sku, title, brand, model, release_date, retail_usd_cents, image,
     link, labels, avg_usd_cents";

/// Reads the file at `path` (read-only): products releasing from `from` to before `until`,
/// and the releases before `today`.
///
/// # Errors
/// The file cannot be opened or read.
pub fn read(
    path: &std::path::Path,
    today: NaiveDate,
    from: NaiveDate,
    until: NaiveDate,
) -> Result<CatalogueReleases, ReadError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    let day = |d: NaiveDate| d.format("%Y-%m-%d").to_string();
    let mut coming = Vec::new();
    {
        let mut statement = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM products WHERE release_date >= ?1 AND release_date < ?2
             AND length(release_date) = 10 ORDER BY release_date, pk"
        ))?;
        let mut sizes = conn
            .prepare_cached("SELECT size FROM variants WHERE product_pk = ?1 ORDER BY position")?;
        let rows = statement.query_map(params![day(from), day(until)], row_product)?;
        for row in rows {
            let Some((pk, mut product, _)) = row? else {
                continue;
            };
            product.sizes = sizes
                .query_map([pk], |row| row.get::<_, String>(0))?
                .collect::<Result<_, _>>()?;
            coming.push(product);
        }
    }
    let history = history(&conn, today)?;
    Ok(CatalogueReleases { coming, history })
}

/// The releases before `today` with their premium, newest first.
fn history(conn: &Connection, today: NaiveDate) -> Result<Vec<PastRelease>, ReadError> {
    let mut statement = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM products WHERE release_date < ?1 AND length(release_date) = 10
         AND retail_usd_cents > 0 ORDER BY release_date DESC, pk LIMIT ?2"
    ))?;
    let mut variants = conn.prepare_cached(
        "SELECT size, price_usd_cents FROM variants WHERE product_pk = ?1 AND price_usd_cents > 0",
    )?;
    let mut weeks = conn.prepare_cached(
        "SELECT orders, aov_cents FROM weekly_orders
         WHERE product_pk = ?1 AND week_start >= ?2 AND week_start < ?3",
    )?;
    let newest_week: Option<i64> = conn
        .query_row("SELECT max(week_start) FROM weekly_orders", [], |row| {
            row.get(0)
        })
        .ok()
        .flatten();
    let today_text = today.format("%Y-%m-%d").to_string();
    let rows = statement.query_map(
        params![today_text, i64::try_from(HISTORY_MAX).unwrap_or(i64::MAX)],
        row_product,
    )?;
    let mut history = Vec::new();
    for row in rows {
        let Some((pk, product, avg_usd_cents)) = row? else {
            continue;
        };
        let Some(retail) = product.retail_usd_cents else {
            continue;
        };
        let monday = product.release_date
            - chrono::Days::new(u64::from(
                product.release_date.weekday().num_days_from_monday(),
            ));
        let start = monday.and_hms_opt(0, 0, 0).map(|t| t.and_utc().timestamp());
        let end = (product.release_date + chrono::Days::new(FIRST_DAYS as u64))
            .and_hms_opt(0, 0, 0)
            .map(|t| t.and_utc().timestamp());
        // The first weeks, where the file's weekly figures reach back to them and on past them.
        let first_weeks = match (start, end, newest_week) {
            (Some(start), Some(end), Some(newest)) if newest >= end => {
                let (orders, value) = weeks
                    .query_map(params![pk, start, end], |row| {
                        Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
                    })?
                    .collect::<Result<Vec<_>, _>>()?
                    .into_iter()
                    .filter(|(orders, aov)| *orders > 0 && *aov > 0)
                    .fold((0_i64, 0_f64), |(n, v), (orders, aov)| {
                        (n + orders, v + orders as f64 * aov as f64)
                    });
                (orders > 0).then(|| value / orders as f64)
            }
            _ => None,
        };
        let (price, horizon_days) = match first_weeks {
            Some(aov) => (aov, FIRST_DAYS as u32),
            None if avg_usd_cents > 0 => (
                avg_usd_cents as f64,
                u32::try_from((today - product.release_date).num_days().max(1)).unwrap_or(u32::MAX),
            ),
            None => continue,
        };
        let size_prices = variants
            .query_map([pk], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as f64))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        history.push(PastRelease {
            size_prices,
            premium: price / retail as f64 - 1.0,
            retail_usd_cents: retail,
            horizon_days,
            product,
        });
    }
    Ok(history)
}
