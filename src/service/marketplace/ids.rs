//! How each simulated marketplace names a catalogue product.
//!
//! | marketplace | id | slug |
//! |---|---|---|
//! | `resale-a` | a number: `100_000 + (pk * A mod P)`, P = 2^31 - 1 | title slug + `-` + the id in base 36 |
//! | `resale-b` | the catalogue UUID | `urlKey` = the catalogue slug |
//! | `retailer-a` | `gid://shopify/Product/<7e12 + (pk * B mod P)>`, variants `<4e13 + (variant pk * C mod P)>` | the style code without separators + `-` + title slug |
//!
//! Multiplication by a constant modulo a prime is a bijection, so every id maps back to exactly
//! one `products.pk` without a lookup table, and neighbouring products get unrelated-looking
//! numbers, as on a real marketplace. `resale-b` is where the catalogue comes from (its links
//! already point at `resale-b/<slug>`), so its UUIDs and `urlKey`s are the catalogue's own.
//! Every marketplace also accepts the catalogue UUID and slug, so one identifier works everywhere.

use crate::catalogue::generate::slugify;

use super::UpstreamError;
use super::markets::printable;

/// The modulus of the id permutations: the Mersenne prime 2^31 - 1. Keys must be below it.
const PRIME: u64 = 2_147_483_647;
const RESALE_A_MULTIPLIER: u64 = 1_588_635_695;
const RETAILER_PRODUCT_MULTIPLIER: u64 = 630_360_016;
const RETAILER_VARIANT_MULTIPLIER: u64 = 742_938_285;
/// The smallest `resale-a` id: its ids have at least six digits.
const RESALE_A_OFFSET: i64 = 100_000;
const RETAILER_PRODUCT_OFFSET: u64 = 7_000_000_000_000;
const RETAILER_VARIANT_OFFSET: u64 = 40_000_000_000_000;
/// The platform's global-id prefix for products.
pub const RETAILER_PRODUCT_GID: &str = "gid://shopify/Product/";
/// The platform's global-id prefix for variants.
pub const RETAILER_VARIANT_GID: &str = "gid://shopify/ProductVariant/";

/// Longest identifier accepted; longer ones are malformed, not unknown.
pub const MAX_ID_CHARS: usize = 200;

/// `base^exp mod PRIME`; operands stay below 2^31 so products fit in `u64`.
const fn pow_mod(mut base: u64, mut exp: u64) -> u64 {
    let mut result = 1;
    base %= PRIME;
    while exp > 0 {
        if exp & 1 == 1 {
            result = result * base % PRIME;
        }
        base = base * base % PRIME;
        exp >>= 1;
    }
    result
}

/// The inverse of `multiplier` modulo the prime (Fermat: a^(p-2)).
const fn inverse(multiplier: u64) -> u64 {
    pow_mod(multiplier, PRIME - 2)
}

const RESALE_A_INVERSE: u64 = inverse(RESALE_A_MULTIPLIER);
const RETAILER_PRODUCT_INVERSE: u64 = inverse(RETAILER_PRODUCT_MULTIPLIER);

/// `key * multiplier mod PRIME` for a key in `1..PRIME`.
fn scramble(key: i64, multiplier: u64) -> Option<u64> {
    let key = u64::try_from(key).ok().filter(|k| (1..PRIME).contains(k))?;
    Some(key * multiplier % PRIME)
}

fn unscramble(value: u64, inverse: u64) -> Option<i64> {
    if value == 0 || value >= PRIME {
        return None;
    }
    i64::try_from(value * inverse % PRIME).ok()
}

/// Checks an identifier before any lookup: empty, longer than [`MAX_ID_CHARS`] or holding a
/// control character is a malformed request, not an unknown product.
pub fn check_identifier<'a>(what: &str, id: &'a str) -> Result<&'a str, UpstreamError> {
    if id.trim().is_empty() {
        return Err(UpstreamError::BadRequest(format!("the {what} is empty")));
    }
    let chars = id.chars().count();
    if chars > MAX_ID_CHARS {
        return Err(UpstreamError::BadRequest(format!(
            "the {what} is {chars} characters long; at most {MAX_ID_CHARS} are accepted"
        )));
    }
    if id.chars().any(char::is_control) {
        return Err(UpstreamError::BadRequest(format!(
            "the {what} '{}' holds control characters",
            printable(id)
        )));
    }
    Ok(id)
}

/// The `resale-a` numeric id of catalogue product `pk` (`None` for a pk outside `1..2^31-1`).
#[must_use]
pub fn resale_a_id(pk: i64) -> Option<i64> {
    scramble(pk, RESALE_A_MULTIPLIER).map(|value| RESALE_A_OFFSET + value as i64)
}

/// The catalogue pk behind a `resale-a` numeric id.
#[must_use]
pub fn pk_from_resale_a_id(id: i64) -> Option<i64> {
    let value = u64::try_from(id.checked_sub(RESALE_A_OFFSET)?).ok()?;
    unscramble(value, RESALE_A_INVERSE)
}

/// The `resale-a` slug: the title's slug and the id in base 36, so it is unique and maps back.
#[must_use]
pub fn resale_a_slug(title: &str, id: i64) -> String {
    let title = slugify(title);
    let suffix = base36(id.unsigned_abs());
    if title.is_empty() {
        format!("product-{suffix}")
    } else {
        format!("{title}-{suffix}")
    }
}

/// The catalogue pk a `resale-a` slug points at, if its suffix decodes; the caller still checks
/// the whole slug against the product's.
#[must_use]
pub fn pk_from_resale_a_slug(slug: &str) -> Option<i64> {
    let (_, suffix) = slug.rsplit_once('-')?;
    let id = i64::try_from(from_base36(suffix)?).ok()?;
    pk_from_resale_a_id(id)
}

/// The `retailer-a` product gid of catalogue product `pk`.
#[must_use]
pub fn retailer_product_gid(pk: i64) -> String {
    let number = scramble(pk, RETAILER_PRODUCT_MULTIPLIER).unwrap_or(0) + RETAILER_PRODUCT_OFFSET;
    format!("{RETAILER_PRODUCT_GID}{number}")
}

/// The catalogue pk behind a `retailer-a` product gid.
#[must_use]
pub fn pk_from_retailer_gid(gid: &str) -> Option<i64> {
    let number: u64 = gid.strip_prefix(RETAILER_PRODUCT_GID)?.parse().ok()?;
    unscramble(
        number.checked_sub(RETAILER_PRODUCT_OFFSET)?,
        RETAILER_PRODUCT_INVERSE,
    )
}

/// The `retailer-a` variant gid of catalogue variant `variant_pk`.
#[must_use]
pub fn retailer_variant_gid(variant_pk: i64) -> String {
    let number =
        scramble(variant_pk, RETAILER_VARIANT_MULTIPLIER).unwrap_or(0) + RETAILER_VARIANT_OFFSET;
    format!("{RETAILER_VARIANT_GID}{number}")
}

/// The `retailer-a` slug (a Shopify handle): the style code without separators, then the title
/// slug (`dz5485612-air-jordan-1-...`); the shop keys its handles by style code, which also
/// keeps them apart from the catalogue's slugs. Without a style code, `p<pk>` leads.
#[must_use]
pub fn retailer_slug(title: &str, sku_norm: &str, pk: i64) -> String {
    let code = if sku_norm.is_empty() {
        format!("p{pk}")
    } else {
        sku_norm.to_ascii_lowercase()
    };
    let title = slugify(title);
    if title.is_empty() {
        code
    } else {
        format!("{code}-{title}")
    }
}

/// What a `retailer-a` slug's first segment may name: a normalized style code, or a pk.
#[must_use]
pub fn retailer_slug_keys(slug: &str) -> (String, Option<i64>) {
    let first = slug.split('-').next().unwrap_or(slug);
    let pk = first
        .strip_prefix('p')
        .and_then(|digits| digits.parse().ok());
    (first.to_ascii_uppercase(), pk)
}

fn base36(mut value: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(value % 36) as usize]);
        value /= 36;
        if value == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

fn from_base36(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 12 {
        return None;
    }
    text.chars().try_fold(0u64, |acc, c| {
        let digit = c.to_digit(36)?;
        // Upper case is not what this marketplace writes: such a slug is not one of its own.
        (!c.is_ascii_uppercase()).then_some(acc * 36 + u64::from(digit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resale_a_ids_are_a_bijection_that_does_not_look_sequential() {
        let ids: Vec<i64> = (1..=2000).map(|pk| resale_a_id(pk).unwrap()).collect();
        for (pk, id) in (1..=2000).zip(&ids) {
            assert!(*id >= 100_000);
            assert_eq!(pk_from_resale_a_id(*id), Some(pk));
        }
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len());
        // Neighbours are far apart and not in order.
        assert!(ids[1] < ids[0] || (ids[1] - ids[0]).abs() > 1000);
        assert!(ids.windows(2).any(|w| w[1] < w[0]));
        assert_eq!(resale_a_id(0), None);
        assert_eq!(pk_from_resale_a_id(99_999), None);
        assert_eq!(pk_from_resale_a_id(100_000), None);
    }

    #[test]
    fn resale_a_slugs_map_back() {
        let id = resale_a_id(42).unwrap();
        let slug = resale_a_slug("Air Jordan 1 Low 'Panda' (GS)", id);
        assert!(slug.starts_with("air-jordan-1-low-panda-gs-"), "{slug}");
        assert_eq!(pk_from_resale_a_slug(&slug), Some(42));
        assert_eq!(pk_from_resale_a_slug("airjordan"), None);
        assert_eq!(pk_from_resale_a_slug(&slug.to_ascii_uppercase()), None);
    }

    #[test]
    fn retailer_gids_map_back_and_look_like_shopify() {
        let gid = retailer_product_gid(7);
        let number = gid.strip_prefix(RETAILER_PRODUCT_GID).unwrap();
        assert_eq!(number.len(), 13, "{gid}");
        assert_eq!(pk_from_retailer_gid(&gid), Some(7));
        assert_eq!(pk_from_retailer_gid("gid://shopify/Product/12"), None);
        let variant = retailer_variant_gid(7);
        assert_eq!(
            variant.strip_prefix(RETAILER_VARIANT_GID).unwrap().len(),
            14
        );
        assert_ne!(retailer_variant_gid(8), variant);
    }

    #[test]
    fn retailer_slugs_start_with_the_style_code() {
        let slug = retailer_slug("Nike Dunk Low Retro 'Panda'", "DD1391100", 3);
        assert_eq!(slug, "dd1391100-nike-dunk-low-retro-panda");
        assert_eq!(retailer_slug_keys(&slug), ("DD1391100".into(), None));
        let bare = retailer_slug("Mystery", "", 12);
        assert_eq!(bare, "p12-mystery");
        assert_eq!(retailer_slug_keys(&bare).1, Some(12));
    }

    #[test]
    fn malformed_identifiers_are_bad_requests() {
        for bad in ["", "   ", "abc\u{0}def", "line\nbreak"] {
            assert!(
                matches!(
                    check_identifier("id", bad),
                    Err(UpstreamError::BadRequest(_))
                ),
                "{bad:?}"
            );
        }
        let long = "a".repeat(MAX_ID_CHARS + 1);
        assert!(matches!(
            check_identifier("id", &long),
            Err(UpstreamError::BadRequest(m)) if m.contains("201")
        ));
        assert!(check_identifier("id", &"a".repeat(MAX_ID_CHARS)).is_ok());
        assert!(check_identifier("id", "air-jordan-1").is_ok());
    }
}
