//! Where the API key is kept: a small [`KeyStore`] trait, the OS keyring behind it
//! ([`KeyringStore`]: Secret Service on Linux desktops, Keychain on macOS, Credential Manager on
//! Windows) and an in-memory store ([`MemoryKeyStore`]) for tests and for keeping a key for the
//! session when no keyring is reachable.
//!
//! Keys are stored under service [`KEYRING_SERVICE`] with the server's base URL as the account,
//! so each server has its own key. The key never reaches disk through this module, nor logs:
//! no error message or `Debug` output of these types contains it.
//!
//! Every call may block (the Secret Service is a D-Bus round trip, and the first call connects):
//! callers on a UI thread run them on a worker (`tokio::task::spawn_blocking`), never inline.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, PoisonError};

/// The keyring service name every Solescope key is stored under.
pub const KEYRING_SERVICE: &str = "solescope";

/// Why a key could not be read, stored or deleted. The messages are plain sentences an app can
/// show as they are; none contains the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyStoreError {
    /// No OS keyring could be reached (a headless Linux box without a Secret Service, say).
    #[error("no OS keyring reachable; the key is kept for this session only: {detail}")]
    Unavailable {
        /// What the platform said, for logs.
        detail: String,
    },
    /// The keyring is there but locked, or the user refused access.
    #[error(
        "the OS keyring is locked or refused access; the key is kept for this session only: {detail}"
    )]
    Denied {
        /// What the platform said, for logs.
        detail: String,
    },
    /// The keyring answered with an error.
    #[error("the OS keyring failed: {detail}")]
    Failed {
        /// What the platform said.
        detail: String,
    },
}

impl KeyStoreError {
    /// Why, in a few words a status line can show whole (`no OS keyring reachable`); the
    /// platform's own text is in [`detail`](Self::detail). The [`Display`](fmt::Display) form
    /// says both, for logs.
    #[must_use]
    pub fn reason(&self) -> &'static str {
        match self {
            KeyStoreError::Unavailable { .. } => "no OS keyring reachable",
            KeyStoreError::Denied { .. } => "the OS keyring is locked or refused access",
            KeyStoreError::Failed { .. } => "the OS keyring failed",
        }
    }

    /// What the platform said (e.g. `Platform failure: zbus error: …`), for a tooltip or a log.
    #[must_use]
    pub fn detail(&self) -> &str {
        match self {
            KeyStoreError::Unavailable { detail }
            | KeyStoreError::Denied { detail }
            | KeyStoreError::Failed { detail } => detail,
        }
    }
}

/// Keeps one API key per server base URL.
///
/// Implementations may block; see the module docs.
pub trait KeyStore: Send + Sync {
    /// The key stored for `base_url`, or `None` when there is none.
    fn get(&self, base_url: &str) -> Result<Option<String>, KeyStoreError>;
    /// Stores `key` for `base_url`, replacing any key stored before.
    fn set(&self, base_url: &str, key: &str) -> Result<(), KeyStoreError>;
    /// Deletes the key stored for `base_url`; deleting a key that is not there is not an error.
    fn delete(&self, base_url: &str) -> Result<(), KeyStoreError>;
}

/// The account a key is stored under: the base URL without surrounding space or trailing `/`,
/// so `http://host/` and `http://host` share one key.
#[must_use]
pub fn account_for(base_url: &str) -> String {
    base_url.trim().trim_end_matches('/').to_owned()
}

/// The OS keyring, through the `keyring` crate.
///
/// The platform store is connected once per process, on first use; when that fails (no Secret
/// Service on the session bus, no session bus at all), every call of the process answers
/// [`KeyStoreError::Unavailable`].
#[derive(Debug, Clone, Default)]
pub struct KeyringStore {
    _private: (),
}

impl KeyringStore {
    /// The OS keyring, service [`KEYRING_SERVICE`].
    #[must_use]
    pub fn new() -> Self {
        Self { _private: () }
    }

    /// `Ok` when the platform keyring can be reached. Blocks on first use (connects).
    pub fn check_available(&self) -> Result<(), KeyStoreError> {
        keyring::Entry::store_status()
            .as_ref()
            .copied()
            .map_err(|err| KeyStoreError::Unavailable {
                detail: err.to_string(),
            })
    }

    fn entry(base_url: &str) -> Result<keyring::Entry, KeyStoreError> {
        keyring::Entry::new(KEYRING_SERVICE, &account_for(base_url))
            .map_err(|err| store_error(&err))
    }
}

impl KeyStore for KeyringStore {
    fn get(&self, base_url: &str) -> Result<Option<String>, KeyStoreError> {
        match Self::entry(base_url)?.get_password() {
            Ok(key) => Ok(Some(key)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(err) => Err(store_error(&err)),
        }
    }

    fn set(&self, base_url: &str, key: &str) -> Result<(), KeyStoreError> {
        Self::entry(base_url)?
            .set_password(key)
            .map_err(|err| store_error(&err))
    }

    fn delete(&self, base_url: &str) -> Result<(), KeyStoreError> {
        match Self::entry(base_url)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(err) => Err(store_error(&err)),
        }
    }
}

/// Maps a keyring error to ours. Only `Display` is used: some variants carry secret bytes in
/// their `Debug` form.
fn store_error(err: &keyring::Error) -> KeyStoreError {
    let detail = match err {
        // The store's own connection error is more telling than "no default store".
        keyring::Error::NoDefaultStore => match keyring::Entry::store_status() {
            Err(cause) => cause.to_string(),
            Ok(()) => err.to_string(),
        },
        _ => err.to_string(),
    };
    match err {
        keyring::Error::NoDefaultStore | keyring::Error::PlatformFailure(_) => {
            KeyStoreError::Unavailable { detail }
        }
        keyring::Error::NoStorageAccess(_) => KeyStoreError::Denied { detail },
        _ => KeyStoreError::Failed { detail },
    }
}

/// Keys in memory only: for tests, and for keeping a key for the session when the OS keyring is
/// unavailable. `Debug` lists the accounts, never the keys.
#[derive(Default)]
pub struct MemoryKeyStore {
    keys: Mutex<HashMap<String, String>>,
}

impl MemoryKeyStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn keys(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        // A panic while holding the lock cannot leave the map half-updated: every write is one
        // insert or remove.
        self.keys.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for MemoryKeyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys = self.keys();
        let mut accounts: Vec<&String> = keys.keys().collect();
        accounts.sort();
        f.debug_struct("MemoryKeyStore")
            .field("accounts", &accounts)
            .finish_non_exhaustive()
    }
}

impl KeyStore for MemoryKeyStore {
    fn get(&self, base_url: &str) -> Result<Option<String>, KeyStoreError> {
        Ok(self.keys().get(&account_for(base_url)).cloned())
    }

    fn set(&self, base_url: &str, key: &str) -> Result<(), KeyStoreError> {
        self.keys().insert(account_for(base_url), key.to_owned());
        Ok(())
    }

    fn delete(&self, base_url: &str) -> Result<(), KeyStoreError> {
        self.keys().remove(&account_for(base_url));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_store_keeps_one_key_per_base_url() {
        let store = MemoryKeyStore::new();
        assert_eq!(store.get("http://a").unwrap(), None);
        store.set("http://a/", "key-a").unwrap();
        store.set("http://b", "key-b").unwrap();
        assert_eq!(store.get("http://a").unwrap().as_deref(), Some("key-a"));
        store.set("http://a", "key-a2").unwrap();
        assert_eq!(store.get(" http://a/ ").unwrap().as_deref(), Some("key-a2"));
        store.delete("http://a").unwrap();
        store.delete("http://a").unwrap();
        assert_eq!(store.get("http://a").unwrap(), None);
        assert_eq!(store.get("http://b").unwrap().as_deref(), Some("key-b"));
    }

    #[test]
    fn memory_store_debug_shows_accounts_not_keys() {
        let store = MemoryKeyStore::new();
        store.set("http://a", "s3cret-value").unwrap();
        let shown = format!("{store:?}");
        assert!(shown.contains("http://a"), "{shown}");
        assert!(!shown.contains("s3cret-value"), "{shown}");
    }

    #[test]
    fn reason_is_short_and_detail_is_the_platform_text() {
        let err = KeyStoreError::Unavailable {
            detail: "Platform failure: zbus error: no session bus".into(),
        };
        assert_eq!(err.reason(), "no OS keyring reachable");
        assert_eq!(err.detail(), "Platform failure: zbus error: no session bus");
        assert!(!err.reason().contains("session only"));
    }

    #[test]
    fn unavailable_message_is_plain() {
        let err = KeyStoreError::Unavailable {
            detail: "no session bus".into(),
        };
        assert!(
            err.to_string()
                .starts_with("no OS keyring reachable; the key is kept for this session only")
        );
    }
}
