//! The answer of a `retailer-a` product lookup: its facts and every size with its stock.

use egui_extras::{Column, TableBuilder};

use super::{NO_PRICE, fact_ui, row_height, style_code_ui};
use crate::model::{RetailerProduct, RetailerVariant};
use crate::ui::format;

/// "in stock", "sold out", or "unavailable" for a size the retailer has no price for.
fn stock_text(variant: &RetailerVariant) -> &'static str {
    match (variant.available, format::positive(variant.price).is_some()) {
        (true, _) => "in stock",
        (false, true) => "sold out",
        (false, false) => "unavailable",
    }
}

pub(super) fn retailer_product_ui(ui: &mut egui::Ui, product: &RetailerProduct) {
    ui.heading(&product.title);
    egui::Grid::new("retailer_facts")
        .num_columns(2)
        .spacing([16.0, 4.0])
        .show(ui, |ui| {
            style_code_ui(ui, &product.sku);
            fact_ui(ui, "Brand", &product.brand);
            fact_ui(ui, "Colourway", &product.colorway);
            fact_ui(ui, "Release", &product.release_date);
            fact_ui(ui, "Type", &product.product_type);
            fact_ui(ui, "Updated", &product.updated_at);

            ui.weak("Cheapest size in stock");
            let cheapest = product
                .variants
                .iter()
                .filter(|variant| variant.available)
                .filter_map(|variant| format::positive(variant.price).map(|price| (variant, price)))
                .min_by(|(_, a), (_, b)| a.total_cmp(b));
            match cheapest {
                Some((variant, price)) => {
                    ui.strong(format!(
                        "{} (size {})",
                        format::money(price, &variant.currency),
                        variant.size
                    ));
                }
                None => {
                    ui.label("no size in stock");
                }
            }
            ui.end_row();
        });
    ui.add_space(8.0);

    let in_stock = product
        .variants
        .iter()
        .filter(|variant| variant.available)
        .count();
    ui.strong(format!(
        "Sizes ({in_stock} of {} in stock)",
        product.variants.len()
    ));
    if product.variants.is_empty() {
        ui.weak("The retailer lists no sizes.");
        return;
    }
    let height = row_height(ui);
    TableBuilder::new(ui)
        .id_salt("retailer_sizes")
        .striped(true)
        .vscroll(false)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(Column::auto().at_least(160.0))
        .column(Column::auto().at_least(90.0))
        .column(Column::auto().at_least(80.0))
        .column(Column::auto().at_least(110.0))
        .header(height, |mut header| {
            for name in ["Size", "Price", "Stock", "Barcode"] {
                header.col(|ui| {
                    ui.strong(name);
                });
            }
        })
        .body(|mut body| {
            for variant in &product.variants {
                body.row(height, |mut cells| {
                    cells.col(|ui| {
                        ui.label(&variant.size);
                    });
                    cells.col(|ui| {
                        if format::positive(variant.price).is_some() {
                            ui.label(format::money(variant.price, &variant.currency));
                        } else {
                            ui.weak("no price");
                        }
                    });
                    cells.col(|ui| {
                        let text = stock_text(variant);
                        if variant.available {
                            ui.label(text);
                        } else {
                            ui.weak(text);
                        }
                    });
                    cells.col(|ui| {
                        if variant.barcode.is_empty() {
                            ui.weak(NO_PRICE);
                        } else {
                            ui.monospace(format!("{} {}", variant.barcode_type, variant.barcode));
                        }
                    });
                });
            }
        });
}
