//! Ranking tests on a small hand-made catalogue, where every expected order can be argued.

use rusqlite::{Connection, params};

use super::*;

/// Title, brand, model, color, style code, popularity, GTINs.
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    i64,
    &'static [&'static str],
);

const PRODUCTS: &[Row] = &[
    (
        "Air Jordan 1 Retro High OG 'Chicago' (2015)",
        "Jordan",
        "Air Jordan 1 Retro High OG",
        "White/Black-Varsity Red",
        "555088-101",
        50,
        &["196000000011", "196000000028"],
    ),
    (
        "Air Jordan 1 Retro High OG 'Chicago' (2022)",
        "Jordan",
        "Air Jordan 1 Retro High OG",
        "Varsity Red/Black-Sail-Muslin",
        "DZ5485-612",
        100,
        &["196000000035"],
    ),
    (
        "Nike Dunk Low 'Panda'",
        "Nike",
        "Dunk Low",
        "White/Black-White",
        "DD1391-100",
        500,
        &["196000000042"],
    ),
    (
        "New Balance 550 'White Green'",
        "New Balance",
        "550",
        "White/Green",
        "BB550WT1",
        30,
        &["0197000000057"],
    ),
    (
        "adidas Yeezy Boost 350 V2 'Slate'",
        "adidas",
        "Yeezy Boost 350 V2",
        "Slate Carbon/Core Black",
        "HP7870",
        40,
        &[],
    ),
    (
        "Nike Air Max 90 'Infrared'",
        "Nike",
        "Air Max 90",
        "White/Black-Cool Grey-Radiant Red",
        "CT1685-100",
        200,
        &[],
    ),
    (
        "Air Jordan 1 Low 'Black Toe' (GS)",
        "Jordan",
        "Air Jordan 1 Low",
        "Black/White-Gym Red",
        "553560-116",
        300,
        &[],
    ),
    (
        "Nike Dunk Low 'Black White'",
        "Nike",
        "Dunk Low",
        "Black/White",
        "DD1391-002",
        10,
        &[],
    ),
    (
        "Nike Dunk Low 'White Black'",
        "Nike",
        "Dunk Low",
        "White/Black",
        "DD1391-103",
        10,
        &[],
    ),
    (
        "Salomon XT-6 'Vanilla Ice'",
        "Salomon",
        "XT-6",
        "Vanilla Ice/Almond Milk/Lunar Rock",
        "L41663100",
        5,
        &[],
    ),
];

fn catalogue() -> Connection {
    catalogue_of(PRODUCTS)
}

/// A catalogue of `products` generated with `seed` (as of 2026-11-22, no demo keys) in `dir`:
/// for the tests that compare two ways of building or ranking over many kinds of product.
pub(super) fn generated_catalogue(
    dir: &std::path::Path,
    products: u32,
    seed: u64,
) -> std::path::PathBuf {
    let catalogue = dir.join("catalogue.sqlite");
    crate::catalogue::generate::for_tests(&catalogue, products, seed);
    catalogue
}

fn catalogue_of(rows: &[Row]) -> Connection {
    let conn = Connection::open_in_memory().unwrap();
    crate::catalogue::create_schema(&conn).unwrap();
    for (i, (title, brand, model, color, sku, popularity, gtins)) in rows.iter().enumerate() {
        let pk = i as i64 + 1;
        let slug = format!(
            "{}-{}",
            crate::catalogue::generate::slugify(title),
            sku.to_ascii_lowercase()
        );
        let description = format!("The {title} dresses the {model} in a {color} colorway.<br>");
        conn.execute(
            "INSERT INTO products (pk, id, slug, sku, sku_norm, title, brand, model, category,
               color, gender, age_group, size_system, condition, availability, description, image,
               link, release_date, retail_usd_cents, retail_eur_cents, min_usd_cents,
               avg_usd_cents, max_usd_cents, base_usd_cents, min_eur_cents, avg_eur_cents,
               max_eur_cents, base_eur_cents, inserted_at, popularity)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'Sneakers', ?9, 'men', 'adult', 'US M', 'new',
               'in stock', ?10, '', ?11, '', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '', ?12)",
            params![
                pk,
                format!("00000000-0000-4000-8000-{pk:012}"),
                slug,
                sku,
                crate::catalogue::generate::normalize_sku(sku),
                title,
                brand,
                model,
                color,
                description,
                format!("https://resale-b.example/{slug}"),
                popularity,
            ],
        )
        .unwrap();
        for (position, gtin) in gtins.iter().enumerate() {
            conn.execute(
                "INSERT INTO variants (id, product_pk, position, size, gtin, price_usd_cents,
                   price_eur_cents) VALUES (randomblob(16), ?1, ?2, '9', ?3, 0, 0)",
                params![pk, position as i64, gtin],
            )
            .unwrap();
        }
    }
    conn
}

/// `text` kept for the rest of the test run: a [`Row`] or a [`SearchRequest`] built in a test.
fn leak(text: &str) -> &'static str {
    Box::leak(text.into())
}

fn index() -> SearchIndex {
    SearchIndex::build(&catalogue()).unwrap()
}

fn search(index: &SearchIndex, text: &str) -> Vec<i64> {
    let request = SearchRequest {
        text,
        limit: 20,
        ..SearchRequest::default()
    };
    index.search(&request).unwrap().product_pks
}

fn top(index: &SearchIndex, text: &str) -> i64 {
    search(index, text).first().copied().unwrap_or(0)
}

#[test]
fn builds_over_every_product() {
    let index = index();
    assert_eq!(index.len(), PRODUCTS.len());
    assert!(!index.is_empty());
}

#[test]
fn typos_within_budget_still_find_the_shoe() {
    let index = index();
    let chicago = [1, 2];
    assert!(chicago.contains(&top(&index, "jordon 1 chicgo")));
    assert!(chicago.contains(&top(&index, "jodran 1 chicago")));
    assert_eq!(top(&index, "new balence 550"), 4);
    assert_eq!(top(&index, "yezy slate"), 5);
    assert_eq!(top(&index, "salomon vanila ice"), 10);
    // Two typos in a nine-letter word.
    assert_eq!(top(&index, "infrraredd"), 6);
}

#[test]
fn typos_beyond_budget_do_not_match() {
    let index = index();
    // "pnda" is four letters: no typo allowed, and it is not a prefix of anything.
    assert!(search(&index, "pnda ").is_empty());
    // One letter off in a four-letter word.
    assert!(search(&index, "dumk ").is_empty());
}

#[test]
fn last_word_matches_as_prefix() {
    let index = index();
    let hits = search(&index, "jordan 1 chic");
    assert!(
        [1, 2].contains(&hits[0]) && [1, 2].contains(&hits[1]),
        "{hits:?}"
    );
    assert_eq!(top(&index, "vanil"), 10);
    // Not once the word is finished with a space.
    assert!(search(&index, "vanil ").is_empty());
}

#[test]
fn word_order_is_free_but_in_order_ranks_higher() {
    let index = index();
    assert_eq!(top(&index, "dunk low black white"), 8);
    assert_eq!(top(&index, "dunk low white black"), 9);
    assert_eq!(top(&index, "panda dunk"), 3);
}

#[test]
fn missing_words_lower_the_score_instead_of_emptying() {
    let index = index();
    let hits = search(&index, "dunk panda zzzzunknown");
    assert_eq!(hits[0], 3);
    assert!(hits.contains(&8));
}

#[test]
fn more_words_matched_beats_popularity() {
    let index = index();
    // The 2015 Chicago is less popular than the 2022 one but matches the year.
    assert_eq!(top(&index, "jordan chicago 2015"), 1);
}

#[test]
fn title_beats_description_and_colorway() {
    let index = index();
    // "Infrared" is in one title; "red" appears in colorways and descriptions elsewhere.
    assert_eq!(top(&index, "infrared"), 6);
    let hits = search(&index, "varsity ");
    // Only colorways and descriptions say "Varsity": popularity decides among equals.
    assert_eq!(hits, [2, 1]);
}

#[test]
fn exact_title_ranks_first() {
    let index = index();
    for (i, product) in PRODUCTS.iter().enumerate() {
        assert_eq!(top(&index, product.0), i as i64 + 1, "{}", product.0);
    }
}

#[test]
fn a_title_longer_than_the_kept_words_still_ranks_its_own_product_first() {
    // More than MAX_QUERY_WORDS words: the words past the limit are dropped, and the same title
    // with " (GS)", more popular, must not win over the exact title typed in full.
    const ADULT: &str = "Nike Dunk Low Retro 'Wolf Grey Laser Orange Summit White' (Women's)";
    const KIDS: &str = "Nike Dunk Low Retro 'Wolf Grey Laser Orange Summit White' (Women's) (GS)";
    let rows: &[Row] = &[
        (
            KIDS,
            "Nike",
            "Dunk Low Retro",
            "Wolf Grey/Laser Orange-Summit White",
            "ZZ0000-002",
            40,
            &[],
        ),
        (
            ADULT,
            "Nike",
            "Dunk Low Retro",
            "Wolf Grey/Laser Orange-Summit White",
            "ZZ0000-001",
            1,
            &[],
        ),
    ];
    let index = SearchIndex::build(&catalogue_of(rows)).unwrap();
    assert!(ADULT.split_whitespace().count() > MAX_QUERY_WORDS);
    assert_eq!(search(&index, ADULT), vec![2, 1]);
    assert_eq!(search(&index, KIDS), vec![1, 2]);
}

#[test]
fn style_codes_and_gtins_in_the_text_rank_their_product_first() {
    let index = index();
    for text in [
        "DZ5485-612",
        "DZ5485612",
        "dz5485 612",
        "jordan DZ5485-612",
        "196000000035",
        "00000000-0000-4000-8000-000000000002",
        "https://resale-b.example/air-jordan-1-retro-high-og-chicago-2022-dz5485-612",
    ] {
        assert_eq!(top(&index, text), 2, "{text}");
    }
    // A UPC-A typed as its EAN-13 and the other way round.
    assert_eq!(top(&index, "0196000000035"), 2);
    assert_eq!(top(&index, "197000000057"), 4);
    // The model part of a Nike code finds its colorways.
    let hits = search(&index, "DD1391");
    assert_eq!(hits, [3, 8, 9]);
}

#[test]
fn a_style_code_typed_in_two_parts_names_its_product() {
    // A New Balance code is a model and a colourway ("BB550" "WT1"): typed apart, neither part
    // is a word of the product, so only the two parts joined find it.
    let index = index();
    assert_eq!(search(&index, "BB550 WT1"), [4]);
    assert_eq!(search(&index, "bb550 wt1"), [4]);
    // The second part a word of other products' codes: the joined code still comes first.
    assert_eq!(search(&index, "L41663 100"), [10, 3, 6]);
}

#[test]
fn a_style_code_typed_in_three_parts_or_more_names_its_product() {
    // Neither a part nor two adjacent parts joined are a code: the whole text joined is.
    let index = index();
    assert_eq!(search(&index, "B B550 WT1"), [4]);
    // Past the chunks looked at one by one and in pairs, the whole text still counts.
    let long = format!("{}B B550 WT1", "- ".repeat(31));
    assert!(long.split_whitespace().count() > query::MAX_CODE_CHUNKS);
    assert_eq!(search(&index, &long), [4]);
}

#[test]
fn sku_and_gtin_filters_are_exact() {
    let index = index();
    let filtered = |sku: Option<&str>, gtin: Option<&str>, text: &str| {
        let request = SearchRequest {
            text,
            sku,
            gtin,
            offset: 0,
            limit: 10,
            pks: None,
        };
        index.search(&request).unwrap()
    };
    let outcome = filtered(Some("dz5485 612"), None, "");
    assert_eq!(outcome.product_pks, [2]);
    assert_eq!(outcome.estimated_total_hits, 1);
    assert_eq!(
        filtered(Some("DZ5485-61"), None, "").product_pks,
        Vec::<i64>::new()
    );
    assert_eq!(filtered(None, Some("196000000028"), "").product_pks, [1]);
    assert_eq!(
        filtered(None, Some("not-a-gtin"), "").estimated_total_hits,
        0
    );
    // Both filters must hold.
    assert!(
        filtered(Some("DZ5485-612"), Some("196000000028"), "")
            .product_pks
            .is_empty()
    );
    // Filter and text: the text must match too.
    assert_eq!(
        filtered(Some("DZ5485-612"), None, "chicago").product_pks,
        [2]
    );
    assert!(
        filtered(Some("DZ5485-612"), None, "panda ")
            .product_pks
            .is_empty()
    );
    // A code in the text does not escape the filter.
    assert!(
        filtered(Some("DD1391-100"), None, "DZ5485-612")
            .product_pks
            .is_empty()
    );
    // Blank filters are absent filters.
    assert_eq!(filtered(Some(" "), Some(""), "").estimated_total_hits, 10);
}

#[test]
fn empty_text_lists_by_popularity_then_pk() {
    let index = index();
    let outcome = index
        .search(&SearchRequest {
            limit: 100,
            ..SearchRequest::default()
        })
        .unwrap();
    assert_eq!(outcome.product_pks, [3, 7, 6, 2, 1, 5, 4, 8, 9, 10]);
    assert_eq!(outcome.estimated_total_hits, 10);
}

#[test]
fn pages_continue_without_overlap() {
    let index = index();
    for text in ["", "nike", "white", "a", "air jordan"] {
        let page = |offset: usize, limit: usize| {
            index
                .search(&SearchRequest {
                    text,
                    offset,
                    limit,
                    ..SearchRequest::default()
                })
                .unwrap()
                .product_pks
        };
        let all = page(0, 100);
        let mut joined = page(0, 3);
        joined.extend(page(3, 3));
        joined.extend(page(6, 3));
        joined.extend(page(9, 3));
        assert_eq!(joined, all, "{text}");
        assert!(page(1_000_000, 3).is_empty());
    }
}

#[test]
fn hostile_text_never_fails() {
    let index = index();
    let long_word = "x".repeat(1_000);
    let long_many = "jordan ".repeat(150);
    for text in [
        "\"jordan\"",
        "jordan*",
        "-jordan",
        "jordan NEAR chicago",
        "jordan OR nike",
        "(jordan) AND (nike",
        "😀 jordan 😀",
        "\0jordan\0",
        "'",
        "\"",
        "***",
        "",
        " ",
        long_word.as_str(),
        &long_many[..1_000],
        "ジョーダン",
        "Jordán",
        "a b c d e f g h i j k l m n o p q r s t u v w x y z",
        "%00%27; DROP TABLE products; --",
    ] {
        let request = SearchRequest {
            text,
            limit: 10,
            ..SearchRequest::default()
        };
        let outcome = index.search(&request);
        assert!(outcome.is_ok(), "{text:?}");
    }
    assert_eq!(top(&index, "\"jordan\" OR (chicago*) NEAR -2022"), 2);
    assert_eq!(top(&index, "Jordán chicágo 2015"), 1);
}

#[test]
fn overlong_text_is_a_client_error() {
    let index = index();
    let text = "a".repeat(MAX_QUERY_CHARS + 1);
    let request = SearchRequest {
        text: &text,
        limit: 10,
        ..SearchRequest::default()
    };
    let err = index.search(&request).unwrap_err();
    assert!(matches!(
        err,
        SearchError::QueryTooLong {
            actual_chars: 1_001,
            max_chars: MAX_QUERY_CHARS
        }
    ));
    let ok = "é".repeat(MAX_QUERY_CHARS);
    assert!(
        index
            .search(&SearchRequest {
                text: &ok,
                limit: 1,
                ..SearchRequest::default()
            })
            .is_ok()
    );
}

#[test]
fn total_hits_count_every_match() {
    let index = index();
    let outcome = index
        .search(&SearchRequest {
            text: "dunk ",
            limit: 1,
            ..SearchRequest::default()
        })
        .unwrap();
    assert_eq!(outcome.product_pks.len(), 1);
    assert_eq!(outcome.estimated_total_hits, 3);
}

#[test]
fn an_empty_catalogue_gives_empty_results() {
    let conn = Connection::open_in_memory().unwrap();
    crate::catalogue::create_schema(&conn).unwrap();
    let index = SearchIndex::build(&conn).unwrap();
    assert!(index.is_empty());
    for text in ["", "jordan", "DZ5485-612"] {
        let outcome = index
            .search(&SearchRequest {
                text,
                limit: 10,
                ..SearchRequest::default()
            })
            .unwrap();
        assert!(outcome.product_pks.is_empty());
        assert_eq!(outcome.estimated_total_hits, 0);
    }
}

#[test]
fn concurrent_searches_agree() {
    let index = std::sync::Arc::new(index());
    let expected = search(&index, "jordan 1 chic");
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let index = std::sync::Arc::clone(&index);
            std::thread::spawn(move || {
                (0..200)
                    .map(|_| search(&index, "jordan 1 chic"))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for thread in threads {
        for hits in thread.join().unwrap() {
            assert_eq!(hits, expected);
        }
    }
}

/// An index built without its GTIN map asks for it (`GtinsPending`) only when a search looks
/// a GTIN up; with the GTINs found in the catalogue, and once the map is read, every page is
/// the one of the index built whole, and so is the file saved.
#[test]
fn gtins_read_later_answer_as_gtins_read_with_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = generated_catalogue(dir.path(), 3_001, 5);
    // One GTIN kept as EAN-13 (a leading zero), the others as UPC-A.
    Connection::open(&catalogue)
        .unwrap()
        .execute(
            "UPDATE variants SET gtin = '0' || gtin WHERE pk = (SELECT max(pk) FROM variants)",
            [],
        )
        .unwrap();
    let conn = crate::catalogue::Catalogue::open_read_only(&catalogue).unwrap();
    let conn = conn.connection();
    let whole = super::build::build_with(conn, Some(2), None).unwrap();
    let later = super::build::build_with(conn, Some(2), Some(3_001)).unwrap();
    assert!(!whole.gtins_pending());
    assert!(later.gtins_pending());
    assert!(super::persist::save(&later, &dir.path().join("x"), &[7; 32]).is_err());
    let (gtin, title): (String, String) = conn
        .query_row(
            "SELECT v.gtin, p.title FROM variants v JOIN products p ON p.pk = v.product_pk
              WHERE v.gtin IS NOT NULL ORDER BY v.pk DESC LIMIT 1",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    let upc = gtin.trim_start_matches('0');
    let as_ean = format!("0{upc}");
    let as_14 = format!("00{upc}");
    let with_title = format!("{title} {gtin}");
    let request = |text: &'static str, gtin: Option<&'static str>| SearchRequest {
        text,
        gtin,
        limit: 20,
        ..Default::default()
    };
    let asking = [
        request("", Some(leak(upc))),
        request("", Some(leak(&as_ean))),
        request(leak(&as_14), None),
        request(leak(&with_title), None),
        request("jordan", Some(leak(upc))),
        request("", Some("00000000")),
    ];
    let mut catalogue_asked = 0;
    let mut product_pks = |value: u64| {
        catalogue_asked += 1;
        Ok(crate::catalogue::read::product_pks_with_gtin(conn, value)?)
    };
    for request in &asking {
        let expected = whole.search(request).unwrap();
        assert!(matches!(
            later.search(request),
            Err(SearchError::GtinsPending)
        ));
        let resolved = later
            .search_resolving_gtins(request, &mut product_pks)
            .unwrap();
        assert_eq!(resolved, expected, "{request:?}");
    }
    assert!(catalogue_asked >= asking.len());
    // The first three find the GTIN's product (the page is not empty by accident).
    for request in &asking[..3] {
        assert_eq!(whole.search(request).unwrap().estimated_total_hits, 1);
    }
    let plain = request("jordan retro", None);
    assert_eq!(later.search(&plain).unwrap(), whole.search(&plain).unwrap());

    later.read_gtins_later(conn).unwrap();
    assert!(!later.gtins_pending());
    for request in &asking {
        assert_eq!(
            later.search(request).unwrap(),
            whole.search(request).unwrap()
        );
    }
    let saved = |index: &SearchIndex, name: &str| {
        let path = dir.path().join(name);
        super::persist::save(index, &path, &[7; 32]).unwrap();
        std::fs::read(path).unwrap()
    };
    assert!(
        saved(&whole, "whole") == saved(&later, "later"),
        "the index files differ"
    );
}

/// A title holding the last word whole beats titles that only complete it, even far down the
/// best bucket's window behind more popular completions (its bound knows the words held
/// whole: a wrong count there ends the window before it), and the next bucket, the first word
/// through a typo neighbour (`gordan`), follows. The second page reaches that bucket, whose
/// documents do not hold the first word without a typo.
#[test]
fn a_word_held_whole_beats_completions_deep_in_the_window() {
    let row = |title: String, brand: &'static str, popularity: i64| -> Row {
        (
            leak(&title),
            brand,
            "Retro",
            "White",
            "AB1234-100",
            popularity,
            &[],
        )
    };
    let mut rows = Vec::new();
    // pk 1-30: the typo neighbour, most popular; pk 31-180: completions; pk 181: whole.
    for i in 0..30 {
        rows.push(row(
            format!("Gordan Retro High OG 'Tone {i}'"),
            "Gordan",
            5_000 - i,
        ));
    }
    for i in 0..150 {
        rows.push(row(
            format!("Jordan Retro High OG 'Tone {i}'"),
            "Jordan",
            1_000 - i,
        ));
    }
    rows.push(row("Jordan Retro Hi OG 'Ember'".to_owned(), "Jordan", 1));
    let index = SearchIndex::build(&catalogue_of(&rows)).unwrap();
    let order: Vec<i64> = std::iter::once(181).chain(31..=180).chain(1..=30).collect();
    let page = |offset: usize, limit: usize| {
        let request = SearchRequest {
            text: "jordan retro hi",
            offset,
            limit,
            ..SearchRequest::default()
        };
        index.search(&request).unwrap()
    };
    let first = page(0, 20);
    assert_eq!(first.product_pks, order[..20]);
    assert_eq!(first.estimated_total_hits, 181);
    assert_eq!(page(140, 20).product_pks, order[140..160]);
    assert_eq!(page(0, 200).product_pks, order);
}

/// A title equal to the query ranks first from deep in the window, in a block of longer
/// titles: the window skips the blocks whose shortest title is longer than the query
/// (`parts::Forward::title_distinct_floor`), so that block's must count its shortest one.
/// 150 popular `Nike Dunk Low 'Tone N'` (five distinct title words each) end the window's
/// scan in order on their own; the one `Nike Dunk Low`, the least popular, sits in the third
/// block of 64 documents beside 22 of them.
#[test]
fn a_title_equal_to_the_query_is_found_in_a_block_of_longer_titles() {
    let row = |title: String, popularity: i64| -> Row {
        (
            leak(&title),
            "Nike",
            "Dunk",
            "White",
            "DD1391-100",
            popularity,
            &[],
        )
    };
    let mut rows: Vec<Row> = (0..150)
        .map(|i| row(format!("Nike Dunk Low 'Tone {i}'"), 1_000 - i))
        .collect();
    rows.push(row("Nike Dunk Low".to_owned(), 1));
    let index = SearchIndex::build(&catalogue_of(&rows)).unwrap();
    let expected: Vec<i64> = std::iter::once(151).chain(1..=19).collect();
    assert_eq!(search(&index, "nike dunk low"), expected);
}

/// A search narrowed to a list of products gives the products of the list, in the order the
/// whole search ranks them; an empty list gives none.
#[test]
fn a_search_narrowed_to_a_list_ranks_the_listed_products_as_the_whole_search_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = generated_catalogue(dir.path(), 600, 5);
    let index = SearchIndex::build(&Connection::open(&path).unwrap()).unwrap();
    for text in ["jordan", "nike dunk", "", "adidas samba"] {
        let whole = index
            .search(&SearchRequest {
                text,
                limit: 100,
                ..SearchRequest::default()
            })
            .unwrap()
            .product_pks;
        let mut listed: Vec<i64> = whole.iter().copied().skip(1).step_by(3).collect();
        listed.sort_unstable();
        let narrowed = index
            .search(&SearchRequest {
                text,
                limit: 100,
                pks: Some(&listed),
                ..SearchRequest::default()
            })
            .unwrap();
        let expected: Vec<i64> = whole
            .iter()
            .copied()
            .filter(|pk| listed.contains(pk))
            .collect();
        assert!(!expected.is_empty(), "{text}");
        assert_eq!(narrowed.product_pks, expected, "{text}");
        assert_eq!(
            narrowed.estimated_total_hits,
            expected.len() as u64,
            "{text}"
        );
        let none = index
            .search(&SearchRequest {
                text,
                pks: Some(&[]),
                limit: 20,
                ..SearchRequest::default()
            })
            .unwrap();
        assert!(none.product_pks.is_empty());
    }
}
