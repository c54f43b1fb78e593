//! The per-size price history chart: the lowest ask of each picked size on each source over
//! time, from the rows the user database kept (one per 15 minutes), beside the product's weekly
//! AOV over the same span.

use egui_plot::{HoverPosition, Legend, Line, Plot, PlotPoints, Points};

use crate::model::PricePoint;
use crate::ui::chart_text::{describe_chart, series_summary};

/// One line of the chart: a size on a source, `(Unix seconds, dollars)` oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryLine {
    /// The legend: `9 · resale-a`.
    pub name: String,
    /// The points.
    pub points: Vec<[f64; 2]>,
}

/// The lines of `points` (oldest first): one per size and source with an ask, in size order as
/// given.
#[must_use]
pub fn history_lines(points: &[PricePoint]) -> Vec<HistoryLine> {
    let mut lines: Vec<HistoryLine> = Vec::new();
    for point in points {
        let Some(cents) = point.lowest_ask_cents else {
            continue;
        };
        let name = format!("{} · {}", point.size, point.source.as_str());
        let xy = [point.at as f64, cents as f64 / 100.0];
        match lines.iter_mut().find(|line| line.name == name) {
            Some(line) => line.points.push(xy),
            None => lines.push(HistoryLine {
                name,
                points: vec![xy],
            }),
        }
    }
    lines
}

/// The legend of the weekly AOV line.
pub const AOV_LINE: &str = "weekly AOV (all sizes)";

/// The weekly AOV as a step line over the span `[from, to]` (Unix seconds) of the history: each
/// week with orders holds its AOV from its start until the next week starts (the newest one
/// until `to`: it is the latest figure there is), cut to the span. `weeks` is
/// `(week start, AOV)`, oldest first. Empty when no week with orders overlaps the span.
#[must_use]
pub fn aov_steps(weeks: &[(i64, f64)], from: i64, to: i64) -> Vec<[f64; 2]> {
    let mut steps = Vec::new();
    for (i, &(start, aov)) in weeks.iter().enumerate() {
        let end = weeks.get(i + 1).map_or(to, |&(next, _)| next);
        let (lo, hi) = (start.max(from), end.min(to));
        if aov > 0.0 && lo <= hi {
            steps.push([lo as f64, aov]);
            steps.push([hi as f64, aov]);
        }
    }
    steps
}

/// `11-23 14:15` for a Unix time.
fn time_label(secs: f64) -> String {
    chrono::DateTime::from_timestamp(secs.round() as i64, 0)
        .map(|t| t.format("%m-%d %H:%M").to_string())
        .unwrap_or_default()
}

/// The chart, `height` points high, with the sizes picked in `picked` (size keys; empty for
/// all), and the product's weekly AOV (`(week start, AOV)` in the chart's currency, oldest
/// first; empty when not in hand) over the same span. Returns a size to toggle when one of the
/// size buttons above it is clicked.
pub fn price_history_ui(
    ui: &mut egui::Ui,
    sizes: &[String],
    picked: &[String],
    points: Option<&[PricePoint]>,
    weekly_aov: &[(i64, f64)],
    height: f32,
) -> Option<String> {
    let mut toggle = None;
    ui.strong("Price history by size (lowest ask)");
    ui.horizontal_wrapped(|ui| {
        for size in sizes {
            if ui.selectable_label(picked.contains(size), size).clicked() {
                toggle = Some(size.clone());
            }
        }
    });
    let Some(points) = points else {
        ui.spinner();
        return toggle;
    };
    let lines = history_lines(points);
    if lines.is_empty() {
        ui.weak("No history yet: every real-time lookup of this product adds to it.");
        return toggle;
    }
    let times = lines
        .iter()
        .flat_map(|line| line.points.iter().map(|p| p[0] as i64));
    let (first, last) = times.fold((i64::MAX, i64::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    // At least an hour wide, so a history of one slot still shows its week's AOV as a line, with
    // room on the right so the newest points stand clear of the frame.
    let from = first.min(last - 3600);
    let aov = aov_steps(weekly_aov, from, last);
    let mut summaries: Vec<String> = lines
        .iter()
        .map(|line| {
            series_summary(
                &line.name,
                line.points.iter().copied(),
                &time_label,
                &|dollars| format!("${dollars:.2}"),
            )
        })
        .collect();
    if !aov.is_empty() {
        summaries.push(series_summary(
            AOV_LINE,
            aov.iter().copied(),
            &time_label,
            &|dollars| format!("${dollars:.2}"),
        ));
    }
    let shown = Plot::new("price_history")
        .height(height)
        .legend(Legend::default().position(egui_plot::Corner::LeftTop))
        .include_x(from as f64)
        .include_x(last as f64 + (last - from) as f64 / 8.0)
        .x_axis_formatter(|mark, _| time_label(mark.value))
        .y_axis_label("USD")
        .label_formatter(|hover| match hover {
            HoverPosition::NearDataPoint {
                plot_name,
                position,
                ..
            } => Some(format!(
                "{plot_name}\n{}\n${:.2}",
                time_label(position.x),
                position.y
            )),
            HoverPosition::Elsewhere { .. } => None,
        })
        .show(ui, |plot| {
            for line in lines {
                // Markers too: a size seen in one slot only is a point, not a line.
                plot.points(
                    Points::new(line.name.clone(), PlotPoints::from(line.points.clone()))
                        .radius(2.5),
                );
                plot.line(Line::new(line.name, PlotPoints::from(line.points)));
            }
            if !aov.is_empty() {
                plot.line(
                    Line::new(AOV_LINE, PlotPoints::from(aov))
                        .style(egui_plot::LineStyle::dashed_loose()),
                );
            }
        });
    describe_chart(
        &shown.response,
        "Chart of the lowest ask by size over time",
        &summaries,
    );
    toggle
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weekly_aov_is_cut_to_the_span_of_the_history() {
        const WEEK: i64 = 7 * 24 * 3600;
        let weeks = [
            (0, 100.0),
            (WEEK, 0.0),
            (2 * WEEK, 120.0),
            (3 * WEEK, 130.0),
        ];
        // A span inside the third week and into the fourth: the empty week and the first are out.
        let from = 2 * WEEK + 3600;
        let to = 3 * WEEK + 7200;
        assert_eq!(
            aov_steps(&weeks, from, to),
            vec![
                [from as f64, 120.0],
                [(3 * WEEK) as f64, 120.0],
                [(3 * WEEK) as f64, 130.0],
                [to as f64, 130.0],
            ]
        );
        // Weeks after the newest record: the newest AOV holds (the latest figure there is).
        assert_eq!(
            aov_steps(&weeks, 6 * WEEK, 6 * WEEK + 60),
            vec![[(6 * WEEK) as f64, 130.0], [(6 * WEEK + 60) as f64, 130.0]]
        );
        // A span before any week: nothing.
        assert!(aov_steps(&weeks[2..], 0, WEEK).is_empty());
    }
}
