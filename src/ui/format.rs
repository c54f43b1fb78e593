//! The one place numbers become text in the views: counts, money, percentages, the bid/ask
//! spread. Every panel formats through these, so a price reads the same in every tab.

use crate::figures::Spread;

/// What a view shows where a source has no price.
pub const NO_PRICE: &str = "—";

/// Currencies without minor units: their amounts are shown without decimals.
const ZERO_DECIMAL_CURRENCIES: &[&str] = &["JPY", "KRW", "CLP", "ISK", "VND"];

/// Digits after the decimal point in `currency` (0 for JPY and other currencies without minor
/// units, else 2).
fn minor_digits(currency: &str) -> u32 {
    let is_zero_decimal = ZERO_DECIMAL_CURRENCIES
        .iter()
        .any(|code| code.eq_ignore_ascii_case(currency.trim()));
    if is_zero_decimal { 0 } else { 2 }
}

/// `12,345` for 12345.
#[must_use]
pub fn count(count: u64) -> String {
    let digits = count.to_string();
    let mut text = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// A count a server sent as a signed number, grouped like [`count`]; [`NO_PRICE`]'s dash for a
/// negative one, which no count can be.
#[must_use]
pub fn sent_count(n: i64) -> String {
    u64::try_from(n).map_or_else(|_| NO_PRICE.to_owned(), count)
}

/// `1 pair`, `0 pairs`, `1,234 pairs`: a count with its noun, grouped like [`count`]. The plural
/// is given, not derived (`1 match`, `2 matches`), so a label never reads `1 pairs`.
#[must_use]
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// `minor` units of a currency with `digits` minor digits, signed, thousands grouped.
fn minor_units(negative: bool, minor: u64, digits: u32) -> String {
    let sign = if negative && minor > 0 { "-" } else { "" };
    if digits == 0 {
        return format!("{sign}{}", count(minor));
    }
    let scale = 10_u64.pow(digits);
    format!(
        "{sign}{}.{:0width$}",
        count(minor / scale),
        minor % scale,
        width = digits as usize
    )
}

/// `number` followed by the currency, when there is one.
fn with_currency(number: String, currency: &str) -> String {
    let currency = currency.trim();
    if currency.is_empty() {
        number
    } else {
        format!("{number} {currency}")
    }
}

/// An amount in whole units as a number only: `1,234.50` (`27,000` for JPY).
#[must_use]
pub fn amount(amount: f64, currency: &str) -> String {
    let digits = minor_digits(currency);
    let minor = (amount.abs() * f64::from(10_u32.pow(digits))).round();
    minor_units(amount < 0.0, minor as u64, digits)
}

/// An amount in whole units: `1,234.50 USD`, `27,000 JPY`; no currency for an empty one.
#[must_use]
pub fn money(value: f64, currency: &str) -> String {
    with_currency(amount(value, currency), currency)
}

/// A change of an amount as a number, always signed: `+12.00`, `-1,250.00`, `+0.00`.
#[must_use]
pub fn signed_amount(change: f64, currency: &str) -> String {
    let text = amount(change, currency);
    if text.starts_with('-') {
        text
    } else {
        format!("+{text}")
    }
}

/// An amount in minor units (cents): `189.00 USD` for 18900, `27,000 JPY` for 27000.
#[must_use]
pub fn money_from_cents(cents: i64, currency: &str) -> String {
    with_currency(
        minor_units(cents < 0, cents.unsigned_abs(), minor_digits(currency)),
        currency,
    )
}

/// `amount` when it is a price: marketplaces send 0 (or less) for "none".
#[must_use]
pub fn positive(amount: f64) -> Option<f64> {
    (amount.is_finite() && amount > 0.0).then_some(amount)
}

/// A price in whole units, or [`NO_PRICE`] where the source has none (0, less, not a number).
#[must_use]
pub fn price(value: f64, currency: &str) -> String {
    positive(value).map_or_else(|| NO_PRICE.to_owned(), |value| money(value, currency))
}

/// A price in minor units, or [`NO_PRICE`] where the source has none (0 or less).
#[must_use]
pub fn price_from_cents(cents: i64, currency: &str) -> String {
    if cents > 0 {
        money_from_cents(cents, currency)
    } else {
        NO_PRICE.to_owned()
    }
}

/// `+12.5 %` for 0.125: a change as a signed percentage.
#[must_use]
pub fn percent(ratio: f64) -> String {
    format!("{:+.1} %", ratio * 100.0)
}

/// `12.5 %` for 0.125: a share, unsigned.
#[must_use]
pub fn share(ratio: f64) -> String {
    format!("{:.1} %", ratio * 100.0)
}

/// `10.00 USD (5.0 % of ask)`, or [`NO_PRICE`] without a spread.
#[must_use]
pub fn spread(spread: Option<Spread>, currency: &str) -> String {
    spread.map_or_else(
        || NO_PRICE.to_owned(),
        |spread| {
            format!(
                "{} ({} of ask)",
                money(spread.absolute, currency),
                share(spread.ratio_of_ask)
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_money_group_thousands_and_follow_the_currency() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000), "1,000");
        assert_eq!(count(12_345_678), "12,345,678");
        assert_eq!(sent_count(1_446), "1,446");
        assert_eq!(sent_count(-3), NO_PRICE);
        assert_eq!(counted(1, "pair", "pairs"), "1 pair");
        assert_eq!(counted(0, "pair", "pairs"), "0 pairs");
        assert_eq!(counted(2_500, "week", "weeks"), "2,500 weeks");
        assert_eq!(money(-1234.5, "EUR"), "-1,234.50 EUR");
        assert_eq!(money(0.004, ""), "0.00");
        assert_eq!(money(-0.001, "USD"), "0.00 USD");
        assert_eq!(money(189.0, "USD"), "189.00 USD");
        assert_eq!(money(27_000.4, "jpy"), "27,000 jpy");
        assert_eq!(amount(1234.5, "USD"), "1,234.50");
        assert_eq!(signed_amount(12.0, ""), "+12.00");
        assert_eq!(signed_amount(-1250.0, ""), "-1,250.00");
        assert_eq!(signed_amount(0.0, ""), "+0.00");
        assert_eq!(money_from_cents(18_900, "USD"), "189.00 USD");
        assert_eq!(money_from_cents(5, "EUR"), "0.05 EUR");
        assert_eq!(money_from_cents(-150, "USD"), "-1.50 USD");
        assert_eq!(money_from_cents(27_000, "JPY"), "27,000 JPY");
        assert_eq!(money_from_cents(100, ""), "1.00");
    }

    #[test]
    fn missing_prices_are_a_dash() {
        assert_eq!(price_from_cents(0, "USD"), NO_PRICE);
        assert_eq!(price_from_cents(-1, "USD"), NO_PRICE);
        assert_eq!(price_from_cents(23_500, "USD"), "235.00 USD");
        assert_eq!(price(0.0, "USD"), NO_PRICE);
        assert_eq!(price(f64::NAN, "USD"), NO_PRICE);
        assert_eq!(price(12.5, "GBP"), "12.50 GBP");
    }

    #[test]
    fn percentages_and_the_spread() {
        assert_eq!(percent(0.125), "+12.5 %");
        assert_eq!(percent(-0.5), "-50.0 %");
        assert_eq!(share(0.05), "5.0 %");
        let spread_of = crate::figures::spread(200.0, 190.0);
        assert_eq!(spread(spread_of, "USD"), "10.00 USD (5.0 % of ask)");
        assert_eq!(spread(None, "USD"), NO_PRICE);
    }
}
