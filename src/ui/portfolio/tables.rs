//! The holdings and sales tables. Their order (filter, then sort) is computed once when the
//! rows, the filter or the sort change, and only the visible rows are drawn.

use std::cmp::Ordering;

use egui_extras::{Column, TableBuilder};

use super::{HoldingRow, PortfolioForm, Unpriced, pnl_label};
use crate::ui::format;

/// A column the holdings can be sorted by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HoldingSort {
    /// Title.
    Title,
    /// Size.
    Size,
    /// Purchase date, newest first.
    #[default]
    Purchased,
    /// Cost.
    Cost,
    /// Market value.
    Market,
    /// Unrealized P&L.
    Pnl,
    /// Unrealized ROI.
    Roi,
}

/// A column the sales can be sorted by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SaleSort {
    /// Title.
    Title,
    /// Sale date, newest first.
    #[default]
    Sold,
    /// Sale price.
    Price,
    /// Realized P&L.
    Pnl,
    /// Realized ROI.
    Roi,
    /// Days held.
    Days,
}

/// The visible order of each table.
#[derive(Debug, Default)]
pub(super) struct OrderCache {
    holdings: SortedOrder<HoldingSort>,
    sales: SortedOrder<SaleSort>,
}

/// One table's visible rows in their order, and what they were computed from.
#[derive(Debug)]
struct SortedOrder<S> {
    /// Rows generation, filter, sort column and direction of `order`.
    key: Option<(u64, String, S, bool)>,
    /// Indices into the rows, in the order shown.
    order: Vec<usize>,
    /// Sort descending (a click on the sorted column's header flips it).
    descending: bool,
}

impl<S> Default for SortedOrder<S> {
    fn default() -> Self {
        Self {
            key: None,
            order: Vec::new(),
            descending: false,
        }
    }
}

impl<S: Copy + PartialEq> SortedOrder<S> {
    /// The rows shown (the sold pairs, or those still held) that match `filter` (as typed: it is
    /// trimmed and lower-cased here), sorted by `sort`; computed again only when the rows, the
    /// filter, the column or the direction changed.
    fn refresh(
        &mut self,
        rows: &[HoldingRow],
        generation: u64,
        filter: &str,
        sort: S,
        sold: bool,
        cmp: fn(&HoldingRow, &HoldingRow, S) -> Ordering,
    ) {
        let key = (
            generation,
            filter.trim().to_lowercase(),
            sort,
            self.descending,
        );
        if self.key.as_ref() == Some(&key) {
            return;
        }
        let mut order: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].holding.sale.is_some() == sold && matches_filter(&rows[i], &key.1))
            .collect();
        order.sort_by(|&a, &b| {
            let ordering = cmp(&rows[a], &rows[b], sort);
            if self.descending {
                ordering.reverse()
            } else {
                ordering
            }
        });
        self.order = order;
        self.key = Some(key);
    }
}

/// What a click in a table asked for.
#[derive(Debug, Default)]
pub(super) struct TableAction {
    pub(super) sell: Option<i64>,
    pub(super) remove: Option<i64>,
    pub(super) open: Option<String>,
}

fn matches_filter(row: &HoldingRow, filter: &str) -> bool {
    filter.is_empty() || row.search_text.contains(filter)
}

fn option_cmp<T: PartialOrd>(a: Option<T>, b: Option<T>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

fn holding_cmp(a: &HoldingRow, b: &HoldingRow, sort: HoldingSort) -> Ordering {
    let (pa, pb) = (&a.holding.pair, &b.holding.pair);
    match sort {
        HoldingSort::Title => pa.title.cmp(&pb.title),
        HoldingSort::Size => crate::figures::parse_size(&pa.size)
            .number
            .partial_cmp(&crate::figures::parse_size(&pb.size).number)
            .unwrap_or(Ordering::Equal),
        HoldingSort::Purchased => pa.purchased_on.cmp(&pb.purchased_on),
        HoldingSort::Cost => pa.cost_cents.cmp(&pb.cost_cents),
        HoldingSort::Market => option_cmp(
            a.market.as_ref().map(|m| m.cents),
            b.market.as_ref().map(|m| m.cents),
        ),
        HoldingSort::Pnl => option_cmp(
            a.unrealized.map(|u| u.pnl_cents),
            b.unrealized.map(|u| u.pnl_cents),
        ),
        HoldingSort::Roi => option_cmp(
            a.unrealized.and_then(|u| u.roi),
            b.unrealized.and_then(|u| u.roi),
        ),
    }
}

fn sale_cmp(a: &HoldingRow, b: &HoldingRow, sort: SaleSort) -> Ordering {
    let (sa, sb) = (a.holding.sale.as_ref(), b.holding.sale.as_ref());
    match sort {
        SaleSort::Title => a.holding.pair.title.cmp(&b.holding.pair.title),
        SaleSort::Sold => option_cmp(sa.map(|s| s.sold_on), sb.map(|s| s.sold_on)),
        SaleSort::Price => option_cmp(sa.map(|s| s.price_cents), sb.map(|s| s.price_cents)),
        SaleSort::Pnl => option_cmp(
            a.realized.map(|r| r.pnl_cents),
            b.realized.map(|r| r.pnl_cents),
        ),
        SaleSort::Roi => option_cmp(
            a.realized.and_then(|r| r.roi),
            b.realized.and_then(|r| r.roi),
        ),
        SaleSort::Days => option_cmp(
            a.realized.map(|r| r.days_held),
            b.realized.map(|r| r.days_held),
        ),
    }
}

/// A header cell that sorts by `column` when clicked (again: the other way round).
fn sort_header<S: Copy + PartialEq>(
    ui: &mut egui::Ui,
    name: &str,
    column: S,
    sort: &mut S,
    descending: &mut bool,
) {
    let arrow = if *sort == column {
        if *descending { " ⏷" } else { " ⏶" }
    } else {
        ""
    };
    if ui
        .selectable_label(*sort == column, format!("{name}{arrow}"))
        .clicked()
    {
        if *sort == column {
            *descending = !*descending;
        } else {
            *sort = column;
        }
    }
}

/// The header cells of a sortable table, in order: a column with a sort key is a sort button
/// ([`sort_header`]), one without is plain text.
fn sort_headers<S: Copy + PartialEq>(
    header: &mut egui_extras::TableRow<'_, '_>,
    columns: &[(&str, Option<S>)],
    sort: &mut S,
    descending: &mut bool,
) {
    for &(name, column) in columns {
        header.col(|ui| match column {
            Some(column) => sort_header(ui, name, column, sort, descending),
            None => {
                ui.strong(name);
            }
        });
    }
}

/// A portfolio table: striped, full width, rows centred, the product column first.
fn table<'a>(ui: &'a mut egui::Ui, id: &str) -> TableBuilder<'a> {
    TableBuilder::new(ui)
        .id_salt(id)
        .striped(true)
        .auto_shrink([false, true])
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(
            Column::initial(190.0)
                .at_least(100.0)
                .clip(true)
                .resizable(true),
        )
}

fn row_height(ui: &egui::Ui) -> f32 {
    ui.text_style_height(&egui::TextStyle::Body) + 6.0
}

/// What sets one portfolio table apart from the other: its widget id, the columns after the
/// product column, and its header cells (the product's first).
struct TableLayout<'a, S> {
    /// The table's widget id.
    id: &'a str,
    /// The least widths of the columns sized to their content, in order.
    auto_widths: &'a [f32],
    /// The least width of the last column, which takes the space left.
    remainder_width: f32,
    /// Each column's header, with the sort it stands for (`None`: not sortable).
    headers: &'a [(&'a str, Option<S>)],
}

/// One sortable portfolio table: the header cells of `layout` (a click changes `sort`, or flips
/// `sorted`'s direction), then `row_ui` for each row in `sorted`'s order. Only the rows in view
/// are drawn.
fn sorted_table_ui<S: Copy + PartialEq>(
    ui: &mut egui::Ui,
    layout: &TableLayout<'_, S>,
    sort: &mut S,
    sorted: &mut SortedOrder<S>,
    rows: &[HoldingRow],
    mut row_ui: impl FnMut(egui_extras::TableRow<'_, '_>, &HoldingRow),
) {
    let height = row_height(ui);
    let mut descending = sorted.descending;
    let mut builder = table(ui, layout.id);
    for &width in layout.auto_widths {
        builder = builder.column(Column::auto().at_least(width));
    }
    builder
        .column(Column::remainder().at_least(layout.remainder_width))
        .header(height, |mut header| {
            sort_headers(&mut header, layout.headers, sort, &mut descending);
        })
        .body(|body| {
            let order = &sorted.order;
            body.rows(height, order.len(), |cells| {
                let row = &rows[order[cells.index()]];
                row_ui(cells, row);
            });
        });
    sorted.descending = descending;
}

/// A return on investment, or a dash when there is none.
fn roi_ui(ui: &mut egui::Ui, roi: Option<f64>) {
    match roi {
        Some(roi) => {
            ui.label(format::percent(roi));
        }
        None => {
            ui.weak("—");
        }
    }
}

/// A row's "Remove" button; `hover` says what goes with it. True when clicked.
fn remove_button_ui(ui: &mut egui::Ui, hover: &str) -> bool {
    ui.small_button("Remove").on_hover_text(hover).clicked()
}

/// The pairs held.
pub(super) fn holdings_table_ui(
    ui: &mut egui::Ui,
    form: &mut PortfolioForm,
    rows: &[HoldingRow],
    generation: u64,
) -> TableAction {
    form.order.holdings.refresh(
        rows,
        generation,
        &form.filter,
        form.holding_sort,
        false,
        holding_cmp,
    );
    let mut action = TableAction::default();
    let layout = TableLayout {
        id: "portfolio_holdings",
        auto_widths: &[36.0, 50.0, 76.0, 80.0, 80.0, 90.0, 50.0],
        remainder_width: 96.0,
        headers: &[
            ("Product", Some(HoldingSort::Title)),
            ("Size", Some(HoldingSort::Size)),
            ("Condition", None),
            ("Bought", Some(HoldingSort::Purchased)),
            ("Cost", Some(HoldingSort::Cost)),
            ("Market value", Some(HoldingSort::Market)),
            ("Unrealized P&L", Some(HoldingSort::Pnl)),
            ("ROI", Some(HoldingSort::Roi)),
            ("", None),
        ],
    };
    sorted_table_ui(
        ui,
        &layout,
        &mut form.holding_sort,
        &mut form.order.holdings,
        rows,
        |mut cells, row| {
            let pair = &row.holding.pair;
            cells.col(|ui| {
                if ui
                    .link(&pair.title)
                    .on_hover_text(format!("{} · open", pair.sku))
                    .clicked()
                {
                    action.open = Some(pair.product_id.clone());
                }
            });
            cells.col(|ui| {
                ui.label(&pair.size);
            });
            cells.col(|ui| {
                ui.label(pair.condition.label());
            });
            cells.col(|ui| {
                ui.label(pair.purchased_on.to_string());
            });
            cells.col(|ui| {
                ui.label(format::money_from_cents(pair.cost_cents, &pair.currency));
            });
            cells.col(|ui| match &row.market {
                Some(market) => {
                    ui.label(format::money_from_cents(market.cents, &market.currency))
                        .on_hover_text(&market.source);
                }
                None => match &row.unpriced {
                    Some(Unpriced::Because(why)) => {
                        ui.weak("no price").on_hover_text(why);
                    }
                    Some(Unpriced::Pricing) => {
                        ui.weak("…").on_hover_text("Fetching its market price");
                    }
                    None => {
                        ui.weak("—");
                    }
                },
            });
            cells.col(|ui| {
                pnl_label(ui, row.unrealized.map(|u| u.pnl_cents), &pair.currency);
            });
            cells.col(|ui| roi_ui(ui, row.unrealized.and_then(|u| u.roi)));
            cells.col(|ui| {
                if ui.small_button("Sell").clicked() {
                    action.sell = Some(row.holding.id);
                }
                if remove_button_ui(ui, "Remove this pair from the portfolio") {
                    action.remove = Some(row.holding.id);
                }
            });
        },
    );
    action
}

/// The pairs sold.
pub(super) fn sales_table_ui(
    ui: &mut egui::Ui,
    form: &mut PortfolioForm,
    rows: &[HoldingRow],
    generation: u64,
) -> TableAction {
    form.order.sales.refresh(
        rows,
        generation,
        &form.filter,
        form.sale_sort,
        true,
        sale_cmp,
    );
    let mut action = TableAction::default();
    let layout = TableLayout {
        id: "portfolio_sales",
        auto_widths: &[36.0, 76.0, 70.0, 80.0, 80.0, 90.0, 50.0, 40.0],
        remainder_width: 60.0,
        headers: &[
            ("Product", Some(SaleSort::Title)),
            ("Size", None),
            ("Sold", Some(SaleSort::Sold)),
            ("Marketplace", None),
            ("Price", Some(SaleSort::Price)),
            ("Cost", None),
            ("Realized P&L", Some(SaleSort::Pnl)),
            ("ROI", Some(SaleSort::Roi)),
            ("Days held", Some(SaleSort::Days)),
            ("", None),
        ],
    };
    sorted_table_ui(
        ui,
        &layout,
        &mut form.sale_sort,
        &mut form.order.sales,
        rows,
        |mut cells, row| {
            let pair = &row.holding.pair;
            let Some(sale) = &row.holding.sale else {
                return;
            };
            cells.col(|ui| {
                if ui.link(&pair.title).on_hover_text(&pair.sku).clicked() {
                    action.open = Some(pair.product_id.clone());
                }
            });
            cells.col(|ui| {
                ui.label(&pair.size);
            });
            cells.col(|ui| {
                ui.label(sale.sold_on.to_string());
            });
            cells.col(|ui| {
                ui.label(&sale.marketplace);
            });
            cells.col(|ui| {
                ui.label(format::money_from_cents(sale.price_cents, &pair.currency))
                    .on_hover_text(format!(
                        "fees {}, shipping {}",
                        format::money_from_cents(sale.fees_cents, &pair.currency),
                        format::money_from_cents(sale.shipping_cents, &pair.currency)
                    ));
            });
            cells.col(|ui| {
                ui.label(format::money_from_cents(pair.cost_cents, &pair.currency));
            });
            cells.col(|ui| {
                pnl_label(ui, row.realized.map(|r| r.pnl_cents), &pair.currency);
            });
            cells.col(|ui| roi_ui(ui, row.realized.and_then(|r| r.roi)));
            cells.col(|ui| {
                ui.label(
                    row.realized
                        .map_or_else(String::new, |r| r.days_held.to_string()),
                );
            });
            cells.col(|ui| {
                if remove_button_ui(ui, "Remove this pair and its sale") {
                    action.remove = Some(row.holding.id);
                }
            });
        },
    );
    action
}
