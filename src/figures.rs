//! Market figures computed from the wire model: weekly summaries, price premium over retail,
//! bid/ask spread, AOV volatility, sales momentum, prices by size, seller payout after fees and
//! the CSV export of weekly series.
//!
//! Pure computation with no I/O and no UI, so every figure is unit-tested here and the panels
//! only format what these functions return. A figure that cannot be computed honestly (no data,
//! a zero to divide by, an input that is not a number) is `None` or an error, never 0 or NaN.

use chrono::{DateTime, NaiveDate, TimeDelta};
use serde::{Deserialize, Serialize};

use crate::model::{Product, ResaleBNode, WeeklyOrder};

/// Days in a week, for the calendar arithmetic of ranges.
const DAYS_PER_WEEK: i64 = 7;

/// One week of market figures with its date read, as the figures and charts use it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Week {
    /// First day of the week (UTC).
    pub start: NaiveDate,
    /// Ranking position that week; 1 is best.
    pub position: u32,
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

/// The retail price of `product` in its own currency: the suggested retail price (`srp`)
/// when known, else the first other positive one. `None` when the key's tier leaves retail
/// prices out or none is in the product's currency.
#[must_use]
pub fn retail_price(product: &Product) -> Option<f64> {
    let prices = product.retail_prices.as_deref()?;
    let usable = |price: &&crate::model::RetailPrice| {
        price.currency.eq_ignore_ascii_case(&product.currency)
            && price.price.is_finite()
            && price.price > 0.0
    };
    prices
        .iter()
        .filter(usable)
        .find(|price| price.source == "srp")
        .or_else(|| prices.iter().find(usable))
        .map(|price| price.price)
}

/// Which resale price the premium is measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PremiumBasis {
    /// The product's average variant price.
    #[default]
    Average,
    /// The product's lowest variant price: what a buyer pays today at best.
    Lowest,
}

/// Resale price over retail.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Premium {
    /// Retail price, in the product's currency.
    pub retail: f64,
    /// Resale price measured, in the product's currency.
    pub resale: f64,
    /// `(resale − retail) / retail`: 0.5 is 50 % over retail, negative is under.
    pub ratio: f64,
}

/// The premium of `product`'s average or lowest price over its retail price, both in the
/// product's currency. `None` without a retail price (see [`retail_price`]) or without a
/// positive resale price.
#[must_use]
pub fn price_premium(product: &Product, basis: PremiumBasis) -> Option<Premium> {
    let retail = retail_price(product)?;
    let resale = match basis {
        PremiumBasis::Average => product.avg_price,
        PremiumBasis::Lowest => product.min_price,
    };
    if !(resale.is_finite() && resale > 0.0) {
        return None;
    }
    Some(Premium {
        retail,
        resale,
        ratio: (resale - retail) / retail,
    })
}

/// The gap between the lowest ask and the highest bid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// `lowest_ask − highest_bid`, in the market's currency; negative when the book is
    /// crossed (a bid above the lowest ask, which a live market settles within moments).
    pub absolute: f64,
    /// The spread as a share of the ask: 0.05 is 5 %.
    pub ratio_of_ask: f64,
}

/// The bid/ask spread; `None` when either side is missing (a marketplace reports an empty
/// side as 0) or not a number.
#[must_use]
pub fn spread(lowest_ask: f64, highest_bid: f64) -> Option<Spread> {
    let present = |amount: f64| amount.is_finite() && amount > 0.0;
    if !(present(lowest_ask) && present(highest_bid)) {
        return None;
    }
    let absolute = lowest_ask - highest_bid;
    Some(Spread {
        absolute,
        ratio_of_ask: absolute / lowest_ask,
    })
}

/// The bid/ask spread of a live `resale-b` product.
#[must_use]
pub fn spread_of(node: &ResaleBNode) -> Option<Spread> {
    spread(
        node.market.state.lowest_ask.amount,
        node.market.state.highest_bid.amount,
    )
}

/// The size run a size label belongs to, in the order sizes are listed: men's (and unmarked)
/// first, then women's, grade school, then little kids and toddlers, then labels without a
/// readable number. Grouping keeps "5Y" from landing between men's 5 and 5.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SizeRun {
    /// Men's, or no run marked (the common case for unisex and men's products).
    Adult,
    /// Women's: `W 8`, `8W`, `Wmns 8`.
    Women,
    /// Grade school / youth: `5.5Y`, `GS 5`.
    GradeSchool,
    /// Preschool and toddler: `5C`, `TD 5`, `PS 11`.
    Child,
    /// No number could be read (`XL`, `One size`).
    Unreadable,
}

/// A size label read for sorting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParsedSize {
    /// The run the label belongs to.
    pub run: SizeRun,
    /// The number in the label, e.g. 10.5 for `US 10.5`; `None` for [`SizeRun::Unreadable`].
    pub number: Option<f64>,
}

/// Reads a size label: a system word (`US`, `UK`, `EU`, `CM`) is skipped, run markers
/// (`M`, `W`, `Wmns`, `GS`, `TD`, `PS`, `Y`, `C`, also as a suffix like `7Y`) pick the run,
/// and the first number is the size. Composite labels (`US M 9 / US W 10.5`) are read up to
/// the first number.
#[must_use]
pub fn parse_size(label: &str) -> ParsedSize {
    let mut run = None;
    for token in label.split(|c: char| c.is_whitespace() || c == '/' || c == '-') {
        let upper = token
            .trim_matches(|c: char| c == '(' || c == ')' || c == ',')
            .to_uppercase();
        if upper.is_empty() {
            continue;
        }
        match size_word(&upper) {
            Some(SizeWord::System) => continue,
            Some(SizeWord::Run(marked)) => {
                run = run.or(Some(marked));
                continue;
            }
            None => {}
        }
        let digits_end = upper
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(upper.len());
        let Ok(number) = upper[..digits_end].parse::<f64>() else {
            continue;
        };
        let suffix_run = match &upper[digits_end..] {
            "Y" | "YS" => Some(SizeRun::GradeSchool),
            "C" | "K" => Some(SizeRun::Child),
            "W" => Some(SizeRun::Women),
            "M" | "" => None,
            _ => continue,
        };
        return ParsedSize {
            run: suffix_run.or(run).unwrap_or(SizeRun::Adult),
            number: Some(number),
        };
    }
    ParsedSize {
        run: SizeRun::Unreadable,
        number: None,
    }
}

/// A word of a size label that is not the size itself.
enum SizeWord {
    /// A size system (`US`, `EU`), skipped: the number is read the same way.
    System,
    /// A run marker.
    Run(SizeRun),
}

/// The meaning of an upper-cased word of a size label; `None` when it is no known word.
fn size_word(upper: &str) -> Option<SizeWord> {
    let run = match upper {
        "US" | "UK" | "EU" | "CM" | "SIZE" => return Some(SizeWord::System),
        "M" | "MEN" | "MENS" | "MEN'S" => SizeRun::Adult,
        "W" | "WMNS" | "WOMEN" | "WOMENS" | "WOMEN'S" => SizeRun::Women,
        "GS" | "Y" | "YOUTH" => SizeRun::GradeSchool,
        "TD" | "PS" | "C" | "INFANT" | "TODDLER" => SizeRun::Child,
        _ => return None,
    };
    Some(SizeWord::Run(run))
}

/// One size of a product with its price.
#[derive(Debug, Clone, PartialEq)]
pub struct SizePrice {
    /// The size label as the source wrote it.
    pub label: String,
    /// The label read for sorting.
    pub size: ParsedSize,
    /// Price of that size in the variant's currency; `None` where the size has no price (the
    /// source writes 0), never 0.
    pub price: Option<f64>,
}

/// The sizes of `product` with their prices, sorted by run (see [`SizeRun`]), then size, then
/// label.
#[must_use]
pub fn prices_by_size(product: &Product) -> Vec<SizePrice> {
    let mut sizes: Vec<SizePrice> = product
        .variants
        .iter()
        .map(|variant| SizePrice {
            label: variant.size.clone(),
            size: parse_size(&variant.size),
            price: (variant.price.is_finite() && variant.price > 0.0).then_some(variant.price),
        })
        .collect();
    sizes.sort_by(|a, b| {
        a.size
            .run
            .cmp(&b.size.run)
            .then_with(|| {
                let number = |size: &SizePrice| size.size.number.unwrap_or(f64::INFINITY);
                number(a).total_cmp(&number(b))
            })
            .then_with(|| a.label.cmp(&b.label))
    });
    sizes
}

/// Seller fee rates of one marketplace.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FeeRates {
    /// Commission, percent of the sale price.
    pub commission_percent: f64,
    /// Payment processing, percent of the sale price.
    pub processing_percent: f64,
    /// Flat fee per sale, in the sale's currency.
    pub fixed_fee: f64,
}

/// Starting rates for `resale-a`: 9 % commission, 3 % processing, 5 flat per sale. Editable
/// defaults in the range public reports give for resale marketplaces, not the marketplace's
/// actual schedule, which depends on the seller's level and region.
pub const RESALE_A_DEFAULT_FEES: FeeRates = FeeRates {
    commission_percent: 9.0,
    processing_percent: 3.0,
    fixed_fee: 5.0,
};

/// Starting rates for `resale-b`: 8 % commission, 2.9 % processing, no flat fee. Editable
/// defaults, not the marketplace's actual schedule.
pub const RESALE_B_DEFAULT_FEES: FeeRates = FeeRates {
    commission_percent: 8.0,
    processing_percent: 2.9,
    fixed_fee: 0.0,
};

/// What a seller receives for one sale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Payout {
    /// The sale price.
    pub gross: f64,
    /// Commission taken.
    pub commission: f64,
    /// Payment processing taken.
    pub processing: f64,
    /// Flat fee taken.
    pub fixed_fee: f64,
    /// What is left: gross minus every deduction. May be negative (see [`Self::is_loss`]).
    pub net: f64,
}

impl Payout {
    /// Whether the fees exceed the price, so the sale costs the seller money.
    #[must_use]
    pub fn is_loss(&self) -> bool {
        self.net < 0.0
    }
}

/// An input of [`payout`] that cannot be a price or a rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PayoutError {
    /// The price is negative or not a number.
    #[error("the price must be a number of at least 0")]
    Price,
    /// A percentage is below 0, above 100 or not a number.
    #[error("fee percentages must be numbers from 0 to 100")]
    Percent,
    /// The flat fee is negative or not a number.
    #[error("the flat fee must be a number of at least 0")]
    FixedFee,
}

/// The payout of a sale at `price`: commission and processing are both taken as percentages
/// of the price, then the flat fee. A net below zero is returned as is and flagged by
/// [`Payout::is_loss`].
pub fn payout(
    price: f64,
    commission_percent: f64,
    fixed_fee: f64,
    processing_percent: f64,
) -> Result<Payout, PayoutError> {
    let is_amount = |value: f64| value.is_finite() && value >= 0.0;
    let is_percent = |value: f64| is_amount(value) && value <= 100.0;
    if !is_amount(price) {
        return Err(PayoutError::Price);
    }
    if !(is_percent(commission_percent) && is_percent(processing_percent)) {
        return Err(PayoutError::Percent);
    }
    if !is_amount(fixed_fee) {
        return Err(PayoutError::FixedFee);
    }
    let commission = price * commission_percent / 100.0;
    let processing = price * processing_percent / 100.0;
    Ok(Payout {
        gross: price,
        commission,
        processing,
        fixed_fee,
        net: price - commission - processing - fixed_fee,
    })
}

/// The payout of a sale at `price` with `rates`.
pub fn payout_with(price: f64, rates: FeeRates) -> Result<Payout, PayoutError> {
    payout(
        price,
        rates.commission_percent,
        rates.fixed_fee,
        rates.processing_percent,
    )
}

/// A CSV export that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("could not write the CSV: {0}")]
pub struct CsvError(#[from] csv::Error);

/// Header of the weekly CSV export.
pub const ORDERS_CSV_HEADER: [&str; 6] = ["product", "week", "orders", "aov", "gmv", "rank"];

/// The weekly series of several products as CSV: header `product,week,orders,aov,gmv,rank`,
/// one row per product and week, products in the given order, oldest week first, weeks as
/// `YYYY-MM-DD`. Records with an unreadable date are left out, as in the charts.
pub fn orders_csv(products: &[(&str, &[WeeklyOrder])]) -> Result<String, CsvError> {
    let weeks: Vec<(&str, Vec<Week>)> = products
        .iter()
        .map(|(product, records)| (*product, weeks_from_records(records)))
        .collect();
    let borrowed: Vec<(&str, &[Week])> = weeks
        .iter()
        .map(|(product, weeks)| (*product, weeks.as_slice()))
        .collect();
    weeks_csv(&borrowed)
}

/// [`orders_csv`] for weeks already read (oldest first), as the orders view keeps them.
pub fn weeks_csv(products: &[(&str, &[Week])]) -> Result<String, CsvError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(ORDERS_CSV_HEADER)?;
    for (product, weeks) in products {
        for week in *weeks {
            writer.write_record([
                (*product).to_owned(),
                week.start.format("%Y-%m-%d").to_string(),
                week.orders.to_string(),
                format!("{:.2}", week.aov),
                format!("{:.2}", week.gmv),
                week.position.to_string(),
            ])?;
        }
    }
    let bytes = writer
        .into_inner()
        .map_err(|err| CsvError(csv::Error::from(err.into_error())))?;
    // Every field written is a Rust string or ASCII digits, so the bytes are UTF-8.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
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
                    position: 10,
                    orders,
                    aov: if orders > 0 { 100.0 } else { 0.0 },
                    gmv: f64::from(orders) * 100.0,
                }
            })
            .collect()
    }

    fn record(inserted_at: &str, orders: u32) -> WeeklyOrder {
        WeeklyOrder {
            position: 3,
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
}
