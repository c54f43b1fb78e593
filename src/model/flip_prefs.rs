//! The user's own flip settings and what the flip alerts notify: kept in the user database,
//! sent with every flips request by the window's Flips tab and by the alert monitor (the
//! service keeps none of them; one server serves many users).
//!
//! - **Costs:** shipping and sales tax by default and per store (`None`: the service's default,
//!   which the answer names as a default).
//! - **Fees:** the seller level at the largest marketplace, or the user's own rates (the payout
//!   calculator's, when the user typed them there or in the Flips tab).
//! - **Thresholds:** the least profit and ROI a row must reach, for the tab and the alerts.
//! - **Alerts:** whether new flips notify, and by what share a flip's profit must rise to
//!   notify again.

use serde::{Deserialize, Serialize};

use super::flips::{FeeSchedule, Flip, FlipScan, FlipsRequest, MAX_SELLER_LEVEL, StoreCosts};

/// The share by which a flip's profit must rise before it notifies again, by default: 20 %.
pub const DEFAULT_RISE_PERCENT: u32 = 20;
/// Most sizes "my sizes" sends (the flips endpoint takes at most 20 `size` values).
pub const MAX_MY_SIZES: usize = 20;
/// Most stores with their own costs sent (the endpoint takes at most 20 of each).
pub const MAX_STORE_COSTS: usize = 20;
/// Largest amount a setting takes, in cents (the endpoint's bound: 1,000,000.00).
pub const MAX_SETTING_CENTS: i64 = 100_000_000;

/// The user's flip settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FlipPrefs {
    /// Seller level at the largest marketplace, 1 to [`MAX_SELLER_LEVEL`].
    pub seller_level: u8,
    /// The user's own fee rates at that marketplace (the payout calculator's); `None`: the
    /// seller level's schedule.
    pub own_fees: Option<FeeSchedule>,
    /// Least profit a row must reach, in cents of the row's currency; `None`: every row that
    /// pays.
    pub min_profit_cents: Option<i64>,
    /// Least ROI a row must reach (0.2 = 20 %); `None`: any.
    pub min_roi: Option<f64>,
    /// Shipping per pair at stores without their own, in cents; `None`: the service's default.
    pub shipping_cents: Option<i64>,
    /// Sales tax at US-dollar stores without their own, percent; `None`: the service's default.
    pub tax_percent: Option<f64>,
    /// Stores with their own shipping or tax (by host, as the flip list names them).
    pub stores: Vec<StoreCosts>,
    /// New flips above the thresholds notify (in the window and in `solescope monitor`).
    pub alerts: bool,
    /// The share, percent, by which a notified flip's profit must rise to notify again.
    pub rise_percent: u32,
}

impl Default for FlipPrefs {
    fn default() -> Self {
        Self {
            seller_level: 1,
            own_fees: None,
            min_profit_cents: None,
            min_roi: None,
            shipping_cents: None,
            tax_percent: None,
            stores: Vec::new(),
            alerts: false,
            rise_percent: DEFAULT_RISE_PERCENT,
        }
    }
}

fn percent_ok(value: f64) -> bool {
    value.is_finite() && (0.0..=100.0).contains(&value)
}

fn cents_ok(cents: i64) -> bool {
    (0..=MAX_SETTING_CENTS).contains(&cents)
}

impl FlipPrefs {
    /// The settings held to what the endpoint takes: a level in 1..=5, percentages in 0..=100,
    /// amounts in 0..=1,000,000.00, a minimum ROI in -1..=1000; a value out of bounds reads as
    /// not set (the default), and stores past [`MAX_STORE_COSTS`] are dropped.
    #[must_use]
    pub fn checked(mut self) -> Self {
        self.seller_level = self.seller_level.clamp(1, MAX_SELLER_LEVEL);
        self.own_fees = self.own_fees.filter(|fees| {
            percent_ok(fees.commission_percent)
                && percent_ok(fees.processing_percent)
                && cents_ok(fees.fixed_fee_cents)
        });
        self.min_profit_cents = self
            .min_profit_cents
            .filter(|cents| cents.abs() <= MAX_SETTING_CENTS);
        self.min_roi = self
            .min_roi
            .filter(|roi| roi.is_finite() && (-1.0..=1_000.0).contains(roi));
        self.shipping_cents = self.shipping_cents.filter(|cents| cents_ok(*cents));
        self.tax_percent = self.tax_percent.filter(|tax| percent_ok(*tax));
        for costs in &mut self.stores {
            costs.shipping_cents = costs.shipping_cents.filter(|cents| cents_ok(*cents));
            costs.sales_tax_percent = costs.sales_tax_percent.filter(|tax| percent_ok(*tax));
        }
        self.stores.retain(|costs| {
            !costs.store.trim().is_empty()
                && (costs.shipping_cents.is_some() || costs.sales_tax_percent.is_some())
        });
        self.stores.truncate(MAX_STORE_COSTS);
        self.rise_percent = self.rise_percent.clamp(1, 1_000);
        self
    }

    /// The fees rows are reckoned with at the largest marketplace: the user's own, else the
    /// seller level's.
    #[must_use]
    pub fn fees(&self) -> FeeSchedule {
        self.own_fees
            .unwrap_or_else(|| FeeSchedule::seller_level(self.seller_level))
    }

    /// `store`'s own costs, when the user set any.
    #[must_use]
    pub fn store_costs(&self, store: &str) -> Option<&StoreCosts> {
        self.stores
            .iter()
            .find(|costs| costs.store.eq_ignore_ascii_case(store))
    }

    /// Sets `store`'s own shipping and tax (`None` each: the default); a store with neither is
    /// removed.
    pub fn set_store_costs(&mut self, store: &str, shipping_cents: Option<i64>, tax: Option<f64>) {
        self.stores
            .retain(|costs| !costs.store.eq_ignore_ascii_case(store));
        if shipping_cents.is_some() || tax.is_some() {
            self.stores.push(StoreCosts {
                store: store.to_owned(),
                shipping_cents,
                sales_tax_percent: tax,
            });
        }
    }

    /// The request for every row these settings pass, in `sizes` (US size keys; empty: every
    /// size), one page of `limit` rows: the thresholds, the costs and the fees as query values
    /// (money in major units).
    #[must_use]
    pub fn request(&self, sizes: &[String], page: u32, limit: u32) -> FlipsRequest {
        let major = |cents: i64| cents as f64 / 100.0;
        let own = self.own_fees;
        FlipsRequest {
            page: Some(page),
            limit: Some(limit),
            min_profit: self.min_profit_cents.map(major),
            min_roi: self.min_roi,
            sizes: sizes.iter().take(MAX_MY_SIZES).cloned().collect(),
            stores: Vec::new(),
            brands: Vec::new(),
            seller_level: Some(self.seller_level),
            fee_commission: own.map(|fees| fees.commission_percent),
            fee_processing: own.map(|fees| fees.processing_percent),
            fee_fixed: own.map(|fees| major(fees.fixed_fee_cents)),
            shipping: self.shipping_cents.map(major),
            tax: self.tax_percent,
            store_shipping: self
                .stores
                .iter()
                .filter_map(|c| Some((c.store.clone(), major(c.shipping_cents?))))
                .collect(),
            store_tax: self
                .stores
                .iter()
                .filter_map(|c| Some((c.store.clone(), c.sales_tax_percent?)))
                .collect(),
            thin_below: None,
            scan: None::<FlipScan>,
        }
    }
}

/// Why a flip notifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeReason {
    /// First seen above the thresholds.
    New,
    /// Gone from the list (sold out, below the thresholds) since it notified, and back.
    Back,
    /// Its profit rose by the set share since it notified.
    Rose,
}

impl NoticeReason {
    /// Words for a person.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::New => "new",
            Self::Back => "back",
            Self::Rose => "profit up",
        }
    }
}

/// One row of the flip list as the alerts keep it: its identity (store, style code, size), the
/// prices that make it the same notification (buy and sell price), and what a notification says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlipSighting {
    /// The store (its host, as the list names it).
    pub store: String,
    /// The catalogue product's style code.
    pub style_code: String,
    /// US size.
    pub size: String,
    /// The catalogue product.
    pub product_id: String,
    /// Its title.
    pub title: String,
    /// The currency of every amount.
    pub currency: String,
    /// The store's price, in cents.
    pub buy_price_cents: i64,
    /// Price + shipping + tax, in cents.
    pub buy_cost_cents: i64,
    /// Where it sells (`resale-b`) and at which price (`sell now`, `list at`).
    pub sell_venue: String,
    /// `sell now` or `list at`.
    pub sell_basis: String,
    /// The sell price, in cents.
    pub sell_price_cents: i64,
    /// Payout - buy cost, in cents.
    pub profit_cents: i64,
    /// Profit / buy cost.
    pub roi: f64,
    /// The store's page for the size.
    pub store_url: String,
}

impl FlipSighting {
    /// What the alerts keep of `flip`.
    #[must_use]
    pub fn of(flip: &Flip) -> Self {
        Self {
            store: flip.store.clone(),
            style_code: flip.style_code.clone(),
            size: flip.size.clone(),
            product_id: flip.product_id.clone(),
            title: flip.title.clone(),
            currency: flip.currency.clone(),
            buy_price_cents: flip.buy_price,
            buy_cost_cents: flip.buy_cost,
            sell_venue: flip.sell_venue.clone(),
            sell_basis: flip.sell_basis.as_str().to_owned(),
            sell_price_cents: flip.sell_price,
            profit_cents: flip.profit,
            roi: flip.roi,
            store_url: flip.store_url.clone(),
        }
    }
}

/// A flip notified: the row as seen, why, and when (Unix seconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlipNotice {
    /// The row.
    pub flip: FlipSighting,
    /// Why it notified.
    pub reason: NoticeReason,
    /// When, Unix seconds.
    pub notified_at: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_travel_as_the_endpoints_query_in_major_units() {
        let mut prefs = FlipPrefs {
            seller_level: 3,
            min_profit_cents: Some(2_550),
            min_roi: Some(0.1),
            shipping_cents: Some(1_250),
            ..FlipPrefs::default()
        };
        prefs.set_store_costs("kith.com", Some(0), Some(8.875));
        prefs.set_store_costs("other.example", None, Some(6.0));
        let request = prefs.request(&["9.5".into()], 2, 100);
        let pairs = request.query_pairs();
        let value = |name: &str| -> Vec<String> {
            pairs
                .iter()
                .filter(|(key, _)| *key == name)
                .map(|(_, v)| v.clone())
                .collect()
        };
        assert_eq!(value("page"), ["2"]);
        assert_eq!(value("min_profit"), ["25.5"]);
        assert_eq!(value("min_roi"), ["0.1"]);
        assert_eq!(value("seller_level"), ["3"]);
        assert_eq!(value("shipping"), ["12.5"]);
        assert_eq!(value("size"), ["9.5"]);
        assert_eq!(value("store_shipping"), ["kith.com:0"]);
        assert_eq!(value("store_tax"), ["kith.com:8.875", "other.example:6"]);
        // The level's fees: no fee parameter is sent.
        assert!(value("fee_commission").is_empty());
        prefs.own_fees = Some(FeeSchedule {
            commission_percent: 8.0,
            processing_percent: 2.9,
            fixed_fee_cents: 500,
        });
        let pairs = prefs.request(&[], 1, 50).query_pairs();
        assert!(pairs.contains(&("fee_commission", "8".into())));
        assert!(pairs.contains(&("fee_processing", "2.9".into())));
        assert!(pairs.contains(&("fee_fixed", "5".into())));
        assert_eq!(prefs.fees().fixed_fee_cents, 500);
        // A store with neither cost is removed.
        prefs.set_store_costs("kith.com", None, None);
        assert!(prefs.store_costs("kith.com").is_none());
    }

    #[test]
    fn values_out_of_bounds_read_as_not_set() {
        let mut prefs = FlipPrefs {
            seller_level: 9,
            own_fees: Some(FeeSchedule {
                commission_percent: 140.0,
                processing_percent: 3.0,
                fixed_fee_cents: 0,
            }),
            min_roi: Some(f64::NAN),
            tax_percent: Some(-2.0),
            shipping_cents: Some(-1),
            rise_percent: 0,
            ..FlipPrefs::default()
        };
        prefs.set_store_costs("kith.com", Some(MAX_SETTING_CENTS + 1), None);
        let checked = prefs.checked();
        assert_eq!(checked.seller_level, 5);
        assert_eq!(checked.own_fees, None);
        assert_eq!(checked.min_roi, None);
        assert_eq!(checked.tax_percent, None);
        assert_eq!(checked.shipping_cents, None);
        assert!(checked.stores.is_empty());
        assert_eq!(checked.rise_percent, 1);
        assert_eq!(checked.fees(), FeeSchedule::seller_level(5));
    }
}
