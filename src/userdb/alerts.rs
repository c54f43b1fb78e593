//! Alerts and their firings in the user database: add, list, delete, arm and disarm, and the
//! firing history. Every write is one statement or one transaction.

use rusqlite::{OptionalExtension, Row, params};

use super::{UserDb, UserDbError};
use crate::model::{Alert, AlertFiring, AlertKind, NewAlert, ProductRef, QuoteSource};

/// Most firings [`UserDb::alert_firings`] returns.
pub const MAX_FIRINGS_LISTED: usize = 200;

/// Checks `alert` before it is stored.
fn check(alert: &NewAlert) -> Result<(), UserDbError> {
    let invalid = |what: &str| Err(UserDbError::Invalid(what.to_owned()));
    if alert.product.product_id.trim().is_empty() {
        return invalid("an alert needs a product");
    }
    match (alert.kind.needs_price(), alert.price_cents) {
        (true, None) => return invalid("this alert needs a price"),
        (true, Some(cents)) if cents <= 0 => return invalid("the price must be above zero"),
        (false, Some(_)) => return invalid("a stock alert has no price"),
        _ => {}
    }
    let currency = alert.currency.trim();
    if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_alphabetic()) {
        return invalid("the currency must be a three-letter code such as USD");
    }
    if alert
        .size
        .as_deref()
        .is_some_and(|size| size.trim().is_empty())
    {
        return invalid("the size is empty; leave it out for any size");
    }
    Ok(())
}

fn kind_from_row(row: &Row<'_>, index: usize) -> rusqlite::Result<AlertKind> {
    let name: String = row.get(index)?;
    AlertKind::from_name(&name).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            index,
            rusqlite::types::Type::Text,
            format!("unknown alert kind {name:?}").into(),
        )
    })
}

fn alert_from_row(row: &Row<'_>) -> rusqlite::Result<Alert> {
    Ok(Alert {
        id: row.get(0)?,
        spec: NewAlert {
            product: ProductRef {
                product_id: row.get(1)?,
                style_code: row.get(2)?,
                title: row.get(3)?,
            },
            size: row.get(4)?,
            kind: kind_from_row(row, 5)?,
            price_cents: row.get(6)?,
            currency: row.get(7)?,
        },
        armed: row.get(8)?,
        created_at: row.get(9)?,
    })
}

const ALERT_COLUMNS: &str =
    "id, product_id, style_code, title, size, kind, price_cents, currency, armed, created_at";

impl UserDb {
    /// Stores a new alert, armed, made at `now` (Unix seconds); returns it.
    ///
    /// # Errors
    /// [`UserDbError::Invalid`] for an alert that makes no sense (no product, a missing or
    /// non-positive price, a bad currency); [`UserDbError::Sqlite`] when the write fails.
    pub fn add_alert(&mut self, alert: &NewAlert, now: i64) -> Result<Alert, UserDbError> {
        check(alert)?;
        let currency = alert.currency.trim().to_ascii_uppercase();
        let size = alert.size.as_deref().map(str::trim);
        self.conn
            .execute(
                "INSERT INTO alert (product_id, style_code, title, size, kind, price_cents,
                                    currency, armed, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, ?8)",
                params![
                    alert.product.product_id.trim(),
                    alert.product.style_code,
                    alert.product.title,
                    size,
                    alert.kind.as_str(),
                    alert.price_cents,
                    currency,
                    now
                ],
            )
            .map_err(|e| self.error(e))?;
        let id = self.conn.last_insert_rowid();
        self.alert(id)?
            .ok_or_else(|| UserDbError::Invalid("the new alert was not stored".into()))
    }

    /// The alert `id`, if there is one.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails.
    pub fn alert(&self, id: i64) -> Result<Option<Alert>, UserDbError> {
        self.conn
            .query_row(
                &format!("SELECT {ALERT_COLUMNS} FROM alert WHERE id = ?1"),
                [id],
                alert_from_row,
            )
            .optional()
            .map_err(|e| self.error(e))
    }

    /// Every alert, oldest first.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails.
    pub fn alerts(&self) -> Result<Vec<Alert>, UserDbError> {
        let mut statement = self
            .conn
            .prepare_cached(&format!("SELECT {ALERT_COLUMNS} FROM alert ORDER BY id"))
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map([], alert_from_row)
            .and_then(Iterator::collect);
        rows.map_err(|e| self.error(e))
    }

    /// Deletes alert `id` (its firings stay, no longer linked); whether it existed.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the write fails.
    pub fn delete_alert(&mut self, id: i64) -> Result<bool, UserDbError> {
        self.conn
            .execute("DELETE FROM alert WHERE id = ?1", [id])
            .map(|n| n > 0)
            .map_err(|e| self.error(e))
    }

    /// Arms alert `id` again (after its price moved back); whether it existed.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the write fails.
    pub fn rearm_alert(&mut self, id: i64) -> Result<bool, UserDbError> {
        self.conn
            .execute("UPDATE alert SET armed = 1 WHERE id = ?1", [id])
            .map(|n| n > 0)
            .map_err(|e| self.error(e))
    }

    /// Records that `alert` fired, and disarms it, in one transaction: a firing is never
    /// recorded without the alert being disarmed, nor the other way round. Returns the firing.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the write fails (nothing is written then).
    #[allow(
        clippy::too_many_arguments,
        reason = "the firing's fields, each a plain value"
    )]
    pub fn record_firing(
        &mut self,
        alert: &Alert,
        size: &str,
        source: QuoteSource,
        price_cents: Option<i64>,
        currency: &str,
        now: i64,
    ) -> Result<AlertFiring, UserDbError> {
        let path = self.path.clone();
        let sqlite = |source| UserDbError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sqlite)?;
        let spec = &alert.spec;
        tx.execute(
            "INSERT INTO alert_firing (alert_id, product_id, style_code, title, kind, size, source,
                                       price_cents, currency, fired_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                alert.id,
                spec.product.product_id,
                spec.product.style_code,
                spec.product.title,
                spec.kind.as_str(),
                size,
                source.as_str(),
                price_cents,
                currency,
                now
            ],
        )
        .map_err(sqlite)?;
        let id = tx.last_insert_rowid();
        tx.execute("UPDATE alert SET armed = 0 WHERE id = ?1", [alert.id])
            .map_err(sqlite)?;
        tx.commit().map_err(sqlite)?;
        Ok(AlertFiring {
            id,
            alert_id: Some(alert.id),
            product: spec.product.clone(),
            kind: spec.kind,
            size: size.to_owned(),
            source,
            price_cents,
            currency: currency.to_owned(),
            fired_at: now,
        })
    }

    /// The latest firings, newest first, at most [`MAX_FIRINGS_LISTED`].
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails; an unknown source or kind in a row is an
    /// error too (the file was written by something else).
    pub fn alert_firings(&self) -> Result<Vec<AlertFiring>, UserDbError> {
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT id, alert_id, product_id, style_code, title, kind, size, source,
                        price_cents, currency, fired_at
                 FROM alert_firing ORDER BY fired_at DESC, id DESC LIMIT ?1",
            )
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map([MAX_FIRINGS_LISTED as i64], |row| {
                let source: String = row.get(7)?;
                Ok(AlertFiring {
                    id: row.get(0)?,
                    alert_id: row.get(1)?,
                    product: ProductRef {
                        product_id: row.get(2)?,
                        style_code: row.get(3)?,
                        title: row.get(4)?,
                    },
                    kind: kind_from_row(row, 5)?,
                    size: row.get(6)?,
                    source: QuoteSource::from_name(&source).ok_or_else(|| {
                        rusqlite::Error::FromSqlConversionFailure(
                            7,
                            rusqlite::types::Type::Text,
                            format!("unknown source {source:?}").into(),
                        )
                    })?,
                    price_cents: row.get(8)?,
                    currency: row.get(9)?,
                    fired_at: row.get(10)?,
                })
            })
            .and_then(Iterator::collect);
        rows.map_err(|e| self.error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn spec(kind: AlertKind, price_cents: Option<i64>) -> NewAlert {
        NewAlert {
            product: ProductRef {
                product_id: "air-jordan-1-chicago".into(),
                style_code: "DZ5485-612".into(),
                title: "Air Jordan 1 Chicago".into(),
            },
            size: Some("9".into()),
            kind,
            price_cents,
            currency: "usd".into(),
        }
    }

    #[test]
    fn alerts_are_added_listed_fired_rearmed_and_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(UserDb::FILE_NAME);
        let mut db = UserDb::open(&path).unwrap();
        let alert = db
            .add_alert(&spec(AlertKind::AskAtOrBelow, Some(25_000)), 100)
            .unwrap();
        assert!(alert.armed);
        assert_eq!(alert.spec.currency, "USD");
        let stock = db
            .add_alert(&spec(AlertKind::BackInStock, None), 101)
            .unwrap();
        assert_eq!(db.alerts().unwrap(), vec![alert.clone(), stock.clone()]);

        let firing = db
            .record_firing(&alert, "9", QuoteSource::ResaleA, Some(24_900), "USD", 200)
            .unwrap();
        drop(db);
        // Durable: a reopened file has the firing and the disarmed alert.
        let mut db = UserDb::open(&path).unwrap();
        assert!(!db.alert(alert.id).unwrap().unwrap().armed);
        assert_eq!(db.alert_firings().unwrap(), vec![firing.clone()]);
        assert!(db.rearm_alert(alert.id).unwrap());
        assert!(db.alert(alert.id).unwrap().unwrap().armed);

        assert!(db.delete_alert(alert.id).unwrap());
        assert!(!db.delete_alert(alert.id).unwrap());
        assert_eq!(db.alerts().unwrap(), vec![stock]);
        // The firing outlives its alert.
        let kept = db.alert_firings().unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].alert_id, None);
        assert_eq!(kept[0].price_cents, Some(24_900));
    }

    #[test]
    fn alerts_that_make_no_sense_are_refused_with_a_reason() {
        let mut db = UserDb::open(&tempfile::tempdir().unwrap().path().join("u.sqlite")).unwrap();
        let cases = [
            (spec(AlertKind::AskAtOrBelow, None), "needs a price"),
            (spec(AlertKind::BidAtOrAbove, Some(0)), "above zero"),
            (spec(AlertKind::BackInStock, Some(100)), "no price"),
            (
                NewAlert {
                    currency: "dollars".into(),
                    ..spec(AlertKind::AskAtOrBelow, Some(100))
                },
                "three-letter",
            ),
            (
                NewAlert {
                    product: ProductRef {
                        product_id: " ".into(),
                        style_code: String::new(),
                        title: String::new(),
                    },
                    ..spec(AlertKind::AskAtOrBelow, Some(100))
                },
                "needs a product",
            ),
        ];
        for (alert, reason) in cases {
            let err = db.add_alert(&alert, 0).unwrap_err();
            assert!(
                matches!(&err, UserDbError::Invalid(m) if m.contains(reason)),
                "{err}"
            );
        }
        assert!(db.alerts().unwrap().is_empty());
    }
}
