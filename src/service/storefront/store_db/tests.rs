//! The store file's tests: writes only on change, barcodes kept, a damaged file moved aside.

use super::super::feed::{CrawledProduct, CrawledVariant};
use super::*;
use crate::model::StoreUrl;
use rusqlite::Connection;
use std::collections::{HashMap, HashSet};

fn product(id: u64, updated_at: &str) -> CrawledProduct {
    CrawledProduct {
        product_id: id,
        handle: format!("p-{id}"),
        title: format!("Product {id}"),
        vendor: "Nike".into(),
        product_type: "Sneakers".into(),
        tags: vec!["a".into()],
        updated_at: updated_at.into(),
        published_at: String::new(),
        variants: vec![CrawledVariant {
            variant_id: id * 10,
            size: "US 9".into(),
            sku: "DD1391-100-9".into(),
            price: "110.00".into(),
            available: true,
            barcode: None,
        }],
        images: vec![],
    }
}

#[test]
fn a_product_is_rewritten_only_when_its_updated_at_changes_and_keeps_its_barcodes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(StoreDb::FILE_NAME);
    let (mut db, opened) = StoreDb::open(&path).unwrap();
    assert_eq!(opened, Opened::Created);
    let store = db.store(&StoreUrl::parse("kith.com").unwrap()).unwrap();
    let pass = db.begin_pass(store.store_id, 1).unwrap();
    let page = [product(1, "t1"), product(2, "t1")];
    assert_eq!(db.write_page(store.store_id, pass, &page, 1).unwrap(), 2);
    db.set_barcodes(
        store.store_id,
        1,
        "t1",
        &HashMap::from([(10, "196153879826".into())]),
    )
    .unwrap();
    let mut changed = product(1, "t2");
    changed.variants[0].available = false;
    let page = [changed, product(2, "t1")];
    assert_eq!(db.write_page(store.store_id, pass, &page, 2).unwrap(), 1);
    let kept = db.products(store.store_id, Some(&[1])).unwrap();
    assert!(!kept[0].0.variants[0].available);
    assert_eq!(
        kept[0].0.variants[0].barcode.as_deref(),
        Some("196153879826")
    );
    let seen = HashSet::from([1]);
    let end = PassEnd {
        finished_at: 5,
        outcome: PassOutcome::Complete,
        detail: None,
        requests: 2,
        feed: FeedState::Read,
        next_pass_at: 1805,
        seen: Some(&seen),
    };
    assert_eq!(db.finish_pass(store.store_id, pass, &end).unwrap(), 1);
    let passes = db.passes(store.store_id, 5).unwrap();
    assert_eq!(passes[0].pages_read, 2);
    assert_eq!(passes[0].products_written, 3);
    assert_eq!(passes[0].products_removed, 1);
    assert_eq!(db.products(store.store_id, None).unwrap().len(), 1);
}

#[test]
fn a_damaged_file_is_moved_aside_and_created_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(StoreDb::FILE_NAME);
    std::fs::write(
        &path,
        b"this is not a database, it is a note that got in the way",
    )
    .unwrap();
    let (mut db, opened) = StoreDb::open(&path).unwrap();
    let Opened::Rebuilt { moved_to, .. } = opened else {
        panic!("{opened:?}");
    };
    assert!(
        std::fs::read(&moved_to)
            .unwrap()
            .starts_with(b"this is not")
    );
    db.store(&StoreUrl::parse("kith.com").unwrap()).unwrap();
    drop(db);
    // Another schema version.
    let conn = Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 9).unwrap();
    drop(conn);
    let (_, opened) = StoreDb::open(&path).unwrap();
    assert!(
        matches!(opened, Opened::Rebuilt { ref reason, .. } if reason.contains("version 9")),
        "{opened:?}"
    );
}
