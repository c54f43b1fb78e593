//! Weekly figures: the weeks of a series, ranges, the summary of a range, AOV volatility and
//! sales momentum.

use chrono::{DateTime, NaiveDate, TimeDelta};

use crate::model::WeeklyOrder;

/// Days in a week, for the calendar arithmetic of ranges.
const DAYS_PER_WEEK: i64 = 7;

/// One week of market figures with its date read, as the figures and charts use it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Week {
    /// First day of the week (UTC).
    pub start: NaiveDate,
    /// Ranking position that week; 1 is best. `None` where the source gives no rank.
    pub position: Option<u32>,
    /// Orders that week.
    pub orders: u32,
    /// Average order value, in the product's currency; 0 in weeks without orders.
    pub aov: f64,
    /// Gross merchandise value, in the product's currency.
    pub gmv: f64,
}

/// The weeks of the records the service sent (newest first), oldest first. Records whose
/// `inserted_at` is not an RFC 3339 timestamp are left out: they cannot be placed in time.
#[must_use]
pub fn weeks_from_records(records: &[WeeklyOrder]) -> Vec<Week> {
    let mut weeks: Vec<Week> = records
        .iter()
        .filter_map(|record| {
            let start = DateTime::parse_from_rfc3339(&record.inserted_at)
                .ok()?
                .date_naive();
            Some(Week {
                start,
                position: record.position,
                orders: record.orders,
                aov: record.aov,
                gmv: record.gmv,
            })
        })
        .collect();
    // The service sends newest first; a stable sort keeps duplicates in their given order.
    weeks.sort_by_key(|week| week.start);
    weeks
}

/// `day` moved `weeks` weeks back, stopping at the earliest date chrono knows.
fn weeks_back(day: NaiveDate, weeks: u32) -> NaiveDate {
    day.checked_sub_signed(TimeDelta::days(DAYS_PER_WEEK * i64::from(weeks)))
        .unwrap_or(NaiveDate::MIN)
}

/// The first day of the `range_weeks` weeks that end with the week starting on `newest`.
fn range_start(newest: NaiveDate, range_weeks: u32) -> NaiveDate {
    weeks_back(newest, range_weeks.saturating_sub(1))
}

/// The tail of `weeks` (oldest first) inside the last `range_weeks` calendar weeks, counted
/// back from the newest week. Gaps in the history count as weeks, so a range never reaches
/// further back than its length.
#[must_use]
pub fn weeks_in_range(weeks: &[Week], range_weeks: u32) -> &[Week] {
    let Some(newest) = weeks.last() else {
        return weeks;
    };
    weeks_since(weeks, range_start(newest.start, range_weeks))
}

/// The tail of `weeks` (oldest first) whose start is on or after `first_day`.
#[must_use]
pub fn weeks_since(weeks: &[Week], first_day: NaiveDate) -> &[Week] {
    let from = weeks.partition_point(|week| week.start < first_day);
    &weeks[from..]
}

/// The relative change from `previous` to `current`: 0.25 is +25 %. `None` when there is no
/// previous amount to compare with (zero, negative or not a number).
#[must_use]
pub fn relative_change(current: f64, previous: f64) -> Option<f64> {
    (previous > 0.0 && current.is_finite()).then(|| (current - previous) / previous)
}

/// The busiest week of a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BestWeek {
    /// First day of that week.
    pub start: NaiveDate,
    /// Its orders.
    pub orders: u32,
}

/// Totals of the last N weeks and their change against the N weeks before.
#[derive(Debug, Clone, PartialEq)]
pub struct WeeklySummary {
    /// The range asked for, in weeks.
    pub range_weeks: u32,
    /// Weeks of the range the history holds a record for.
    pub weeks_with_data: usize,
    /// Orders over the range.
    pub total_orders: u64,
    /// Gross merchandise value over the range, in the product's currency.
    pub total_gmv: f64,
    /// Relative change of orders against the previous period of the same length (0.25 is
    /// +25 %); `None` when the history does not cover that whole period or it had no orders.
    pub orders_change: Option<f64>,
    /// Relative change of GMV, on the same terms as [`Self::orders_change`].
    pub gmv_change: Option<f64>,
    /// The week with the most orders (the latest of equals); `None` when no week had any.
    pub best_week: Option<BestWeek>,
    /// Average order value over the range: GMV divided by orders, so busy weeks weigh more
    /// than quiet ones; `None` without orders.
    pub average_aov: Option<f64>,
}

impl WeeklySummary {
    /// The summary of the last `range_weeks` weeks of `weeks` (oldest first, as
    /// [`weeks_from_records`] returns them). `None` when there is no week at all.
    #[must_use]
    pub fn from_weeks(weeks: &[Week], range_weeks: u32) -> Option<Self> {
        let newest = weeks.last()?.start;
        let current_start = range_start(newest, range_weeks);
        let previous_start = weeks_back(current_start, range_weeks);
        let current = weeks_since(weeks, current_start);
        let total_orders: u64 = current.iter().map(|week| u64::from(week.orders)).sum();
        let total_gmv: f64 = current.iter().map(|week| week.gmv).sum();

        // A period only partly covered by the history would make any product look like it
        // is rising, so the comparison needs the history to reach back to its first week.
        let previous_is_covered = weeks
            .first()
            .is_some_and(|oldest| oldest.start <= previous_start);
        let previous = &weeks[weeks.partition_point(|week| week.start < previous_start)
            ..weeks.partition_point(|week| week.start < current_start)];
        let (orders_change, gmv_change) = if previous_is_covered && !previous.is_empty() {
            let previous_orders: u64 = previous.iter().map(|week| u64::from(week.orders)).sum();
            let previous_gmv: f64 = previous.iter().map(|week| week.gmv).sum();
            (
                relative_change(total_orders as f64, previous_orders as f64),
                relative_change(total_gmv, previous_gmv),
            )
        } else {
            (None, None)
        };

        let best_week = current
            .iter()
            .filter(|week| week.orders > 0)
            .max_by_key(|week| (week.orders, week.start))
            .map(|week| BestWeek {
                start: week.start,
                orders: week.orders,
            });
        let average_aov =
            (total_orders > 0 && total_gmv.is_finite()).then(|| total_gmv / total_orders as f64);

        Some(Self {
            range_weeks,
            weeks_with_data: current.len(),
            total_orders,
            total_gmv,
            orders_change,
            gmv_change,
            best_week,
            average_aov,
        })
    }
}

/// Fewest weeks with orders the AOV volatility is computed over; below it one odd week
/// decides the figure.
pub const VOLATILITY_MIN_WEEKS: usize = 3;

/// Volatility of the weekly AOV: the coefficient of variation (sample standard deviation over
/// mean) of the AOV of `weeks` with at least one order. 0.1 means weekly AOV typically strays
/// 10 % from its mean. `None` with fewer than [`VOLATILITY_MIN_WEEKS`] such weeks.
#[must_use]
pub fn aov_volatility(weeks: &[Week]) -> Option<f64> {
    let values: Vec<f64> = weeks
        .iter()
        .filter(|week| week.orders > 0 && week.aov.is_finite())
        .map(|week| week.aov)
        .collect();
    if values.len() < VOLATILITY_MIN_WEEKS {
        return None;
    }
    let count = values.len() as f64;
    let mean = values.iter().sum::<f64>() / count;
    if mean <= 0.0 {
        return None;
    }
    let variance = values.iter().map(|aov| (aov - mean).powi(2)).sum::<f64>() / (count - 1.0);
    Some(variance.sqrt() / mean)
}

/// Weeks in each of the two windows sales momentum compares.
pub const MOMENTUM_WINDOW_WEEKS: u32 = 4;
/// Orders ratio at or above which momentum is [`Trend::Rising`]: 15 % more than the window
/// before, beyond the week-to-week noise of a steady seller.
pub const MOMENTUM_RISING_RATIO: f64 = 1.15;
/// Orders ratio at or below which momentum is [`Trend::Falling`]: 15 % fewer.
pub const MOMENTUM_FALLING_RATIO: f64 = 0.85;

/// The direction of sales momentum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trend {
    /// Ratio at or above [`MOMENTUM_RISING_RATIO`].
    Rising,
    /// Between the two thresholds.
    Steady,
    /// Ratio at or below [`MOMENTUM_FALLING_RATIO`].
    Falling,
}

impl Trend {
    /// The trend of an orders ratio, by the documented thresholds.
    #[must_use]
    pub fn from_ratio(ratio: f64) -> Self {
        if ratio >= MOMENTUM_RISING_RATIO {
            Trend::Rising
        } else if ratio <= MOMENTUM_FALLING_RATIO {
            Trend::Falling
        } else {
            Trend::Steady
        }
    }

    /// `"rising"`, `"steady"` or `"falling"`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Trend::Rising => "rising",
            Trend::Steady => "steady",
            Trend::Falling => "falling",
        }
    }
}

/// Orders of the last [`MOMENTUM_WINDOW_WEEKS`] weeks against the same number before.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Momentum {
    /// Orders in the last window.
    pub recent_orders: u64,
    /// Orders in the window before it.
    pub earlier_orders: u64,
    /// `recent_orders / earlier_orders`: 1.0 is flat.
    pub ratio: f64,
    /// The ratio read by the documented thresholds.
    pub trend: Trend,
}

/// Sales momentum of `weeks` (oldest first), counted in calendar weeks back from the newest.
/// `None` when the history does not reach back two windows or the earlier window had no
/// orders (a ratio against nothing says nothing).
#[must_use]
pub fn momentum(weeks: &[Week]) -> Option<Momentum> {
    let newest = weeks.last()?.start;
    let recent_start = range_start(newest, MOMENTUM_WINDOW_WEEKS);
    let earlier_start = weeks_back(recent_start, MOMENTUM_WINDOW_WEEKS);
    if weeks.first()?.start > earlier_start {
        return None;
    }
    let orders_since = |start: NaiveDate| -> u64 {
        weeks_since(weeks, start)
            .iter()
            .map(|w| u64::from(w.orders))
            .sum()
    };
    let recent_orders = orders_since(recent_start);
    let earlier_orders = orders_since(earlier_start) - recent_orders;
    if earlier_orders == 0 {
        return None;
    }
    let ratio = recent_orders as f64 / earlier_orders as f64;
    Some(Momentum {
        recent_orders,
        earlier_orders,
        ratio,
        trend: Trend::from_ratio(ratio),
    })
}
