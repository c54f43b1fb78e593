//! The catalogue side's seam: where search, a product, its weekly orders and the counts come
//! from. The service always answers from a catalogue file (its readers shape every answer);
//! a [`CatalogueSource`] decides which products of that file answer, after fetching them into
//! it when it is a live source's mirror. [`LocalCatalogue`] ranks the file itself (the demo, a
//! generated or imported catalogue); the KicksDB source (`super::kicksdb`) fetches, mirrors and
//! falls back to the mirror. Routes never ask which one answers: the answer says where it came
//! from ([`AnswerOrigin`]), and the routes pass that on in headers.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue};

use super::ServiceState;
use super::error::ApiError;
use crate::model::{Country, Stats};

pub use crate::model::origin::{AS_OF_HEADER, QUOTA_HEADER, SOURCE_HEADER, STALE_REASON_HEADER};

/// Where an answer came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerOrigin {
    /// `catalogue`, `simulator`, `kicksdb` or `kicksdb-mirror`.
    pub source: &'static str,
    /// When its figures were fetched, for a mirror's answer.
    pub as_of: Option<String>,
    /// Why the mirror answered (the live source's error), when it did.
    pub stale_reason: Option<String>,
}

impl AnswerOrigin {
    /// An answer fresh from `source`.
    #[must_use]
    pub fn fresh(source: &'static str) -> Self {
        Self {
            source,
            as_of: None,
            stale_reason: None,
        }
    }

    /// The headers that say it.
    #[must_use]
    pub fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(SOURCE_HEADER, HeaderValue::from_static(self.source));
        if let Some(value) = self
            .as_of
            .as_deref()
            .and_then(|t| HeaderValue::from_str(t).ok())
        {
            headers.insert(AS_OF_HEADER, value);
        }
        if let Some(value) = self.stale_reason.as_deref().and_then(|reason| {
            // Header values are visible ASCII: anything else becomes `?`.
            let ascii: String = reason
                .chars()
                .take(300)
                .map(|c| {
                    if c.is_ascii_graphic() || c == ' ' {
                        c
                    } else {
                        '?'
                    }
                })
                .collect();
            HeaderValue::from_str(&ascii).ok()
        }) {
            headers.insert(STALE_REASON_HEADER, value);
        }
        headers
    }
}

/// A value and where it came from.
#[derive(Debug, Clone)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Its origin.
    pub origin: AnswerOrigin,
}

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
    /// Answer only from what is already held (`Cache-Control: only-if-cached`): search as
    /// you type, which must not spend a live source's calls per keystroke.
    pub cached_only: bool,
}

/// A page of search results as products of the served catalogue file.
#[derive(Debug, Clone)]
pub struct SearchPage {
    /// `products.pk`, best first.
    pub pks: Vec<i64>,
    /// The estimate of all hits.
    pub estimated_total_hits: u64,
    /// Whether the hits may come from the service's hit store (built at start over an
    /// unchanging file); a mirror that changes while served is read from the file.
    pub hits_from_store: bool,
}

/// Where the catalogue side's answers come from.
#[async_trait::async_trait]
pub trait CatalogueSource: Send + Sync {
    /// A page of search results.
    async fn search(
        &self,
        state: &Arc<ServiceState>,
        args: &SearchArgs,
    ) -> Result<Sourced<SearchPage>, ApiError>;

    /// The product with UUID or slug `id`, with its sizes priced for `country`: its `pk`.
    async fn product(
        &self,
        state: &Arc<ServiceState>,
        id: &str,
        country: Country,
    ) -> Result<Sourced<i64>, ApiError>;

    /// The product with UUID `id`, with its weekly figures in the file: its `pk`.
    async fn orders(&self, state: &Arc<ServiceState>, id: &str) -> Result<Sourced<i64>, ApiError>;

    /// How many products there are.
    async fn stats(&self, state: &Arc<ServiceState>) -> Result<Sourced<Stats>, ApiError>;

    /// The live source's count of this month's requests, when it reports one.
    fn quota_used(&self) -> Option<u64> {
        None
    }

    /// Per size, the lowest ask of up to 50 products by style code (`GET /api/v2/prices`).
    /// By default from the catalogue file (the demo).
    async fn prices(
        &self,
        state: &Arc<ServiceState>,
        codes: &[String],
        country: Country,
    ) -> Result<Sourced<crate::model::prices::PricesAnswer>, ApiError> {
        let wanted = codes.to_vec();
        let (products, missing) = state
            .blocking(move |state| {
                let conn = state.pool.get()?;
                Ok(crate::catalogue::prices::answer(
                    &conn,
                    &wanted,
                    country,
                    "catalogue",
                )?)
            })
            .await?;
        Ok(Sourced {
            value: crate::model::prices::PricesAnswer {
                market: country.code().to_owned(),
                products,
                missing,
            },
            origin: AnswerOrigin::fresh("catalogue"),
        })
    }

    /// The live source's monthly budget of calls, when it has one (`GET /api/v2/budget`); an
    /// error when its count cannot be read.
    async fn budget(&self) -> Option<Result<crate::model::budget::BudgetStatus, String>> {
        None
    }

    /// Whether searches are ranked by the service's own index over the file, and their hits
    /// written from its hit store: then both are built (or read back) at start. A live source
    /// ranks upstream and reads its mirror as it changes, so neither would be used, and at a
    /// large mirror they cost a start seconds of CPU, hundreds of megabytes of memory and two
    /// files beside it.
    fn uses_local_index(&self) -> bool {
        true
    }
}

/// The search index's request for the route's `args`.
fn search_request(args: &SearchArgs) -> crate::search::SearchRequest<'_> {
    crate::search::SearchRequest {
        text: &args.text,
        sku: args.sku.as_deref(),
        gtin: args.gtin.as_deref(),
        offset: ((args.page.max(1) - 1) * args.limit) as usize,
        limit: args.limit as usize,
    }
}

/// A search's failure as the API answers it: the catalogue's or the disk's a 500 (logged), the
/// request's a 400. (`GtinsPending` is answered by the catalogue first: never the request's.)
fn search_error(err: crate::search::SearchError) -> ApiError {
    use crate::search::SearchError::{GtinsPending, Io, Sqlite};
    match err {
        Sqlite(_) | Io(_) | GtinsPending => {
            tracing::error!("search: {err:#}");
            ApiError::Internal
        }
        other => ApiError::BadRequest(other.to_string()),
    }
}

/// The catalogue file itself: ranked by the service's search index, read as it is. The demo,
/// generated and imported catalogues.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalCatalogue;

#[async_trait::async_trait]
impl CatalogueSource for LocalCatalogue {
    async fn search(
        &self,
        state: &Arc<ServiceState>,
        args: &SearchArgs,
    ) -> Result<Sourced<SearchPage>, ApiError> {
        let request = search_request(args);
        // Ranked on this async worker, not through `spawn_blocking`: ranking is pure CPU,
        // bounded by the query limits (the hop to the blocking pool and back cost about a
        // seventh of a search's CPU time under load). A search asked recently is not ranked
        // again.
        let outcome = match state.recent_searches.search(&state.search, &request) {
            // In the seconds after a large catalogue's first start: its GTINs are looked up in
            // the catalogue.
            Err(crate::search::SearchError::GtinsPending) => {
                let args = args.clone();
                state
                    .blocking(move |state| {
                        let conn = state.pool.get()?;
                        state
                            .recent_searches
                            .search_resolving_gtins(
                                &state.search,
                                &search_request(&args),
                                &mut |gtin| {
                                    Ok(crate::catalogue::read::product_pks_with_gtin(&conn, gtin)?)
                                },
                            )
                            .map_err(search_error)
                    })
                    .await?
            }
            ranked => ranked.map_err(search_error)?,
        };
        Ok(Sourced {
            value: SearchPage {
                pks: outcome.product_pks.clone(),
                estimated_total_hits: outcome.estimated_total_hits,
                hits_from_store: true,
            },
            origin: AnswerOrigin::fresh("catalogue"),
        })
    }

    async fn product(
        &self,
        state: &Arc<ServiceState>,
        id: &str,
        _country: Country,
    ) -> Result<Sourced<i64>, ApiError> {
        let id = id.to_owned();
        let pk = state
            .blocking(move |state| {
                let conn = state.pool.get()?;
                super::routes::product_pk(&conn, &id)
            })
            .await?;
        Ok(Sourced {
            value: pk,
            origin: AnswerOrigin::fresh("catalogue"),
        })
    }

    async fn orders(&self, state: &Arc<ServiceState>, id: &str) -> Result<Sourced<i64>, ApiError> {
        let id = id.to_owned();
        let pk = state
            .blocking(move |state| {
                let conn = state.pool.get()?;
                crate::catalogue::read::product_pk(
                    &conn,
                    crate::catalogue::read::ProductKey::Id(&id),
                )?
                .ok_or_else(|| ApiError::NotFound(format!("no product with id {id}")))
            })
            .await?;
        Ok(Sourced {
            value: pk,
            origin: AnswerOrigin::fresh("catalogue"),
        })
    }

    async fn stats(&self, state: &Arc<ServiceState>) -> Result<Sourced<Stats>, ApiError> {
        Ok(Sourced {
            value: state.stats.clone(),
            origin: AnswerOrigin::fresh("catalogue"),
        })
    }
}
