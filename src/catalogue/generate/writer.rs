//! Writes generated products and everything hanging off them with prepared statements.

use chrono::Datelike;
use rusqlite::params;
use rusqlite::types::ToSql;

use super::CatalogueError;
use super::normalize_sku;
use super::product::{GeneratedProduct, GeneratedVariant};

/// Rows bound into one `INSERT` statement: SQLite's per-statement cost (bind, step, reset) is
/// paid once for this many rows. The widest table, products, binds 31 values a row.
const ROWS_PER_STATEMENT: usize = 64;

/// Prepared statements for every table a product writes to.
pub(super) struct Writer<'conn> {
    product: Inserter<'conn>,
    variant: Inserter<'conn>,
    release: Inserter<'conn>,
    retail: Inserter<'conn>,
    link: Inserter<'conn>,
    pk: i64,
    variant_pk: i64,
}

/// One table's inserts: a statement for [`ROWS_PER_STATEMENT`] rows and one for a single row
/// (the remainder of a batch).
struct Inserter<'conn> {
    many: rusqlite::Statement<'conn>,
    one: rusqlite::Statement<'conn>,
}

impl<'conn> Inserter<'conn> {
    /// `head` is `INSERT INTO table (columns) VALUES`, `row` one row's `(?, ?, 'constant', ...)`.
    fn new(
        tx: &'conn rusqlite::Transaction<'conn>,
        head: &str,
        row: &str,
    ) -> Result<Self, CatalogueError> {
        let rows = vec![row; ROWS_PER_STATEMENT].join(", ");
        Ok(Self {
            many: tx.prepare(&format!("{head} {rows}"))?,
            one: tx.prepare(&format!("{head} {row}"))?,
        })
    }

    /// Inserts `rows` in order; `values` gives one row's parameters.
    fn insert<R>(
        &mut self,
        rows: &[R],
        values: impl Fn(
            &R,
            &mut dyn FnMut(&[&dyn ToSql]) -> rusqlite::Result<()>,
        ) -> rusqlite::Result<()>,
    ) -> Result<(), CatalogueError> {
        let mut chunks = rows.chunks_exact(ROWS_PER_STATEMENT);
        for chunk in &mut chunks {
            let mut next = 1;
            for row in chunk {
                values(row, &mut |params| bind(&mut self.many, &mut next, params))?;
            }
            self.many.raw_execute()?;
        }
        for row in chunks.remainder() {
            let mut next = 1;
            values(row, &mut |params| bind(&mut self.one, &mut next, params))?;
            self.one.raw_execute()?;
        }
        Ok(())
    }
}

/// Binds `params` from parameter `next` on.
fn bind(
    statement: &mut rusqlite::Statement<'_>,
    next: &mut usize,
    params: &[&dyn ToSql],
) -> rusqlite::Result<()> {
    for value in params {
        statement.raw_bind_parameter(*next, value)?;
        *next += 1;
    }
    Ok(())
}

impl<'conn> Writer<'conn> {
    pub fn new(tx: &'conn rusqlite::Transaction<'conn>) -> Result<Self, CatalogueError> {
        Ok(Self {
            product: Inserter::new(
                tx,
                "INSERT INTO products (pk, id, slug, sku, sku_norm, title, brand, model, category,
                   color, gender, age_group, size_system, condition, availability, description,
                   image, link, release_date, retail_usd_cents, retail_eur_cents,
                   min_usd_cents, avg_usd_cents, max_usd_cents, base_usd_cents,
                   min_eur_cents, avg_eur_cents, max_eur_cents, base_eur_cents,
                   is_bundle, trending, labels, inserted_at, popularity) VALUES",
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'new', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                   ?, ?, ?, 0, 0, ?, ?, ?)",
            )?,
            variant: Inserter::new(
                tx,
                "INSERT INTO variants (pk, id, product_pk, position, size, size_uk, size_eu, gtin,
                   price_usd_cents, price_eur_cents) VALUES",
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )?,
            release: Inserter::new(
                tx,
                "INSERT INTO release_dates (product_pk, release_date, source) VALUES",
                "(?, ?, ?)",
            )?,
            retail: Inserter::new(
                tx,
                "INSERT INTO retail_prices (product_pk, price_cents, currency, source) VALUES",
                "(?, ?, ?, ?)",
            )?,
            link: Inserter::new(
                tx,
                "INSERT INTO links (product_pk, link, target, min_price_cents) VALUES",
                "(?, ?, 'resale_b', ?)",
            )?,
            pk: 0,
            variant_pk: 0,
        })
    }

    /// Writes `rows`, the next products in catalogue order, with everything hanging off them.
    /// Each table receives its rows in the order one-product-at-a-time writing would give.
    pub fn write(&mut self, rows: &[ProductRow]) -> Result<(), CatalogueError> {
        let first_pk = self.pk + 1;
        let pks = || (first_pk..).zip(rows);
        let products: Vec<(i64, &ProductRow)> = pks().collect();
        self.pk += rows.len() as i64;
        self.product.insert(&products, |(pk, row), bind| {
            let p = &row.product;
            let (usd, eur) = (row.usd, row.eur);
            bind(params![
                pk,
                p.id,
                p.slug,
                p.sku,
                row.sku_norm,
                p.title,
                p.brand,
                p.model,
                p.category,
                p.color,
                p.run.gender(),
                p.run.age_group(),
                p.run.size_system(),
                p.availability,
                p.description,
                row.image,
                row.link,
                row.release_date,
                p.retail_usd_cents,
                p.retail_eur_cents,
                usd.0,
                usd.1,
                usd.2,
                usd.3,
                eur.0,
                eur.1,
                eur.2,
                eur.3,
                row.labels,
                p.inserted_at,
                row.popularity,
            ])
        })?;

        let mut variants = Vec::with_capacity(rows.len() * 16);
        for (pk, row) in pks() {
            for (position, v) in row.product.variants.iter().enumerate() {
                self.variant_pk += 1;
                variants.push((self.variant_pk, pk, position as i64, v));
            }
        }
        self.variant
            .insert(&variants, |(variant_pk, pk, position, v), bind| {
                bind(params![
                    variant_pk,
                    v.id.as_bytes().as_slice(),
                    pk,
                    position,
                    v.size.us,
                    v.size.uk,
                    v.size.eu,
                    v.gtin,
                    v.price_usd_cents,
                    v.price_eur_cents,
                ])
            })?;

        // An unknown release date gets no record: none is better than an invented one.
        let releases: Vec<(i64, &(String, &str))> = pks()
            .filter_map(|(pk, row)| row.release.as_ref().map(|release| (pk, release)))
            .collect();
        self.release
            .insert(&releases, |(pk, (date, source)), bind| {
                bind(params![pk, date, source])
            })?;

        // Unknown retail (0) gets no record either.
        let mut retail = Vec::with_capacity(rows.len() * 2);
        for (pk, row) in pks() {
            let p = &row.product;
            if p.retail_usd_cents > 0 {
                retail.push((pk, p.retail_usd_cents, "USD", row.retail_source));
            }
            if p.retail_eur_cents > 0 {
                retail.push((pk, p.retail_eur_cents, "EUR", row.retail_source));
            }
        }
        self.retail
            .insert(&retail, |(pk, cents, currency, source), bind| {
                bind(params![pk, cents, currency, source])
            })?;

        self.link.insert(&products, |(pk, row), bind| {
            bind(params![pk, row.link, row.usd.0])
        })?;
        Ok(())
    }
}

/// Minimum, average, maximum and reference-size price of a product's variants.
type PriceSummary = (i64, i64, i64, i64);

/// A generated product with every derived column worked out: built on the generating thread,
/// so the writing thread only binds values.
pub(super) struct ProductRow {
    pub product: GeneratedProduct,
    sku_norm: String,
    image: String,
    link: String,
    /// `products.release_date`: empty when unknown or only the year is known.
    release_date: String,
    labels: String,
    usd: PriceSummary,
    eur: PriceSummary,
    popularity: u32,
    /// The `release_dates` record, when the date is known.
    release: Option<(String, &'static str)>,
    retail_source: &'static str,
}

impl ProductRow {
    pub fn new(product: GeneratedProduct) -> Self {
        let p = &product;
        let prices = |f: fn(&GeneratedVariant) -> i64| {
            let values: Vec<i64> = p.variants.iter().map(f).collect();
            let min = values.iter().copied().min().unwrap_or(0);
            let max = values.iter().copied().max().unwrap_or(0);
            let avg = values.iter().sum::<i64>() / values.len().max(1) as i64;
            // The reference size sits in the middle of the run (US M 9.5/10, W 7.5, ...).
            let base = values.get(values.len() / 2).copied().unwrap_or(0);
            (min, avg, max, base)
        };
        let usd = prices(|v| v.price_usd_cents);
        let eur = prices(|v| v.price_eur_cents);
        let release_date = match p.release_date {
            Some(date) if !p.release_year_only => date.to_string(),
            _ => String::new(),
        };
        let release = p.release_date.map(|day| {
            if p.release_year_only {
                (day.year().to_string(), "resale_b_yyyy")
            } else {
                (day.to_string(), "resale_b_yyyy_mm_dd")
            }
        });
        let retail_source = if p.variants.len().is_multiple_of(3) {
            "extracting"
        } else {
            "srp"
        };
        Self {
            sku_norm: normalize_sku(&p.sku),
            image: format!("https://images.resale-b.example/products/{}.jpg", p.slug),
            link: format!("https://resale-b.example/{}", p.slug),
            release_date,
            labels: serde_json::to_string(&p.labels).unwrap_or_else(|_| "[]".into()),
            usd,
            eur,
            popularity: p.weekly_orders[..4].iter().sum(),
            release,
            retail_source,
            product,
        }
    }
}
