use super::*;
use crate::model::flips::FeeSchedule;

fn sighting(store: &str, size: &str, buy: i64, sell: i64, profit: i64) -> FlipSighting {
    FlipSighting {
        store: store.to_owned(),
        style_code: "DD1391-100".into(),
        size: size.to_owned(),
        product_id: "p-1".into(),
        title: "Nike Dunk Low Panda".into(),
        currency: "USD".into(),
        buy_price_cents: buy,
        buy_cost_cents: buy + 1_000,
        sell_venue: "resale-b".into(),
        sell_basis: "list at".into(),
        sell_price_cents: sell,
        profit_cents: profit,
        roi: 0.5,
        store_url: format!("https://{store}/products/panda"),
    }
}

fn with_alerts(path: &std::path::Path) -> UserDb {
    let mut db = UserDb::open(path).unwrap();
    db.set_flip_prefs(&FlipPrefs {
        alerts: true,
        ..FlipPrefs::default()
    })
    .unwrap();
    // An empty first reading is the baseline: every flip after it is new.
    let first = db.record_flip_reading(&[], true, 0).unwrap();
    assert!(first.baseline && first.notices.is_empty());
    db
}

fn notified(reading: &FlipReading) -> Vec<(String, NoticeReason)> {
    reading
        .notices
        .iter()
        .map(|n| (n.flip.size.clone(), n.reason))
        .collect()
}

#[test]
fn the_rules_before_the_key_check() {
    let watched = |gone, profit| {
        Some(Watched {
            gone_since_notice: gone,
            notified_profit_cents: profit,
        })
    };
    assert_eq!(notice_reason(None, 100, 20), Some(NoticeReason::New));
    assert_eq!(
        notice_reason(watched(false, None), 100, 20),
        Some(NoticeReason::New)
    );
    assert_eq!(
        notice_reason(watched(true, Some(100)), 50, 20),
        Some(NoticeReason::Back)
    );
    assert_eq!(
        notice_reason(watched(false, Some(10_000)), 11_999, 20),
        None
    );
    assert_eq!(
        notice_reason(watched(false, Some(10_000)), 12_000, 20),
        Some(NoticeReason::Rose)
    );
    assert_eq!(notice_reason(watched(false, Some(10_000)), 9_000, 20), None);
    // A notified loss (a negative threshold) rising by its share.
    assert_eq!(
        notice_reason(watched(false, Some(-1_000)), -800, 20),
        Some(NoticeReason::Rose)
    );
}

#[test]
fn a_flip_notifies_once_again_after_it_went_and_came_back_at_other_prices_never_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(UserDb::FILE_NAME);
    let mut db = with_alerts(&path);
    let eight = sighting("kith.com", "8", 10_000, 31_200, 15_706);
    let ten = sighting("kith.com", "10", 10_000, 30_000, 14_600);
    // New: both notify; read again: nothing.
    let first = db
        .record_flip_reading(&[eight.clone(), ten.clone()], true, 10)
        .unwrap();
    assert_eq!(
        notified(&first),
        [
            ("8".into(), NoticeReason::New),
            ("10".into(), NoticeReason::New)
        ]
    );
    assert!(
        db.record_flip_reading(&[eight.clone(), ten.clone()], true, 20)
            .unwrap()
            .notices
            .is_empty()
    );
    // US 8 sells out; an incomplete reading without US 10 marks nothing gone.
    let sold_out = db
        .record_flip_reading(std::slice::from_ref(&ten), true, 30)
        .unwrap();
    assert_eq!((sold_out.gone, sold_out.notices.len()), (1, 0));
    assert_eq!(db.record_flip_reading(&[], false, 35).unwrap().gone, 0);
    // Back at the same prices: the same notification, never shown twice.
    let same = db
        .record_flip_reading(&[eight.clone(), ten.clone()], true, 40)
        .unwrap();
    assert!(same.notices.is_empty(), "{same:?}");
    // Gone again, back at a new store price: it notifies, once.
    db.record_flip_reading(std::slice::from_ref(&ten), true, 50)
        .unwrap();
    let cheaper = sighting("kith.com", "8", 9_000, 31_200, 16_781);
    let back = db
        .record_flip_reading(&[cheaper.clone(), ten.clone()], true, 60)
        .unwrap();
    assert_eq!(notified(&back), [("8".into(), NoticeReason::Back)]);
    assert!(
        db.record_flip_reading(&[cheaper, ten.clone()], true, 70)
            .unwrap()
            .notices
            .is_empty()
    );
    // US 10's profit rises 10 %: nothing; by 25 % over what it notified at: it notifies.
    let a_little = sighting("kith.com", "10", 10_000, 31_600, 16_000);
    assert!(
        db.record_flip_reading(&[a_little], true, 80)
            .unwrap()
            .notices
            .is_empty()
    );
    let a_lot = sighting("kith.com", "10", 10_000, 33_000, 18_300);
    let rose = db.record_flip_reading(&[a_lot], true, 90).unwrap();
    assert_eq!(notified(&rose), [("10".into(), NoticeReason::Rose)]);
    // The same size at another store is another flip.
    let elsewhere = sighting("other.example", "10", 10_000, 33_000, 18_300);
    let other = db.record_flip_reading(&[elsewhere], true, 100).unwrap();
    assert_eq!(notified(&other), [("10".into(), NoticeReason::New)]);
    // Everything notified is listed, newest first.
    let notices = db.flip_notices(10).unwrap();
    assert_eq!(notices.len(), 5);
    assert_eq!(notices[0].flip.store, "other.example");
    assert_eq!(notices[0].notified_at, 100);
}

#[test]
fn a_restart_notifies_nothing_again_and_turning_alerts_on_starts_from_a_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(UserDb::FILE_NAME);
    let eight = sighting("kith.com", "8", 10_000, 31_200, 15_706);
    {
        let mut db = with_alerts(&path);
        assert_eq!(
            db.record_flip_reading(std::slice::from_ref(&eight), true, 10)
                .unwrap()
                .notices
                .len(),
            1
        );
    }
    let mut db = UserDb::open(&path).unwrap();
    assert!(
        db.record_flip_reading(std::slice::from_ref(&eight), true, 20)
            .unwrap()
            .notices
            .is_empty()
    );
    // Alerts off, then on again: what is listed then is the baseline, not notified.
    let mut prefs = db.flip_prefs().unwrap();
    prefs.alerts = false;
    db.set_flip_prefs(&prefs).unwrap();
    prefs.alerts = true;
    db.set_flip_prefs(&prefs).unwrap();
    let nine = sighting("kith.com", "9", 10_000, 30_000, 14_000);
    let baseline = db
        .record_flip_reading(&[eight.clone(), nine.clone()], true, 30)
        .unwrap();
    assert!(baseline.baseline && baseline.notices.is_empty());
    let ten = sighting("kith.com", "10", 10_000, 30_000, 14_000);
    let after = db
        .record_flip_reading(&[eight, nine, ten], true, 40)
        .unwrap();
    assert_eq!(notified(&after), [("10".into(), NoticeReason::New)]);
}

#[test]
fn settings_round_trip_and_a_store_without_costs_is_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = UserDb::open(&dir.path().join(UserDb::FILE_NAME)).unwrap();
    assert_eq!(db.flip_prefs().unwrap(), FlipPrefs::default());
    let mut prefs = FlipPrefs {
        seller_level: 4,
        own_fees: Some(FeeSchedule {
            commission_percent: 8.0,
            processing_percent: 2.9,
            fixed_fee_cents: 500,
        }),
        min_profit_cents: Some(2_500),
        min_roi: Some(0.15),
        shipping_cents: Some(0),
        tax_percent: Some(8.875),
        alerts: true,
        rise_percent: 35,
        ..FlipPrefs::default()
    };
    prefs.set_store_costs("kith.com", Some(1_200), None);
    prefs.set_store_costs("empty.example", None, None);
    db.set_flip_prefs(&prefs).unwrap();
    assert_eq!(db.flip_prefs().unwrap(), prefs);
    assert_eq!(db.flip_prefs().unwrap().stores.len(), 1);
}
