//! The answer of a `resale-b` related-products lookup: a table sortable by any figure.

use egui_extras::{Column, TableBuilder};
use serde::{Deserialize, Serialize};

use super::row_height;
use crate::figures;
use crate::model::{ResaleBEdge, ResaleBNode};
use crate::ui::format;

/// A column of the related-products table the user can sort by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelatedColumn {
    /// The product title, A to Z.
    Title,
    /// The lowest ask.
    LowestAsk,
    /// The highest bid.
    HighestBid,
    /// The spread as a share of the lowest ask.
    Spread,
    /// The last sale price.
    LastSale,
    /// Sales in the last 72 hours.
    Sales72Hours,
    /// Open asks.
    Asks,
    /// Open bids.
    Bids,
}

/// How the related-products table is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RelatedSort {
    /// The column sorted by; `None` keeps the marketplace's order (best-selling first).
    pub column: Option<RelatedColumn>,
    /// Largest first.
    pub descending: bool,
}

impl RelatedSort {
    /// The order after a click on `column`'s header: ascending, then descending, then the
    /// marketplace's order again.
    #[must_use]
    pub fn clicked(self, column: RelatedColumn) -> Self {
        match self.column {
            Some(current) if current == column && !self.descending => Self {
                column: Some(column),
                descending: true,
            },
            Some(current) if current == column => Self::default(),
            _ => Self {
                column: Some(column),
                descending: false,
            },
        }
    }
}

/// The related products in the order `sort` asks for. Products missing the sorted figure go
/// last either way; ties keep the marketplace's order.
#[must_use]
pub fn related_in_order(edges: &[ResaleBEdge], sort: RelatedSort) -> Vec<&ResaleBNode> {
    let mut nodes: Vec<&ResaleBNode> = edges.iter().map(|edge| &edge.node).collect();
    let Some(column) = sort.column else {
        return nodes;
    };
    if column == RelatedColumn::Title {
        nodes.sort_by_cached_key(|node| node.title.to_lowercase());
        if sort.descending {
            nodes.reverse();
        }
        return nodes;
    }
    let figure = |node: &ResaleBNode| -> Option<f64> {
        let state = &node.market.state;
        match column {
            RelatedColumn::Title => None,
            RelatedColumn::LowestAsk => format::positive(state.lowest_ask.amount),
            RelatedColumn::HighestBid => format::positive(state.highest_bid.amount),
            RelatedColumn::Spread => {
                figures::spread(state.lowest_ask.amount, state.highest_bid.amount)
                    .map(|spread| spread.ratio_of_ask)
            }
            RelatedColumn::LastSale => format::positive(node.market.sales_information.last_sale),
            RelatedColumn::Sales72Hours => {
                Some(node.market.sales_information.sales_last_72_hours as f64)
            }
            RelatedColumn::Asks => Some(state.number_of_asks as f64),
            RelatedColumn::Bids => Some(state.number_of_bids as f64),
        }
    };
    nodes.sort_by(|a, b| match (figure(a), figure(b)) {
        (Some(a), Some(b)) if sort.descending => b.total_cmp(&a),
        (Some(a), Some(b)) => a.total_cmp(&b),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    nodes
}

/// The columns of the related-products table with their headers.
const RELATED_COLUMNS: [(RelatedColumn, &str); 8] = [
    (RelatedColumn::Title, "Product"),
    (RelatedColumn::LowestAsk, "Lowest ask"),
    (RelatedColumn::HighestBid, "Highest bid"),
    (RelatedColumn::Spread, "Spread"),
    (RelatedColumn::LastSale, "Last sale"),
    (RelatedColumn::Sales72Hours, "Sales 72 h"),
    (RelatedColumn::Asks, "Asks"),
    (RelatedColumn::Bids, "Bids"),
];

pub(super) fn related_table_ui(
    ui: &mut egui::Ui,
    edges: &[ResaleBEdge],
    currency: &str,
    sort: &mut RelatedSort,
) {
    ui.strong(format!("Related products ({})", edges.len()));
    if edges.is_empty() {
        ui.weak("The marketplace lists no related products.");
        return;
    }
    ui.weak("Click a column header to sort; a third click restores the marketplace's order.");
    let nodes = related_in_order(edges, *sort);
    let height = row_height(ui);
    let mut clicked = None;
    TableBuilder::new(ui)
        .id_salt("resale_b_related")
        .striped(true)
        .vscroll(false)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(
            Column::initial(300.0)
                .at_least(120.0)
                .clip(true)
                .resizable(true),
        )
        .columns(Column::auto().at_least(90.0), 4)
        .columns(Column::auto().at_least(60.0), 3)
        .header(height, |mut header| {
            for (column, name) in RELATED_COLUMNS {
                header.col(|ui| {
                    let is_sorted = sort.column == Some(column);
                    let label = match (is_sorted, sort.descending) {
                        (true, false) => format!("{name} ⬆"),
                        (true, true) => format!("{name} ⬇"),
                        (false, _) => name.to_owned(),
                    };
                    if ui
                        .add(egui::Button::selectable(is_sorted, label))
                        .on_hover_text("Sort by this column")
                        .clicked()
                    {
                        clicked = Some(column);
                    }
                });
            }
        })
        .body(|mut body| {
            for node in nodes {
                let state = &node.market.state;
                let sales = &node.market.sales_information;
                body.row(height, |mut cells| {
                    cells.col(|ui| {
                        ui.add(egui::Label::new(&node.title).truncate())
                            .on_hover_text(format!("{} · {}", node.brand, node.url_key));
                    });
                    cells.col(|ui| {
                        ui.label(format::price(state.lowest_ask.amount, currency));
                    });
                    cells.col(|ui| {
                        ui.label(format::price(state.highest_bid.amount, currency));
                    });
                    cells.col(|ui| {
                        ui.label(format::spread(
                            figures::spread(state.lowest_ask.amount, state.highest_bid.amount),
                            currency,
                        ));
                    });
                    cells.col(|ui| {
                        ui.label(format::price(sales.last_sale, currency));
                    });
                    cells.col(|ui| {
                        ui.label(format::sent_count(sales.sales_last_72_hours));
                    });
                    cells.col(|ui| {
                        ui.label(format::sent_count(state.number_of_asks));
                    });
                    cells.col(|ui| {
                        ui.label(format::sent_count(state.number_of_bids));
                    });
                });
            }
        });
    if let Some(column) = clicked {
        *sort = sort.clicked(column);
    }
}
