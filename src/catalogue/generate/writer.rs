//! Writes generated products and everything hanging off them with prepared statements.

use chrono::Datelike;
use rusqlite::params;

use super::CatalogueError;
use super::normalize_sku;
use super::product::{GeneratedProduct, GeneratedVariant};

/// Prepared statements for every table a product writes to.
pub(super) struct Writer<'conn> {
    product: rusqlite::Statement<'conn>,
    variant: rusqlite::Statement<'conn>,
    release: rusqlite::Statement<'conn>,
    retail: rusqlite::Statement<'conn>,
    link: rusqlite::Statement<'conn>,
    pk: i64,
    variant_pk: i64,
}

impl<'conn> Writer<'conn> {
    pub fn new(tx: &'conn rusqlite::Transaction<'conn>) -> Result<Self, CatalogueError> {
        Ok(Self {
            product: tx.prepare(
                "INSERT INTO products (pk, id, slug, sku, sku_norm, title, brand, model, category,
                   color, gender, age_group, size_system, condition, availability, description,
                   image, link, release_date, retail_usd_cents, retail_eur_cents,
                   min_usd_cents, avg_usd_cents, max_usd_cents, base_usd_cents,
                   min_eur_cents, avg_eur_cents, max_eur_cents, base_eur_cents,
                   is_bundle, trending, labels, inserted_at, popularity)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 'new', ?14, ?15,
                   ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, 0, 0, ?29, ?30, ?31)",
            )?,
            variant: tx.prepare(
                "INSERT INTO variants (pk, id, product_pk, position, size, size_uk, size_eu, gtin,
                   price_usd_cents, price_eur_cents) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?,
            release: tx.prepare(
                "INSERT INTO release_dates (product_pk, release_date, source) VALUES (?1, ?2, ?3)",
            )?,
            retail: tx.prepare(
                "INSERT INTO retail_prices (product_pk, price_cents, currency, source) VALUES (?1, ?2, ?3, ?4)",
            )?,
            link: tx.prepare(
                "INSERT INTO links (product_pk, link, target, min_price_cents) VALUES (?1, ?2, 'resale_b', ?3)",
            )?,
            pk: 0,
            variant_pk: 0,
        })
    }

    pub fn write(&mut self, row: &ProductRow) -> Result<(), CatalogueError> {
        self.pk += 1;
        let pk = self.pk;
        let p = &row.product;
        let (usd, eur) = (row.usd, row.eur);
        self.product.execute(params![
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
        ])?;
        for (position, v) in p.variants.iter().enumerate() {
            self.variant_pk += 1;
            self.variant.execute(params![
                self.variant_pk,
                v.id.as_bytes().as_slice(),
                pk,
                position as i64,
                v.size.us,
                v.size.uk,
                v.size.eu,
                v.gtin,
                v.price_usd_cents,
                v.price_eur_cents,
            ])?;
        }
        // An unknown release date gets no record: none is better than an invented one.
        if let Some((date, source)) = &row.release {
            self.release.execute(params![pk, date, source])?;
        }
        // Unknown retail (0) gets no record either.
        if p.retail_usd_cents > 0 {
            self.retail
                .execute(params![pk, p.retail_usd_cents, "USD", row.retail_source])?;
        }
        if p.retail_eur_cents > 0 {
            self.retail
                .execute(params![pk, p.retail_eur_cents, "EUR", row.retail_source])?;
        }
        self.link.execute(params![pk, row.link, usd.0])?;
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
