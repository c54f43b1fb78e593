//! Price alerts, their firings and per-size price history: the plain data the user database
//! stores, the monitor evaluates and the panels draw. Money is in integer cents with its
//! currency; times are Unix seconds (UTC).
//!
//! A product is kept by its identity (catalogue id, style code, title snapshot), so an alert
//! and its history survive a catalogue being replaced. Sizes are kept as size keys
//! (`figures::size_key`: `9`, `W 8`, `5.5Y`), so that the marketplaces' different labels for one
//! size (`9`, `US M 9 / UK 8 / EU 42.5`) meet.

use serde::{Deserialize, Serialize};

/// What makes an alert fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// The lowest ask is at or below the alert's price.
    AskAtOrBelow,
    /// The highest bid is at or above the alert's price.
    BidAtOrAbove,
    /// The retailer has the size (or any size) in stock again.
    BackInStock,
}

impl AlertKind {
    /// Every kind, in the order the form lists them.
    pub const ALL: [AlertKind; 3] = [
        AlertKind::AskAtOrBelow,
        AlertKind::BidAtOrAbove,
        AlertKind::BackInStock,
    ];

    /// The name stored in the database.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AlertKind::AskAtOrBelow => "ask_at_or_below",
            AlertKind::BidAtOrAbove => "bid_at_or_above",
            AlertKind::BackInStock => "back_in_stock",
        }
    }

    /// The kind named `name` in the database.
    #[must_use]
    pub fn from_name(name: &str) -> Option<AlertKind> {
        AlertKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }

    /// Whether the kind compares against a price (stock alerts have none).
    #[must_use]
    pub fn needs_price(self) -> bool {
        !matches!(self, AlertKind::BackInStock)
    }

    /// Words for the form and the list.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            AlertKind::AskAtOrBelow => "Lowest ask at or below",
            AlertKind::BidAtOrAbove => "Highest bid at or above",
            AlertKind::BackInStock => "Retailer stock back",
        }
    }
}

/// A real-time source prices come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum QuoteSource {
    /// `resale-a`: per-size lowest asks.
    ResaleA,
    /// `resale-b`: the marketplace's order book.
    ResaleB,
    /// `retailer-a`: per-size retail price and stock.
    Retailer,
}

impl QuoteSource {
    /// Every source.
    pub const ALL: [QuoteSource; 3] = [
        QuoteSource::ResaleA,
        QuoteSource::ResaleB,
        QuoteSource::Retailer,
    ];

    /// The source's name as the interface writes it (and the database stores it).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            QuoteSource::ResaleA => "resale-a",
            QuoteSource::ResaleB => "resale-b",
            QuoteSource::Retailer => "retailer-a",
        }
    }

    /// The source named `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<QuoteSource> {
        QuoteSource::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// Which product an alert or a history row is about: enough to look it up again and to show it
/// even when the catalogue no longer has it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProductRef {
    /// The catalogue id (UUID) or slug the real-time endpoints are asked with.
    pub product_id: String,
    /// Manufacturer style code.
    pub style_code: String,
    /// The title when the alert was made.
    pub title: String,
}

/// An alert as the user asks for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewAlert {
    /// The product.
    pub product: ProductRef,
    /// The size key (see the module docs); `None` for any size.
    pub size: Option<String>,
    /// What makes it fire.
    pub kind: AlertKind,
    /// The price compared against, in cents of `currency`; `None` for [`AlertKind::BackInStock`].
    pub price_cents: Option<i64>,
    /// The price's currency code (`USD`).
    pub currency: String,
}

/// A stored alert.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alert {
    /// Row id.
    pub id: i64,
    /// What the user asked for.
    pub spec: NewAlert,
    /// Whether it may fire: cleared when it fires, set again once the price has moved back.
    pub armed: bool,
    /// When it was made.
    pub created_at: i64,
}

/// A recorded firing of an alert: what the notification said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlertFiring {
    /// Row id.
    pub id: i64,
    /// The alert that fired (kept when the alert is deleted, as `None`).
    pub alert_id: Option<i64>,
    /// The product.
    pub product: ProductRef,
    /// The kind of the alert.
    pub kind: AlertKind,
    /// The size key the price was seen for.
    pub size: String,
    /// Where the price was seen.
    pub source: QuoteSource,
    /// The price seen, in cents of `currency`; `None` for a stock alert without a price.
    pub price_cents: Option<i64>,
    /// Currency code.
    pub currency: String,
    /// When it fired.
    pub fired_at: i64,
}

/// One size's prices on one source at one moment, as a real-time answer gave them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeQuote {
    /// Where from.
    pub source: QuoteSource,
    /// The size key.
    pub size: String,
    /// The size label as the source wrote it.
    pub label: String,
    /// Lowest ask (or the retailer's price when in stock), in cents; `None` when nobody asks.
    pub lowest_ask_cents: Option<i64>,
    /// Highest bid, in cents; `None` when the source gives none for the size.
    pub highest_bid_cents: Option<i64>,
    /// Last sale, in cents; `None` when the source gives none for the size.
    pub last_sale_cents: Option<i64>,
    /// Retail stock: `Some(true)` in stock, `None` when the source does not sell.
    pub in_stock: Option<bool>,
    /// Currency code of every price.
    pub currency: String,
    /// The storefront the quote comes from (its host, `kith.com`) when `retailer-a` is read
    /// from real stores; `None` for a single source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// Where the size can be bought (the store's page for it), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

impl SizeQuote {
    /// A USD quote of `source` for `size` (key and label alike) with only a lowest ask.
    #[must_use]
    pub fn ask_only(source: QuoteSource, size: &str, lowest_ask_cents: Option<i64>) -> Self {
        Self {
            source,
            size: size.into(),
            label: size.into(),
            lowest_ask_cents,
            highest_bid_cents: None,
            last_sale_cents: None,
            in_stock: None,
            currency: "USD".into(),
            store: None,
            link: None,
        }
    }
}

/// One row of per-size price history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PricePoint {
    /// The size key.
    pub size: String,
    /// Where from.
    pub source: QuoteSource,
    /// When it was seen (the latest answer within its 15-minute slot).
    pub at: i64,
    /// Lowest ask in cents.
    pub lowest_ask_cents: Option<i64>,
    /// Highest bid in cents.
    pub highest_bid_cents: Option<i64>,
    /// Last sale in cents.
    pub last_sale_cents: Option<i64>,
    /// Currency code.
    pub currency: String,
    /// The storefront the price was read at (its label, `kith.com`) when `retailer-a` is read
    /// from real stores; `None` for a single source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
}
