//! Accessibility of the real app in `egui_kittest`, through the AccessKit tree a screen reader
//! gets: every control of every panel has a name, charts have a text alternative, Tab reaches
//! the controls in order, the UI zoom is kept, and a status line says each thing once.

mod common;

use common::TestService;
use common::kittest::{open_hit, step_until};

use std::sync::{Arc, OnceLock};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{AccessKitNode, NodeT as _, Queryable as _};
use solescope::app::{App, AppInit, AppState, LOCAL_DEMO_ACCOUNT, StartupStatus, View};
use solescope::client::{KeyStore, KeyStoreError, MemoryKeyStore};

fn service() -> &'static TestService {
    static SERVICE: OnceLock<TestService> = OnceLock::new();
    SERVICE.get_or_init(|| TestService::start("a11y.sqlite", 120, 5))
}

/// The real app on the test service with a pro key, `key_store` and `state`, after its first
/// search; with a user database in `dir` when given (the portfolio's forms need one).
fn harness_with(
    key_store: Arc<dyn KeyStore>,
    state: AppState,
    dir: Option<&tempfile::TempDir>,
) -> Harness<'static, App> {
    let service = service();
    let mut harness = common::kittest::app_harness(AppInit {
        runtime: service.runtime.handle().clone(),
        key_store,
        startup: StartupStatus::ready(&service.base_url),
        state,
        screenshot: None,
        user_db: dir.map(|dir| dir.path().join("user.sqlite")),
    });
    step_until(&mut harness, "the first search", |h| {
        h.state().is_idle() && h.state().search_results().is_some()
    });
    harness
}

fn pro_store() -> Arc<dyn KeyStore> {
    let store = MemoryKeyStore::new();
    store.set(LOCAL_DEMO_ACCOUNT, "demo-pro").unwrap();
    Arc::new(store)
}

/// Clicks the control named `label` (not a text of that name) and runs frames until the app is
/// idle again.
fn click(harness: &mut Harness<'_, App>, label: &str) {
    harness
        .query_all_by_label(label)
        .find(|node| egui::accessibility::is_input(node.accesskit_node().role()))
        .unwrap_or_else(|| panic!("no control named {label:?}"))
        .click();
    step_until(harness, label, |h| h.state().is_idle());
    harness.step();
    harness.step();
}

/// Whether a screen reader has something to say for this name: a letter or a digit (a lone
/// `×` or `⏶` is not a name).
fn is_sayable(name: &str) -> bool {
    name.chars().any(char::is_alphanumeric)
}

/// The visible controls of the tree (things to click, toggle, pick or type into), each as
/// `(role, name)`; `None` for a control without a sayable name. Stricter than
/// `Harness::unnamed_widgets`: a text field's placeholder does not count as its name (it
/// disappears once the field has text, and not every screen reader reads it).
fn controls(harness: &Harness<'_, App>) -> Vec<(Role, Option<String>)> {
    harness
        .root()
        .children_recursive()
        .map(|node| node.accesskit_node())
        .filter(|node| egui::accessibility::is_input(node.role()) && !node.is_hidden())
        .filter(|node| !node.data().is_read_only())
        .map(|node: AccessKitNode<'_>| {
            let name = node.label().filter(|label| is_sayable(label));
            (node.role(), name)
        })
        .collect()
}

#[test]
fn every_control_of_every_panel_has_a_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = harness_with(pro_store(), AppState::default(), Some(&dir));
    open_hit(&mut harness, 0);
    click(&mut harness, "Filters");
    let mut unnamed = Vec::new();
    let mut walked = Vec::new();
    let mut walk = |harness: &Harness<'_, App>, panel: &str| {
        let controls = controls(harness);
        for (role, name) in &controls {
            if name.is_none() {
                unnamed.push(format!("{panel}: a {role:?} without a name"));
            }
        }
        let roles = |wanted: &[Role]| controls.iter().filter(|(r, _)| wanted.contains(r)).count();
        walked.push((
            panel.to_owned(),
            roles(&[Role::Button, Role::Link, Role::Tab]),
            roles(&[Role::TextInput, Role::PasswordInput, Role::SpinButton]),
            roles(&[Role::CheckBox, Role::ComboBox, Role::Slider]),
        ));
    };
    for view in View::ALL {
        click(&mut harness, view.label());
        walk(&harness, view.label());
        match view {
            View::Realtime => {
                // The result tables and their sortable headers appear after a lookup.
                click(&mut harness, "Look up");
                walk(&harness, "Real-time, after a lookup");
            }
            View::Portfolio => {
                for section in ["Sales", "Import / export CSV"] {
                    let label = harness
                        .query_all_by_label_contains(section)
                        .next()
                        .and_then(|node| node.accesskit_node().label())
                        .unwrap();
                    click(&mut harness, &label);
                    walk(&harness, &format!("Portfolio, {section}"));
                }
            }
            View::Settings => {
                click(&mut harness, "Solescope server");
                walk(&harness, "Settings, Solescope server");
            }
            _ => {}
        }
    }
    assert!(
        unnamed.is_empty(),
        "controls a screen reader cannot name:\n{}\n(walked, per panel: buttons, text fields, \
         checkboxes and lists: {walked:?})",
        unnamed.join("\n")
    );
    // The walk saw the controls it vouches for: the product's Copy buttons and links, the text
    // fields and lists of the forms (a walk that found nothing would pass).
    let product = &walked[0];
    assert!(product.1 >= 10 && product.2 >= 3, "{walked:?}");
    let text_fields: usize = walked.iter().map(|panel| panel.2).sum();
    let lists: usize = walked.iter().map(|panel| panel.3).sum();
    assert!(text_fields >= 10 && lists >= 3, "{walked:?}");
    // The window itself is named, as a screen reader announces it.
    let window = harness.root().accesskit_node();
    assert_eq!(
        (window.role(), window.label().as_deref()),
        (Role::Window, Some("Solescope"))
    );
}

#[test]
fn the_orders_charts_have_their_figures_as_text() {
    let mut harness = harness_with(pro_store(), AppState::default(), None);
    let hit = open_hit(&mut harness, 0);
    click(&mut harness, "Weekly orders");
    let series = harness.state().orders_series().unwrap().clone();
    let most = series
        .orders_points
        .iter()
        .map(|point| point[1])
        .fold(0.0, f64::max);
    let charts: Vec<String> = harness
        .query_all_by_role(Role::Image)
        .filter_map(|node| node.accesskit_node().label())
        .filter(|label| label.starts_with("Chart of"))
        .collect();
    assert_eq!(charts.len(), 4, "{charts:?}");
    let orders = &charts[0];
    assert!(
        orders.starts_with("Chart of Orders per week, last 52 weeks. "),
        "{orders}"
    );
    assert!(
        orders.contains(&format!("{}: 52 points from the week of", hit.title)),
        "{orders}"
    );
    let most = solescope::ui::format::count(most as u64);
    assert!(
        orders.contains(&format!("highest {most} orders")),
        "{orders}"
    );
    assert!(
        charts[3].starts_with("Chart of Rank per week"),
        "{charts:?}"
    );
}

/// The name of the focused node, if a node has the focus.
fn focused_name(harness: &Harness<'_, App>) -> Option<String> {
    harness
        .root()
        .children_recursive()
        .find(|node| node.accesskit_node().is_focused())
        .map(|node| node.accesskit_node().label().unwrap_or_default())
}

#[test]
fn tab_reaches_the_tabs_the_search_box_the_hits_and_the_product_in_order() {
    let mut harness = harness_with(pro_store(), AppState::default(), None);
    let hit = open_hit(&mut harness, 0);
    // From the first tab, once round the window.
    harness.get_by_label("Product").focus();
    harness.step();
    let mut order = vec![focused_name(&harness).unwrap()];
    for _ in 0..300 {
        harness.key_press(egui::Key::Tab);
        harness.step();
        let name = focused_name(&harness).unwrap_or_default();
        if name == order[0] {
            break;
        }
        order.push(name);
    }
    let place = |name: &str| {
        order
            .iter()
            .position(|reached| reached == name)
            .unwrap_or_else(|| panic!("Tab never reached {name:?}; it reached {order:?}"))
    };
    let tabs: Vec<usize> = View::ALL.iter().map(|view| place(view.label())).collect();
    assert!(tabs.windows(2).all(|pair| pair[0] < pair[1]), "{order:?}");
    let search = place("Search");
    let first_hit = place(&hit.title);
    let copy = place("Copy");
    assert!(
        tabs[6] < search && search < first_hit && first_hit < copy,
        "{order:?}"
    );

    // A hit reached with Tab opens with Enter, as a button does.
    let second = harness.state().search_results().unwrap().hits[1].clone();
    for _ in 0..order.len() {
        if focused_name(&harness).as_deref() == Some(second.title.as_str()) {
            break;
        }
        harness.key_press(egui::Key::Tab);
        harness.step();
    }
    assert_eq!(focused_name(&harness), Some(second.title.clone()));
    harness.key_press(egui::Key::Enter);
    step_until(&mut harness, "the hit opened with Enter", |h| {
        h.state().is_idle() && h.state().product().is_some_and(|p| p.id == second.id)
    });
}

#[test]
fn ctrl_plus_and_minus_zoom_and_the_zoom_is_kept() {
    let mut harness = harness_with(pro_store(), AppState::default(), None);
    assert!((harness.ctx.zoom_factor() - 1.0).abs() < 1e-6);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Plus);
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Plus);
    harness.step();
    harness.step();
    assert_eq!(harness.state().state.zoom.percent(), 120);
    assert!((harness.ctx.zoom_factor() - 1.2).abs() < 1e-6);
    assert!(harness.query_by_label("zoom 120 %").is_some());
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Minus);
    harness.step();
    harness.step();
    assert_eq!(harness.state().state.zoom.percent(), 110);

    // The state as eframe stores it, read back by a new window.
    let stored = serde_json::to_string(&harness.state().state).unwrap();
    let state: AppState = serde_json::from_str(&stored).unwrap();
    let mut again = harness_with(pro_store(), state, None);
    again.step();
    assert!((again.ctx.zoom_factor() - 1.1).abs() < 1e-6);
    // The button in the top bar (and Ctrl+0) go back to 100 %; clicked as a screen reader
    // does (the pointer's points are not the zoomed tree's pixels).
    again.get_by_label("zoom 110 %").click_accesskit();
    // egui applies a new zoom factor when the next frame begins.
    for _ in 0..3 {
        again.step();
    }
    assert!((again.ctx.zoom_factor() - 1.0).abs() < 1e-6);
    assert_eq!(again.state().state.zoom.percent(), 100);
    assert!(again.query_by_label_contains("zoom ").is_none());
}

/// A keyring that cannot be reached, as on a desktop without a Secret Service.
struct NoKeyring;

const PLATFORM_TEXT: &str = "Platform failure: zbus error: org.freedesktop.DBus.Error.\
    ServiceUnknown: The name org.freedesktop.secrets was not provided by any .service files";

impl KeyStore for NoKeyring {
    fn get(&self, _: &str) -> Result<Option<String>, KeyStoreError> {
        Ok(None)
    }

    fn set(&self, _: &str, _: &str) -> Result<(), KeyStoreError> {
        Err(KeyStoreError::Unavailable {
            detail: PLATFORM_TEXT.to_owned(),
        })
    }

    fn delete(&self, _: &str) -> Result<(), KeyStoreError> {
        Ok(())
    }
}

#[test]
fn the_keyring_message_says_it_once_with_the_platform_text_on_hover() {
    let mut harness = harness_with(Arc::new(NoKeyring), AppState::default(), None);
    click(&mut harness, "Settings");
    for tier in ["free", "pro"] {
        click(&mut harness, tier);
        step_until(&mut harness, "the status message", |h| {
            !h.state().status_messages().is_empty()
        });
    }
    let messages = harness.state().status_messages();
    assert_eq!(messages.len(), 1, "{messages:?}");
    let message = &messages[0];
    assert_eq!(
        message.text,
        "The key is used for this session only: no OS keyring reachable"
    );
    assert_eq!(message.detail, PLATFORM_TEXT);
    assert_eq!(message.repeats, 2);
    harness.step();
    // On screen: the sentence once (with the count), the platform's text only for the
    // screen reader and the tooltip.
    let line = harness
        .query_all_by_role(Role::Label)
        .find(|node| {
            node.accesskit_node()
                .value()
                .is_some_and(|value| value.starts_with("The key is used"))
        })
        .unwrap();
    let said = line.accesskit_node().value().unwrap();
    assert_eq!(said.matches("session only").count(), 1, "{said}");
    assert!(said.ends_with(PLATFORM_TEXT), "{said}");
}
