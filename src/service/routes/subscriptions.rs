//! `/api/v2/subscriptions` and `/api/v2/subscriptions/{tier}`: what each tier unlocks and its
//! limits, so a client can explain a refusal. Public: readable without a key.

use axum::Json;
use axum::extract::Path;

use super::truncate;
use crate::model::{Subscription, Tier, V2Envelope};
use crate::service::REALTIME_PER_MINUTE;
use crate::service::error::ApiError;

/// What a tier unlocks. This table is the rule the service enforces (see `auth::Caller::require`).
pub fn subscription(tier: Tier) -> Subscription {
    let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let free_endpoints = [
        "GET /search",
        "GET /product/{id}",
        "GET /stats",
        "GET /api/v2/products/{id}",
        "GET /api/v3/retailer-a/products/{slug}",
    ];
    let pro_endpoints = [
        "GET /api/v2/products/{id}/orders",
        "GET /api/v3/realtime/resale-a/products/{id}",
        "GET /api/v3/realtime/resale-b/products/{id}/related",
    ];
    match tier {
        Tier::Free => Subscription {
            tier,
            price_usd_per_month: 0.0,
            features: strings(&[
                "catalogue search, US dataset",
                "product detail without release dates and retail prices",
                "retailer product lookup",
            ]),
            endpoints: strings(&free_endpoints),
            realtime_requests_per_minute: 0,
            search_countries: strings(&["US"]),
            product_fields_omitted: strings(&["release_dates", "retail_prices"]),
        },
        Tier::Pro | Tier::Ultra => Subscription {
            tier,
            price_usd_per_month: if tier == Tier::Pro { 29.0 } else { 99.0 },
            features: strings(&[
                "everything in free",
                "search of the FR dataset (prices in EUR)",
                "release dates and retail prices in product detail",
                "52 weeks of weekly orders, AOV, GMV and rank",
                "real-time resale-a product and resale-b related products",
            ]),
            endpoints: free_endpoints
                .iter()
                .chain(pro_endpoints.iter())
                .map(|s| (*s).to_owned())
                .collect(),
            realtime_requests_per_minute: REALTIME_PER_MINUTE,
            search_countries: strings(&["US", "FR"]),
            product_fields_omitted: Vec::new(),
        },
    }
}

/// `GET /api/v2/subscriptions`: the pro and ultra entries.
#[utoipa::path(get, path = "/api/v2/subscriptions", tag = "v2",
    responses((status = 200, body = V2Envelope<Vec<Subscription>>, description = "The pro and ultra entries; no key needed")))]
pub(crate) async fn list() -> Json<V2Envelope<Vec<Subscription>>> {
    Json(V2Envelope::success(vec![
        subscription(Tier::Pro),
        subscription(Tier::Ultra),
    ]))
}

/// `GET /api/v2/subscriptions/{tier}`: one tier (`free`, `pro` or `ultra`).
#[utoipa::path(get, path = "/api/v2/subscriptions/{tier}", tag = "v2",
    params(("tier" = String, Path, description = "free, pro or ultra")),
    responses((status = 200, body = V2Envelope<Subscription>), (status = 404, body = V2Envelope<serde_json::Value>)))]
pub(crate) async fn one(
    Path(tier): Path<String>,
) -> Result<Json<V2Envelope<Subscription>>, ApiError> {
    let tier: Tier = tier.parse().map_err(|_| {
        ApiError::NotFound(format!(
            "no subscription {:?}; the tiers are free, pro and ultra",
            truncate(&tier, 20)
        ))
    })?;
    Ok(Json(V2Envelope::success(subscription(tier))))
}
