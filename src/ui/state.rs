//! What the window keeps between runs ([`AppState`], in eframe storage; never the API key) and
//! the small types it is made of. Views read and edit them; the app stores them. They live on the
//! view side so that views need nothing from the app.

use serde::{Deserialize, Serialize};

use crate::model::Country;

/// The colour theme the user picked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThemeChoice {
    /// Follow the operating system.
    #[default]
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl ThemeChoice {
    /// The egui preference this choice stands for.
    #[must_use]
    pub fn preference(self) -> egui::ThemePreference {
        match self {
            ThemeChoice::System => egui::ThemePreference::System,
            ThemeChoice::Light => egui::ThemePreference::Light,
            ThemeChoice::Dark => egui::ThemePreference::Dark,
        }
    }
}

/// The UI zoom (egui's zoom factor: 1.0 is 100 %), changed with Ctrl+plus, Ctrl+minus and
/// Ctrl+0 and kept between runs. A stored value that is not a usable factor reads as 100 %.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(from = "f32", into = "f32")]
pub struct UiZoom(f32);

impl UiZoom {
    /// The smallest factor kept (egui's keyboard zoom stops at 0.2; below half size nothing
    /// is readable).
    pub const MIN: f32 = 0.5;
    /// The largest factor kept.
    pub const MAX: f32 = 3.0;

    /// `factor` within [`MIN`](Self::MIN)..=[`MAX`](Self::MAX); 100 % when it is not a number.
    #[must_use]
    pub fn new(factor: f32) -> Self {
        if factor.is_finite() {
            Self(factor.clamp(Self::MIN, Self::MAX))
        } else {
            Self::default()
        }
    }

    /// The zoom factor.
    #[must_use]
    pub fn factor(self) -> f32 {
        self.0
    }

    /// The factor as a whole percentage, e.g. `110`.
    #[must_use]
    pub fn percent(self) -> u32 {
        (self.0 * 100.0).round() as u32
    }
}

impl Default for UiZoom {
    fn default() -> Self {
        Self(1.0)
    }
}

impl From<f32> for UiZoom {
    fn from(factor: f32) -> Self {
        Self::new(factor)
    }
}

impl From<UiZoom> for f32 {
    fn from(zoom: UiZoom) -> Self {
        zoom.0
    }
}

/// The view beside the search panel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum View {
    /// The open product's detail.
    #[default]
    Product,
    /// The open product's weekly orders.
    Orders,
    /// Real-time marketplace lookups.
    Realtime,
    /// The starred products.
    Watchlist,
    /// Price alerts and their history.
    Alerts,
    /// The pairs held and sold.
    Portfolio,
    /// The sizes in stock at the stores that pay after fees.
    Flips,
    /// The release calendar.
    Drops,
    /// Settings.
    Settings,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: [View; 9] = [
        View::Product,
        View::Orders,
        View::Realtime,
        View::Watchlist,
        View::Alerts,
        View::Portfolio,
        View::Flips,
        View::Drops,
        View::Settings,
    ];

    /// The tab label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            View::Product => "Product",
            View::Orders => "Weekly orders",
            View::Realtime => "Real-time",
            View::Watchlist => "Watchlist",
            View::Alerts => "Alerts",
            View::Portfolio => "Portfolio",
            View::Drops => "Drops",
            View::Flips => "Flips",
            View::Settings => "Settings",
        }
    }

    /// The name the command line gives it (`--view`): `product`, `orders`, `realtime`, ...
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            View::Product => "product",
            View::Orders => "orders",
            View::Realtime => "realtime",
            View::Watchlist => "watchlist",
            View::Alerts => "alerts",
            View::Portfolio => "portfolio",
            View::Drops => "drops",
            View::Flips => "flips",
            View::Settings => "settings",
        }
    }

    /// Parses a view name as the command line takes it ([`View::name`], or the tab label).
    #[must_use]
    pub fn parse(name: &str) -> Option<View> {
        let name = name
            .trim()
            .to_ascii_lowercase()
            .replace(['-', ' ', '_'], "");
        View::ALL.into_iter().find(|view| {
            let label = view.label().to_ascii_lowercase().replace(['-', ' '], "");
            name == view.name() || name == label || format!("{name}s") == label
        })
    }
}

/// Where the service the window talks to runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServiceLocation {
    /// In this window's process, fed by [`Feed`] and the stores kept in the user database.
    #[default]
    InWindow,
    /// A remote Solescope server (its own sources); its key is in the key store.
    Remote {
        /// The server's base URL.
        base_url: String,
    },
}

/// What feeds the in-window service's catalogue and resale prices (the stores come beside it,
/// from the user database).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Feed {
    /// The bundled demo catalogue and the marketplace simulator: offline, generated prices.
    #[default]
    Demo,
    /// KicksDB, live, with the user's own key (in the key store), keeping a mirror for offline.
    Kicksdb,
}

/// The one setting of versions before the split into [`ServiceLocation`] and [`Feed`], read
/// from saved state once and migrated ([`AppState::migrated`]); never written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum LegacySource {
    /// The demo through the in-process service.
    LocalDemo,
    /// A remote server.
    Remote {
        /// The server's base URL.
        base_url: String,
    },
    /// KicksDB through the in-process service.
    Kicksdb,
}

/// A starred product, with what is needed to show it before any fetch lands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchedProduct {
    /// Product UUID.
    pub id: String,
    /// Title when starred.
    pub title: String,
    /// Style code.
    pub sku: String,
    /// The dataset its prices come from.
    pub country: Country,
    /// Currency of the prices.
    pub currency: String,
    /// Lowest price when starred; `None` when it had none.
    pub price_when_starred: Option<f64>,
}

/// A product added to the weekly-orders comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComparedProduct {
    /// Product UUID.
    pub id: String,
    /// Title, for the legend.
    pub title: String,
}

/// What is kept between runs, in eframe storage. Never the API key.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AppState {
    /// The colour theme.
    pub theme: ThemeChoice,
    /// The UI zoom (Ctrl+plus, Ctrl+minus, Ctrl+0).
    pub zoom: UiZoom,
    /// The last search text.
    pub last_query: String,
    /// The style-code filter; empty for none.
    pub sku_filter: String,
    /// The GTIN filter; empty for none.
    pub gtin_filter: String,
    /// Only what this store (its label) has in stock; empty for any product.
    pub in_stock_at: String,
    /// With `in_stock_at`: the US size in stock; empty for any.
    pub size_filter: String,
    /// The dataset searched.
    pub country: Country,
    /// The view beside the search panel.
    pub view: View,
    /// The product open in the detail view, reopened on start.
    pub selected_product: Option<String>,
    /// Where the service runs.
    pub service: ServiceLocation,
    /// What feeds the in-window service.
    pub feed: Feed,
    /// The setting saved by an older version, migrated on load ([`AppState::migrated`]).
    #[serde(rename = "source", skip_serializing)]
    pub legacy_source: Option<LegacySource>,
    /// The starred products.
    pub watchlist: Vec<WatchedProduct>,
    /// Products drawn beside the open one on the weekly-orders charts.
    pub compare: Vec<ComparedProduct>,
    /// How the variants table is sorted.
    pub variant_sort: super::detail::VariantSort,
    /// The weekly-orders range and charts.
    pub orders_view: super::orders::OrdersView,
    /// The real-time lookup form.
    pub realtime: super::realtime::RealtimeForm,
    /// The payout calculator's price and fee rates.
    pub payout: super::market::PayoutState,
    /// The alert form.
    pub alerts: super::alerts::AlertForm,
    /// The Flips tab's filters.
    pub flips: super::flips::FlipsView,
}

impl AppState {
    /// The state with an older version's one `source` setting turned into where the service
    /// runs and what feeds it, without a question: the demo and KicksDB in the window, a
    /// remote server as it was (the feed kept for when the window's own service is used again).
    #[must_use]
    pub fn migrated(mut self) -> Self {
        match self.legacy_source.take() {
            None => {}
            Some(LegacySource::LocalDemo) => {
                self.service = ServiceLocation::InWindow;
                self.feed = Feed::Demo;
            }
            Some(LegacySource::Kicksdb) => {
                self.service = ServiceLocation::InWindow;
                self.feed = Feed::Kicksdb;
            }
            Some(LegacySource::Remote { base_url }) => {
                self.service = ServiceLocation::Remote { base_url };
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_view_parses_from_its_command_line_name_and_its_tab_label() {
        for view in View::ALL {
            assert_eq!(View::parse(view.name()), Some(view), "{}", view.name());
            assert_eq!(View::parse(view.label()), Some(view), "{}", view.label());
        }
        assert_eq!(View::parse(" Weekly-Orders "), Some(View::Orders));
        assert_eq!(View::parse("chart"), None);
    }

    #[test]
    fn state_round_trips_and_old_state_loads_with_defaults() {
        let state = AppState {
            theme: ThemeChoice::Dark,
            last_query: "jordan".into(),
            country: Country::Fr,
            view: View::Orders,
            selected_product: Some("p1".into()),
            service: ServiceLocation::Remote {
                base_url: "https://api.example.com".into(),
            },
            ..AppState::default()
        };
        let json = serde_json::to_string(&state).unwrap();
        assert!(!json.contains("demo-"), "{json}");
        let back: AppState = serde_json::from_str(&json).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        assert_eq!(back.service, state.service);
        let partial: AppState = serde_json::from_str(r#"{"last_query":"dunk"}"#).unwrap();
        assert_eq!(partial.last_query, "dunk");
        assert_eq!(partial.theme, ThemeChoice::System);
        assert_eq!(partial.zoom.percent(), 100);
    }

    /// The state an older version saved, with its one `source` setting, loads as the same
    /// choice in the two settings, and the old key is not written again.
    #[test]
    fn an_older_source_setting_migrates_to_where_the_service_runs_and_its_feed() {
        let load = |json: &str| serde_json::from_str::<AppState>(json).unwrap().migrated();
        let kicksdb = load(r#"{"source":"Kicksdb","last_query":"dunk"}"#);
        assert_eq!(
            (kicksdb.service.clone(), kicksdb.feed),
            (ServiceLocation::InWindow, Feed::Kicksdb)
        );
        assert_eq!(kicksdb.last_query, "dunk");
        let demo = load(r#"{"source":"LocalDemo"}"#);
        assert_eq!(
            (demo.service, demo.feed),
            (ServiceLocation::InWindow, Feed::Demo)
        );
        let remote = load(r#"{"source":{"Remote":{"base_url":"https://api.example.com"}}}"#);
        assert_eq!(
            remote.service,
            ServiceLocation::Remote {
                base_url: "https://api.example.com".into()
            }
        );
        let saved = serde_json::to_string(&kicksdb).unwrap();
        let top: serde_json::Value = serde_json::from_str(&saved).unwrap();
        assert!(top.get("source").is_none(), "{saved}");
        let again = load(&saved);
        assert_eq!(
            (again.service, again.feed),
            (ServiceLocation::InWindow, Feed::Kicksdb)
        );
        let fresh = load("{}");
        assert_eq!(
            (fresh.service, fresh.feed),
            (ServiceLocation::InWindow, Feed::Demo)
        );
    }

    #[test]
    fn zoom_round_trips_and_a_bad_stored_factor_reads_as_usable() {
        let state = AppState {
            zoom: UiZoom::new(1.3),
            ..AppState::default()
        };
        let json = serde_json::to_string(&state).unwrap();
        assert!(json.contains(r#""zoom":1.3"#), "{json}");
        let back: AppState = serde_json::from_str(&json).unwrap();
        assert_eq!(back.zoom.percent(), 130);
        let huge: AppState = serde_json::from_str(r#"{"zoom":1e9}"#).unwrap();
        assert_eq!(huge.zoom.percent(), 300);
        let tiny: AppState = serde_json::from_str(r#"{"zoom":-4}"#).unwrap();
        assert_eq!(tiny.zoom.percent(), 50);
        assert_eq!(UiZoom::new(f32::NAN).percent(), 100);
    }
}
