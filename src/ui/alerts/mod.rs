//! The Alerts tab: a form to set an alert on the open product, the alerts with their state, what
//! the monitor is doing, and the alert history. Also home of the product view's per-size pieces
//! that come from real-time answers: the where-to-buy table ([`trade`]) and the per-size price
//! history chart ([`history`]).
//!
//! The views draw what they are given and return what the user asked for; the app stores it
//! through the user database and runs the monitor.

pub mod history;
#[cfg(test)]
mod tests;
pub mod trade;

use serde::{Deserialize, Serialize};

use super::format::money_from_cents;
use crate::model::{Alert, AlertFiring, AlertKind, NewAlert, ProductRef};

/// The alert form, kept between runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AlertForm {
    /// The size key; empty for any size.
    pub size: String,
    /// What makes it fire.
    pub kind: AlertKind,
    /// The price as typed, in dollars.
    pub price: String,
    /// Why the last add was refused (not kept).
    #[serde(skip)]
    pub error: Option<String>,
}

impl Default for AlertForm {
    fn default() -> Self {
        Self {
            size: String::new(),
            kind: AlertKind::AskAtOrBelow,
            price: String::new(),
            error: None,
        }
    }
}

/// Reads a price typed in dollars (`249`, `249.5`, `$1,249.99`) into cents.
///
/// # Errors
/// A sentence saying what is wrong with it.
pub fn cents_from_text(text: &str) -> Result<i64, String> {
    let cleaned: String = text
        .trim()
        .trim_start_matches('$')
        .chars()
        .filter(|c| *c != ',')
        .collect();
    let value: f64 = cleaned
        .parse()
        .map_err(|_| format!("“{}” is not a price", text.trim()))?;
    if !value.is_finite() || value <= 0.0 || value > 1_000_000.0 {
        return Err("the price must be above 0 and at most 1,000,000".into());
    }
    Ok((value * 100.0).round() as i64)
}

impl AlertForm {
    /// The alert the form describes for `product`, or why it cannot be made.
    ///
    /// # Errors
    /// A sentence for the form.
    pub fn alert(&self, product: &ProductRef) -> Result<NewAlert, String> {
        let price_cents = if self.kind.needs_price() {
            Some(cents_from_text(&self.price)?)
        } else {
            None
        };
        let size = self.size.trim();
        Ok(NewAlert {
            product: product.clone(),
            size: (!size.is_empty()).then(|| size.to_owned()),
            kind: self.kind,
            price_cents,
            currency: "USD".into(),
        })
    }
}

/// What the Alerts tab is given.
pub struct AlertsInputs<'a> {
    /// The open product, if any (alerts are set on it).
    pub product: Option<&'a ProductRef>,
    /// The open product's size keys.
    pub sizes: &'a [String],
    /// The alerts; `None` while they are being read.
    pub alerts: Option<&'a [Alert]>,
    /// The latest firings, newest first.
    pub firings: &'a [AlertFiring],
    /// What the monitor is doing, in a line.
    pub monitor: &'a str,
    /// Why the user database or the last write failed, if it did.
    pub error: Option<&'a str>,
}

/// What the user asked for in the Alerts tab.
#[derive(Debug, Default, PartialEq)]
pub struct AlertsOutput {
    /// Store this alert.
    pub add: Option<NewAlert>,
    /// Delete this alert.
    pub delete: Option<i64>,
}

/// An alert's condition in words: `Lowest ask at or below $250.00, size 9`.
#[must_use]
pub fn alert_text(alert: &NewAlert) -> String {
    let price = alert
        .price_cents
        .map(|cents| format!(" {}", money_from_cents(cents, &alert.currency)))
        .unwrap_or_default();
    let size = alert
        .size
        .as_deref()
        .map_or_else(|| "any size".to_owned(), |size| format!("size {size}"));
    format!("{}{price}, {size}", alert.kind.label())
}

/// A firing in words: `size 9 · $249.00 on resale-a`.
#[must_use]
pub fn firing_text(firing: &AlertFiring) -> String {
    let price = firing
        .price_cents
        .map(|cents| format!(" · {}", money_from_cents(cents, &firing.currency)))
        .unwrap_or_default();
    format!("size {}{price} on {}", firing.size, firing.source.as_str())
}

/// The Alerts tab.
pub fn alerts_ui(
    ui: &mut egui::Ui,
    form: &mut AlertForm,
    inputs: &AlertsInputs<'_>,
) -> AlertsOutput {
    let mut output = AlertsOutput::default();
    ui.heading("Price alerts");
    ui.weak(inputs.monitor);
    if let Some(error) = inputs.error {
        ui.colored_label(ui.visuals().error_fg_color, error);
    }
    ui.add_space(6.0);
    match inputs.product {
        None => {
            ui.weak("Open a product to set an alert on it.");
        }
        Some(product) => {
            ui.strong(format!("New alert on {}", product.title));
            ui.horizontal_wrapped(|ui| {
                egui::ComboBox::from_label("Alert when")
                    .selected_text(form.kind.label())
                    .show_ui(ui, |ui| {
                        for kind in AlertKind::ALL {
                            ui.selectable_value(&mut form.kind, kind, kind.label());
                        }
                    });
                if form.kind.needs_price() {
                    // Named for screen readers by its tooltip: the hint goes once there is text.
                    ui.add(
                        egui::TextEdit::singleline(&mut form.price)
                            .hint_text("price, USD")
                            .desired_width(90.0),
                    )
                    .on_hover_text("The alert's price, in US dollars");
                }
                let size_text = if form.size.is_empty() {
                    "any size".to_owned()
                } else {
                    format!("size {}", form.size)
                };
                egui::ComboBox::from_label("Size")
                    .selected_text(size_text)
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut form.size, String::new(), "any size");
                        for size in inputs.sizes {
                            ui.selectable_value(
                                &mut form.size,
                                size.clone(),
                                format!("size {size}"),
                            );
                        }
                    });
                if ui.button("Add alert").clicked() {
                    match form.alert(product) {
                        Ok(alert) => {
                            form.error = None;
                            output.add = Some(alert);
                        }
                        Err(why) => form.error = Some(why),
                    }
                }
            });
            if let Some(error) = &form.error {
                ui.colored_label(ui.visuals().error_fg_color, error);
            }
        }
    }
    ui.separator();
    match inputs.alerts {
        None => {
            ui.spinner();
        }
        Some([]) => {
            ui.weak("No alerts yet.");
        }
        Some(alerts) => {
            egui::Grid::new("alerts_list")
                .num_columns(3)
                .striped(true)
                .spacing([16.0, 4.0])
                .show(ui, |ui| {
                    for alert in alerts {
                        ui.label(&alert.spec.product.title);
                        ui.label(alert_text(&alert.spec));
                        ui.horizontal(|ui| {
                            if alert.armed {
                                ui.weak("watching");
                            } else {
                                ui.strong("fired · waits for the price to move back");
                            }
                            if ui.small_button("Delete").clicked() {
                                output.delete = Some(alert.id);
                            }
                        });
                        ui.end_row();
                    }
                });
        }
    }
    ui.separator();
    ui.strong("Alert history");
    if inputs.firings.is_empty() {
        ui.weak("No alert has fired yet.");
    }
    for firing in inputs.firings {
        let when = chrono::DateTime::from_timestamp(firing.fired_at, 0)
            .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
            .unwrap_or_default();
        ui.horizontal_wrapped(|ui| {
            ui.weak(when);
            ui.label(&firing.product.title);
            ui.strong(firing_text(firing));
        });
    }
    output
}
