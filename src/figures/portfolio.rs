//! Portfolio arithmetic in integer cents: fees of a sale, unrealized P&L of a held pair at its
//! market value, realized P&L of a sold one, totals per currency; and the readers of what
//! resellers write in their spreadsheets (money, sizes, style codes, dates).

use std::collections::BTreeMap;

use chrono::{Datelike as _, NaiveDate};

use super::payout::FeeRates;
use crate::model::portfolio::{Holding, Pair, Sale};

/// A fraction of a cents amount, rounded half away from zero. Rates are percentages given as
/// decimals (`8.5`), so the product goes through `f64` once; amounts up to 2^53 cents are exact.
fn percent_of_cents(cents: i64, percent: f64) -> i64 {
    (cents as f64 * percent / 100.0).round() as i64
}

/// The marketplace fees of selling at `price_cents` with `rates`: commission and processing as
/// percentages of the price, each rounded to the cent, plus the flat fee.
#[must_use]
pub fn fees_cents(price_cents: i64, rates: FeeRates) -> i64 {
    percent_of_cents(price_cents, rates.commission_percent)
        + percent_of_cents(price_cents, rates.processing_percent)
        + (rates.fixed_fee * 100.0).round() as i64
}

/// Return on investment: `pnl / cost`; `None` for a pair that cost nothing.
#[must_use]
pub fn roi(pnl_cents: i64, cost_cents: i64) -> Option<f64> {
    (cost_cents > 0).then(|| pnl_cents as f64 / cost_cents as f64)
}

/// What a held pair would make if sold today at its market value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unrealized {
    /// The market value (before fees).
    pub market_cents: i64,
    /// The marketplace fees of selling at that value.
    pub fees_cents: i64,
    /// Market value minus fees minus cost.
    pub pnl_cents: i64,
    /// `pnl / cost`; `None` when the pair cost nothing.
    pub roi: Option<f64>,
}

/// The unrealized P&L of a pair that cost `cost_cents`, valued at `market_cents`, after the fees
/// of `rates`.
#[must_use]
pub fn unrealized(cost_cents: i64, market_cents: i64, rates: FeeRates) -> Unrealized {
    let fees = fees_cents(market_cents, rates);
    let pnl = market_cents - fees - cost_cents;
    Unrealized {
        market_cents,
        fees_cents: fees,
        pnl_cents: pnl,
        roi: roi(pnl, cost_cents),
    }
}

/// What a sold pair made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Realized {
    /// Sale price minus fees minus shipping.
    pub net_cents: i64,
    /// Net minus cost.
    pub pnl_cents: i64,
    /// `pnl / cost`; `None` when the pair cost nothing.
    pub roi: Option<f64>,
    /// Days from purchase to sale (0 when sold the day it was bought, or dated before).
    pub days_held: i64,
}

/// The realized P&L of `pair` sold as `sale`.
#[must_use]
pub fn realized(pair: &Pair, sale: &Sale) -> Realized {
    let net = sale.price_cents - sale.fees_cents - sale.shipping_cents;
    let pnl = net - pair.cost_cents;
    Realized {
        net_cents: net,
        pnl_cents: pnl,
        roi: roi(pnl, pair.cost_cents),
        days_held: (sale.sold_on - pair.purchased_on).num_days().max(0),
    }
}

/// The totals of one currency.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Pairs held (not sold).
    pub held: usize,
    /// Held pairs with a market value.
    pub valued: usize,
    /// Pairs sold.
    pub sold: usize,
    /// Cost of the held pairs.
    pub cost_cents: i64,
    /// Cost of the held pairs that have a market value (what `market_cents` compares with).
    pub valued_cost_cents: i64,
    /// Market value of the held pairs that have one.
    pub market_cents: i64,
    /// Unrealized P&L of the valued held pairs, after fees.
    pub unrealized_cents: i64,
    /// Realized P&L of the sold pairs.
    pub realized_cents: i64,
}

/// Totals per currency code. `market` gives a held pair's market value in its currency (`None`
/// when unknown); `rates` are the fees of the marketplace the user would sell on.
#[must_use]
pub fn totals_by_currency<'h>(
    holdings: impl IntoIterator<Item = &'h Holding>,
    market: impl Fn(&Holding) -> Option<i64>,
    rates: FeeRates,
) -> BTreeMap<String, Totals> {
    let mut totals: BTreeMap<String, Totals> = BTreeMap::new();
    for holding in holdings {
        let entry = totals.entry(holding.pair.currency.clone()).or_default();
        if let Some(sale) = &holding.sale {
            entry.sold += 1;
            entry.realized_cents += realized(&holding.pair, sale).pnl_cents;
            continue;
        }
        entry.held += 1;
        entry.cost_cents += holding.pair.cost_cents;
        if let Some(market_cents) = market(holding) {
            let value = unrealized(holding.pair.cost_cents, market_cents, rates);
            entry.valued += 1;
            entry.valued_cost_cents += holding.pair.cost_cents;
            entry.market_cents += market_cents;
            entry.unrealized_cents += value.pnl_cents;
        }
    }
    totals
}

/// Cents from an amount in currency units, rounded to the cent; `None` for a value that is not
/// a finite number.
#[must_use]
pub fn cents_from_amount(amount: f64) -> Option<i64> {
    (amount.is_finite() && amount.abs() < 1e15).then(|| (amount * 100.0).round() as i64)
}

/// An amount in cents written with two decimals: `1234.50`, `-3.05`.
#[must_use]
pub fn amount_from_cents(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    format!("{sign}{}.{:02}", cents / 100, cents % 100)
}

/// Money as spreadsheets write it: `$1,234.56`, `1.234,56 €`, `EUR 180`, `180,5`, `-12`.
/// Returns the cents and the currency its symbol or code names, if any. A single `,` or `.`
/// followed by exactly three digits is a thousands separator; otherwise the last separator is
/// the decimal point.
pub fn parse_money(text: &str) -> Result<(i64, Option<&'static str>), String> {
    const CURRENCIES: [(&str, &str); 8] = [
        ("USD", "USD"),
        ("EUR", "EUR"),
        ("GBP", "GBP"),
        ("US$", "USD"),
        ("$", "USD"),
        ("€", "EUR"),
        ("£", "GBP"),
        ("¥", "JPY"),
    ];
    let mut rest = text.trim().to_owned();
    let mut currency = None;
    for (mark, code) in CURRENCIES {
        let upper = rest.to_ascii_uppercase();
        if let Some(at) = upper.find(mark) {
            currency = Some(code);
            rest.replace_range(at..at + mark.len(), "");
            break;
        }
    }
    let mut negative = false;
    let mut digits = String::new();
    for c in rest.chars() {
        match c {
            '-' | '(' if digits.is_empty() => negative = true,
            ')' if negative => {}
            '0'..='9' | ',' | '.' => digits.push(c),
            ' ' | '\u{a0}' | '\u{202f}' | '\'' => {}
            _ => return Err(format!("{text:?} is not an amount of money")),
        }
    }
    if !digits.chars().any(|c| c.is_ascii_digit()) {
        return Err(format!("{text:?} is not an amount of money"));
    }
    let separators: Vec<(usize, char)> = digits
        .char_indices()
        .filter(|(_, c)| matches!(c, ',' | '.'))
        .collect();
    let decimal_at = match separators.as_slice() {
        [] => None,
        [.., (at, last)] => {
            let after = digits.len() - at - 1;
            let kinds = separators.iter().filter(|(_, c)| c == last).count();
            let mixed = separators.iter().any(|(_, c)| c != last);
            if mixed || (kinds == 1 && after != 3) {
                Some(*at)
            } else {
                None
            }
        }
    };
    let (whole, fraction) = match decimal_at {
        Some(at) => (&digits[..at], &digits[at + 1..]),
        None => (digits.as_str(), ""),
    };
    let whole: String = whole.chars().filter(char::is_ascii_digit).collect();
    if fraction.len() > 2 || fraction.contains([',', '.']) {
        return Err(format!("{text:?} has more than two decimals"));
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole
            .parse()
            .map_err(|_| format!("{text:?} is too large an amount"))?
    };
    let fraction_cents: i64 = match fraction.len() {
        0 => 0,
        1 => fraction.parse::<i64>().unwrap_or(0) * 10,
        _ => fraction.parse::<i64>().unwrap_or(0),
    };
    let cents = whole
        .checked_mul(100)
        .and_then(|c| c.checked_add(fraction_cents))
        .ok_or_else(|| format!("{text:?} is too large an amount"))?;
    Ok((if negative { -cents } else { cents }, currency))
}

/// A size as the catalogue writes it, from what spreadsheets write: `US 10`, `M 10`, `US M 10`,
/// `10` give `10`; `10.5Y`, `GS 10.5`, `10.5 Y` give `10.5Y`; `7C`, `TD 7` give `7C`; `W 8`
/// gives `8W`.
pub fn parse_size_label(text: &str) -> Result<String, String> {
    let mut suffix = "";
    let mut number = None;
    for token in text.split_whitespace() {
        let upper = token.to_ascii_uppercase();
        match upper.as_str() {
            "US" | "M" | "MEN" | "MENS" | "MEN'S" => {}
            "W" | "WMNS" | "WOMEN" | "WOMENS" | "WOMEN'S" => suffix = "W",
            "Y" | "GS" => suffix = "Y",
            "C" | "TD" | "PS" => suffix = "C",
            _ => {
                if number.is_some() {
                    return Err(format!("{text:?} is not a size"));
                }
                let end = upper
                    .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
                    .unwrap_or(upper.len());
                let value = upper[..end].replace(',', ".");
                let parsed: f64 = value
                    .parse()
                    .map_err(|_| format!("{text:?} is not a size"))?;
                if !(0.0..=30.0).contains(&parsed) || (parsed * 2.0).fract() != 0.0 {
                    return Err(format!("{text:?} is not a size"));
                }
                match &upper[end..] {
                    "" | "M" => {}
                    "Y" | "GS" => suffix = "Y",
                    "C" | "K" => suffix = "C",
                    "W" => suffix = "W",
                    _ => return Err(format!("{text:?} is not a size")),
                }
                number = Some(if parsed.fract() == 0.0 {
                    format!("{parsed:.0}")
                } else {
                    format!("{parsed:.1}")
                });
            }
        }
    }
    let number = number.ok_or_else(|| format!("{text:?} is not a size"))?;
    Ok(format!("{number}{suffix}"))
}

/// A style code as catalogues write it: upper case, and the dash of the common 6+3 form put back
/// (`dd1391100` gives `DD1391-100`); other codes are kept as written, trimmed.
pub fn parse_style_code(text: &str) -> Result<String, String> {
    let key = crate::model::portfolio::sku_key(text);
    if key.len() < 4
        || text
            .trim()
            .chars()
            .any(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | ' ' | '_' | '/')))
    {
        return Err(format!("{text:?} is not a style code"));
    }
    let bytes = key.as_bytes();
    if bytes.len() == 9
        && bytes[..2].iter().all(u8::is_ascii_alphabetic)
        && bytes[6..].iter().all(u8::is_ascii_digit)
    {
        return Ok(format!("{}-{}", &key[..6], &key[6..]));
    }
    Ok(text.trim().to_ascii_uppercase())
}

/// A date as spreadsheets write it: `2024-03-09`, `2024/03/09`, `03/09/2024` (US order),
/// `09.03.2024` (European order).
pub fn parse_date(text: &str) -> Result<NaiveDate, String> {
    let text = text.trim();
    ["%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y", "%d.%m.%Y"]
        .iter()
        .find_map(|format| NaiveDate::parse_from_str(text, format).ok())
        .ok_or_else(|| format!("{text:?} is not a date (write 2024-03-09)"))
}

/// The portfolio's value in one week.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WeekValue {
    /// First day of the week.
    pub start: NaiveDate,
    /// Sum of the week's AOV of every pair held that week that has one, in cents.
    pub value_cents: i64,
    /// Pairs held that week.
    pub held: usize,
    /// Of those, the pairs whose product had an AOV that week.
    pub priced: usize,
}

/// The value of the pairs in `currency` week by week: a pair counts in the week starting on
/// `start` when it was bought before the week ended and not sold before it began; its price that
/// week is `aov(pair, start)` (its product's average order value, in currency units), and a pair
/// without one is counted as held but not priced. `week_starts` ascending.
#[must_use]
pub fn value_by_week(
    holdings: &[Holding],
    currency: &str,
    week_starts: &[NaiveDate],
    aov: impl Fn(&Pair, NaiveDate) -> Option<f64>,
) -> Vec<WeekValue> {
    week_starts
        .iter()
        .map(|&start| {
            let end = start + chrono::Days::new(6);
            let mut week = WeekValue {
                start,
                value_cents: 0,
                held: 0,
                priced: 0,
            };
            for holding in holdings.iter().filter(|h| h.pair.currency == currency) {
                let bought_in_time = holding.pair.purchased_on <= end;
                let still_held = holding.sale.as_ref().is_none_or(|s| s.sold_on >= start);
                if !(bought_in_time && still_held) {
                    continue;
                }
                week.held += 1;
                if let Some(cents) = aov(&holding.pair, start)
                    .and_then(cents_from_amount)
                    .filter(|c| *c > 0)
                {
                    week.priced += 1;
                    week.value_cents += cents;
                }
            }
            week
        })
        .collect()
}

/// Realized P&L month by month (first day of the month, cents) of the sales in `currency`,
/// oldest first; months without a sale are left out.
#[must_use]
pub fn realized_by_month(holdings: &[Holding], currency: &str) -> Vec<(NaiveDate, i64)> {
    let mut months: BTreeMap<NaiveDate, i64> = BTreeMap::new();
    for holding in holdings.iter().filter(|h| h.pair.currency == currency) {
        if let Some(sale) = &holding.sale
            && let Some(month) = sale.sold_on.with_day(1)
        {
            *months.entry(month).or_default() += realized(&holding.pair, sale).pnl_cents;
        }
    }
    months.into_iter().collect()
}
