//! The release calendar (`GET /api/v2/releases`, an addition to the interface): the coming
//! drops from every source the service has (its catalogue's release dates, KicksDB's coming
//! StockX products, SNKRS launches, products a crawled store has just published), one entry per
//! pair, matched across sources by style code; each with its day and time, retail, how the
//! pair drops where a source says, and an estimate of its resale premium with its band and
//! basis (or the reason there is none).
//!
//! Also the one rule every side uses to tell two style codes apart: [`style_code_keys`].

use serde::{Deserialize, Serialize};

/// Days a request may look ahead at most.
pub const MAX_RELEASE_DAYS: u32 = 366;

/// Days a request looks ahead when it does not say.
pub const DEFAULT_RELEASE_DAYS: u32 = 30;

/// Entries per page at most.
pub const MAX_RELEASE_LIMIT: u32 = 500;

/// Entries per page when the request does not say.
pub const DEFAULT_RELEASE_LIMIT: u32 = 100;

/// The calendar between two days, a page of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ReleasesAnswer {
    /// The entries, in date order (then time, then title); this page of them.
    pub releases: Vec<Release>,
    /// Entries in the window asked for, on every page.
    pub total: u64,
    /// The first day of the window (`YYYY-MM-DD`).
    pub from: String,
    /// The day after the window (`YYYY-MM-DD`).
    pub until: String,
    /// When the calendar was put together (RFC 3339, UTC).
    pub as_of: String,
    /// Each source of the calendar with what it gave and how old that is.
    pub sources: Vec<CalendarSource>,
    /// The premium model behind the estimates: what it was fitted on, or why there is none.
    pub model: PremiumModelInfo,
}

/// One coming drop: one pair, however many sources name it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Release {
    /// The catalogue's product UUID when the catalogue holds the pair (open it at
    /// `/api/v2/products/{id}`); null for a pair only a launch or a store names.
    pub product_id: Option<String>,
    /// The title, as the catalogue writes it (else the launch's, else the store's).
    pub title: String,
    /// The brand, where a source names it.
    pub brand: String,
    /// The style code as the first source writes it.
    pub style_code: String,
    /// Every style code the sources wrote for it (dash, space and case as written).
    pub style_codes: Vec<String>,
    /// The day it drops (`YYYY-MM-DD`): the day of `starts_at` in UTC when a time is known.
    pub release_date: String,
    /// When it opens (RFC 3339, UTC), where a source gives the time (a launch, a store).
    pub starts_at: Option<String>,
    /// Retail price in `currency` (the launch's MSRP, else the catalogue's retail); null when
    /// no source says.
    pub retail_price: Option<f64>,
    /// The currency of `retail_price`.
    pub currency: String,
    /// How it drops: `first_come_first_served`, `queue` or `draw`; null when unknown.
    pub method: Option<String>,
    /// The launch's mechanics, where a launch source (SNKRS) lists the pair.
    pub mechanics: Option<Mechanics>,
    /// The expected premium over retail in the first 30 days, with its band and basis; null
    /// when there is none (`no_estimate` says why).
    pub estimate: Option<PremiumEstimate>,
    /// Why there is no estimate ("no estimate: 2 releases"), when there is none.
    pub no_estimate: Option<String>,
    /// The US sizes known for it (the catalogue's sizes, a launch's sizes, a store's).
    pub sizes: Vec<String>,
    /// A picture, when a source has one.
    pub image: String,
    /// Each source that names the pair, with its date and link.
    pub sources: Vec<ReleaseSource>,
}

/// How a launch drops, as its source lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Mechanics {
    /// The launch source (`snkrs`).
    pub source: String,
    /// `first_come_first_served` (SNKRS FLOW), `queue` (LEO) or `draw` (DAN); the source's
    /// own word when it is none of these.
    pub method: String,
    /// The method as the source names it (`FLOW`, `LEO`, `DAN`).
    pub method_code: String,
    /// When the window or draw opens (RFC 3339, UTC).
    pub starts_at: String,
    /// The launch's price in `currency`.
    pub msrp: Option<f64>,
    /// The launch's currency.
    pub currency: String,
    /// The launch's country.
    pub country: String,
    /// Pairs one account may buy; null when the source does not say.
    pub quantity_limit: Option<u32>,
    /// Only for members with exclusive access.
    pub exclusive_access: bool,
    /// Only for invited members.
    pub invitation_only: bool,
    /// The sizes with their stock level.
    pub sizes: Vec<SizeStock>,
    /// When the source was read (RFC 3339, UTC).
    pub read_at: String,
}

impl Mechanics {
    /// What one account may buy, in words: "at most 1 pair per account, exclusive access".
    #[must_use]
    pub fn account_terms(&self) -> String {
        let mut text = match self.quantity_limit {
            Some(1) => "at most 1 pair per account".to_owned(),
            Some(limit) => format!("at most {limit} pairs per account"),
            None => "no limit per account given".to_owned(),
        };
        if self.exclusive_access {
            text.push_str(", exclusive access");
        }
        if self.invitation_only {
            text.push_str(", invitation only");
        }
        text
    }
}

/// One size of a launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SizeStock {
    /// The size, US (`10.5`).
    pub size: String,
    /// The size as the launch's country writes it.
    pub local_size: String,
    /// `M` or `W`.
    pub size_type: String,
    /// `HIGH`, `LOW` or `OOS` (out of stock).
    pub stock_level: String,
    /// Whether the size can be bought.
    pub available: bool,
}

/// One source of an entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ReleaseSource {
    /// `catalogue` (the service's catalogue: the demo's, an imported one or KicksDB's mirror
    /// of StockX), `snkrs` (a launch) or `store` (a store that published it).
    pub kind: String,
    /// Which one: the catalogue's source (`demo`, `kicksdb`), `snkrs`, the store's address.
    pub name: String,
    /// The day this source gives.
    pub release_date: String,
    /// The time this source gives (RFC 3339, UTC), when it gives one.
    pub starts_at: Option<String>,
    /// Its page for the pair (the marketplace, the store's product page).
    pub link: String,
    /// The style code as this source writes it.
    pub style_code: String,
    /// When this source was read (RFC 3339, UTC), where known.
    pub read_at: Option<String>,
}

/// An expected premium over retail, with its band and what it rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PremiumEstimate {
    /// Expected premium over retail in percent (25.0 = resale 25% above retail), to a tenth
    /// of a point.
    pub premium_pct: f64,
    /// The band's low end, percent, to a tenth of a point.
    pub low_pct: f64,
    /// The band's high end, percent, to a tenth of a point.
    pub high_pct: f64,
    /// What the estimate rests on.
    pub basis: EstimateBasis,
    /// Per size, where the model line's sizes have history; empty otherwise.
    pub sizes: Vec<SizeEstimate>,
}

/// What an estimate rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EstimateBasis {
    /// Releases before it the model learned from.
    pub releases: u64,
    /// Of them, releases like this one (same model line, brand or collaboration), where the
    /// model says.
    pub similar: Option<u64>,
    /// The features it used (`model line`, `collaboration`, `retail`, `brand`, ...).
    pub features: Vec<String>,
    /// Days after release the premium is estimated for (30).
    pub horizon_days: u32,
    /// The share of actual premiums the band is meant to hold (0.8 = 80%).
    pub band_coverage: f64,
    /// The model was fitted on releases before this day (`YYYY-MM-DD`).
    pub fitted_before: String,
    /// In words, for a tooltip.
    pub summary: String,
}

/// The estimate for one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SizeEstimate {
    /// The US size.
    pub size: String,
    /// Expected premium in percent, to a tenth of a point.
    pub premium_pct: f64,
    /// The band's low end, percent, to a tenth of a point.
    pub low_pct: f64,
    /// The band's high end, percent, to a tenth of a point.
    pub high_pct: f64,
}

/// A source of the calendar and how it stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CalendarSource {
    /// `catalogue`, `snkrs` or `store`.
    pub kind: String,
    /// Which one (the catalogue's source, `snkrs`, a store's address).
    pub name: String,
    /// Entries it gave in the whole calendar (any day ahead).
    pub releases: u64,
    /// When it was read (RFC 3339, UTC), where known.
    pub read_at: Option<String>,
    /// What a user should know: not read (why), read in part, no key.
    pub note: Option<String>,
}

/// The premium model behind the estimates.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PremiumModelInfo {
    /// Releases with a known premium it was fitted on.
    pub releases: u64,
    /// Fitted on releases before this day (`YYYY-MM-DD`).
    pub fitted_before: String,
    /// Why there are no estimates, when there are none.
    pub note: Option<String>,
}

/// How a drop is run, from a launch's method code (SNKRS: `FLOW`, `LEO`, `DAN`).
#[must_use]
pub fn method_from_code(code: &str) -> String {
    match code.trim().to_ascii_uppercase().as_str() {
        "FLOW" => "first_come_first_served".to_owned(),
        "LEO" => "queue".to_owned(),
        "DAN" => "draw".to_owned(),
        other => other.to_ascii_lowercase(),
    }
}

/// A method in words for people (`first come, first served`).
#[must_use]
pub fn method_words(method: &str) -> &str {
    match method {
        "first_come_first_served" => "first come, first served",
        "queue" => "queue",
        "draw" => "draw",
        other => other,
    }
}

/// The keys a written style code matches by: one per code (`315122-111/CW2288-111` is two),
/// each its letters and digits in upper case, so `CT8012-104`, `CT8012 104` and `ct8012104`
/// are one key. Codes are split at `/`, `,`, `;`, `|` and `+`; a part with no digit or of
/// fewer than four characters is no code (`N/A`, `TBD`).
#[must_use]
pub fn style_code_keys(text: &str) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for part in text.split(['/', ',', ';', '|', '+']) {
        let key: String = part
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_uppercase())
            .collect();
        if key.len() >= 4 && key.bytes().any(|b| b.is_ascii_digit()) && !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_codes_match_with_dash_space_case_and_two_codes() {
        assert_eq!(style_code_keys("CT8012-104"), ["CT8012104"]);
        assert_eq!(style_code_keys("CT8012 104"), ["CT8012104"]);
        assert_eq!(style_code_keys("ct8012104"), ["CT8012104"]);
        assert_eq!(
            style_code_keys("315122-111/CW2288-111"),
            ["315122111", "CW2288111"]
        );
        assert_eq!(style_code_keys(" 315122-111 / 315122-111 "), ["315122111"]);
        assert!(style_code_keys("N/A").is_empty());
        assert!(style_code_keys("").is_empty());
        assert_eq!(style_code_keys("FZ5000"), ["FZ5000"]);
    }

    #[test]
    fn launch_methods_in_the_calendars_words() {
        assert_eq!(method_from_code("FLOW"), "first_come_first_served");
        assert_eq!(method_from_code("leo"), "queue");
        assert_eq!(method_from_code("DAN"), "draw");
        assert_eq!(method_from_code("RAFFLE"), "raffle");
        assert_eq!(method_words("queue"), "queue");
        assert_eq!(
            method_words("first_come_first_served"),
            "first come, first served"
        );
    }
}
