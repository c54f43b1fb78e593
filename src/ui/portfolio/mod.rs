//! The portfolio panel: totals at the top (cost, market value, unrealized and realized P&L per
//! currency), the holdings and sales tables (sortable, filterable, drawn row by row only where
//! visible, so 10,000 pairs stay smooth), the sale form, CSV import with a preview and export.
//! The "Add to portfolio" form of the product view is here too ([`add_pair_ui`]).
//!
//! One file per concern: `tables` (the two tables and their sorted order), `forms` (adding a
//! pair, selling one), `transfer` (CSV import and export), `charts` (value by week, realized P&L
//! by month).

mod charts;
mod forms;
mod tables;
mod transfer;

use std::collections::BTreeMap;

pub use self::charts::{PortfolioCharts, WeeklyFigures};
pub use self::forms::{AddPairForm, AddPairOutput, SaleDraft, add_pair_ui};
pub use self::tables::{HoldingSort, SaleSort};
pub use self::transfer::ImportView;
use super::format;
use super::market::FeePreset;
use crate::figures::{Realized, Totals, Unrealized};
use crate::model::portfolio::{Holding, Sale};

/// Where a held pair's market value comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct MarketValue {
    /// The value, in cents of `currency`.
    pub cents: i64,
    /// Currency code.
    pub currency: String,
    /// Where it comes from and when: `lowest ask of size 10 from KicksDB, 12 min old`,
    /// `resale-a lowest ask, live at 14:02`.
    pub source: String,
}

/// Why a held pair has no market value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unpriced {
    /// Its prices are being fetched.
    Pricing,
    /// Not priced, and why: a sentence for a tooltip.
    Because(String),
}

/// A pair with its figures, as the tables draw it.
#[derive(Debug, Clone, PartialEq)]
pub struct HoldingRow {
    /// The pair (and its sale, once sold).
    pub holding: Holding,
    /// Its market value for its size, when known (held pairs only).
    pub market: Option<MarketValue>,
    /// Why a held pair has no `market` value (`None` for a pair valued, or sold).
    pub unpriced: Option<Unpriced>,
    /// Unrealized P&L at `market`, after the chosen marketplace's fees.
    pub unrealized: Option<Unrealized>,
    /// Realized P&L of a sold pair.
    pub realized: Option<Realized>,
    /// Lower-case text the filter searches: title, style code, size, tags, where bought, notes.
    pub search_text: String,
}

/// Which table is shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Section {
    /// The pairs held.
    #[default]
    Holdings,
    /// The pairs sold.
    Sales,
    /// CSV in and out.
    Transfer,
}

/// The panel's own state (not persisted).
#[derive(Debug, Default)]
pub struct PortfolioForm {
    /// The table shown.
    pub section: Section,
    /// The filter text.
    pub filter: String,
    /// The fees unrealized P&L is taken after.
    pub fee_preset: FeePreset,
    /// How the holdings are sorted.
    pub holding_sort: HoldingSort,
    /// How the sales are sorted.
    pub sale_sort: SaleSort,
    /// The sale being entered, if any.
    pub selling: Option<SaleDraft>,
    /// The pair whose removal waits for a confirmation.
    pub confirm_remove: Option<i64>,
    /// The file to import.
    pub import_path: String,
    /// The file to export to; empty for the downloads folder.
    pub export_path: String,
    order: tables::OrderCache,
}

/// What the panel is given.
pub struct PortfolioView<'a> {
    /// Every pair with its figures; `None` while the database is being read.
    pub rows: Option<&'a [HoldingRow]>,
    /// Bumped by the app whenever `rows` changes, so the sorted order is kept between frames.
    pub generation: u64,
    /// Totals per currency.
    pub totals: &'a BTreeMap<String, Totals>,
    /// Why the user database failed, if it did (shown with a retry).
    pub error: Option<&'a str>,
    /// A write is in flight.
    pub is_saving: bool,
    /// The CSV import in progress.
    pub import: ImportView<'a>,
    /// The charts, once there is something to draw.
    pub charts: Option<&'a PortfolioCharts>,
    /// The weekly figures the value-by-week chart is drawn from, fetched only once asked for.
    pub weekly: WeeklyFigures<'a>,
    /// Market prices are being fetched.
    pub pricing: bool,
    /// Why fetching market prices failed, if it did (shown with a retry).
    pub prices_error: Option<&'a str>,
}

/// What the user asked for.
#[derive(Debug, Default, PartialEq)]
pub struct PortfolioOutput {
    /// Record this sale of this pair.
    pub sell: Option<(i64, Sale)>,
    /// Remove this pair.
    pub remove: Option<i64>,
    /// Open this product.
    pub open: Option<String>,
    /// Read this file for an import preview.
    pub preview_import: Option<String>,
    /// Write the previewed import.
    pub confirm_import: bool,
    /// Drop the previewed import.
    pub cancel_import: bool,
    /// Export to this path (empty: the downloads folder).
    pub export: Option<String>,
    /// Read the database again after a failure.
    pub retry: bool,
    /// Fetch something the panel shows.
    pub fetch: Option<PortfolioFetch>,
}

/// What the user asked the panel to fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortfolioFetch {
    /// The market prices of every held style code, again.
    Prices,
    /// The weekly figures of the held products, for the value-by-week chart.
    WeeklyFigures,
}

/// The portfolio panel.
pub fn portfolio_ui(
    ui: &mut egui::Ui,
    form: &mut PortfolioForm,
    view: &PortfolioView<'_>,
) -> PortfolioOutput {
    let mut output = PortfolioOutput::default();
    ui.horizontal(|ui| {
        ui.heading("Portfolio");
        if view.is_saving {
            ui.spinner();
            ui.weak("saving…");
        }
    });
    if let Some(err) = view.error {
        ui.horizontal(|ui| {
            ui.colored_label(ui.visuals().error_fg_color, err);
            output.retry = ui.button("Retry").clicked();
        });
    }
    let Some(rows) = view.rows else {
        if view.error.is_none() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak("Reading the portfolio…");
            });
        }
        return output;
    };
    totals_ui(ui, view.totals, form);
    prices_line_ui(ui, view, &mut output);
    if let Some(charts) = view.charts {
        egui::CollapsingHeader::new("Charts")
            .default_open(true)
            .show(ui, |ui| {
                if charts::charts_ui(ui, charts, &view.weekly) {
                    output.fetch = Some(PortfolioFetch::WeeklyFigures);
                }
            });
    }
    ui.separator();
    // Ids of their own: the charts and messages above come and go, and must not shift the ids
    // of these controls (a click or the focus would land on nothing).
    ui.push_id("portfolio_sections", |ui| {
        ui.horizontal(|ui| {
            let held = rows.iter().filter(|r| r.holding.sale.is_none()).count();
            let sold = rows.len() - held;
            ui.selectable_value(
                &mut form.section,
                Section::Holdings,
                format!("Holdings ({held})"),
            );
            ui.selectable_value(&mut form.section, Section::Sales, format!("Sales ({sold})"));
            ui.selectable_value(&mut form.section, Section::Transfer, "Import / export CSV");
            ui.separator();
            ui.label("Filter");
            ui.add(
                egui::TextEdit::singleline(&mut form.filter)
                    .id_salt("portfolio_filter")
                    .desired_width(160.0),
            )
            .on_hover_text("Title, style code, size, tag, where bought or notes");
        })
    });
    if let Some(draft) = &mut form.selling {
        let mut close = false;
        if let Some(row) = rows.iter().find(|r| r.holding.id == draft.holding_id) {
            let done = forms::sale_form_ui(ui, draft, row);
            if let Some(sale) = done.sale {
                output.sell = Some((draft.holding_id, sale));
                close = true;
            }
            close |= done.cancel;
        } else {
            close = true;
        }
        if close {
            form.selling = None;
        }
        ui.separator();
    }
    if let Some(id) = form.confirm_remove {
        match rows.iter().find(|r| r.holding.id == id) {
            Some(row) => {
                ui.horizontal(|ui| {
                    ui.label(format!(
                        "Remove {} (size {}) and its sale, if any, from the portfolio?",
                        row.holding.pair.title, row.holding.pair.size
                    ));
                    if ui.button("Remove pair").clicked() {
                        output.remove = Some(id);
                        form.confirm_remove = None;
                    }
                    if ui.button("Keep").clicked() {
                        form.confirm_remove = None;
                    }
                });
            }
            None => form.confirm_remove = None,
        }
    }
    match form.section {
        Section::Holdings => {
            if rows.is_empty() {
                ui.weak(
                    "No pair yet. Open a product and use \"Add to portfolio\", or import a CSV.",
                );
            }
            let action = tables::holdings_table_ui(ui, form, rows, view.generation);
            if let Some(id) = action.sell {
                form.selling = Some(SaleDraft::new(id, form.fee_preset));
            }
            form.confirm_remove = action.remove.or(form.confirm_remove);
            output.open = action.open;
        }
        Section::Sales => {
            let action = tables::sales_table_ui(ui, form, rows, view.generation);
            output.open = action.open;
            form.confirm_remove = action.remove.or(form.confirm_remove);
        }
        Section::Transfer => transfer::transfer_ui(ui, form, &view.import, &mut output),
    }
    output
}

/// Where the market prices stand: being fetched, failed (with a retry), or a refresh button.
fn prices_line_ui(ui: &mut egui::Ui, view: &PortfolioView<'_>, output: &mut PortfolioOutput) {
    let held = view
        .rows
        .is_some_and(|rows| rows.iter().any(|r| r.holding.sale.is_none()));
    if !held {
        return;
    }
    ui.horizontal(|ui| {
        if view.pricing {
            ui.spinner();
            ui.weak("Fetching market prices (50 style codes a request)…");
        } else if let Some(err) = view.prices_error {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("Market prices could not all be fetched: {err}"),
            );
            if ui.button("Retry").clicked() {
                output.fetch = Some(PortfolioFetch::Prices);
            }
        } else {
            let refresh = ui
                .button("Refresh prices")
                .on_hover_text(
                    "Fetch the market prices of every held style code again, 50 codes a \
                     request (with KicksDB: one call per 50 codes)",
                )
                .clicked();
            if refresh {
                output.fetch = Some(PortfolioFetch::Prices);
            }
        }
    });
}

/// Totals per currency, with the marketplace whose fees the unrealized P&L is taken after.
fn totals_ui(ui: &mut egui::Ui, totals: &BTreeMap<String, Totals>, form: &mut PortfolioForm) {
    ui.horizontal(|ui| {
        let name = ui.label("Unrealized P&L after the fees of");
        egui::ComboBox::from_id_salt("portfolio_fees")
            .selected_text(form.fee_preset.label())
            .show_ui(ui, |ui| {
                for preset in FeePreset::ALL {
                    ui.selectable_value(&mut form.fee_preset, preset, preset.label());
                }
            })
            .response
            .labelled_by(name.id);
        ui.weak("(custom: the payout calculator's rates)");
    });
    if totals.is_empty() {
        return;
    }
    egui::Grid::new("portfolio_totals")
        .num_columns(6)
        .spacing([24.0, 4.0])
        .show(ui, |ui| {
            for name in [
                "Currency",
                "Cost held",
                "Market value",
                "Unrealized P&L",
                "Realized P&L",
                "Pairs",
            ] {
                ui.weak(name);
            }
            ui.end_row();
            for (currency, total) in totals {
                ui.strong(currency);
                ui.label(format::money_from_cents(total.cost_cents, currency));
                if total.valued == 0 {
                    ui.weak("—");
                } else {
                    ui.label(format::money_from_cents(total.market_cents, currency))
                        .on_hover_text(format!(
                            "{} of {} held pairs have a market value",
                            total.valued, total.held
                        ));
                }
                pnl_label(
                    ui,
                    (total.valued > 0).then_some(total.unrealized_cents),
                    currency,
                );
                pnl_label(
                    ui,
                    (total.sold > 0).then_some(total.realized_cents),
                    currency,
                );
                ui.label(format!(
                    "{} held · {} sold",
                    format::count(total.held as u64),
                    format::count(total.sold as u64)
                ));
                ui.end_row();
            }
        });
}

/// A P&L amount, signed and coloured; a dash when there is none.
pub(crate) fn pnl_label(ui: &mut egui::Ui, cents: Option<i64>, currency: &str) {
    match cents {
        None => {
            ui.weak("—");
        }
        Some(cents) => {
            let text = format::money_from_cents(cents, currency);
            let text = if cents >= 0 { format!("+{text}") } else { text };
            let color = if cents >= 0 {
                ui.visuals().widgets.noninteractive.fg_stroke.color
            } else {
                ui.visuals().error_fg_color
            };
            ui.colored_label(color, text);
        }
    }
}
