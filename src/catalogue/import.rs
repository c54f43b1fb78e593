//! `solescope catalogue import FILE --out PATH`: loads real search hits, one JSON object per line
//! (the spec's search-hit shape), into a new catalogue.
//!
//! All or nothing: the catalogue is built in a uniquely named temporary file beside `out`
//! (`.<name>.<random>.partial`, so two imports never share one), in one transaction, then
//! flushed to disk, renamed over `out`, and the folder flushed too ([`write_atomically`]). A crash
//! or kill at any point leaves `out` as it was (a stray temporary file may remain); a bad line
//! fails the import with its line number and the field at fault
//! (`line 7: variants[2].price: invalid type ...`), and `out` is left untouched.
//!
//! A search hit carries one currency. Prices in the other dataset's currency are converted at
//! [`EUR_PER_USD`], recorded in the catalogue's `meta` table as `eur_per_usd`. Imported products
//! have no weekly orders (the search shape carries none).

use std::collections::HashSet;
use std::io::BufRead;
use std::path::Path;

use rusqlite::{Connection, params};

pub use super::atomic::write_atomically;
use super::generate::{normalize_sku, slugify};
use super::{CatalogueError, gtin};
use crate::model::SearchHit;

/// Conversion rate used for the dataset whose currency a line does not carry.
pub const EUR_PER_USD: f64 = 0.93;

/// What an import wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportReport {
    /// Products imported.
    pub products: u64,
    /// Variants imported.
    pub variants: u64,
}

/// Imports `input` (JSON lines) into a new catalogue at `out`.
pub fn import(
    input: &Path,
    out: &Path,
    progress: &mut dyn FnMut(u64),
) -> Result<ImportReport, CatalogueError> {
    let file = std::fs::File::open(input).map_err(|source| CatalogueError::Io {
        path: input.to_path_buf(),
        source,
    })?;
    write_atomically(out, |partial| {
        import_into(std::io::BufReader::new(file), partial, progress)
    })
}

fn import_into(
    reader: impl BufRead,
    path: &Path,
    progress: &mut dyn FnMut(u64),
) -> Result<ImportReport, CatalogueError> {
    // SQLite's default journal and sync: one transaction on a fresh file journals almost
    // nothing and syncs once, at commit.
    let mut conn = Connection::open(path)?;
    super::create_schema(&conn)?;
    let tx = conn.transaction()?;
    let mut report = ImportReport {
        products: 0,
        variants: 0,
    };
    let mut ids = HashSet::new();
    let mut slugs = HashSet::new();
    let mut gtins = HashSet::new();
    for (index, line) in reader.lines().enumerate() {
        let line_number = index + 1;
        let fail = |message: String| CatalogueError::Import {
            line: line_number,
            message,
        };
        let line = line.map_err(|err| fail(format!("unreadable: {err}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let mut deserializer = serde_json::Deserializer::from_str(&line);
        let hit: SearchHit =
            serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
                let field = err.path().to_string();
                let inner = err.into_inner();
                if field == "." {
                    fail(inner.to_string())
                } else {
                    fail(format!("{field}: {inner}"))
                }
            })?;
        validate(&hit, &mut ids, &mut slugs, &mut gtins).map_err(fail)?;
        write_hit(&tx, report.products as i64 + 1, &hit)?;
        report.products += 1;
        report.variants += hit.variants.len() as u64;
        if report.products.is_multiple_of(1000) {
            progress(report.products);
        }
    }
    super::write_meta(
        &tx,
        &[
            ("kind", "import"),
            (
                "generator",
                concat!("solescope ", env!("CARGO_PKG_VERSION")),
            ),
            ("eur_per_usd", &EUR_PER_USD.to_string()),
            (
                "built_at",
                &chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            ),
        ],
    )?;
    tx.commit()?;
    conn.execute_batch("ANALYZE;")?;
    progress(report.products);
    Ok(report)
}

fn validate(
    hit: &SearchHit,
    ids: &mut HashSet<String>,
    slugs: &mut HashSet<String>,
    gtins: &mut HashSet<String>,
) -> Result<(), String> {
    if uuid::Uuid::parse_str(&hit.id).is_err() {
        return Err(format!("id: {:?} is not a UUID", hit.id));
    }
    if !ids.insert(hit.id.to_ascii_lowercase()) {
        return Err(format!("id: {} appears on an earlier line", hit.id));
    }
    if hit.title.trim().is_empty() {
        return Err("title: empty".into());
    }
    let slug = if hit.slug.trim().is_empty() {
        slugify(&hit.title)
    } else {
        hit.slug.clone()
    };
    if !slugs.insert(slug.clone()) {
        return Err(format!("slug: {slug} appears on an earlier line"));
    }
    if !matches!(hit.currency.as_str(), "USD" | "EUR") {
        return Err(format!("currency: {:?} is not USD or EUR", hit.currency));
    }
    if !hit.retail_price.trim().is_empty() && parse_money(&hit.retail_price).is_none() {
        return Err(format!(
            "retail_price: {:?} is not a decimal number",
            hit.retail_price
        ));
    }
    for (i, variant) in hit.variants.iter().enumerate() {
        if uuid::Uuid::parse_str(&variant.variant_id).is_err() {
            return Err(format!(
                "variants[{i}].variant_id: {:?} is not a UUID",
                variant.variant_id
            ));
        }
        if !variant.price.is_finite() || variant.price < 0.0 {
            return Err(format!(
                "variants[{i}].price: {} is not a price",
                variant.price
            ));
        }
        if let Some(code) = variant.gtin.as_deref().filter(|g| !g.is_empty()) {
            if !gtin::is_valid(code) {
                return Err(format!(
                    "variants[{i}].gtin: {code} has a wrong check digit or length"
                ));
            }
            if !gtins.insert(code.to_owned()) {
                return Err(format!(
                    "variants[{i}].gtin: {code} appears on an earlier line"
                ));
            }
        }
    }
    Ok(())
}

/// `"180.00"` -> 18000 cents.
fn parse_money(text: &str) -> Option<i64> {
    let value: f64 = text.trim().parse().ok()?;
    (value.is_finite() && value >= 0.0).then(|| (value * 100.0).round() as i64)
}

fn cents(value: f64) -> i64 {
    (value * 100.0).round() as i64
}

fn write_hit(
    tx: &rusqlite::Transaction<'_>,
    pk: i64,
    hit: &SearchHit,
) -> Result<(), CatalogueError> {
    // Prices in the line's currency are kept; the other dataset's are converted.
    let (to_usd, to_eur) = if hit.currency == "EUR" {
        (1.0 / EUR_PER_USD, 1.0)
    } else {
        (1.0, EUR_PER_USD)
    };
    let both = |value: f64| (cents(value * to_usd), cents(value * to_eur));
    let retail = parse_money(&hit.retail_price).unwrap_or(0) as f64 / 100.0;
    let (retail_usd, retail_eur) = both(retail);
    let (min_usd, min_eur) = both(hit.min_price);
    let (avg_usd, avg_eur) = both(hit.avg_price);
    let (max_usd, max_eur) = both(hit.max_price);
    let (base_usd, base_eur) = both(hit.base_price);
    let slug = if hit.slug.trim().is_empty() {
        slugify(&hit.title)
    } else {
        hit.slug.clone()
    };
    let labels = serde_json::to_string(&hit.labels).unwrap_or_else(|_| "[]".into());
    tx.execute(
        "INSERT INTO products (pk, id, slug, sku, sku_norm, title, brand, model, category, color,
           gender, age_group, size_system, condition, availability, description, image, link,
           release_date, retail_usd_cents, retail_eur_cents, min_usd_cents, avg_usd_cents,
           max_usd_cents, base_usd_cents, min_eur_cents, avg_eur_cents, max_eur_cents,
           base_eur_cents, is_bundle, trending, labels, inserted_at, popularity)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
           ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, 0, ?31, ?32, 0)",
        params![
            pk,
            hit.id.to_ascii_lowercase(),
            slug,
            hit.sku,
            normalize_sku(&hit.sku),
            hit.title,
            hit.brand,
            hit.category.rsplit(" > ").next().unwrap_or(&hit.category),
            hit.category,
            hit.color,
            hit.gender,
            hit.age_group,
            hit.size_system,
            hit.condition,
            hit.availability,
            hit.description,
            hit.image,
            hit.link,
            hit.release_date,
            retail_usd,
            retail_eur,
            min_usd,
            avg_usd,
            max_usd,
            base_usd,
            min_eur,
            avg_eur,
            max_eur,
            base_eur,
            hit.is_bundle,
            labels,
            hit.inserted_at,
        ],
    )?;
    let mut variant = tx.prepare_cached(
        "INSERT INTO variants (id, product_pk, position, size, gtin, link, price_usd_cents, price_eur_cents)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for (position, v) in hit.variants.iter().enumerate() {
        let (usd, eur) = both(v.price);
        let gtin = v.gtin.as_deref().filter(|g| !g.is_empty());
        // `validate` has checked the id already.
        let id = uuid::Uuid::parse_str(&v.variant_id)
            .map_err(|err| CatalogueError::Invalid(format!("variant_id: {err}")))?;
        variant.execute(params![
            id.as_bytes().as_slice(),
            pk,
            position as i64,
            v.size,
            gtin,
            v.variant_link,
            usd,
            eur
        ])?;
    }
    if !hit.release_date.is_empty() {
        let source = if hit.release_date.len() == 4 {
            "resale_b_yyyy"
        } else {
            "resale_b_yyyy_mm_dd"
        };
        tx.execute(
            "INSERT INTO release_dates (product_pk, release_date, source) VALUES (?1, ?2, ?3)",
            params![pk, hit.release_date, source],
        )?;
    }
    if retail_usd > 0 {
        let mut retail = tx.prepare_cached(
            "INSERT INTO retail_prices (product_pk, price_cents, currency, source) VALUES (?1, ?2, ?3, 'srp')",
        )?;
        retail.execute(params![pk, retail_usd, "USD"])?;
        retail.execute(params![pk, retail_eur, "EUR"])?;
    }
    tx.execute(
        "INSERT INTO links (product_pk, link, target, min_price_cents) VALUES (?1, ?2, 'resale_b', ?3)",
        params![pk, hit.link, min_usd],
    )?;
    Ok(())
}
