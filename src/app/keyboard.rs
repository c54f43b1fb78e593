//! The keyboard: `/` or Ctrl+K to search, arrows and Enter through the hits, and the UI zoom
//! (Ctrl+plus, Ctrl+minus, Ctrl+0: egui's own shortcuts) kept in the app state.

use super::{App, View};
use crate::ui;
use crate::ui::state::UiZoom;

impl App {
    /// Keeps `state.zoom` and egui's zoom factor together: the stored zoom is applied on the
    /// first frame (and when the state changes it, e.g. the reset button); after that the
    /// state follows egui, whose keyboard shortcuts change the factor at the end of a frame.
    pub(super) fn follow_zoom(&mut self, ctx: &egui::Context) {
        let in_egui = ctx.zoom_factor();
        let current = UiZoom::new(in_egui);
        match self.applied_zoom {
            Some(applied) if applied == self.state.zoom => {
                self.state.zoom = current;
                // Past the bounds the state keeps: back to the bound.
                if (current.factor() - in_egui).abs() > f32::EPSILON {
                    ctx.set_zoom_factor(current.factor());
                }
            }
            _ => ctx.set_zoom_factor(self.state.zoom.factor()),
        }
        self.applied_zoom = Some(self.state.zoom);
    }

    /// `/` or Ctrl+K focuses the search box; arrows move through the hits and Enter opens one,
    /// unless another text field has the focus.
    pub(super) fn keyboard(&mut self, ctx: &egui::Context) {
        let focused = ctx.memory(egui::Memory::focused);
        let query_box = ui::search::query_box_id();
        let search_has_focus = focused == Some(query_box);
        let nothing_focused = focused.is_none();
        let focus_search = ctx.input_mut(|i| {
            let ctrl_k = i.consume_shortcut(&egui::KeyboardShortcut::new(
                egui::Modifiers::COMMAND,
                egui::Key::K,
            ));
            let slash = nothing_focused && i.consume_key(egui::Modifiers::NONE, egui::Key::Slash);
            if slash {
                // The key's text event would type a `/` into the box that is about to focus.
                i.events
                    .retain(|event| !matches!(event, egui::Event::Text(text) if text == "/"));
            }
            ctrl_k || slash
        });
        if focus_search {
            ctx.memory_mut(|m| m.request_focus(query_box));
        }
        if !(search_has_focus || nothing_focused) {
            return;
        }
        let hit_count = self.search_results().map_or(0, |r| r.hits.len());
        if hit_count == 0 {
            return;
        }
        let (down, up, enter) = ctx.input_mut(|i| {
            (
                i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowDown),
                i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowUp),
                self.search.highlighted.is_some()
                    && i.consume_key(egui::Modifiers::NONE, egui::Key::Enter),
            )
        });
        let highlighted = &mut self.search.highlighted;
        if down {
            *highlighted = Some(highlighted.map_or(0, |i| (i + 1).min(hit_count - 1)));
        }
        if up {
            *highlighted = Some(highlighted.map_or(0, |i| i.saturating_sub(1)));
        }
        if enter && let Some(index) = *highlighted {
            let id = self
                .search_results()
                .and_then(|r| r.hits.get(index))
                .map(|h| h.id.clone());
            if let Some(id) = id {
                if matches!(self.state.view, View::Settings | View::Watchlist) {
                    self.state.view = View::Product;
                }
                self.open_product(id, ctx);
            }
        }
    }
}
