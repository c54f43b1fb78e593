//! CSV in and out: a file is read into a preview first (its columns as mapped, its lines, or the
//! line and column of its first bad cell); nothing is written until the preview is confirmed.

use super::{PortfolioForm, PortfolioOutput};
use crate::figures::ImportPreview;
use crate::ui::format;

/// The lines shown in a preview.
const PREVIEW_LINES: usize = 20;

/// The state of a CSV import.
#[derive(Debug, Clone, Copy, Default)]
pub enum ImportView<'a> {
    /// Nothing read.
    #[default]
    Idle,
    /// The file is being read (or the import written).
    Working,
    /// The file was read: this is what would be imported.
    Preview(&'a ImportPreview),
    /// The file was refused (or the import failed): why. Nothing was imported.
    Failed(&'a str),
    /// The last import wrote this many pairs.
    Imported(usize),
}

/// The import and export section.
pub(super) fn transfer_ui(
    ui: &mut egui::Ui,
    form: &mut PortfolioForm,
    import: &ImportView<'_>,
    output: &mut PortfolioOutput,
) {
    ui.strong("Import a CSV");
    ui.weak(
        "Columns are found by their headers (style code, size, cost, purchase date are needed; \
         condition, title, currency, store, notes, tags and sale columns are read when present). \
         All or nothing: one bad cell and nothing is imported.",
    );
    ui.horizontal(|ui| {
        let label = ui.label("CSV file");
        ui.add(
            egui::TextEdit::singleline(&mut form.import_path)
                .id_salt("portfolio_import_path")
                .desired_width(360.0),
        )
        .labelled_by(label.id);
        let working = matches!(import, ImportView::Working);
        if ui
            .add_enabled(
                !working && !form.import_path.trim().is_empty(),
                egui::Button::new("Preview"),
            )
            .clicked()
        {
            output.preview_import = Some(form.import_path.trim().to_owned());
        }
        if working {
            ui.spinner();
        }
    });
    match import {
        ImportView::Idle | ImportView::Working => {}
        ImportView::Failed(err) => {
            ui.colored_label(ui.visuals().error_fg_color, *err);
        }
        ImportView::Imported(count) => {
            ui.label(format!(
                "Imported {}.",
                format::counted(*count as u64, "pair", "pairs")
            ));
        }
        ImportView::Preview(preview) => preview_ui(ui, preview, output),
    }
    ui.add_space(12.0);
    ui.separator();
    ui.strong("Export holdings and sales");
    ui.horizontal(|ui| {
        let label = ui.label("Export to");
        ui.add(
            egui::TextEdit::singleline(&mut form.export_path)
                .id_salt("portfolio_export_path")
                .desired_width(360.0)
                .hint_text("the downloads folder"),
        )
        .labelled_by(label.id);
        if ui.button("Export CSV").clicked() {
            output.export = Some(form.export_path.trim().to_owned());
        }
    });
}

fn preview_ui(ui: &mut egui::Ui, preview: &ImportPreview, output: &mut PortfolioOutput) {
    let sold = preview
        .rows
        .iter()
        .filter(|(_, sale)| sale.is_some())
        .count();
    ui.label(format!(
        "{} read ({} with a sale). Nothing is written until you import.",
        format::counted(preview.rows.len() as u64, "pair", "pairs"),
        format::count(sold as u64)
    ));
    let ignored: Vec<&str> = preview
        .columns
        .iter()
        .filter(|(_, field)| field.is_none())
        .map(|(header, _)| header.as_str())
        .collect();
    if !ignored.is_empty() {
        ui.weak(format!("Columns ignored: {}", ignored.join(", ")));
    }
    egui::Grid::new("import_preview")
        .striped(true)
        .num_columns(6)
        .show(ui, |ui| {
            for name in ["Style code", "Size", "Title", "Bought", "Cost", "Sale"] {
                ui.weak(name);
            }
            ui.end_row();
            for (pair, sale) in preview.rows.iter().take(PREVIEW_LINES) {
                ui.label(&pair.sku);
                ui.label(&pair.size);
                ui.label(&pair.title);
                ui.label(pair.purchased_on.to_string());
                ui.label(format::money_from_cents(pair.cost_cents, &pair.currency));
                ui.label(sale.as_ref().map_or_else(String::new, |s| {
                    format!(
                        "{} on {}",
                        format::money_from_cents(s.price_cents, &pair.currency),
                        s.sold_on
                    )
                }));
                ui.end_row();
            }
        });
    if preview.rows.len() > PREVIEW_LINES {
        ui.weak(format!("… and {} more", preview.rows.len() - PREVIEW_LINES));
    }
    ui.horizontal(|ui| {
        output.confirm_import = ui
            .add_enabled(
                !preview.rows.is_empty(),
                egui::Button::new(format!(
                    "Import {}",
                    format::counted(preview.rows.len() as u64, "pair", "pairs")
                )),
            )
            .clicked();
        output.cancel_import = ui.button("Cancel").clicked();
    });
}
