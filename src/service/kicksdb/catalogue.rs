//! The catalogue side on KicksDB: StockX search, a product with its sizes, daily sales grouped
//! into weeks, brand counts. Each answer is written to the mirror; the caller reads the mirror.

use std::fmt::Write as _;
use std::sync::Arc;

use super::map::{mirror_product_from_stockx, weeks_from_daily};
use super::wire::{Brand, Envelope, ProductSale, StockxProduct};
use super::{CallClass, Kicksdb};
use crate::catalogue::read;
use crate::catalogue::{CatalogueError, mirror};
use crate::model::{Country, SearchHit};
use crate::service::source::SearchArgs;
use crate::upstream::{FetchError, FetchKind};

/// Pages of daily sales read for a product's weeks (100 days each: a year and a little more).
const SALES_PAGES: u32 = 4;
/// Days per page of daily sales.
const SALES_PAGE_DAYS: u32 = 100;
/// Weeks fetched within this many days are topped up with the days since (one page of at
/// most this many days); older ones are read again whole.
const TOP_UP_DAYS: i64 = SALES_PAGE_DAYS as i64 - 7;
/// Pages of the brands list summed for `/stats` (100 brands each).
const BRAND_PAGES: u32 = 30;

/// A page of a live search: its hits as mirrored, in KicksDB's order, and whether more may
/// follow (KicksDB gives no total).
#[derive(Debug, Clone)]
pub struct LivePage {
    /// The hits, best first.
    pub hits: Vec<SearchHit>,
    /// The page was full: another may follow.
    pub full: bool,
    /// When KicksDB's answer was fetched, when an earlier one was reused for this page.
    pub reused_at: Option<String>,
}

fn market(country: Country) -> String {
    country.code().to_owned()
}

/// A filter value KicksDB's Meilisearch filter can take between quotes: letters, digits, dash,
/// space, dot and slash only (every style code and barcode of the research notes). `None` for
/// anything else: no product has such a code, and a quote must never reach the filter.
fn filter_value(value: &str) -> Option<String> {
    let value = value.trim();
    (!value.is_empty()
        && value.len() <= 100
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | ' ' | '.' | '/')))
    .then(|| value.to_owned())
}

impl Kicksdb {
    /// Writes products to the mirror, in order, then `then` reads what the answer needs of
    /// them (by their `pk`s) in the same turn on the writer; they join the mirror's search
    /// index before the answer is given.
    pub(super) async fn mirror_products<T: Send + 'static>(
        &self,
        products: Vec<StockxProduct>,
        country: Country,
        then: impl FnOnce(&rusqlite::Connection, &[i64]) -> Result<T, CatalogueError> + Send + 'static,
    ) -> Result<T, FetchError> {
        if country == Country::Us {
            self.size_sales.note(&products, &now_text());
        }
        self.mirror
            .write_products(move |conn| {
                let fetched_at = now_text();
                let pks = products
                    .iter()
                    .filter(|p| !p.id.is_empty() && !p.slug.is_empty())
                    .map(|p| {
                        let row = mirror_product_from_stockx(p);
                        mirror::upsert(conn, &row, country, "kicksdb", &fetched_at)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok((then(conn, &pks)?, pks))
            })
            .await
    }

    /// One page of StockX search, mirrored.
    pub async fn search(self: &Arc<Self>, search: &SearchArgs) -> Result<LivePage, FetchError> {
        let mut query = vec![
            ("query", search.text.trim().to_owned()),
            ("page", search.page.max(1).to_string()),
            ("limit", search.limit.clamp(1, 100).to_string()),
            ("market", market(search.country)),
            ("display[variants]", "true".to_owned()),
        ];
        // `filters` cannot be combined with KicksDB's other filters; one of the two is sent.
        let filter = if let Some(sku) = search.sku.as_deref().filter(|s| !s.trim().is_empty()) {
            Some(filter_value(sku).map(|sku| format!("sku = '{sku}'")))
        } else {
            search
                .gtin
                .as_deref()
                .filter(|g| !g.trim().is_empty())
                .map(|gtin| filter_value(gtin).map(|gtin| format!("barcodes IN ['{gtin}']")))
        };
        match filter {
            Some(Some(filter)) => query.push(("filters", filter)),
            // A code no product can have: no hit, and no call.
            Some(None) => {
                return Ok(LivePage {
                    hits: Vec::new(),
                    full: false,
                    reused_at: None,
                });
            }
            None => {}
        }
        let (page, reused_at): (Envelope<Vec<StockxProduct>>, _) = self
            .call_json_kept(
                "v3/stockx/products",
                &query,
                CallClass::Catalogue,
                self.ttl.search,
            )
            .await?;
        let products = page.data.unwrap_or_default();
        let full = products.len() >= search.limit.clamp(1, 100) as usize;
        let country = search.country;
        let hits = self
            .mirror_products(products, country, move |conn, pks| {
                read::search_hits(conn, pks, country)
            })
            .await?;
        Ok(LivePage {
            hits,
            full,
            reused_at,
        })
    }

    /// One StockX product by UUID or slug with its sizes, priced for `country`, mirrored; what
    /// `then` reads of it (by its `pk`) in the same turn, and when KicksDB's answer was fetched
    /// when an earlier one was reused.
    pub async fn product<T: Send + 'static>(
        self: &Arc<Self>,
        id: &str,
        country: Country,
        then: impl FnOnce(&rusqlite::Connection, i64) -> Result<T, CatalogueError> + Send + 'static,
    ) -> Result<(T, Option<String>), FetchError> {
        let path = format!("v3/stockx/products/{}", path_segment(id)?);
        let mut query = vec![
            ("market", market(country)),
            ("display[variants]", "true".to_owned()),
        ];
        let paid = self
            .paid_displays
            .load(std::sync::atomic::Ordering::Relaxed);
        if paid {
            query.push(("display[traits]", "true".to_owned()));
            query.push(("display[identifiers]", "true".to_owned()));
        }
        let (product, reused_at): (Envelope<StockxProduct>, _) = match self
            .call_json_kept(&path, &query, CallClass::Catalogue, self.ttl.product)
            .await
        {
            // A plan without traits and barcodes: asked again without them, and not again.
            Err(err) if paid && err.kind == FetchKind::Forbidden => {
                tracing::info!("KicksDB plan without traits and barcodes: {err}");
                self.paid_displays
                    .store(false, std::sync::atomic::Ordering::Relaxed);
                query.truncate(2);
                self.call_json_kept(&path, &query, CallClass::Catalogue, self.ttl.product)
                    .await?
            }
            other => other?,
        };
        let product = product.data.ok_or_else(|| {
            FetchError::new(
                self.http.name(),
                FetchKind::NotFound,
                format!("KicksDB has no product {id:?}"),
            )
        })?;
        let name = Arc::clone(self.http.name());
        let value = self
            .mirror_products(vec![product], country, move |conn, pks| {
                pks.first().map(|&pk| then(conn, pk)).transpose()
            })
            .await?
            .ok_or_else(|| {
                FetchError::new(
                    &name,
                    FetchKind::Malformed,
                    "KicksDB's product has no id or slug",
                )
            })?;
        Ok((value, reused_at))
    }

    /// The product's daily sales (US market) grouped into weeks, written to the mirror
    /// beside product `pk` (UUID `id`). Weeks fetched before are topped up, not read again:
    /// one page of the days since the Monday of the week they were fetched in (that week may
    /// have been partial), replacing the weeks from that Monday on. Weeks never fetched, or
    /// fetched more than [`TOP_UP_DAYS`] ago, are read whole (up to four pages).
    pub async fn weeks(self: &Arc<Self>, pk: i64, id: &str) -> Result<(), FetchError> {
        let path = format!("v3/stockx/products/{}/sales/daily", path_segment(id)?);
        let fetched_before = self
            .mirror
            .write(move |conn| mirror::weeks_fetched_at(conn, pk))
            .await?;
        let today = chrono::Utc::now().date_naive();
        let top_up_from = fetched_before
            .as_deref()
            .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
            .map(|at| monday_of(at.with_timezone(&chrono::Utc).date_naive()))
            .filter(|monday| {
                let days = (today - *monday).num_days();
                (0..TOP_UP_DAYS).contains(&days)
            });
        let mut days: Vec<ProductSale> = Vec::new();
        if let Some(monday) = top_up_from {
            // The days from that Monday to today, newest first: one page.
            let wanted = (today - monday).num_days() + 1;
            let query = [
                ("market", "US".to_owned()),
                ("limit", wanted.to_string()),
                ("page", "1".to_owned()),
            ];
            let answer: Envelope<Vec<ProductSale>> = self
                .call_json(&path, &query, CallClass::Catalogue, self.ttl.slow)
                .await?;
            let from = monday.format("%Y-%m-%d").to_string();
            days.extend(
                answer
                    .data
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|day| day.date.get(..10).is_some_and(|d| d >= from.as_str())),
            );
        } else {
            for page in 1..=SALES_PAGES {
                let query = [
                    ("market", "US".to_owned()),
                    ("limit", SALES_PAGE_DAYS.to_string()),
                    ("page", page.to_string()),
                ];
                let answer: Envelope<Vec<ProductSale>> = self
                    .call_json(&path, &query, CallClass::Catalogue, self.ttl.slow)
                    .await?;
                let got = answer.data.unwrap_or_default();
                let last = got.len() < SALES_PAGE_DAYS as usize;
                days.extend(got);
                if last {
                    break;
                }
            }
        }
        let weeks = weeks_from_daily(&days);
        self.mirror
            .write(move |conn| match top_up_from {
                Some(monday) => mirror::top_up_weeks(
                    conn,
                    pk,
                    monday
                        .and_hms_opt(0, 0, 0)
                        .map_or(0, |t| t.and_utc().timestamp()),
                    &weeks,
                    &now_text(),
                ),
                None => mirror::replace_weeks(conn, pk, &weeks, &now_text()),
            })
            .await
    }

    /// StockX's products counted by brand (`/v3/utils/brands`), summed: KicksDB has no count
    /// endpoint.
    pub async fn product_total(self: &Arc<Self>) -> Result<u64, FetchError> {
        let mut total: u64 = 0;
        for page in 1..=BRAND_PAGES {
            let query = [("page", page.to_string()), ("limit", "100".to_owned())];
            let answer: Envelope<Vec<Brand>> = self
                .call_json(
                    "v3/utils/brands",
                    &query,
                    CallClass::Catalogue,
                    self.ttl.slow,
                )
                .await?;
            let brands = answer.data.unwrap_or_default();
            total += brands.iter().map(|b| b.count.max(0) as u64).sum::<u64>();
            if brands.len() < 100 {
                break;
            }
        }
        Ok(total)
    }
}

/// An id as one path segment: anything but letters, digits, `-` and `_` percent-escaped. An id
/// of dots alone is refused: URL parsers read `%2E%2E` as `..` and would leave the path.
pub(super) fn path_segment(id: &str) -> Result<String, FetchError> {
    if id.is_empty() || id.chars().all(|c| c == '.') {
        return Err(FetchError::new(
            &Arc::from("KicksDB"),
            FetchKind::NotFound,
            format!("KicksDB has no product {id:?}"),
        ));
    }
    let mut out = String::with_capacity(id.len());
    for byte in id.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_') {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    Ok(out)
}

/// The Monday of `date`'s week.
fn monday_of(date: chrono::NaiveDate) -> chrono::NaiveDate {
    date - chrono::Days::new(u64::from(
        chrono::Datelike::weekday(&date).num_days_from_monday(),
    ))
}

fn now_text() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
