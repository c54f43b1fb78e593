//! The watchlist view: the starred products, each with its current lowest price (where it comes
//! from and how old it is on hover; "no price" with why) and the change since it was starred.

use super::format;
use super::search::price_range;
use super::state::WatchedProduct;

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

/// A starred product's price now, as the watchlist shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchPrice {
    /// Not asked for yet.
    Unknown,
    /// Being fetched.
    Pricing,
    /// The lowest ask over its sizes.
    Priced {
        /// The price, in `currency`.
        lowest: f64,
        /// Currency code.
        currency: String,
        /// Where it comes from and how old it is, for a tooltip.
        source: String,
    },
    /// No price, and why (for a tooltip).
    NoPrice(String),
}

/// What the watchlist is given.
pub struct WatchlistView<'a> {
    /// The starred products, in the user's order.
    pub watched: &'a [WatchedProduct],
    /// Prices are being fetched.
    pub pricing: bool,
    /// Why fetching prices failed, if it did.
    pub error: Option<&'a str>,
}

/// The watchlist. `current` gives a starred product's price now.
pub fn watchlist_ui(
    ui: &mut egui::Ui,
    view: &WatchlistView<'_>,
    current: &dyn Fn(&WatchedProduct) -> WatchPrice,
) -> WatchlistOutput {
    let mut output = WatchlistOutput::default();
    let watched = view.watched;
    ui.horizontal(|ui| {
        ui.heading("Watchlist");
        if view.pricing {
            ui.spinner();
            ui.weak("Fetching prices (50 style codes a request)…");
        } else if !watched.is_empty()
            && ui
                .button("Refresh prices")
                .on_hover_text(
                    "Fetch every starred product's price again, 50 style codes a request \
                     (with KicksDB: one call per 50 codes)",
                )
                .clicked()
        {
            output.refresh = true;
        }
    });
    if let Some(err) = view.error {
        ui.colored_label(
            ui.visuals().error_fg_color,
            format!("Prices could not all be fetched: {err}"),
        );
    }
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
                let now = match current(item) {
                    WatchPrice::Unknown => {
                        ui.weak("—");
                        None
                    }
                    WatchPrice::Pricing => {
                        ui.spinner();
                        None
                    }
                    WatchPrice::Priced {
                        lowest,
                        currency,
                        source,
                    } => {
                        ui.label(price_range(lowest, lowest, &currency))
                            .on_hover_text(source);
                        Some(lowest)
                    }
                    WatchPrice::NoPrice(why) => {
                        ui.weak("no price").on_hover_text(why);
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
