//! The Settings section of the retail storefronts: the Shopify stores whose public product JSON
//! answers for `retailer-a` (no key, no account), each with how it has been answering (a store
//! that keeps failing is shown paused), a field to add one and a button to remove one.

use super::format;
use crate::model::{StoreHealth, StoreUrl};

/// One listed store as the section shows it.
#[derive(Debug, Clone)]
pub struct StoreRow {
    /// The store.
    pub url: StoreUrl,
    /// How it has been answering.
    pub health: StoreHealth,
    /// Whether it is kept in the user database (a store given on the command line is not).
    pub saved: bool,
}

/// What the user asked for in the section.
#[derive(Debug, Default, PartialEq, Eq)]
pub enum StoresAction {
    /// Nothing.
    #[default]
    None,
    /// Add the store typed (not yet checked).
    Add(String),
    /// Remove this store.
    Remove(StoreUrl),
}

/// A store's state in words: answering, failing, or paused until a time (local clock).
#[must_use]
pub fn health_text(health: &StoreHealth, now_unix: i64) -> String {
    let error = health.last_error.as_deref().unwrap_or("no answer");
    match health.paused_until_unix {
        Some(until) if until > now_unix => {
            format!("paused for {} s: {error}", until - now_unix)
        }
        _ if health.failures_in_row > 0 => {
            let times = format::counted(u64::from(health.failures_in_row), "time", "times");
            format!("failed {times} in a row: {error}")
        }
        _ => "answering".to_owned(),
    }
}

/// Whose stores the section lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoresOwner<'a> {
    /// The service in this window: the user's list, edited here.
    InWindow,
    /// A remote server: its own list, as it reported it (set where it runs).
    Remote {
        /// The server's base URL.
        base_url: &'a str,
    },
}

/// The section: `rows` are the stores `owner` reads; `retailer` names what answers for
/// `retailer-a` when no store is read (as the service said; `None`: nothing does).
pub fn retail_stores_ui(
    ui: &mut egui::Ui,
    rows: &[StoreRow],
    draft: &mut String,
    error: Option<&str>,
    owner: StoresOwner<'_>,
    retailer: Option<&str>,
) -> StoresAction {
    let mut action = StoresAction::None;
    ui.add_space(16.0);
    ui.strong("Retail stores");
    ui.weak(
        "Shopify storefronts read for retail prices and stock (retailer-a), with no key: each \
         is asked at most once a second, and its answers are reused for a minute.",
    );
    match owner {
        StoresOwner::InWindow => {
            ui.label("Read by the service in this window, whatever feeds its catalogue.");
        }
        StoresOwner::Remote { base_url } => {
            ui.label(format!(
                "Read by the server at {base_url}, which has its own list (set where it runs, \
                 with serve --retailer-store); the stores below are its."
            ));
        }
    }
    let now = chrono::Utc::now().timestamp();
    if rows.is_empty() {
        ui.weak(match retailer {
            Some("simulator") => "No store yet: the simulated retailer answers.",
            Some(_) => "No store yet: the service's own retailer answers.",
            None => "No store yet, and this service's source is not a retailer: no retail price or stock until a store is added.",
        });
    }
    egui::Grid::new("retail_stores")
        .num_columns(3)
        .spacing([16.0, 6.0])
        .show(ui, |ui| {
            for row in rows {
                ui.label(row.url.as_str());
                let text = health_text(&row.health, now);
                if row.health.failures_in_row > 0 {
                    ui.colored_label(ui.visuals().warn_fg_color, text);
                } else {
                    ui.weak(text);
                }
                if owner != StoresOwner::InWindow {
                    ui.weak("the server's");
                } else if row.saved {
                    if ui.small_button("Remove").clicked() {
                        action = StoresAction::Remove(row.url.clone());
                    }
                } else {
                    ui.weak("from the command line");
                }
                ui.end_row();
            }
        });
    if owner != StoresOwner::InWindow {
        return action;
    }
    ui.horizontal(|ui| {
        let label = ui.label("Store address");
        let field = ui
            .add(
                egui::TextEdit::singleline(draft)
                    .hint_text("https://kith.com")
                    .desired_width(280.0),
            )
            .labelled_by(label.id);
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let add = ui.add_enabled(!draft.trim().is_empty(), egui::Button::new("Add store"));
        if (add.clicked() || entered) && !draft.trim().is_empty() {
            action = StoresAction::Add(draft.trim().to_owned());
        }
    });
    if let Some(error) = error {
        ui.colored_label(ui.visuals().error_fg_color, error);
    }
    action
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_is_answering_failing_or_paused() {
        assert_eq!(health_text(&StoreHealth::default(), 0), "answering");
        let failing = StoreHealth {
            failures_in_row: 2,
            last_error: Some("this store refuses automated reading".into()),
            paused_until_unix: None,
        };
        assert_eq!(
            health_text(&failing, 0),
            "failed 2 times in a row: this store refuses automated reading"
        );
        let paused = StoreHealth {
            paused_until_unix: Some(130),
            ..failing
        };
        assert!(health_text(&paused, 100).starts_with("paused for 30 s"));
        assert!(health_text(&paused, 200).starts_with("failed 2 times"));
        let once = StoreHealth {
            failures_in_row: 1,
            last_error: None,
            paused_until_unix: None,
        };
        assert_eq!(health_text(&once, 0), "failed 1 time in a row: no answer");
    }
}
