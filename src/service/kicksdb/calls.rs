//! One KicksDB call: the reuse of a recent identical answer (one call in flight per request),
//! the two limits counted before sending, the answer's status in KicksDB's words, a 429 waited
//! out when short.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use reqwest::header::{AUTHORIZATION, HeaderMap};

use super::wire::ErrorModel;
use super::{CallClass, Kicksdb, Limits};
use crate::upstream::{FetchError, FetchKind, Fetched};

/// Sentences for what a plan refused: the research notes' tier per path.
fn plan_needed(path: &str) -> &'static str {
    if path.starts_with("v3/realtime/") {
        "real-time lookups need a Pro or Enterprise KicksDB plan"
    } else if path.contains("/sales") || path.starts_with("v3/unified/") {
        "sales history needs a paid KicksDB plan (Starter or above)"
    } else if path == "v3/stockx/prices" {
        "batched prices need a paid KicksDB plan (Starter or above)"
    } else if path.starts_with("v3/goat/products/") {
        "GOAT product lookups need a paid KicksDB plan (Starter or above)"
    } else {
        "this request needs a paid KicksDB plan (sizes' barcodes and traits are paid-only)"
    }
}

impl Kicksdb {
    /// [`call`](Self::call) decoded as `T`. An answer that does not decode is not reused: the
    /// next identical request asks again.
    pub(super) async fn call_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
        class: CallClass,
        ttl: Duration,
    ) -> Result<T, FetchError> {
        self.call_json_kept(path, query, class, ttl)
            .await
            .map(|(value, _)| value)
    }

    /// [`call_json`](Self::call_json), and when the answer was an earlier one reused (not sent
    /// for this call), when that was fetched (RFC 3339 UTC): the answer then says it comes
    /// from what the service kept, not from KicksDB now.
    pub(super) async fn call_json_kept<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
        class: CallClass,
        ttl: Duration,
    ) -> Result<(T, Option<String>), FetchError> {
        let (fetched, cache_key, reused) = self.call(path, query, None, class, ttl).await?;
        let value = fetched.json(self.http.name()).inspect_err(|_| {
            self.answers.remove(&cache_key);
        })?;
        Ok((value, reused))
    }

    /// `POST <base><path>` with the JSON `body`, decoded as `T`; reused like
    /// [`call_json`](Self::call_json) when the same body was posted less than `ttl` ago.
    pub(super) async fn post_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: &serde_json::Value,
        class: CallClass,
        ttl: Duration,
    ) -> Result<T, FetchError> {
        let body = serde_json::to_vec(body).map_err(|err| {
            FetchError::new(
                self.http.name(),
                FetchKind::Rejected,
                format!("no body for {path}: {err}"),
            )
        })?;
        let (fetched, cache_key, _) = self.call(path, &[], Some(body), class, ttl).await?;
        fetched.json(self.http.name()).inspect_err(|_| {
            self.answers.remove(&cache_key);
        })
    }

    /// `GET <base><path>?<query>` (or a `POST` of `body`), reused when an identical answer is
    /// younger than `ttl`; counted against the limits of `class` and the monthly budget before
    /// it is sent. Any non-2xx status is an error. Also answers the reuse key (never holding the
    /// key: it travels in a header), and when a reused answer was fetched.
    async fn call(
        &self,
        path: &str,
        query: &[(&str, String)],
        body: Option<Vec<u8>>,
        class: CallClass,
        ttl: Duration,
    ) -> Result<(Arc<Fetched>, String, Option<String>), FetchError> {
        let mut url = self.base.join(path).map_err(|err| {
            FetchError::new(
                self.http.name(),
                FetchKind::Rejected,
                format!("no URL for {path}: {err}"),
            )
        })?;
        if !query.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(query.iter().map(|(k, v)| (*k, v.as_str())));
        }
        let mut cache_key = format!("{}?{}", url.path(), url.query().unwrap_or(""));
        if let Some(body) = &body {
            cache_key = format!("POST {cache_key} {}", String::from_utf8_lossy(body));
        }
        loop {
            match self.answers.get_value_or_guard_async(&cache_key).await {
                Ok((at, fetched_at, fetched)) if at.elapsed() < ttl => {
                    return Ok((fetched, cache_key, Some(fetched_at)));
                }
                Ok(_) => {
                    // Stale: dropped, then fetched again by whoever takes the guard.
                    self.answers.remove(&cache_key);
                }
                Err(guard) => {
                    let fetched =
                        Arc::new(self.send(url.clone(), body.clone(), path, class).await?);
                    let fetched_at =
                        chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                    let _ = guard.insert((Instant::now(), fetched_at, Arc::clone(&fetched)));
                    return Ok((fetched, cache_key, None));
                }
            }
        }
    }

    /// Sends one request (limits and the monthly budget counted first), waiting out a short 429
    /// once.
    async fn send(
        &self,
        url: reqwest::Url,
        body: Option<Vec<u8>>,
        path: &str,
        class: CallClass,
    ) -> Result<Fetched, FetchError> {
        let mut waited = false;
        loop {
            self.take_slot(class).await?;
            // After the minute's limits (a refusal there spends nothing of the month), before
            // sending: a call the budget cannot carry is never sent.
            self.budget.take().await?;
            let mut headers = HeaderMap::new();
            headers.insert(AUTHORIZATION, self.auth.clone());
            let fetched = match &body {
                Some(body) => {
                    self.http
                        .post_json(url.clone(), headers, body.clone())
                        .await?
                }
                None => self.http.get(url.clone(), headers).await?,
            };
            let quota = fetched.header("x-quota-current");
            if let Some(quota) = quota.and_then(|q| q.parse::<i64>().ok()) {
                self.quota_current.store(quota, Ordering::Relaxed);
            }
            self.budget.report(quota).await;
            match self.status_error(&fetched, path) {
                None => return Ok(fetched),
                Some(err)
                    if err.kind == FetchKind::RateLimited
                        && !waited
                        && err.retry_after.is_some_and(|wait| wait <= self.max_wait) =>
                {
                    let wait = err.retry_after.unwrap_or_default();
                    tracing::info!(wait_ms = wait.as_millis() as u64, "KicksDB asked to wait");
                    tokio::time::sleep(wait).await;
                    waited = true;
                }
                Some(err) => return Err(err),
            }
        }
    }

    /// The error of a non-2xx answer, in words that say what to do.
    fn status_error(&self, fetched: &Fetched, path: &str) -> Option<FetchError> {
        if fetched.is_success() {
            return None;
        }
        let name = self.http.name();
        let detail = serde_json::from_slice::<ErrorModel>(&fetched.body)
            .ok()
            .and_then(|e| e.detail.or(e.title))
            .map(|d| d.chars().take(200).collect::<String>());
        let with = |text: &str| match &detail {
            Some(detail) => format!("{text} ({}: {detail})", fetched.status),
            None if fetched.is_html() => format!("{text} ({}, an HTML page)", fetched.status),
            None => format!("{text} ({})", fetched.status),
        };
        let message = match FetchKind::from_status(fetched.status) {
            Some(FetchKind::Unauthorized) => with("KicksDB refused the key"),
            Some(FetchKind::Forbidden) => with(plan_needed(path)),
            Some(FetchKind::NotFound) => with("KicksDB has no such product"),
            Some(FetchKind::RateLimited) => with("KicksDB's rate limit was reached"),
            Some(FetchKind::Unavailable) => with("KicksDB failed to answer"),
            _ => with("KicksDB refused the request"),
        };
        fetched.status_error(name, message)
    }

    /// Takes a slot of the limits `class` counts against, or fails with how long to wait.
    async fn take_slot(&self, class: CallClass) -> Result<(), FetchError> {
        let realtime = class == CallClass::Realtime;
        let refused = |wait: Duration, realtime: bool| {
            let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
            let message = if realtime {
                format!(
                    "KicksDB allows {} real-time calls a minute per key, all used in the last minute; the next one is free in {secs} s",
                    self.realtime_per_minute
                )
            } else {
                format!(
                    "KicksDB allows {} calls a minute, all used in the last minute; the next one is free in {secs} s",
                    self.calls_per_minute
                )
            };
            let mut err = FetchError::new(self.http.name(), FetchKind::RateLimited, message);
            err.retry_after = Some(Duration::from_secs(secs));
            err
        };
        match &self.limits {
            Limits::Local {
                realtime: realtime_limit,
                calls,
            } => {
                if realtime {
                    realtime_limit
                        .try_take()
                        .map_err(|wait| refused(wait, true))?;
                }
                calls.try_take().map_err(|wait| refused(wait, false))
            }
            Limits::Shared {
                store,
                realtime_name,
                calls_name,
            } => {
                let unreachable = |err: super::super::shared::SharedError| {
                    FetchError::new(
                        self.http.name(),
                        FetchKind::Unavailable,
                        format!("the shared count of KicksDB calls is unreachable: {err}"),
                    )
                };
                if realtime {
                    store
                        .take_sliding(realtime_name, self.realtime_per_minute, 60_000)
                        .await
                        .map_err(unreachable)?
                        .map_err(|ms| refused(Duration::from_millis(ms), true))?;
                }
                store
                    .take_sliding(calls_name, self.calls_per_minute, 60_000)
                    .await
                    .map_err(unreachable)?
                    .map_err(|ms| refused(Duration::from_millis(ms), false))
            }
        }
    }
}
