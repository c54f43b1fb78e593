//! Tests of the weekly-orders view: ranges, series, axes, the CSV and the panel itself.

use egui_kittest::kittest::Queryable as _;

use chrono::NaiveDate;

use super::chart::{
    compact_number, date_from_day, hover_text, next_one_two_five, points_since, rank_axis_label,
    x_range,
};
use super::*;

#[test]
fn grid_steps_are_one_two_five() {
    assert!((next_one_two_five(3.0) - 5.0).abs() < 1e-9);
    assert!((next_one_two_five(2.0) - 2.0).abs() < 1e-9);
    assert!((next_one_two_five(0.013) - 0.02).abs() < 1e-12);
    assert!((next_one_two_five(600.0) - 1000.0).abs() < 1e-9);
    assert!((next_one_two_five(f64::NAN) - 1.0).abs() < 1e-9);
}

#[test]
fn axis_numbers_stay_short() {
    assert_eq!(compact_number(0.0), "0");
    assert_eq!(compact_number(950.0), "950");
    assert_eq!(compact_number(8_000.0), "8000");
    assert_eq!(compact_number(12_500.0), "12.5k");
    assert_eq!(compact_number(1_500_000.0), "1.5M");
    assert_eq!(compact_number(219.25), "219.2");
}

fn week(inserted_at: &str, orders: u32) -> WeeklyOrder {
    WeeklyOrder {
        position: Some(12),
        orders,
        aov: if orders > 0 { 150.0 } else { 0.0 },
        gmv: f64::from(orders) * 150.0,
        inserted_at: inserted_at.to_owned(),
    }
}

/// `count` weekly records ending 2026-11-16, newest first as the service sends them.
fn records(count: usize) -> Vec<WeeklyOrder> {
    let newest = NaiveDate::from_ymd_opt(2026, 11, 16).unwrap();
    (0..count)
        .map(|i| {
            let start = newest - chrono::TimeDelta::days(7 * i as i64);
            week(&format!("{start}T00:00:00Z"), (i % 3) as u32)
        })
        .collect()
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
    assert_eq!(series.points(Metric::Gmv).len(), 2);
    assert!((series.points(Metric::Rank)[0].y - 12.0).abs() < f64::EPSILON);
}

#[test]
fn aov_leaves_out_weeks_without_orders() {
    let series = WeeklySeries::from_weekly(&records(6));
    assert_eq!(series.points(Metric::Orders).len(), 6);
    // Orders cycle 0, 1, 2 from the newest: two weeks have none.
    assert_eq!(series.points(Metric::Aov).len(), 4);
    assert!(series.points(Metric::Aov).iter().all(|p| p.y > 0.0));
}

#[test]
fn visible_points_follow_the_range() {
    let series = WeeklySeries::from_weekly(&records(52));
    assert_eq!(series.visible_points(WeekRange::Year.weeks()), 52);
    assert_eq!(series.visible_points(WeekRange::HalfYear.weeks()), 26);
    assert_eq!(series.visible_points(WeekRange::Quarter.weeks()), 12);
    assert_eq!(WeeklySeries::default().visible_points(12), 0);
}

#[test]
fn the_x_range_ends_with_the_newest_week_of_any_product() {
    let long = WeeklySeries::from_weekly(&records(52));
    let short = WeeklySeries::from_weekly(&records(52)[3..]);
    let charted = [
        Charted {
            index: 1,
            label: "short",
            series: &short,
        },
        Charted {
            index: 0,
            label: "long",
            series: &long,
        },
    ];
    let [first, last] = x_range(&charted, WeekRange::Quarter).unwrap();
    assert_eq!(date_from_day(last), "2026-11-16");
    assert!((last - first - 77.0).abs() < f64::EPSILON);
    // The chart lends exactly the weeks in that range.
    assert_eq!(points_since(long.points(Metric::Orders), first).len(), 12);
    assert_eq!(points_since(short.points(Metric::Orders), first).len(), 9);
    assert!(x_range(&[], WeekRange::Year).is_none());
}

#[test]
fn rank_axis_labels_are_whole_positive_positions() {
    assert_eq!(rank_axis_label(1.0), "#1");
    assert_eq!(rank_axis_label(45_459.0), "#45459");
    assert_eq!(rank_axis_label(2.5), "");
    assert_eq!(rank_axis_label(0.0), "");
    assert_eq!(rank_axis_label(-3.0), "");
}

#[test]
fn hover_text_names_the_week_and_the_value_with_its_unit() {
    let day = day_from_date(NaiveDate::from_ymd_opt(2026, 11, 16).unwrap());
    assert_eq!(
        hover_text(Metric::Orders, "AJ11", day, 632.0, "USD"),
        "AJ11\nweek of 2026-11-16\n632 orders"
    );
    assert!(
        hover_text(Metric::Gmv, "AJ11", day, 1_234_567.891, "USD")
            .ends_with("GMV 1,234,567.89 USD")
    );
    assert!(hover_text(Metric::Rank, "AJ11", day, 16.0, "USD").ends_with("rank #16"));
}

#[test]
fn the_view_state_survives_a_round_trip_and_fills_missing_fields() {
    let mut view = OrdersView::default();
    assert_eq!(view.range, WeekRange::Year);
    view.toggle(Metric::Gmv);
    assert!(!view.shows(Metric::Gmv));
    view.toggle(Metric::Gmv);
    assert!(view.shows(Metric::Gmv));
    let json = serde_json::to_string(&view).unwrap();
    assert_eq!(serde_json::from_str::<OrdersView>(&json).unwrap(), view);
    let partial: OrdersView = serde_json::from_str(r#"{"range":"Quarter"}"#).unwrap();
    assert_eq!(partial.range, WeekRange::Quarter);
    assert_eq!(partial.metrics, Metric::ALL.to_vec());
}

#[test]
fn csv_takes_the_loaded_series_only() {
    let loaded = WeeklySeries::from_weekly(&records(2));
    let text = series_csv(&[
        ("open", Fetched::Completed(&loaded)),
        ("other", Fetched::NotYetRequested),
    ])
    .unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(text.lines().skip(1).all(|line| line.starts_with("open,")));
}

fn has<State>(harness: &egui_kittest::Harness<'_, State>, text: &str) -> bool {
    harness.query_all_by_label_contains(text).next().is_some()
}

#[test]
fn the_view_shows_the_summary_and_a_lock_for_free_keys() {
    let open = WeeklySeries::from_weekly(&records(52));
    let other = WeeklySeries::from_weekly(&records(30));
    let mut view = OrdersView::default();
    let mut harness = egui_kittest::Harness::new_ui(|ui| {
        orders_ui(
            ui,
            &mut view,
            &[
                ("Open shoe", Fetched::Completed(&open)),
                ("Other shoe", Fetched::Completed(&other)),
            ],
            "USD",
            Some(Tier::Pro),
        );
    });
    harness.run();
    assert!(has(&harness, "52 weeks of data"));
    assert!(has(&harness, "Momentum"));
    assert!(has(&harness, "Other shoe"));
    assert!(!has(&harness, "need a pro key"));
    drop(harness);

    let mut harness = egui_kittest::Harness::new_ui(|ui| {
        orders_ui(
            ui,
            &mut view,
            &[("Open shoe", Fetched::Completed(&open))],
            "USD",
            Some(Tier::Free),
        );
    });
    harness.run();
    assert!(has(&harness, "Weekly orders need a pro key"));
    assert!(!has(&harness, "Momentum"));
}

#[test]
fn clicking_remove_and_a_range_is_returned_and_kept() {
    let open = WeeklySeries::from_weekly(&records(52));
    let other = WeeklySeries::from_weekly(&records(52));
    let mut harness = egui_kittest::Harness::new_ui_state(
        |ui, (view, output): &mut (OrdersView, OrdersOutput)| {
            let now = orders_ui(
                ui,
                view,
                &[
                    ("Open shoe", Fetched::Completed(&open)),
                    ("Other shoe", Fetched::Completed(&other)),
                ],
                "USD",
                Some(Tier::Pro),
            );
            output.remove_compare = output.remove_compare.or(now.remove_compare);
        },
        (OrdersView::default(), OrdersOutput::default()),
    );
    harness.run();
    harness.get_by_label("12 wk").click();
    harness.get_by_label("Stop comparing Other shoe").click();
    harness.run();
    assert_eq!(harness.state().0.range, WeekRange::Quarter);
    assert_eq!(harness.state().1.remove_compare, Some(1));
    assert!(has(&harness, "12 weeks of data"));
}
