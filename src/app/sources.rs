//! What the service has: the window asks its service (in-window or remote) what its sources
//! answer (`GET /api/v2/sources`), once connected and again every [`SOURCES_REFRESH_SECS`] (a
//! store's health changes, a remote server's sources may), and never which mode it was started
//! in. Settings, the badge, the alert monitor, *Where to buy* and the real-time tab read it.

use std::time::{Duration, Instant};

use super::{App, Requested};
use crate::model::{ServiceSources, StoreUrl};

/// How often the sources are asked again while connected.
pub const SOURCES_REFRESH_SECS: f64 = 15.0;

/// The answer, and when it was asked.
#[derive(Default)]
pub(super) struct SourcesState {
    answer: Requested<ServiceSources>,
    asked_at: Option<Instant>,
    /// Whether an answer (or a failure) has landed since connecting: later asks refresh it in
    /// the background and do not hold the window's "idle" back.
    landed: bool,
}

impl SourcesState {
    /// Whether the first ask since connecting is still in flight.
    pub(super) fn is_pending(&self) -> bool {
        self.answer.is_pending() && !self.landed
    }

    /// Forgets the answer: a new connection asks again.
    pub(super) fn reset(&mut self) {
        *self = Self::default();
    }

    /// Asks again at the next frame, keeping the answer until the new one lands.
    pub(super) fn ask_again(&mut self) {
        self.asked_at = None;
    }
}

impl App {
    /// What the connected service's sources answer, once it said.
    #[must_use]
    pub fn service_sources(&self) -> Option<&ServiceSources> {
        self.sources.answer.value()
    }

    /// Per frame: lands the answer, and asks (again) when due.
    pub(super) fn sources_tick(&mut self, ctx: &egui::Context) {
        self.sources.answer.poll();
        self.sources.landed |= !self.sources.answer.is_pending() && self.sources.asked_at.is_some();
        let Some(client) = self.client.clone() else {
            return;
        };
        let now = Instant::now();
        let due = self
            .sources
            .asked_at
            .is_none_or(|at| now.duration_since(at).as_secs_f64() >= SOURCES_REFRESH_SECS);
        if due && !self.sources.answer.is_pending() {
            self.sources.asked_at = Some(now);
            self.sources.answer.spawn(&self.runtime, ctx, async move {
                client.sources().await.map(|envelope| envelope.data)
            });
        }
        ctx.request_repaint_after(Duration::from_secs_f64(SOURCES_REFRESH_SECS));
    }

    /// Whether the catalogue's source spends an upstream's calls on each search: then search as
    /// you type reads what is held, and the source is asked once typing pauses.
    pub(super) fn searches_upstream(&self) -> bool {
        self.service_sources().is_some_and(|s| s.catalogue.live)
    }

    /// The storefronts the service reads for `retailer-a`, in the order it asks them (none:
    /// one retailer, or none).
    pub(super) fn offered_stores(&self) -> Vec<StoreUrl> {
        self.service_sources()
            .map(|s| s.realtime.stores())
            .unwrap_or_default()
            .iter()
            .filter_map(|store| StoreUrl::parse(&store.url).ok())
            .collect()
    }

    /// Whether the service answers `retailer-a` at all (a retailer, or stores).
    pub(super) fn offers_retailer(&self) -> bool {
        self.service_sources()
            .is_some_and(|s| s.realtime.retailer_a.is_some())
    }
}
