//! The CSV export of weekly series.

use super::weekly::{Week, weeks_from_records};
use crate::model::WeeklyOrder;

/// A CSV export that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("could not write the CSV: {0}")]
pub struct CsvError(#[from] csv::Error);

/// Header of the weekly CSV export.
pub const ORDERS_CSV_HEADER: [&str; 6] = ["product", "week", "orders", "aov", "gmv", "rank"];

/// The weekly series of several products as CSV: header `product,week,orders,aov,gmv,rank`,
/// one row per product and week, products in the given order, oldest week first, weeks as
/// `YYYY-MM-DD`. Records with an unreadable date are left out, as in the charts.
pub fn orders_csv(products: &[(&str, &[WeeklyOrder])]) -> Result<String, CsvError> {
    let weeks: Vec<(&str, Vec<Week>)> = products
        .iter()
        .map(|(product, records)| (*product, weeks_from_records(records)))
        .collect();
    let borrowed: Vec<(&str, &[Week])> = weeks
        .iter()
        .map(|(product, weeks)| (*product, weeks.as_slice()))
        .collect();
    weeks_csv(&borrowed)
}

/// [`orders_csv`] for weeks already read (oldest first), as the orders view keeps them.
pub fn weeks_csv(products: &[(&str, &[Week])]) -> Result<String, CsvError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(ORDERS_CSV_HEADER)?;
    for (product, weeks) in products {
        for week in *weeks {
            writer.write_record([
                (*product).to_owned(),
                week.start.format("%Y-%m-%d").to_string(),
                week.orders.to_string(),
                format!("{:.2}", week.aov),
                format!("{:.2}", week.gmv),
                week.position.map(|p| p.to_string()).unwrap_or_default(),
            ])?;
        }
    }
    let bytes = writer
        .into_inner()
        .map_err(|err| CsvError(csv::Error::from(err.into_error())))?;
    // Every field written is a Rust string or ASCII digits, so the bytes are UTF-8.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
