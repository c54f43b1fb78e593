//! `GET /api/v2/flips`, an addition to the interface: a page of the flip list (module
//! `service::flips`), reckoned with the caller's own costs and fees, sent as query parameters:
//! one service serves many users and keeps none of their settings.
//!
//! Every parameter is checked as the OpenAPI document describes it (the same constants), and a
//! value out of its bounds is a 400 naming it.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Extension, Query, State};

use super::{Params, truncate};
use crate::model::V2Envelope;
use crate::model::flips::{
    DEFAULT_FLIPS_LIMIT, FeeSchedule, FlipScan, FlipSettings, FlipsAnswer, MAX_FLIPS_LIMIT,
    MAX_SELLER_LEVEL, StoreCosts,
};
use crate::service::ServiceState;
use crate::service::auth::Caller;
use crate::service::error::ApiError;
use crate::service::flips::FlipQuery;

/// Largest amount of money a parameter takes, in major units (a minimum profit, shipping, a
/// flat fee), either sign for the minimum profit.
pub(crate) const MAX_AMOUNT: f64 = 1_000_000.0;
/// Largest minimum ROI (1000 = 100,000 %).
pub(crate) const MAX_ROI: f64 = 1_000.0;
/// Values of one repeated parameter (`size`, `store`, `brand`, `store_shipping`, `store_tax`).
pub(crate) const MAX_REPEATS: usize = 20;
/// Longest `size` value, in characters.
pub(crate) const MAX_SIZE_CHARS: usize = 20;
/// Longest `store` value, in characters.
pub(crate) const MAX_STORE_CHARS: usize = 200;
/// Longest `brand` value, in characters.
pub(crate) const MAX_BRAND_CHARS: usize = 100;
/// Highest thin-market threshold.
pub(crate) const MAX_THIN_BELOW: u32 = 100_000;
/// `store_shipping` values: a store, a colon, an amount in major units.
pub(crate) const STORE_SHIPPING_PATTERN: &str =
    "^[^\\u0000-\\u001f\\u007f-\\u009f]+:[0-9]{1,6}(\\.[0-9]{1,4})?$";
/// `store_tax` values: a store, a colon, a percentage from 0 to 100.
pub(crate) const STORE_TAX_PATTERN: &str =
    "^[^\\u0000-\\u001f\\u007f-\\u009f]+:(100(\\.0{1,4})?|[0-9]{1,2}(\\.[0-9]{1,4})?)$";

/// An optional number parameter in `min..=max` (sent empty it is no number, and refused).
fn number(params: &Params, name: &str, min: f64, max: f64) -> Result<Option<f64>, ApiError> {
    let Some(text) = params.raw(name).map(str::trim) else {
        return Ok(None);
    };
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && (min..=max).contains(&value) => Ok(Some(value)),
        _ => Err(ApiError::BadRequest(format!(
            "{name} must be a number from {min} to {max}, not {:?}",
            truncate(text, 40)
        ))),
    }
}

/// An optional whole number in `min..=max`.
fn whole(params: &Params, name: &str, min: u32, max: u32) -> Result<Option<u32>, ApiError> {
    let Some(text) = params.raw(name).map(str::trim) else {
        return Ok(None);
    };
    match text.parse::<u32>() {
        Ok(value) if (min..=max).contains(&value) => Ok(Some(value)),
        _ => Err(ApiError::BadRequest(format!(
            "{name} must be a whole number from {min} to {max}, not {:?}",
            truncate(text, 40)
        ))),
    }
}

/// Every value of the repeated parameter `name`: at most [`MAX_REPEATS`], each not blank, with
/// no control characters, at most `max_chars` characters as sent; trimmed.
fn repeated(params: &Params, name: &str, max_chars: usize) -> Result<Vec<String>, ApiError> {
    let values: Vec<&str> = params
        .0
        .iter()
        .filter(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
        .collect();
    if values.len() > MAX_REPEATS {
        return Err(ApiError::BadRequest(format!(
            "{name} was given {} times; at most {MAX_REPEATS} are taken",
            values.len()
        )));
    }
    values
        .into_iter()
        .map(|value| {
            if value.trim().is_empty() {
                Err(ApiError::BadRequest(format!("a {name} value is empty")))
            } else if value.chars().count() > max_chars {
                Err(ApiError::BadRequest(format!(
                    "{name} {:?} is longer than {max_chars} characters",
                    truncate(value, 40)
                )))
            } else if value.chars().any(char::is_control) {
                Err(ApiError::BadRequest(format!(
                    "a {name} value contains control characters"
                )))
            } else {
                Ok(value.trim().to_owned())
            }
        })
        .collect()
}

/// `amount` written as `[0-9]{1,whole}(.[0-9]{1,4})?`.
fn is_plain_amount(amount: &str, whole_digits: usize) -> bool {
    let (whole, fraction) = amount.split_once('.').unwrap_or((amount, "1"));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    (1..=whole_digits).contains(&whole.len())
        && (1..=4).contains(&fraction.len())
        && digits(whole)
        && digits(fraction)
}

/// `store:value` pairs of the repeated parameter `name`, each value checked by `read`.
fn per_store(
    params: &Params,
    name: &str,
    read: impl Fn(&str) -> Option<f64>,
    what: &str,
) -> Result<Vec<(String, f64)>, ApiError> {
    repeated(params, name, MAX_STORE_CHARS + 20)?
        .into_iter()
        .map(|value| {
            value
                .rsplit_once(':')
                .and_then(|(store, amount)| Some((store.trim().to_owned(), read(amount)?)))
                .ok_or_else(|| {
                    ApiError::BadRequest(format!(
                        "{name} takes a store, a colon and {what} (kith.com:12.50), not {:?}",
                        truncate(&value, 40)
                    ))
                })
        })
        .collect()
}

fn cents(amount: f64) -> i64 {
    (amount * 100.0).round() as i64
}

/// The request's settings: its own costs and fees over the defaults, the defaults named.
fn settings(params: &Params) -> Result<FlipSettings, ApiError> {
    let mut settings = FlipSettings::default();
    let mut given: Vec<&str> = Vec::new();
    if let Some(level) = whole(params, "seller_level", 1, u32::from(MAX_SELLER_LEVEL))? {
        let level = u8::try_from(level).unwrap_or(1);
        settings.seller_level = level;
        settings.fees = FeeSchedule::seller_level(level);
        given.push("seller_level");
    }
    let commission = number(params, "fee_commission", 0.0, 100.0)?;
    let processing = number(params, "fee_processing", 0.0, 100.0)?;
    let fixed = number(params, "fee_fixed", 0.0, MAX_AMOUNT)?;
    if commission.is_some() || processing.is_some() || fixed.is_some() {
        given.push("fees");
    }
    settings.fees = FeeSchedule {
        commission_percent: commission.unwrap_or(settings.fees.commission_percent),
        processing_percent: processing.unwrap_or(settings.fees.processing_percent),
        fixed_fee_cents: fixed.map_or(settings.fees.fixed_fee_cents, cents),
    };
    if let Some(shipping) = number(params, "shipping", 0.0, MAX_AMOUNT)? {
        settings.shipping_cents = cents(shipping);
        given.push("shipping");
    }
    if let Some(tax) = number(params, "tax", 0.0, 100.0)? {
        settings.sales_tax_percent = tax;
        given.push("sales_tax");
    }
    if let Some(thin) = whole(params, "thin_below", 0, MAX_THIN_BELOW)? {
        settings.thin_below = thin;
        given.push("thin_below");
    }
    let read_shipping = |text: &str| {
        is_plain_amount(text, 6)
            .then(|| text.parse::<f64>().ok())
            .flatten()
    };
    // As STORE_TAX_PATTERN reads it: 100 (with up to four zero decimals), or two digits.
    let read_tax = |text: &str| {
        let hundred = text.strip_prefix("100").is_some_and(|rest| {
            rest.is_empty()
                || rest.strip_prefix('.').is_some_and(|zeros| {
                    (1..=4).contains(&zeros.len()) && zeros.bytes().all(|b| b == b'0')
                })
        });
        (hundred || is_plain_amount(text, 2))
            .then(|| text.parse::<f64>().ok())
            .flatten()
    };
    let entry = |stores: &mut Vec<StoreCosts>, store: String| -> usize {
        if let Some(at) = stores
            .iter()
            .position(|c| c.store.eq_ignore_ascii_case(&store))
        {
            at
        } else {
            stores.push(StoreCosts {
                store,
                shipping_cents: None,
                sales_tax_percent: None,
            });
            stores.len() - 1
        }
    };
    for (store, amount) in per_store(params, "store_shipping", read_shipping, "an amount")? {
        let at = entry(&mut settings.stores, store);
        settings.stores[at].shipping_cents = Some(cents(amount));
    }
    for (store, tax) in per_store(params, "store_tax", read_tax, "a percentage from 0 to 100")? {
        let at = entry(&mut settings.stores, store);
        settings.stores[at].sales_tax_percent = Some(tax);
    }
    settings
        .defaults
        .retain(|name| !given.contains(&name.as_str()));
    Ok(settings)
}

/// The whole query, checked.
fn query(params: &Params, caller: &Caller) -> Result<FlipQuery, ApiError> {
    use super::catalogue::MAX_PAGE;
    Ok(FlipQuery {
        page: params.number("page", 1, MAX_PAGE)?,
        limit: params.number("limit", DEFAULT_FLIPS_LIMIT, MAX_FLIPS_LIMIT)?,
        min_profit_cents: number(params, "min_profit", -MAX_AMOUNT, MAX_AMOUNT)?.map(cents),
        min_roi: number(params, "min_roi", -1.0, MAX_ROI)?,
        sizes: repeated(params, "size", MAX_SIZE_CHARS)?
            .into_iter()
            .map(|size| {
                // A size no US size can be read from matches no row.
                crate::service::storefront::offers::us_size(&size).unwrap_or(size)
            })
            .collect(),
        stores: repeated(params, "store", MAX_STORE_CHARS)?,
        brands: repeated(params, "brand", MAX_BRAND_CHARS)?,
        settings: settings(params)?,
        countries: caller.tier.countries(),
        scan: scan(params)?,
    })
}

/// `scan`: `now` or `planned`, absent for none.
fn scan(params: &Params) -> Result<Option<FlipScan>, ApiError> {
    match params.raw("scan") {
        None => Ok(None),
        Some("now") => Ok(Some(FlipScan::Now)),
        Some("planned") => Ok(Some(FlipScan::Planned)),
        Some(other) => Err(ApiError::BadRequest(format!(
            "scan must be now or planned, not {:?}",
            truncate(other, 40)
        ))),
    }
}

/// `GET /api/v2/flips`: the sizes in stock at the stores that pay after fees, most profit first.
#[utoipa::path(get, path = "/api/v2/flips", tag = "v2",
    params(
        ("page" = Option<u32>, Query, description = "Page, from 1"),
        ("limit" = Option<u32>, Query, description = "Rows per page (50 by default)"),
        ("min_profit" = Option<f64>, Query, description = "Rows with at least this profit, in major units of the row's currency (25.50); negative to see losses too. Default: rows that pay (above 0)"),
        ("min_roi" = Option<f64>, Query, description = "Rows with at least this return on the buy cost (0.2 = 20 %)"),
        ("size" = Option<Vec<String>>, Query, description = "Only these US sizes (9, 9.5), repeated for several: my sizes"),
        ("store" = Option<Vec<String>>, Query, description = "Only these stores (host or address; `retailer-a` for the simulator), repeated for several"),
        ("brand" = Option<Vec<String>>, Query, description = "Only these brands (any case), repeated for several"),
        ("seller_level" = Option<u32>, Query, description = "Your seller level at the largest marketplace, 1 to 5: commission 9 % at level 1 down to 7 % at 5, plus 3 % processing (default 1)"),
        ("fee_commission" = Option<f64>, Query, description = "Commission at the marketplace, percent (overrides the seller level's)"),
        ("fee_processing" = Option<f64>, Query, description = "Payment processing at the marketplace, percent (default 3)"),
        ("fee_fixed" = Option<f64>, Query, description = "Flat fee per sale at the marketplace, major units (default 0)"),
        ("shipping" = Option<f64>, Query, description = "Shipping per pair from a store, major units of its currency (default 10.00)"),
        ("tax" = Option<f64>, Query, description = "Sales tax at US-dollar stores, percent of the price (default 7.5; other currencies include VAT: 0)"),
        ("store_shipping" = Option<Vec<String>>, Query, description = "One store's own shipping: store:amount (kith.com:0), repeated"),
        ("store_tax" = Option<Vec<String>>, Query, description = "One store's own sales tax: store:percent (kith.com:8.875), repeated"),
        ("thin_below" = Option<u32>, Query, description = "A size with fewer sales than this in its window is a thin market (default 5)"),
        ("scan" = Option<String>, Query, description = "For a caller that plans the price scans from the monthly budget (the alert monitor): `now` prices every style code in stock now (one batched call per 50 codes per market), `planned` only says scans are planned; either way the service runs no price scan of its own for 15 minutes. Absent: the service paces its own scans"),
    ),
    responses((status = 200, body = V2Envelope<FlipsAnswer>, description = "A page of the list in hand (`building` while the first is made): each row with its buy cost, sell price, fees, payout, profit and ROI in cents of its currency, the inputs beside them with their sources and ages; the stores and markets scanned; the sizes that gave no row, by why"),
        (status = 400, body = V2Envelope<serde_json::Value>), (status = 401, body = V2Envelope<serde_json::Value>)),
    security(("api_key" = [])))]
pub(crate) async fn flips(
    State(state): State<Arc<ServiceState>>,
    Extension(caller): Extension<Caller>,
    Query(params): Query<Params>,
) -> Result<Json<V2Envelope<FlipsAnswer>>, ApiError> {
    let query = query(&params, &caller)?;
    Ok(Json(V2Envelope::success(state.flips().answer(&query))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Tier;

    fn params(pairs: &[(&str, &str)]) -> Params {
        Params(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    fn caller() -> Caller {
        Caller {
            tier: Tier::Free,
            key_id: String::new(),
        }
    }

    #[test]
    fn the_users_costs_and_fees_travel_with_the_request() {
        let query = query(
            &params(&[
                ("seller_level", "3"),
                ("shipping", "12.5"),
                ("store_shipping", "https://kith.com:0"),
                ("store_tax", "kith.com:8.875"),
                ("size", "US 9.5"),
                ("min_profit", "-20"),
            ]),
            &caller(),
        )
        .unwrap();
        let settings = &query.settings;
        assert_eq!(settings.fees, FeeSchedule::seller_level(3));
        assert_eq!(settings.shipping_cents, 1_250);
        assert_eq!(settings.stores.len(), 2);
        assert_eq!(settings.stores[0].store, "https://kith.com");
        assert_eq!(settings.stores[0].shipping_cents, Some(0));
        assert_eq!(settings.stores[1].sales_tax_percent, Some(8.875));
        assert_eq!(settings.defaults, ["fees", "sales_tax", "thin_below"]);
        assert_eq!(query.sizes, ["9.5"]);
        assert_eq!(query.min_profit_cents, Some(-2_000));
        // A free key sees the US market only.
        assert_eq!(query.countries, [crate::model::Country::Us]);
    }

    #[test]
    fn bad_values_are_refused_naming_the_parameter() {
        for (name, value) in [
            ("seller_level", "6"),
            ("seller_level", ""),
            ("min_profit", "lots"),
            ("min_profit", "NaN"),
            ("min_profit", "2000000"),
            ("fee_commission", "101"),
            ("tax", "-1"),
            ("limit", "101"),
            ("store_tax", "kith.com:101"),
            ("store_tax", "kith.com:099"),
            ("store_tax", "kith.com:100.5"),
            ("store_shipping", "kith.com"),
            ("store_shipping", "kith.com:5."),
            ("size", " "),
            ("thin_below", "-1"),
            ("scan", "later"),
        ] {
            let err = query(&params(&[(name, value)]), &caller()).unwrap_err();
            assert!(
                matches!(&err, ApiError::BadRequest(m) if m.contains(name)),
                "{name}={value:?}: {err:?}"
            );
        }
    }
}
