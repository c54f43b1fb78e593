//! The mock KicksDB's data: five real, well-known pairs (style codes, colourways, release dates
//! and retail prices as released; asks, sales and barcodes invented) and the JSON each endpoint
//! builds from them, with the field names and types of `../shared/research/kicksdb-v3.md` §3.
//!
//! Where the note does not say what a value looks like, the choice is named in a comment here.
//! Every figure is a function of the pair, the market and the day, so two runs answer alike.

use chrono::{Duration, NaiveDate};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

/// One size of a pair.
pub struct Size {
    /// US men's size label, as StockX writes it (`"9.5"`).
    pub us: &'static str,
    /// UK size label.
    pub uk: &'static str,
    /// EU size label.
    pub eu: &'static str,
    /// Lowest ask on StockX in whole US dollars; 0 when nobody asks (the API's "unavailable").
    pub ask_usd: i32,
    /// Number of asks on StockX.
    pub asks: i32,
    /// The size's barcode, with a valid GS1 check digit (invented, not the real one).
    pub gtin: &'static str,
}

/// One product of the mock catalogue.
pub struct Pair {
    /// StockX product UUID.
    pub id: &'static str,
    /// StockX slug (URL key).
    pub slug: &'static str,
    /// GOAT numeric product id (invented).
    pub goat_id: i64,
    /// GOAT slug.
    pub goat_slug: &'static str,
    /// Full title.
    pub title: &'static str,
    /// Model part of the title.
    pub primary_title: &'static str,
    /// Colourway part of the title.
    pub secondary_title: &'static str,
    /// Brand.
    pub brand: &'static str,
    /// Model line.
    pub model: &'static str,
    /// Style code.
    pub sku: &'static str,
    /// Colourway as the box label writes it.
    pub colorway: &'static str,
    /// Release day, `YYYY-MM-DD`.
    pub release_date: &'static str,
    /// Retail price in US dollars.
    pub retail_usd: i32,
    /// Popularity rank (1 = most weekly orders).
    pub rank: i32,
    /// Orders last week.
    pub weekly_orders: i32,
    /// Country of manufacture.
    pub made_in: &'static str,
    /// Designer of the silhouette.
    pub designer: &'static str,
    /// Midsole technology.
    pub midsole: &'static str,
    /// Upper material.
    pub upper: &'static str,
    /// Barcode kind of `Size::gtin`.
    pub identifier_type: &'static str,
    /// Days of daily sales history ending on the mock's "today".
    pub history_days: i64,
    /// Typical daily orders, the centre of the invented sales.
    pub daily_orders: u32,
    /// Typical sale price in US dollars.
    pub sale_usd: f64,
    /// The sizes.
    pub sizes: &'static [Size],
}

const fn size(
    us: &'static str,
    uk: &'static str,
    eu: &'static str,
    ask_usd: i32,
    asks: i32,
    gtin: &'static str,
) -> Size {
    Size {
        us,
        uk,
        eu,
        ask_usd,
        asks,
        gtin,
    }
}

/// The catalogue, most popular first. Chicago and Panda have more than 400 days of sales.
pub const PAIRS: &[Pair] = &[
    Pair {
        id: "045f21da-1563-43d8-9463-75dce47682e6",
        slug: "nike-dunk-low-retro-white-black-2021",
        goat_id: 710_341,
        goat_slug: "dunk-low-retro-white-black-dd1391-100",
        title: "Nike Dunk Low Retro White Black Panda",
        primary_title: "Nike Dunk Low Retro",
        secondary_title: "White Black Panda",
        brand: "Nike",
        model: "Dunk Low",
        sku: "DD1391-100",
        colorway: "White/Black-White",
        release_date: "2021-03-10",
        retail_usd: 100,
        rank: 1,
        weekly_orders: 2_140,
        made_in: "Vietnam",
        designer: "Peter Moore",
        midsole: "Rubber Cupsole",
        upper: "Leather",
        identifier_type: "UPC",
        history_days: 420,
        daily_orders: 300,
        sale_usd: 118.0,
        sizes: &[
            size("8", "7", "41", 109, 412, "194151570809"),
            size("9", "8", "42.5", 116, 655, "194151570908"),
            size("9.5", "8.5", "43", 121, 380, "194151570953"),
            size("10", "9", "44", 118, 590, "194151571004"),
            size("11", "10", "45", 124, 301, "194151571103"),
        ],
    },
    Pair {
        id: "4a37fa2d-f2d7-440f-8785-9faeecc3f80c",
        slug: "air-jordan-1-retro-high-og-chicago",
        goat_id: 361_722,
        goat_slug: "air-jordan-1-retro-high-og-chicago-2015-555088-101",
        title: "Jordan 1 Retro High OG Chicago (2015)",
        primary_title: "Jordan 1 Retro High OG",
        secondary_title: "Chicago (2015)",
        brand: "Jordan",
        model: "Air Jordan 1",
        sku: "555088-101",
        colorway: "White/Black-Varsity Red",
        release_date: "2015-05-30",
        retail_usd: 160,
        rank: 14,
        weekly_orders: 96,
        made_in: "China",
        designer: "Peter Moore",
        midsole: "Air",
        upper: "Leather",
        identifier_type: "UPC",
        history_days: 430,
        daily_orders: 14,
        sale_usd: 1_650.0,
        sizes: &[
            size("8", "7", "41", 1_480, 9, "190658120806"),
            size("9", "8", "42.5", 1_725, 14, "190658120905"),
            // Nobody asks for this size right now: lowest_ask 0, no asks.
            size("9.5", "8.5", "43", 0, 0, "190658120950"),
            size("10", "9", "44", 1_690, 11, "190658121001"),
            size("11", "10", "45", 1_560, 6, "190658121100"),
        ],
    },
    Pair {
        id: "611244c0-6c7a-45c9-8e86-c4fa978f18a7",
        slug: "air-jordan-1-retro-high-og-chicago-reimagined-lost-and-found",
        goat_id: 1_003_958,
        goat_slug: "air-jordan-1-retro-high-og-lost-found-dz5485-612",
        title: "Jordan 1 Retro High OG Chicago Lost and Found",
        primary_title: "Jordan 1 Retro High OG",
        secondary_title: "Chicago Lost and Found",
        brand: "Jordan",
        model: "Air Jordan 1",
        sku: "DZ5485-612",
        colorway: "Varsity Red/Black-Sail-Muslin",
        release_date: "2022-11-19",
        retail_usd: 180,
        rank: 22,
        weekly_orders: 310,
        made_in: "China",
        designer: "Peter Moore",
        midsole: "Air",
        upper: "Leather",
        identifier_type: "UPC",
        history_days: 120,
        daily_orders: 45,
        sale_usd: 265.0,
        sizes: &[
            size("8", "7", "41", 248, 77, "196151280801"),
            size("9", "8", "42.5", 262, 103, "196151280900"),
            size("9.5", "8.5", "43", 259, 88, "196151280955"),
            size("10", "9", "44", 271, 95, "196151281006"),
            size("11", "10", "45", 255, 64, "196151281105"),
        ],
    },
    Pair {
        id: "b9d8249e-215b-4892-9bab-1eec87b3d90e",
        slug: "air-jordan-4-retro-black-cat-2020",
        goat_id: 552_760,
        goat_slug: "air-jordan-4-retro-black-cat-2020-cu1110-010",
        title: "Jordan 4 Retro Black Cat (2020)",
        primary_title: "Jordan 4 Retro",
        secondary_title: "Black Cat (2020)",
        brand: "Jordan",
        model: "Air Jordan 4",
        sku: "CU1110-010",
        colorway: "Black/Black-Light Graphite",
        release_date: "2020-01-22",
        retail_usd: 190,
        rank: 37,
        weekly_orders: 205,
        made_in: "China",
        designer: "Tinker Hatfield",
        midsole: "Air",
        upper: "Nubuck",
        identifier_type: "UPC",
        history_days: 90,
        daily_orders: 30,
        sale_usd: 505.0,
        sizes: &[
            size("8", "7", "41", 470, 31, "193151440808"),
            size("9", "8", "42.5", 512, 44, "193151440907"),
            size("9.5", "8.5", "43", 498, 29, "193151440952"),
            size("10", "9", "44", 520, 40, "193151441003"),
            size("11", "10", "45", 489, 22, "193151441102"),
        ],
    },
    Pair {
        id: "039a7b88-71cf-42e3-8473-24943126b9c3",
        slug: "adidas-yeezy-boost-350-v2-white-core-black-red",
        goat_id: 214_563,
        goat_slug: "yeezy-boost-350-v2-zebra-cp9654",
        title: "adidas Yeezy Boost 350 V2 Zebra",
        primary_title: "adidas Yeezy Boost 350 V2",
        secondary_title: "Zebra",
        brand: "adidas",
        model: "Yeezy Boost 350",
        sku: "CP9654",
        colorway: "White/Core Black/Red",
        release_date: "2017-02-25",
        retail_usd: 220,
        rank: 58,
        weekly_orders: 140,
        made_in: "China",
        designer: "Kanye West",
        midsole: "Boost",
        upper: "Primeknit",
        identifier_type: "EAN-13",
        history_days: 60,
        daily_orders: 20,
        sale_usd: 290.0,
        sizes: &[
            size("8", "7.5", "41 1/3", 281, 57, "4059467108800"),
            size("9", "8.5", "42 2/3", 302, 80, "4059467108909"),
            size("9.5", "9", "43 1/3", 296, 61, "4059467108954"),
            size("10", "9.5", "44", 309, 73, "4059467108107"),
            size("11", "10.5", "45 1/3", 287, 35, "4059467108114"),
        ],
    },
];

/// `/v3/utils/brands`: StockX brands with product counts (invented counts), largest first.
pub const BRANDS: &[(&str, i64)] = &[
    ("Nike", 41_873),
    ("Jordan", 12_604),
    ("adidas", 11_952),
    ("New Balance", 6_318),
    ("ASICS", 3_402),
    ("Converse", 2_265),
    ("Vans", 2_190),
    ("Puma", 1_877),
    ("Reebok", 1_530),
    ("Salomon", 611),
    ("On", 498),
    ("Crocs", 377),
];

/// The currency of a StockX market (`market` values of the note's list M), or `None` when the
/// market is not in that list.
pub fn currency_of_market(market: &str) -> Option<&'static str> {
    Some(match market {
        "US" => "USD",
        "UK" => "GBP",
        "CH" => "CHF",
        "DK" => "DKK",
        "PL" => "PLN",
        "DE" | "FR" | "NL" | "IT" | "FI" | "BE" | "EU" | "BE.vat-registered"
        | "FI.vat-registered" | "NL.vat-registered" => "EUR",
        _ => return None,
    })
}

/// Units of `currency` per US dollar (fixed, invented rates), or `None` for another currency.
pub fn rate_of_currency(currency: &str) -> Option<f64> {
    Some(match currency {
        "USD" => 1.0,
        "EUR" => 0.93,
        "GBP" => 0.79,
        "CHF" => 0.88,
        "DKK" => 6.94,
        "PLN" => 4.02,
        "CAD" => 1.39,
        "JPY" => 152.0,
        _ => return None,
    })
}

/// A US-dollar price as asked in `market`: converted, plus a small premium per market so that
/// two euro markets do not quote the same price.
fn price_in_market(usd: i32, market: &str) -> i32 {
    if usd == 0 {
        return 0;
    }
    let currency = currency_of_market(market).unwrap_or("USD");
    let rate = rate_of_currency(currency).unwrap_or(1.0);
    let premium = match market {
        "FR" => 1.04,
        "DE" => 1.02,
        _ => 1.0,
    };
    (f64::from(usd) * rate * premium).round() as i32
}

/// Which optional parts a product answer carries (`display[...]=true`).
#[derive(Clone, Copy, Default)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "one flag per display[...] parameter of the API"
)]
pub struct Display {
    /// `display[variants]`.
    pub variants: bool,
    /// `display[prices]`.
    pub prices: bool,
    /// `display[traits]`.
    pub traits: bool,
    /// `display[identifiers]`.
    pub identifiers: bool,
    /// `display[statistics]`.
    pub statistics: bool,
}

/// A variant UUID: the product's UUID with the size's position in the last group (deterministic).
fn variant_id(pair: &Pair, position: usize) -> String {
    let head = &pair.id[..24];
    format!("{head}{:012x}", position + 1)
}

/// A stable number for a pair, to seed its invented figures.
fn seed_of(pair: &Pair) -> u64 {
    pair.sku
        .bytes()
        .fold(17u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
}

/// `StockXVariant` (note §3) in `market`.
fn stockx_variant(
    pair: &Pair,
    position: usize,
    market: &str,
    display: Display,
    updated: &str,
) -> Value {
    let size = &pair.sizes[position];
    let currency = currency_of_market(market).unwrap_or("USD");
    let ask = price_in_market(size.ask_usd, market);
    let sales_15 = (pair.weekly_orders / 5 + position as i32 * 3) % 400;
    let mut variant = json!({
        "id": variant_id(pair, position),
        "size": size.us,
        "size_type": "us m",
        // The note types `sizes` as {str:str}[] without naming keys: one object per size system.
        "sizes": [
            {"type": "us m", "size": size.us},
            {"type": "uk", "size": size.uk},
            {"type": "eu", "size": size.eu},
        ],
        "position": position as i64,
        "hidden": false,
        "lowest_ask": ask,
        "total_asks": size.asks,
        "currency": currency,
        "market": market,
        "sales_count_15_days": sales_15,
        "sales_count_30_days": sales_15 * 2 + 1,
        "sales_count_60_days": sales_15 * 4 + 3,
        "updated_at": updated,
    });
    if display.identifiers {
        variant["identifiers"] =
            json!([{"identifier": size.gtin, "identifier_type": pair.identifier_type}]);
    }
    if display.prices {
        variant["prices"] = if ask == 0 {
            json!([])
        } else {
            json!([
                {"price": ask, "asks": size.asks, "beat_us_price": ask - 1,
                 "sell_faster": ask - 4, "earn_more": ask + 9, "type": "standard"},
                {"price": ask + 12, "asks": size.asks / 3, "beat_us_price": ask + 11,
                 "sell_faster": ask + 8, "earn_more": ask + 21, "type": "express_standard"},
            ])
        };
    }
    variant
}

/// `StockXProduct` (note §3) in `market`, as of `today`.
pub fn stockx_product(pair: &Pair, market: &str, display: Display, today: NaiveDate) -> Value {
    let asks: Vec<i32> = pair
        .sizes
        .iter()
        .map(|s| price_in_market(s.ask_usd, market))
        .filter(|&ask| ask > 0)
        .collect();
    let min_price = asks.iter().copied().min().unwrap_or(0);
    let max_price = asks.iter().copied().max().unwrap_or(0);
    let avg_price = if asks.is_empty() {
        0.0
    } else {
        f64::from(asks.iter().sum::<i32>()) / asks.len() as f64
    };
    let updated = format!("{today}T06:00:00Z");
    let category = if pair.brand == "Jordan" {
        "Air Jordan"
    } else {
        pair.brand
    };
    let mut product = json!({
        "id": pair.id,
        "slug": pair.slug,
        "title": pair.title,
        "primary_title": pair.primary_title,
        "secondary_title": pair.secondary_title,
        "brand": pair.brand,
        "model": pair.model,
        "gender": "men",
        // Two paragraphs, as StockX writes its descriptions.
        "description": format!("<p>The {} in {}, first released on {}.</p>\n<p>Style code {}.</p>",
            pair.model, pair.colorway, pair.release_date, pair.sku),
        "image": format!("https://images.kicksdb-mock.invalid/{}.jpg", pair.slug),
        "gallery": [format!("https://images.kicksdb-mock.invalid/{}-1.jpg", pair.slug)],
        "gallery_360": [],
        "link": format!("https://stockx.com/{}", pair.slug),
        "sku": pair.sku,
        "product_type": "sneakers",
        "category": category,
        "secondary_category": pair.model,
        "categories": ["sneakers", category, pair.model],
        "breadcrumbs": [
            {"alias": "sneakers", "level": 1, "value": "Sneakers"},
            {"alias": pair.brand.to_ascii_lowercase(), "level": 2, "value": pair.brand},
            {"alias": pair.model.to_ascii_lowercase().replace(' ', "-"), "level": 3, "value": pair.model},
        ],
        "country_of_manufacture": pair.made_in,
        "rank": pair.rank,
        "weekly_orders": pair.weekly_orders,
        "min_price": min_price,
        "max_price": max_price,
        "avg_price": avg_price,
        // A pair released after the mock's today is one StockX lists as coming.
        "upcoming": pair.release_date > today.format("%Y-%m-%d").to_string().as_str(),
        "updated_at": updated,
        "created_at": format!("{}T00:00:00Z", pair.release_date),
        "short_description": pair.sku,
    });
    if display.traits {
        // Trait values are text; the note names the traits but not their format: ISO day and
        // whole dollars here.
        product["traits"] = json!([
            {"trait": "Colorway", "value": pair.colorway},
            {"trait": "Release Date", "value": pair.release_date},
            {"trait": "Retail Price", "value": pair.retail_usd.to_string()},
        ]);
    }
    if display.statistics {
        let high = f64::from(max_price) * 1.3;
        let low = f64::from(min_price) * 0.8;
        product["statistics"] = json!({
            "annual_high": high, "annual_low": low, "annual_range_high": high * 0.95,
            "annual_range_low": low * 1.05, "annual_average_price": avg_price,
            "annual_price_premium": avg_price / f64::from(pair.retail_usd) - 1.0,
            "annual_total_dollars": avg_price * f64::from(pair.weekly_orders) * 52.0,
            "annual_volatility": 0.08, "annual_sales_count": i64::from(pair.weekly_orders) * 52,
            "last_90_days_range_high": high * 0.9, "last_90_days_range_low": low * 1.1,
            "last_90_days_average_price": avg_price,
            "last_90_days_sales_count": i64::from(pair.weekly_orders) * 13,
        });
    }
    if display.variants {
        product["variants"] = (0..pair.sizes.len())
            .map(|position| stockx_variant(pair, position, market, display, &updated))
            .collect();
    }
    product
}

/// One day of `ProductSale` (note §3) in `market` (`US`, in dollars, or `DE`, in euros): a
/// slow seasonal swing plus noise, some quiet days with no order (orders 0, `avg_amount` 0).
pub fn daily_sale(pair: &Pair, market: &str, day: NaiveDate) -> Value {
    let day_number = day.signed_duration_since(NaiveDate::MIN).num_days();
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed_of(pair) ^ (day_number as u64).wrapping_mul(0x9E37_79B9));
    let centre = if market == "DE" {
        pair.daily_orders / 3 + 1
    } else {
        pair.daily_orders
    };
    let quiet = rng.random_range(0..10) == 0;
    let orders = if quiet {
        0
    } else {
        rng.random_range(centre / 2..=centre + centre / 2)
    };
    let swing = 1.0 + 0.08 * (day_number as f64 / 29.0).sin();
    let noise = rng.random_range(0.95..1.05);
    let rate = if market == "DE" { 0.93 } else { 1.0 };
    let avg = if orders == 0 {
        0.0
    } else {
        (pair.sale_usd * swing * noise * rate * 100.0).round() / 100.0
    };
    json!({
        "product_id": pair.id,
        "date": day.format("%Y-%m-%d").to_string(),
        "orders": i64::from(orders),
        "avg_amount": avg,
    })
}

/// `pair`'s whole history in `market`, newest day (`today`) first.
pub fn daily_sales(
    pair: &'static Pair,
    market: &str,
    today: NaiveDate,
) -> impl Iterator<Item = Value> + use<> {
    let market = market.to_owned();
    (0..pair.history_days).map(move |back| daily_sale(pair, &market, today - Duration::days(back)))
}

/// The GOAT ask of a size in US dollars: StockX's plus 6 %, in whole dollars; `None` when no ask.
fn goat_ask_usd(size: &Size) -> Option<i64> {
    (size.ask_usd > 0).then(|| (f64::from(size.ask_usd) * 1.06).round() as i64)
}

/// The real-time GOAT product in the interface's `resale-a` shape (spec "Real-time product from
/// resale-a"); `availableSizesNew` elements as the project's simulator writes them:
/// `{"size": 9.5, "presentation": "9.5", "lowestPriceCents": 23500}`, prices in US cents.
pub fn goat_product(pair: &Pair) -> Value {
    let sizes: Vec<(f64, &str)> = pair
        .sizes
        .iter()
        .map(|s| (s.us.parse().unwrap_or(0.0), s.us))
        .collect();
    let available: Vec<Value> = pair
        .sizes
        .iter()
        .zip(&sizes)
        .filter_map(|(size, (value, label))| {
            goat_ask_usd(size).map(
                |usd| json!({"size": value, "presentation": label, "lowestPriceCents": usd * 100}),
            )
        })
        .collect();
    let lowest_cents = pair
        .sizes
        .iter()
        .filter_map(goat_ask_usd)
        .min()
        .unwrap_or(0)
        * 100;
    let for_sale: i64 = pair.sizes.iter().map(|s| i64::from(s.asks)).sum();
    let nickname = pair.secondary_title;
    let picture = |kind: &str| {
        format!(
            "https://images.kicksdb-mock.invalid/goat/{}/{kind}.png",
            pair.goat_id
        )
    };
    let year = &pair.release_date[..4];
    // Two objects: the whole one is deeper than `json!`'s default recursion limit.
    let mut product = json!({
        "id": pair.goat_id,
        "name": pair.title,
        "nickname": nickname,
        "slug": pair.goat_slug,
        "sku": pair.sku.replace('-', " "),
        "brandName": if pair.brand == "Jordan" { "Air Jordan" } else { pair.brand },
        "designer": pair.designer,
        "details": pair.colorway,
        "color": pair.colorway.split(['/', '-']).next().unwrap_or(""),
        "silhouette": pair.model,
        "midsole": pair.midsole,
        "upperMaterial": pair.upper,
        "season": year,
        "category": ["lifestyle"],
        "gender": ["men"],
        "singleGender": "men",
        "productCategory": "shoes",
        "productType": "sneakers",
        "productTaxonomy": [],
        "specialType": "standard",
        "status": "active",
        "releaseDate": format!("{}T23:59:59.999Z", pair.release_date),
        "story": format!("The {} returned in {}.", pair.model, pair.colorway),
        "storyHtml": format!("<p>The {} returned in {}.</p>", pair.model, pair.colorway),
        "internalShot": "taken",
        "sizeBrand": if pair.brand == "Jordan" { "air_jordan".to_owned() } else { pair.brand.to_ascii_lowercase() },
        "sizeType": "men",
        "sizeUnit": "us",
        "sizeOptions": sizes.iter().map(|(value, label)| json!({"presentation": label, "value": value})).collect::<Vec<_>>(),
        "sizeRange": sizes.iter().map(|(value, _)| *value).collect::<Vec<_>>(),
        "availableSizesNew": available,
        "availableSizesNewV2": [],
        "availableSizesNewWithDefects": [],
        "availableSizesUsed": [],
        "featuredIn": [],
        "robotAssets": [],
    });
    let pictures_and_prices = json!({
        "gridPictureUrl": picture("grid"),
        "gridGlowPictureUrl": picture("grid_glow"),
        "mainPictureUrl": picture("main"),
        "mainGlowPictureUrl": picture("main_glow"),
        "pictureUrl": picture("original"),
        "walletPayOnlyPromo": false,
        "directShipping": false,
        "forAuction": false,
        "isAvailabilityRestricted": false,
        "isFashionProduct": false,
        "isOfferable": true,
        "isOwnable": true,
        "isRaffleProduct": false,
        "isResellable": true,
        "isWantable": true,
        "renderImagesInOrder": false,
        "lowestPriceCents": lowest_cents,
        "newLowestPriceCents": lowest_cents,
        "usedLowestPriceCents": lowest_cents * 7 / 10 / 100 * 100,
        "specialDisplayPriceCents": lowest_cents,
        "maximumOfferCents": 500_000,
        "minimumOfferCents": 2_500,
        "sellingCount": for_sale,
        "usedForSaleCount": for_sale / 9,
        "withDefectForSaleCount": for_sale / 40,
        "micropostsCount": i64::from(pair.weekly_orders) / 4,
        "localizedSpecialDisplayPriceCents": {
            "amount": lowest_cents, "amountUsdCents": lowest_cents, "currency": "USD",
        },
    });
    if let (Value::Object(product_fields), Value::Object(more_fields)) =
        (&mut product, pictures_and_prices)
    {
        product_fields.extend(more_fields);
    }
    product
}

/// The real-time StockX related products of `pair` in the interface's `resale-b` node shape,
/// amounts in `currency` (units per dollar `rate`): the other pairs, same brand first.
pub fn related_nodes(pair: &Pair, rate: f64) -> Vec<Value> {
    let mut others: Vec<&Pair> = PAIRS.iter().filter(|p| p.id != pair.id).collect();
    others.sort_by_key(|p| (p.brand != pair.brand, p.rank));
    others
        .into_iter()
        .map(|other| {
            let lowest = other.sizes.iter().map(|s| s.ask_usd).filter(|&a| a > 0).min().unwrap_or(0);
            let convert = |usd: f64| (usd * rate * 100.0).round() / 100.0;
            let asks: i64 = other.sizes.iter().map(|s| i64::from(s.asks)).sum();
            json!({"node": {
                "id": other.id,
                "brand": other.brand,
                "title": other.title,
                "primaryTitle": other.primary_title,
                "secondaryTitle": other.secondary_title,
                "productCategory": "sneakers",
                "listingType": "STANDARD",
                "urlKey": other.slug,
                "media": {"thumbUrl": format!("https://images.kicksdb-mock.invalid/{}.jpg?w=140", other.slug)},
                "market": {
                    "salesInformation": {
                        "lastSale": convert(other.sale_usd),
                        "salesLast72Hours": i64::from(other.weekly_orders) * 3 / 7,
                    },
                    "state": {
                        "highestBid": {"amount": convert(f64::from(lowest) * 0.88)},
                        "lowestAsk": {"amount": convert(f64::from(lowest))},
                        "numberOfAsks": asks,
                        "numberOfBids": asks / 2,
                    },
                },
            }})
        })
        .collect()
}

/// The pair whose StockX UUID or slug is `key`.
pub fn pair_by_stockx_key(key: &str) -> Option<&'static Pair> {
    PAIRS.iter().find(|p| p.id == key || p.slug == key)
}

/// The pair whose GOAT numeric id or slug is `key`.
pub fn pair_by_goat_key(key: &str) -> Option<&'static Pair> {
    PAIRS
        .iter()
        .find(|p| p.goat_slug == key || key.parse::<i64>().is_ok_and(|id| id == p.goat_id))
}

/// A UPC-A with a valid check digit from 11 digits.
fn upc(eleven: u64) -> String {
    let digits: Vec<u32> = format!("{eleven:011}")
        .chars()
        .filter_map(|c| c.to_digit(10))
        .collect();
    let odd: u32 = digits.iter().step_by(2).sum();
    let even: u32 = digits.iter().skip(1).step_by(2).sum();
    let check = (10 - (odd * 3 + even) % 10) % 10;
    format!("{eleven:011}{check}")
}

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// `count` invented pairs after the five real ones, for tests that need many style codes (a
/// portfolio over 120 of them). Their style codes (`MK1000-101`, `MK1001-108`, ...) are made up
/// and say so; every fourth pair has one size nobody asks for. Their strings are leaked: a test
/// process starts few mocks, and each pair is a few hundred bytes.
pub fn generated_pairs(count: usize) -> Vec<&'static Pair> {
    const RUN: [(&str, &str, &str); 5] = [
        ("8", "7", "41"),
        ("9", "8", "42.5"),
        ("9.5", "8.5", "43"),
        ("10", "9", "44"),
        ("11", "10", "45"),
    ];
    (0..count)
        .map(|i| {
            let n = 1_000 + i;
            let sku = leak(format!("MK{n}-{:03}", 101 + (i * 7) % 800));
            let base = 90 + (i as i32 * 37) % 400;
            let sizes: Vec<Size> = RUN
                .iter()
                .enumerate()
                .map(|(at, (us, uk, eu))| Size {
                    us,
                    uk,
                    eu,
                    ask_usd: if i % 4 == 0 && at == 2 {
                        0
                    } else {
                        base + at as i32 * 6
                    },
                    asks: if i % 4 == 0 && at == 2 {
                        0
                    } else {
                        3 + at as i32
                    },
                    gtin: leak(upc(70_000_000_000 + (i * 10 + at) as u64)),
                })
                .collect();
            let pair = Pair {
                id: leak(format!("7e57da7a-0000-4000-8000-{:012x}", i + 1)),
                slug: leak(format!("mock-runner-{n}")),
                goat_id: 9_000_000 + i as i64,
                goat_slug: leak(format!("mock-runner-{n}-goat")),
                title: leak(format!("Mock Runner {n}")),
                primary_title: "Mock Runner",
                secondary_title: leak(format!("{n}")),
                brand: "Mockwear",
                model: "Mock Runner",
                sku,
                colorway: "White/Grey",
                release_date: "2024-03-01",
                retail_usd: 110,
                rank: 1_000 + i as i32,
                weekly_orders: 10 + (i as i32 % 50),
                made_in: "Vietnam",
                designer: "",
                midsole: "Foam",
                upper: "Mesh",
                identifier_type: "UPC",
                history_days: 120,
                daily_orders: 2,
                sale_usd: f64::from(base) * 1.05,
                sizes: Box::leak(sizes.into_boxed_slice()),
            };
            &*Box::leak(Box::new(pair))
        })
        .collect()
}

/// A pair KicksDB lists only after a test's start (added with `MockKicksdb::add_pair`): a
/// real release's names, none of whose words the five real pairs share.
pub fn released_later() -> &'static Pair {
    let base = generated_pairs(1)[0];
    let pair = Pair {
        id: "5c0ffee0-1906-4a11-9a55-000000001906",
        slug: "new-balance-1906r-silver-metallic-sea-salt",
        goat_slug: "1906r-silver-metallic-sea-salt-m1906rex",
        title: "New Balance 1906R Silver Metallic Sea Salt",
        primary_title: "New Balance 1906R",
        secondary_title: "Silver Metallic Sea Salt",
        brand: "New Balance",
        model: "New Balance 1906R",
        sku: "M1906REX",
        colorway: "Silver Metallic/Sea Salt",
        rank: 6,
        ..*base
    };
    Box::leak(Box::new(pair))
}

/// `StockXPriceOutput` (note §3) of `pair` in `market`: the sizes with an ask, each as a
/// `standard` price and an `express_standard` one a little dearer (as `display[prices]`
/// writes them); `ask_usd` gives a size's lowest ask in US dollars (a test may have changed
/// it). Priceless sizes are left out, as the note says the endpoint does.
pub fn price_output(
    pair: &Pair,
    market: &str,
    show_sizes: bool,
    ask_usd: impl Fn(&Size) -> i32,
) -> Value {
    let mut product = json!({"product_id": pair.id, "sku": pair.sku});
    if show_sizes {
        let variants: Vec<Value> = pair
            .sizes
            .iter()
            .enumerate()
            .filter_map(|(position, size)| {
                let ask = price_in_market(ask_usd(size), market);
                (ask > 0).then(|| {
                    let one = |price: i32, asks: i32, kind: &str| {
                        json!({
                            "id": variant_id(pair, position),
                            "size": size.us,
                            "size_type": "us m",
                            "price": price,
                            "asks": asks,
                            "beat_us_price": price - 1,
                            "sell_faster": price - 4,
                            "earn_more": price + 9,
                            "type": kind,
                        })
                    };
                    [
                        one(ask, size.asks.max(1), "standard"),
                        one(ask + 12, (size.asks / 3).max(1), "express_standard"),
                    ]
                })
            })
            .flatten()
            .collect();
        product["variants"] = Value::Array(variants);
    }
    product
}

/// The day `days` after `today` (`YYYY-MM-DD`, leaked: a test process starts few mocks).
fn day_after(today: NaiveDate, days: i64) -> &'static str {
    leak(
        (today + Duration::days(days))
            .format("%Y-%m-%d")
            .to_string(),
    )
}

/// Two pairs StockX lists as coming (release dates after `today`), real releases' names,
/// style codes and retail prices; no sales yet and no asks but one size.
///
/// - Air Jordan 4 Retro 'Military Blue' `FV5029-141`, $215, in five days: SNKRS lists it too
///   (its code written `FV5029 141`), and the mock store publishes it;
/// - Air Jordan 11 Retro 'Legend Blue' `CT8012-104`, $230, in twelve days: StockX only.
pub fn coming_pairs(today: NaiveDate) -> Vec<&'static Pair> {
    let base = generated_pairs(1)[0];
    let sizes = |code: u64| -> &'static [Size] {
        let run = [("8", "7", "41"), ("9", "8", "42.5"), ("10", "9", "44")];
        let sizes: Vec<Size> = run
            .iter()
            .enumerate()
            .map(|(at, (us, uk, eu))| Size {
                us,
                uk,
                eu,
                ask_usd: if at == 1 { 320 } else { 0 },
                asks: i32::from(at == 1),
                gtin: leak(upc(code * 10 + at as u64)),
            })
            .collect();
        Box::leak(sizes.into_boxed_slice())
    };
    let military = Pair {
        id: "c0de0004-0000-4000-8000-fv5029141000",
        slug: "air-jordan-4-retro-military-blue-2024",
        goat_slug: "air-jordan-4-retro-military-blue-fv5029-141",
        title: "Jordan 4 Retro Military Blue (2024)",
        primary_title: "Jordan 4 Retro",
        secondary_title: "Military Blue (2024)",
        brand: "Jordan",
        model: "Air Jordan 4",
        sku: "FV5029-141",
        colorway: "Off White/Military Blue-Neutral Grey",
        release_date: day_after(today, 5),
        retail_usd: 215,
        rank: 40,
        weekly_orders: 0,
        history_days: 0,
        daily_orders: 0,
        sizes: sizes(60_000_000_001),
        ..*base
    };
    let legend = Pair {
        id: "c0de0011-0000-4000-8000-ct8012104000",
        slug: "air-jordan-11-retro-legend-blue-2024",
        goat_slug: "air-jordan-11-retro-legend-blue-ct8012-104",
        title: "Jordan 11 Retro Legend Blue (2024)",
        primary_title: "Jordan 11 Retro",
        secondary_title: "Legend Blue (2024)",
        brand: "Jordan",
        model: "Air Jordan 11",
        sku: "CT8012-104",
        colorway: "White/Legend Blue-Black",
        release_date: day_after(today, 12),
        retail_usd: 230,
        rank: 41,
        weekly_orders: 0,
        history_days: 0,
        daily_orders: 0,
        sizes: sizes(60_000_000_002),
        ..*base
    };
    vec![
        &*Box::leak(Box::new(military)),
        &*Box::leak(Box::new(legend)),
    ]
}

/// The launch time `days` after `today` at `hour`:00 UTC, as SNKRS writes it.
fn launch_time(today: NaiveDate, days: i64, hour: u32) -> String {
    format!("{}T{hour:02}:00:00.000Z", today + Duration::days(days))
}

/// `SnkrsProduct[]` (SDK types, research notes "SNKRS launches") as of `today`:
///
/// - the Jordan 4 'Military Blue' as SNKRS writes it (`FV5029 141`, with a space): a draw (DAN)
///   in five days at 15:00 UTC, one pair per account, sizes with stock levels (one out of stock);
/// - a first-come-first-served launch (FLOW) in two days at 14:00 UTC that no other source
///   lists (an invented style code, `HM9999-100`), exclusive access;
/// - a T-shirt (APPAREL) and a launch that opened twenty days ago: no calendar entry.
pub fn snkrs_products(today: NaiveDate) -> Vec<Value> {
    let variant = |size: &str, level: &str| {
        json!({"original_size": size, "local_size": size, "local_size_type": "M",
               "gtin": "", "available": level != "OOS", "stock_level": level, "method": ""})
    };
    vec![
        json!({
            "id": "5f1e2d3c-0001-4000-8000-000000000001", "slug": "air-jordan-4-military-blue-fv5029-141",
            "title": "Air Jordan 4", "subtitle": "Military Blue", "skus": ["FV5029 141"],
            "country": "US", "currency": "USD", "merch_group": "US", "msrp": 215, "price": 215,
            "product_type": "FOOTWEAR", "status": "ACTIVE", "available": false,
            "exclusive_access": false, "quantity_limit": 1,
            "commerce_start_date": launch_time(today, 5, 15),
            "images": ["https://images.snkrs-mock.invalid/fv5029-141.jpg"], "descriptions": [],
            "launches": [{"launch_method": "DAN", "start_date": launch_time(today, 5, 15),
                          "invitation_only": false, "payment_method": "PREPAY"}],
            "variants": [variant("8", "HIGH"), variant("9", "LOW"), variant("10", "OOS")]
        }),
        json!({
            "id": "5f1e2d3c-0002-4000-8000-000000000002", "slug": "air-max-1-mock-launch-hm9999-100",
            "title": "Air Max 1", "subtitle": "Mock Launch", "skus": ["HM9999-100"],
            "country": "US", "currency": "USD", "merch_group": "US", "msrp": "150.00",
            "price": 150, "product_type": "FOOTWEAR", "status": "ACTIVE", "available": false,
            "exclusive_access": true, "quantity_limit": 2,
            "commerce_start_date": launch_time(today, 2, 14), "images": [], "descriptions": [],
            "launches": [{"launch_method": "FLOW", "start_date": launch_time(today, 2, 14),
                          "invitation_only": false, "payment_method": "CARD"}],
            "variants": [variant("9", "HIGH"), variant("9.5", "HIGH")]
        }),
        json!({
            "id": "5f1e2d3c-0003-4000-8000-000000000003", "slug": "jordan-tee",
            "title": "Jordan Tee", "subtitle": "Black", "skus": ["FN0000-010"], "country": "US",
            "currency": "USD", "msrp": 40, "product_type": "APPAREL", "status": "ACTIVE",
            "commerce_start_date": launch_time(today, 3, 14),
            "launches": [{"launch_method": "FLOW", "start_date": launch_time(today, 3, 14)}],
            "variants": []
        }),
        json!({
            "id": "5f1e2d3c-0004-4000-8000-000000000004", "slug": "dunk-low-past",
            "title": "Dunk Low", "subtitle": "Past", "skus": ["DD1391-100"], "country": "US",
            "currency": "USD", "msrp": 110, "product_type": "FOOTWEAR", "status": "ACTIVE",
            "commerce_start_date": launch_time(today, -20, 14),
            "launches": [{"launch_method": "LEO", "start_date": launch_time(today, -20, 14)}],
            "variants": [variant("9", "OOS")]
        }),
    ]
}
