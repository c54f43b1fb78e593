//! Tests of the figures.

use chrono::{NaiveDate, TimeDelta};

use super::*;
use crate::model::{Product, WeeklyOrder};
use crate::model::{RetailPrice, Variant};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

/// `count` consecutive weeks ending on 2026-11-16, oldest first, with the given orders
/// (cycled) and AOV 100.
fn weeks_with_orders(count: usize, orders: &[u32]) -> Vec<Week> {
    let newest = day("2026-11-16");
    (0..count)
        .map(|i| {
            let orders = orders[i % orders.len()];
            Week {
                start: newest - TimeDelta::days(7 * (count - 1 - i) as i64),
                position: Some(10),
                orders,
                aov: if orders > 0 { 100.0 } else { 0.0 },
                gmv: f64::from(orders) * 100.0,
            }
        })
        .collect()
}

fn record(inserted_at: &str, orders: u32) -> WeeklyOrder {
    WeeklyOrder {
        position: Some(3),
        orders,
        aov: 120.5,
        gmv: f64::from(orders) * 120.5,
        inserted_at: inserted_at.to_owned(),
    }
}

#[test]
fn weeks_are_oldest_first_without_unreadable_dates() {
    let weeks = weeks_from_records(&[
        record("2026-11-16T00:00:00Z", 7),
        record("yesterday", 1),
        record("2026-11-09T00:00:00Z", 5),
    ]);
    assert_eq!(weeks.len(), 2);
    assert_eq!(weeks[0].start, day("2026-11-09"));
    assert_eq!(weeks[1].orders, 7);
}

#[test]
fn summary_totals_the_range_and_compares_with_the_period_before() {
    // 24 weeks: the older 12 with 10 orders each, the newer 12 with 15 each.
    let mut weeks = weeks_with_orders(24, &[10]);
    for week in &mut weeks[12..] {
        week.orders = 15;
        week.gmv = 1_500.0;
    }
    let summary = WeeklySummary::from_weeks(&weeks, 12).unwrap();
    assert_eq!(summary.weeks_with_data, 12);
    assert_eq!(summary.total_orders, 180);
    assert!(close(summary.total_gmv, 18_000.0));
    assert!(close(summary.orders_change.unwrap(), 0.5));
    assert!(close(summary.gmv_change.unwrap(), 0.5));
    assert!(close(summary.average_aov.unwrap(), 100.0));
    // The latest of equal weeks is the best.
    assert_eq!(
        summary.best_week,
        Some(BestWeek {
            start: day("2026-11-16"),
            orders: 15
        })
    );
}

#[test]
fn summary_has_no_change_without_a_whole_previous_period() {
    let weeks = weeks_with_orders(52, &[3, 5]);
    let summary = WeeklySummary::from_weeks(&weeks, 52).unwrap();
    assert_eq!(summary.weeks_with_data, 52);
    assert_eq!(summary.orders_change, None);
    assert_eq!(summary.gmv_change, None);
    // 30 weeks: the 26 before the last 26 are only partly there.
    let summary = WeeklySummary::from_weeks(&weeks_with_orders(30, &[3]), 26).unwrap();
    assert_eq!(summary.orders_change, None);
    assert!(WeeklySummary::from_weeks(&[], 12).is_none());
}

#[test]
fn summary_never_divides_by_zero() {
    let weeks = weeks_with_orders(24, &[0]);
    let summary = WeeklySummary::from_weeks(&weeks, 12).unwrap();
    assert_eq!(summary.total_orders, 0);
    assert_eq!(summary.orders_change, None);
    assert_eq!(summary.gmv_change, None);
    assert_eq!(summary.average_aov, None);
    assert_eq!(summary.best_week, None);
}

#[test]
fn the_range_counts_calendar_weeks_across_gaps() {
    let mut weeks = weeks_with_orders(20, &[1]);
    // Drop weeks 10..18 (oldest first): the last 12 calendar weeks now hold 4 records.
    weeks.drain(10..18);
    assert_eq!(weeks_in_range(&weeks, 12).len(), 4);
    assert_eq!(weeks_in_range(&weeks, 52).len(), 12);
    assert!(weeks_in_range(&[], 12).is_empty());
}

#[test]
fn volatility_is_the_coefficient_of_variation_of_weeks_with_orders() {
    let mut weeks = weeks_with_orders(4, &[1]);
    weeks[0].aov = 90.0;
    weeks[1].aov = 110.0;
    weeks[2].aov = 100.0;
    weeks[3].orders = 0;
    weeks[3].aov = 0.0;
    // Mean 100, sample standard deviation 10.
    assert!(close(aov_volatility(&weeks).unwrap(), 0.1));
    assert_eq!(aov_volatility(&weeks[1..]), None);
    assert_eq!(aov_volatility(&[]), None);
}

#[test]
fn momentum_compares_the_last_four_weeks_with_the_four_before() {
    let weeks = weeks_with_orders(8, &[10, 10, 10, 10, 20, 20, 20, 20]);
    let momentum = momentum(&weeks).unwrap();
    assert_eq!((momentum.recent_orders, momentum.earlier_orders), (80, 40));
    assert!(close(momentum.ratio, 2.0));
    assert_eq!(momentum.trend, Trend::Rising);
    assert_eq!(momentum.trend.label(), "rising");

    assert_eq!(Trend::from_ratio(1.0), Trend::Steady);
    assert_eq!(Trend::from_ratio(MOMENTUM_RISING_RATIO), Trend::Rising);
    assert_eq!(Trend::from_ratio(MOMENTUM_FALLING_RATIO), Trend::Falling);
    assert_eq!(Trend::from_ratio(0.5).label(), "falling");
}

#[test]
fn momentum_needs_eight_weeks_and_earlier_orders() {
    assert_eq!(momentum(&weeks_with_orders(7, &[5])), None);
    assert_eq!(momentum(&weeks_with_orders(8, &[0, 0, 0, 0, 9])), None);
    assert_eq!(momentum(&[]), None);
}

fn product(avg: f64, min: f64, retail: Option<Vec<RetailPrice>>) -> Product {
    Product {
        retail_prices: retail,
        ..Product::for_test(avg, min)
    }
}

fn retail(price: f64, currency: &str, source: &str) -> RetailPrice {
    RetailPrice {
        sku: "CT8012-005".to_owned(),
        price,
        currency: currency.to_owned(),
        source: source.to_owned(),
    }
}

#[test]
fn premium_uses_the_retail_price_in_the_products_currency() {
    let item = product(
        382.0,
        300.0,
        Some(vec![
            retail(200.0, "EUR", "srp"),
            retail(0.0, "USD", "srp"),
            retail(225.0, "USD", "extracting"),
        ]),
    );
    assert!(close(retail_price(&item).unwrap(), 225.0));
    let premium = price_premium(&item, PremiumBasis::Average).unwrap();
    assert!(close(premium.ratio, (382.0 - 225.0) / 225.0));
    let premium = price_premium(&item, PremiumBasis::Lowest).unwrap();
    assert!(close(premium.resale, 300.0));

    // The suggested retail price wins over an extracted one.
    let item = product(
        100.0,
        90.0,
        Some(vec![
            retail(95.0, "USD", "extracting"),
            retail(90.0, "usd", "srp"),
        ]),
    );
    assert!(close(retail_price(&item).unwrap(), 90.0));
}

#[test]
fn premium_is_none_without_a_usable_retail_or_resale_price() {
    assert_eq!(
        price_premium(&product(100.0, 90.0, None), PremiumBasis::Average),
        None
    );
    let eur_only = product(100.0, 90.0, Some(vec![retail(80.0, "EUR", "srp")]));
    assert_eq!(price_premium(&eur_only, PremiumBasis::Average), None);
    let zero_retail = product(100.0, 90.0, Some(vec![retail(0.0, "USD", "srp")]));
    assert_eq!(price_premium(&zero_retail, PremiumBasis::Average), None);
    let no_price = product(0.0, 0.0, Some(vec![retail(90.0, "USD", "srp")]));
    assert_eq!(price_premium(&no_price, PremiumBasis::Lowest), None);
}

#[test]
fn spread_needs_both_sides() {
    let gap = spread(200.0, 180.0).unwrap();
    assert!(close(gap.absolute, 20.0));
    assert!(close(gap.ratio_of_ask, 0.1));
    assert!(spread(180.0, 200.0).unwrap().absolute < 0.0);
    assert_eq!(spread(0.0, 180.0), None);
    assert_eq!(spread(200.0, 0.0), None);
    assert_eq!(spread(f64::NAN, 180.0), None);
}

#[test]
fn sizes_are_read_with_their_run() {
    let read = |label| parse_size(label);
    assert_eq!(read("10.5").number, Some(10.5));
    assert_eq!(read("10.5").run, SizeRun::Adult);
    assert_eq!(read("US 10.5").number, Some(10.5));
    assert_eq!(read("US M 9 / US W 10.5").number, Some(9.0));
    assert_eq!(read("7Y").run, SizeRun::GradeSchool);
    assert_eq!(read("7Y").number, Some(7.0));
    assert_eq!(read("GS 5").run, SizeRun::GradeSchool);
    assert_eq!(read("5C").run, SizeRun::Child);
    assert_eq!(read("TD 5").run, SizeRun::Child);
    assert_eq!(read("W 8").run, SizeRun::Women);
    assert_eq!(read("8W").run, SizeRun::Women);
    assert_eq!(read("W 8").number, Some(8.0));
    assert_eq!(read("XL").run, SizeRun::Unreadable);
    assert_eq!(read("").number, None);
}

fn variant(size: &str, price: f64) -> Variant {
    Variant::for_test(size, price)
}

#[test]
fn prices_by_size_sort_by_run_then_number_and_keep_no_price_apart() {
    let mut item = product(100.0, 90.0, None);
    item.variants = ["10.5", "5C", "XL", "7Y", "W 8", "9", "US 10", "3.5Y"]
        .iter()
        .enumerate()
        .map(|(i, size)| variant(size, if i == 1 { 0.0 } else { 100.0 + i as f64 }))
        .collect();
    let sizes = prices_by_size(&item);
    let labels: Vec<&str> = sizes.iter().map(|size| size.label.as_str()).collect();
    assert_eq!(
        labels,
        ["9", "US 10", "10.5", "W 8", "3.5Y", "7Y", "5C", "XL"]
    );
    let child = sizes.iter().find(|size| size.label == "5C").unwrap();
    assert_eq!(child.price, None);
    assert!(close(sizes[0].price.unwrap(), 105.0));
}

#[test]
fn payout_takes_percentages_of_the_price_then_the_flat_fee() {
    let paid = payout_with(200.0, RESALE_A_DEFAULT_FEES).unwrap();
    assert!(close(paid.commission, 18.0));
    assert!(close(paid.processing, 6.0));
    assert!(close(paid.fixed_fee, 5.0));
    assert!(close(paid.net, 171.0));
    assert!(!paid.is_loss());

    let paid = payout_with(100.0, RESALE_B_DEFAULT_FEES).unwrap();
    assert!(close(paid.net, 89.1));

    let loss = payout(3.0, 9.0, 5.0, 3.0).unwrap();
    assert!(loss.is_loss());
    assert!(loss.net < 0.0);
}

#[test]
fn payout_rejects_inputs_that_are_not_prices_or_rates() {
    assert_eq!(payout(f64::NAN, 9.0, 5.0, 3.0), Err(PayoutError::Price));
    assert_eq!(payout(-1.0, 9.0, 5.0, 3.0), Err(PayoutError::Price));
    assert_eq!(payout(100.0, -9.0, 5.0, 3.0), Err(PayoutError::Percent));
    assert_eq!(payout(100.0, 9.0, 5.0, 101.0), Err(PayoutError::Percent));
    assert_eq!(
        payout(100.0, 9.0, f64::INFINITY, 3.0),
        Err(PayoutError::FixedFee)
    );
    assert!(payout(0.0, 0.0, 0.0, 0.0).is_ok());
}

#[test]
fn csv_lists_weeks_oldest_first_and_quotes_titles() {
    let first = [
        record("2026-11-16T00:00:00Z", 7),
        record("2026-11-09T00:00:00Z", 5),
    ];
    let second = [record("2026-11-16T00:00:00Z", 0)];
    let text = orders_csv(&[
        ("Air Jordan 1 \"Chicago\", 2015", &first),
        ("plain", &second),
    ])
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "product,week,orders,aov,gmv,rank");
    assert_eq!(
        lines[1],
        "\"Air Jordan 1 \"\"Chicago\"\", 2015\",2026-11-09,5,120.50,602.50,3"
    );
    assert!(lines[2].contains(",2026-11-16,7,"));
    assert_eq!(lines[3], "plain,2026-11-16,0,120.50,0.00,3");
    assert_eq!(lines.len(), 4);

    // The export reads back with the same fields.
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(&row[0], "Air Jordan 1 \"Chicago\", 2015");
}
