//! The *Drops* tab of the real app (`egui_kittest`) against the in-process service over a
//! catalogue built for today: the calendar shown week by week, a star kept in the user
//! database (with its reminder), the title opening the product view.

mod common;

use std::sync::Arc;

use common::kittest::{has_label_containing, step_until};
use egui_kittest::kittest::Queryable as _;
use solescope::app::{AppInit, AppState, LOCAL_DEMO_ACCOUNT, StartupStatus, View};
use solescope::client::{KeyStore as _, MemoryKeyStore};
use solescope::userdb::UserDb;

#[test]
fn the_drops_tab_lists_the_weeks_keeps_a_star_and_opens_the_product() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = dir.path().join("catalogue.sqlite");
    solescope::catalogue::generate::generate(
        &solescope::catalogue::generate::GenerateOptions {
            products: 1_500,
            seed: 9,
            as_of: chrono::Utc::now().date_naive(),
            demo_keys: true,
        },
        &catalogue,
        &mut |_| {},
    )
    .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(common::start(common::config(&catalogue)));
    let key_store = Arc::new(MemoryKeyStore::new());
    key_store.set(LOCAL_DEMO_ACCOUNT, "demo-pro").unwrap();
    let user_db = dir.path().join("user.sqlite");
    let mut harness = common::kittest::app_harness(AppInit {
        runtime: runtime.handle().clone(),
        key_store,
        startup: StartupStatus::ready(server.base_url()),
        state: AppState::default(),
        screenshot: None,
        user_db: Some(user_db.clone()),
    });
    step_until(&mut harness, "connected", |h| h.state().tier().is_some());
    harness.get_by_label("Drops").click();
    step_until(&mut harness, "the calendar", |h| {
        h.state().drops_calendar().is_some()
    });
    harness.step();
    let calendar = harness.state().drops_calendar().unwrap().clone();
    assert!(!calendar.releases.is_empty(), "{calendar:#?}");
    assert!(has_label_containing(
        &harness,
        "Drops: this week and the next ten"
    ));
    assert!(has_label_containing(&harness, "Week of"));
    let first = calendar.releases[0].clone();
    assert!(has_label_containing(&harness, &first.title));

    // Star the first drop: kept in the user database with its reminder time.
    harness.query_all_by_label("☆").next().unwrap().click();
    let started = std::time::Instant::now();
    loop {
        harness.step();
        let stars = UserDb::open(&user_db).unwrap().drop_stars().unwrap();
        if let Some(star) = stars.first() {
            assert_eq!(star.style_code, first.style_code);
            assert!(star.starts_at.starts_with(&first.release_date));
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "not starred"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    step_until(&mut harness, "the star shown", |h| {
        h.query_all_by_label("★").next().is_some()
    });

    // The title opens the product.
    harness.get_by_label(&first.title).click();
    step_until(&mut harness, "the product", |h| {
        h.state()
            .product()
            .is_some_and(|p| Some(&p.id) == first.product_id.as_ref())
    });
    assert_eq!(harness.state().state.view, View::Product);
}
