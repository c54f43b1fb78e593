//! The Settings section of the KicksDB budget: the plan's monthly quota and the share Solescope
//! may use, what this month has spent (KicksDB's `X-Quota-Current` where it sends it, counted
//! otherwise), what the current settings will spend by the month's end, and a sentence when the
//! budget cannot carry the wished checks (they are spaced out, never silently stopped). Also the
//! switch for the headless monitor's systemd user service (alerts with the window closed).

use super::format;
use crate::model::budget::{BudgetSettings, BudgetStatus, interval_text};

/// What the user typed, kept between frames.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BudgetForm {
    /// The quota as typed (empty: not set).
    pub quota_text: String,
    /// The share in percent as typed.
    pub share_text: String,
    /// Whether the fields were filled from the saved settings.
    pub filled: bool,
}

impl BudgetForm {
    /// Fills the fields from `saved`, once.
    pub fn fill(&mut self, saved: BudgetSettings) {
        if self.filled {
            return;
        }
        self.quota_text = saved
            .monthly_quota
            .map(|q| q.to_string())
            .unwrap_or_default();
        self.share_text = saved.share_percent.to_string();
        self.filled = true;
    }

    /// The settings typed, or why they cannot be saved.
    ///
    /// # Errors
    /// A sentence naming the field that is not a number in its range.
    pub fn parsed(&self) -> Result<BudgetSettings, String> {
        let quota_text: String = self
            .quota_text
            .chars()
            .filter(|c| !matches!(c, ',' | ' ' | '_' | '\u{202f}'))
            .collect();
        let monthly_quota = if quota_text.is_empty() {
            None
        } else {
            Some(
                quota_text
                    .parse::<u64>()
                    .ok()
                    .filter(|q| *q > 0)
                    .ok_or_else(|| {
                        format!(
                            "the monthly quota must be a whole number of calls, not {:?}",
                            self.quota_text
                        )
                    })?,
            )
        };
        let share_percent = self
            .share_text
            .trim()
            .trim_end_matches('%')
            .trim()
            .parse::<u8>()
            .ok()
            .filter(|s| (1..=100).contains(s))
            .ok_or_else(|| {
                format!(
                    "the share must be a percentage from 1 to 100, not {:?}",
                    self.share_text
                )
            })?;
        Ok(BudgetSettings {
            monthly_quota,
            share_percent,
        })
    }
}

/// The systemd user service of the headless monitor, as the section shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MonitorService {
    /// Not offered (no systemd, or not Linux).
    Unavailable,
    /// Enabled (`true`) or not, as `systemctl --user is-enabled` said.
    Known(bool),
    /// Being changed or asked.
    Busy,
    /// The last change failed.
    Failed(String),
}

/// What the section shows.
#[derive(Debug, Clone, Copy)]
pub struct BudgetView<'a> {
    /// The source's budget as last read (`None`: not read yet, or a source without one).
    pub status: Option<&'a BudgetStatus>,
    /// Whether the connected source has a monthly budget at all.
    pub metered: bool,
    /// What the monitor's plan will have spent at the month's end.
    pub forecast_calls: Option<u64>,
    /// How often the alerts are checked now, in seconds.
    pub alert_every_secs: Option<u64>,
    /// Why checks are spaced out, when they are.
    pub plan_note: Option<&'a str>,
    /// A failed read or save.
    pub error: Option<&'a str>,
    /// The headless monitor's service.
    pub service: &'a MonitorService,
}

/// What the user asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BudgetAction {
    /// Nothing.
    None,
    /// Save these settings.
    Save(BudgetSettings),
    /// Turn the headless monitor's service on (`true`) or off.
    MonitorService(bool),
}

/// The section.
pub fn budget_ui(ui: &mut egui::Ui, form: &mut BudgetForm, view: &BudgetView<'_>) -> BudgetAction {
    let mut action = BudgetAction::None;
    ui.add_space(16.0);
    ui.strong("KicksDB budget");
    ui.weak(
        "A KicksDB key has a monthly quota of calls. Solescope counts every call before it is \
         sent and sends none past its share; checks that do not fit are spaced out, not dropped.",
    );
    egui::Grid::new("kicksdb budget")
        .num_columns(2)
        .spacing([16.0, 6.0])
        .show(ui, |ui| {
            let quota = ui.label("Monthly quota of your plan");
            ui.add(
                egui::TextEdit::singleline(&mut form.quota_text)
                    .hint_text("not set: 1,000 assumed")
                    .desired_width(120.0),
            )
            .labelled_by(quota.id)
            .on_hover_text("Calls a month your KicksDB plan allows (see your KicksDB dashboard)");
            ui.end_row();
            let share = ui.label("Share Solescope may use (%)");
            ui.add(egui::TextEdit::singleline(&mut form.share_text).desired_width(60.0))
                .labelled_by(share.id);
            ui.end_row();
        });
    let parsed = form.parsed();
    ui.horizontal(|ui| {
        let save = ui.add_enabled(parsed.is_ok(), egui::Button::new("Save budget"));
        if save.clicked()
            && let Ok(settings) = &parsed
        {
            action = BudgetAction::Save(*settings);
        }
        if let Err(why) = &parsed {
            ui.colored_label(ui.visuals().warn_fg_color, why);
        }
    });
    if !view.metered {
        ui.weak("The demo has no monthly budget: nothing is counted.");
    } else if let Some(status) = view.status {
        let spent = format::count(status.spent);
        let allowance = format::count(status.allowance);
        let month = status.spend.month.as_str();
        ui.label(format!(
            "This month ({month}): {spent} calls spent of Solescope's {allowance}; {} left until {}.",
            format::count(status.calls_left),
            status.month_ends_at
        ));
        ui.weak(match status.spend.reported {
            Some(reported) => format!(
                "KicksDB counts {} requests of this key this month (X-Quota-Current); Solescope sent {}.",
                format::count(reported),
                format::count(status.spend.counted)
            ),
            None => format!(
                "KicksDB has not sent its count this month: {} calls counted by Solescope.",
                format::count(status.spend.counted)
            ),
        });
        if let Some(forecast) = view.forecast_calls {
            ui.label(format!(
                "At the current settings the month will have spent {} by its end.",
                format::count(forecast)
            ));
        }
        if let Some(every) = view.alert_every_secs {
            ui.label(format!(
                "Each alert is checked every {}.",
                interval_text(every)
            ));
        }
        if let Some(note) = view.plan_note {
            ui.colored_label(ui.visuals().warn_fg_color, note);
        }
        if let Some(note) = &status.note {
            ui.colored_label(ui.visuals().warn_fg_color, note);
        }
        if status.shared {
            ui.weak("The count is shared by every replica of the server (Redis).");
        }
    } else {
        ui.weak("Reading this month's count…");
    }
    if let Some(error) = view.error {
        ui.colored_label(ui.visuals().error_fg_color, error);
    }
    match view.service {
        MonitorService::Unavailable => {}
        MonitorService::Known(enabled) => {
            let mut on = *enabled;
            if ui
                .checkbox(&mut on, "Check alerts while the window is closed")
                .on_hover_text(
                    "Runs `solescope monitor` as a systemd user service at login \
                     (systemctl --user enable --now solescope-monitor.service)",
                )
                .changed()
            {
                action = BudgetAction::MonitorService(on);
            }
        }
        MonitorService::Busy => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Asking systemd…");
            });
        }
        MonitorService::Failed(why) => {
            ui.colored_label(ui.visuals().error_fg_color, why);
        }
    }
    action
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_reads_a_quota_with_separators_and_refuses_what_is_not_a_number() {
        let mut form = BudgetForm::default();
        form.fill(BudgetSettings::default());
        assert_eq!(form.quota_text, "");
        assert_eq!(form.parsed(), Ok(BudgetSettings::default()));
        form.quota_text = "10,000".into();
        form.share_text = "50 %".into();
        assert_eq!(
            form.parsed(),
            Ok(BudgetSettings {
                monthly_quota: Some(10_000),
                share_percent: 50
            })
        );
        form.share_text = "150".into();
        assert!(form.parsed().unwrap_err().contains("1 to 100"));
        form.share_text = "80".into();
        form.quota_text = "lots".into();
        assert!(form.parsed().unwrap_err().contains("whole number"));
    }

    #[test]
    fn the_section_shows_spent_forecast_and_why_checks_are_spaced_out() {
        use egui_kittest::Harness;
        use egui_kittest::kittest::Queryable as _;
        let status = BudgetStatus {
            source: "kicksdb".into(),
            settings: BudgetSettings {
                monthly_quota: Some(10_000),
                share_percent: 100,
            },
            allowance: 10_000,
            spend: crate::model::budget::MonthSpend {
                month: "2026-12".into(),
                counted: 1_234,
                reported: Some(1_300),
                counted_at_report: 1_200,
            },
            spent: 1_334,
            calls_left: 8_666,
            month_ends_at: "2027-01-01T00:00:00Z".into(),
            secs_left: 86_400,
            shared: false,
            note: None,
        };
        let service = MonitorService::Known(false);
        let mut form = BudgetForm {
            quota_text: "10000".into(),
            share_text: "100".into(),
            filled: true,
        };
        let mut clicked = None;
        let mut harness = Harness::new_ui(|ui| {
            let view = BudgetView {
                status: Some(&status),
                metered: true,
                forecast_calls: Some(9_950),
                alert_every_secs: Some(330),
                plan_note: Some("checks are spaced out to fit"),
                error: None,
                service: &service,
            };
            let action = budget_ui(ui, &mut form, &view);
            if action != BudgetAction::None {
                clicked = Some(action);
            }
        });
        harness.run();
        harness.get_by_label_contains("1,334 calls spent of Solescope's 10,000");
        harness.get_by_label_contains("will have spent 9,950 by its end");
        harness.get_by_label_contains("Each alert is checked every 6 min");
        harness.get_by_label_contains("checks are spaced out to fit");
        harness.get_by_label("Save budget").click();
        harness.run();
        drop(harness);
        assert_eq!(
            clicked,
            Some(BudgetAction::Save(BudgetSettings {
                monthly_quota: Some(10_000),
                share_percent: 100
            }))
        );
    }
}
