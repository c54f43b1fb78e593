//! Tests of the Alerts tab, the alert form and the history lines.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use super::history::history_lines;
use super::*;
use crate::model::{PricePoint, QuoteSource};

fn product() -> ProductRef {
    ProductRef {
        product_id: "a-uuid".into(),
        style_code: "DZ5485-612".into(),
        title: "Air Jordan 1 Chicago".into(),
    }
}

#[test]
fn prices_are_read_in_dollars_and_nonsense_is_refused() {
    assert_eq!(cents_from_text(" $1,249.99 "), Ok(124_999));
    assert_eq!(cents_from_text("250"), Ok(25_000));
    for bad in ["", "abc", "0", "-5", "NaN", "inf", "2000000"] {
        assert!(cents_from_text(bad).is_err(), "{bad}");
    }
    let stock = AlertForm {
        kind: AlertKind::BackInStock,
        price: "not read".into(),
        ..AlertForm::default()
    };
    assert_eq!(stock.alert(&product()).unwrap().price_cents, None);
}

struct Window {
    form: AlertForm,
    alerts: Vec<Alert>,
    firings: Vec<AlertFiring>,
    outputs: Vec<AlertsOutput>,
}

fn harness(window: Window) -> Harness<'static, Window> {
    Harness::new_ui_state(
        |ui, window: &mut Window| {
            let product = product();
            let sizes = vec!["9".to_owned(), "10".to_owned()];
            let inputs = AlertsInputs {
                product: Some(&product),
                sizes: &sizes,
                alerts: Some(&window.alerts),
                firings: &window.firings,
                monitor: "Monitor: 2 checks",
                error: None,
            };
            let output = alerts_ui(ui, &mut window.form, &inputs);
            if output != AlertsOutput::default() {
                window.outputs.push(output);
            }
        },
        window,
    )
}

#[test]
fn the_form_adds_an_alert_on_the_open_product_or_says_why_not() {
    let mut harness = harness(Window {
        form: AlertForm::default(),
        alerts: Vec::new(),
        firings: Vec::new(),
        outputs: Vec::new(),
    });
    harness.run();
    assert!(harness.query_by_label("No alerts yet.").is_some());
    harness.get_by_label("Add alert").click();
    harness.run();
    assert!(harness.state().outputs.is_empty());
    assert!(harness.query_by_label_contains("is not a price").is_some());

    harness.state_mut().form.price = "249.50".into();
    harness.state_mut().form.size = "9".into();
    harness.run();
    harness.get_by_label("Add alert").click();
    harness.run();
    let added = harness.state().outputs[0].add.clone().unwrap();
    assert_eq!(added.product, product());
    assert_eq!(added.size.as_deref(), Some("9"));
    assert_eq!(added.price_cents, Some(24_950));
    assert_eq!(added.kind, AlertKind::AskAtOrBelow);
}

#[test]
fn alerts_show_their_state_and_the_history_what_fired() {
    let spec = AlertForm {
        price: "250".into(),
        size: "9".into(),
        ..AlertForm::default()
    }
    .alert(&product())
    .unwrap();
    let alerts = vec![
        Alert {
            id: 1,
            spec: spec.clone(),
            armed: true,
            created_at: 0,
        },
        Alert {
            id: 2,
            spec: NewAlert {
                size: None,
                ..spec.clone()
            },
            armed: false,
            created_at: 0,
        },
    ];
    let firings = vec![AlertFiring {
        id: 1,
        alert_id: Some(2),
        product: product(),
        kind: AlertKind::AskAtOrBelow,
        size: "10".into(),
        source: QuoteSource::ResaleA,
        price_cents: Some(24_800),
        currency: "USD".into(),
        fired_at: 1_800_000_000,
    }];
    let mut harness = harness(Window {
        form: AlertForm::default(),
        alerts,
        firings,
        outputs: Vec::new(),
    });
    harness.run();
    assert!(
        harness
            .query_by_label("Lowest ask at or below 250.00 USD, size 9")
            .is_some()
    );
    assert!(
        harness
            .query_by_label("Lowest ask at or below 250.00 USD, any size")
            .is_some()
    );
    assert!(harness.query_by_label("watching").is_some());
    assert!(harness.query_by_label_contains("fired").is_some());
    assert!(
        harness
            .query_by_label("size 10 · 248.00 USD on resale-a")
            .is_some()
    );
    harness.get_all_by_label("Delete").nth(1).unwrap().click();
    harness.run();
    assert_eq!(harness.state().outputs[0].delete, Some(2));
}

#[test]
fn history_has_one_line_per_size_and_source_with_asks_only() {
    let point = |size: &str, source, at, ask| PricePoint {
        size: size.into(),
        source,
        at,
        lowest_ask_cents: ask,
        highest_bid_cents: None,
        last_sale_cents: None,
        currency: "USD".into(),
        store: None,
    };
    // As the database gives them: sizes as text, so `10` before `9`.
    let points = [
        point("10", QuoteSource::ResaleA, 0, Some(21_000)),
        point("9", QuoteSource::ResaleA, 0, Some(20_000)),
        point("9", QuoteSource::Retailer, 0, None),
        point("10", QuoteSource::ResaleA, 900, Some(21_100)),
        point("9", QuoteSource::ResaleA, 900, Some(20_100)),
        point("9", QuoteSource::Retailer, 900, Some(19_000)),
        point("W 8", QuoteSource::ResaleA, 900, Some(9_000)),
    ];
    let sizes = ["9".to_owned(), "10".to_owned()];
    let lines = history_lines(&points, &sizes);
    let names: Vec<&str> = lines.iter().map(|line| line.name.as_str()).collect();
    // The product's size order, sources in the order met, a size it does not list last.
    assert_eq!(
        names,
        [
            "9 · resale-a",
            "9 · retailer-a",
            "10 · resale-a",
            "W 8 · resale-a"
        ]
    );
    assert_eq!(lines[0].points, vec![[0.0, 200.0], [900.0, 201.0]]);
    assert_eq!(lines[1].points, vec![[900.0, 190.0]]);

    // A store selling in euros beside the marketplace's dollars: each line says its currency.
    let mixed = [
        point("9", QuoteSource::ResaleA, 0, Some(20_000)),
        PricePoint {
            currency: "EUR".into(),
            ..point("9", QuoteSource::Retailer, 0, Some(18_000))
        },
    ];
    let lines = history_lines(&mixed, &sizes);
    let names: Vec<&str> = lines.iter().map(|line| line.name.as_str()).collect();
    assert_eq!(names, ["9 · resale-a · USD", "9 · retailer-a · EUR"]);
    assert_eq!(lines[1].currency, "EUR");

    // Two stores read for retailer-a: a line each, named by its store.
    let stores = [
        PricePoint {
            store: Some("kith.com".into()),
            ..point("9", QuoteSource::Retailer, 0, Some(18_000))
        },
        PricePoint {
            store: Some("undefeated.com".into()),
            ..point("9", QuoteSource::Retailer, 0, Some(18_500))
        },
    ];
    let lines = history_lines(&stores, &sizes);
    let names: Vec<&str> = lines.iter().map(|line| line.name.as_str()).collect();
    assert_eq!(names, ["9 · kith.com", "9 · undefeated.com"]);
}
