//! The portfolio as CSV: reading the spreadsheets resellers keep (columns mapped by header, all
//! or nothing, the first bad cell named by line and column) and writing holdings and sales in a
//! form this reader takes back.

use chrono::NaiveDate;

use super::portfolio::{
    amount_from_cents, parse_date, parse_money, parse_size_label, parse_style_code,
};
use crate::model::portfolio::{Condition, Pair, Sale};

/// The most lines an import takes; a larger file is refused before anything is parsed further.
pub const MAX_IMPORT_LINES: usize = 200_000;

/// A column this reader knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Style code (required).
    StyleCode,
    /// Size (required).
    Size,
    /// Purchase cost (required).
    Cost,
    /// Purchase date (required).
    PurchasedOn,
    /// Product title.
    Title,
    /// Condition.
    Condition,
    /// Currency code of every amount of the line.
    Currency,
    /// Where it was bought.
    BoughtFrom,
    /// Notes.
    Notes,
    /// Tags, separated by `;` or `,`.
    Tags,
    /// Sale date.
    SoldOn,
    /// Sale price.
    SalePrice,
    /// Where it sold.
    Marketplace,
    /// Fees of the sale.
    Fees,
    /// Shipping paid for the sale.
    Shipping,
    /// Product id (as exported).
    ProductId,
    /// Product slug (as exported).
    Slug,
}

impl Field {
    /// The header this writer uses.
    #[must_use]
    pub fn header(self) -> &'static str {
        match self {
            Field::StyleCode => "style_code",
            Field::Size => "size",
            Field::Cost => "cost",
            Field::PurchasedOn => "purchased_on",
            Field::Title => "title",
            Field::Condition => "condition",
            Field::Currency => "currency",
            Field::BoughtFrom => "bought_from",
            Field::Notes => "notes",
            Field::Tags => "tags",
            Field::SoldOn => "sold_on",
            Field::SalePrice => "sale_price",
            Field::Marketplace => "marketplace",
            Field::Fees => "fees",
            Field::Shipping => "shipping",
            Field::ProductId => "product_id",
            Field::Slug => "slug",
        }
    }

    /// The field a header names: this writer's headers and the usual spreadsheet words, case,
    /// spaces and punctuation ignored.
    #[must_use]
    pub fn from_header(header: &str) -> Option<Field> {
        let word: String = header
            .trim()
            .to_ascii_lowercase()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        Some(match word.as_str() {
            "stylecode" | "sku" | "style" | "code" | "styleno" => Field::StyleCode,
            "size" | "ussize" | "shoesize" => Field::Size,
            "cost" | "purchaseprice" | "pricepaid" | "costbasis" | "paid" | "buyprice"
            | "price" | "costprice" => Field::Cost,
            "purchasedon" | "purchasedate" | "datebought" | "boughton" | "date" | "buydate" => {
                Field::PurchasedOn
            }
            "title" | "name" | "product" | "item" => Field::Title,
            "condition" | "state" => Field::Condition,
            "currency" => Field::Currency,
            "boughtfrom" | "store" | "source" | "where" | "retailer" | "seller" => {
                Field::BoughtFrom
            }
            "notes" | "note" | "comment" | "comments" => Field::Notes,
            "tags" | "tag" | "labels" => Field::Tags,
            "soldon" | "saledate" | "datesold" => Field::SoldOn,
            "saleprice" | "soldfor" | "soldprice" => Field::SalePrice,
            "marketplace" | "platform" | "soldon_platform" | "soldvia" => Field::Marketplace,
            "fees" | "fee" | "salefees" => Field::Fees,
            "shipping" | "shippingcost" | "saleshipping" => Field::Shipping,
            "productid" | "id" => Field::ProductId,
            "slug" => Field::Slug,
            _ => return None,
        })
    }

    /// The columns written by [`portfolio_csv`], in order.
    pub const EXPORTED: [Field; 17] = [
        Field::StyleCode,
        Field::Size,
        Field::Title,
        Field::Condition,
        Field::PurchasedOn,
        Field::Cost,
        Field::Currency,
        Field::BoughtFrom,
        Field::Notes,
        Field::Tags,
        Field::SoldOn,
        Field::SalePrice,
        Field::Marketplace,
        Field::Fees,
        Field::Shipping,
        Field::ProductId,
        Field::Slug,
    ];
}

/// Why an import was refused; nothing of it is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// A cell that cannot be read.
    #[error("line {line}, column {column} ({header}): {reason}; nothing was imported")]
    Cell {
        /// Line of the file, 1 for the header.
        line: u64,
        /// Column, 1 for the first.
        column: usize,
        /// The column's header.
        header: String,
        /// What is wrong.
        reason: String,
    },
    /// A required column is missing from the header.
    #[error("no {0} column (looked for a header such as {1:?}); nothing was imported")]
    MissingColumn(&'static str, &'static str),
    /// The file is not CSV (or a line has a different number of cells).
    #[error("line {line}: {reason}; nothing was imported")]
    Malformed {
        /// Line of the file.
        line: u64,
        /// What the CSV reader said.
        reason: String,
    },
    /// The file has more than [`MAX_IMPORT_LINES`] lines.
    #[error("more than {MAX_IMPORT_LINES} lines; nothing was imported")]
    TooLarge,
}

/// A parsed file, ready to write: the columns as mapped and every line's pair and sale.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportPreview {
    /// Each header of the file with the field it was mapped to (`None`: ignored).
    pub columns: Vec<(String, Option<Field>)>,
    /// The pairs, in file order, each with its sale if the line has one.
    pub rows: Vec<(Pair, Option<Sale>)>,
}

/// Reads a portfolio CSV. `default_currency` is used for lines whose amounts name none.
pub fn parse_portfolio_csv(
    text: &str,
    default_currency: &str,
) -> Result<ImportPreview, ImportError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader.headers().map_err(|e| malformed(&e))?.clone();
    let columns: Vec<(String, Option<Field>)> = headers
        .iter()
        .map(|h| (h.to_owned(), Field::from_header(h)))
        .collect();
    let index = |field: Field| columns.iter().position(|(_, f)| *f == Some(field));
    let required = |field: Field, name: &'static str| {
        index(field).ok_or(ImportError::MissingColumn(name, field.header()))
    };
    let style_at = required(Field::StyleCode, "style code")?;
    let size_at = required(Field::Size, "size")?;
    let cost_at = required(Field::Cost, "cost")?;
    let date_at = required(Field::PurchasedOn, "purchase date")?;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| malformed(&e))?;
        if rows.len() >= MAX_IMPORT_LINES {
            return Err(ImportError::TooLarge);
        }
        let line = record.position().map_or(0, csv::Position::line);
        if record.iter().all(str::is_empty) {
            continue;
        }
        let cell_error = |column: usize, reason: String| ImportError::Cell {
            line,
            column: column + 1,
            header: columns[column].0.clone(),
            reason,
        };
        let cell = |field: Field| index(field).map_or("", |at| record.get(at).unwrap_or(""));
        let required_cell = |at: usize| {
            let text = record.get(at).unwrap_or("");
            if text.is_empty() {
                Err(cell_error(at, "empty".to_owned()))
            } else {
                Ok(text)
            }
        };
        let sku =
            parse_style_code(required_cell(style_at)?).map_err(|r| cell_error(style_at, r))?;
        let size = parse_size_label(required_cell(size_at)?).map_err(|r| cell_error(size_at, r))?;
        let purchased_on =
            parse_date(required_cell(date_at)?).map_err(|r| cell_error(date_at, r))?;
        let (cost_cents, cost_currency) =
            parse_money(required_cell(cost_at)?).map_err(|r| cell_error(cost_at, r))?;
        if cost_cents < 0 {
            return Err(cell_error(cost_at, "a cost cannot be negative".to_owned()));
        }
        let currency_cell = cell(Field::Currency);
        let currency = if currency_cell.is_empty() {
            cost_currency.unwrap_or(default_currency).to_owned()
        } else if currency_cell.len() == 3 && currency_cell.chars().all(|c| c.is_ascii_alphabetic())
        {
            currency_cell.to_ascii_uppercase()
        } else {
            let at = index(Field::Currency).unwrap_or(0);
            return Err(cell_error(
                at,
                format!("{currency_cell:?} is not a currency code"),
            ));
        };
        let condition_text = cell(Field::Condition);
        let condition = Condition::parse(condition_text).ok_or_else(|| {
            cell_error(
                index(Field::Condition).unwrap_or(0),
                format!("{condition_text:?} is not a condition (new, used, new with defects)"),
            )
        })?;
        let tags = cell(Field::Tags)
            .split([';', ','])
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect();
        let pair = Pair {
            product_id: cell(Field::ProductId).to_owned(),
            slug: cell(Field::Slug).to_owned(),
            title: cell(Field::Title).to_owned(),
            sku,
            size,
            condition,
            purchased_on,
            cost_cents,
            currency,
            bought_from: cell(Field::BoughtFrom).to_owned(),
            notes: cell(Field::Notes).to_owned(),
            tags,
        };
        let sale = parse_sale(&record, &index, &cell_error, purchased_on)?;
        rows.push((pair, sale));
    }
    Ok(ImportPreview { columns, rows })
}

/// The sale of a line: none when the sale columns are all empty; a sale needs its date and price.
fn parse_sale(
    record: &csv::StringRecord,
    index: &dyn Fn(Field) -> Option<usize>,
    cell_error: &dyn Fn(usize, String) -> ImportError,
    purchased_on: NaiveDate,
) -> Result<Option<Sale>, ImportError> {
    let at = |field: Field| index(field).filter(|&at| !record.get(at).unwrap_or("").is_empty());
    let date_at = match (at(Field::SoldOn), at(Field::SalePrice)) {
        (None, None) => return Ok(None),
        (Some(_), None) => {
            let column = index(Field::SalePrice)
                .or(index(Field::SoldOn))
                .unwrap_or(0);
            return Err(cell_error(column, "a sale needs its price".to_owned()));
        }
        (None, Some(_)) => {
            let column = index(Field::SoldOn)
                .or(index(Field::SalePrice))
                .unwrap_or(0);
            return Err(cell_error(column, "a sale needs its date".to_owned()));
        }
        (Some(date_at), Some(_)) => date_at,
    };
    let text = |at: usize| record.get(at).unwrap_or("");
    let sold_on = parse_date(text(date_at)).map_err(|r| cell_error(date_at, r))?;
    if sold_on < purchased_on {
        return Err(cell_error(date_at, "sold before it was bought".to_owned()));
    }
    let money = |field: Field| -> Result<i64, ImportError> {
        match at(field) {
            None => Ok(0),
            Some(at) => match parse_money(text(at)) {
                Ok((cents, _)) if cents >= 0 => Ok(cents),
                Ok(_) => Err(cell_error(at, "cannot be negative".to_owned())),
                Err(reason) => Err(cell_error(at, reason)),
            },
        }
    };
    Ok(Some(Sale {
        sold_on,
        price_cents: money(Field::SalePrice)?,
        marketplace: at(Field::Marketplace).map_or_else(String::new, |at| text(at).to_owned()),
        fees_cents: money(Field::Fees)?,
        shipping_cents: money(Field::Shipping)?,
    }))
}

fn malformed(err: &csv::Error) -> ImportError {
    let line = err.position().map_or(0, csv::Position::line);
    ImportError::Malformed {
        line,
        reason: match err.kind() {
            csv::ErrorKind::UnequalLengths {
                expected_len, len, ..
            } => format!("{len} cells where the header has {expected_len}"),
            csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".to_owned(),
            _ => err.to_string(),
        },
    }
}

/// Holdings and their sales as CSV, with the headers [`parse_portfolio_csv`] reads back.
pub fn portfolio_csv<'a>(
    rows: impl IntoIterator<Item = (&'a Pair, Option<&'a Sale>)>,
) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(Field::EXPORTED.iter().map(|f| f.header()))?;
    for (pair, sale) in rows {
        let date = |d: NaiveDate| d.format("%Y-%m-%d").to_string();
        writer.write_record([
            pair.sku.clone(),
            pair.size.clone(),
            pair.title.clone(),
            pair.condition.code().to_owned(),
            date(pair.purchased_on),
            amount_from_cents(pair.cost_cents),
            pair.currency.clone(),
            pair.bought_from.clone(),
            pair.notes.clone(),
            pair.tags.join("; "),
            sale.map_or_else(String::new, |s| date(s.sold_on)),
            sale.map_or_else(String::new, |s| amount_from_cents(s.price_cents)),
            sale.map_or_else(String::new, |s| s.marketplace.clone()),
            sale.map_or_else(String::new, |s| amount_from_cents(s.fees_cents)),
            sale.map_or_else(String::new, |s| amount_from_cents(s.shipping_cents)),
            pair.product_id.clone(),
            pair.slug.clone(),
        ])?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
