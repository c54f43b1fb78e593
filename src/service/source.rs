//! The catalogue side's seam: where search, a product, its weekly orders and the counts come
//! from. Each [`CatalogueSource`] owns its data (the local catalogue its file, index and hit
//! store, module `local`; the KicksDB source its mirror, `super::kicksdb`) and answers with
//! domain values: hits, products, weeks and counts, each with where it came from
//! ([`Sourced`]). Routes never ask which source answers, and never see a row id.

use crate::model::{CatalogueInfo, Country, Product, SearchHit, Stats, Tier, WeeklyOrder};

pub use super::error::ApiError;
pub use super::origin::{AnswerOrigin, Sourced};

/// A search as the route received it.
#[derive(Debug, Clone)]
pub struct SearchArgs {
    /// The words (may be empty).
    pub text: String,
    /// Exact style code filter.
    pub sku: Option<String>,
    /// Exact GTIN filter.
    pub gtin: Option<String>,
    /// 1-based page.
    pub page: u32,
    /// Hits per page.
    pub limit: u32,
    /// The dataset (prices and currency).
    pub country: Country,
    /// The caller's tier: what the hits may show (release dates and retail prices or not).
    pub tier: Tier,
    /// Answer only from what is already held (`Cache-Control: only-if-cached`): search as
    /// you type, which must not spend a live source's calls per keystroke.
    pub cached_only: bool,
    /// Only these products (their keys in the source's index, ascending): what a store has
    /// in stock (`/search?in_stock_at=`). A live source answers such a search from what it
    /// holds (its upstream cannot narrow to a store).
    pub only: Option<std::sync::Arc<[i64]>>,
}

impl SearchArgs {
    /// Hits before this page.
    #[must_use]
    pub fn offset(&self) -> usize {
        ((self.page.max(1) - 1) * self.limit) as usize
    }

    /// The search index's request for this page.
    #[must_use]
    pub fn request(&self) -> crate::search::SearchRequest<'_> {
        crate::search::SearchRequest {
            text: &self.text,
            sku: self.sku.as_deref(),
            gtin: self.gtin.as_deref(),
            offset: self.offset(),
            limit: self.limit as usize,
            pks: self.only.as_deref(),
        }
    }
}

/// A page of search results, its hits already written as JSON.
///
/// Hits travel as the JSON array of [`SearchHit`]s the tier may see, not as values: the local
/// catalogue writes a page straight from its hit store's records (module `search::hits`), and
/// decoding and encoding some 80 KB of hits per page would cost more than ranking them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchPage {
    /// Hits written.
    pub hits: usize,
    /// The estimate of all hits.
    pub estimated_total_hits: u64,
}

/// What a source holds of a product, read from what it keeps (no upstream call).
pub use crate::catalogue::read::HeldProduct;

/// Where the catalogue side's answers come from.
#[async_trait::async_trait]
pub trait CatalogueSource: Send + Sync {
    /// What it answers (`GET /api/v2/sources`).
    fn info(&self) -> CatalogueInfo;

    /// A page of search results: the JSON array of its hits appended to `out` (as it was on an
    /// error).
    async fn search(
        &self,
        args: &SearchArgs,
        out: &mut Vec<u8>,
    ) -> Result<Sourced<SearchPage>, ApiError>;

    /// The product with UUID or slug `id` as a search hit, priced for `country`.
    async fn product_hit(&self, id: &str, country: Country)
    -> Result<Sourced<SearchHit>, ApiError>;

    /// The product with UUID or slug `id` with its variants; without release dates and retail
    /// prices unless `full`.
    async fn product(&self, id: &str, full: bool) -> Result<Sourced<Product>, ApiError>;

    /// The weekly figures of the product with UUID `id`, newest first.
    async fn orders(&self, id: &str) -> Result<Sourced<Vec<WeeklyOrder>>, ApiError>;

    /// How many products there are.
    async fn stats(&self) -> Result<Sourced<Stats>, ApiError>;

    /// What is held of the product with UUID or slug `id`, without asking upstream: `None`
    /// when nothing is.
    async fn held(&self, id: &str) -> Result<Option<HeldProduct>, ApiError>;

    /// The colorway of the product with `slug` (the placeholder picture's colours).
    async fn colorway(&self, slug: &str) -> Result<String, ApiError>;

    /// The tier of the API key with this digest in the key table the source's file holds
    /// (`solescope keys add --catalogue FILE`). Blocking: a SQLite read by a unique index.
    fn key_tier(&self, key_digest: &str) -> Result<Option<Tier>, ApiError>;

    /// The live source's count of this month's requests, when it reports one; `None` for a
    /// source that counts none (the local catalogue).
    fn quota_used(&self) -> Option<u64>;

    /// The catalogue file the source keeps (the local catalogue's, a live source's mirror), for
    /// what reads a whole catalogue's style codes and barcodes at once (stores are matched to
    /// it: `storefront::crawled_stores`).
    fn codes_file(&self) -> std::path::PathBuf;

    /// Makes `products` the whole list of `store`'s store-only products (no product of the
    /// source's catalogue: `service::shelf`) in the source's search, each found by search and
    /// opened by its id as a retail-only product. Blocking (an index write is synced).
    fn take_store_products(
        &self,
        store: &crate::model::StoreUrl,
        products: Vec<crate::search::live::LiveProduct>,
    );

    /// Per size, the lowest ask of up to 50 products by style code (`GET /api/v2/prices`): a
    /// live source from one batched upstream call per 50 codes, the local catalogue from its
    /// file.
    async fn prices(
        &self,
        codes: &[String],
        country: Country,
    ) -> Result<Sourced<crate::model::prices::PricesAnswer>, ApiError>;

    /// Per size, the lowest ask of `codes` from what the source holds, without an upstream
    /// call (a live source's latest batch, else its mirror; each product with its source and
    /// age): the flips when a scan's calls would not fit the monthly budget. A source without
    /// an upstream answers as [`prices`](Self::prices).
    async fn held_prices(
        &self,
        codes: &[String],
        country: Country,
    ) -> Result<Sourced<crate::model::prices::PricesAnswer>, ApiError>;

    /// What the source holds of the recent sales of `codes`' products (one entry per code,
    /// `None` where nothing is held), without an upstream call.
    async fn held_sales(
        &self,
        codes: &[String],
    ) -> Result<Vec<Option<crate::model::flips::HeldSales>>, ApiError>;

    /// The live source's monthly budget of calls, when it has one (`GET /api/v2/budget`); an
    /// error when its count cannot be read. `None`: a source with no such budget.
    async fn budget(&self) -> Option<Result<crate::model::budget::BudgetStatus, String>>;

    /// What a live source knows of coming releases beyond the products of its catalogue file
    /// (launches with their mechanics), read from its upstream when that is due (at most once
    /// a day) and waited for at most `wait`, else answered as held. `None`: a source with no
    /// such upstream (the demo, an imported catalogue).
    async fn coming(&self, wait: std::time::Duration) -> Option<ComingFromUpstream>;
}

/// A coming launch a live source lists (SNKRS), with how it drops.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Launch {
    /// The title.
    pub title: String,
    /// Its style codes, as written.
    pub style_codes: Vec<String>,
    /// A picture URL, empty when none.
    pub image: String,
    /// Its page at the launch source, empty when unknown.
    pub link: String,
    /// How and when it drops.
    pub mechanics: crate::model::releases::Mechanics,
}

/// What a live source knows of coming releases beyond its catalogue file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ComingFromUpstream {
    /// The launches not over yet.
    pub launches: Vec<Launch>,
    /// How each of its reads stands (`catalogue`: the coming products written into its
    /// catalogue file; `snkrs`: the launches), with when each was read and what to know.
    pub sources: Vec<crate::model::releases::CalendarSource>,
    /// Grows with every read that landed, so a calendar built before knows it is stale.
    pub generation: u64,
}

/// Appends the JSON array of `hits` to `out`, without the fields `tier` does not get; `out` is
/// as it was on an error.
pub fn write_hits_json(hits: &[SearchHit], tier: Tier, out: &mut Vec<u8>) -> Result<(), ApiError> {
    let start = out.len();
    out.push(b'[');
    for (at, hit) in hits.iter().enumerate() {
        if at > 0 {
            out.push(b',');
        }
        let written = serde_json::to_value(hit).and_then(|mut value| {
            crate::model::tiers::strip_omitted_fields(&mut value, tier);
            serde_json::to_writer(&mut *out, &value)
        });
        if let Err(err) = written {
            out.truncate(start);
            tracing::error!("serializing a search hit: {err:#}");
            return Err(ApiError::Internal);
        }
    }
    out.push(b']');
    Ok(())
}

/// The 404 for a product id or slug a source does not have.
pub fn product_not_found(id: &str) -> ApiError {
    ApiError::NotFound(format!("no product with id or slug {:?}", truncate(id, 80)))
}

/// The 404 for a slug no product has.
pub fn no_product_with_slug(slug: &str) -> ApiError {
    ApiError::NotFound(format!("no product with slug {:?}", truncate(slug, 80)))
}

/// At most `max` characters of `text`, for echoing bad input in messages.
pub fn truncate(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}

/// A search's failure as the API answers it: the catalogue's or the disk's a 500 (logged), the
/// request's a 400. (`GtinsPending` is answered by the catalogue first: never the request's.)
pub(crate) fn search_error(err: crate::search::SearchError) -> ApiError {
    use crate::search::SearchError::{GtinsPending, Io, Sqlite};
    match err {
        Sqlite(_) | Io(_) | GtinsPending => {
            tracing::error!("search: {err:#}");
            ApiError::Internal
        }
        other => ApiError::BadRequest(other.to_string()),
    }
}
