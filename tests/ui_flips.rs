//! The Flips tab, driven in `egui_kittest` over the demo's service reading a mock Shopify store
//! that names its products its own way: the Panda in stock in US 8 and US 10 at 100.00 (US 9
//! sold out). The tab shows the known flip with the profit the rates give (worked out here from
//! the catalogue's ask), a fee typed in the tab moves it (and is the payout calculator's, and
//! kept in the user database), and "only my sizes" lists the user's size and only it.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use common::kittest::{has_label_containing, step_until};
use common::mock_storefront::{MockProduct, MockStorefront, sneaker};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use solescope::app::{App, AppInit, AppState, LOCAL_DEMO_ACCOUNT, StartupStatus, View};
use solescope::client::{KeyStore as _, MemoryKeyStore};
use solescope::model::flips::Flip;
use solescope::model::{RetailerStores, StoreUrl};
use solescope::service::flips::FlipsConfig;
use solescope::service::storefront::crawl::CrawlConfig;
use solescope::service::storefront::{StoreReading, StorefrontConfig};
use solescope::service::{self, ServiceState};
use solescope::ui::format::money_from_cents;
use solescope::ui::market::FeePreset;
use solescope::userdb::UserDb;

/// The Panda as the store lists it: its own handle, US 8 and US 10 in stock at 100.00.
fn panda() -> MockProduct {
    let mut product = sneaker(
        "dunk-low-retro-wht-blk-m",
        9_500_000_000_001,
        "Nike Dunk Low Retro White Black",
        "USD",
        2,
        10_000,
        &[8.0, 9.0, 10.0],
    );
    for (variant, us) in product.variants.iter_mut().zip(["8", "9", "10"]) {
        variant.sku = format!("DD1391-100-{us}");
        variant.barcode = None;
        variant.available = us != "9";
    }
    product
}

struct Served {
    dir: tempfile::TempDir,
    catalogue: PathBuf,
    runtime: tokio::runtime::Runtime,
    _store: MockStorefront,
    list: RetailerStores,
    server: service::ServerHandle,
}

fn serve() -> Served {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "ui.sqlite", 2_000, 11);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let store = runtime.block_on(MockStorefront::start(vec![panda()]));
    let list = RetailerStores::new([StoreUrl::parse(&store.base_url).unwrap()]);
    let reading = StoreReading::with_crawl(
        list.clone(),
        StorefrontConfig {
            min_interval: Duration::from_millis(10),
            ..StorefrontConfig::default()
        },
        &dir.path().join("stores.sqlite"),
        CrawlConfig {
            watch_interval: Duration::from_millis(100),
            ..CrawlConfig::default()
        },
    )
    .unwrap();
    let mut config = common::config(&catalogue);
    config.store_reading = Some(reading);
    config.flips = FlipsConfig {
        check_every: Duration::from_millis(100),
        catalogue_change_every: Duration::ZERO,
        ..FlipsConfig::default()
    };
    let state = ServiceState::open(&config).unwrap();
    let server = runtime
        .block_on(async { service::spawn("127.0.0.1:0", state).await })
        .unwrap();
    Served {
        dir,
        catalogue,
        runtime,
        _store: store,
        list,
        server,
    }
}

impl Served {
    /// The window on the Flips tab, its user database in the test's folder.
    fn window(&self) -> Harness<'static, App> {
        let key_store = Arc::new(MemoryKeyStore::new());
        key_store.set(LOCAL_DEMO_ACCOUNT, "demo-pro").unwrap();
        common::kittest::app_harness(AppInit {
            runtime: self.runtime.handle().clone(),
            key_store,
            startup: StartupStatus::ready(self.server.base_url())
                .with_retailer_stores(self.list.clone()),
            state: AppState {
                view: View::Flips,
                ..AppState::default()
            },
            screenshot: None,
            user_db: Some(self.db()),
        })
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join(UserDb::FILE_NAME)
    }
}

/// The catalogue's own price of the Panda in US `size`: its resale ask, in cents.
fn panda_ask(catalogue: &Path, size: &str) -> i64 {
    rusqlite::Connection::open(catalogue)
        .unwrap()
        .query_row(
            "SELECT v.price_usd_cents FROM variants v JOIN products p ON p.pk = v.product_pk
             WHERE p.sku = 'DD1391-100' AND v.size = ?1 ORDER BY p.popularity DESC, p.pk LIMIT 1",
            [size],
            |row| row.get(0),
        )
        .unwrap()
}

/// The profit by hand: the ask less its commission and processing (each a percentage of the
/// ask, to the cent), less 100.00 + 10.00 shipping + 7.50 tax.
fn profit_by_hand(ask: i64, commission: f64, processing: f64) -> i64 {
    let fee = |percent: f64| (ask as f64 * percent / 100.0).round() as i64;
    ask - fee(commission) - fee(processing) - 11_750
}

fn panda_row<'a>(harness: &'a Harness<'_, App>, size: &str) -> Option<&'a Flip> {
    harness.state().flips_list().and_then(|list| {
        list.answer
            .flips
            .iter()
            .find(|f| f.style_code == "DD1391-100" && f.size == size)
    })
}

/// The list in hand, settled: nothing in flight and the service done building it.
fn settled(harness: &Harness<'_, App>) -> bool {
    harness.state().is_idle()
        && harness
            .state()
            .flips_list()
            .is_some_and(|list| !list.answer.building)
}

#[test]
fn the_tab_shows_the_known_flip_and_a_fee_typed_there_moves_its_profit() {
    let served = serve();
    let mut harness = served.window();
    step_until(&mut harness, "the Panda's US 10 listed", |h| {
        settled(h) && panda_row(h, "10").is_some()
    });
    let ask = panda_ask(&served.catalogue, "10");
    // Seller level 1: 9 % commission and 3 % processing.
    let profit = profit_by_hand(ask, 9.0, 3.0);
    let row = panda_row(&harness, "10").unwrap();
    assert_eq!(
        (row.buy_cost, row.sell_price, row.profit),
        (11_750, ask, profit)
    );
    let shown = money_from_cents(profit, "USD");
    assert!(has_label_containing(&harness, &shown), "{shown} shown");
    assert!(panda_row(&harness, "9").is_none(), "a sold-out size listed");

    // Commission 5 %, typed in the tab: the profit moves by the difference, as shown.
    harness.get_by_label("Your costs, fees and alerts").click();
    harness.step();
    harness.step();
    harness
        .get_by_role_and_label(egui::accesskit::Role::SpinButton, "Commission")
        .set_value_accesskit(5.0);
    let lower_fees = profit_by_hand(ask, 5.0, 3.0);
    step_until(&mut harness, "the profit at 5 % commission", |h| {
        settled(h) && panda_row(h, "10").is_some_and(|row| row.profit == lower_fees)
    });
    assert!(lower_fees > profit);
    let shown = money_from_cents(lower_fees, "USD");
    assert!(has_label_containing(&harness, &shown), "{shown} shown");
    // The rates are the payout calculator's own now, and kept for the monitor.
    let payout = &harness.state().state.payout;
    assert_eq!(payout.preset, FeePreset::Custom);
    assert!((payout.rates.commission_percent - 5.0).abs() < 1e-9);
    step_until(&mut harness, "the settings saved", |h| h.state().is_idle());
    drop(harness);
    let saved = UserDb::open(&served.db()).unwrap().flip_prefs().unwrap();
    assert_eq!(saved.own_fees.map(|f| f.commission_percent), Some(5.0));
}

#[test]
fn only_my_sizes_lists_the_users_size_and_no_other() {
    let served = serve();
    {
        let mut db = UserDb::open(&served.db()).unwrap();
        db.set_my_sizes(&["10".to_owned()]).unwrap();
    }
    let mut harness = served.window();
    // Without the filter, both sizes in stock are listed (the control).
    step_until(&mut harness, "both sizes listed", |h| {
        settled(h) && panda_row(h, "8").is_some() && panda_row(h, "10").is_some()
    });
    harness.get_by_label("Only my sizes").click();
    step_until(&mut harness, "only US 10", |h| {
        settled(h) && panda_row(h, "8").is_none()
    });
    let list = harness.state().flips_list().unwrap();
    assert!(panda_row(&harness, "10").is_some(), "my size is listed");
    assert!(
        list.answer.flips.iter().all(|f| f.size == "10"),
        "{:?}",
        list.answer.flips
    );
    // Off again: US 8 is back.
    harness.get_by_label("Only my sizes").click();
    step_until(&mut harness, "US 8 back", |h| {
        settled(h) && panda_row(h, "8").is_some()
    });
}
