//! The pages of the searches asked most recently, so that a search asked again (the popular
//! pairs, a page reloaded, the next user typing the same words) is answered without ranking.
//!
//! The index never changes while it is served, so a kept page is never stale. Bounded by bytes
//! (keys and values), evicted by `quick_cache`'s CLOCK-Pro policy, which keeps what is asked
//! again over what was asked once: a stream of distinct queries does not push the popular ones
//! out. The benchmarks of ranking (`benches/search.rs`) search the index directly, not through
//! this.

use std::sync::Arc;

use super::{SearchError, SearchIndex, SearchOutcome, SearchRequest};

/// At most this many bytes of keys and pages (a page of 20 hits with its text: about 250 bytes).
const CACHE_BYTES: u64 = 16 << 20;
/// Expected number of entries (sizes the cache's table).
const CACHE_ENTRIES: usize = 50_000;

/// A request as searched: text, style code, GTIN, offset and limit.
type Key = (Box<str>, Option<Box<str>>, Option<Box<str>>, usize, usize);

#[derive(Clone)]
struct Bytes;

impl quick_cache::Weighter<Key, Arc<SearchOutcome>> for Bytes {
    fn weight(&self, key: &Key, value: &Arc<SearchOutcome>) -> u64 {
        let texts = key.0.len()
            + key.1.as_ref().map_or(0, |s| s.len())
            + key.2.as_ref().map_or(0, |s| s.len());
        (texts + 64 + value.product_pks.len() * std::mem::size_of::<i64>()) as u64
    }
}

/// Recent search pages of one index.
pub struct RecentSearches {
    cache: quick_cache::sync::Cache<Key, Arc<SearchOutcome>, Bytes>,
}

impl std::fmt::Debug for RecentSearches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecentSearches")
            .field("entries", &self.cache.len())
            .finish()
    }
}

impl Default for RecentSearches {
    fn default() -> Self {
        Self {
            cache: quick_cache::sync::Cache::with_weighter(CACHE_ENTRIES, CACHE_BYTES, Bytes),
        }
    }
}

impl RecentSearches {
    /// The page of `request` over `index`: kept from an earlier identical request, or ranked
    /// now (and kept). Errors are not kept.
    pub fn search(
        &self,
        index: &SearchIndex,
        request: &SearchRequest<'_>,
    ) -> Result<Arc<SearchOutcome>, SearchError> {
        self.kept_or(request, || index.search(request))
    }

    /// [`search`](Self::search) through [`SearchIndex::search_resolving_gtins`].
    pub fn search_resolving_gtins(
        &self,
        index: &SearchIndex,
        request: &SearchRequest<'_>,
        product_pks: &mut dyn FnMut(u64) -> Result<Vec<i64>, SearchError>,
    ) -> Result<Arc<SearchOutcome>, SearchError> {
        self.kept_or(request, || {
            index.search_resolving_gtins(request, product_pks)
        })
    }

    /// The page kept for `request`, else `rank`'s (kept when it is one).
    fn kept_or(
        &self,
        request: &SearchRequest<'_>,
        rank: impl FnOnce() -> Result<SearchOutcome, SearchError>,
    ) -> Result<Arc<SearchOutcome>, SearchError> {
        // A search narrowed to a list of products (what a store has in stock, which changes
        // with each reading) is ranked each time.
        if request.pks.is_some() {
            return rank().map(Arc::new);
        }
        let key: Key = (
            request.text.into(),
            request.sku.map(Into::into),
            request.gtin.map(Into::into),
            request.offset,
            request.limit,
        );
        if let Some(found) = self.cache.get(&key) {
            return Ok(found);
        }
        let outcome = Arc::new(rank()?);
        self.cache.insert(key, Arc::clone(&outcome));
        Ok(outcome)
    }

    /// Pages kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.cache.len()
    }

    /// Whether no page is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_asked_again_is_the_kept_page_and_requests_differing_in_any_part_are_apart() {
        let dir = tempfile::tempdir().unwrap();
        let catalogue = super::super::tests::generated_catalogue(dir.path(), 500, 3);
        let conn = rusqlite::Connection::open(&catalogue).unwrap();
        let index = SearchIndex::build(&conn).unwrap();
        let recent = RecentSearches::default();
        let request = |text, offset, sku| SearchRequest {
            text,
            sku,
            offset,
            limit: 20,
            ..SearchRequest::default()
        };
        let first = recent.search(&index, &request("jordan", 0, None)).unwrap();
        let again = recent.search(&index, &request("jordan", 0, None)).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "asked again: the kept page");
        assert_eq!(recent.len(), 1);
        for (text, offset, sku) in [
            ("jordan", 20, None),
            ("jordan ", 0, None),
            ("jordan", 0, Some("X")),
        ] {
            let other = recent.search(&index, &request(text, offset, sku)).unwrap();
            assert_eq!(*other, index.search(&request(text, offset, sku)).unwrap());
        }
        assert_eq!(recent.len(), 4);
        assert_eq!(*first, index.search(&request("jordan", 0, None)).unwrap());
        let too_long = "a".repeat(crate::search::MAX_QUERY_CHARS + 1);
        assert!(recent.search(&index, &request(&too_long, 0, None)).is_err());
        assert_eq!(recent.len(), 4, "errors are not kept");
    }
}
