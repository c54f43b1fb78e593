//! The `resale-a` product: a catalogue product as that marketplace lists it, with live asks.
//!
//! Shapes the specification leaves open are filled in as follows: `availableSizesNew` lists the
//! sizes that have an ask right now, each as `{"size": 9.0, "presentation": "9",
//! "lowestPriceCents": 23500}` (sizes without an ask are absent: no price, never 0); the other
//! `availableSizes*`, `featuredIn`, `productTaxonomy` and `robotAssets` are empty, as in the only
//! case the specification shows. Prices are US cents in whole dollars, as the marketplace quotes.

use chrono::NaiveDate;
use rusqlite::Connection;
use serde_json::json;

use super::ids::{pk_from_resale_a_id, pk_from_resale_a_slug, resale_a_id, resale_a_slug};
use super::live::{Market, Venue};
use super::markets::Quote;
use super::store::{self, Listing, ProductRow};
use super::text;
use crate::model::{LocalizedPrice, ResaleAProduct, SizeOption};

/// Finds a product by `resale-a` numeric id or slug, or by catalogue UUID or slug.
pub(super) fn find(conn: &Connection, key: &str) -> rusqlite::Result<Option<ProductRow>> {
    let numeric_pk = (!key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()))
        .then(|| key.parse().ok().and_then(pk_from_resale_a_id))
        .flatten();
    if let Some(pk) = numeric_pk
        && let Some(product) = store::product_by_pk(conn, pk)?
    {
        return Ok(Some(product));
    }
    if let Some(product) = store::product_by_catalogue_key(conn, key)? {
        return Ok(Some(product));
    }
    if let Some(pk) = pk_from_resale_a_slug(key)
        && let Some(product) = store::product_by_pk(conn, pk)?
        && resale_a_id(product.pk)
            .map(|id| resale_a_slug(&product.title, id))
            .as_deref()
            == Some(key)
    {
        return Ok(Some(product));
    }
    Ok(None)
}

/// Who designed a silhouette, its midsole and usual upper, by model name prefix.
const MODEL_FACTS: &[(&str, &str, &str, &str)] = &[
    // Longer prefixes first: `Air Jordan 1` is a prefix of `Air Jordan 11`.
    ("Air Jordan 11", "Tinker Hatfield", "Air", "Patent Leather"),
    ("Air Jordan 1", "Peter Moore", "Air", "Leather"),
    ("Air Jordan 4", "Tinker Hatfield", "Air", "Leather"),
    ("SB Dunk", "Peter Moore", "Zoom Air", "Suede"),
    ("Dunk", "Peter Moore", "Rubber Cupsole", "Leather"),
    ("Air Force 1", "Bruce Kilgore", "Air", "Leather"),
    ("Air Max 1", "Tinker Hatfield", "Air Max", "Suede/Mesh"),
    ("KD", "Leo Chang", "Zoom Air", "Synthetic"),
    ("Yeezy Boost", "Kanye West", "Boost", "Primeknit"),
    ("Samba", "adidas", "Gum Rubber", "Leather"),
    ("Gazelle", "adidas", "Gum Rubber", "Suede"),
    ("Campus", "adidas", "Rubber", "Suede"),
    ("990", "New Balance", "ENCAP", "Suede/Mesh"),
    ("9060", "New Balance", "ABZORB", "Suede/Mesh"),
    ("2002R", "New Balance", "ABZORB", "Suede/Mesh"),
    ("550", "New Balance", "Rubber", "Leather"),
    ("GEL-", "ASICS", "GEL", "Mesh"),
    ("Chuck 70", "Converse", "Vulcanized Rubber", "Canvas"),
    ("Speedcat", "Puma", "Rubber", "Suede"),
    ("XT-6", "Salomon", "EnergyCell", "Mesh"),
];

/// Upper materials named in titles and colourways beat the model's usual one.
const MATERIAL_WORDS: &[(&str, &str)] = &[
    ("patent", "Patent Leather"),
    ("suede", "Suede"),
    ("velvet", "Velvet"),
    ("canvas", "Canvas"),
    ("nubuck", "Nubuck"),
    ("snakeskin", "Snakeskin"),
    ("corduroy", "Corduroy"),
    ("denim", "Denim"),
];

fn model_facts(product: &ProductRow) -> (String, String, String) {
    let facts = MODEL_FACTS
        .iter()
        .find(|(prefix, ..)| product.model.starts_with(prefix));
    let (designer, midsole, usual_upper) =
        facts.map_or((product.brand.as_str(), "", "Leather"), |f| (f.1, f.2, f.3));
    let words = format!("{} {}", product.title, product.color).to_ascii_lowercase();
    let upper = MATERIAL_WORDS
        .iter()
        .find(|(word, _)| words.contains(word))
        .map_or(usual_upper, |(_, material)| material);
    (designer.to_owned(), midsole.to_owned(), upper.to_owned())
}

/// `Holiday 2024`, `Spring 2025`: the release season, empty when the day is not known.
fn season(release_date: &str) -> String {
    use chrono::Datelike;
    NaiveDate::parse_from_str(release_date, "%Y-%m-%d")
        .map(|day| {
            let name = match day.month() {
                1 | 2 => "Winter",
                3..=5 => "Spring",
                6..=8 => "Summer",
                9 | 10 => "Fall",
                _ => "Holiday",
            };
            format!("{name} {}", day.year())
        })
        .unwrap_or_default()
}

/// The marketplace's gender word for a catalogue gender.
fn gender_word(gender: &str) -> String {
    match gender {
        "toddler" | "infant" => "infant".to_owned(),
        "" => "unisex".to_owned(),
        other => other.to_ascii_lowercase(),
    }
}

/// The `sizeBrand` key: the brand in snake case (`air_jordan` for Jordan, as the marketplace has it).
fn size_brand(brand: &str) -> String {
    if brand == "Jordan" {
        return "air_jordan".to_owned();
    }
    brand
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("_")
}

/// The product as `resale-a` shows it at `minute` (Unix minutes), for `seed`.
pub(super) fn product(
    listing: &Listing,
    seed: u64,
    minute: i64,
    today: NaiveDate,
) -> ResaleAProduct {
    let product = &listing.product;
    let id = resale_a_id(product.pk).unwrap_or_default();
    let slug = resale_a_slug(&product.title, id);
    let market = Market::new(seed, listing, Venue::ResaleA, &Quote::us());
    let book = market.book(minute);
    let size_asks = market.size_asks(minute);

    let labels: Vec<(String, f64)> = if listing.variants.is_empty() {
        Vec::new()
    } else {
        listing
            .variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                (
                    v.size.clone(),
                    text::size_number(&v.size).unwrap_or(i as f64 + 1.0),
                )
            })
            .collect()
    };
    let available_sizes_new = labels
        .iter()
        .zip(&size_asks)
        .filter_map(|((presentation, value), ask)| {
            ask.map(|dollars| {
                json!({"size": value, "presentation": presentation, "lowestPriceCents": dollars * 100})
            })
        })
        .collect();

    let lowest_cents = book.lowest_ask * 100;
    let released = NaiveDate::parse_from_str(&product.release_date, "%Y-%m-%d").ok();
    let days_out = released.map_or(365, |day| (today - day).num_days());
    let (used_count, used_dollars) =
        market.used(minute, book.lowest_ask, book.number_of_asks, days_out);
    let (designer, midsole, upper_material) = model_facts(product);
    let gender = gender_word(&product.gender);
    let description = product.description.as_deref().unwrap_or("");
    let use_category = product
        .category
        .split(" > ")
        .nth(1)
        .map_or_else(|| "lifestyle".to_owned(), str::to_ascii_lowercase);
    let picture = |kind: &str| {
        format!("https://images.resale-a.example/product_templates/{id}/{kind}/{slug}.png")
    };
    let posts_stream = super::live::Stream::new(seed, product.pk).bits(0);

    ResaleAProduct {
        id,
        name: product.title.clone(),
        nickname: text::nickname(&product.title)
            .unwrap_or(&product.color)
            .to_owned(),
        slug: slug.clone(),
        // This marketplace writes Nike-style codes with a space (`DZ5485 612`).
        sku: product.sku.replace('-', " "),
        brand_name: if product.brand == "Jordan" {
            "Air Jordan".to_owned()
        } else {
            product.brand.clone()
        },
        designer,
        details: product.color.clone(),
        color: product
            .color
            .split(['/', '-'])
            .next()
            .unwrap_or("")
            .trim()
            .to_owned(),
        silhouette: product.model.clone(),
        midsole,
        upper_material,
        season: season(&product.release_date),
        category: vec![use_category],
        gender: vec![gender.clone()],
        single_gender: gender.clone(),
        product_category: "shoes".to_owned(),
        product_type: "sneakers".to_owned(),
        product_taxonomy: Vec::new(),
        special_type: "standard".to_owned(),
        status: "active".to_owned(),
        release_date: text::release_timestamp(&product.release_date),
        story: text::plain_text(description),
        story_html: text::html_paragraphs(description),
        internal_shot: "taken".to_owned(),
        size_brand: size_brand(&product.brand),
        size_type: gender,
        size_unit: "us".to_owned(),
        size_options: labels
            .iter()
            .map(|(presentation, value)| SizeOption {
                presentation: presentation.clone(),
                value: *value,
            })
            .collect(),
        size_range: labels.iter().map(|(_, value)| *value).collect(),
        available_sizes_new,
        available_sizes_new_v2: Vec::new(),
        available_sizes_new_with_defects: Vec::new(),
        available_sizes_used: Vec::new(),
        featured_in: Vec::new(),
        robot_assets: Vec::new(),
        grid_picture_url: picture("grid"),
        grid_glow_picture_url: picture("grid_glow"),
        main_picture_url: picture("main"),
        main_glow_picture_url: picture("main_glow"),
        picture_url: picture("original"),
        wallet_pay_only_promo: false,
        direct_shipping: false,
        for_auction: false,
        is_availability_restricted: false,
        is_fashion_product: false,
        is_offerable: true,
        is_ownable: true,
        // Hyped pairs not out yet go to a draw.
        is_raffle_product: product.trending && released.is_some_and(|day| day > today),
        is_resellable: true,
        is_wantable: true,
        render_images_in_order: false,
        lowest_price_cents: lowest_cents,
        new_lowest_price_cents: lowest_cents,
        used_lowest_price_cents: used_dollars * 100,
        special_display_price_cents: lowest_cents,
        maximum_offer_cents: (product.max_usd_cents * 3).max(500_000) / 10_000 * 10_000,
        minimum_offer_cents: 2_500,
        selling_count: book.number_of_asks,
        used_for_sale_count: used_count,
        with_defect_for_sale_count: book.number_of_asks / 80,
        microposts_count: product.popularity / 3 + (posts_stream % 40) as i64,
        localized_special_display_price_cents: LocalizedPrice {
            amount: lowest_cents,
            amount_usd_cents: lowest_cents,
            currency: "USD".to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seasons_and_size_brands_read_like_the_marketplace() {
        assert_eq!(season("2024-11-23"), "Holiday 2024");
        assert_eq!(season("2025-04-01"), "Spring 2025");
        assert_eq!(season(""), "");
        assert_eq!(size_brand("Jordan"), "air_jordan");
        assert_eq!(size_brand("New Balance"), "new_balance");
        assert_eq!(gender_word("toddler"), "infant");
    }
}
