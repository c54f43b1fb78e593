//! The real-time side on KicksDB: GOAT's live product as `resale-a`, StockX's live related
//! products as `resale-b`. Both count against the 60 real-time calls a minute per key.

use std::sync::Arc;

use super::catalogue::path_segment;
use super::map::{resale_a_from_goat, resale_b_from_stockx};
use super::source::live_origin;
use super::wire::{Envelope, GoatProduct, GoatRealtimeProduct, RelatedItem};
use super::{CallClass, Kicksdb};
use crate::model::{
    LookupInfo, RealtimeInfo, RelatedInfo, ResaleAProduct, ResaleBNode, RetailerProduct,
};
use crate::service::marketplace::{Marketplaces, RelatedQuery, UpstreamError, markets};
use crate::service::origin::Sourced;
use crate::service::origin::names::KICKSDB;
use crate::upstream::{FetchError, FetchKind};

impl From<FetchError> for UpstreamError {
    fn from(err: FetchError) -> Self {
        let message = err.to_string();
        match err.kind {
            FetchKind::NotFound => UpstreamError::NotFound(message),
            FetchKind::Timeout => UpstreamError::Timeout(message),
            FetchKind::RateLimited => UpstreamError::RateLimited {
                message,
                retry_after_secs: err.retry_after.map_or(60, |d| d.as_secs().max(1)),
            },
            FetchKind::Unauthorized => UpstreamError::KeyRefused(message),
            FetchKind::Forbidden => UpstreamError::PlanRefused(message),
            FetchKind::Rejected
            | FetchKind::Unavailable
            | FetchKind::Unreachable
            | FetchKind::TooLarge
            | FetchKind::NotJson
            | FetchKind::Malformed => UpstreamError::Failed(message),
        }
    }
}

/// The markets KicksDB reads real-time StockX prices in (research notes, §2 `M`), with the
/// country code the interface uses for each where they differ (`GB` is KicksDB's `UK`).
const KICKSDB_MARKETS: &[(&str, &str)] = &[
    ("US", "US"),
    ("GB", "UK"),
    ("UK", "UK"),
    ("DE", "DE"),
    ("FR", "FR"),
    ("NL", "NL"),
    ("CH", "CH"),
    ("IT", "IT"),
    ("DK", "DK"),
    ("PL", "PL"),
    ("FI", "FI"),
    ("BE", "BE"),
];

/// The currencies the research notes list for KicksDB's prices (USD EUR GBP CHF CAD JPY DKK).
const KICKSDB_CURRENCIES: &[&str] = &["USD", "EUR", "GBP", "CHF", "CAD", "JPY", "DKK"];

/// The related-products query in KicksDB's codes: checked first as the interface checks it
/// (the simulator's codes, a 400 otherwise), then against what KicksDB reads: a market or
/// currency it has no prices in is a 404 (nothing there), not a call KicksDB would refuse.
fn kicksdb_query(query: &RelatedQuery) -> Result<[(&'static str, String); 3], UpstreamError> {
    let country =
        markets::parse_country("country", query.country.as_deref())?.map_or("US", |c| c.code);
    let currency = markets::parse_currency(query.currency.as_deref())?.map_or("USD", |c| c.code);
    let market =
        markets::parse_country("market", query.market.as_deref())?.map_or(country, |c| c.code);
    let kicksdb_market = KICKSDB_MARKETS
        .iter()
        .find(|(ours, _)| *ours == market)
        .map(|(_, theirs)| *theirs)
        .ok_or_else(|| {
            UpstreamError::NotFound(format!(
                "KicksDB has no market data for {market}; its markets are US, UK, DE, FR, NL, CH, IT, DK, PL, FI and BE"
            ))
        })?;
    if !KICKSDB_CURRENCIES.contains(&currency) {
        return Err(UpstreamError::NotFound(format!(
            "KicksDB gives no prices in {currency}; it gives {}",
            KICKSDB_CURRENCIES.join(", ")
        )));
    }
    Ok([
        ("currency", currency.to_owned()),
        ("country", country.to_owned()),
        ("market", kicksdb_market.to_owned()),
    ])
}

impl Kicksdb {
    /// The GOAT id for `id`: itself when numeric; for a product of the mirror (its UUID or
    /// StockX slug), GOAT's product with the same style code (a catalogue call, not a real-time
    /// one); else `id` as a GOAT slug.
    async fn goat_id(self: &Arc<Self>, id: &str) -> Result<String, UpstreamError> {
        if id.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(id.to_owned());
        }
        let key = id.to_owned();
        let sku = self
            .mirror
            .read(move |conn| Ok(crate::catalogue::read::held_product(conn, &key)?))
            .await
            .ok()
            .flatten()
            .map(|held| held.sku)
            .filter(|sku| !sku.trim().is_empty());
        let Some(sku) = sku else {
            return Ok(id.to_owned());
        };
        let query = [("sku", sku.clone()), ("limit", "1".to_owned())];
        let found: Envelope<Vec<GoatProduct>> = self
            .call_json(
                "v3/goat/products",
                &query,
                CallClass::Catalogue,
                self.ttl.slow,
            )
            .await?;
        let product = found
            .data
            .unwrap_or_default()
            .into_iter()
            .next()
            .ok_or_else(|| {
                UpstreamError::NotFound(format!(
                    "KicksDB: GOAT lists no product with style code {sku}"
                ))
            })?;
        match product.id {
            Some(number) if number.is_finite() && number > 0.0 => Ok(format!("{}", number as i64)),
            _ if !product.slug.is_empty() => Ok(product.slug),
            _ => Err(UpstreamError::NotFound(format!(
                "KicksDB: GOAT's product for {sku} has no id"
            ))),
        }
    }
}

#[async_trait::async_trait]
impl Marketplaces for Arc<Kicksdb> {
    fn sources(&self) -> RealtimeInfo {
        let codes = |codes: &[&str]| codes.iter().map(|c| (*c).to_owned()).collect::<Vec<_>>();
        let countries: Vec<&str> = KICKSDB_MARKETS
            .iter()
            .map(|(ours, _)| *ours)
            .filter(|code| *code != "UK")
            .collect();
        RealtimeInfo {
            resale_a: Some(LookupInfo {
                source: KICKSDB.to_owned(),
            }),
            resale_b: Some(RelatedInfo {
                source: KICKSDB.to_owned(),
                countries: codes(&countries),
                currencies: codes(KICKSDB_CURRENCIES),
                markets: codes(&countries),
            }),
            // KicksDB is not a retailer: retail prices and stock come from storefronts.
            retailer_a: None,
        }
    }

    async fn resale_a_product(&self, id: &str) -> Result<Sourced<ResaleAProduct>, UpstreamError> {
        let goat_id = self.goat_id(id).await?;
        let path = format!("v3/realtime/goat/products/{}", path_segment(&goat_id)?);
        let (answer, reused_at): (Envelope<GoatRealtimeProduct>, _) = self
            .call_json_kept(&path, &[], CallClass::Realtime, self.ttl.realtime)
            .await?;
        let product = answer.data.ok_or_else(|| {
            UpstreamError::NotFound(format!("KicksDB: GOAT has no product {id:?}"))
        })?;
        Ok(Sourced {
            value: resale_a_from_goat(product),
            origin: live_origin(reused_at),
        })
    }

    async fn resale_b_related(
        &self,
        id: &str,
        query: &RelatedQuery,
    ) -> Result<Sourced<Vec<ResaleBNode>>, UpstreamError> {
        let params = kicksdb_query(query)?;
        let path = format!("v3/realtime/stockx/products/{}/related", path_segment(id)?);
        let (answer, reused_at): (Envelope<Vec<RelatedItem>>, _) = self
            .call_json_kept(&path, &params, CallClass::Realtime, self.ttl.realtime)
            .await?;
        Ok(Sourced {
            value: answer
                .data
                .unwrap_or_default()
                .into_iter()
                .map(resale_b_from_stockx)
                .collect(),
            origin: live_origin(reused_at),
        })
    }

    async fn retailer_product(
        &self,
        slug: &str,
        _store: Option<&str>,
    ) -> Result<Sourced<RetailerProduct>, UpstreamError> {
        Err(UpstreamError::NotFound(format!(
            "KicksDB is not a retailer: no retail price or stock for {:?}; add a Shopify storefront (Settings, or serve --retailer-store) for them",
            slug.chars().take(80).collect::<String>()
        )))
    }
}
