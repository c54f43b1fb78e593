//! Market figures computed from the wire model: weekly summaries, price premium over retail,
//! bid/ask spread, AOV volatility, sales momentum, prices by size, seller payout after fees and
//! the CSV export of weekly series, per-size quotes and alert matching. One file per concern:
//! `weekly`, `prices`, `sizes`, `payout`, `table` (CSV), `alerts`, `trade` (where to buy and sell),
//! `flips` (what a size in stock at a store leaves when sold on a marketplace).
//! `premium` (the expected premium of a coming release) and `premium_backtest` (its backtest).
//!
//! Pure computation with no I/O and no UI, so every figure is unit-tested here and the panels
//! only format what these functions return. A figure that cannot be computed honestly (no data,
//! a zero to divide by, an input that is not a number) is `None` or an error, never 0 or NaN.

mod alerts;
pub mod flips;
mod flips_table;
mod payout;
mod portfolio;
mod portfolio_csv;
#[cfg(test)]
mod portfolio_tests;
pub mod premium;
pub mod premium_backtest;
#[cfg(test)]
mod premium_tests;
mod prices;
mod sizes;
mod table;
#[cfg(test)]
mod tests;
mod trade;
mod weekly;

pub use self::alerts::{
    AlertHit, AlertStep, alert_hit, alert_step, product_key, quotes_from_prices,
    quotes_from_resale_a, quotes_from_retailer, quotes_from_store, size_key,
};
pub use self::flips_table::{FLIPS_CSV_HEADER, flips_csv, flips_table};
pub use self::payout::{
    FeeRates, Payout, PayoutError, RESALE_A_DEFAULT_FEES, RESALE_B_DEFAULT_FEES, payout,
    payout_with,
};
pub use self::portfolio::{
    Realized, Totals, Unrealized, WeekValue, amount_from_cents, cents_from_amount, fees_cents,
    parse_date, parse_money, parse_size_label, parse_style_code, realized, realized_by_month, roi,
    totals_by_currency, unrealized, value_by_week,
};
pub use self::portfolio_csv::{
    Field, ImportError, ImportPreview, MAX_IMPORT_LINES, parse_portfolio_csv, portfolio_csv,
};
pub use self::prices::{
    Premium, PremiumBasis, Spread, price_premium, retail_price, spread, spread_of,
};
pub use self::sizes::{
    ParsedSize, SizeAsk, SizePrice, SizeRun, lowest_size_ask, parse_size, prices_by_size, size_asks,
};
pub use self::table::{CsvError, ORDERS_CSV_HEADER, orders_csv, weeks_csv};
pub use self::trade::{SellOption, Seller, SellerAsk, TradeRow, where_to_trade};
pub use self::weekly::{
    BestWeek, MOMENTUM_FALLING_RATIO, MOMENTUM_RISING_RATIO, MOMENTUM_WINDOW_WEEKS, Momentum,
    Trend, VOLATILITY_MIN_WEEKS, Week, WeeklySummary, aov_volatility, momentum, relative_change,
    weeks_from_records, weeks_in_range, weeks_since,
};
