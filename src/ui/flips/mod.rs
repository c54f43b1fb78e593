//! The Flips tab: every size in stock at the user's stores that sells for more than it costs
//! after fees, ranked by profit (the service's `GET /api/v2/flips`, which the app fetches), each
//! number with its inputs and their age on hover. Filters: least profit and ROI (the user's
//! thresholds, which the alerts use too), my sizes, store, brand. The user's costs, fees, sizes
//! and alerts are edited here (`settings.rs`), where a reseller looks for them; the table draws
//! only its visible rows (`table.rs`).
//!
//! Without any store the demo's simulated retailer stands in, and the tab says so.

mod settings;
mod table;

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

pub use self::table::{FlipsOrder, age};
use super::fetched::Fetched;
use super::format;
use super::market::PayoutState;
use crate::model::flip_prefs::{FlipNotice, FlipPrefs};
use crate::model::flips::FlipsAnswer;

/// The tab's own choices, kept between runs in the app state (the costs, fees, thresholds and
/// sizes live in the user database).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FlipsView {
    /// Only this store's rows (its name as the list gives it); empty: every store.
    pub store: String,
    /// Only this brand's rows; empty: every brand.
    pub brand: String,
    /// Only my sizes (sent to the service).
    pub my_sizes_only: bool,
    /// The costs, fees and alerts section is open.
    pub settings_open: bool,
}

/// The list as the app fetched it: every page of one build.
#[derive(Debug, Clone, PartialEq)]
pub struct FlipsList {
    /// The first page's answer, with the rows of every page.
    pub answer: FlipsAnswer,
    /// Every page came from one build of the list (else the rows are a part, and say so).
    pub complete: bool,
}

/// What the tab draws.
pub struct FlipsInputs<'a> {
    /// The list.
    pub list: Fetched<'a, FlipsList>,
    /// Changes whenever another list lands (the table's order is computed again).
    pub generation: u64,
    /// Seconds since the list in hand arrived: every age shown grows by it.
    pub received_secs_ago: u64,
    /// The user's settings are read (before that they are not edited).
    pub settings_ready: bool,
    /// Why the settings could not be read or saved, when they could not.
    pub settings_error: Option<&'a str>,
    /// The latest flips notified, newest first.
    pub notices: &'a [FlipNotice],
    /// Now, Unix seconds (for the notices' ages).
    pub now_unix: i64,
}

/// What the user edits in the tab: the settings kept in the user database, my sizes, and the
/// payout calculator's rates (one set shared by both).
pub struct FlipsEdit<'a> {
    /// The flip settings.
    pub prefs: &'a mut FlipPrefs,
    /// My sizes.
    pub sizes: &'a mut Vec<String>,
    /// The payout calculator's preset and rates.
    pub payout: &'a mut PayoutState,
}

/// What the user asked for.
#[derive(Debug, Default)]
pub struct FlipsOutput {
    /// The flip settings changed (save them, ask again).
    pub prefs_changed: bool,
    /// My sizes changed (save them, ask again).
    pub sizes_changed: bool,
    /// Ask for the list again (the button, a failed fetch's retry, the sizes filter).
    pub refresh: bool,
    /// Open this product in the product view.
    pub open: Option<String>,
}

/// The least-profit and least-ROI fields: 0 is "any row that pays".
fn thresholds_ui(ui: &mut egui::Ui, prefs: &mut FlipPrefs) -> bool {
    let mut changed = false;
    let name = ui.label("Least profit");
    let mut profit = prefs.min_profit_cents.unwrap_or(0) as f64 / 100.0;
    if ui
        .add(
            egui::DragValue::new(&mut profit)
                .range(-10_000.0..=100_000.0)
                .speed(1.0)
                .fixed_decimals(2),
        )
        .labelled_by(name.id)
        .on_hover_text("In each row's currency; 0: every row that pays")
        .changed()
    {
        let cents = (profit * 100.0).round() as i64;
        prefs.min_profit_cents = (cents != 0).then_some(cents);
        changed = true;
    }
    let name = ui.label("Least ROI");
    let mut roi = prefs.min_roi.unwrap_or(0.0) * 100.0;
    if ui
        .add(
            egui::DragValue::new(&mut roi)
                .range(0.0..=1_000.0)
                .speed(0.5)
                .max_decimals(1)
                .suffix(" %"),
        )
        .labelled_by(name.id)
        .on_hover_text("Profit / buy cost; 0: any")
        .changed()
    {
        prefs.min_roi = (roi > 0.0).then_some(roi / 100.0);
        changed = true;
    }
    changed
}

/// A combo named `name` of `choices` with "any" first, over `picked` (empty: any).
fn choice_ui(ui: &mut egui::Ui, name: &str, any: &str, picked: &mut String, choices: &[String]) {
    let salt = ("flips_choice", name);
    let name = ui.label(name);
    let shown = if picked.is_empty() {
        any
    } else {
        picked.as_str()
    };
    egui::ComboBox::from_id_salt(salt)
        .selected_text(shown)
        .show_ui(ui, |ui| {
            ui.selectable_value(picked, String::new(), any);
            for choice in choices {
                ui.selectable_value(picked, choice.clone(), choice);
            }
        })
        .response
        .labelled_by(name.id);
}

/// One line on the list: when it was built, what it covers, and what gave no row.
fn summary_ui(ui: &mut egui::Ui, list: &FlipsList, shown: usize, now_unix: i64) {
    let answer = &list.answer;
    ui.horizontal_wrapped(|ui| {
        ui.label(format!(
            "{} of {} rows",
            format::count(shown as u64),
            format::count(answer.total)
        ));
        if let Some(as_of) = &answer.as_of {
            let built = chrono::DateTime::parse_from_rfc3339(as_of)
                .map(|at| u64::try_from(now_unix - at.timestamp()).unwrap_or(0));
            let text = built.map_or_else(
                |_| format!("· built at {as_of}"),
                |secs| format!("· built {} ago", age(secs)),
            );
            ui.weak(text)
                .on_hover_text(format!("The list was built at {as_of}"));
        }
        for market in &answer.markets {
            let mut text = format!(
                "· {}: {} of {} style codes priced ({})",
                market.market,
                market.priced,
                market.codes,
                market.sources.join(", ")
            );
            if market.requests > 0 {
                let _ = write!(text, ", {} batched calls", market.requests);
            }
            let hover = market.note.clone().unwrap_or_else(|| {
                format!(
                    "Oldest price: {}",
                    market.oldest_price.as_deref().unwrap_or("—")
                )
            });
            ui.weak(text).on_hover_text(hover);
        }
        let skipped: u64 = answer.skipped.iter().map(|s| s.count).sum();
        if skipped > 0 {
            let why: Vec<String> = answer
                .skipped
                .iter()
                .map(|s| format!("{}: {} (e.g. {})", s.reason, s.count, s.example))
                .collect();
            ui.weak(format!(
                "· {} sizes in stock gave no row",
                format::count(skipped)
            ))
            .on_hover_text(why.join("\n"));
        }
        if !list.complete {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "· a part of the list: it was rebuilt while read, or is longer than 10,000 rows",
            );
        }
    });
    for note in &answer.notes {
        ui.weak(note);
    }
}

/// The stores of the list, as the stores' costs are set for.
fn stores_of(list: Option<&FlipsList>) -> Vec<String> {
    list.map(|list| {
        list.answer
            .stores
            .iter()
            .map(|store| store.store.clone())
            .collect()
    })
    .unwrap_or_default()
}

/// The latest flips notified.
fn notices_ui(ui: &mut egui::Ui, notices: &[FlipNotice], now_unix: i64) {
    if notices.is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("Notified lately ({})", notices.len()))
        .id_salt("flip_notices")
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("flip_notices_scroll")
                .max_height(120.0)
                .show(ui, |ui| {
                    for notice in notices {
                        let flip = &notice.flip;
                        let ago = u64::try_from(now_unix - notice.notified_at).unwrap_or(0);
                        ui.label(format!(
                            "{} ago · {} · {} US {} at {}: profit {} ({})",
                            age(ago),
                            notice.reason.as_str(),
                            flip.title,
                            flip.size,
                            flip.store,
                            format::money_from_cents(flip.profit_cents, &flip.currency),
                            format::share(flip.roi),
                        ));
                    }
                });
        });
}

/// The tab.
pub fn flips_ui(
    ui: &mut egui::Ui,
    view: &mut FlipsView,
    order: &mut FlipsOrder,
    edit: &mut FlipsEdit<'_>,
    inputs: &FlipsInputs<'_>,
) -> FlipsOutput {
    let mut output = FlipsOutput::default();
    let list = inputs.list.value();
    ui.horizontal(|ui| {
        ui.heading("Flips");
        ui.weak("sizes in stock at your stores that pay after fees, most profit first");
        if inputs.list.is_pending() {
            ui.spinner();
        }
        if ui
            .button("Refresh")
            .on_hover_text("Ask for the list again (it costs no call: the list in hand)")
            .clicked()
        {
            output.refresh = true;
        }
    });
    if let Some(list) = list.filter(|list| list.answer.simulated) {
        let store = list
            .answer
            .stores
            .first()
            .map_or("retailer-a (simulated)", |s| s.store.as_str());
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!(
                "Simulated: no store is configured, so the demo's {store} stands in. It is not a \
                 real shop and its prices are generated. Add a Shopify store in Settings to scan \
                 real ones."
            ),
        );
    }
    ui.horizontal_wrapped(|ui| {
        if inputs.settings_ready {
            output.prefs_changed |= thresholds_ui(ui, edit.prefs);
        }
        ui.separator();
        let sizes = if edit.sizes.is_empty() {
            "none kept".to_owned()
        } else {
            edit.sizes.join(", ")
        };
        let mine = ui
            .checkbox(&mut view.my_sizes_only, "Only my sizes")
            .on_hover_text(format!(
                "My sizes: {sizes} (edit them under Your costs, fees and alerts)"
            ));
        output.refresh |= mine.changed();
        ui.separator();
        choice_ui(ui, "Store", "any store", &mut view.store, order.stores());
        choice_ui(ui, "Brand", "any brand", &mut view.brand, order.brands());
    });
    if let Some(err) = inputs.settings_error {
        ui.colored_label(ui.visuals().error_fg_color, err);
    }
    let header = egui::CollapsingHeader::new("Your costs, fees and alerts")
        .id_salt("flip_settings_header")
        .open(Some(view.settings_open))
        .show(ui, |ui| {
            if inputs.settings_ready {
                let stores = stores_of(list);
                let change =
                    settings::flip_settings_ui(ui, edit.prefs, edit.sizes, edit.payout, &stores);
                output.prefs_changed |= change.prefs;
                output.sizes_changed |= change.sizes;
            } else {
                ui.weak("Reading your settings…");
            }
        });
    if header.header_response.clicked() {
        view.settings_open = !view.settings_open;
    }
    notices_ui(ui, inputs.notices, inputs.now_unix);
    ui.separator();
    match (inputs.list, list) {
        (Fetched::Failed(err), _) => {
            output.refresh |= super::widgets::error_ui(ui, "The flip list", err);
        }
        (_, None) => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak("Asking for the list…");
            });
        }
        (_, Some(list)) if list.answer.building => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak("Building the list: reading the stores' stock and pricing it…");
            });
        }
        (_, Some(list)) => {
            let rows = &list.answer.flips;
            order.refresh(rows, inputs.generation, &view.store, &view.brand);
            summary_ui(ui, list, order.shown().len(), inputs.now_unix);
            if order.shown().is_empty() {
                ui.weak(
                    "No size in stock pays above your thresholds right now. Lower them, or add \
                     stores in Settings.",
                );
            } else {
                output.open =
                    table::flips_table_ui(ui, rows, order.shown(), inputs.received_secs_ago);
            }
        }
    }
    output
}
