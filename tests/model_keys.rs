//! Wire-shape tests of `solescope::model`: every type from the specification
//! serializes to exactly the keys written in the specification tables, with the
//! JSON types the specification names, and round-trips through JSON.

mod common;

use std::collections::BTreeSet;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use solescope::model::*;

/// Serializes `value`, checks its top-level keys equal `expected` exactly,
/// checks it deserializes back to an equal value, and returns the JSON.
fn check<T>(value: &T, expected: &[&str]) -> Value
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_value(value).expect("serializes");
    let actual: BTreeSet<&str> = json
        .as_object()
        .expect("serializes to a JSON object")
        .keys()
        .map(String::as_str)
        .collect();
    let wanted: BTreeSet<&str> = expected.iter().copied().collect();
    assert_eq!(
        wanted.len(),
        expected.len(),
        "duplicate key in the expected list"
    );
    assert_eq!(actual, wanted, "keys of {}", std::any::type_name::<T>());
    let back: T = serde_json::from_value(json.clone()).expect("deserializes");
    assert_eq!(&back, value, "round trip of {}", std::any::type_name::<T>());
    json
}

// ---- samples -------------------------------------------------------------

const PRODUCT_ID: &str = "3f1e2a6c-8b0d-4c57-9a61-2d7b5e0c9f14";
const TITLE: &str = "Air Jordan 1 Retro High OG 'Chicago Lost and Found'";
const SKU: &str = "DZ5485-612";
const SLUG: &str = "air-jordan-1-retro-high-og-chicago-lost-and-found";

fn search_variant() -> SearchVariant {
    SearchVariant {
        gtin: Some("196153879826".to_owned()),
        variant_link: format!("https://example.invalid/{SLUG}?size=10"),
        price: 389.0,
        size: "10".to_owned(),
        variant_id: "9b2c4d1e-7f3a-4e8b-b5c6-0a1d2e3f4a5b".to_owned(),
    }
}

fn search_hit() -> SearchHit {
    SearchHit {
        age_group: "adult".to_owned(),
        availability: "in_stock".to_owned(),
        avg_price: 402.5,
        base_price: 180.0,
        brand: "Jordan".to_owned(),
        category: "Sneakers > Basketball > Jordan 1".to_owned(),
        color: "Varsity Red/Black/Sail/Muslin".to_owned(),
        condition: "new".to_owned(),
        currency: "USD".to_owned(),
        description: Some(
            "The Air Jordan 1 Retro High OG 'Lost and Found' revisits the 1985 Chicago colourway."
                .to_owned(),
        ),
        gender: "men".to_owned(),
        id: PRODUCT_ID.to_owned(),
        image: format!("https://images.example.invalid/{SKU}.jpg"),
        inserted_at: "2024-02-11T08:30:00Z".to_owned(),
        retail_price: "180.00".to_owned(),
        release_date: "2022-11-19".to_owned(),
        is_bundle: false,
        labels: vec!["trending".to_owned(), "retro".to_owned()],
        link: format!("https://example.invalid/{SLUG}"),
        max_price: 512.0,
        min_price: 351.0,
        size_system: "US".to_owned(),
        sku: SKU.to_owned(),
        slug: SLUG.to_owned(),
        title: TITLE.to_owned(),
        variants: vec![
            search_variant(),
            SearchVariant {
                gtin: None,
                variant_link: format!("https://example.invalid/{SLUG}?size=10.5"),
                price: 402.0,
                size: "10.5".to_owned(),
                variant_id: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f".to_owned(),
            },
        ],
    }
}

fn release_date() -> ReleaseDate {
    ReleaseDate {
        sku: SKU.to_owned(),
        release_date: "2022-11-19".to_owned(),
        source: "resale_b_yyyy_mm_dd".to_owned(),
    }
}

fn retail_price() -> RetailPrice {
    RetailPrice {
        sku: SKU.to_owned(),
        price: 180.0,
        currency: "USD".to_owned(),
        source: "srp".to_owned(),
    }
}

fn link() -> Link {
    Link {
        link: format!("https://resale-b.example.invalid/{SLUG}"),
        target: "resale_b".to_owned(),
        min_price: 351.0,
    }
}

fn variant() -> Variant {
    Variant {
        id: "9b2c4d1e-7f3a-4e8b-b5c6-0a1d2e3f4a5b".to_owned(),
        product_id: PRODUCT_ID.to_owned(),
        sku: SKU.to_owned(),
        title: TITLE.to_owned(),
        description: "Size US 10".to_owned(),
        brand: "Jordan".to_owned(),
        category: "Sneakers > Basketball > Jordan 1".to_owned(),
        color: "Varsity Red/Black/Sail/Muslin".to_owned(),
        gender: "men".to_owned(),
        gtin: "196153879826".to_owned(),
        size: "10".to_owned(),
        link: format!("https://resale-b.example.invalid/{SLUG}?size=10"),
        image: format!("https://images.example.invalid/{SKU}.jpg"),
        price: 389.0,
        currency: "USD".to_owned(),
        tags: vec!["jordan-1".to_owned(), "high".to_owned()],
        metadata: VariantMetadata {
            category: "sneakers".to_owned(),
            model: "Air Jordan 1".to_owned(),
        },
        source: "resale_b".to_owned(),
        asks: None,
    }
}

fn product() -> Product {
    Product {
        id: PRODUCT_ID.to_owned(),
        slug: SLUG.to_owned(),
        sku: SKU.to_owned(),
        title: TITLE.to_owned(),
        brand: "Jordan".to_owned(),
        category: "Sneakers > Basketball > Jordan 1".to_owned(),
        color: "Varsity Red/Black/Sail/Muslin".to_owned(),
        gender: "men".to_owned(),
        description: "Vintage-look leather.<br>Cracked collar finish.".to_owned(),
        image: format!("https://images.example.invalid/{SKU}.jpg"),
        images: None,
        currency: "USD".to_owned(),
        avg_price: 402.5,
        min_price: 351.0,
        max_price: 512.0,
        trending: true,
        release_dates: Some(vec![
            release_date(),
            ReleaseDate {
                sku: SKU.to_owned(),
                release_date: "2022".to_owned(),
                source: "resale_b_yyyy".to_owned(),
            },
        ]),
        retail_prices: Some(vec![retail_price()]),
        links: vec![link()],
        variants: vec![variant()],
    }
}

fn weekly_order() -> WeeklyOrder {
    WeeklyOrder {
        position: Some(3),
        orders: 1_284,
        aov: 398.75,
        gmv: 511_995.0,
        inserted_at: "2025-03-03T00:00:00Z".to_owned(),
    }
}

fn localized_price() -> LocalizedPrice {
    LocalizedPrice {
        amount: 35_900,
        amount_usd_cents: 35_900,
        currency: "USD".to_owned(),
    }
}

fn resale_a_product() -> ResaleAProduct {
    ResaleAProduct {
        id: 1_018_234,
        name: TITLE.to_owned(),
        nickname: "Chicago Lost and Found".to_owned(),
        slug: SLUG.to_owned(),
        sku: "DZ5485 612".to_owned(),
        brand_name: "Air Jordan".to_owned(),
        designer: "Peter Moore".to_owned(),
        details: "Varsity Red/Black/Sail/Muslin".to_owned(),
        color: "Red".to_owned(),
        silhouette: "Air Jordan 1".to_owned(),
        midsole: "Air".to_owned(),
        upper_material: "Leather".to_owned(),
        season: "Holiday 2022".to_owned(),
        category: vec!["lifestyle".to_owned(), "basketball".to_owned()],
        gender: vec!["men".to_owned()],
        single_gender: "men".to_owned(),
        product_category: "shoes".to_owned(),
        product_type: "sneakers".to_owned(),
        product_taxonomy: vec![],
        special_type: "standard".to_owned(),
        status: "active".to_owned(),
        release_date: "2022-11-19T23:59:59.000Z".to_owned(),
        story: "Inspired by a pair found in a shoe store's back room.".to_owned(),
        story_html: "<p>Inspired by a pair found in a shoe store's back room.</p>".to_owned(),
        internal_shot: "taken".to_owned(),
        size_brand: "air_jordan".to_owned(),
        size_type: "men".to_owned(),
        size_unit: "us".to_owned(),
        size_options: vec![
            SizeOption {
                presentation: "10".to_owned(),
                value: 10.0,
            },
            SizeOption {
                presentation: "10.5".to_owned(),
                value: 10.5,
            },
        ],
        size_range: vec![7.0, 7.5, 8.0, 10.0, 10.5, 13.0],
        available_sizes_new: vec![],
        available_sizes_new_v2: vec![],
        available_sizes_new_with_defects: vec![],
        available_sizes_used: vec![],
        featured_in: vec![],
        robot_assets: vec![],
        grid_picture_url: "https://img.resale-a.example.invalid/grid.png".to_owned(),
        grid_glow_picture_url: "https://img.resale-a.example.invalid/grid-glow.png".to_owned(),
        main_picture_url: "https://img.resale-a.example.invalid/main.png".to_owned(),
        main_glow_picture_url: "https://img.resale-a.example.invalid/main-glow.png".to_owned(),
        picture_url: "https://img.resale-a.example.invalid/picture.png".to_owned(),
        wallet_pay_only_promo: false,
        direct_shipping: true,
        for_auction: false,
        is_availability_restricted: false,
        is_fashion_product: false,
        is_offerable: true,
        is_ownable: true,
        is_raffle_product: false,
        is_resellable: true,
        is_wantable: true,
        render_images_in_order: false,
        lowest_price_cents: 35_900,
        new_lowest_price_cents: 35_900,
        used_lowest_price_cents: 24_000,
        special_display_price_cents: 35_900,
        maximum_offer_cents: 500_000,
        minimum_offer_cents: 2_500,
        selling_count: 412,
        used_for_sale_count: 17,
        with_defect_for_sale_count: 3,
        microposts_count: 0,
        localized_special_display_price_cents: localized_price(),
    }
}

fn resale_b_node() -> ResaleBNode {
    ResaleBNode {
        id: "5e0c7a2b-6d41-4f3e-8a9b-1c2d3e4f5a6b".to_owned(),
        brand: "Jordan".to_owned(),
        title: "Jordan 1 Retro High OG Chicago Reimagined".to_owned(),
        primary_title: "Jordan 1 Retro High OG".to_owned(),
        secondary_title: "Chicago Reimagined".to_owned(),
        product_category: "sneakers".to_owned(),
        listing_type: "STANDARD".to_owned(),
        url_key: "air-jordan-1-retro-high-og-chicago-reimagined".to_owned(),
        media: Media {
            thumb_url: "https://images.resale-b.example.invalid/thumb.jpg".to_owned(),
        },
        market: Market {
            sales_information: SalesInformation {
                last_sale: 371.0,
                sales_last_72_hours: 58,
            },
            state: MarketState {
                highest_bid: Amount { amount: 340.0 },
                lowest_ask: Amount { amount: 365.0 },
                number_of_asks: 1_203,
                number_of_bids: 874,
            },
        },
    }
}

fn retailer_variant() -> RetailerVariant {
    RetailerVariant {
        id: "gid://<platform>/ProductVariant/44012345678901".to_owned(),
        size: "US 10 / UK 9 / EU 44".to_owned(),
        price: 180.0,
        currency: "USD".to_owned(),
        barcode: "196153879826".to_owned(),
        barcode_type: "UPC".to_owned(),
        available: true,
        updated_at: "2025-03-05T14:21:07.123456Z".to_owned(),
    }
}

fn retailer_product() -> RetailerProduct {
    RetailerProduct {
        id: "gid://<platform>/Product/8123456789012".to_owned(),
        title: TITLE.to_owned(),
        slug: SLUG.to_owned(),
        product_type: "Sneakers".to_owned(),
        brand: "Jordan".to_owned(),
        description: "<p>Vintage-look leather upper.</p>".to_owned(),
        sku: SKU.to_owned(),
        images: vec![
            "https://cdn.retailer-a.example.invalid/1.jpg".to_owned(),
            "https://cdn.retailer-a.example.invalid/2.jpg".to_owned(),
        ],
        colorway: "Varsity Red/Black/Sail/Muslin".to_owned(),
        release_date: "2022-11-19".to_owned(),
        updated_at: "2025-03-05T14:21:07.123456Z".to_owned(),
        variants: vec![
            retailer_variant(),
            RetailerVariant {
                id: "gid://<platform>/ProductVariant/44012345678902".to_owned(),
                size: "US 14 / UK 13 / EU 48.5".to_owned(),
                price: 0.0,
                currency: "USD".to_owned(),
                barcode: String::new(),
                barcode_type: String::new(),
                available: false,
                updated_at: "2025-03-05T14:21:07.123456Z".to_owned(),
            },
        ],
    }
}

// ---- search --------------------------------------------------------------

#[test]
fn search_hit_keys_types_and_round_trip() {
    let json = check(
        &search_hit(),
        &[
            "age_group",
            "availability",
            "avg_price",
            "base_price",
            "brand",
            "category",
            "color",
            "condition",
            "currency",
            "description",
            "gender",
            "id",
            "image",
            "inserted_at",
            "retail_price",
            "release_date",
            "is_bundle",
            "labels",
            "link",
            "max_price",
            "min_price",
            "size_system",
            "sku",
            "slug",
            "title",
            "variants",
        ],
    );
    assert_eq!(json["retail_price"], json!("180.00"));
    assert!(json["retail_price"].is_string());
    assert!(json["avg_price"].is_number());
    assert!(json["is_bundle"].is_boolean());
    assert!(json["labels"].is_array());
    assert_eq!(json["title"], json!(TITLE));
    assert_eq!(json["variants"][0]["gtin"], json!("196153879826"));
}

#[test]
fn search_variant_keys_and_round_trip() {
    let json = check(
        &search_variant(),
        &["gtin", "variant_link", "price", "size", "variant_id"],
    );
    assert!(
        json.get("link").is_none(),
        "the field was renamed variant_link"
    );
    assert!(json["price"].is_number());
}

#[test]
fn search_hit_without_description_or_gtin_omits_and_accepts_missing_keys() {
    let mut hit = search_hit();
    hit.description = None;
    for variant in &mut hit.variants {
        variant.gtin = None;
    }
    let json = serde_json::to_value(&hit).unwrap();
    assert!(json.get("description").is_none());
    for variant in json["variants"].as_array().unwrap() {
        assert!(variant.get("gtin").is_none());
        assert!(variant.get("variant_link").is_some());
    }

    // JSON as a server that never sends the keys would write it.
    let mut raw = serde_json::to_value(search_hit()).unwrap();
    raw.as_object_mut().unwrap().remove("description");
    for variant in raw["variants"].as_array_mut().unwrap() {
        variant.as_object_mut().unwrap().remove("gtin");
    }
    let parsed: SearchHit = serde_json::from_value(raw).unwrap();
    assert_eq!(parsed, hit);

    // An empty description is kept as present-but-empty.
    let mut raw = serde_json::to_value(search_hit()).unwrap();
    raw["description"] = json!("");
    let parsed: SearchHit = serde_json::from_value(raw).unwrap();
    assert_eq!(parsed.description.as_deref(), Some(""));
}

#[test]
fn search_response_keys_types_and_round_trip() {
    let response = SearchResponse {
        hits: vec![search_hit()],
        estimated_total_hits: 1000,
        limit: 20,
        processing_time_ms: 4,
        query: "jordan 1 chicago".to_owned(),
    };
    let json = check(
        &response,
        &[
            "hits",
            "estimatedTotalHits",
            "limit",
            "processingTimeMs",
            "query",
        ],
    );
    assert!(json["estimatedTotalHits"].is_u64());
    assert!(json["processingTimeMs"].is_u64());
    assert!(json["limit"].is_u64());
    assert!(json["query"].is_string());
}

#[test]
fn search_tolerates_unknown_fields() {
    let mut raw = serde_json::to_value(search_hit()).unwrap();
    raw["_rankingScore"] = json!(0.93);
    let parsed: SearchHit = serde_json::from_value(raw).unwrap();
    assert_eq!(parsed, search_hit());
}

// ---- v2 ------------------------------------------------------------------

const V2_ENVELOPE_KEYS: &[&str] = &["status", "error", "message", "query", "data", "meta"];

#[test]
fn v2_envelope_keys_types_and_round_trip() {
    let envelope = V2Envelope::success(product());
    let json = check(&envelope, V2_ENVELOPE_KEYS);
    assert_eq!(json["status"], json!("success"));
    assert_eq!(json["error"], json!(""));
    assert_eq!(json["message"], json!(""));
    assert_eq!(json["query"], json!({}));
    assert!(json["meta"].is_null());
    assert!(json["data"].is_object());
}

#[test]
fn v2_envelope_with_array_data() {
    let envelope = V2Envelope::success(vec![weekly_order(), weekly_order()]);
    let json = check(&envelope, V2_ENVELOPE_KEYS);
    assert_eq!(json["data"].as_array().unwrap().len(), 2);
    assert!(json["meta"].is_null());
}

#[test]
fn v2_error_envelope_has_null_data() {
    let envelope = V2Envelope::error("not_found", "no product with id 'nope'");
    let json = check(&envelope, V2_ENVELOPE_KEYS);
    assert_eq!(json["status"], json!("error"));
    assert_eq!(json["error"], json!("not_found"));
    assert_eq!(json["message"], json!("no product with id 'nope'"));
    assert!(json["data"].is_null());
    assert!(json["meta"].is_null());
    assert_eq!(json["query"], json!({}));
}

const PRODUCT_KEYS_FREE: &[&str] = &[
    "id",
    "slug",
    "sku",
    "title",
    "brand",
    "category",
    "color",
    "gender",
    "description",
    "image",
    "images",
    "currency",
    "avg_price",
    "min_price",
    "max_price",
    "trending",
    "links",
    "variants",
];

#[test]
fn product_keys_types_and_round_trip() {
    let mut keys = PRODUCT_KEYS_FREE.to_vec();
    keys.extend(["release_dates", "retail_prices"]);
    let json = check(&product(), &keys);
    assert!(json["images"].is_null(), "images is null when None");
    assert!(json["trending"].is_boolean());
    assert!(json["avg_price"].is_number());
    assert!(json["release_dates"].is_array());
    assert!(json["retail_prices"].is_array());

    let mut with_images = product();
    with_images.images = Some(vec![format!("https://images.example.invalid/{SKU}-2.jpg")]);
    let json = check(&with_images, &keys);
    assert!(json["images"].is_array());
}

#[test]
fn free_tier_product_omits_release_dates_and_retail_prices() {
    let mut free = product();
    free.release_dates = None;
    free.retail_prices = None;
    let json = check(&free, PRODUCT_KEYS_FREE);
    assert!(json.get("release_dates").is_none());
    assert!(json.get("retail_prices").is_none());
    assert!(json["images"].is_null());
}

#[test]
fn release_date_retail_price_and_link_keys() {
    let json = check(&release_date(), &["sku", "release_date", "source"]);
    assert!(json["release_date"].is_string());
    let json = check(&retail_price(), &["sku", "price", "currency", "source"]);
    assert!(json["price"].is_number());
    let json = check(&link(), &["link", "target", "min_price"]);
    assert!(json["min_price"].is_number());
}

#[test]
fn variant_keys_types_and_round_trip() {
    let json = check(
        &variant(),
        &[
            "id",
            "product_id",
            "sku",
            "title",
            "description",
            "brand",
            "category",
            "color",
            "gender",
            "gtin",
            "size",
            "link",
            "image",
            "price",
            "currency",
            "tags",
            "metadata",
            "source",
        ],
    );
    assert!(json.get("variant_link").is_none(), "v2 still names it link");
    assert!(json["tags"].is_array());
    assert!(json["metadata"].is_object());
    check(&variant().metadata, &["category", "model"]);
}

#[test]
fn weekly_order_keys_types_and_round_trip() {
    let json = check(
        &weekly_order(),
        &["position", "orders", "aov", "gmv", "inserted_at"],
    );
    assert!(json["position"].is_u64());
    assert!(json["orders"].is_u64());
    assert!(json["aov"].is_number());
    assert!(json["inserted_at"].is_string());
}

// ---- real time -------------------------------------------------------------

#[test]
fn resale_a_envelope_keys_and_round_trip() {
    let envelope = ResaleAEnvelope {
        status: "success".to_owned(),
        data: resale_a_product(),
        meta: ExecutionMeta {
            execution_time: 2_314,
        },
    };
    let json = check(&envelope, &["status", "data", "meta"]);
    let meta = check(&envelope.meta, &["execution_time"]);
    assert!(meta["execution_time"].is_i64());
    assert!(json["data"].is_object());
}

#[test]
fn resale_a_product_keys_types_and_round_trip() {
    let json = check(
        &resale_a_product(),
        &[
            "id",
            "name",
            "nickname",
            "slug",
            "sku",
            "brandName",
            "designer",
            "details",
            "color",
            "silhouette",
            "midsole",
            "upperMaterial",
            "season",
            "category",
            "gender",
            "singleGender",
            "productCategory",
            "productType",
            "productTaxonomy",
            "specialType",
            "status",
            "releaseDate",
            "story",
            "storyHtml",
            "internalShot",
            "sizeBrand",
            "sizeType",
            "sizeUnit",
            "sizeOptions",
            "sizeRange",
            "availableSizesNew",
            "availableSizesNewV2",
            "availableSizesNewWithDefects",
            "availableSizesUsed",
            "featuredIn",
            "robotAssets",
            "gridPictureUrl",
            "gridGlowPictureUrl",
            "mainPictureUrl",
            "mainGlowPictureUrl",
            "pictureUrl",
            "walletPayOnlyPromo",
            "directShipping",
            "forAuction",
            "isAvailabilityRestricted",
            "isFashionProduct",
            "isOfferable",
            "isOwnable",
            "isRaffleProduct",
            "isResellable",
            "isWantable",
            "renderImagesInOrder",
            "lowestPriceCents",
            "newLowestPriceCents",
            "usedLowestPriceCents",
            "specialDisplayPriceCents",
            "maximumOfferCents",
            "minimumOfferCents",
            "sellingCount",
            "usedForSaleCount",
            "withDefectForSaleCount",
            "micropostsCount",
            "localizedSpecialDisplayPriceCents",
        ],
    );
    assert!(json["id"].is_i64());
    for cents in [
        "lowestPriceCents",
        "newLowestPriceCents",
        "usedLowestPriceCents",
        "specialDisplayPriceCents",
        "maximumOfferCents",
        "minimumOfferCents",
    ] {
        assert!(json[cents].is_i64(), "{cents} is an integer");
    }
    for count in [
        "sellingCount",
        "usedForSaleCount",
        "withDefectForSaleCount",
        "micropostsCount",
    ] {
        assert!(json[count].is_i64(), "{count} is an integer");
    }
    assert!(json["category"].is_array());
    assert!(json["gender"].is_array());
    assert!(json["walletPayOnlyPromo"].is_boolean());
    assert!(json["sizeRange"][0].is_number());
    assert!(json["localizedSpecialDisplayPriceCents"].is_object());
}

#[test]
fn resale_a_nested_objects_keys() {
    let json = check(
        &localized_price(),
        &["amount", "amountUsdCents", "currency"],
    );
    assert!(json["amount"].is_i64());
    assert!(json["amountUsdCents"].is_i64());
    let json = check(
        &resale_a_product().size_options[1],
        &["presentation", "value"],
    );
    assert!(json["presentation"].is_string());
    assert!(json["value"].is_number());
}

#[test]
fn resale_a_product_accepts_filled_unshown_arrays_and_unknown_fields() {
    let mut raw = serde_json::to_value(resale_a_product()).unwrap();
    raw["availableSizesNewV2"] = json!([{"size": "10", "lowestPriceCents": 35_900}]);
    raw["someFutureField"] = json!(true);
    let parsed: ResaleAProduct = serde_json::from_value(raw).unwrap();
    assert_eq!(parsed.available_sizes_new_v2.len(), 1);
}

#[test]
fn resale_b_envelope_keys_types_and_round_trip() {
    let envelope = ResaleBEnvelope {
        status: "success".to_owned(),
        query: serde_json::Map::new(),
        data: vec![ResaleBEdge {
            node: resale_b_node(),
        }],
        meta: ExecutionMeta {
            execution_time: 1_872,
        },
    };
    let json = check(&envelope, &["status", "query", "data", "meta"]);
    assert_eq!(json["query"], json!({}));
    assert!(json["data"].is_array());
    check(&envelope.data[0], &["node"]);
    assert!(json["meta"]["execution_time"].is_i64());
}

#[test]
fn resale_b_node_keys_types_and_round_trip() {
    let node = resale_b_node();
    let json = check(
        &node,
        &[
            "id",
            "brand",
            "title",
            "primaryTitle",
            "secondaryTitle",
            "productCategory",
            "listingType",
            "urlKey",
            "media",
            "market",
        ],
    );
    assert_eq!(json["listingType"], json!("STANDARD"));
    check(&node.media, &["thumbUrl"]);
    check(&node.market, &["salesInformation", "state"]);
    let sales = check(
        &node.market.sales_information,
        &["lastSale", "salesLast72Hours"],
    );
    assert!(sales["lastSale"].is_number());
    assert!(sales["salesLast72Hours"].is_i64());
    let state = check(
        &node.market.state,
        &["highestBid", "lowestAsk", "numberOfAsks", "numberOfBids"],
    );
    assert!(state["numberOfAsks"].is_i64());
    assert!(state["numberOfBids"].is_i64());
    let amount = check(&node.market.state.lowest_ask, &["amount"]);
    assert!(amount["amount"].is_number());
}

#[test]
fn retailer_envelope_keys_types_and_round_trip() {
    let envelope = RetailerEnvelope {
        status: "success".to_owned(),
        data: retailer_product(),
    };
    let whole = check(&envelope, &["status", "data"]);
    // The shape the live answers are checked against too (tests/storefront.rs).
    common::conformance::assert_retailer_envelope(&whole, true);
    let json = check(
        &retailer_product(),
        &common::conformance::RETAILER_PRODUCT_KEYS,
    );
    assert!(json["images"].is_array());
    assert!(json["images"][0].is_string());
    let json = check(
        &retailer_variant(),
        &common::conformance::RETAILER_VARIANT_KEYS,
    );
    assert!(json["price"].is_number());
    assert!(json["available"].is_boolean());
}

// ---- our own service types --------------------------------------------------

#[test]
fn service_types_round_trip() {
    let stats = Stats {
        datasets: vec![DatasetStats {
            country: Country::Fr.code().to_owned(),
            currency: Country::Fr.currency().to_owned(),
            products: 5_000,
            variants: Some(61_234),
        }],
        built_at: "2025-03-05T14:21:07Z".to_owned(),
        schema_version: 1,
    };
    check(&stats, &["datasets", "built_at", "schema_version"]);
    check(
        &stats.datasets[0],
        &["country", "currency", "products", "variants"],
    );

    let subscription = Subscription {
        tier: Tier::Pro,
        price_usd_per_month: 29.0,
        features: vec!["French dataset".to_owned()],
        endpoints: vec!["/api/v2/products/{id}/orders".to_owned()],
        realtime_requests_per_minute: 120,
        search_countries: vec!["US".to_owned(), "FR".to_owned()],
        product_fields_omitted: vec![],
    };
    let json = check(
        &subscription,
        &[
            "tier",
            "price_usd_per_month",
            "features",
            "endpoints",
            "realtime_requests_per_minute",
            "search_countries",
            "product_fields_omitted",
        ],
    );
    assert_eq!(json["tier"], json!("pro"));

    let error = ErrorBody::new("forbidden", "the FR dataset needs a pro or ultra key");
    let json = check(&error, &["status", "error", "message"]);
    assert_eq!(json["status"], json!("error"));
}
