//! The portfolio's charts: its value week by week over the last 52 weeks (each product's weekly
//! AOV as the price of its week, which the chart says) and realized P&L by month. The weekly
//! figures are fetched only when the user asks for the value-by-week chart, which says first
//! what fetching them costs.

use chrono::NaiveDate;
use egui_plot::{Bar, BarChart, GridMark, HoverPosition, Line, Plot, PlotPoints};

use crate::figures::WeekValue;
use crate::ui::chart_text::{describe_chart, series_summary};
use crate::ui::format;

/// What the charts draw, computed by the app when the portfolio changes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PortfolioCharts {
    /// The currency drawn (the one most pairs are in).
    pub currency: String,
    /// The value of each of the last 52 weeks, oldest first.
    pub weeks: Vec<WeekValue>,
    /// Realized P&L by month (first day, cents), oldest first.
    pub months: Vec<(NaiveDate, i64)>,
}

/// The weekly figures behind the value-by-week chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeeklyFigures<'a> {
    /// Not fetched: the chart offers to fetch those of `products` products, and says what that
    /// costs (`cost`, a sentence).
    NotLoaded {
        /// Held products with weekly figures to fetch.
        products: usize,
        /// What fetching them costs.
        cost: &'a str,
    },
    /// Being fetched.
    Loading {
        /// Products whose figures landed.
        landed: usize,
        /// Products asked for.
        products: usize,
    },
    /// Fetched; `failed` products' figures could not be.
    Loaded {
        /// Products whose figures could not be fetched.
        failed: usize,
    },
    /// The key's tier has no weekly orders.
    Locked,
}

fn date_of_day(day: f64) -> String {
    i32::try_from(day.round() as i64)
        .ok()
        .and_then(NaiveDate::from_epoch_days)
        .map_or_else(String::new, |date| date.format("%Y-%m-%d").to_string())
}

/// The two charts side by side. Returns whether the user asked for the weekly figures.
pub(super) fn charts_ui(
    ui: &mut egui::Ui,
    charts: &PortfolioCharts,
    weekly: &WeeklyFigures<'_>,
) -> bool {
    let currency = charts.currency.clone();
    let mut load = false;
    ui.columns(2, |columns| {
        let ui = &mut columns[0];
        ui.strong(format!("Value by week, last 52 weeks ({currency})"));
        ui.weak("Each pair priced at its product's average order value (AOV) of that week.");
        match *weekly {
            WeeklyFigures::Locked => {
                ui.weak("Weekly orders need a pro key.");
            }
            WeeklyFigures::NotLoaded { products, cost } => {
                ui.label(cost);
                load = ui
                    .button(format!(
                        "Show value by week ({})",
                        format::counted(products as u64, "product", "products")
                    ))
                    .clicked();
            }
            WeeklyFigures::Loading { landed, products } => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.weak(format!(
                        "Fetching weekly figures: {landed} of {products} products"
                    ));
                });
            }
            WeeklyFigures::Loaded { failed } => {
                if failed > 0 {
                    ui.weak(format!(
                        "{} could not be fetched; their pairs are left out.",
                        format::counted(failed as u64, "product's figures", "products' figures")
                    ));
                }
                value_by_week_ui(ui, charts);
            }
        }
        let ui = &mut columns[1];
        ui.strong(format!("Realized P&L by month ({currency})"));
        ui.weak("Sale price minus fees, shipping and cost, by month of sale.");
        if charts.months.is_empty() {
            ui.weak("No sale yet.");
        } else {
            let positive = egui::Color32::from_rgb(70, 150, 95);
            let negative = ui.visuals().error_fg_color;
            let labels: Vec<String> = charts
                .months
                .iter()
                .map(|(month, _)| month.format("%Y-%m").to_string())
                .collect();
            let bars: Vec<Bar> = charts
                .months
                .iter()
                .enumerate()
                .map(|(place, (month, cents))| {
                    Bar::new(place as f64, *cents as f64 / 100.0)
                        .name(month.format("%Y-%m").to_string())
                        .fill(if *cents >= 0 { positive } else { negative })
                        .width(0.7)
                })
                .collect();
            let summary = series_summary(
                "Realized P&L",
                charts
                    .months
                    .iter()
                    .enumerate()
                    .map(|(place, (_, cents))| [place as f64, *cents as f64 / 100.0]),
                &|place| {
                    labels
                        .get(place.round().max(0.0) as usize)
                        .cloned()
                        .unwrap_or_default()
                },
                &|value| format::signed_amount(value, &currency),
            );
            let hover_currency = currency.clone();
            let chart = BarChart::new("realized P&L", bars).element_formatter(Box::new(
                move |bar: &Bar, _chart: &BarChart| {
                    format!(
                        "{}\n{}",
                        bar.name,
                        format::signed_amount(bar.value, &hover_currency)
                    )
                },
            ));
            let shown = Plot::new("portfolio_realized_by_month")
                .height(160.0)
                .include_y(0.0)
                .x_grid_spacer(egui_plot::uniform_grid_spacer(|_input| [1.0, 3.0, 12.0]))
                .x_axis_formatter(move |mark: GridMark, _range| {
                    let place = mark.value.round();
                    if (mark.value - place).abs() > 1e-6 || place < 0.0 {
                        return String::new();
                    }
                    labels.get(place as usize).cloned().unwrap_or_default()
                })
                .allow_scroll(false)
                .allow_zoom(false)
                .allow_drag(false)
                .show(ui, |plot_ui| plot_ui.bar_chart(chart));
            describe_chart(
                &shown.response,
                "Chart of realized P&L by month",
                &[summary],
            );
        }
    });
    load
}

/// The value-by-week line, once the weekly figures are in.
fn value_by_week_ui(ui: &mut egui::Ui, charts: &PortfolioCharts) {
    let currency = &charts.currency;
    if charts.weeks.iter().all(|w| w.priced == 0) {
        ui.weak("No weekly AOV for the held products.");
        return;
    }
    let points: PlotPoints = charts
        .weeks
        .iter()
        .map(|w| {
            [
                f64::from(w.start.to_epoch_days()),
                w.value_cents as f64 / 100.0,
            ]
        })
        .collect();
    let summary = series_summary(
        "Value",
        points.points().iter().map(|point| [point.x, point.y]),
        &|day| format!("the week of {}", date_of_day(day)),
        &|value| format::money(value, currency),
    );
    let hover_currency = currency.clone();
    let shown = Plot::new("portfolio_value_by_week")
        .height(160.0)
        .include_y(0.0)
        .x_axis_formatter(|mark: GridMark, _range| date_of_day(mark.value))
        .label_formatter(move |hover| match hover {
            HoverPosition::NearDataPoint { position, .. } => Some(format!(
                "week of {}\n{}",
                date_of_day(position.x),
                format::money(position.y, &hover_currency)
            )),
            HoverPosition::Elsewhere { .. } => None,
        })
        .allow_scroll(false)
        .allow_zoom(false)
        .allow_drag(false)
        .show(ui, |plot_ui| {
            plot_ui.line(Line::new("value (weekly AOV)", points).width(1.5));
        });
    describe_chart(
        &shown.response,
        "Chart of the portfolio's value by week",
        &[summary],
    );
}
