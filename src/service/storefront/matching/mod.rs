//! Which catalogue product a store product is, by what identifies a shoe: its style code or a
//! barcode, never its handle or title alone. Pure and fast: no I/O here; the
//! catalogue's codes come in as a [`CodeIndex`], its GTINs through a [`GtinLookup`]
//! (`catalogue_keys.rs` reads both from a catalogue file).
//!
//! **Style codes.** A code is normalised as the catalogue's `sku_norm` is
//! (`catalogue::generate::normalize_sku_into`): ASCII letters and digits only, upper case, so
//! `dd1391-100`, `DD1391 100` and `DD1391100` are one code. A store writes it in a variant's
//! SKU (often with the size after it: `DD1391-100-095`, `DD1391-100 10.5`), in the title or in
//! the handle (`onyx-hq6448`). The text is cut into words (runs of letters and digits); every run
//! of one to three neighbouring words, joined, that holds a digit and is at least
//! [`MIN_CODE_CHARS`] long is a candidate, looked up in the catalogue's codes. So the size
//! after a code never needs to be known: `DD1391-100-095` holds `DD1391100`. A SKU with the size
//! fused on (`DD1391100095`) that matches no code as a whole is tried without its last one to
//! four digits.
//!
//! Where two codes found overlap, the longer one wins: in `DD1391-100` the word `DD1391` alone
//! (the shape of an adidas code) does not count beside `DD1391100`, and a code that is the start
//! of another code found for the same product is dropped. But a product's sizes check each other:
//! where two or more SKUs hold codes, only the codes all of them hold count, since the size after
//! the code changes from SKU to SKU (adidas `SV8119-070`, `SV8119-080`, ... hold `SV8119` each,
//! while `SV8119070`, the shape of a Nike code, is in one SKU only).
//!
//! **Barcodes.** A variant's barcode (UPC-A, EAN-13, GTIN-14, EAN-8) is compared as a number, so a
//! UPC and the same code written as EAN-13 with its leading zero are one. `/products.json` has no
//! barcodes; they come from `/products/{handle}.json`, read for products no code matched (see
//! `crawl.rs`).
//!
//! **One product or none.** The codes decide first: all of a product's codes (from its SKUs,
//! title and handle) must name one catalogue product, else the product is ambiguous and stays
//! unmatched. Only a product with no code in the catalogue is matched by its barcodes, which
//! must name one catalogue product too. A code the catalogue holds for two products names no
//! product (ambiguous).

use std::collections::HashMap;

/// The fewest characters a normalised style code has (adidas `B75806`).
pub const MIN_CODE_CHARS: usize = 6;

/// The most characters a packed code holds; longer texts are not style codes.
pub const MAX_CODE_CHARS: usize = 21;

/// Neighbouring words joined into one candidate at most (`1201A019 108`, `DD1391 100`).
const MAX_WORDS_PER_CODE: usize = 3;

/// Digits a fused size suffix may have (`DD1391100` + `095`).
const MAX_FUSED_SIZE_DIGITS: usize = 4;

/// A normalised style code packed into a number: six bits a character (`0-9` as 1-10, `A-Z` as
/// 11-36), first character highest, so keys sort as their texts do and a code's length is the
/// count of its non-zero groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CodeKey(u128);

impl CodeKey {
    /// The code of `text` normalised as `sku_norm` is (letters and digits, upper case); `None`
    /// when that leaves nothing or more than [`MAX_CODE_CHARS`].
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let mut packer = Packer::default();
        for byte in text.bytes().filter(u8::is_ascii_alphanumeric) {
            if !packer.push(byte) {
                return None;
            }
        }
        packer.finish()
    }

    /// How many characters the code has.
    #[must_use]
    pub fn len(self) -> usize {
        MAX_CODE_CHARS - (self.0.trailing_zeros() as usize / 6).min(MAX_CODE_CHARS)
    }

    /// Whether the code is empty (never, for a key made by [`CodeKey::parse`]).
    #[must_use]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `self` is `other`'s first characters and shorter.
    #[must_use]
    pub fn is_proper_prefix_of(self, other: Self) -> bool {
        let len = self.len();
        if len >= other.len() {
            return false;
        }
        let shift = 6 * (MAX_CODE_CHARS - len);
        (other.0 >> shift) == (self.0 >> shift)
    }

    /// The code as text (`DD1391100`).
    #[must_use]
    pub fn text(self) -> String {
        (0..self.len())
            .map(|at| {
                let group = (self.0 >> (6 * (MAX_CODE_CHARS - 1 - at))) & 0x3f;
                let group = u8::try_from(group).unwrap_or(0);
                char::from(if group <= 10 {
                    b'0' + group - 1
                } else {
                    b'A' + group - 11
                })
            })
            .collect()
    }
}

/// Builds a [`CodeKey`] a character at a time.
#[derive(Debug, Clone, Copy, Default)]
struct Packer {
    bits: u128,
    len: usize,
    digits: usize,
}

impl Packer {
    /// Appends an ASCII letter or digit; `false` when the code would be too long.
    fn push(&mut self, byte: u8) -> bool {
        if self.len == MAX_CODE_CHARS {
            return false;
        }
        let group = match byte.to_ascii_uppercase() {
            digit @ b'0'..=b'9' => {
                self.digits += 1;
                digit - b'0' + 1
            }
            letter @ b'A'..=b'Z' => letter - b'A' + 11,
            _ => return true,
        };
        self.bits = (self.bits << 6) | u128::from(group);
        self.len += 1;
        true
    }

    fn finish(self) -> Option<CodeKey> {
        (self.len > 0).then(|| CodeKey(self.bits << (6 * (MAX_CODE_CHARS - self.len))))
    }

    /// A candidate style code: long enough and holding a digit.
    fn candidate(self) -> Option<CodeKey> {
        if self.len >= MIN_CODE_CHARS && self.digits > 0 {
            self.finish()
        } else {
            None
        }
    }
}

/// A barcode as a number (UPC-A `196153879826` and EAN-13 `0196153879826` are one); `None` for
/// anything but 8, 12, 13 or 14 digits (spaces and dashes ignored).
#[must_use]
pub fn gtin_number(text: &str) -> Option<u64> {
    let mut value: u64 = 0;
    let mut digits = 0;
    for byte in text.bytes() {
        match byte {
            b'0'..=b'9' => {
                value = value.checked_mul(10)?.checked_add(u64::from(byte - b'0'))?;
                digits += 1;
            }
            b' ' | b'-' => {}
            _ => return None,
        }
    }
    (matches!(digits, 8 | 12..=14) && value > 0).then_some(value)
}

/// What a catalogue code names.
const SEVERAL_PRODUCTS: i64 = -1;

/// The catalogue's style codes, sorted for lookup: each code with the one product (`pk`) it
/// names, or a mark that it names several. About 24 bytes a product (24 MB at a million).
#[derive(Debug, Clone, Default)]
pub struct CodeIndex {
    keys: Vec<CodeKey>,
    pks: Vec<i64>,
}

/// What a code names in the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeHit {
    /// One product (its catalogue `pk`).
    One(i64),
    /// Several products share the code.
    Several,
}

impl CodeIndex {
    /// The index of `(code, pk)` pairs (codes as the catalogue writes them; any that normalise to
    /// nothing are left out).
    pub fn from_codes<'a>(codes: impl IntoIterator<Item = (&'a str, i64)>) -> Self {
        let mut pairs: Vec<(CodeKey, i64)> = codes
            .into_iter()
            .filter_map(|(code, pk)| Some((CodeKey::parse(code)?, pk)))
            .collect();
        Self::from_pairs(&mut pairs)
    }

    /// The index of already packed `(key, pk)` pairs (sorted here).
    pub fn from_pairs(pairs: &mut [(CodeKey, i64)]) -> Self {
        pairs.sort_unstable();
        let mut keys = Vec::with_capacity(pairs.len());
        let mut pks: Vec<i64> = Vec::with_capacity(pairs.len());
        for &(key, pk) in pairs.iter() {
            if keys.last() == Some(&key) {
                if let Some(last) = pks.last_mut().filter(|last| **last != pk) {
                    *last = SEVERAL_PRODUCTS;
                }
            } else {
                keys.push(key);
                pks.push(pk);
            }
        }
        Self { keys, pks }
    }

    /// How many distinct codes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there is no code.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// What `key` names, if the catalogue has it.
    #[must_use]
    pub fn get(&self, key: CodeKey) -> Option<CodeHit> {
        let at = self.keys.binary_search(&key).ok()?;
        Some(match self.pks[at] {
            SEVERAL_PRODUCTS => CodeHit::Several,
            pk => CodeHit::One(pk),
        })
    }
}

/// The catalogue's GTINs, asked for in one batch.
pub trait GtinLookup {
    /// The catalogue product (`pk`) of each of `gtins` it has (as numbers, see
    /// [`gtin_number`]).
    ///
    /// # Errors
    /// A sentence saying why the catalogue could not be read.
    fn products_of(&mut self, gtins: &[u64]) -> Result<HashMap<u64, i64>, String>;
}

impl<S: std::hash::BuildHasher> GtinLookup for HashMap<u64, i64, S> {
    fn products_of(&mut self, gtins: &[u64]) -> Result<HashMap<u64, i64>, String> {
        Ok(gtins
            .iter()
            .filter_map(|gtin| Some((*gtin, *self.get(gtin)?)))
            .collect())
    }
}

/// What of a store product can identify it.
#[derive(Debug, Clone, Copy)]
pub struct ProductKeys<'a> {
    /// The product's title.
    pub title: &'a str,
    /// The product's handle.
    pub handle: &'a str,
    /// Its variants' SKUs.
    pub skus: &'a [&'a str],
    /// Its variants' barcodes, where known.
    pub barcodes: &'a [&'a str],
}

/// What matched a store product to its catalogue product.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Evidence {
    /// A variant's SKU holds the style code.
    Sku,
    /// The title or the handle holds the style code (no SKU does).
    TitleOrHandle,
    /// A variant's barcode is a catalogue GTIN (no code matched).
    Barcode,
}

/// Why a store product matched no catalogue product.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unmatched {
    /// No code and no barcode of it is in the catalogue (a store-only product).
    #[error("no style code or barcode of it is in the catalogue")]
    NotInCatalogue,
    /// Its codes or barcodes name more than one catalogue product (`codes`: what they were).
    #[error("its codes name more than one catalogue product ({})", keys.join(", "))]
    Ambiguous {
        /// The codes (or barcodes) that disagreed, as text.
        keys: Vec<String>,
    },
}

/// The matcher's answer for one store product.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Matched {
    /// It is catalogue product `pk`.
    Product {
        /// The catalogue product's `pk`.
        pk: i64,
        /// What said so.
        by: Evidence,
    },
    /// It is no catalogue product.
    No(Unmatched),
}

/// A product's codes found so far: each code with what it names and whether a SKU gave it.
#[derive(Debug, Default)]
struct Found {
    codes: Vec<(CodeKey, CodeHit, bool)>,
}

impl Found {
    fn add(&mut self, key: CodeKey, hit: CodeHit, from_sku: bool) {
        if let Some(found) = self.codes.iter_mut().find(|(k, _, _)| *k == key) {
            found.2 |= from_sku;
        } else {
            self.codes.push((key, hit, from_sku));
        }
    }

    /// The one product the codes name, or why not; `None` when no code was found.
    fn verdict(mut self) -> Option<Matched> {
        if self.codes.is_empty() {
            return None;
        }
        let all: Vec<CodeKey> = self.codes.iter().map(|(key, _, _)| *key).collect();
        self.codes
            .retain(|(key, _, _)| !all.iter().any(|other| key.is_proper_prefix_of(*other)));
        let mut product = None;
        for (_, hit, _) in &self.codes {
            match (hit, product) {
                (CodeHit::One(pk), None) => product = Some(*pk),
                (CodeHit::One(pk), Some(seen)) if *pk == seen => {}
                _ => {
                    return Some(Matched::No(Unmatched::Ambiguous {
                        keys: self.codes.iter().map(|(key, _, _)| key.text()).collect(),
                    }));
                }
            }
        }
        let pk = product?;
        let by = if self.codes.iter().any(|(_, _, from_sku)| *from_sku) {
            Evidence::Sku
        } else {
            Evidence::TitleOrHandle
        };
        Some(Matched::Product { pk, by })
    }
}

/// The words of `text`: its runs of ASCII letters and digits, as byte ranges.
fn words(text: &str) -> impl Iterator<Item = &[u8]> {
    text.as_bytes()
        .split(|byte| !byte.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
}

/// A catalogue code found in a text: its first and last word, the code and what it names.
type Run = (usize, usize, CodeKey, CodeHit);

/// Every catalogue code in `text`: each run of up to three neighbouring words that is one.
fn runs_in_text(index: &CodeIndex, text: &str) -> Vec<Run> {
    let words: Vec<&[u8]> = words(text).collect();
    let mut runs: Vec<Run> = Vec::new();
    for first in 0..words.len() {
        let mut packer = Packer::default();
        'run: for (last, word) in words
            .iter()
            .enumerate()
            .skip(first)
            .take(MAX_WORDS_PER_CODE)
        {
            for &byte in *word {
                if !packer.push(byte) {
                    break 'run;
                }
            }
            if let Some(key) = packer.candidate()
                && let Some(hit) = index.get(key)
            {
                runs.push((first, last, key, hit));
            }
        }
    }
    runs
}

/// The runs no longer run covers (in `DD1391-100`, `DD1391100` and not `DD1391`).
fn longest_runs(runs: &[Run]) -> impl Iterator<Item = (CodeKey, CodeHit)> + '_ {
    runs.iter()
        .filter(|(first, last, _, _)| {
            !runs.iter().any(|(f, l, _, _)| {
                f <= first && last <= l && (l - f) > (last - first) // strictly longer, covering
            })
        })
        .map(|(_, _, key, hit)| (*key, *hit))
}

/// Adds to `found` every catalogue code in `text`; where two overlap, only the longer run counts.
fn codes_in_text(index: &CodeIndex, text: &str, found: &mut Found) {
    for (key, hit) in longest_runs(&runs_in_text(index, text)) {
        found.add(key, hit, false);
    }
}

/// Adds to `found` the codes of the SKUs. Where two or more SKUs hold codes, the codes every one
/// of them holds are the product's (the size after the code differs from SKU to SKU, and with it
/// an accidental longer code: adidas `SV8119` + size `070` reads as a Nike-shaped `SV8119-070`);
/// failing that, or with one SKU, each SKU's longest codes count.
fn codes_in_skus(index: &CodeIndex, skus: &[&str], found: &mut Found) {
    let per_sku: Vec<Vec<Run>> = skus
        .iter()
        .filter(|sku| !sku.trim().is_empty())
        .map(|sku| {
            let runs = runs_in_text(index, sku);
            if runs.is_empty() {
                fused_code(index, sku)
                    .map(|(key, hit)| vec![(0, 0, key, hit)])
                    .unwrap_or_default()
            } else {
                runs
            }
        })
        .filter(|runs| !runs.is_empty())
        .collect();
    if let [first, rest @ ..] = per_sku.as_slice()
        && !rest.is_empty()
    {
        let mut common: Vec<(CodeKey, CodeHit)> = first
            .iter()
            .filter(|(_, _, key, _)| {
                rest.iter()
                    .all(|runs| runs.iter().any(|(_, _, other, _)| other == key))
            })
            .map(|(_, _, key, hit)| (*key, *hit))
            .collect();
        common.dedup();
        if !common.is_empty() {
            for (key, hit) in common {
                found.add(key, hit, true);
            }
            return;
        }
    }
    for runs in &per_sku {
        for (key, hit) in longest_runs(runs) {
            found.add(key, hit, true);
        }
    }
}

/// A SKU with its size fused on (`DD1391100095`): the longest code it starts with, when the rest
/// is one to four digits.
fn fused_code(index: &CodeIndex, sku: &str) -> Option<(CodeKey, CodeHit)> {
    let mut normal = String::with_capacity(sku.len());
    crate::catalogue::generate::normalize_sku_into(sku, &mut normal);
    let bytes = normal.as_bytes();
    (1..=MAX_FUSED_SIZE_DIGITS)
        .take_while(|cut| {
            bytes.len() > *cut && bytes[bytes.len() - cut..].iter().all(u8::is_ascii_digit)
        })
        .find_map(|cut| {
            let mut packer = Packer::default();
            for &byte in &bytes[..bytes.len() - cut] {
                if !packer.push(byte) {
                    return None;
                }
            }
            let key = packer.candidate()?;
            Some((key, index.get(key)?))
        })
}

/// What the codes of `product` say: `None` when none of them is in the catalogue.
#[must_use]
pub fn match_by_code(index: &CodeIndex, product: &ProductKeys<'_>) -> Option<Matched> {
    let mut found = Found::default();
    codes_in_skus(index, product.skus, &mut found);
    codes_in_text(index, product.title, &mut found);
    codes_in_text(index, product.handle, &mut found);
    found.verdict()
}

/// Each of `products` matched to the catalogue: by code first; those without a code in the
/// catalogue by their barcodes, all asked of `gtins` in one batch.
///
/// # Errors
/// A sentence from `gtins` when the catalogue's GTINs cannot be read.
pub fn match_products(
    index: &CodeIndex,
    gtins: &mut dyn GtinLookup,
    products: &[ProductKeys<'_>],
) -> Result<Vec<Matched>, String> {
    let mut answers: Vec<Option<Matched>> =
        products.iter().map(|p| match_by_code(index, p)).collect();
    let mut wanted: Vec<u64> = products
        .iter()
        .zip(&answers)
        .filter(|(_, answer)| answer.is_none())
        .flat_map(|(product, _)| product.barcodes.iter().filter_map(|b| gtin_number(b)))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let known = if wanted.is_empty() {
        HashMap::new()
    } else {
        gtins.products_of(&wanted)?
    };
    for (product, answer) in products.iter().zip(answers.iter_mut()) {
        if answer.is_some() {
            continue;
        }
        let mut named: Vec<(u64, i64)> = product
            .barcodes
            .iter()
            .filter_map(|b| gtin_number(b))
            .filter_map(|gtin| Some((gtin, *known.get(&gtin)?)))
            .collect();
        named.sort_unstable_by_key(|(_, pk)| *pk);
        named.dedup_by_key(|(_, pk)| *pk);
        *answer = Some(match named.as_slice() {
            [] => Matched::No(Unmatched::NotInCatalogue),
            [(_, pk)] => Matched::Product {
                pk: *pk,
                by: Evidence::Barcode,
            },
            several => Matched::No(Unmatched::Ambiguous {
                keys: several.iter().map(|(gtin, _)| gtin.to_string()).collect(),
            }),
        });
    }
    Ok(answers
        .into_iter()
        .map(|answer| answer.unwrap_or(Matched::No(Unmatched::NotInCatalogue)))
        .collect())
}

#[cfg(test)]
mod tests;
