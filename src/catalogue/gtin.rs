//! GTIN (UPC-A / EAN-13) check digits.
//!
//! Written by hand: the rule is five lines (mod-10, weights 3,1,3,... from the right) and the
//! crates that do it pull in barcode rendering we do not need.

/// The check digit for `digits` (the GTIN without its last digit). `None` if a byte is not a digit.
pub fn check_digit(digits: &str) -> Option<u8> {
    let mut sum = 0u32;
    for (i, byte) in digits.bytes().rev().enumerate() {
        if !byte.is_ascii_digit() {
            return None;
        }
        let digit = u32::from(byte - b'0');
        sum += if i % 2 == 0 { digit * 3 } else { digit };
    }
    Some(((10 - sum % 10) % 10) as u8)
}

/// Whether `gtin` is a 12- or 13-digit GTIN with a valid check digit.
pub fn is_valid(gtin: &str) -> bool {
    if !matches!(gtin.len(), 12 | 13) || !gtin.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let (body, check) = gtin.split_at(gtin.len() - 1);
    check_digit(body) == Some(check.as_bytes()[0] - b'0')
}

/// `body` with its check digit appended.
pub fn with_check_digit(body: &str) -> Option<String> {
    let check = check_digit(body)?;
    Some(format!("{body}{check}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_real_gtins_are_valid() {
        // Examples from the market research (a Nike UPC-A and a second real code).
        assert!(is_valid("193655590351"));
        assert!(is_valid("884802676799"));
    }

    #[test]
    fn a_changed_digit_or_bad_length_is_invalid() {
        assert!(!is_valid("193655590352"));
        assert!(!is_valid("19365559035"));
        assert!(!is_valid("19365559035a"));
        assert!(!is_valid(""));
    }

    #[test]
    fn appended_check_digit_validates() {
        let gtin = with_check_digit("19612345678").unwrap();
        assert_eq!(gtin.len(), 12);
        assert!(is_valid(&gtin));
    }
}
