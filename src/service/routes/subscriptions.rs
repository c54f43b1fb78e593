//! `/api/v2/subscriptions` and `/api/v2/subscriptions/{tier}`: what each tier unlocks and its
//! limits, so a client can explain a refusal. Public: readable without a key.

use axum::Json;
use axum::extract::Path;

use super::truncate;
use crate::model::tiers;
use crate::model::{Feature, Subscription, Tier, V2Envelope};
use crate::service::REALTIME_PER_MINUTE;
use crate::service::error::ApiError;

/// What a tier unlocks, read from the one tier rule (`model::tiers`) that the handlers enforce.
pub fn subscription(tier: Tier) -> Subscription {
    let mut features: Vec<String> = Feature::ALL
        .into_iter()
        .filter(|feature| tier.allows(*feature))
        .map(|feature| feature.description().to_owned())
        .collect();
    if !tier.allows(Feature::ReleaseAndRetail) {
        features.push("no release dates or retail prices anywhere".to_owned());
    }
    Subscription {
        tier,
        price_usd_per_month: tiers::price_usd_per_month(tier),
        features,
        endpoints: tiers::ENDPOINTS
            .iter()
            .filter(|(_, feature)| tier.allows(*feature))
            .map(|(endpoint, _)| (*endpoint).to_owned())
            .collect(),
        realtime_requests_per_minute: if tier.allows(Feature::Realtime) {
            REALTIME_PER_MINUTE
        } else {
            0
        },
        search_countries: tier
            .countries()
            .into_iter()
            .map(|country| country.code().to_owned())
            .collect(),
        product_fields_omitted: tier
            .omitted_fields()
            .into_iter()
            .map(str::to_owned)
            .collect(),
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
    // Exactly the lowercase names the document lists: a path names one resource.
    let tier = Tier::ALL
        .into_iter()
        .find(|known| known.as_str() == tier)
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "no subscription {:?}; the tiers are free, pro and ultra",
                truncate(&tier, 20)
            ))
        })?;
    Ok(Json(V2Envelope::success(subscription(tier))))
}
