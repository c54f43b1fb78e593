//! The per-size price history chart: the lowest ask of each picked size on each source over
//! time, from the rows the user database kept (one per 15 minutes).

use egui_plot::{HoverPosition, Legend, Line, Plot, PlotPoints, Points};

use crate::model::PricePoint;

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

/// `11-23 14:15` for a Unix time.
fn time_label(secs: f64) -> String {
    chrono::DateTime::from_timestamp(secs.round() as i64, 0)
        .map(|t| t.format("%m-%d %H:%M").to_string())
        .unwrap_or_default()
}

/// The chart, `height` points high, with the sizes picked in `picked` (size keys; empty for
/// all). Returns a size to toggle when one of the size buttons above it is clicked.
pub fn price_history_ui(
    ui: &mut egui::Ui,
    sizes: &[String],
    picked: &[String],
    points: Option<&[PricePoint]>,
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
    Plot::new("price_history")
        .height(height)
        .legend(Legend::default())
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
        });
    toggle
}
