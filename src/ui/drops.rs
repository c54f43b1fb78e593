//! The *Drops* tab: this week and the next ten, week by week, each drop with its day and time
//! in the user's zone and a countdown, its retail, how it drops (with a launch's mechanics on
//! hover), the premium estimate with its band and basis (or why there is none) and a link to
//! the backtest's published figures, its sources, and a star that sets a reminder. Filters by
//! brand and by the user's sizes. Draws what it is given; the app fetches and keeps.

use std::fmt::Write as _;

use chrono::{DateTime, Datelike as _, Local, NaiveDate, Utc};

use super::fetched::Fetched;
use crate::model::releases::{Release, ReleasesAnswer, method_words};

/// Where the backtest's figures are published (the premium estimate's accuracy).
pub const BACKTEST_LINK: &str = concat!(
    env!("CARGO_PKG_REPOSITORY"),
    "/blob/main/docs/premium-backtest.md"
);

/// Weeks the tab shows: this one and the next ten.
pub const WEEKS: u32 = 11;

/// What the tab shows.
pub struct DropsView<'a> {
    /// The calendar, as fetched.
    pub calendar: Fetched<'a, ReleasesAnswer>,
    /// Now.
    pub now: DateTime<Utc>,
    /// Whether a drop is starred.
    pub starred: &'a dyn Fn(&Release) -> bool,
    /// The user's sizes (US).
    pub my_sizes: &'a [String],
    /// Minutes before a drop its reminder comes.
    pub remind_minutes: u32,
    /// An error of the user database, shown inline.
    pub error: Option<&'a str>,
}

/// What the user can change in the tab.
pub struct DropsFilters<'a> {
    /// Only this brand.
    pub brand: &'a mut Option<String>,
    /// Only drops in one of the user's sizes.
    pub my_sizes_only: &'a mut bool,
    /// The sizes field as typed (`9, 9.5, 10`).
    pub sizes_draft: &'a mut String,
}

/// What the user asked for.
#[derive(Debug, Default)]
pub struct DropsOutput {
    /// Open this catalogue product in the product view.
    pub open: Option<String>,
    /// Star this drop (a reminder before it opens).
    pub star: Option<Release>,
    /// Unstar this drop.
    pub unstar: Option<Release>,
    /// Fetch again.
    pub retry: bool,
    /// Save these as the user's sizes.
    pub save_sizes: Option<Vec<String>>,
}

/// The Monday of `day`'s week.
#[must_use]
pub fn week_start(day: NaiveDate) -> NaiveDate {
    day - chrono::Days::new(u64::from(day.weekday().num_days_from_monday()))
}

/// The time until `opens` from `now` in words: `in 2 d 4 h`, `in 3 h 10 min`, `in 12 min`,
/// `opening now`, `opened 2 h ago`.
#[must_use]
pub fn countdown(now: DateTime<Utc>, opens: DateTime<Utc>) -> String {
    let minutes = (opens - now).num_minutes();
    let words = |minutes: i64| {
        let (days, hours, mins) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
        if days > 0 {
            format!("{days} d {hours} h")
        } else if hours > 0 {
            format!("{hours} h {mins} min")
        } else {
            format!("{mins} min")
        }
    };
    match minutes {
        1.. => format!("in {}", words(minutes)),
        0 => "opening now".to_owned(),
        _ => format!("opened {} ago", words(-minutes)),
    }
}

/// When `release` opens: its time, else 00:00 UTC of its day; and whether the time is known.
#[must_use]
pub fn opens(release: &Release) -> Option<(DateTime<Utc>, bool)> {
    if let Some(at) = release
        .starts_at
        .as_deref()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
    {
        return Some((at.with_timezone(&Utc), true));
    }
    let day = NaiveDate::parse_from_str(&release.release_date, "%Y-%m-%d").ok()?;
    Some((day.and_hms_opt(0, 0, 0)?.and_utc(), false))
}

/// The user's sizes from what was typed: numbers separated by commas or spaces.
#[must_use]
pub fn sizes_from_text(text: &str) -> Vec<String> {
    let mut sizes: Vec<String> = Vec::new();
    for part in text.split([',', ' ', ';']).map(str::trim) {
        if let Ok(number) = part.parse::<f64>()
            && (1.0..=20.0).contains(&number)
        {
            let size = if number.fract() == 0.0 {
                format!("{number:.0}")
            } else {
                format!("{number}")
            };
            if !sizes.contains(&size) {
                sizes.push(size);
            }
        }
    }
    sizes
}

/// Whether `release` passes the filters.
#[must_use]
pub fn shown(release: &Release, brand: Option<&str>, my_sizes: Option<&[String]>) -> bool {
    brand.is_none_or(|b| release.brand.eq_ignore_ascii_case(b))
        && my_sizes.is_none_or(|sizes| release.sizes.iter().any(|s| sizes.contains(s)))
}

/// The *Drops* tab.
pub fn drops_ui(
    ui: &mut egui::Ui,
    filters: &mut DropsFilters<'_>,
    view: &DropsView<'_>,
) -> DropsOutput {
    let mut output = DropsOutput::default();
    ui.heading("Drops: this week and the next ten");
    if let Some(error) = view.error {
        ui.colored_label(ui.visuals().error_fg_color, error);
    }
    let answer = match view.calendar {
        Fetched::NotYetRequested => {
            ui.label("Not asked yet.");
            return output;
        }
        Fetched::Failed(err) => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("The calendar could not be read: {}", err.user_text()),
            );
            if ui.button("Retry").clicked() {
                output.retry = true;
            }
            return output;
        }
        Fetched::Pending { previous: None } => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Reading the calendar…");
            });
            return output;
        }
        Fetched::Pending {
            previous: Some(answer),
        }
        | Fetched::Completed(answer) => answer,
    };
    filters_ui(ui, filters, answer, view, &mut output);
    sources_ui(ui, answer, view.calendar.is_pending());
    ui.separator();
    let my_sizes = (*filters.my_sizes_only).then_some(view.my_sizes);
    let shown_releases: Vec<&Release> = answer
        .releases
        .iter()
        .filter(|r| shown(r, filters.brand.as_deref(), my_sizes))
        .collect();
    if shown_releases.is_empty() {
        ui.label("No drop in these weeks with these filters.");
        return output;
    }
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let mut week: Option<NaiveDate> = None;
            for (index, release) in shown_releases.iter().enumerate() {
                let Some((opens_at, timed)) = opens(release) else {
                    continue;
                };
                let local = opens_at.with_timezone(&Local);
                let day = if timed {
                    local.date_naive()
                } else {
                    NaiveDate::parse_from_str(&release.release_date, "%Y-%m-%d")
                        .unwrap_or_else(|_| local.date_naive())
                };
                if week != Some(week_start(day)) {
                    week = Some(week_start(day));
                    ui.add_space(6.0);
                    ui.strong(format!("Week of {}", week_start(day).format("%a %d %b %Y")));
                }
                ui.push_id(index, |ui| {
                    release_row_ui(ui, release, view, (local, timed, day), &mut output);
                });
            }
        });
    output
}

fn filters_ui(
    ui: &mut egui::Ui,
    filters: &mut DropsFilters<'_>,
    answer: &ReleasesAnswer,
    view: &DropsView<'_>,
    output: &mut DropsOutput,
) {
    let mut brands: Vec<&str> = answer
        .releases
        .iter()
        .map(|r| r.brand.as_str())
        .filter(|b| !b.is_empty())
        .collect();
    brands.sort_unstable();
    brands.dedup();
    ui.horizontal_wrapped(|ui| {
        let brand_label = ui.label("Brand:");
        egui::ComboBox::from_id_salt("drops_brand")
            .selected_text(filters.brand.as_deref().unwrap_or("all"))
            .show_ui(ui, |ui| {
                ui.selectable_value(filters.brand, None, "all");
                for brand in &brands {
                    ui.selectable_value(filters.brand, Some((*brand).to_owned()), *brand);
                }
            })
            .response
            .labelled_by(brand_label.id);
        ui.separator();
        let label = if view.my_sizes.is_empty() {
            "My sizes only (none saved)".to_owned()
        } else {
            format!("My sizes only ({})", view.my_sizes.join(", "))
        };
        ui.checkbox(filters.my_sizes_only, label);
        let sizes_label = ui.label("My sizes (US):");
        ui.add(
            egui::TextEdit::singleline(filters.sizes_draft)
                .desired_width(120.0)
                .hint_text("9, 9.5, 10"),
        )
        .labelled_by(sizes_label.id);
        if ui.button("Save sizes").clicked() {
            output.save_sizes = Some(sizes_from_text(filters.sizes_draft));
        }
        ui.separator();
        if ui.button("Refresh").clicked() {
            output.retry = true;
        }
    });
}

fn sources_ui(ui: &mut egui::Ui, answer: &ReleasesAnswer, pending: bool) {
    ui.horizontal_wrapped(|ui| {
        if pending {
            ui.spinner();
        }
        ui.weak(format!(
            "{} drops, as of {}.",
            answer.total,
            answer.as_of.replace('T', " ").trim_end_matches('Z')
        ));
        for source in &answer.sources {
            let mut text = format!("{} {}: {}", source.kind, source.name, source.releases);
            if let Some(at) = &source.read_at {
                let _ = write!(text, " (read {})", at.replace('T', " "));
            }
            let label = ui.weak(text);
            if let Some(note) = &source.note {
                label.on_hover_text(note);
            }
        }
    });
    match &answer.model.note {
        Some(note) => {
            ui.weak(format!("Premium estimates: {note}."));
        }
        None => {
            ui.weak(format!(
                "Premium estimates from {} releases before {}.",
                answer.model.releases, answer.model.fitted_before
            ));
        }
    }
}

/// One drop's row.
fn release_row_ui(
    ui: &mut egui::Ui,
    release: &Release,
    view: &DropsView<'_>,
    (local, timed, day): (DateTime<Local>, bool, NaiveDate),
    output: &mut DropsOutput,
) {
    ui.horizontal_wrapped(|ui| {
        let starred = (view.starred)(release);
        let star = ui
            .selectable_label(starred, if starred { "★" } else { "☆" })
            .on_hover_text(if starred {
                "Starred: a reminder comes before it opens. Click to unstar."
            } else {
                "Star: a reminder before it opens"
            });
        if star.clicked() {
            if starred {
                output.unstar = Some(release.clone());
            } else {
                output.star = Some(release.clone());
            }
        }
        let when = if timed {
            local.format("%a %d %b %H:%M").to_string()
        } else {
            day.format("%a %d %b").to_string()
        };
        ui.monospace(when);
        if let Some((opens_at, _)) = opens(release) {
            ui.weak(countdown(view.now, opens_at));
        }
        match &release.product_id {
            Some(id) => {
                if ui
                    .link(&release.title)
                    .on_hover_text("Open it in the product view")
                    .clicked()
                {
                    output.open = Some(id.clone());
                }
            }
            None => {
                ui.label(&release.title);
            }
        }
        ui.weak(&release.style_code);
        match release.retail_price {
            Some(price) => ui.label(format!("retail {price:.2} {}", release.currency)),
            None => ui.weak("retail not given"),
        };
        method_ui(ui, release);
        estimate_ui(ui, release);
        for source in &release.sources {
            if source.link.starts_with("http") {
                ui.hyperlink_to(format!("{} ↗", source.kind), &source.link)
                    .on_hover_text(format!("{}: {}", source.name, source.link));
            } else {
                ui.weak(&source.kind);
            }
        }
        if starred {
            ui.weak(format!("reminder {} min before", view.remind_minutes));
        }
    });
}

fn method_ui(ui: &mut egui::Ui, release: &Release) {
    let Some(method) = &release.method else {
        ui.weak("method unknown");
        return;
    };
    let label = ui.strong(method_words(method));
    if let Some(m) = &release.mechanics {
        let sizes: Vec<String> = m
            .sizes
            .iter()
            .map(|s| format!("{} {}", s.size, s.stock_level))
            .collect();
        label.on_hover_text(format!(
            "{} {} ({}), opens {}; {} {}; {}; sizes: {}",
            m.source.to_uppercase(),
            m.country,
            m.method_code,
            m.starts_at,
            m.msrp
                .map_or_else(|| "no MSRP".to_owned(), |p| format!("MSRP {p:.2}")),
            m.currency,
            m.account_terms(),
            sizes.join(", ")
        ));
    }
}

fn estimate_ui(ui: &mut egui::Ui, release: &Release) {
    match (&release.estimate, &release.no_estimate) {
        (Some(estimate), _) => {
            ui.label(format!(
                "premium {:+.0}% ({:+.0}% to {:+.0}%)",
                estimate.premium_pct, estimate.low_pct, estimate.high_pct
            ))
            .on_hover_text(format!(
                "{}; {} releases before {}; the band holds {:.0}% of actual premiums in the backtest",
                estimate.basis.summary,
                estimate.basis.releases,
                estimate.basis.fitted_before,
                estimate.basis.band_coverage * 100.0
            ));
            ui.hyperlink_to("backtest", BACKTEST_LINK)
                .on_hover_text("How accurate the estimates were on the 2023 snapshot");
        }
        (None, Some(why)) => {
            ui.weak(why);
        }
        (None, None) => {
            ui.weak("no estimate");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_time::at;

    #[test]
    fn countdowns_in_days_hours_and_minutes() {
        let now = at("2026-12-01T12:00:00Z");
        assert_eq!(countdown(now, at("2026-12-03T16:30:00Z")), "in 2 d 4 h");
        assert_eq!(countdown(now, at("2026-12-01T15:10:00Z")), "in 3 h 10 min");
        assert_eq!(countdown(now, at("2026-12-01T12:12:00Z")), "in 12 min");
        assert_eq!(countdown(now, at("2026-12-01T12:00:30Z")), "opening now");
        assert_eq!(
            countdown(now, at("2026-12-01T10:00:00Z")),
            "opened 2 h 0 min ago"
        );
    }

    #[test]
    fn sizes_typed_and_weeks() {
        assert_eq!(sizes_from_text("9, 9.5 10.0;x, 44"), ["9", "9.5", "10"]);
        let day = NaiveDate::from_ymd_opt(2026, 12, 3).unwrap();
        assert_eq!(
            week_start(day),
            NaiveDate::from_ymd_opt(2026, 11, 30).unwrap()
        );
    }
}
