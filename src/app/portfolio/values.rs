//! Market values and charts of the portfolio: every held style code priced in batches
//! (`GET /api/v2/prices`, 50 codes a request: with KicksDB one call per 50 codes, not a product
//! lookup per pair), each held product's weekly orders for the value-by-week chart once the user
//! asks for that chart (with KicksDB its daily sales cost up to 4 calls a product the first
//! time), and the rows, totals and charts the panel draws, computed again only when something
//! they depend on changed.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::MAX_LOOKUPS_IN_FLIGHT;

/// How often the rows are built again while market values are still landing.
const REBUILD_WHILE_LOADING: std::time::Duration = std::time::Duration::from_millis(300);
use crate::app::prices::{CodePrice, PriceBook, age_text, as_of, source_text};
use crate::app::{App, Requested};
use crate::figures::{
    FeeRates, Totals, Week, WeekValue, parse_size_label, realized, realized_by_month, size_asks,
    totals_by_currency, unrealized, value_by_week, weeks_from_records,
};
use crate::model::portfolio::{Holding, Pair, sku_key};
use crate::model::{Country, Feature};
use crate::ui::portfolio::{HoldingRow, MarketValue, PortfolioCharts, Unpriced, WeeklyFigures};

/// Daily-sales pages KicksDB is asked for a product's weeks the first time (100 days each).
const FIRST_DAILY_SALES_PAGES: usize = 4;

/// KicksDB calls a product's weeks cost the first time at most: the product itself when the
/// service has not kept it yet (the weeks hang off it), and the pages of daily sales.
const FIRST_WEEKS_CALLS: usize = 1 + FIRST_DAILY_SALES_PAGES;

/// The dataset a pair's currency is priced in (US for any other).
pub(super) fn country_of(currency: &str) -> Country {
    Country::of_currency(currency).unwrap_or_default()
}

/// Whether two size labels name the same size (`US 10` and `10`).
fn same_size(a: &str, b: &str) -> bool {
    a == b || matches!((parse_size_label(a), parse_size_label(b)), (Ok(a), Ok(b)) if a == b)
}

/// The product id the batch priced a pair's style code under (the weekly figures' key).
fn product_id_of<'a>(book: &'a PriceBook, pair: &Pair) -> Option<&'a str> {
    match book.get(&pair.sku, country_of(&pair.currency))? {
        CodePrice::Priced(priced) if !priced.product_id.is_empty() => {
            Some(priced.product_id.as_str())
        }
        _ => None,
    }
}

/// A held pair's market value from the batched prices, or why it has none.
fn batched_value(
    book: &PriceBook,
    pair: &Pair,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<MarketValue, Unpriced> {
    if sku_key(&pair.sku).is_empty() {
        return Err(Unpriced::Because(
            "This pair has no style code to price it by.".into(),
        ));
    }
    let priced = match book.get(&pair.sku, country_of(&pair.currency)) {
        None | Some(CodePrice::Asked) => return Err(Unpriced::Pricing),
        Some(CodePrice::Unpriced(why)) => return Err(Unpriced::Because(why.clone())),
        Some(CodePrice::Priced(priced)) => priced,
    };
    if priced.currency != pair.currency {
        return Err(Unpriced::Because(format!(
            "No market prices in {}: the market is priced in {}.",
            pair.currency, priced.currency
        )));
    }
    let from = source_text(&priced.source);
    let age = as_of(priced).map_or_else(String::new, |at| format!(", {}", age_text(at, now)));
    let Some((size, cents)) = priced
        .sizes
        .iter()
        .find(|s| same_size(&s.size, &pair.size))
        .and_then(|s| Some((&s.size, crate::figures::cents_from_amount(s.lowest_ask)?)))
        .filter(|(_, cents)| *cents > 0)
    else {
        return Err(Unpriced::Because(format!(
            "Nobody asks for size {} of {} at {from}{age}.",
            pair.size, priced.product_sku
        )));
    };
    Ok(MarketValue {
        cents,
        currency: priced.currency.clone(),
        source: format!("lowest ask of size {size} from {from}{age}"),
    })
}

/// The charts: the value of the last 52 weeks that any product's weekly orders cover, and
/// realized P&L by month, in the currency most pairs are in.
fn charts_of(
    holdings: &[Holding],
    totals: &BTreeMap<String, Totals>,
    prices: &PriceBook,
    weekly: &HashMap<String, Requested<Vec<Week>>>,
) -> Option<PortfolioCharts> {
    let currency = totals
        .iter()
        .max_by_key(|(_, t)| t.held + t.sold)
        .map(|(currency, _)| currency.clone())?;
    let mut starts: Vec<chrono::NaiveDate> = weekly
        .values()
        .filter_map(Requested::value)
        .flat_map(|weeks| weeks.iter().map(|w| w.start))
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let starts = &starts[starts.len().saturating_sub(52)..];
    let aov = |pair: &Pair, start: chrono::NaiveDate| {
        let weeks = weekly.get(product_id_of(prices, pair)?)?.value()?;
        let at = weeks.binary_search_by_key(&start, |w| w.start).ok()?;
        Some(weeks[at].aov).filter(|aov| *aov > 0.0)
    };
    let weeks: Vec<WeekValue> = value_by_week(holdings, &currency, starts, aov);
    Some(PortfolioCharts {
        months: realized_by_month(holdings, &currency),
        weeks,
        currency,
    })
}

impl super::Portfolio {
    /// Notes the distinct products the held pairs are priced under, when the holdings or the
    /// prices changed since last noted.
    fn note_held_products(&mut self) {
        let key = (self.holdings_version, self.prices.generation());
        if self.held_products.0 == Some(key) {
            return;
        }
        let Some(holdings) = &self.holdings else {
            return;
        };
        let mut seen = HashSet::new();
        let ids: Vec<String> = holdings
            .iter()
            .filter(|h| h.sale.is_none())
            .filter_map(|h| product_id_of(&self.prices, &h.pair))
            .filter(|id| seen.insert(*id))
            .map(str::to_owned)
            .collect();
        self.held_products = (Some(key), ids);
    }
}

impl App {
    /// Prices the held style codes not priced yet, in one batch (none while one is in flight);
    /// once the user opened the value-by-week chart, fetches the held products' weekly orders,
    /// a few at a time.
    pub(super) fn fetch_market_values(&mut self, ctx: &egui::Context) {
        let Some(client) = self.client.clone() else {
            return;
        };
        let portfolio = &mut self.portfolio;
        let Some(holdings) = &portfolio.holdings else {
            return;
        };
        portfolio.prices.poll();
        // Every held code was asked for already: nothing to scan until the holdings change (a
        // scan of 10,000 pairs each frame would cost more than drawing them).
        if portfolio.priced_for != Some(portfolio.holdings_version) {
            let held = holdings
                .iter()
                .filter(|h| h.sale.is_none())
                .map(|h| (h.pair.sku.as_str(), country_of(&h.pair.currency)));
            if portfolio
                .prices
                .ask(&self.runtime, ctx, &client, held, false)
            {
                portfolio.priced_for = Some(portfolio.holdings_version);
            }
        }
        if !portfolio.weekly_opened
            || portfolio.prices.is_pending()
            || client
                .tier()
                .is_some_and(|tier| !tier.allows(Feature::WeeklyOrders))
        {
            return;
        }
        portfolio.note_held_products();
        let weekly = &mut portfolio.weekly;
        let mut in_flight = weekly.values().filter(|r| r.is_pending()).count();
        for id in &portfolio.held_products.1 {
            if in_flight >= MAX_LOOKUPS_IN_FLIGHT {
                break;
            }
            if weekly.contains_key(id) {
                continue;
            }
            let (client, id) = (client.clone(), id.clone());
            weekly
                .entry(id.clone())
                .or_default()
                .spawn(&self.runtime, ctx, async move {
                    client
                        .orders(&id)
                        .await
                        .map(|envelope| weeks_from_records(&envelope.data))
                });
            in_flight += 1;
        }
    }

    /// What the value-by-week chart has of its weekly figures; while none are asked for,
    /// `cost` is filled with what fetching them costs.
    pub(super) fn weekly_figures<'a>(&self, cost: &'a mut String) -> WeeklyFigures<'a> {
        let portfolio = &self.portfolio;
        if self
            .tier()
            .is_some_and(|tier| !tier.allows(Feature::WeeklyOrders))
        {
            return WeeklyFigures::Locked;
        }
        let held = &portfolio.held_products.1;
        if !portfolio.weekly_opened {
            *cost = self.weekly_cost_text(held.len());
            return WeeklyFigures::NotLoaded {
                products: held.len(),
                cost,
            };
        }
        let mut landed = 0;
        let mut failed = 0;
        for id in held {
            match portfolio.weekly.get(id) {
                Some(Requested::Completed(_)) => landed += 1,
                Some(Requested::Failed(_)) => {
                    landed += 1;
                    failed += 1;
                }
                _ => {}
            }
        }
        if landed < held.len() || portfolio.prices.is_pending() {
            return WeeklyFigures::Loading {
                landed,
                products: held.len(),
            };
        }
        WeeklyFigures::Loaded { failed }
    }

    /// What fetching the weekly figures of `products` products costs, in a sentence.
    pub(super) fn weekly_cost_text(&self, products: usize) -> String {
        let first = products * FIRST_WEEKS_CALLS;
        match self.service_sources() {
            Some(sources) if sources.catalogue.live => format!(
                "Its weekly figures are not fetched until you ask: with KicksDB this costs up \
                 to {first} calls of the month's budget the first time (per product up to \
                 {FIRST_DAILY_SALES_PAGES} pages of daily sales, and the product itself if not \
                 kept yet), then 1 call per product whose weeks are over an hour old; weeks \
                 read within the hour cost nothing."
            ),
            _ => format!(
                "Its weekly figures are not fetched until you ask. Here they come from {} at no \
                 cost; with KicksDB they would cost up to {first} calls the first time (per \
                 product up to {FIRST_DAILY_SALES_PAGES} pages of daily sales, and the product \
                 itself if not kept yet), then 1 per product.",
                self.service_sources().map_or_else(
                    || "the service".to_owned(),
                    |s| source_text(&s.catalogue.source)
                )
            ),
        }
    }

    /// The rows and totals the panel draws, computed again only when something they depend on
    /// changed.
    pub(super) fn update_rows(&mut self) {
        self.portfolio.prices.poll();
        for weeks in self.portfolio.weekly.values_mut() {
            weeks.poll();
        }
        let Some(holdings) = &self.portfolio.holdings else {
            return;
        };
        let preset = self.portfolio.form.fee_preset;
        let rates: FeeRates = preset.rates().unwrap_or(self.state.payout.rates);
        let live = self.resale_a.value().map(|envelope| &envelope.data);
        let live_key = live.map(|p| format!("{}:{}", p.sku, p.id));
        if live_key.is_some()
            && self.portfolio.realtime_seen.as_ref().map(|(k, _)| k) != live_key.as_ref()
        {
            let time = chrono::Local::now().format("%H:%M").to_string();
            self.portfolio.realtime_seen = live_key.clone().map(|k| (k, time));
        }
        let landed = usize::try_from(self.portfolio.prices.generation()).unwrap_or(usize::MAX)
            + self
                .portfolio
                .weekly
                .values()
                .filter(|r| !r.is_pending())
                .count();
        let key = (
            self.portfolio.holdings_version,
            landed,
            preset,
            [
                rates.commission_percent.to_bits(),
                rates.processing_percent.to_bits(),
                rates.fixed_fee.to_bits(),
            ],
            live_key,
        );
        if self.portfolio.rows_key.as_ref() == Some(&key) {
            return;
        }
        // While lookups are still landing one by one, the rows of a large portfolio are built
        // again at most a few times a second, not once per landed lookup.
        let only_lookups_landed =
            self.portfolio.rows_key.as_ref().is_some_and(|old| {
                (old.0, &old.2, &old.3, &old.4) == (key.0, &key.2, &key.3, &key.4)
            });
        let lookups_pending = self.portfolio.prices.is_pending()
            || self.portfolio.weekly.values().any(Requested::is_pending);
        if only_lookups_landed
            && lookups_pending
            && self
                .portfolio
                .rows_built_at
                .is_some_and(|at| at.elapsed() < REBUILD_WHILE_LOADING)
        {
            return;
        }
        self.portfolio.rows_built_at = Some(std::time::Instant::now());
        let live_asks = live.map(|product| (sku_key(&product.sku), size_asks(product)));
        let live_time = self
            .portfolio
            .realtime_seen
            .as_ref()
            .map_or_else(String::new, |(_, time)| time.clone());
        let prices = &self.portfolio.prices;
        let now = chrono::Utc::now();
        let market_of = |pair: &Pair| -> Result<MarketValue, Unpriced> {
            if pair.currency == "USD"
                && let Some((live_key, asks)) = &live_asks
                && *live_key == sku_key(&pair.sku)
                && let Some(cents) = asks
                    .iter()
                    .find(|ask| same_size(&ask.size, &pair.size))
                    .and_then(|ask| ask.lowest_ask_cents)
            {
                return Ok(MarketValue {
                    cents,
                    currency: "USD".into(),
                    source: format!("resale-a lowest ask, live at {live_time}"),
                });
            }
            batched_value(prices, pair, now)
        };
        let rows: Vec<HoldingRow> = holdings
            .iter()
            .map(|holding| {
                let pair = &holding.pair;
                let (market, unpriced) = match holding.sale.is_none().then(|| market_of(pair)) {
                    Some(Ok(market)) => (Some(market), None),
                    Some(Err(why)) => (None, Some(why)),
                    None => (None, None),
                };
                let unrealized = market
                    .as_ref()
                    .map(|m| unrealized(pair.cost_cents, m.cents, rates));
                let realized = holding.sale.as_ref().map(|sale| realized(pair, sale));
                let search_text = format!(
                    "{} {} {} {} {} {}",
                    pair.title,
                    pair.sku,
                    pair.size,
                    pair.tags.join(" "),
                    pair.bought_from,
                    pair.notes
                )
                .to_lowercase();
                HoldingRow {
                    holding: holding.clone(),
                    market,
                    unpriced,
                    unrealized,
                    realized,
                    search_text,
                }
            })
            .collect();
        let values: HashMap<i64, i64> = rows
            .iter()
            .filter_map(|r| r.market.as_ref().map(|m| (r.holding.id, m.cents)))
            .collect();
        self.portfolio.totals = totals_by_currency(holdings, |h| values.get(&h.id).copied(), rates);
        self.portfolio.charts = charts_of(
            holdings,
            &self.portfolio.totals,
            &self.portfolio.prices,
            &self.portfolio.weekly,
        );
        self.portfolio.note_held_products();
        self.portfolio.rows = rows;
        self.portfolio.generation += 1;
        self.portfolio.rows_key = Some(key);
    }
}
