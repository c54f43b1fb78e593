//! The where-to-buy, where-to-sell table of the open product: one row per size with each
//! seller's ask (one column per source, and per storefront when `retailer-a` is read from real
//! stores, each price linking to the store's page for the size), the best buy, the sale price, each resale marketplace's payout after fees, the
//! best sell and the margin (`figures::where_to_trade` does the arithmetic).

use egui_extras::{Column, TableBuilder};

use crate::client::{ClientError, ErrorKind};
use crate::figures::{Seller, SellerAsk, TradeRow};
use crate::ui::format::money_from_cents;

/// The text that marks the best buy or the best sell of a row: `retailer-a · $180.00`,
/// `kith.com · $110.00`.
#[must_use]
pub fn mark_text(seller: impl Into<Seller>, cents: i64, currency: &str) -> String {
    format!(
        "{} · {}",
        seller.into().name(),
        money_from_cents(cents, currency)
    )
}

/// The column heading of a seller: `Ask resale-a`, `kith.com retail`.
#[must_use]
pub fn seller_heading(seller: &Seller) -> String {
    match &seller.store {
        Some(store) => format!("{store} retail"),
        None => format!("Ask {}", seller.source.as_str()),
    }
}

/// One seller's cell: the price (a link to the store's page for the size, when there is one),
/// "sold out", or "no price".
fn ask_cell_ui(ui: &mut egui::Ui, ask: Option<&SellerAsk>, currency: &str) {
    let Some(ask) = ask else {
        ui.weak("—");
        return;
    };
    match (ask.cents, ask.in_stock, ask.link.as_deref()) {
        (Some(cents), _, Some(link)) => {
            ui.hyperlink_to(money_from_cents(cents, currency), link)
                .on_hover_text(format!("In stock: open {link}"));
        }
        (Some(cents), _, None) => {
            ui.label(money_from_cents(cents, currency));
        }
        (None, Some(false), Some(link)) => {
            ui.hyperlink_to("sold out", link)
                .on_hover_text(format!("This size is sold out: {link}"));
        }
        (None, Some(false), None) => {
            ui.weak("sold out");
        }
        (None, _, _) => {
            ui.weak("no price");
        }
    }
}

/// A lookup of `source` (a marketplace, or a store by its label) that gave no answer, in the
/// service's words with the source named once. "Not found" (a store that does not sell the
/// product, a marketplace that has no such product) is information, shown plain; any other
/// failure is an error. The request is on hover.
pub fn lookup_failure_ui(ui: &mut egui::Ui, source: &str, error: &ClientError) {
    let message = error.user_text();
    // The service's sentence may already start with the store's name.
    let text = if message.starts_with(source) {
        message
    } else {
        format!("{source}: {message}")
    };
    let shown = if error.kind == ErrorKind::NotFound {
        ui.weak(text)
    } else {
        ui.colored_label(ui.visuals().error_fg_color, text)
    };
    shown.on_hover_text(format!("{error:#}"));
}

/// The table for `rows` in `currency`, under a line with the real-time budget (`budget_line`).
pub fn where_to_trade_ui(ui: &mut egui::Ui, rows: &[TradeRow], currency: &str, budget_line: &str) {
    ui.strong("Where to buy, where to sell");
    ui.weak(budget_line);
    if rows.is_empty() {
        ui.weak("No size has a price yet: look the product up on the real-time sources.");
        return;
    }
    let sellers: Vec<Seller> = {
        let mut all: Vec<Seller> = rows
            .iter()
            .flat_map(|row| row.asks.iter().map(|ask| ask.seller.clone()))
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
    for _ in &sellers {
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
            for seller in &sellers {
                header.col(|ui| {
                    ui.strong(seller_heading(seller));
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
                    for seller in &sellers {
                        let ask = row.asks.iter().find(|ask| ask.seller == *seller);
                        cells.col(|ui| ask_cell_ui(ui, ask, currency));
                    }
                    cells.col(|ui| match &row.best_buy {
                        Some((seller, cents)) => {
                            ui.strong(mark_text(seller.clone(), *cents, currency))
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
                    for source in [
                        crate::model::QuoteSource::ResaleA,
                        crate::model::QuoteSource::ResaleB,
                    ] {
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
