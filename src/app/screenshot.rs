//! `solescope --screenshot FILE.png`: wait for the first settled frame, have the window's
//! renderer read it back, write it as a PNG, close the window.
//!
//! "Settled" means no fetch in flight and no search waiting for its debounce for
//! [`SETTLE_SECS`] (so images and animations land too). The PNG is written next to its final name
//! and renamed ([`write_png`]), so a failed run never leaves half a file.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use super::export::write_png;
use super::{App, Requested, View};
use crate::ui;

/// How long the app must stay idle before the frame counts as settled.
pub const SETTLE_SECS: f64 = 1.0;
/// Give up (and report it) if the app has not settled by then.
pub const TIMEOUT_SECS: f64 = 120.0;

/// What a screenshot run is asked for, and where its outcome lands.
#[derive(Debug, Clone)]
pub struct ScreenshotRequest {
    /// Where the PNG goes.
    pub path: PathBuf,
    /// `Ok` once the file is written, the reason otherwise; `None` until then.
    pub outcome: Arc<Mutex<Option<Result<(), String>>>>,
}

impl ScreenshotRequest {
    /// A request for a PNG at `path`.
    #[must_use]
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            outcome: Arc::default(),
        }
    }

    /// The outcome, once there is one.
    #[must_use]
    pub fn outcome(&self) -> Option<Result<(), String>> {
        self.outcome
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_outcome(&self, outcome: Result<(), String>) {
        *self.outcome.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
    }
}

/// The progress of a screenshot run inside the app.
#[derive(Debug)]
pub(crate) struct ScreenshotRun {
    request: ScreenshotRequest,
    idle_since: Option<f64>,
    started_at: Option<f64>,
    asked: bool,
    /// Searched again once the stores' catalogues were read (their store-only shoes listed).
    searched_after_stores: bool,
}

impl ScreenshotRun {
    pub(crate) fn new(request: ScreenshotRequest) -> Self {
        Self {
            request,
            idle_since: None,
            started_at: None,
            asked: false,
            searched_after_stores: false,
        }
    }

    /// Called once a frame, after drawing, with whether the app is idle.
    pub(crate) fn after_frame(&mut self, ctx: &egui::Context, is_idle: bool) {
        let now = ctx.input(|i| i.time);
        let started_at = *self.started_at.get_or_insert(now);
        if self.request.outcome().is_some() {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        if self.asked {
            ctx.request_repaint();
            return;
        }
        if now - started_at > TIMEOUT_SECS {
            self.request.set_outcome(Err(format!(
                "the window did not settle within {TIMEOUT_SECS} s"
            )));
            ctx.request_repaint();
            return;
        }
        if !is_idle {
            self.idle_since = None;
        } else if let Some(since) = self.idle_since {
            if now - since >= SETTLE_SECS {
                self.asked = true;
                let request = self.request.clone();
                let repaint = ctx.clone();
                ctx.request_screenshot(move |image| {
                    // The renderer calls back on the window's thread: encode and write on
                    // another.
                    std::thread::spawn(move || {
                        request.set_outcome(write_png(&request.path, &image));
                        repaint.request_repaint();
                    });
                });
            }
        } else {
            self.idle_since = Some(now);
        }
        ctx.request_repaint_after(std::time::Duration::from_millis(50));
    }
}

impl App {
    /// In a screenshot run: open the first hit when the view shows a product and none is open.
    /// Whether a screenshot run may settle as far as the stores go: none read, or each
    /// store's catalogue read (or refused) and the search asked again since.
    pub(super) fn screenshot_stores_settled(&self) -> bool {
        self.startup.retailer_stores().is_empty()
            || self
                .screenshot
                .as_ref()
                .is_some_and(|run| run.searched_after_stores)
    }

    /// A screenshot run reading stores: once the service says every store's catalogue was
    /// read (or why it was not), the search is asked again, so the stores' own shoes are in it.
    fn search_again_once_stores_read(&mut self, ctx: &egui::Context) {
        if self.screenshot_stores_settled() {
            return;
        }
        let read = self.service_sources().is_some_and(|sources| {
            let stores = sources.realtime.stores();
            !stores.is_empty()
                && stores.iter().all(|store| {
                    store.catalogue.as_deref().is_none_or(|text| {
                        !text.contains("not been read yet") && !text.starts_with("reading")
                    })
                })
        });
        if read && self.is_idle() {
            if let Some(run) = &mut self.screenshot {
                run.searched_after_stores = true;
            }
            self.send_search(ctx);
        }
    }

    pub(super) fn screenshot_autopilot(&mut self, ctx: &egui::Context) {
        self.search_again_once_stores_read(ctx);
        let wants_product = matches!(
            self.state.view,
            View::Product | View::Orders | View::Realtime | View::Alerts
        );
        if wants_product
            && self.state.selected_product.is_none()
            && self.is_idle()
            && self.screenshot_stores_settled()
        {
            let first = self
                .search_results()
                .and_then(|r| r.hits.first())
                .map(|h| h.id.clone());
            if let Some(id) = first {
                self.open_product(id, ctx);
            }
        }
        if self.state.view == View::Realtime
            && matches!(self.resale_b, Requested::NotYetRequested)
            && self.is_idle()
            && let Some(product) = self.product.value()
        {
            let lookup = ui::realtime::Lookup::ResaleB {
                id: product.slug.clone(),
                query: crate::client::RelatedQuery::default(),
            };
            self.state.realtime.record_lookup(&lookup);
            self.spawn_lookup(lookup, ctx);
        }
        self.alerts_autopilot();
        if self.state.view == View::Portfolio {
            self.seed_portfolio_for_screenshot(ctx);
        }
    }
}
