//! The KicksDB source behind the catalogue seam: fetch, mirror, answer; when KicksDB cannot
//! answer (unreachable, failing, out of calls, refusing the key), answer from what the mirror
//! holds, saying how old it is and why.

use std::sync::Arc;
use std::time::Duration;

use super::Kicksdb;
use crate::catalogue::read::{self, Detail, ProductKey};
use crate::catalogue::{CatalogueError, mirror};
use crate::model::{
    CatalogueInfo, Country, DatasetStats, Product, SearchHit, Stats, Tier, WeeklyOrder,
};
use crate::service::error::ApiError;
use crate::service::origin::names::{KICKSDB, KICKSDB_MIRROR};
use crate::service::origin::{AnswerOrigin, Sourced};
use crate::service::shelf;
use crate::service::source::{
    CatalogueSource, HeldProduct, SearchArgs, SearchPage, no_product_with_slug, product_not_found,
    write_hits_json,
};
use crate::upstream::{FetchError, FetchKind};

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
    AnswerOrigin::kept(KICKSDB_MIRROR, as_of, reason.map(ToString::to_string))
}

/// A live answer's origin: KicksDB now, or, when KicksDB's answer of `reused_at` was reused
/// (to save calls), what the service kept, with its time: never "live" for what was not just
/// fetched.
pub(super) fn live_origin(reused_at: Option<String>) -> AnswerOrigin {
    match reused_at {
        Some(at) => AnswerOrigin::kept(KICKSDB_MIRROR, Some(at), None),
        None => AnswerOrigin::fresh(KICKSDB),
    }
}

/// The mirror's `pk` for a UUID or slug, with when its figures were fetched.
fn mirror_pk(
    conn: &rusqlite::Connection,
    id: &str,
) -> Result<Option<(i64, Option<String>)>, ApiError> {
    let Some(pk) = read::product_pk(conn, ProductKey::parse(id))? else {
        return Ok(None);
    };
    let fetched = mirror::origin(conn, pk)?.map(|o| o.fetched_at);
    Ok(Some((pk, fetched)))
}

/// KicksDB's page of an online search, then the hits of the same page of the mirror's own
/// search that KicksDB's missed (each labelled as held, with when it was fetched), cut to the
/// page's size: an online search never shows fewer hits than the same search as the user typed
/// (KicksDB's search has no typo tolerance, the mirror's index has). The total is the larger
/// of the two estimates.
fn merged_page(
    args: &SearchArgs,
    live: super::catalogue::LivePage,
    held: Option<super::mirror::HeldPage>,
) -> (Vec<SearchHit>, u64) {
    let offset = args.offset() as u64;
    // KicksDB gives no total: what was seen, and one more page if this one was full.
    let more = if live.full { u64::from(args.limit) } else { 0 };
    let mut total = offset + live.hits.len() as u64 + more;
    let mut hits = live.hits;
    if let Some(held) = held {
        total = total.max(held.estimated_total_hits);
        let missed: Vec<(SearchHit, Option<String>)> = held
            .hits
            .into_iter()
            .zip(held.fetched_at)
            .filter(|(hit, _)| !hits.iter().any(|shown| shown.id == hit.id))
            .collect();
        for (mut hit, fetched_at) in missed {
            if let Some(at) = fetched_at {
                hit.labels
                    .push(format!("{}{at}", crate::model::HELD_LABEL_PREFIX));
            }
            hits.push(hit);
        }
        hits.truncate(args.limit as usize);
    }
    (hits, total)
}

impl Kicksdb {
    /// An online search's answer: KicksDB's `page`, and the held hits it missed after it
    /// ([`merged_page`]); when the mirror cannot be searched, KicksDB's page alone (logged).
    async fn online_page(
        self: &Arc<Self>,
        args: &SearchArgs,
        page: super::catalogue::LivePage,
        out: &mut Vec<u8>,
    ) -> Result<Sourced<SearchPage>, ApiError> {
        let held = match self.mirror.search(args.request(), args.country).await {
            Ok(held) => Some(held),
            Err(err) => {
                tracing::warn!("the mirror's own hits are left out of an online search: {err}");
                None
            }
        };
        let origin = live_origin(page.reused_at.clone());
        let (hits, estimated_total_hits) = merged_page(args, page, held);
        write_hits_json(&hits, args.tier, out)?;
        Ok(Sourced {
            value: SearchPage {
                hits: hits.len(),
                estimated_total_hits,
            },
            origin,
        })
    }

    /// The product `id` read by `then` from the mirror: live when KicksDB answers (mirrored,
    /// then read in the same turn), else as the mirror holds it (with its age and KicksDB's
    /// error).
    async fn product_with<T, F>(
        self: &Arc<Self>,
        id: &str,
        country: Country,
        then: F,
    ) -> Result<Sourced<T>, ApiError>
    where
        T: Send + 'static,
        F: Fn(&rusqlite::Connection, i64) -> Result<Option<T>, CatalogueError>
            + Clone
            + Send
            + 'static,
    {
        let err = match Kicksdb::product(self, id, country, then.clone()).await {
            Ok((Some(value), reused_at)) => {
                return Ok(Sourced {
                    value,
                    origin: live_origin(reused_at),
                });
            }
            Ok((None, _)) => return Err(product_not_found(id)),
            Err(err) if mirror_may_answer(&err) => err,
            Err(err) => return Err(err.into()),
        };
        let key = id.to_owned();
        let held = self
            .mirror
            .read(move |conn| {
                let Some((pk, as_of)) = mirror_pk(conn, &key)? else {
                    return Ok(None);
                };
                Ok(then(conn, pk)?.map(|value| (value, as_of)))
            })
            .await?;
        match held {
            Some((value, as_of)) => Ok(Sourced {
                value,
                origin: from_mirror(as_of, Some(&err)),
            }),
            None => Err(err.into()),
        }
    }
}

#[async_trait::async_trait]
impl CatalogueSource for Arc<Kicksdb> {
    fn info(&self) -> CatalogueInfo {
        CatalogueInfo {
            source: KICKSDB.to_owned(),
            live: true,
            keeps_copy: true,
            countries: Country::ALL
                .iter()
                .map(|country| country.code().to_owned())
                .collect(),
            weekly_rank: false,
        }
    }

    async fn search(
        &self,
        args: &SearchArgs,
        out: &mut Vec<u8>,
    ) -> Result<Sourced<SearchPage>, ApiError> {
        let live = if args.cached_only || args.only.is_some() {
            None
        } else {
            match Kicksdb::search(self, args).await {
                Ok(page) => return self.online_page(args, page, out).await,
                Err(err) if mirror_may_answer(&err) => Some(err),
                Err(err) => return Err(err.into()),
            }
        };
        let held = self.mirror.search(args.request(), args.country).await?;
        let (hits, total, as_of) = (held.hits, held.estimated_total_hits, held.as_of);
        if let Some(err) = live.as_ref().filter(|_| hits.is_empty()) {
            // Nothing held for it either: KicksDB's failure is the answer.
            return Err(err.clone().into());
        }
        write_hits_json(&hits, args.tier, out)?;
        Ok(Sourced {
            value: SearchPage {
                hits: hits.len(),
                estimated_total_hits: total,
            },
            origin: from_mirror(as_of, live.as_ref()),
        })
    }

    async fn product_hit(
        &self,
        id: &str,
        country: Country,
    ) -> Result<Sourced<SearchHit>, ApiError> {
        if let Some(shelved) = shelf::product_hit(Some(self.mirror.index()), id, country) {
            return shelved;
        }
        self.product_with(id, country, move |conn, pk| {
            Ok(read::search_hits(conn, &[pk], country)?.pop())
        })
        .await
    }

    async fn product(&self, id: &str, full: bool) -> Result<Sourced<Product>, ApiError> {
        if let Some(shelved) = shelf::product(Some(self.mirror.index()), id, full) {
            return shelved;
        }
        let detail = if full { Detail::Full } else { Detail::Reduced };
        self.product_with(id, Country::Us, move |conn, pk| {
            read::product(conn, pk, detail)
        })
        .await
    }

    async fn orders(&self, id: &str) -> Result<Sourced<Vec<WeeklyOrder>>, ApiError> {
        // The product row first (the weeks hang off it), from the mirror when held.
        let key = id.to_owned();
        let held = self
            .mirror
            .read(move |conn| {
                let Some((pk, _)) = mirror_pk(conn, &key)? else {
                    return Ok(None);
                };
                Ok(Some((pk, mirror::weeks_fetched_at(conn, pk)?)))
            })
            .await?;
        let (pk, weeks_at) = match held {
            Some(held) => held,
            None => (
                Kicksdb::product(self, id, Country::Us, |_, pk| Ok(pk))
                    .await?
                    .0,
                None,
            ),
        };
        let fresh = weeks_at
            .as_deref()
            .is_some_and(|at| younger_than(at, self.ttl.slow));
        let origin = if fresh {
            // Weeks change daily: read recently, they are answered as kept, with their time.
            from_mirror(weeks_at, None)
        } else {
            match self.weeks(pk, id).await {
                Ok(()) => AnswerOrigin::fresh(KICKSDB),
                Err(err) if mirror_may_answer(&err) && weeks_at.is_some() => {
                    from_mirror(weeks_at, Some(&err))
                }
                Err(err) => return Err(err.into()),
            }
        };
        let weeks = self
            .mirror
            .read(move |conn| Ok(read::weekly_orders(conn, pk)?))
            .await?;
        Ok(Sourced {
            value: weeks,
            origin,
        })
    }

    async fn stats(&self) -> Result<Sourced<Stats>, ApiError> {
        match self.product_total().await {
            Ok(total) => Ok(Sourced::fresh(
                Stats {
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
                KICKSDB,
            )),
            Err(err) if mirror_may_answer(&err) => {
                let held = self.mirror.read(|conn| Ok(read::stats(conn)?)).await?;
                let as_of = Some(held.built_at.clone()).filter(|t| !t.is_empty());
                Ok(Sourced {
                    value: held,
                    origin: from_mirror(as_of, Some(&err)),
                })
            }
            Err(err) => Err(err.into()),
        }
    }

    async fn held(&self, id: &str) -> Result<Option<HeldProduct>, ApiError> {
        let id = id.to_owned();
        self.mirror
            .read(move |conn| Ok(read::held_product(conn, &id)?))
            .await
    }

    async fn colorway(&self, slug: &str) -> Result<String, ApiError> {
        let slug = slug.to_owned();
        self.mirror
            .read(move |conn| {
                read::colorway(conn, &slug)?.ok_or_else(|| no_product_with_slug(&slug))
            })
            .await
    }

    fn key_tier(&self, key_digest: &str) -> Result<Option<Tier>, ApiError> {
        self.mirror
            .read_now(|conn| Ok(crate::catalogue::keys::tier_of_hash(conn, key_digest)?))
    }

    fn quota_used(&self) -> Option<u64> {
        self.quota_current()
    }

    fn codes_file(&self) -> std::path::PathBuf {
        self.mirror_path().to_path_buf()
    }

    fn take_store_products(
        &self,
        store: &crate::model::StoreUrl,
        products: Vec<crate::search::live::LiveProduct>,
    ) {
        self.mirror.shelve(store, &products);
    }

    async fn prices(
        &self,
        codes: &[String],
        country: Country,
    ) -> Result<Sourced<crate::model::prices::PricesAnswer>, ApiError> {
        super::prices::answer(self, codes, country).await
    }

    async fn held_prices(
        &self,
        codes: &[String],
        country: Country,
    ) -> Result<Sourced<crate::model::prices::PricesAnswer>, ApiError> {
        super::prices::held_answer(self, codes, country).await
    }

    async fn held_sales(
        &self,
        codes: &[String],
    ) -> Result<Vec<Option<crate::model::flips::HeldSales>>, ApiError> {
        super::prices::held_sales(self, codes).await
    }

    async fn budget(&self) -> Option<Result<crate::model::budget::BudgetStatus, String>> {
        Some(self.budget_status().await.map_err(|err| err.to_string()))
    }

    async fn coming(&self, wait: Duration) -> Option<crate::service::source::ComingFromUpstream> {
        Some(Kicksdb::coming(self, wait).await)
    }
}

/// Whether the RFC 3339 time `at` is less than `age` ago.
fn younger_than(at: &str, age: Duration) -> bool {
    chrono::DateTime::parse_from_rfc3339(at).is_ok_and(|t| {
        let elapsed = chrono::Utc::now().signed_duration_since(t);
        elapsed.to_std().is_ok_and(|e| e < age)
    })
}
