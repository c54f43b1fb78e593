//! The alert monitor against the real service over HTTP: it spends at most half of the
//! real-time budget while a user lookup still succeeds, it records bounded per-size history,
//! and a fired alert reaches a real D-Bus notification server as a `Notify` call.
//!
//! The notification test needs a session bus (`.ci/run` runs the tests inside
//! `dbus-run-session`; locally: `dbus-run-session -- cargo test --test alerts`). Without one it
//! prints a notice and passes; with `SOLESCOPE_REQUIRE_KEYRING=1` or `CI` set it fails.

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use solescope::app::monitor::{self, MonitorConfig, MonitorHandle, SPEND_WINDOW, history_key};
use solescope::app::notify::{DesktopNotifier, Notifier, NotifyError};
use solescope::client::{Client, ClientConfig, SearchQuery};
use solescope::figures::quotes_from_resale_a;
use solescope::model::{AlertFiring, AlertKind, NewAlert, ProductRef, QuoteSource};
use solescope::userdb::{UserDb, UserDbHandle};

/// A notifier that shows nothing (the budget test is not about notifications).
struct Silent;

impl Notifier for Silent {
    fn notify(&self, _: &AlertFiring) -> Result<(), NotifyError> {
        Ok(())
    }
}

struct Setup {
    _dir: tempfile::TempDir,
    _server: solescope::service::ServerHandle,
    client: Client,
    db_path: std::path::PathBuf,
    db: UserDbHandle,
    product: ProductRef,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 30, 7);
    let server = common::start(common::config(&catalogue)).await;
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        Some("demo-pro".into()),
    ))
    .unwrap();
    let hits = client.search(&SearchQuery::default()).await.unwrap();
    let hit = hits
        .hits
        .first()
        .expect("the catalogue has products")
        .clone();
    let db_path = dir.path().join(UserDb::FILE_NAME);
    let (db, opened) = UserDbHandle::spawn(db_path.clone());
    tokio::task::spawn_blocking(move || opened.block_and_take())
        .await
        .unwrap()
        .unwrap();
    Setup {
        _dir: dir,
        _server: server,
        client,
        db_path,
        db,
        product: ProductRef {
            product_id: hit.id.clone(),
            style_code: hit.sku.clone(),
            title: hit.title.clone(),
        },
    }
}

async fn add_alert(db: &UserDbHandle, alert: NewAlert) {
    let promise = db.run(move |db| db.add_alert(&alert, 0));
    tokio::task::spawn_blocking(move || promise.block_and_take())
        .await
        .unwrap()
        .unwrap();
}

/// Most calls in any window of [`SPEND_WINDOW`] among `times` (in order).
fn most_in_any_window(times: &[Instant]) -> usize {
    (0..times.len())
        .map(|i| {
            times[i..]
                .iter()
                .take_while(|t| t.saturating_duration_since(times[i]) < SPEND_WINDOW)
                .count()
        })
        .max()
        .unwrap_or(0)
}

/// The service counts real-time calls in windows aligned to the wall-clock minute, and the
/// budget the client reads afterwards is that window's: a scenario that straddles a minute
/// boundary reads a fresh budget (a CI run failed so, 120 left instead of 60). So the scenario
/// starts with at least 30 s of its minute left; it takes a few seconds.
async fn start_early_in_a_minute() {
    let into_minute = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs_f64()
        % 60.0;
    if into_minute > 30.0 {
        tokio::time::sleep(Duration::from_secs_f64(60.2 - into_minute)).await;
    }
}

/// Waits (bounded) until `done` holds for the monitor's status.
async fn wait_for(handle: &MonitorHandle, limit: Duration, done: impl Fn(&MonitorHandle) -> bool) {
    let start = Instant::now();
    while !done(handle) {
        assert!(
            start.elapsed() < limit,
            "timed out; monitor status: {:?}",
            handle.status()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_monitor_spends_at_most_half_the_budget_and_a_user_lookup_still_succeeds() {
    let setup = setup().await;
    // An alert that never fires, checked as often as the monitor is let: it wants far more than
    // its half.
    add_alert(
        &setup.db,
        NewAlert {
            product: setup.product.clone(),
            size: None,
            kind: AlertKind::AskAtOrBelow,
            price_cents: Some(1),
            currency: "USD".into(),
        },
    )
    .await;
    start_early_in_a_minute().await;
    let handle = monitor::spawn(
        &tokio::runtime::Handle::current(),
        setup.client.clone(),
        setup.db.clone(),
        Arc::new(Silent),
        MonitorConfig {
            check_every: Duration::ZERO,
        },
    );
    wait_for(&handle, Duration::from_secs(30), |h| {
        h.status().budgeted_calls >= 60
    })
    .await;
    // Its half is spent: it waits, however long it is given.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let times = handle.call_times();
    assert_eq!(times.len(), 60, "{:?}", handle.status());
    assert_eq!(most_in_any_window(&times), 60);
    assert!(
        handle
            .status()
            .waiting
            .is_some_and(|why| why.contains("share")),
        "{:?}",
        handle.status()
    );
    let budget = setup.client.realtime_budget();
    assert_eq!((budget.limit, budget.remaining), (120, 60), "{budget:?}");

    // The user's lookup, made while the monitor runs, goes through.
    let guard = handle.user_lookup();
    let answer = setup
        .client
        .resale_a_product(&setup.product.product_id)
        .await;
    drop(guard);
    assert!(answer.is_ok(), "{answer:?}");
    assert_eq!(handle.call_times().len(), 60);

    // Every lookup was recorded, one row per size and source per 15 minutes: sixty lookups
    // (a slot boundary may fall among them) left at most two rows per size and source.
    handle.stop();
    let key = history_key(&setup.product);
    let db = UserDb::open(&setup.db_path).unwrap();
    let rows = db.price_history(&key, &[]).unwrap();
    let mut per_pair: HashMap<(String, QuoteSource), usize> = HashMap::new();
    for row in &rows {
        *per_pair.entry((row.size.clone(), row.source)).or_default() += 1;
    }
    assert!(
        per_pair.keys().any(|(_, s)| *s == QuoteSource::ResaleA),
        "{rows:?}"
    );
    assert!(per_pair.values().all(|n| *n <= 2), "{per_pair:?}");
    let status = handle.status();
    assert!(status.checks >= 59, "{status:?}");
    assert_eq!(status.unseen_firings, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fired_alert_reaches_the_desktop_notification_server() {
    let Some((_bus, received)) = common::notifications::own_notification_bus().await else {
        return;
    };

    let setup = setup().await;
    // An ask alert a little above the current lowest ask of one size: it fires on the first
    // check (prices move by well under 10% in a minute).
    let now = setup
        .client
        .resale_a_product(&setup.product.product_id)
        .await
        .unwrap();
    let quote = quotes_from_resale_a(&now.data)
        .into_iter()
        .find(|q| q.lowest_ask_cents.is_some())
        .expect("some size has an ask");
    let limit = quote.lowest_ask_cents.unwrap() * 11 / 10;
    add_alert(
        &setup.db,
        NewAlert {
            product: setup.product.clone(),
            size: Some(quote.size.clone()),
            kind: AlertKind::AskAtOrBelow,
            price_cents: Some(limit),
            currency: "USD".into(),
        },
    )
    .await;
    let handle = monitor::spawn(
        &tokio::runtime::Handle::current(),
        setup.client.clone(),
        setup.db.clone(),
        Arc::new(DesktopNotifier),
        MonitorConfig::default(),
    );
    let (app_name, summary, body) =
        tokio::task::spawn_blocking(move || received.recv_timeout(Duration::from_secs(30)))
            .await
            .unwrap()
            .expect("a Notify call within 30 s");
    wait_for(&handle, Duration::from_secs(10), |h| {
        h.status().unseen_firings == 1
    })
    .await;
    let firings = handle.take_firings();
    handle.stop();
    assert_eq!(firings.len(), 1);
    let firing = &firings[0];
    let price = firing.price_cents.unwrap();
    assert!(price <= limit, "{firing:?}");
    assert_eq!(firing.size, quote.size);

    assert_eq!(app_name, "Solescope");
    assert!(summary.contains(&setup.product.title), "{summary}");
    assert!(body.contains(&format!("Size {}", quote.size)), "{body}");
    let dollars = format!("{}.{:02}", price / 100, price % 100);
    let digits: String = body.chars().filter(|c| *c != ',').collect();
    assert!(digits.contains(&dollars), "{body} should name {dollars}");
    assert!(body.contains(firing.source.as_str()), "{body}");

    // The firing is in the alert history and the alert is disarmed until the price moves back.
    let db = UserDb::open(&setup.db_path).unwrap();
    assert_eq!(db.alert_firings().unwrap(), firings);
    assert!(db.alerts().unwrap().iter().all(|a| !a.armed));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_where_to_trade_table_marks_the_best_buy_and_sell_of_a_simulated_answer() {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;
    use solescope::figures::{quotes_from_retailer, where_to_trade};
    use solescope::ui::alerts::trade::{mark_text, where_to_trade_ui};

    let setup = setup().await;
    let id = &setup.product.product_id;
    let resale_a = setup.client.resale_a_product(id).await.unwrap().data;
    let retailer = setup.client.retailer_product(id).await.unwrap().data;
    let mut quotes = quotes_from_resale_a(&resale_a);
    quotes.extend(quotes_from_retailer(&retailer));
    let rows = where_to_trade(&quotes, "USD");
    assert!(!rows.is_empty());

    // The expected marks, worked out from the raw answers: the cheapest of the size's
    // resale-a ask and its retail price when in stock; the sale at the resale-a ask, paid out
    // after resale-b's lower fees (9 % + 3 % at seller level 1, no flat fee, as the flip list
    // reckons them) rather than resale-a's (the same and 5.00 a sale).
    let row = rows
        .iter()
        .find(|row| row.best_buy.is_some() && row.sale_price_cents.is_some())
        .expect("a size with an ask");
    let resale_ask = resale_a
        .available_sizes_new
        .iter()
        .find(|entry| {
            solescope::figures::size_key(entry["presentation"].as_str().unwrap()) == row.size
        })
        .and_then(|entry| entry["lowestPriceCents"].as_i64())
        .unwrap();
    let retail = retailer
        .variants
        .iter()
        .find(|v| v.available && v.price > 0.0 && solescope::figures::size_key(&v.size) == row.size)
        .map(|v| (v.price * 100.0).round() as i64);
    let expected_buy = match retail {
        Some(retail) if retail < resale_ask => (QuoteSource::Retailer, retail),
        _ => (QuoteSource::ResaleA, resale_ask),
    };
    assert_eq!(row.best_buy, Some((expected_buy.0.into(), expected_buy.1)));
    let resale_b_payout = (resale_ask as f64 * (1.0 - 0.12)).round() as i64;
    let best_sell = row.best_sell.clone().unwrap();
    assert_eq!(
        (best_sell.source, best_sell.payout_cents),
        (QuoteSource::ResaleB, resale_b_payout)
    );
    let buy_text = mark_text(expected_buy.0, expected_buy.1, "USD");
    let sell_text = mark_text(QuoteSource::ResaleB, resale_b_payout, "USD");
    let margin = row.margin_cents;

    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui(move |ui| {
            egui::ScrollArea::both().show(ui, |ui| {
                where_to_trade_ui(ui, &rows, "USD", "Real-time budget: 118 of 120 left");
            });
        });
    harness.run();
    assert!(
        harness.query_all_by_label(&buy_text).next().is_some(),
        "{buy_text}"
    );
    assert!(
        harness.query_all_by_label(&sell_text).next().is_some(),
        "{sell_text}"
    );
    assert!(harness.query_by_label_contains("118 of 120").is_some());
    if margin.is_none() {
        assert!(harness.query_all_by_label("does not pay").next().is_some());
    }
}
