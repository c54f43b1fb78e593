//! The settings view: two settings, where the service runs (in this window, or a Solescope
//! server) and, for the window's own service, what feeds it (the offline demo, or KicksDB live
//! with the user's own key; the stores come beside either, in their own section); what the
//! service says its sources are; the keys (entered masked, kept in the OS keyring), the key's
//! tier, KicksDB's monthly count, the demo tier switch and the theme.

use super::format;
use super::state::{Feed, ThemeChoice};
use crate::model::{ServiceSources, Tier};

/// What the settings view shows about the connection.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionInfo<'a> {
    /// The server's base URL.
    pub base_url: &'a str,
    /// Whether the service runs in this window (else a remote server).
    pub in_window: bool,
    /// What feeds the window's own service.
    pub feed: Feed,
    /// What the service said its sources are, once it did.
    pub sources: Option<&'a ServiceSources>,
    /// The demo tier whose key is in use, in local mode.
    pub demo_tier: Option<Tier>,
    /// The key's tier as the server last reported it.
    pub reported_tier: Option<Tier>,
    /// Whether a key is in use (remote mode).
    pub has_key: bool,
    /// Why the last connection attempt failed, if it did.
    pub connect_error: Option<&'a str>,
    /// What the check of the KicksDB key said: (accepted or pending, the sentence).
    pub kicksdb_key_status: Option<(bool, &'a str)>,
    /// KicksDB's count of this month's requests with the key, once an answer told it.
    pub upstream_quota: Option<u64>,
}

/// What the user is typing in the remote form. Never persisted: the key goes to the keyring.
#[derive(Default)]
pub struct RemoteDraft {
    /// The base URL typed.
    pub base_url: String,
    /// The key typed; cleared once handed to the app.
    pub api_key: String,
    /// The KicksDB key typed; cleared once handed to the app.
    pub kicksdb_key: String,
}

impl std::fmt::Debug for RemoteDraft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteDraft")
            .field("base_url", &self.base_url)
            .field("api_key", &"[redacted]")
            .field("kicksdb_key", &"[redacted]")
            .finish()
    }
}

/// What the user asked for in the settings view.
#[derive(Debug, Default, PartialEq, Eq)]
pub enum SettingsAction {
    /// Nothing.
    #[default]
    None,
    /// Use the demo key of this tier (local mode).
    SwitchDemoTier(Tier),
    /// Use the service in this window again, with the feed it had.
    UseInWindow,
    /// Feed the window's service from the demo catalogue.
    UseLocal,
    /// Use KicksDB live; `api_key` replaces the stored KicksDB key when given.
    UseKicksdb {
        /// The key typed, if any.
        api_key: Option<String>,
    },
    /// Use the remote server at `base_url`; `api_key` replaces the stored key when given.
    UseRemote {
        /// The server's base URL, trimmed.
        base_url: String,
        /// The key typed, if any.
        api_key: Option<String>,
    },
    /// Delete the key stored for the current remote server.
    ForgetKey,
}

/// The settings view.
pub fn settings_ui(
    ui: &mut egui::Ui,
    connection: ConnectionInfo<'_>,
    draft: &mut RemoteDraft,
    theme: &mut ThemeChoice,
) -> SettingsAction {
    let mut action = SettingsAction::None;
    ui.heading("Settings");
    egui::Grid::new("settings")
        .num_columns(2)
        .spacing([16.0, 8.0])
        .show(ui, |ui| {
            ui.weak("Service");
            ui.horizontal(|ui| {
                if ui
                    .selectable_label(connection.in_window, "In this window")
                    .on_hover_text("The app runs the service itself, fed by the sources below")
                    .clicked()
                    && !connection.in_window
                {
                    action = SettingsAction::UseInWindow;
                }
                ui.selectable_label(!connection.in_window, "Solescope server")
                    .on_hover_text("A server that speaks the same interface, with its own sources: fill in below");
            });
            ui.end_row();

            if connection.in_window {
                ui.weak("Fed by");
                ui.horizontal(|ui| {
                    let demo = connection.feed == Feed::Demo;
                    if ui
                        .selectable_label(demo, "Demo catalogue (offline)")
                        .on_hover_text("The bundled demo catalogue with generated prices")
                        .clicked()
                        && !demo
                    {
                        action = SettingsAction::UseLocal;
                    }
                    let kicksdb = connection.feed == Feed::Kicksdb;
                    if ui
                        .selectable_label(kicksdb, "KicksDB (live)")
                        .on_hover_text("Real prices from KicksDB with your own key: fill in below")
                        .clicked()
                        && !kicksdb
                    {
                        action = SettingsAction::UseKicksdb { api_key: None };
                    }
                    ui.weak("and the retail stores below");
                });
                ui.end_row();
            }

            ui.weak("Connected to");
            ui.label(if connection.in_window {
                format!("The service in this window, at {}", connection.base_url)
            } else {
                connection.base_url.to_owned()
            });
            ui.end_row();

            ui.weak("Its sources");
            // Wrapped at the window's edge: with a few stores the line is longer than it.
            ui.add(
                egui::Label::new(connection.sources.map_or_else(
                    || "not known until the service answers".to_owned(),
                    sources_text,
                ))
                .wrap(),
            );
            ui.end_row();

            ui.weak("Tier");
            ui.label(connection.reported_tier.map_or_else(
                || "not known until the server answers".to_owned(),
                |tier| tier.to_string(),
            ));
            ui.end_row();

            if connection.in_window && connection.feed == Feed::Demo {
                ui.weak("Demo key");
                ui.horizontal(|ui| {
                    for tier in Tier::ALL {
                        let selected = connection.demo_tier == Some(tier);
                        if ui.selectable_label(selected, tier.as_str()).clicked() && !selected {
                            action = SettingsAction::SwitchDemoTier(tier);
                        }
                    }
                });
                ui.end_row();
            }

            ui.weak("Theme");
            ui.horizontal(|ui| {
                ui.selectable_value(theme, ThemeChoice::System, "System");
                ui.selectable_value(theme, ThemeChoice::Light, "Light");
                ui.selectable_value(theme, ThemeChoice::Dark, "Dark");
            });
            ui.end_row();
        });

    ui.add_space(16.0);
    kicksdb_ui(ui, &connection, draft, &mut action);

    ui.add_space(16.0);
    ui.strong("Server address and key");
    ui.weak("Any server that speaks the Sneaker Market Data Service interface.");
    egui::Grid::new("remote_settings")
        .num_columns(2)
        .spacing([16.0, 8.0])
        .show(ui, |ui| {
            let label = ui.label("Base URL");
            ui.add(
                egui::TextEdit::singleline(&mut draft.base_url)
                    .hint_text("https://api.example.com")
                    .desired_width(320.0),
            )
            .labelled_by(label.id);
            ui.end_row();

            let label = ui.label("API key");
            ui.horizontal(|ui| {
                ui.add(
                    egui::TextEdit::singleline(&mut draft.api_key)
                        .password(true)
                        .hint_text(if connection.has_key && !connection.in_window {
                            "stored in the keyring; type to replace"
                        } else {
                            "kept in the OS keyring, never on disk"
                        })
                        .desired_width(320.0),
                )
                .labelled_by(label.id);
            });
            ui.end_row();

            ui.label("");
            ui.horizontal(|ui| {
                let base_url = draft.base_url.trim();
                let connect = ui.add_enabled(!base_url.is_empty(), egui::Button::new("Connect"));
                if connect.clicked() {
                    let api_key = std::mem::take(&mut draft.api_key).trim().to_owned();
                    action = SettingsAction::UseRemote {
                        base_url: base_url.to_owned(),
                        api_key: (!api_key.is_empty()).then_some(api_key),
                    };
                }
                if !connection.in_window
                    && connection.has_key
                    && ui
                        .button("Forget key")
                        .on_hover_text("Delete this server's key from the keyring")
                        .clicked()
                {
                    action = SettingsAction::ForgetKey;
                }
            });
            ui.end_row();
        });
    if let Some(err) = connection.connect_error {
        ui.colored_label(ui.visuals().error_fg_color, err);
    }
    action
}

/// What the service said its sources are, in a sentence: where the catalogue comes from, and
/// each real-time lookup's source (the stores by name).
#[must_use]
pub fn sources_text(sources: &ServiceSources) -> String {
    let name = |source: &str| match source {
        "catalogue" => "the demo catalogue".to_owned(),
        "simulator" => "the simulator".to_owned(),
        "kicksdb" => "KicksDB".to_owned(),
        "storefront" => "stores".to_owned(),
        other => other.to_owned(),
    };
    let catalogue = &sources.catalogue;
    let mut parts = vec![format!(
        "catalogue from {}{}",
        name(&catalogue.source),
        if catalogue.keeps_copy {
            " (a copy kept for offline)"
        } else {
            ""
        }
    )];
    let realtime = &sources.realtime;
    for (lookup, source) in [
        (
            "resale-a",
            realtime.resale_a.as_ref().map(|l| l.source.as_str()),
        ),
        (
            "resale-b",
            realtime.resale_b.as_ref().map(|l| l.source.as_str()),
        ),
    ] {
        parts.push(match source {
            Some(source) => format!("{lookup} from {}", name(source)),
            None => format!("no {lookup}"),
        });
    }
    parts.push(match &realtime.retailer_a {
        Some(retailer) if !retailer.stores.is_empty() => {
            let names: Vec<&str> = retailer.stores.iter().map(|s| s.name.as_str()).collect();
            format!(
                "retail from {}: {}",
                format::counted(names.len() as u64, "store", "stores"),
                names.join(", ")
            )
        }
        Some(retailer) => format!("retail from {}", name(&retailer.source)),
        None => "no retail prices or stock (add a store)".to_owned(),
    });
    parts.join("; ")
}

/// The KicksDB section: the key (masked), what its check said, the month's request count.
fn kicksdb_ui(
    ui: &mut egui::Ui,
    connection: &ConnectionInfo<'_>,
    draft: &mut RemoteDraft,
    action: &mut SettingsAction,
) {
    let fed_by_kicksdb = connection.in_window && connection.feed == Feed::Kicksdb;
    ui.strong("KicksDB");
    ui.weak(
        "Real StockX and GOAT prices with your own KicksDB key (kicks.dev). Real-time lookups count against KicksDB's 60 a minute per key.",
    );
    egui::Grid::new("kicksdb_settings")
        .num_columns(2)
        .spacing([16.0, 8.0])
        .show(ui, |ui| {
            let label = ui.label("KicksDB key");
            ui.add(
                egui::TextEdit::singleline(&mut draft.kicksdb_key)
                    .password(true)
                    .hint_text("KICKS-…; kept in the OS keyring, never on disk")
                    .desired_width(320.0),
            )
            .labelled_by(label.id);
            ui.end_row();

            ui.label("");
            ui.horizontal(|ui| {
                let typed = draft.kicksdb_key.trim().to_owned();
                let text = if fed_by_kicksdb {
                    "Use this key"
                } else {
                    "Use KicksDB"
                };
                if ui
                    .add_enabled(
                        !typed.is_empty() || !fed_by_kicksdb,
                        egui::Button::new(text),
                    )
                    .clicked()
                {
                    draft.kicksdb_key.clear();
                    *action = SettingsAction::UseKicksdb {
                        api_key: (!typed.is_empty()).then_some(typed),
                    };
                }
                if fed_by_kicksdb
                    && ui
                        .button("Forget key")
                        .on_hover_text("Delete the KicksDB key from the keyring")
                        .clicked()
                {
                    *action = SettingsAction::ForgetKey;
                }
            });
            ui.end_row();

            if let Some((ok, text)) = connection.kicksdb_key_status.filter(|_| fed_by_kicksdb) {
                ui.weak("Key");
                if ok {
                    ui.label(text);
                } else {
                    ui.colored_label(ui.visuals().error_fg_color, text);
                }
                ui.end_row();
            }
            if fed_by_kicksdb {
                ui.weak("This month");
                ui.label(connection.upstream_quota.map_or_else(
                    || "KicksDB's count of your requests shows after its first answer".to_owned(),
                    |used| {
                        let requests = format::counted(used, "request", "requests");
                        format!("{requests} to KicksDB with this key (X-Quota-Current)")
                    },
                ));
                ui.end_row();
            }
        });
}
