//! Tests of the Real-time tab: the form, the budget line, each source's answer.

use std::time::Instant;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use super::*;
use crate::figures::{lowest_size_ask, size_asks};
use crate::model::{
    Amount, Market, MarketState, Media, ResaleAProduct, ResaleBEdge, ResaleBNode, SalesInformation,
};

#[test]
fn a_lookup_is_built_from_the_trimmed_id_of_the_selected_source() {
    let mut form = RealtimeForm {
        resale_a_id: "  12345678 \n".into(),
        resale_b_id: "air-jordan-1".into(),
        retailer_slug: "   ".into(),
        currency: Some("EUR".into()),
        ..RealtimeForm::default()
    };
    assert_eq!(
        form.lookup(),
        Some(Lookup::ResaleA {
            id: "12345678".into()
        })
    );
    form.source = RealtimeSource::ResaleB;
    assert_eq!(
        form.lookup(),
        Some(Lookup::ResaleB {
            id: "air-jordan-1".into(),
            query: RelatedQuery {
                country: None,
                currency: Some("EUR".into()),
                market: None,
            },
        })
    );
    form.source = RealtimeSource::Retailer;
    assert_eq!(form.lookup(), None);
    form.retailer_slug = " a/b c?d ".into();
    assert_eq!(
        form.lookup(),
        Some(Lookup::Retailer {
            slug: "a/b c?d".into()
        })
    );
}

#[test]
fn the_form_persists_without_its_transient_state() {
    let mut form = RealtimeForm {
        source: RealtimeSource::ResaleB,
        resale_b_id: "x".into(),
        ..RealtimeForm::default()
    };
    form.record_lookup(&Lookup::ResaleA { id: "7".into() });
    let json = serde_json::to_string(&form).unwrap();
    assert!(!json.contains("track"), "{json}");
    let back: RealtimeForm = serde_json::from_str(&json).unwrap();
    assert_eq!(back.source, RealtimeSource::ResaleA);
    assert_eq!(back.resale_a_id, "7");
    assert_eq!(back.resale_b_id, "x");
    let old: RealtimeForm = serde_json::from_str(r#"{"source":"retailer"}"#).unwrap();
    assert_eq!(old.source, RealtimeSource::Retailer);
}

fn budget(remaining: u32, source: BudgetSource) -> Budget {
    Budget {
        limit: 120,
        remaining,
        resets_at: Instant::now() + Duration::from_secs(42),
        source,
    }
}

#[test]
fn the_budget_line_counts_down_only_for_a_running_window() {
    let secs = Duration::from_millis(41_200);
    assert_eq!(
        budget_text(&budget(117, BudgetSource::Server), secs),
        "Real-time budget: 117 of 120 left this minute · resets in 42 s"
    );
    assert_eq!(
        budget_text(&budget(120, BudgetSource::Assumed), secs),
        "Real-time budget: 120 of 120 left this minute"
    );
    assert!(
        budget_text(&budget(0, BudgetSource::Counted), secs)
            .starts_with("Real-time budget spent: 0 of 120 left · resets in 42 s")
    );
}

fn resale_a_product(options: &[&str], available: serde_json::Value) -> ResaleAProduct {
    let mut product: ResaleAProduct = serde_json::from_str(
        r#"{
        "id": 1, "name": "", "nickname": "", "slug": "", "sku": "", "brandName": "",
        "designer": "", "details": "", "color": "", "silhouette": "", "midsole": "",
        "upperMaterial": "", "season": "", "category": [], "gender": [], "singleGender": "",
        "productCategory": "", "productType": "", "productTaxonomy": [], "specialType": "",
        "status": "", "releaseDate": "", "story": "", "storyHtml": "", "internalShot": "",
        "sizeBrand": "", "sizeType": "", "sizeUnit": "", "sizeOptions": [], "sizeRange": [],
        "availableSizesNew": [], "availableSizesNewV2": [],
        "availableSizesNewWithDefects": [], "availableSizesUsed": [], "featuredIn": [],
        "robotAssets": [], "gridPictureUrl": "", "gridGlowPictureUrl": "",
        "mainPictureUrl": "", "mainGlowPictureUrl": "", "pictureUrl": "",
        "walletPayOnlyPromo": false, "directShipping": false, "forAuction": false,
        "isAvailabilityRestricted": false, "isFashionProduct": false, "isOfferable": true,
        "isOwnable": true, "isRaffleProduct": false, "isResellable": true,
        "isWantable": true, "renderImagesInOrder": false, "lowestPriceCents": 0,
        "newLowestPriceCents": 0, "usedLowestPriceCents": 0,
        "specialDisplayPriceCents": 0, "maximumOfferCents": 0, "minimumOfferCents": 0,
        "sellingCount": 0, "usedForSaleCount": 0, "withDefectForSaleCount": 0,
        "micropostsCount": 0,
        "localizedSpecialDisplayPriceCents": {"amount": 0, "amountUsdCents": 0, "currency": "USD"}
        }"#,
    )
    .unwrap();
    product.available_sizes_new = serde_json::from_value(available).unwrap();
    product.size_options = options
        .iter()
        .map(|size| crate::model::SizeOption {
            presentation: (*size).to_owned(),
            value: size.parse().unwrap_or(0.0),
        })
        .collect();
    product
}

#[test]
fn sizes_without_an_ask_have_no_price_and_the_lowest_ask_is_found() {
    let product = resale_a_product(
        &["9", "9.5", "10"],
        serde_json::json!([
            {"size": 9.0, "presentation": "9", "lowestPriceCents": 24_000},
            {"size": 10.0, "lowestPriceCents": 23_500},
            {"size": 11.0, "presentation": "11", "lowestPriceCents": 0},
        ]),
    );
    let sizes = size_asks(&product);
    let asks: Vec<_> = sizes
        .iter()
        .map(|row| (row.size.as_str(), row.lowest_ask_cents))
        .collect();
    assert_eq!(
        asks,
        [
            ("9", Some(24_000)),
            ("9.5", None),
            ("10", Some(23_500)),
            ("11", None)
        ]
    );
    assert_eq!(lowest_size_ask(&sizes), Some(("10", 23_500)));
    assert_eq!(lowest_size_ask(&sizes[1..2]), None);
}

fn edge(title: &str, ask: f64, bid: f64, sales: i64) -> ResaleBEdge {
    ResaleBEdge {
        node: ResaleBNode {
            id: title.to_owned(),
            brand: String::new(),
            title: title.to_owned(),
            primary_title: String::new(),
            secondary_title: String::new(),
            product_category: String::new(),
            listing_type: "STANDARD".to_owned(),
            url_key: String::new(),
            media: Media {
                thumb_url: String::new(),
            },
            market: Market {
                sales_information: SalesInformation {
                    last_sale: ask,
                    sales_last_72_hours: sales,
                },
                state: MarketState {
                    highest_bid: Amount { amount: bid },
                    lowest_ask: Amount { amount: ask },
                    number_of_asks: 1,
                    number_of_bids: 1,
                },
            },
        },
    }
}

#[test]
fn related_products_sort_with_missing_figures_last() {
    let edges = [
        edge("b", 300.0, 270.0, 5),
        edge("C", 0.0, 100.0, 9),
        edge("a", 200.0, 190.0, 1),
    ];
    let titles = |sort| -> Vec<String> {
        related_in_order(&edges, sort)
            .iter()
            .map(|node| node.title.clone())
            .collect()
    };
    assert_eq!(titles(RelatedSort::default()), ["b", "C", "a"]);
    let ask = RelatedSort::default().clicked(RelatedColumn::LowestAsk);
    assert_eq!(titles(ask), ["a", "b", "C"]);
    let ask_down = ask.clicked(RelatedColumn::LowestAsk);
    assert!(ask_down.descending);
    assert_eq!(titles(ask_down), ["b", "a", "C"]);
    assert_eq!(
        ask_down.clicked(RelatedColumn::LowestAsk),
        RelatedSort::default()
    );
    let spread = RelatedSort::default().clicked(RelatedColumn::Spread);
    assert_eq!(titles(spread), ["a", "b", "C"]);
    let title = RelatedSort::default().clicked(RelatedColumn::Title);
    assert_eq!(titles(title), ["a", "b", "C"]);
}

/// What a test window holds: the app's side of the tab.
struct Window {
    form: RealtimeForm,
    resale_a: Option<ResaleAEnvelope>,
    resale_b: Option<ResaleBEnvelope>,
    retailer: Option<RetailerEnvelope>,
    budget: Option<Budget>,
    tier: Option<Tier>,
    offered: Option<RealtimeInfo>,
    lookups: Vec<Lookup>,
}

fn window(
    tier: Option<Tier>,
    budget: Option<Budget>,
    form: RealtimeForm,
) -> Harness<'static, Window> {
    let state = Window {
        form,
        resale_a: None,
        resale_b: None,
        retailer: None,
        budget,
        tier,
        offered: None,
        lookups: Vec::new(),
    };
    Harness::new_ui_state(
        |ui, window: &mut Window| {
            let results = RealtimeResults {
                resale_a: window
                    .resale_a
                    .as_ref()
                    .map_or(Fetched::NotYetRequested, Fetched::Completed),
                resale_b: window
                    .resale_b
                    .as_ref()
                    .map_or(Fetched::NotYetRequested, Fetched::Completed),
                retailer: window
                    .retailer
                    .as_ref()
                    .map_or(Fetched::NotYetRequested, Fetched::Completed),
                budget: window.budget,
                tier: window.tier,
                offered: window.offered.as_ref(),
            };
            if let Some(lookup) = realtime_ui(ui, &mut window.form, results).lookup {
                window.lookups.push(lookup);
            }
        },
        state,
    )
}

/// A service without a retailer (KicksDB alone) and with `resale-b` in three currencies: the
/// retailer lookup is not offered, and the currency picker lists only those three.
#[test]
fn only_what_the_service_answers_is_offered() {
    let mut harness = window(
        Some(Tier::Pro),
        None,
        RealtimeForm {
            source: RealtimeSource::ResaleB,
            country: Some("US".into()),
            currency: Some("AUD".into()),
            market: Some("DE".into()),
            ..RealtimeForm::default()
        },
    );
    harness.state_mut().offered = Some(RealtimeInfo {
        resale_a: Some(crate::model::LookupInfo {
            source: "kicksdb".into(),
        }),
        resale_b: Some(RelatedInfo {
            source: "kicksdb".into(),
            countries: vec!["US".into(), "DE".into()],
            currencies: vec!["USD".into(), "EUR".into(), "DKK".into()],
            markets: vec!["US".into(), "DE".into()],
        }),
        retailer_a: None,
    });
    harness.run();
    assert!(
        harness
            .get_by_label("retailer-a (free)")
            .accesskit_node()
            .is_disabled()
    );
    // AUD was kept from another service: this one gives no AUD, so the default is asked.
    assert_eq!(harness.state().form.currency, None);
    harness.get_by_label("Currency").click();
    harness.run();
    let listed: Vec<String> = ["USD", "EUR", "GBP", "AUD", "DKK", "JPY"]
        .into_iter()
        .filter(|code| harness.query_by_label(code).is_some())
        .map(str::to_owned)
        .collect();
    assert_eq!(listed, ["USD", "EUR", "DKK"]);
}

#[test]
fn a_free_key_sees_a_lock_for_resale_and_can_use_the_retailer() {
    let mut harness = window(Some(Tier::Free), None, RealtimeForm::default());
    harness.run();
    assert!(harness.query_by_label_contains("need a pro key").is_some());
    assert!(harness.query_by_label("Look up").is_none());
    harness.get_by_label("retailer-a (free)").click();
    harness.run();
    assert!(harness.query_by_label_contains("need a pro key").is_none());
    harness.get_by_label("Look up").click();
    harness.run();
    assert!(harness.state().lookups.is_empty());
    assert!(
        harness
            .query_by_label("Enter a product slug first.")
            .is_some()
    );
    harness.state_mut().form.retailer_slug = "  some-slug ".into();
    harness.run();
    harness.get_by_label("Look up").click();
    harness.run();
    assert_eq!(
        harness.state().lookups,
        [Lookup::Retailer {
            slug: "some-slug".into()
        }]
    );
    assert!(harness.query_by_label("Refresh").is_some());
}

#[test]
fn a_spent_budget_disables_resale_lookups_and_says_when_it_resets() {
    let form = RealtimeForm {
        resale_a_id: "12345678".into(),
        ..RealtimeForm::default()
    };
    let mut harness = window(Some(Tier::Pro), Some(budget(0, BudgetSource::Server)), form);
    harness.run();
    assert!(
        harness
            .query_by_label_contains("Real-time budget spent: 0 of 120 left · resets in")
            .is_some()
    );
    let button = harness.get_by_label("Look up");
    assert!(button.accesskit_node().is_disabled());
    button.click();
    harness.run();
    assert!(harness.state().lookups.is_empty());

    harness.state_mut().budget = Some(budget(5, BudgetSource::Server));
    harness.run();
    harness.get_by_label("Look up").click();
    harness.run();
    assert_eq!(
        harness.state().lookups,
        [Lookup::ResaleA {
            id: "12345678".into()
        }]
    );
}
