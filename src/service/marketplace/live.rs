//! The live figures: asks, bids, last sale, sales in the last 72 hours and retail stock, as pure
//! functions of (seed, product, marketplace, market, minute).
//!
//! Nothing is stored between calls. Each figure is built from hashed noise keyed by those values,
//! so the same minute always gives the same answer and any minute can be recomputed (the last
//! sale is priced at the minute it happened). Prices move on three time scales: a slow drift
//! shared by every marketplace (hours), a faster wobble (tens of minutes) and a per-minute tick.
//! Everything is anchored to the catalogue: a size's ask starts from that size's catalogue price,
//! activity from the product's recent weekly orders.

use super::markets::Quote;
use super::store::{Listing, VariantRow};

/// Minutes in a week, the unit of the catalogue's order counts.
const MINUTES_PER_WEEK: f64 = 7.0 * 24.0 * 60.0;

/// Steps summed in a size's random walk (see `Market::size_walk`).
const WALK_MINUTES: i64 = 12;

/// Largest single step of a size's random walk, as a fraction of the ask.
const WALK_STEP: f64 = 0.006;

/// Which simulated marketplace a figure is for; each has its own order book.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Venue {
    /// `resale-a`: its asks run a little above `resale-b`'s (higher seller fees).
    ResaleA,
    /// `resale-b`: the marketplace the catalogue's prices come from.
    ResaleB,
}

impl Venue {
    fn salt(self) -> u64 {
        match self {
            Venue::ResaleA => 0xA,
            Venue::ResaleB => 0xB,
        }
    }

    fn price_level(self) -> f64 {
        match self {
            Venue::ResaleA => 1.03,
            Venue::ResaleB => 1.0,
        }
    }
}

/// `SplitMix64`'s finalizer: a fast, well-mixed 64-bit hash step.
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A deterministic noise source: one per (seed, product, purpose).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stream(u64);

impl Stream {
    /// The root stream of a product.
    pub fn new(seed: u64, pk: i64) -> Self {
        Stream(splitmix(splitmix(seed) ^ pk as u64))
    }

    /// An independent stream for `tag`.
    pub fn child(self, tag: u64) -> Self {
        Stream(splitmix(
            self.0 ^ splitmix(tag.wrapping_add(0x5851_F42D_4C95_7F2D)),
        ))
    }

    /// A hash of `at` on this stream.
    pub fn bits(self, at: i64) -> u64 {
        splitmix(self.0 ^ splitmix(at as u64))
    }

    /// Uniform in `[0, 1)` for time index `at`.
    pub fn unit(self, at: i64) -> f64 {
        (self.bits(at) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[-1, 1)` for time index `at`.
    pub fn signed(self, at: i64) -> f64 {
        self.unit(at) * 2.0 - 1.0
    }

    /// Smooth noise in `[-1, 1]`: random knots every `period` minutes (at a per-stream phase, so
    /// products do not all turn at once), eased between with a cosine.
    pub fn smooth(self, minute: i64, period: i64) -> f64 {
        let period = period.max(1);
        let phase = (self.bits(-1) % period as u64) as i64;
        let t = minute + phase;
        let knot = t.div_euclid(period);
        let frac = t.rem_euclid(period) as f64 / period as f64;
        let (a, b) = (self.signed(knot), self.signed(knot + 1));
        let ease = (1.0 - (std::f64::consts::PI * frac).cos()) / 2.0;
        a + (b - a) * ease
    }

    /// A window of a length in `min_len..min_len + spread` minutes containing `minute`, at a
    /// per-stream phase: `(window index, first minute of the window)`.
    pub fn window(self, minute: i64, min_len: i64, spread: i64) -> (i64, i64) {
        let len = min_len + (self.bits(-2) % spread.max(1) as u64) as i64;
        let offset = (self.bits(-3) % len as u64) as i64;
        let index = (minute + offset).div_euclid(len);
        (index, index * len - offset)
    }
}

/// Tags of the noise streams, one per figure.
mod tag {
    pub const FAIR_SLOW: u64 = 1;
    pub const FAIR_FAST: u64 = 2;
    pub const TICK: u64 = 3;
    pub const SIZE: u64 = 4;
    pub const PRESENCE: u64 = 5;
    pub const SPREAD: u64 = 6;
    pub const SALES: u64 = 7;
    pub const ASKS: u64 = 8;
    pub const BIDS: u64 = 9;
    pub const SALE: u64 = 10;
    pub const STOCK: u64 = 11;
    pub const USED: u64 = 12;
    pub const WALK: u64 = 13;
}

/// The order book summary of a product at one minute. Money in whole units of the quote's
/// currency (marketplaces quote whole dollars, euros, pounds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Book {
    /// The cheapest ask over all sizes.
    pub lowest_ask: i64,
    /// The best bid; always below `lowest_ask`.
    pub highest_bid: i64,
    /// The price of the most recent sale, within `[highest_bid, lowest_ask]`.
    pub last_sale: i64,
    /// Sales in the 72 hours up to this minute.
    pub sales_last_72_hours: i64,
    /// Open asks over all sizes.
    pub number_of_asks: i64,
    /// Open bids over all sizes.
    pub number_of_bids: i64,
}

/// A product's market on one marketplace, in one currency and regional market.
#[derive(Debug, Clone)]
pub(super) struct Market {
    /// Shared by every marketplace and market: the product's own price drift.
    common: Stream,
    /// This marketplace's and market's book.
    own: Stream,
    /// Per size: the starting ask in currency units (catalogue price, market and venue level).
    bases: Vec<f64>,
    /// Orders per week lately.
    weekly_orders: f64,
    /// Average resale over retail (1.0 when retail is unknown).
    hype: f64,
}

/// What a size costs in `quote`'s currency before any move: the catalogue's EUR price for euros,
/// the USD price at the fixed rate otherwise.
fn base_units(usd_cents: i64, eur_cents: i64, quote: &Quote) -> f64 {
    if quote.currency.code == "EUR" && eur_cents > 0 {
        eur_cents as f64 / 100.0
    } else {
        usd_cents as f64 / 100.0 * quote.currency.per_usd
    }
}

impl Market {
    /// The market of `listing` on `venue` for `quote`.
    pub fn new(seed: u64, listing: &Listing, venue: Venue, quote: &Quote) -> Self {
        let product = &listing.product;
        let common = Stream::new(seed, product.pk);
        let own = common
            .child(venue.salt())
            .child(u64::from_le_bytes(pad(quote.market.code)));
        let level = quote.market.price_level * venue.price_level();
        let mut bases: Vec<f64> = listing
            .variants
            .iter()
            .map(|v: &VariantRow| base_units(v.price_usd_cents, v.price_eur_cents, quote) * level)
            .collect();
        if bases.is_empty() || bases.iter().all(|b| *b <= 0.0) {
            // A product without priced sizes still trades: at its catalogue price, else retail.
            let usd = [
                product.min_usd_cents,
                product.avg_usd_cents,
                product.retail_usd_cents,
            ]
            .into_iter()
            .find(|c| *c > 0)
            .unwrap_or(10_000);
            let eur = if product.min_eur_cents > 0 && usd == product.min_usd_cents {
                product.min_eur_cents
            } else {
                0
            };
            bases = vec![base_units(usd, eur, quote) * level];
        }
        let hype = if product.retail_usd_cents > 0 && product.avg_usd_cents > 0 {
            product.avg_usd_cents as f64 / product.retail_usd_cents as f64
        } else {
            1.0
        };
        Self {
            common,
            own,
            bases,
            weekly_orders: listing.weekly_orders.max(0.0),
            hype,
        }
    }

    /// The product's price level at `minute` against its catalogue prices (about 0.95 to 1.05).
    fn drift(&self, minute: i64) -> f64 {
        1.0 + 0.035 * self.common.child(tag::FAIR_SLOW).smooth(minute, 360)
            + 0.012 * self.common.child(tag::FAIR_FAST).smooth(minute, 45)
            + 0.004 * self.own.child(tag::TICK).signed(minute)
    }

    /// Share of sizes with at least one ask: dead products have gaps, busy ones a full run.
    fn ask_coverage(&self) -> f64 {
        0.35 + 0.6 * (1.0 - (-self.weekly_orders / 15.0).exp())
    }

    /// The lowest ask of each size at `minute`, in whole currency units; `None` where nobody
    /// asks (no price, never a made-up 0). At least one size always has an ask.
    pub fn size_asks(&self, minute: i64) -> Vec<Option<i64>> {
        let drift = self.drift(minute);
        let coverage = self.ask_coverage();
        let mut best_draw = (f64::MAX, 0);
        let mut asks: Vec<Option<i64>> = self
            .bases
            .iter()
            .enumerate()
            .map(|(i, base)| {
                let presence = self.own.child(tag::PRESENCE).child(i as u64);
                let (window, _) = presence.window(minute, 90, 150);
                let draw = presence.unit(window);
                if draw < best_draw.0 {
                    best_draw = (draw, i);
                }
                (draw < coverage).then(|| self.ask_units(*base, drift, i, minute))
            })
            .collect();
        if asks.iter().all(Option::is_none) {
            let i = best_draw.1;
            asks[i] = Some(self.ask_units(self.bases[i], drift, i, minute));
        }
        asks
    }

    fn ask_units(&self, base: f64, drift: f64, size: usize, minute: i64) -> i64 {
        let wobble = 1.0
            + 0.025
                * self
                    .own
                    .child(tag::SIZE)
                    .child(size as u64)
                    .smooth(minute, 120)
            + self.size_walk(size, minute);
        (base * drift * wobble).round().max(1.0) as i64
    }

    /// A bounded random walk per size: the sum of the last [`WALK_MINUTES`] per-minute steps,
    /// each uniform in `±WALK_STEP` and seeded per product, marketplace, market and size. Each
    /// minute one step comes in and the oldest leaves, so a size's ask keeps moving minute by
    /// minute (an alert set just below it fires within minutes in the demo), never strays more
    /// than `WALK_MINUTES × WALK_STEP` (7 %; about 1.2 % typically), and any minute can be recomputed.
    fn size_walk(&self, size: usize, minute: i64) -> f64 {
        let steps = self.own.child(tag::WALK).child(size as u64);
        (0..WALK_MINUTES)
            .map(|back| steps.signed(minute - back))
            .sum::<f64>()
            * WALK_STEP
    }

    /// Bid/ask spread as a fraction of the ask: a few percent, wider for slow sellers.
    fn spread(&self, minute: i64) -> f64 {
        let base = 0.02 + 0.10 / (1.0 + self.weekly_orders.sqrt());
        (base + 0.008 * self.own.child(tag::SPREAD).smooth(minute, 90)).clamp(0.015, 0.16)
    }

    fn ask_and_bid(&self, minute: i64) -> (i64, i64, usize) {
        let asks = self.size_asks(minute);
        let sizes = asks.iter().flatten().count();
        let lowest = asks.into_iter().flatten().min().unwrap_or(1);
        let bid = (lowest as f64 * (1.0 - self.spread(minute))).floor() as i64;
        (lowest, bid.clamp(0, (lowest - 1).max(0)), sizes)
    }

    /// The book at `minute`.
    pub fn book(&self, minute: i64) -> Book {
        let (lowest_ask, highest_bid, sizes_with_ask) = self.ask_and_bid(minute);
        let weekly = self.weekly_orders;

        // Sales in 72 h follow the weekly rate; the fraction is rounded up or down per six-hour
        // window, so slow sellers show 0 or 1 rather than a constant.
        let expected =
            weekly * 3.0 / 7.0 * (1.0 + 0.12 * self.own.child(tag::SALES).smooth(minute, 240));
        let round_up = self.own.child(tag::SALES).unit(minute.div_euclid(360)) < expected.fract();
        let sales_last_72_hours = expected.floor() as i64 + i64::from(round_up);

        let sizes = sizes_with_ask as f64;
        let depth = 1.0 + 4.0 * (weekly + 0.2).sqrt();
        let asks = sizes
            * depth
            * (1.0 + 0.2 * self.own.child(tag::ASKS).smooth(minute, 180))
            * (1.0 + 0.03 * self.own.child(tag::ASKS).signed(minute));
        let number_of_asks = (asks.round() as i64).max(sizes_with_ask as i64);
        let bid_ratio = (0.35 + 0.45 * self.hype).clamp(0.3, 2.5);
        let bids = number_of_asks as f64
            * bid_ratio
            * (1.0 + 0.2 * self.own.child(tag::BIDS).smooth(minute, 150))
            * (1.0 + 0.03 * self.own.child(tag::BIDS).signed(minute));
        let number_of_bids = (bids.round() as i64).max(1);

        Book {
            lowest_ask,
            highest_bid,
            last_sale: self.last_sale(minute, highest_bid, lowest_ask),
            sales_last_72_hours,
            number_of_asks,
            number_of_bids,
        }
    }

    /// The last sale: sales happen about every `week / weekly orders` minutes, each priced
    /// inside the spread of its own minute, and it is kept within the current spread.
    fn last_sale(&self, minute: i64, bid_now: i64, ask_now: i64) -> i64 {
        let every =
            (MINUTES_PER_WEEK / self.weekly_orders.max(0.05)).clamp(1.0, 60.0 * 24.0 * 60.0);
        let stream = self.own.child(tag::SALE);
        let (sale, at) = stream.window(minute, every as i64, 1);
        let (ask, bid, _) = self.ask_and_bid(at);
        let price = (bid as f64 + stream.unit(sale) * (ask - bid) as f64).round() as i64;
        if (bid_now..=ask_now).contains(&price) {
            return price;
        }
        // The book has moved past that sale: place it inside today's spread at the same relative
        // point instead of piling it up on the bid or the ask.
        (bid_now as f64 + stream.unit(sale) * (ask_now - bid_now) as f64).round() as i64
    }

    /// Used pairs listed and the cheapest of them in whole units (`0` with none listed, the
    /// marketplace's own convention for that required field). Only pairs out a while come used.
    pub fn used(
        &self,
        minute: i64,
        lowest_ask: i64,
        number_of_asks: i64,
        days_out: i64,
    ) -> (i64, i64) {
        if days_out < 180 {
            return (0, 0);
        }
        let stream = self.own.child(tag::USED);
        let count = (number_of_asks as f64 * 0.05 * (1.0 + 0.5 * stream.smooth(minute, 300)))
            .round() as i64;
        if count == 0 {
            return (0, 0);
        }
        let (window, _) = stream.window(minute, 60, 120);
        let price = (lowest_ask as f64 * (0.7 + 0.12 * stream.unit(window))).round() as i64;
        (count, price.max(1))
    }
}

/// A market code as hash input.
fn pad(code: &str) -> [u8; 8] {
    let mut bytes = [0u8; 8];
    for (slot, byte) in bytes.iter_mut().zip(code.bytes()) {
        *slot = byte;
    }
    bytes
}

/// One retailer size's stock at a minute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stock {
    /// Whether the size can be bought.
    pub available: bool,
    /// When the stock last changed: Unix seconds and microseconds, never after the minute asked.
    pub changed_at_seconds: i64,
    /// Microseconds of `changed_at_seconds`.
    pub changed_at_micros: u32,
}

/// How a retailer's stock of one product behaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct StockProfile {
    /// Share of the restock windows in which a size comes in.
    pub restock_share: f64,
    /// Minutes until a restocked size sells out again, if it does within its window.
    pub sell_out_minutes: Option<(i64, i64)>,
}

/// The stock behaviour of a product at retail: pairs that resell far above retail come back in
/// small drops that sell out within minutes; pairs selling near retail sit on the shelf.
pub(super) fn stock_profile(
    avg_usd_cents: i64,
    retail_usd_cents: i64,
    availability: &str,
) -> StockProfile {
    let (restock_share, sell_out_minutes) = if availability == "out of stock" {
        (0.05, Some((2, 10)))
    } else if retail_usd_cents <= 0 {
        (0.5, None)
    } else {
        let hype = avg_usd_cents as f64 / retail_usd_cents as f64;
        if hype >= 1.3 {
            (0.3, Some((2, 15)))
        } else if hype >= 1.0 {
            (0.45, None)
        } else {
            (0.8, None)
        }
    };
    StockProfile {
        restock_share,
        sell_out_minutes,
    }
}

/// Stock of retailer variant `variant_pk` of product `pk` at `minute`: restock windows of half
/// an hour to four hours, a share of them bringing the size in, and with hyped pairs a sell-out a
/// few minutes later. The stamp is when the stock last changed.
pub(super) fn retail_stock(
    seed: u64,
    pk: i64,
    variant_pk: i64,
    profile: StockProfile,
    minute: i64,
) -> Stock {
    let stream = Stream::new(seed, pk)
        .child(tag::STOCK)
        .child(variant_pk as u64);
    let (window, start) = stream.window(minute, 30, 210);
    let bits = stream.bits(window);
    let mut available = stream.unit(window) < profile.restock_share;
    // A change happens within the minute before the one it shows in.
    let mut changed_minute = start - 1;
    if let Some((fastest, slowest)) = profile.sell_out_minutes {
        let lasts = fastest + (bits >> 20) as i64 % (slowest - fastest + 1).max(1);
        if available && minute >= start + lasts {
            available = false;
            changed_minute = start + lasts - 1;
        }
    }
    Stock {
        available,
        changed_at_seconds: changed_minute * 60 + (bits % 60) as i64,
        changed_at_micros: ((bits >> 8) % 1_000_000) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::super::markets::{COUNTRIES, CURRENCIES};
    use super::super::store::ProductRow;
    use super::*;

    fn listing(weekly_orders: f64) -> Listing {
        let sizes = ["7", "8", "9", "10", "11", "12", "13"];
        Listing {
            product: ProductRow {
                pk: 12,
                id: "00000000-0000-4000-8000-000000000012".into(),
                slug: "x".into(),
                sku: "DZ5485-612".into(),
                sku_norm: "DZ5485612".into(),
                title: "Air Jordan 1".into(),
                brand: "Jordan".into(),
                model: "Air Jordan 1".into(),
                category: "Sneakers > Basketball > Air Jordan 1".into(),
                color: "Red".into(),
                gender: "men".into(),
                size_system: "US M".into(),
                availability: "in stock".into(),
                description: None,
                image: String::new(),
                release_date: "2024-01-01".into(),
                retail_usd_cents: 18_000,
                min_usd_cents: 24_000,
                avg_usd_cents: 26_000,
                max_usd_cents: 32_000,
                min_eur_cents: 22_000,
                popularity: (weekly_orders * 4.0) as i64,
                trending: false,
            },
            variants: sizes
                .iter()
                .enumerate()
                .map(|(i, size)| VariantRow {
                    pk: i as i64 + 1,
                    size: (*size).into(),
                    size_uk: String::new(),
                    size_eu: String::new(),
                    gtin: None,
                    price_usd_cents: 24_000 + i as i64 * 1_000,
                    price_eur_cents: 22_000 + i as i64 * 900,
                })
                .collect(),
            weekly_orders,
        }
    }

    #[test]
    fn each_size_walks_minute_by_minute_within_its_bound() {
        let market = Market::new(7, &listing(30.0), Venue::ResaleA, &Quote::us());
        let again = Market::new(7, &listing(30.0), Venue::ResaleA, &Quote::us());
        let start = 29_000_000;
        let mut moved = 0;
        for minute in start..start + 120 {
            let walk = market.size_walk(3, minute);
            assert_eq!(
                walk.to_bits(),
                again.size_walk(3, minute).to_bits(),
                "seeded: reproducible"
            );
            assert!(walk.abs() <= WALK_MINUTES as f64 * WALK_STEP);
            if (walk - market.size_walk(3, minute + 1)).abs() > 0.001 {
                moved += 1;
            }
        }
        // Nearly every minute moves the size by more than 0.1 %.
        assert!(moved >= 90, "{moved} of 120 minutes moved");
        assert!((market.size_walk(3, start) - market.size_walk(4, start)).abs() > 1e-9);
    }

    #[test]
    fn the_same_minute_gives_the_same_book_and_minutes_move_it() {
        let market = Market::new(7, &listing(300.0), Venue::ResaleB, &Quote::us());
        let minute = 29_000_000;
        assert_eq!(market.book(minute), market.book(minute));
        let changed = (1..=5)
            .filter(|m| market.book(minute + m) != market.book(minute))
            .count();
        assert!(changed >= 4, "only {changed} of 5 minutes moved");
    }

    #[test]
    fn bids_sit_below_asks_and_the_last_sale_between() {
        for weekly in [0.0, 0.5, 12.0, 600.0] {
            let market = Market::new(3, &listing(weekly), Venue::ResaleA, &Quote::us());
            for minute in (0..20_000).step_by(97) {
                let book = market.book(minute);
                assert!(book.highest_bid < book.lowest_ask, "{weekly}: {book:?}");
                assert!((book.highest_bid..=book.lowest_ask).contains(&book.last_sale));
                let spread = 1.0 - book.highest_bid as f64 / book.lowest_ask as f64;
                assert!((0.01..0.2).contains(&spread), "{spread}");
                assert!(book.number_of_asks >= 1 && book.number_of_bids >= 1);
            }
        }
    }

    #[test]
    fn asks_stay_near_the_catalogue_and_slow_sellers_have_gaps() {
        let busy = Market::new(1, &listing(400.0), Venue::ResaleB, &Quote::us());
        let dead = Market::new(1, &listing(0.0), Venue::ResaleB, &Quote::us());
        let (mut busy_gaps, mut dead_gaps) = (0, 0);
        for minute in (0..50_000).step_by(61) {
            let asks = busy.size_asks(minute);
            busy_gaps += asks.iter().filter(|a| a.is_none()).count();
            dead_gaps += dead
                .size_asks(minute)
                .iter()
                .filter(|a| a.is_none())
                .count();
            let lowest = asks.iter().flatten().min().copied().unwrap();
            assert!((220..=290).contains(&lowest), "{lowest}");
        }
        assert!(dead_gaps > busy_gaps * 3, "{dead_gaps} vs {busy_gaps}");
    }

    #[test]
    fn sales_in_72_hours_follow_weekly_orders() {
        let market = Market::new(5, &listing(638.0 * 7.0 / 3.0), Venue::ResaleB, &Quote::us());
        let sales: Vec<i64> = (0..100)
            .map(|h| market.book(h * 60).sales_last_72_hours)
            .collect();
        let mean = sales.iter().sum::<i64>() as f64 / sales.len() as f64;
        assert!((560.0..720.0).contains(&mean), "{mean}");
        let idle = Market::new(5, &listing(0.0), Venue::ResaleB, &Quote::us());
        assert!((0..100).all(|h| idle.book(h * 60).sales_last_72_hours == 0));
    }

    #[test]
    fn euros_start_from_the_catalogue_euro_prices_and_pounds_from_the_rate() {
        let listing = listing(50.0);
        let currency = |code: &str| *CURRENCIES.iter().find(|c| c.code == code).unwrap();
        let quote = |code: &str| Quote {
            currency: currency(code),
            ..Quote::us()
        };
        let minute = 1_000;
        let usd = Market::new(9, &listing, Venue::ResaleB, &quote("USD")).book(minute);
        let eur = Market::new(9, &listing, Venue::ResaleB, &quote("EUR")).book(minute);
        let gbp = Market::new(9, &listing, Venue::ResaleB, &quote("GBP")).book(minute);
        let ratio = eur.lowest_ask as f64 / usd.lowest_ask as f64;
        assert!((0.85..0.97).contains(&ratio), "{ratio}");
        let ratio = gbp.lowest_ask as f64 / usd.lowest_ask as f64;
        assert!((0.75..0.83).contains(&ratio), "{ratio}");
        let japan = Quote {
            market: *COUNTRIES.iter().find(|c| c.code == "JP").unwrap(),
            ..Quote::us()
        };
        let jp = Market::new(9, &listing, Venue::ResaleB, &japan).book(minute);
        assert!(jp.lowest_ask > usd.lowest_ask);
    }

    #[test]
    fn retail_stock_changes_over_hours_and_is_stamped_before_now() {
        let minute = 29_000_000;
        let shelf = stock_profile(10_000, 11_000, "in stock");
        let stocks: Vec<Stock> = (0..600)
            .map(|m| retail_stock(1, 2, 3, shelf, minute + m))
            .collect();
        assert!(stocks.iter().any(|s| s.available) && stocks.iter().any(|s| !s.available));
        for (m, stock) in stocks.iter().enumerate() {
            assert!(stock.changed_at_seconds < (minute + m as i64) * 60);
        }
        assert!(stocks.windows(2).filter(|w| w[0] != w[1]).count() < 30);
    }

    #[test]
    fn hyped_pairs_are_rarely_in_stock_and_bricks_mostly_are() {
        let share = |profile: StockProfile| {
            let mut available = 0;
            for variant in 0..20 {
                for hour in 0..500 {
                    available +=
                        usize::from(retail_stock(4, 9, variant, profile, hour * 61).available);
                }
            }
            available as f64 / 10_000.0
        };
        let hyped = share(stock_profile(50_000, 20_000, "in stock"));
        let brick = share(stock_profile(9_000, 11_000, "in stock"));
        let gone = share(stock_profile(9_000, 11_000, "out of stock"));
        assert!(hyped < 0.1, "{hyped}");
        assert!((0.7..0.9).contains(&brick), "{brick}");
        assert!(gone < 0.03, "{gone}");
    }
}
