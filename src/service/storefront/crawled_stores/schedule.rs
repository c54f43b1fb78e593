//! The crawl's background task: a cycle per configured store, each pass when it is due, and
//! the catalogue files watched for a change ([`CrawledStores::spawn`]).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::time::Duration;

use super::super::crawl::on_db;
use super::{CrawledStores, CrawledStoresError};
use crate::model::{RetailerStores, StoreUrl};

impl CrawledStores {
    /// When the next pass over `store` may start (Unix seconds; `None`: at once).
    ///
    /// # Errors
    /// The store file could not be read.
    pub async fn next_pass_at(&self, store: &StoreUrl) -> Result<Option<i64>, CrawledStoresError> {
        let url = store.clone();
        Ok(on_db(self.inner.crawler.db(), move |db| {
            Ok(db.store(&url)?.next_pass_at)
        })
        .await?)
    }

    /// The background task: a cycle per store of `stores` (read again every
    /// [`CrawlConfig::watch_interval`], so a store added in Settings is crawled at once and a
    /// removed one no longer), each when its next pass is due; matches made from disk first,
    /// and again, as often, against a catalogue file that changed.
    /// Runs on the current tokio runtime until the returned handle is dropped.
    #[must_use]
    pub fn spawn(&self, stores: RetailerStores) -> CrawlTask {
        let this = self.clone();
        CrawlTask(tokio::spawn(async move { this.supervise(stores).await }))
    }

    async fn supervise(self, stores: RetailerStores) {
        let mut running: HashMap<StoreUrl, CrawlTask> = HashMap::new();
        loop {
            let list = stores.list();
            running.retain(|store, _| list.contains(store));
            for store in list {
                if let Entry::Vacant(slot) = running.entry(store) {
                    let this = self.clone();
                    let url = slot.key().clone();
                    slot.insert(CrawlTask(tokio::spawn(
                        async move { this.cycles(url).await },
                    )));
                }
            }
            self.match_changed_catalogues(&stores.list()).await;
            tokio::time::sleep(self.inner.crawler.config().watch_interval).await;
        }
    }

    async fn cycles(self, store: StoreUrl) {
        if let Err(err) = self.rematch(&store).await {
            tracing::warn!("matching what was read from {}: {err:#}", store.label());
        }
        if let Err(err) = self.refresh_status(&store).await {
            tracing::warn!("{}: {err:#}", store.label());
        }
        loop {
            let due = match self.next_pass_at(&store).await {
                Ok(due) => due,
                Err(err) => {
                    tracing::warn!("{}: {err:#}", store.label());
                    Some(chrono::Utc::now().timestamp() + 60)
                }
            };
            if let Some(due) = due {
                let wait = due - chrono::Utc::now().timestamp();
                if let Ok(wait) = u64::try_from(wait) {
                    tokio::time::sleep(Duration::from_secs(wait)).await;
                }
            }
            if let Err(err) = self.crawl_now(&store).await {
                tracing::warn!("crawling {}: {err:#}", store.label());
                tokio::time::sleep(self.inner.crawler.config().pass_interval).await;
            }
        }
    }
}

/// The background crawl; dropping it stops every store's cycle.
#[derive(Debug)]
pub struct CrawlTask(tokio::task::JoinHandle<()>);

impl Drop for CrawlTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}
