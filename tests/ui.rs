//! `egui_kittest` tests of the real app against the in-process service, with an in-memory key
//! store. Waits are bounded loops of frames until a condition holds.

mod common;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use solescope::app::{App, AppInit, AppState, LOCAL_DEMO_ACCOUNT, StartupStatus};
use solescope::client::{Client, ClientConfig, KeyStore as _, MemoryKeyStore, SearchQuery};
use solescope::model::{SearchHit, Tier};
use solescope::service::{self, ServerHandle, ServiceConfig, ServiceState};

/// One catalogue and one service for every test of this file.
struct Fixture {
    path: PathBuf,
    runtime: tokio::runtime::Runtime,
    base_url: String,
    first_hit: SearchHit,
    _server: ServerHandle,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path: PathBuf = common::catalogue(dir.path(), "ui.sqlite", 300, 5);
        let state = ServiceState::open(&ServiceConfig::new(&path)).unwrap();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let server = runtime
            .block_on(service::spawn("127.0.0.1:0", state))
            .unwrap();
        let base_url = server.base_url();
        let client = Client::new(ClientConfig::new(&base_url, Some("demo-pro".into()))).unwrap();
        let first_hit = runtime
            .block_on(client.search(&SearchQuery::default()))
            .unwrap()
            .hits
            .remove(0);
        Fixture {
            path,
            runtime,
            base_url,
            first_hit,
            _server: server,
            _dir: dir,
        }
    })
}

/// The real app on the test service, with `stored_key` (if any) in an in-memory key store.
fn harness(stored_key: Option<&str>) -> Harness<'static, App> {
    let mut harness = harness_at(&fixture().base_url, stored_key);
    step_until(&mut harness, "the first search", |h| {
        h.state().is_idle() && h.state().search_results().is_some()
    });
    harness
}

/// The real app on the server at `base_url`, before its first frame.
fn harness_at(base_url: &str, stored_key: Option<&str>) -> Harness<'static, App> {
    let key_store = Arc::new(MemoryKeyStore::new());
    if let Some(key) = stored_key {
        key_store.set(LOCAL_DEMO_ACCOUNT, key).unwrap();
    }
    let app = App::new(AppInit {
        runtime: fixture().runtime.handle().clone(),
        key_store,
        startup: StartupStatus::ready(base_url),
        state: AppState::default(),
    });
    Harness::builder()
        .with_size(egui::vec2(1400.0, 2000.0))
        .build_ui_state(|ui, app: &mut App| app.ui(ui), app)
}

/// Runs frames until `done` holds; fails after 20 s.
fn step_until(
    harness: &mut Harness<'_, App>,
    what: &str,
    done: impl Fn(&Harness<'_, App>) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        harness.step();
        if done(harness) {
            return;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        // Fetches land on the runtime's threads; leave them the CPU between frames.
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn has_label_containing(harness: &Harness<'_, App>, text: &str) -> bool {
    harness.query_all_by_label_contains(text).next().is_some()
}

fn open_first_hit(harness: &mut Harness<'_, App>) -> SearchHit {
    let hit = harness.state().search_results().unwrap().hits[0].clone();
    harness
        .query_all_by_label(&hit.title)
        .next()
        .unwrap()
        .click();
    step_until(harness, "the product", |h| {
        h.state().is_idle() && h.state().product().is_some_and(|p| p.id == hit.id)
    });
    hit
}

#[test]
fn typing_a_query_lists_hits_and_opening_one_shows_its_variants() {
    let mut harness = harness(None);
    assert!(has_label_containing(&harness, "demo data"));
    let word = fixture()
        .first_hit
        .title
        .split_whitespace()
        .last()
        .unwrap()
        .to_owned();

    harness.get_by_role(Role::TextInput).click();
    harness.step();
    harness.get_by_role(Role::TextInput).type_text(&word);
    step_until(&mut harness, "the hits for the typed query", |h| {
        h.state().is_idle()
            && h.state()
                .search_results()
                .is_some_and(|r| r.query == word && !r.hits.is_empty())
    });
    let results = harness.state().search_results().unwrap();
    assert!(
        results
            .hits
            .iter()
            .any(|hit| hit.title.to_lowercase().contains(&word.to_lowercase())),
        "no hit for {word:?} names it"
    );
    assert!(has_label_containing(&harness, "results ·"));
    assert!(has_label_containing(
        &harness,
        &results.hits[0].title.clone()
    ));

    open_first_hit(&mut harness);
    harness.step();
    let product = harness.state().product().unwrap().clone();
    let variant = &product.variants[0];
    assert!(
        harness.query_all_by_label(&variant.size).next().is_some(),
        "size {}",
        variant.size
    );
    assert!(has_label_containing(&harness, &variant.gtin));
    assert!(has_label_containing(&harness, &product.sku));
    assert!(!has_label_containing(&harness, "<br"));
}

#[test]
fn orders_chart_has_52_weeks_for_pro_and_a_lock_after_switching_to_free() {
    let mut harness = harness(None);
    open_first_hit(&mut harness);
    assert_eq!(harness.state().tier(), Some(Tier::Pro));
    harness.get_by_label("Weekly orders").click();
    harness.step();
    harness.step();
    let series = harness.state().orders_series().unwrap();
    assert_eq!(series.orders_points.len(), 52);
    assert!(series.orders_points.windows(2).all(|w| w[0][0] < w[1][0]));
    assert!(has_label_containing(&harness, "52 weeks"));
    assert!(!has_label_containing(&harness, "need a pro key"));

    harness.get_by_label("Settings").click();
    harness.step();
    harness.get_by_label("free").click();
    step_until(&mut harness, "the free key's answers", |h| {
        h.state().is_idle() && h.state().tier() == Some(Tier::Free) && h.state().product().is_some()
    });
    harness.get_by_label("Weekly orders").click();
    harness.step();
    harness.step();
    assert!(has_label_containing(
        &harness,
        "Weekly orders need a pro key"
    ));
    assert!(harness.state().orders_series().is_none());
    assert!(has_label_containing(&harness, "tier: free"));

    harness.get_by_label("Product").click();
    harness.step();
    harness.step();
    assert!(has_label_containing(
        &harness,
        "Release dates and retail prices need a pro key"
    ));
}

#[test]
fn a_free_key_in_the_store_locks_the_fr_dataset_and_the_orders() {
    let mut harness = harness(Some("demo-free"));
    assert_eq!(harness.state().tier(), Some(Tier::Free));
    harness.step();
    assert!(has_label_containing(
        &harness,
        "the FR dataset needs a pro key"
    ));
    open_first_hit(&mut harness);
    harness.get_by_label("Weekly orders").click();
    harness.step();
    harness.step();
    assert!(has_label_containing(
        &harness,
        "Weekly orders need a pro key"
    ));
    assert!(harness.state().orders_series().is_none());
}

#[test]
fn a_server_that_does_not_answer_shows_an_error_and_retry_works_once_it_does() {
    let fixture = fixture();
    // A port nobody listens on, until the service is started there below.
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let mut harness = harness_at(&format!("http://{addr}"), None);
    step_until(&mut harness, "the failed search", |h| {
        h.state().is_idle() && h.state().search_error().is_some()
    });
    assert!(harness.state().search_results().is_none());
    harness.step();
    assert!(has_label_containing(
        &harness,
        "Could not load search results"
    ));

    let state = ServiceState::open(&ServiceConfig::new(&fixture.path)).unwrap();
    let _server = fixture
        .runtime
        .block_on(service::spawn(&addr.to_string(), state))
        .unwrap();
    harness.get_by_label("Retry").click();
    step_until(&mut harness, "the search after Retry", |h| {
        h.state().is_idle() && h.state().search_results().is_some()
    });
    assert!(harness.state().search_error().is_none());
    assert!(!harness.state().search_results().unwrap().hits.is_empty());
    assert!(!has_label_containing(&harness, "Could not load"));
}
