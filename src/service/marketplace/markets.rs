//! Currencies, countries and regional markets the simulated marketplaces quote in.
//!
//! The rates are fixed on purpose: the simulator must give the same figures for the same minute
//! and seed, so it cannot follow a live exchange feed. EUR is the exception: the catalogue
//! carries every price in EUR too (its FR dataset), and those are the prices a euro market
//! starts from, so a euro figure agrees with the catalogue the user sees next to it.

use super::UpstreamError;

/// A currency the marketplaces can quote in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Currency {
    /// ISO 4217 code (`USD`).
    pub code: &'static str,
    /// Units of this currency per US dollar; for EUR only used where the catalogue has no EUR
    /// price.
    pub per_usd: f64,
}

/// The currencies accepted, US dollar first (the default).
pub const CURRENCIES: &[Currency] = &[
    Currency {
        code: "USD",
        per_usd: 1.0,
    },
    Currency {
        code: "EUR",
        per_usd: 0.93,
    },
    Currency {
        code: "GBP",
        per_usd: 0.79,
    },
    Currency {
        code: "CAD",
        per_usd: 1.37,
    },
    Currency {
        code: "AUD",
        per_usd: 1.52,
    },
    Currency {
        code: "CHF",
        per_usd: 0.88,
    },
    Currency {
        code: "JPY",
        per_usd: 150.0,
    },
];

/// A country (or regional market) with its price level against the US market.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Country {
    /// ISO 3166 alpha-2 code (`US`).
    pub code: &'static str,
    /// Resale prices there against the US market: shipping, duties and scarcity make most
    /// markets a few percent dearer.
    pub price_level: f64,
}

const fn country(code: &'static str, price_level: f64) -> Country {
    Country { code, price_level }
}

/// The countries and markets accepted, the US first (the default).
pub const COUNTRIES: &[Country] = &[
    country("US", 1.0),
    country("CA", 1.03),
    country("MX", 1.05),
    country("GB", 1.03),
    country("IE", 1.04),
    country("FR", 1.04),
    country("DE", 1.04),
    country("IT", 1.05),
    country("ES", 1.05),
    country("PT", 1.05),
    country("NL", 1.04),
    country("BE", 1.04),
    country("LU", 1.04),
    country("AT", 1.05),
    country("CH", 1.07),
    country("DK", 1.05),
    country("SE", 1.05),
    country("NO", 1.07),
    country("FI", 1.05),
    country("PL", 1.04),
    country("CZ", 1.04),
    country("JP", 1.08),
    country("KR", 1.06),
    country("CN", 1.06),
    country("HK", 1.05),
    country("SG", 1.06),
    country("TW", 1.06),
    country("AU", 1.07),
    country("NZ", 1.08),
    country("AE", 1.07),
];

/// Where and how a related-products lookup quotes: the parsed [`RelatedQuery`](super::RelatedQuery).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quote {
    /// The buyer's country.
    pub country: Country,
    /// The currency of every amount.
    pub currency: Currency,
    /// The regional order book the figures come from (defaults to the country's).
    pub market: Country,
}

impl Quote {
    /// US dollars on the US market, for a US buyer.
    #[must_use]
    pub fn us() -> Self {
        Self {
            country: COUNTRIES[0],
            currency: CURRENCIES[0],
            market: COUNTRIES[0],
        }
    }
}

/// Empty and absent parameters both mean "the default".
fn given(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|text| !text.is_empty())
}

/// The currency named by `code` (any case); `None` for an absent or empty value.
pub fn parse_currency(code: Option<&str>) -> Result<Option<Currency>, UpstreamError> {
    find_code(
        CURRENCIES,
        |c| c.code,
        code,
        |given, known| format!("unknown currency '{given}'; use one of {known}"),
    )
}

/// The country named by `code` (any case); `None` for an absent or empty value. `what` names the
/// parameter in the error message (`country`, `market`).
pub fn parse_country(what: &str, code: Option<&str>) -> Result<Option<Country>, UpstreamError> {
    find_code(
        COUNTRIES,
        |c| c.code,
        code,
        |given, known| {
            format!("unknown {what} '{given}'; use a two-letter country code, one of {known}")
        },
    )
}

/// The entry of `table` whose code is `code` (any case); a 400 listing the known codes otherwise.
fn find_code<T: Copy>(
    table: &[T],
    code_of: fn(&T) -> &'static str,
    code: Option<&str>,
    message: impl FnOnce(String, String) -> String,
) -> Result<Option<T>, UpstreamError> {
    let Some(code) = given(code) else {
        return Ok(None);
    };
    let found = table
        .iter()
        .find(|entry| code_of(entry).eq_ignore_ascii_case(code));
    if let Some(entry) = found {
        return Ok(Some(*entry));
    }
    let known = table.iter().map(code_of).collect::<Vec<_>>().join(", ");
    Err(UpstreamError::BadRequest(message(printable(code), known)))
}

/// At most 40 characters of `text` with control characters escaped, for error messages.
pub(super) fn printable(text: &str) -> String {
    let mut shown: String = text.chars().take(40).flat_map(char::escape_debug).collect();
    if text.chars().count() > 40 {
        shown.push_str("...");
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_absent_values() {
        assert_eq!(parse_currency(None).unwrap(), None);
        assert_eq!(parse_currency(Some(" ")).unwrap(), None);
        assert_eq!(parse_country("market", Some("")).unwrap(), None);
        assert_eq!(Quote::us().currency.code, "USD");
        assert_eq!(Quote::us().market.code, "US");
    }

    #[test]
    fn codes_are_case_insensitive() {
        assert_eq!(parse_currency(Some("eur")).unwrap().unwrap().code, "EUR");
        assert_eq!(
            parse_country("country", Some("fr")).unwrap().unwrap().code,
            "FR"
        );
    }

    #[test]
    fn unknown_values_are_bad_requests_naming_the_parameter() {
        let err = parse_currency(Some("XYZ")).unwrap_err();
        assert!(
            matches!(&err, UpstreamError::BadRequest(m) if m.contains("XYZ") && m.contains("GBP"))
        );
        let err = parse_country("market", Some("ZZ")).unwrap_err();
        assert!(matches!(&err, UpstreamError::BadRequest(m) if m.starts_with("unknown market")));
    }

    #[test]
    fn the_tables_have_unique_codes() {
        let mut codes: Vec<_> = COUNTRIES.iter().map(|c| c.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), COUNTRIES.len());
        assert!(
            COUNTRIES
                .iter()
                .all(|c| (1.0..1.1).contains(&c.price_level))
        );
    }
}
