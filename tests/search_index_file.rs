//! The search index kept beside the catalogue: built and saved on first open, read back (not
//! rebuilt) while the catalogue is unchanged, rebuilt when the catalogue changes or the file is
//! damaged, truncated, forged or made for another catalogue; and a read-back index answers
//! exactly as a freshly built one.

mod common;

use std::path::Path;

use solescope::search::{IndexSource, SearchIndex, SearchOutcome, SearchRequest};

fn open(catalogue: &Path) -> (SearchIndex, IndexSource) {
    let conn = rusqlite::Connection::open(catalogue).unwrap();
    SearchIndex::open(catalogue, &conn).unwrap()
}

/// Queries of every kind: words, prefixes, typos, codes, filters, paging, no text.
fn probe(index: &SearchIndex, conn: &rusqlite::Connection) -> Vec<SearchOutcome> {
    let (title, sku, gtin): (String, String, String) = conn
        .query_row(
            "SELECT p.title, p.sku, v.gtin FROM products p JOIN variants v ON v.product_pk = p.pk
              WHERE v.gtin IS NOT NULL ORDER BY p.pk LIMIT 1",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .unwrap();
    let prefix: String = title.chars().take(title.len() * 6 / 10).collect();
    let typo = title.replacen('a', "e", 1);
    let texts = [
        title.as_str(),
        prefix.as_str(),
        typo.as_str(),
        sku.as_str(),
        gtin.as_str(),
        "jordan 1 chicago",
        "nike dunk lo",
        "",
    ];
    let mut out = Vec::new();
    for text in texts {
        for (offset, limit) in [(0, 20), (20, 20), (0, 100)] {
            let request = SearchRequest {
                text,
                offset,
                limit,
                ..SearchRequest::default()
            };
            out.push(index.search(&request).unwrap());
        }
    }
    let filtered = SearchRequest {
        text: "nike",
        sku: Some(&sku),
        limit: 20,
        ..SearchRequest::default()
    };
    out.push(index.search(&filtered).unwrap());
    let filtered = SearchRequest {
        gtin: Some(&gtin),
        limit: 20,
        ..SearchRequest::default()
    };
    out.push(index.search(&filtered).unwrap());
    assert!(out.iter().any(|o| !o.product_pks.is_empty()));
    out
}

#[test]
fn index_is_kept_reused_and_rebuilt_when_it_cannot_be_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 400, 11);
    let file = SearchIndex::file_for(&catalogue);
    assert_eq!(file, dir.path().join("catalogue.sqlite.search-index"));
    let conn = rusqlite::Connection::open(&catalogue).unwrap();
    let expected = probe(&SearchIndex::build(&conn).unwrap(), &conn);
    drop(conn);

    let (built, source) = open(&catalogue);
    assert_eq!(source, IndexSource::Built);
    assert!(file.exists(), "the index is saved beside the catalogue");
    let conn = rusqlite::Connection::open(&catalogue).unwrap();
    assert_eq!(probe(&built, &conn), expected);

    // Unchanged catalogue: read back, and it answers exactly as the built one.
    let (loaded, source) = open(&catalogue);
    assert_eq!(source, IndexSource::Loaded);
    assert_eq!(probe(&loaded, &conn), expected);
    assert_eq!(open(&catalogue).1, IndexSource::Loaded);
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".tmp")), "{names:?}");
    let good = std::fs::read(&file).unwrap();

    // A flipped byte anywhere in the body: the checksum catches it.
    for at in [good.len() / 3, good.len() / 2, good.len() - 50] {
        let mut damaged = good.clone();
        damaged[at] ^= 0x5A;
        std::fs::write(&file, &damaged).unwrap();
        assert_eq!(
            open(&catalogue).1,
            IndexSource::Built,
            "flipped byte at {at}"
        );
        assert_eq!(std::fs::read(&file).unwrap(), good, "rewritten as before");
    }
    // Truncated, empty, or forged lengths after a valid header: rebuilt, no crash, no huge
    // allocation.
    for damaged in [
        good[..good.len() / 2].to_vec(),
        good[..good.len() - 1].to_vec(),
        Vec::new(),
        [&good[..48], &[0xFF; 4096][..]].concat(),
        b"not an index at all".to_vec(),
    ] {
        std::fs::write(&file, &damaged).unwrap();
        let (index, source) = open(&catalogue);
        assert_eq!(source, IndexSource::Built);
        assert_eq!(probe(&index, &conn), expected);
        assert_eq!(open(&catalogue).1, IndexSource::Loaded);
    }

    // The index of another catalogue put in its place: stale, rebuilt.
    let other = common::catalogue(dir.path(), "other.sqlite", 50, 12);
    assert_eq!(open(&other).1, IndexSource::Built);
    std::fs::copy(SearchIndex::file_for(&other), &file).unwrap();
    assert_eq!(open(&catalogue).1, IndexSource::Built);
    assert_eq!(open(&catalogue).1, IndexSource::Loaded);

    // The catalogue changes: rebuilt, and the new index sees the change.
    drop(conn);
    let conn = rusqlite::Connection::open(&catalogue).unwrap();
    conn.execute(
        "UPDATE products SET title = 'Zzyzx Quokka Runner' WHERE pk = (SELECT min(pk) FROM products)",
        [],
    )
    .unwrap();
    drop(conn);
    let (index, source) = open(&catalogue);
    assert_eq!(source, IndexSource::Built);
    let hits = index
        .search(&SearchRequest {
            text: "zzyzx quokka",
            limit: 5,
            ..SearchRequest::default()
        })
        .unwrap();
    assert_eq!(hits.product_pks.len(), 1);
    assert_eq!(open(&catalogue).1, IndexSource::Loaded);
}

#[test]
fn an_unwritable_directory_only_costs_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "catalogue.sqlite", 60, 3);
    // A directory where the index file should be: it cannot be read nor replaced.
    std::fs::create_dir(SearchIndex::file_for(&catalogue)).unwrap();
    let (index, source) = open(&catalogue);
    assert_eq!(source, IndexSource::Built);
    assert_eq!(index.len(), 60);
    assert_eq!(open(&catalogue).1, IndexSource::Built);
}
