//! Coming releases from KicksDB, read at most once a day each and kept in the mirror:
//!
//! - **StockX's coming products**: `GET /v3/stockx/products?sort=release_date&filters=upcoming
//!   = true` (the research notes mark the filter unverified: refused, the list is read by
//!   release date alone and what is `upcoming` or dated ahead is kept), up to
//!   [`STOCKX_PAGES`] pages of [`PAGE_LIMIT`], with their traits (release date, retail) where
//!   the plan gives them. They are written into the mirror as products, so the calendar finds
//!   them with the mirror's other release dates, and search and the product page find them too.
//! - **SNKRS launches**: `GET /v3/snkrs/products?sort=id:desc` (paid), one call, mapped to
//!   launches (`map::launch_from_snkrs`) and kept in the mirror's `meta` table as JSON with the
//!   time they were read.
//!
//! Each read's time (and the time before which it is not tried again) is kept in the mirror's
//! `meta` table, so a restart, the window and `solescope monitor` (each with its own service
//! over the same mirror) never read more than once a day between them. Every call is taken from
//! the monthly budget before it is sent, as every KicksDB call is. A read that failed is tried
//! again after an hour, or after a day when KicksDB refused the key or the plan (a refusal that
//! would spend a call every hour).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::OptionalExtension as _;

use super::map::launch_from_snkrs;
use super::wire::{Envelope, SnkrsProduct, StockxProduct};
use super::{CallClass, Kicksdb};
use crate::model::releases::CalendarSource;
use crate::service::source::{ComingFromUpstream, Launch};
use crate::upstream::{FetchError, FetchKind};

/// Pages of StockX's coming products read a day at most.
pub const STOCKX_PAGES: u32 = 3;
/// Products a page.
pub const PAGE_LIMIT: u32 = 100;
/// Least time between two reads of one kind that landed.
pub const READ_EVERY: Duration = Duration::from_secs(24 * 3600);
/// Wait after a failed read (KicksDB unreachable, failing, out of budget).
pub const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(3600);
/// A launch is kept this long after it opened (the calendar shows the current week).
const LAUNCH_KEPT: chrono::Duration = chrono::Duration::days(8);

/// The two reads, by their keys in the mirror's `meta` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    Stockx,
    Snkrs,
}

impl Read {
    fn key(self, what: &str) -> String {
        let kind = match self {
            Read::Stockx => "stockx",
            Read::Snkrs => "snkrs",
        };
        format!("coming.{kind}.{what}")
    }
}

/// What one read came to: its note for a person, and whether it landed.
struct Outcome {
    note: Option<String>,
    landed: bool,
    /// Wait before the next try.
    next_in: Duration,
}

/// The in-process side of the reads: one at a time, and a count of the reads that landed.
#[derive(Debug, Default)]
pub(super) struct ComingState {
    running: tokio::sync::Mutex<()>,
    generation: std::sync::atomic::AtomicU64,
}

fn text(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn parse(at: Option<&String>) -> Option<DateTime<Utc>> {
    at.and_then(|at| DateTime::parse_from_rfc3339(at).ok())
        .map(|at| at.with_timezone(&Utc))
}

/// How long to wait after a failure of this kind.
fn wait_after(err: &FetchError) -> Duration {
    match err.kind {
        FetchKind::Unauthorized | FetchKind::Forbidden => READ_EVERY,
        _ => RETRY_AFTER_FAILURE,
    }
}

impl Kicksdb {
    /// The `meta` values with these keys, as the mirror holds them.
    async fn coming_meta(
        &self,
        keys: Vec<String>,
    ) -> Result<Vec<Option<String>>, crate::service::error::ApiError> {
        self.mirror
            .read(move |conn| {
                keys.iter()
                    .map(|key| {
                        conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
                            row.get::<_, String>(0)
                        })
                        .optional()
                        .map_err(|err| crate::catalogue::CatalogueError::from(err).into())
                    })
                    .collect()
            })
            .await
    }

    /// Writes `meta` entries in one transaction.
    async fn set_coming_meta(&self, entries: Vec<(String, String)>) -> Result<(), FetchError> {
        self.mirror
            .write(move |conn| {
                let tx = conn.transaction()?;
                {
                    let pairs: Vec<(&str, &str)> = entries
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.as_str()))
                        .collect();
                    crate::catalogue::write_meta(&tx, &pairs)?;
                }
                tx.commit()?;
                Ok(())
            })
            .await
    }

    /// Reads what is due (each kind at most once a day), one round at a time: a second caller
    /// while a round runs waits for it instead of sending again.
    pub(super) async fn refresh_coming(self: &Arc<Self>) {
        let _round = self.coming.running.lock().await;
        for read in [Read::Stockx, Read::Snkrs] {
            let now = self.clock.now();
            let due = match self.coming_meta(vec![read.key("next_at")]).await {
                Ok(values) => {
                    parse(values.first().and_then(Option::as_ref)).is_none_or(|at| now >= at)
                }
                Err(err) => {
                    tracing::warn!("KicksDB coming releases: the mirror cannot be read: {err}");
                    return;
                }
            };
            if !due {
                continue;
            }
            let outcome = match read {
                Read::Stockx => self.read_coming_stockx().await,
                Read::Snkrs => self.read_snkrs().await,
            };
            let mut entries = vec![
                (read.key("tried_at"), text(now)),
                (
                    read.key("next_at"),
                    text(now + chrono::Duration::from_std(outcome.next_in).unwrap_or_default()),
                ),
                (read.key("note"), outcome.note.clone().unwrap_or_default()),
            ];
            if outcome.landed {
                entries.push((read.key("read_at"), text(now)));
            }
            if let Err(err) = self.set_coming_meta(entries).await {
                tracing::warn!("KicksDB coming releases: {err}");
            }
            if outcome.landed {
                self.coming.generation.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// One list of coming products (`path` with `query`), reused for `Ttl::search` as the
    /// catalogue's lists are; a `null` list is an empty one.
    async fn coming_list<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Vec<T>, FetchError> {
        let answer: Envelope<Vec<T>> = self
            .call_json(path, query, CallClass::Catalogue, self.ttl.search)
            .await?;
        Ok(answer.data.unwrap_or_default())
    }

    /// StockX's coming products, written into the mirror.
    async fn read_coming_stockx(self: &Arc<Self>) -> Outcome {
        let today = self.clock.now().date_naive();
        let mut kept = 0_usize;
        let mut undated = 0_usize;
        let mut filtered = true;
        let mut page = 1;
        while page <= STOCKX_PAGES {
            let mut query = vec![
                ("sort", "release_date".to_owned()),
                ("page", page.to_string()),
                ("limit", PAGE_LIMIT.to_string()),
                ("market", "US".to_owned()),
                ("display[variants]", "true".to_owned()),
            ];
            if filtered {
                query.push(("filters", "upcoming = true".to_owned()));
            }
            if self
                .paid_displays
                .load(std::sync::atomic::Ordering::Relaxed)
            {
                query.push(("display[traits]", "true".to_owned()));
            }
            let answer = self
                .coming_list::<StockxProduct>("v3/stockx/products", &query)
                .await;
            let products = match answer {
                Ok(products) => products,
                Err(err) if filtered && err.kind == FetchKind::Rejected => {
                    // The filter the notes could not verify was refused: by date alone.
                    tracing::info!("KicksDB refused `upcoming = true` ({err}); reading by date");
                    filtered = false;
                    continue;
                }
                Err(err)
                    if err.kind == FetchKind::Forbidden
                        && self.paid_displays.swap(false, Ordering::Relaxed) =>
                {
                    tracing::info!("KicksDB plan without traits: {err}");
                    continue;
                }
                Err(err) if page > 1 => {
                    // What the first pages gave is kept; the rest waits for the next read.
                    return Outcome {
                        note: Some(format!(
                            "{kept} coming StockX products read; page {page} failed: {err}"
                        )),
                        landed: true,
                        next_in: READ_EVERY,
                    };
                }
                Err(err) => {
                    return Outcome {
                        next_in: wait_after(&err),
                        note: Some(format!("coming StockX products not read: {err}")),
                        landed: false,
                    };
                }
            };
            let full = products.len() >= PAGE_LIMIT as usize;
            let coming: Vec<StockxProduct> = products
                .into_iter()
                .filter(|product| {
                    let row = super::map::mirror_product_from_stockx(product);
                    let ahead = chrono::NaiveDate::parse_from_str(&row.release_date, "%Y-%m-%d")
                        .is_ok_and(|day| day >= today);
                    product.upcoming == Some(true) || ahead
                })
                .collect();
            undated += coming
                .iter()
                .filter(|p| {
                    super::map::mirror_product_from_stockx(p)
                        .release_date
                        .is_empty()
                })
                .count();
            kept += coming.len();
            if let Err(err) = self
                .mirror_products(coming, crate::model::Country::Us, |_, _| Ok(()))
                .await
            {
                return Outcome {
                    note: Some(format!("coming StockX products not kept: {err}")),
                    landed: false,
                    next_in: RETRY_AFTER_FAILURE,
                };
            }
            if !full {
                break;
            }
            page += 1;
        }
        let note = (undated > 0).then(|| {
            format!(
                "{undated} of {kept} coming StockX products have no release date (KicksDB gives \
                 it among the traits of paid plans): they are not in the calendar"
            )
        });
        Outcome {
            note,
            landed: true,
            next_in: READ_EVERY,
        }
    }

    /// SNKRS's launches, kept in the mirror's `meta` table.
    async fn read_snkrs(self: &Arc<Self>) -> Outcome {
        let query = [("sort", "id:desc".to_owned())];
        let answer = self
            .coming_list::<SnkrsProduct>("v3/snkrs/products", &query)
            .await;
        let products = match answer {
            Ok(products) => products,
            Err(err) => {
                let note = if err.kind == FetchKind::Forbidden {
                    format!("SNKRS launches need a paid KicksDB plan: {err}")
                } else {
                    format!("SNKRS launches not read: {err}")
                };
                return Outcome {
                    next_in: wait_after(&err),
                    note: Some(note),
                    landed: false,
                };
            }
        };
        let now = self.clock.now();
        let read_at = text(now);
        let launches: Vec<Launch> = products
            .iter()
            .filter_map(|product| launch_from_snkrs(product, &read_at))
            .filter(|launch| {
                parse(Some(&launch.mechanics.starts_at)).is_some_and(|at| at + LAUNCH_KEPT >= now)
            })
            .collect();
        let json = match serde_json::to_string(&launches) {
            Ok(json) => json,
            Err(err) => {
                return Outcome {
                    note: Some(format!("SNKRS launches not kept: {err}")),
                    landed: false,
                    next_in: RETRY_AFTER_FAILURE,
                };
            }
        };
        if let Err(err) = self
            .set_coming_meta(vec![(Read::Snkrs.key("launches"), json)])
            .await
        {
            return Outcome {
                note: Some(format!("SNKRS launches not kept: {err}")),
                landed: false,
                next_in: RETRY_AFTER_FAILURE,
            };
        }
        Outcome {
            note: None,
            landed: true,
            next_in: READ_EVERY,
        }
    }

    /// What is known of coming releases: reads what is due first (waiting at most `wait` for
    /// it; past that the read goes on and its answer is used next time), then the launches and
    /// the reads' states as the mirror holds them.
    pub(super) async fn coming(self: &Arc<Self>, wait: Duration) -> ComingFromUpstream {
        let this = Arc::clone(self);
        let round = tokio::spawn(async move { this.refresh_coming().await });
        if tokio::time::timeout(wait, round).await.is_err() {
            tracing::info!("KicksDB coming releases: still reading; answering with what is held");
        }
        let keys = vec![
            Read::Stockx.key("read_at"),
            Read::Stockx.key("note"),
            Read::Snkrs.key("read_at"),
            Read::Snkrs.key("note"),
            Read::Snkrs.key("launches"),
        ];
        let values = match self.coming_meta(keys).await {
            Ok(values) => values,
            Err(err) => {
                tracing::warn!("KicksDB coming releases: the mirror cannot be read: {err}");
                vec![None; 5]
            }
        };
        let value = |at: usize| values.get(at).cloned().flatten().filter(|v| !v.is_empty());
        let now = self.clock.now();
        let launches: Vec<Launch> = value(4)
            .and_then(|json| serde_json::from_str::<Vec<Launch>>(&json).ok())
            .unwrap_or_default()
            .into_iter()
            .filter(|launch| {
                parse(Some(&launch.mechanics.starts_at)).is_some_and(|at| at + LAUNCH_KEPT >= now)
            })
            .collect();
        let sources = vec![
            CalendarSource {
                kind: "catalogue".to_owned(),
                name: crate::service::origin::names::KICKSDB.to_owned(),
                releases: 0,
                read_at: value(0),
                note: value(1),
            },
            CalendarSource {
                kind: "snkrs".to_owned(),
                name: "snkrs".to_owned(),
                releases: launches.len() as u64,
                read_at: value(2),
                note: value(3),
            },
        ];
        ComingFromUpstream {
            launches,
            sources,
            generation: self.coming.generation.load(Ordering::Relaxed),
        }
    }
}
