//! Where to buy and where to sell one size: the best ask across the sources looked up, the
//! price a sale would fetch, what each resale marketplace pays out after its fees (the payout
//! calculator's presets), and the margin of buying at the best ask and selling at the best
//! payout, when that pays.
//!
//! A sale is priced at the size's highest bid when a source gives one, else at its lowest resale
//! ask (what a new listing would have to match): the real-time sources of this interface give
//! per-size asks (`resale-a`) and retail prices (`retailer-a`), the batched prices per-size asks
//! of `resale-b` (the same prices the flip list sells at), but no per-size bids.
//!
//! Fees as the flip list reckons them by default (`figures::flips`): `resale-b`, the largest
//! marketplace, at seller level 1 (9 % commission, 3 % processing); `resale-a` at the payout
//! calculator's preset.

use std::collections::BTreeMap;

use super::payout::{FeeRates, RESALE_A_DEFAULT_FEES, payout_with};
use super::sizes::parse_size;
use crate::model::{QuoteSource, SizeQuote};

/// Who asks a price: a source, and for `retailer-a` read from real storefronts, which store
/// (one column each in the table).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Seller {
    /// The source.
    pub source: QuoteSource,
    /// The storefront (its host), when the source is read from several.
    pub store: Option<String>,
}

impl Seller {
    /// The name shown: the store's host, else the source's name.
    #[must_use]
    pub fn name(&self) -> &str {
        self.store.as_deref().unwrap_or(self.source.as_str())
    }
}

impl From<QuoteSource> for Seller {
    fn from(source: QuoteSource) -> Self {
        Self {
            source,
            store: None,
        }
    }
}

/// One seller's price for one size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SellerAsk {
    /// Who.
    pub seller: Seller,
    /// The ask (a store's price when the size is in stock), in cents; `None`: nobody asks.
    pub cents: Option<i64>,
    /// Retail stock, when the seller is a store.
    pub in_stock: Option<bool>,
    /// The seller's page for the size, when known.
    pub link: Option<String>,
}

/// What selling on one marketplace pays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SellOption {
    /// The marketplace.
    pub source: QuoteSource,
    /// What the seller is paid after fees, in cents (negative when the fees exceed the price).
    pub payout_cents: i64,
}

/// One size of the where-to-buy, where-to-sell table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradeRow {
    /// The size key.
    pub size: String,
    /// Each seller's ask for the size, in seller order (source, then store).
    pub asks: Vec<SellerAsk>,
    /// The lowest ask and where, if any seller asks.
    pub best_buy: Option<(Seller, i64)>,
    /// The highest bid and where, if any source gives one.
    pub best_bid: Option<(QuoteSource, i64)>,
    /// The price a sale is reckoned at (see the module docs), in cents.
    pub sale_price_cents: Option<i64>,
    /// What each resale marketplace pays for a sale at that price.
    pub sells: Vec<SellOption>,
    /// The marketplace that pays most.
    pub best_sell: Option<SellOption>,
    /// Best payout minus best ask, only when positive (buying here and selling there pays).
    pub margin_cents: Option<i64>,
}

/// The fees a marketplace is reckoned with: the flip list's defaults.
fn fees(source: QuoteSource) -> Option<FeeRates> {
    match source {
        QuoteSource::ResaleA => Some(RESALE_A_DEFAULT_FEES),
        QuoteSource::ResaleB => {
            let level = crate::model::flips::FeeSchedule::seller_level(1);
            Some(FeeRates {
                commission_percent: level.commission_percent,
                processing_percent: level.processing_percent,
                fixed_fee: level.fixed_fee_cents as f64 / 100.0,
            })
        }
        QuoteSource::Retailer => None,
    }
}

/// The table for `quotes` in `currency`, one row per size, sizes in size order. Quotes in
/// another currency are left out (they cannot be compared).
#[must_use]
pub fn where_to_trade(quotes: &[SizeQuote], currency: &str) -> Vec<TradeRow> {
    let mut by_size: BTreeMap<String, Vec<&SizeQuote>> = BTreeMap::new();
    for quote in quotes
        .iter()
        .filter(|q| q.currency.eq_ignore_ascii_case(currency))
    {
        by_size.entry(quote.size.clone()).or_default().push(quote);
    }
    let mut rows: Vec<TradeRow> = by_size
        .into_iter()
        .map(|(size, quotes)| trade_row(size, &quotes))
        .collect();
    rows.sort_by(|a, b| {
        let (pa, pb) = (parse_size(&a.size), parse_size(&b.size));
        pa.run
            .cmp(&pb.run)
            .then_with(|| {
                pa.number
                    .unwrap_or(f64::INFINITY)
                    .total_cmp(&pb.number.unwrap_or(f64::INFINITY))
            })
            .then_with(|| a.size.cmp(&b.size))
    });
    rows
}

fn trade_row(size: String, quotes: &[&SizeQuote]) -> TradeRow {
    let mut asks: Vec<SellerAsk> = quotes
        .iter()
        .map(|q| SellerAsk {
            seller: Seller {
                source: q.source,
                store: q.store.clone(),
            },
            cents: q.lowest_ask_cents,
            in_stock: q.in_stock,
            link: q.link.clone(),
        })
        .collect();
    asks.sort_by(|a, b| a.seller.cmp(&b.seller));
    let best_buy = asks
        .iter()
        .filter_map(|ask| ask.cents.map(|cents| (ask.seller.clone(), cents)))
        .min_by_key(|(_, cents)| *cents);
    let best_bid = quotes
        .iter()
        .filter_map(|q| q.highest_bid_cents.map(|cents| (q.source, cents)))
        .max_by_key(|(_, cents)| *cents);
    let lowest_resale_ask = quotes
        .iter()
        .filter(|q| fees(q.source).is_some())
        .filter_map(|q| q.lowest_ask_cents)
        .min();
    let sale_price_cents = best_bid.map(|(_, cents)| cents).or(lowest_resale_ask);
    let sells: Vec<SellOption> = sale_price_cents
        .map(|price| {
            [QuoteSource::ResaleA, QuoteSource::ResaleB]
                .into_iter()
                .filter_map(|source| {
                    let rates = fees(source)?;
                    let payout = payout_with(price as f64 / 100.0, rates).ok()?;
                    Some(SellOption {
                        source,
                        payout_cents: (payout.net * 100.0).round() as i64,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let best_sell = sells.iter().max_by_key(|s| s.payout_cents).cloned();
    let margin_cents = match (&best_buy, &best_sell) {
        (Some((_, buy)), Some(sell)) => Some(sell.payout_cents - buy).filter(|m| *m > 0),
        _ => None,
    };
    TradeRow {
        size,
        asks,
        best_buy,
        best_bid,
        sale_price_cents,
        sells,
        best_sell,
        margin_cents,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_store_is_a_seller_of_its_own_with_its_link_and_the_cheapest_buys() {
        let store = |name: &str, ask: Option<i64>, in_stock: bool| SizeQuote {
            store: Some(name.into()),
            link: Some(format!("https://{name}/products/x?variant=1")),
            in_stock: Some(in_stock),
            ..quote(QuoteSource::Retailer, "9", ask)
        };
        let quotes = vec![
            quote(QuoteSource::ResaleA, "9", Some(25_000)),
            store("b.example", None, false),
            store("a.example", Some(11_000), true),
        ];
        let rows = where_to_trade(&quotes, "USD");
        let names: Vec<&str> = rows[0].asks.iter().map(|a| a.seller.name()).collect();
        assert_eq!(names, ["resale-a", "a.example", "b.example"]);
        let sold_out = &rows[0].asks[2];
        assert_eq!((sold_out.cents, sold_out.in_stock), (None, Some(false)));
        assert_eq!(
            sold_out.link.as_deref(),
            Some("https://b.example/products/x?variant=1")
        );
        let (seller, cents) = rows[0].best_buy.clone().unwrap();
        assert_eq!((seller.name(), cents), ("a.example", 11_000));
    }

    /// KicksDB's case: the only resale prices are the batched per-size asks of `resale-b`; a
    /// store sells the size at 100.00 and 312.00 is asked: the sale is priced, paid out and
    /// the margin shown, as the flip list reckons it.
    #[test]
    fn batched_prices_alone_price_the_sale_and_its_payout() {
        let prices = crate::model::prices::CodePrices {
            sku: "CT8527-016".into(),
            product_sku: "CT8527-016".into(),
            product_id: "p".into(),
            currency: "USD".into(),
            source: "kicksdb".into(),
            as_of: "2026-11-18T11:06:40Z".into(),
            sizes: vec![crate::model::prices::SizePrice {
                size: "8".into(),
                lowest_ask: 312.0,
                asks: Some(4),
            }],
        };
        let mut quotes = crate::figures::quotes_from_prices(&prices);
        quotes.push(SizeQuote {
            store: Some("kicks.example".into()),
            in_stock: Some(true),
            label: "US 8 / UK 7 / EU 41".into(),
            ..quote(QuoteSource::Retailer, "8", Some(10_000))
        });
        let rows = where_to_trade(&quotes, "USD");
        assert_eq!(rows.len(), 1, "{rows:?}");
        let eight = &rows[0];
        assert_eq!(eight.sale_price_cents, Some(31_200));
        let on_b = eight
            .sells
            .iter()
            .find(|s| s.source == QuoteSource::ResaleB);
        // 312.00 - 28.08 - 9.36 = 274.56, as the flip list pays it.
        assert_eq!(on_b.map(|s| s.payout_cents), Some(27_456));
        assert_eq!(eight.margin_cents, Some(27_456 - 10_000));
    }

    fn quote(source: QuoteSource, size: &str, ask: Option<i64>) -> SizeQuote {
        SizeQuote::ask_only(source, size, ask)
    }

    #[test]
    fn the_best_buy_the_best_sell_and_a_margin_only_when_it_pays() {
        let quotes = vec![
            quote(QuoteSource::ResaleA, "10", Some(30_000)),
            quote(QuoteSource::Retailer, "10", Some(18_000)),
            quote(QuoteSource::ResaleA, "9", Some(20_000)),
            quote(QuoteSource::Retailer, "9", None),
            SizeQuote {
                currency: "EUR".into(),
                ..quote(QuoteSource::Retailer, "9", Some(1))
            },
        ];
        let rows = where_to_trade(&quotes, "USD");
        assert_eq!(
            rows.iter().map(|r| r.size.as_str()).collect::<Vec<_>>(),
            ["9", "10"]
        );
        let ten = &rows[1];
        assert_eq!(ten.best_buy, Some((QuoteSource::Retailer.into(), 18_000)));
        assert_eq!(ten.sale_price_cents, Some(30_000));
        // resale-a: 300 - 9 % - 3 % - 5 = 259; resale-b at level 1: 300 - 9 % - 3 % = 264.
        assert_eq!(
            ten.sells,
            vec![
                SellOption {
                    source: QuoteSource::ResaleA,
                    payout_cents: 25_900
                },
                SellOption {
                    source: QuoteSource::ResaleB,
                    payout_cents: 26_400
                },
            ]
        );
        assert_eq!(
            ten.best_sell.as_ref().map(|s| s.source),
            Some(QuoteSource::ResaleB)
        );
        assert_eq!(ten.margin_cents, Some(26_400 - 18_000));
        // Size 9: only resale-a asks; selling there again pays less than buying costs.
        let nine = &rows[0];
        assert_eq!(nine.best_buy, Some((QuoteSource::ResaleA.into(), 20_000)));
        assert_eq!(nine.margin_cents, None);
        assert_eq!(
            nine.asks
                .iter()
                .map(|a| (a.seller.source, a.cents))
                .collect::<Vec<_>>(),
            vec![
                (QuoteSource::ResaleA, Some(20_000)),
                (QuoteSource::Retailer, None)
            ]
        );
    }
}
