//! Stores as catalogues, against mock Shopify stores on real sockets
//! (`common/mock_storefront.rs`, from `shared/research/shopify-storefront.md`) and a generated
//! catalogue holding the real releases: the crawl of `/products.json` (pages, the last page, the
//! caps, a repeating, malformed, huge or slow page, a 429 with `Retry-After`), the stores that
//! refuse the feed, the pace shared with the per-product lookups, what is kept on disk across a
//! restart, and matching by style code or barcode (never by handle or title), with a decoy.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::mock_storefront::{self, Feed, MockStorefront, Mode};
use solescope::model::{RetailerStores, StoreUrl};
use solescope::service::storefront::catalogue_keys::NoMatch;
use solescope::service::storefront::crawl::{CrawlConfig, FeedRefusal};
use solescope::service::storefront::crawled_stores::{CrawlStatus, CrawledStores};
use solescope::service::storefront::matching::{Evidence, Unmatched};
use solescope::service::storefront::store_db::{Opened, PassOutcome};
use solescope::service::storefront::{StorefrontConfig, Storefronts};

/// A catalogue with every real release (743 rows) and some generated products.
struct Catalogue {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Catalogue {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = common::catalogue(dir.path(), "catalogue.sqlite", 2_000, 11);
        Self { path, _dir: dir }
    }

    fn conn(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(&self.path).unwrap()
    }

    /// The id of the product with style code `sku`.
    fn id_of(&self, sku: &str) -> String {
        self.conn()
            .query_row("SELECT id FROM products WHERE sku = ?1", [sku], |row| {
                row.get(0)
            })
            .unwrap_or_else(|err| panic!("{sku}: {err}"))
    }

    fn has_code(&self, sku_norm: &str) -> bool {
        self.conn()
            .query_row(
                "SELECT count(*) FROM products WHERE sku_norm = ?1",
                [sku_norm],
                |row| row.get::<_, i64>(0),
            )
            .unwrap()
            > 0
    }

    /// The GTINs of the sizes of `sku`.
    fn gtins_of(&self, sku: &str) -> Vec<String> {
        let conn = self.conn();
        let mut statement = conn
            .prepare(
                "SELECT v.gtin FROM variants v JOIN products p ON p.pk = v.product_pk
                 WHERE p.sku = ?1 AND v.gtin IS NOT NULL ORDER BY v.position LIMIT 4",
            )
            .unwrap();
        statement
            .query_map([sku], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn slugs(&self) -> HashSet<String> {
        let conn = self.conn();
        let mut statement = conn.prepare("SELECT slug FROM products").unwrap();
        statement
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }
}

fn quick_storefronts(mocks: &[&MockStorefront], min_interval: Duration) -> Arc<Storefronts> {
    let stores = RetailerStores::new(mocks.iter().map(|m| StoreUrl::parse(&m.base_url).unwrap()));
    Arc::new(Storefronts::new(
        stores,
        StorefrontConfig {
            min_interval,
            ..StorefrontConfig::default()
        },
    ))
}

fn store_of(mock: &MockStorefront) -> StoreUrl {
    StoreUrl::parse(&mock.base_url).unwrap()
}

fn open(
    dir: &Path,
    catalogue: &Path,
    storefronts: &Arc<Storefronts>,
    config: CrawlConfig,
) -> (CrawledStores, Opened) {
    let (crawl, opened) =
        CrawledStores::open(&dir.join("stores.sqlite"), Arc::clone(storefronts), config).unwrap();
    crawl.add_catalogue(catalogue);
    (crawl, opened)
}

/// The one store product that is catalogue product `sku`: its handle and evidence.
async fn expect(
    crawl: &CrawledStores,
    catalogue: &Catalogue,
    sku: &str,
    handle: &str,
    by: Evidence,
) -> Vec<solescope::service::storefront::crawled_stores::MatchedProduct> {
    let offers = crawl.offers(&catalogue.id_of(sku)).await.unwrap();
    assert_eq!(offers.len(), 1, "{sku}: {offers:?}");
    assert_eq!(offers[0].product.handle, handle, "{sku}");
    assert_eq!(offers[0].by, by, "{sku}");
    offers
}

fn fast_config() -> CrawlConfig {
    CrawlConfig {
        watch_interval: Duration::from_millis(100),
        ..CrawlConfig::default()
    }
}

#[tokio::test]
async fn every_true_product_is_matched_by_code_or_barcode_and_the_decoy_is_not() {
    let catalogue = Catalogue::new();
    let lost_and_found = catalogue.gtins_of("DZ5485-612");
    assert!(!lost_and_found.is_empty());
    // The decoy's code is not in the catalogue: it can only match by its title.
    assert!(!catalogue.has_code("DD1873102"));
    let mock = MockStorefront::start(mock_storefront::sneaker_store(&lost_and_found)).await;
    let store = store_of(&mock);
    // Real stores name their products their own way: no handle is a catalogue slug.
    let slugs = catalogue.slugs();
    for product in mock_storefront::sneaker_store(&lost_and_found) {
        assert!(!slugs.contains(&product.handle), "{}", product.handle);
    }
    let storefronts = quick_storefronts(&[&mock], Duration::from_millis(20));
    let dir = tempfile::tempdir().unwrap();
    let (crawl, opened) = open(dir.path(), &catalogue.path, &storefronts, fast_config());
    assert_eq!(opened, Opened::Created);

    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(report.outcome, PassOutcome::Complete, "{report:?}");
    assert_eq!(report.pages_read, 2, "319 products: 250 + 69");
    assert_eq!(report.products_seen, 319);
    assert_eq!(report.currency.as_deref(), Some("USD"));

    let panda = expect(
        &crawl,
        &catalogue,
        "DD1391-100",
        "nike-dunk-low-retro-white-black-panda",
        Evidence::Sku,
    )
    .await;
    expect(
        &crawl,
        &catalogue,
        "B75806",
        "samba-og-shoes-cloud-white",
        Evidence::TitleOrHandle,
    )
    .await;
    expect(
        &crawl,
        &catalogue,
        "DD1391-101",
        "dunk-low-michigan-state",
        Evidence::Sku,
    )
    .await;
    expect(
        &crawl,
        &catalogue,
        "M1906RA",
        "nb-1906r-white-gold-m1906ra",
        Evidence::TitleOrHandle,
    )
    .await;
    expect(
        &crawl,
        &catalogue,
        "FV5029-141",
        "air-jordan-4-retro-military-blue",
        Evidence::TitleOrHandle,
    )
    .await;
    // No code anywhere: its barcodes, read from `/products/{handle}.json` after the pass.
    expect(
        &crawl,
        &catalogue,
        "DZ5485-612",
        "aj1-high-og-lost-found",
        Evidence::Barcode,
    )
    .await;
    assert!(
        mock.seen()
            .iter()
            .any(|s| s.path == "/products/aj1-high-og-lost-found.json"),
        "the barcodes were read from the product's .json"
    );

    // What the crawl read of the Panda: price string, currency, stock per size, its age.
    let offer = &panda[0];
    assert_eq!(offer.currency.as_deref(), Some("USD"));
    assert_eq!(offer.product.variants.len(), 6);
    assert_eq!(offer.product.variants[0].price, "110.00");
    assert_eq!(offer.product.variants[0].sku, "DD1391-100-070");
    assert_eq!(offer.product.variants[0].size, "US 7 / UK 6 / EU 40");
    let stock: Vec<bool> = offer.product.variants.iter().map(|v| v.available).collect();
    assert_eq!(stock, [true, false, true, true, false, true]);
    assert!(offer.age().unwrap() < Duration::from_secs(60));

    let unmatched = crawl.unmatched(&store).await.unwrap();
    let decoy = unmatched
        .iter()
        .find(|u| u.product.handle == "nike-dunk-low-retro-panda")
        .expect("the decoy is unmatched");
    assert_eq!(decoy.why, NoMatch::Unmatched(Unmatched::NotInCatalogue));
    assert_eq!(
        unmatched.len(),
        319 - 6,
        "the decoy, 300 tees and socks, 12 Vans"
    );
    let status = crawl.status(&store);
    assert!(
        matches!(
            status,
            CrawlStatus::Read {
                products: 319,
                matched: 6,
                partial: None,
                ..
            }
        ),
        "{status:?}"
    );
    assert!(status.to_string().contains("319 products read"), "{status}");
}

/// Every request at the mock, in order: no two closer than a second.
fn assert_paced(mock: &MockStorefront) {
    let seen = mock.seen();
    for pair in seen.windows(2) {
        let gap = pair[1].at.duration_since(pair[0].at);
        assert!(
            gap >= Duration::from_millis(990),
            "{gap:?} between {} and {}",
            pair[0].path,
            pair[1].path
        );
    }
}

#[tokio::test]
async fn the_crawl_and_the_lookups_share_one_request_a_second_per_store() {
    let catalogue = Catalogue::new();
    let products = vec![
        mock_storefront::sneaker("dunk-a", 11, "Dunk A", "USD", 2, 11_000, &[9.0]),
        mock_storefront::sneaker("dunk-b", 12, "Dunk B", "USD", 2, 11_000, &[9.0]),
    ];
    let mock = MockStorefront::start_with_synthetic(products, 600).await;
    let store = store_of(&mock);
    let storefronts = quick_storefronts(&[&mock], Duration::from_secs(1));
    let dir = tempfile::tempdir().unwrap();
    let (crawl, _) = open(
        dir.path(),
        &catalogue.path,
        &storefronts,
        CrawlConfig {
            barcode_reads_per_pass: 0,
            ..fast_config()
        },
    );
    let started = Instant::now();
    let lookups = {
        let storefronts = Arc::clone(&storefronts);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            let a = storefronts.product("dunk-a", None).await;
            let b = storefronts.product("dunk-b", None).await;
            (a.is_ok(), b.is_ok())
        })
    };
    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(lookups.await.unwrap(), (true, true));
    assert_eq!(report.outcome, PassOutcome::Complete);
    // /meta.json and 3 pages (602 products), and two lookups of two requests each.
    assert_eq!(report.requests, 4);
    assert_eq!(mock.seen().len(), 8);
    assert_paced(&mock);
    assert!(started.elapsed() >= Duration::from_secs(7));
}

#[tokio::test]
async fn no_request_is_wasted_on_the_last_page() {
    let catalogue = Catalogue::new();
    // Exactly two full pages.
    let mock = MockStorefront::start_with_synthetic(Vec::new(), 500).await;
    let store = store_of(&mock);
    let storefronts = quick_storefronts(&[&mock], Duration::from_millis(20));
    let dir = tempfile::tempdir().unwrap();
    let (crawl, _) = open(dir.path(), &catalogue.path, &storefronts, fast_config());
    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(report.outcome, PassOutcome::Complete);
    assert_eq!((report.pages_read, report.products_seen), (2, 500));
    assert_eq!(report.expected_products, Some(500));
    // /meta.json's count says page 2 was the last: no empty page 3.
    let pages: Vec<String> = mock.feed_requests().into_iter().map(|s| s.query).collect();
    assert_eq!(pages, ["limit=250&page=1", "limit=250&page=2"]);
    assert_eq!(report.requests, 3);

    // Without /meta.json only an empty page tells the end.
    mock.set_meta(false);
    mock.clear_seen();
    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(report.outcome, PassOutcome::Complete);
    assert_eq!(mock.feed_requests().len(), 3);
    assert!(
        report.notes.iter().any(|n| n.contains("/meta.json")),
        "{:?}",
        report.notes
    );
}

#[tokio::test]
async fn a_huge_store_is_read_in_part_and_says_so() {
    let catalogue = Catalogue::new();
    let mock = MockStorefront::start_with_synthetic(Vec::new(), 100_000).await;
    let store = store_of(&mock);
    let storefronts = quick_storefronts(&[&mock], Duration::from_millis(20));
    let dir = tempfile::tempdir().unwrap();
    let config = CrawlConfig {
        max_pages_per_pass: 3,
        barcode_reads_per_pass: 0,
        ..fast_config()
    };
    let (crawl, _) = open(dir.path(), &catalogue.path, &storefronts, config);
    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(report.outcome, PassOutcome::Partial);
    assert_eq!(report.pages_read, 3);
    assert_eq!(mock.feed_requests().len(), 3);
    let note = report.notes.join("; ");
    assert!(
        note.contains("cap of 3 pages") && note.contains("400"),
        "{note}"
    );
    let status = crawl.status(&store);
    assert!(
        matches!(&status, CrawlStatus::Read { products: 750, partial: Some(why), .. } if why.contains("cap")),
        "{status:?}"
    );
}

#[tokio::test]
async fn a_repeating_page_ends_the_pass_and_a_malformed_or_huge_one_is_skipped_and_named() {
    let catalogue = Catalogue::new();
    let mock = MockStorefront::start_with_synthetic(Vec::new(), 700).await;
    let store = store_of(&mock);
    let storefronts = quick_storefronts(&[&mock], Duration::from_millis(20));
    let dir = tempfile::tempdir().unwrap();
    let config = CrawlConfig {
        barcode_reads_per_pass: 0,
        max_page_bytes: 4 * 1024 * 1024,
        ..fast_config()
    };
    let (crawl, _) = open(dir.path(), &catalogue.path, &storefronts, config);

    mock.set_feed(Feed::IgnoresPaging);
    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(report.outcome, PassOutcome::Partial);
    assert_eq!(report.pages_read, 1);
    assert_eq!(mock.feed_requests().len(), 2);
    assert!(
        report.notes.join(";").contains("page 2 repeats page 1"),
        "{:?}",
        report.notes
    );

    mock.set_feed(Feed::Malformed(2));
    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(report.outcome, PassOutcome::Partial);
    assert_eq!((report.pages_read, report.products_seen), (2, 450));
    let notes = report.notes.join(";");
    assert!(
        notes.contains("page 2 skipped") && notes.contains("products"),
        "{notes}"
    );

    mock.clear_seen();
    mock.set_feed(Feed::Huge(1));
    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(report.outcome, PassOutcome::Partial);
    assert_eq!(report.pages_read, 2);
    let notes = report.notes.join(";");
    assert!(
        notes.contains("page 1 skipped") && notes.contains("larger than"),
        "{notes}"
    );
    // Nothing was removed by passes that skipped a page.
    assert_eq!(report.products_removed, 0);
}

#[tokio::test]
async fn a_slow_store_ends_the_pass_and_a_429_is_waited_out_at_the_stores_pace() {
    let catalogue = Catalogue::new();
    let mock = MockStorefront::start_with_synthetic(Vec::new(), 600).await;
    let store = store_of(&mock);
    let storefronts = quick_storefronts(&[&mock], Duration::from_millis(20));
    let dir = tempfile::tempdir().unwrap();
    let config = CrawlConfig {
        request_timeout: Duration::from_millis(800),
        max_wait_in_pass: Duration::from_secs(2),
        barcode_reads_per_pass: 0,
        ..fast_config()
    };
    let (crawl, _) = open(dir.path(), &catalogue.path, &storefronts, config);

    mock.set_feed(Feed::Slow(1, Duration::from_secs(3)));
    let started = Instant::now();
    let report = crawl.crawl_now(&store).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(report.outcome, PassOutcome::Failed);
    assert!(
        report.notes.join(";").contains("page 1"),
        "{:?}",
        report.notes
    );
    assert!(matches!(crawl.status(&store), CrawlStatus::Failed { .. }));

    mock.clear_seen();
    mock.set_feed(Feed::RateLimitOnce {
        page: 2,
        retry_after_secs: 1,
    });
    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(report.outcome, PassOutcome::Complete, "{report:?}");
    let pages = mock.feed_requests();
    assert_eq!(pages.len(), 4, "page 2 asked twice");
    let gap = pages[2].at.duration_since(pages[1].at);
    assert!(
        gap >= Duration::from_millis(990),
        "Retry-After: 1 honoured ({gap:?})"
    );

    // A Retry-After longer than a pass waits: the pass ends, the store is paused for the
    // lookups too.
    mock.set_feed(Feed::RateLimitOnce {
        page: 1,
        retry_after_secs: 30,
    });
    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(report.outcome, PassOutcome::Failed);
    assert!(report.next_pass_at >= report.finished_at + 30);
    let lookup = storefronts.product("synthetic-runner-1", None).await;
    assert!(
        matches!(lookup, Err(ref err) if err.to_string().contains("not asked")),
        "{lookup:?}"
    );
}

/// Makes a mock store refuse its feed.
type Refuse = Box<dyn Fn(&MockStorefront)>;

#[tokio::test]
async fn a_store_that_refuses_the_feed_falls_back_to_lookups_and_says_why() {
    let catalogue = Catalogue::new();
    let cases: Vec<(&str, Refuse, &str)> = vec![
        (
            "403",
            Box::new(|m| m.set_feed(Feed::Forbidden)),
            "refuses to serve its catalogue feed (HTTP 403)",
        ),
        (
            "404",
            Box::new(|m| m.set_feed(Feed::NotFound)),
            "has no catalogue feed (HTTP 404)",
        ),
        (
            "empty",
            Box::new(|m| m.set_feed(Feed::Empty)),
            "feed is empty",
        ),
        (
            "401",
            Box::new(|m| m.set_mode(Mode::Password)),
            "password-protected",
        ),
        (
            "password page",
            Box::new(|m| m.set_mode(Mode::PasswordPage)),
            "password-protected",
        ),
        (
            "bot page",
            Box::new(|m| m.set_mode(Mode::BotCheck)),
            "an HTML page instead of JSON",
        ),
    ];
    for (name, break_it, why) in cases {
        let panda = mock_storefront::sneaker("dunk", 11, "Dunk", "USD", 2, 11_000, &[9.0]);
        let mock = MockStorefront::start(vec![panda]).await;
        let store = store_of(&mock);
        break_it(&mock);
        let storefronts = quick_storefronts(&[&mock], Duration::from_millis(20));
        let dir = tempfile::tempdir().unwrap();
        let (crawl, _) = open(dir.path(), &catalogue.path, &storefronts, fast_config());
        let report = crawl.crawl_now(&store).await.unwrap();
        assert_eq!(report.outcome, PassOutcome::Refused, "{name}: {report:?}");
        assert!(report.requests <= 2, "{name}: {}", report.requests);
        let status = crawl.status(&store);
        assert!(status.uses_lookups(), "{name}: {status:?}");
        let sentence = status.to_string();
        assert!(
            sentence.contains(why) && sentence.contains("looked up one by one"),
            "{name}: {sentence}"
        );
        // Left alone for 6 hours.
        let next = crawl.next_pass_at(&store).await.unwrap().unwrap();
        assert!(next >= report.finished_at + 6 * 3600 - 1, "{name}");
        if name == "403" {
            assert_eq!(report.refusal, Some(FeedRefusal::Forbidden(403)));
            // The fallback: the store's products are still looked up one by one.
            assert!(storefronts.product("dunk", None).await.is_ok());
        }
    }
}

#[tokio::test]
async fn what_was_crawled_survives_a_restart_and_only_changes_are_written() {
    let catalogue = Catalogue::new();
    let lost_and_found = catalogue.gtins_of("DZ5485-612");
    let mock = MockStorefront::start(mock_storefront::sneaker_store(&lost_and_found)).await;
    let store = store_of(&mock);
    let storefronts = quick_storefronts(&[&mock], Duration::from_millis(20));
    let dir = tempfile::tempdir().unwrap();
    let panda = catalogue.id_of("DD1391-100");
    {
        let (crawl, _) = open(dir.path(), &catalogue.path, &storefronts, fast_config());
        let first = crawl.crawl_now(&store).await.unwrap();
        assert_eq!(first.products_written, 319);
        // A restock moves the product's updated_at: that product alone is written again.
        mock.restock(
            "nike-dunk-low-retro-white-black-panda",
            9_100_000_000_001 * 10 + 2,
            true,
            "2026-11-01T09:00:00-05:00",
        );
        mock.remove("vans-old-skool-3");
        let second = crawl.crawl_now(&store).await.unwrap();
        assert_eq!(second.outcome, PassOutcome::Complete);
        assert_eq!(second.products_written, 1);
        assert_eq!(second.products_removed, 1);
    }
    let requests_before = mock.seen().len();
    // Reopened: read back, matched again from disk, nothing asked of the store.
    let (crawl, opened) = open(dir.path(), &catalogue.path, &storefronts, fast_config());
    assert_eq!(opened, Opened::Reused);
    crawl.rematch(&store).await.unwrap();
    let offers = crawl.offers(&panda).await.unwrap();
    assert_eq!(offers.len(), 1);
    assert!(
        offers[0].product.variants[1].available,
        "the restock was kept"
    );
    assert_eq!(
        crawl
            .offers(&catalogue.id_of("DZ5485-612"))
            .await
            .unwrap()
            .len(),
        1,
        "barcodes read before the restart still match"
    );
    // The background task: the next pass is 30 minutes after the last, across the restart.
    let task = crawl.spawn(storefronts.stores().clone());
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        mock.seen().len(),
        requests_before,
        "no pass before it is due"
    );
    assert!(matches!(
        crawl.status(&store),
        CrawlStatus::Read { products: 318, .. }
    ));
    drop(task);
}

#[tokio::test]
async fn the_background_task_crawls_each_listed_store_once_due() {
    let catalogue = Catalogue::new();
    let a = MockStorefront::start_with_synthetic(Vec::new(), 300).await;
    let b = MockStorefront::start_with_synthetic(Vec::new(), 10).await;
    let storefronts = quick_storefronts(&[&a], Duration::from_millis(20));
    let dir = tempfile::tempdir().unwrap();
    let (crawl, _) = open(dir.path(), &catalogue.path, &storefronts, fast_config());
    let _task = crawl.spawn(storefronts.stores().clone());
    let read = |store: StoreUrl| {
        let crawl = crawl.clone();
        async move {
            for _ in 0..100 {
                if matches!(crawl.status(&store), CrawlStatus::Read { .. }) {
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            false
        }
    };
    assert!(
        read(store_of(&a)).await,
        "{:?}",
        crawl.status(&store_of(&a))
    );
    // A store added to the list is crawled at once.
    storefronts.stores().add(store_of(&b));
    assert!(read(store_of(&b)).await);
    // Each once: the next pass is 30 minutes away.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(a.feed_requests().len(), 2);
    assert_eq!(b.feed_requests().len(), 1);
}

/// The next pass is due after the interval the user set (Settings, shared through the store
/// list), not the default 30 minutes; without a setting, after the default.
#[tokio::test]
async fn the_next_pass_is_due_after_the_interval_the_user_set() {
    let catalogue = Catalogue::new();
    let mock = MockStorefront::start_with_synthetic(Vec::new(), 10).await;
    let store = store_of(&mock);
    let storefronts = quick_storefronts(&[&mock], Duration::from_millis(20));
    let dir = tempfile::tempdir().unwrap();
    let (crawl, _) = open(dir.path(), &catalogue.path, &storefronts, fast_config());
    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(report.next_pass_at - report.started_at, 30 * 60);
    storefronts
        .stores()
        .set_pass_interval(Some(Duration::from_secs(5 * 60)));
    let report = crawl.crawl_now(&store).await.unwrap();
    assert_eq!(report.next_pass_at - report.started_at, 5 * 60);
    assert_eq!(
        crawl.next_pass_at(&store).await.unwrap(),
        Some(report.next_pass_at),
        "kept on disk"
    );
}
