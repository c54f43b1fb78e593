//! Batched prices and the monthly budget of a KicksDB key, against the mock KicksDB on a real
//! socket and counted there: `GET /api/v2/prices` spends one `POST /v3/stockx/prices` per 50
//! style codes; its 429, 403 and partial answers; no call past the budget; a quota header that
//! goes down or goes missing; a clock that jumps; a month that rolls over.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::mock_kicksdb::{Endpoint, MockConfig, MockKicksdb, Mode, PlanGate, QuotaHeader};
use solescope::client::{Client, ErrorKind};
use solescope::model::Country;
use solescope::model::budget::{BudgetSettings, BudgetSettingsCell, ManualClock};
use solescope::service::ServerHandle;

fn at(text: &str) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&chrono::Utc)
}

/// A service over the mock with the budget `settings`, the time from `clock`.
async fn start_over(
    mock: &MockKicksdb,
    dir: &std::path::Path,
    settings: BudgetSettings,
    clock: &ManualClock,
) -> ServerHandle {
    let clock = clock.clone();
    common::kicksdb_service(mock.base_url(), &mock.key(), dir, move |live, _| {
        live.budget.settings = BudgetSettingsCell::new(settings);
        live.budget.clock = Arc::new(clock);
    })
    .await
}

fn client(server: &ServerHandle) -> Client {
    common::ultra_client(server)
}

fn big_budget() -> BudgetSettings {
    BudgetSettings {
        monthly_quota: Some(1_000_000),
        share_percent: 100,
    }
}

fn codes(mock: &MockKicksdb, count: usize) -> Vec<String> {
    mock.style_codes()
        .into_iter()
        .take(count)
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hundred_and_twenty_codes_cost_three_batched_calls_priced_size_by_size() {
    let mock = MockKicksdb::start(MockConfig {
        extra_products: 115,
        ..MockConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(at("2026-11-10T12:00:00Z"));
    let server = start_over(&mock, dir.path(), big_budget(), &clock).await;
    let client = client(&server);
    let wanted = codes(&mock, 120);
    assert_eq!(wanted.len(), 120);

    let answer = client.prices_of_all(&wanted, Country::Us).await.unwrap();
    assert_eq!(mock.count(Endpoint::Prices), 3, "{:?}", mock.counts());
    assert_eq!(mock.counts().len(), 1, "no other call: {:?}", mock.counts());
    assert!(answer.missing.is_empty(), "{:?}", answer.missing);
    assert_eq!(answer.products.len(), 120);
    // Every call was a POST with at most 50 codes.
    for seen in mock.seen() {
        assert_eq!(seen.method, "POST");
        assert_eq!(seen.status, 200);
    }

    // Chicago, size by size: the mock's asks in dollars, the size nobody asks for left out.
    let chicago = answer
        .products
        .iter()
        .find(|p| p.sku == "555088-101")
        .unwrap();
    assert_eq!(chicago.product_id, "4a37fa2d-f2d7-440f-8785-9faeecc3f80c");
    assert_eq!(chicago.currency, "USD");
    assert_eq!(chicago.source, "kicksdb");
    let sizes: Vec<(&str, f64, Option<u32>)> = chicago
        .sizes
        .iter()
        .map(|s| (s.size.as_str(), s.lowest_ask, s.asks))
        .collect();
    assert_eq!(
        sizes,
        vec![
            ("8", 1_480.0, Some(9)),
            ("9", 1_725.0, Some(14)),
            ("10", 1_690.0, Some(11)),
            ("11", 1_560.0, Some(6))
        ]
    );

    // Asked again within five minutes, in another order and spelling: no call.
    let again: Vec<String> = wanted.iter().rev().map(|c| c.to_lowercase()).collect();
    let answer = client.prices_of_all(&again, Country::Us).await.unwrap();
    assert_eq!(answer.products.len(), 120);
    assert_eq!(mock.count(Endpoint::Prices), 3);

    // Euros for FR: a call of their own.
    let fr = client
        .prices(&["555088-101".to_owned()], Country::Fr)
        .await
        .unwrap();
    assert_eq!(fr.products[0].currency, "EUR");
    assert_eq!(mock.count(Endpoint::Prices), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_partial_batch_a_429_and_a_403_answer_from_what_is_held_and_say_so() {
    let mock = MockKicksdb::start(MockConfig {
        extra_products: 10,
        ..MockConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(at("2026-11-10T12:00:00Z"));
    let server = start_over(&mock, dir.path(), big_budget(), &clock).await;
    let client = client(&server);
    let wanted = codes(&mock, 6);

    // A batch that answers for half the codes: the others are missing (nothing held yet).
    mock.set_mode_for(&[Endpoint::Prices], Mode::PartialBatch);
    let answer = client.prices(&wanted, Country::Us).await.unwrap();
    assert_eq!(answer.products.len(), 3);
    assert_eq!(answer.missing, wanted[3..].to_vec());

    // A code held in the mirror (its product fetched before) is answered from there, aged;
    // the half the batch answered is live.
    client.product_v2("mock-runner-1000").await.unwrap();
    let rest = wanted[3..].to_vec();
    let answer = client.prices(&rest, Country::Us).await.unwrap();
    let sources: Vec<(&str, &str)> = answer
        .products
        .iter()
        .map(|p| (p.sku.as_str(), p.source.as_str()))
        .collect();
    assert_eq!(
        sources,
        vec![
            (rest[0].as_str(), "kicksdb"),
            (rest[1].as_str(), "kicksdb"),
            ("MK1000-101", "kicksdb-mirror")
        ]
    );
    assert!(!answer.products[2].as_of.is_empty());
    assert!(answer.missing.is_empty());

    // KicksDB's 429: nothing sent twice, the kept batch prices answer with their age.
    mock.set_mode(Mode::Normal);
    let before = mock.count(Endpoint::Prices);
    mock.set_mode_for(
        &[Endpoint::Prices],
        Mode::RateLimited {
            retry_after_secs: 30,
        },
    );
    let fresh = wanted[..3].to_vec();
    let other = codes(&mock, 12)[8..].to_vec();
    let refused = client.prices(&other, Country::Us).await.unwrap_err();
    assert_eq!(refused.kind, ErrorKind::RateLimited, "{refused:?}");
    assert_eq!(mock.count(Endpoint::Prices), before + 1);
    let kept = client.prices(&fresh, Country::Us).await.unwrap();
    assert_eq!(kept.products.len(), 3, "young kept prices need no call");

    // A plan without batched prices: its 403 names the plan.
    mock.set_mode(Mode::Normal);
    mock.set_plan_gates(vec![PlanGate::new("/v3/stockx/prices", "Starter")]);
    let refused = client.prices(&other, Country::Us).await.unwrap_err();
    assert!(
        refused
            .message
            .contains("batched prices need a paid KicksDB plan"),
        "{refused:?}"
    );

    // Malformed and HTML answers are KicksDB's failure, named.
    mock.set_plan_gates(Vec::new());
    for mode in [
        Mode::MalformedJson,
        Mode::Html { status: 502 },
        Mode::WrongType,
    ] {
        mock.set_mode_for(&[Endpoint::Prices], mode);
        let refused = client.prices(&other, Country::Us).await.unwrap_err();
        assert!(refused.message.contains("KicksDB"), "{mode:?}: {refused:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_call_past_the_budget_and_the_month_rolls_over() {
    let mock = MockKicksdb::start(MockConfig {
        extra_products: 10,
        quota_start: 0,
        ..MockConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(at("2026-11-30T22:00:00Z"));
    // A quota of 10 of which Solescope may use half: five calls this month.
    let settings = BudgetSettings {
        monthly_quota: Some(10),
        share_percent: 50,
    };
    let server = start_over(&mock, dir.path(), settings, &clock).await;
    let client = client(&server);
    let all = codes(&mock, 15);
    for code in &all[..5] {
        client
            .prices(std::slice::from_ref(code), Country::Us)
            .await
            .unwrap();
    }
    assert_eq!(mock.count(Endpoint::Prices), 5);
    let refused = client
        .prices(&[all[5].clone()], Country::Us)
        .await
        .unwrap_err();
    assert_eq!(refused.kind, ErrorKind::RateLimited, "{refused:?}");
    assert!(
        refused
            .message
            .contains("monthly KicksDB budget is spent (5 of 5 calls"),
        "{refused:?}"
    );
    // Until the month's end, two hours away.
    assert_eq!(refused.retry_after, Some(Duration::from_secs(7_200)));
    // Not sent: the mock saw five calls, and a product lookup is refused the same way.
    assert_eq!(mock.seen().len(), 5);
    assert!(client.product_v2("mock-runner-1009").await.is_err());
    assert_eq!(mock.seen().len(), 5);
    let status = client
        .budget()
        .await
        .unwrap()
        .expect("KicksDB has a budget");
    assert_eq!(
        (status.spend.counted, status.calls_left, status.allowance),
        (5, 0, 5)
    );
    assert_eq!(status.month_ends_at, "2026-12-01T00:00:00Z");

    // The clock jumps back a month: still this month's count, still refused, and said.
    clock.set(at("2026-10-15T00:00:00Z"));
    assert!(client.prices(&[all[6].clone()], Country::Us).await.is_err());
    assert_eq!(mock.seen().len(), 5);
    assert_eq!(
        client.budget().await.unwrap().unwrap().spend.month,
        "2026-11"
    );

    // December: a new month, five more calls.
    clock.set(at("2026-12-01T00:00:05Z"));
    for code in &all[6..11] {
        client
            .prices(std::slice::from_ref(code), Country::Us)
            .await
            .unwrap();
    }
    assert!(
        client
            .prices(&[all[11].clone()], Country::Us)
            .await
            .is_err()
    );
    assert_eq!(mock.count(Endpoint::Prices), 10);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_quota_header_holds_the_key_to_its_quota_and_its_faults_are_said() {
    let settings = BudgetSettings {
        monthly_quota: Some(100),
        share_percent: 100,
    };
    let clock = ManualClock::new(at("2026-11-10T12:00:00Z"));
    // Another program spent 96 of the key's 100 this month: four calls are left, not 100.
    let mock = MockKicksdb::start(MockConfig {
        extra_products: 20,
        quota_start: 96,
        ..MockConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let server = start_over(&mock, dir.path(), settings, &clock).await;
    let client = client(&server);
    let all = codes(&mock, 25);
    for code in &all[..4] {
        client
            .prices(std::slice::from_ref(code), Country::Us)
            .await
            .unwrap();
    }
    let refused = client
        .prices(&[all[4].clone()], Country::Us)
        .await
        .unwrap_err();
    assert!(
        refused
            .message
            .contains("quota is used up (100 of 100 requests by KicksDB's count)"),
        "{refused:?}"
    );
    assert_eq!(mock.count(Endpoint::Prices), 4);
    let status = client.budget().await.unwrap().unwrap();
    assert_eq!((status.spent, status.calls_left), (100, 0));

    // The header goes down (KicksDB's month began), then goes missing: both taken, both said.
    let mock = MockKicksdb::start(MockConfig {
        extra_products: 20,
        quota_start: 50,
        ..MockConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let server = start_over(&mock, dir.path(), settings, &clock).await;
    let client = self::client(&server);
    client.prices(&[all[0].clone()], Country::Us).await.unwrap();
    mock.set_quota_header(QuotaHeader::Fixed(4));
    client.prices(&[all[1].clone()], Country::Us).await.unwrap();
    let status = client.budget().await.unwrap().unwrap();
    assert!(
        status
            .note
            .as_deref()
            .is_some_and(|n| n.contains("went down from 51 to 4")),
        "{status:?}"
    );
    assert_eq!(status.calls_left, 96);
    mock.set_quota_header(QuotaHeader::Missing);
    client.prices(&[all[2].clone()], Country::Us).await.unwrap();
    let status = client.budget().await.unwrap().unwrap();
    assert!(
        status
            .note
            .as_deref()
            .is_some_and(|n| n.contains("no X-Quota-Current")),
        "{status:?}"
    );
    assert_eq!(status.spend.counted, 3);
    assert_eq!(status.spend.key_spent(), Some(5));
}

#[tokio::test(flavor = "multi_thread")]
async fn weekly_charts_are_topped_up_with_the_missing_days_not_read_again() {
    let today = chrono::Utc::now().date_naive();
    let mock = MockKicksdb::start(MockConfig {
        today,
        ..MockConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(chrono::Utc::now());
    let server = start_over(&mock, dir.path(), big_budget(), &clock).await;
    let client = client(&server);
    let chicago = "4a37fa2d-f2d7-440f-8785-9faeecc3f80c";
    let whole = client.orders(chicago).await.unwrap().data;
    assert_eq!(whole.len(), 52);
    // 430 days: four pages of 100 days.
    assert_eq!(mock.count(Endpoint::DailySales), 4);

    // Two days later (the fetch time set back), with this week's figures spoilt in the mirror.
    let mirror = rusqlite::Connection::open(dir.path().join("mirror.sqlite")).unwrap();
    let two_days_ago = (chrono::Utc::now() - chrono::Duration::days(2))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    mirror
        .execute(
            "UPDATE product_sources SET weeks_fetched_at = ?1",
            [&two_days_ago],
        )
        .unwrap();
    mirror
        .execute(
            "UPDATE weekly_orders SET orders = 0, gmv_cents = 0
             WHERE week_start = (SELECT max(week_start) FROM weekly_orders)",
            [],
        )
        .unwrap();
    let topped_up = client.orders(chicago).await.unwrap().data;
    // One page, of the days since the Monday of the week last fetched.
    assert_eq!(mock.count(Endpoint::DailySales), 5);
    let last = mock.seen().pop().unwrap();
    let monday = {
        let date = (chrono::Utc::now() - chrono::Duration::days(2)).date_naive();
        date - chrono::Duration::days(i64::from(
            chrono::Datelike::weekday(&date).num_days_from_monday(),
        ))
    };
    let days = (today - monday).num_days() + 1;
    assert!(
        last.query.contains(&format!("limit={days}")) && last.query.contains("page=1"),
        "{}",
        last.query
    );
    // The spoilt weeks are whole again, the older ones kept: the same 52 weeks.
    assert_eq!(topped_up, whole);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_demo_prices_from_its_catalogue_and_has_no_budget() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 40, 3);
    let server = common::start(common::config(&catalogue)).await;
    let client = client(&server);
    let hits = client
        .search(&solescope::client::SearchQuery::default())
        .await
        .unwrap();
    let hit = hits.hits.first().unwrap().clone();
    // Asked with the code in another spelling, and one no product has.
    let asked = vec![
        hit.sku.to_lowercase().replace('-', " "),
        "NO-SUCH-CODE".to_owned(),
    ];
    let answer = client.prices(&asked, Country::Us).await.unwrap();
    assert_eq!(answer.missing, vec!["NO-SUCH-CODE".to_owned()]);
    let prices = &answer.products[0];
    assert_eq!(
        (prices.source.as_str(), prices.product_id.as_str()),
        ("catalogue", hit.id.as_str())
    );
    assert_eq!(prices.sku, asked[0]);
    // Size by size, the catalogue's own prices; none at 0.
    let expected: Vec<(&str, f64)> = hit
        .variants
        .iter()
        .filter(|v| v.price > 0.0)
        .map(|v| (v.size.as_str(), v.price))
        .collect();
    let answered: Vec<(&str, f64)> = prices
        .sizes
        .iter()
        .map(|s| (s.size.as_str(), s.lowest_ask))
        .collect();
    assert_eq!(answered, expected);
    assert_eq!(client.budget().await.unwrap(), None);

    // Bad requests: no code, 51 codes, a control character, a market the key may not read.
    let refuse = |query: String| {
        let url = format!("{}/api/v2/prices?{query}", server.base_url());
        async move {
            reqwest::Client::new()
                .get(url)
                .header("Authorization", "demo-free")
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(refuse(String::new()).await, 400);
    let many: Vec<String> = (0..51).map(|i| format!("sku=C{i}")).collect();
    assert_eq!(refuse(many.join("&")).await, 400);
    assert_eq!(refuse("sku=A%07B".into()).await, 400);
    assert_eq!(refuse("sku=A&market=FR".into()).await, 403);
    assert_eq!(refuse("sku=A&market=XX".into()).await, 400);
}
