//! What a seller is paid after a marketplace's fees.

use serde::{Deserialize, Serialize};

/// Seller fee rates of one marketplace.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FeeRates {
    /// Commission, percent of the sale price.
    pub commission_percent: f64,
    /// Payment processing, percent of the sale price.
    pub processing_percent: f64,
    /// Flat fee per sale, in the sale's currency.
    pub fixed_fee: f64,
}

/// Starting rates for `resale-a`: 9 % commission, 3 % processing, 5 flat per sale. Editable
/// defaults in the range public reports give for resale marketplaces, not the marketplace's
/// actual schedule, which depends on the seller's level and region.
pub const RESALE_A_DEFAULT_FEES: FeeRates = FeeRates {
    commission_percent: 9.0,
    processing_percent: 3.0,
    fixed_fee: 5.0,
};

/// Starting rates for `resale-b`: 8 % commission, 2.9 % processing, no flat fee. Editable
/// defaults, not the marketplace's actual schedule.
pub const RESALE_B_DEFAULT_FEES: FeeRates = FeeRates {
    commission_percent: 8.0,
    processing_percent: 2.9,
    fixed_fee: 0.0,
};

/// What a seller receives for one sale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Payout {
    /// The sale price.
    pub gross: f64,
    /// Commission taken.
    pub commission: f64,
    /// Payment processing taken.
    pub processing: f64,
    /// Flat fee taken.
    pub fixed_fee: f64,
    /// What is left: gross minus every deduction. May be negative (see [`Self::is_loss`]).
    pub net: f64,
}

impl Payout {
    /// Whether the fees exceed the price, so the sale costs the seller money.
    #[must_use]
    pub fn is_loss(&self) -> bool {
        self.net < 0.0
    }
}

/// An input of [`payout`] that cannot be a price or a rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PayoutError {
    /// The price is negative or not a number.
    #[error("the price must be a number of at least 0")]
    Price,
    /// A percentage is below 0, above 100 or not a number.
    #[error("fee percentages must be numbers from 0 to 100")]
    Percent,
    /// The flat fee is negative or not a number.
    #[error("the flat fee must be a number of at least 0")]
    FixedFee,
}

/// The payout of a sale at `price`: commission and processing are both taken as percentages
/// of the price, then the flat fee. A net below zero is returned as is and flagged by
/// [`Payout::is_loss`].
pub fn payout(
    price: f64,
    commission_percent: f64,
    fixed_fee: f64,
    processing_percent: f64,
) -> Result<Payout, PayoutError> {
    let is_amount = |value: f64| value.is_finite() && value >= 0.0;
    let is_percent = |value: f64| is_amount(value) && value <= 100.0;
    if !is_amount(price) {
        return Err(PayoutError::Price);
    }
    if !(is_percent(commission_percent) && is_percent(processing_percent)) {
        return Err(PayoutError::Percent);
    }
    if !is_amount(fixed_fee) {
        return Err(PayoutError::FixedFee);
    }
    let commission = price * commission_percent / 100.0;
    let processing = price * processing_percent / 100.0;
    Ok(Payout {
        gross: price,
        commission,
        processing,
        fixed_fee,
        net: price - commission - processing - fixed_fee,
    })
}

/// The payout of a sale at `price` with `rates`.
pub fn payout_with(price: f64, rates: FeeRates) -> Result<Payout, PayoutError> {
    payout(
        price,
        rates.commission_percent,
        rates.fixed_fee,
        rates.processing_percent,
    )
}
