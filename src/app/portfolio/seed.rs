//! The screenshot's portfolio: a few pairs of the first hits, written to the temporary user
//! database a screenshot run gets (never the user's own).

use poll_promise::Promise;

use crate::app::App;
use crate::model::portfolio::{Pair, Sale};
use crate::userdb::{self, UserDbError};

impl App {
    /// For a screenshot of the portfolio (whose user database is a temporary one): once the
    /// first search has landed and the portfolio is read and empty, adds pairs of the first
    /// hits, a few of them sold, so the panel has something to show, and opens the
    /// value-by-week chart as a user would.
    pub(in crate::app) fn seed_portfolio_for_screenshot(&mut self, ctx: &egui::Context) {
        let seeding = &mut self.portfolio;
        seeding.weekly_opened = true;
        if seeding.seeded
            || !seeding.holdings.as_ref().is_some_and(Vec::is_empty)
            || !seeding.writes.is_empty()
        {
            return;
        }
        let (Some(client), Some(db), Some(results)) = (
            self.client.clone(),
            seeding.db.clone(),
            self.search.results.value(),
        ) else {
            return;
        };
        let ids: Vec<String> = results.hits.iter().take(8).map(|h| h.id.clone()).collect();
        if ids.is_empty() {
            return;
        }
        seeding.seeded = true;
        let (sender, promise) = Promise::new();
        seeding.writes.push(promise);
        let ctx = ctx.clone();
        self.runtime.spawn(async move {
            let mut rows = Vec::new();
            let today = chrono::Local::now().date_naive();
            for (index, id) in ids.iter().enumerate() {
                let Ok(envelope) = client.product_v2(id).await else {
                    continue;
                };
                let product = envelope.data;
                for (pick, variant) in product
                    .variants
                    .iter()
                    .enumerate()
                    .skip(index % 3)
                    .step_by(4)
                    .take(2)
                {
                    let price = crate::figures::cents_from_amount(variant.price).unwrap_or(0);
                    let shift = (index * 7 + pick * 3) as i64;
                    let purchased_on = today - chrono::Days::new(30 + (shift as u64 * 11) % 300);
                    let cost_cents = price * (80 + shift % 30) / 100;
                    let sale = (pick % 3 == 1).then(|| Sale {
                        sold_on: purchased_on + chrono::Days::new(14 + (shift as u64 % 40)),
                        price_cents: price * (95 + shift % 25) / 100,
                        marketplace: "resale-b".to_owned(),
                        fees_cents: crate::figures::fees_cents(
                            price,
                            crate::figures::RESALE_B_DEFAULT_FEES,
                        ),
                        shipping_cents: 1_200,
                    });
                    rows.push((
                        Pair {
                            product_id: product.id.clone(),
                            slug: product.slug.clone(),
                            sku: product.sku.clone(),
                            title: product.title.clone(),
                            size: variant.size.clone(),
                            condition: crate::model::portfolio::Condition::New,
                            purchased_on,
                            cost_cents,
                            currency: product.currency.clone(),
                            bought_from: "demo".to_owned(),
                            notes: String::new(),
                            tags: vec!["demo".to_owned()],
                        },
                        sale,
                    ));
                }
            }
            let written = db.run(move |db| userdb::portfolio::add_holdings(db, &rows).map(drop));
            let outcome = loop {
                if let Some(outcome) = written.ready() {
                    break match outcome {
                        Ok(()) => Ok(()),
                        Err(err) => Err(UserDbError::Invalid(format!("{err:#}"))),
                    };
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            };
            sender.send(outcome);
            ctx.request_repaint();
        });
    }
}
