//! The product detail view: identity, prices, variants, release data and description.

use super::search::price_range;
use super::widgets::lock_ui;
use crate::model::{Product, Tier};

/// The detail of one product. `tier` is the key's tier when known.
pub fn detail_ui(ui: &mut egui::Ui, product: &Product, tier: Option<Tier>) {
    ui.heading(&product.title);
    egui::Grid::new("product_facts")
        .num_columns(2)
        .spacing([16.0, 4.0])
        .show(ui, |ui| {
            ui.weak("Brand");
            ui.label(&product.brand);
            ui.end_row();
            ui.weak("Colorway");
            ui.label(&product.color);
            ui.end_row();
            ui.weak("Category");
            ui.label(&product.category);
            ui.end_row();
            ui.weak("Gender");
            ui.label(&product.gender);
            ui.end_row();
            ui.weak("Style code");
            ui.horizontal(|ui| {
                ui.monospace(&product.sku);
                if ui
                    .small_button("Copy")
                    .on_hover_text("Copy the style code")
                    .clicked()
                {
                    ui.ctx().copy_text(product.sku.clone());
                }
            });
            ui.end_row();
            ui.weak("Price");
            ui.label(format!(
                "min {:.2} · avg {:.2} · max {:.2} {}",
                product.min_price, product.avg_price, product.max_price, product.currency
            ));
            ui.end_row();
        });
    ui.add_space(8.0);

    ui.strong("Release dates and retail prices");
    match (&product.release_dates, &product.retail_prices) {
        (Some(dates), Some(prices)) => {
            for date in dates {
                ui.label(format!("Released {} ({})", date.release_date, date.source));
            }
            for price in prices {
                ui.label(format!(
                    "Retail {:.2} {} ({})",
                    price.price, price.currency, price.source
                ));
            }
            if dates.is_empty() && prices.is_empty() {
                ui.weak("None known.");
            }
        }
        // The service leaves both out for keys below pro.
        _ => lock_ui(ui, "Release dates and retail prices", Tier::Pro, tier),
    }
    ui.add_space(8.0);

    ui.strong(format!("Variants ({})", product.variants.len()));
    egui::Grid::new("product_variants")
        .num_columns(3)
        .striped(true)
        .spacing([24.0, 2.0])
        .show(ui, |ui| {
            ui.weak("Size");
            ui.weak("Price");
            ui.weak("GTIN");
            ui.end_row();
            for variant in &product.variants {
                ui.label(&variant.size);
                if variant.price > 0.0 {
                    ui.label(price_range(variant.price, variant.price, &variant.currency));
                } else {
                    ui.weak("no price");
                }
                ui.horizontal(|ui| {
                    ui.monospace(&variant.gtin);
                    if ui
                        .small_button("Copy")
                        .on_hover_text("Copy the GTIN")
                        .clicked()
                    {
                        ui.ctx().copy_text(variant.gtin.clone());
                    }
                });
                ui.end_row();
            }
        });
    ui.add_space(8.0);

    ui.strong("Description");
    ui.label(text_from_description(&product.description));
}

/// The description as plain text: `<br>` tags (any spelling) become line breaks and any other
/// tag is dropped, so no raw HTML reaches the screen.
#[must_use]
pub fn text_from_description(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        text.push_str(&rest[..start]);
        let Some(len) = rest[start..].find('>') else {
            // A lone `<` is text.
            text.push_str(&rest[start..]);
            return text;
        };
        let tag = rest[start + 1..start + len]
            .trim()
            .trim_end_matches('/')
            .trim()
            .to_ascii_lowercase();
        if tag == "br" {
            text.push('\n');
        }
        rest = &rest[start + len + 1..];
    }
    text.push_str(rest);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn br_tags_become_line_breaks_and_other_tags_go() {
        assert_eq!(
            text_from_description("One<br>two<BR/>three<br />four <b>bold</b> 1 < 2"),
            "One\ntwo\nthree\nfour bold 1 < 2"
        );
    }
}
