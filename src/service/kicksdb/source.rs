//! The KicksDB source behind the catalogue seam: fetch, mirror, answer from the mirror; when
//! KicksDB cannot answer (unreachable, failing, out of calls, refusing the key), answer from
//! what the mirror holds, saying how old it is and why.

use std::sync::Arc;
use std::time::Duration;

use super::Kicksdb;
use crate::catalogue::mirror;
use crate::catalogue::read::{self, ProductKey};
use crate::model::{Country, DatasetStats, Stats};
use crate::service::ServiceState;
use crate::service::error::ApiError;
use crate::service::source::{AnswerOrigin, CatalogueSource, SearchArgs, SearchPage, Sourced};
use crate::upstream::{FetchError, FetchKind};

/// Source names in answers.
const LIVE: &str = "kicksdb";
const MIRROR: &str = "kicksdb-mirror";

impl From<FetchError> for ApiError {
    fn from(err: FetchError) -> Self {
        let message = err.to_string();
        match err.kind {
            FetchKind::NotFound => ApiError::NotFound(message),
            FetchKind::RateLimited => ApiError::UpstreamRateLimited {
                message,
                retry_after_secs: err.retry_after.map_or(60, |d| d.as_secs().max(1)),
            },
            FetchKind::Unauthorized => ApiError::UpstreamKeyRefused(message),
            FetchKind::Forbidden => ApiError::UpstreamPlan(message),
            FetchKind::Timeout => ApiError::UpstreamTimeout(message),
            // KicksDB refusing what the service sent (its 422) is the gateway's failure, not
            // the caller's: the caller's request was checked before.
            FetchKind::Rejected
            | FetchKind::Unavailable
            | FetchKind::Unreachable
            | FetchKind::TooLarge
            | FetchKind::NotJson
            | FetchKind::Malformed => ApiError::UpstreamFailed(message),
        }
    }
}

/// Whether the mirror should answer in KicksDB's place: not for what KicksDB said plainly
/// (no such product, a bad request), which the mirror cannot know better.
fn mirror_may_answer(err: &FetchError) -> bool {
    !matches!(err.kind, FetchKind::NotFound | FetchKind::Rejected)
}

fn from_mirror(as_of: Option<String>, reason: Option<&FetchError>) -> AnswerOrigin {
    AnswerOrigin {
        source: MIRROR,
        as_of,
        stale_reason: reason.map(ToString::to_string),
    }
}

/// The mirror's `pk` for a UUID or slug.
async fn mirror_pk(
    state: &Arc<ServiceState>,
    id: &str,
) -> Result<Option<(i64, Option<String>)>, ApiError> {
    let id = id.to_owned();
    state
        .blocking(move |state| {
            let conn = state.pool.get()?;
            let Some(pk) = read::product_pk(&conn, ProductKey::parse(&id))? else {
                return Ok(None);
            };
            let fetched = mirror::origin(&conn, pk)?.map(|o| o.fetched_at);
            Ok(Some((pk, fetched)))
        })
        .await
}

#[async_trait::async_trait]
impl CatalogueSource for Arc<Kicksdb> {
    async fn search(
        &self,
        state: &Arc<ServiceState>,
        args: &SearchArgs,
    ) -> Result<Sourced<SearchPage>, ApiError> {
        let live = if args.cached_only {
            None
        } else {
            match Kicksdb::search(self, args).await {
                Ok(page) => {
                    let offset = u64::from(args.page.max(1) - 1) * u64::from(args.limit);
                    // KicksDB gives no total: what was seen, and one more page if this one
                    // was full.
                    let more = if page.full { u64::from(args.limit) } else { 0 };
                    let estimated_total_hits = offset + page.pks.len() as u64 + more;
                    return Ok(Sourced {
                        value: SearchPage {
                            pks: page.pks,
                            estimated_total_hits,
                            hits_from_store: false,
                        },
                        origin: AnswerOrigin::fresh(LIVE),
                    });
                }
                Err(err) if mirror_may_answer(&err) => Some(err),
                Err(err) => return Err(err.into()),
            }
        };
        let request = args.clone();
        let (pks, total, as_of) = state
            .blocking(move |state| {
                let conn = state.pool.get()?;
                let (pks, total) = mirror::search(
                    &conn,
                    &request.text,
                    request.sku.as_deref(),
                    request.gtin.as_deref(),
                    ((request.page.max(1) - 1) * request.limit) as usize,
                    request.limit as usize,
                )?;
                let as_of = mirror::oldest_fetch(&conn, &pks)?;
                Ok((pks, total, as_of))
            })
            .await?;
        if let Some(err) = live.as_ref().filter(|_| pks.is_empty()) {
            // Nothing held for it either: KicksDB's failure is the answer.
            return Err(err.clone().into());
        }
        Ok(Sourced {
            value: SearchPage {
                pks,
                estimated_total_hits: total,
                hits_from_store: false,
            },
            origin: from_mirror(as_of, live.as_ref()),
        })
    }

    async fn product(
        &self,
        state: &Arc<ServiceState>,
        id: &str,
        country: Country,
    ) -> Result<Sourced<i64>, ApiError> {
        match Kicksdb::product(self, id, country).await {
            Ok(pk) => Ok(Sourced {
                value: pk,
                origin: AnswerOrigin::fresh(LIVE),
            }),
            Err(err) if mirror_may_answer(&err) => match mirror_pk(state, id).await? {
                Some((pk, as_of)) => Ok(Sourced {
                    value: pk,
                    origin: from_mirror(as_of, Some(&err)),
                }),
                None => Err(err.into()),
            },
            Err(err) => Err(err.into()),
        }
    }

    async fn orders(&self, state: &Arc<ServiceState>, id: &str) -> Result<Sourced<i64>, ApiError> {
        // The product row first (the weeks hang off it), from the mirror when held.
        let pk = match mirror_pk(state, id).await? {
            Some((pk, _)) => pk,
            None => Kicksdb::product(self, id, Country::Us).await?,
        };
        let weeks_at = {
            let pk_copy = pk;
            state
                .blocking(move |state| {
                    let conn = state.pool.get()?;
                    Ok(mirror::weeks_fetched_at(&conn, pk_copy)?)
                })
                .await?
        };
        let fresh = weeks_at
            .as_deref()
            .is_some_and(|at| younger_than(at, self.ttl.slow));
        if fresh {
            return Ok(Sourced {
                value: pk,
                origin: AnswerOrigin::fresh(LIVE),
            });
        }
        match self.weeks(pk, id).await {
            Ok(()) => Ok(Sourced {
                value: pk,
                origin: AnswerOrigin::fresh(LIVE),
            }),
            Err(err) if mirror_may_answer(&err) && weeks_at.is_some() => Ok(Sourced {
                value: pk,
                origin: from_mirror(weeks_at, Some(&err)),
            }),
            Err(err) => Err(err.into()),
        }
    }

    async fn stats(&self, state: &Arc<ServiceState>) -> Result<Sourced<Stats>, ApiError> {
        match self.product_total().await {
            Ok(total) => Ok(Sourced {
                value: Stats {
                    datasets: Country::ALL
                        .iter()
                        .map(|country| DatasetStats {
                            country: country.code().to_owned(),
                            currency: country.currency().to_owned(),
                            products: total,
                            variants: None,
                        })
                        .collect(),
                    built_at: String::new(),
                    schema_version: crate::catalogue::SCHEMA_VERSION,
                },
                origin: AnswerOrigin::fresh(LIVE),
            }),
            Err(err) if mirror_may_answer(&err) => {
                let held = state
                    .blocking(|state| {
                        let conn = state.pool.get()?;
                        Ok(read::stats(&conn)?)
                    })
                    .await?;
                let as_of = Some(held.built_at.clone()).filter(|t| !t.is_empty());
                Ok(Sourced {
                    value: held,
                    origin: from_mirror(as_of, Some(&err)),
                })
            }
            Err(err) => Err(err.into()),
        }
    }

    fn quota_used(&self) -> Option<u64> {
        self.quota_current()
    }

    async fn prices(
        &self,
        state: &Arc<ServiceState>,
        codes: &[String],
        country: Country,
    ) -> Result<Sourced<crate::model::prices::PricesAnswer>, ApiError> {
        super::prices::answer(self, state, codes, country).await
    }

    async fn budget(&self) -> Option<Result<crate::model::budget::BudgetStatus, String>> {
        Some(self.budget_status().await.map_err(|err| err.to_string()))
    }

    /// KicksDB ranks; when it cannot answer, the mirror is searched as it is now
    /// (`mirror::search`).
    fn uses_local_index(&self) -> bool {
        false
    }
}

/// Whether the RFC 3339 time `at` is less than `age` ago.
fn younger_than(at: &str, age: Duration) -> bool {
    chrono::DateTime::parse_from_rfc3339(at).is_ok_and(|t| {
        let elapsed = chrono::Utc::now().signed_duration_since(t);
        elapsed.to_std().is_ok_and(|e| e < age)
    })
}
