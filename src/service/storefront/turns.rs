//! The catalogue crawl's hooks into the per-product lookups' plumbing (`mod.rs`), so a store is
//! read at one pace and paused once whoever reads it: the crawl takes its turn in the same
//! one-request-a-second queue per store as the lookups, a 429 the crawl meets pauses the lookups
//! too (and the reverse), and its fetcher has the lookups' `User-Agent`, timeouts and redirect
//! rule (with a larger body cap: a page of 250 products is megabytes).

use std::sync::PoisonError;
use std::time::{Duration, Instant};

use super::{StorefrontError, Storefronts};
use crate::model::StoreUrl;
use crate::upstream::{Upstream, UpstreamConfig};

impl Storefronts {
    /// Waits for `store`'s turn in its one-request-a-second queue (shared with the lookups);
    /// [`StorefrontError::Paused`] when the store is paused (a 429, or failures in a row).
    ///
    /// # Errors
    /// The store is paused, or its address cannot be read.
    pub async fn wait_turn(&self, store: &StoreUrl) -> Result<(), StorefrontError> {
        let shop = self.shop(store)?;
        Self::check_paused(&shop)?;
        let mut next = shop.next_request.lock().await;
        tokio::time::sleep_until((*next).into()).await;
        *next = Instant::now() + self.config.min_interval;
        Ok(())
    }

    /// Pauses `store` for `wait` (at most the longest pause) after the crawl met `why` (a 429 or
    /// 503 there), so lookups wait too; Settings sees it in the store's health.
    pub fn pause_store(&self, store: &StoreUrl, wait: Duration, why: &StorefrontError) {
        let Ok(shop) = self.shop(store) else {
            return;
        };
        {
            let mut state = shop.state.lock().unwrap_or_else(PoisonError::into_inner);
            let until = Instant::now() + wait.min(self.config.max_pause);
            state.paused_until = Some(state.paused_until.map_or(until, |u| u.max(until)));
        }
        self.note(&shop, Some(why));
    }

    /// A fetcher for `store` like the lookups' (`User-Agent`, timeouts, same-origin redirects),
    /// reading bodies of at most `max_body_bytes`, each request given at most `request_timeout`.
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn crawl_fetcher(
        &self,
        store: &StoreUrl,
        max_body_bytes: usize,
        request_timeout: Duration,
    ) -> Result<Upstream, StorefrontError> {
        let mut config = UpstreamConfig::new(format!("storefront {}", store.label()));
        config.connect_timeout = self.config.connect_timeout;
        config.request_timeout = request_timeout;
        config.max_body_bytes = max_body_bytes;
        Upstream::new(&config)
            .map_err(|err| StorefrontError::Failed(format!("{}: {}", store.label(), err.message)))
    }

    /// The least time between two requests to one store.
    #[must_use]
    pub fn min_interval(&self) -> Duration {
        self.config.min_interval
    }
}
