//! The release calendar written out: a table for a person, CSV for a script, and an iCalendar
//! file (RFC 5545, through the `icalendar` crate) that any calendar app opens, one event per
//! drop with its start and a link. Pure: the caller fetched the calendar
//! (`Client::releases_all`) and writes the text where it wants.

use std::fmt::Write as _;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use icalendar::{Calendar, Component, Event, EventLike};

use crate::model::releases::{Release, ReleasesAnswer, method_words};

/// How long a timed drop's event lasts in a calendar app (the notes give no end).
const EVENT_MINUTES: i64 = 60;

/// When `release` opens: its time, else its day.
#[must_use]
pub fn starts(release: &Release) -> (NaiveDate, Option<DateTime<Utc>>) {
    let time = release
        .starts_at
        .as_deref()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc));
    let day = NaiveDate::parse_from_str(&release.release_date, "%Y-%m-%d")
        .ok()
        .or_else(|| time.map(|t| t.date_naive()))
        .unwrap_or_default();
    (day, time)
}

/// The page a drop links to: the launch's or the catalogue's page, else a store's.
#[must_use]
pub fn link(release: &Release) -> Option<&str> {
    let by = |kind: &str| {
        release
            .sources
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.link.as_str())
            .find(|link| link.starts_with("http"))
    };
    by("snkrs")
        .or_else(|| by("catalogue"))
        .or_else(|| by("store"))
}

/// The retail price as text (`$215.00 USD`), or `—`.
fn retail(release: &Release) -> String {
    release.retail_price.map_or_else(
        || "—".to_owned(),
        |price| format!("{price:.2} {}", release.currency),
    )
}

/// The estimate as text (`+42% (12% to 80%), 1,204 releases`), or why there is none.
#[must_use]
pub fn estimate_text(release: &Release) -> String {
    match (&release.estimate, &release.no_estimate) {
        (Some(e), _) => format!(
            "{:+.0}% ({:+.0}% to {:+.0}%), {} releases",
            e.premium_pct, e.low_pct, e.high_pct, e.basis.releases
        ),
        (None, Some(why)) => why.clone(),
        (None, None) => "no estimate".to_owned(),
    }
}

/// The method in words, or `—`.
fn method(release: &Release) -> &str {
    release.method.as_deref().map_or("—", method_words)
}

/// The sources' names joined (`catalogue, snkrs, store`).
fn source_kinds(release: &Release) -> String {
    let mut kinds: Vec<&str> = Vec::new();
    for source in &release.sources {
        if !kinds.contains(&source.kind.as_str()) {
            kinds.push(&source.kind);
        }
    }
    kinds.join(", ")
}

/// When a drop opens, in `zone` (`Sat 05 Dec 10:00`), or its day.
fn when_in<Z: TimeZone>(release: &Release, zone: &Z) -> String
where
    Z::Offset: std::fmt::Display,
{
    match starts(release) {
        (_, Some(time)) => time
            .with_timezone(zone)
            .format("%a %d %b %H:%M")
            .to_string(),
        (day, None) => day.format("%a %d %b").to_string(),
    }
}

/// A table for a person: one line a drop, times in `zone`.
#[must_use]
pub fn releases_table<Z: TimeZone>(answer: &ReleasesAnswer, zone: &Z) -> String
where
    Z::Offset: std::fmt::Display,
{
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<16} {:<44} {:<14} {:>12} {:<24} {:<34} sources",
        "when", "title", "style code", "retail", "method", "premium estimate"
    );
    for release in &answer.releases {
        let title: String = release.title.chars().take(44).collect();
        let _ = writeln!(
            out,
            "{:<16} {:<44} {:<14} {:>12} {:<24} {:<34} {}",
            when_in(release, zone),
            title,
            release.style_code,
            retail(release),
            method(release),
            estimate_text(release),
            source_kinds(release)
        );
    }
    let _ = writeln!(
        out,
        "{} drops from {} to {} (as of {}); estimates: {}",
        answer.total,
        answer.from,
        answer.until,
        answer.as_of,
        answer.model.note.clone().unwrap_or_else(|| format!(
            "premium model fitted on {} releases before {}",
            answer.model.releases, answer.model.fitted_before
        ))
    );
    out
}

/// CSV for a script: one line a drop, times in UTC, a header first.
///
/// # Errors
/// The CSV writer failed (it writes to memory: never in practice).
pub fn releases_csv(answer: &ReleasesAnswer) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record([
        "release_date",
        "starts_at",
        "title",
        "brand",
        "style_code",
        "retail_price",
        "currency",
        "method",
        "premium_pct",
        "low_pct",
        "high_pct",
        "estimate_releases",
        "no_estimate",
        "product_id",
        "sources",
        "link",
    ])?;
    for r in &answer.releases {
        let number = |n: Option<f64>| n.map(|n| format!("{n:.2}")).unwrap_or_default();
        writer.write_record([
            r.release_date.clone(),
            r.starts_at.clone().unwrap_or_default(),
            r.title.clone(),
            r.brand.clone(),
            r.style_code.clone(),
            number(r.retail_price),
            r.currency.clone(),
            r.method.clone().unwrap_or_default(),
            number(r.estimate.as_ref().map(|e| e.premium_pct)),
            number(r.estimate.as_ref().map(|e| e.low_pct)),
            number(r.estimate.as_ref().map(|e| e.high_pct)),
            r.estimate
                .as_ref()
                .map(|e| e.basis.releases.to_string())
                .unwrap_or_default(),
            r.no_estimate.clone().unwrap_or_default(),
            r.product_id.clone().unwrap_or_default(),
            source_kinds(r),
            link(r).unwrap_or_default().to_owned(),
        ])?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|err| csv::Error::from(err.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A stable id for a drop's event: its first style code (or title) and day, so a calendar app
/// that imports the file again updates the event instead of adding another.
fn uid(release: &Release) -> String {
    let key: String = if release.style_code.is_empty() {
        &release.title
    } else {
        &release.style_code
    }
    .chars()
    .filter(char::is_ascii_alphanumeric)
    .map(|c| c.to_ascii_lowercase())
    .collect();
    format!("{key}-{}@drops.solescope", release.release_date)
}

/// The calendar as an iCalendar file: one event a drop, timed (in UTC) where a source gives
/// the time, else all day; its title, what it costs and how it drops, the estimate, and a link.
#[must_use]
pub fn releases_ics(answer: &ReleasesAnswer, now: DateTime<Utc>) -> String {
    let mut calendar = Calendar::new();
    calendar.name("Solescope drops");
    for release in &answer.releases {
        let mut event = Event::new();
        event.uid(&uid(release)).timestamp(now);
        let title = match &release.method {
            Some(method) => format!("{} ({})", release.title, method_words(method)),
            None => release.title.clone(),
        };
        event.summary(&title);
        match starts(release) {
            (_, Some(time)) => {
                event
                    .starts(time)
                    .ends(time + chrono::Duration::minutes(EVENT_MINUTES));
            }
            (day, None) => {
                event.all_day(day);
            }
        }
        let mut description = format!(
            "Style code: {}\nRetail: {}\nHow it drops: {}\nPremium estimate: {}",
            release.style_code,
            retail(release),
            method(release),
            estimate_text(release)
        );
        if let Some(m) = &release.mechanics {
            let _ = write!(
                description,
                "\n{} launch ({}), {}",
                m.source.to_uppercase(),
                m.method_code,
                m.account_terms()
            );
        }
        let _ = write!(description, "\nSources: {}", source_kinds(release));
        event.description(&description);
        if let Some(url) = link(release) {
            event.url(url);
        }
        calendar.push(event.done());
    }
    calendar.done().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::releases::{
        Mechanics, PremiumModelInfo, ReleaseSource, ReleasesAnswer, SizeStock,
    };

    fn release(title: &str, code: &str, day: &str, starts_at: Option<&str>) -> Release {
        Release {
            product_id: None,
            title: title.into(),
            brand: "Jordan".into(),
            style_code: code.into(),
            style_codes: vec![code.into()],
            release_date: day.into(),
            starts_at: starts_at.map(str::to_owned),
            retail_price: Some(215.0),
            currency: "USD".into(),
            method: None,
            mechanics: None,
            estimate: None,
            no_estimate: Some("no estimate: 2 releases".into()),
            sizes: vec!["9".into()],
            image: String::new(),
            sources: vec![ReleaseSource {
                kind: "catalogue".into(),
                name: "demo".into(),
                release_date: day.into(),
                starts_at: None,
                link: format!("https://resale-b.example/{code}"),
                style_code: code.into(),
                read_at: None,
            }],
        }
    }

    fn answer() -> ReleasesAnswer {
        let mut drawn = release(
            "Jordan 4 Retro, 'Military Blue'; a long title that a calendar app must get whole",
            "FV5029-141",
            "2026-12-05",
            Some("2026-12-05T15:00:00Z"),
        );
        drawn.method = Some("draw".into());
        drawn.mechanics = Some(Mechanics {
            source: "snkrs".into(),
            method: "draw".into(),
            method_code: "DAN".into(),
            starts_at: "2026-12-05T15:00:00Z".into(),
            msrp: Some(215.0),
            currency: "USD".into(),
            country: "US".into(),
            quantity_limit: Some(1),
            exclusive_access: true,
            invitation_only: false,
            sizes: vec![SizeStock {
                size: "9".into(),
                local_size: "9".into(),
                size_type: "M".into(),
                stock_level: "LOW".into(),
                available: true,
            }],
            read_at: String::new(),
        });
        ReleasesAnswer {
            releases: vec![
                drawn,
                release("Dunk Low 'Panda'", "DD1391-100", "2026-12-09", None),
            ],
            total: 2,
            from: "2026-12-01".into(),
            until: "2026-12-31".into(),
            as_of: "2026-12-01T08:00:00Z".into(),
            sources: Vec::new(),
            model: PremiumModelInfo::default(),
        }
    }

    /// The file parses back as iCalendar (the crate's RFC 5545 parser) with one event a drop,
    /// each with its start, summary and link: a timed one in UTC, a dated one all day.
    #[test]
    fn the_ics_file_reads_back_with_one_event_a_drop_its_start_and_a_link() {
        let now = Utc.with_ymd_and_hms(2026, 12, 1, 8, 0, 0).unwrap();
        let text = releases_ics(&answer(), now);
        assert!(text.starts_with("BEGIN:VCALENDAR\r\n"), "{text}");
        assert!(
            text.lines().all(|line| line.len() <= 75),
            "lines folded: {text}"
        );
        let parsed: Calendar = text.parse().unwrap();
        let events: Vec<&Event> = parsed
            .components
            .iter()
            .filter_map(|c| c.as_event())
            .collect();
        assert_eq!(events.len(), 2);
        let first = events[0];
        assert_eq!(
            first.get_summary(),
            Some(
                "Jordan 4 Retro, 'Military Blue'; a long title that a calendar app must get whole (draw)"
            )
        );
        assert_eq!(
            first.get_start(),
            Some(icalendar::DatePerhapsTime::DateTime(
                icalendar::CalendarDateTime::Utc(
                    Utc.with_ymd_and_hms(2026, 12, 5, 15, 0, 0).unwrap()
                )
            ))
        );
        assert_eq!(first.get_url(), Some("https://resale-b.example/FV5029-141"));
        assert!(first.get_description().unwrap().contains("DAN"));
        assert!(
            first
                .get_description()
                .unwrap()
                .contains("SNKRS launch (DAN), at most 1 pair per account, exclusive access\n")
        );
        assert_eq!(
            first.get_uid(),
            Some("fv5029141-2026-12-05@drops.solescope")
        );
        let second = events[1];
        assert_eq!(
            second.get_start(),
            Some(icalendar::DatePerhapsTime::Date(
                NaiveDate::from_ymd_opt(2026, 12, 9).unwrap()
            ))
        );
        assert!(second.get_url().is_some());
    }

    #[test]
    fn csv_and_table_carry_every_drop_with_its_estimate_or_why_not() {
        let csv = releases_csv(&answer()).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("release_date,starts_at,title"));
        assert!(lines[1].contains("2026-12-05T15:00:00Z"));
        assert!(lines[2].contains("no estimate: 2 releases"));
        let table = releases_table(&answer(), &chrono::FixedOffset::west_opt(5 * 3600).unwrap());
        // 15:00 UTC is 10:00 at UTC-5.
        assert!(table.contains("Sat 05 Dec 10:00"), "{table}");
        assert!(table.contains("2 drops from 2026-12-01 to 2026-12-31"));
    }
}
