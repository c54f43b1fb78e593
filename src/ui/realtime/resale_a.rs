//! The answer of a `resale-a` product lookup: its facts and every size with its lowest ask.

use egui_extras::{Column, TableBuilder};

use super::{RESALE_A_CURRENCY, date_part, fact_ui, row_height, style_code_ui};
use crate::figures::{lowest_size_ask, size_asks};
use crate::model::ResaleAProduct;
use crate::ui::format;

pub(super) fn resale_a_product_ui(ui: &mut egui::Ui, product: &ResaleAProduct) {
    ui.heading(&product.name);
    if !product.nickname.is_empty() && product.nickname != product.name {
        ui.weak(&product.nickname);
    }
    let sizes = size_asks(product);
    let currency = RESALE_A_CURRENCY;
    egui::Grid::new("resale_a_facts")
        .num_columns(2)
        .spacing([16.0, 4.0])
        .show(ui, |ui| {
            style_code_ui(ui, &product.sku);
            fact_ui(ui, "Brand", &product.brand_name);
            fact_ui(ui, "Colour", &product.color);
            fact_ui(ui, "Colourway", &product.details);
            fact_ui(ui, "Silhouette", &product.silhouette);
            fact_ui(ui, "Release", date_part(&product.release_date));
            fact_ui(ui, "Status", &product.status);
            fact_ui(
                ui,
                "Id · slug",
                &format!("{} · {}", product.id, product.slug),
            );

            ui.weak("Lowest ask across sizes");
            match lowest_size_ask(&sizes) {
                Some((size, cents)) => {
                    ui.strong(format!(
                        "{} (size {size})",
                        format::money_from_cents(cents, currency)
                    ));
                }
                None => {
                    ui.label("no size has an ask");
                }
            }
            ui.end_row();
            fact_ui(
                ui,
                "Lowest price, new",
                &format::price_from_cents(product.new_lowest_price_cents, currency),
            );
            fact_ui(
                ui,
                "Lowest price, used",
                &format::price_from_cents(product.used_lowest_price_cents, currency),
            );
            let local = &product.localized_special_display_price_cents;
            if !local.currency.eq_ignore_ascii_case(currency) {
                fact_ui(
                    ui,
                    "Local display price",
                    &format::price_from_cents(local.amount, &local.currency),
                );
            }
            fact_ui(
                ui,
                "For sale",
                &format!(
                    "{} new · {} used · {} with defects",
                    product.selling_count,
                    product.used_for_sale_count,
                    product.with_defect_for_sale_count
                ),
            );
        });
    ui.add_space(8.0);

    let with_ask = sizes
        .iter()
        .filter(|row| row.lowest_ask_cents.is_some())
        .count();
    ui.strong(format!(
        "Sizes ({with_ask} of {} with an ask, {})",
        sizes.len(),
        product.size_unit.to_uppercase()
    ));
    if sizes.is_empty() {
        ui.weak("The marketplace lists no sizes.");
        return;
    }
    let height = row_height(ui);
    TableBuilder::new(ui)
        .id_salt("resale_a_sizes")
        .striped(true)
        .vscroll(false)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(Column::auto().at_least(60.0))
        .column(Column::auto().at_least(110.0))
        .column(Column::auto().at_least(80.0))
        .header(height, |mut header| {
            for name in ["Size", "Lowest ask", "Availability"] {
                header.col(|ui| {
                    ui.strong(name);
                });
            }
        })
        .body(|mut body| {
            for row in &sizes {
                body.row(height, |mut cells| {
                    cells.col(|ui| {
                        ui.label(&row.size);
                    });
                    cells.col(|ui| match row.lowest_ask_cents {
                        Some(cents) => {
                            ui.label(format::money_from_cents(cents, currency));
                        }
                        None => {
                            ui.weak("no price");
                        }
                    });
                    cells.col(|ui| {
                        if row.lowest_ask_cents.is_some() {
                            ui.label("asks open");
                        } else {
                            ui.weak("no ask");
                        }
                    });
                });
            }
        });
}
