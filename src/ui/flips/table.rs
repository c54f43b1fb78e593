//! The flip table: one row per size in stock that pays, most profit first, drawn row by row
//! only where visible (thousands of rows stay smooth). Each number says on hover what it rests
//! on and how old its inputs are; a product opens in the product view, a store's page in the
//! browser.

use egui_extras::{Column, TableBuilder};

use crate::model::flips::{Flip, SalesScope, SellBasis, SellOption};
use crate::ui::format;

/// The rows shown and their order: those of the store and brand picked (any when empty), in the
/// list's order (most profit first); computed again only when the list or a filter changed.
#[derive(Debug, Default)]
pub struct FlipsOrder {
    key: Option<(u64, String, String)>,
    order: Vec<usize>,
    brands: Vec<String>,
    stores: Vec<String>,
}

impl FlipsOrder {
    /// Filters `rows` (the list of `generation`) by `store` and `brand`, unless done already.
    pub fn refresh(&mut self, rows: &[Flip], generation: u64, store: &str, brand: &str) {
        let key = (generation, store.to_owned(), brand.to_owned());
        if self.key.as_ref() == Some(&key) {
            return;
        }
        if self.key.as_ref().is_none_or(|(g, _, _)| *g != generation) {
            let mut brands: Vec<String> = rows.iter().map(|row| row.brand.clone()).collect();
            brands.sort_by_key(|b| b.to_lowercase());
            brands.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
            self.brands = brands;
            let mut stores: Vec<String> = rows.iter().map(|row| row.store.clone()).collect();
            stores.sort();
            stores.dedup();
            self.stores = stores;
        }
        self.order = rows
            .iter()
            .enumerate()
            .filter(|(_, row)| {
                (store.is_empty() || row.store == store)
                    && (brand.is_empty() || row.brand.eq_ignore_ascii_case(brand))
            })
            .map(|(at, _)| at)
            .collect();
        self.key = Some(key);
    }

    /// The rows shown, as indices into the list's rows.
    #[must_use]
    pub fn shown(&self) -> &[usize] {
        &self.order
    }

    /// The brands of the list's rows, each once.
    #[must_use]
    pub fn brands(&self) -> &[String] {
        &self.brands
    }

    /// The stores of the list's rows, each once.
    #[must_use]
    pub fn stores(&self) -> &[String] {
        &self.stores
    }
}

/// `secs` for a person: `45 s`, `12 min`, `3 h`, `2 d`.
#[must_use]
pub fn age(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3_600 => format!("{} min", secs / 60),
        3_600..172_800 => format!("{} h", secs / 3_600),
        _ => format!("{} d", secs / 86_400),
    }
}

/// The row's price at its own marketplace on `basis`, when the source gives one.
fn option_of(row: &Flip, basis: SellBasis) -> Option<&SellOption> {
    row.sell_options
        .iter()
        .filter(|option| option.venue == row.sell_venue && option.basis == basis)
        .max_by_key(|option| option.price)
}

/// The number only, at the currency's decimals (the row's currency is in the profit column and
/// in every hover).
fn amount(cents: i64, currency: &str) -> String {
    let text = format::money_from_cents(cents, currency);
    match text.strip_suffix(currency.trim()) {
        Some(number) if !currency.trim().is_empty() => number.trim_end().to_owned(),
        _ => text,
    }
}

/// A sell-price cell: the price, or a dash where the marketplace has none on that basis.
fn sell_cell_ui(ui: &mut egui::Ui, row: &Flip, basis: SellBasis, ages: u64) {
    if let Some(option) = option_of(row, basis) {
        let money = |cents| format::money_from_cents(cents, &row.currency);
        let what = match basis {
            SellBasis::SellNow => "highest bid (a sale now)",
            SellBasis::ListAt => "lowest ask (a new listing must match it to sell first)",
        };
        let age_text = row
            .price_age_secs
            .map_or_else(String::new, |secs| format!(", {} old", age(secs + ages)));
        let chosen = if basis == row.sell_basis {
            "\nThe row is reckoned at this price."
        } else {
            ""
        };
        ui.label(amount(option.price, &row.currency))
            .on_hover_text(format!(
                "{} at {}: {}\nFees {} → payout {}, profit {}\nFrom {} as of {}{age_text}{chosen}",
                money(option.price),
                option.venue,
                what,
                money(option.fees),
                money(option.payout),
                money(option.profit),
                option.source,
                option.as_of,
            ));
    } else {
        let why = match basis {
            SellBasis::SellNow => "no bid: the source gives no highest bid for this size",
            SellBasis::ListAt => "no ask for this size",
        };
        ui.weak("—").on_hover_text(why);
    }
}

/// The sales cell: the count and its window, and "thin" below the threshold.
fn sales_cell_ui(ui: &mut egui::Ui, row: &Flip) {
    let scope = match row.sales_scope {
        Some(SalesScope::Size) => "of this size",
        Some(SalesScope::Product) => "of the product (every size)",
        None => "",
    };
    let basis = match (row.sales_30d, row.sales_days) {
        (Some(count), Some(days)) => format!(
            "{} {scope} in the last {days} days, from {} as of {}",
            format::counted(u64::from(count), "sale", "sales"),
            row.sales_source.as_deref().unwrap_or("the source"),
            row.sales_as_of.as_deref().unwrap_or("—"),
        ),
        _ => "The source has no sales figures for this pair.".to_owned(),
    };
    let thin = if row.thin_market {
        "\nThin market: too few sales to count on a quick sale."
    } else {
        ""
    };
    ui.horizontal(|ui| {
        match (row.sales_30d, row.sales_days) {
            (Some(count), Some(days)) => ui.label(format!("{count} / {days} d")),
            _ => ui.weak("—"),
        };
        if row.thin_market {
            ui.colored_label(ui.visuals().warn_fg_color, "thin");
        }
    })
    .response
    .on_hover_text(format!("{basis}{thin}"));
}

/// The buy-cost cell: the cost, and on hover the price, shipping and tax it adds up.
fn buy_cell_ui(ui: &mut egui::Ui, row: &Flip, ages: u64) {
    let money = |cents| format::money_from_cents(cents, &row.currency);
    let defaults = if row.costs_are_defaults {
        " (shipping or tax is the default: set the store's own in Your costs)"
    } else {
        ""
    };
    let read = row.store_age_secs.map_or_else(
        || "when it was read is not known".to_owned(),
        |secs| format!("read {} ago", age(secs + ages)),
    );
    ui.label(amount(row.buy_cost, &row.currency))
        .on_hover_text(format!(
            "{} at {} + {} shipping + {} sales tax ({} %){defaults}\nThe store's price was {read}.",
            money(row.buy_price),
            row.store,
            money(row.shipping),
            money(row.sales_tax),
            row.sales_tax_percent,
        ));
}

/// The table; returns the product to open, if one was clicked.
pub(super) fn flips_table_ui(
    ui: &mut egui::Ui,
    rows: &[Flip],
    order: &[usize],
    ages: u64,
) -> Option<String> {
    let mut open = None;
    let height = ui.text_style_height(&egui::TextStyle::Body) + 6.0;
    TableBuilder::new(ui)
        .id_salt("flips_table")
        .striped(true)
        .auto_shrink([false, false])
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(
            Column::initial(170.0)
                .at_least(90.0)
                .clip(true)
                .resizable(true),
        )
        .column(Column::auto().at_least(34.0))
        .column(
            Column::initial(110.0)
                .at_least(60.0)
                .clip(true)
                .resizable(true),
        )
        .columns(Column::auto().at_least(58.0), 4)
        .column(Column::auto().at_least(84.0))
        .column(Column::auto().at_least(48.0))
        .column(Column::auto().at_least(62.0))
        .column(Column::remainder().at_least(70.0))
        .header(height, |mut header| {
            for (name, hover) in [
                (
                    "Product",
                    "The catalogue product the store's listing was matched to",
                ),
                ("Size", "US size"),
                ("Store", "Where it is in stock; opens the store's page"),
                ("Buy cost", "The store's price + shipping + sales tax"),
                ("Sell now", "The marketplace's highest bid: a sale now"),
                (
                    "List at",
                    "The marketplace's lowest ask: a listing that sells first",
                ),
                ("Payout", "The sell price less the marketplace's fees"),
                ("Profit", "Payout − buy cost"),
                ("ROI", "Profit / buy cost"),
                (
                    "Sales",
                    "Sales in the window the source gives (30 days, or four weeks)",
                ),
                (
                    "Read",
                    "How long ago the store's price · the sell price were read",
                ),
            ] {
                header.col(|ui| {
                    ui.strong(name).on_hover_text(hover);
                });
            }
        })
        .body(|body| {
            body.rows(height, order.len(), |mut cells| {
                let row = &rows[order[cells.index()]];
                cells.col(|ui| {
                    if ui
                        .link(&row.title)
                        .on_hover_text(format!(
                            "{} · {} · matched by {}\nOpen in the product view",
                            row.style_code, row.brand, row.matched_by
                        ))
                        .clicked()
                    {
                        open = Some(row.product_id.clone());
                    }
                });
                cells.col(|ui| {
                    ui.label(&row.size).on_hover_text(&row.size_label);
                });
                cells.col(|ui| {
                    if row.simulated {
                        ui.weak(&row.store).on_hover_text(
                            "The demo's simulated retailer, not a real shop: its stock comes and \
                             goes by the minute and it has no page to open",
                        );
                    } else {
                        ui.hyperlink_to(format!("{} ↗", row.store), &row.store_url)
                            .on_hover_text(format!("Open {} in the browser", row.store_url));
                    }
                });
                cells.col(|ui| buy_cell_ui(ui, row, ages));
                cells.col(|ui| sell_cell_ui(ui, row, SellBasis::SellNow, ages));
                cells.col(|ui| sell_cell_ui(ui, row, SellBasis::ListAt, ages));
                cells.col(|ui| {
                    let rates = row.fee_rates;
                    ui.label(amount(row.payout, &row.currency))
                        .on_hover_text(format!(
                            "{} {} at {} − fees {} ({} % commission + {} % processing + {} flat)",
                            row.sell_basis.as_str(),
                            format::money_from_cents(row.sell_price, &row.currency),
                            row.sell_venue,
                            format::money_from_cents(row.fees, &row.currency),
                            rates.commission_percent,
                            rates.processing_percent,
                            format::money_from_cents(rates.fixed_fee_cents, &row.currency),
                        ));
                });
                cells.col(|ui| {
                    let text = format::money_from_cents(row.profit, &row.currency);
                    let colour = if row.profit > 0 {
                        ui.visuals().text_color()
                    } else {
                        ui.visuals().error_fg_color
                    };
                    ui.colored_label(colour, text).on_hover_text(format!(
                        "payout {} − buy cost {}",
                        format::money_from_cents(row.payout, &row.currency),
                        format::money_from_cents(row.buy_cost, &row.currency),
                    ));
                });
                cells.col(|ui| {
                    ui.label(format::share(row.roi))
                        .on_hover_text("profit / buy cost");
                });
                cells.col(|ui| sales_cell_ui(ui, row));
                cells.col(|ui| {
                    let store_age = row
                        .store_age_secs
                        .map_or_else(|| "—".to_owned(), |secs| age(secs + ages));
                    let price_age = row
                        .price_age_secs
                        .map_or_else(|| "—".to_owned(), |secs| age(secs + ages));
                    ui.weak(format!("{store_age} · {price_age}"))
                        .on_hover_text(format!(
                            "The store's price and stock: read at {}\nThe sell price: {} as of {}",
                            row.store_read_at.as_deref().unwrap_or("—"),
                            row.price_source,
                            row.price_as_of,
                        ));
                });
            });
        });
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_a_person_says_them() {
        assert_eq!(age(0), "0 s");
        assert_eq!(age(59), "59 s");
        assert_eq!(age(60), "1 min");
        assert_eq!(age(3_599), "59 min");
        assert_eq!(age(7_200), "2 h");
        assert_eq!(age(172_800), "2 d");
    }
}
