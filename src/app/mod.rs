//! The eframe application. Until the dashboard lands this is the start-up window: it shows the
//! demo catalogue being prepared (built on first run, with a progress bar) and then its state.
//!
//! The window never touches the catalogue itself: `main` prepares it on a worker thread and
//! reports through [`StartupStatus`].

use std::sync::{Arc, Mutex, PoisonError};

/// Start-up progress shared between the worker that prepares the catalogue and the window.
#[derive(Debug, Clone, Default)]
pub struct StartupStatus {
    inner: Arc<Mutex<StartupState>>,
}

/// A snapshot of the start-up progress.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StartupState {
    /// What is happening, in a sentence for the user.
    pub message: String,
    /// Share of the work done, 0 to 1.
    pub fraction: f32,
    /// `None` while running; the outcome once finished.
    pub finished: Option<Result<String, String>>,
}

impl StartupStatus {
    /// A fresh status: nothing started.
    pub fn new() -> Self {
        Self::default()
    }

    fn update(&self, f: impl FnOnce(&mut StartupState)) {
        // A poisoned lock only means a worker panicked mid-update; the data is still usable.
        let mut state = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut state);
    }

    /// Replaces the message.
    pub fn set_message(&self, message: &str) {
        self.update(|s| message.clone_into(&mut s.message));
    }

    /// Sets the share of work done.
    pub fn set_progress(&self, fraction: f32) {
        self.update(|s| s.fraction = fraction.clamp(0.0, 1.0));
    }

    /// Marks the start-up finished.
    pub fn finish(&self, outcome: Result<String, String>) {
        self.update(|s| {
            s.fraction = 1.0;
            s.finished = Some(outcome);
        });
    }

    /// A copy of the current state.
    pub fn snapshot(&self) -> StartupState {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Starts the work that prepares the app, given a function that wakes the UI.
pub type Prepare = Box<dyn FnOnce(Box<dyn Fn() + Send>)>;

/// The application.
pub struct SolescopeApp {
    status: StartupStatus,
}

impl SolescopeApp {
    /// Builds the app around a start-up status.
    pub fn new(status: StartupStatus) -> Self {
        Self { status }
    }
}

impl eframe::App for SolescopeApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let state = self.status.snapshot();
        egui::CentralPanel::default().show(ui, |ui| {
            ui.heading("Solescope");
            ui.label("Sneaker market dashboard");
            ui.add_space(12.0);
            match &state.finished {
                None => {
                    ui.label(&state.message);
                    ui.add(
                        egui::ProgressBar::new(state.fraction)
                            .show_percentage()
                            .animate(true),
                    );
                }
                Some(Ok(summary)) => {
                    ui.label("Demo catalogue ready.");
                    ui.weak(summary);
                }
                Some(Err(err)) => {
                    ui.colored_label(
                        ui.visuals().error_fg_color,
                        format!("Could not prepare the demo catalogue: {err}"),
                    );
                }
            }
        });
    }
}

/// Opens the window and runs until it is closed.
pub fn run(status: StartupStatus, prepare: Prepare) -> eframe::Result {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Solescope")
            .with_inner_size([1200.0, 800.0])
            .with_min_inner_size([640.0, 420.0]),
        ..Default::default()
    };
    eframe::run_native(
        "Solescope",
        options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            prepare(Box::new(move || ctx.request_repaint()));
            Ok(Box::new(SolescopeApp::new(status)))
        }),
    )
}
