//! One product's record in the hit store, and the JSON written from it.
//!
//! Texts are stored already escaped for JSON (`serde_json`'s escaping, applied once when the store
//! is built), variant ids as their hyphenated text, and fields in the order the JSON writes them,
//! so writing a hit is copying byte runs between fixed keys and formatting a few prices. The
//! writer is by hand, not `#[derive(Serialize)]`: serde's path escaped every text again on every
//! page (a quarter of a `/search` answer's CPU time, profiled under load), which pre-escaped texts
//! cannot be told to skip. `tests/search_hits.rs` holds the output to the catalogue path's JSON
//! byte for byte over a whole catalogue.
//!
//! # Layout
//!
//! A field is a `u32` length then its bytes; an optional field is [`ABSENT`] alone when `NULL`.
//! In order: the 16 texts of [`TEXT_FIELDS`], the description (optional), `is_bundle` (one byte),
//! the labels as one JSON array, the prices of both datasets (`i64` cents: min, avg, max, base,
//! retail for US, then for FR), the variant count (`u32`), then per variant: id, size, GTIN
//! (optional), link (a tag byte: 0 the variant's own link, 1 derived from the product's link with
//! the size's text that follows), price in US and FR cents.

use crate::model::Country;
use crate::search::cursor::Cursor;

/// A string length meaning "absent" (`NULL` in the catalogue).
pub(super) const ABSENT: u32 = u32::MAX;

/// The text fields of a record, in stored order (the catalogue's column names).
pub(super) const TEXT_FIELDS: [&str; 16] = [
    "age_group",
    "availability",
    "brand",
    "category",
    "color",
    "condition",
    "gender",
    "id",
    "image",
    "inserted_at",
    "link",
    "release_date",
    "size_system",
    "sku",
    "slug",
    "title",
];

const AGE_GROUP: usize = 0;
const AVAILABILITY: usize = 1;
const BRAND: usize = 2;
const CATEGORY: usize = 3;
const COLOR: usize = 4;
const CONDITION: usize = 5;
const GENDER: usize = 6;
const ID: usize = 7;
const IMAGE: usize = 8;
const INSERTED_AT: usize = 9;
const LINK: usize = 10;
const RELEASE_DATE: usize = 11;
const SIZE_SYSTEM: usize = 12;
const SKU: usize = 13;
const SLUG: usize = 14;
const TITLE: usize = 15;

/// The money of one dataset, in cents: min, avg, max, base, retail.
type Prices = [i64; 5];

/// Builds one record.
#[derive(Default)]
pub(in crate::search) struct Encoder {
    pub(in crate::search) bytes: Vec<u8>,
    escaped: Vec<u8>,
}

impl Encoder {
    /// Appends `value` as a field.
    pub(in crate::search) fn bytes_field(&mut self, value: &[u8]) {
        // Catalogue texts are far below 4 GB; one that is not is cut (and fails its decode).
        self.bytes.extend_from_slice(
            &u32::try_from(value.len())
                .unwrap_or(ABSENT - 1)
                .to_le_bytes(),
        );
        self.bytes.extend_from_slice(value);
    }

    /// Appends `text` escaped for a JSON string, without the quotes.
    pub(in crate::search) fn text(&mut self, text: &str) {
        let mut quoted = std::mem::take(&mut self.escaped);
        quoted.clear();
        // Writing into a `Vec` cannot fail, and a `&str` always serializes.
        let _ = serde_json::to_writer(&mut quoted, text);
        let inner = quoted
            .strip_prefix(b"\"")
            .and_then(|rest| rest.strip_suffix(b"\""))
            .unwrap_or(b"");
        self.bytes_field(inner);
        self.escaped = quoted;
    }

    /// Appends an optional text (escaped), [`ABSENT`] for `None`.
    pub(in crate::search) fn optional_text(&mut self, value: Option<&str>) {
        match value {
            Some(text) => self.text(text),
            None => self.bytes.extend_from_slice(&ABSENT.to_le_bytes()),
        }
    }

    pub(in crate::search) fn u32(&mut self, value: u32) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    pub(in crate::search) fn i64(&mut self, value: i64) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    /// Appends the labels (as `catalogue::read` reads them: a list of strings, empty when the
    /// stored text is not one) as one JSON array.
    pub(super) fn labels(&mut self, stored: &str) {
        let labels: Vec<String> = serde_json::from_str(stored).unwrap_or_default();
        let json = serde_json::to_string(&labels).unwrap_or_else(|_| "[]".to_owned());
        self.bytes_field(json.as_bytes());
    }

    /// Appends a variant's id as `catalogue::read` shows it: the hyphenated UUID of its 16
    /// stored bytes, empty otherwise.
    pub(in crate::search) fn variant_id(&mut self, id: &[u8]) {
        match uuid::Uuid::from_slice(id) {
            Ok(id) => self.bytes_field(id.hyphenated().to_string().as_bytes()),
            Err(_) => self.bytes_field(b""),
        }
    }

    /// Appends a variant's link: its own (escaped), or, when the catalogue has none, the size as
    /// `catalogue::read::variant_link` puts it after the product's link.
    pub(in crate::search) fn variant_link(&mut self, own: Option<&str>, size: &str) {
        if let Some(link) = own {
            self.bytes.push(0);
            self.text(link);
        } else {
            self.bytes.push(1);
            self.bytes_field(crate::catalogue::read::size_in_link(size).as_bytes());
        }
    }
}

/// A field that may be NULL, read from `cursor`: `Some(None)` for NULL.
#[allow(
    clippy::option_option,
    reason = "outer None: the bytes ran out, as every Cursor read; inner None: NULL"
)]
fn optional<'a>(cursor: &mut Cursor<'a>) -> Option<Option<&'a [u8]>> {
    if cursor.rest().get(..4) == Some(&ABSENT.to_le_bytes()[..]) {
        cursor.take(4)?;
        return Some(None);
    }
    Some(Some(cursor.field()?))
}

/// Appends the JSON of the hit in `record` to `out`: priced for `country`, with the release date
/// and retail price only when `full`. `None` when the record does not decode; `out` may then
/// hold part of the hit (the caller truncates it).
pub(super) fn write_json(
    record: &[u8],
    country: Country,
    full: bool,
    out: &mut Vec<u8>,
) -> Option<()> {
    let mut cursor = Cursor::new(record);
    let mut text: [&[u8]; 16] = [&[]; 16];
    for slot in &mut text {
        *slot = cursor.field()?;
    }
    let description = optional(&mut cursor)?;
    let is_bundle = cursor.take(1)?[0] != 0;
    let labels = cursor.field()?;
    let mut prices: [Prices; 2] = [[0; 5]; 2];
    for dataset in &mut prices {
        for price in dataset {
            *price = cursor.i64()?;
        }
    }
    let dataset = match country {
        Country::Us => 0,
        Country::Fr => 1,
    };
    let [min, avg, max, base, retail] = prices[dataset];

    // Keys in the order a `serde_json::Value` object writes them (sorted), as the catalogue path.
    let string = |out: &mut Vec<u8>, key: &[u8], value: &[u8]| {
        out.extend_from_slice(key);
        out.push(b'"');
        out.extend_from_slice(value);
        out.push(b'"');
    };
    string(out, b"{\"age_group\":", text[AGE_GROUP]);
    string(out, b",\"availability\":", text[AVAILABILITY]);
    out.extend_from_slice(b",\"avg_price\":");
    write_money(out, avg);
    out.extend_from_slice(b",\"base_price\":");
    write_money(out, base);
    string(out, b",\"brand\":", text[BRAND]);
    string(out, b",\"category\":", text[CATEGORY]);
    string(out, b",\"color\":", text[COLOR]);
    string(out, b",\"condition\":", text[CONDITION]);
    string(out, b",\"currency\":", country.currency().as_bytes());
    if let Some(description) = description {
        string(out, b",\"description\":", description);
    }
    string(out, b",\"gender\":", text[GENDER]);
    string(out, b",\"id\":", text[ID]);
    string(out, b",\"image\":", text[IMAGE]);
    string(out, b",\"inserted_at\":", text[INSERTED_AT]);
    out.extend_from_slice(if is_bundle {
        b",\"is_bundle\":true"
    } else {
        b",\"is_bundle\":false"
    });
    out.extend_from_slice(b",\"labels\":");
    out.extend_from_slice(labels);
    string(out, b",\"link\":", text[LINK]);
    out.extend_from_slice(b",\"max_price\":");
    write_money(out, max);
    out.extend_from_slice(b",\"min_price\":");
    write_money(out, min);
    if full {
        string(out, b",\"release_date\":", text[RELEASE_DATE]);
        out.extend_from_slice(b",\"retail_price\":\"");
        if retail > 0 {
            // As `catalogue::read::retail_text`: dollars, a point, two digits of cents.
            let mut digits = itoa::Buffer::new();
            out.extend_from_slice(digits.format(retail / 100).as_bytes());
            out.push(b'.');
            out.push(b'0' + (retail % 100 / 10) as u8);
            out.push(b'0' + (retail % 10) as u8);
        }
        out.push(b'"');
    }
    string(out, b",\"size_system\":", text[SIZE_SYSTEM]);
    string(out, b",\"sku\":", text[SKU]);
    string(out, b",\"slug\":", text[SLUG]);
    string(out, b",\"title\":", text[TITLE]);
    out.extend_from_slice(b",\"variants\":[");
    let product_link = text[LINK];
    let separator = if product_link.contains(&b'?') {
        b'&'
    } else {
        b'?'
    };
    let variant_count = cursor.u32()?;
    for n in 0..variant_count {
        let id = cursor.field()?;
        let size = cursor.field()?;
        let gtin = optional(&mut cursor)?;
        let link_tag = cursor.take(1)?[0];
        let link = cursor.field()?;
        let price = [cursor.i64()?, cursor.i64()?][dataset];
        if n > 0 {
            out.push(b',');
        }
        out.push(b'{');
        if let Some(gtin) = gtin {
            string(out, b"\"gtin\":", gtin);
            out.push(b',');
        }
        out.extend_from_slice(b"\"price\":");
        write_money(out, price);
        string(out, b",\"size\":", size);
        string(out, b",\"variant_id\":", id);
        out.extend_from_slice(b",\"variant_link\":\"");
        match link_tag {
            0 => out.extend_from_slice(link),
            1 => {
                out.extend_from_slice(product_link);
                out.push(separator);
                out.extend_from_slice(b"size=");
                out.extend_from_slice(link);
            }
            _ => return None,
        }
        out.extend_from_slice(b"\"}");
    }
    out.extend_from_slice(b"]}");
    cursor.rest().is_empty().then_some(())
}

/// Writes `cents / 100` as `serde_json` writes that `f64` (the catalogue path's money numbers):
/// the shortest text that reads back as the same number, which for whole cents below 10^15 is
/// the decimal itself with trailing zeros dropped and at least one digit after the point.
fn write_money(out: &mut Vec<u8>, cents: i64) {
    const EXACT_BELOW: u64 = 1_000_000_000_000_000;
    let magnitude = cents.unsigned_abs();
    if magnitude >= EXACT_BELOW {
        // Never a price; `serde_json`'s own formatting (which may use an exponent) decides.
        let _ = serde_json::to_writer(&mut *out, &(cents as f64 / 100.0));
        return;
    }
    if cents < 0 {
        out.push(b'-');
    }
    let mut digits = itoa::Buffer::new();
    out.extend_from_slice(digits.format(magnitude / 100).as_bytes());
    out.push(b'.');
    let fraction = magnitude % 100;
    out.push(b'0' + (fraction / 10) as u8);
    if !fraction.is_multiple_of(10) {
        out.push(b'0' + (fraction % 10) as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_is_written_as_serde_json_writes_the_float() {
        let mut values: Vec<i64> = vec![
            0,
            1,
            5,
            10,
            99,
            100,
            101,
            110,
            123_456_789,
            -1,
            -250,
            999_999_999_999_999,
            -999_999_999_999_999,
            1_000_000_000_000_000,
            i64::MAX,
            i64::MIN,
        ];
        // Every cent up to $1,000, then a spread of larger amounts.
        values.extend(0..100_000);
        values.extend((0..60).map(|shift| (1i64 << shift) + 7));
        let mut ours = Vec::new();
        for cents in values {
            ours.clear();
            write_money(&mut ours, cents);
            let theirs = serde_json::to_string(&(cents as f64 / 100.0)).unwrap();
            assert_eq!(String::from_utf8_lossy(&ours), theirs, "{cents} cents");
        }
    }

    #[test]
    fn texts_are_stored_escaped_and_written_back_as_json_strings() {
        let mut encoder = Encoder::default();
        let odd = "quote \" backslash \\ tab \t newline \n bell \u{7} é 🥾";
        encoder.text(odd);
        let mut cursor = Cursor::new(&encoder.bytes);
        let stored = cursor.field().unwrap();
        let quoted = [b"\"".as_slice(), stored, b"\""].concat();
        let back: String = serde_json::from_slice(&quoted).unwrap();
        assert_eq!(back, odd);
    }
}
