//! State shared by many `solescope serve` replicas (`serve --redis URL`): the real-time budget
//! and the API keys live in one Redis, so two replicas allow 120 real-time calls per key per
//! minute between them (not 240), and a key revoked anywhere is refused everywhere.
//!
//! Without a [`SharedStore`] the service keeps its in-process limiter
//! ([`WindowLimiter`](super::limits::WindowLimiter)) and the catalogue's key table.
//!
//! Layout in Redis (all under the `solescope:` prefix, keys only as SHA-256 digests):
//! - `solescope:key:<digest>`: a hash with `tier`, `label`, `created_at` and, once revoked,
//!   `revoked_at`; `solescope:keys`: the set of digests, for `keys list` and `keys revoke`.
//! - `solescope:rt:<digest>:<window>`: the real-time count of a key in one fixed window,
//!   incremented and given its expiry in one Lua script, with the window taken from Redis's own
//!   clock (`TIME`), so replicas with slightly different clocks still share one window.
//!
//! When Redis fails: every call is bounded by [`STORE_TIMEOUT`]; real-time calls answer 503
//! (never an unlimited budget); a key checked successfully less than [`KEY_GRACE`] ago keeps
//! its last known answer (catalogue endpoints keep serving), after that 503. After a failure
//! Redis is left alone for [`RETRY_AFTER`] (so a hung Redis does not add its timeout to every
//! request), then tried again: the connection manager reconnects on its own.

use std::fmt::Debug;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use redis::AsyncCommands as _;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::error::ApiError;
use super::limits::Budget;
use crate::catalogue::keys::{self, KeyRecord};
use crate::model::Tier;
use crate::model::budget::{BudgetSettings, MonthSpend};

/// Longest one Redis call may take before it counts as failed.
pub const STORE_TIMEOUT: Duration = Duration::from_millis(500);

/// How long a key lookup is reused before Redis is asked again: a revocation is refused by
/// every replica within this (plus one Redis round trip), well inside a second.
pub const KEY_FRESH: Duration = Duration::from_millis(500);

/// How long a key's last known answer keeps serving while Redis is unreachable.
pub const KEY_GRACE: Duration = Duration::from_secs(60);

/// After a failed Redis call, how long calls are refused (or served from the cache) without
/// trying Redis again.
pub const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Key lookups kept per replica (each a digest and a tier: a few MB at most).
const KEY_CACHE_ENTRIES: usize = 100_000;

const PREFIX: &str = "solescope:";

/// Counts one request in the current fixed window of `ARGV[1]` seconds, on Redis's clock.
/// Returns the count so far and the seconds until the window ends.
const COUNT_SCRIPT: &str = r"
local now = tonumber(redis.call('TIME')[1])
local window_secs = tonumber(ARGV[1])
local window = math.floor(now / window_secs)
local key = KEYS[1] .. ':' .. window
local used = redis.call('INCR', key)
if used == 1 then
    redis.call('EXPIRE', key, window_secs + 5)
end
return {used, (window + 1) * window_secs - now}
";

/// A sliding log of an upstream's calls in a sorted set (score and member: the call's time in
/// microseconds from Redis's clock, plus a counter so two calls in one microsecond stay two):
/// entries older than the window go, then one is added if fewer than the limit remain.
/// Returns 0 when a slot was taken, else the milliseconds until the oldest entry leaves.
const SLIDING_SCRIPT: &str = r"
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2]) * 1000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_us - window_us)
if redis.call('ZCARD', KEYS[1]) < limit then
    local n = redis.call('INCR', KEYS[1] .. ':n')
    redis.call('ZADD', KEYS[1], now_us, now_us .. ':' .. n)
    redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + 1000)
    redis.call('PEXPIRE', KEYS[1] .. ':n', tonumber(ARGV[2]) + 1000)
    return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait_us = tonumber(oldest[2]) + window_us - now_us
return math.max(1, math.ceil(wait_us / 1000))
";

/// A key's monthly count of an upstream's calls (`MonthSpend`), in one hash per month
/// (`counted`, `reported`, `at`: the count when KicksDB last reported), with the newest month
/// counted kept beside it, so a replica whose clock is set back keeps counting in that month.
/// `ARGV`: the month by the caller's clock, the allowance, the quota (-1: not set), the mode (`take`,
/// `report` or `read`), and for `report` KicksDB's count. Returns whether a call was taken, the
/// month counted in, `counted`, `reported` (-1 when none) and `at`.
const MONTHLY_SCRIPT: &str = r"
local month = ARGV[1]
local newest = redis.call('GET', KEYS[1] .. ':newest')
if newest and newest > month then month = newest end
redis.call('SET', KEYS[1] .. ':newest', month, 'EX', 4000000)
local key = KEYS[1] .. ':' .. month
local counted = tonumber(redis.call('HGET', key, 'counted') or '0')
local reported = redis.call('HGET', key, 'reported')
if reported then reported = tonumber(reported) else reported = -1 end
local at = tonumber(redis.call('HGET', key, 'at') or '0')
local taken = 0
if ARGV[4] == 'take' then
    local left = tonumber(ARGV[2]) - counted
    if reported >= 0 and tonumber(ARGV[3]) >= 0 then
        local quota_left = tonumber(ARGV[3]) - (reported + counted - at)
        if quota_left < left then left = quota_left end
    end
    if left > 0 then
        counted = counted + 1
        redis.call('HSET', key, 'counted', counted)
        taken = 1
    end
elseif ARGV[4] == 'report' then
    reported = tonumber(ARGV[5])
    at = counted
    redis.call('HSET', key, 'reported', reported, 'at', at)
end
redis.call('EXPIRE', key, 4000000)
return {taken, month, counted, reported, at}
";

/// Why the shared store did not answer.
#[derive(Debug, thiserror::Error)]
pub enum SharedError {
    /// Redis is unreachable, too slow or answered with an error.
    #[error("Redis: {0}")]
    Unreachable(String),
    /// The request itself is wrong (a bad key id).
    #[error("{0}")]
    Invalid(String),
}

impl From<redis::RedisError> for SharedError {
    fn from(err: redis::RedisError) -> Self {
        SharedError::Unreachable(err.to_string())
    }
}

/// Where replicas keep what they share: the real-time budget and the key table.
#[async_trait::async_trait]
pub trait SharedStore: Send + Sync + Debug {
    /// Counts one real-time request of the key with digest `key_id` in the current window of
    /// `window_secs`: `Ok(Ok)` if allowed, `Ok(Err)` with the budget if refused.
    async fn count_realtime(
        &self,
        key_id: &str,
        limit: u32,
        window_secs: u64,
    ) -> Result<Result<Budget, Budget>, SharedError>;

    /// The tier of the valid (known, not revoked) key whose digest is `key_hash`.
    async fn tier_of_hash(&self, key_hash: &str) -> Result<Option<Tier>, SharedError>;

    /// Takes one slot of at most `limit` calls in any `window_ms` under `name` (an upstream's
    /// limit, shared by every replica): `Ok(Ok)` if taken, `Ok(Err(wait_ms))` until a slot
    /// frees.
    async fn take_sliding(
        &self,
        name: &str,
        limit: u32,
        window_ms: u64,
    ) -> Result<Result<(), u64>, SharedError> {
        let _ = (name, limit, window_ms);
        Err(SharedError::Invalid(
            "this store does not count upstream calls".into(),
        ))
    }

    /// Counts one call of the monthly budget `name` if `settings` leave one, in the newer of
    /// `now_month` and the newest month counted: `Ok(Ok(after))` or `Ok(Err(as_is))`.
    async fn take_monthly(
        &self,
        name: &str,
        now_month: &str,
        settings: BudgetSettings,
    ) -> Result<Result<MonthSpend, MonthSpend>, SharedError> {
        let _ = (name, now_month, settings);
        Err(SharedError::Invalid(
            "this store does not count monthly budgets".into(),
        ))
    }

    /// Notes the upstream's own count of this month's requests for the budget `name`.
    async fn report_monthly(
        &self,
        name: &str,
        now_month: &str,
        reported: u64,
    ) -> Result<MonthSpend, SharedError> {
        let _ = (name, now_month, reported);
        Err(SharedError::Invalid(
            "this store does not count monthly budgets".into(),
        ))
    }

    /// The monthly budget `name`'s counts.
    async fn read_monthly(&self, name: &str, now_month: &str) -> Result<MonthSpend, SharedError> {
        let _ = (name, now_month);
        Err(SharedError::Invalid(
            "this store does not count monthly budgets".into(),
        ))
    }
}

/// One key's fields as `HMGET` answers them: tier, label, created, revoked.
type Row = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// The shared store in Redis.
pub struct RedisStore {
    conn: ConnectionManager,
    count: redis::Script,
    sliding: redis::Script,
    monthly: redis::Script,
}

impl Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password: never printed.
        f.debug_struct("RedisStore").finish_non_exhaustive()
    }
}

/// `fut`, or an [`SharedError::Unreachable`] after [`STORE_TIMEOUT`].
async fn bounded<T>(fut: impl Future<Output = redis::RedisResult<T>>) -> Result<T, SharedError> {
    match tokio::time::timeout(STORE_TIMEOUT, fut).await {
        Ok(result) => Ok(result?),
        Err(_) => Err(SharedError::Unreachable(format!(
            "no answer within {} ms",
            STORE_TIMEOUT.as_millis()
        ))),
    }
}

fn key_field(key_hash: &str) -> String {
    format!("{PREFIX}key:{key_hash}")
}

fn key_set() -> String {
    format!("{PREFIX}keys")
}

impl RedisStore {
    /// Connects to `url` (`redis://HOST:PORT/DB`); fails if Redis does not answer now. Must run
    /// inside the tokio runtime that will serve: the connection manager lives on it.
    pub async fn connect(url: &str) -> Result<Self, SharedError> {
        let client = redis::Client::open(url)
            .map_err(|err| SharedError::Invalid(format!("the Redis URL is not valid: {err}")))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(STORE_TIMEOUT))
            .set_response_timeout(Some(STORE_TIMEOUT))
            .set_max_delay(RETRY_AFTER);
        let conn = bounded(ConnectionManager::new_with_config(client, config)).await?;
        let store = Self {
            conn,
            count: redis::Script::new(COUNT_SCRIPT),
            sliding: redis::Script::new(SLIDING_SCRIPT),
            monthly: redis::Script::new(MONTHLY_SCRIPT),
        };
        let mut conn = store.conn.clone();
        bounded(redis::cmd("PING").query_async::<String>(&mut conn)).await?;
        Ok(store)
    }

    /// Stores `key` (as its digest) with its tier; a key stored before is replaced (and
    /// un-revoked), as in the catalogue's table.
    pub async fn add_key(
        &self,
        key: &str,
        tier: Tier,
        label: &str,
        created_at: &str,
    ) -> Result<(), SharedError> {
        let digest = keys::hash(key);
        let field = key_field(&digest);
        let mut conn = self.conn.clone();
        bounded(
            redis::pipe()
                .atomic()
                .hset_multiple(
                    &field,
                    &[
                        ("tier", tier.as_str()),
                        ("label", label),
                        ("created_at", created_at),
                    ],
                )
                .ignore()
                .hdel(&field, "revoked_at")
                .ignore()
                .sadd(key_set(), &digest)
                .ignore()
                .query_async::<()>(&mut conn),
        )
        .await
    }

    /// All keys, oldest first (their ids, never the keys).
    pub async fn list_keys(&self) -> Result<Vec<KeyRecord>, SharedError> {
        let mut conn = self.conn.clone();
        let mut digests: Vec<String> = bounded(conn.smembers(key_set())).await?;
        digests.sort();
        let mut pipe = redis::pipe();
        for digest in &digests {
            pipe.cmd("HMGET").arg(key_field(digest)).arg(&[
                "tier",
                "label",
                "created_at",
                "revoked_at",
            ]);
        }
        let rows: Vec<Row> = if digests.is_empty() {
            Vec::new()
        } else {
            bounded(pipe.query_async(&mut conn)).await?
        };
        let mut records: Vec<KeyRecord> = digests
            .iter()
            .zip(rows)
            .filter_map(|(digest, (tier, label, created_at, revoked_at))| {
                Some(KeyRecord {
                    id: digest[..12.min(digest.len())].to_owned(),
                    tier: tier?.parse().unwrap_or(Tier::Free),
                    label: label.unwrap_or_default(),
                    created_at: created_at.unwrap_or_default(),
                    revoked_at,
                })
            })
            .collect();
        // Stable: equal dates keep digest order, as the catalogue's `ORDER BY created_at, key_hash`.
        records.sort_by(|a, b| a.created_at.cmp(&b.created_at));
        Ok(records)
    }

    /// Revokes the keys whose digest starts with `id_prefix` (at least 8 hex digits), as
    /// [`keys::revoke`] does in a catalogue. Returns whether a key was revoked.
    pub async fn revoke(&self, id_prefix: &str, now: &str) -> Result<bool, SharedError> {
        let prefix = id_prefix.trim().to_ascii_lowercase();
        if prefix.len() < 8 || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(SharedError::Invalid(
                "a key id is at least 8 hex digits, as `keys list` shows it".into(),
            ));
        }
        let mut conn = self.conn.clone();
        let digests: Vec<String> = bounded(conn.smembers(key_set())).await?;
        let mut revoked = false;
        for digest in digests.iter().filter(|d| d.starts_with(&prefix)) {
            // HSETNX: a key revoked before keeps its first revocation date.
            let set: bool = bounded(conn.hset_nx(key_field(digest), "revoked_at", now)).await?;
            revoked |= set;
        }
        Ok(revoked)
    }
}

#[async_trait::async_trait]
impl SharedStore for RedisStore {
    async fn count_realtime(
        &self,
        key_id: &str,
        limit: u32,
        window_secs: u64,
    ) -> Result<Result<Budget, Budget>, SharedError> {
        let mut conn = self.conn.clone();
        let (used, reset): (i64, i64) = bounded(
            self.count
                .key(format!("{PREFIX}rt:{key_id}"))
                .arg(window_secs.max(1))
                .invoke_async(&mut conn),
        )
        .await?;
        let used = u32::try_from(used.max(0)).unwrap_or(u32::MAX);
        let budget = Budget {
            limit,
            remaining: limit.saturating_sub(used),
            reset_secs: u64::try_from(reset).unwrap_or(1).max(1),
        };
        Ok(if used <= limit {
            Ok(budget)
        } else {
            Err(budget)
        })
    }

    async fn take_sliding(
        &self,
        name: &str,
        limit: u32,
        window_ms: u64,
    ) -> Result<Result<(), u64>, SharedError> {
        let mut conn = self.conn.clone();
        let wait_ms: i64 = bounded(
            self.sliding
                .key(format!("{PREFIX}up:{name}"))
                .arg(limit.max(1))
                .arg(window_ms.max(1))
                .invoke_async(&mut conn),
        )
        .await?;
        Ok(if wait_ms <= 0 {
            Ok(())
        } else {
            Err(u64::try_from(wait_ms).unwrap_or(1))
        })
    }

    async fn take_monthly(
        &self,
        name: &str,
        now_month: &str,
        settings: BudgetSettings,
    ) -> Result<Result<MonthSpend, MonthSpend>, SharedError> {
        let (taken, spend) = self.monthly(name, now_month, settings, "take", 0).await?;
        Ok(if taken { Ok(spend) } else { Err(spend) })
    }

    async fn report_monthly(
        &self,
        name: &str,
        now_month: &str,
        reported: u64,
    ) -> Result<MonthSpend, SharedError> {
        let settings = BudgetSettings::default();
        Ok(self
            .monthly(name, now_month, settings, "report", reported)
            .await?
            .1)
    }

    async fn read_monthly(&self, name: &str, now_month: &str) -> Result<MonthSpend, SharedError> {
        let settings = BudgetSettings::default();
        Ok(self.monthly(name, now_month, settings, "read", 0).await?.1)
    }

    async fn tier_of_hash(&self, key_hash: &str) -> Result<Option<Tier>, SharedError> {
        let mut conn = self.conn.clone();
        let (tier, revoked_at): (Option<String>, Option<String>) = bounded(
            redis::cmd("HMGET")
                .arg(key_field(key_hash))
                .arg(&["tier", "revoked_at"])
                .query_async(&mut conn),
        )
        .await?;
        Ok(match (tier, revoked_at) {
            (Some(tier), None) => tier.parse().ok(),
            _ => None,
        })
    }
}

impl RedisStore {
    /// One run of [`MONTHLY_SCRIPT`].
    async fn monthly(
        &self,
        name: &str,
        now_month: &str,
        settings: BudgetSettings,
        mode: &str,
        reported: u64,
    ) -> Result<(bool, MonthSpend), SharedError> {
        let mut conn = self.conn.clone();
        let (taken, month, counted, reported, at): (i64, String, i64, i64, i64) = bounded(
            self.monthly
                .key(format!("{PREFIX}up:{name}"))
                .arg(now_month)
                .arg(settings.allowance())
                // -1: no quota set, KicksDB's count not held to one.
                .arg(
                    settings
                        .monthly_quota
                        .map_or(-1, |q| i64::try_from(q).unwrap_or(i64::MAX)),
                )
                .arg(mode)
                .arg(reported)
                .invoke_async(&mut conn),
        )
        .await?;
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        Ok((
            taken == 1,
            MonthSpend {
                month,
                counted: count(counted),
                reported: u64::try_from(reported).ok(),
                counted_at_report: count(at),
            },
        ))
    }
}

/// A [`SharedStore`] with what a replica needs around it: a short-lived cache of key lookups
/// (fresh for [`KEY_FRESH`], kept as a fallback for [`KEY_GRACE`]) and a pause of
/// [`RETRY_AFTER`] after a failure.
pub(crate) struct Shared {
    store: Arc<dyn SharedStore>,
    /// Digest -> (tier if valid, when Redis said so).
    keys: quick_cache::sync::Cache<String, (Option<Tier>, Instant)>,
    failed_at: Mutex<Option<Instant>>,
}

impl Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("store", &self.store)
            .field("cached_keys", &self.keys.len())
            .finish_non_exhaustive()
    }
}

impl Shared {
    pub(crate) fn new(store: Arc<dyn SharedStore>) -> Self {
        Self {
            store,
            keys: quick_cache::sync::Cache::new(KEY_CACHE_ENTRIES),
            failed_at: Mutex::new(None),
        }
    }

    /// Whether Redis failed less than [`RETRY_AFTER`] ago.
    fn resting(&self, now: Instant) -> bool {
        self.failed_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|at| now.duration_since(at) < RETRY_AFTER)
    }

    fn note(&self, err: &SharedError) {
        tracing::warn!("shared state unavailable: {err}");
        *self
            .failed_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
    }

    /// One real-time request of `key_id` counted in Redis; 503 if Redis does not answer.
    pub(crate) async fn count_realtime(
        &self,
        key_id: &str,
        limit: u32,
        window_secs: u64,
    ) -> Result<Result<Budget, Budget>, ApiError> {
        let unavailable = || ApiError::Unavailable {
            message: "the real-time budget cannot be counted: the shared store (Redis) is \
                      unreachable; real-time calls are refused until it is back"
                .into(),
            retry_after_secs: RETRY_AFTER.as_secs().max(1),
        };
        if self.resting(Instant::now()) {
            return Err(unavailable());
        }
        self.store
            .count_realtime(key_id, limit, window_secs)
            .await
            .map_err(|err| {
                self.note(&err);
                unavailable()
            })
    }

    /// The tier of the key with digest `key_hash`, from the cache while fresh, else Redis; when
    /// Redis fails, the last known answer if younger than [`KEY_GRACE`], else 503.
    pub(crate) async fn tier_of_hash(&self, key_hash: &str) -> Result<Option<Tier>, ApiError> {
        let now = Instant::now();
        let cached = self.keys.get(key_hash);
        if let Some((tier, at)) = cached
            && now.duration_since(at) < KEY_FRESH
        {
            return Ok(tier);
        }
        let looked_up = if self.resting(now) {
            Err(SharedError::Unreachable("resting after a failure".into()))
        } else {
            self.store.tier_of_hash(key_hash).await.inspect_err(|err| {
                self.note(err);
            })
        };
        match looked_up {
            Ok(tier) => {
                self.keys.insert(key_hash.to_owned(), (tier, now));
                Ok(tier)
            }
            Err(_) => match cached {
                Some((tier, at)) if now.duration_since(at) < KEY_GRACE => Ok(tier),
                _ => Err(ApiError::Unavailable {
                    message: format!(
                        "the API key cannot be checked: the shared key store (Redis) is \
                         unreachable and this key was not checked in the last {} s",
                        KEY_GRACE.as_secs()
                    ),
                    retry_after_secs: RETRY_AFTER.as_secs().max(1),
                }),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    /// A store that knows one pro key and can be switched off.
    #[derive(Debug, Default)]
    struct Flaky {
        down: AtomicBool,
    }

    #[async_trait::async_trait]
    impl SharedStore for Flaky {
        async fn count_realtime(
            &self,
            _: &str,
            limit: u32,
            _: u64,
        ) -> Result<Result<Budget, Budget>, SharedError> {
            if self.down.load(Ordering::SeqCst) {
                return Err(SharedError::Unreachable("down".into()));
            }
            Ok(Ok(Budget {
                limit,
                remaining: limit - 1,
                reset_secs: 1,
            }))
        }

        async fn tier_of_hash(&self, key_hash: &str) -> Result<Option<Tier>, SharedError> {
            if self.down.load(Ordering::SeqCst) {
                return Err(SharedError::Unreachable("down".into()));
            }
            Ok((key_hash == "known").then_some(Tier::Pro))
        }
    }

    /// Asserts that Redis answers through `shared`: the known key is pro, and a real-time call
    /// is counted within its budget.
    async fn assert_serves_the_known_key(shared: &Shared) {
        assert_eq!(shared.tier_of_hash("known").await.unwrap(), Some(Tier::Pro));
        assert!(
            shared
                .count_realtime("known", 120, 60)
                .await
                .unwrap()
                .is_ok()
        );
    }

    #[tokio::test]
    async fn a_failing_store_refuses_realtime_and_serves_known_keys_only_within_the_grace() {
        let store = Arc::new(Flaky::default());
        let shared = Shared::new(store.clone());
        assert_serves_the_known_key(&shared).await;

        store.down.store(true, Ordering::SeqCst);
        // Past the fresh time, Redis is asked, fails, and the last answer serves.
        tokio::time::sleep(KEY_FRESH).await;
        assert_eq!(shared.tier_of_hash("known").await.unwrap(), Some(Tier::Pro));
        // A key never seen cannot be checked: 503, not 401 and not a pass.
        let unknown = shared.tier_of_hash("never-seen").await.unwrap_err();
        assert!(
            matches!(unknown, ApiError::Unavailable { .. }),
            "{unknown:?}"
        );
        let realtime = shared.count_realtime("known", 120, 60).await.unwrap_err();
        assert!(
            matches!(realtime, ApiError::Unavailable { .. }),
            "{realtime:?}"
        );

        // Past the grace, the last answer no longer serves.
        shared.keys.insert(
            "known".into(),
            (
                Some(Tier::Pro),
                Instant::now().checked_sub(KEY_GRACE).unwrap(),
            ),
        );
        let stale = shared.tier_of_hash("known").await.unwrap_err();
        assert!(matches!(stale, ApiError::Unavailable { .. }), "{stale:?}");

        // Back: after the pause, Redis is asked again.
        store.down.store(false, Ordering::SeqCst);
        tokio::time::sleep(RETRY_AFTER).await;
        assert_serves_the_known_key(&shared).await;
    }
}
