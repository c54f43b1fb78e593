//! Flips (`GET /api/v2/flips`, an addition to the interface): every size a store has in stock
//! whose style code or barcode is a catalogue product, bought at the store's price plus its
//! shipping and sales tax, sold on a resale marketplace after that marketplace's fees, ranked by
//! profit. Each row keeps what it rests on: the store's price with when the store was read, the
//! marketplace's price with its source and age, the fee rates, and the size's recent sales.
//!
//! Money in a row is in **integer minor units** (cents) of the row's `currency`; amounts a user
//! sends as settings (shipping, a flat fee, a minimum profit) are in major units (`12.50`).
//! The user's own costs travel with each request ([`FlipSettings`]): one server serves many
//! users, and it keeps none of their settings.

use serde::{Deserialize, Serialize};

/// Rows a page holds by default.
pub const DEFAULT_FLIPS_LIMIT: u32 = 50;
/// Rows a page holds at most.
pub const MAX_FLIPS_LIMIT: u32 = 100;
/// The highest seller level of the largest marketplace.
pub const MAX_SELLER_LEVEL: u8 = 5;
/// Shipping a store charges per order, by default: 10.00 of its currency (an assumption, a
/// common flat rate; set your own per store).
pub const DEFAULT_SHIPPING_CENTS: i64 = 1_000;
/// Sales tax on a US-dollar store's price, by default: 7.5 % (an assumption, about the US
/// average of state and local rates; set your own). Stores in other currencies include VAT in
/// their prices and get 0 % by default.
pub const DEFAULT_SALES_TAX_PERCENT: f64 = 7.5;
/// A size with fewer sales than this in its sales window is a thin market, by default.
pub const DEFAULT_THIN_BELOW: u32 = 5;

/// The marketplace the batched per-size prices come from: `resale-b`, the largest marketplace
/// (the catalogue's source; StockX on KicksDB).
pub const PRICED_VENUE: &str = "resale-b";

/// Commission of the largest marketplace by seller level, percent of the sale price: 9 % at
/// level 1 down to 7 % at the top (`shared/research/market-data.md`); the levels between are
/// spaced evenly (an inference: the notes give only the two ends).
pub const SELLER_LEVEL_COMMISSION_PERCENT: [f64; MAX_SELLER_LEVEL as usize] =
    [9.0, 8.5, 8.0, 7.5, 7.0];
/// Payment processing of the largest marketplace at every level, percent of the sale price.
pub const SELLER_PROCESSING_PERCENT: f64 = 3.0;

/// One page of the flip list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FlipsAnswer {
    /// The page's rows, most profit first.
    pub flips: Vec<Flip>,
    /// When the list was built (RFC 3339, UTC); `null` while the first build is under way.
    pub as_of: Option<String>,
    /// Rows that pass the filters, on every page.
    pub total: u64,
    /// The page (from 1).
    pub page: u32,
    /// Rows per page.
    pub limit: u32,
    /// The first build is still under way (stores being read, prices fetched): ask again.
    pub building: bool,
    /// No store is configured: the simulated `retailer-a` stands in for the stores, and every
    /// row says so (`simulated`).
    pub simulated: bool,
    /// Each store scanned: when it was read and what it gave.
    pub stores: Vec<FlipStore>,
    /// Each market priced: its codes, calls, source and age.
    pub markets: Vec<FlipMarket>,
    /// Sizes in stock that gave no row, counted by why (a store price of 0, no size, a
    /// currency no marketplace quotes, no ask for the size, fees above the price).
    pub skipped: Vec<Skipped>,
    /// The settings the rows were reckoned with (the request's, defaults named in `defaults`).
    pub settings: FlipSettings,
    /// What a person should know about this answer, in sentences.
    pub notes: Vec<String>,
}

/// One size in stock at one store, bought there and sold on a marketplace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Flip {
    /// The catalogue product's id.
    pub product_id: String,
    /// Its style code.
    pub style_code: String,
    /// Its title.
    pub title: String,
    /// Its brand.
    pub brand: String,
    /// US size (`9.5`), as both sides are compared.
    pub size: String,
    /// The size as the store writes it (`US 9.5 / UK 8.5`).
    pub size_label: String,
    /// The store (its host: `kith.com`; `retailer-a (simulated)` for the simulator).
    pub store: String,
    /// The store's page for the size.
    pub store_url: String,
    /// The store is the simulator's `retailer-a`, not a real store.
    pub simulated: bool,
    /// How the store's product was matched to the catalogue: `style code`, `barcode`, or
    /// `simulated` (the simulator sells catalogue products as they are).
    pub matched_by: String,
    /// The currency of every amount of the row.
    pub currency: String,
    /// The store's price, in cents.
    pub buy_price: i64,
    /// Shipping, in cents.
    pub shipping: i64,
    /// Sales tax on the price, in cents.
    pub sales_tax: i64,
    /// The sales tax rate used, percent.
    pub sales_tax_percent: f64,
    /// Price + shipping + sales tax, in cents.
    pub buy_cost: i64,
    /// Shipping or sales tax is the default, not one the user set for this store.
    pub costs_are_defaults: bool,
    /// Where the row sells (`resale-b`).
    pub sell_venue: String,
    /// Which of the marketplace's prices the row sells at.
    pub sell_basis: SellBasis,
    /// That price, in cents.
    pub sell_price: i64,
    /// The marketplace's fees on it, in cents.
    pub fees: i64,
    /// The rates the fees were reckoned with.
    pub fee_rates: FeeSchedule,
    /// What the seller is paid: sell price - fees, in cents.
    pub payout: i64,
    /// Payout - buy cost, in cents.
    pub profit: i64,
    /// Profit / buy cost (0.25 = 25 %).
    pub roi: f64,
    /// Every price the size can be sold at (each marketplace, sell now and list at), the row's
    /// own among them.
    pub sell_options: Vec<SellOption>,
    /// Sales of the size (or of the product, see `sales_scope`) in the last `sales_days` days;
    /// `null` when the source has no sales figures for it.
    pub sales_30d: Option<u32>,
    /// The days `sales_30d` counts (30 for per-size counts; 28 for four weekly records).
    pub sales_days: Option<u32>,
    /// Whether `sales_30d` counts this size or the whole product (every size).
    pub sales_scope: Option<SalesScope>,
    /// Where the sales figures come from (`kicksdb`, `kicksdb-mirror`, `catalogue`).
    pub sales_source: Option<String>,
    /// When they were fetched (RFC 3339, UTC; a catalogue's: when it was built).
    pub sales_as_of: Option<String>,
    /// Fewer sales than the threshold (`settings.thin_below`), or no sales figures at all.
    pub thin_market: bool,
    /// When the store's price and stock were read (RFC 3339, UTC).
    pub store_read_at: Option<String>,
    /// How old that reading is, in seconds, at the answer.
    pub store_age_secs: Option<u64>,
    /// Where the sell price comes from (`kicksdb`, `kicksdb-mirror`, `catalogue`).
    pub price_source: String,
    /// When the sell price was fetched (RFC 3339, UTC).
    pub price_as_of: String,
    /// How old the sell price is, in seconds, at the answer.
    pub price_age_secs: Option<u64>,
    /// Asks open at the marketplace for the size, when the source says.
    pub asks: Option<u32>,
}

/// Which of a marketplace's prices a size is sold at.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SellBasis {
    /// The highest bid: a sale now, where the source gives bids.
    SellNow,
    /// The lowest ask: what a new listing must match to sell first.
    ListAt,
}

impl SellBasis {
    /// The words a person reads.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SellNow => "sell now",
            Self::ListAt => "list at",
        }
    }
}

/// Whether a sales count is of one size or of the whole product.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SalesScope {
    /// Sales of this size.
    Size,
    /// Sales of the product, every size together.
    Product,
}

/// One price a size can be sold at, and what it leaves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SellOption {
    /// The marketplace.
    pub venue: String,
    /// Sell now (highest bid) or list at (lowest ask).
    pub basis: SellBasis,
    /// The price, in cents.
    pub price: i64,
    /// The fees on it, in cents.
    pub fees: i64,
    /// Price - fees, in cents.
    pub payout: i64,
    /// Payout - buy cost, in cents.
    pub profit: i64,
    /// Where the price comes from.
    pub source: String,
    /// When it was fetched (RFC 3339, UTC).
    pub as_of: String,
}

/// A marketplace's seller fees as reckoned.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FeeSchedule {
    /// Commission, percent of the sale price.
    pub commission_percent: f64,
    /// Payment processing, percent of the sale price.
    pub processing_percent: f64,
    /// Flat fee per sale, in cents.
    pub fixed_fee_cents: i64,
}

impl FeeSchedule {
    /// The largest marketplace's fees at seller `level` (1 to [`MAX_SELLER_LEVEL`], held to
    /// that range): [`SELLER_LEVEL_COMMISSION_PERCENT`], [`SELLER_PROCESSING_PERCENT`], no flat
    /// fee.
    #[must_use]
    pub fn seller_level(level: u8) -> Self {
        let at = usize::from(level.clamp(1, MAX_SELLER_LEVEL) - 1);
        Self {
            commission_percent: SELLER_LEVEL_COMMISSION_PERCENT[at],
            processing_percent: SELLER_PROCESSING_PERCENT,
            fixed_fee_cents: 0,
        }
    }
}

/// One store's own costs, where the user set them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StoreCosts {
    /// The store (its host or address, as given).
    pub store: String,
    /// Shipping per pair, in cents of the store's currency; `null`: the default.
    pub shipping_cents: Option<i64>,
    /// Sales tax, percent of the price; `null`: the default.
    pub sales_tax_percent: Option<f64>,
}

/// What rows are reckoned with: the user's costs and fees, sent with each request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FlipSettings {
    /// Seller level at the largest marketplace (1 to 5).
    pub seller_level: u8,
    /// The fees of the marketplace the rows sell on (`resale-b`): the seller level's, unless
    /// overridden.
    pub fees: FeeSchedule,
    /// Shipping per pair at every store without its own, in cents of the store's currency.
    pub shipping_cents: i64,
    /// Sales tax at every US-dollar store without its own, percent of the price.
    pub sales_tax_percent: f64,
    /// Stores with their own shipping or tax.
    pub stores: Vec<StoreCosts>,
    /// A size with fewer sales than this in its window is a thin market.
    pub thin_below: u32,
    /// The settings left at their defaults (`seller_level`, `fees`, `shipping`, `sales_tax`,
    /// `thin_below`).
    pub defaults: Vec<String>,
}

impl Default for FlipSettings {
    fn default() -> Self {
        Self {
            seller_level: 1,
            fees: FeeSchedule::seller_level(1),
            shipping_cents: DEFAULT_SHIPPING_CENTS,
            sales_tax_percent: DEFAULT_SALES_TAX_PERCENT,
            stores: Vec::new(),
            thin_below: DEFAULT_THIN_BELOW,
            defaults: [
                "seller_level",
                "fees",
                "shipping",
                "sales_tax",
                "thin_below",
            ]
            .map(str::to_owned)
            .to_vec(),
        }
    }
}

impl FlipSettings {
    /// The shipping (cents) and tax (percent) at `store` (its label) priced in `currency`, and
    /// whether either is a default.
    #[must_use]
    pub fn costs_at(&self, store_label: &str, store_url: &str, currency: &str) -> (i64, f64, bool) {
        let own = self.stores.iter().find(|costs| {
            let name = costs.store.trim().trim_end_matches('/');
            name.eq_ignore_ascii_case(store_label) || name.eq_ignore_ascii_case(store_url)
        });
        let default_tax = if currency.eq_ignore_ascii_case("USD") {
            self.sales_tax_percent
        } else {
            0.0
        };
        let shipping = own.and_then(|c| c.shipping_cents);
        let tax = own.and_then(|c| c.sales_tax_percent);
        (
            shipping.unwrap_or(self.shipping_cents),
            tax.unwrap_or(default_tax),
            shipping.is_none() || tax.is_none(),
        )
    }
}

/// A store as the scan saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FlipStore {
    /// Its name (host), or `retailer-a (simulated)`.
    pub store: String,
    /// Its address; `null` for the simulator.
    pub url: Option<String>,
    /// The simulator's retailer, not a real store.
    pub simulated: bool,
    /// When its price and stock were read (RFC 3339, UTC).
    pub read_at: Option<String>,
    /// Its currency, when known.
    pub currency: Option<String>,
    /// Catalogue products it has in stock (in at least one size).
    pub products_in_stock: u32,
    /// Sizes in stock of those products.
    pub sizes_in_stock: u32,
    /// How its reading stands, in a sentence.
    pub status: String,
}

/// One market priced for a build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FlipMarket {
    /// The market (`US`, `FR`).
    pub market: String,
    /// Its currency.
    pub currency: String,
    /// Distinct style codes in stock at its stores.
    pub codes: u32,
    /// Codes with prices.
    pub priced: u32,
    /// Batched requests (50 codes each) sent to the catalogue's source for this build.
    pub requests: u32,
    /// Where the prices come from (`kicksdb`, `kicksdb-mirror`, `catalogue`).
    pub sources: Vec<String>,
    /// The oldest price used (RFC 3339, UTC).
    pub oldest_price: Option<String>,
    /// Why prices were held rather than fetched, when they were.
    pub note: Option<String>,
}

/// Sizes in stock that gave no row, by why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Skipped {
    /// Why, in a sentence.
    pub reason: String,
    /// How many sizes.
    pub count: u64,
    /// One of them, `style code size at store`.
    pub example: String,
}

/// What a source holds of one product's recent sales (no upstream call made for it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldSales {
    /// The style code asked for, as sent.
    pub sku: String,
    /// Where the figures come from (`kicksdb`, `kicksdb-mirror`, `catalogue`).
    pub source: String,
    /// When they were fetched (RFC 3339, UTC).
    pub as_of: String,
    /// Sales of the whole product in the last `product_days` days, when held.
    pub product_count: Option<u32>,
    /// The days `product_count` covers.
    pub product_days: u32,
    /// Sales per size (US size label) in the last 30 days, when held.
    pub sizes: Vec<(String, u32)>,
}

/// What a client asks of `GET /api/v2/flips`: the page, the filters, and the user's own costs
/// and fees (absent: the service's defaults). Money in major units, as the query takes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FlipsRequest {
    /// Page, from 1 (absent: 1).
    pub page: Option<u32>,
    /// Rows per page (absent: [`DEFAULT_FLIPS_LIMIT`]).
    pub limit: Option<u32>,
    /// Rows with at least this profit (absent: rows that pay).
    pub min_profit: Option<f64>,
    /// Rows with at least this ROI (0.2 = 20 %).
    pub min_roi: Option<f64>,
    /// Only these US sizes (my sizes).
    pub sizes: Vec<String>,
    /// Only these stores (host or address).
    pub stores: Vec<String>,
    /// Only these brands.
    pub brands: Vec<String>,
    /// Seller level at the largest marketplace, 1 to 5.
    pub seller_level: Option<u8>,
    /// Commission, percent (overrides the seller level's).
    pub fee_commission: Option<f64>,
    /// Payment processing, percent.
    pub fee_processing: Option<f64>,
    /// Flat fee per sale, major units.
    pub fee_fixed: Option<f64>,
    /// Shipping per pair at stores without their own, major units.
    pub shipping: Option<f64>,
    /// Sales tax at US-dollar stores without their own, percent.
    pub tax: Option<f64>,
    /// Stores' own shipping: (store, major units).
    pub store_shipping: Vec<(String, f64)>,
    /// Stores' own sales tax: (store, percent).
    pub store_tax: Vec<(String, f64)>,
    /// The thin-market threshold.
    pub thin_below: Option<u32>,
    /// Price scans planned by the caller from the monthly budget (absent: the service paces
    /// its own).
    pub scan: Option<FlipScan>,
}

/// How a caller that plans the price scans from the monthly budget (the alert monitor) asks
/// for them: `scan=now` prices every code in stock now, `scan=planned` says scans are planned
/// (the service fetches no price of its own meanwhile). Either holds for
/// [`PLANNED_SCAN_LEASE_SECS`] after the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlipScan {
    /// Price every style code in stock now (one batched call per 50 codes per market).
    Now,
    /// Scans are planned by the caller: none of the service's own meanwhile.
    Planned,
}

impl FlipScan {
    /// The query value.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Now => "now",
            Self::Planned => "planned",
        }
    }
}

/// How long a `scan` request holds the service's own price scans back: 15 minutes, renewed by
/// each request that carries one (the monitor asks at least every minute).
pub const PLANNED_SCAN_LEASE_SECS: i64 = 15 * 60;

impl FlipsRequest {
    /// The query parameters, in the order the endpoint documents them.
    #[must_use]
    pub fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs: Vec<(&'static str, String)> = Vec::new();
        let mut one = |name: &'static str, value: Option<String>| {
            if let Some(value) = value {
                pairs.push((name, value));
            }
        };
        one("page", self.page.map(|v| v.to_string()));
        one("limit", self.limit.map(|v| v.to_string()));
        one("min_profit", self.min_profit.map(|v| v.to_string()));
        one("min_roi", self.min_roi.map(|v| v.to_string()));
        one("seller_level", self.seller_level.map(|v| v.to_string()));
        one("fee_commission", self.fee_commission.map(|v| v.to_string()));
        one("fee_processing", self.fee_processing.map(|v| v.to_string()));
        one("fee_fixed", self.fee_fixed.map(|v| v.to_string()));
        one("shipping", self.shipping.map(|v| v.to_string()));
        one("tax", self.tax.map(|v| v.to_string()));
        one("thin_below", self.thin_below.map(|v| v.to_string()));
        one("scan", self.scan.map(|v| v.as_str().to_owned()));
        for size in &self.sizes {
            pairs.push(("size", size.clone()));
        }
        for store in &self.stores {
            pairs.push(("store", store.clone()));
        }
        for brand in &self.brands {
            pairs.push(("brand", brand.clone()));
        }
        // Amounts as the endpoint reads them: at most 4 decimals, never an exponent.
        for (store, amount) in &self.store_shipping {
            pairs.push(("store_shipping", format!("{store}:{}", plain(*amount))));
        }
        for (store, percent) in &self.store_tax {
            pairs.push(("store_tax", format!("{store}:{}", plain(*percent))));
        }
        pairs
    }
}

/// `value` with up to four decimals and no trailing zeros (`12.5`, `0`, `8.875`).
fn plain(value: f64) -> String {
    let text = format!("{:.4}", value.max(0.0));
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}
