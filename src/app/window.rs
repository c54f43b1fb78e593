//! The eframe wiring: the native window, its icon and stored state, and [`App`] inside it.

use std::sync::Arc;

use super::{App, AppInit, AppState, Prepare, ScreenshotRequest, StartupStatus, images};
use crate::client::KeyStore;

/// A screenshot run: the state to show instead of the stored one, and where the PNG goes.
pub struct ScreenshotPlan {
    /// What to show (the view, the query, …); the stored state is neither read nor written.
    pub state: AppState,
    /// Where the PNG goes, and its outcome.
    pub request: ScreenshotRequest,
}

/// Opens the window and runs until it is closed. `prepare` builds the demo catalogue, starts
/// the local service over it and finishes `startup` with its base URL: run when the window
/// first needs the demo (not in KicksDB mode, nor against a remote server). `user_db` is the user's database (watchlist, portfolio,
/// alerts, history), opened once and shared by them.
#[allow(
    clippy::too_many_arguments,
    reason = "the window's parts, each handed over once by main"
)]
pub fn run(
    startup: StartupStatus,
    prepare: Prepare,
    runtime: tokio::runtime::Handle,
    key_store: Arc<dyn KeyStore>,
    screenshot: Option<ScreenshotPlan>,
    state_path: Option<std::path::PathBuf>,
    user_db: Option<std::path::PathBuf>,
    live: Option<super::LiveLauncher>,
) -> eframe::Result {
    let mut viewport = egui::ViewportBuilder::default()
        .with_title("Solescope")
        .with_app_id(APP_ID)
        .with_inner_size([1280.0, 800.0])
        .with_min_inner_size([640.0, 420.0]);
    if let Ok(icon) = eframe::icon_data::from_png_bytes(WINDOW_ICON_PNG) {
        viewport = viewport.with_icon(icon);
    }
    let options = eframe::NativeOptions {
        viewport,
        // A screenshot shows the given state at the default size, and must not overwrite the
        // user's stored window and state.
        persist_window: screenshot.is_none(),
        // Beside the demo catalogue, so the app's data is in one folder (eframe would otherwise
        // make another, named after the app id).
        persistence_path: state_path,
        ..Default::default()
    };
    eframe::run_native(
        "Solescope",
        options,
        Box::new(move |cc| {
            images::install(&cc.egui_ctx, runtime.clone());
            let startup = startup.with_start(prepare);
            let (state, screenshot) = match screenshot {
                Some(run) => (run.state, Some(run.request)),
                None => (
                    cc.storage
                        .and_then(|storage| eframe::get_value::<AppState>(storage, eframe::APP_KEY))
                        .unwrap_or_default(),
                    None,
                ),
            };
            let mut app = App::new(AppInit {
                runtime,
                key_store,
                startup,
                state,
                screenshot,
                user_db,
            });
            if let Some(live) = live {
                app = app.with_live_launcher(live);
            }
            Ok(Box::new(WindowApp(app)))
        }),
    )
}

/// The reverse-DNS id of the app: the Wayland app id, the desktop entry and metainfo names.
pub const APP_ID: &str = "io.github.solescope.Solescope";

/// The window icon.
const WINDOW_ICON_PNG: &[u8] = include_bytes!("../../assets/icon.png");

/// [`App`] in a native window: stores the state on exit, except in a screenshot run.
struct WindowApp(App);

impl eframe::App for WindowApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.0.ui(ui);
    }

    fn persist_egui_memory(&self) -> bool {
        self.0.screenshot.is_none()
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if self.0.screenshot.is_none() {
            eframe::set_value(storage, eframe::APP_KEY, &self.0.state);
        }
    }
}
