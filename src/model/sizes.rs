//! US shoe sizes as the user keeps them ("my sizes": the Flips tab's filter and its alerts, the
//! Drops calendar's filter): a number in half steps, written without a trailing `.0` (`9`,
//! `10.5`), the way the flip list and the calendar write a row's US size.

/// The smallest US size offered (toddlers start at 1C; the smallest men's size is 3.5).
pub const SMALLEST_US_SIZE: f64 = 1.0;
/// The largest US size offered (men's runs end at 18; a few brands go to 22).
pub const LARGEST_US_SIZE: f64 = 22.0;

/// `text` as a US size key: `US 9.5`, `9.5`, `M 9.5`, `9.50` are `9.5`; `10.0` is `10`. `None`
/// for text that holds no number, a size outside [`SMALLEST_US_SIZE`]..=[`LARGEST_US_SIZE`], or
/// one that is not a whole or half size.
#[must_use]
pub fn us_size_key(text: &str) -> Option<String> {
    let lower = text.trim().to_ascii_lowercase();
    let rest = lower
        .strip_prefix("us")
        .or_else(|| lower.strip_prefix('m'))
        .map_or(lower.as_str(), |rest| {
            rest.trim_start_matches([' ', '-', ':'])
        });
    let number = rest.strip_suffix("us").unwrap_or(rest).trim();
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let value: f64 = number.parse().ok()?;
    let halves = value * 2.0;
    if !(SMALLEST_US_SIZE..=LARGEST_US_SIZE).contains(&value) || halves.fract() != 0.0 {
        return None;
    }
    Some(if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    })
}

/// The men's run a picker offers, 3.5 to 18 in half steps, as keys.
#[must_use]
pub fn mens_run() -> Vec<String> {
    (7_u32..=36)
        .map(|halves| {
            let value = f64::from(halves) / 2.0;
            if halves % 2 == 0 {
                format!("{value:.0}")
            } else {
                format!("{value:.1}")
            }
        })
        .collect()
}

/// Sorts size keys by their number (text after, for anything that is not one).
pub fn sort_sizes(sizes: &mut [String]) {
    sizes.sort_by(|a, b| {
        let number = |s: &str| s.parse::<f64>().unwrap_or(f64::MAX);
        number(a).total_cmp(&number(b)).then_with(|| a.cmp(b))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_the_flip_list_writes_them_and_odd_text_is_refused() {
        for (text, key) in [
            ("9", "9"),
            ("9.5", "9.5"),
            ("US 9.5", "9.5"),
            ("us9.5", "9.5"),
            ("M 10", "10"),
            ("10.0", "10"),
            ("10.50", "10.5"),
            (" 11 US", "11"),
            ("3.5", "3.5"),
            ("18", "18"),
        ] {
            assert_eq!(us_size_key(text).as_deref(), Some(key), "{text:?}");
        }
        for text in [
            "", "nine", "9.25", "0", "23", "-9", "9,5", "EU 42", "1e1", "NaN",
        ] {
            assert_eq!(us_size_key(text), None, "{text:?}");
        }
    }

    #[test]
    fn the_mens_run_goes_from_3_5_to_18_in_half_steps_each_a_key() {
        let run = mens_run();
        assert_eq!(run.first().map(String::as_str), Some("3.5"));
        assert_eq!(run.last().map(String::as_str), Some("18"));
        assert_eq!(run.len(), 30);
        assert!(run.iter().all(|s| us_size_key(s).as_ref() == Some(s)));
        let mut mixed = vec!["10.5".to_owned(), "9".into(), "10".into()];
        sort_sizes(&mut mixed);
        assert_eq!(mixed, ["9", "10", "10.5"]);
    }
}
