//! The KicksDB source's products searched by the live index over its mirror, against
//! the mock KicksDB on a real socket: a typo, a style code without its dash and a prefix find
//! their products as the user types (no call), with KicksDB out of reach, and after a restart;
//! a product KicksDB lists after the start is found by a typo the moment a search returned it.
//!
//! The mock's own search is a plain substring match (no typo tolerance), so a typo found here
//! was found by the service's index, never by the mock.

mod common;

use common::mock_kicksdb::data::released_later;
use common::mock_kicksdb::{MockConfig, MockKicksdb};
use solescope::client::{Client, SearchQuery};
use solescope::service::ServerHandle;

/// A service over the mock, its mirror in `dir`.
async fn start(mock: &MockKicksdb, dir: &std::path::Path) -> ServerHandle {
    common::kicksdb_service(mock.base_url(), &mock.key(), dir, |_, _| {}).await
}

/// The style codes of the hits for `text`, best first, and where the answer came from; held
/// answers only when `cached_only` (search as you type).
async fn codes(client: &Client, text: &str, cached_only: bool) -> (Vec<String>, String) {
    let page = client
        .search(&SearchQuery {
            cached_only,
            ..SearchQuery::text(text)
        })
        .await
        .unwrap_or_else(|err| panic!("{text:?}: {err}"));
    let source = client.data_origin().map(|o| o.source).unwrap_or_default();
    (page.hits.into_iter().map(|hit| hit.sku).collect(), source)
}

/// What the user types, and the style code it must find first.
const TYPED: [(&str, &str); 6] = [
    // Typos: a letter changed, one dropped (from five letters on, as the index allows).
    ("dunk pamda", "DD1391-100"),
    ("chicgao lost", "DZ5485-612"),
    // Style codes without their dash, whole or begun.
    ("DD1391100", "DD1391-100"),
    ("cu1110010", "CU1110-010"),
    // A prefix, and a word with a number.
    ("zeb", "CP9654"),
    ("jordan 4", "CU1110-010"),
];

async fn assert_typed_found(client: &Client, cached_only: bool, when: &str) {
    for (typed, code) in TYPED {
        let (found, source) = codes(client, typed, cached_only).await;
        assert_eq!(
            found.first().map(String::as_str),
            Some(code),
            "{when}: {typed:?} found {found:?}"
        );
        assert_eq!(source, "kicksdb-mirror", "{when}: {typed:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn typos_codes_without_dashes_and_prefixes_find_mirrored_products_online_offline_and_after_a_restart()
 {
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let server = start(&mock, dir.path()).await;
    let client = common::ultra_client(&server);
    // What a user searched for once, online: KicksDB's answers, mirrored.
    for text in ["jordan", "dunk", "yeezy"] {
        let (found, source) = codes(&client, text, false).await;
        assert!(!found.is_empty(), "{text}");
        assert_eq!(source, "kicksdb");
    }

    // As the user types: the index over the mirror answers, and no call is spent.
    let calls = mock.seen().len();
    assert_typed_found(&client, true, "as you type").await;
    assert_eq!(mock.seen().len(), calls, "a call was spent while typing");

    // KicksDB out of reach: a search it cannot answer is answered by the same index.
    mock.stop();
    assert_typed_found(&client, false, "KicksDB stopped").await;

    // A restart with KicksDB still out of reach: the index comes back over the mirror.
    drop(server);
    let again = start(&mock, dir.path()).await;
    assert_typed_found(&common::ultra_client(&again), false, "after a restart").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_product_kicksdb_lists_later_is_found_by_a_typo_right_after_the_search_that_returned_it()
{
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let server = start(&mock, dir.path()).await;
    let client = common::ultra_client(&server);
    assert!(!codes(&client, "jordan", false).await.0.is_empty());

    let pair = released_later();
    let typo = "1906r silvr metalic";
    assert!(
        codes(&client, typo, true).await.0.is_empty(),
        "found before KicksDB listed it"
    );
    mock.add_pair(pair);
    // Not mirrored yet: typing finds nothing, and spends nothing.
    assert!(codes(&client, typo, true).await.0.is_empty());
    // The search after the pause asks KicksDB, which lists it (its own spelling).
    let (online, source) = codes(&client, "new balance 1906r", false).await;
    assert_eq!(source, "kicksdb");
    assert_eq!(online, [pair.sku]);
    // At once, a typo finds it: as the user types, and with KicksDB gone.
    let (typed, _) = codes(&client, typo, true).await;
    assert_eq!(typed, [pair.sku]);
    mock.stop();
    let (offline, source) = codes(&client, "balanse 1906", false).await;
    assert_eq!(offline, [pair.sku]);
    assert_eq!(source, "kicksdb-mirror");
}

/// KicksDB's own search has no typo tolerance (nor the mock's): "jordn 4 black cat" finds
/// nothing there, while the mirror's index finds the Black Cat as the user types. The online
/// search after the pause asks KicksDB and keeps what the mirror holds: KicksDB's hits first,
/// then the held ones it missed, each labelled as held with when it was fetched; it never
/// shows fewer hits than the search as the user typed.
#[tokio::test(flavor = "multi_thread")]
async fn an_online_search_keeps_the_held_hits_kicksdbs_answer_missed() {
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let server = start(&mock, dir.path()).await;
    let client = common::ultra_client(&server);
    // Mirrored once: what a user searched for online before.
    for text in ["jordan", "dunk"] {
        assert!(!codes(&client, text, false).await.0.is_empty(), "{text}");
    }
    let search = |text: &'static str, cached_only: bool| {
        let client = client.clone();
        async move {
            client
                .search(&SearchQuery {
                    cached_only,
                    ..SearchQuery::text(text)
                })
                .await
                .unwrap_or_else(|err| panic!("{text:?}: {err}"))
        }
    };
    let typo = "jordn 4 black cat";
    let typed = search(typo, true).await;
    assert_eq!(
        typed.hits.first().map(|hit| hit.sku.as_str()),
        Some("CU1110-010"),
        "as you type"
    );
    let calls = mock.seen().len();
    let online = search(typo, false).await;
    assert!(mock.seen().len() > calls, "KicksDB was asked");
    assert_eq!(
        client.data_origin().map(|o| o.source).as_deref(),
        Some("kicksdb")
    );
    let skus: Vec<&str> = online.hits.iter().map(|hit| hit.sku.as_str()).collect();
    assert_eq!(skus.first(), Some(&"CU1110-010"), "{skus:?}");
    let held = solescope::model::held_since(&online.hits[0]).expect("labelled as held");
    assert!(
        chrono::DateTime::parse_from_rfc3339(held).is_ok(),
        "when it was fetched: {held}"
    );
    assert!(online.hits.len() >= typed.hits.len(), "{skus:?}");

    // Where KicksDB does answer, its own hits come first, unlabelled, then the held ones it
    // missed, each once.
    for text in ["jordan 4", "dunk low", "jordan retro black"] {
        let typed = search(text, true).await;
        let online = search(text, false).await;
        let labels: Vec<bool> = online
            .hits
            .iter()
            .map(|hit| solescope::model::held_since(hit).is_some())
            .collect();
        assert!(
            labels.windows(2).all(|pair| pair[0] <= pair[1]),
            "{text}: held hits after KicksDB's: {labels:?}"
        );
        let mut ids: Vec<&str> = online.hits.iter().map(|hit| hit.id.as_str()).collect();
        let shown = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), shown, "{text}: a hit shown twice");
        assert!(
            online.hits.len() >= typed.hits.len(),
            "{text}: {} hits online, {} as you type",
            online.hits.len(),
            typed.hits.len()
        );
    }
}
