//! `catalogue import`: real search hits in, all or nothing.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use solescope::catalogue::read::{self, ProductKey};
use solescope::catalogue::{Catalogue, CatalogueError, import};
use solescope::model::{Country, SearchHit};

fn hits_of(path: &Path) -> Vec<SearchHit> {
    let catalogue = Catalogue::open(path).unwrap();
    let conn = catalogue.connection();
    let mut statement = conn.prepare("SELECT pk FROM products ORDER BY pk").unwrap();
    let pks: Vec<i64> = statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    read::search_hits(conn, &pks, Country::Us).unwrap()
}

fn write_lines(path: &Path, lines: &[String]) {
    let mut file = std::fs::File::create(path).unwrap();
    for line in lines {
        writeln!(file, "{line}").unwrap();
    }
}

fn generated(dir: &Path) -> PathBuf {
    common::catalogue(dir, "source.sqlite", 60, 8)
}

#[test]
fn imported_hits_read_back_as_they_went_in() {
    let dir = tempfile::tempdir().unwrap();
    let source = hits_of(&generated(dir.path()));
    let lines: Vec<String> = source
        .iter()
        .map(|hit| serde_json::to_string(hit).unwrap())
        .collect();
    let input = dir.path().join("hits.jsonl");
    write_lines(&input, &lines);
    let out = dir.path().join("imported.sqlite");
    let report = import::import(&input, &out, &mut |_| {}).unwrap();
    assert_eq!(report.products, 60);
    let imported = hits_of(&out);
    assert_eq!(imported, source, "every field survives the import");

    // FR prices exist, converted from USD.
    let catalogue = Catalogue::open(&out).unwrap();
    let pk = read::product_pk(catalogue.connection(), ProductKey::Slug(&source[0].slug))
        .unwrap()
        .unwrap();
    let fr = read::search_hits(catalogue.connection(), &[pk], Country::Fr).unwrap();
    assert_eq!(fr[0].currency, "EUR");
    assert!((fr[0].min_price - source[0].min_price * import::EUR_PER_USD).abs() < 0.02);
}

#[test]
fn a_broken_line_fails_with_its_number_and_field_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let source = hits_of(&generated(dir.path()));
    let mut lines: Vec<String> = source
        .iter()
        .take(5)
        .map(|hit| serde_json::to_string(hit).unwrap())
        .collect();
    // Line 4: a variant price that is text.
    let mut broken: serde_json::Value = serde_json::from_str(&lines[3]).unwrap();
    broken["variants"][2]["price"] = serde_json::json!("cheap");
    lines[3] = broken.to_string();
    let input = dir.path().join("hits.jsonl");
    write_lines(&input, &lines);

    let out = dir.path().join("new.sqlite");
    let err = import::import(&input, &out, &mut |_| {}).unwrap_err();
    let CatalogueError::Import { line, ref message } = err else {
        panic!("expected an import error, got {err}");
    };
    assert_eq!(line, 4);
    assert!(message.contains("variants[2].price"), "{message}");
    assert!(!out.exists(), "no catalogue left behind");
    assert!(
        partial_files(dir.path()).is_empty(),
        "no temporary file left"
    );

    // An existing catalogue at the destination is left exactly as it was.
    let existing = dir.path().join("existing.sqlite");
    std::fs::write(&existing, b"the old catalogue").unwrap();
    import::import(&input, &existing, &mut |_| {}).unwrap_err();
    assert_eq!(std::fs::read(&existing).unwrap(), b"the old catalogue");
}

#[test]
fn bad_values_name_the_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let source = hits_of(&generated(dir.path()));
    let good = serde_json::to_value(&source[0]).unwrap();
    let cases: Vec<(serde_json::Value, &str)> = vec![
        (
            {
                let mut v = good.clone();
                v["id"] = "not-a-uuid".into();
                v
            },
            "id",
        ),
        (
            {
                let mut v = good.clone();
                v.as_object_mut().unwrap().remove("title");
                v
            },
            "title",
        ),
        (
            {
                let mut v = good.clone();
                v["variants"][0]["gtin"] = "193655590352".into();
                v
            },
            "variants[0].gtin",
        ),
        (
            {
                let mut v = good.clone();
                v["currency"] = "GBP".into();
                v
            },
            "currency",
        ),
        (
            {
                let mut v = good.clone();
                v["retail_price"] = "abc".into();
                v
            },
            "retail_price",
        ),
    ];
    for (value, field) in cases {
        let input = dir.path().join("one.jsonl");
        write_lines(
            &input,
            &[
                serde_json::to_string(&source[1]).unwrap(),
                value.to_string(),
            ],
        );
        let err = import::import(&input, &dir.path().join("x.sqlite"), &mut |_| {}).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("line 2:"), "{text}");
        assert!(text.contains(field), "{field}: {text}");
    }
    // Not JSON at all, and a duplicate product.
    let input = dir.path().join("junk.jsonl");
    let line = serde_json::to_string(&source[1]).unwrap();
    write_lines(&input, &[line.clone(), "{\"id\": ".into()]);
    let err = import::import(&input, &dir.path().join("x.sqlite"), &mut |_| {}).unwrap_err();
    assert!(err.to_string().starts_with("line 2:"), "{err}");
    write_lines(&input, &[line.clone(), String::new(), line]);
    let err = import::import(&input, &dir.path().join("x.sqlite"), &mut |_| {}).unwrap_err();
    assert!(
        err.to_string().starts_with("line 3:") && err.to_string().contains("earlier line"),
        "{err}"
    );
}

/// Temporary files an import left in `dir`.
fn partial_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".partial"))
        .collect()
}

/// JSON lines of every product of a generated catalogue of `products`.
fn input_of(dir: &Path, name: &str, products: u32) -> PathBuf {
    let source = common::catalogue(dir, &format!("{name}.sqlite"), products, 21);
    let lines: Vec<String> = hits_of(&source)
        .iter()
        .map(|hit| serde_json::to_string(hit).unwrap())
        .collect();
    let input = dir.join(format!("{name}.jsonl"));
    write_lines(&input, &lines);
    input
}

#[test]
fn a_killed_import_leaves_the_old_catalogue_intact() {
    let dir = tempfile::tempdir().unwrap();
    let small = input_of(dir.path(), "small", 12);
    let big = input_of(dir.path(), "big", 3000);
    let out = dir.path().join("catalogue.sqlite");
    import::import(&small, &out, &mut |_| {}).unwrap();
    let before = std::fs::read(&out).unwrap();

    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_solescope"))
        .args(["catalogue", "import"])
        .arg(&big)
        .arg("--out")
        .arg(&out)
        .env("HOME", dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once it has written part of its new file, wherever it writes it.
    let started = std::time::Instant::now();
    loop {
        let writing = partial_files(dir.path())
            .iter()
            .chain([&out])
            .any(|path| std::fs::metadata(path).is_ok_and(|m| m.len() > 256 * 1024));
        if writing {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the import ended before it could be killed"
        );
        assert!(
            started.elapsed().as_secs() < 60,
            "the import never started writing"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(child.try_wait().unwrap().is_none(), "killed mid-way");
    child.kill().unwrap();
    child.wait().unwrap();

    assert!(
        std::fs::read(&out).unwrap() == before,
        "the old file is untouched"
    );
    let catalogue = Catalogue::open(&out).unwrap();
    catalogue.integrity_check().unwrap();
    assert_eq!(catalogue.product_count().unwrap(), 12);

    // The next import replaces it whole.
    import::import(&big, &out, &mut |_| {}).unwrap();
    assert_eq!(
        Catalogue::open(&out).unwrap().product_count().unwrap(),
        3000
    );
}

#[test]
fn two_imports_at_once_do_not_clobber_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [
        input_of(dir.path(), "first", 300),
        input_of(dir.path(), "second", 200),
    ];
    let out = dir.path().join("shared.sqlite");
    let reports: Vec<_> = std::thread::scope(|scope| {
        let runs: Vec<_> = inputs
            .iter()
            .map(|input| scope.spawn(|| import::import(input, &out, &mut |_| {})))
            .collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    });
    for report in &reports {
        assert!(report.is_ok(), "{report:?}");
    }
    // Whichever renamed last, the file is one import, whole.
    let catalogue = Catalogue::open(&out).unwrap();
    catalogue.integrity_check().unwrap();
    assert!([300, 200].contains(&catalogue.product_count().unwrap()));
    assert!(
        partial_files(dir.path()).is_empty(),
        "no temporary file left"
    );
}
