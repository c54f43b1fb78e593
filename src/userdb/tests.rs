use super::*;

#[test]
fn a_new_file_is_created_at_the_newest_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data").join(UserDb::FILE_NAME);
    let db = UserDb::open(&path).unwrap();
    assert_eq!(version(&db.conn).unwrap(), MIGRATIONS.len());
    let mode: String = db
        .conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let fk: i64 = db
        .conn
        .pragma_query_value(None, "foreign_keys", |r| r.get(0))
        .unwrap();
    assert_eq!(fk, 1);
    // A new file has nothing to keep a copy of.
    assert!(!backup_path(&path, 0).exists());
}

#[test]
fn meta_values_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(UserDb::FILE_NAME);
    UserDb::open(&path).unwrap().set_meta("k", "v1").unwrap();
    let db = UserDb::open(&path).unwrap();
    assert_eq!(db.meta("k").unwrap().as_deref(), Some("v1"));
    assert_eq!(db.meta("missing").unwrap(), None);
}

#[test]
fn an_older_file_is_copied_before_it_is_migrated_and_a_failed_step_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(UserDb::FILE_NAME);
    let v1: &[&str] = &[MIGRATIONS[0]];
    let mut conn = Connection::open(&path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    migrate(&mut conn, &path, v1).unwrap();
    // Left in the WAL, not yet in the main file: the copy must still hold it.
    conn.execute("INSERT INTO meta VALUES ('held', 'yes')", [])
        .unwrap();

    let broken: &[&str] = &[
        MIGRATIONS[0],
        "CREATE TABLE t (a INTEGER); INSERT INTO nowhere VALUES (1);",
    ];
    assert!(migrate(&mut conn, &path, broken).is_err());
    assert_eq!(
        version(&conn).unwrap(),
        1,
        "a failed step is rolled back with its version bump"
    );
    let t: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name = 't'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(t, 0);

    let v2: &[&str] = &[MIGRATIONS[0], "CREATE TABLE t (a INTEGER) STRICT;"];
    migrate(&mut conn, &path, v2).unwrap();
    assert_eq!(version(&conn).unwrap(), 2);
    let copy = Connection::open(backup_path(&path, 1)).unwrap();
    assert_eq!(version(&copy).unwrap(), 1);
    let held: String = copy
        .query_row("SELECT value FROM meta WHERE key = 'held'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(held, "yes");
}

#[test]
fn a_file_from_a_newer_release_is_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(UserDb::FILE_NAME);
    {
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", MIGRATIONS.len() as i64 + 1)
            .unwrap();
    }
    let err = UserDb::open(&path).err().expect("a newer file is refused");
    assert!(matches!(err, UserDbError::TooNew { .. }), "{err}");
    let conn = Connection::open(&path).unwrap();
    assert_eq!(version(&conn).unwrap(), MIGRATIONS.len() + 1);
}

#[test]
fn a_damaged_file_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(UserDb::FILE_NAME);
    std::fs::write(
        &path,
        b"this is not a database, and it is long enough to have a header",
    )
    .unwrap();
    assert!(UserDb::open(&path).is_err());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"this is not a database, and it is long enough to have a header"
    );
}

#[test]
fn the_handle_runs_jobs_off_the_calling_thread_and_reports_closed_when_unopened() {
    let dir = tempfile::tempdir().unwrap();
    let (handle, opened) = UserDbHandle::spawn(dir.path().join(UserDb::FILE_NAME));
    assert!(opened.block_and_take().is_ok());
    let caller = std::thread::current().id();
    let ran_on = handle
        .run(move |db| {
            db.set_meta("a", "1")?;
            Ok(std::thread::current().id())
        })
        .block_and_take()
        .unwrap();
    assert_ne!(ran_on, caller);
    let panicked = handle.run(|_| -> Result<(), UserDbError> { panic!("boom") });
    assert!(panicked.block_and_take().is_err());
    let read = handle.run(|db| db.meta("a")).block_and_take().unwrap();
    assert_eq!(
        read.as_deref(),
        Some("1"),
        "the thread goes on after a panicking job"
    );

    let damaged = dir.path().join("damaged.sqlite");
    std::fs::write(&damaged, vec![7u8; 4096]).unwrap();
    let (handle, opened) = UserDbHandle::spawn(damaged);
    assert!(opened.block_and_take().is_err());
    let late = handle.run(|db| db.meta("a")).block_and_take();
    assert!(matches!(late, Err(UserDbError::Closed)));
}

mod portfolio_tables {
    use chrono::NaiveDate;

    use super::super::portfolio::{add_holdings, holdings, record_sale, remove_holding};
    use super::super::watchlist::{WatchRow, load_watchlist_migrating, save_watchlist};
    use super::*;
    use crate::model::Country;
    use crate::model::portfolio::{Condition, Pair, Sale};

    fn pair(sku: &str, cost_cents: i64) -> Pair {
        Pair {
            product_id: "p1".into(),
            slug: "dunk".into(),
            sku: sku.into(),
            title: "Dunk".into(),
            size: "10".into(),
            condition: Condition::NewWithDefects,
            purchased_on: NaiveDate::from_ymd_opt(2024, 1, 10).unwrap(),
            cost_cents,
            currency: "USD".into(),
            bought_from: "Nike".into(),
            notes: "box damaged".into(),
            tags: vec!["grail".into(), "keep".into()],
        }
    }

    fn sale(day: u32) -> Sale {
        Sale {
            sold_on: NaiveDate::from_ymd_opt(2024, 2, day).unwrap(),
            price_cents: 25_000,
            marketplace: "resale-b".into(),
            fees_cents: 2_700,
            shipping_cents: 1_200,
        }
    }

    #[test]
    fn pairs_and_sales_survive_a_reopen_and_a_sold_pair_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(UserDb::FILE_NAME);
        let mut db = UserDb::open(&path).unwrap();
        let ids = add_holdings(
            &mut db,
            &[
                (pair("DD1391-100", 11_000), None),
                (pair("GY0982", 9_000), Some(sale(2))),
            ],
        )
        .unwrap();
        record_sale(&mut db, ids[0], &sale(3)).unwrap();
        assert!(matches!(
            record_sale(&mut db, ids[0], &sale(4)),
            Err(UserDbError::Invalid(_))
        ));
        drop(db);
        let mut db = UserDb::open(&path).unwrap();
        let all = holdings(&mut db).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].pair, pair("DD1391-100", 11_000));
        assert_eq!(all[0].sale, Some(sale(3)));
        assert_eq!(all[1].sale, Some(sale(2)));
        remove_holding(&mut db, ids[1]).unwrap();
        assert_eq!(holdings(&mut db).unwrap().len(), 1);
    }

    #[test]
    fn a_batch_with_one_bad_pair_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut db = UserDb::open(&dir.path().join(UserDb::FILE_NAME)).unwrap();
        let mut bad = pair("DD1391-100", 1);
        bad.currency = "DOLLARS".into();
        let err = add_holdings(&mut db, &[(pair("A1B2C3", 5), None), (bad, None)]).unwrap_err();
        assert!(matches!(err, UserDbError::Sqlite { .. }), "{err}");
        assert!(holdings(&mut db).unwrap().is_empty());
        let early = Sale {
            sold_on: NaiveDate::from_ymd_opt(2023, 1, 1).unwrap(),
            ..sale(1)
        };
        assert!(add_holdings(&mut db, &[(pair("A1B2C3", 5), Some(early))]).is_err());
        assert!(holdings(&mut db).unwrap().is_empty());
    }

    #[test]
    fn a_locked_file_is_a_clear_error_and_keeps_what_was_saved() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(UserDb::FILE_NAME);
        let mut db = UserDb::open(&path).unwrap();
        add_holdings(&mut db, &[(pair("DD1391-100", 11_000), None)]).unwrap();
        db.conn()
            .busy_timeout(std::time::Duration::from_millis(50))
            .unwrap();
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN EXCLUSIVE").unwrap();
        let err = add_holdings(&mut db, &[(pair("GY0982", 9_000), None)]).unwrap_err();
        assert!(err.to_string().contains("locked"), "{err}");
        assert!(err.to_string().contains(UserDb::FILE_NAME), "{err}");
        other.execute_batch("ROLLBACK").unwrap();
        let all = holdings(&mut db).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].pair.sku, "DD1391-100");
    }

    #[test]
    fn the_old_watchlist_is_moved_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut db = UserDb::open(&dir.path().join(UserDb::FILE_NAME)).unwrap();
        let row = |id: &str| WatchRow {
            product_id: id.into(),
            title: format!("T {id}"),
            sku: "S".into(),
            country: Country::Fr,
            currency: "EUR".into(),
            price_when_starred: Some(120.5),
        };
        let old = [row("a"), row("b")];
        assert_eq!(load_watchlist_migrating(&mut db, &old).unwrap(), old);
        save_watchlist(&mut db, &[row("b")]).unwrap();
        // The old storage still holds both: the removed star does not come back.
        assert_eq!(load_watchlist_migrating(&mut db, &old).unwrap(), [row("b")]);
    }
}

#[test]
fn history_rows_of_a_file_before_stores_keep_their_prices_after_the_step() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(UserDb::FILE_NAME);
    let before_stores = MIGRATIONS.len() - 1;
    {
        let mut conn = Connection::open(&path).unwrap();
        migrate(&mut conn, &path, &MIGRATIONS[..before_stores]).unwrap();
        conn.execute(
            "INSERT INTO price_history (product_key, size, source, slot, at, lowest_ask_cents,
                 highest_bid_cents, last_sale_cents, currency)
             VALUES ('DD1391-100', '9', 'retailer-a', 2000000, 1800000000, 11000, NULL, NULL,
                 'USD')",
            [],
        )
        .unwrap();
    }
    let db = UserDb::open(&path).unwrap();
    assert_eq!(version(&db.conn).unwrap(), MIGRATIONS.len());
    let points = db.price_history("DD1391-100", &[]).unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0].lowest_ask_cents, Some(11_000));
    assert_eq!(points[0].store, None);
    assert!(backup_path(&path, before_stores).exists());
}
