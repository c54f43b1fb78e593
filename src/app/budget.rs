//! The app's side of the KicksDB budget: the settings kept in the user database are loaded once
//! into the settings shared with the in-process KicksDB service (which reads them before every
//! call), Settings' changes are written there and applied at once; the service's count of this
//! month (`GET /api/v2/budget`) and the monitor's plan (how often each alert is checked, what
//! the month will have spent) are shown beside them. Also the switch of the headless monitor's
//! systemd user service.

use std::time::{Duration, Instant};

use poll_promise::Promise;

use super::App;
use super::requested::Requested;
use crate::model::budget::{BudgetSettings, BudgetStatus};
use crate::ui;
use crate::ui::budget::{BudgetAction, BudgetForm, BudgetView, MonitorService};
use crate::userdb::UserDbError;

/// How often the month's count is read again while Settings is shown.
const STATUS_EVERY: Duration = Duration::from_secs(15);

/// The systemd user unit of `solescope monitor` (`packaging/linux/`).
const MONITOR_UNIT: &str = "solescope-monitor.service";

/// The budget's state in the app.
pub(super) struct BudgetState {
    form: BudgetForm,
    /// The settings read from the user database (`None` until read).
    saved: Option<BudgetSettings>,
    loading: Option<Promise<Result<BudgetSettings, UserDbError>>>,
    saving: Option<(BudgetSettings, Promise<Result<(), UserDbError>>)>,
    status: Requested<Option<BudgetStatus>>,
    status_asked_at: Option<Instant>,
    error: Option<String>,
    service: MonitorService,
    service_job: Option<Promise<Result<bool, String>>>,
}

impl Default for BudgetState {
    fn default() -> Self {
        Self {
            form: BudgetForm::default(),
            saved: None,
            loading: None,
            saving: None,
            status: Requested::default(),
            status_asked_at: None,
            error: None,
            // Asked the first time Settings is shown.
            service: MonitorService::Busy,
            service_job: None,
        }
    }
}

/// `systemctl --user <args>` for the monitor's unit: whether it succeeded, or why not.
fn systemctl(args: &[&str]) -> Result<bool, String> {
    let output = std::process::Command::new("systemctl")
        .arg("--user")
        .args(args)
        .arg(MONITOR_UNIT)
        .output()
        .map_err(|err| format!("systemctl could not run: {err}"))?;
    if output.status.success() {
        return Ok(true);
    }
    let said = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    if args.first() == Some(&"is-enabled") {
        // Not enabled (or not installed): `is-enabled` says so with a failing status.
        return if said.contains("No such file") || said.contains("not found") {
            Err(
                "the monitor's service is not installed (install the .deb, or see the README)"
                    .into(),
            )
        } else {
            Ok(false)
        };
    }
    Err(format!("systemctl --user {}: {said}", args.join(" ")))
}

impl App {
    /// Per frame: loads the saved settings once into the settings the service reads, and
    /// applies a finished write.
    pub(super) fn budget_tick(&mut self) {
        let shared = self.startup.budget_settings().clone();
        let db = self.alerts_db();
        let budget = &mut self.budget;
        if budget.saved.is_none()
            && budget.loading.is_none()
            && let Some(db) = &db
        {
            budget.loading = Some(db.run(|db| db.budget_settings()));
        }
        if let Some(loading) = budget.loading.take() {
            match loading.try_take() {
                Ok(Ok(settings)) => {
                    shared.set(settings);
                    budget.saved = Some(settings);
                    budget.form.fill(settings);
                }
                Ok(Err(err)) => {
                    budget.error = Some(format!("{err:#}"));
                    // The defaults stand; not asked again every frame.
                    budget.saved = Some(shared.get());
                }
                Err(still) => budget.loading = Some(still),
            }
        }
        if let Some((settings, saving)) = budget.saving.take() {
            match saving.try_take() {
                Ok(Ok(())) => {
                    shared.set(settings);
                    budget.saved = Some(settings);
                    budget.error = None;
                    // The count's "left" changes with the settings: read it again.
                    budget.status_asked_at = None;
                }
                Ok(Err(err)) => budget.error = Some(format!("the budget was not saved: {err:#}")),
                Err(still) => budget.saving = Some((settings, still)),
            }
        }
        if let Some(job) = budget.service_job.take() {
            match job.try_take() {
                Ok(Ok(enabled)) => budget.service = MonitorService::Known(enabled),
                Ok(Err(why)) if why.contains("not installed") || why.contains("could not run") => {
                    budget.service = MonitorService::Unavailable;
                }
                Ok(Err(why)) => budget.service = MonitorService::Failed(why),
                Err(still) => budget.service_job = Some(still),
            }
        }
        budget.status.poll();
    }

    /// The Settings section of the budget, and what its answer does.
    pub(super) fn budget_settings_ui(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        let due = self
            .budget
            .status_asked_at
            .is_none_or(|at| at.elapsed() >= STATUS_EVERY);
        if due
            && !self.budget.status.is_pending()
            && let Some(client) = self.client.clone()
        {
            self.budget.status_asked_at = Some(Instant::now());
            self.budget
                .status
                .spawn(&self.runtime, ctx, async move { client.budget().await });
        }
        if cfg!(target_os = "linux")
            && self.budget.service == MonitorService::Busy
            && self.budget.service_job.is_none()
        {
            self.budget.service_job = Some(self.systemctl_job(&["is-enabled", "--quiet"]));
        }
        let plan = self.alerts.monitor_plan();
        let status = self.budget.status.value().and_then(Option::as_ref);
        let metered = !matches!(self.budget.status.value(), Some(None));
        let view = BudgetView {
            status,
            metered,
            forecast_calls: plan.as_ref().and_then(|p| p.forecast_calls),
            alert_every_secs: plan.as_ref().and_then(|p| p.alert_every_secs),
            plan_note: plan.as_ref().and_then(|p| p.note.as_deref()),
            error: self.budget.error.as_deref().or_else(|| {
                self.budget
                    .status
                    .error()
                    .map(|_| "the month's count could not be read")
            }),
            service: &self.budget.service,
        };
        let action = ui::budget::budget_ui(ui, &mut self.budget.form, &view);
        match action {
            BudgetAction::None => {}
            BudgetAction::Save(settings) => {
                if let Some(db) = self.alerts_db() {
                    let write = db.run(move |db| db.set_budget_settings(settings));
                    self.budget.saving = Some((settings, write));
                } else {
                    // No user database (a screenshot's): in force for this run only.
                    self.startup.budget_settings().set(settings);
                    self.budget.error =
                        Some("no user database: the budget holds until the window closes".into());
                }
            }
            BudgetAction::MonitorService(on) => {
                let args: &[&str] = if on {
                    &["enable", "--now"]
                } else {
                    &["disable", "--now"]
                };
                self.budget.service = MonitorService::Busy;
                let job = self.systemctl_job(args);
                self.budget.service_job = Some(job);
            }
        }
    }

    /// `systemctl --user` off the UI thread; its answer as a promise. After a change, whether
    /// the unit is enabled now.
    fn systemctl_job(&self, args: &[&str]) -> Promise<Result<bool, String>> {
        let (sender, promise) = Promise::new();
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        self.runtime.spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let outcome = match args.first() {
                Some(&"is-enabled") => systemctl(&args),
                _ => systemctl(&args).and_then(|_| systemctl(&["is-enabled", "--quiet"])),
            };
            sender.send(outcome);
        });
        promise
    }
}
