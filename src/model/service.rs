//! Types the specification leaves "not shown", designed by us: membership tiers,
//! country datasets, the statistics and subscription payloads, and the non-v2 error body.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Membership tier of an API key; ordered so that `Ultra > Pro > Free`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// The free tier: US search, reduced product detail, retailer lookups.
    Free,
    /// The pro tier: everything free has, plus the French dataset, orders and real-time data.
    Pro,
    /// The ultra tier: everything pro has.
    Ultra,
}

impl Tier {
    /// Every tier, lowest first.
    pub const ALL: [Tier; 3] = [Tier::Free, Tier::Pro, Tier::Ultra];

    /// The lowercase wire name, e.g. `"free"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Free => "free",
            Tier::Pro => "pro",
            Tier::Ultra => "ultra",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tier name that is none of `free`, `pro` or `ultra`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tier {0:?}; expected free, pro or ultra")]
pub struct UnknownTier(pub String);

impl FromStr for Tier {
    type Err = UnknownTier;

    /// Parses a tier name, ignoring case and surrounding whitespace.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        Tier::ALL
            .into_iter()
            .find(|tier| tier.as_str().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownTier(s.to_owned()))
    }
}

/// A country dataset of the catalogue; the US one is the default.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub enum Country {
    /// The United States dataset, priced in US dollars.
    #[default]
    #[serde(rename = "US")]
    Us,
    /// The French dataset, priced in euros; needs a pro or ultra key.
    #[serde(rename = "FR")]
    Fr,
}

/// A country that is neither empty (US), `US` nor `FR`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown country {0:?}; expected FR, US or empty")]
pub struct UnknownCountry(pub String);

impl Country {
    /// Every country dataset, US first.
    pub const ALL: [Country; 2] = [Country::Us, Country::Fr];

    /// Parses the `country` search parameter: empty or `US` means the US
    /// dataset, `FR` the French one; case and surrounding whitespace are ignored.
    pub fn parse(s: &str) -> Result<Country, UnknownCountry> {
        let code = s.trim();
        if code.is_empty() || code.eq_ignore_ascii_case("US") {
            Ok(Country::Us)
        } else if code.eq_ignore_ascii_case("FR") {
            Ok(Country::Fr)
        } else {
            Err(UnknownCountry(s.to_owned()))
        }
    }

    /// ISO 4217 code of the currency the dataset is priced in.
    #[must_use]
    pub fn currency(self) -> &'static str {
        match self {
            Country::Us => "USD",
            Country::Fr => "EUR",
        }
    }

    /// ISO 3166 alpha-2 code, uppercase.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            Country::Us => "US",
            Country::Fr => "FR",
        }
    }

    /// The dataset priced in `currency` (an ISO 4217 code, any case): `USD` the US one, `EUR`
    /// the French one; `None` for any other.
    #[must_use]
    pub fn of_currency(currency: &str) -> Option<Country> {
        Country::ALL
            .into_iter()
            .find(|c| c.currency().eq_ignore_ascii_case(currency.trim()))
    }
}

impl fmt::Display for Country {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Payload of the statistics endpoint: catalogue size per country dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Stats {
    /// One entry per country dataset.
    pub datasets: Vec<DatasetStats>,
    /// ISO 8601 timestamp (UTC) the catalogue was built.
    pub built_at: String,
    /// Version of the catalogue schema.
    pub schema_version: u32,
}

/// Size of one country dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DatasetStats {
    /// Country code, e.g. `US`.
    pub country: String,
    /// Currency code of the dataset's prices.
    pub currency: String,
    /// Number of products.
    pub products: u64,
    /// Number of variants (sizes) over all products; `null` where the source does not count
    /// them (KicksDB).
    #[serde(default)]
    pub variants: Option<u64>,
}

/// Payload of a subscription page: what one tier offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Subscription {
    /// The tier described.
    pub tier: Tier,
    /// Monthly price in US dollars.
    pub price_usd_per_month: f64,
    /// Human-readable feature list.
    pub features: Vec<String>,
    /// Endpoint paths the tier may call.
    pub endpoints: Vec<String>,
    /// Request budget per minute on the real-time endpoints; 0 when not available.
    pub realtime_requests_per_minute: u32,
    /// Country codes searchable with this tier.
    pub search_countries: Vec<String>,
    /// Product fields left out of the v2 product for this tier.
    pub product_fields_omitted: Vec<String>,
}

/// Error body of non-v2 endpoints (v2 errors use [`crate::model::V2Envelope::error`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// Always `error`.
    pub status: String,
    /// Machine-readable error code.
    pub error: String,
    /// Human-readable message.
    pub message: String,
}

impl ErrorBody {
    /// An error body with status `error` and the given code and message.
    #[must_use]
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            status: "error".to_owned(),
            error: code.to_owned(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_are_ordered_free_pro_ultra() {
        assert!(Tier::Ultra > Tier::Pro);
        assert!(Tier::Pro > Tier::Free);
        assert!(Tier::Ultra > Tier::Free);
        let mut shuffled = vec![Tier::Pro, Tier::Ultra, Tier::Free];
        shuffled.sort();
        assert_eq!(shuffled, Tier::ALL);
    }

    #[test]
    fn tier_parses_case_insensitively_and_displays_lowercase() {
        assert_eq!("free".parse::<Tier>(), Ok(Tier::Free));
        assert_eq!("PRO".parse::<Tier>(), Ok(Tier::Pro));
        assert_eq!(" Ultra ".parse::<Tier>(), Ok(Tier::Ultra));
        assert_eq!("gold".parse::<Tier>(), Err(UnknownTier("gold".to_owned())));
        assert!("".parse::<Tier>().is_err());
        for tier in Tier::ALL {
            assert_eq!(tier.to_string(), tier.as_str());
            assert_eq!(tier.to_string().parse::<Tier>(), Ok(tier));
        }
    }

    #[test]
    fn tier_serializes_lowercase() {
        assert_eq!(serde_json::to_string(&Tier::Free).unwrap(), r#""free""#);
        assert_eq!(serde_json::to_string(&Tier::Ultra).unwrap(), r#""ultra""#);
        assert_eq!(serde_json::from_str::<Tier>(r#""pro""#).unwrap(), Tier::Pro);
    }

    #[test]
    fn country_parse_accepts_empty_us_and_fr_only() {
        assert_eq!(Country::parse(""), Ok(Country::Us));
        assert_eq!(Country::parse("   "), Ok(Country::Us));
        assert_eq!(Country::parse("us"), Ok(Country::Us));
        assert_eq!(Country::parse("US"), Ok(Country::Us));
        assert_eq!(Country::parse(" FR "), Ok(Country::Fr));
        assert_eq!(Country::parse("fr"), Ok(Country::Fr));
        assert_eq!(Country::parse("DE"), Err(UnknownCountry("DE".to_owned())));
        assert!(Country::parse("FRA").is_err());
    }

    #[test]
    fn country_codes_currencies_and_serde() {
        assert_eq!(Country::Us.currency(), "USD");
        assert_eq!(Country::Fr.currency(), "EUR");
        assert_eq!(Country::Us.code(), "US");
        assert_eq!(Country::Fr.code(), "FR");
        assert_eq!(Country::default(), Country::Us);
        assert_eq!(serde_json::to_string(&Country::Fr).unwrap(), r#""FR""#);
        assert_eq!(
            serde_json::from_str::<Country>(r#""US""#).unwrap(),
            Country::Us
        );
        for country in Country::ALL {
            assert_eq!(Country::parse(country.code()), Ok(country));
        }
    }
}
