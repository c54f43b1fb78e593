//! The marketplace simulator over a generated catalogue: identifiers, live figures, currencies,
//! and the simulated upstream failures.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use solescope::catalogue::Catalogue;
use solescope::service::marketplace::{
    Marketplaces, RelatedQuery, Simulator, SimulatorConfig, UpstreamError,
};

/// 2026-11-22T12:00:10Z.
const START: i64 = 1_795_348_810;

struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
    /// Seconds since the epoch the simulator's clock reads.
    now: Arc<AtomicI64>,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = common::catalogue(dir.path(), "catalogue.sqlite", 300, 7);
        Self {
            _dir: dir,
            path,
            now: Arc::new(AtomicI64::new(START)),
        }
    }

    fn simulator(&self, config: SimulatorConfig) -> Simulator {
        let now = self.now.clone();
        Simulator::open(&self.path, config)
            .unwrap()
            .with_clock(Arc::new(move || {
                DateTime::<Utc>::from_timestamp(now.load(Ordering::SeqCst), 0).unwrap()
            }))
    }

    /// A fast simulator without failures.
    fn quick(&self) -> Simulator {
        self.simulator(SimulatorConfig {
            seed: 11,
            latency_ms: 0,
            failure_rate: 0.0,
            timeout_ms: 5_000,
        })
    }

    fn set_minutes_after_start(&self, minutes: i64) {
        self.now.store(START + minutes * 60, Ordering::SeqCst);
    }

    fn products(&self, order_by: &str) -> Vec<Row> {
        rows(&self.path, order_by)
    }
}

#[derive(Debug, Clone)]
struct Row {
    pk: i64,
    id: String,
    slug: String,
    brand: String,
    model: String,
    size_system: String,
    retail_usd_cents: i64,
    min_usd_cents: i64,
    avg_usd_cents: i64,
    max_usd_cents: i64,
    min_eur_cents: i64,
    popularity: i64,
}

fn rows(path: &Path, order_by: &str) -> Vec<Row> {
    let catalogue = Catalogue::open_read_only(path).unwrap();
    let sql = format!(
        "SELECT pk, id, slug, brand, model, size_system, retail_usd_cents, min_usd_cents,
                avg_usd_cents, max_usd_cents, min_eur_cents, popularity
         FROM products ORDER BY {order_by}"
    );
    let mut statement = catalogue.connection().prepare(&sql).unwrap();
    statement
        .query_map([], |row| {
            Ok(Row {
                pk: row.get(0)?,
                id: row.get(1)?,
                slug: row.get(2)?,
                brand: row.get(3)?,
                model: row.get(4)?,
                size_system: row.get(5)?,
                retail_usd_cents: row.get(6)?,
                min_usd_cents: row.get(7)?,
                avg_usd_cents: row.get(8)?,
                max_usd_cents: row.get(9)?,
                min_eur_cents: row.get(10)?,
                popularity: row.get(11)?,
            })
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// `(size, size_uk, size_eu, gtin)` of a product's variants, smallest first.
fn variants(path: &Path, pk: i64) -> Vec<(String, String, String, Option<String>)> {
    let catalogue = Catalogue::open_read_only(path).unwrap();
    let mut statement = catalogue
        .connection()
        .prepare(
            "SELECT size, size_uk, size_eu, gtin FROM variants WHERE product_pk = ?1 ORDER BY position",
        )
        .unwrap();
    statement
        .query_map([pk], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn query(currency: Option<&str>) -> RelatedQuery {
    RelatedQuery {
        currency: currency.map(str::to_owned),
        ..RelatedQuery::default()
    }
}

#[tokio::test]
async fn the_same_minute_gives_identical_figures_and_later_minutes_move() {
    let fixture = Fixture::new();
    let simulator = fixture.quick();
    let top = &fixture.products("popularity DESC, pk")[0];

    let a = simulator.resale_a_product(&top.id).await.unwrap().value;
    let b = simulator
        .resale_b_related(&top.id, &query(None))
        .await
        .unwrap()
        .value;
    let r = simulator
        .retailer_product(&top.slug, None)
        .await
        .unwrap()
        .value;
    // Later in the same minute: everything identical.
    fixture.now.store(START + 45, Ordering::SeqCst);
    assert_eq!(simulator.resale_a_product(&top.id).await.unwrap().value, a);
    assert_eq!(
        simulator
            .resale_b_related(&top.id, &query(None))
            .await
            .unwrap()
            .value,
        b
    );
    assert_eq!(
        simulator
            .retailer_product(&top.slug, None)
            .await
            .unwrap()
            .value,
        r
    );
    // A fresh simulator with the same seed agrees too: nothing depends on call history.
    assert_eq!(
        fixture
            .quick()
            .resale_a_product(&top.id)
            .await
            .unwrap()
            .value,
        a
    );

    let mut moved_a = 0;
    let mut moved_b = 0;
    for minute in 1..=5 {
        fixture.set_minutes_after_start(minute);
        let later_a = simulator.resale_a_product(&top.id).await.unwrap().value;
        let later_b = simulator
            .resale_b_related(&top.id, &query(None))
            .await
            .unwrap()
            .value;
        moved_a += usize::from(
            (later_a.lowest_price_cents, later_a.selling_count)
                != (a.lowest_price_cents, a.selling_count),
        );
        moved_b += later_b
            .iter()
            .zip(&b)
            .filter(|(later, first)| later.market != first.market)
            .count();
        // Only the figures move; the product stays the same.
        assert_eq!(
            (later_a.id, &later_a.slug, &later_a.size_options),
            (a.id, &a.slug, &a.size_options)
        );
    }
    assert!(
        moved_a >= 3,
        "resale-a moved in only {moved_a} of 5 minutes"
    );
    assert!(
        moved_b >= 20,
        "resale-b markets moved only {moved_b} times in 5 minutes"
    );

    // Over a day the retailer's stock changes for some size.
    let mut stock_changes = 0;
    for hour in 1..=24 {
        fixture.set_minutes_after_start(hour * 60);
        let later = simulator
            .retailer_product(&top.slug, None)
            .await
            .unwrap()
            .value;
        stock_changes += later
            .variants
            .iter()
            .zip(&r.variants)
            .filter(|(later, first)| {
                later.available != first.available || later.updated_at != first.updated_at
            })
            .count();
    }
    assert!(stock_changes > 0);
}

#[tokio::test]
async fn every_identifier_finds_the_same_resale_a_product() {
    let fixture = Fixture::new();
    let simulator = fixture.quick();
    for row in fixture.products("pk").iter().step_by(37) {
        let by_uuid = simulator.resale_a_product(&row.id).await.unwrap().value;
        let by_upper_uuid = simulator
            .resale_a_product(&row.id.to_uppercase())
            .await
            .unwrap()
            .value;
        let by_slug = simulator.resale_a_product(&row.slug).await.unwrap().value;
        let by_number = simulator
            .resale_a_product(&by_uuid.id.to_string())
            .await
            .unwrap()
            .value;
        let by_own_slug = simulator
            .resale_a_product(&by_uuid.slug)
            .await
            .unwrap()
            .value;
        assert_eq!(by_upper_uuid, by_uuid);
        assert_eq!(by_slug, by_uuid);
        assert_eq!(by_number, by_uuid);
        assert_eq!(by_own_slug, by_uuid);
        // The marketplace's own names are not the catalogue's.
        assert_ne!(by_uuid.slug, row.slug);
        assert_ne!(by_uuid.id, row.pk);
        assert!(by_uuid.id >= 100_000);

        // resale-b: UUID and slug (its urlKey) give the same related products.
        let related = simulator
            .resale_b_related(&row.id, &query(None))
            .await
            .unwrap()
            .value;
        assert_eq!(
            simulator
                .resale_b_related(&row.slug, &query(None))
                .await
                .unwrap()
                .value,
            related
        );
        for node in &related {
            let again = simulator
                .resale_b_related(&node.url_key, &query(None))
                .await
                .unwrap()
                .value;
            assert!(
                !again.iter().any(|n| n.id == node.id),
                "a product is not related to itself"
            );
        }

        // retailer-a: its own slug, the catalogue slug, the UUID and the gid agree.
        let product = simulator
            .retailer_product(&row.slug, None)
            .await
            .unwrap()
            .value;
        assert_ne!(product.slug, row.slug);
        assert_eq!(
            simulator
                .retailer_product(&product.slug, None)
                .await
                .unwrap()
                .value,
            product
        );
        assert_eq!(
            simulator
                .retailer_product(&row.id, None)
                .await
                .unwrap()
                .value,
            product
        );
        assert_eq!(
            simulator
                .retailer_product(&product.id, None)
                .await
                .unwrap()
                .value,
            product
        );
        assert!(
            product.id.starts_with("gid://shopify/Product/"),
            "{}",
            product.id
        );
    }
}

#[tokio::test]
async fn asks_bids_and_sales_agree_with_the_catalogue() {
    let fixture = Fixture::new();
    let simulator = fixture.quick();
    let rows = fixture.products("popularity DESC, pk");
    let by_id = |id: &str| rows.iter().find(|row| row.id == id).unwrap();
    let mut ratios = Vec::new();
    for minute in [0, 7, 600] {
        fixture.set_minutes_after_start(minute);
        for row in rows.iter().step_by(13) {
            let product = simulator.resale_a_product(&row.id).await.unwrap().value;
            let lowest = product.lowest_price_cents;
            assert!(lowest >= row.min_usd_cents * 9 / 10, "{lowest} vs {row:?}");
            assert!(lowest <= row.avg_usd_cents * 5 / 4, "{lowest} vs {row:?}");
            assert_eq!(lowest % 100, 0, "whole dollars");
            assert_eq!(product.localized_special_display_price_cents.amount, lowest);
            assert_eq!(
                product.localized_special_display_price_cents.currency,
                "USD"
            );
            // Sizes with an ask carry a real price; the cheapest of them is the lowest price.
            let asks: Vec<i64> = product
                .available_sizes_new
                .iter()
                .map(|size| size["lowestPriceCents"].as_i64().unwrap())
                .collect();
            assert!(!asks.is_empty() && asks.iter().all(|cents| *cents > 0));
            assert_eq!(asks.iter().min(), Some(&lowest));
            assert!(product.selling_count >= asks.len() as i64);

            for node in simulator
                .resale_b_related(&row.id, &query(None))
                .await
                .unwrap()
                .value
            {
                let state = &node.market.state;
                let sales = &node.market.sales_information;
                assert!(
                    state.lowest_ask.amount > state.highest_bid.amount,
                    "{node:?}"
                );
                assert!(state.highest_bid.amount > 0.0);
                let spread = 1.0 - state.highest_bid.amount / state.lowest_ask.amount;
                assert!(spread < 0.2, "{spread}");
                assert!(
                    (state.highest_bid.amount..=state.lowest_ask.amount).contains(&sales.last_sale)
                );
                // Between the cheapest and the dearest size's catalogue price, give or take the
                // day's drift; near the cheapest one when that size has an ask (see below).
                let related = by_id(&node.id);
                let min = related.min_usd_cents as f64 / 100.0;
                let max = related.max_usd_cents as f64 / 100.0;
                assert!(
                    (min * 0.9..=max * 1.1).contains(&state.lowest_ask.amount),
                    "{} vs {related:?}",
                    state.lowest_ask.amount
                );
                ratios.push(state.lowest_ask.amount / min);
                // 72-hour sales follow the last four weeks' orders (3/28 of them, give or take).
                let expected = related.popularity as f64 * 3.0 / 28.0;
                assert!(
                    (sales.sales_last_72_hours as f64) <= expected * 2.0 + 3.0,
                    "{} vs {expected}",
                    sales.sales_last_72_hours
                );
                assert!(state.number_of_asks > 0 && state.number_of_bids > 0);
            }
        }
    }
    assert!(ratios.len() > 100);
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    assert!(
        (0.95..1.1).contains(&median),
        "median lowest ask / catalogue min {median}"
    );
    // The best seller trades: sales in 72 hours and a deep book.
    let top = simulator
        .resale_b_related(&rows[1].id, &query(None))
        .await
        .unwrap()
        .value;
    let best = top.iter().find(|node| node.id == rows[0].id);
    if let Some(best) = best {
        assert!(best.market.sales_information.sales_last_72_hours > 0);
    }
    let busiest = simulator.resale_a_product(&rows[0].id).await.unwrap().value;
    let quietest = simulator
        .resale_a_product(&rows[rows.len() - 1].id)
        .await
        .unwrap()
        .value;
    assert!(busiest.selling_count > quietest.selling_count * 3);
}

#[tokio::test]
async fn resale_a_sizes_are_the_catalogue_run_with_gaps_where_nobody_asks() {
    let fixture = Fixture::new();
    let simulator = fixture.quick();
    let mut gaps = 0;
    for row in fixture.products("popularity, pk").iter().take(40) {
        let product = simulator.resale_a_product(&row.id).await.unwrap().value;
        let run = variants(&fixture.path, row.pk);
        let labels: Vec<&str> = product
            .size_options
            .iter()
            .map(|o| o.presentation.as_str())
            .collect();
        assert_eq!(labels, run.iter().map(|v| v.0.as_str()).collect::<Vec<_>>());
        for option in &product.size_options {
            let number: f64 = option
                .presentation
                .trim_end_matches(['Y', 'C'])
                .parse()
                .unwrap();
            assert!((option.value - number).abs() < f64::EPSILON);
        }
        assert_eq!(product.size_range.len(), run.len());
        gaps += run.len() - product.available_sizes_new.len();
    }
    assert!(gaps > 0, "slow sellers have sizes nobody asks for");
}

#[tokio::test]
async fn retailer_variants_follow_the_catalogue_size_run() {
    let fixture = Fixture::new();
    let simulator = fixture.quick();
    let rows = fixture.products("pk");
    let men = rows.iter().find(|row| row.size_system == "US M").unwrap();
    let product = simulator
        .retailer_product(&men.slug, None)
        .await
        .unwrap()
        .value;
    let run = variants(&fixture.path, men.pk);
    assert_eq!(product.variants.len(), run.len());
    for (variant, (us, uk, eu, gtin)) in product.variants.iter().zip(&run) {
        assert_eq!(variant.size, format!("US M {us} / UK {uk} / EU {eu}"));
        let gtin = gtin.clone().unwrap_or_default();
        assert_eq!(variant.barcode, gtin);
        let expected_type = match gtin.len() {
            12 => "UPC",
            13 => "EAN",
            _ => "",
        };
        assert_eq!(variant.barcode_type, expected_type);
        assert!(variant.id.starts_with("gid://shopify/ProductVariant/"));
        assert_eq!(variant.currency, "USD");
        if variant.price == 0.0 {
            assert!(
                !variant.available,
                "a size without a price cannot be bought"
            );
        } else {
            assert!((variant.price - men.retail_usd_cents as f64 / 100.0).abs() < 1e-9);
        }
        // `2026-11-22T11:58:07.123456Z`: microseconds, UTC, not in the future.
        let fraction = variant.updated_at.split('.').nth(1).unwrap();
        assert_eq!(fraction.len(), 7, "{}", variant.updated_at);
        let stamp = DateTime::parse_from_rfc3339(&variant.updated_at).unwrap();
        assert!(stamp.timestamp() <= START);
    }
    assert!(product.updated_at >= product.variants[0].updated_at);
    assert!(product.description.starts_with("<p>"));

    // Kids' runs carry their own labels.
    if let Some(kids) = rows.iter().find(|row| row.size_system == "US GS") {
        let product = simulator
            .retailer_product(&kids.slug, None)
            .await
            .unwrap()
            .value;
        assert!(
            product.variants[0].size.starts_with("US 3.5Y / UK "),
            "{}",
            product.variants[0].size
        );
    }
}

#[tokio::test]
async fn related_products_share_the_model_then_the_brand() {
    let fixture = Fixture::new();
    let simulator = fixture.quick();
    let rows = fixture.products("pk");
    let row = &rows[0];
    let related = simulator
        .resale_b_related(&row.slug, &query(None))
        .await
        .unwrap()
        .value;
    assert_eq!(related.len(), 8);
    let same_model = rows
        .iter()
        .filter(|other| other.pk != row.pk && other.model == row.model && other.brand == row.brand)
        .count();
    for (i, node) in related.iter().enumerate() {
        let other = rows.iter().find(|other| other.id == node.id).unwrap();
        assert_ne!(other.pk, row.pk);
        assert_eq!(other.brand, row.brand);
        assert_eq!(i < same_model, other.model == row.model, "{node:?}");
        assert_eq!(node.url_key, other.slug);
        assert_eq!(node.listing_type, "STANDARD");
        assert!(node.media.thumb_url.starts_with("https://"));
        assert!(
            node.title.starts_with(&node.primary_title) && !node.title.ends_with('\''),
            "{}",
            node.title
        );
    }
}

#[tokio::test]
async fn euros_and_pounds_change_the_amounts() {
    let fixture = Fixture::new();
    let simulator = fixture.quick();
    let rows = fixture.products("pk");
    let row = &rows[3];
    let usd = simulator
        .resale_b_related(&row.id, &query(None))
        .await
        .unwrap()
        .value;
    let explicit = simulator
        .resale_b_related(&row.id, &query(Some("usd")))
        .await
        .unwrap()
        .value;
    assert_eq!(explicit, usd);
    let eur = simulator
        .resale_b_related(&row.id, &query(Some("EUR")))
        .await
        .unwrap()
        .value;
    let gbp = simulator
        .resale_b_related(&row.id, &query(Some("GBP")))
        .await
        .unwrap()
        .value;
    // Euro amounts differ from dollar ones (one product may land on the same number by chance).
    assert!(
        usd.iter()
            .zip(&eur)
            .filter(|(usd, eur)| {
                (usd.market.state.lowest_ask.amount - eur.market.state.lowest_ask.amount).abs()
                    >= 1.0
            })
            .count()
            * 2
            > usd.len(),
        "EUR asks are not the USD ones"
    );
    for ((usd, eur), gbp) in usd.iter().zip(&eur).zip(&gbp) {
        assert_eq!((&usd.id, &usd.id), (&eur.id, &gbp.id));
        let (dollars, euros, pounds) = (
            usd.market.state.lowest_ask.amount,
            eur.market.state.lowest_ask.amount,
            gbp.market.state.lowest_ask.amount,
        );
        let ratio = pounds / dollars;
        assert!((0.75..0.83).contains(&ratio), "GBP/USD {ratio}");
        // Euro asks start from the catalogue's own euro prices: the same sizes and moves as in
        // dollars, at the product's own EUR/USD price ratio.
        let other = rows.iter().find(|other| other.id == usd.id).unwrap();
        let catalogue_ratio = other.min_eur_cents as f64 / other.min_usd_cents as f64;
        let ratio = euros / dollars;
        assert!(
            (ratio - catalogue_ratio).abs() < 0.03,
            "EUR/USD {ratio} vs the catalogue's {catalogue_ratio}"
        );
        assert!(eur.market.state.highest_bid.amount < euros);
    }
    // A market abroad is a little dearer than the US one.
    let japan = RelatedQuery {
        market: Some("JP".into()),
        ..RelatedQuery::default()
    };
    let jp = simulator
        .resale_b_related(&row.id, &japan)
        .await
        .unwrap()
        .value;
    let dearer = jp
        .iter()
        .zip(&usd)
        .filter(|(jp, us)| jp.market.state.lowest_ask.amount > us.market.state.lowest_ask.amount)
        .count();
    assert!(dearer * 2 > jp.len(), "{dearer} of {}", jp.len());
}

#[tokio::test]
async fn unknown_ids_are_not_found_and_malformed_requests_are_bad() {
    let fixture = Fixture::new();
    let simulator = fixture.quick();
    let long = "a".repeat(201);
    for id in [
        "no-such-sneaker",
        "123",
        "00000000-0000-4000-8000-000000000000",
        "gid://shopify/Product/1",
    ] {
        let a = simulator.resale_a_product(id).await.unwrap_err();
        assert!(
            matches!(&a, UpstreamError::NotFound(m) if m.contains(id)),
            "{a:?}"
        );
        let b = simulator
            .resale_b_related(id, &query(None))
            .await
            .unwrap_err();
        assert!(matches!(b, UpstreamError::NotFound(_)), "{b:?}");
        let r = simulator.retailer_product(id, None).await.unwrap_err();
        assert!(matches!(r, UpstreamError::NotFound(_)), "{r:?}");
    }
    for id in ["", "  ", "bad\u{0}id", "tab\tid", long.as_str()] {
        let a = simulator.resale_a_product(id).await.unwrap_err();
        assert!(matches!(a, UpstreamError::BadRequest(_)), "{id:?}: {a:?}");
        let b = simulator
            .resale_b_related(id, &query(None))
            .await
            .unwrap_err();
        assert!(matches!(b, UpstreamError::BadRequest(_)), "{id:?}: {b:?}");
        let r = simulator.retailer_product(id, None).await.unwrap_err();
        assert!(matches!(r, UpstreamError::BadRequest(_)), "{id:?}: {r:?}");
    }
    let row = &fixture.products("pk")[0];
    let bad_queries = [
        RelatedQuery {
            currency: Some("XYZ".into()),
            ..RelatedQuery::default()
        },
        RelatedQuery {
            country: Some("ZZ".into()),
            ..RelatedQuery::default()
        },
        RelatedQuery {
            market: Some("Mars".into()),
            ..RelatedQuery::default()
        },
    ];
    for bad in &bad_queries {
        let err = simulator.resale_b_related(&row.id, bad).await.unwrap_err();
        assert!(
            matches!(err, UpstreamError::BadRequest(_)),
            "{bad:?}: {err:?}"
        );
    }
    // Empty values mean the defaults.
    let empty = RelatedQuery {
        country: Some(String::new()),
        currency: Some(String::new()),
        market: Some(String::new()),
    };
    assert_eq!(
        simulator
            .resale_b_related(&row.id, &empty)
            .await
            .unwrap()
            .value,
        simulator
            .resale_b_related(&row.id, &query(None))
            .await
            .unwrap()
            .value
    );
}

#[tokio::test]
async fn a_failure_rate_of_one_always_fails() {
    let fixture = Fixture::new();
    let simulator = fixture.simulator(SimulatorConfig {
        seed: 1,
        latency_ms: 1,
        failure_rate: 1.0,
        timeout_ms: 5_000,
    });
    let row = &fixture.products("pk")[0];
    for _ in 0..5 {
        assert!(matches!(
            simulator.resale_a_product(&row.id).await,
            Err(UpstreamError::Failed(_))
        ));
        assert!(matches!(
            simulator.resale_b_related(&row.id, &query(None)).await,
            Err(UpstreamError::Failed(_))
        ));
        assert!(matches!(
            simulator.retailer_product(&row.slug, None).await,
            Err(UpstreamError::Failed(_))
        ));
    }
    // Still a bad request before any upstream call.
    assert!(matches!(
        simulator.resale_a_product("").await,
        Err(UpstreamError::BadRequest(_))
    ));
}

#[tokio::test]
async fn latency_beyond_the_timeout_times_out_after_the_timeout() {
    let fixture = Fixture::new();
    let simulator = fixture.simulator(SimulatorConfig {
        seed: 1,
        latency_ms: 60_000,
        failure_rate: 0.0,
        timeout_ms: 80,
    });
    let row = &fixture.products("pk")[0];
    let started = Instant::now();
    let result = tokio::time::timeout(Duration::from_secs(3), simulator.resale_a_product(&row.id))
        .await
        .expect("the simulator gave up on its own, long before the latency");
    assert!(
        matches!(result, Err(UpstreamError::Timeout(_))),
        "{result:?}"
    );
    assert!(started.elapsed() >= Duration::from_millis(80));
    let result = tokio::time::timeout(
        Duration::from_secs(3),
        simulator.retailer_product(&row.slug, None),
    )
    .await
    .unwrap();
    assert!(
        matches!(result, Err(UpstreamError::Timeout(_))),
        "{result:?}"
    );
}

#[tokio::test]
async fn latency_is_waited_without_blocking_other_calls() {
    let fixture = Fixture::new();
    let simulator = Arc::new(fixture.simulator(SimulatorConfig {
        seed: 1,
        latency_ms: 200,
        failure_rate: 0.0,
        timeout_ms: 5_000,
    }));
    let row = fixture.products("pk")[0].clone();
    let started = Instant::now();
    let calls: Vec<_> = (0..8)
        .map(|_| {
            let simulator = simulator.clone();
            let id = row.id.clone();
            tokio::spawn(async move { simulator.resale_a_product(&id).await })
        })
        .collect();
    for call in calls {
        call.await.unwrap().unwrap();
    }
    let elapsed = started.elapsed();
    // Eight calls of ~200 ms on one test thread overlap: sleeping, not blocking.
    assert!(elapsed >= Duration::from_millis(160), "{elapsed:?}");
    assert!(elapsed < Duration::from_millis(1_200), "{elapsed:?}");
}

/// What the simulator says it answers for (`GET /api/v2/sources`, which the Real-time tab
/// offers) is what it answers: every country, currency and market it lists is accepted.
#[tokio::test]
async fn every_code_the_simulator_offers_is_answered() {
    use solescope::service::marketplace::markets::{COUNTRIES, CURRENCIES};
    let fixture = Fixture::new();
    let simulator = fixture.quick();
    let offered = simulator
        .sources()
        .resale_b
        .expect("the simulator answers resale-b");
    let currencies: Vec<&str> = CURRENCIES.iter().map(|c| c.code).collect();
    assert_eq!(offered.currencies, currencies);
    let countries: Vec<&str> = COUNTRIES.iter().map(|c| c.code).collect();
    assert_eq!(offered.countries, countries);
    let row = &fixture.products("pk")[0];
    for currency in &offered.currencies {
        let query = RelatedQuery {
            currency: Some(currency.clone()),
            ..RelatedQuery::default()
        };
        simulator.resale_b_related(&row.id, &query).await.unwrap();
    }
    for market in &offered.markets {
        let query = RelatedQuery {
            country: Some(market.clone()),
            market: Some(market.clone()),
            ..RelatedQuery::default()
        };
        simulator.resale_b_related(&row.id, &query).await.unwrap();
    }
}
