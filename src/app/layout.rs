//! The layout of the window: the top bar, the status messages, the search panel and the view
//! beside it. Each panel is drawn by its `crate::ui` function from what the app holds; what the
//! user asked for comes back as the panel's output and is acted on here.

use std::time::Duration;

use super::{App, SEARCH_DEBOUNCE_SECS, Severity, View, WatchedProduct};
use crate::client::Client;
use crate::model::Tier;
use crate::ui;
use crate::ui::fetched::Fetched;
use crate::ui::orders::WeeklySeries;

impl App {
    /// Where the prices on screen come from, for the top bar's badge.
    pub(super) fn price_source(&self) -> ui::source_badge::PriceSource {
        let origin = self.client.as_ref().and_then(Client::data_origin);
        let remote = match &self.state.service {
            super::ServiceLocation::Remote { base_url } => Some(base_url.as_str()),
            super::ServiceLocation::InWindow => None,
        };
        let catalogue = self
            .service_sources()
            .map(|sources| sources.catalogue.source.as_str());
        let source = ui::source_badge::price_source(remote, catalogue, origin.as_ref());
        // Before the window's KicksDB service answers anything, say it is starting.
        match source {
            ui::source_badge::PriceSource::Connecting if self.starts_kicksdb() => {
                ui::source_badge::PriceSource::KicksdbConnecting
            }
            source => source,
        }
    }

    pub(super) fn panels_ui(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        let tier = self.tier();
        egui::Panel::top("top_bar").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.strong("Solescope");
                ui::source_badge::source_badge_ui(ui, &self.price_source());
                ui.separator();
                for view in View::ALL {
                    let badge = match view {
                        View::Alerts => self.alert_badge(),
                        View::Flips => self.flips_badge(),
                        _ => 0,
                    };
                    let label = if badge > 0 {
                        format!("{} ({badge} new)", view.label())
                    } else {
                        view.label().to_owned()
                    };
                    ui.selectable_value(&mut self.state.view, view, label);
                }
                ui.separator();
                ui.weak(tier.map_or_else(|| "tier: …".to_owned(), |tier| format!("tier: {tier}")));
                if self.state.zoom != ui::state::UiZoom::default() {
                    ui.separator();
                    if ui
                        .small_button(format!("zoom {} %", self.state.zoom.percent()))
                        .on_hover_text("Ctrl+plus and Ctrl+minus zoom; click or Ctrl+0 for 100 %")
                        .clicked()
                    {
                        self.state.zoom = ui::state::UiZoom::default();
                    }
                }
            });
        });
        self.status_ui(ui);

        let search_output = {
            // The stores whose catalogues the service keeps: what a search can be narrowed to.
            let stores: Vec<String> = self
                .service_sources()
                .map(|sources| {
                    sources
                        .realtime
                        .stores()
                        .iter()
                        .filter(|store| store.catalogue.is_some())
                        .map(|store| store.name.clone())
                        .collect()
                })
                .unwrap_or_default();
            let base_url = self.base_url.clone().unwrap_or_default();
            let thumbnail = move |ui: &mut egui::Ui, url: &str| {
                let size = egui::vec2(57.0, 38.0);
                ui::images::thumbnail_ui(
                    ui,
                    ui::images::service_url(ui, url, &base_url, size).as_deref(),
                    size,
                );
            };
            let view = ui::search::SearchView {
                tier,
                results: self.search.results.fetched(),
                more: self.search.more.fetched(),
                has_more: self.search.has_more(),
                selected: self.state.selected_product.as_deref(),
                highlighted: self.search.highlighted,
                thumbnail: &thumbnail,
                stores: &stores,
            };
            let mut fields = ui::search::SearchFields {
                query: &mut self.state.last_query,
                sku: &mut self.state.sku_filter,
                gtin: &mut self.state.gtin_filter,
                country: &mut self.state.country,
                in_stock_at: &mut self.state.in_stock_at,
                size: &mut self.state.size_filter,
            };
            let client_error = self.client_error.as_deref();
            egui::Panel::left("search_panel")
                .default_size(380.0)
                .resizable(true)
                .show(ui, |ui| {
                    if let Some(err) = client_error {
                        ui.colored_label(
                            ui.visuals().error_fg_color,
                            format!("Not connected: {err}"),
                        );
                    }
                    ui::search::search_ui(ui, &mut fields, &view)
                })
                .inner
        };
        if search_output.query_changed {
            self.search_edited_at = Some(ctx.input(|i| i.time));
            ctx.request_repaint_after(Duration::from_secs_f64(SEARCH_DEBOUNCE_SECS));
        }
        if search_output.country_changed || search_output.retry {
            self.search_edited_at = None;
            self.send_search(ctx);
        }
        if search_output.load_more {
            self.load_more(ctx);
        }
        if let Some(id) = search_output.open {
            if matches!(
                self.state.view,
                View::Settings | View::Watchlist | View::Portfolio | View::Drops | View::Flips
            ) {
                self.state.view = View::Product;
            }
            self.open_product(id, ctx);
        }

        egui::CentralPanel::default().show(ui, |ui| match self.state.view {
            View::Product => self.product_view_ui(ui, tier, ctx),
            View::Orders => self.orders_view_ui(ui, tier, ctx),
            View::Realtime => self.realtime_view_ui(ui, tier, ctx),
            View::Watchlist => self.watchlist_view_ui(ui, ctx),
            View::Alerts => {
                self.alerts_view_ui(ui);
                self.product_trade_actions(ctx);
            }
            View::Portfolio => self.portfolio_view_ui(ui, ctx),
            // Scrolled: at 800 px high its sections run below the window.
            View::Drops => self.drops_view_ui(ui, ctx),
            View::Flips => self.flips_view_ui(ui, ctx),
            View::Settings => {
                egui::ScrollArea::vertical()
                    .id_salt("settings")
                    .auto_shrink([false, false])
                    .show(ui, |ui| self.settings_view_ui(ui, tier, ctx));
            }
        });
    }

    /// The Settings view: the connection, the stores, the KicksDB budget.
    fn settings_view_ui(&mut self, ui: &mut egui::Ui, tier: Option<Tier>, ctx: &egui::Context) {
        let key_status = self.kicksdb_key_status();
        let sources = self.service_sources().cloned();
        let connection = ui::settings::ConnectionInfo {
            base_url: self.base_url.as_deref().unwrap_or_default(),
            in_window: self.service_in_window(),
            feed: self.state.feed,
            sources: sources.as_ref(),
            demo_tier: self.demo_tier,
            reported_tier: tier,
            has_key: self.client.as_ref().is_some_and(Client::has_key),
            connect_error: self.client_error.as_deref(),
            kicksdb_key_status: key_status.as_ref().map(|(ok, text)| (*ok, text.as_str())),
            upstream_quota: self.client.as_ref().and_then(Client::upstream_quota),
        };
        let action = ui::settings::settings_ui(
            ui,
            connection,
            &mut self.remote_draft,
            &mut self.state.theme,
        );
        self.settings_action(action, ctx);
        self.stores_settings_ui(ui);
        self.budget_settings_ui(ui, ctx);
    }

    /// The status messages, one line each: cut to the window's width with an ellipsis, the
    /// whole message (with the detail it came from) on hover and for screen readers.
    pub(super) fn status_ui(&mut self, ui: &mut egui::Ui) {
        let messages = self.status_messages();
        if messages.is_empty() {
            return;
        }
        let mut dismiss = None;
        egui::Panel::bottom("status").show(ui, |ui| {
            for (index, message) in messages.iter().enumerate() {
                ui.horizontal(|ui| {
                    if ui
                        .small_button("Dismiss")
                        .on_hover_text("Remove this message")
                        .clicked()
                    {
                        dismiss = Some(index);
                    }
                    let mut text = message.text.clone();
                    if message.repeats > 1 {
                        text = format!("{text} (×{})", message.repeats);
                    }
                    let colour = match message.severity {
                        Severity::Info => ui.visuals().text_color(),
                        Severity::Error => ui.visuals().error_fg_color,
                    };
                    let full_text = message.full_text();
                    let label = ui.add(
                        egui::Label::new(egui::RichText::new(text).color(colour))
                            .truncate()
                            .show_tooltip_when_elided(false),
                    );
                    // The label's own accessible value is the cut text; a screen reader gets
                    // the whole message instead.
                    label.widget_info(|| {
                        egui::WidgetInfo::labeled(egui::Role::Label, true, &full_text)
                    });
                    label.on_hover_text(full_text);
                });
            }
        });
        if let Some(index) = dismiss {
            self.status.lock().dismiss(index);
        }
    }

    pub(super) fn product_view_ui(
        &mut self,
        ui: &mut egui::Ui,
        tier: Option<Tier>,
        ctx: &egui::Context,
    ) {
        if self.state.selected_product.is_none() {
            ui.weak("Pick a product on the left (or press / to search).");
            return;
        }
        let mut output = ui::detail::DetailOutput::default();
        let mut add_pair = None;
        let mut retry = false;
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let base_url = self.base_url.as_deref().unwrap_or_default();
                let image = |ui: &mut egui::Ui, url: &str| {
                    let size = egui::vec2(300.0, 200.0);
                    ui::images::product_image_ui(
                        ui,
                        ui::images::service_url(ui, url, base_url, size).as_deref(),
                        size,
                    );
                };
                let watched = |id: &str| self.state.watchlist.iter().any(|w| w.id == id);
                let mut sort = self.state.variant_sort;
                let payout = &mut self.state.payout;
                let weekly = self.orders.value();
                let live_nodes = self.resale_b.value();
                let is_saving = self.portfolio.is_saving();
                let add_form = &mut self.portfolio.add_form;
                retry = ui::widgets::requested_ui(
                    ui,
                    "Product",
                    self.product.fetched(),
                    |ui, product| {
                        output = ui::detail::detail_ui(
                            ui,
                            product,
                            tier,
                            watched(&product.id),
                            &mut sort,
                            &image,
                        );
                        ui.add_space(12.0);
                        ui.separator();
                        // resale-b lists the product itself only when it is among the related
                        // products of the last lookup.
                        let live = live_nodes.and_then(|envelope| {
                            envelope
                                .data
                                .iter()
                                .map(|edge| &edge.node)
                                .find(|node| node.url_key == product.slug)
                        });
                        ui::market::market_ui(ui, product, weekly, live);
                        ui.add_space(12.0);
                        let lowest_ask = (product.min_price > 0.0)
                            .then_some((product.min_price, product.currency.as_str()));
                        ui::market::payout_ui(ui, payout, lowest_ask);
                        ui.add_space(12.0);
                        ui.separator();
                        add_pair = ui::portfolio::add_pair_ui(ui, add_form, product, is_saving).add;
                    },
                );
                self.state.variant_sort = sort;
                if let Some(product) = self.product.value().cloned() {
                    self.product_trade_ui(ui, &product);
                }
            });
        self.product_trade_actions(ctx);
        if retry && let Some(id) = self.state.selected_product.clone() {
            self.open_product(id, ctx);
        }
        let product = self.product.value().cloned();
        if let Some(product) = product {
            if output.toggle_watch {
                self.toggle_watch(&product);
            }
            if output.compare {
                self.add_to_compare(&product, ctx);
            }
            if let Some(pair) = add_pair {
                self.add_pair(pair, ctx);
            }
        }
    }

    pub(super) fn orders_view_ui(
        &mut self,
        ui: &mut egui::Ui,
        tier: Option<Tier>,
        ctx: &egui::Context,
    ) {
        if self.state.selected_product.is_none() {
            ui.weak("Pick a product on the left.");
            return;
        }
        let open_title = self
            .product
            .value()
            .map_or("this product", |p| p.title.as_str());
        let currency = self
            .product
            .value()
            .map_or_else(|| self.state.country.currency(), |p| p.currency.as_str())
            .to_owned();
        let mut series: Vec<(&str, Fetched<'_, WeeklySeries>)> =
            vec![(open_title, self.orders.fetched())];
        // `compare_index[i]` is the `state.compare` index of `series[i + 1]`; the open product
        // is not drawn twice when it is also in the comparison.
        let open_id = self.state.selected_product.as_deref();
        let mut compare_index = Vec::new();
        for (index, (compared, orders)) in self
            .state
            .compare
            .iter()
            .zip(&self.compare_orders)
            .enumerate()
        {
            if Some(compared.id.as_str()) != open_id {
                compare_index.push(index);
                series.push((compared.title.as_str(), orders.fetched()));
            }
        }
        let area = ui.max_rect();
        let output =
            ui::orders::orders_ui(ui, &mut self.state.orders_view, &series, &currency, tier);
        let csv = output.export_csv.then(|| ui::orders::series_csv(&series));
        let slug = self
            .product
            .value()
            .map_or_else(String::new, |p| p.slug.clone());
        if output.export_png {
            self.export_png(ctx, area, &slug);
        }
        if let Some(csv) = csv {
            match csv {
                Ok(text) => self.export_csv(&slug, text),
                Err(err) => self.push_status(Severity::Error, format!("Could not export: {err}")),
            }
        }
        match output.retry {
            Some(0) => {
                if let Some(id) = self.state.selected_product.clone() {
                    self.open_product(id, ctx);
                }
            }
            Some(shown) => {
                if let Some(&index) = compare_index.get(shown - 1) {
                    let id = self.state.compare[index].id.clone();
                    self.compare_orders[index] = self.fetch_orders(&id, ctx);
                }
            }
            None => {}
        }
        if let Some(shown) = output.remove_compare
            && shown > 0
            && let Some(&index) = compare_index.get(shown - 1)
        {
            self.state.compare.remove(index);
            self.compare_orders.remove(index);
        }
    }

    pub(super) fn realtime_view_ui(
        &mut self,
        ui: &mut egui::Ui,
        tier: Option<Tier>,
        ctx: &egui::Context,
    ) {
        // Coming from a product, its slug is the natural thing to look up.
        if let Some(product) = self.product.value() {
            let form = &mut self.state.realtime;
            for id in [
                &mut form.resale_a_id,
                &mut form.resale_b_id,
                &mut form.retailer_slug,
            ] {
                if id.trim().is_empty() {
                    id.clone_from(&product.slug);
                }
            }
        }
        let offered = self.service_sources().map(|s| s.realtime.clone());
        let results = ui::realtime::RealtimeResults {
            resale_a: self.resale_a.fetched(),
            resale_b: self.resale_b.fetched(),
            retailer: self.retailer.fetched(),
            budget: self.realtime_budget(),
            tier,
            offered: offered.as_ref(),
        };
        let output = egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui::realtime::realtime_ui(ui, &mut self.state.realtime, results)
            })
            .inner;
        if let Some(lookup) = output.lookup {
            self.spawn_lookup(lookup, ctx);
        }
    }

    pub(super) fn watchlist_view_ui(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        self.refresh_watchlist(false, ctx);
        let now = chrono::Utc::now();
        let prices =
            |item: &WatchedProduct| super::prices::watch_price(&self.watch_prices, item, now);
        let view = ui::watchlist::WatchlistView {
            watched: &self.state.watchlist,
            pricing: self.watch_prices.is_pending(),
            error: self.watch_prices.error().map(|err| err.message.as_str()),
        };
        let output = ui::watchlist::watchlist_ui(ui, &view, &prices);
        if output.refresh {
            self.refresh_watchlist(true, ctx);
        }
        if let Some(id) = output.unstar {
            self.state.watchlist.retain(|w| w.id != id);
        }
        if let Some(id) = output.open {
            self.state.view = View::Product;
            self.open_product(id, ctx);
        }
    }
}
