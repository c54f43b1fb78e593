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

    pub fn write(&mut self, p: &GeneratedProduct) -> Result<(), CatalogueError> {
        self.pk += 1;
        let pk = self.pk;
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
        let link = format!("https://resale-b.example/{}", p.slug);
        let popularity: u32 = p.weekly_orders[..4].iter().sum();
        let release_date = match p.release_date {
            Some(date) if !p.release_year_only => date.to_string(),
            _ => String::new(),
        };
        let labels = serde_json::to_string(&p.labels).unwrap_or_else(|_| "[]".into());
        self.product.execute(params![
            pk,
            p.id,
            p.slug,
            p.sku,
            normalize_sku(&p.sku),
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
            format!("https://images.resale-b.example/products/{}.jpg", p.slug),
            link,
            release_date,
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
            labels,
            p.inserted_at,
            popularity,
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
        if let Some(day) = p.release_date {
            let (date, source) = if p.release_year_only {
                (day.year().to_string(), "resale_b_yyyy")
            } else {
                (day.to_string(), "resale_b_yyyy_mm_dd")
            };
            self.release.execute(params![pk, date, source])?;
        }
        let source = if p.variants.len().is_multiple_of(3) {
            "extracting"
        } else {
            "srp"
        };
        // Unknown retail (0) gets no record either.
        if p.retail_usd_cents > 0 {
            self.retail
                .execute(params![pk, p.retail_usd_cents, "USD", source])?;
        }
        if p.retail_eur_cents > 0 {
            self.retail
                .execute(params![pk, p.retail_eur_cents, "EUR", source])?;
        }
        self.link.execute(params![pk, link, usd.0])?;
        Ok(())
    }
}
