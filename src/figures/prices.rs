//! Price figures of one product: the retail price, the premium over it, the bid/ask spread.

use serde::{Deserialize, Serialize};

use crate::model::{Product, ResaleBNode};

/// The retail price of `product` in its own currency: the suggested retail price (`srp`)
/// when known, else the first other positive one. `None` when the key's tier leaves retail
/// prices out or none is in the product's currency.
#[must_use]
pub fn retail_price(product: &Product) -> Option<f64> {
    let prices = product.retail_prices.as_deref()?;
    let usable = |price: &&crate::model::RetailPrice| {
        price.currency.eq_ignore_ascii_case(&product.currency)
            && price.price.is_finite()
            && price.price > 0.0
    };
    prices
        .iter()
        .filter(usable)
        .find(|price| price.source == "srp")
        .or_else(|| prices.iter().find(usable))
        .map(|price| price.price)
}

/// Which resale price the premium is measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PremiumBasis {
    /// The product's average variant price.
    #[default]
    Average,
    /// The product's lowest variant price: what a buyer pays today at best.
    Lowest,
}

/// Resale price over retail.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Premium {
    /// Retail price, in the product's currency.
    pub retail: f64,
    /// Resale price measured, in the product's currency.
    pub resale: f64,
    /// `(resale − retail) / retail`: 0.5 is 50 % over retail, negative is under.
    pub ratio: f64,
}

/// The premium of `product`'s average or lowest price over its retail price, both in the
/// product's currency. `None` without a retail price (see [`retail_price`]) or without a
/// positive resale price.
#[must_use]
pub fn price_premium(product: &Product, basis: PremiumBasis) -> Option<Premium> {
    let retail = retail_price(product)?;
    let resale = match basis {
        PremiumBasis::Average => product.avg_price,
        PremiumBasis::Lowest => product.min_price,
    };
    if !(resale.is_finite() && resale > 0.0) {
        return None;
    }
    Some(Premium {
        retail,
        resale,
        ratio: (resale - retail) / retail,
    })
}

/// The gap between the lowest ask and the highest bid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// `lowest_ask − highest_bid`, in the market's currency; negative when the book is
    /// crossed (a bid above the lowest ask, which a live market settles within moments).
    pub absolute: f64,
    /// The spread as a share of the ask: 0.05 is 5 %.
    pub ratio_of_ask: f64,
}

/// The bid/ask spread; `None` when either side is missing (a marketplace reports an empty
/// side as 0) or not a number.
#[must_use]
pub fn spread(lowest_ask: f64, highest_bid: f64) -> Option<Spread> {
    let present = |amount: f64| amount.is_finite() && amount > 0.0;
    if !(present(lowest_ask) && present(highest_bid)) {
        return None;
    }
    let absolute = lowest_ask - highest_bid;
    Some(Spread {
        absolute,
        ratio_of_ask: absolute / lowest_ask,
    })
}

/// The bid/ask spread of a live `resale-b` product.
#[must_use]
pub fn spread_of(node: &ResaleBNode) -> Option<Spread> {
    spread(
        node.market.state.lowest_ask.amount,
        node.market.state.highest_bid.amount,
    )
}
