//! The search panel: the query box, the US/FR switch and the list of hits.

use super::widgets::requested_ui;
use crate::app::Requested;
use crate::model::{Country, SearchHit, SearchResponse, Tier};

/// What the user did in the search panel this frame.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SearchOutput {
    /// The query text or the country changed: search again (after the debounce for text).
    pub query_changed: bool,
    /// The country changed: search again at once.
    pub country_changed: bool,
    /// A hit was clicked: open the product with this id.
    pub open: Option<String>,
    /// Retry was clicked after a failed search.
    pub retry: bool,
}

/// The search panel. `selected` is the id of the product open in the detail view.
pub fn search_ui(
    ui: &mut egui::Ui,
    query: &mut String,
    country: &mut Country,
    tier: Option<Tier>,
    results: &Requested<SearchResponse>,
    selected: Option<&str>,
) -> SearchOutput {
    let mut output = SearchOutput::default();
    ui.horizontal(|ui| {
        let label = ui.label("Search");
        let edit = ui.add(
            egui::TextEdit::singleline(query)
                .hint_text("title, brand, style code…")
                .desired_width(f32::INFINITY),
        );
        let edit = edit.labelled_by(label.id);
        output.query_changed = edit.changed();
    });
    let fr_allowed = tier != Some(Tier::Free);
    ui.horizontal(|ui| {
        ui.label("Dataset");
        if ui.selectable_label(*country == Country::Us, "US").clicked() && *country != Country::Us {
            *country = Country::Us;
            output.country_changed = true;
        }
        let fr = ui.add_enabled(
            fr_allowed,
            egui::Button::selectable(*country == Country::Fr, "FR"),
        );
        if fr.clicked() && *country != Country::Fr {
            *country = Country::Fr;
            output.country_changed = true;
        }
    });
    if !fr_allowed {
        ui.weak("Locked: the FR dataset needs a pro key; this key is free.");
    }
    ui.separator();
    output.retry = requested_ui(ui, "Search results", results, |ui, response| {
        ui.weak(format!(
            "about {} results · {} ms",
            response.estimated_total_hits, response.processing_time_ms
        ));
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for hit in &response.hits {
                    if hit_ui(ui, hit, selected == Some(hit.id.as_str())) {
                        output.open = Some(hit.id.clone());
                    }
                }
                if response.hits.is_empty() {
                    ui.weak("No product matches.");
                }
            });
    });
    output
}

/// One hit; returns whether it was clicked.
fn hit_ui(ui: &mut egui::Ui, hit: &SearchHit, is_selected: bool) -> bool {
    let clicked = ui
        .add(egui::Button::selectable(is_selected, hit.title.as_str()).wrap())
        .clicked();
    ui.horizontal_wrapped(|ui| {
        ui.weak(&hit.brand);
        ui.weak("·");
        ui.weak(&hit.sku);
        ui.weak("·");
        ui.label(price_range(hit.min_price, hit.max_price, &hit.currency));
    });
    ui.add_space(4.0);
    clicked
}

/// `120.00–180.00 USD`, or one price when both ends are equal.
#[must_use]
pub fn price_range(min: f64, max: f64, currency: &str) -> String {
    if (max - min).abs() < 0.005 {
        format!("{min:.2} {currency}")
    } else {
        format!("{min:.2}–{max:.2} {currency}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn price_range_collapses_equal_ends() {
        assert_eq!(price_range(120.0, 180.0, "USD"), "120.00–180.00 USD");
        assert_eq!(price_range(99.5, 99.5, "EUR"), "99.50 EUR");
    }
}
