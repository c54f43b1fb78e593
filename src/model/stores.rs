//! The retail storefronts the user reads prices and stock from (`retailer-a` backed by real
//! Shopify stores): a store's address as kept and compared ([`StoreUrl`]), and the one list both
//! sides share ([`RetailerStores`]).
//!
//! The window edits the list (Settings, kept in the user database) and the in-process service
//! reads it on every retailer lookup, so a store added in Settings is used at once. The window
//! may not reach the service's objects (the layering rule), so `main` hands this plain shared
//! value to both. The service writes each store's health back into it (a store that keeps
//! failing is paused), which Settings shows.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};

use serde::{Deserialize, Serialize};

/// Why a text is not a storefront address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StoreUrlError(String);

/// A storefront's address: its origin only (`https://kith.com`, `http://127.0.0.1:8081`), as
/// every request to it is built from it and nothing a caller sends.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct StoreUrl(String);

impl StoreUrl {
    /// Reads what a user typed: `kith.com`, `https://kith.com/`, `http://127.0.0.1:8081`. A
    /// missing scheme means `https`. Refused: another scheme, credentials, a path, a query.
    pub fn parse(text: &str) -> Result<Self, StoreUrlError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(StoreUrlError("the store's address is empty".into()));
        }
        let with_scheme = if text.contains("://") {
            text.to_owned()
        } else {
            format!("https://{text}")
        };
        let url = reqwest::Url::parse(&with_scheme)
            .map_err(|err| StoreUrlError(format!("not a web address ({err}): {text}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(StoreUrlError(format!(
                "a store is read over http or https, not {}: {text}",
                url.scheme()
            )));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(StoreUrlError(format!("the address names no host: {text}")));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(StoreUrlError(
                "a store's address carries no user name or password".into(),
            ));
        }
        if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
            return Err(StoreUrlError(format!(
                "give the store's own address without a path (like https://kith.com): {text}"
            )));
        }
        Ok(Self(url.origin().ascii_serialization()))
    }

    /// The origin, `https://kith.com` (no trailing slash).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name shown for the store: its host, with the port when there is one
    /// (`kith.com`, `127.0.0.1:8081`).
    #[must_use]
    pub fn label(&self) -> &str {
        self.0.split_once("://").map_or(&self.0, |(_, host)| host)
    }

    /// Whether `text` names this store: its origin, or its label (host and port).
    #[must_use]
    pub fn is_named_by(&self, text: &str) -> bool {
        let text = text.trim().trim_end_matches('/');
        text.eq_ignore_ascii_case(self.as_str()) || text.eq_ignore_ascii_case(self.label())
    }

    /// The store's page for `handle`, showing the size `variant_id` (a numeric Shopify id):
    /// `/products/{handle}?variant={id}`.
    #[must_use]
    pub fn product_page(&self, handle: &str, variant_id: Option<&str>) -> String {
        let Ok(mut url) = reqwest::Url::parse(&self.0) else {
            return self.0.clone();
        };
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.clear().push("products").push(handle);
        }
        if let Some(id) = variant_id {
            url.query_pairs_mut().append_pair("variant", id);
        }
        url.into()
    }
}

impl fmt::Display for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for StoreUrl {
    type Error = StoreUrlError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::parse(&text)
    }
}

impl From<StoreUrl> for String {
    fn from(url: StoreUrl) -> Self {
        url.0
    }
}

/// How a store has been answering, as the service last saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreHealth {
    /// Failed lookups in a row (a "not found" or an answer ends the run).
    pub failures_in_row: u32,
    /// The last failure, in a sentence ("this store is password-protected").
    pub last_error: Option<String>,
    /// While set, the store is not asked (Unix seconds): it failed again and again, or asked
    /// us to wait (`Retry-After`).
    pub paused_until_unix: Option<i64>,
}

#[derive(Debug, Default)]
struct Inner {
    stores: Vec<StoreUrl>,
    health: HashMap<StoreUrl, StoreHealth>,
    /// Least time between two readings of a store's whole catalogue, as the user set it.
    pass_interval: Option<std::time::Duration>,
}

/// The storefronts in use, shared by the window (which edits them) and the service (which reads
/// them on each retailer lookup and reports their health). Cheap to clone; clones share.
#[derive(Debug, Clone, Default)]
pub struct RetailerStores {
    inner: Arc<RwLock<Inner>>,
}

impl RetailerStores {
    /// A list holding `stores` (duplicates dropped, order kept).
    #[must_use]
    pub fn new(stores: impl IntoIterator<Item = StoreUrl>) -> Self {
        let list = Self::default();
        list.set(stores);
        list
    }

    fn read<T>(&self, f: impl FnOnce(&Inner) -> T) -> T {
        f(&self.inner.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn write<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
        f(&mut self.inner.write().unwrap_or_else(PoisonError::into_inner))
    }

    /// The stores, in the order they are asked.
    #[must_use]
    pub fn list(&self) -> Vec<StoreUrl> {
        self.read(|inner| inner.stores.clone())
    }

    /// Whether no store is configured (the simulator then answers for `retailer-a`).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.read(|inner| inner.stores.is_empty())
    }

    /// Replaces the list (duplicates dropped, order kept); health of stores still listed stays.
    pub fn set(&self, stores: impl IntoIterator<Item = StoreUrl>) {
        let mut unique: Vec<StoreUrl> = Vec::new();
        for store in stores {
            if !unique.contains(&store) {
                unique.push(store);
            }
        }
        self.write(|inner| {
            inner.health.retain(|store, _| unique.contains(store));
            inner.stores = unique;
        });
    }

    /// Least time between two readings of a store's whole catalogue, when the user set one
    /// (the crawl's own default otherwise).
    #[must_use]
    pub fn pass_interval(&self) -> Option<std::time::Duration> {
        self.read(|inner| inner.pass_interval)
    }

    /// Sets it (Settings): counted from the next reading of each store.
    pub fn set_pass_interval(&self, interval: Option<std::time::Duration>) {
        self.write(|inner| inner.pass_interval = interval);
    }

    /// Adds `store` at the end; `false` when it was listed already.
    pub fn add(&self, store: StoreUrl) -> bool {
        self.write(|inner| {
            if inner.stores.contains(&store) {
                return false;
            }
            inner.stores.push(store);
            true
        })
    }

    /// Removes `store`; `false` when it was not listed.
    pub fn remove(&self, store: &StoreUrl) -> bool {
        self.write(|inner| {
            inner.health.remove(store);
            let before = inner.stores.len();
            inner.stores.retain(|s| s != store);
            inner.stores.len() != before
        })
    }

    /// The listed store `text` names (its origin or host), if any.
    #[must_use]
    pub fn find(&self, text: &str) -> Option<StoreUrl> {
        self.read(|inner| inner.stores.iter().find(|s| s.is_named_by(text)).cloned())
    }

    /// The store's health as last reported (default: never failed).
    #[must_use]
    pub fn health(&self, store: &StoreUrl) -> StoreHealth {
        self.read(|inner| inner.health.get(store).cloned().unwrap_or_default())
    }

    /// Records the store's health (the service does, after each lookup there).
    pub fn set_health(&self, store: &StoreUrl, health: StoreHealth) {
        self.write(|inner| {
            if inner.stores.contains(store) {
                inner.health.insert(store.clone(), health);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_read_as_their_origin() {
        let url = StoreUrl::parse(" kith.com/ ").unwrap();
        assert_eq!(url.as_str(), "https://kith.com");
        assert_eq!(url.label(), "kith.com");
        let local = StoreUrl::parse("http://127.0.0.1:8081").unwrap();
        assert_eq!(local.label(), "127.0.0.1:8081");
        assert!(local.is_named_by("127.0.0.1:8081"));
        assert!(local.is_named_by("http://127.0.0.1:8081/"));
        assert!(!local.is_named_by("127.0.0.1:8082"));
        for bad in [
            "",
            "ftp://kith.com",
            "https://user:pw@kith.com",
            "https://kith.com/products/x",
            "https://kith.com/?a=1",
        ] {
            assert!(StoreUrl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_product_page_names_the_handle_and_the_variant() {
        let url = StoreUrl::parse("https://kith.com").unwrap();
        assert_eq!(
            url.product_page("dunk-low", Some("4480233")),
            "https://kith.com/products/dunk-low?variant=4480233"
        );
        assert_eq!(
            url.product_page("dunk-low", None),
            "https://kith.com/products/dunk-low"
        );
    }

    #[test]
    fn the_list_keeps_order_drops_duplicates_and_shares_between_clones() {
        let a = StoreUrl::parse("a.example").unwrap();
        let b = StoreUrl::parse("b.example").unwrap();
        let list = RetailerStores::new([a.clone(), b.clone(), a.clone()]);
        let window_side = list.clone();
        assert_eq!(list.list(), [a.clone(), b.clone()]);
        assert!(!window_side.add(a.clone()));
        assert!(window_side.remove(&a));
        assert_eq!(list.list(), std::slice::from_ref(&b));
        assert_eq!(list.find("b.example"), Some(b.clone()));
        assert_eq!(list.find("a.example"), None);
        list.set_health(
            &b,
            StoreHealth {
                failures_in_row: 3,
                ..StoreHealth::default()
            },
        );
        assert_eq!(window_side.health(&b).failures_in_row, 3);
    }
}
