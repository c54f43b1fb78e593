//! Market values and charts of the portfolio: each held pair's product looked up once (by id,
//! else by style code) with a bounded number of lookups in flight, its weekly orders for the
//! value-by-week chart, and the rows, totals and charts the panel draws, computed again only
//! when something they depend on changed.

use std::collections::{BTreeMap, HashMap};

use super::MAX_LOOKUPS_IN_FLIGHT;

/// How often the rows are built again while market values are still landing.
const REBUILD_WHILE_LOADING: std::time::Duration = std::time::Duration::from_millis(300);
use crate::app::{App, Requested};
use crate::client::SearchQuery;
use crate::figures::{
    FeeRates, Totals, Week, WeekValue, parse_size_label, realized, realized_by_month, size_asks,
    totals_by_currency, unrealized, value_by_week, weeks_from_records,
};
use crate::model::portfolio::{Holding, Pair, sku_key};
use crate::model::{Country, Feature, Product};
use crate::ui::portfolio::{HoldingRow, MarketValue, PortfolioCharts};

/// A held pair's product with when its prices were fetched (a live source's mirror answers with
/// its age; a live or catalogue answer is current when it lands).
#[derive(Debug, Clone)]
pub(in crate::app) struct PricedProduct {
    /// The product.
    pub(in crate::app) product: Product,
    /// When its prices were fetched.
    pub(in crate::app) as_of: chrono::DateTime<chrono::Utc>,
}

/// How old a price is, for a person: `just now`, `12 min old`, `3 h old`, `2 days old`.
fn age_text(as_of: chrono::DateTime<chrono::Utc>, now: chrono::DateTime<chrono::Utc>) -> String {
    let minutes = now.signed_duration_since(as_of).num_minutes().max(0);
    match minutes {
        0 => "just now".to_owned(),
        1..=59 => format!("{minutes} min old"),
        60..=2879 => format!("{} h old", minutes / 60),
        _ => format!("{} days old", minutes / 1440),
    }
}

/// The dataset a pair's currency is priced in (US for any other).
pub(super) fn country_of(currency: &str) -> Country {
    Country::ALL
        .into_iter()
        .find(|c| c.currency() == currency)
        .unwrap_or_default()
}

/// Whether two size labels name the same size (`US 10` and `10`).
fn same_size(a: &str, b: &str) -> bool {
    a == b || matches!((parse_size_label(a), parse_size_label(b)), (Ok(a), Ok(b)) if a == b)
}

/// The charts: the value of the last 52 weeks that any product's weekly orders cover, and
/// realized P&L by month, in the currency most pairs are in.
fn charts_of(
    holdings: &[Holding],
    totals: &BTreeMap<String, Totals>,
    products: &HashMap<(String, Country), Requested<Option<PricedProduct>>>,
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
        let product = &products
            .get(&(sku_key(&pair.sku), country_of(&pair.currency)))?
            .value()?
            .as_ref()?
            .product;
        let weeks = weekly.get(&product.id)?.value()?;
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

impl App {
    /// Looks up the products of held pairs not looked up yet, a few at a time.
    pub(super) fn fetch_market_values(&mut self, ctx: &egui::Context) {
        let Some(client) = self.client.clone() else {
            return;
        };
        let Some(holdings) = &self.portfolio.holdings else {
            return;
        };
        // Every pair was looked up already: nothing to scan until the holdings change (a scan
        // of 10,000 pairs each frame would cost more than drawing them).
        if self.portfolio.lookups_complete_for == Some(self.portfolio.holdings_version) {
            return;
        }
        let products = &mut self.portfolio.products;
        let mut in_flight = products.values().filter(|r| r.is_pending()).count();
        let mut complete = true;
        for holding in holdings.iter().filter(|h| h.sale.is_none()) {
            if in_flight >= MAX_LOOKUPS_IN_FLIGHT {
                complete = false;
                break;
            }
            let pair = &holding.pair;
            let key = (sku_key(&pair.sku), country_of(&pair.currency));
            if products.contains_key(&key) {
                continue;
            }
            let (client, id, sku, country) = (
                client.clone(),
                pair.product_id.clone(),
                pair.sku.clone(),
                key.1,
            );
            let wanted = key.0.clone();
            products
                .entry(key)
                .or_default()
                .spawn(&self.runtime, ctx, async move {
                    // The id first (one request while the catalogue is the same), then the style code.
                    if !id.is_empty()
                        && let Ok((envelope, as_of)) = client.product_v2_dated(&id).await
                        && sku_key(&envelope.data.sku) == wanted
                        && envelope.data.currency == country.currency()
                    {
                        return Ok(Some(PricedProduct {
                            product: envelope.data,
                            as_of,
                        }));
                    }
                    let query = SearchQuery {
                        sku: Some(sku),
                        country,
                        ..SearchQuery::default()
                    };
                    let hits = client.search(&query).await?;
                    let Some(hit) = hits.hits.iter().find(|hit| sku_key(&hit.sku) == wanted) else {
                        return Ok(None);
                    };
                    client.product_v2_dated(&hit.id).await.map(|(e, as_of)| {
                        Some(PricedProduct {
                            product: e.data,
                            as_of,
                        })
                    })
                });
            in_flight += 1;
        }
        complete &= in_flight == 0;
        if client
            .tier()
            .is_some_and(|tier| !tier.allows(Feature::WeeklyOrders))
        {
            if complete {
                self.portfolio.lookups_complete_for = Some(self.portfolio.holdings_version);
            }
            return;
        }
        let weekly = &mut self.portfolio.weekly;
        let mut in_flight = weekly.values().filter(|r| r.is_pending()).count();
        for product in products
            .values()
            .filter_map(|r| r.value().and_then(Option::as_ref))
            .map(|priced| &priced.product)
        {
            if in_flight >= MAX_LOOKUPS_IN_FLIGHT {
                complete = false;
                break;
            }
            if weekly.contains_key(&product.id) {
                continue;
            }
            let (client, id) = (client.clone(), product.id.clone());
            weekly
                .entry(product.id.clone())
                .or_default()
                .spawn(&self.runtime, ctx, async move {
                    client
                        .orders(&id)
                        .await
                        .map(|envelope| weeks_from_records(&envelope.data))
                });
            in_flight += 1;
        }
        if complete && in_flight == 0 {
            self.portfolio.lookups_complete_for = Some(self.portfolio.holdings_version);
        }
    }

    /// The rows and totals the panel draws, computed again only when something they depend on
    /// changed.
    pub(super) fn update_rows(&mut self) {
        for product in self.portfolio.products.values_mut() {
            product.poll();
        }
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
        let landed = self
            .portfolio
            .products
            .values()
            .filter(|r| !r.is_pending())
            .count()
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
        let lookups_pending = self.portfolio.products.values().any(Requested::is_pending)
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
        let products = &self.portfolio.products;
        let now = chrono::Utc::now();
        let market_of = |pair: &Pair| -> Option<MarketValue> {
            let key = sku_key(&pair.sku);
            if pair.currency == "USD"
                && let Some((live_key, asks)) = &live_asks
                && *live_key == key
                && let Some(cents) = asks
                    .iter()
                    .find(|ask| same_size(&ask.size, &pair.size))
                    .and_then(|ask| ask.lowest_ask_cents)
            {
                return Some(MarketValue {
                    cents,
                    currency: "USD".into(),
                    source: format!("resale-a lowest ask, live at {live_time}"),
                });
            }
            let priced = products
                .get(&(key, country_of(&pair.currency)))?
                .value()?
                .as_ref()?;
            let variant = priced
                .product
                .variants
                .iter()
                .find(|v| same_size(&v.size, &pair.size))?;
            let cents = crate::figures::cents_from_amount(variant.price).filter(|c| *c > 0)?;
            (variant.currency == pair.currency).then(|| MarketValue {
                cents,
                currency: variant.currency.clone(),
                source: format!(
                    "lowest ask of size {}, {}",
                    variant.size,
                    age_text(priced.as_of, now)
                ),
            })
        };
        let rows: Vec<HoldingRow> = holdings
            .iter()
            .map(|holding| {
                let pair = &holding.pair;
                let market = holding.sale.is_none().then(|| market_of(pair)).flatten();
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
            &self.portfolio.products,
            &self.portfolio.weekly,
        );
        self.portfolio.rows = rows;
        self.portfolio.generation += 1;
        self.portfolio.rows_key = Some(key);
    }
}

#[cfg(test)]
mod age_tests {
    use super::age_text;

    #[test]
    fn a_price_says_how_old_it_is() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-25T12:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let ago = |minutes: i64| now - chrono::Duration::minutes(minutes);
        assert_eq!(age_text(ago(0), now), "just now");
        assert_eq!(age_text(ago(12), now), "12 min old");
        assert_eq!(age_text(ago(3 * 60 + 5), now), "3 h old");
        assert_eq!(age_text(ago(3 * 1440), now), "3 days old");
        // A clock that runs behind the source is not a negative age.
        assert_eq!(
            age_text(now + chrono::Duration::minutes(5), now),
            "just now"
        );
    }
}
