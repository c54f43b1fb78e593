//! Start-up: the progress of preparing the demo catalogue and the local service, shared between
//! the worker that does it and the window that shows it. The work starts when the window first
//! needs the demo ([`StartupStatus::start_once`]): a window fed by KicksDB or talking to a
//! remote server never builds the demo catalogue.

use std::sync::{Arc, Mutex, PoisonError};

/// Start-up progress shared between the worker that prepares the catalogue and the window.
#[derive(Debug, Clone, Default)]
pub struct StartupStatus {
    inner: Arc<Mutex<StartupState>>,
    /// The work that prepares the demo and its service, until it is started.
    start: Arc<Mutex<Option<PendingStart>>>,
    /// The retail storefronts the local service reads, shared with it (`main` hands the same
    /// value to both); Settings edits them.
    retailer_stores: crate::model::RetailerStores,
    /// The KicksDB budget's settings the in-process KicksDB service reads, shared with it
    /// (`main` hands the same value to both); Settings edits them.
    budget_settings: crate::model::budget::BudgetSettingsCell,
}

/// The work that prepares the demo catalogue and starts its service, given a function that
/// wakes the window; `main` gives it, the window runs it once.
pub type Prepare = Box<dyn FnOnce(Box<dyn Fn() + Send>) + Send>;

/// [`Prepare`], held until the window needs the demo.
struct PendingStart(Prepare);

impl std::fmt::Debug for PendingStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PendingStart")
    }
}

/// What start-up produced: the running local service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ready {
    /// The base URL of the in-process service.
    pub base_url: String,
    /// A sentence about the catalogue, for logs and the settings view.
    pub summary: String,
}

/// A snapshot of the start-up progress.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StartupState {
    /// What is happening, in a sentence for the user.
    pub message: String,
    /// Share of the work done, 0 to 1.
    pub fraction: f32,
    /// `None` while running; the outcome once finished.
    pub finished: Option<Result<Ready, String>>,
}

impl StartupStatus {
    /// A fresh status: nothing started.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A status already finished with the service at `base_url` (for tests and embedders).
    #[must_use]
    pub fn ready(base_url: impl Into<String>) -> Self {
        let status = Self::new();
        status.finish(Ok(Ready {
            base_url: base_url.into(),
            summary: String::new(),
        }));
        status
    }

    /// The same status sharing `stores` with the local service.
    #[must_use]
    pub fn with_retailer_stores(self, stores: crate::model::RetailerStores) -> Self {
        Self {
            retailer_stores: stores,
            ..self
        }
    }

    /// The retail storefronts shared with the local service.
    #[must_use]
    pub fn retailer_stores(&self) -> &crate::model::RetailerStores {
        &self.retailer_stores
    }

    /// The same status sharing the KicksDB budget's `settings` with the in-process service.
    #[must_use]
    pub fn with_budget_settings(self, settings: crate::model::budget::BudgetSettingsCell) -> Self {
        Self {
            budget_settings: settings,
            ..self
        }
    }

    /// The KicksDB budget's settings shared with the in-process service.
    #[must_use]
    pub fn budget_settings(&self) -> &crate::model::budget::BudgetSettingsCell {
        &self.budget_settings
    }

    /// The same status, with `prepare` run when the window first needs the demo
    /// ([`start_once`](Self::start_once)).
    #[must_use]
    pub fn with_start(self, prepare: Prepare) -> Self {
        *self.start.lock().unwrap_or_else(PoisonError::into_inner) = Some(PendingStart(prepare));
        self
    }

    /// Starts preparing the demo and its service, the first time only (`wake` wakes the
    /// window as it progresses); nothing when no work was given.
    pub fn start_once(&self, wake: Box<dyn Fn() + Send>) {
        let pending = self
            .start
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(PendingStart(prepare)) = pending {
            prepare(wake);
        }
    }

    /// Whether the demo's preparation was given and has started (or no work was given).
    #[must_use]
    pub fn started(&self) -> bool {
        self.start
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
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
    pub fn finish(&self, outcome: Result<Ready, String>) {
        self.update(|s| {
            s.fraction = 1.0;
            s.finished = Some(outcome);
        });
    }

    /// A copy of the current state.
    #[must_use]
    pub fn snapshot(&self) -> StartupState {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// The start-up screen: the demo catalogue being prepared, or why it could not be.
pub(super) fn startup_ui(ui: &mut egui::Ui, state: &StartupState) {
    ui.heading("Solescope");
    ui.label("Sneaker market dashboard");
    ui.add_space(12.0);
    match &state.finished {
        None | Some(Ok(_)) => {
            ui.label(&state.message);
            ui.add(
                egui::ProgressBar::new(state.fraction)
                    .show_percentage()
                    .animate(true),
            );
        }
        Some(Err(err)) => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("Could not start the demo service: {err}"),
            );
        }
    }
}
