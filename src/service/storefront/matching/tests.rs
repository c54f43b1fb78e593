//! The matcher's tests, on real style codes (releases.tsv, shared/research/*.csv).

use super::*;

/// Real style codes (releases.tsv, shared/research/*.csv) as a small catalogue.
fn index() -> CodeIndex {
    CodeIndex::from_codes([
        ("DD1391-100", 1),   // Nike Dunk Low Retro 'Panda'
        ("B75806", 2),       // adidas Samba OG
        ("M990GL6", 3),      // New Balance 990v6
        ("DZ5485-612", 4),   // Air Jordan 1 'Chicago Lost and Found'
        ("DD1391-101", 5),   // Nike Dunk Low 'Michigan State'
        ("1201A019-108", 6), // ASICS Gel-Lyte III
        ("HQ6448", 7),       // adidas Yeezy Slide 'Onyx'
        ("DD1391", 8),       // an adidas-shaped code that is a Nike code's first half
        ("M1080L13", 9),     // New Balance 1080v13
        ("M1080L1", 10),     // a shorter code that is its start
        ("FV5029-100", 11),  // Air Jordan 4 'White Cement'
        ("FV5029-100", 12),  // ... twice in the catalogue: names no one product
    ])
}

fn keys<'a>(title: &'a str, handle: &'a str, skus: &'a [&'a str]) -> ProductKeys<'a> {
    ProductKeys {
        title,
        handle,
        skus,
        barcodes: &[],
    }
}

fn product(pk: i64, by: Evidence) -> Matched {
    Matched::Product { pk, by }
}

#[test]
fn keys_pack_like_sku_norm_and_sort_like_text() {
    let mut normal = String::new();
    crate::catalogue::generate::normalize_sku_into(" dz5485-612 ", &mut normal);
    assert_eq!(CodeKey::parse("dz5485-612").unwrap().text(), normal);
    assert_eq!(CodeKey::parse("DD1391 100"), CodeKey::parse("dd1391-100"));
    assert!(CodeKey::parse("AB") < CodeKey::parse("ABC"));
    assert!(CodeKey::parse("ABZ") < CodeKey::parse("AC"));
    assert_eq!(CodeKey::parse("M990GL6").unwrap().len(), 7);
    assert!(
        CodeKey::parse("M1080L1")
            .unwrap()
            .is_proper_prefix_of(CodeKey::parse("M1080L13").unwrap())
    );
    assert!(
        !CodeKey::parse("M1080L13")
            .unwrap()
            .is_proper_prefix_of(CodeKey::parse("M1080L1").unwrap())
    );
    assert_eq!(CodeKey::parse(&"A".repeat(22)), None);
    assert_eq!(CodeKey::parse("-- --"), None);
}

#[test]
fn a_sku_with_a_size_after_the_code_gives_the_code() {
    let index = index();
    for sku in [
        "DD1391-100-095",
        "dd1391-100-10.5",
        "DD1391 100 9",
        "DD1391-100/10",
        "DD1391100-10",
    ] {
        assert_eq!(
            match_by_code(&index, &keys("Dunk", "dunk", &[sku])),
            Some(product(1, Evidence::Sku)),
            "{sku}"
        );
    }
    // The size fused on.
    assert_eq!(
        match_by_code(&index, &keys("Dunk", "dunk", &["DD1391100095"])),
        Some(product(1, Evidence::Sku))
    );
    // Not over-cut: the Michigan State's -101 is not the Panda's -100.
    assert_eq!(
        match_by_code(&index, &keys("Dunk", "dunk", &["DD1391-101-9"])),
        Some(product(5, Evidence::Sku))
    );
    assert_eq!(
        match_by_code(&index, &keys("Gel-Lyte III", "gel", &["1201A019-108-11"])),
        Some(product(6, Evidence::Sku))
    );
    assert_eq!(
        match_by_code(&index, &keys("990v6", "990", &["M990GL6 D 9.5"])),
        Some(product(3, Evidence::Sku))
    );
}

#[test]
fn a_code_in_the_title_or_the_handle_counts() {
    let index = index();
    assert_eq!(
        match_by_code(
            &index,
            &keys("Samba OG Cloud White B75806", "samba-og", &["", "SMB-8"])
        ),
        Some(product(2, Evidence::TitleOrHandle))
    );
    assert_eq!(
        match_by_code(&index, &keys("Yeezy Slide Onyx", "onyx-hq6448", &[])),
        Some(product(7, Evidence::TitleOrHandle))
    );
    assert_eq!(
        match_by_code(
            &index,
            &keys("Nike Dunk Low", "nike-dunk-low-retro-dd1391-100", &[])
        ),
        Some(product(1, Evidence::TitleOrHandle))
    );
}

#[test]
fn never_by_title_alone() {
    let index = index();
    // The Panda's exact catalogue title and slug, no code: nothing.
    assert_eq!(
        match_by_code(
            &index,
            &keys(
                "Nike Dunk Low Retro 'Panda'",
                "nike-dunk-low-retro-panda",
                &["PANDA-9"]
            )
        ),
        None
    );
}

#[test]
fn the_longer_of_two_overlapping_codes_wins() {
    let index = index();
    // `DD1391` alone is a code too (pk 8), but here it is the start of DD1391-100.
    assert_eq!(
        match_by_code(&index, &keys("Dunk", "dunk", &["DD1391-100"])),
        Some(product(1, Evidence::Sku))
    );
    // M1080L1 is the start of M1080L13, found in the same product: only the longer counts.
    assert_eq!(
        match_by_code(&index, &keys("1080 M1080L1", "m1080l13", &["M1080L13-9"])),
        Some(product(9, Evidence::Sku))
    );
}

#[test]
fn the_code_every_size_shares_wins_over_a_code_and_a_size_that_look_like_another_code() {
    // An adidas code, and the Nike-shaped codes it makes with a size after it.
    let index = CodeIndex::from_codes([("SV8119", 1), ("SV8119-070", 2), ("SV8119-080", 3)]);
    let skus = ["SV8119-070", "SV8119-080", "SV8119-090"];
    assert_eq!(
        match_by_code(&index, &keys("Samba OG", "samba", &skus)),
        Some(product(1, Evidence::Sku))
    );
    // One SKU alone cannot tell: the longer code counts (the brand check may refuse it).
    assert_eq!(
        match_by_code(&index, &keys("Samba OG", "samba", &["SV8119-070"])),
        Some(product(2, Evidence::Sku))
    );
}

#[test]
fn codes_naming_two_products_leave_it_unmatched() {
    let index = index();
    let bundle = match_by_code(
        &index,
        &keys("Panda DD1391-100 + Samba B75806", "bundle", &[]),
    );
    assert!(
        matches!(&bundle, Some(Matched::No(Unmatched::Ambiguous { keys })) if keys.len() == 2),
        "{bundle:?}"
    );
    let shared = match_by_code(&index, &keys("AJ4", "aj4", &["FV5029-100-9"]));
    assert!(
        matches!(shared, Some(Matched::No(Unmatched::Ambiguous { .. }))),
        "{shared:?}"
    );
}

#[test]
fn barcodes_match_only_what_no_code_matched_and_upc_equals_its_ean() {
    let index = index();
    let mut gtins: HashMap<u64, i64> = [
        (196_153_879_826, 4),
        (4_066_748_123_456, 2),
        (196_153_879_833, 4),
    ]
    .into();
    let products = [
        // No code; a UPC written as EAN-13 with its leading zero.
        ProductKeys {
            title: "AJ1 Lost & Found",
            handle: "aj1-lost-found",
            skus: &[""],
            barcodes: &["0196153879826", "196153879833"],
        },
        // A code decides; its (other) barcode is not read.
        ProductKeys {
            title: "Panda",
            handle: "p",
            skus: &["DD1391-100-9"],
            barcodes: &["4066748123456"],
        },
        // Barcodes naming two products.
        ProductKeys {
            title: "x",
            handle: "x",
            skus: &[],
            barcodes: &["196153879826", "4066748123456"],
        },
        // Nothing known.
        ProductKeys {
            title: "Tee",
            handle: "tee",
            skus: &["TEE-BLK-M"],
            barcodes: &["123"],
        },
    ];
    let answers = match_products(&index, &mut gtins, &products).unwrap();
    assert_eq!(
        answers[0],
        Matched::Product {
            pk: 4,
            by: Evidence::Barcode
        }
    );
    assert_eq!(
        answers[1],
        Matched::Product {
            pk: 1,
            by: Evidence::Sku
        }
    );
    assert!(matches!(
        answers[2],
        Matched::No(Unmatched::Ambiguous { .. })
    ));
    assert_eq!(answers[3], Matched::No(Unmatched::NotInCatalogue));
    assert_eq!(gtin_number("0196153879826"), gtin_number("196153879826"));
    assert_eq!(gtin_number("19615387982X"), None);
    assert_eq!(gtin_number("123"), None);
}
