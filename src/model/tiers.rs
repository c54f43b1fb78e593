//! The tier rule: which features and endpoints each tier gets. One table, read by the service's
//! handlers (what they answer), its subscription pages and OpenAPI document (what they say), and
//! the UI (where it shows a lock), so the three cannot disagree.

use super::{Country, Tier};

/// Something a tier may or may not get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// Catalogue search and product lookups in the US dataset.
    SearchUs,
    /// The FR dataset (prices in EUR) of `/search` and `/product/{id}`.
    SearchFr,
    /// Release dates and retail prices: `release_date` and `retail_price` of a search hit (and
    /// `/product/{id}`), `release_dates` and `retail_prices` of the v2 product.
    ReleaseAndRetail,
    /// 52 weeks of weekly orders, AOV, GMV and rank.
    WeeklyOrders,
    /// The real-time resale-a product and resale-b related products.
    Realtime,
    /// The retailer-a product lookup.
    Retailer,
}

impl Feature {
    /// Every feature, in the order the subscription pages list them.
    pub const ALL: [Feature; 6] = [
        Feature::SearchUs,
        Feature::Retailer,
        Feature::SearchFr,
        Feature::ReleaseAndRetail,
        Feature::WeeklyOrders,
        Feature::Realtime,
    ];

    /// The lowest tier that gets this feature: the rule itself.
    pub const fn minimum_tier(self) -> Tier {
        match self {
            Feature::SearchUs | Feature::Retailer => Tier::Free,
            Feature::SearchFr
            | Feature::ReleaseAndRetail
            | Feature::WeeklyOrders
            | Feature::Realtime => Tier::Pro,
        }
    }

    /// How the subscription pages describe it.
    pub const fn description(self) -> &'static str {
        match self {
            Feature::SearchUs => "catalogue search and product detail, US dataset",
            Feature::Retailer => "retailer product lookup",
            Feature::SearchFr => "search of the FR dataset (prices in EUR)",
            Feature::ReleaseAndRetail => {
                "release dates and retail prices (search hits, product lookups and v2 product detail)"
            }
            Feature::WeeklyOrders => "52 weeks of weekly orders, AOV, GMV and rank",
            Feature::Realtime => "real-time resale-a product and resale-b related products",
        }
    }

    /// The response fields that exist only with this feature (absent below its tier).
    pub const fn fields(self) -> &'static [&'static str] {
        match self {
            Feature::ReleaseAndRetail => &[
                "release_date",
                "retail_price",
                "release_dates",
                "retail_prices",
            ],
            _ => &[],
        }
    }
}

impl Tier {
    /// Whether this tier gets `feature`.
    pub const fn allows(self, feature: Feature) -> bool {
        self as u8 >= feature.minimum_tier() as u8
    }

    /// The country datasets this tier may search.
    pub fn countries(self) -> Vec<Country> {
        Country::ALL
            .into_iter()
            .filter(|country| self.allows(country_feature(*country)))
            .collect()
    }

    /// The response fields this tier does not get.
    pub fn omitted_fields(self) -> Vec<&'static str> {
        Feature::ALL
            .into_iter()
            .filter(|feature| !self.allows(*feature))
            .flat_map(|feature| feature.fields().iter().copied())
            .collect()
    }
}

/// Removes from `value` (a response body, at any depth) the fields `tier` does not get.
pub fn strip_omitted_fields(value: &mut serde_json::Value, tier: Tier) {
    let omitted = tier.omitted_fields();
    if !omitted.is_empty() {
        strip_fields(value, &omitted);
    }
}

fn strip_fields(value: &mut serde_json::Value, fields: &[&str]) {
    match value {
        serde_json::Value::Object(map) => {
            for field in fields {
                map.remove(*field);
            }
            for child in map.values_mut() {
                strip_fields(child, fields);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                strip_fields(item, fields);
            }
        }
        _ => {}
    }
}

/// The feature a country's dataset needs.
pub const fn country_feature(country: Country) -> Feature {
    match country {
        Country::Us => Feature::SearchUs,
        Country::Fr => Feature::SearchFr,
    }
}

/// Every endpoint with the feature it needs (paths as the OpenAPI document writes them).
pub const ENDPOINTS: [(&str, Feature); 9] = [
    ("GET /search", Feature::SearchUs),
    ("GET /product/{id}", Feature::SearchUs),
    ("GET /stats", Feature::SearchUs),
    ("GET /api/v2/products/{id}", Feature::SearchUs),
    ("GET /api/v3/retailer-a/products/{slug}", Feature::Retailer),
    ("GET /api/v2/products/{id}/orders", Feature::WeeklyOrders),
    ("GET /api/v2/releases", Feature::ReleaseAndRetail),
    (
        "GET /api/v3/realtime/resale-a/products/{id}",
        Feature::Realtime,
    ),
    (
        "GET /api/v3/realtime/resale-b/products/{id}/related",
        Feature::Realtime,
    ),
];

/// Monthly price of a tier, in US dollars.
pub const fn price_usd_per_month(tier: Tier) -> f64 {
    match tier {
        Tier::Free => 0.0,
        Tier::Pro => 29.0,
        Tier::Ultra => 99.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_gets_no_release_dates_or_retail_prices_and_pro_gets_everything() {
        assert!(!Tier::Free.allows(Feature::ReleaseAndRetail));
        assert!(!Tier::Free.allows(Feature::SearchFr));
        assert!(Tier::Free.allows(Feature::SearchUs));
        assert_eq!(
            Tier::Free.omitted_fields(),
            [
                "release_date",
                "retail_price",
                "release_dates",
                "retail_prices"
            ]
        );
        assert_eq!(Tier::Free.countries(), [Country::Us]);
        for tier in [Tier::Pro, Tier::Ultra] {
            assert!(Feature::ALL.into_iter().all(|f| tier.allows(f)));
            assert!(tier.omitted_fields().is_empty());
            assert_eq!(tier.countries(), Country::ALL);
        }
    }
}
