//! The weekly-orders view (pro): a row of summary figures for the open product, then orders,
//! AOV, GMV and rank per week as stacked charts on one dated, linked x axis, with other
//! products overlaid for comparison.
//!
//! The view draws the series it is given and returns what the user asked for
//! ([`OrdersOutput`]); fetching, comparing and writing the CSV file are the app's.

use chrono::NaiveDate;
use egui_plot::{GridMark, HoverPosition, Legend, Line, Plot, PlotPoint};
use serde::{Deserialize, Serialize};

use super::fetched::Fetched;
use super::format;
use super::widgets::{error_ui, lock_ui, requested_ui};
use crate::figures::{self, CsvError, Week, WeeklySummary};
use crate::model::{Tier, WeeklyOrder};

/// How many weeks back the view looks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WeekRange {
    /// The last 12 weeks.
    Quarter,
    /// The last 26 weeks.
    HalfYear,
    /// The last 52 weeks: all the service keeps.
    #[default]
    Year,
}

impl WeekRange {
    /// Every range, shortest first.
    pub const ALL: [WeekRange; 3] = [WeekRange::Quarter, WeekRange::HalfYear, WeekRange::Year];

    /// The length of the range in weeks.
    #[must_use]
    pub fn weeks(self) -> u32 {
        match self {
            WeekRange::Quarter => 12,
            WeekRange::HalfYear => 26,
            WeekRange::Year => 52,
        }
    }
}

/// A figure the view can chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Metric {
    /// Orders per week.
    Orders,
    /// Average order value per week (weeks without orders have none).
    Aov,
    /// Gross merchandise value per week.
    Gmv,
    /// Ranking position per week; 1 is best and drawn at the top.
    Rank,
}

impl Metric {
    /// Every metric, in the order the charts are stacked.
    pub const ALL: [Metric; 4] = [Metric::Orders, Metric::Aov, Metric::Gmv, Metric::Rank];

    /// Short name, for the toggle and the axis.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Metric::Orders => "Orders",
            Metric::Aov => "AOV",
            Metric::Gmv => "GMV",
            Metric::Rank => "Rank",
        }
    }

    fn plot_id(self) -> &'static str {
        match self {
            Metric::Orders => "weekly_orders_plot",
            Metric::Aov => "weekly_aov_plot",
            Metric::Gmv => "weekly_gmv_plot",
            Metric::Rank => "weekly_rank_plot",
        }
    }
}

/// What the weekly-orders view shows; persisted with the app state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OrdersView {
    /// How many weeks back the figures and charts go.
    pub range: WeekRange,
    /// The charts shown, stacked in [`Metric::ALL`] order whatever the order here.
    pub metrics: Vec<Metric>,
}

impl Default for OrdersView {
    fn default() -> Self {
        Self {
            range: WeekRange::Year,
            metrics: Metric::ALL.to_vec(),
        }
    }
}

impl OrdersView {
    /// Whether the chart of `metric` is shown.
    #[must_use]
    pub fn shows(&self, metric: Metric) -> bool {
        self.metrics.contains(&metric)
    }

    /// Shows the chart of `metric` if hidden, hides it if shown.
    pub fn toggle(&mut self, metric: Metric) {
        if self.shows(metric) {
            self.metrics.retain(|shown| *shown != metric);
        } else {
            self.metrics.push(metric);
        }
    }
}

/// What the user asked for in the weekly-orders view this frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OrdersOutput {
    /// Retry was clicked on the series at this index of the `series` given (0 is the open
    /// product).
    pub retry: Option<usize>,
    /// The compared product at this index of `series` is to be removed (never 0).
    pub remove_compare: Option<usize>,
    /// Export CSV was clicked; [`series_csv`] makes the text.
    pub export_csv: bool,
    /// Export PNG was clicked: save the charts as drawn.
    pub export_png: bool,
}

/// The weekly figures of one product, oldest week first, ready to summarise and plot.
///
/// Chart x values are days since 1970-01-01 of each week's first day.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WeeklySeries {
    /// `[day, orders]` for every week: kept as plain pairs so tests can count and read them.
    pub orders_points: Vec<[f64; 2]>,
    /// The weeks, oldest first, for the figures and the CSV export.
    pub weeks: Vec<Week>,
    // The points of each chart, kept in egui_plot's own type so a frame lends them to the
    // plot instead of copying them.
    orders_plot: Vec<PlotPoint>,
    aov_plot: Vec<PlotPoint>,
    gmv_plot: Vec<PlotPoint>,
    rank_plot: Vec<PlotPoint>,
}

impl WeeklySeries {
    /// The series of the records the service sent (newest first); records whose date cannot be
    /// read are left out rather than drawn at a wrong place.
    #[must_use]
    pub fn from_weekly(records: &[WeeklyOrder]) -> Self {
        Self::from_weeks(figures::weeks_from_records(records))
    }

    /// The series of weeks already read, oldest first.
    #[must_use]
    pub fn from_weeks(weeks: Vec<Week>) -> Self {
        let point = |week: &Week, y: f64| PlotPoint::new(day_from_date(week.start), y);
        let orders_plot: Vec<PlotPoint> = weeks
            .iter()
            .map(|week| point(week, f64::from(week.orders)))
            .collect();
        Self {
            orders_points: orders_plot.iter().map(|p| [p.x, p.y]).collect(),
            // A week without orders has no order value; a 0 there would read as a crash.
            aov_plot: weeks
                .iter()
                .filter(|week| week.orders > 0)
                .map(|week| point(week, week.aov))
                .collect(),
            gmv_plot: weeks.iter().map(|week| point(week, week.gmv)).collect(),
            rank_plot: weeks
                .iter()
                .map(|week| point(week, f64::from(week.position)))
                .collect(),
            orders_plot,
            weeks,
        }
    }

    /// The chart points of `metric`, oldest first. Rank points are positive positions (the
    /// rank chart turns its y axis over).
    #[must_use]
    pub fn points(&self, metric: Metric) -> &[PlotPoint] {
        match metric {
            Metric::Orders => &self.orders_plot,
            Metric::Aov => &self.aov_plot,
            Metric::Gmv => &self.gmv_plot,
            Metric::Rank => &self.rank_plot,
        }
    }

    /// How many weeks of the last `range_weeks` (counted back from this series' newest week)
    /// hold data: the points the orders chart draws for that range.
    #[must_use]
    pub fn visible_points(&self, range_weeks: u32) -> usize {
        figures::weeks_in_range(&self.weeks, range_weeks).len()
    }

    /// Day of the newest week, if any.
    fn newest_day(&self) -> Option<f64> {
        self.orders_plot.last().map(|point| point.x)
    }
}

/// The loaded series of the view as CSV (see [`figures::weeks_csv`]), labelled as in the
/// view; series not loaded yet are left out.
pub fn series_csv(series: &[(&str, Fetched<'_, WeeklySeries>)]) -> Result<String, CsvError> {
    let loaded: Vec<(&str, &[Week])> = series
        .iter()
        .filter_map(|(label, requested)| requested.value().map(|s| (*label, s.weeks.as_slice())))
        .collect();
    figures::weeks_csv(&loaded)
}

/// Days in a week, for the x-axis range.
const DAYS_PER_WEEK: f64 = 7.0;

/// The chart's x value of a date: days since 1970-01-01.
fn day_from_date(date: NaiveDate) -> f64 {
    f64::from(date.to_epoch_days())
}

/// `2026-11-16` for a day count since 1970-01-01; empty when out of chrono's range.
fn date_from_day(day: f64) -> String {
    i32::try_from(day.round() as i64)
        .ok()
        .and_then(NaiveDate::from_epoch_days)
        .map_or_else(String::new, |date| date.format("%Y-%m-%d").to_string())
}

/// The x-range `[first day, last day]` a range of weeks covers, ending with the newest week of
/// any series so compared products line up; `None` when no series has a week.
fn x_range(series: &[Charted<'_>], range: WeekRange) -> Option<[f64; 2]> {
    let newest = series
        .iter()
        .filter_map(|charted| charted.series.newest_day())
        .max_by(f64::total_cmp)?;
    let first = newest - DAYS_PER_WEEK * f64::from(range.weeks().saturating_sub(1));
    Some([first, newest])
}

/// The points of `points` (oldest first) on or after `first_day`, borrowed.
fn points_since(points: &[PlotPoint], first_day: f64) -> &[PlotPoint] {
    &points[points.partition_point(|point| point.x < first_day)..]
}

/// A rank-axis label: `#1` for a whole positive position, nothing for the fractions and the
/// zero and below that the axis may also mark.
fn rank_axis_label(value: f64) -> String {
    let rounded = value.round();
    if rounded >= 1.0 && (value - rounded).abs() < 1e-6 {
        format!("#{rounded:.0}")
    } else {
        String::new()
    }
}

/// The hover text of one point of `metric`.
fn hover_text(metric: Metric, product: &str, day: f64, value: f64, currency: &str) -> String {
    let value = match metric {
        Metric::Orders => format!("{} orders", format::count(value.max(0.0).round() as u64)),
        Metric::Aov => format!("AOV {}", format::money(value, currency)),
        Metric::Gmv => format!("GMV {}", format::money(value, currency)),
        Metric::Rank => format!("rank {}", rank_axis_label(value)),
    };
    format!("{product}\nweek of {}\n{value}", date_from_day(day))
}

/// One colour per product, in the order given; the open product is first.
const PRODUCT_COLOURS: [egui::Color32; 6] = [
    egui::Color32::from_rgb(0x1f, 0x77, 0xb4),
    egui::Color32::from_rgb(0xff, 0x7f, 0x0e),
    egui::Color32::from_rgb(0x2c, 0xa0, 0x2c),
    egui::Color32::from_rgb(0xd6, 0x27, 0x28),
    egui::Color32::from_rgb(0x94, 0x67, 0xbd),
    egui::Color32::from_rgb(0x8c, 0x56, 0x4b),
];

fn product_colour(index: usize) -> egui::Color32 {
    PRODUCT_COLOURS[index % PRODUCT_COLOURS.len()]
}

/// Colour of a rise in the summary; a fall uses the theme's error colour.
const RISE_COLOUR: egui::Color32 = egui::Color32::from_rgb(0x2c, 0xa0, 0x2c);

/// A loaded series as charted: its index in the given list (for the colour) and its label.
struct Charted<'a> {
    index: usize,
    label: &'a str,
    series: &'a WeeklySeries,
}

/// The weekly-orders view. `series` holds the open product first, then the products added to
/// compare, each with the label shown in legends; `currency` is that of AOV and GMV (the open
/// product's; empty when unknown). A free key gets a lock instead.
pub fn orders_ui(
    ui: &mut egui::Ui,
    view: &mut OrdersView,
    series: &[(&str, Fetched<'_, WeeklySeries>)],
    currency: &str,
    tier: Option<Tier>,
) -> OrdersOutput {
    let mut output = OrdersOutput::default();
    if tier == Some(Tier::Free) {
        lock_ui(ui, "Weekly orders", Tier::Pro, tier);
        return output;
    }
    let Some(&(_, open)) = series.first() else {
        return output;
    };

    let charted: Vec<Charted<'_>> = series
        .iter()
        .enumerate()
        .filter_map(|(index, (label, requested))| {
            requested
                .value()
                .filter(|series| !series.weeks.is_empty())
                .map(|series| Charted {
                    index,
                    label,
                    series,
                })
        })
        .collect();

    let range_before = view.range;
    ui.horizontal_wrapped(|ui| {
        for range in WeekRange::ALL {
            ui.selectable_value(&mut view.range, range, format!("{} wk", range.weeks()))
                .on_hover_text(format!("The last {} weeks", range.weeks()));
        }
        ui.separator();
        for metric in Metric::ALL {
            if ui
                .selectable_label(view.shows(metric), metric.label())
                .clicked()
            {
                view.toggle(metric);
            }
        }
        ui.separator();
        output.export_csv = ui
            .add_enabled(!charted.is_empty(), egui::Button::new("Export CSV"))
            .on_hover_text("Save the weekly figures of these products as a CSV file")
            .clicked();
        output.export_png = ui
            .add_enabled(!charted.is_empty(), egui::Button::new("Export PNG"))
            .on_hover_text("Save the charts as drawn, as a PNG picture")
            .clicked();
    });
    let range_changed = view.range != range_before;

    let retry_open = requested_ui(ui, "Weekly orders", open, |ui, open| {
        summary_ui(ui, open, view.range, currency);
    });
    if retry_open {
        output.retry = Some(0);
    }
    if series.len() > 1 {
        compare_ui(ui, series, &mut output);
    }
    if charted.is_empty() {
        return output;
    }

    ui.add_space(4.0);
    let shown: Vec<Metric> = Metric::ALL
        .into_iter()
        .filter(|metric| view.shows(*metric))
        .collect();
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let height = if shown.len() == 1 {
                ui.available_height().max(CHART_HEIGHT)
            } else {
                CHART_HEIGHT
            };
            for metric in shown {
                chart_ui(
                    ui,
                    metric,
                    &charted,
                    view.range,
                    currency,
                    height,
                    range_changed,
                );
            }
        });
    output
}

/// Height of each chart when several are stacked.
const CHART_HEIGHT: f32 = 200.0;

/// Width kept for the y-axis labels, the same on every chart so their x axes line up.
const Y_AXIS_WIDTH: f32 = 64.0;

/// One chart of `metric` for every charted product over `range`. `reset` refits the bounds
/// (after a range change).
fn chart_ui(
    ui: &mut egui::Ui,
    metric: Metric,
    charted: &[Charted<'_>],
    range: WeekRange,
    currency: &str,
    height: f32,
    reset: bool,
) {
    let Some([first_day, last_day]) = x_range(charted, range) else {
        return;
    };
    let y_label = match metric {
        Metric::Aov | Metric::Gmv if !currency.is_empty() => {
            format!("{} ({currency})", metric.label())
        }
        _ => metric.label().to_owned(),
    };
    let mut plot = Plot::new(metric.plot_id())
        .height(height)
        .y_axis_label(y_label)
        .y_axis_min_width(Y_AXIS_WIDTH)
        .x_axis_formatter(|mark: GridMark, _range| date_from_day(mark.value))
        .label_formatter(move |hover| match hover {
            HoverPosition::NearDataPoint {
                plot_name,
                position,
                ..
            } => Some(hover_text(
                metric, plot_name, position.x, position.y, currency,
            )),
            HoverPosition::Elsewhere { .. } => None,
        })
        // Both ends of the range on every chart, so AOV (no point in weeks without orders)
        // spans the same dates as the others.
        .include_x(first_day)
        .include_x(last_day)
        .link_axis(egui::Id::unique("weekly_charts_x"), [true, false])
        .link_cursor(egui::Id::unique("weekly_charts_x"), [true, false])
        // The wheel scrolls the page, not the chart.
        .allow_scroll(false);
    match metric {
        // Rank 1 is best: drawn at the top, on an axis labelled with whole positions only.
        Metric::Rank => {
            plot = plot
                .invert_y(true)
                .y_axis_formatter(|mark: GridMark, _range| rank_axis_label(mark.value));
        }
        // Counts and totals read against zero; an average price reads better zoomed in. Large
        // values are written short (`12k`, `1.5M`) so they fit the axis.
        Metric::Orders | Metric::Gmv => {
            plot = plot
                .include_y(0.0)
                .y_grid_spacer(egui_plot::uniform_grid_spacer(one_two_five_steps))
                .y_axis_formatter(|mark: GridMark, _range| compact_number(mark.value));
        }
        Metric::Aov => {
            plot = plot
                .y_grid_spacer(egui_plot::uniform_grid_spacer(one_two_five_steps))
                .y_axis_formatter(|mark: GridMark, _range| compact_number(mark.value));
        }
    }
    if charted.len() > 1 {
        plot = plot.legend(Legend::default());
    }
    if reset {
        plot = plot.reset();
    }
    plot.show(ui, |plot_ui| {
        for product in charted {
            let points = points_since(product.series.points(metric), first_day);
            plot_ui.line(
                Line::new(product.label, points)
                    .id(product.index)
                    .color(product_colour(product.index))
                    .width(1.5),
            );
        }
    });
    ui.add_space(4.0);
}

/// The summary figures of the open product over `range`.
fn summary_ui(ui: &mut egui::Ui, series: &WeeklySeries, range: WeekRange, currency: &str) {
    let Some(summary) = WeeklySummary::from_weeks(&series.weeks, range.weeks()) else {
        ui.weak("No weekly orders recorded for this product.");
        return;
    };
    let in_range = figures::weeks_in_range(&series.weeks, range.weeks());
    let volatility = figures::aov_volatility(in_range);
    let momentum = figures::momentum(&series.weeks);

    ui.weak(format!(
        "{} weeks of data in the last {}",
        summary.weeks_with_data,
        range.weeks()
    ));
    ui.horizontal_wrapped(|ui| {
        stat_ui(ui, "Orders", &format::count(summary.total_orders), None);
        stat_ui(ui, "GMV", &format::money(summary.total_gmv, currency), None);
        let previous = format!("vs previous {} wk", range.weeks());
        change_ui(ui, &previous, summary.orders_change, "orders");
        change_ui(ui, &format!("GMV {previous}"), summary.gmv_change, "GMV");
        let best = summary.best_week.map_or_else(
            || "—".to_owned(),
            |best| {
                format!(
                    "{} · {} orders",
                    best.start.format("%Y-%m-%d"),
                    format::count(u64::from(best.orders))
                )
            },
        );
        stat_ui(ui, "Best week", &best, None);
        let average = summary
            .average_aov
            .map_or_else(|| "—".to_owned(), |aov| format::money(aov, currency));
        stat_ui(
            ui,
            "Average AOV",
            &average,
            Some("GMV over orders in the range: busy weeks weigh more"),
        );
        let volatility =
            volatility.map_or_else(|| "—".to_owned(), |ratio| format!("{:.1} %", ratio * 100.0));
        stat_ui(
            ui,
            "AOV volatility",
            &volatility,
            Some(&format!(
                "Standard deviation of weekly AOV over its mean, weeks with orders only; \
                 needs {} such weeks",
                figures::VOLATILITY_MIN_WEEKS
            )),
        );
        let momentum_text = momentum.map_or_else(
            || "—".to_owned(),
            |momentum| format!("{} (×{:.2})", momentum.trend.label(), momentum.ratio),
        );
        stat_ui(
            ui,
            "Momentum",
            &momentum_text,
            Some(&format!(
                "Orders of the last {w} weeks over the {w} before: rising from ×{:.2}, \
                 falling to ×{:.2}",
                figures::MOMENTUM_RISING_RATIO,
                figures::MOMENTUM_FALLING_RATIO,
                w = figures::MOMENTUM_WINDOW_WEEKS,
            )),
        );
    });
}

/// One figure: a small caption over its value.
fn stat_ui(ui: &mut egui::Ui, caption: &str, value: &str, hover: Option<&str>) {
    let response = ui
        .group(|ui| {
            ui.vertical(|ui| {
                ui.small(caption);
                ui.strong(value);
            });
        })
        .response;
    if let Some(hover) = hover {
        response.on_hover_text(hover);
    }
}

/// A change against the previous period, with its sign and an arrow; a dash when there is no
/// previous period to compare with.
fn change_ui(ui: &mut egui::Ui, caption: &str, change: Option<f64>, what: &str) {
    ui.group(|ui| {
        ui.vertical(|ui| {
            ui.small(caption);
            match change {
                Some(ratio) => {
                    let (arrow, colour) = if ratio > 0.0 {
                        ("⏶ ", RISE_COLOUR)
                    } else if ratio < 0.0 {
                        ("⏷ ", ui.visuals().error_fg_color)
                    } else {
                        ("", ui.visuals().text_color())
                    };
                    ui.colored_label(colour, format!("{arrow}{}", format::percent(ratio)));
                }
                None => {
                    ui.strong("—").on_hover_text(format!(
                        "No {what} to compare with: the history does not cover the whole \
                         previous period, or it had none"
                    ));
                }
            }
        });
    });
}

/// The compared products: a colour key, their fetch state, and a button to drop each.
fn compare_ui(
    ui: &mut egui::Ui,
    series: &[(&str, Fetched<'_, WeeklySeries>)],
    output: &mut OrdersOutput,
) {
    ui.horizontal_wrapped(|ui| {
        ui.weak("Comparing:");
        for (index, (label, requested)) in series.iter().enumerate() {
            let (swatch, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
            ui.painter().rect_filled(swatch, 2.0, product_colour(index));
            ui.label(*label);
            // The open product's spinner and error are shown above, with its figures.
            if index == 0 {
                ui.add_space(8.0);
                continue;
            }
            if requested.is_pending() {
                ui.spinner();
            }
            if let Some(err) = requested.error()
                && error_ui(ui, label, err)
            {
                output.retry = Some(index);
            }
            if ui
                .small_button("×")
                .on_hover_text("Stop comparing")
                .clicked()
            {
                output.remove_compare = Some(index);
            }
            ui.add_space(8.0);
        }
    });
}

/// Grid steps of 1, 2 or 5 times a power of ten, from the smallest the plot allows up: `egui_plot`'s
/// default spacer only steps in powers of ten, which on a short chart of 0 to 9,000 orders leaves
/// a single labelled line (0).
#[allow(
    clippy::needless_pass_by_value,
    reason = "the signature uniform_grid_spacer takes"
)]
fn one_two_five_steps(input: egui_plot::GridInput) -> [f64; 3] {
    let small = next_one_two_five(input.base_step_size);
    let medium = next_one_two_five(small * 2.0);
    [small, medium, next_one_two_five(medium * 2.0)]
}

/// The smallest of 1, 2 or 5 times a power of ten that is at least `value`.
fn next_one_two_five(value: f64) -> f64 {
    if !(value.is_finite() && value > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(value.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|factor| factor * power)
        .find(|step| *step >= value * (1.0 - 1e-9))
        .unwrap_or(10.0 * power)
}

/// `950`, `12k`, `12.5k`, `1.5M`: an axis label that stays short.
fn compact_number(value: f64) -> String {
    let magnitude = value.abs();
    let (scaled, suffix) = if magnitude >= 1e6 {
        (value / 1e6, "M")
    } else if magnitude >= 1e4 {
        (value / 1e3, "k")
    } else {
        (value, "")
    };
    let text = format!("{scaled:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text}{suffix}")
}

#[cfg(test)]
mod tests;
