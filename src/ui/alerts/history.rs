//! The per-size price history chart: the lowest ask of each picked size on each source over
//! time, from the rows the user database kept (one per 15 minutes), beside the product's weekly
//! AOV over the same span.

use egui_plot::{HoverPosition, Legend, Line, Plot, PlotPoints, Points};

use crate::model::PricePoint;
use crate::ui::chart_text::{describe_chart, series_summary};
use crate::ui::format;

/// One line of the chart: a size on a source, `(Unix seconds, amount)` oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryLine {
    /// The legend: `9 · resale-a`, or the store's name for a store's prices (`9 · kith.com`),
    /// and its currency when the chart has more than one (`9 · kith.com · EUR`: a store may sell
    /// in euros beside a marketplace's dollars).
    pub name: String,
    /// The currency of its amounts (that of its first point).
    pub currency: String,
    /// The points.
    pub points: Vec<[f64; 2]>,
}

/// The lines of `points` (oldest first): one per size and source (each store its own) with an ask, the sizes in the
/// order of `sizes` (the product's, smallest first; the database keeps them as text, where `10`
/// sorts before `7`), then any other size in the order met.
#[must_use]
pub fn history_lines(points: &[PricePoint], sizes: &[String]) -> Vec<HistoryLine> {
    let mut lines: Vec<(usize, HistoryLine)> = Vec::new();
    for point in points {
        let Some(cents) = point.lowest_ask_cents else {
            continue;
        };
        let seller = point.store.as_deref().unwrap_or(point.source.as_str());
        let name = format!("{} · {seller}", point.size);
        let xy = [point.at as f64, cents as f64 / 100.0];
        if let Some((_, line)) = lines.iter_mut().find(|(_, line)| line.name == name) {
            line.points.push(xy);
            continue;
        }
        let place = sizes
            .iter()
            .position(|size| *size == point.size)
            .unwrap_or(sizes.len());
        let line = HistoryLine {
            name,
            currency: point.currency.clone(),
            points: vec![xy],
        };
        lines.push((place, line));
    }
    // Stable: within a size, sources stay in the order met.
    lines.sort_by_key(|(place, _)| *place);
    let mut lines: Vec<HistoryLine> = lines.into_iter().map(|(_, line)| line).collect();
    if currencies(&lines).len() > 1 {
        for line in &mut lines {
            line.name = format!("{} · {}", line.name, line.currency);
        }
    }
    lines
}

/// The currencies of `lines`, each once, in the order met: the chart's axis names them all.
fn currencies(lines: &[HistoryLine]) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for line in lines {
        if !seen.contains(&line.currency.as_str()) {
            seen.push(&line.currency);
        }
    }
    seen
}

/// The legend of the weekly AOV line.
pub const AOV_LINE: &str = "weekly AOV (all sizes)";

/// The weekly AOV's currency: the caller draws it only for a product priced in USD.
const AOV_CURRENCY: &str = "USD";

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

/// The colour of the chart's `index`-th series: hues a golden-ratio step apart, as `egui_plot`
/// picks for items left without one. Given here because a size is drawn twice, as markers (a
/// slot seen once is a point) and as a line: left to the plot, the two got different colours
/// and the legend, which merges same-named items, drew the size's swatch in neutral grey.
fn series_color(index: usize) -> egui::Color32 {
    let golden_ratio = (5.0_f32.sqrt() - 1.0) / 2.0;
    let hue = (index as f32 * golden_ratio).fract();
    egui::ecolor::Hsva::new(hue, 0.85, 0.5, 1.0).into()
}

/// A size's markers and line, in one colour.
fn size_items(line: &HistoryLine, index: usize) -> (Points<'static>, Line<'static>) {
    let color = series_color(index);
    let points = Points::new(line.name.as_str(), PlotPoints::from(line.points.clone()))
        .radius(2.5)
        .color(color);
    let drawn = Line::new(line.name.as_str(), PlotPoints::from(line.points.clone()));
    (points, drawn.color(color))
}

/// The value axis's label: every currency on the chart, the weekly AOV's USD too when it is
/// drawn (`USD`, `USD / EUR`).
fn axis_label(lines: &[HistoryLine], with_aov: bool) -> String {
    let mut shown = currencies(lines);
    if with_aov && !shown.contains(&AOV_CURRENCY) {
        shown.push(AOV_CURRENCY);
    }
    shown.join(" / ")
}

/// `11-23 14:15` for a Unix time.
fn time_label(secs: f64) -> String {
    chrono::DateTime::from_timestamp(secs.round() as i64, 0)
        .map(|t| t.format("%m-%d %H:%M").to_string())
        .unwrap_or_default()
}

/// The chart, `height` points high, with the sizes picked in `picked` (size keys; empty for
/// all), and the product's weekly AOV (`(week start, AOV)` in USD, oldest first; empty when
/// not in hand) over the same span. Returns a size to toggle when one of the
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
    let lines = history_lines(points, sizes);
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
    let axis = axis_label(&lines, !aov.is_empty());
    // The currency a hovered line's amounts are in (the weekly AOV's otherwise).
    let currency_of = |name: &str| {
        lines
            .iter()
            .find(|line| line.name == name)
            .map_or(AOV_CURRENCY, |line| line.currency.as_str())
    };
    let mut summaries: Vec<String> = lines
        .iter()
        .map(|line| {
            series_summary(
                &line.name,
                line.points.iter().copied(),
                &time_label,
                &|value| format::money(value, &line.currency),
            )
        })
        .collect();
    if !aov.is_empty() {
        summaries.push(series_summary(
            AOV_LINE,
            aov.iter().copied(),
            &time_label,
            &|value| format::money(value, AOV_CURRENCY),
        ));
    }
    let shown = Plot::new("price_history")
        .height(height)
        // In the lines' order (sizes smallest first), not by name, where `10` comes before `7`.
        .legend(
            Legend::default()
                .position(egui_plot::Corner::LeftTop)
                .follow_insertion_order(true),
        )
        .include_x(from as f64)
        .include_x(last as f64 + (last - from) as f64 / 8.0)
        .x_axis_formatter(|mark, _| time_label(mark.value))
        .y_axis_label(axis)
        .label_formatter(|hover| match hover {
            HoverPosition::NearDataPoint {
                plot_name,
                position,
                ..
            } => Some(format!(
                "{plot_name}\n{}\n{}",
                time_label(position.x),
                format::money(position.y, currency_of(plot_name))
            )),
            HoverPosition::Elsewhere { .. } => None,
        })
        .show(ui, |plot| {
            let aov_color = series_color(lines.len());
            for (index, line) in lines.iter().enumerate() {
                // Markers too: a size seen in one slot only is a point, not a line.
                let (points, line) = size_items(line, index);
                plot.points(points);
                plot.line(line);
            }
            if !aov.is_empty() {
                plot.line(
                    Line::new(AOV_LINE, PlotPoints::from(aov))
                        .color(aov_color)
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
    fn a_size_s_markers_and_line_share_one_colour_of_their_own() {
        // The items' own `color` is a builder; the colour they carry is the trait's.
        fn color_of(item: &dyn egui_plot::PlotItem) -> egui::Color32 {
            item.color()
        }
        let line = |size: &str| HistoryLine {
            name: format!("{size} · resale-a"),
            currency: "USD".to_owned(),
            points: vec![[0.0, 100.0], [900.0, 110.0]],
        };
        let (points_9, line_9) = size_items(&line("9"), 0);
        let (points_10, line_10) = size_items(&line("10"), 1);
        // One colour per size, so the legend's merged entry shows it (not neutral grey).
        assert_eq!(color_of(&points_9), color_of(&line_9));
        assert_eq!(color_of(&points_10), color_of(&line_10));
        assert_ne!(color_of(&line_9), egui::Color32::TRANSPARENT);
        assert_ne!(color_of(&line_9), color_of(&line_10));
        // Twelve sizes, twelve colours.
        let colors: std::collections::HashSet<_> = (0..12).map(series_color).collect();
        assert_eq!(colors.len(), 12);
    }

    #[test]
    fn the_axis_names_every_currency_drawn() {
        let line = |currency: &str| HistoryLine {
            name: format!("9 · {currency}"),
            currency: currency.to_owned(),
            points: vec![[0.0, 100.0]],
        };
        assert_eq!(axis_label(&[line("USD")], true), "USD");
        assert_eq!(axis_label(&[line("USD"), line("EUR")], false), "USD / EUR");
        // A store's euros alone, beside the weekly AOV in dollars.
        assert_eq!(axis_label(&[line("EUR")], true), "EUR / USD");
        assert_eq!(axis_label(&[line("EUR")], false), "EUR");
    }

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
