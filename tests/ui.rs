//! `egui_kittest` tests of the real app against the in-process service, with an in-memory key
//! store. Waits are bounded loops of frames until a condition holds.

mod common;

use common::TestService;
use common::kittest::{has_label_containing, open_hit, step_until};

use std::sync::{Arc, OnceLock};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use solescope::app::{App, AppInit, AppState, LOCAL_DEMO_ACCOUNT, StartupStatus};
use solescope::client::{Client, ClientConfig, KeyStore as _, MemoryKeyStore, SearchQuery};
use solescope::model::{SearchHit, Tier};
use solescope::service::{self, ServiceConfig, ServiceState};

/// One catalogue and one service for every test of this file, and the first hit of an empty
/// search on it.
struct Fixture {
    service: TestService,
    first_hit: SearchHit,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let service = TestService::start("ui.sqlite", 300, 5);
        let client = Client::new(ClientConfig::new(
            &service.base_url,
            Some("demo-pro".into()),
        ))
        .unwrap();
        let first_hit = service
            .runtime
            .block_on(client.search(&SearchQuery::default()))
            .unwrap()
            .hits
            .remove(0);
        Fixture { service, first_hit }
    })
}

/// The real app on the test service, with `stored_key` (if any) in an in-memory key store.
fn harness(stored_key: Option<&str>) -> Harness<'static, App> {
    let mut harness = harness_at(&fixture().service.base_url, stored_key);
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
    harness_with(base_url, key_store, AppState::default())
}

/// The real app on the server at `base_url` with `key_store` and `state`, before its first
/// frame.
fn harness_with(
    base_url: &str,
    key_store: Arc<MemoryKeyStore>,
    state: AppState,
) -> Harness<'static, App> {
    common::kittest::app_harness(AppInit {
        runtime: fixture().service.runtime.handle().clone(),
        key_store,
        startup: StartupStatus::ready(base_url),
        state,
        screenshot: None,
        user_db: None,
    })
}

/// Clicks the tab (or button) `label` and runs the frames that draw what it opens.
fn show(harness: &mut Harness<'_, App>, label: &str) {
    harness.get_by_label(label).click();
    harness.step();
    harness.step();
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

    open_hit(&mut harness, 0);
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
    open_hit(&mut harness, 0);
    assert_eq!(harness.state().tier(), Some(Tier::Pro));
    show(&mut harness, "Weekly orders");
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
    show(&mut harness, "Weekly orders");
    assert!(has_label_containing(
        &harness,
        "Weekly orders need a pro key"
    ));
    assert!(harness.state().orders_series().is_none());
    assert!(has_label_containing(&harness, "tier: free"));

    show(&mut harness, "Product");
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
        "FR prices (in EUR) need a pro key"
    ));
    open_hit(&mut harness, 0);
    show(&mut harness, "Weekly orders");
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

    let state = ServiceState::open(&ServiceConfig::new(&fixture.service.path)).unwrap();
    let _server = fixture
        .service
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

#[test]
fn slash_focuses_search_and_arrows_then_enter_open_a_hit() {
    let mut harness = harness(None);
    assert!(
        harness.get_by_label("Search").is_focused(),
        "ready to type from the start"
    );
    harness.key_press(egui::Key::Escape);
    harness.step();
    assert!(!harness.get_by_label("Search").is_focused());
    harness.key_press(egui::Key::Slash);
    harness.step();
    harness.step();
    assert!(
        harness.get_by_label("Search").is_focused(),
        "/ focuses the search box"
    );

    let hits = harness.state().search_results().unwrap().hits.clone();
    harness.key_press(egui::Key::ArrowDown);
    harness.step();
    harness.key_press(egui::Key::ArrowDown);
    harness.step();
    harness.key_press(egui::Key::Enter);
    step_until(&mut harness, "the second hit", |h| {
        h.state().is_idle() && h.state().product().is_some_and(|p| p.id == hits[1].id)
    });
    assert_eq!(
        harness.state().state.selected_product.as_deref(),
        Some(hits[1].id.as_str())
    );

    // Ctrl+K from elsewhere focuses the box again.
    harness.get_by_label("Settings").click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    harness.step();
    harness.step();
    assert!(harness.get_by_label("Search").is_focused());
}

#[test]
fn scrolling_to_the_end_of_the_hits_loads_the_next_page() {
    let client = Client::new(ClientConfig::new(
        &fixture().service.base_url,
        Some("demo-pro".into()),
    ))
    .unwrap();
    let first_page = fixture()
        .service
        .runtime
        .block_on(client.search(&SearchQuery::default()))
        .unwrap()
        .hits;
    assert_eq!(first_page.len(), 20);
    let mut harness = harness(None);
    step_until(&mut harness, "a second page", |h| {
        h.state().is_idle() && h.state().search_results().unwrap().hits.len() > 20
    });
    let hits = &harness.state().search_results().unwrap().hits;
    assert_eq!(
        hits[..20],
        first_page[..],
        "pages are appended, not replaced"
    );
    let mut ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), hits.len(), "no hit twice across pages");
}

#[test]
fn a_starred_product_is_in_the_watchlist_with_its_current_price() {
    let mut harness = harness(None);
    let hit = open_hit(&mut harness, 0);
    show(&mut harness, "☆ Watch");
    assert_eq!(harness.state().state.watchlist.len(), 1);
    assert!(harness.query_all_by_label("★ Watching").next().is_some());

    harness.get_by_label("Watchlist").click();
    step_until(&mut harness, "the watched product's price", |h| {
        h.state().is_idle() && h.state().watch_price(&hit.id).is_some()
    });
    harness.step();
    let price = harness.state().watch_price(&hit.id).unwrap();
    assert!((price - hit.min_price).abs() < 0.005);
    assert!(has_label_containing(&harness, &hit.title));
    assert!(has_label_containing(
        &harness,
        &format!("{:.2} {}", hit.min_price, hit.currency)
    ));
    assert!(has_label_containing(&harness, "+0.00 (+0.0 %)"));

    // Kept between runs: the persisted state carries it, and a new app shows it.
    let state = harness.state().state.clone();
    assert!(serde_json::to_string(&state).unwrap().contains(&hit.id));
    let mut again = harness_with(
        &fixture().service.base_url,
        Arc::new(MemoryKeyStore::new()),
        state,
    );
    step_until(&mut again, "the restored watchlist", |h| {
        h.state().is_idle() && h.state().watch_price(&hit.id).is_some()
    });
    again.step();
    assert!(has_label_containing(&again, &hit.title));

    again.get_by_label("★ Unstar").click();
    again.step();
    assert!(again.state().state.watchlist.is_empty());
}

/// `key` was typed into the "API key" field and is nowhere to be read: the field's own value
/// (what a screen reader or the accessibility tree gets) holds one mask character per typed
/// character, no text run drawn on screen holds it, and the state that would be stored does
/// not hold it.
fn assert_key_is_masked(harness: &Harness<'_, App>, key: &str) {
    let field = harness.get_by_label("API key");
    let value = field.accesskit_node().value().unwrap_or_default();
    assert_eq!(
        value.chars().count(),
        key.chars().count(),
        "the field holds what was typed: {value:?}"
    );
    assert!(!value.contains(key), "the key is in the field's value");
    let shown = harness
        .query_all(egui_kittest::kittest::By::new().predicate(|node| {
            node.value().is_some_and(|text| text.contains(key))
                || node.label().is_some_and(|text| text.contains(key))
        }))
        .count();
    assert_eq!(shown, 0, "the key is readable on screen");
    let persisted = serde_json::to_string(&harness.state().state).unwrap();
    assert!(!persisted.contains(key), "the key is in the stored state");
}

#[test]
fn a_remote_server_and_its_masked_key_are_used_and_the_key_goes_to_the_store() {
    let store = Arc::new(MemoryKeyStore::new());
    store.set(LOCAL_DEMO_ACCOUNT, "demo-pro").unwrap();
    let mut harness = harness_with(
        &fixture().service.base_url,
        Arc::clone(&store),
        AppState::default(),
    );
    step_until(&mut harness, "the first search", |h| h.state().is_idle());
    assert_eq!(harness.state().tier(), Some(Tier::Pro));

    harness.get_by_label("Settings").click();
    harness.step();
    // The "remote" server is the same service under another spelling of its address.
    let remote = fixture().service.base_url.replace("127.0.0.1", "localhost");
    harness.get_by_label("Base URL").click();
    harness.step();
    harness.get_by_label("Base URL").type_text(&remote);
    harness.step();
    harness.get_by_label("API key").click();
    harness.step();
    harness.get_by_label("API key").type_text("demo-free");
    harness.step();
    assert_key_is_masked(&harness, "demo-free");
    harness.get_by_label("Connect").click();
    step_until(&mut harness, "the remote server's answers", |h| {
        h.state().is_idle() && h.state().tier() == Some(Tier::Free)
    });
    assert_eq!(harness.state().base_url(), Some(remote.as_str()));
    assert!(!has_label_containing(&harness, "demo data"));
    assert_eq!(store.get(&remote).unwrap().as_deref(), Some("demo-free"));
    let persisted = serde_json::to_string(&harness.state().state).unwrap();
    assert!(persisted.contains(&remote));
    assert!(
        !persisted.contains("demo-free"),
        "the key is never in the stored state"
    );

    harness.get_by_label("In this window").click();
    step_until(&mut harness, "the local demo again", |h| {
        h.state().is_idle() && h.state().tier() == Some(Tier::Pro)
    });
    assert!(has_label_containing(&harness, "demo data"));
}

#[test]
fn a_remote_address_that_is_not_a_url_is_refused_inline() {
    let mut harness = harness(None);
    harness.get_by_label("Settings").click();
    harness.step();
    harness.get_by_label("Base URL").click();
    harness.step();
    harness
        .get_by_label("Base URL")
        .type_text("ftp://example.com");
    harness.step();
    harness.get_by_label("Connect").click();
    step_until(&mut harness, "the refusal", |h| {
        h.state().connect_error().is_some()
    });
    harness.step();
    assert!(has_label_containing(&harness, "Not connected"));
    harness.get_by_label("In this window").click();
    step_until(&mut harness, "the local demo again", |h| {
        h.state().is_idle() && h.state().search_results().is_some()
    });
    assert!(harness.state().connect_error().is_none());
}

#[test]
fn a_real_time_lookup_shows_prices_and_spends_the_budget() {
    let mut harness = harness(None);
    let hit = open_hit(&mut harness, 0);
    show(&mut harness, "Real-time");
    assert!(has_label_containing(&harness, "120 of 120 left"));

    harness.get_by_label("Look up").click();
    step_until(&mut harness, "the resale-a answer", |h| {
        h.state().is_idle() && h.state().resale_a().is_some()
    });
    harness.step();
    let live = harness.state().resale_a().unwrap().data.clone();
    // resale-a writes style codes with a space for the dash.
    assert_eq!(
        live.sku.replace(' ', "-"),
        hit.sku,
        "the open product was looked up"
    );
    let lowest = format!("{:.2} USD", live.lowest_price_cents as f64 / 100.0);
    assert!(
        has_label_containing(&harness, &lowest),
        "lowest ask {lowest}"
    );
    let after_one = harness.state().realtime_budget().unwrap();
    assert_eq!(after_one.limit, 120);
    assert!(after_one.remaining < 120);
    assert!(has_label_containing(
        &harness,
        &format!("{} of 120 left", after_one.remaining)
    ));

    harness.get_by_label("Refresh").click();
    step_until(&mut harness, "the second answer", |h| {
        h.state().is_idle()
            && common::realtime_spent(&after_one, &h.state().realtime_budget().unwrap()) >= 1
    });

    // The retailer is free and spends nothing.
    harness.get_by_label("retailer-a (free)").click();
    harness.step();
    let before = harness.state().realtime_budget().unwrap();
    harness.get_by_label("Look up").click();
    step_until(&mut harness, "the retailer answer", |h| {
        h.state().is_idle() && h.state().retailer().is_some()
    });
    harness.step();
    let retailer = harness.state().retailer().unwrap().data.clone();
    assert_eq!(retailer.sku, hit.sku);
    let variant = &retailer.variants[0];
    assert!(has_label_containing(&harness, &variant.size));
    let after = harness.state().realtime_budget().unwrap();
    assert_eq!(common::realtime_spent(&before, &after), 0);
}

#[test]
fn a_free_key_sees_resale_locked_and_the_retailer_open() {
    let mut harness = harness(Some("demo-free"));
    open_hit(&mut harness, 0);
    show(&mut harness, "Real-time");
    assert!(has_label_containing(&harness, "need a pro key"));
    assert!(harness.query_by_label("Look up").is_none());
    harness.get_by_label("retailer-a (free)").click();
    harness.step();
    harness.get_by_label("Look up").click();
    step_until(&mut harness, "the retailer answer", |h| {
        h.state().is_idle() && h.state().retailer().is_some()
    });
}

#[test]
fn a_compared_product_is_drawn_beside_the_open_one_until_removed() {
    let mut harness = harness(None);
    let first = open_hit(&mut harness, 0);
    harness.get_by_label("Compare orders").click();
    step_until(&mut harness, "the compared series", |h| {
        h.state().is_idle()
            && h.state()
                .compared_series()
                .first()
                .is_some_and(Option::is_some)
    });
    assert_eq!(harness.state().state.compare[0].id, first.id);

    open_hit(&mut harness, 1);
    show(&mut harness, "Weekly orders");
    assert!(has_label_containing(&harness, "Comparing:"));
    assert!(has_label_containing(&harness, &first.title));
    let compared = harness.state().compared_series()[0].unwrap();
    assert_eq!(compared.orders_points.len(), 52);
    assert_ne!(
        Some(compared),
        harness.state().orders_series(),
        "two products, two series"
    );

    harness.get_by_label_contains("Stop comparing").click();
    harness.step();
    assert!(harness.state().state.compare.is_empty());
    assert!(harness.state().compared_series().is_empty());
}
