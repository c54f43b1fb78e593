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
    /// How the reading of its whole catalogue stands, as the service said.
    pub catalogue: Option<String>,
}

/// Sneaker stores that run on Shopify, from the monitors' site lists of
/// `shared/research/shopify-storefront.md` §4 (old snapshots: a store may have moved on; its
/// reading says so). Offered in Settings, each added only when the user ticks it: nothing is
/// contacted before.
pub const WELL_KNOWN_STORES: &[(&str, &str)] = &[
    ("Kith", "https://kith.com"),
    ("Kith EU", "https://eu.kith.com"),
    ("Undefeated", "https://undefeated.com"),
    ("Concepts", "https://cncpts.com"),
    ("Bodega", "https://bdgastore.com"),
    ("Packer", "https://packershoes.com"),
    ("Sneaker Politics", "https://sneakerpolitics.com"),
    ("Shoe Palace", "https://shoepalace.com"),
    ("West NYC", "https://westnyc.com"),
    ("Extra Butter", "https://extrabutterny.com"),
    ("Hanon", "https://hanon-shop.com"),
    ("AFEW", "https://en.afew-store.com"),
    ("Asphaltgold", "https://asphaltgold.com"),
    ("atmos USA", "https://atmosusa.com"),
    ("Notre", "https://notre-shop.com"),
    ("DTLR", "https://dtlr.com"),
    ("Xhibition", "https://xhibition.co"),
    ("Wish ATL", "https://wishatl.com"),
    ("NRML", "https://nrml.ca"),
    ("Shop Nice Kicks", "https://shopnicekicks.com"),
];

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
    /// Read each store's whole catalogue at most every this many minutes.
    PassMinutes(u32),
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
    pass_minutes: &mut u32,
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
    // A store per block, its address and button on a line, its state below at the section's
    // full width: in a grid column beside the address, a long reading wrapped into a narrow
    // column of word pieces.
    for row in rows {
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            ui.label(row.url.as_str());
            if owner != StoresOwner::InWindow {
                ui.weak("the server's");
            } else if row.saved {
                if ui.small_button("Remove").clicked() {
                    action = StoresAction::Remove(row.url.clone());
                }
            } else {
                ui.weak("from the command line");
            }
        });
        ui.indent(("retail_store", row.url.as_str()), |ui| {
            let text = health_text(&row.health, now);
            let health = if row.health.failures_in_row > 0 {
                egui::RichText::new(text).color(ui.visuals().warn_fg_color)
            } else {
                egui::RichText::new(text).weak()
            };
            ui.add(egui::Label::new(health).wrap());
            if let Some(catalogue) = &row.catalogue {
                ui.add(
                    egui::Label::new(egui::RichText::new(format!("Catalogue: {catalogue}")).weak())
                        .wrap(),
                );
            }
        });
    }
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
    ui.horizontal(|ui| {
        let label = ui.label("Read each store's whole catalogue at most every");
        let minutes = ui
            .add(
                egui::DragValue::new(pass_minutes)
                    .range(5..=1_440)
                    .suffix(" min"),
            )
            .labelled_by(label.id)
            .on_hover_text(
                "At one request a second, a store of 5,000 products takes 21 requests. A change \
                 counts from each store's next reading.",
            );
        if minutes.changed() {
            action = StoresAction::PassMinutes(*pass_minutes);
        }
    });
    if let Some(error) = error {
        ui.colored_label(ui.visuals().error_fg_color, error);
    }
    egui::CollapsingHeader::new("Well-known sneaker stores on Shopify")
        .default_open(rows.is_empty())
        .show(ui, |ui| {
            ui.weak(
                "Tick a store to read its prices and stock; none is contacted before. Each \
                 store's whole catalogue is read at most as often as set above, at one request \
                 a second.",
            );
            egui::Grid::new("well_known_stores")
                .num_columns(2)
                .show(ui, |ui| {
                    for (name, url) in WELL_KNOWN_STORES {
                        let listed = rows.iter().find(|row| row.url.as_str() == *url);
                        let mut ticked = listed.is_some();
                        let label = format!("{name} ({})", url.trim_start_matches("https://"));
                        let enabled = listed.is_none_or(|row| row.saved);
                        if ui
                            .add_enabled(enabled, egui::Checkbox::new(&mut ticked, label))
                            .changed()
                        {
                            action = match listed {
                                Some(row) => StoresAction::Remove(row.url.clone()),
                                None => StoresAction::Add((*url).to_owned()),
                            };
                        }
                        ui.end_row();
                    }
                });
        });
    action
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A well-known store is offered, and added only when ticked: drawing the list asks for
    /// nothing.
    #[test]
    fn a_well_known_store_is_added_only_when_ticked() {
        use egui_kittest::kittest::Queryable as _;
        let mut harness = egui_kittest::Harness::new_ui_state(
            |ui, asked: &mut Vec<StoresAction>| {
                let mut draft = String::new();
                let mut minutes = 30;
                let action = retail_stores_ui(
                    ui,
                    &[],
                    &mut draft,
                    None,
                    StoresOwner::InWindow,
                    None,
                    &mut minutes,
                );
                if action != StoresAction::None {
                    asked.push(action);
                }
            },
            Vec::new(),
        );
        harness.run();
        assert!(harness.state().is_empty(), "nothing asked before a tick");
        harness.get_by_label("Kith (kith.com)").click();
        harness.run();
        assert_eq!(
            harness.state().as_slice(),
            [StoresAction::Add("https://kith.com".into())]
        );
    }

    #[test]
    fn every_well_known_store_is_a_store_address() {
        for (name, url) in WELL_KNOWN_STORES {
            let parsed = StoreUrl::parse(url).unwrap_or_else(|err| panic!("{name}: {err}"));
            assert_eq!(parsed.as_str(), *url, "{name}");
        }
    }

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
