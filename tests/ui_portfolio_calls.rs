//! What the window's portfolio and watchlist cost in KicksDB calls, counted at the
//! mock KicksDB: the real window in `egui_kittest`, its KicksDB service started as `main`
//! starts it (`service::start::spawn_kicksdb`), a user database of 200 held pairs over 120
//! style codes and 50 starred products (30 of them not held).
//!
//! Opening the portfolio and then the watchlist costs at most 6 calls: the key check, the first
//! search, 3 batches of prices for the portfolio and 1 for the stars the portfolio did not
//! price. Daily sales are asked only once the value-by-week chart is opened.

mod common;

use std::sync::Arc;

use common::kittest::{has_label_containing, step_until};
use common::mock_kicksdb::data::{PAIRS, Pair as MockPair, generated_pairs};
use common::mock_kicksdb::{Endpoint, MockConfig, MockKicksdb};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use solescope::app::{App, AppInit, AppState, Feed, KICKSDB_ACCOUNT, StartupStatus, View};
use solescope::client::{KeyStore as _, MemoryKeyStore};
use solescope::model::Country;
use solescope::model::budget::{BudgetSettings, BudgetSettingsCell};
use solescope::model::portfolio::{Condition, Pair};
use solescope::ui::portfolio::Unpriced;
use solescope::userdb::UserDb;
use solescope::userdb::watchlist::WatchRow;

/// Style codes held (of the mock's first 120 products) and starred (products 100 to 149).
const HELD_CODES: usize = 120;
const HELD_PAIRS: usize = 200;
const STARRED: std::ops::Range<usize> = 100..150;

/// The mock's products, in its order.
fn products() -> Vec<&'static MockPair> {
    PAIRS
        .iter()
        .chain(generated_pairs(STARRED.end - PAIRS.len()))
        .collect()
}

fn pair(product: &MockPair, size: &str) -> Pair {
    Pair {
        product_id: product.id.to_owned(),
        slug: product.slug.to_owned(),
        sku: product.sku.to_owned(),
        title: product.title.to_owned(),
        size: size.to_owned(),
        condition: Condition::New,
        purchased_on: chrono::NaiveDate::from_ymd_opt(2026, 2, 3).unwrap(),
        cost_cents: 15_000,
        currency: "USD".into(),
        bought_from: "a shop".into(),
        notes: String::new(),
        tags: Vec::new(),
    }
}

fn calls(mock: &MockKicksdb) -> usize {
    mock.counts().values().sum()
}

#[test]
fn opening_a_portfolio_of_200_pairs_and_50_stars_costs_at_most_6_kicksdb_calls() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mock = MockKicksdb::start(MockConfig {
        extra_products: STARRED.end - PAIRS.len(),
        quota_start: 0,
        ..MockConfig::default()
    });
    let products = products();
    assert_eq!(mock.style_codes().len(), products.len());
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join(UserDb::FILE_NAME);
    // A budget far above what the window could spend: the count is the window's own.
    let budget = BudgetSettings {
        monthly_quota: Some(100_000),
        share_percent: 100,
    };
    {
        let mut db = UserDb::open(&db_path).unwrap();
        db.set_budget_settings(budget).unwrap();
        let rows: Vec<(Pair, Option<_>)> = (0..HELD_PAIRS)
            .map(|i| {
                (
                    pair(products[i % HELD_CODES], ["8", "9", "10", "11"][i % 4]),
                    None,
                )
            })
            .collect();
        solescope::userdb::portfolio::add_holdings(&mut db, &rows).unwrap();
        let stars: Vec<WatchRow> = products[STARRED]
            .iter()
            .map(|p| WatchRow {
                product_id: p.id.to_owned(),
                title: p.title.to_owned(),
                sku: p.sku.to_owned(),
                country: Country::Us,
                currency: "USD".into(),
                price_when_starred: Some(100.0),
            })
            .collect();
        solescope::userdb::watchlist::save_watchlist(&mut db, &stars).unwrap();
    }
    let cell = BudgetSettingsCell::new(budget);
    let key_store = Arc::new(MemoryKeyStore::new());
    key_store.set(KICKSDB_ACCOUNT, &mock.key()).unwrap();
    let app = App::new(AppInit {
        runtime: runtime.handle().clone(),
        key_store,
        // Nothing answers there: the window's service runs on KicksDB.
        startup: StartupStatus::ready("http://127.0.0.1:9").with_budget_settings(cell.clone()),
        state: AppState {
            feed: Feed::Kicksdb,
            view: View::Portfolio,
            ..AppState::default()
        },
        screenshot: None,
        user_db: Some(db_path),
    })
    .with_live_launcher(common::kittest::kicksdb_launcher(
        mock.base_url(),
        dir.path().join("mirror.sqlite"),
        None,
        cell,
        runtime.handle().clone(),
    ));
    // A laptop's window: in a very tall one the search list's end is in view at once and
    // loads its second page, a call the portfolio does not cause.
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, app: &mut App| app.ui(ui), app);
    step_until(&mut harness, "the portfolio priced", |h| {
        let rows = h.state().portfolio_rows();
        h.state().is_idle()
            && rows.len() == HELD_PAIRS
            && rows
                .iter()
                .all(|r| r.market.is_some() || matches!(r.unpriced, Some(Unpriced::Because(_))))
    });
    harness.run_steps(2);
    let opened = calls(&mock);
    eprintln!("opening the portfolio: {opened} calls {:?}", mock.counts());
    assert_eq!(mock.count(Endpoint::Prices), 3, "{:?}", mock.counts());
    assert_eq!(
        mock.count(Endpoint::Product),
        0,
        "no product lookup per pair"
    );
    assert_eq!(
        mock.count(Endpoint::DailySales),
        0,
        "no weeks before the chart is opened"
    );

    // The values are the mock's asks, per size, with where they come from; a size nobody asks
    // for says so, and is never 0.
    let rows = harness.state().portfolio_rows().to_vec();
    let chicago = rows
        .iter()
        .find(|r| r.holding.pair.sku == "555088-101" && r.holding.pair.size == "9")
        .unwrap();
    let market = chicago.market.as_ref().unwrap();
    assert_eq!(market.cents, 172_500);
    assert!(
        market.source.contains("size 9 from KicksDB"),
        "{}",
        market.source
    );
    let valued = rows.iter().filter(|r| r.market.is_some()).count();
    assert!(valued >= 150, "only {valued} of {HELD_PAIRS} valued");
    for row in rows.iter().filter(|r| r.market.is_none()) {
        let Some(Unpriced::Because(why)) = &row.unpriced else {
            panic!("{row:?}");
        };
        assert!(why.contains("Nobody asks for size"), "{why}");
    }
    assert!(rows.iter().flat_map(|r| &r.market).all(|m| m.cents > 0));
    // The chart says what opening it would cost.
    assert!(has_label_containing(
        &harness,
        "with KicksDB this costs up to 600 calls"
    ));

    harness.get_by_label("Watchlist").click();
    step_until(&mut harness, "the stars priced", |h| {
        h.state().is_idle()
            && products[STARRED]
                .iter()
                .all(|p| h.state().watch_price(p.id).is_some())
    });
    harness.run_steps(2);
    let total = calls(&mock);
    eprintln!("and the watchlist: {total} calls {:?}", mock.counts());
    assert_eq!(mock.count(Endpoint::Prices), 4, "{:?}", mock.counts());
    assert!(total <= 6, "{total} calls: {:?}", mock.counts());
    // A generated product's lowest ask is its first size's.
    let star = products[STARRED.end - 1];
    let lowest = star
        .sizes
        .iter()
        .map(|s| s.ask_usd)
        .filter(|a| *a > 0)
        .min();
    assert_eq!(harness.state().watch_price(star.id), lowest.map(f64::from));

    // Opening the value-by-week chart fetches the daily sales, then and only then.
    harness.get_by_label("Portfolio").click();
    harness.run_steps(2);
    harness
        .get_by_label_contains("Show value by week (120 products)")
        .click();
    step_until(&mut harness, "the value by week", |h| {
        h.state().is_idle() && has_label_containing(h, "Chart of the portfolio's value by week")
    });
    let daily = mock.count(Endpoint::DailySales);
    let chart = calls(&mock) - total;
    eprintln!(
        "and the value-by-week chart: {chart} calls {:?}",
        mock.counts()
    );
    assert!((120..=480).contains(&daily), "{daily} daily-sales calls");
    assert!(chart <= 600, "{chart} calls, more than the chart said");
}
