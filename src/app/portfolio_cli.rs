//! The portfolio without a window, for scripts and cron jobs (`solescope portfolio import |
//! export | value`): the same CSV reader and writer as the window's, the same user database,
//! and prices through the same client and service as the window, batched (one upstream call
//! per 50 style codes) and spent from the same monthly budget.
//!
//! An import is one transaction: all of the file or nothing, and a process killed halfway
//! leaves the database as it was (SQLite rolls the unfinished transaction back).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::client::{Client, ClientError};
use crate::figures::{parse_portfolio_csv, parse_size_label, portfolio_csv};
use crate::model::Country;
use crate::model::portfolio::{Holding, sku_key};
use crate::model::prices::CodePrices;
use crate::userdb::{UserDb, UserDbError};

/// Largest CSV file read (the window's limit too).
pub const MAX_IMPORT_BYTES: u64 = 64 * 1024 * 1024;

/// Why a portfolio command failed.
#[derive(Debug, thiserror::Error)]
pub enum PortfolioCliError {
    /// The file could not be read, or is not a portfolio CSV.
    #[error("{message}: {}", .path.display())]
    File {
        /// What is wrong.
        message: String,
        /// The file.
        path: PathBuf,
    },
    /// The user database refused.
    #[error(transparent)]
    Db(#[from] UserDbError),
    /// The service could not price the holdings.
    #[error("pricing the portfolio: {0}")]
    Prices(#[from] ClientError),
}

/// Reads `csv` (the window's columns; amounts without a currency in `default_currency`) and
/// adds every pair to the database at `db_path` in one transaction. Returns how many.
/// `before_write` is told how many pairs were read, just before the write starts.
///
/// # Errors
/// [`PortfolioCliError::File`] for a file that cannot be read or parsed (nothing is written);
/// [`PortfolioCliError::Db`] when the write fails (nothing is written).
pub fn import_csv(
    db_path: &Path,
    csv: &Path,
    default_currency: &str,
    before_write: impl FnOnce(usize),
) -> Result<usize, PortfolioCliError> {
    let file_error = |message: String| PortfolioCliError::File {
        message,
        path: csv.to_path_buf(),
    };
    let mut bytes = Vec::new();
    let file = std::fs::File::open(csv).map_err(|err| file_error(err.to_string()))?;
    // One byte past the limit at most: a file that grows while read stays bounded.
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_IMPORT_BYTES + 1),
        &mut bytes,
    )
    .map_err(|err| file_error(err.to_string()))?;
    if bytes.len() as u64 > MAX_IMPORT_BYTES {
        return Err(file_error(format!(
            "larger than {} MB; nothing was imported",
            MAX_IMPORT_BYTES / 1024 / 1024
        )));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| file_error("not UTF-8 text; nothing was imported".into()))?;
    let preview = parse_portfolio_csv(text.trim_start_matches('\u{feff}'), default_currency)
        .map_err(|err| file_error(err.to_string()))?;
    let mut db = UserDb::open(db_path)?;
    before_write(preview.rows.len());
    let ids = crate::userdb::portfolio::add_holdings(&mut db, &preview.rows)?;
    Ok(ids.len())
}

/// Every pair and sale of the database at `db_path` as CSV (the window's export).
///
/// # Errors
/// [`PortfolioCliError::Db`] when the database cannot be read.
pub fn export_csv(db_path: &Path) -> Result<String, PortfolioCliError> {
    let mut db = UserDb::open(db_path)?;
    let holdings = crate::userdb::portfolio::holdings(&mut db)?;
    portfolio_csv(holdings.iter().map(|h| (&h.pair, h.sale.as_ref()))).map_err(|err| {
        PortfolioCliError::File {
            message: format!("writing CSV: {err}"),
            path: db_path.to_path_buf(),
        }
    })
}

/// One held pair valued.
#[derive(Debug, Clone, PartialEq)]
pub struct ValuedHolding {
    /// The pair.
    pub holding: Holding,
    /// The market price used, in cents of the pair's currency: its size's lowest ask.
    pub market_cents: Option<i64>,
    /// Where the price comes from (`kicksdb`, `kicksdb-mirror`, `catalogue`).
    pub source: String,
    /// When the price was fetched.
    pub as_of: Option<DateTime<Utc>>,
    /// Why there is no price, when there is none.
    pub missing: Option<String>,
}

impl ValuedHolding {
    /// Market value less cost, before selling fees.
    #[must_use]
    pub fn pnl_cents(&self) -> Option<i64> {
        self.market_cents.map(|m| m - self.holding.pair.cost_cents)
    }
}

/// Whether two size labels name the same size (`US 10` and `10`).
fn same_size(a: &str, b: &str) -> bool {
    a.trim() == b.trim()
        || matches!((parse_size_label(a), parse_size_label(b)), (Ok(a), Ok(b)) if a == b)
}

/// Values the unsold pairs of `holdings`: every distinct style code priced once, in batched
/// requests of 50 per currency's dataset.
///
/// # Errors
/// [`PortfolioCliError::Prices`] when a request fails (no partial table is printed).
pub async fn value(
    client: &Client,
    holdings: Vec<Holding>,
) -> Result<Vec<ValuedHolding>, PortfolioCliError> {
    let held: Vec<Holding> = holdings.into_iter().filter(|h| h.sale.is_none()).collect();
    let mut by_code: HashMap<(String, Country), CodePrices> = HashMap::new();
    for country in Country::ALL {
        let codes: Vec<String> = held
            .iter()
            .filter(|h| Country::of_currency(&h.pair.currency) == Some(country))
            .map(|h| h.pair.sku.clone())
            .collect();
        if codes.is_empty() {
            continue;
        }
        let answer = client.prices_of_all(&codes, country).await?;
        for product in answer.products {
            by_code.insert((sku_key(&product.sku), country), product);
        }
    }
    Ok(held
        .into_iter()
        .map(|holding| {
            let pair = &holding.pair;
            let Some(country) = Country::of_currency(&pair.currency) else {
                return ValuedHolding {
                    missing: Some(format!("no market prices in {}", pair.currency)),
                    market_cents: None,
                    source: String::new(),
                    as_of: None,
                    holding,
                };
            };
            let Some(prices) = by_code.get(&(sku_key(&pair.sku), country)) else {
                return ValuedHolding {
                    missing: Some("no product with this style code".into()),
                    market_cents: None,
                    source: String::new(),
                    as_of: None,
                    holding,
                };
            };
            let as_of = DateTime::parse_from_rfc3339(&prices.as_of)
                .ok()
                .map(|t| t.with_timezone(&Utc));
            let size = prices.sizes.iter().find(|s| same_size(&s.size, &pair.size));
            let market_cents = size
                .and_then(|s| crate::figures::cents_from_amount(s.lowest_ask))
                .filter(|c| *c > 0);
            ValuedHolding {
                missing: market_cents
                    .is_none()
                    .then(|| format!("nobody asks for size {}", pair.size)),
                market_cents,
                source: prices.source.clone(),
                as_of,
                holding,
            }
        })
        .collect())
}

/// How old a price is, for a person.
fn age_text(as_of: Option<DateTime<Utc>>, now: DateTime<Utc>) -> String {
    let Some(as_of) = as_of else {
        return String::new();
    };
    super::prices::elapsed_text(as_of, now).unwrap_or_else(|| "just now".to_owned())
}

fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", cents.abs() / 100, cents.abs() % 100)
}

const HEADERS: [&str; 10] = [
    "style_code",
    "size",
    "currency",
    "market_price",
    "source",
    "as_of",
    "age",
    "value",
    "cost",
    "pnl_before_fees",
];

fn cells(row: &ValuedHolding, now: DateTime<Utc>) -> [String; 10] {
    let pair = &row.holding.pair;
    let market = row.market_cents.map(money).unwrap_or_default();
    [
        pair.sku.clone(),
        pair.size.clone(),
        pair.currency.clone(),
        market.clone(),
        row.missing.clone().unwrap_or_else(|| row.source.clone()),
        row.as_of
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .unwrap_or_default(),
        age_text(row.as_of, now),
        market,
        money(pair.cost_cents),
        row.pnl_cents().map(money).unwrap_or_default(),
    ]
}

/// The valued holdings as CSV, one line per held pair, with totals per currency left out (a
/// script sums them).
///
/// # Errors
/// The CSV writer failed (it writes to memory: only on an impossible state).
pub fn value_csv(rows: &[ValuedHolding], now: DateTime<Utc>) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(HEADERS)?;
    for row in rows {
        writer.write_record(cells(row, now))?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The valued holdings as a table for a terminal, with the totals per currency below.
#[must_use]
pub fn value_table(rows: &[ValuedHolding], now: DateTime<Utc>) -> String {
    let lines: Vec<[String; 10]> = rows.iter().map(|row| cells(row, now)).collect();
    let mut widths = HEADERS.map(str::len);
    for line in &lines {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    // The as_of column is long and the age says it: the table shows the age only.
    let shown = [0, 1, 2, 3, 4, 6, 7, 8, 9];
    let mut out = String::new();
    let write_line = |out: &mut String, cells: &[String]| {
        let mut line = String::new();
        for &at in &shown {
            let _ = write!(line, "{:<width$}  ", cells[at], width = widths[at]);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    };
    write_line(&mut out, &HEADERS.map(str::to_owned));
    for line in &lines {
        write_line(&mut out, line);
    }
    let mut totals: std::collections::BTreeMap<&str, (i64, i64, usize)> =
        std::collections::BTreeMap::new();
    for row in rows {
        let entry = totals
            .entry(row.holding.pair.currency.as_str())
            .or_default();
        if let (Some(value), Some(pnl)) = (row.market_cents, row.pnl_cents()) {
            entry.0 += value;
            entry.1 += pnl;
        } else {
            entry.2 += 1;
        }
    }
    for (currency, (value, pnl, unpriced)) in totals {
        let _ = writeln!(
            out,
            "total {currency}: value {}, P&L before fees {}{}",
            money(value),
            money(pnl),
            match unpriced {
                0 => String::new(),
                1 => " (1 pair without a price left out)".to_owned(),
                n => format!(" ({n} pairs without a price left out)"),
            }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::portfolio::{Condition, Pair};

    fn valued(sku: &str, market: Option<i64>, cost: i64) -> ValuedHolding {
        ValuedHolding {
            holding: Holding {
                id: 1,
                pair: Pair {
                    product_id: String::new(),
                    slug: String::new(),
                    sku: sku.into(),
                    title: String::new(),
                    size: "10".into(),
                    condition: Condition::New,
                    purchased_on: chrono::NaiveDate::from_ymd_opt(2026, 1, 2).unwrap(),
                    cost_cents: cost,
                    currency: "USD".into(),
                    bought_from: String::new(),
                    notes: String::new(),
                    tags: Vec::new(),
                },
                sale: None,
            },
            market_cents: market,
            source: "kicksdb".into(),
            as_of: Some(
                DateTime::parse_from_rfc3339("2026-11-25T10:00:00Z")
                    .unwrap()
                    .with_timezone(&Utc),
            ),
            missing: market
                .is_none()
                .then(|| "nobody asks for size 10".to_owned()),
        }
    }

    #[test]
    fn value_rows_name_price_source_age_value_and_pnl() {
        let now = DateTime::parse_from_rfc3339("2026-11-25T10:12:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let rows = [
            valued("DD1391-100", Some(11_800), 10_000),
            valued("CP9654", None, 23_000),
        ];
        let csv = value_csv(&rows, now).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "style_code,size,currency,market_price,source,as_of,age,value,cost,pnl_before_fees"
        );
        assert_eq!(
            lines[1],
            "DD1391-100,10,USD,118.00,kicksdb,2026-11-25T10:00:00Z,12 min,118.00,100.00,18.00"
        );
        assert_eq!(
            lines[2],
            "CP9654,10,USD,,nobody asks for size 10,2026-11-25T10:00:00Z,12 min,,230.00,"
        );
        let table = value_table(&rows, now);
        assert!(
            table.contains(
                "total USD: value 118.00, P&L before fees 18.00 (1 pair without a price left out)"
            ),
            "{table}"
        );
    }
}
