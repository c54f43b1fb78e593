//! Per-size price history in the user database: every real-time answer (the user's lookups and
//! the monitor's) is recorded per product, size and source (a store read for the retailer is a
//! source of its own), bounded two ways: at most one row per product, size and source per
//! [`SLOT_SECS`] (a later answer replaces the earlier one in
//! its slot), and rows older than [`KEEP_SECS`] are dropped as new ones come in.

use rusqlite::params;

use super::{UserDb, UserDbError};
use crate::model::{PricePoint, QuoteSource, SizeQuote};

/// Length of a history slot: one row per product, size and source per 15 minutes.
pub const SLOT_SECS: i64 = 15 * 60;

/// How long history is kept: a year.
pub const KEEP_SECS: i64 = 365 * 24 * 60 * 60;

/// Most rows [`UserDb::price_history`] returns for one call (a year of slots for a few sizes
/// and sources would be more than a chart can show; the newest are kept).
pub const MAX_POINTS: usize = 20_000;

impl UserDb {
    /// Records `quotes` for product `product_key` (its style code, or its catalogue id when it
    /// has none), seen at `now` (Unix seconds), and drops rows older than a year. Quotes with no
    /// price at all are not recorded. One transaction. Returns the rows written.
    ///
    /// # Errors
    /// [`UserDbError::Invalid`] for an empty product key; [`UserDbError::Sqlite`] when the
    /// write fails (nothing is written then).
    pub fn record_quotes(
        &mut self,
        product_key: &str,
        quotes: &[SizeQuote],
        now: i64,
    ) -> Result<usize, UserDbError> {
        self.record_quotes_of(&[(product_key.to_owned(), quotes.to_vec())], now)
    }

    /// [`record_quotes`](Self::record_quotes) for several products at once, in one
    /// transaction (a batched pricing of many style codes is one write, not one per code).
    ///
    /// # Errors
    /// [`UserDbError::Invalid`] for an empty product key (nothing is written then);
    /// [`UserDbError::Sqlite`] when the write fails (nothing is written then).
    pub fn record_quotes_of(
        &mut self,
        products: &[(String, Vec<SizeQuote>)],
        now: i64,
    ) -> Result<usize, UserDbError> {
        if products.iter().any(|(key, _)| key.trim().is_empty()) {
            return Err(UserDbError::Invalid(
                "price history needs a product key".into(),
            ));
        }
        let path = self.path.clone();
        let sqlite = |source| UserDbError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sqlite)?;
        let mut written = 0;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO price_history (product_key, size, source, store, slot, at,
                         lowest_ask_cents, highest_bid_cents, last_sale_cents, currency)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                     ON CONFLICT (product_key, size, source, store, slot) DO UPDATE SET
                         at = excluded.at,
                         lowest_ask_cents = excluded.lowest_ask_cents,
                         highest_bid_cents = excluded.highest_bid_cents,
                         last_sale_cents = excluded.last_sale_cents,
                         currency = excluded.currency",
                )
                .map_err(sqlite)?;
            for (product_key, quotes) in products {
                for quote in quotes {
                    if quote.lowest_ask_cents.is_none()
                        && quote.highest_bid_cents.is_none()
                        && quote.last_sale_cents.is_none()
                    {
                        continue;
                    }
                    insert
                        .execute(params![
                            product_key,
                            quote.size,
                            quote.source.as_str(),
                            quote.store.as_deref().unwrap_or_default(),
                            now.div_euclid(SLOT_SECS),
                            now,
                            quote.lowest_ask_cents,
                            quote.highest_bid_cents,
                            quote.last_sale_cents,
                            quote.currency
                        ])
                        .map_err(sqlite)?;
                    written += 1;
                }
            }
            tx.execute(
                "DELETE FROM price_history WHERE slot < ?1",
                [(now - KEEP_SECS).div_euclid(SLOT_SECS)],
            )
            .map_err(sqlite)?;
        }
        tx.commit().map_err(sqlite)?;
        Ok(written)
    }

    /// The history of product `product_key` for `sizes` (size keys; empty for every size),
    /// oldest first, at most [`MAX_POINTS`] (the newest).
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails.
    pub fn price_history(
        &self,
        product_key: &str,
        sizes: &[String],
    ) -> Result<Vec<PricePoint>, UserDbError> {
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT size, source, at, lowest_ask_cents, highest_bid_cents, last_sale_cents,
                        currency, store
                 FROM price_history WHERE product_key = ?1
                 ORDER BY slot DESC, size, source, store",
            )
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map([product_key], |row| {
                let source: String = row.get(1)?;
                Ok((
                    source,
                    PricePoint {
                        size: row.get(0)?,
                        source: QuoteSource::ResaleA,
                        at: row.get(2)?,
                        lowest_ask_cents: row.get(3)?,
                        highest_bid_cents: row.get(4)?,
                        last_sale_cents: row.get(5)?,
                        currency: row.get(6)?,
                        store: Some(row.get::<_, String>(7)?).filter(|store| !store.is_empty()),
                    },
                ))
            })
            .map_err(|e| self.error(e))?;
        let mut points = Vec::new();
        for row in rows {
            let (source, mut point) = row.map_err(|e| self.error(e))?;
            // A row from a source this build does not know is skipped, not an error: a newer
            // release may add sources.
            let Some(source) = QuoteSource::from_name(&source) else {
                continue;
            };
            if !sizes.is_empty() && !sizes.contains(&point.size) {
                continue;
            }
            point.source = source;
            points.push(point);
            if points.len() == MAX_POINTS {
                break;
            }
        }
        points.reverse();
        Ok(points)
    }

    /// The sizes product `product_key` has history for, in no particular order.
    ///
    /// # Errors
    /// [`UserDbError::Sqlite`] when the read fails.
    pub fn history_sizes(&self, product_key: &str) -> Result<Vec<String>, UserDbError> {
        let mut statement = self
            .conn
            .prepare_cached("SELECT DISTINCT size FROM price_history WHERE product_key = ?1")
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map([product_key], |row| row.get(0))
            .and_then(Iterator::collect);
        rows.map_err(|e| self.error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quote(size: &str, source: QuoteSource, ask: Option<i64>) -> SizeQuote {
        SizeQuote::ask_only(source, size, ask)
    }

    #[test]
    fn one_row_per_product_size_and_source_per_slot_and_a_year_kept() {
        let mut db = UserDb::open(&tempfile::tempdir().unwrap().path().join("u.sqlite")).unwrap();
        let start = 1_800_000_000 - 1_800_000_000 % SLOT_SECS;
        let quotes = |ask| {
            vec![
                quote("9", QuoteSource::ResaleA, Some(ask)),
                quote("10", QuoteSource::ResaleA, Some(ask + 500)),
                quote("9", QuoteSource::Retailer, Some(18_000)),
                // No price at all: not recorded.
                quote("11", QuoteSource::ResaleA, None),
            ]
        };
        // Sixty answers a minute apart: four slots.
        for minute in 0..60 {
            let written = db
                .record_quotes("DZ5485-612", &quotes(20_000 + minute), start + minute * 60)
                .unwrap();
            assert_eq!(written, 3);
        }
        let all = db.price_history("DZ5485-612", &[]).unwrap();
        assert_eq!(all.len(), 4 * 3);
        let nine_a: Vec<_> = all
            .iter()
            .filter(|p| p.size == "9" && p.source == QuoteSource::ResaleA)
            .collect();
        // The last answer of each slot is kept, oldest slot first.
        let asks: Vec<_> = nine_a.iter().map(|p| p.lowest_ask_cents).collect();
        assert_eq!(
            asks,
            vec![Some(20_014), Some(20_029), Some(20_044), Some(20_059)]
        );
        assert_eq!(
            db.price_history("DZ5485-612", &["10".into()])
                .unwrap()
                .len(),
            4
        );
        let mut sizes = db.history_sizes("DZ5485-612").unwrap();
        sizes.sort();
        assert_eq!(sizes, vec!["10", "9"]);
        assert!(db.price_history("other", &[]).unwrap().is_empty());

        // A year and a slot later, the first slot is gone, the others stay.
        db.record_quotes(
            "X",
            &[quote("9", QuoteSource::ResaleA, Some(1))],
            start + KEEP_SECS + SLOT_SECS,
        )
        .unwrap();
        assert_eq!(db.price_history("DZ5485-612", &[]).unwrap().len(), 3 * 3);
        assert!(db.record_quotes(" ", &quotes(1), start).is_err());
    }

    #[test]
    fn two_stores_prices_for_a_size_in_one_slot_are_two_rows_named_by_store() {
        let mut db = UserDb::open(&tempfile::tempdir().unwrap().path().join("u.sqlite")).unwrap();
        let at_store = |store: &str, ask| SizeQuote {
            store: Some(store.to_owned()),
            ..quote("9", QuoteSource::Retailer, Some(ask))
        };
        let quotes = [
            at_store("kith.com", 11_000),
            at_store("undefeated.com", 12_000),
            quote("9", QuoteSource::Retailer, Some(13_000)),
        ];
        assert_eq!(
            db.record_quotes("DD1391-100", &quotes, 1_800_000_000)
                .unwrap(),
            3
        );
        let points = db.price_history("DD1391-100", &[]).unwrap();
        // Within a slot the order is not part of the answer: compared sorted.
        let mut stored: Vec<(Option<&str>, Option<i64>)> = points
            .iter()
            .map(|p| (p.store.as_deref(), p.lowest_ask_cents))
            .collect();
        stored.sort_unstable();
        assert_eq!(
            stored,
            [
                (None, Some(13_000)),
                (Some("kith.com"), Some(11_000)),
                (Some("undefeated.com"), Some(12_000))
            ]
        );
    }
}
