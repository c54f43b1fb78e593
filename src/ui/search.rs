//! The search panel: the query box, the style-code and GTIN filters, the US/FR switch, the list
//! of hits with "load more", and keyboard navigation (`/` or Ctrl+K to focus, arrows, Enter).

use super::fetched::Fetched;
use super::format;
use super::widgets::{error_ui, lock_ui};
use crate::model::{Country, Feature, SearchHit, SearchResponse, Tier};

/// The id of the query box, so a shortcut can focus it.
#[must_use]
pub fn query_box_id() -> egui::Id {
    egui::Id::unique("search_query_box")
}

/// What the search panel edits: the persisted query fields.
#[derive(Debug)]
pub struct SearchFields<'a> {
    /// Free text.
    pub query: &'a mut String,
    /// Exact style code filter; empty for none.
    pub sku: &'a mut String,
    /// Exact GTIN filter; empty for none.
    pub gtin: &'a mut String,
    /// The dataset searched.
    pub country: &'a mut Country,
    /// Only what this store has in stock (its label); empty for any product.
    pub in_stock_at: &'a mut String,
    /// With `in_stock_at`: the US size; empty for any.
    pub size: &'a mut String,
}

/// What the search panel shows besides the fields.
pub struct SearchView<'a> {
    /// The key's tier, when known.
    pub tier: Option<Tier>,
    /// The hits of every page loaded so far (the first page's envelope, later pages appended).
    pub results: Fetched<'a, SearchResponse>,
    /// The next page in flight or failed.
    pub more: Fetched<'a, SearchResponse>,
    /// Whether the server may have more hits than those loaded.
    pub has_more: bool,
    /// The id of the product open in the detail view.
    pub selected: Option<&'a str>,
    /// The hit the arrow keys moved to.
    pub highlighted: Option<usize>,
    /// Draws a hit's thumbnail from its image URL.
    pub thumbnail: &'a dyn Fn(&mut egui::Ui, &str),
    /// The stores whose catalogues the service keeps (labels): what the search can be
    /// narrowed to.
    pub stores: &'a [String],
}

/// What the user did in the search panel this frame.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent requests of one frame; several may be true at once"
)]
pub struct SearchOutput {
    /// The query text or a filter changed: search again after the debounce.
    pub query_changed: bool,
    /// The country changed: search again at once.
    pub country_changed: bool,
    /// A hit was clicked: open the product with this id.
    pub open: Option<String>,
    /// Retry was clicked after a failed search.
    pub retry: bool,
    /// Load the next page (the button was clicked or scrolled into view).
    pub load_more: bool,
}

/// The search panel.
pub fn search_ui(
    ui: &mut egui::Ui,
    fields: &mut SearchFields<'_>,
    view: &SearchView<'_>,
) -> SearchOutput {
    let mut output = SearchOutput::default();
    ui.horizontal(|ui| {
        let label = ui.label("Search");
        let edit = ui
            .add(
                egui::TextEdit::singleline(fields.query)
                    .id(query_box_id())
                    .hint_text("title, brand, style code…  ( / )")
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(label.id);
        output.query_changed |= edit.changed();
    });
    egui::CollapsingHeader::new("Filters")
        .id_salt("search_filters")
        .default_open(
            !fields.sku.is_empty() || !fields.gtin.is_empty() || !fields.in_stock_at.is_empty(),
        )
        .show(ui, |ui| {
            egui::Grid::new("search_filter_fields")
                .num_columns(2)
                .show(ui, |ui| {
                    for (name, field, hint) in [
                        ("Style code", &mut *fields.sku, "e.g. DZ5485-612"),
                        ("GTIN", &mut *fields.gtin, "12 or 13 digits"),
                    ] {
                        let label = ui.label(name);
                        output.query_changed |= ui
                            .add(
                                egui::TextEdit::singleline(field)
                                    .hint_text(hint)
                                    .desired_width(160.0),
                            )
                            .labelled_by(label.id)
                            .changed();
                        ui.end_row();
                    }
                    output.query_changed |= stock_filter_ui(ui, fields, view.stores);
                });
        });
    let fr_allowed = view.tier.is_none_or(|tier| tier.allows(Feature::SearchFr));
    ui.horizontal(|ui| {
        ui.label("Dataset");
        for country in Country::ALL {
            let enabled = country == Country::Us || fr_allowed;
            let label = format!("{} ({})", country_code(country), country.currency());
            let button = ui.add_enabled(
                enabled,
                egui::Button::selectable(*fields.country == country, label),
            );
            if button.clicked() && *fields.country != country {
                *fields.country = country;
                output.country_changed = true;
            }
        }
    });
    if !fr_allowed {
        lock_ui(
            ui,
            "FR prices (in EUR)",
            Feature::SearchFr.minimum_tier(),
            view.tier,
        );
    }
    ui.separator();
    match view.results {
        Fetched::NotYetRequested => {}
        Fetched::Failed(err) => output.retry = error_ui(ui, "Search results", err),
        Fetched::Pending { previous, .. } => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak("Searching…");
            });
            if let Some(response) = previous {
                hits_ui(ui, response, view, &mut output);
            }
        }
        Fetched::Completed(response) => {
            ui.weak(format!(
                "about {} · {} ms",
                format::counted(response.estimated_total_hits, "result", "results"),
                response.processing_time_ms
            ));
            hits_ui(ui, response, view, &mut output);
        }
    }
    output
}

fn country_code(country: Country) -> &'static str {
    match country {
        Country::Us => "US",
        Country::Fr => "FR",
    }
}

/// The list of hits with the "load more" row at its end.
fn hits_ui(
    ui: &mut egui::Ui,
    response: &SearchResponse,
    view: &SearchView<'_>,
    output: &mut SearchOutput,
) {
    egui::ScrollArea::vertical()
        .id_salt("search_hits")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (index, hit) in response.hits.iter().enumerate() {
                let is_selected = view.selected == Some(hit.id.as_str());
                let is_highlighted = view.highlighted == Some(index);
                let response = hit_ui(ui, hit, is_selected || is_highlighted, view.thumbnail);
                if is_highlighted {
                    response.scroll_to_me(None);
                }
                if response.clicked() {
                    output.open = Some(hit.id.clone());
                }
            }
            if response.hits.is_empty() {
                ui.weak("No product matches.");
            }
            more_ui(ui, view, output);
        });
}

/// The end of the list: a spinner, the next page's error, or the "load more" button, which also
/// fires when it scrolls into view.
fn more_ui(ui: &mut egui::Ui, view: &SearchView<'_>, output: &mut SearchOutput) {
    match view.more {
        Fetched::Pending { .. } => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak("Loading more…");
            });
        }
        Fetched::Failed(err) => output.load_more |= error_ui(ui, "More results", err),
        Fetched::NotYetRequested | Fetched::Completed(_) if view.has_more => {
            let button = ui.button("Load more");
            output.load_more |= button.clicked() || ui.is_rect_visible(button.rect);
        }
        Fetched::NotYetRequested | Fetched::Completed(_) => {}
    }
}

/// "In stock at" (a store whose catalogue the service keeps, or any) and, once a store is
/// chosen, the US size; whether either changed. Two grid rows.
fn stock_filter_ui(ui: &mut egui::Ui, fields: &mut SearchFields<'_>, stores: &[String]) -> bool {
    let mut changed = false;
    let label = ui.label("In stock at");
    let shown = if fields.in_stock_at.is_empty() {
        "any store or none".to_owned()
    } else {
        fields.in_stock_at.clone()
    };
    ui.add_enabled_ui(!stores.is_empty() || !fields.in_stock_at.is_empty(), |ui| {
        egui::ComboBox::from_id_salt("in_stock_at")
            .selected_text(shown)
            .show_ui(ui, |ui| {
                changed |= ui
                    .selectable_value(fields.in_stock_at, String::new(), "any store or none")
                    .changed();
                for store in stores {
                    changed |= ui
                        .selectable_value(fields.in_stock_at, store.clone(), store)
                        .changed();
                }
            })
            .response
            .labelled_by(label.id)
            .on_disabled_hover_text("No store's catalogue is read: add a store in Settings");
    });
    ui.end_row();
    if !fields.in_stock_at.is_empty() {
        let label = ui.label("Size (US)");
        changed |= ui
            .add(
                egui::TextEdit::singleline(fields.size)
                    .hint_text("any, or e.g. 9.5")
                    .desired_width(60.0),
            )
            .labelled_by(label.id)
            .changed();
        ui.end_row();
    }
    changed
}

/// One hit: thumbnail, title, brand, style code and price range. The whole row is clickable.
fn hit_ui(
    ui: &mut egui::Ui,
    hit: &SearchHit,
    is_selected: bool,
    thumbnail: &dyn Fn(&mut egui::Ui, &str),
) -> egui::Response {
    let frame = egui::Frame::new()
        .inner_margin(egui::Margin::symmetric(4, 3))
        .corner_radius(4.0)
        .fill(if is_selected {
            ui.visuals().selection.bg_fill.gamma_multiply(0.5)
        } else {
            egui::Color32::TRANSPARENT
        });
    let inner = frame.show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            thumbnail(ui, &hit.image);
            ui.vertical(|ui| {
                ui.add(egui::Label::new(egui::RichText::new(&hit.title).strong()).truncate());
                ui.horizontal_wrapped(|ui| {
                    ui.weak(&hit.brand);
                    ui.weak("·");
                    ui.weak(&hit.sku);
                });
                ui.label(price_range(hit.min_price, hit.max_price, &hit.currency));
                // A store-only product (no catalogue product is it): where it is sold.
                if let Some(store) = hit.labels.iter().find_map(|l| l.strip_prefix("store:")) {
                    ui.weak(format!("Sold at {store} · retail only"));
                } else if let Some(at) = crate::model::held_since(hit) {
                    // Not in the live source's answer: what the service holds, with its age.
                    ui.weak(format!(
                        "held as of {}, not in the live answer",
                        super::source_badge::as_of_text(at)
                    ));
                }
            });
        });
    });
    // One click target over the whole row, announced as a button with the title for screen
    // readers and tests.
    let response = ui.interact(
        inner.response.rect,
        ui.scope_id().with(("hit", &hit.id)),
        egui::Sense::click(),
    );
    response.widget_info(|| {
        egui::WidgetInfo::selected(egui::Role::Button, true, is_selected, &hit.title)
    });
    response.on_hover_cursor(egui::CursorIcon::PointingHand)
}

/// `120.00–180.00 USD`, or one price when both ends are equal; "no price" when there is none.
#[must_use]
pub fn price_range(min: f64, max: f64, currency: &str) -> String {
    if !(min > 0.0 && max > 0.0) {
        "no price".to_owned()
    } else if (max - min).abs() < 0.005 {
        format::money(min, currency)
    } else {
        format!(
            "{}–{}",
            format::amount(min, currency),
            format::money(max, currency)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn price_range_collapses_equal_ends_and_never_shows_zero() {
        assert_eq!(price_range(120.0, 180.0, "USD"), "120.00–180.00 USD");
        assert_eq!(price_range(99.5, 99.5, "EUR"), "99.50 EUR");
        assert_eq!(price_range(0.0, 0.0, "USD"), "no price");
        assert_eq!(price_range(f64::NAN, 10.0, "USD"), "no price");
    }
}
