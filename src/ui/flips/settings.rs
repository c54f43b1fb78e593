//! The Flips tab's settings, where a reseller looks for them: the seller level and the fee rates
//! at the marketplace the rows sell on (the user's own rates are the payout calculator's, one set
//! shared by both), shipping and sales tax by default and per store (defaults shown as
//! defaults), my sizes, and the flip alerts.

use crate::figures::{FeeRates, RESALE_B_DEFAULT_FEES};
use crate::model::flip_prefs::FlipPrefs;
use crate::model::flips::{
    DEFAULT_SALES_TAX_PERCENT, DEFAULT_SHIPPING_CENTS, FeeSchedule, MAX_SELLER_LEVEL, PRICED_VENUE,
};
use crate::model::sizes::mens_run;
use crate::ui::format;
use crate::ui::market::{FeePreset, PayoutState};

/// A percentage field (0 to 100), labelled by `name`.
fn percent_ui(ui: &mut egui::Ui, value: &mut f64, name: egui::Id) -> bool {
    ui.add(
        egui::DragValue::new(value)
            .range(0.0..=100.0)
            .speed(0.1)
            .max_decimals(3)
            .suffix(" %"),
    )
    .labelled_by(name)
    .changed()
}

/// An amount field in major units (0 to 10,000), labelled by `name`.
fn major_ui(ui: &mut egui::Ui, major: &mut f64, name: egui::Id) -> bool {
    ui.add(
        egui::DragValue::new(major)
            .range(0.0..=10_000.0)
            .speed(0.5)
            .fixed_decimals(2),
    )
    .labelled_by(name)
    .changed()
}

/// An amount in cents that may be left at `default_cents` (`None`): the field shows the amount
/// in force, "default" beside it, or a button back to the default once set.
fn optional_cents_ui(
    ui: &mut egui::Ui,
    value: &mut Option<i64>,
    default_cents: i64,
    name: egui::Id,
) -> bool {
    let mut major = value.unwrap_or(default_cents) as f64 / 100.0;
    let mut changed = false;
    if major_ui(ui, &mut major, name) {
        *value = Some((major * 100.0).round() as i64);
        changed = true;
    }
    changed | default_marker_ui(ui, value)
}

/// A percentage that may be left at `default` (`None`), as [`optional_cents_ui`].
fn optional_percent_ui(
    ui: &mut egui::Ui,
    value: &mut Option<f64>,
    default: f64,
    name: egui::Id,
) -> bool {
    let mut percent = value.unwrap_or(default);
    let mut changed = false;
    if percent_ui(ui, &mut percent, name) {
        *value = Some(percent);
        changed = true;
    }
    changed | default_marker_ui(ui, value)
}

/// "default" for a value left at its default; a button back to it for one the user set.
fn default_marker_ui<T>(ui: &mut egui::Ui, value: &mut Option<T>) -> bool {
    if value.is_none() {
        ui.weak("default")
            .on_hover_text("The service's default (an assumption: set your own)");
        return false;
    }
    if ui
        .small_button("↺ default")
        .on_hover_text("Back to the default")
        .clicked()
    {
        *value = None;
        return true;
    }
    false
}

/// The fee rates at the marketplace the rows sell on: the seller level's schedule, or the
/// user's own (the payout calculator's). Editing a rate makes the rates the user's own in both
/// places. Whether anything changed.
fn fees_ui(ui: &mut egui::Ui, prefs: &mut FlipPrefs, payout: &mut PayoutState) -> bool {
    let mut changed = false;
    let name = ui.weak(format!("Seller level at {PRICED_VENUE}"));
    let mut level = prefs.seller_level;
    egui::ComboBox::from_id_salt("flips_seller_level")
        .selected_text(format!("Level {level}"))
        .show_ui(ui, |ui| {
            for choice in 1..=MAX_SELLER_LEVEL {
                let fees = FeeSchedule::seller_level(choice);
                ui.selectable_value(
                    &mut level,
                    choice,
                    format!(
                        "Level {choice}: {} % + {} %",
                        fees.commission_percent, fees.processing_percent
                    ),
                );
            }
        })
        .response
        .labelled_by(name.id)
        .on_hover_text(
            "The largest marketplace charges by seller level: 9 % commission at level 1 down to \
             7 % at the top, plus 3 % payment processing (public fee calculators, 2025; the \
             levels between spaced evenly)",
        );
    if level != prefs.seller_level {
        prefs.seller_level = level;
        changed = true;
    }
    ui.end_row();

    let fees = prefs.fees();
    let mut commission = fees.commission_percent;
    let mut processing = fees.processing_percent;
    let mut flat = fees.fixed_fee_cents as f64 / 100.0;
    let mut edited = false;
    let name = ui.weak("Commission");
    ui.horizontal(|ui| {
        edited |= percent_ui(ui, &mut commission, name.id);
        if prefs.own_fees.is_some() {
            ui.weak("your own rates (the payout calculator's)");
        } else {
            ui.weak(format!("level {}'s", prefs.seller_level));
        }
    });
    ui.end_row();
    let name = ui.weak("Processing");
    edited |= percent_ui(ui, &mut processing, name.id);
    ui.end_row();
    let name = ui.weak("Flat fee per sale");
    ui.horizontal(|ui| {
        edited |= major_ui(ui, &mut flat, name.id);
        if prefs.own_fees.is_some()
            && ui
                .small_button(format!("↺ level {}'s fees", prefs.seller_level))
                .on_hover_text(
                    "Use the seller level's schedule again (the payout calculator goes back to \
                     its resale-b preset)",
                )
                .clicked()
        {
            prefs.own_fees = None;
            payout.preset = FeePreset::ResaleB;
            payout.rates = RESALE_B_DEFAULT_FEES;
            changed = true;
        }
    });
    ui.end_row();
    if edited {
        let own = FeeSchedule {
            commission_percent: commission,
            processing_percent: processing,
            fixed_fee_cents: (flat * 100.0).round() as i64,
        };
        prefs.own_fees = Some(own);
        payout.preset = FeePreset::Custom;
        payout.rates = FeeRates {
            commission_percent: commission,
            processing_percent: processing,
            fixed_fee: flat,
        };
        changed = true;
    }
    changed
}

/// Shipping and sales tax by default and at each of `stores`.
fn costs_ui(ui: &mut egui::Ui, prefs: &mut FlipPrefs, stores: &[String]) -> bool {
    let mut changed = false;
    let name = ui.weak("Shipping per pair");
    ui.horizontal(|ui| {
        changed |= optional_cents_ui(
            ui,
            &mut prefs.shipping_cents,
            DEFAULT_SHIPPING_CENTS,
            name.id,
        );
    });
    ui.end_row();
    let name = ui.weak("Sales tax (US-dollar stores)");
    ui.horizontal(|ui| {
        changed |= optional_percent_ui(
            ui,
            &mut prefs.tax_percent,
            DEFAULT_SALES_TAX_PERCENT,
            name.id,
        );
    });
    ui.end_row();
    let default_shipping = prefs.shipping_cents.unwrap_or(DEFAULT_SHIPPING_CENTS);
    let default_tax = prefs.tax_percent.unwrap_or(DEFAULT_SALES_TAX_PERCENT);
    for store in stores {
        let own = prefs.store_costs(store).cloned();
        let mut shipping = own.as_ref().and_then(|c| c.shipping_cents);
        let mut tax = own.as_ref().and_then(|c| c.sales_tax_percent);
        let name = ui.weak(store);
        let mut edited = false;
        ui.horizontal(|ui| {
            ui.weak("shipping");
            edited |= optional_cents_ui(ui, &mut shipping, default_shipping, name.id);
            ui.weak("tax");
            edited |= optional_percent_ui(ui, &mut tax, default_tax, name.id);
        });
        ui.end_row();
        if edited {
            prefs.set_store_costs(store, shipping, tax);
            changed = true;
        }
    }
    changed
}

/// What the settings section changed.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct SettingsChange {
    pub(super) prefs: bool,
    pub(super) sizes: bool,
}

/// The section: fees, costs (by default and at each of `stores`), my sizes and the alerts.
pub(super) fn flip_settings_ui(
    ui: &mut egui::Ui,
    prefs: &mut FlipPrefs,
    sizes: &mut Vec<String>,
    payout: &mut PayoutState,
    stores: &[String],
) -> SettingsChange {
    let mut change = SettingsChange::default();
    egui::Grid::new("flip_settings")
        .num_columns(2)
        .spacing([12.0, 4.0])
        .show(ui, |ui| {
            change.prefs |= fees_ui(ui, prefs, payout);
            change.prefs |= costs_ui(ui, prefs, stores);
        });
    ui.add_space(4.0);
    ui.label("My sizes (US), for the “only my sizes” filter and the alerts:");
    ui.horizontal_wrapped(|ui| {
        for size in mens_run() {
            let mut mine = sizes.contains(&size);
            if ui.toggle_value(&mut mine, &size).changed() {
                if mine {
                    sizes.push(size);
                    crate::model::sizes::sort_sizes(sizes);
                } else {
                    sizes.retain(|s| *s != size);
                }
                change.sizes = true;
            }
        }
    });
    ui.add_space(4.0);
    ui.horizontal(|ui| {
        change.prefs |= ui
            .checkbox(&mut prefs.alerts, "Notify me of new flips")
            .on_hover_text(
                "A desktop notification for each new flip above your least profit and ROI (in \
                 your sizes, when you keep any), from the window or from solescope monitor; \
                 again only after it went and came back, or its profit rose by the share \
                 below; never twice for the same size at the same store and prices. The flips \
                 listed when you turn this on are taken as known.",
            )
            .changed();
        let name = ui.weak("again when the profit rose by");
        change.prefs |= ui
            .add(
                egui::DragValue::new(&mut prefs.rise_percent)
                    .range(1..=1_000)
                    .suffix(" %"),
            )
            .labelled_by(name.id)
            .changed();
    });
    let shown = format::counted(sizes.len() as u64, "size", "sizes");
    ui.weak(format!(
        "{shown} kept. Settings are saved as you change them."
    ));
    change
}
