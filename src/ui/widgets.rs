//! Small pieces shared by the panels: the tier lock, the spinner and the inline error with retry,
//! and the ring around the widget that has the keyboard focus.

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

/// Outlines the widget that has the keyboard focus, once the keyboard moved it (Tab, the
/// arrows): egui marks a focused button only by a thin stroke, and a custom click target (a
/// hit row) not at all. A pointer press hides the ring again, as browsers do for
/// `:focus-visible`. Call once per frame, after the panels.
pub fn focus_ring_ui(ctx: &egui::Context) {
    let shown_id = egui::Id::unique("solescope_focus_ring_shown");
    let (keyboard, pointer) = ctx.input(|i| {
        let keyboard = i.events.iter().any(|event| {
            matches!(
                event,
                egui::Event::Key {
                    key: egui::Key::Tab
                        | egui::Key::ArrowDown
                        | egui::Key::ArrowUp
                        | egui::Key::ArrowLeft
                        | egui::Key::ArrowRight,
                    pressed: true,
                    ..
                }
            )
        });
        (keyboard, i.pointer.any_pressed())
    });
    let shown = ctx.data_mut(|data| {
        let shown = data.get_temp_mut_or_default::<bool>(shown_id);
        if pointer {
            *shown = false;
        } else if keyboard {
            *shown = true;
        }
        *shown
    });
    let Some(focused) = ctx.memory(egui::Memory::focused) else {
        return;
    };
    let Some(response) = ctx.read_response(focused) else {
        return;
    };
    // The part of the widget its scroll area or panel shows; nothing when scrolled away.
    let rect = response.interact_rect;
    if !shown || !rect.is_positive() {
        return;
    }
    let colour = ctx.global_style().visuals.selection.stroke.color;
    ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::unique("solescope_focus_ring"),
    ))
    .rect_stroke(
        rect.expand(1.0),
        3.0,
        egui::Stroke::new(2.0, colour),
        egui::StrokeKind::Outside,
    );
}
