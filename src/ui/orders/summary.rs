//! The summary row of the weekly-orders view: totals, best week, AOV, changes and momentum of
//! the open product over the range.

use super::{WeekRange, WeeklySeries};
use crate::figures::{self, WeeklySummary};
use crate::ui::format;

/// Colour of a rise in the summary; a fall uses the theme's error colour.
pub(super) const RISE_COLOUR: egui::Color32 = egui::Color32::from_rgb(0x2c, 0xa0, 0x2c);

/// The summary figures of the open product over `range`.
pub(super) fn summary_ui(
    ui: &mut egui::Ui,
    series: &WeeklySeries,
    range: WeekRange,
    currency: &str,
) {
    let Some(summary) = WeeklySummary::from_weeks(&series.weeks, range.weeks()) else {
        ui.weak("No weekly orders recorded for this product.");
        return;
    };
    let in_range = figures::weeks_in_range(&series.weeks, range.weeks());
    let volatility = figures::aov_volatility(in_range);
    let momentum = figures::momentum(&series.weeks);

    ui.weak(format!(
        "{} of data in the last {}",
        format::counted(summary.weeks_with_data as u64, "week", "weeks"),
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
                    "{} · {}",
                    best.start.format("%Y-%m-%d"),
                    format::counted(u64::from(best.orders), "order", "orders")
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
        let volatility = volatility.map_or_else(|| "—".to_owned(), format::share);
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
pub(super) fn stat_ui(ui: &mut egui::Ui, caption: &str, value: &str, hover: Option<&str>) {
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
pub(super) fn change_ui(ui: &mut egui::Ui, caption: &str, change: Option<f64>, what: &str) {
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
