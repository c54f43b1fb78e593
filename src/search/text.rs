//! How field text and query text become words: the one normalization both sides share.
//!
//! A word is a run of letters and digits, lower-cased, with common Latin accents folded to ASCII
//! (`é` -> `e`, `ß` -> `ss`). Apostrophes inside a word join its parts (`Jerry's` -> `jerrys`,
//! so typing either finds it); every other character separates words, so quotes, `*`, `-`,
//! parentheses, emoji and NUL bytes in a query are never syntax, only gaps.

/// The longest word kept, in bytes; the rest of a longer run is dropped (no real term is that long).
pub(crate) const MAX_WORD_BYTES: usize = 64;

/// Calls `each` with every word of `text`, in order.
pub(crate) fn for_each_word(text: &str, mut each: impl FnMut(&str)) {
    let mut word = String::with_capacity(32);
    let mut rest = text;
    while let Some(&byte) = rest.as_bytes().first() {
        // ASCII, nearly all catalogue text, takes the byte path: the same outcome as the
        // `char` path below (no folding, a one-byte lower case) at a fraction of the cost of
        // `to_lowercase` and the folding table (the index build reads ~300 MB of text at a
        // million products).
        let c = if byte.is_ascii() {
            rest = &rest[1..];
            if byte.is_ascii_alphanumeric() {
                if word.len() < MAX_WORD_BYTES {
                    word.push(char::from(byte.to_ascii_lowercase()));
                }
                continue;
            }
            char::from(byte)
        } else {
            let mut chars = rest.chars();
            let Some(c) = chars.next() else { break };
            rest = chars.as_str();
            if c.is_alphanumeric() {
                push_folded(&mut word, c);
                continue;
            }
            c
        };
        if is_apostrophe(c) && !word.is_empty() {
            // Joins `jerry's` into one word; a leading apostrophe (`'07`) is a plain separator.
        } else if !word.is_empty() {
            each(&word);
            word.clear();
        }
    }
    if !word.is_empty() {
        each(&word);
    }
}

/// The words of `text`, collected: what the index makes of a title or a query (benchmarks and
/// tests build their queries from it).
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(text, |word| out.push(word.to_owned()));
    out
}

/// The stretches of `text` between its HTML tags (`<br>`, `</p>`), as descriptions may hold
/// them, in order: a tag separates words as a space would. A `<` that starts no tag (`1 < 2`)
/// stays in its stretch. Handed out as slices of `text`: copying every description without its
/// tags into a new string was an allocation and a copy per product in the index build.
pub(crate) fn for_each_untagged(text: &str, mut each: impl FnMut(&str)) {
    let mut start = 0;
    let mut from = 0;
    while let Some(open) = text[from..].find('<').map(|at| from + at) {
        let after = &text[open + 1..];
        let starts_tag = after
            .trim_start_matches('/')
            .starts_with(|c: char| c.is_ascii_alphabetic());
        match after.find('>') {
            Some(close) if starts_tag => {
                each(&text[start..open]);
                start = open + 1 + close + 1;
                from = start;
            }
            _ => from = open + 1,
        }
    }
    each(&text[start..]);
}

/// Whether a word holds a digit: such words (codes, sizes, years) get no typo tolerance.
pub(crate) fn has_digit(word: &str) -> bool {
    word.bytes().any(|b| b.is_ascii_digit())
}

/// How many typos a query word of `word` may carry (Meilisearch's defaults): none below five
/// characters, one from five, two from nine; none for words with digits, where a "typo" is
/// another code.
pub(crate) fn typo_budget(word: &str) -> u8 {
    if has_digit(word) {
        return 0;
    }
    match word.chars().count() {
        0..=4 => 0,
        5..=8 => 1,
        _ => 2,
    }
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '\u{2018}' | '`')
}

fn push_folded(word: &mut String, c: char) {
    let folded: Option<&str> = match c {
        'à'..='å' | 'À'..='Å' | 'ā' | 'Ā' => Some("a"),
        'æ' | 'Æ' => Some("ae"),
        'ç' | 'Ç' | 'č' | 'Č' => Some("c"),
        'è'..='ë' | 'È'..='Ë' | 'ē' | 'Ē' | 'ę' | 'Ę' | 'ě' | 'Ě' => Some("e"),
        'ì'..='ï' | 'Ì'..='Ï' => Some("i"),
        'ñ' | 'Ñ' | 'ń' | 'Ń' => Some("n"),
        'ò'..='ö' | 'Ò'..='Ö' | 'ø' | 'Ø' | 'ō' | 'Ō' => Some("o"),
        'œ' | 'Œ' => Some("oe"),
        'ù'..='ü' | 'Ù'..='Ü' | 'ū' | 'Ū' => Some("u"),
        'ý' | 'ÿ' | 'Ý' => Some("y"),
        'ß' => Some("ss"),
        'š' | 'Š' => Some("s"),
        'ž' | 'Ž' => Some("z"),
        _ => None,
    };
    if let Some(ascii) = folded {
        if word.len() + ascii.len() <= MAX_WORD_BYTES {
            word.push_str(ascii);
        }
        return;
    }
    for lower in c.to_lowercase() {
        if word.len() + lower.len_utf8() <= MAX_WORD_BYTES {
            word.push(lower);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lower_case_and_apostrophes_join() {
        assert_eq!(
            words("SB Dunk Low 'Ben & Jerry's' (2022)"),
            ["sb", "dunk", "low", "ben", "jerrys", "2022"]
        );
        assert_eq!(words("Air Force 1 '07"), ["air", "force", "1", "07"]);
    }

    #[test]
    fn syntax_characters_only_separate() {
        assert_eq!(
            words("\"jordan\" OR (chicago*) -retro NEAR\0x 😀"),
            ["jordan", "or", "chicago", "retro", "near", "x"]
        );
        assert!(words("*** -- () 😀 \0").is_empty());
    }

    #[test]
    fn accents_fold_to_ascii() {
        assert_eq!(words("Créme Brûlée STRAßE"), ["creme", "brulee", "strasse"]);
    }

    /// The word rule one `char` at a time, as it was before the ASCII byte path.
    fn words_char_by_char(text: &str) -> Vec<String> {
        let (mut out, mut word) = (Vec::new(), String::new());
        for c in text.chars() {
            if c.is_alphanumeric() {
                push_folded(&mut word, c);
            } else if is_apostrophe(c) && !word.is_empty() {
            } else if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
        out
    }

    #[test]
    fn ascii_path_gives_the_char_path_words() {
        let texts = [
            "Air Jordan 1 Retro High OG 'Chicago' DZ5485-612".to_owned(),
            "NIKE x sacai LDWaffle `Black` \u{2019}07 Créme Brûlée ÀÉÎ STRAßE \u{1c4} İstanbul"
                .to_owned(),
            "a'b''c ' 'd e' \0\t\n<br>x_y-z.Q~!@#$%^&*()[]{}|;:,./<>?".to_owned(),
            format!("{}{}", "AbC".repeat(30), "é".repeat(40)),
            format!("{} {}", "z".repeat(70), "Éa".repeat(40)),
        ];
        for text in &texts {
            assert_eq!(words(text), words_char_by_char(text), "{text}");
        }
        // Every ASCII byte, alone and between letters.
        for byte in 0u8..128 {
            let c = char::from(byte);
            for text in [format!("{c}"), format!("Ab{c}Cd"), format!("{c}{c}X{c}")] {
                assert_eq!(words(&text), words_char_by_char(&text), "{byte}");
            }
        }
    }

    #[test]
    fn long_runs_are_cut() {
        let long = "a".repeat(10_000);
        let got = words(&long);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].len(), MAX_WORD_BYTES);
        let multi = "é".repeat(100);
        assert!(words(&multi)[0].len() <= MAX_WORD_BYTES);
    }

    #[test]
    fn tags_separate_stretches_and_a_lone_angle_bracket_stays() {
        let stretches = |text| {
            let mut out = Vec::new();
            for_each_untagged(text, |stretch| out.push(stretch.to_owned()));
            out
        };
        assert_eq!(stretches("a<br><br>b</p>c"), ["a", "", "b", "c"]);
        assert_eq!(stretches("1 < 2 > 0"), ["1 < 2 > 0"]);
        assert_eq!(stretches("open <b"), ["open <b"]);
        assert_eq!(stretches("<p>jerry's</p>"), ["", "jerry's", ""]);
        // A word cut by a tag is two words, as with a space.
        let mut words = Vec::new();
        for_each_untagged("Air<br>Max 1 <b>OG</b>'s <3", |stretch| {
            for_each_word(stretch, |word| words.push(word.to_owned()));
        });
        assert_eq!(words, ["air", "max", "1", "og", "s", "3"]);
    }

    #[test]
    fn typo_budget_follows_length() {
        assert_eq!(typo_budget("yezy"), 0);
        assert_eq!(typo_budget("jodran"), 1);
        assert_eq!(typo_budget("universty"), 2);
        assert_eq!(typo_budget("dz5485612"), 0);
    }
}
