//! The fetches: search (debounced, page after page), the open product and its weekly orders,
//! the compared products, the watchlist's prices and the real-time lookups. Each lands in a
//! [`Requested`] that a newer fetch of the same value supersedes (and cancels).

use std::time::Duration;

use super::{App, ComparedProduct, Requested, SEARCH_DEBOUNCE_SECS, Severity, WatchedProduct};
use crate::client::SearchQuery;
use crate::model::{Feature, Product, SearchResponse};
use crate::ui;
use crate::ui::orders::WeeklySeries;

/// The hits of a search, page after page.
pub(super) struct SearchPages {
    /// The first page, with the hits of later pages appended.
    pub(super) results: Requested<SearchResponse>,
    /// The next page, in flight or failed.
    pub(super) more: Requested<SearchResponse>,
    /// Pages loaded into `results`.
    pub(super) pages_loaded: u32,
    /// The hit the arrow keys moved to.
    pub(super) highlighted: Option<usize>,
}

impl SearchPages {
    /// Whether the server may have more hits: every page so far was full and the estimate is
    /// not reached.
    pub(super) fn has_more(&self) -> bool {
        let Requested::Completed(results) = &self.results else {
            return false;
        };
        let loaded = results.hits.len() as u64;
        results.limit > 0
            && loaded == u64::from(results.limit) * u64::from(self.pages_loaded)
            && loaded < results.estimated_total_hits
    }
}

impl App {
    pub(super) fn send_search_after_debounce(&mut self, ctx: &egui::Context) {
        let Some(edited_at) = self.search_edited_at else {
            return;
        };
        let waited_secs = ctx.input(|i| i.time) - edited_at;
        if waited_secs >= SEARCH_DEBOUNCE_SECS {
            self.search_edited_at = None;
            if self.searches_upstream() {
                // What is held answers as you type; the live source once typing pauses longer.
                self.send_search_with(ctx, true);
                self.live.search_typed_at = Some(edited_at);
            } else {
                self.send_search(ctx);
            }
        } else {
            ctx.request_repaint_after(Duration::from_secs_f64(SEARCH_DEBOUNCE_SECS - waited_secs));
        }
    }

    pub(super) fn search_query(&self, page: u32) -> SearchQuery {
        let filter = |text: &str| {
            let text = text.trim();
            (!text.is_empty()).then(|| text.to_owned())
        };
        SearchQuery {
            text: self.state.last_query.trim().to_owned(),
            page: (page > 1).then_some(page),
            limit: None,
            sku: filter(&self.state.sku_filter),
            gtin: filter(&self.state.gtin_filter),
            country: self.state.country,
            cached_only: false,
            in_stock_at: filter(&self.state.in_stock_at),
            size: filter(&self.state.size_filter),
        }
    }

    pub(super) fn send_search(&mut self, ctx: &egui::Context) {
        self.send_search_with(ctx, false);
    }

    /// The first page of the search; from held answers only when `cached_only`.
    pub(super) fn send_search_with(&mut self, ctx: &egui::Context, cached_only: bool) {
        let Some(client) = self.client.clone() else {
            return;
        };
        let mut query = self.search_query(1);
        query.cached_only = cached_only;
        self.search.more = Requested::NotYetRequested;
        self.search.pages_loaded = 1;
        self.search.highlighted = None;
        self.search.results.spawn(
            &self.runtime,
            ctx,
            async move { client.search(&query).await },
        );
    }

    pub(super) fn load_more(&mut self, ctx: &egui::Context) {
        let Some(client) = self.client.clone() else {
            return;
        };
        if self.search.more.is_pending() || !matches!(self.search.results, Requested::Completed(_))
        {
            return;
        }
        let query = self.search_query(self.search.pages_loaded + 1);
        self.search.more.spawn(
            &self.runtime,
            ctx,
            async move { client.search(&query).await },
        );
    }

    pub(super) fn open_product(&mut self, id: String, ctx: &egui::Context) {
        let Some(client) = self.client.clone() else {
            self.state.selected_product = Some(id);
            return;
        };
        let product_client = client.clone();
        let product_id = id.clone();
        self.product.spawn(&self.runtime, ctx, async move {
            product_client
                .product_v2(&product_id)
                .await
                .map(|envelope| envelope.data)
        });
        self.orders = self.fetch_orders(&id, ctx);
        let compared: Vec<String> = self.state.compare.iter().map(|c| c.id.clone()).collect();
        self.compare_orders = compared
            .iter()
            .map(|id| self.fetch_orders(id, ctx))
            .collect();
        self.state.selected_product = Some(id);
    }

    /// The weekly orders of `id`, fetched; nothing for a free key (the chart shows a lock, no
    /// need to be refused).
    pub(super) fn fetch_orders(&self, id: &str, ctx: &egui::Context) -> Requested<WeeklySeries> {
        let mut orders = Requested::NotYetRequested;
        let Some(client) = self.client.clone() else {
            return orders;
        };
        if client
            .tier()
            .is_some_and(|tier| !tier.allows(Feature::WeeklyOrders))
        {
            return orders;
        }
        let id = id.to_owned();
        orders.spawn(&self.runtime, ctx, async move {
            client
                .orders(&id)
                .await
                .map(|envelope| WeeklySeries::from_weekly(&envelope.data))
        });
        orders
    }

    pub(super) fn toggle_watch(&mut self, product: &Product) {
        if let Some(index) = self.state.watchlist.iter().position(|w| w.id == product.id) {
            self.state.watchlist.remove(index);
        } else {
            self.state.watchlist.push(WatchedProduct {
                id: product.id.clone(),
                title: product.title.clone(),
                sku: product.sku.clone(),
                country: self.state.country,
                currency: product.currency.clone(),
                price_when_starred: (product.min_price > 0.0).then_some(product.min_price),
            });
        }
    }

    /// Prices the watched products' style codes in one batch (`GET /api/v2/prices`, 50 codes
    /// a request): those not priced yet, or all of them when `all`. Nothing while a batch is in
    /// flight.
    pub(super) fn refresh_watchlist(&mut self, all: bool, ctx: &egui::Context) {
        let Some(client) = &self.client else {
            return;
        };
        let starred = self
            .state
            .watchlist
            .iter()
            .map(|item| (item.sku.as_str(), item.country));
        self.watch_prices
            .ask(&self.runtime, ctx, client, starred, all);
    }

    pub(super) fn add_to_compare(&mut self, product: &Product, ctx: &egui::Context) {
        const MAX_COMPARED: usize = 4;
        if self.state.compare.iter().any(|c| c.id == product.id) {
            return;
        }
        if self.state.compare.len() >= MAX_COMPARED {
            self.push_status(
                Severity::Info,
                format!("At most {MAX_COMPARED} products are compared; remove one first."),
            );
            return;
        }
        self.state.compare.push(ComparedProduct {
            id: product.id.clone(),
            title: product.title.clone(),
        });
        let series = self.fetch_orders(&product.id, ctx);
        self.compare_orders.push(series);
        self.push_status(
            Severity::Info,
            format!("{} added to the weekly-orders comparison.", product.title),
        );
    }

    /// Starts a real-time lookup; the form knows which one was asked for.
    pub(super) fn spawn_lookup(&mut self, lookup: ui::realtime::Lookup, ctx: &egui::Context) {
        use ui::realtime::Lookup;
        let Some(client) = self.client.clone() else {
            return;
        };
        // The user's lookup goes before the alert monitor's, and its answer joins the per-size
        // price history.
        let first = self.alerts.user_lookup();
        let recorder = self.alerts.recorder();
        match lookup {
            Lookup::ResaleA { id } => self.resale_a.spawn(&self.runtime, ctx, async move {
                let _first = first;
                let answer = client.resale_a_product(&id).await;
                if let (Ok(envelope), Some(db)) = (&answer, &recorder) {
                    let (key, quotes) = super::alerts::resale_a_record(envelope);
                    super::alerts::record_lookup(db, key, quotes);
                }
                answer
            }),
            Lookup::ResaleB { id, query } => self.resale_b.spawn(&self.runtime, ctx, async move {
                let _first = first;
                client.resale_b_related(&id, &query).await
            }),
            Lookup::Retailer { slug } => self.retailer.spawn(&self.runtime, ctx, async move {
                let answer = client.retailer_product(&slug).await;
                if let (Ok(envelope), Some(db)) = (&answer, &recorder) {
                    let (key, quotes) = super::alerts::retailer_record(envelope, None);
                    super::alerts::record_lookup(db, key, quotes);
                }
                answer
            }),
        }
    }
}
