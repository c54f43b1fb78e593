//! The watchlist view: the starred products, each with its current lowest price and the change
//! since it was starred.

use super::fetched::Fetched;
use super::format;
use super::search::price_range;
use super::state::WatchedProduct;
use crate::model::SearchHit;

/// What the user asked for in the watchlist.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct WatchlistOutput {
    /// Open this product.
    pub open: Option<String>,
    /// Remove the star of this product.
    pub unstar: Option<String>,
    /// Fetch every current price again.
    pub refresh: bool,
}

/// The change from `then` to `now`: `+12.00 (+6.3 %)`; `None` when either is missing.
#[must_use]
pub fn price_change(then: Option<f64>, now: Option<f64>) -> Option<(f64, String)> {
    let (then, now) = (then.filter(|p| *p > 0.0)?, now.filter(|p| *p > 0.0)?);
    let change = now - then;
    let text = format!(
        "{} ({})",
        format::signed_amount(change, ""),
        format::percent(change / then)
    );
    Some((change, text))
}

/// The watchlist. `current` gives the latest lookup of a product, by id (`None` when never
/// asked for).
pub fn watchlist_ui<'a>(
    ui: &mut egui::Ui,
    watched: &[WatchedProduct],
    current: &dyn Fn(&str) -> Option<Fetched<'a, SearchHit>>,
) -> WatchlistOutput {
    let mut output = WatchlistOutput::default();
    ui.horizontal(|ui| {
        ui.heading("Watchlist");
        if !watched.is_empty() && ui.button("Refresh prices").clicked() {
            output.refresh = true;
        }
    });
    if watched.is_empty() {
        ui.weak("No product starred yet. Open a product and click ☆ Watch to follow its price.");
        return output;
    }
    egui::Grid::new("watchlist")
        .num_columns(5)
        .striped(true)
        .spacing([20.0, 6.0])
        .show(ui, |ui| {
            ui.weak("Product");
            ui.weak("Lowest price now");
            ui.weak("When starred");
            ui.weak("Change");
            ui.weak("");
            ui.end_row();
            for item in watched {
                if ui
                    .link(&item.title)
                    .on_hover_text(format!("{} · open", item.sku))
                    .clicked()
                {
                    output.open = Some(item.id.clone());
                }
                let now = match current(&item.id) {
                    None | Some(Fetched::NotYetRequested) => {
                        ui.weak("—");
                        None
                    }
                    Some(Fetched::Pending { previous }) => {
                        ui.horizontal(|ui| {
                            ui.spinner();
                            if let Some(hit) = previous {
                                ui.weak(price_range(hit.min_price, hit.min_price, &hit.currency));
                            }
                        });
                        previous.map(|hit| hit.min_price)
                    }
                    Some(Fetched::Completed(hit)) => {
                        ui.label(price_range(hit.min_price, hit.min_price, &hit.currency));
                        Some(hit.min_price)
                    }
                    Some(Fetched::Failed(err)) => {
                        ui.colored_label(ui.visuals().error_fg_color, "unavailable")
                            .on_hover_text(&err.message);
                        None
                    }
                };
                match item.price_when_starred {
                    Some(price) => ui.label(price_range(price, price, &item.currency)),
                    None => ui.weak("no price"),
                };
                match price_change(item.price_when_starred, now) {
                    Some((change, text)) => {
                        let color = if change > 0.0 {
                            ui.visuals().warn_fg_color
                        } else if change < 0.0 {
                            egui::Color32::from_rgb(0x2e, 0x9e, 0x5b)
                        } else {
                            ui.visuals().weak_text_color()
                        };
                        ui.colored_label(color, text);
                    }
                    None => {
                        ui.weak("—");
                    }
                }
                if ui
                    .small_button("★ Unstar")
                    .on_hover_text("Remove from the watchlist")
                    .clicked()
                {
                    output.unstar = Some(item.id.clone());
                }
                ui.end_row();
            }
        });
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_is_signed_with_percent_and_needs_both_prices() {
        assert_eq!(
            price_change(Some(200.0), Some(212.0)).unwrap().1,
            "+12.00 (+6.0 %)"
        );
        assert_eq!(
            price_change(Some(200.0), Some(150.0)).unwrap().1,
            "-50.00 (-25.0 %)"
        );
        assert!(price_change(None, Some(10.0)).is_none());
        assert!(price_change(Some(0.0), Some(10.0)).is_none());
        assert!(price_change(Some(10.0), None).is_none());
    }
}
