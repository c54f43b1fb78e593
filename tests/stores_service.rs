//! Stores as catalogues through the service: `solescope serve`'s service with two mock
//! Shopify stores that name their products their own way (no handle is a catalogue slug), their
//! catalogues crawled and matched by style code or barcode. `GET /api/v3/retailer-a/products/{id}`
//! finds the store's product by the catalogue's id or slug, and by the store's own handle; a store
//! that does not sell the product says so (never a product with a near-identical title); when a
//! store cannot be read live, the crawl's price and stock answer with their age.

mod common;

use std::time::{Duration, Instant};

use common::mock_storefront::{MockStorefront, Mode, sneaker_store};
use solescope::model::{RetailerEnvelope, RetailerStores, ServiceSources, StoreUrl, V2Envelope};
use solescope::service::storefront::crawl::CrawlConfig;
use solescope::service::storefront::{StoreReading, StorefrontConfig};
use solescope::service::{self, ServiceState};

/// The service over a generated catalogue (every real release) with `stores` crawled.
struct Served {
    base: String,
    catalogue: std::path::PathBuf,
    _server: service::ServerHandle,
    _dir: tempfile::TempDir,
}

async fn serve(stores: &[&MockStorefront]) -> Served {
    serve_with(
        stores,
        CrawlConfig {
            watch_interval: Duration::from_millis(100),
            ..CrawlConfig::default()
        },
    )
    .await
}

async fn serve_with(stores: &[&MockStorefront], crawl: CrawlConfig) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 2_000, 11);
    let list = RetailerStores::new(
        stores
            .iter()
            .map(|store| StoreUrl::parse(&store.base_url).unwrap()),
    );
    let reading = StoreReading::with_crawl(
        list,
        StorefrontConfig {
            // A live read reused for a tenth of a second: each request of the test reads.
            cache_ttl: Duration::from_millis(100),
            min_interval: Duration::from_millis(20),
            failures_before_pause: 100,
            ..StorefrontConfig::default()
        },
        &dir.path().join("stores.sqlite"),
        crawl,
    )
    .unwrap();
    let mut config = common::config(&catalogue);
    config.store_reading = Some(reading);
    let state = tokio::task::spawn_blocking(move || ServiceState::open(&config))
        .await
        .unwrap()
        .unwrap();
    let server = service::spawn("127.0.0.1:0", state).await.unwrap();
    Served {
        base: server.base_url(),
        catalogue,
        _server: server,
        _dir: dir,
    }
}

impl Served {
    async fn get(&self, path: &str) -> reqwest::Response {
        reqwest::Client::new()
            .get(format!("{}{path}", self.base))
            .header("Authorization", "demo-pro")
            .send()
            .await
            .unwrap()
    }

    /// Waits until every store's catalogue was read. A store seen read once counts: with a
    /// short pass interval its next pass may already be reading when the list is asked again.
    async fn crawled(&self) {
        let started = Instant::now();
        let mut read: std::collections::HashSet<String> = std::collections::HashSet::new();
        loop {
            let sources: V2Envelope<ServiceSources> =
                self.get("/api/v2/sources").await.json().await.unwrap();
            let stores = sources.data.realtime.stores().to_vec();
            for store in &stores {
                if store
                    .catalogue
                    .as_deref()
                    .is_some_and(|c| c.contains("products read"))
                {
                    read.insert(store.url.clone());
                }
            }
            if !stores.is_empty() && stores.iter().all(|s| read.contains(&s.url)) {
                return;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "{stores:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The hits of `/search?query={query}&limit=50` (`query` as it goes in the URL).
    async fn hits(&self, query: &str) -> Vec<serde_json::Value> {
        let page: serde_json::Value = self
            .get(&format!("/search?query={query}&limit=50"))
            .await
            .json()
            .await
            .unwrap();
        page["hits"].as_array().cloned().unwrap_or_default()
    }

    /// `(id, slug)` of the catalogue product with style code `sku`.
    fn product(&self, sku: &str) -> (String, String) {
        rusqlite::Connection::open(&self.catalogue)
            .unwrap()
            .query_row(
                "SELECT id, slug FROM products WHERE sku = ?1",
                [sku],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap()
    }
}

#[tokio::test]
async fn a_store_is_asked_for_its_own_product_matched_by_style_code_never_by_our_slug() {
    let first = MockStorefront::start(sneaker_store(&[])).await;
    let second = MockStorefront::start(sneaker_store(&[])).await;
    let served = serve(&[&first, &second]).await;
    served.crawled().await;
    let (panda_id, panda_slug) = served.product("DD1391-100");
    for key in [
        &panda_id,
        &panda_slug,
        &"nike-dunk-low-retro-white-black-panda".to_owned(),
    ] {
        for store in [&first, &second] {
            let answer = served
                .get(&format!(
                    "/api/v3/retailer-a/products/{key}?store={}",
                    store.label()
                ))
                .await;
            assert_eq!(answer.status(), 200, "{key} at {}", store.label());
            assert_eq!(
                answer.headers()["x-solescope-store"],
                store.label().as_str(),
                "{key}"
            );
            let product: RetailerEnvelope = answer.json().await.unwrap();
            // The store's own Panda, not the decoy titled like it (`nike-dunk-low-retro-panda`,
            // code DD1873-102), and not asked for by our slug.
            assert_eq!(product.data.slug, "nike-dunk-low-retro-white-black-panda");
            assert_ne!(product.data.slug, panda_slug);
            assert_eq!(product.data.sku, "DD1391-100");
        }
    }
    // A catalogue product the store does not sell: said so, naming the store and its reading.
    let (chicago, _) = served.product("555088-101");
    let answer = served
        .get(&format!(
            "/api/v3/retailer-a/products/{chicago}?store={}",
            first.label()
        ))
        .await;
    assert_eq!(answer.status(), 404);
    let text = answer.text().await.unwrap();
    assert!(
        text.contains("sells no product with this style code"),
        "{text}"
    );
    assert!(
        !first
            .seen()
            .iter()
            .any(|seen| seen.path.contains(&panda_slug)),
        "a store was asked for our slug"
    );
}

#[tokio::test]
async fn a_store_that_cannot_be_read_live_answers_with_the_crawls_price_and_its_age() {
    let store = MockStorefront::start(sneaker_store(&[])).await;
    let served = serve(&[&store]).await;
    served.crawled().await;
    let (panda_id, _) = served.product("DD1391-100");
    let path = format!(
        "/api/v3/retailer-a/products/{panda_id}?store={}",
        store.label()
    );
    let live = served.get(&path).await;
    assert_eq!(live.status(), 200);
    assert!(live.headers().get("x-solescope-as-of").is_none());
    let live: RetailerEnvelope = live.json().await.unwrap();

    store.set_mode(Mode::ServerError);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let kept = served.get(&path).await;
    assert_eq!(kept.status(), 200);
    assert!(kept.headers().get("x-solescope-as-of").is_some());
    assert!(kept.headers().get("x-solescope-stale-reason").is_some());
    let kept: RetailerEnvelope = kept.json().await.unwrap();
    assert_eq!(kept.data.slug, live.data.slug);
    let sizes = |p: &RetailerEnvelope| -> Vec<(String, bool)> {
        p.data
            .variants
            .iter()
            .map(|v| (v.size.clone(), v.available))
            .collect()
    };
    assert_eq!(sizes(&kept), sizes(&live), "the crawl's sizes and stock");
    assert!(kept.data.variants.iter().any(|v| v.price > 0.0));
}

/// What a store sells that no catalogue product is (its Vans, the decoy with a code the
/// catalogue lacks) is found by search as a retail-only product of that store, with its price
/// and stock, and opened by its id; what is not a shoe (the T-shirts) and what matched (the
/// Panda) are not.
#[tokio::test]
async fn a_store_only_sneaker_is_found_by_search_and_opened_with_its_store_price_and_stock() {
    let store = MockStorefront::start(sneaker_store(&[])).await;
    let served = serve(&[&store]).await;
    served.crawled().await;
    let search = |query: &'static str| served.hits(query);
    let label = store.label();
    let from_store = |hits: &[serde_json::Value]| -> Vec<serde_json::Value> {
        hits.iter()
            .filter(|hit| {
                hit["id"]
                    .as_str()
                    .is_some_and(|id| id.starts_with("store-"))
            })
            .cloned()
            .collect()
    };

    let vans = search("vans%20old%20skool%20colorway%207").await;
    let first = vans.first().expect("the store's Vans found");
    assert_eq!(first["title"], "Vans Old Skool Colorway 7");
    assert_eq!(first["brand"], "Vans");
    assert!(
        first["labels"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!(format!("store:{label}")))
    );
    assert!(first["min_price"].as_f64().unwrap() > 0.0, "{first}");
    assert!(
        first["link"]
            .as_str()
            .unwrap()
            .ends_with("/products/vans-old-skool-7")
    );
    // The decoy's code is no catalogue product's: the store's product is the one found.
    let decoy = search("DD1873102").await;
    assert_eq!(
        from_store(&decoy)
            .first()
            .map(|hit| hit["title"].as_str().unwrap_or_default().to_owned()),
        Some("Nike Dunk Low Retro 'Panda'".to_owned()),
        "{decoy:?}"
    );
    // Not shoes, and matched shoes, stay off the shelf.
    assert!(from_store(&search("essential%20tee").await).is_empty());
    assert!(from_store(&search("DD1391-100").await).is_empty());

    // Opened by its id: the store's sizes and prices.
    let id = first["id"].as_str().unwrap();
    let answer = served.get(&format!("/api/v2/products/{id}")).await;
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["x-solescope-store"], label.as_str());
    let product: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(product["data"]["title"], "Vans Old Skool Colorway 7");
    assert!(!product["data"]["variants"].as_array().unwrap().is_empty());
    // Where to buy asks the store for it by its own handle, read live.
    let answer = served
        .get(&format!("/api/v3/retailer-a/products/{id}?store={label}"))
        .await;
    assert_eq!(answer.status(), 200);
    let retail: RetailerEnvelope = answer.json().await.unwrap();
    assert_eq!(retail.data.slug, "vans-old-skool-7");
}

/// A store-only sneaker the store stops selling leaves the search and its page at the store's
/// next pass (its whole list read again), while the rest of its shelf stays.
#[tokio::test]
async fn a_store_only_sneaker_the_store_drops_leaves_the_search_at_its_next_pass() {
    let store = MockStorefront::start(sneaker_store(&[])).await;
    let served = serve_with(
        &[&store],
        CrawlConfig {
            watch_interval: Duration::from_millis(100),
            pass_interval: Duration::from_secs(3),
            ..CrawlConfig::default()
        },
    )
    .await;
    served.crawled().await;
    let store_hits = |query: &'static str| {
        let served = &served;
        async move {
            served
                .hits(query)
                .await
                .into_iter()
                .filter(|hit| {
                    hit["id"]
                        .as_str()
                        .is_some_and(|id| id.starts_with("store-"))
                })
                .map(|hit| {
                    (
                        hit["id"].as_str().unwrap_or_default().to_owned(),
                        hit["title"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect::<Vec<_>>()
        }
    };
    let vans = store_hits("vans%20old%20skool%20colorway%207").await;
    let (id, title) = vans.first().cloned().expect("the store's Vans found");
    assert_eq!(title, "Vans Old Skool Colorway 7");
    let panda = store_hits("DD1873102").await;
    assert!(!panda.is_empty(), "the store's decoy Panda is on its shelf");

    store.remove("vans-old-skool-7");
    let started = Instant::now();
    while store_hits("vans%20old%20skool%20colorway%207")
        .await
        .iter()
        .any(|(found, _)| *found == id)
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the dropped Vans is still searched"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        served.get(&format!("/api/v2/products/{id}")).await.status(),
        404
    );
    assert_eq!(
        store_hits("DD1873102").await,
        panda,
        "the rest of the shelf stays"
    );
}

/// `in_stock_at` narrows a search to what one store has in stock, `size` to one size: the Panda
/// in the sizes the store has (not its sold-out US 8), its store-only Vans, never a product it
/// does not sell; a store no one configured is refused by name.
#[tokio::test]
async fn a_search_narrowed_to_what_a_store_has_in_stock_in_a_size() {
    let store = MockStorefront::start(sneaker_store(&[])).await;
    let served = serve(&[&store]).await;
    served.crawled().await;
    let label = store.label();
    let skus = |query: String| {
        let served = &served;
        async move {
            let answer = served.get(&query).await;
            let status = answer.status().as_u16();
            let page: serde_json::Value = answer.json().await.unwrap();
            let titles: Vec<String> = page["hits"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|hit| format!("{} {}", hit["sku"].as_str().unwrap_or(""), hit["title"]))
                .collect();
            (status, titles, page)
        }
    };
    let (status, dunks, page) = skus(format!(
        "/search?query=dunk%20low&in_stock_at={label}&limit=100"
    ))
    .await;
    assert_eq!(status, 200, "{page}");
    assert!(
        dunks.iter().any(|t| t.starts_with("DD1391-100 ")),
        "{dunks:?}"
    );
    // Only the store's: the catalogue has dozens of Dunk Lows it does not sell.
    let (_, everything, _) = skus("/search?query=dunk%20low&limit=100".to_owned()).await;
    assert!(
        everything.len() > dunks.len() + 5,
        "{everything:?} vs {dunks:?}"
    );
    // The Panda's US 8 is sold out at this store; its US 7 is not.
    let (_, in_8, _) = skus(format!(
        "/search?query=dunk%20low%20panda&in_stock_at={label}&size=8"
    ))
    .await;
    assert!(
        !in_8.iter().any(|t| t.starts_with("DD1391-100 ")),
        "{in_8:?}"
    );
    let (_, in_7, _) = skus(format!(
        "/search?query=dunk%20low%20panda&in_stock_at={label}&size=7"
    ))
    .await;
    assert!(
        in_7.iter().any(|t| t.starts_with("DD1391-100 ")),
        "{in_7:?}"
    );
    // Its store-only sneakers too, and no text lists everything it has in stock.
    let (_, vans, _) = skus(format!("/search?query=vans&in_stock_at={label}")).await;
    assert!(
        vans.iter().any(|t| t.contains("Vans Old Skool")),
        "{vans:?}"
    );
    let (_, all, page) = skus(format!("/search?in_stock_at={label}&limit=100")).await;
    assert!(all.iter().any(|t| t.starts_with("DD1391-100 ")));
    assert!(all.iter().all(|t| !t.contains("Essential")), "{all:?}");
    assert!(page["estimatedTotalHits"].as_u64().unwrap() < 30, "{page}");
    // A store no one configured.
    let (status, _, page) = skus("/search?query=dunk&in_stock_at=kith.com".to_owned()).await;
    assert_eq!(status, 404, "{page}");
    assert!(page.to_string().contains("kith.com"), "{page}");
}

/// The service over KicksDB reading a store, started with an empty mirror (a first start):
/// the store is read and matched at once against the mirror, where nothing is yet, so its
/// Panda is a store-only product. When a search mirrors KicksDB's Panda, the store is matched
/// again without waiting for its next pass (30 minutes) and without any lookup asking: its
/// reading counts the Panda as a catalogue product, and a search narrowed to the store finds
/// KicksDB's Panda, not a store-only copy of it.
#[tokio::test(flavor = "multi_thread")]
async fn a_store_is_matched_again_when_the_kicksdb_mirror_gains_a_product_it_sells() {
    use common::mock_kicksdb::data::PAIRS;
    use common::mock_kicksdb::{MockConfig, MockKicksdb};
    let panda = PAIRS.iter().find(|p| p.sku == "DD1391-100").unwrap();
    let kicksdb = MockKicksdb::start(MockConfig::default());
    let store = MockStorefront::start(vec![common::mock_storefront::listed_shoe(
        "nike-dunk-low-retro-white-black-panda",
        9_100_000_000_001,
        "Nike Dunk Low Retro White/Black",
        "Nike",
        &(7..11)
            .map(|us| Some(format!("DD1391-100-{:03}", us * 10)))
            .collect::<Vec<_>>(),
        &[],
    )])
    .await;
    let dir = tempfile::tempdir().unwrap();
    // As the window reads its stores: one reading, matched against each service's catalogue.
    let reading = service::start::crawled_store_reading(
        RetailerStores::new([StoreUrl::parse(&store.base_url).unwrap()]),
        &dir.path().join("stores.sqlite"),
        service::start::STORE_PASS_INTERVAL,
    );
    let handle = common::kicksdb_service(
        kicksdb.base_url(),
        &kicksdb.key(),
        dir.path(),
        |_, config| {
            config.store_reading = Some(reading);
        },
    )
    .await;
    let served = Served {
        base: handle.base_url(),
        catalogue: dir.path().join("mirror.sqlite"),
        _server: handle,
        _dir: dir,
    };
    let reading_says = || async {
        let sources: V2Envelope<ServiceSources> =
            served.get("/api/v2/sources").await.json().await.unwrap();
        sources.data.realtime.stores()[0]
            .catalogue
            .clone()
            .unwrap_or_default()
    };
    // Read at once, though the mirror is empty.
    served.crawled().await;
    assert!(
        reading_says().await.contains("1 products read")
            && reading_says().await.contains("0 of them"),
        "{}",
        reading_says().await
    );
    // A search online: KicksDB's Panda is mirrored.
    let online = served.hits("dunk%20low%20panda").await;
    assert!(online.iter().any(|hit| hit["id"] == panda.id), "{online:?}");
    let started = Instant::now();
    loop {
        let said = reading_says().await;
        if said.contains("1 of them in the catalogue") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "not matched again after the mirror took the Panda: {said}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let label = store.label();
    let narrowed = served
        .hits(&format!("dunk%20low&in_stock_at={label}"))
        .await;
    let ids: Vec<&str> = narrowed
        .iter()
        .filter_map(|hit| hit["id"].as_str())
        .collect();
    assert_eq!(ids, [panda.id], "the store's stock: KicksDB's Panda only");
}
