//! KicksDB's answers in the interface's terms: one function per shape, each field mapped or
//! left empty (never invented). The mapping table of docs/kicksdb.md says the same in prose.

use std::collections::BTreeMap;

use super::wire::{
    GoatRealtimeProduct, ProductSale, RelatedItem, SnkrsProduct, StockxProduct, StockxRelatedNode,
    Trait,
};
use crate::catalogue::mirror::{MirrorProduct, MirrorVariant, MirrorWeek};
use crate::model::releases::{Mechanics, SizeStock, method_from_code};
use crate::model::{
    Amount, LocalizedPrice, Market, MarketState, Media, ResaleAProduct, ResaleBNode,
    SalesInformation, SizeOption,
};
use crate::service::source::Launch;

/// Whole units of a currency to cents.
fn cents(units: i64) -> i64 {
    units.saturating_mul(100)
}

/// A trait's value as text (numbers arrive as numbers or strings).
fn trait_text(traits: &[Trait], name: &str) -> Option<String> {
    let found = traits.iter().find(|t| t.name.eq_ignore_ascii_case(name))?;
    let text = match &found.value {
        serde_json::Value::String(text) => text.trim().to_owned(),
        serde_json::Value::Number(number) => number.to_string(),
        _ => return None,
    };
    (!text.is_empty() && text != "--").then_some(text)
}

/// `"$180"`, `"180.00"`, `180` -> 18000 cents.
fn money_cents(text: &str) -> Option<i64> {
    let cleaned: String = text
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let value: f64 = cleaned.parse().ok()?;
    (value > 0.0 && value.is_finite()).then(|| (value * 100.0).round() as i64)
}

/// `2015-05-30`, `2015-05-30T00:00:00Z`, `20150530` -> `2015-05-30`; anything else empty.
fn release_date(text: &str) -> String {
    let text = text.trim();
    let date = if text.len() == 8 && text.bytes().all(|b| b.is_ascii_digit()) {
        chrono::NaiveDate::parse_from_str(text, "%Y%m%d").ok()
    } else {
        text.get(..10)
            .and_then(|day| chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok())
    };
    date.map(|d| d.format("%Y-%m-%d").to_string())
        .unwrap_or_default()
}

/// The age group the catalogue uses for a StockX gender (`child`, `preschool`, `toddler`...);
/// empty when the gender does not say.
fn age_group(gender: &str) -> &'static str {
    match gender.to_ascii_lowercase().as_str() {
        "men" | "women" | "unisex" => "adult",
        "child" | "youth" | "big kids" | "preschool" | "little kids" => "kids",
        "toddler" | "infant" | "baby" => "infant",
        _ => "",
    }
}

/// The StockX product (priced in the market asked for) as a mirror row.
///
/// - `min/avg/max` come from the sizes' lowest asks when sizes came, else from the product's
///   own `min_price`/`avg_price`/`max_price`; a size without an ask (0 or absent) has price 0,
///   shown as "no price".
/// - Retail price, release date and colorway come from `traits` (paid plans); absent there,
///   they stay empty.
/// - The style code, barcodes, sizes and asks are taken as they are.
#[must_use]
pub fn mirror_product_from_stockx(product: &StockxProduct) -> MirrorProduct {
    let traits = product.traits.as_deref().unwrap_or_default();
    let variants: Vec<MirrorVariant> = product
        .shown_variants()
        .filter_map(|v| {
            let id = uuid::Uuid::parse_str(&v.id).ok()?;
            let gtin = v
                .identifiers
                .as_deref()
                .unwrap_or_default()
                .iter()
                .find(|i| !i.identifier.trim().is_empty())
                .map(|i| i.identifier.trim().to_owned());
            Some((
                v.position,
                MirrorVariant {
                    id,
                    size: v.size.clone(),
                    gtin,
                    price_cents: cents(v.lowest_ask.unwrap_or(0).max(0)),
                    asks: v.total_asks,
                },
            ))
        })
        .collect::<BTreeMap<_, _>>()
        .into_values()
        .collect();
    let priced: Vec<i64> = variants
        .iter()
        .map(|v| v.price_cents)
        .filter(|c| *c > 0)
        .collect();
    let (min_cents, avg_cents, max_cents) = if priced.is_empty() {
        (
            cents(product.min_price.unwrap_or(0).max(0)),
            product
                .avg_price
                .filter(|p| p.is_finite() && *p > 0.0)
                .map_or(0, |p| (p * 100.0).round() as i64),
            cents(product.max_price.unwrap_or(0).max(0)),
        )
    } else {
        (
            priced.iter().copied().min().unwrap_or(0),
            priced.iter().sum::<i64>() / priced.len() as i64,
            priced.iter().copied().max().unwrap_or(0),
        )
    };
    let availability = match (variants.is_empty(), priced.is_empty()) {
        (true, _) => "",
        (false, true) => "out of stock",
        (false, false) => "in stock",
    };
    let currency = product
        .variants
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|v| v.currency.trim())
        .find(|c| !c.is_empty())
        .unwrap_or("USD")
        .to_ascii_uppercase();
    let mut crumbs: Vec<_> = product.breadcrumbs.iter().collect();
    crumbs.sort_by_key(|b| b.level);
    let category = if crumbs.is_empty() {
        product.category.clone()
    } else {
        crumbs
            .iter()
            .map(|b| b.value.as_str())
            .collect::<Vec<_>>()
            .join(" > ")
    };
    MirrorProduct {
        id: product.id.to_ascii_lowercase(),
        slug: product.slug.clone(),
        sku: product.sku.clone(),
        title: product.title.clone(),
        brand: product.brand.clone(),
        model: product.model.clone(),
        category,
        color: trait_text(traits, "Colorway").unwrap_or_default(),
        gender: product.gender.clone(),
        age_group: age_group(&product.gender).to_owned(),
        size_system: product
            .variants
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|v| v.size_type.trim().to_ascii_uppercase())
            .find(|t| !t.is_empty())
            .unwrap_or_default(),
        availability: availability.to_owned(),
        description: Some(product.description.clone()).filter(|d| !d.trim().is_empty()),
        image: product.image.clone(),
        link: product.link.clone(),
        release_date: trait_text(traits, "Release Date")
            .map(|d| release_date(&d))
            .unwrap_or_default(),
        retail: trait_text(traits, "Retail Price")
            .and_then(|p| money_cents(&p))
            .map(|c| (c, currency)),
        min_cents,
        avg_cents,
        max_cents,
        popularity: product.weekly_orders.unwrap_or(0).max(0),
        variants,
    }
}

/// Daily sales grouped into weeks (Monday 00:00Z): orders summed, GMV the sum of each day's
/// orders times its average (in cents). Newest first, at most 52 weeks; days that do not parse
/// are skipped.
#[must_use]
pub fn weeks_from_daily(days: &[ProductSale]) -> Vec<MirrorWeek> {
    let mut weeks: BTreeMap<i64, (i64, f64)> = BTreeMap::new();
    for day in days {
        let Some(date) = day
            .date
            .get(..10)
            .and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
        else {
            continue;
        };
        if day.orders < 0 || !day.avg_amount.is_finite() || day.avg_amount < 0.0 {
            continue;
        }
        let monday = date
            - chrono::Days::new(u64::from(
                chrono::Datelike::weekday(&date).num_days_from_monday(),
            ));
        let Some(start) = monday.and_hms_opt(0, 0, 0) else {
            continue;
        };
        let entry = weeks.entry(start.and_utc().timestamp()).or_default();
        entry.0 += day.orders;
        entry.1 += day.orders as f64 * day.avg_amount * 100.0;
    }
    weeks
        .into_iter()
        .rev()
        .take(52)
        .map(|(week_start, (orders, gmv_cents))| MirrorWeek {
            week_start,
            orders,
            gmv_cents: gmv_cents.round() as i64,
        })
        .collect()
}

/// The real-time GOAT product as the interface's `resale-a` product, field by field (missing
/// numbers 0, missing text empty).
#[must_use]
pub fn resale_a_from_goat(goat: GoatRealtimeProduct) -> ResaleAProduct {
    let localized = goat
        .localized_special_display_price_cents
        .unwrap_or_default();
    ResaleAProduct {
        id: goat.id.unwrap_or(0),
        name: goat.name,
        nickname: goat.nickname,
        slug: goat.slug,
        sku: goat.sku,
        brand_name: goat.brand_name,
        designer: goat.designer,
        details: goat.details,
        color: goat.color,
        silhouette: goat.silhouette,
        midsole: goat.midsole,
        upper_material: goat.upper_material,
        season: goat.season,
        category: goat.category,
        gender: goat.gender,
        single_gender: goat.single_gender,
        product_category: goat.product_category,
        product_type: goat.product_type,
        product_taxonomy: goat.product_taxonomy,
        special_type: goat.special_type,
        status: goat.status,
        release_date: goat.release_date,
        story: goat.story,
        story_html: goat.story_html,
        internal_shot: goat.internal_shot,
        size_brand: goat.size_brand,
        size_type: goat.size_type,
        size_unit: goat.size_unit,
        size_options: goat
            .size_options
            .into_iter()
            .map(|o| SizeOption {
                presentation: o.presentation,
                value: o.value,
            })
            .collect(),
        size_range: goat.size_range,
        available_sizes_new: goat.available_sizes_new,
        available_sizes_new_v2: goat.available_sizes_new_v2,
        available_sizes_new_with_defects: goat.available_sizes_new_with_defects,
        available_sizes_used: goat.available_sizes_used,
        featured_in: goat.featured_in,
        robot_assets: goat.robot_assets,
        grid_picture_url: goat.grid_picture_url,
        grid_glow_picture_url: goat.grid_glow_picture_url,
        main_picture_url: goat.main_picture_url,
        main_glow_picture_url: goat.main_glow_picture_url,
        picture_url: goat.picture_url,
        wallet_pay_only_promo: goat.wallet_pay_only_promo,
        direct_shipping: goat.direct_shipping,
        for_auction: goat.for_auction,
        is_availability_restricted: goat.is_availability_restricted,
        is_fashion_product: goat.is_fashion_product,
        is_offerable: goat.is_offerable,
        is_ownable: goat.is_ownable,
        is_raffle_product: goat.is_raffle_product,
        is_resellable: goat.is_resellable,
        is_wantable: goat.is_wantable,
        render_images_in_order: goat.render_images_in_order,
        lowest_price_cents: goat.lowest_price_cents.unwrap_or(0),
        new_lowest_price_cents: goat.new_lowest_price_cents.unwrap_or(0),
        used_lowest_price_cents: goat.used_lowest_price_cents.unwrap_or(0),
        special_display_price_cents: goat.special_display_price_cents.unwrap_or(0),
        maximum_offer_cents: goat.maximum_offer_cents.unwrap_or(0),
        minimum_offer_cents: goat.minimum_offer_cents.unwrap_or(0),
        selling_count: goat.selling_count.unwrap_or(0),
        used_for_sale_count: goat.used_for_sale_count.unwrap_or(0),
        with_defect_for_sale_count: goat.with_defect_for_sale_count.unwrap_or(0),
        microposts_count: goat.microposts_count.unwrap_or(0),
        localized_special_display_price_cents: LocalizedPrice {
            amount: localized.amount,
            amount_usd_cents: localized.amount_usd_cents,
            currency: localized.currency,
        },
    }
}

/// A related product of the real-time StockX answer as the interface's `resale-b` node.
#[must_use]
pub fn resale_b_from_stockx(item: RelatedItem) -> ResaleBNode {
    let node: StockxRelatedNode = match item {
        RelatedItem::Edge { node } | RelatedItem::Node(node) => node,
    };
    let amount = |a: Option<super::wire::RelatedAmount>| Amount {
        amount: a.and_then(|a| a.amount).unwrap_or(0.0),
    };
    ResaleBNode {
        id: node.id,
        brand: node.brand,
        title: node.title,
        primary_title: node.primary_title,
        secondary_title: node.secondary_title,
        product_category: node.product_category,
        listing_type: node.listing_type,
        url_key: node.url_key,
        media: Media {
            thumb_url: node.media.thumb_url,
        },
        market: Market {
            sales_information: SalesInformation {
                last_sale: node.market.sales_information.last_sale.unwrap_or(0.0),
                sales_last_72_hours: node
                    .market
                    .sales_information
                    .sales_last_72_hours
                    .unwrap_or(0),
            },
            state: MarketState {
                highest_bid: amount(node.market.state.highest_bid),
                lowest_ask: amount(node.market.state.lowest_ask),
                number_of_asks: node.market.state.number_of_asks.unwrap_or(0),
                number_of_bids: node.market.state.number_of_bids.unwrap_or(0),
            },
        },
    }
}

/// An ISO 8601 time as UTC: with its offset, or, written without one, taken as UTC.
fn utc_time(text: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    let text = text.trim();
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&chrono::Utc))
        .ok()
        .or_else(|| {
            chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
                .ok()
                .map(|t| t.and_utc())
        })
}

/// The first picture of a SNKRS product: a URL, or an object's `url` or `src`.
fn first_image(images: &[serde_json::Value]) -> String {
    images
        .iter()
        .find_map(|image| match image {
            serde_json::Value::String(url) => Some(url.trim().to_owned()),
            serde_json::Value::Object(map) => map
                .get("url")
                .or_else(|| map.get("src"))
                .and_then(serde_json::Value::as_str)
                .map(|url| url.trim().to_owned()),
            _ => None,
        })
        .filter(|url| !url.is_empty())
        .unwrap_or_default()
}

/// A SNKRS product as a coming launch, read at `read_at` (RFC 3339):
///
/// - the launch is the earliest of its `launches[]` with a readable `start_date` (its method,
///   start and invitation rule); with none, `commerce_start_date` with no method; with neither
///   time, no launch (`None`), since a calendar entry needs a time;
/// - apparel (`product_type` other than `FOOTWEAR`, when given) is no sneaker launch: `None`;
/// - the title is `title` and the colorway (`subtitle`) in quotes;
/// - sizes are `variants[]` as listed (US size, local size and type, stock level), a size
///   available when the source says so, else when its stock level is not `OOS`;
/// - the link is the product's SNKRS page (`https://www.nike.com/launch/t/<slug>`, the public
///   address SNKRS products have), empty without a slug.
#[must_use]
pub fn launch_from_snkrs(product: &SnkrsProduct, read_at: &str) -> Option<Launch> {
    let kind = product.product_type.trim();
    if !kind.is_empty() && !kind.eq_ignore_ascii_case("FOOTWEAR") {
        return None;
    }
    let launch = product
        .launches
        .iter()
        .filter_map(|launch| Some((utc_time(&launch.start_date)?, launch)))
        .min_by_key(|(at, _)| *at);
    let (starts_at, method_code, invitation_only) = match launch {
        Some((at, launch)) => (
            at,
            launch.launch_method.trim().to_ascii_uppercase(),
            launch.invitation_only.unwrap_or(false),
        ),
        None => (
            utc_time(&product.commerce_start_date)?,
            String::new(),
            false,
        ),
    };
    let subtitle = product.subtitle.trim();
    let title = if subtitle.is_empty() || product.title.contains(subtitle) {
        product.title.trim().to_owned()
    } else {
        format!("{} '{subtitle}'", product.title.trim())
    };
    let sizes = product
        .variants
        .iter()
        .filter(|v| !v.original_size.is_empty() || !v.local_size.is_empty())
        .map(|v| {
            let stock_level = v.stock_level.trim().to_ascii_uppercase();
            SizeStock {
                size: if v.original_size.is_empty() {
                    v.local_size.clone()
                } else {
                    v.original_size.clone()
                },
                local_size: v.local_size.clone(),
                size_type: v.local_size_type.trim().to_ascii_uppercase(),
                available: v
                    .available
                    .unwrap_or(stock_level != "OOS" && !stock_level.is_empty()),
                stock_level,
            }
        })
        .collect();
    let slug = product.slug.trim();
    Some(Launch {
        title,
        style_codes: product
            .skus
            .iter()
            .map(|code| code.trim().to_owned())
            .filter(|code| !code.is_empty())
            .collect(),
        image: first_image(&product.images),
        link: if slug.is_empty() {
            String::new()
        } else {
            format!("https://www.nike.com/launch/t/{slug}")
        },
        mechanics: Mechanics {
            source: "snkrs".to_owned(),
            method: if method_code.is_empty() {
                String::new()
            } else {
                method_from_code(&method_code)
            },
            method_code,
            starts_at: starts_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            msrp: product.msrp.filter(|m| *m > 0.0),
            currency: product.currency.trim().to_ascii_uppercase(),
            country: product.country.trim().to_ascii_uppercase(),
            quantity_limit: product
                .quantity_limit
                .filter(|q| *q >= 1.0 && *q <= f64::from(u32::MAX))
                .map(|q| q as u32),
            exclusive_access: product.exclusive_access.unwrap_or(false),
            invitation_only,
            sizes,
            read_at: read_at.to_owned(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snkrs(json: serde_json::Value) -> SnkrsProduct {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_snkrs_product_maps_field_by_field() {
        let product = snkrs(serde_json::json!({
            "id": "a1b2", "slug": "air-jordan-4-military-blue-fv5029-141",
            "title": "Air Jordan 4", "subtitle": "Military Blue",
            "skus": ["FV5029-141", " "], "country": "us", "currency": "usd",
            "msrp": "215.00", "price": 215, "product_type": "FOOTWEAR", "status": "ACTIVE",
            "available": true, "exclusive_access": true, "quantity_limit": 1,
            "commerce_start_date": "2026-12-05T15:00:00.000Z",
            "images": [{"url": "https://img.example/aj4.jpg"}],
            "launches": [
                {"launch_method": "DAN", "start_date": "2026-12-06T15:00:00Z", "invitation_only": false},
                {"launch_method": "leo", "start_date": "2026-12-05T10:00:00-05:00", "invitation_only": true}
            ],
            "variants": [
                {"original_size": "9", "local_size": "9", "local_size_type": "m", "gtin": "1", "available": true, "stock_level": "high", "method": "LEO"},
                {"original_size": 9.5, "local_size": "9.5", "local_size_type": "M", "gtin": "2", "stock_level": "OOS"}
            ]
        }));
        let launch = launch_from_snkrs(&product, "2026-12-01T08:00:00Z").unwrap();
        assert_eq!(launch.title, "Air Jordan 4 'Military Blue'");
        assert_eq!(launch.style_codes, ["FV5029-141"]);
        assert_eq!(launch.image, "https://img.example/aj4.jpg");
        assert_eq!(
            launch.link,
            "https://www.nike.com/launch/t/air-jordan-4-military-blue-fv5029-141"
        );
        let m = &launch.mechanics;
        // The earliest launch: LEO at 15:00 UTC, invitation only.
        assert_eq!(
            (m.method.as_str(), m.method_code.as_str()),
            ("queue", "LEO")
        );
        assert_eq!(m.starts_at, "2026-12-05T15:00:00Z");
        assert!(m.invitation_only && m.exclusive_access);
        assert_eq!(m.msrp, Some(215.0));
        assert_eq!((m.currency.as_str(), m.country.as_str()), ("USD", "US"));
        assert_eq!(m.quantity_limit, Some(1));
        assert_eq!(m.sizes.len(), 2);
        assert_eq!(
            (m.sizes[0].size.as_str(), m.sizes[0].size_type.as_str()),
            ("9", "M")
        );
        assert_eq!(m.sizes[0].stock_level, "HIGH");
        assert!(m.sizes[0].available);
        assert_eq!(m.sizes[1].size, "9.5");
        assert!(!m.sizes[1].available);
        assert_eq!(m.read_at, "2026-12-01T08:00:00Z");
    }

    #[test]
    fn launches_without_a_time_apparel_and_no_launch_list() {
        let apparel = snkrs(serde_json::json!({
            "title": "Tee", "product_type": "APPAREL",
            "launches": [{"launch_method": "FLOW", "start_date": "2026-12-05T15:00:00Z"}]
        }));
        assert!(launch_from_snkrs(&apparel, "").is_none());
        let timeless = snkrs(serde_json::json!({"title": "Dunk", "launches": []}));
        assert!(launch_from_snkrs(&timeless, "").is_none());
        let commerce = snkrs(serde_json::json!({
            "title": "Dunk Low", "skus": ["DD1391-100"],
            "commerce_start_date": "2026-12-05T15:00:00", "quantity_limit": "0"
        }));
        let launch = launch_from_snkrs(&commerce, "").unwrap();
        assert_eq!(launch.mechanics.method, "");
        assert_eq!(launch.mechanics.starts_at, "2026-12-05T15:00:00Z");
        assert_eq!(launch.mechanics.quantity_limit, None);
        assert!(launch.link.is_empty());
    }
}
