//! The OS keyring for real: store, read, replace and delete a key through [`KeyringStore`].
//!
//! On Linux this needs a Secret Service on the session bus (`.ci/run` starts `gnome-keyring-daemon`
//! inside `dbus-run-session`). Without one the test prints a notice and passes, so `cargo test` on
//! a box without a keyring still passes; with `SOLESCOPE_REQUIRE_KEYRING=1` (set by CI) it fails.

use solescope::client::{KeyStore, KeyStoreError, KeyringStore};

#[test]
fn keyring_stores_reads_replaces_and_deletes_a_key() {
    let store = KeyringStore::new();
    if let Err(err) = store.check_available() {
        let required = std::env::var("SOLESCOPE_REQUIRE_KEYRING").is_ok_and(|v| v == "1");
        assert!(!required, "SOLESCOPE_REQUIRE_KEYRING=1 but {err}");
        assert!(matches!(err, KeyStoreError::Unavailable { .. }), "{err}");
        eprintln!("notice: keyring test skipped: {err}");
        return;
    }

    // A base URL of its own per run, so runs and other users' keys never collide.
    let base_url = format!(
        "http://keyring-test-{}-{}.invalid:8080",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let other_url = format!("{base_url}/other");

    assert_eq!(
        store.get(&base_url).unwrap(),
        None,
        "a fresh URL has no key"
    );
    store.set(&base_url, "first-key-value").unwrap();
    assert_eq!(
        store.get(&base_url).unwrap().as_deref(),
        Some("first-key-value")
    );
    // A trailing slash is the same server.
    assert_eq!(
        store.get(&format!("{base_url}/")).unwrap().as_deref(),
        Some("first-key-value")
    );

    store.set(&base_url, "second-key-value").unwrap();
    assert_eq!(
        store.get(&base_url).unwrap().as_deref(),
        Some("second-key-value")
    );

    store.set(&other_url, "other-key-value").unwrap();
    store.delete(&base_url).unwrap();
    assert_eq!(store.get(&base_url).unwrap(), None);
    store.delete(&base_url).unwrap();
    assert_eq!(
        store.get(&other_url).unwrap().as_deref(),
        Some("other-key-value"),
        "deleting one server's key leaves the others"
    );
    store.delete(&other_url).unwrap();
    assert_eq!(store.get(&other_url).unwrap(), None);
}
