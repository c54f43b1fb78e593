//! What the stores publish, as the release calendar reads it: each store's drops kept by its
//! last matching (no request to a store).

use std::path::{Path, PathBuf};
use std::sync::PoisonError;

use super::super::drops::StoreDrop;
use super::CrawledStores;
use crate::model::StoreUrl;

impl CrawledStores {
    /// What the stores just published or publish ahead, as matched against `catalogue`.
    #[must_use]
    pub fn drops(&self, catalogue: &Path) -> Vec<StoreDrop> {
        let matches = self.inner.matches.read();
        let matches = matches.unwrap_or_else(PoisonError::into_inner);
        let of = |((path, _), _): &(&(PathBuf, StoreUrl), _)| path == catalogue;
        let found = matches.iter().filter(of);
        found.flat_map(|(_, m)| m.drops.iter().cloned()).collect()
    }
}
