//! Flips: what one size in stock at a store leaves when bought there and sold on a resale
//! marketplace, in integer cents of one currency.
//!
//! - **Buy cost**: the store's price + shipping + sales tax (a percentage of the price, rounded
//!   to the cent).
//! - **Sell**: each marketplace's price for the size, "sell now" (its highest bid, where the
//!   source gives bids) and "list at" (its lowest ask), each less that marketplace's fees
//!   (commission and processing as percentages of the price, each rounded to the cent, plus the
//!   flat fee): the payout.
//! - **Profit** = payout - buy cost; **ROI** = profit / buy cost.
//!
//! A row's headline is its best "sell now" when a marketplace bids on the size (a sale that can
//! happen now), else its best "list at". A size that cannot be reckoned honestly gives no row
//! but a reason ([`NoFlip`]): no US size, a store price of 0 or none, a currency the
//! marketplace does not quote, no price for the size, or fees above every price.

use crate::model::flips::{
    FeeSchedule, Flip, FlipSettings, PRICED_VENUE, SalesScope, SellBasis, SellOption,
};

/// Why a size in stock gives no row.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoFlip {
    /// The store's size label holds no size to compare.
    #[error("the store's size label gives no US size")]
    NoSize,
    /// The store's price is 0, missing, or not a price.
    #[error("the store's price is 0 or missing")]
    NoPrice,
    /// The store prices in a currency the marketplace does not quote.
    #[error("the store prices in a currency no marketplace priced here quotes")]
    Currency,
    /// No marketplace has a price for the size.
    #[error("no marketplace has a price for the size")]
    NoPriceToSell,
    /// Every price the size could be sold at is below the marketplace's fees.
    #[error("the marketplace's fees exceed its price for the size")]
    FeesExceedPrice,
}

/// One size a store has in stock, as its reading gave it.
#[derive(Debug, Clone, Copy)]
pub struct StoreSize<'a> {
    /// The catalogue product it matched.
    pub product_id: &'a str,
    /// The catalogue product's style code.
    pub style_code: &'a str,
    /// The catalogue product's title.
    pub title: &'a str,
    /// The catalogue product's brand.
    pub brand: &'a str,
    /// The US size read from the store's label ("" when none could be read).
    pub size: &'a str,
    /// The label as the store wrote it.
    pub size_label: &'a str,
    /// The store's name (host).
    pub store: &'a str,
    /// The store's address (origin), for the costs the user set per store.
    pub store_origin: &'a str,
    /// The store's page for the size.
    pub store_url: &'a str,
    /// Whether the store is the simulator.
    pub simulated: bool,
    /// How it was matched (`style code`, `barcode`, `simulated`).
    pub matched_by: &'a str,
    /// The price in minor units of `currency`; `None` when the store wrote none.
    pub price_cents: Option<i64>,
    /// The store's currency, when known.
    pub currency: Option<&'a str>,
    /// When the store's price and stock were read (Unix seconds).
    pub read_at_unix: Option<i64>,
}

/// One marketplace's prices for the size.
#[derive(Debug, Clone, Copy)]
pub struct MarketPrice<'a> {
    /// The marketplace (`resale-b`).
    pub venue: &'a str,
    /// The currency of its prices.
    pub currency: &'a str,
    /// Its lowest ask, in cents ("list at").
    pub lowest_ask_cents: Option<i64>,
    /// Its highest bid, in cents ("sell now"), where the source gives bids.
    pub highest_bid_cents: Option<i64>,
    /// Asks open for the size, when the source says.
    pub asks: Option<u32>,
    /// Where the prices come from.
    pub source: &'a str,
    /// When they were fetched (RFC 3339).
    pub as_of: &'a str,
}

/// Recent sales of the size (or of its product).
#[derive(Debug, Clone, Copy)]
pub struct SalesFigure<'a> {
    /// Sales counted.
    pub count: u32,
    /// The days they were counted over.
    pub days: u32,
    /// Of the size, or of the whole product.
    pub scope: SalesScope,
    /// Where the figures come from.
    pub source: &'a str,
    /// When they were fetched (RFC 3339).
    pub as_of: &'a str,
}

/// `percent` of `cents`, rounded half away from zero.
fn percent_of_cents(cents: i64, percent: f64) -> i64 {
    (cents as f64 * percent / 100.0).round() as i64
}

/// A store's price as Shopify writes it (`"110.00"`, `"110"`), in cents; `None` for anything
/// else (a sign, more than two decimals, letters).
#[must_use]
pub fn store_price_cents(text: &str) -> Option<i64> {
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty()
        || whole.len() > 12
        || !digits(whole)
        || fraction.len() > 2
        || !digits(fraction)
    {
        return None;
    }
    let whole: i64 = whole.parse().ok()?;
    let fraction: i64 = if fraction.is_empty() {
        0
    } else {
        format!("{fraction:0<2}").parse().ok()?
    };
    Some(whole * 100 + fraction)
}

/// The sales tax on `price_cents` at `percent`, and the buy cost: price + shipping + tax.
#[must_use]
pub fn buy_cost(price_cents: i64, shipping_cents: i64, tax_percent: f64) -> (i64, i64) {
    let tax = percent_of_cents(price_cents, tax_percent);
    (tax, price_cents + shipping_cents + tax)
}

/// The fees of a sale at `price_cents` and what it pays out; `None` when the fees exceed the
/// price (a sale that costs the seller money).
#[must_use]
pub fn sale(price_cents: i64, fees: FeeSchedule) -> Option<(i64, i64)> {
    let taken = percent_of_cents(price_cents, fees.commission_percent)
        + percent_of_cents(price_cents, fees.processing_percent)
        + fees.fixed_fee_cents;
    let payout = price_cents - taken;
    (payout >= 0).then_some((taken, payout))
}

/// The fees a row is reckoned with on `venue`: the user's for the marketplace the batched
/// prices come from; the payout calculator's preset for `resale-a`.
#[must_use]
pub fn fees_on(venue: &str, settings: &FlipSettings) -> Option<FeeSchedule> {
    if venue == PRICED_VENUE {
        return Some(settings.fees);
    }
    (venue == "resale-a").then(|| {
        let rates = super::payout::RESALE_A_DEFAULT_FEES;
        FeeSchedule {
            commission_percent: rates.commission_percent,
            processing_percent: rates.processing_percent,
            fixed_fee_cents: (rates.fixed_fee * 100.0).round() as i64,
        }
    })
}

/// The headline of a size: the profit and ROI at the best price (see the module docs), from its
/// buy price and each `(venue, basis, price)` it can be sold at. The fast path the ranking
/// runs over every size; [`flip`] gives the same figures with every input beside them.
///
/// # Errors
/// [`NoFlip::NoPriceToSell`] without any price, [`NoFlip::FeesExceedPrice`] when the fees exceed
/// every price.
pub fn headline(
    buy_price_cents: i64,
    shipping_cents: i64,
    tax_percent: f64,
    prices: impl IntoIterator<Item = (SellBasis, i64, FeeSchedule)>,
) -> Result<(i64, f64), NoFlip> {
    let (_, cost) = buy_cost(buy_price_cents, shipping_cents, tax_percent);
    let mut best: Option<(SellBasis, i64)> = None;
    let mut any = false;
    for (basis, price, fees) in prices {
        any = true;
        let Some((_, payout)) = sale(price, fees) else {
            continue;
        };
        let profit = payout - cost;
        if is_better((basis, profit), best) {
            best = Some((basis, profit));
        }
    }
    match best {
        Some((_, profit)) => Ok((profit, roi(profit, cost))),
        None if any => Err(NoFlip::FeesExceedPrice),
        None => Err(NoFlip::NoPriceToSell),
    }
}

/// Whether `(basis, profit)` beats `best`: a sale now beats a listing; then more profit.
fn is_better(candidate: (SellBasis, i64), best: Option<(SellBasis, i64)>) -> bool {
    match best {
        None => true,
        Some((basis, profit)) => {
            (candidate.0 == SellBasis::SellNow && basis == SellBasis::ListAt)
                || (candidate.0 == basis && candidate.1 > profit)
        }
    }
}

/// Profit over cost; the cost is never 0 here (a price of 0 gives no row).
fn roi(profit: i64, cost: i64) -> f64 {
    if cost == 0 {
        0.0
    } else {
        profit as f64 / cost as f64
    }
}

/// The buy price of `size` in a market quoting `market_currency`, checked: a US size, a price
/// above 0, the same currency.
///
/// # Errors
/// [`NoFlip::NoSize`], [`NoFlip::NoPrice`] or [`NoFlip::Currency`].
pub fn checked_buy(size: &StoreSize<'_>, market_currency: &str) -> Result<i64, NoFlip> {
    if size.size.trim().is_empty() {
        return Err(NoFlip::NoSize);
    }
    let price = size.price_cents.filter(|p| *p > 0).ok_or(NoFlip::NoPrice)?;
    match size.currency {
        Some(currency) if currency.eq_ignore_ascii_case(market_currency) => Ok(price),
        _ => Err(NoFlip::Currency),
    }
}

fn rfc3339(unix: i64) -> Option<String> {
    chrono::DateTime::from_timestamp(unix, 0)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

fn age_secs(at_unix: Option<i64>, now_unix: i64) -> Option<u64> {
    at_unix.and_then(|at| u64::try_from(now_unix - at).ok())
}

/// The whole row of `size` sold on the marketplaces of `prices` (those in the store's currency
/// count), with `settings`' costs and fees, ages counted at `now_unix`.
///
/// # Errors
/// The [`NoFlip`] reason when the size cannot be reckoned honestly.
pub fn flip(
    size: &StoreSize<'_>,
    prices: &[MarketPrice<'_>],
    sales: Option<&SalesFigure<'_>>,
    settings: &FlipSettings,
    now_unix: i64,
) -> Result<Flip, NoFlip> {
    let Some(first) = prices.first() else {
        checked_buy(size, size.currency.unwrap_or_default())?;
        return Err(NoFlip::NoPriceToSell);
    };
    let buy_price = checked_buy(size, first.currency)?;
    let currency = size.currency.unwrap_or_default();
    let (shipping, tax_percent, costs_are_defaults) =
        settings.costs_at(size.store, size.store_origin, currency);
    let (sales_tax, cost) = buy_cost(buy_price, shipping, tax_percent);
    let mut options: Vec<SellOption> = Vec::new();
    let mut asks = None;
    let mut any_price = false;
    for market in prices
        .iter()
        .filter(|p| p.currency.eq_ignore_ascii_case(currency))
    {
        let Some(fees) = fees_on(market.venue, settings) else {
            continue;
        };
        for (basis, price) in [
            (SellBasis::SellNow, market.highest_bid_cents),
            (SellBasis::ListAt, market.lowest_ask_cents),
        ] {
            let Some(price) = price.filter(|p| *p > 0) else {
                continue;
            };
            any_price = true;
            if basis == SellBasis::ListAt {
                asks = asks.or(market.asks);
            }
            let Some((taken, payout)) = sale(price, fees) else {
                continue;
            };
            options.push(SellOption {
                venue: market.venue.to_owned(),
                basis,
                price,
                fees: taken,
                payout,
                profit: payout - cost,
                source: market.source.to_owned(),
                as_of: market.as_of.to_owned(),
            });
        }
    }
    let mut best: Option<usize> = None;
    for (at, option) in options.iter().enumerate() {
        let current = best.map(|b| (options[b].basis, options[b].profit));
        if is_better((option.basis, option.profit), current) {
            best = Some(at);
        }
    }
    let Some(best) = best else {
        return Err(if any_price {
            NoFlip::FeesExceedPrice
        } else {
            NoFlip::NoPriceToSell
        });
    };
    let chosen = options[best].clone();
    let fee_rates = fees_on(&chosen.venue, settings).unwrap_or(settings.fees);
    let price_as_of = chrono::DateTime::parse_from_rfc3339(&chosen.as_of)
        .ok()
        .map(|t| t.timestamp());
    Ok(Flip {
        product_id: size.product_id.to_owned(),
        style_code: size.style_code.to_owned(),
        title: size.title.to_owned(),
        brand: size.brand.to_owned(),
        size: size.size.to_owned(),
        size_label: size.size_label.to_owned(),
        store: size.store.to_owned(),
        store_url: size.store_url.to_owned(),
        simulated: size.simulated,
        matched_by: size.matched_by.to_owned(),
        currency: currency.to_ascii_uppercase(),
        buy_price,
        shipping,
        sales_tax,
        sales_tax_percent: tax_percent,
        buy_cost: cost,
        costs_are_defaults,
        sell_venue: chosen.venue.clone(),
        sell_basis: chosen.basis,
        sell_price: chosen.price,
        fees: chosen.fees,
        fee_rates,
        payout: chosen.payout,
        profit: chosen.profit,
        roi: roi(chosen.profit, cost),
        sales_30d: sales.map(|s| s.count),
        sales_days: sales.map(|s| s.days),
        sales_scope: sales.map(|s| s.scope),
        sales_source: sales.map(|s| s.source.to_owned()),
        sales_as_of: sales.map(|s| s.as_of.to_owned()),
        thin_market: sales.is_none_or(|s| s.count < settings.thin_below),
        store_read_at: size.read_at_unix.and_then(rfc3339),
        store_age_secs: age_secs(size.read_at_unix, now_unix),
        price_source: chosen.source.clone(),
        price_as_of: chosen.as_of.clone(),
        price_age_secs: age_secs(price_as_of, now_unix),
        asks,
        sell_options: options,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::flips::StoreCosts;

    const NOW: i64 = 1_795_000_000;

    fn size(price_cents: Option<i64>) -> StoreSize<'static> {
        StoreSize {
            product_id: "p-1",
            style_code: "CT8527-016",
            title: "Air Jordan 4 Retro 'Military Black'",
            brand: "Jordan",
            size: "8",
            size_label: "US 8",
            store: "kicks.example",
            store_origin: "https://kicks.example",
            store_url: "https://kicks.example/products/aj4-military-black?variant=1",
            simulated: false,
            matched_by: "style code",
            price_cents,
            currency: Some("USD"),
            read_at_unix: Some(NOW - 600),
        }
    }

    fn market(ask: Option<i64>, bid: Option<i64>) -> MarketPrice<'static> {
        MarketPrice {
            venue: "resale-b",
            currency: "USD",
            lowest_ask_cents: ask,
            highest_bid_cents: bid,
            asks: Some(4),
            source: "kicksdb",
            as_of: "2026-11-18T11:06:40Z",
        }
    }

    #[test]
    fn store_prices_read_as_shopify_writes_them() {
        assert_eq!(store_price_cents("110.00"), Some(11_000));
        assert_eq!(store_price_cents(" 99.5 "), Some(9_950));
        assert_eq!(store_price_cents("180"), Some(18_000));
        assert_eq!(store_price_cents("0.00"), Some(0));
        for bad in ["", "-5.00", "1.234", "abc", "1,50", ".50", "1e3"] {
            assert_eq!(store_price_cents(bad), None, "{bad}");
        }
    }

    /// The pair: a store at 100.00 USD, StockX asking 312.00 for US 8.
    #[test]
    fn a_known_flip_gives_the_profit_the_rates_give() {
        let settings = FlipSettings::default();
        let row = flip(
            &size(Some(10_000)),
            &[market(Some(31_200), None)],
            Some(&SalesFigure {
                count: 12,
                days: 30,
                scope: SalesScope::Size,
                source: "kicksdb",
                as_of: "2026-11-18T00:00:00Z",
            }),
            &settings,
            NOW,
        )
        .unwrap();
        // Buy: 100.00 + 10.00 shipping + 7.5 % tax (7.50) = 117.50.
        assert_eq!(
            (row.buy_price, row.shipping, row.sales_tax),
            (10_000, 1_000, 750)
        );
        assert_eq!(row.buy_cost, 11_750);
        assert!(row.costs_are_defaults);
        // Sell at level 1: 9 % of 312.00 = 28.08, 3 % = 9.36: fees 37.44, payout 274.56.
        assert_eq!(
            (row.sell_price, row.fees, row.payout),
            (31_200, 3_744, 27_456)
        );
        assert_eq!(row.sell_basis, SellBasis::ListAt);
        // Profit 274.56 - 117.50 = 157.06; ROI 157.06 / 117.50.
        assert_eq!(row.profit, 15_706);
        assert!((row.roi - 15_706.0 / 11_750.0).abs() < 1e-12);
        assert_eq!(row.store_age_secs, Some(600));
        assert_eq!(row.store_read_at.as_deref(), Some("2026-11-18T10:56:40Z"));
        assert_eq!(row.price_age_secs, Some(0));
        assert_eq!((row.sales_30d, row.thin_market), (Some(12), false));
        assert_eq!(row.asks, Some(4));
        // The fast path agrees.
        let fast = headline(
            10_000,
            1_000,
            7.5,
            [(SellBasis::ListAt, 31_200, settings.fees)],
        )
        .unwrap();
        assert_eq!(fast.0, row.profit);
    }

    #[test]
    fn a_higher_seller_level_and_the_users_own_costs_move_the_profit() {
        let settings = FlipSettings {
            seller_level: 5,
            fees: FeeSchedule::seller_level(5),
            stores: vec![StoreCosts {
                store: "kicks.example".into(),
                shipping_cents: Some(0),
                sales_tax_percent: Some(8.875),
            }],
            ..FlipSettings::default()
        };
        let row = flip(
            &size(Some(10_000)),
            &[market(Some(31_200), None)],
            None,
            &settings,
            NOW,
        )
        .unwrap();
        // Tax 8.875 % of 100.00 = 8.875 -> 8.88 (half away from zero); no shipping.
        assert_eq!((row.sales_tax, row.buy_cost), (888, 10_888));
        assert!(!row.costs_are_defaults);
        // Level 5: 7 % = 21.84, 3 % = 9.36: fees 31.20, payout 280.80, profit 171.92.
        assert_eq!((row.fees, row.payout, row.profit), (3_120, 28_080, 17_192));
        // No sales figures: a thin market, said so.
        assert_eq!((row.sales_30d, row.thin_market), (None, true));
    }

    #[test]
    fn a_bid_is_the_headline_and_the_ask_stays_beside_it() {
        let row = flip(
            &size(Some(10_000)),
            &[market(Some(31_200), Some(29_000))],
            None,
            &FlipSettings::default(),
            NOW,
        )
        .unwrap();
        assert_eq!(row.sell_basis, SellBasis::SellNow);
        // 290.00 - 26.10 - 8.70 = 255.20; - 117.50 = 137.70.
        assert_eq!(
            (row.sell_price, row.payout, row.profit),
            (29_000, 25_520, 13_770)
        );
        let list_at = row
            .sell_options
            .iter()
            .find(|o| o.basis == SellBasis::ListAt)
            .unwrap();
        assert_eq!(list_at.profit, 15_706);
    }

    #[test]
    fn bad_input_gives_a_reason_never_a_profit() {
        let settings = FlipSettings::default();
        let ask = [market(Some(31_200), None)];
        let no_size = StoreSize {
            size: "",
            ..size(Some(10_000))
        };
        assert_eq!(
            flip(&no_size, &ask, None, &settings, NOW),
            Err(NoFlip::NoSize)
        );
        assert_eq!(
            flip(&size(Some(0)), &ask, None, &settings, NOW),
            Err(NoFlip::NoPrice)
        );
        assert_eq!(
            flip(&size(None), &ask, None, &settings, NOW),
            Err(NoFlip::NoPrice)
        );
        let pounds = StoreSize {
            currency: Some("GBP"),
            ..size(Some(10_000))
        };
        assert_eq!(
            flip(&pounds, &ask, None, &settings, NOW),
            Err(NoFlip::Currency)
        );
        let unknown = StoreSize {
            currency: None,
            ..size(Some(10_000))
        };
        assert_eq!(
            flip(&unknown, &ask, None, &settings, NOW),
            Err(NoFlip::Currency)
        );
        assert_eq!(
            flip(
                &size(Some(10_000)),
                &[market(None, None)],
                None,
                &settings,
                NOW
            ),
            Err(NoFlip::NoPriceToSell)
        );
        // A flat fee of 20.00 on an ask of 15.00: the fees exceed the price.
        let dear = FlipSettings {
            fees: FeeSchedule {
                fixed_fee_cents: 2_000,
                ..settings.fees
            },
            ..FlipSettings::default()
        };
        assert_eq!(
            flip(
                &size(Some(1_000)),
                &[market(Some(1_500), None)],
                None,
                &dear,
                NOW
            ),
            Err(NoFlip::FeesExceedPrice)
        );
        assert_eq!(
            headline(1_000, 0, 0.0, [(SellBasis::ListAt, 1_500, dear.fees)]),
            Err(NoFlip::FeesExceedPrice)
        );
    }

    #[test]
    fn a_loss_is_a_row_with_its_negative_profit() {
        // 100.00 at the store, 110.00 asked: 110 - 13.20 fees = 96.80 < 117.50.
        let row = flip(
            &size(Some(10_000)),
            &[market(Some(11_000), None)],
            None,
            &FlipSettings::default(),
            NOW,
        )
        .unwrap();
        assert_eq!((row.payout, row.profit), (9_680, 9_680 - 11_750));
        assert!(row.roi < 0.0);
    }

    #[test]
    fn euro_stores_pay_no_default_sales_tax() {
        let euros = StoreSize {
            currency: Some("EUR"),
            ..size(Some(10_000))
        };
        let row = flip(
            &euros,
            &[MarketPrice {
                currency: "EUR",
                ..market(Some(20_000), None)
            }],
            None,
            &FlipSettings::default(),
            NOW,
        )
        .unwrap();
        assert_eq!(
            (row.sales_tax, row.buy_cost, row.currency.as_str()),
            (0, 11_000, "EUR")
        );
    }
}
