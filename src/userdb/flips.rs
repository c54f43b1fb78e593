//! The flips' own data (`flips.sql`): the user's flip settings ([`FlipPrefs`]), and the memory
//! of the flip alerts.
//!
//! **The alerts' rules**, applied to each reading of the flip list above the user's thresholds
//! ([`UserDb::record_flip_reading`], one `BEGIN IMMEDIATE` transaction, so the window's monitor
//! and `solescope monitor` never both notify):
//! - a flip (a size at a store) seen for the first time notifies;
//! - it notifies again only after it has gone from a complete reading (sold out, or below the
//!   thresholds) and come back, or when its profit rose by the set share since it notified;
//! - never twice for the same size at the same store and the same prices (buy and sell): a
//!   notification is recorded under that key before it is shown, and a key already recorded is
//!   not shown again, whatever the rules above say.
//!
//! The reading right after the alerts are turned on is a **baseline**: the flips listed then are
//! in the tab already and are taken as known, not notified (turning alerts on must not flood the
//! desktop); each flip after it notifies as above.

use std::collections::HashSet;

use rusqlite::{OptionalExtension as _, TransactionBehavior, params};

use super::{UserDb, UserDbError};
use crate::model::flip_prefs::{FlipNotice, FlipPrefs, FlipSighting, NoticeReason};
use crate::model::flips::{FeeSchedule, StoreCosts};

/// The `meta` key saying the next reading is the alerts' baseline.
const BASELINE_KEY: &str = "flip_alerts_baseline";
/// A flip gone this long is forgotten (its notifications are kept: still never twice).
const FORGET_AFTER_SECS: i64 = 30 * 86_400;

/// What one reading of the flip list did to the alerts' memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlipReading {
    /// The flips to notify, most profit first; each recorded before it is returned.
    pub notices: Vec<FlipNotice>,
    /// The reading was the baseline after alerts were turned on: nothing notified.
    pub baseline: bool,
    /// Flips marked gone (only a complete reading marks any).
    pub gone: usize,
}

/// What the alerts remember of one flip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watched {
    /// Gone from a complete reading since it last notified.
    pub gone_since_notice: bool,
    /// Its profit when it last notified.
    pub notified_profit_cents: Option<i64>,
}

/// Why `profit_cents` notifies, given what is remembered of the flip (`None`: never seen) and
/// the share its profit must rise by: the rules of the module's docs, before the key check.
#[must_use]
pub fn notice_reason(
    watched: Option<Watched>,
    profit_cents: i64,
    rise_percent: u32,
) -> Option<NoticeReason> {
    let Some(watched) = watched else {
        return Some(NoticeReason::New);
    };
    let Some(notified) = watched.notified_profit_cents else {
        return Some(NoticeReason::New);
    };
    if watched.gone_since_notice {
        return Some(NoticeReason::Back);
    }
    let rise = i128::from(profit_cents) - i128::from(notified);
    (rise > 0 && rise * 100 >= i128::from(notified).abs() * i128::from(rise_percent))
        .then_some(NoticeReason::Rose)
}

impl UserDb {
    /// The user's flip settings (the defaults when never saved).
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails.
    pub fn flip_prefs(&self) -> Result<FlipPrefs, UserDbError> {
        let read = || -> rusqlite::Result<FlipPrefs> {
            let mut prefs = self
                .conn
                .query_row(
                    "SELECT seller_level, fee_commission_percent, fee_processing_percent,
                         fee_fixed_cents, min_profit_cents, min_roi, shipping_cents, tax_percent,
                         alerts, rise_percent FROM flip_settings WHERE id = 1",
                    [],
                    |row| {
                        let fees = match (row.get(1)?, row.get(2)?, row.get(3)?) {
                            (Some(commission), Some(processing), Some(fixed)) => {
                                Some(FeeSchedule {
                                    commission_percent: commission,
                                    processing_percent: processing,
                                    fixed_fee_cents: fixed,
                                })
                            }
                            _ => None,
                        };
                        Ok(FlipPrefs {
                            seller_level: row.get(0)?,
                            own_fees: fees,
                            min_profit_cents: row.get(4)?,
                            min_roi: row.get(5)?,
                            shipping_cents: row.get(6)?,
                            tax_percent: row.get(7)?,
                            stores: Vec::new(),
                            alerts: row.get(8)?,
                            rise_percent: row.get(9)?,
                        })
                    },
                )
                .optional()?
                .unwrap_or_default();
            let mut statement = self.conn.prepare_cached(
                "SELECT store, shipping_cents, tax_percent FROM flip_store_costs ORDER BY store",
            )?;
            prefs.stores = statement
                .query_map([], |row| {
                    Ok(StoreCosts {
                        store: row.get(0)?,
                        shipping_cents: row.get(1)?,
                        sales_tax_percent: row.get(2)?,
                    })
                })?
                .collect::<rusqlite::Result<_>>()?;
            Ok(prefs.checked())
        };
        read().map_err(|e| self.error(e))
    }

    /// Saves the flip settings (held to their bounds) in one transaction. Turning the alerts on
    /// makes the next reading the baseline.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the write fails (nothing is written).
    pub fn set_flip_prefs(&mut self, prefs: &FlipPrefs) -> Result<(), UserDbError> {
        let prefs = prefs.clone().checked();
        let write = |db: &mut UserDb| -> rusqlite::Result<()> {
            let tx = db
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            let alerts_were: bool = tx
                .query_row("SELECT alerts FROM flip_settings WHERE id = 1", [], |row| {
                    row.get(0)
                })
                .optional()?
                .unwrap_or(false);
            let fees = prefs.own_fees;
            tx.execute(
                "INSERT INTO flip_settings (id, seller_level, fee_commission_percent,
                     fee_processing_percent, fee_fixed_cents, min_profit_cents, min_roi,
                     shipping_cents, tax_percent, alerts, rise_percent)
                 VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                 ON CONFLICT (id) DO UPDATE SET seller_level = excluded.seller_level,
                     fee_commission_percent = excluded.fee_commission_percent,
                     fee_processing_percent = excluded.fee_processing_percent,
                     fee_fixed_cents = excluded.fee_fixed_cents,
                     min_profit_cents = excluded.min_profit_cents, min_roi = excluded.min_roi,
                     shipping_cents = excluded.shipping_cents, tax_percent = excluded.tax_percent,
                     alerts = excluded.alerts, rise_percent = excluded.rise_percent",
                params![
                    prefs.seller_level,
                    fees.map(|f| f.commission_percent),
                    fees.map(|f| f.processing_percent),
                    fees.map(|f| f.fixed_fee_cents),
                    prefs.min_profit_cents,
                    prefs.min_roi,
                    prefs.shipping_cents,
                    prefs.tax_percent,
                    prefs.alerts,
                    prefs.rise_percent,
                ],
            )?;
            tx.execute("DELETE FROM flip_store_costs", [])?;
            for costs in &prefs.stores {
                tx.execute(
                    "INSERT OR REPLACE INTO flip_store_costs (store, shipping_cents, tax_percent)
                     VALUES (?1, ?2, ?3)",
                    params![costs.store, costs.shipping_cents, costs.sales_tax_percent],
                )?;
            }
            if prefs.alerts && !alerts_were {
                // What was seen before the alerts were off is stale: start again from a
                // baseline. The notifications sent stay recorded (never twice).
                tx.execute("DELETE FROM flip_watch", [])?;
                tx.execute(
                    "INSERT INTO meta (key, value) VALUES (?1, 'pending')
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [BASELINE_KEY],
                )?;
            }
            tx.commit()
        };
        write(self).map_err(|e| self.error(e))
    }

    /// Records one reading of the flip list above the user's thresholds (`sightings`, most
    /// profit first), at `now` (Unix seconds), and takes the notifications it calls for (module
    /// docs). `complete`: every row of the list was read, so a flip missing from it is gone;
    /// an incomplete reading (a page failed, the list still building) marks nothing gone.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the database cannot be read or written (nothing is
    /// recorded and nothing should be shown: the next reading tries again).
    pub fn record_flip_reading(
        &mut self,
        sightings: &[FlipSighting],
        complete: bool,
        now: i64,
    ) -> Result<FlipReading, UserDbError> {
        let write = |db: &mut UserDb| -> rusqlite::Result<FlipReading> {
            let tx = db
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            let rise_percent: u32 = tx
                .query_row(
                    "SELECT rise_percent FROM flip_settings WHERE id = 1",
                    [],
                    |row| row.get(0),
                )
                .optional()?
                .unwrap_or(crate::model::flip_prefs::DEFAULT_RISE_PERCENT);
            let baseline = tx
                .query_row(
                    "SELECT value FROM meta WHERE key = ?1",
                    [BASELINE_KEY],
                    |row| row.get::<_, String>(0),
                )
                .optional()?
                .is_some_and(|value| value == "pending");
            let mut reading = FlipReading {
                baseline,
                ..FlipReading::default()
            };
            let mut seen: HashSet<(&str, &str, &str)> = HashSet::new();
            for sighting in sightings {
                let id = (
                    sighting.store.as_str(),
                    sighting.style_code.as_str(),
                    sighting.size.as_str(),
                );
                // The list ranks by profit: a second row of one size at one store (another
                // marketplace's) is not another flip.
                if !seen.insert(id) {
                    continue;
                }
                let watched: Option<Watched> = tx
                    .query_row(
                        "SELECT gone_since_notice, notified_profit_cents FROM flip_watch
                         WHERE store = ?1 AND style_code = ?2 AND size = ?3",
                        params![id.0, id.1, id.2],
                        |row| {
                            Ok(Watched {
                                gone_since_notice: row.get(0)?,
                                notified_profit_cents: row.get(1)?,
                            })
                        },
                    )
                    .optional()?;
                let mut gone = watched.is_some_and(|w| w.gone_since_notice);
                let mut notified = watched.and_then(|w| w.notified_profit_cents);
                if baseline {
                    (gone, notified) = (false, Some(sighting.profit_cents));
                } else if let Some(reason) =
                    notice_reason(watched, sighting.profit_cents, rise_percent)
                {
                    let flip = serde_json::to_string(sighting).unwrap_or_default();
                    let taken = tx.execute(
                        "INSERT OR IGNORE INTO flip_notices (store, style_code, size, currency,
                             buy_price_cents, sell_price_cents, reason, notified_at, flip)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                        params![
                            id.0,
                            id.1,
                            id.2,
                            sighting.currency,
                            sighting.buy_price_cents,
                            sighting.sell_price_cents,
                            reason_text(reason),
                            now,
                            flip,
                        ],
                    )? == 1;
                    if taken {
                        notified = Some(sighting.profit_cents);
                        reading.notices.push(FlipNotice {
                            flip: sighting.clone(),
                            reason,
                            notified_at: now,
                        });
                    }
                    // Its return (or rise) was seen, notified or not (the same prices were).
                    gone = false;
                }
                tx.execute(
                    "INSERT INTO flip_watch (store, style_code, size, present, gone_since_notice,
                         notified_profit_cents, first_seen_at, last_seen_at)
                     VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?6)
                     ON CONFLICT (store, style_code, size) DO UPDATE SET present = 1,
                         gone_since_notice = excluded.gone_since_notice,
                         notified_profit_cents = excluded.notified_profit_cents,
                         last_seen_at = excluded.last_seen_at",
                    params![id.0, id.1, id.2, gone, notified, now],
                )?;
            }
            if complete {
                let present: Vec<(String, String, String)> = {
                    let mut statement = tx.prepare(
                        "SELECT store, style_code, size FROM flip_watch WHERE present = 1",
                    )?;
                    statement
                        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
                        .collect::<rusqlite::Result<_>>()?
                };
                for (store, code, size) in &present {
                    if seen.contains(&(store.as_str(), code.as_str(), size.as_str())) {
                        continue;
                    }
                    reading.gone += tx.execute(
                        "UPDATE flip_watch SET present = 0,
                             gone_since_notice = notified_profit_cents IS NOT NULL
                         WHERE store = ?1 AND style_code = ?2 AND size = ?3",
                        params![store, code, size],
                    )?;
                }
                tx.execute(
                    "DELETE FROM flip_watch WHERE present = 0 AND last_seen_at < ?1",
                    [now - FORGET_AFTER_SECS],
                )?;
            }
            // The baseline is a complete reading: an incomplete one leaves it pending.
            if baseline && complete {
                tx.execute("DELETE FROM meta WHERE key = ?1", [BASELINE_KEY])?;
            }
            tx.commit()?;
            Ok(reading)
        };
        write(self).map_err(|e| self.error(e))
    }

    /// The latest `limit` flips notified, newest first.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails.
    pub fn flip_notices(&self, limit: u32) -> Result<Vec<FlipNotice>, UserDbError> {
        let read = || -> rusqlite::Result<Vec<FlipNotice>> {
            let mut statement = self.conn.prepare_cached(
                "SELECT reason, notified_at, flip FROM flip_notices
                 ORDER BY notified_at DESC, rowid DESC LIMIT ?1",
            )?;
            let rows: Vec<(String, i64, String)> = statement
                .query_map([limit], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?;
            Ok(rows
                .into_iter()
                .filter_map(|(reason, notified_at, flip)| {
                    Some(FlipNotice {
                        flip: serde_json::from_str(&flip).ok()?,
                        reason: reason_of(&reason)?,
                        notified_at,
                    })
                })
                .collect())
        };
        read().map_err(|e| self.error(e))
    }
}

fn reason_text(reason: NoticeReason) -> &'static str {
    match reason {
        NoticeReason::New => "new",
        NoticeReason::Back => "back",
        NoticeReason::Rose => "rose",
    }
}

fn reason_of(text: &str) -> Option<NoticeReason> {
    match text {
        "new" => Some(NoticeReason::New),
        "back" => Some(NoticeReason::Back),
        "rose" => Some(NoticeReason::Rose),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
