//! The weekly-orders view (pro): a row of summary figures for the open product, then orders,
//! AOV, GMV and rank per week as stacked charts on one dated, linked x axis, with other
//! products overlaid for comparison.
//!
//! The view draws the series it is given and returns what the user asked for
//! ([`OrdersOutput`]); fetching, comparing and writing the CSV file are the app's.

mod chart;
mod summary;
#[cfg(test)]
mod tests;

use egui_plot::PlotPoint;
use serde::{Deserialize, Serialize};

use self::chart::{CHART_HEIGHT, Charted, chart_ui, day_from_date, product_colour};
use self::summary::summary_ui;

use super::fetched::Fetched;
use super::widgets::{error_ui, lock_ui, requested_ui};
use crate::figures::{self, CsvError, Week};
use crate::model::{Feature, Tier, WeeklyOrder};

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
            // A source without weekly ranks gives no rank points (never invented ones).
            rank_plot: weeks
                .iter()
                .filter_map(|week| week.position.map(|p| point(week, f64::from(p))))
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
    if tier.is_some_and(|tier| !tier.allows(Feature::WeeklyOrders)) {
        lock_ui(
            ui,
            "Weekly orders",
            Feature::WeeklyOrders.minimum_tier(),
            tier,
        );
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
                // A source that gives no weekly rank (KicksDB) leaves the rank chart out and
                // says so, instead of drawing an invented line.
                if metric == Metric::Rank
                    && charted
                        .iter()
                        .all(|c| c.series.points(Metric::Rank).is_empty())
                {
                    ui.weak("Rank: not given by this data source (it has no weekly ranks).");
                    continue;
                }
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
            let remove = ui.small_button("×").on_hover_text("Stop comparing");
            // The cross says nothing to a screen reader: the button is named by what it does.
            remove.widget_info(|| {
                egui::WidgetInfo::labeled(
                    egui::Role::Button,
                    true,
                    format!("Stop comparing {label}"),
                )
            });
            if remove.clicked() {
                output.remove_compare = Some(index);
            }
            ui.add_space(8.0);
        }
    });
}
