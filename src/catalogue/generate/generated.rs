//! The shape of one generated product with everything that hangs off it: made by `product`,
//! priced further by `snapshot`, written by `writer`. Apart from them so that `product` and
//! `snapshot` do not import each other.

use chrono::NaiveDate;

use super::WEEKS;
use super::data::{self, SizeRun};

/// One product with everything that hangs off it.
pub(super) struct GeneratedProduct {
    pub id: String,
    pub slug: String,
    pub sku: String,
    pub title: String,
    pub brand: &'static str,
    pub model: String,
    pub category: String,
    pub run: SizeRun,
    pub color: String,
    pub description: Option<String>,
    /// `None` when the release date is not known.
    pub release_date: Option<NaiveDate>,
    pub release_year_only: bool,
    pub retail_usd_cents: i64,
    pub retail_eur_cents: i64,
    pub availability: &'static str,
    pub labels: Vec<&'static str>,
    pub inserted_at: String,
    pub variants: Vec<GeneratedVariant>,
    pub weekly_orders: [u32; WEEKS],
    pub aov_cents: u32,
}

pub(super) struct GeneratedVariant {
    pub id: uuid::Uuid,
    pub size: &'static data::SizeRow,
    pub gtin: String,
    pub price_usd_cents: i64,
    pub price_eur_cents: i64,
}
