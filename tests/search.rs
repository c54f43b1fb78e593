//! Search against a generated catalogue: the relevance set, filters, paging, popularity order
//! and hostile input.
//!
//! The relevance set lives in `tests/fixtures/relevance/queries.tsv` (class, query, product pk,
//! what identifies the product). It is generated deterministically from the catalogue of
//! [`CATALOGUE_PRODUCTS`] products, seed [`CATALOGUE_SEED`], as of [`AS_OF`], by
//! [`relevance_cases`]; `relevance_set_matches_the_catalogue` fails when the generator drifts.
//! Regenerate it with:
//!
//! ```text
//! SOLESCOPE_WRITE_RELEVANCE=1 cargo test --test search relevance_set_matches_the_catalogue
//! ```
//!
//! A catalogue holds many products with identical titles (same silhouette and colorway in
//! another size run or year): for title-type queries any product with the identical title
//! counts as the hit; for codes (style code, GTIN) only the product itself does.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use chrono::NaiveDate;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use solescope::catalogue::generate::{GenerateOptions, generate};
use solescope::search::{MAX_QUERY_CHARS, SearchError, SearchIndex, SearchRequest, words};

const CATALOGUE_PRODUCTS: u32 = 10_000;
const CATALOGUE_SEED: u64 = 20_261_122;
const AS_OF: (i32, u32, u32) = (2026, 11, 22);
const RELEVANCE_SEED: u64 = 4;
const FIXTURE: &str = "tests/fixtures/relevance/queries.tsv";

/// Queries per class in the relevance set.
const CLASSES: &[(&str, usize)] = &[
    ("exact_title", 40),
    ("word_subset", 40),
    ("shuffled", 40),
    ("one_typo", 60),
    ("two_typos", 30),
    ("typo_subset", 30),
    ("prefix", 40),
    ("sku_dash", 25),
    ("sku_nodash", 25),
    ("gtin", 25),
];

struct Product {
    pk: i64,
    title: String,
    sku: String,
    sku_norm: String,
    popularity: i64,
    gtins: Vec<String>,
}

struct Fixture {
    index: SearchIndex,
    products: Vec<Product>,
    by_pk: HashMap<i64, usize>,
    by_title: HashMap<String, Vec<i64>>,
    vocabulary: HashSet<String>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path: PathBuf = dir.path().join("catalogue.sqlite");
        let options = GenerateOptions {
            products: CATALOGUE_PRODUCTS,
            seed: CATALOGUE_SEED,
            as_of: NaiveDate::from_ymd_opt(AS_OF.0, AS_OF.1, AS_OF.2).unwrap(),
            demo_keys: false,
        };
        generate(&options, &path, &mut |_| {}).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        let index = SearchIndex::build(&conn).unwrap();

        let mut gtins: HashMap<i64, Vec<String>> = HashMap::new();
        let mut statement = conn
            .prepare("SELECT product_pk, gtin FROM variants WHERE gtin IS NOT NULL ORDER BY pk")
            .unwrap();
        let rows = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap();
        for row in rows {
            let (pk, gtin): (i64, String) = row.unwrap();
            gtins.entry(pk).or_default().push(gtin);
        }
        let mut vocabulary = HashSet::new();
        let mut products = Vec::new();
        let mut statement = conn
            .prepare(
                "SELECT pk, title, sku, sku_norm, popularity, brand, model, category, color,
                        gender, coalesce(description, '')
                   FROM products ORDER BY pk",
            )
            .unwrap();
        let mut rows = statement.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            for column in [1, 5, 6, 7, 8, 9, 10] {
                let text: String = row.get(column).unwrap();
                vocabulary.extend(words(&text));
            }
            let pk: i64 = row.get(0).unwrap();
            products.push(Product {
                pk,
                title: row.get(1).unwrap(),
                sku: row.get(2).unwrap(),
                sku_norm: row.get(3).unwrap(),
                popularity: row.get(4).unwrap(),
                gtins: gtins.remove(&pk).unwrap_or_default(),
            });
        }
        let by_pk = products
            .iter()
            .enumerate()
            .map(|(i, p)| (p.pk, i))
            .collect();
        let mut by_title: HashMap<String, Vec<i64>> = HashMap::new();
        for product in &products {
            by_title
                .entry(product.title.clone())
                .or_default()
                .push(product.pk);
        }
        Fixture {
            index,
            products,
            by_pk,
            by_title,
            vocabulary,
        }
    })
}

fn search(text: &str, offset: usize, limit: usize) -> Vec<i64> {
    let request = SearchRequest {
        text,
        offset,
        limit,
        ..SearchRequest::default()
    };
    fixture().index.search(&request).unwrap().product_pks
}

/// Optimal string alignment distance (a transposition is one edit).
fn osa_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// One random edit: substitution, deletion, insertion or transposition of neighbours.
fn edit(word: &str, rng: &mut ChaCha8Rng) -> String {
    let mut chars: Vec<char> = word.chars().collect();
    let letter = char::from(b'a' + rng.random_range(0..26u8));
    let at = rng.random_range(0..chars.len());
    match rng.random_range(0..4) {
        0 => chars[at] = letter,
        1 => {
            chars.remove(at);
        }
        2 => chars.insert(at, letter),
        _ => {
            if at + 1 < chars.len() {
                chars.swap(at, at + 1);
            }
        }
    }
    chars.into_iter().collect()
}

/// `word` with exactly `typos` edits, still within the budget its length allows and not a word
/// of the catalogue; `None` if the draws fail.
fn misspell(
    word: &str,
    typos: usize,
    vocabulary: &HashSet<String>,
    rng: &mut ChaCha8Rng,
) -> Option<String> {
    let min_len = if typos == 1 { 5 } else { 9 };
    for _ in 0..50 {
        let mut typed = word.to_owned();
        for _ in 0..typos {
            typed = edit(&typed, rng);
        }
        if typed.chars().count() >= min_len
            && osa_distance(word, &typed) == typos
            && !vocabulary.contains(&typed)
        {
            return Some(typed);
        }
    }
    None
}

/// 2 to 4 of the title's words, in title order, that appear together in at most three distinct
/// titles (so the query names the product, give or take a size run).
fn specific_subset(
    tokens: &[String],
    products: &[Product],
    token_sets: &[HashSet<String>],
    rng: &mut ChaCha8Rng,
) -> Option<Vec<String>> {
    if tokens.len() < 3 {
        return None;
    }
    let size = rng.random_range(2..=tokens.len().min(4));
    let mut chosen: Vec<usize> = (0..tokens.len()).collect();
    chosen.shuffle(rng);
    chosen.truncate(size);
    chosen.sort_unstable();
    let subset: Vec<String> = chosen.iter().map(|&i| tokens[i].clone()).collect();
    let titles: HashSet<&str> = products
        .iter()
        .zip(token_sets)
        .filter(|(_, set)| subset.iter().all(|w| set.contains(w)))
        .map(|(p, _)| p.title.as_str())
        .collect();
    (titles.len() <= 3).then_some(subset)
}

/// One relevance query: its class, the text typed, the product it was made from and what
/// identifies an acceptable hit (the title, or for codes the code).
#[derive(Debug, Clone, PartialEq)]
struct Case {
    class: String,
    query: String,
    pk: i64,
    expected: String,
}

/// Generates the relevance set from the catalogue, deterministically.
fn relevance_cases(fixture: &Fixture) -> Vec<Case> {
    let mut rng = ChaCha8Rng::seed_from_u64(RELEVANCE_SEED);
    let products = &fixture.products;
    // Title token sets, to keep word subsets specific enough to name a title.
    let token_sets: Vec<HashSet<String>> = products
        .iter()
        .map(|p| words(&p.title).into_iter().collect())
        .collect();
    let mut cases = Vec::new();
    for &(class, count) in CLASSES {
        let mut made = 0;
        let mut attempts = 0;
        while made < count && attempts < 100_000 {
            attempts += 1;
            let product = &products[rng.random_range(0..products.len())];
            let tokens = words(&product.title);
            let title_case = |query: String| Case {
                class: class.to_owned(),
                query,
                pk: product.pk,
                expected: product.title.clone(),
            };
            let case = match class {
                "exact_title" => Some(title_case(product.title.clone())),
                "word_subset" => specific_subset(&tokens, products, &token_sets, &mut rng)
                    .map(|subset| title_case(subset.join(" "))),
                "typo_subset" => specific_subset(&tokens, products, &token_sets, &mut rng)
                    .and_then(|mut subset| {
                        let eligible: Vec<usize> = (0..subset.len())
                            .filter(|&i| {
                                subset[i].chars().count() >= 5
                                    && subset[i].chars().all(|c| c.is_ascii_alphabetic())
                            })
                            .collect();
                        let at = *eligible.get(rng.random_range(0..eligible.len().max(1)))?;
                        subset[at] = misspell(&subset[at], 1, &fixture.vocabulary, &mut rng)?;
                        Some(title_case(subset.join(" ")))
                    }),
                "shuffled" if tokens.len() >= 3 => {
                    let mut shuffled = tokens.clone();
                    while shuffled == tokens {
                        shuffled.shuffle(&mut rng);
                    }
                    Some(title_case(shuffled.join(" ")))
                }
                "one_typo" | "two_typos" => {
                    let typos = if class == "one_typo" { 1 } else { 2 };
                    let min_len = if typos == 1 { 5 } else { 9 };
                    let eligible: Vec<usize> = (0..tokens.len())
                        .filter(|&i| {
                            tokens[i].chars().count() >= min_len
                                && tokens[i].chars().all(|c| c.is_ascii_alphabetic())
                        })
                        .collect();
                    if eligible.is_empty() {
                        None
                    } else {
                        let at = eligible[rng.random_range(0..eligible.len())];
                        misspell(&tokens[at], typos, &fixture.vocabulary, &mut rng).map(|typed| {
                            let mut typed_tokens = tokens.clone();
                            typed_tokens[at] = typed;
                            title_case(typed_tokens.join(" "))
                        })
                    }
                }
                "prefix" => {
                    let last = tokens.last().map_or(0, |w| w.chars().count());
                    (last >= 3).then(|| {
                        let keep = rng.random_range(2..last);
                        let mut typed = tokens.clone();
                        let cut: String = typed[tokens.len() - 1].chars().take(keep).collect();
                        typed.pop();
                        typed.push(cut);
                        title_case(typed.join(" "))
                    })
                }
                "sku_dash" => product.sku.contains('-').then(|| Case {
                    class: class.to_owned(),
                    query: product.sku.clone(),
                    pk: product.pk,
                    expected: product.sku.clone(),
                }),
                "sku_nodash" => product.sku.contains('-').then(|| Case {
                    class: class.to_owned(),
                    query: product.sku_norm.clone(),
                    pk: product.pk,
                    expected: product.sku.clone(),
                }),
                "gtin" if !product.gtins.is_empty() => {
                    let gtin = &product.gtins[rng.random_range(0..product.gtins.len())];
                    Some(Case {
                        class: class.to_owned(),
                        query: gtin.clone(),
                        pk: product.pk,
                        expected: gtin.clone(),
                    })
                }
                _ => None,
            };
            if let Some(case) = case {
                cases.push(case);
                made += 1;
            }
        }
    }
    cases
}

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)
}

fn read_cases() -> Vec<Case> {
    let text = std::fs::read_to_string(fixture_path()).unwrap();
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 4, "malformed fixture line: {line}");
            Case {
                class: fields[0].to_owned(),
                query: fields[1].to_owned(),
                pk: fields[2].parse().unwrap(),
                expected: fields[3].to_owned(),
            }
        })
        .collect()
}

fn write_cases(cases: &[Case]) {
    let mut text = format!(
        "# Search relevance set: class, query, product pk, title (or code) of an acceptable hit.\n\
         # Generated from the catalogue of {CATALOGUE_PRODUCTS} products, seed {CATALOGUE_SEED}, \
         as of {}-{:02}-{:02}, query seed {RELEVANCE_SEED}.\n\
         # Regenerate: SOLESCOPE_WRITE_RELEVANCE=1 cargo test --test search \
         relevance_set_matches_the_catalogue\n",
        AS_OF.0, AS_OF.1, AS_OF.2
    );
    for case in cases {
        let line = [
            case.class.as_str(),
            &case.query,
            &case.pk.to_string(),
            &case.expected,
        ];
        text.push_str(&line.join("\t"));
        text.push('\n');
    }
    let path = fixture_path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    // Written aside and renamed, so a test reading the set never sees half a file.
    let partial = path.with_extension("tsv.partial");
    std::fs::write(&partial, text).unwrap();
    std::fs::rename(partial, path).unwrap();
}

#[test]
fn relevance_set_matches_the_catalogue() {
    let generated = relevance_cases(fixture());
    if std::env::var_os("SOLESCOPE_WRITE_RELEVANCE").is_some() {
        write_cases(&generated);
    }
    let kept = read_cases();
    assert!(kept.len() >= 300, "{} queries", kept.len());
    assert_eq!(
        kept, generated,
        "the relevance set no longer matches the generated catalogue; regenerate it (see the \
         module documentation) and review the diff"
    );
}

/// Pks that count as a hit for a case.
fn acceptable(fixture: &Fixture, case: &Case) -> HashSet<i64> {
    let product = &fixture.products[fixture.by_pk[&case.pk]];
    match case.class.as_str() {
        "sku_dash" | "sku_nodash" => {
            assert_eq!(product.sku, case.expected, "stale fixture: {case:?}");
            HashSet::from([case.pk])
        }
        "gtin" => {
            assert!(
                product.gtins.contains(&case.expected),
                "stale fixture: {case:?}"
            );
            HashSet::from([case.pk])
        }
        _ => {
            assert_eq!(product.title, case.expected, "stale fixture: {case:?}");
            fixture.by_title[&case.expected].iter().copied().collect()
        }
    }
}

#[derive(Default)]
struct Score {
    queries: usize,
    first: usize,
    top5: usize,
    reciprocal_rank_sum: f64,
}

#[test]
fn relevance_meets_the_floors() {
    let fixture = fixture();
    let cases = read_cases();
    let mut scores: Vec<(String, Score)> = Vec::new();
    let mut misses = Vec::new();
    for case in &cases {
        let hits = search(&case.query, 0, 10);
        let accept = acceptable(fixture, case);
        let rank = hits
            .iter()
            .position(|pk| accept.contains(pk))
            .map(|i| i + 1);
        if scores.last().is_none_or(|(class, _)| *class != case.class) {
            scores.push((case.class.clone(), Score::default()));
        }
        let score = &mut scores.last_mut().unwrap().1;
        score.queries += 1;
        score.first += usize::from(rank == Some(1));
        score.top5 += usize::from(rank.is_some_and(|r| r <= 5));
        score.reciprocal_rank_sum += rank.map_or(0.0, |r| 1.0 / r as f64);
        if rank != Some(1) {
            misses.push(format!(
                "{:<12} {:?} -> rank {rank:?}",
                case.class, case.query
            ));
        }
    }
    println!("class          queries  rank-1  top-5    MRR");
    for (class, score) in &scores {
        let n = score.queries as f64;
        println!(
            "{class:<14} {:>7}  {:>5.1}%  {:>5.1}%  {:.3}",
            score.queries,
            100.0 * score.first as f64 / n,
            100.0 * score.top5 as f64 / n,
            score.reciprocal_rank_sum / n
        );
    }
    println!("not at rank 1 ({}):", misses.len());
    for miss in &misses {
        println!("  {miss}");
    }
    let share = |class: &str, pick: fn(&Score) -> usize| {
        let score = &scores.iter().find(|(c, _)| c == class).unwrap().1;
        pick(score) as f64 / score.queries as f64
    };
    let all = |class: &str| {
        let score = &scores.iter().find(|(c, _)| c == class).unwrap().1;
        score.first == score.queries
    };
    for class in ["one_typo", "two_typos", "typo_subset"] {
        assert!(share(class, |s| s.top5) >= 0.90, "{class} top-5 below 90%");
    }
    for class in ["sku_dash", "sku_nodash", "gtin"] {
        assert!(all(class), "{class} not all at rank 1");
    }
    // Regression floors for the other classes, a little under what the engine does today.
    assert!(share("exact_title", |s| s.first) >= 0.95);
    assert!(share("prefix", |s| s.top5) >= 0.85);
    assert!(share("shuffled", |s| s.top5) >= 0.85);
    assert!(share("word_subset", |s| s.top5) >= 0.85);
}

#[test]
fn examples_from_the_issue() {
    let fixture = fixture();
    let title_of = |pk: i64| fixture.products[fixture.by_pk[&pk]].title.as_str();
    let has_title = |needle: &str| fixture.products.iter().any(|p| p.title.contains(needle));
    // The catalogue is generated from a fixed seed with every real release: these titles are
    // in it, and a catalogue without them fails here rather than skip the examples.
    for needle in ["Air Jordan 1", "'Chicago'", "New Balance 550"] {
        assert!(
            has_title(needle),
            "the test catalogue has no {needle:?} title"
        );
    }
    for query in ["jordan 1 chic", "jordon 1 chicgo", "jodran 1 chicago"] {
        let top = title_of(search(query, 0, 1)[0]);
        assert!(
            top.contains("Jordan 1") && top.contains("Chicago"),
            "{query} -> {top}"
        );
    }
    let top = title_of(search("new balence 550", 0, 1)[0]);
    assert!(top.starts_with("New Balance 550"), "{top}");
    let top = title_of(search("jodran", 0, 1)[0]);
    assert!(top.contains("Jordan"), "{top}");
    // The style code of some product, typed without its dash, finds it first.
    let product = fixture
        .products
        .iter()
        .find(|p| p.sku.contains('-'))
        .unwrap();
    assert_eq!(search(&product.sku_norm, 0, 1), [product.pk]);
}

#[test]
fn empty_text_lists_by_popularity_then_pk() {
    let fixture = fixture();
    let mut expected: Vec<&Product> = fixture.products.iter().collect();
    expected.sort_by_key(|p| (std::cmp::Reverse(p.popularity), p.pk));
    let expected: Vec<i64> = expected.iter().take(250).map(|p| p.pk).collect();
    let mut got = search("", 0, 100);
    got.extend(search("", 100, 100));
    got.extend(search("", 200, 50));
    assert_eq!(got, expected);
    let outcome = fixture
        .index
        .search(&SearchRequest {
            limit: 1,
            ..SearchRequest::default()
        })
        .unwrap();
    assert_eq!(outcome.estimated_total_hits, u64::from(CATALOGUE_PRODUCTS));
}

#[test]
fn pages_continue_without_overlap() {
    for text in [
        "nike",
        "jordan 1",
        "dunk low black",
        "white",
        "jordon 1 chicgo",
        "air max 9",
        "a",
        "the",
    ] {
        let whole = search(text, 0, 100);
        let mut paged = Vec::new();
        for page in 0..5 {
            paged.extend(search(text, page * 20, 20));
        }
        assert_eq!(paged, whole, "{text}");
        let unique: HashSet<i64> = whole.iter().copied().collect();
        assert_eq!(unique.len(), whole.len(), "{text}: duplicates");
        // The same query twice gives the same order.
        assert_eq!(search(text, 0, 100), whole, "{text}");
    }
}

#[test]
fn cut_pages_agree_with_the_full_ranking() {
    // A small page stops ranking a bucket early; a large one ranks it whole. Same order.
    let mut queries: Vec<String> = read_cases().into_iter().map(|c| c.query).collect();
    queries.extend(
        [
            "nike",
            "nike ",
            "air 1 white ",
            "adidas green ",
            "jordan chicago",
            "dunk low pr",
            "adida cloud",
            "the",
            "a",
            "white black",
            "low high",
        ]
        .map(String::from),
    );
    for query in &queries {
        let whole = search(query, 0, 2_000);
        for limit in [1, 5, 20] {
            let cut = search(query, 0, limit);
            assert_eq!(cut[..], whole[..cut.len()], "{query:?} limit {limit}");
        }
    }
}

#[test]
fn sku_and_gtin_filters_are_exact() {
    let fixture = fixture();
    let filtered = |sku: Option<&str>, gtin: Option<&str>, text: &str| {
        fixture
            .index
            .search(&SearchRequest {
                text,
                sku,
                gtin,
                offset: 0,
                limit: 100,
                pks: None,
            })
            .unwrap()
    };
    for product in fixture.products.iter().step_by(997) {
        let dashless = product.sku_norm.to_ascii_lowercase();
        for sku in [product.sku.as_str(), product.sku_norm.as_str(), &dashless] {
            let outcome = filtered(Some(sku), None, "");
            assert_eq!(outcome.product_pks, [product.pk], "{sku}");
            assert_eq!(outcome.estimated_total_hits, 1);
        }
        if let Some(gtin) = product.gtins.first() {
            assert_eq!(filtered(None, Some(gtin), "").product_pks, [product.pk]);
            assert_eq!(
                filtered(Some(&product.sku), Some(gtin), "").product_pks,
                [product.pk]
            );
        }
        // The filter holds with text too: the product's own title finds it, another's does not.
        assert_eq!(
            filtered(Some(&product.sku), None, &product.title).product_pks,
            [product.pk]
        );
    }
    let outcome = filtered(Some("NOSUCHCODE1"), None, "");
    assert!(outcome.product_pks.is_empty());
    assert_eq!(outcome.estimated_total_hits, 0);
    assert!(
        filtered(None, Some("0000000000000"), "")
            .product_pks
            .is_empty()
    );
    assert!(filtered(None, Some("12345"), "nike").product_pks.is_empty());
}

#[test]
fn hostile_text_is_read_as_its_words_or_refused_clearly() {
    let fixture = fixture();
    let ten_thousand = "jordan ".repeat(1_500);
    let emoji = "😀".repeat(MAX_QUERY_CHARS);
    let at_limit = "x".repeat(MAX_QUERY_CHARS);
    // Text with no word lists the most popular products, as an empty search does.
    let popular = search("", 0, 20);
    assert_eq!(popular.len(), 20);
    let wordless = [
        "*",
        "-",
        "(((",
        ")",
        "\0",
        "",
        "   ",
        "\t\n",
        "{}[]<>",
        emoji.as_str(),
    ];
    for text in wordless {
        assert!(words(text).is_empty(), "{text:?}");
        assert_eq!(search(text, 0, 20), popular, "{text:?}");
    }
    // Anything else is its words, and nothing more: quotes, stars, minus signs, NEAR, OR,
    // AND NOT, field names and carets are no syntax (a search for the words alone gives the
    // same page), and a word the catalogue has is found.
    let worded = [
        ("\"air jordan\"", "jordan"),
        ("jordan*", "jordan"),
        ("-jordan -nike", "jordan"),
        ("jordan NEAR chicago", "jordan"),
        ("NEAR(jordan chicago, 2)", "jordan"),
        ("jordan OR nike", "jordan"),
        ("jordan AND NOT nike", "jordan"),
        ("title:jordan", "jordan"),
        ("^jordan$", "jordan"),
        ("jordan^2", "jordan"),
        ("\"unbalanced", ""),
        ("😀 dunk 😀", "dunk"),
        ("dunk\0low", "dunk"),
        ("'; DROP TABLE products; --", ""),
        ("ｊｏｒｄａｎ", ""),
        ("Ä Ö Ü ß", ""),
        (at_limit.as_str(), ""),
        (
            "a b c d e f g h i j k l m n o p q r s t u v w x y z 0 1 2 3 4 5 6 7 8 9",
            "",
        ),
    ];
    for (text, found_word) in worded {
        let outcome = fixture
            .index
            .search(&SearchRequest {
                text,
                limit: 20,
                ..SearchRequest::default()
            })
            .unwrap_or_else(|err| panic!("{text:?}: {err}"));
        let its_words = words(text);
        assert!(!its_words.is_empty(), "{text:?}");
        assert_eq!(
            outcome.product_pks,
            search(&its_words.join(" "), 0, 20),
            "{text:?} is its words {its_words:?}"
        );
        if !found_word.is_empty() {
            let top = outcome
                .product_pks
                .first()
                .unwrap_or_else(|| panic!("{text:?}: no hit"));
            let title = fixture.products[fixture.by_pk[top]].title.to_lowercase();
            assert!(title.contains(found_word), "{text:?} -> {title}");
        }
    }
    // The catalogue still answers after the SQL-looking text (it never reached SQL).
    assert!(!search("jordan", 0, 1).is_empty());
    // Syntax-looking words are words: quotes and stars change nothing.
    assert_eq!(search("\"dunk low\"*", 0, 20), search("dunk low", 0, 20));
    // Over the limit: refused with a sentence saying the limit.
    let err = fixture
        .index
        .search(&SearchRequest {
            text: &ten_thousand,
            limit: 20,
            ..SearchRequest::default()
        })
        .unwrap_err();
    assert!(matches!(err, SearchError::QueryTooLong { .. }), "{err}");
    assert!(err.to_string().contains("at most 1000"), "{err}");
}
