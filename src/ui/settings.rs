//! The settings view: where the data comes from, the key's tier, the demo tier switch and the
//! theme.

use crate::app::ThemeChoice;
use crate::model::Tier;

/// What the settings view shows about the connection.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionInfo<'a> {
    /// The server's base URL.
    pub base_url: &'a str,
    /// Whether the server is the in-process demo service.
    pub is_local: bool,
    /// The demo tier whose key is in use, in local mode.
    pub demo_tier: Option<Tier>,
    /// The key's tier as the server last reported it.
    pub reported_tier: Option<Tier>,
}

/// The settings view. Returns the demo tier the user switched to, if any.
pub fn settings_ui(
    ui: &mut egui::Ui,
    connection: ConnectionInfo<'_>,
    theme: &mut ThemeChoice,
) -> Option<Tier> {
    let mut switch_to = None;
    ui.heading("Settings");
    egui::Grid::new("settings")
        .num_columns(2)
        .spacing([16.0, 8.0])
        .show(ui, |ui| {
            ui.weak("Data");
            if connection.is_local {
                ui.label(format!(
                    "Local demo catalogue, served in-process at {}",
                    connection.base_url
                ));
            } else {
                ui.label(connection.base_url);
            }
            ui.end_row();

            ui.weak("Tier");
            ui.label(connection.reported_tier.map_or_else(
                || "not known until the server answers".to_owned(),
                |tier| tier.to_string(),
            ));
            ui.end_row();

            if connection.is_local {
                ui.weak("Demo key");
                ui.horizontal(|ui| {
                    for tier in Tier::ALL {
                        let selected = connection.demo_tier == Some(tier);
                        if ui.selectable_label(selected, tier.as_str()).clicked() && !selected {
                            switch_to = Some(tier);
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
    switch_to
}
