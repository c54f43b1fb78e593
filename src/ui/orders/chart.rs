//! The weekly charts: one `egui_plot` chart per metric on a shared, dated x axis, with 1-2-5
//! grid steps and short axis labels.

use chrono::NaiveDate;
use egui_plot::{GridMark, HoverPosition, Legend, Line, Plot, PlotPoint};

use super::{Metric, WeekRange, WeeklySeries};
use crate::ui::chart_text::{describe_chart, series_summary};
use crate::ui::format;

/// Days in a week, for the x-axis range.
pub(super) const DAYS_PER_WEEK: f64 = 7.0;

/// The chart's x value of a date: days since 1970-01-01.
pub(super) fn day_from_date(date: NaiveDate) -> f64 {
    f64::from(date.to_epoch_days())
}

/// `2026-11-16` for a day count since 1970-01-01; empty when out of chrono's range.
pub(super) fn date_from_day(day: f64) -> String {
    i32::try_from(day.round() as i64)
        .ok()
        .and_then(NaiveDate::from_epoch_days)
        .map_or_else(String::new, |date| date.format("%Y-%m-%d").to_string())
}

/// The x-range `[first day, last day]` a range of weeks covers, ending with the newest week of
/// any series so compared products line up; `None` when no series has a week.
pub(super) fn x_range(series: &[Charted<'_>], range: WeekRange) -> Option<[f64; 2]> {
    let newest = series
        .iter()
        .filter_map(|charted| charted.series.newest_day())
        .max_by(f64::total_cmp)?;
    let first = newest - DAYS_PER_WEEK * f64::from(range.weeks().saturating_sub(1));
    Some([first, newest])
}

/// The points of `points` (oldest first) on or after `first_day`, borrowed.
pub(super) fn points_since(points: &[PlotPoint], first_day: f64) -> &[PlotPoint] {
    &points[points.partition_point(|point| point.x < first_day)..]
}

/// A rank-axis label: `#1` for a whole positive position, nothing for the fractions and the
/// zero and below that the axis may also mark.
pub(super) fn rank_axis_label(value: f64) -> String {
    let rounded = value.round();
    if rounded >= 1.0 && (value - rounded).abs() < 1e-6 {
        format!("#{rounded:.0}")
    } else {
        String::new()
    }
}

/// The hover text of one point of `metric`.
pub(super) fn hover_text(
    metric: Metric,
    product: &str,
    day: f64,
    value: f64,
    currency: &str,
) -> String {
    let value = match metric {
        Metric::Orders => format::counted(value.max(0.0).round() as u64, "order", "orders"),
        Metric::Aov => format!("AOV {}", format::money(value, currency)),
        Metric::Gmv => format!("GMV {}", format::money(value, currency)),
        Metric::Rank => format!("rank {}", rank_axis_label(value)),
    };
    format!("{product}\nweek of {}\n{value}", date_from_day(day))
}

/// One colour per product, in the order given; the open product is first.
pub(super) const PRODUCT_COLOURS: [egui::Color32; 6] = [
    egui::Color32::from_rgb(0x1f, 0x77, 0xb4),
    egui::Color32::from_rgb(0xff, 0x7f, 0x0e),
    egui::Color32::from_rgb(0x2c, 0xa0, 0x2c),
    egui::Color32::from_rgb(0xd6, 0x27, 0x28),
    egui::Color32::from_rgb(0x94, 0x67, 0xbd),
    egui::Color32::from_rgb(0x8c, 0x56, 0x4b),
];

pub(super) fn product_colour(index: usize) -> egui::Color32 {
    PRODUCT_COLOURS[index % PRODUCT_COLOURS.len()]
}

/// A loaded series as charted: its index in the given list (for the colour) and its label.
pub(super) struct Charted<'a> {
    pub(super) index: usize,
    pub(super) label: &'a str,
    pub(super) series: &'a WeeklySeries,
}

/// Height of each chart when several are stacked.
pub(super) const CHART_HEIGHT: f32 = 200.0;

/// Width kept for the y-axis labels, the same on every chart so their x axes line up.
pub(super) const Y_AXIS_WIDTH: f32 = 64.0;

/// One chart of `metric` for every charted product over `range`. `reset` refits the bounds
/// (after a range change).
pub(super) fn chart_ui(
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
    let shown = plot.show(ui, |plot_ui| {
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
    let summaries: Vec<String> = charted
        .iter()
        .map(|product| {
            let points = points_since(product.series.points(metric), first_day);
            series_summary(
                product.label,
                points.iter().map(|point| [point.x, point.y]),
                &|day| format!("the week of {}", date_from_day(day)),
                &|value| value_text(metric, value, currency),
            )
        })
        .collect();
    describe_chart(
        &shown.response,
        &format!(
            "Chart of {} per week, last {} weeks",
            metric.label(),
            range.weeks()
        ),
        &summaries,
    );
    ui.add_space(4.0);
}

/// A value of `metric` as the text alternative reads it: `1,234 orders`, `180.00 USD`, `#3`.
fn value_text(metric: Metric, value: f64, currency: &str) -> String {
    match metric {
        Metric::Orders => format::counted(value.max(0.0).round() as u64, "order", "orders"),
        Metric::Aov | Metric::Gmv => format::money(value, currency),
        Metric::Rank => format!("rank {}", rank_axis_label(value)),
    }
}

/// Grid steps of 1, 2 or 5 times a power of ten, from the smallest the plot allows up: `egui_plot`'s
/// default spacer only steps in powers of ten, which on a short chart of 0 to 9,000 orders leaves
/// a single labelled line (0).
#[allow(
    clippy::needless_pass_by_value,
    reason = "the signature uniform_grid_spacer takes"
)]
pub(super) fn one_two_five_steps(input: egui_plot::GridInput) -> [f64; 3] {
    let small = next_one_two_five(input.base_step_size);
    let medium = next_one_two_five(small * 2.0);
    [small, medium, next_one_two_five(medium * 2.0)]
}

/// The smallest of 1, 2 or 5 times a power of ten that is at least `value`.
pub(super) fn next_one_two_five(value: f64) -> f64 {
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
pub(super) fn compact_number(value: f64) -> String {
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
