//! The weekly-orders view (pro): orders per week as a line chart with a dated axis.

use chrono::{DateTime, NaiveDate};
use egui_plot::{HoverPosition, Line, Plot};

use super::widgets::{lock_ui, requested_ui};
use crate::app::Requested;
use crate::model::{Tier, WeeklyOrder};

/// The weekly figures of one product, oldest week first, ready to plot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WeeklySeries {
    /// `[day, orders]`: the week's first day as days since 1970-01-01, and its order count.
    pub orders_points: Vec<[f64; 2]>,
}

impl WeeklySeries {
    /// The series of the records the service sent (newest first); records whose date cannot be
    /// read are left out rather than drawn at a wrong place.
    #[must_use]
    pub fn from_weekly(records: &[WeeklyOrder]) -> Self {
        let mut orders_points: Vec<[f64; 2]> = records
            .iter()
            .filter_map(|record| {
                let day = DateTime::parse_from_rfc3339(&record.inserted_at).ok()?;
                Some([
                    day.timestamp() as f64 / SECS_PER_DAY,
                    f64::from(record.orders),
                ])
            })
            .collect();
        orders_points.sort_by(|a, b| a[0].total_cmp(&b[0]));
        Self { orders_points }
    }
}

const SECS_PER_DAY: f64 = 86_400.0;

/// `2026-11-16` for a day count since 1970-01-01.
fn date_from_day(day: f64) -> String {
    NaiveDate::from_ymd_opt(1970, 1, 1)
        .and_then(|epoch| epoch.checked_add_signed(chrono::TimeDelta::days(day.round() as i64)))
        .map_or_else(String::new, |date| date.format("%Y-%m-%d").to_string())
}

/// The orders chart, or a lock when the key's tier is known to be below pro. Returns whether
/// Retry was clicked.
pub fn orders_ui(ui: &mut egui::Ui, series: &Requested<WeeklySeries>, tier: Option<Tier>) -> bool {
    if tier == Some(Tier::Free) {
        lock_ui(ui, "Weekly orders", Tier::Pro, tier);
        return false;
    }
    requested_ui(ui, "Weekly orders", series, |ui, series| {
        if series.orders_points.is_empty() {
            ui.weak("No weekly orders recorded for this product.");
            return;
        }
        let total: f64 = series.orders_points.iter().map(|p| p[1]).sum();
        ui.label(format!(
            "{} weeks · {total:.0} orders in all",
            series.orders_points.len()
        ));
        Plot::new("weekly_orders")
            .height(ui.available_height().max(200.0))
            .x_axis_label("week")
            .y_axis_label("orders")
            .x_axis_formatter(|mark, _range| date_from_day(mark.value))
            .label_formatter(|hover| match hover {
                HoverPosition::NearDataPoint { position, .. } => Some(format!(
                    "week of {}\n{:.0} orders",
                    date_from_day(position.x),
                    position.y
                )),
                HoverPosition::Elsewhere { .. } => None,
            })
            .allow_scroll(false)
            .show(ui, |plot_ui| {
                plot_ui.line(Line::new("orders", series.orders_points.clone()));
            });
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn week(inserted_at: &str, orders: u32) -> WeeklyOrder {
        WeeklyOrder {
            position: 1,
            orders,
            aov: 0.0,
            gmv: 0.0,
            inserted_at: inserted_at.to_owned(),
        }
    }

    #[test]
    fn series_is_oldest_first_and_skips_unreadable_dates() {
        let series = WeeklySeries::from_weekly(&[
            week("2026-11-16T00:00:00Z", 7),
            week("not a date", 99),
            week("2026-11-09T00:00:00Z", 5),
        ]);
        assert_eq!(series.orders_points.len(), 2);
        assert!((series.orders_points[0][1] - 5.0).abs() < f64::EPSILON);
        assert_eq!(date_from_day(series.orders_points[1][0]), "2026-11-16");
    }
}
