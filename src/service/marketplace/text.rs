//! Text the marketplaces derive from catalogue fields: HTML from descriptions, nicknames,
//! size numbers and composite size labels, timestamps.

use chrono::{DateTime, NaiveDate, SecondsFormat};

/// `text` escaped for HTML element content.
pub(super) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The lines of a catalogue description, split at its `<br>` tags (any spelling), trimmed.
fn description_lines(description: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rest = description;
    loop {
        let lower = rest.to_ascii_lowercase();
        let Some(start) = lower.find("<br") else {
            lines.push(rest.trim().to_owned());
            return lines;
        };
        let end = lower[start..]
            .find('>')
            .map_or(rest.len(), |i| start + i + 1);
        lines.push(rest[..start].trim().to_owned());
        rest = &rest[end..];
    }
}

/// A description as plain text: each `<br>` a line break.
pub(super) fn plain_text(description: &str) -> String {
    description_lines(description).join("\n").trim().to_owned()
}

/// A description as HTML paragraphs: blank lines (`<br><br>`) separate paragraphs, single
/// breaks stay `<br>`; the text itself is escaped.
pub(super) fn html_paragraphs(description: &str) -> String {
    let mut html = String::new();
    let mut paragraph: Vec<String> = Vec::new();
    let flush = |paragraph: &mut Vec<String>, html: &mut String| {
        if !paragraph.is_empty() {
            html.push_str("<p>");
            html.push_str(&paragraph.join("<br>"));
            html.push_str("</p>");
            paragraph.clear();
        }
    };
    for line in description_lines(description) {
        if line.is_empty() {
            flush(&mut paragraph, &mut html);
        } else {
            paragraph.push(escape_html(&line));
        }
    }
    flush(&mut paragraph, &mut html);
    html
}

/// Byte positions of the quotes around a title's colourway nickname. Model names hold
/// apostrophes too (`Air Force 1 '07`), so the nickname is the last quoted run that opens after a
/// space and closes at the end or before a space (`... '07 'Triple White' (2024)`).
fn nickname_quotes(title: &str) -> Option<(usize, usize)> {
    // Closing candidates from the right: a quote at the end or before a space (`(Women's)` has
    // an apostrophe that is not one).
    let close = title
        .rmatch_indices('\'')
        .map(|(i, _)| i)
        .find(|&i| title[i + 1..].is_empty() || title[i + 1..].starts_with(' '))?;
    let open = title[..close].rfind(" '")? + 1;
    (close > open + 1).then_some((open, close))
}

/// The colourway nickname of a catalogue title: the part in single quotes
/// (`Air Jordan 1 Low 'Panda' (GS)` -> `Panda`).
pub(super) fn nickname(title: &str) -> Option<&str> {
    let (open, close) = nickname_quotes(title)?;
    Some(title[open + 1..close].trim())
}

/// Model part and colourway part of a title, as `resale-b` shows them:
/// `Air Jordan 1 Low 'Panda' (GS)` -> (`Air Jordan 1 Low`, `Panda (GS)`).
pub(super) fn split_title(title: &str, color: &str) -> (String, String) {
    match nickname_quotes(title) {
        Some((open, close)) => {
            let secondary = format!("{}{}", &title[open + 1..close], &title[close + 1..]);
            (title[..open].trim().to_owned(), secondary.trim().to_owned())
        }
        None => (title.trim().to_owned(), color.to_owned()),
    }
}

/// The US size number of a label: `9` -> 9, `5.5Y` -> 5.5, `US M 10.5` -> 10.5, `7C` -> 7.
pub(super) fn size_number(label: &str) -> Option<f64> {
    label
        .split_whitespace()
        .filter_map(|token| {
            token
                .trim_matches(|c: char| c.is_ascii_alphabetic())
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && *n > 0.0)
        })
        .next_back()
}

/// A size in several systems, as retailers label it: `US M 9 / UK 8 / EU 42.5`. Systems the
/// catalogue does not know for the size are left out.
pub(super) fn composite_size(size_system: &str, us: &str, uk: &str, eu: &str) -> String {
    let us_label = if us.to_ascii_uppercase().starts_with("US") {
        us.to_owned()
    } else {
        // Kids' systems are in the label itself (`5.5Y`, `7C`): plain `US` then.
        let system = match size_system.trim() {
            "" | "US GS" | "US TD" => "US",
            other => other,
        };
        format!("{system} {us}")
    };
    let mut parts = vec![us_label];
    if !uk.is_empty() {
        parts.push(format!("UK {uk}"));
    }
    if !eu.is_empty() {
        parts.push(format!("EU {eu}"));
    }
    parts.join(" / ")
}

/// `YYYY-MM-DD` as the end of that day with milliseconds (`2024-11-23T23:59:59.999Z`), how
/// `resale-a` stamps release dates; empty when the day is not known.
pub(super) fn release_timestamp(date: &str) -> String {
    NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .ok()
        .and_then(|day| day.and_hms_milli_opt(23, 59, 59, 999))
        .map(|time| time.and_utc().to_rfc3339_opts(SecondsFormat::Millis, true))
        .unwrap_or_default()
}

/// Unix seconds and microseconds as an RFC 3339 timestamp with microseconds.
pub(super) fn micros_timestamp(seconds: i64, micros: u32) -> String {
    DateTime::from_timestamp(seconds, micros.min(999_999) * 1000)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Micros, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_become_text_and_paragraphs() {
        let description = "The 'Panda' & friends.<br><br>Released in May.<br/>Style: DD1391-100.";
        assert_eq!(
            plain_text(description),
            "The 'Panda' & friends.\n\nReleased in May.\nStyle: DD1391-100."
        );
        assert_eq!(
            html_paragraphs(description),
            "<p>The &#39;Panda&#39; &amp; friends.</p><p>Released in May.<br>Style: DD1391-100.</p>"
        );
        assert_eq!(html_paragraphs(""), "");
    }

    #[test]
    fn titles_split_into_model_and_colourway() {
        let title = "Air Jordan 1 Low 'Panda' (GS)";
        assert_eq!(nickname(title), Some("Panda"));
        assert_eq!(
            split_title(title, "White/Black"),
            ("Air Jordan 1 Low".into(), "Panda (GS)".into())
        );
        assert_eq!(
            split_title("Nike Air Force 1 '07 'Triple White' (2024)", "White"),
            ("Nike Air Force 1 '07".into(), "Triple White (2024)".into())
        );
        assert_eq!(
            nickname("SB Dunk Low 'Ben & Jerry's'"),
            Some("Ben & Jerry's")
        );
        assert_eq!(nickname("Nike Air Force 1 '07"), None);
        assert_eq!(
            split_title("Air Jordan 11 Retro 'Gratitude' (Women's)", ""),
            ("Air Jordan 11 Retro".into(), "Gratitude (Women's)".into())
        );
        assert_eq!(
            split_title("Samba OG", "White/Black"),
            ("Samba OG".into(), "White/Black".into())
        );
    }

    #[test]
    fn sizes_parse_and_compose() {
        assert_eq!(size_number("9"), Some(9.0));
        assert_eq!(size_number("5.5Y"), Some(5.5));
        assert_eq!(size_number("US M 10.5"), Some(10.5));
        assert_eq!(size_number("XL"), None);
        assert_eq!(
            composite_size("US M", "9", "8", "42.5"),
            "US M 9 / UK 8 / EU 42.5"
        );
        assert_eq!(
            composite_size("US GS", "5.5Y", "5", "38"),
            "US 5.5Y / UK 5 / EU 38"
        );
        assert_eq!(composite_size("", "US W 7", "", ""), "US W 7");
    }

    #[test]
    fn timestamps_carry_their_precision() {
        assert_eq!(release_timestamp("2024-11-23"), "2024-11-23T23:59:59.999Z");
        assert_eq!(release_timestamp(""), "");
        assert_eq!(micros_timestamp(0, 42), "1970-01-01T00:00:00.000042Z");
    }
}
