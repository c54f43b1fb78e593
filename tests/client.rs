//! The client against the real service on a real socket, over a generated catalogue: every
//! method for each tier, the refusals the spec calls for, the tier learned from `X-Key-Type`,
//! the real-time budget, and the error kinds with the server's own messages.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use solescope::client::{
    BudgetSource, Client, ClientConfig, ClientError, ErrorKind, RelatedQuery, SearchQuery,
};
use solescope::model::{Country, Tier};
use solescope::service::{self, ServerHandle, ServiceConfig, ServiceState};

const PRODUCTS: u32 = 300;

/// One catalogue for the whole file: generating is the slow part.
fn catalogue() -> PathBuf {
    static PATH: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = common::catalogue(dir.path(), "client.sqlite", PRODUCTS, 5);
        (dir, path)
    })
    .1
    .clone()
}

/// A service of its own for each test, so real-time budgets do not mix.
async fn start() -> ServerHandle {
    let path = catalogue();
    let state = tokio::task::spawn_blocking(move || {
        let mut config = ServiceConfig::new(&path);
        config.simulator.latency_ms = 0;
        config.simulator.failure_rate = 0.0;
        ServiceState::open(&config)
    })
    .await
    .unwrap()
    .unwrap();
    service::spawn("127.0.0.1:0", state).await.unwrap()
}

fn client(server: &ServerHandle, key: Option<&str>) -> Client {
    Client::new(ClientConfig::new(server.base_url(), key.map(str::to_owned))).unwrap()
}

fn key_of(tier: Tier) -> &'static str {
    match tier {
        Tier::Free => "demo-free",
        Tier::Pro => "demo-pro",
        Tier::Ultra => "demo-ultra",
    }
}

#[track_caller]
fn assert_needs_pro(result: Result<impl std::fmt::Debug, ClientError>) {
    let err = result.expect_err("a free key must be refused");
    assert_eq!(err.kind, ErrorKind::Forbidden, "{err}");
    assert_eq!(err.status, Some(403));
    assert_eq!(err.required_tier, Some(Tier::Pro), "{err}");
    assert_eq!(err.code.as_deref(), Some("forbidden"));
    assert!(err.message.contains("pro"), "{err}");
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn every_method_answers_each_tier_as_the_spec_says() {
    let server = start().await;
    for tier in Tier::ALL {
        let client = client(&server, Some(key_of(tier)));
        assert_eq!(
            client.tier(),
            None,
            "nothing is known before the first answer"
        );

        // Subscriptions: public, and answered for every tier.
        let subscriptions = client.subscriptions().await.unwrap();
        assert_eq!(subscriptions.status, "success");
        let offered: Vec<Tier> = subscriptions.data.iter().map(|s| s.tier).collect();
        assert_eq!(offered, [Tier::Pro, Tier::Ultra]);
        let own = client.subscription(tier).await.unwrap();
        assert_eq!(own.data.tier, tier);

        let stats = client.stats().await.unwrap();
        let us = stats.datasets.iter().find(|d| d.country == "US").unwrap();
        assert_eq!(us.products, u64::from(PRODUCTS));

        // US search and product lookups work for every tier.
        let query = SearchQuery {
            limit: Some(5),
            ..SearchQuery::text("nike")
        };
        let found = client.search(&query).await.unwrap();
        assert_eq!(found.limit, 5);
        assert_eq!(found.query, "nike");
        assert!(!found.hits.is_empty() && found.hits.len() <= 5);
        let hit = &found.hits[0];
        assert_eq!(hit.currency, "USD");

        let by_id = client.product(&hit.id, Country::Us).await.unwrap();
        assert_eq!(by_id.id, hit.id);
        let by_slug = client.product(&hit.slug, Country::Us).await.unwrap();
        assert_eq!(by_slug.id, hit.id);

        let detail = client.product_v2(&hit.slug).await.unwrap();
        assert_eq!(detail.status, "success");
        assert_eq!(detail.data.id, hit.id);
        assert_eq!(
            detail.data.release_dates.is_some(),
            tier != Tier::Free,
            "free omits release dates"
        );
        assert_eq!(detail.data.retail_prices.is_some(), tier != Tier::Free);

        let retailer = client.retailer_product(&hit.slug).await.unwrap();
        assert_eq!(retailer.status, "success");
        assert!(
            retailer.data.id.starts_with("gid://"),
            "{}",
            retailer.data.id
        );

        let fr_query = SearchQuery {
            country: Country::Fr,
            ..query.clone()
        };
        let related = RelatedQuery {
            country: Some("US".into()),
            currency: Some("USD".into()),
            market: None,
        };
        if tier == Tier::Free {
            assert_needs_pro(client.search(&fr_query).await);
            assert_needs_pro(client.product(&hit.id, Country::Fr).await);
            assert_needs_pro(client.orders(&hit.id).await);
            assert_needs_pro(client.resale_a_product(&hit.slug).await);
            assert_needs_pro(client.resale_b_related(&hit.id, &related).await);
            // Refusals for tier spend no budget, and the client does not count them.
            let budget = client.realtime_budget();
            assert_eq!((budget.limit, budget.remaining), (120, 120));
            assert_eq!(client.tier(), Some(Tier::Free));
        } else {
            let fr = client.search(&fr_query).await.unwrap();
            assert!(fr.hits.iter().all(|h| h.currency == "EUR"));
            let fr_product = client.product(&hit.id, Country::Fr).await.unwrap();
            assert_eq!(fr_product.currency, "EUR");

            let orders = client.orders(&hit.id).await.unwrap();
            assert_eq!(orders.data.len(), 52);
            assert!(
                orders.data[0].inserted_at > orders.data[51].inserted_at,
                "newest first"
            );

            let live = client.resale_a_product(&hit.slug).await.unwrap();
            assert_eq!(live.status, "success");
            assert!(!live.data.name.is_empty());
            let after_one = client.realtime_budget();
            assert_eq!(after_one.source, BudgetSource::Server);
            assert_eq!((after_one.limit, after_one.remaining), (120, 119));

            let related = client.resale_b_related(&hit.id, &related).await.unwrap();
            assert_eq!(related.status, "success");
            let after_two = client.realtime_budget();
            assert_eq!(
                common::realtime_spent(&after_one, &after_two),
                1,
                "both real-time endpoints share one budget"
            );
            assert!(after_two.resets_in().as_secs() <= 60);
            assert_eq!(client.tier(), Some(tier));
        }
    }
}

#[tokio::test]
async fn tier_is_learned_from_a_plain_search_without_real_time_requests() {
    let server = start().await;
    let client = client(&server, Some("demo-ultra"));
    assert_eq!(client.tier(), None);
    client.search(&SearchQuery::text("dunk")).await.unwrap();
    assert_eq!(client.tier(), Some(Tier::Ultra));
    // Learning it spent nothing from the real-time budget.
    let budget = client.realtime_budget();
    assert_eq!(budget.remaining, budget.limit);
    assert_eq!(budget.source, BudgetSource::Assumed);
    // Clones share what was learned.
    assert_eq!(client.clone().tier(), Some(Tier::Ultra));
}

#[tokio::test]
async fn refusals_carry_the_servers_message_and_kind() {
    let server = start().await;
    let pro = client(&server, Some("demo-pro"));

    let err = pro.product_v2("no-such-product").await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound, "{err}");
    assert_eq!(err.status, Some(404));
    assert_eq!(err.code.as_deref(), Some("not_found"));
    assert_eq!(
        err.message,
        "no product with id or slug \"no-such-product\""
    );
    assert_eq!(err.attempts, 1, "a 404 is not retried");
    assert!(
        err.to_string()
            .ends_with("/api/v2/products/no-such-product"),
        "{err}"
    );

    // An id that is not a URL-safe word still reaches the handler as one segment.
    let odd = "a/b c?d#e%f👟";
    let err = pro.product(odd, Country::Us).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound, "{err}");
    assert!(err.message.contains(odd), "{err}");

    let err = pro.orders("not-a-uuid").await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::BadRequest, "{err}");
    assert_eq!(err.status, Some(400));
    assert!(
        err.message.starts_with("orders take the product's UUID"),
        "{err}"
    );

    let err = pro
        .search(&SearchQuery {
            limit: Some(1000),
            ..SearchQuery::text("dunk")
        })
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::BadRequest);
    assert!(err.message.contains("limit"), "{err}");

    for key in [None, Some("demo-gold")] {
        let client = client(&server, key);
        let err = client.stats().await.unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unauthorized, "{err}");
        assert_eq!(err.status, Some(401));
        assert!(!err.message.is_empty());
        assert_eq!(client.tier(), None);
        // The subscription pages stay readable, so the app can explain the refusal.
        assert_eq!(client.subscriptions().await.unwrap().data.len(), 2);
    }
}
