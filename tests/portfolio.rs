//! `egui_kittest` tests of the portfolio: the real app against the in-process service, with its
//! user database in a temporary folder. Waits are bounded loops of frames.

mod common;

use common::TestService;
use common::kittest::{has_label_containing, open_hit, step_until};

use std::path::Path;
use std::sync::{Arc, OnceLock};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use solescope::app::{App, AppInit, AppState, LOCAL_DEMO_ACCOUNT, StartupStatus, WatchedProduct};
use solescope::client::{Client, ClientConfig, KeyStore as _, MemoryKeyStore, SearchQuery};
use solescope::figures::{RESALE_B_DEFAULT_FEES, cents_from_amount, unrealized};
use solescope::model::Country;
use solescope::model::portfolio::{Condition, Pair};
use solescope::ui::format::money_from_cents;
use solescope::ui::portfolio::Unpriced;
use solescope::userdb::UserDb;

/// One catalogue and one service for every test of this file.
fn fixture() -> &'static TestService {
    static FIXTURE: OnceLock<TestService> = OnceLock::new();
    FIXTURE.get_or_init(|| TestService::start("portfolio.sqlite", 120, 7))
}

/// The real app with its user database at `user_db` and `state` as eframe storage gave it.
fn app_harness(user_db: &Path, state: AppState) -> Harness<'static, App> {
    let key_store = Arc::new(MemoryKeyStore::new());
    key_store.set(LOCAL_DEMO_ACCOUNT, "demo-pro").unwrap();
    let mut harness = common::kittest::app_harness(AppInit {
        runtime: fixture().runtime.handle().clone(),
        key_store,
        startup: StartupStatus::ready(&fixture().base_url),
        state,
        screenshot: None,
        user_db: Some(user_db.to_path_buf()),
    });
    step_until(&mut harness, "the first search and the portfolio", |h| {
        h.state().is_idle()
            && h.state().search_results().is_some()
            && h.state().portfolio_holdings().is_some()
    });
    harness
}

fn click(harness: &mut Harness<'_, App>, label: &str) {
    harness.get_by_label(label).click();
    harness.step();
    harness.step();
}

fn type_into(harness: &mut Harness<'_, App>, label: &str, text: &str) {
    harness.get_by_label(label).click();
    harness.step();
    harness.get_by_label(label).type_text(text);
    harness.step();
}

#[test]
fn a_pair_added_from_the_product_view_shows_its_value_then_its_sale_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(UserDb::FILE_NAME);
    let mut harness = app_harness(&db, AppState::default());
    open_hit(&mut harness, 0);
    let product = harness.state().product().unwrap().clone();
    let variant = &product.variants[0];

    type_into(&mut harness, "Cost (tax and shipping included)", "$100");
    click(&mut harness, "Add to portfolio");
    step_until(&mut harness, "the pair written and read back", |h| {
        h.state().is_idle()
            && h.state()
                .portfolio_holdings()
                .is_some_and(|all| all.len() == 1)
    });
    let held = &harness.state().portfolio_holdings().unwrap()[0];
    assert_eq!(held.pair.sku, product.sku);
    assert_eq!(held.pair.size, variant.size);
    assert_eq!(held.pair.cost_cents, 10_000);

    click(&mut harness, "Portfolio");
    step_until(&mut harness, "the rows", |h| {
        h.state().is_idle() && h.state().portfolio_rows().len() == 1
    });
    let market_cents = cents_from_amount(variant.price).unwrap();
    let value = unrealized(10_000, market_cents, RESALE_B_DEFAULT_FEES);
    let market_text = money_from_cents(market_cents, &product.currency);
    assert!(
        has_label_containing(&harness, &market_text),
        "no {market_text}"
    );
    let pnl_text = money_from_cents(value.pnl_cents, &product.currency);
    assert!(has_label_containing(&harness, &pnl_text), "no {pnl_text}");

    click(&mut harness, "Sell");
    type_into(&mut harness, "Sale price", "250");
    type_into(&mut harness, "Fees", "20");
    type_into(&mut harness, "Shipping", "10.5");
    click(&mut harness, "Record sale");
    step_until(&mut harness, "the sale written and read back", |h| {
        h.state().is_idle()
            && h.state()
                .portfolio_holdings()
                .is_some_and(|all| all[0].sale.is_some())
    });
    click(&mut harness, "Sales (1)");
    // 250 - 20 - 10.50 - 100 = 119.50
    let realized = format!("+{}", money_from_cents(11_950, &product.currency));
    assert!(has_label_containing(&harness, &realized), "no {realized}");
    drop(harness);

    let mut again = app_harness(&db, AppState::default());
    let all = again.state().portfolio_holdings().unwrap().to_vec();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].sale.as_ref().unwrap().price_cents, 25_000);
    click(&mut again, "Portfolio");
    click(&mut again, "Sales (1)");
    assert!(
        has_label_containing(&again, &realized),
        "no {realized} after a restart"
    );
}

const GOOD_LINES: &str = "Style Code,Size,Name,Condition,Date Bought,Price Paid
dd1391100,US 10,Dunk Low,DS,2024-01-05,\"$1,180.00\"
DD1391-100,10.5Y,Dunk Low GS,used,01/06/2024,$95
GY0982,7C,Yeezy,,2024-01-07,110
";

#[test]
fn an_import_with_one_bad_line_names_it_and_imports_nothing_then_a_good_one_imports_all() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(UserDb::FILE_NAME);
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        format!("{GOOD_LINES}CW2288-111,11,AF1,new,2024-01-08,12x\n"),
    )
    .unwrap();
    let good = dir.path().join("good.csv");
    std::fs::write(&good, GOOD_LINES).unwrap();
    let mut harness = app_harness(&db, AppState::default());
    click(&mut harness, "Portfolio");
    click(&mut harness, "Import / export CSV");

    type_into(&mut harness, "CSV file", &bad.to_string_lossy());
    click(&mut harness, "Preview");
    step_until(&mut harness, "the refusal", |h| {
        h.state().is_idle() && has_label_containing(h, "line 5, column 6")
    });
    assert!(has_label_containing(&harness, "nothing was imported"));
    assert!(
        harness
            .query_all_by_label_contains("Import 4")
            .next()
            .is_none()
    );
    assert!(harness.state().portfolio_holdings().unwrap().is_empty());

    harness.get_by_label("CSV file").click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.step();
    harness
        .get_by_label("CSV file")
        .type_text(&good.to_string_lossy());
    harness.step();
    click(&mut harness, "Preview");
    step_until(&mut harness, "the preview", |h| {
        h.state().is_idle() && has_label_containing(h, "3 pairs read")
    });
    assert!(
        harness.state().portfolio_holdings().unwrap().is_empty(),
        "written before confirming"
    );
    click(&mut harness, "Import 3 pairs");
    step_until(&mut harness, "the import", |h| {
        h.state().is_idle()
            && h.state()
                .portfolio_holdings()
                .is_some_and(|all| all.len() == 3)
    });
    let all = harness.state().portfolio_holdings().unwrap();
    assert_eq!(all[0].pair.sku, "DD1391-100");
    assert_eq!(all[0].pair.cost_cents, 118_000);
    assert_eq!(all[1].pair.size, "10.5Y");

    // Removing asks first, then removes one pair. The charts of the imported pairs appear above
    // the tabs once their totals are in; kittest clicks where a node was in the last frame, so
    // the click waits until the layout has settled.
    step_until(&mut harness, "the charts", |h| {
        h.state().is_idle() && has_label_containing(h, "average order value")
    });
    harness.run_steps(2);
    click(&mut harness, "Holdings (3)");
    assert_eq!(harness.query_all_by_label("Remove").count(), 3);
    harness.query_all_by_label("Remove").next().unwrap().click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().portfolio_holdings().unwrap().len(), 3);
    click(&mut harness, "Remove pair");
    step_until(&mut harness, "the removal", |h| {
        h.state().is_idle()
            && h.state()
                .portfolio_holdings()
                .is_some_and(|all| all.len() == 2)
    });
}

#[test]
fn the_value_by_week_is_fetched_when_asked_for_and_an_unknown_style_code_has_no_price_with_why() {
    let client = Client::new(ClientConfig::new(
        &fixture().base_url,
        Some("demo-pro".into()),
    ))
    .unwrap();
    let product = fixture().runtime.block_on(async {
        let hits = client.search(&SearchQuery::default()).await.unwrap().hits;
        client.product_v2(&hits[0].id).await.unwrap().data
    });
    let variant = product.variants.iter().find(|v| v.price > 0.0).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join(UserDb::FILE_NAME);
    {
        let mut db = UserDb::open(&db_path).unwrap();
        let pair = |sku: &str, size: &str| Pair {
            product_id: String::new(),
            slug: String::new(),
            sku: sku.to_owned(),
            title: format!("Pair {sku}"),
            size: size.to_owned(),
            condition: Condition::New,
            purchased_on: chrono::NaiveDate::from_ymd_opt(2026, 2, 3).unwrap(),
            cost_cents: 10_000,
            currency: product.currency.clone(),
            bought_from: String::new(),
            notes: String::new(),
            tags: Vec::new(),
        };
        let rows = [
            (pair(&product.sku, &variant.size), None),
            (pair("ZZ9999-999", "10"), None),
        ];
        solescope::userdb::portfolio::add_holdings(&mut db, &rows).unwrap();
    }
    let mut harness = app_harness(&db_path, AppState::default());
    click(&mut harness, "Portfolio");
    step_until(&mut harness, "the rows priced", |h| {
        h.state().is_idle()
            && h.state().portfolio_rows().len() == 2
            && h.state()
                .portfolio_rows()
                .iter()
                .all(|r| r.market.is_some() || matches!(r.unpriced, Some(Unpriced::Because(_))))
    });
    harness.run_steps(2);
    let rows = harness.state().portfolio_rows().to_vec();
    let known = rows
        .iter()
        .find(|r| r.holding.pair.sku == product.sku)
        .unwrap();
    assert_eq!(
        known.market.as_ref().map(|m| m.cents),
        cents_from_amount(variant.price)
    );
    assert!(
        known
            .market
            .as_ref()
            .unwrap()
            .source
            .contains("from the catalogue"),
        "{:?}",
        known.market
    );
    let unknown = rows
        .iter()
        .find(|r| r.holding.pair.sku == "ZZ9999-999")
        .unwrap();
    assert!(unknown.market.is_none());
    let Some(Unpriced::Because(why)) = &unknown.unpriced else {
        panic!("{unknown:?}");
    };
    assert!(
        why.contains("No product with style code ZZ9999-999"),
        "{why}"
    );
    assert!(has_label_containing(&harness, "no price"));

    // The weekly figures wait for the chart to be asked for, which says what it costs.
    assert!(!has_label_containing(
        &harness,
        "Chart of the portfolio's value by week"
    ));
    assert!(has_label_containing(
        &harness,
        "with KicksDB they would cost up to 5 calls"
    ));
    click(&mut harness, "Show value by week (1 product)");
    step_until(&mut harness, "the value by week", |h| {
        h.state().is_idle() && has_label_containing(h, "Chart of the portfolio's value by week")
    });
}

fn watched(id: &str) -> WatchedProduct {
    WatchedProduct {
        id: id.into(),
        title: format!("Product {id}"),
        sku: format!("SKU-{id}"),
        country: Country::Us,
        currency: "USD".into(),
        price_when_starred: Some(150.0),
    }
}

#[test]
fn the_watchlist_of_older_eframe_storage_is_moved_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(UserDb::FILE_NAME);
    let old_state = AppState {
        watchlist: vec![watched("a"), watched("b")],
        ..AppState::default()
    };
    let mut first = app_harness(&db, old_state.clone());
    assert_eq!(first.state().state.watchlist, [watched("a"), watched("b")]);
    first.state_mut().state.watchlist.retain(|w| w.id == "b");
    step_until(&mut first, "the watchlist saved", |h| h.state().is_idle());
    drop(first);

    // The old storage still lists both: the removed star stays removed.
    let second = app_harness(&db, old_state);
    assert_eq!(second.state().state.watchlist, [watched("b")]);
    // And a state without any watchlist (a newer version's) gets it from the database.
    drop(second);
    let third = app_harness(&db, AppState::default());
    assert_eq!(third.state().state.watchlist, [watched("b")]);
}
