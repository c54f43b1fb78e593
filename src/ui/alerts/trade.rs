//! The where-to-buy, where-to-sell table of the open product: one row per size with each
//! source's ask, the best buy, the sale price, each resale marketplace's payout after fees, the
//! best sell and the margin (`figures::where_to_trade` does the arithmetic).

use egui_extras::{Column, TableBuilder};

use crate::figures::TradeRow;
use crate::model::QuoteSource;
use crate::ui::format::money_from_cents;

/// The text that marks the best buy or the best sell of a row: `retailer-a · $180.00`.
#[must_use]
pub fn mark_text(source: QuoteSource, cents: i64, currency: &str) -> String {
    format!(
        "{} · {}",
        source.as_str(),
        money_from_cents(cents, currency)
    )
}

/// The table for `rows` in `currency`, under a line with the real-time budget (`budget_line`).
pub fn where_to_trade_ui(ui: &mut egui::Ui, rows: &[TradeRow], currency: &str, budget_line: &str) {
    ui.strong("Where to buy, where to sell");
    ui.weak(budget_line);
    if rows.is_empty() {
        ui.weak("No size has a price yet: look the product up on the real-time sources.");
        return;
    }
    let sources: Vec<QuoteSource> = {
        let mut all: Vec<QuoteSource> = rows
            .iter()
            .flat_map(|row| row.asks.iter().map(|(source, _)| *source))
            .collect();
        all.sort();
        all.dedup();
        all
    };
    let height = ui.text_style_height(&egui::TextStyle::Body) + 6.0;
    let money = |cents: i64| money_from_cents(cents, currency);
    let mut table = TableBuilder::new(ui)
        .id_salt("where_to_trade")
        .striped(true)
        .vscroll(false)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(Column::auto().at_least(50.0));
    for _ in &sources {
        table = table.column(Column::auto().at_least(90.0));
    }
    table
        .column(Column::auto().at_least(150.0))
        .column(Column::auto().at_least(90.0))
        .column(Column::auto().at_least(90.0))
        .column(Column::auto().at_least(90.0))
        .column(Column::auto().at_least(150.0))
        .column(Column::auto().at_least(80.0))
        .header(height, |mut header| {
            header.col(|ui| {
                ui.strong("Size");
            });
            for source in &sources {
                header.col(|ui| {
                    ui.strong(format!("Ask {}", source.as_str()));
                });
            }
            for name in [
                "Best buy",
                "Sale at",
                "Payout resale-a",
                "Payout resale-b",
                "Best sell",
                "Margin",
            ] {
                header.col(|ui| {
                    ui.strong(name);
                });
            }
        })
        .body(|mut body| {
            for row in rows {
                body.row(height, |mut cells| {
                    cells.col(|ui| {
                        ui.label(&row.size);
                    });
                    for source in &sources {
                        let ask = row
                            .asks
                            .iter()
                            .find(|(s, _)| s == source)
                            .and_then(|(_, ask)| *ask);
                        cells.col(|ui| match ask {
                            Some(cents) => {
                                ui.label(money(cents));
                            }
                            None => {
                                ui.weak("no price");
                            }
                        });
                    }
                    cells.col(|ui| match row.best_buy {
                        Some((source, cents)) => {
                            ui.strong(mark_text(source, cents, currency))
                                .on_hover_text("Cheapest ask for this size");
                        }
                        None => {
                            ui.weak("—");
                        }
                    });
                    cells.col(|ui| match row.sale_price_cents {
                        Some(cents) => {
                            let why = if row.best_bid.is_some() {
                                "The highest bid"
                            } else {
                                "No bid for this size: the lowest resale ask a listing must match"
                            };
                            ui.label(money(cents)).on_hover_text(why);
                        }
                        None => {
                            ui.weak("—");
                        }
                    });
                    for source in [QuoteSource::ResaleA, QuoteSource::ResaleB] {
                        let payout = row.sells.iter().find(|s| s.source == source);
                        cells.col(|ui| match payout {
                            Some(sell) => {
                                ui.label(money(sell.payout_cents));
                            }
                            None => {
                                ui.weak("—");
                            }
                        });
                    }
                    cells.col(|ui| match &row.best_sell {
                        Some(sell) => {
                            ui.strong(mark_text(sell.source, sell.payout_cents, currency))
                                .on_hover_text("Pays most after fees");
                        }
                        None => {
                            ui.weak("—");
                        }
                    });
                    cells.col(|ui| match row.margin_cents {
                        Some(cents) => {
                            ui.colored_label(
                                egui::Color32::from_rgb(0x2e, 0x9e, 0x4f),
                                money(cents),
                            );
                        }
                        None => {
                            ui.weak("does not pay");
                        }
                    });
                });
            }
        });
}
