//! Small pieces shared by the panels: the tier lock, the spinner and the inline error with retry.

use super::fetched::Fetched;
use crate::client::{ClientError, ErrorKind};
use crate::model::Tier;

/// A lock in place of a feature the key's tier does not include, saying which tier does.
pub fn lock_ui(ui: &mut egui::Ui, what: &str, needed: Tier, current: Option<Tier>) {
    let current = current.map_or_else(String::new, |tier| format!(" (this key is {tier})"));
    ui.horizontal_wrapped(|ui| {
        ui.strong("Locked:");
        ui.label(format!(
            "{what} need a {needed} key{current}. Switch tier in Settings or upgrade."
        ));
    });
}

/// The inline message of a failed fetch; a refused tier is shown as a lock. Returns whether
/// Retry was clicked.
pub fn error_ui(ui: &mut egui::Ui, what: &str, err: &ClientError) -> bool {
    if err.kind == ErrorKind::Forbidden
        && let Some(needed) = err.required_tier
    {
        lock_ui(ui, what, needed, None);
        return false;
    }
    let mut retry = false;
    ui.horizontal_wrapped(|ui| {
        ui.colored_label(
            ui.visuals().error_fg_color,
            format!("Could not load {}: {}", what.to_lowercase(), err.message),
        );
        retry = ui.button("Retry").clicked();
    });
    retry
}

/// Draws a fetched value: a spinner while pending (over the previous value, if any), the value
/// when completed, the error with Retry when failed. Returns whether Retry was clicked.
pub fn requested_ui<T>(
    ui: &mut egui::Ui,
    what: &str,
    requested: Fetched<'_, T>,
    show: impl FnOnce(&mut egui::Ui, &T),
) -> bool {
    match requested {
        Fetched::NotYetRequested => false,
        Fetched::Pending { previous } => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak("Loading…");
            });
            if let Some(previous) = previous {
                show(ui, previous);
            }
            false
        }
        Fetched::Completed(value) => {
            show(ui, value);
            false
        }
        Fetched::Failed(err) => error_ui(ui, what, err),
    }
}
