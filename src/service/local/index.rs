//! The service's own search index and hit store: opened (or built) at start, and what is left
//! for a thread of its own once the service answers (the hit store read through or built, the
//! new index saved, and work that waits for the read-through).

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use super::LocalCatalogue;
use crate::catalogue::Catalogue;
use crate::search::{HitStore, SearchIndex};
use crate::service::{ServiceConfig, ServiceError, background};

/// The search index and the hit store of the catalogue open as `conn`, with what is left to do
/// for them once the service answers.
///
/// The index first, with both cores (at a million products its build reads on two threads).
/// The hit store is opened when it is kept beside the catalogue. What must be built or written
/// for a large catalogue (the hit store: some 10 s at a million products, as long as the index;
/// the index file: 2 s) is done once the service answers, for a small one before.
pub(super) fn open_local_index(
    config: &ServiceConfig,
    conn: &rusqlite::Connection,
) -> Result<LocalIndex, ServiceError> {
    let started = Instant::now();
    // A large catalogue's GTIN map is read once the service answers (a third of a first
    // start's CPU at a million products); GTIN lookups go to the catalogue until then.
    let (search, source, unsaved) =
        SearchIndex::open_unsaved(&config.catalogue, conn, Some(config.background_from))?;
    tracing::info!(
        products = search.len(),
        ?source,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "search index ready"
    );
    let large = search.len() >= config.background_from;
    let unsaved = match unsaved {
        Some(unsaved) if !large => {
            unsaved.save(&search);
            None
        }
        unsaved => unsaved,
    };
    let (hits, hits_later) = match HitStore::open_existing(&config.catalogue) {
        Ok(store) if large => (OnceLock::from(store), HitsLater::Warm),
        Ok(store) => {
            // A small store is read through at once (hits are then written on the async
            // workers from the first search).
            warm_page_cache(&store);
            (OnceLock::from(store), HitsLater::Nothing)
        }
        Err(unbuilt) if large => (OnceLock::new(), HitsLater::Build(unbuilt)),
        Err(unbuilt) => (OnceLock::from(unbuilt.build(conn)?), HitsLater::Nothing),
    };
    Ok((search, hits, hits_later, unsaved))
}

/// What [`open_local_index`] gives: the index, the hit store when ready, what is left to do
/// for it, and the index when it must still be saved.
pub(super) type LocalIndex = (
    SearchIndex,
    OnceLock<HitStore>,
    HitsLater,
    Option<crate::search::UnsavedIndex>,
);

/// What is left to do for the hit store once a large catalogue's service answers.
pub(super) enum HitsLater {
    Nothing,
    /// Read the kept store once into the page cache ([`HitStore::warm_page_cache`]).
    Warm,
    /// Build the store, then hand it to the service.
    Build(crate::search::UnbuiltHitStore),
}

/// On a thread of its own, once the service answers: the index's GTIN map read (when it was
/// built without), the hit store's work (`hits_later`), then the freshly built index saved (when
/// given). A failure is logged: GTIN lookups and hits keep coming from the catalogue or from
/// disk, the index is rebuilt at the next start.
///
/// `after_warm_up` is called once a kept store has been read through, else at once: work that
/// would compete with the first searches for the disk after a cold restart (they wait for
/// their hits' records) and is not urgent.
pub(super) fn finish_in_background(
    state: &Arc<LocalCatalogue>,
    catalogue: &Path,
    hits_later: HitsLater,
    unsaved: Option<crate::search::UnsavedIndex>,
    after_warm_up: Box<dyn FnOnce() + Send>,
) {
    let after_warm_up = RunOnce(Some(after_warm_up));
    let gtins_later = state.search.gtins_pending();
    if matches!(hits_later, HitsLater::Nothing) && unsaved.is_none() && !gtins_later {
        after_warm_up.run();
        return;
    }
    let service = Arc::downgrade(state);
    let index = Arc::clone(&state.search);
    let catalogue = catalogue.to_path_buf();
    let read_gtins = move |index: &SearchIndex| {
        if gtins_later {
            read_gtins_later(index, &catalogue);
        }
    };
    let spawned = std::thread::Builder::new()
        .name("after-start".into())
        .spawn(move || {
            // The requests' reads first: after a cold restart, the warm-up read competed with
            // the first pages for the disk (module `background`).
            background::idle_io_priority();
            match hits_later {
                HitsLater::Nothing => {
                    read_gtins(&index);
                    after_warm_up.run();
                }
                HitsLater::Warm => {
                    // The GTIN map first: until it is read, a search for a GTIN reads the
                    // catalogue on the blocking pool.
                    read_gtins(&index);
                    // At the normal CPU priority: until it ends, pages take the slower way
                    // (module `search::hits`), and at nice 10 under load a cached store's
                    // read took the whole first second instead of 0.3 s.
                    if let Some(store) = service.upgrade().as_ref().and_then(|s| s.hits.get()) {
                        warm_page_cache(store);
                    }
                    after_warm_up.run();
                }
                HitsLater::Build(unbuilt) => {
                    // The store is built from the catalogue, which is in the page cache by
                    // now; the after work runs beside it rather than tens of seconds later.
                    after_warm_up.run();
                    read_gtins(&index);
                    background::lower_cpu_priority();
                    if let Some(store) = build_hit_store(unbuilt) {
                        // A service shut down meanwhile has no use for it.
                        if let Some(service) = service.upgrade() {
                            let _ = service.hits.set(store);
                        }
                    }
                }
            }
            if let Some(unsaved) = unsaved {
                background::lower_cpu_priority();
                unsaved.save(&index);
            }
        });
    if let Err(err) = spawned {
        // The work after the warm-up was dropped with the thread's closure, and ran here.
        tracing::error!(
            "the hit store and the index file wait for the next start: no thread: {err}"
        );
    }
}

/// Work run once, by whichever path gets there: [`RunOnce::run`], or being dropped uncalled
/// (the thread that should have run it could not start, or panicked), so that it is never lost.
struct RunOnce(Option<Box<dyn FnOnce() + Send>>);

impl RunOnce {
    fn run(mut self) {
        self.run_now();
    }

    fn run_now(&mut self) {
        if let Some(work) = self.0.take() {
            work();
        }
    }
}

impl Drop for RunOnce {
    fn drop(&mut self) {
        self.run_now();
    }
}

fn warm_page_cache(store: &HitStore) {
    let started = Instant::now();
    match store.warm_page_cache() {
        Ok(warm_up) => tracing::info!(
            megabytes = warm_up.covered >> 20,
            megabytes_read = warm_up.read >> 20,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "hit store read into the page cache"
        ),
        Err(err) => tracing::warn!("hit store not read into the page cache: {err}"),
    }
}

/// Reads the GTIN map of `index`, built without, from `catalogue` on a connection of its own.
/// A failure is logged: GTIN lookups keep going to the catalogue, and the index is not saved.
fn read_gtins_later(index: &SearchIndex, catalogue: &Path) {
    let started = Instant::now();
    let read = Catalogue::open_read_only(catalogue)
        .map_err(|err| err.to_string())
        .and_then(|catalogue| {
            index
                .read_gtins_later(catalogue.connection())
                .map_err(|err| err.to_string())
        });
    match read {
        Ok(()) => tracing::info!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            "search GTINs ready"
        ),
        Err(err) => tracing::error!("GTIN lookups keep going to the catalogue: {err}"),
    }
}

/// Builds the hit store on a connection of its own; `None` (logged) when that fails.
fn build_hit_store(unbuilt: crate::search::UnbuiltHitStore) -> Option<HitStore> {
    let started = Instant::now();
    let built = match Catalogue::open_read_only(unbuilt.catalogue()) {
        Ok(catalogue) => unbuilt
            .build(catalogue.connection())
            .map_err(|err| err.to_string()),
        Err(err) => Err(err.to_string()),
    };
    match built {
        Ok(store) => {
            tracing::info!(
                products = store.len(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                "search hits ready"
            );
            Some(store)
        }
        Err(err) => {
            tracing::error!("search hits keep coming from the catalogue: {err}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::source::{CatalogueSource, SearchArgs};

    /// The work handed to run after the warm-up finds the kept hit store read through. It first
    /// waits for the test to hand it the catalogue: had it run before the warm-up, on the same
    /// thread, the store could not have been read through yet.
    #[test]
    fn work_after_the_warm_up_runs_once_the_kept_store_is_read_through() {
        let dir = tempfile::tempdir().unwrap();
        let catalogue = dir.path().join("catalogue.sqlite");
        crate::catalogue::generate::for_tests(&catalogue, 200, 9);
        let mut config = ServiceConfig::new(&catalogue);
        // A large catalogue: the hit store is built or read through on a thread of its own.
        config.background_from = 1;
        let first = LocalCatalogue::open(&config, Box::new(|| {})).unwrap();
        let started = Instant::now();
        while !(first.hits_ready() && SearchIndex::file_for(&catalogue).exists()) {
            assert!(
                started.elapsed().as_secs() < 60,
                "the first start never finished"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        drop(first);

        let (hand, handed) = std::sync::mpsc::channel::<std::sync::Weak<LocalCatalogue>>();
        let (report, reported) = std::sync::mpsc::channel::<bool>();
        let after_warm_up = Box::new(move || {
            let local = handed.recv().unwrap().upgrade().unwrap();
            let read_through = local.hits.get().is_some_and(HitStore::is_cached);
            report.send(read_through).unwrap();
        });
        let second = LocalCatalogue::open(&config, after_warm_up).unwrap();
        hand.send(Arc::downgrade(&second)).unwrap();
        let read_through = reported
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap();
        assert!(read_through, "ran before the hit store was read through");
    }

    /// After a large catalogue's first start, a search for a GTIN finds its product while the
    /// index's GTIN map is still to be read (from the catalogue, on the blocking pool), and the
    /// same once it is read. The work after the warm-up, which comes before the GTIN map on the
    /// thread after the start, holds it back until the first search is done.
    #[test]
    fn a_gtin_is_found_before_and_after_the_gtin_map_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let catalogue = dir.path().join("catalogue.sqlite");
        crate::catalogue::generate::for_tests(&catalogue, 200, 9);
        let (gtin, id): (String, String) = rusqlite::Connection::open(&catalogue)
            .unwrap()
            .query_row(
                "SELECT v.gtin, p.id FROM variants v JOIN products p ON p.pk = v.product_pk
                  WHERE v.gtin IS NOT NULL ORDER BY v.pk DESC LIMIT 1",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        let mut config = ServiceConfig::new(&catalogue);
        config.background_from = 1;
        let (release, released) = std::sync::mpsc::channel::<()>();
        let after_warm_up = Box::new(move || {
            let _ = released.recv();
        });
        let local = LocalCatalogue::open(&config, after_warm_up).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let mut args = SearchArgs {
            text: String::new(),
            sku: None,
            gtin: Some(format!("0{gtin}")),
            page: 1,
            limit: 10,
            country: crate::model::Country::Us,
            tier: crate::model::Tier::Pro,
            cached_only: false,
            only: None,
        };
        let ids = |page: &[u8]| -> Vec<String> {
            serde_json::from_slice::<Vec<crate::model::SearchHit>>(page)
                .unwrap()
                .into_iter()
                .map(|hit| hit.id)
                .collect()
        };
        assert!(local.search.gtins_pending());
        let mut before = Vec::new();
        runtime.block_on(local.search(&args, &mut before)).unwrap();
        assert_eq!(ids(&before), std::slice::from_ref(&id));
        assert!(local.search.gtins_pending(), "the map was read already");

        release.send(()).unwrap();
        let started = Instant::now();
        while local.search.gtins_pending() {
            assert!(
                started.elapsed().as_secs() < 60,
                "the GTIN map is never read"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        // Another page size: not the page kept from the first search.
        args.limit = 5;
        let mut after = Vec::new();
        runtime.block_on(local.search(&args, &mut after)).unwrap();
        assert_eq!(ids(&after), [id]);
    }
}
