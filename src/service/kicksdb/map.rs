//! KicksDB's answers in the interface's terms: one function per shape, each field mapped or
//! left empty (never invented). The mapping table of docs/kicksdb.md says the same in prose.

use std::collections::BTreeMap;

use super::wire::{
    GoatRealtimeProduct, ProductSale, RelatedItem, StockxProduct, StockxRelatedNode, Trait,
};
use crate::catalogue::mirror::{MirrorProduct, MirrorVariant, MirrorWeek};
use crate::model::{
    Amount, LocalizedPrice, Market, MarketState, Media, ResaleAProduct, ResaleBNode,
    SalesInformation, SizeOption,
};

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
        .variants
        .as_deref()
        .unwrap_or_default()
        .iter()
        .filter(|v| !v.hidden)
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
