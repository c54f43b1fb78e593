//! The flip list written out for a person (a table for a terminal) or a script (CSV): every row
//! with what it rests on (buy cost, the sell price and where, the payout, recent sales, and how
//! old the store's and the marketplace's readings are).

use std::fmt::Write as _;

use super::portfolio::amount_from_cents;
use crate::model::flips::{Flip, FlipsAnswer, SalesScope};

/// The CSV columns, in order.
pub const FLIPS_CSV_HEADER: [&str; 31] = [
    "profit",
    "roi",
    "currency",
    "store",
    "style_code",
    "size",
    "size_label",
    "title",
    "brand",
    "buy_price",
    "shipping",
    "sales_tax",
    "buy_cost",
    "sell_venue",
    "sell_basis",
    "sell_price",
    "fees",
    "payout",
    "sales_30d",
    "sales_days",
    "sales_scope",
    "thin_market",
    "store_read_at",
    "price_source",
    "price_as_of",
    "store_url",
    "product_id",
    "matched_by",
    "simulated",
    "costs_are_defaults",
    "asks",
];

fn option<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

fn scope(scope: Option<SalesScope>) -> &'static str {
    match scope {
        Some(SalesScope::Size) => "size",
        Some(SalesScope::Product) => "product",
        None => "",
    }
}

/// `ROI` as a whole percentage (`134%`).
fn percent(roi: f64) -> String {
    format!("{:.0}%", roi * 100.0)
}

/// An age in seconds for a person: `45 s`, `12 min`, `3 h`, `2 d`.
fn age(secs: Option<u64>) -> String {
    match secs {
        None => "?".to_owned(),
        Some(s @ 0..60) => format!("{s} s"),
        Some(s @ 60..3_600) => format!("{} min", s / 60),
        Some(s @ 3_600..86_400) => format!("{} h", s / 3_600),
        Some(s) => format!("{} d", s / 86_400),
    }
}

fn csv_cells(row: &Flip) -> [String; 31] {
    [
        amount_from_cents(row.profit),
        format!("{:.4}", row.roi),
        row.currency.clone(),
        row.store.clone(),
        row.style_code.clone(),
        row.size.clone(),
        row.size_label.clone(),
        row.title.clone(),
        row.brand.clone(),
        amount_from_cents(row.buy_price),
        amount_from_cents(row.shipping),
        amount_from_cents(row.sales_tax),
        amount_from_cents(row.buy_cost),
        row.sell_venue.clone(),
        row.sell_basis.as_str().to_owned(),
        amount_from_cents(row.sell_price),
        amount_from_cents(row.fees),
        amount_from_cents(row.payout),
        option(row.sales_30d),
        option(row.sales_days),
        scope(row.sales_scope).to_owned(),
        row.thin_market.to_string(),
        row.store_read_at.clone().unwrap_or_default(),
        row.price_source.clone(),
        row.price_as_of.clone(),
        row.store_url.clone(),
        row.product_id.clone(),
        row.matched_by.clone(),
        row.simulated.to_string(),
        row.costs_are_defaults.to_string(),
        option(row.asks),
    ]
}

/// The rows as CSV, amounts in major units with two decimals (`157.06`), a header first.
pub fn flips_csv(rows: &[Flip]) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(FLIPS_CSV_HEADER)?;
    for row in rows {
        writer.write_record(csv_cells(row))?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The page as a table for a terminal: what it was built from first (the stores and when they
/// were read, the markets priced, the settings), then one line per row, then the sizes that
/// gave no row.
#[must_use]
pub fn flips_table(answer: &FlipsAnswer) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Flips as of {}: {} row(s) pay{}",
        answer.as_of.as_deref().unwrap_or("(not built yet)"),
        answer.total,
        if answer.simulated {
            " (SIMULATED: no store is configured, the simulator's retailer stands in)"
        } else {
            ""
        }
    );
    for store in &answer.stores {
        let _ = writeln!(
            out,
            "  store {}: {} products, {} sizes in stock, read {} ({})",
            store.store,
            store.products_in_stock,
            store.sizes_in_stock,
            store.read_at.as_deref().unwrap_or("never"),
            store.status
        );
    }
    for market in &answer.markets {
        let _ = writeln!(
            out,
            "  market {} ({}): {} of {} codes priced by {} in {} request(s), oldest price {}{}",
            market.market,
            market.currency,
            market.priced,
            market.codes,
            market.sources.join(", "),
            market.requests,
            market.oldest_price.as_deref().unwrap_or("-"),
            market
                .note
                .as_ref()
                .map(|n| format!("; {n}"))
                .unwrap_or_default()
        );
    }
    let settings = &answer.settings;
    let _ = writeln!(
        out,
        "  fees: {}% commission (seller level {}), {}% processing, {} flat; shipping {}, sales tax {}% at US-dollar stores{}",
        settings.fees.commission_percent,
        settings.seller_level,
        settings.fees.processing_percent,
        amount_from_cents(settings.fees.fixed_fee_cents),
        amount_from_cents(settings.shipping_cents),
        settings.sales_tax_percent,
        if settings.defaults.is_empty() {
            String::new()
        } else {
            format!(" (defaults: {})", settings.defaults.join(", "))
        }
    );
    let headers = [
        "profit",
        "roi",
        "store",
        "style code",
        "size",
        "buy cost",
        "sell",
        "payout",
        "sales",
        "read",
        "title",
    ];
    let lines: Vec<[String; 11]> = answer
        .flips
        .iter()
        .map(|row| {
            let sales = match (row.sales_30d, row.sales_days) {
                (Some(count), Some(days)) => format!(
                    "{count} in {days} d ({}){}",
                    scope(row.sales_scope),
                    if row.thin_market { " thin" } else { "" }
                ),
                _ => "none held (thin)".to_owned(),
            };
            [
                format!("{} {}", amount_from_cents(row.profit), row.currency),
                percent(row.roi),
                row.store.clone(),
                row.style_code.clone(),
                row.size.clone(),
                amount_from_cents(row.buy_cost),
                format!(
                    "{} {} {}",
                    amount_from_cents(row.sell_price),
                    row.sell_basis.as_str(),
                    row.sell_venue
                ),
                amount_from_cents(row.payout),
                sales,
                format!(
                    "store {}, price {}",
                    age(row.store_age_secs),
                    age(row.price_age_secs)
                ),
                row.title.clone(),
            ]
        })
        .collect();
    let mut widths = headers.map(str::len);
    for line in &lines {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let write_line = |out: &mut String, cells: &[String]| {
        let mut line = String::new();
        for (cell, width) in cells.iter().zip(widths) {
            let _ = write!(line, "{cell:<width$}  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    };
    write_line(&mut out, &headers.map(str::to_owned));
    for line in &lines {
        write_line(&mut out, line);
    }
    for skipped in &answer.skipped {
        let _ = writeln!(
            out,
            "  no row for {} size(s): {} (e.g. {})",
            skipped.count, skipped.reason, skipped.example
        );
    }
    for note in &answer.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::flips::{MarketPrice, StoreSize, flip};
    use crate::model::flips::FlipSettings;

    fn row() -> Flip {
        let size = StoreSize {
            product_id: "p-1",
            style_code: "DD1391-100",
            title: "Nike Dunk Low Retro, \"Panda\"",
            brand: "Nike",
            size: "8",
            size_label: "US 8",
            store: "kicks.example",
            store_origin: "https://kicks.example",
            store_url: "https://kicks.example/products/panda?variant=1",
            simulated: false,
            matched_by: "style code",
            price_cents: Some(10_000),
            currency: Some("USD"),
            read_at_unix: Some(1_795_000_000),
        };
        let market = MarketPrice {
            venue: "resale-b",
            currency: "USD",
            lowest_ask_cents: Some(31_200),
            highest_bid_cents: None,
            asks: Some(4),
            source: "kicksdb",
            as_of: "2026-11-18T11:06:40Z",
        };
        flip(
            &size,
            &[market],
            None,
            &FlipSettings::default(),
            1_795_000_600,
        )
        .unwrap()
    }

    #[test]
    fn csv_rows_carry_amounts_in_major_units_and_quote_titles() {
        let text = flips_csv(&[row()]).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next().unwrap(), FLIPS_CSV_HEADER.join(","));
        let line = lines.next().unwrap();
        assert!(
            line.starts_with("157.06,1.3367,USD,kicks.example,DD1391-100,8,US 8,"),
            "{line}"
        );
        assert!(
            line.contains(r#""Nike Dunk Low Retro, ""Panda""""#),
            "{line}"
        );
        assert!(line.contains(",100.00,10.00,7.50,117.50,resale-b,list at,312.00,37.44,274.56,"));
    }

    #[test]
    fn the_table_says_what_the_rows_rest_on() {
        let answer = FlipsAnswer {
            flips: vec![row()],
            as_of: Some("2026-11-18T11:16:40Z".into()),
            total: 1,
            page: 1,
            limit: 50,
            building: false,
            simulated: false,
            stores: Vec::new(),
            markets: Vec::new(),
            skipped: Vec::new(),
            settings: FlipSettings::default(),
            notes: Vec::new(),
        };
        let table = flips_table(&answer);
        assert!(table.contains("157.06 USD"), "{table}");
        assert!(table.contains("312.00 list at resale-b"), "{table}");
        assert!(table.contains("store 10 min, price 10 min"), "{table}");
        assert!(table.contains("none held (thin)"), "{table}");
        assert!(
            table.contains("defaults: seller_level, fees, shipping"),
            "{table}"
        );
    }
}
