//! The portfolio's tables (`portfolio.sql`): the pairs held and their sales. Every write is one
//! transaction, so an import of many lines lands whole or not at all.

use chrono::NaiveDate;
use rusqlite::{OptionalExtension, params};

use super::{UserDb, UserDbError};
use crate::model::portfolio::{Condition, Holding, Pair, Sale, sku_key};

const DATE_FORMAT: &str = "%Y-%m-%d";

fn condition_from_code(code: &str) -> Option<Condition> {
    Condition::ALL.into_iter().find(|c| c.code() == code)
}

fn date_from_text(text: &str) -> rusqlite::Result<NaiveDate> {
    NaiveDate::parse_from_str(text, DATE_FORMAT).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// Every pair in the portfolio, held and sold, oldest first.
pub fn holdings(db: &mut UserDb) -> Result<Vec<Holding>, UserDbError> {
    let read = |db: &mut UserDb| -> rusqlite::Result<Vec<Holding>> {
        let mut statement = db.conn().prepare(
            "SELECT h.id, h.product_id, h.slug, h.sku, h.title, h.size, h.condition,
                    h.purchased_on, h.cost_cents, h.currency, h.bought_from, h.notes, h.tags,
                    s.sold_on, s.price_cents, s.marketplace, s.fees_cents, s.shipping_cents
             FROM holding h LEFT JOIN sale s ON s.holding_id = h.id
             ORDER BY h.id",
        )?;
        let rows = statement.query_map([], |row| {
            let condition: String = row.get(6)?;
            let tags: String = row.get(12)?;
            let sold_on: Option<String> = row.get(13)?;
            let sale = match sold_on {
                None => None,
                Some(sold_on) => Some(Sale {
                    sold_on: date_from_text(&sold_on)?,
                    price_cents: row.get(14)?,
                    marketplace: row.get(15)?,
                    fees_cents: row.get(16)?,
                    shipping_cents: row.get(17)?,
                }),
            };
            Ok(Holding {
                id: row.get(0)?,
                pair: Pair {
                    product_id: row.get(1)?,
                    slug: row.get(2)?,
                    sku: row.get(3)?,
                    title: row.get(4)?,
                    size: row.get(5)?,
                    condition: condition_from_code(&condition).unwrap_or_default(),
                    purchased_on: date_from_text(&row.get::<_, String>(7)?)?,
                    cost_cents: row.get(8)?,
                    currency: row.get(9)?,
                    bought_from: row.get(10)?,
                    notes: row.get(11)?,
                    tags: serde_json::from_str(&tags).unwrap_or_default(),
                },
                sale,
            })
        })?;
        rows.collect()
    };
    read(db).map_err(|e| db.error(e))
}

/// Refuses a sale before the purchase on `purchased_on`, or with a negative amount.
fn check_sale(purchased_on: NaiveDate, sale: &Sale) -> Result<(), UserDbError> {
    if sale.sold_on < purchased_on {
        return Err(UserDbError::Invalid(format!(
            "a pair bought on {purchased_on} cannot be sold on {}",
            sale.sold_on
        )));
    }
    if sale.price_cents < 0 || sale.fees_cents < 0 || sale.shipping_cents < 0 {
        return Err(UserDbError::Invalid(
            "sale price, fees and shipping cannot be negative".into(),
        ));
    }
    Ok(())
}

/// Adds pairs (each with its sale, if sold) in one transaction: all of them or none. Returns
/// their ids, in order.
pub fn add_holdings(
    db: &mut UserDb,
    rows: &[(Pair, Option<Sale>)],
) -> Result<Vec<i64>, UserDbError> {
    for (pair, sale) in rows {
        if pair.cost_cents < 0 {
            return Err(UserDbError::Invalid("a cost cannot be negative".into()));
        }
        if let Some(sale) = sale {
            check_sale(pair.purchased_on, sale)?;
        }
    }
    let write = |db: &mut UserDb| -> rusqlite::Result<Vec<i64>> {
        let tx = db.conn().transaction()?;
        let mut ids = Vec::with_capacity(rows.len());
        {
            let mut insert = tx.prepare(
                "INSERT INTO holding (product_id, slug, sku, sku_key, title, size, condition,
                     purchased_on, cost_cents, currency, bought_from, notes, tags)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?;
            for (pair, sale) in rows {
                let tags = serde_json::to_string(&pair.tags).unwrap_or_else(|_| "[]".into());
                insert.execute(params![
                    pair.product_id,
                    pair.slug,
                    pair.sku,
                    sku_key(&pair.sku),
                    pair.title,
                    pair.size,
                    pair.condition.code(),
                    pair.purchased_on.format(DATE_FORMAT).to_string(),
                    pair.cost_cents,
                    pair.currency,
                    pair.bought_from,
                    pair.notes,
                    tags,
                ])?;
                let id = tx.last_insert_rowid();
                if let Some(sale) = sale {
                    insert_sale(&tx, id, sale)?;
                }
                ids.push(id);
            }
        }
        tx.commit()?;
        Ok(ids)
    };
    write(db).map_err(|e| db.error(e))
}

/// Records the sale of the held pair `id`. Refused when the pair is unknown, already sold, or
/// sold before it was bought.
pub fn record_sale(db: &mut UserDb, id: i64, sale: &Sale) -> Result<(), UserDbError> {
    let found = db
        .conn()
        .query_row(
            "SELECT h.purchased_on, s.holding_id IS NOT NULL
             FROM holding h LEFT JOIN sale s ON s.holding_id = h.id WHERE h.id = ?1",
            [id],
            |row| Ok((row.get::<_, String>(0)?, row.get::<_, bool>(1)?)),
        )
        .optional();
    let (purchased_on, is_sold) = match found {
        Ok(Some(found)) => found,
        Ok(None) => {
            return Err(UserDbError::Invalid(format!(
                "no pair {id} in the portfolio"
            )));
        }
        Err(e) => return Err(db.error(e)),
    };
    if is_sold {
        return Err(UserDbError::Invalid("this pair is already sold".into()));
    }
    let purchased_on = date_from_text(&purchased_on).map_err(|e| db.error(e))?;
    check_sale(purchased_on, sale)?;
    insert_sale(db.conn(), id, sale).map_err(|e| db.error(e))
}

/// Writes the sale of pair `id` (a statement prepared once per connection).
fn insert_sale(conn: &rusqlite::Connection, id: i64, sale: &Sale) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO sale (holding_id, sold_on, price_cents, marketplace, fees_cents,
             shipping_cents) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        id,
        sale.sold_on.format(DATE_FORMAT).to_string(),
        sale.price_cents,
        sale.marketplace,
        sale.fees_cents,
        sale.shipping_cents,
    ])
    .map(drop)
}

/// Removes the pair `id` (and its sale) from the portfolio.
pub fn remove_holding(db: &mut UserDb, id: i64) -> Result<(), UserDbError> {
    let removed = db.conn().execute("DELETE FROM holding WHERE id = ?1", [id]);
    match removed {
        Ok(0) => Err(UserDbError::Invalid(format!(
            "no pair {id} in the portfolio"
        ))),
        Ok(_) => Ok(()),
        Err(e) => Err(db.error(e)),
    }
}
