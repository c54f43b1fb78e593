//! Sizes: reading a size label into its run and number, prices by size, and the lowest ask of
//! each size of a `resale-a` product.

use crate::model::{Product, ResaleAProduct};

/// The size run a size label belongs to, in the order sizes are listed: men's (and unmarked)
/// first, then women's, grade school, then little kids and toddlers, then labels without a
/// readable number. Grouping keeps "5Y" from landing between men's 5 and 5.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SizeRun {
    /// Men's, or no run marked (the common case for unisex and men's products).
    Adult,
    /// Women's: `W 8`, `8W`, `Wmns 8`.
    Women,
    /// Grade school / youth: `5.5Y`, `GS 5`.
    GradeSchool,
    /// Preschool and toddler: `5C`, `TD 5`, `PS 11`.
    Child,
    /// No number could be read (`XL`, `One size`).
    Unreadable,
}

/// A size label read for sorting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParsedSize {
    /// The run the label belongs to.
    pub run: SizeRun,
    /// The number in the label, e.g. 10.5 for `US 10.5`; `None` for [`SizeRun::Unreadable`].
    pub number: Option<f64>,
}

/// Reads a size label: a system word (`US`, `UK`, `EU`, `CM`) is skipped, run markers
/// (`M`, `W`, `Wmns`, `GS`, `TD`, `PS`, `Y`, `C`, also as a suffix like `7Y`) pick the run,
/// and the first number is the size. Composite labels (`US M 9 / US W 10.5`) are read up to
/// the first number.
#[must_use]
pub fn parse_size(label: &str) -> ParsedSize {
    let mut run = None;
    for token in label.split(|c: char| c.is_whitespace() || c == '/' || c == '-') {
        let upper = token
            .trim_matches(|c: char| c == '(' || c == ')' || c == ',')
            .to_uppercase();
        if upper.is_empty() {
            continue;
        }
        match size_word(&upper) {
            Some(SizeWord::System) => continue,
            Some(SizeWord::Run(marked)) => {
                run = run.or(Some(marked));
                continue;
            }
            None => {}
        }
        let digits_end = upper
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(upper.len());
        let Ok(number) = upper[..digits_end].parse::<f64>() else {
            continue;
        };
        let suffix_run = match &upper[digits_end..] {
            "Y" | "YS" => Some(SizeRun::GradeSchool),
            "C" | "K" => Some(SizeRun::Child),
            "W" => Some(SizeRun::Women),
            "M" | "" => None,
            _ => continue,
        };
        return ParsedSize {
            run: suffix_run.or(run).unwrap_or(SizeRun::Adult),
            number: Some(number),
        };
    }
    ParsedSize {
        run: SizeRun::Unreadable,
        number: None,
    }
}

/// A word of a size label that is not the size itself.
enum SizeWord {
    /// A size system (`US`, `EU`), skipped: the number is read the same way.
    System,
    /// A run marker.
    Run(SizeRun),
}

/// The meaning of an upper-cased word of a size label; `None` when it is no known word.
fn size_word(upper: &str) -> Option<SizeWord> {
    let run = match upper {
        "US" | "UK" | "EU" | "CM" | "SIZE" => return Some(SizeWord::System),
        "M" | "MEN" | "MENS" | "MEN'S" => SizeRun::Adult,
        "W" | "WMNS" | "WOMEN" | "WOMENS" | "WOMEN'S" => SizeRun::Women,
        "GS" | "Y" | "YOUTH" => SizeRun::GradeSchool,
        "TD" | "PS" | "C" | "INFANT" | "TODDLER" => SizeRun::Child,
        _ => return None,
    };
    Some(SizeWord::Run(run))
}

/// One size of a product with its price.
#[derive(Debug, Clone, PartialEq)]
pub struct SizePrice {
    /// The size label as the source wrote it.
    pub label: String,
    /// The label read for sorting.
    pub size: ParsedSize,
    /// Price of that size in the variant's currency; `None` where the size has no price (the
    /// source writes 0), never 0.
    pub price: Option<f64>,
}

/// The sizes of `product` with their prices, sorted by run (see [`SizeRun`]), then size, then
/// label.
#[must_use]
pub fn prices_by_size(product: &Product) -> Vec<SizePrice> {
    let mut sizes: Vec<SizePrice> = product
        .variants
        .iter()
        .map(|variant| SizePrice {
            label: variant.size.clone(),
            size: parse_size(&variant.size),
            price: (variant.price.is_finite() && variant.price > 0.0).then_some(variant.price),
        })
        .collect();
    sizes.sort_by(|a, b| {
        a.size
            .run
            .cmp(&b.size.run)
            .then_with(|| {
                let number = |size: &SizePrice| size.size.number.unwrap_or(f64::INFINITY);
                number(a).total_cmp(&number(b))
            })
            .then_with(|| a.label.cmp(&b.label))
    });
    sizes
}

/// One size of a `resale-a` product with its lowest ask, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeAsk {
    /// Size label as the marketplace shows it.
    pub size: String,
    /// Lowest ask for the size in US cents; `None` when nobody asks.
    pub lowest_ask_cents: Option<i64>,
}

/// Every size of `product` with its lowest ask: the size options, priced from
/// `availableSizesNew` (entries `{size, presentation, lowestPriceCents}`; a size with no entry
/// has no ask). Entries that match no size option are listed after the options.
#[must_use]
pub fn size_asks(product: &ResaleAProduct) -> Vec<SizeAsk> {
    struct Entry<'p> {
        presentation: Option<&'p str>,
        size: Option<f64>,
        cents: Option<i64>,
        is_matched: bool,
    }
    let mut entries: Vec<Entry<'_>> = product
        .available_sizes_new
        .iter()
        .map(|value| Entry {
            presentation: value
                .get("presentation")
                .and_then(serde_json::Value::as_str),
            size: value.get("size").and_then(serde_json::Value::as_f64),
            cents: value
                .get("lowestPriceCents")
                .and_then(serde_json::Value::as_i64)
                .filter(|cents| *cents > 0),
            is_matched: false,
        })
        .collect();
    let mut rows: Vec<SizeAsk> = product
        .size_options
        .iter()
        .map(|option| {
            let entry = entries.iter_mut().find(|entry| {
                !entry.is_matched
                    && match entry.presentation {
                        Some(presentation) => presentation == option.presentation,
                        None => entry
                            .size
                            .is_some_and(|size| (size - option.value).abs() < 1e-9),
                    }
            });
            let lowest_ask_cents = entry.and_then(|entry| {
                entry.is_matched = true;
                entry.cents
            });
            SizeAsk {
                size: option.presentation.clone(),
                lowest_ask_cents,
            }
        })
        .collect();
    rows.extend(
        entries
            .iter()
            .filter(|entry| !entry.is_matched)
            .map(|entry| SizeAsk {
                size: entry.presentation.map_or_else(
                    || entry.size.map_or_else(String::new, |size| size.to_string()),
                    str::to_owned,
                ),
                lowest_ask_cents: entry.cents,
            }),
    );
    rows
}

/// The size with the lowest ask, if any size has one (the first such size on a tie).
#[must_use]
pub fn lowest_size_ask(sizes: &[SizeAsk]) -> Option<(&str, i64)> {
    sizes
        .iter()
        .filter_map(|row| row.lowest_ask_cents.map(|cents| (row.size.as_str(), cents)))
        .min_by_key(|(_, cents)| *cents)
}
