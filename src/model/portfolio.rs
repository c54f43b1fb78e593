//! The reseller's portfolio as plain data: the pairs held ([`Holding`]), each with a snapshot of
//! its product's identity, and the sales made of them ([`Sale`]). Money is in integer cents with
//! its currency. No I/O here: the user database stores these, the panel draws them.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// The state a pair was bought in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Condition {
    /// New, unworn, in its box.
    #[default]
    New,
    /// Worn.
    Used,
    /// New with a defect (a damaged box, a factory flaw).
    NewWithDefects,
}

impl Condition {
    /// Every condition, in the order offered.
    pub const ALL: [Condition; 3] = [Condition::New, Condition::Used, Condition::NewWithDefects];

    /// The word stored in the database and written in CSV files.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            Condition::New => "new",
            Condition::Used => "used",
            Condition::NewWithDefects => "new_with_defects",
        }
    }

    /// The name shown.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Condition::New => "new",
            Condition::Used => "used",
            Condition::NewWithDefects => "new with defects",
        }
    }

    /// Reads a condition as spreadsheets write it (`new`, `DS`, `used`, `worn`, `new with
    /// defects`, `defects`, ...); `None` when it is none of them.
    #[must_use]
    pub fn parse(text: &str) -> Option<Condition> {
        let word: String = text
            .trim()
            .to_ascii_lowercase()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        match word.as_str() {
            "" | "new" | "ds" | "deadstock" | "brandnew" => Some(Condition::New),
            "used" | "worn" | "preowned" | "vnds" => Some(Condition::Used),
            "newwithdefects" | "defects" | "defect" | "newdefects" | "bgrade" => {
                Some(Condition::NewWithDefects)
            }
            _ => None,
        }
    }
}

/// A pair of a product in one size, as bought. The product's identity is a snapshot (id, slug,
/// style code, title) so the pair survives a catalogue change and is matched again by style code
/// and size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pair {
    /// Product UUID when bought (may be unknown to a later catalogue).
    pub product_id: String,
    /// Product slug when bought.
    pub slug: String,
    /// Style code.
    pub sku: String,
    /// Product title when bought.
    pub title: String,
    /// Size label, as the catalogue writes it (`10`, `10.5Y`, `7C`).
    pub size: String,
    /// The pair's state.
    pub condition: Condition,
    /// The day it was bought.
    pub purchased_on: NaiveDate,
    /// What it cost, tax and shipping included, in cents of `currency`.
    pub cost_cents: i64,
    /// Currency code of the cost.
    pub currency: String,
    /// Where it was bought.
    pub bought_from: String,
    /// Free notes.
    pub notes: String,
    /// Free tags.
    pub tags: Vec<String>,
}

/// A sale of a held pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sale {
    /// The day it sold.
    pub sold_on: NaiveDate,
    /// The sale price, in cents of the holding's currency.
    pub price_cents: i64,
    /// Where it sold.
    pub marketplace: String,
    /// The marketplace's fees, in cents.
    pub fees_cents: i64,
    /// What the seller paid to ship it, in cents.
    pub shipping_cents: i64,
}

/// A pair in the portfolio: its row id, the pair, and its sale once sold (a sold pair stays, in
/// the history).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holding {
    /// Row id in the user database.
    pub id: i64,
    /// The pair.
    pub pair: Pair,
    /// The sale, once sold.
    pub sale: Option<Sale>,
}

/// The key a style code is matched by: letters and digits only, upper case, so `DD1391-100`,
/// `dd1391 100` and `DD1391100` are the same product.
#[must_use]
pub fn sku_key(sku: &str) -> String {
    sku.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}
