//! The KicksDB key's monthly budget, where calls are sent: every call takes one from this
//! month's count *before* it is sent, and a call past the budget is not sent (a 429 naming the
//! budget, with `Retry-After` until the month ends). Each answer's `X-Quota-Current` (KicksDB's
//! count of the key's requests this month) is noted; the arithmetic is `model::budget`'s.
//!
//! The count lives in a [`SpendLedger`], so that everything spending the key shares it:
//! - [`SqliteLedger`], a small SQLite file beside the mirror, for the processes of one machine
//!   (the window, `solescope monitor`, `solescope portfolio value`): each take is one
//!   `BEGIN IMMEDIATE` transaction, so two processes never both take the last call;
//! - [`SharedLedger`], Redis (`serve --redis`), for replicas: one Lua script checks and counts;
//! - [`MemoryLedger`], for a process alone (tests).
//!
//! Counts are kept per key (by its digest, never the key) and per month; a clock set back into
//! an earlier month keeps counting in the newest month counted (`Month::counting`).

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension as _, TransactionBehavior};

use crate::model::budget::{
    BudgetSettings, BudgetSettingsCell, BudgetStatus, Clock, Month, MonthSpend, SystemClock,
};
use crate::service::shared::{SharedError, SharedStore};
use crate::upstream::{FetchError, FetchKind};

/// Why the month's count could not be read or kept.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct LedgerError(pub String);

impl From<rusqlite::Error> for LedgerError {
    fn from(err: rusqlite::Error) -> Self {
        Self(format!("the count of KicksDB calls: {err}"))
    }
}

impl From<SharedError> for LedgerError {
    fn from(err: SharedError) -> Self {
        Self(format!("the shared count of KicksDB calls: {err}"))
    }
}

/// Where a key's monthly counts are kept. Every method counts in the newer of `now_month` and
/// the newest month already counted, and answers that month's counts.
#[async_trait::async_trait]
pub trait SpendLedger: Send + Sync + Debug {
    /// Counts one call if `settings` leave one: `Ok(Ok(after))`, or `Ok(Err(as_is))` refused.
    async fn take(
        &self,
        now_month: &str,
        settings: BudgetSettings,
    ) -> Result<Result<MonthSpend, MonthSpend>, LedgerError>;

    /// Notes KicksDB's count of the key's requests this month.
    async fn report(&self, now_month: &str, reported: u64) -> Result<MonthSpend, LedgerError>;

    /// The month's counts.
    async fn read(&self, now_month: &str) -> Result<MonthSpend, LedgerError>;

    /// Whether other services share this count (Redis).
    fn is_shared(&self) -> bool {
        false
    }
}

/// The newer of two month keys (`YYYY-MM` sorts as time).
fn newer(a: &str, b: Option<String>) -> String {
    match b {
        Some(b) if b.as_str() > a => b,
        _ => a.to_owned(),
    }
}

/// A count in this process only.
#[derive(Debug, Default)]
pub struct MemoryLedger {
    months: Mutex<BTreeMap<String, MonthSpend>>,
}

impl MemoryLedger {
    fn with<T>(&self, now_month: &str, f: impl FnOnce(&mut MonthSpend) -> T) -> T {
        let mut months = self.months.lock().unwrap_or_else(PoisonError::into_inner);
        let month = newer(now_month, months.keys().next_back().cloned());
        let spend = months
            .entry(month.clone())
            .or_insert_with(|| MonthSpend::empty(&month));
        f(spend)
    }
}

#[async_trait::async_trait]
impl SpendLedger for MemoryLedger {
    async fn take(
        &self,
        now_month: &str,
        settings: BudgetSettings,
    ) -> Result<Result<MonthSpend, MonthSpend>, LedgerError> {
        Ok(self.with(now_month, |spend| {
            if spend.calls_left(&settings) == 0 {
                return Err(spend.clone());
            }
            *spend = spend.clone().after_call();
            Ok(spend.clone())
        }))
    }

    async fn report(&self, now_month: &str, reported: u64) -> Result<MonthSpend, LedgerError> {
        Ok(self.with(now_month, |spend| {
            *spend = spend.clone().after_report(reported);
            spend.clone()
        }))
    }

    async fn read(&self, now_month: &str) -> Result<MonthSpend, LedgerError> {
        Ok(self.with(now_month, |spend| spend.clone()))
    }
}

/// A count in a SQLite file that every process of the machine using the key shares.
#[derive(Debug)]
pub struct SqliteLedger {
    conn: Arc<Mutex<Connection>>,
    key_id: String,
    path: PathBuf,
}

const LEDGER_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS spend (
    key_id TEXT NOT NULL,
    month TEXT NOT NULL,
    counted INTEGER NOT NULL DEFAULT 0,
    reported INTEGER,
    counted_at_report INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, month)
) STRICT;
";

impl SqliteLedger {
    /// Opens (or creates) the ledger at `path` for the key whose digest starts `key_id`.
    pub fn open(path: &Path, key_id: &str) -> Result<Self, LedgerError> {
        let conn = Connection::open(path)
            .map_err(|err| LedgerError(format!("opening {}: {err}", path.display())))?;
        // Another process may hold the write lock for one short transaction.
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // NORMAL in WAL: a committed count survives the process being killed; a power cut may
        // lose the last few counts, which KicksDB's own count (its header) then makes up.
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(LEDGER_SCHEMA)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            key_id: key_id.to_owned(),
            path: path.to_owned(),
        })
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on this month's row in one immediate transaction, on the blocking pool; `f`
    /// answers the row to write (if any) and the result.
    async fn in_month<T: Send + 'static>(
        &self,
        now_month: &str,
        f: impl FnOnce(MonthSpend) -> (Option<MonthSpend>, T) + Send + 'static,
    ) -> Result<T, LedgerError> {
        let conn = Arc::clone(&self.conn);
        let key_id = self.key_id.clone();
        let now_month = now_month.to_owned();
        tokio::task::spawn_blocking(move || {
            let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let newest: Option<String> = tx.query_row(
                "SELECT max(month) FROM spend WHERE key_id = ?1",
                [&key_id],
                |row| row.get(0),
            )?;
            let month = newer(&now_month, newest);
            let spend = tx
                .query_row(
                    "SELECT counted, reported, counted_at_report FROM spend
                     WHERE key_id = ?1 AND month = ?2",
                    rusqlite::params![key_id, month],
                    |row| {
                        Ok(MonthSpend {
                            month: month.clone(),
                            counted: row.get::<_, i64>(0)?.max(0).cast_unsigned(),
                            reported: row
                                .get::<_, Option<i64>>(1)?
                                .map(|r| r.max(0).cast_unsigned()),
                            counted_at_report: row.get::<_, i64>(2)?.max(0).cast_unsigned(),
                        })
                    },
                )
                .optional()?
                .unwrap_or_else(|| MonthSpend::empty(&month));
            let (write, out) = f(spend);
            if let Some(row) = write {
                let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
                tx.execute(
                    "INSERT INTO spend (key_id, month, counted, reported, counted_at_report)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (key_id, month) DO UPDATE SET
                        counted = excluded.counted, reported = excluded.reported,
                        counted_at_report = excluded.counted_at_report",
                    rusqlite::params![
                        key_id,
                        row.month,
                        as_i64(row.counted),
                        row.reported.map(as_i64),
                        as_i64(row.counted_at_report)
                    ],
                )?;
            }
            tx.commit()?;
            Ok(out)
        })
        .await
        .map_err(|err| LedgerError(format!("the count of KicksDB calls: {err}")))?
    }
}

#[async_trait::async_trait]
impl SpendLedger for SqliteLedger {
    async fn take(
        &self,
        now_month: &str,
        settings: BudgetSettings,
    ) -> Result<Result<MonthSpend, MonthSpend>, LedgerError> {
        self.in_month(now_month, move |spend| {
            if spend.calls_left(&settings) == 0 {
                (None, Err(spend))
            } else {
                let after = spend.after_call();
                (Some(after.clone()), Ok(after))
            }
        })
        .await
    }

    async fn report(&self, now_month: &str, reported: u64) -> Result<MonthSpend, LedgerError> {
        self.in_month(now_month, move |spend| {
            let after = spend.after_report(reported);
            (Some(after.clone()), after)
        })
        .await
    }

    async fn read(&self, now_month: &str) -> Result<MonthSpend, LedgerError> {
        self.in_month(now_month, |spend| (None, spend)).await
    }
}

/// A count in the Redis of `serve --redis`, shared by every replica using the key.
#[derive(Debug)]
pub struct SharedLedger {
    store: Arc<dyn SharedStore>,
    name: String,
}

impl SharedLedger {
    /// The count named `name` (derived from the key's digest) in `store`.
    #[must_use]
    pub fn new(store: Arc<dyn SharedStore>, name: String) -> Self {
        Self { store, name }
    }
}

#[async_trait::async_trait]
impl SpendLedger for SharedLedger {
    async fn take(
        &self,
        now_month: &str,
        settings: BudgetSettings,
    ) -> Result<Result<MonthSpend, MonthSpend>, LedgerError> {
        Ok(self
            .store
            .take_monthly(&self.name, now_month, settings)
            .await?)
    }

    async fn report(&self, now_month: &str, reported: u64) -> Result<MonthSpend, LedgerError> {
        Ok(self
            .store
            .report_monthly(&self.name, now_month, reported)
            .await?)
    }

    async fn read(&self, now_month: &str) -> Result<MonthSpend, LedgerError> {
        Ok(self.store.read_monthly(&self.name, now_month).await?)
    }

    fn is_shared(&self) -> bool {
        true
    }
}

/// How the budget is kept: its settings, where the count lives, and the clock.
#[derive(Debug, Clone)]
pub struct BudgetConfig {
    /// The quota and share, shared with whoever edits them.
    pub settings: BudgetSettingsCell,
    /// The ledger file; `None`: beside the mirror, named `<mirror>.spend`. Unused with Redis.
    pub ledger_path: Option<PathBuf>,
    /// Keep the count in this process only (tests), not in a file.
    pub in_memory: bool,
    /// Where the time comes from.
    pub clock: Arc<dyn Clock>,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        Self {
            settings: BudgetSettingsCell::default(),
            ledger_path: None,
            in_memory: false,
            clock: Arc::new(SystemClock),
        }
    }
}

/// The ledger file beside `mirror`.
#[must_use]
pub fn ledger_path_beside(mirror: &Path) -> PathBuf {
    let mut name = mirror.file_name().unwrap_or_default().to_os_string();
    name.push(".spend");
    mirror.with_file_name(name)
}

/// What a person should know about the count, kept until something newer is known.
#[derive(Debug, Default)]
struct Notes {
    /// The last `X-Quota-Current`, to tell one that went down.
    last_report: Option<(String, u64)>,
    note: Option<String>,
}

/// The monthly budget of one KicksDB key.
#[derive(Debug)]
pub struct MonthlyBudget {
    settings: BudgetSettingsCell,
    ledger: Arc<dyn SpendLedger>,
    clock: Arc<dyn Clock>,
    notes: Mutex<Notes>,
}

const NAME: &str = "KicksDB";

impl MonthlyBudget {
    /// The budget of the key with digest `key_digest`: counted in Redis when `shared` is given,
    /// else in the ledger file of `config` (or beside `mirror`), or in memory.
    pub fn open(
        config: &BudgetConfig,
        mirror: &Path,
        shared: Option<Arc<dyn SharedStore>>,
        key_digest: &str,
    ) -> Result<Self, LedgerError> {
        let key_id = &key_digest[..16.min(key_digest.len())];
        let ledger: Arc<dyn SpendLedger> = match shared {
            Some(store) => Arc::new(SharedLedger::new(store, format!("kicksdb:month:{key_id}"))),
            None if config.in_memory => Arc::new(MemoryLedger::default()),
            None => {
                let path = config
                    .ledger_path
                    .clone()
                    .unwrap_or_else(|| ledger_path_beside(mirror));
                Arc::new(SqliteLedger::open(&path, key_id)?)
            }
        };
        Ok(Self::with_ledger(
            config.settings.clone(),
            ledger,
            Arc::clone(&config.clock),
        ))
    }

    /// A budget over `ledger`.
    #[must_use]
    pub fn with_ledger(
        settings: BudgetSettingsCell,
        ledger: Arc<dyn SpendLedger>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            settings,
            ledger,
            clock,
            notes: Mutex::new(Notes::default()),
        }
    }

    fn now_month(&self) -> Month {
        Month::of(self.clock.now())
    }

    fn note(&self, note: Option<String>) {
        if let Some(text) = &note {
            tracing::warn!("KicksDB budget: {text}");
        }
        self.notes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .note = note;
    }

    /// Takes one call of this month's budget, or refuses: a 429 saying what is spent and when
    /// the month ends. A count that cannot be kept refuses too: no call is sent uncounted.
    pub async fn take(&self) -> Result<(), FetchError> {
        let settings = self.settings.get();
        let month = self.now_month();
        let taken = self
            .ledger
            .take(&month.key, settings)
            .await
            .map_err(|err| {
                FetchError::new(
                    &Arc::from(NAME),
                    FetchKind::Unavailable,
                    format!("{err}; no call is sent that cannot be counted"),
                )
            })?;
        match taken {
            Ok(_) => Ok(()),
            Err(spend) => Err(self.spent_error(&settings, &spend)),
        }
    }

    fn spent_error(&self, settings: &BudgetSettings, spend: &MonthSpend) -> FetchError {
        let now = self.clock.now();
        let month = Month::from_key(&spend.month).unwrap_or_else(|| Month::of(now));
        let secs = month.secs_left(now).max(1);
        let ends = month.end.format("%Y-%m-%d %H:%M UTC");
        let message = match spend.key_spent() {
            Some(key) if settings.monthly_quota.is_some_and(|quota| key >= quota) => format!(
                "this month's KicksDB quota is used up ({key} of {} requests by KicksDB's count); no call is sent until the month ends ({ends})",
                settings.quota()
            ),
            _ => format!(
                "Solescope's monthly KicksDB budget is spent ({} of {} calls, {} % of the plan's {}); no call is sent until the month ends ({ends}) or the budget is raised in Settings",
                spend.counted,
                settings.allowance(),
                settings.share_percent,
                match settings.monthly_quota {
                    Some(quota) => quota.to_string(),
                    None => format!(
                        "{}, assumed until the plan's quota is set",
                        settings.quota()
                    ),
                }
            ),
        };
        let mut err = FetchError::new(&Arc::from(NAME), FetchKind::RateLimited, message);
        err.retry_after = Some(Duration::from_secs(secs));
        err
    }

    /// Notes an answer's `X-Quota-Current` (`None`: the answer had none, or not a number).
    pub async fn report(&self, quota_header: Option<&str>) {
        let month = self.now_month();
        let Some(reported) = quota_header.and_then(|text| text.trim().parse::<u64>().ok()) else {
            let text = quota_header.map_or_else(
                || "KicksDB's answer carried no X-Quota-Current: this month's count is Solescope's own".to_owned(),
                |text| format!("KicksDB's X-Quota-Current was not a count ({:?}): this month's count is Solescope's own", text.chars().take(40).collect::<String>()),
            );
            let already = self
                .notes
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .note
                .as_deref()
                == Some(text.as_str());
            if !already {
                self.note(Some(text));
            }
            return;
        };
        let went_down = {
            let mut notes = self.notes.lock().unwrap_or_else(PoisonError::into_inner);
            let last = notes.last_report.replace((month.key.clone(), reported));
            last.filter(|(m, last)| *m == month.key && reported < *last)
        };
        match self.ledger.report(&month.key, reported).await {
            Ok(spend) => {
                if let Some((_, last)) = went_down {
                    self.note(Some(format!(
                        "KicksDB's count of this month's requests went down from {last} to {reported} (its month may begin at another hour than ours); Solescope's own count ({}) still holds it to its share",
                        spend.counted
                    )));
                } else if spend.month != month.key {
                    self.note(Some(format!(
                        "the clock reads {}, before the month already counted ({}): the count goes on in {}",
                        month.key, spend.month, spend.month
                    )));
                } else {
                    self.note(None);
                }
            }
            Err(err) => self.note(Some(format!("{err}"))),
        }
    }

    /// The budget as the window shows it.
    pub async fn status(&self) -> Result<BudgetStatus, LedgerError> {
        let settings = self.settings.get();
        let now = self.clock.now();
        let spend = self.ledger.read(&Month::of(now).key).await?;
        let month = Month::from_key(&spend.month).unwrap_or_else(|| Month::of(now));
        let note = self
            .notes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .note
            .clone();
        Ok(BudgetStatus {
            source: "kicksdb".to_owned(),
            settings,
            allowance: settings.allowance(),
            spent: spend.spent(),
            calls_left: spend.calls_left(&settings),
            month_ends_at: month.end.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            secs_left: month.secs_left(now),
            spend,
            shared: self.ledger.is_shared(),
            note,
        })
    }
}

impl super::Kicksdb {
    /// This month's budget of the key: settings, counts, what is left, and anything odd about
    /// the count.
    pub async fn budget_status(&self) -> Result<BudgetStatus, LedgerError> {
        self.budget.status().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::budget::ManualClock;

    fn at(text: &str) -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&chrono::Utc)
    }

    fn budget_over(ledger: Arc<dyn SpendLedger>, clock: &ManualClock, quota: u64) -> MonthlyBudget {
        MonthlyBudget::with_ledger(
            BudgetSettingsCell::new(BudgetSettings {
                monthly_quota: Some(quota),
                share_percent: 100,
            }),
            ledger,
            Arc::new(clock.clone()),
        )
    }

    /// The budget's note now; a test that calls it expects one.
    async fn note_of(budget: &MonthlyBudget) -> String {
        budget.status().await.unwrap().note.unwrap()
    }

    #[tokio::test]
    async fn no_call_past_the_budget_and_a_new_month_starts_afresh() {
        let clock = ManualClock::new(at("2026-11-30T23:00:00Z"));
        let budget = budget_over(Arc::new(MemoryLedger::default()), &clock, 3);
        for _ in 0..3 {
            budget.take().await.unwrap();
        }
        let refused = budget.take().await.unwrap_err();
        assert_eq!(refused.kind, FetchKind::RateLimited);
        assert_eq!(refused.retry_after, Some(Duration::from_secs(3_600)));
        assert!(refused.message.contains("3 of 3 calls"), "{refused}");
        // Set back into the same month or an earlier one: still spent.
        clock.set(at("2026-10-15T00:00:00Z"));
        assert!(budget.take().await.is_err());
        assert_eq!(budget.status().await.unwrap().spend.month, "2026-11");
        // December: a new count.
        clock.set(at("2026-12-01T00:00:01Z"));
        budget.take().await.unwrap();
        assert_eq!(budget.status().await.unwrap().spend.counted, 1);
    }

    #[tokio::test]
    async fn the_quota_header_is_followed_down_and_missing_but_the_share_holds() {
        let clock = ManualClock::new(at("2026-11-10T00:00:00Z"));
        let budget = budget_over(Arc::new(MemoryLedger::default()), &clock, 100);
        budget.take().await.unwrap();
        budget.report(Some("98")).await;
        budget.take().await.unwrap();
        // KicksDB's count is at 99 of 100 by our arithmetic: one more, then refused.
        budget.take().await.unwrap();
        assert!(budget.take().await.is_err());
        budget.report(Some("5")).await;
        let status = budget.status().await.unwrap();
        assert!(
            status
                .note
                .as_deref()
                .unwrap()
                .contains("went down from 98 to 5"),
            "{status:?}"
        );
        assert_eq!(status.calls_left, 100 - 5);
        budget.report(None).await;
        assert!(note_of(&budget).await.contains("no X-Quota-Current"));
        budget.report(Some("garbage")).await;
        assert!(note_of(&budget).await.contains("not a count"));
    }

    #[tokio::test]
    async fn two_ledgers_on_one_file_share_the_count() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.spend");
        let clock = ManualClock::new(at("2026-11-10T00:00:00Z"));
        let first = budget_over(
            Arc::new(SqliteLedger::open(&path, "abc").unwrap()),
            &clock,
            5,
        );
        let second = budget_over(
            Arc::new(SqliteLedger::open(&path, "abc").unwrap()),
            &clock,
            5,
        );
        let other_key = budget_over(
            Arc::new(SqliteLedger::open(&path, "def").unwrap()),
            &clock,
            5,
        );
        let mut taken = 0;
        for _ in 0..5 {
            taken += usize::from(first.take().await.is_ok());
            taken += usize::from(second.take().await.is_ok());
        }
        assert_eq!(taken, 5);
        other_key.take().await.unwrap();
        second.report(Some("4")).await;
        let status = first.status().await.unwrap();
        assert_eq!((status.spend.counted, status.spend.reported), (5, Some(4)));
    }
}
