//! The market-figures panel: the figures a reseller checks first (premium over retail, bid/ask
//! spread, last sale, 72-hour sales, AOV volatility, momentum), the price of every size, and a
//! payout calculator after marketplace fees.
//!
//! Everything is computed by [`crate::figures`]; this file only lays it out.

use egui_plot::{Bar, BarChart, GridMark, Plot};
use serde::{Deserialize, Serialize};

use super::chart_text::{describe_chart, series_summary};
use super::format;
use super::orders::WeeklySeries;
use crate::figures::{
    self, FeeRates, PremiumBasis, RESALE_A_DEFAULT_FEES, RESALE_B_DEFAULT_FEES, SizePrice,
};
use crate::model::{Product, ResaleBNode};

/// The figures of `product` at a glance, and its price by size.
///
/// `weekly` is its weekly series when loaded (pro); `live` its live `resale-b` entry when
/// fetched (pro), whose amounts are taken to be in the product's currency, so the app asks
/// `resale-b` for that currency.
pub fn market_ui(
    ui: &mut egui::Ui,
    product: &Product,
    weekly: Option<&WeeklySeries>,
    live: Option<&ResaleBNode>,
) {
    let currency = product.currency.as_str();
    ui.strong("Market figures");
    egui::Grid::new("market_figures")
        .num_columns(2)
        .spacing([16.0, 4.0])
        .show(ui, |ui| {
            ui.weak("Premium over retail");
            premium_ui(ui, product);
            ui.end_row();

            ui.weak("Bid / ask spread");
            match live {
                None => {
                    ui.weak("no live data");
                }
                Some(node) => match figures::spread_of(node) {
                    Some(spread) => {
                        ui.label(format::spread(Some(spread), currency))
                            .on_hover_text(format!(
                                "Highest bid {} · lowest ask {}",
                                format::money(node.market.state.highest_bid.amount, currency),
                                format::money(node.market.state.lowest_ask.amount, currency),
                            ));
                    }
                    None => {
                        ui.weak("no bid or no ask open");
                    }
                },
            }
            ui.end_row();

            ui.weak("Last sale");
            match live.map(|node| node.market.sales_information.last_sale) {
                Some(price) if price > 0.0 => {
                    ui.label(format::money(price, currency));
                }
                Some(_) => {
                    ui.weak("none recorded");
                }
                None => {
                    ui.weak("no live data");
                }
            }
            ui.end_row();

            ui.weak("Sales, last 72 h");
            match live.map(|node| node.market.sales_information.sales_last_72_hours) {
                Some(count) => {
                    ui.label(format::count(u64::try_from(count).unwrap_or(0)));
                }
                None => {
                    ui.weak("no live data");
                }
            }
            ui.end_row();

            let weeks = weekly.map(|series| series.weeks.as_slice());
            ui.weak("AOV volatility");
            match weeks.map(figures::aov_volatility) {
                Some(Some(ratio)) => {
                    ui.label(format::share(ratio)).on_hover_text(
                        "Standard deviation of weekly AOV over its mean, weeks with orders only",
                    );
                }
                Some(None) => {
                    ui.weak(format!(
                        "needs {} weeks with orders",
                        figures::VOLATILITY_MIN_WEEKS
                    ));
                }
                None => {
                    ui.weak("no weekly orders");
                }
            }
            ui.end_row();

            ui.weak("Momentum");
            match weeks.map(figures::momentum) {
                Some(Some(momentum)) => {
                    ui.label(format!(
                        "{} (×{:.2})",
                        momentum.trend.label(),
                        momentum.ratio
                    ))
                    .on_hover_text(format!(
                        "Orders of the last {w} weeks ({}) over the {w} before ({})",
                        format::count(momentum.recent_orders),
                        format::count(momentum.earlier_orders),
                        w = figures::MOMENTUM_WINDOW_WEEKS,
                    ));
                }
                Some(None) => {
                    ui.weak("not enough orders to tell");
                }
                None => {
                    ui.weak("no weekly orders");
                }
            }
            ui.end_row();
        });
    ui.add_space(8.0);
    sizes_ui(ui, &figures::prices_by_size(product), currency);
}

/// The premium over retail from the average and the lowest price, or why there is none.
fn premium_ui(ui: &mut egui::Ui, product: &Product) {
    if product.retail_prices.is_none() {
        // The service leaves retail prices out for keys below pro.
        ui.weak("needs pro");
        return;
    }
    let average = figures::price_premium(product, PremiumBasis::Average);
    let lowest = figures::price_premium(product, PremiumBasis::Lowest);
    match (average, lowest) {
        (None, None) => {
            ui.weak(format!("no retail price in {}", product.currency));
        }
        (average, lowest) => {
            let part = |name: &str, premium: Option<figures::Premium>| {
                premium.map_or_else(
                    || format!("{name} —"),
                    |premium| format!("{name} {}", format::percent(premium.ratio)),
                )
            };
            let retail = average.or(lowest).map_or(0.0, |premium| premium.retail);
            ui.label(format!(
                "{} · {}",
                part("avg", average),
                part("lowest", lowest)
            ))
            .on_hover_text(format!(
                "(price − retail) / retail, retail {}",
                format::money(retail, &product.currency)
            ));
        }
    }
}

/// The price of every size as bars, with the sizes that have no price listed below.
fn sizes_ui(ui: &mut egui::Ui, sizes: &[SizePrice], currency: &str) {
    ui.strong("Price by size");
    if sizes.is_empty() {
        ui.weak("No sizes listed.");
        return;
    }
    let cheapest = sizes
        .iter()
        .filter_map(|size| size.price)
        .min_by(f64::total_cmp);
    let bar_colour = ui.visuals().selection.bg_fill;
    let cheapest_colour = ui.visuals().warn_fg_color;
    // Bars stand at the size's place in the sorted list, so a size without a price leaves a
    // gap instead of a bar at 0.
    let bars: Vec<Bar> = sizes
        .iter()
        .enumerate()
        .filter_map(|(place, size)| {
            let price = size.price?;
            let colour = if Some(price) == cheapest {
                cheapest_colour
            } else {
                bar_colour
            };
            Some(
                Bar::new(place as f64, price)
                    .name(&size.label)
                    .fill(colour)
                    .width(0.7),
            )
        })
        .collect();
    if bars.is_empty() {
        ui.weak("No size has a price.");
    } else {
        let hover_currency = currency.to_owned();
        let chart = BarChart::new("price by size", bars).element_formatter(Box::new(
            move |bar: &Bar, _chart: &BarChart| {
                format!(
                    "size {}\n{}",
                    bar.name,
                    format::money(bar.value, &hover_currency)
                )
            },
        ));
        let shown = Plot::new("price_by_size")
            .height(180.0)
            .y_axis_label(if currency.is_empty() {
                "price".to_owned()
            } else {
                format!("price ({currency})")
            })
            .include_y(0.0)
            .x_grid_spacer(egui_plot::uniform_grid_spacer(|_input| [1.0, 5.0, 10.0]))
            .x_axis_formatter(|mark: GridMark, _range| size_axis_label(sizes, mark.value))
            .show_x(false)
            .allow_scroll(false)
            .allow_zoom(false)
            .allow_drag(false)
            .show(ui, |plot_ui| plot_ui.bar_chart(chart));
        let summary = series_summary(
            "Lowest ask",
            sizes
                .iter()
                .enumerate()
                .filter_map(|(place, size)| Some([place as f64, size.price?])),
            &|place| format!("size {}", size_axis_label(sizes, place)),
            &|price| format::money(price, currency),
        );
        describe_chart(&shown.response, "Chart of the price by size", &[summary]);
    }
    let unpriced: Vec<&str> = sizes
        .iter()
        .filter(|size| size.price.is_none())
        .map(|size| size.label.as_str())
        .collect();
    if !unpriced.is_empty() {
        ui.horizontal_wrapped(|ui| {
            ui.weak("No price:");
            ui.label(unpriced.join(", "));
        });
    }
}

/// The size label at a place of the x axis; nothing between places.
fn size_axis_label(sizes: &[SizePrice], value: f64) -> String {
    let place = value.round();
    if (value - place).abs() > 1e-6 || place < 0.0 {
        return String::new();
    }
    sizes
        .get(place as usize)
        .map_or_else(String::new, |size| size.label.clone())
}

/// Which fee schedule the payout calculator starts from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FeePreset {
    /// [`RESALE_A_DEFAULT_FEES`].
    ResaleA,
    /// [`RESALE_B_DEFAULT_FEES`]; the lowest ask shown comes from `resale-b`.
    #[default]
    ResaleB,
    /// Rates the user typed.
    Custom,
}

impl FeePreset {
    /// Every preset, in the order offered.
    pub const ALL: [FeePreset; 3] = [FeePreset::ResaleA, FeePreset::ResaleB, FeePreset::Custom];

    /// The name shown.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            FeePreset::ResaleA => "resale-a",
            FeePreset::ResaleB => "resale-b",
            FeePreset::Custom => "custom",
        }
    }

    /// The starting rates of the preset; `None` for [`FeePreset::Custom`].
    #[must_use]
    pub fn rates(self) -> Option<FeeRates> {
        match self {
            FeePreset::ResaleA => Some(RESALE_A_DEFAULT_FEES),
            FeePreset::ResaleB => Some(RESALE_B_DEFAULT_FEES),
            FeePreset::Custom => None,
        }
    }
}

/// The inputs of the payout calculator; persisted with the app state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PayoutState {
    /// The sale price; `None` until typed or filled in from the lowest ask.
    pub price: Option<f64>,
    /// The preset the rates came from; any edit of a rate makes it [`FeePreset::Custom`].
    pub preset: FeePreset,
    /// The rates applied.
    pub rates: FeeRates,
}

impl Default for PayoutState {
    fn default() -> Self {
        Self {
            price: None,
            preset: FeePreset::ResaleB,
            rates: RESALE_B_DEFAULT_FEES,
        }
    }
}

/// The payout calculator: a sale price (filled in from `lowest_ask`, an amount and its
/// currency, while empty), a fee preset with editable rates, and what each fee takes.
pub fn payout_ui(ui: &mut egui::Ui, state: &mut PayoutState, lowest_ask: Option<(f64, &str)>) {
    let currency = lowest_ask.map_or("", |(_, currency)| currency);
    if state.price.is_none()
        && let Some((ask, _)) = lowest_ask.filter(|(ask, _)| ask.is_finite() && *ask > 0.0)
    {
        state.price = Some(ask);
    }

    ui.strong("Payout after fees");
    ui.horizontal_wrapped(|ui| {
        ui.weak("Fees:");
        for preset in FeePreset::ALL {
            if ui
                .selectable_value(&mut state.preset, preset, preset.label())
                .clicked()
                && let Some(rates) = preset.rates()
            {
                state.rates = rates;
            }
        }
    })
    .response
    .on_hover_text(
        "Editable starting rates, not the marketplaces' published fees, which depend on the \
         seller's level and region",
    );

    egui::Grid::new("payout_inputs")
        .num_columns(2)
        .spacing([16.0, 4.0])
        .show(ui, |ui| {
            let name = ui.weak("Sale price");
            ui.horizontal(|ui| {
                let mut price = state.price.unwrap_or(0.0);
                let edited = ui
                    .add(
                        egui::DragValue::new(&mut price)
                            .range(0.0..=1_000_000.0)
                            .speed(1.0)
                            .fixed_decimals(2)
                            .suffix(format!(" {currency}")),
                    )
                    .labelled_by(name.id)
                    .changed();
                if edited {
                    state.price = Some(price);
                }
                if let Some((ask, _)) = lowest_ask
                    && state.price != Some(ask)
                    && ui.small_button("Use lowest ask").clicked()
                {
                    state.price = Some(ask);
                }
            });
            ui.end_row();

            let mut edited = false;
            let name = ui.weak("Commission");
            edited |= percent_input_ui(ui, &mut state.rates.commission_percent, name.id);
            ui.end_row();
            let name = ui.weak("Payment processing");
            edited |= percent_input_ui(ui, &mut state.rates.processing_percent, name.id);
            ui.end_row();
            let name = ui.weak("Flat fee per sale");
            edited |= ui
                .add(
                    egui::DragValue::new(&mut state.rates.fixed_fee)
                        .range(0.0..=10_000.0)
                        .speed(0.5)
                        .fixed_decimals(2)
                        .suffix(format!(" {currency}")),
                )
                .labelled_by(name.id)
                .changed();
            ui.end_row();
            if edited {
                state.preset = FeePreset::Custom;
            }
        });
    ui.add_space(4.0);

    let Some(price) = state.price else {
        ui.weak("Enter a sale price.");
        return;
    };
    match figures::payout_with(price, state.rates) {
        Err(err) => {
            ui.colored_label(ui.visuals().error_fg_color, format!("{err:#}"));
        }
        Ok(payout) => {
            egui::Grid::new("payout_result")
                .num_columns(2)
                .spacing([16.0, 2.0])
                .show(ui, |ui| {
                    ui.label("Gross");
                    ui.label(format::money(payout.gross, currency));
                    ui.end_row();
                    for (name, amount) in [
                        ("− Commission", payout.commission),
                        ("− Processing", payout.processing),
                        ("− Flat fee", payout.fixed_fee),
                    ] {
                        ui.weak(name);
                        ui.label(format::money(amount, currency));
                        ui.end_row();
                    }
                    ui.strong("Net payout");
                    let net = format::money(payout.net, currency);
                    if payout.is_loss() {
                        ui.colored_label(
                            ui.visuals().error_fg_color,
                            format!("{net} (the fees exceed the price)"),
                        );
                    } else {
                        ui.strong(net);
                    }
                    ui.end_row();
                    ui.weak("Lowest ask now");
                    match lowest_ask {
                        Some((ask, _)) if ask > 0.0 => {
                            ui.label(format::money(ask, currency));
                        }
                        _ => {
                            ui.weak("no live ask");
                        }
                    }
                    ui.end_row();
                });
        }
    }
}

/// An editable percentage from 0 to 100, named by the label `name`; returns whether it changed.
fn percent_input_ui(ui: &mut egui::Ui, percent: &mut f64, name: egui::Id) -> bool {
    ui.add(
        egui::DragValue::new(percent)
            .range(0.0..=100.0)
            .speed(0.1)
            .max_decimals(2)
            .suffix(" %"),
    )
    .labelled_by(name)
    .changed()
}

#[cfg(test)]
mod tests {
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::model::{Amount, Market, MarketState, Media, SalesInformation};

    fn size(label: &str, price: Option<f64>) -> SizePrice {
        SizePrice {
            label: label.to_owned(),
            size: figures::parse_size(label),
            price,
        }
    }

    #[test]
    fn size_axis_labels_only_whole_places() {
        let sizes = [size("9", Some(100.0)), size("9.5", None)];
        assert_eq!(size_axis_label(&sizes, 0.0), "9");
        assert_eq!(size_axis_label(&sizes, 1.0), "9.5");
        assert_eq!(size_axis_label(&sizes, 0.5), "");
        assert_eq!(size_axis_label(&sizes, 2.0), "");
        assert_eq!(size_axis_label(&sizes, -1.0), "");
    }

    #[test]
    fn payout_state_defaults_to_resale_b_rates_and_fills_missing_fields() {
        let state: PayoutState = serde_json::from_str(r#"{"price":120.0}"#).unwrap();
        assert_eq!(state.preset, FeePreset::ResaleB);
        assert_eq!(state.rates, RESALE_B_DEFAULT_FEES);
        assert_eq!(state.price, Some(120.0));
        assert_eq!(FeePreset::Custom.rates(), None);
    }

    fn node(ask: f64, bid: f64) -> ResaleBNode {
        ResaleBNode {
            id: "n".to_owned(),
            brand: "Jordan".to_owned(),
            title: "AJ11".to_owned(),
            primary_title: "AJ11".to_owned(),
            secondary_title: "Cool Grey".to_owned(),
            product_category: "sneakers".to_owned(),
            listing_type: "STANDARD".to_owned(),
            url_key: "aj11".to_owned(),
            media: Media {
                thumb_url: String::new(),
            },
            market: Market {
                sales_information: SalesInformation {
                    last_sale: 382.0,
                    sales_last_72_hours: 638,
                },
                state: MarketState {
                    highest_bid: Amount { amount: bid },
                    lowest_ask: Amount { amount: ask },
                    number_of_asks: 3,
                    number_of_bids: 2,
                },
            },
        }
    }

    fn product() -> Product {
        let variant = crate::model::Variant::for_test;
        Product {
            max_price: 450.0,
            variants: vec![
                variant("9", 300.0),
                variant("9.5", 0.0),
                variant("10", 340.0),
            ],
            ..Product::for_test(382.0, 300.0)
        }
    }

    fn has<State>(harness: &egui_kittest::Harness<'_, State>, text: &str) -> bool {
        harness.query_all_by_label_contains(text).next().is_some()
    }

    #[test]
    fn the_panel_shows_live_figures_and_lists_sizes_without_a_price() {
        let product = product();
        let live = node(200.0, 180.0);
        let harness = egui_kittest::Harness::new_ui(|ui| {
            market_ui(ui, &product, None, Some(&live));
        });
        assert!(has(&harness, "needs pro"));
        assert!(has(&harness, "20.00 USD (10.0 % of ask)"));
        assert!(has(&harness, "382.00 USD"));
        assert!(has(&harness, "638"));
        assert!(has(&harness, "No price:"));
        assert!(has(&harness, "9.5"));
    }

    #[test]
    fn payout_fills_the_price_from_the_lowest_ask_and_shows_the_net() {
        let mut harness = egui_kittest::Harness::new_ui_state(
            |ui, state: &mut PayoutState| payout_ui(ui, state, Some((200.0, "USD"))),
            PayoutState::default(),
        );
        harness.run();
        assert_eq!(harness.state().price, Some(200.0));
        // resale-b defaults: 8 % + 2.9 % + 0 of 200.
        assert!(has(&harness, "178.20 USD"));
        harness.get_by_label("resale-a").click();
        harness.run();
        assert_eq!(harness.state().rates, RESALE_A_DEFAULT_FEES);
        // 200 − 18 − 6 − 5.
        assert!(has(&harness, "171.00 USD"));
    }
}
