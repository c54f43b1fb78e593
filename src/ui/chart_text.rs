//! Text alternatives for the charts: what a screen reader reads for a plot, made of the
//! figures a sighted user takes from it (how many points over which span, the latest value,
//! the lowest and the highest, and where they are).
//!
//! A plot is one widget for AccessKit; [`describe_chart`] names it as an image with that text,
//! so the chart is announced by its figures instead of being skipped.

/// The summary of one series: `"{name}: {n} points from {first x} to {last x}; latest {y};
/// lowest {y} ({x}); highest {y} ({x})"`, with `x_text` and `y_text` writing the values.
/// Points that are not finite are left out; a series without any says so.
pub fn series_summary(
    name: &str,
    points: impl IntoIterator<Item = [f64; 2]>,
    x_text: &dyn Fn(f64) -> String,
    y_text: &dyn Fn(f64) -> String,
) -> String {
    let mut count = 0_usize;
    let mut first: Option<[f64; 2]> = None;
    let mut last = [0.0; 2];
    let mut lowest = [0.0, f64::INFINITY];
    let mut highest = [0.0, f64::NEG_INFINITY];
    for point in points {
        if !(point[0].is_finite() && point[1].is_finite()) {
            continue;
        }
        count += 1;
        first.get_or_insert(point);
        last = point;
        if point[1] < lowest[1] {
            lowest = point;
        }
        if point[1] > highest[1] {
            highest = point;
        }
    }
    let Some(first) = first else {
        return format!("{name}: no data");
    };
    let points = if count == 1 { "point" } else { "points" };
    format!(
        "{name}: {count} {points} from {} to {}; latest {}; lowest {} ({}); highest {} ({})",
        x_text(first[0]),
        x_text(last[0]),
        y_text(last[1]),
        y_text(lowest[1]),
        x_text(lowest[0]),
        y_text(highest[1]),
        x_text(highest[0]),
    )
}

/// Names the plot behind `response` for assistive technology: an image whose name is `title`
/// followed by the summaries (one sentence per series).
pub fn describe_chart(response: &egui::Response, title: &str, summaries: &[String]) {
    let mut text = title.to_owned();
    for summary in summaries {
        text.push_str(". ");
        text.push_str(summary);
    }
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &text));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_span_latest_lowest_and_highest() {
        let x = |x: f64| format!("day {x}");
        let y = |y: f64| format!("{y:.0} USD");
        let text = series_summary(
            "Orders",
            [
                [1.0, 5.0],
                [2.0, f64::NAN],
                [3.0, 9.0],
                [4.0, 2.0],
                [5.0, 4.0],
            ],
            &x,
            &y,
        );
        assert_eq!(
            text,
            "Orders: 4 points from day 1 to day 5; latest 4 USD; lowest 2 USD (day 4); \
             highest 9 USD (day 3)"
        );
        assert_eq!(series_summary("Empty", [], &x, &y), "Empty: no data");
        assert!(series_summary("One", [[7.0, 1.0]], &x, &y).starts_with("One: 1 point from"));
    }
}
