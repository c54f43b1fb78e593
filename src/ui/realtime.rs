//! The Real-time tab: live lookups on the two resale marketplaces and the retailer, with the
//! real-time request budget always in view.
//!
//! The tab draws the form ([`RealtimeForm`], persisted by the app) and the latest answers it is
//! given ([`RealtimeResults`]); it returns the [`Lookup`] the user asked for, and the app starts
//! the fetch. Prices a source does not have are shown as "—" or "no price", never as 0: a
//! reseller reading 0 as a price is the bug the users of these tools report most.

use std::time::Duration;

use egui_extras::{Column, TableBuilder};
use serde::{Deserialize, Serialize};

use super::widgets::{lock_ui, requested_ui};
use crate::app::Requested;
use crate::client::{Budget, BudgetSource, RelatedQuery};
use crate::model::{
    ResaleAEnvelope, ResaleAProduct, ResaleBEdge, ResaleBEnvelope, ResaleBNode, RetailerEnvelope,
    RetailerProduct, RetailerVariant, Tier,
};

/// `resale-a` quotes every `*Cents` field in US cents; only the localized price names its own
/// currency.
const RESALE_A_CURRENCY: &str = "USD";

/// The currency `resale-b` quotes in when the lookup names none.
const RESALE_B_DEFAULT_CURRENCY: &str = "USD";

/// Shown in place of a price the source does not have.
const NO_PRICE: &str = "—";

/// Currencies the built-in marketplace simulator accepts for `resale-b` (the service's own
/// list; the window does not link against the service, so it is repeated here).
pub const RESALE_B_CURRENCIES: &[&str] = &["USD", "EUR", "GBP", "CAD", "AUD", "CHF", "JPY"];

/// Countries and markets the built-in marketplace simulator accepts for `resale-b`, ISO 3166
/// alpha-2, the US first.
pub const RESALE_B_COUNTRIES: &[&str] = &[
    "US", "CA", "MX", "GB", "IE", "FR", "DE", "IT", "ES", "PT", "NL", "BE", "LU", "AT", "CH", "DK",
    "SE", "NO", "FI", "PL", "CZ", "JP", "KR", "CN", "HK", "SG", "TW", "AU", "NZ", "AE",
];

/// ISO 4217 currencies without minor units: their "cents" are whole units.
const ZERO_DECIMAL_CURRENCIES: &[&str] = &["JPY", "KRW", "CLP", "ISK", "VND"];

/// Which real-time source the tab looks up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RealtimeSource {
    /// One product from `resale-a`, by numeric id or slug (pro; spends the budget).
    #[default]
    ResaleA,
    /// Related products from `resale-b`, by UUID or slug (pro; spends the budget).
    ResaleB,
    /// One product from `retailer-a`, by slug (free; not budgeted).
    Retailer,
}

impl RealtimeSource {
    /// Every source, in the order the tab lists them.
    pub const ALL: [RealtimeSource; 3] = [
        RealtimeSource::ResaleA,
        RealtimeSource::ResaleB,
        RealtimeSource::Retailer,
    ];

    /// The source's name as the interface writes it, e.g. `resale-a`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            RealtimeSource::ResaleA => "resale-a",
            RealtimeSource::ResaleB => "resale-b",
            RealtimeSource::Retailer => "retailer-a",
        }
    }

    /// The lowest tier whose key may look this source up.
    #[must_use]
    pub fn tier_needed(self) -> Tier {
        match self {
            RealtimeSource::ResaleA | RealtimeSource::ResaleB => Tier::Pro,
            RealtimeSource::Retailer => Tier::Free,
        }
    }

    /// Whether a lookup spends the real-time budget (120 per minute per key).
    #[must_use]
    pub fn spends_budget(self) -> bool {
        matches!(self, RealtimeSource::ResaleA | RealtimeSource::ResaleB)
    }
}

/// A lookup the user asked for; the app starts the matching client call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// `Client::resale_a_product(id)`.
    ResaleA {
        /// Numeric id or slug, trimmed.
        id: String,
    },
    /// `Client::resale_b_related(id, &query)`.
    ResaleB {
        /// UUID or slug, trimmed.
        id: String,
        /// Country, currency and market; `None` leaves the server's default.
        query: RelatedQuery,
    },
    /// `Client::retailer_product(slug)`.
    Retailer {
        /// Slug, trimmed.
        slug: String,
    },
}

impl Lookup {
    /// The source this lookup goes to.
    #[must_use]
    pub fn source(&self) -> RealtimeSource {
        match self {
            Lookup::ResaleA { .. } => RealtimeSource::ResaleA,
            Lookup::ResaleB { .. } => RealtimeSource::ResaleB,
            Lookup::Retailer { .. } => RealtimeSource::Retailer,
        }
    }

    /// The id or slug looked up.
    #[must_use]
    pub fn key(&self) -> &str {
        match self {
            Lookup::ResaleA { id } | Lookup::ResaleB { id, .. } => id,
            Lookup::Retailer { slug } => slug,
        }
    }
}

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

/// Which lookup of one source was last asked for, and which one the shown answer belongs to.
#[derive(Debug, Clone, Default)]
struct LookupTrack {
    /// The last lookup handed to the app (what Retry sends again).
    requested: Option<Lookup>,
    /// The lookup whose answer is on screen; differs from `requested` while a newer one is in
    /// flight and the previous answer is still shown.
    shown: Option<Lookup>,
}

impl LookupTrack {
    /// Once an answer has landed it belongs to the last lookup asked for. Called before the
    /// frame's input is handled, so a lookup asked for in this frame is not yet taken as landed.
    fn settle<T>(&mut self, answer: &Requested<T>) {
        if matches!(answer, Requested::Completed(_)) && self.shown != self.requested {
            self.shown.clone_from(&self.requested);
        }
    }
}

/// What the user typed and picked in the Real-time tab. Persisted by the app.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RealtimeForm {
    /// The source shown.
    pub source: RealtimeSource,
    /// `resale-a`: numeric id or slug, as typed.
    pub resale_a_id: String,
    /// `resale-b`: UUID or slug, as typed.
    pub resale_b_id: String,
    /// `retailer-a`: slug, as typed.
    pub retailer_slug: String,
    /// `resale-b` country code; `None` for the server's default (any).
    pub country: Option<String>,
    /// `resale-b` currency code; `None` for the server's default (USD).
    pub currency: Option<String>,
    /// `resale-b` market code; `None` for the server's default (the country's).
    pub market: Option<String>,
    /// Order of the related-products table.
    pub related_sort: RelatedSort,
    /// The user asked for a lookup with an empty id: say what to type.
    #[serde(skip)]
    show_empty_hint: bool,
    #[serde(skip)]
    resale_a_track: LookupTrack,
    #[serde(skip)]
    resale_b_track: LookupTrack,
    #[serde(skip)]
    retailer_track: LookupTrack,
}

impl RealtimeForm {
    /// The lookup the form describes for the selected source; `None` when its id is empty.
    #[must_use]
    pub fn lookup(&self) -> Option<Lookup> {
        self.lookup_for(self.source)
    }

    /// The lookup the form describes for `source`: the id trimmed (other odd characters are
    /// sent as typed: the client percent-encodes them and the server says what is wrong);
    /// `None` when the id is empty.
    #[must_use]
    pub fn lookup_for(&self, source: RealtimeSource) -> Option<Lookup> {
        let key = self.key(source).trim();
        if key.is_empty() {
            return None;
        }
        let key = key.to_owned();
        Some(match source {
            RealtimeSource::ResaleA => Lookup::ResaleA { id: key },
            RealtimeSource::ResaleB => Lookup::ResaleB {
                id: key,
                query: self.related_query(),
            },
            RealtimeSource::Retailer => Lookup::Retailer { slug: key },
        })
    }

    /// Records a lookup the app started by itself (e.g. "open in Real-time" elsewhere): shows
    /// its source with its id filled in, so the answer is labelled and Retry repeats it.
    pub fn record_lookup(&mut self, lookup: &Lookup) {
        let source = lookup.source();
        self.source = source;
        lookup.key().clone_into(self.key_mut(source));
        if let Lookup::ResaleB { query, .. } = lookup {
            self.country.clone_from(&query.country);
            self.currency.clone_from(&query.currency);
            self.market.clone_from(&query.market);
        }
        self.track_mut(source).requested = Some(lookup.clone());
        self.show_empty_hint = false;
    }

    fn related_query(&self) -> RelatedQuery {
        RelatedQuery {
            country: self.country.clone(),
            currency: self.currency.clone(),
            market: self.market.clone(),
        }
    }

    fn key(&self, source: RealtimeSource) -> &str {
        match source {
            RealtimeSource::ResaleA => &self.resale_a_id,
            RealtimeSource::ResaleB => &self.resale_b_id,
            RealtimeSource::Retailer => &self.retailer_slug,
        }
    }

    fn key_mut(&mut self, source: RealtimeSource) -> &mut String {
        match source {
            RealtimeSource::ResaleA => &mut self.resale_a_id,
            RealtimeSource::ResaleB => &mut self.resale_b_id,
            RealtimeSource::Retailer => &mut self.retailer_slug,
        }
    }

    fn track(&self, source: RealtimeSource) -> &LookupTrack {
        match source {
            RealtimeSource::ResaleA => &self.resale_a_track,
            RealtimeSource::ResaleB => &self.resale_b_track,
            RealtimeSource::Retailer => &self.retailer_track,
        }
    }

    fn track_mut(&mut self, source: RealtimeSource) -> &mut LookupTrack {
        match source {
            RealtimeSource::ResaleA => &mut self.resale_a_track,
            RealtimeSource::ResaleB => &mut self.resale_b_track,
            RealtimeSource::Retailer => &mut self.retailer_track,
        }
    }
}

/// The latest answers of the three lookups and what limits new ones, as the app holds them.
#[derive(Debug, Clone, Copy)]
pub struct RealtimeResults<'a> {
    /// The `resale-a` product.
    pub resale_a: &'a Requested<ResaleAEnvelope>,
    /// The `resale-b` related products.
    pub resale_b: &'a Requested<ResaleBEnvelope>,
    /// The `retailer-a` product.
    pub retailer: &'a Requested<RetailerEnvelope>,
    /// The client's real-time budget now (`Client::realtime_budget`); `None` without a client.
    pub budget: Option<Budget>,
    /// The key's tier when known.
    pub tier: Option<Tier>,
}

/// What the user asked for in the Real-time tab this frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RealtimeOutput {
    /// A lookup to start now (Look up, Refresh, Enter or Retry).
    pub lookup: Option<Lookup>,
}

/// The Real-time tab. The app must start the returned lookup in the same frame (it replaces
/// the matching `Requested` with a pending fetch), so the tab can tell which lookup the answer
/// on screen belongs to.
pub fn realtime_ui(
    ui: &mut egui::Ui,
    form: &mut RealtimeForm,
    results: RealtimeResults<'_>,
) -> RealtimeOutput {
    form.resale_a_track.settle(results.resale_a);
    form.resale_b_track.settle(results.resale_b);
    form.retailer_track.settle(results.retailer);

    budget_ui(ui, results.budget);
    ui.separator();
    source_picker_ui(ui, form);
    ui.add_space(4.0);

    let source = form.source;
    if source.tier_needed() == Tier::Pro && results.tier == Some(Tier::Free) {
        lock_ui(
            ui,
            &format!("Real-time {} lookups", source.name()),
            Tier::Pro,
            results.tier,
        );
        return RealtimeOutput::default();
    }
    let budget_spent = results.budget.is_some_and(|budget| budget.is_spent());
    let can_send = !(source.spends_budget() && budget_spent);

    let mut lookup = None;
    if lookup_form_ui(ui, form, can_send) {
        lookup = form.lookup();
        form.show_empty_hint = lookup.is_none();
    }
    if form.show_empty_hint && form.lookup().is_none() {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("Enter {} first.", key_description(source)),
        );
    }
    ui.separator();

    let shown = form.track(source).shown.clone();
    let retry = egui::ScrollArea::both()
        .id_salt("realtime_results")
        .auto_shrink([false, false])
        .show(ui, |ui| match source {
            RealtimeSource::ResaleA => {
                requested_ui(ui, "resale-a product", results.resale_a, |ui, answer| {
                    shown_for_ui(ui, shown.as_ref());
                    resale_a_product_ui(ui, &answer.data);
                })
            }
            RealtimeSource::ResaleB => {
                let currency = shown
                    .as_ref()
                    .and_then(related_currency)
                    .unwrap_or(RESALE_B_DEFAULT_CURRENCY)
                    .to_owned();
                let sort = &mut form.related_sort;
                requested_ui(
                    ui,
                    "resale-b related products",
                    results.resale_b,
                    |ui, answer| {
                        shown_for_ui(ui, shown.as_ref());
                        related_table_ui(ui, &answer.data, &currency, sort);
                    },
                )
            }
            RealtimeSource::Retailer => {
                requested_ui(ui, "retailer-a product", results.retailer, |ui, answer| {
                    shown_for_ui(ui, shown.as_ref());
                    retailer_product_ui(ui, &answer.data);
                })
            }
        })
        .inner;
    // Retry while the budget is spent would only be refused by the client; the budget line
    // already says when it resets.
    if retry && can_send {
        lookup = form
            .track(source)
            .requested
            .clone()
            .or_else(|| form.lookup());
    }
    if let Some(lookup) = &lookup {
        form.track_mut(lookup.source()).requested = Some(lookup.clone());
        form.show_empty_hint = false;
    }
    RealtimeOutput { lookup }
}

/// The budget line; asks for a repaint every second while a reset countdown is on screen.
fn budget_ui(ui: &mut egui::Ui, budget: Option<Budget>) {
    let Some(budget) = budget else {
        ui.weak("Real-time budget: not known until the app is connected to a server.");
        return;
    };
    let resets_in = budget.resets_in();
    let text = budget_text(&budget, resets_in);
    ui.horizontal_wrapped(|ui| {
        if budget.is_spent() {
            ui.colored_label(ui.visuals().warn_fg_color, text);
        } else {
            ui.label(text);
        }
        ui.weak(format!("({})", budget_source_text(budget.source)));
    });
    if shows_countdown(&budget, resets_in) {
        ui.ctx()
            .request_repaint_after(resets_in.min(Duration::from_secs(1)));
    }
}

/// Whether the budget line counts down to a reset: not for an assumed budget, whose window
/// only starts with the first request.
fn shows_countdown(budget: &Budget, resets_in: Duration) -> bool {
    budget.source != BudgetSource::Assumed && !resets_in.is_zero()
}

/// "Real-time budget: 117 of 120 left this minute · resets in 42 s".
#[must_use]
pub fn budget_text(budget: &Budget, resets_in: Duration) -> String {
    let secs = secs_rounded_up(resets_in);
    if budget.remaining == 0 && !resets_in.is_zero() {
        return format!(
            "Real-time budget spent: 0 of {} left · resets in {secs} s; resale lookups wait until then",
            budget.limit
        );
    }
    let left = format!(
        "Real-time budget: {} of {} left this minute",
        budget.remaining, budget.limit
    );
    if shows_countdown(budget, resets_in) {
        format!("{left} · resets in {secs} s")
    } else {
        left
    }
}

fn budget_source_text(source: BudgetSource) -> &'static str {
    match source {
        BudgetSource::Server => "from the server's rate-limit headers",
        BudgetSource::Counted => "counted by this app: the server sends no rate-limit headers",
        BudgetSource::Assumed => "assumed: the spec's limit; no real-time request yet this minute",
    }
}

/// Whole seconds, rounded up, so a countdown never shows 0 s before the reset.
fn secs_rounded_up(duration: Duration) -> u64 {
    duration.as_secs() + u64::from(duration.subsec_nanos() > 0)
}

fn source_picker_ui(ui: &mut egui::Ui, form: &mut RealtimeForm) {
    ui.horizontal(|ui| {
        ui.label("Source");
        for source in RealtimeSource::ALL {
            let label = format!("{} ({})", source.name(), source.tier_needed());
            let selected = form.source == source;
            if ui.selectable_label(selected, label).clicked() && !selected {
                form.source = source;
                form.show_empty_hint = false;
            }
        }
    });
}

/// "a product id or slug": what the id field of `source` takes.
fn key_description(source: RealtimeSource) -> &'static str {
    match source {
        RealtimeSource::ResaleA => "a product id or slug",
        RealtimeSource::ResaleB => "a product UUID or slug",
        RealtimeSource::Retailer => "a product slug",
    }
}

/// The id field, the `resale-b` pickers and the Look up button. Returns whether the user asked
/// for a lookup (Enter or the button), which only counts when `can_send`.
fn lookup_form_ui(ui: &mut egui::Ui, form: &mut RealtimeForm, can_send: bool) -> bool {
    let source = form.source;
    let (label, hint) = match source {
        RealtimeSource::ResaleA => ("Product id or slug", "numeric id or slug on resale-a"),
        RealtimeSource::ResaleB => ("Product UUID or slug", "UUID or slug (urlKey) on resale-b"),
        RealtimeSource::Retailer => ("Product slug", "slug on retailer-a"),
    };
    let is_refresh = form.lookup().is_some() && form.lookup() == form.track(source).requested;
    let mut asked = false;
    ui.horizontal(|ui| {
        let label = ui.label(label);
        let edit = ui
            .add(
                egui::TextEdit::singleline(form.key_mut(source))
                    .hint_text(hint)
                    .desired_width(320.0),
            )
            .labelled_by(label.id);
        if edit.changed() {
            form.show_empty_hint = false;
        }
        asked |= edit.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter));
        let button = ui.add_enabled(
            can_send,
            egui::Button::new(if is_refresh { "Refresh" } else { "Look up" }),
        );
        let button = if can_send {
            button
        } else {
            button.on_disabled_hover_text("The real-time budget is spent until it resets.")
        };
        asked |= button.clicked();
    });
    if source == RealtimeSource::ResaleB {
        ui.horizontal_wrapped(|ui| {
            code_picker_ui(ui, "Country", &mut form.country, RESALE_B_COUNTRIES);
            code_picker_ui(ui, "Currency", &mut form.currency, RESALE_B_CURRENCIES);
            code_picker_ui(ui, "Market", &mut form.market, RESALE_B_COUNTRIES);
        });
    }
    asked && can_send
}

/// A labelled drop-down of `codes` plus "any" (`None`: the server's default).
fn code_picker_ui(ui: &mut egui::Ui, label: &str, value: &mut Option<String>, codes: &[&str]) {
    ui.label(label);
    egui::ComboBox::from_id_salt(("realtime_code", label))
        .selected_text(value.as_deref().unwrap_or("any"))
        .show_ui(ui, |ui| {
            ui.selectable_value(value, None, "any");
            for code in codes {
                ui.selectable_value(value, Some((*code).to_owned()), *code);
            }
        });
}

/// The currency a `resale-b` lookup asked for, if it named one.
fn related_currency(lookup: &Lookup) -> Option<&str> {
    match lookup {
        Lookup::ResaleB { query, .. } => query.currency.as_deref(),
        _ => None,
    }
}

/// Which lookup the answer below belongs to.
fn shown_for_ui(ui: &mut egui::Ui, shown: Option<&Lookup>) {
    let Some(lookup) = shown else {
        return;
    };
    let key = lookup.key();
    let text = match lookup {
        Lookup::ResaleB { query, .. } => format!(
            "Live answer for “{key}” · country {} · currency {} · market {}",
            query.country.as_deref().unwrap_or("any"),
            query
                .currency
                .as_deref()
                .unwrap_or(RESALE_B_DEFAULT_CURRENCY),
            query.market.as_deref().unwrap_or("any"),
        ),
        _ => format!("Live answer for “{key}”"),
    };
    ui.weak(text);
}

// ---- Money ----------------------------------------------------------------------------------

/// Digits after the decimal point in `currency` (0 for JPY and other currencies without minor
/// units, else 2).
fn minor_digits(currency: &str) -> usize {
    let is_zero_decimal = ZERO_DECIMAL_CURRENCIES
        .iter()
        .any(|code| code.eq_ignore_ascii_case(currency.trim()));
    if is_zero_decimal { 0 } else { 2 }
}

fn with_currency(number: String, currency: &str) -> String {
    let currency = currency.trim();
    if currency.is_empty() {
        number
    } else {
        format!("{number} {currency}")
    }
}

/// An amount in minor units as "189.00 USD" ("27000 JPY" for a currency without minor units).
#[must_use]
pub fn money_from_cents(cents: i64, currency: &str) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let minor = cents.unsigned_abs();
    let number = if minor_digits(currency) == 0 {
        format!("{sign}{minor}")
    } else {
        format!("{sign}{}.{:02}", minor / 100, minor % 100)
    };
    with_currency(number, currency)
}

/// An amount in whole currency units as "189.00 USD" ("27000 JPY").
#[must_use]
pub fn money_from_amount(amount: f64, currency: &str) -> String {
    let digits = minor_digits(currency);
    with_currency(format!("{amount:.digits$}"), currency)
}

/// A price in minor units, or "—" where the source has none (0 or less).
#[must_use]
pub fn price_text_from_cents(cents: i64, currency: &str) -> String {
    if cents > 0 {
        money_from_cents(cents, currency)
    } else {
        NO_PRICE.to_owned()
    }
}

/// A price in whole units, or "—" where the source has none (0, less, or not a number).
#[must_use]
pub fn price_text_from_amount(amount: f64, currency: &str) -> String {
    positive(amount).map_or_else(|| NO_PRICE.to_owned(), |a| money_from_amount(a, currency))
}

/// `amount` when it is a price: marketplaces send 0 for "none".
fn positive(amount: f64) -> Option<f64> {
    (amount.is_finite() && amount > 0.0).then_some(amount)
}

/// The gap between the lowest ask and the highest bid of one product.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Ask minus bid, in the quote's currency.
    pub amount: f64,
    /// Ask minus bid as a percentage of the ask (what a seller gives up by selling to the bid).
    pub percent_of_ask: f64,
}

/// The spread of an order book; `None` when the ask or the bid is missing (0).
#[must_use]
pub fn spread_from_ask_bid(lowest_ask: f64, highest_bid: f64) -> Option<Spread> {
    let ask = positive(lowest_ask)?;
    let bid = positive(highest_bid)?;
    let amount = ask - bid;
    Some(Spread {
        amount,
        percent_of_ask: amount / ask * 100.0,
    })
}

/// "12.00 USD (5.2 %)", or "—".
fn spread_text(spread: Option<Spread>, currency: &str) -> String {
    spread.map_or_else(
        || NO_PRICE.to_owned(),
        |spread| {
            format!(
                "{} ({:.1} %)",
                money_from_amount(spread.amount, currency),
                spread.percent_of_ask
            )
        },
    )
}

fn or_dash(text: &str) -> &str {
    if text.trim().is_empty() {
        NO_PRICE
    } else {
        text
    }
}

/// The date part of a timestamp (`2024-11-23T00:00:00.000Z` → `2024-11-23`).
fn date_part(timestamp: &str) -> &str {
    timestamp.split('T').next().unwrap_or(timestamp)
}

fn fact_ui(ui: &mut egui::Ui, name: &str, value: &str) {
    ui.weak(name);
    ui.label(or_dash(value));
    ui.end_row();
}

fn style_code_ui(ui: &mut egui::Ui, sku: &str) {
    ui.weak("Style code");
    ui.horizontal(|ui| {
        ui.monospace(or_dash(sku));
        if !sku.is_empty()
            && ui
                .small_button("Copy")
                .on_hover_text("Copy the style code")
                .clicked()
        {
            ui.ctx().copy_text(sku.to_owned());
        }
    });
    ui.end_row();
}

fn row_height(ui: &egui::Ui) -> f32 {
    ui.spacing().interact_size.y
}

// ---- resale-a -------------------------------------------------------------------------------

/// One size of a `resale-a` product with its lowest ask, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeAsk {
    /// Size label as the marketplace shows it.
    pub size: String,
    /// Lowest ask for the size in US cents; `None` when nobody asks.
    pub lowest_ask_cents: Option<i64>,
}

/// Every size of `product` with its lowest ask: the size options, priced from
/// `availableSizesNew` (entries `{size, presentation, lowestPriceCents}`; a size with no entry
/// has no ask). Entries that match no size option are listed after the options.
#[must_use]
pub fn size_asks(product: &ResaleAProduct) -> Vec<SizeAsk> {
    struct Entry<'p> {
        presentation: Option<&'p str>,
        size: Option<f64>,
        cents: Option<i64>,
        is_matched: bool,
    }
    let mut entries: Vec<Entry<'_>> = product
        .available_sizes_new
        .iter()
        .map(|value| Entry {
            presentation: value
                .get("presentation")
                .and_then(serde_json::Value::as_str),
            size: value.get("size").and_then(serde_json::Value::as_f64),
            cents: value
                .get("lowestPriceCents")
                .and_then(serde_json::Value::as_i64)
                .filter(|cents| *cents > 0),
            is_matched: false,
        })
        .collect();
    let mut rows: Vec<SizeAsk> = product
        .size_options
        .iter()
        .map(|option| {
            let entry = entries.iter_mut().find(|entry| {
                !entry.is_matched
                    && match entry.presentation {
                        Some(presentation) => presentation == option.presentation,
                        None => entry
                            .size
                            .is_some_and(|size| (size - option.value).abs() < 1e-9),
                    }
            });
            let lowest_ask_cents = entry.and_then(|entry| {
                entry.is_matched = true;
                entry.cents
            });
            SizeAsk {
                size: option.presentation.clone(),
                lowest_ask_cents,
            }
        })
        .collect();
    rows.extend(
        entries
            .iter()
            .filter(|entry| !entry.is_matched)
            .map(|entry| SizeAsk {
                size: entry.presentation.map_or_else(
                    || entry.size.map_or_else(String::new, |size| size.to_string()),
                    str::to_owned,
                ),
                lowest_ask_cents: entry.cents,
            }),
    );
    rows
}

/// The size with the lowest ask, if any size has one (the first such size on a tie).
#[must_use]
pub fn lowest_size_ask(sizes: &[SizeAsk]) -> Option<(&str, i64)> {
    sizes
        .iter()
        .filter_map(|row| row.lowest_ask_cents.map(|cents| (row.size.as_str(), cents)))
        .min_by_key(|(_, cents)| *cents)
}

fn resale_a_product_ui(ui: &mut egui::Ui, product: &ResaleAProduct) {
    ui.heading(&product.name);
    if !product.nickname.is_empty() && product.nickname != product.name {
        ui.weak(&product.nickname);
    }
    let sizes = size_asks(product);
    let currency = RESALE_A_CURRENCY;
    egui::Grid::new("resale_a_facts")
        .num_columns(2)
        .spacing([16.0, 4.0])
        .show(ui, |ui| {
            style_code_ui(ui, &product.sku);
            fact_ui(ui, "Brand", &product.brand_name);
            fact_ui(ui, "Colour", &product.color);
            fact_ui(ui, "Colourway", &product.details);
            fact_ui(ui, "Silhouette", &product.silhouette);
            fact_ui(ui, "Release", date_part(&product.release_date));
            fact_ui(ui, "Status", &product.status);
            fact_ui(
                ui,
                "Id · slug",
                &format!("{} · {}", product.id, product.slug),
            );

            ui.weak("Lowest ask across sizes");
            match lowest_size_ask(&sizes) {
                Some((size, cents)) => {
                    ui.strong(format!(
                        "{} (size {size})",
                        money_from_cents(cents, currency)
                    ));
                }
                None => {
                    ui.label("no size has an ask");
                }
            }
            ui.end_row();
            fact_ui(
                ui,
                "Lowest price, new",
                &price_text_from_cents(product.new_lowest_price_cents, currency),
            );
            fact_ui(
                ui,
                "Lowest price, used",
                &price_text_from_cents(product.used_lowest_price_cents, currency),
            );
            let local = &product.localized_special_display_price_cents;
            if !local.currency.eq_ignore_ascii_case(currency) {
                fact_ui(
                    ui,
                    "Local display price",
                    &price_text_from_cents(local.amount, &local.currency),
                );
            }
            fact_ui(
                ui,
                "For sale",
                &format!(
                    "{} new · {} used · {} with defects",
                    product.selling_count,
                    product.used_for_sale_count,
                    product.with_defect_for_sale_count
                ),
            );
        });
    ui.add_space(8.0);

    let with_ask = sizes
        .iter()
        .filter(|row| row.lowest_ask_cents.is_some())
        .count();
    ui.strong(format!(
        "Sizes ({with_ask} of {} with an ask, {})",
        sizes.len(),
        product.size_unit.to_uppercase()
    ));
    if sizes.is_empty() {
        ui.weak("The marketplace lists no sizes.");
        return;
    }
    let height = row_height(ui);
    TableBuilder::new(ui)
        .id_salt("resale_a_sizes")
        .striped(true)
        .vscroll(false)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(Column::auto().at_least(60.0))
        .column(Column::auto().at_least(110.0))
        .column(Column::auto().at_least(80.0))
        .header(height, |mut header| {
            for name in ["Size", "Lowest ask", "Availability"] {
                header.col(|ui| {
                    ui.strong(name);
                });
            }
        })
        .body(|mut body| {
            for row in &sizes {
                body.row(height, |mut cells| {
                    cells.col(|ui| {
                        ui.label(&row.size);
                    });
                    cells.col(|ui| match row.lowest_ask_cents {
                        Some(cents) => {
                            ui.label(money_from_cents(cents, currency));
                        }
                        None => {
                            ui.weak("no price");
                        }
                    });
                    cells.col(|ui| {
                        if row.lowest_ask_cents.is_some() {
                            ui.label("asks open");
                        } else {
                            ui.weak("no ask");
                        }
                    });
                });
            }
        });
}

// ---- resale-b -------------------------------------------------------------------------------

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
            RelatedColumn::LowestAsk => positive(state.lowest_ask.amount),
            RelatedColumn::HighestBid => positive(state.highest_bid.amount),
            RelatedColumn::Spread => {
                spread_from_ask_bid(state.lowest_ask.amount, state.highest_bid.amount)
                    .map(|spread| spread.percent_of_ask)
            }
            RelatedColumn::LastSale => positive(node.market.sales_information.last_sale),
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

fn related_table_ui(
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
                        ui.label(price_text_from_amount(state.lowest_ask.amount, currency));
                    });
                    cells.col(|ui| {
                        ui.label(price_text_from_amount(state.highest_bid.amount, currency));
                    });
                    cells.col(|ui| {
                        ui.label(spread_text(
                            spread_from_ask_bid(state.lowest_ask.amount, state.highest_bid.amount),
                            currency,
                        ));
                    });
                    cells.col(|ui| {
                        ui.label(price_text_from_amount(sales.last_sale, currency));
                    });
                    cells.col(|ui| {
                        ui.label(sales.sales_last_72_hours.to_string());
                    });
                    cells.col(|ui| {
                        ui.label(state.number_of_asks.to_string());
                    });
                    cells.col(|ui| {
                        ui.label(state.number_of_bids.to_string());
                    });
                });
            }
        });
    if let Some(column) = clicked {
        *sort = sort.clicked(column);
    }
}

// ---- retailer-a -----------------------------------------------------------------------------

/// "in stock", "sold out", or "unavailable" for a size the retailer has no price for.
fn stock_text(variant: &RetailerVariant) -> &'static str {
    match (variant.available, positive(variant.price).is_some()) {
        (true, _) => "in stock",
        (false, true) => "sold out",
        (false, false) => "unavailable",
    }
}

fn retailer_product_ui(ui: &mut egui::Ui, product: &RetailerProduct) {
    ui.heading(&product.title);
    egui::Grid::new("retailer_facts")
        .num_columns(2)
        .spacing([16.0, 4.0])
        .show(ui, |ui| {
            style_code_ui(ui, &product.sku);
            fact_ui(ui, "Brand", &product.brand);
            fact_ui(ui, "Colourway", &product.colorway);
            fact_ui(ui, "Release", &product.release_date);
            fact_ui(ui, "Type", &product.product_type);
            fact_ui(ui, "Updated", &product.updated_at);

            ui.weak("Cheapest size in stock");
            let cheapest = product
                .variants
                .iter()
                .filter(|variant| variant.available)
                .filter_map(|variant| positive(variant.price).map(|price| (variant, price)))
                .min_by(|(_, a), (_, b)| a.total_cmp(b));
            match cheapest {
                Some((variant, price)) => {
                    ui.strong(format!(
                        "{} (size {})",
                        money_from_amount(price, &variant.currency),
                        variant.size
                    ));
                }
                None => {
                    ui.label("no size in stock");
                }
            }
            ui.end_row();
        });
    ui.add_space(8.0);

    let in_stock = product
        .variants
        .iter()
        .filter(|variant| variant.available)
        .count();
    ui.strong(format!(
        "Sizes ({in_stock} of {} in stock)",
        product.variants.len()
    ));
    if product.variants.is_empty() {
        ui.weak("The retailer lists no sizes.");
        return;
    }
    let height = row_height(ui);
    TableBuilder::new(ui)
        .id_salt("retailer_sizes")
        .striped(true)
        .vscroll(false)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(Column::auto().at_least(160.0))
        .column(Column::auto().at_least(90.0))
        .column(Column::auto().at_least(80.0))
        .column(Column::auto().at_least(110.0))
        .header(height, |mut header| {
            for name in ["Size", "Price", "Stock", "Barcode"] {
                header.col(|ui| {
                    ui.strong(name);
                });
            }
        })
        .body(|mut body| {
            for variant in &product.variants {
                body.row(height, |mut cells| {
                    cells.col(|ui| {
                        ui.label(&variant.size);
                    });
                    cells.col(|ui| {
                        if positive(variant.price).is_some() {
                            ui.label(money_from_amount(variant.price, &variant.currency));
                        } else {
                            ui.weak("no price");
                        }
                    });
                    cells.col(|ui| {
                        let text = stock_text(variant);
                        if variant.available {
                            ui.label(text);
                        } else {
                            ui.weak(text);
                        }
                    });
                    cells.col(|ui| {
                        if variant.barcode.is_empty() {
                            ui.weak(NO_PRICE);
                        } else {
                            ui.monospace(format!("{} {}", variant.barcode_type, variant.barcode));
                        }
                    });
                });
            }
        });
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use egui_kittest::Harness;
    use egui_kittest::kittest::{NodeT, Queryable};

    use super::*;
    use crate::model::{Amount, Market, MarketState, Media, SalesInformation};

    #[test]
    fn money_is_formatted_from_minor_units_with_the_currency() {
        assert_eq!(money_from_cents(18_900, "USD"), "189.00 USD");
        assert_eq!(money_from_cents(5, "EUR"), "0.05 EUR");
        assert_eq!(money_from_cents(-150, "USD"), "-1.50 USD");
        assert_eq!(money_from_cents(27_000, "JPY"), "27000 JPY");
        assert_eq!(money_from_cents(100, ""), "1.00");
        assert_eq!(money_from_amount(189.0, "USD"), "189.00 USD");
        assert_eq!(money_from_amount(27_000.4, "jpy"), "27000 jpy");
    }

    #[test]
    fn missing_prices_are_never_shown_as_zero() {
        assert_eq!(price_text_from_cents(0, "USD"), "—");
        assert_eq!(price_text_from_cents(-1, "USD"), "—");
        assert_eq!(price_text_from_cents(23_500, "USD"), "235.00 USD");
        assert_eq!(price_text_from_amount(0.0, "USD"), "—");
        assert_eq!(price_text_from_amount(f64::NAN, "USD"), "—");
        assert_eq!(price_text_from_amount(12.5, "GBP"), "12.50 GBP");
    }

    #[test]
    fn spread_is_ask_minus_bid_and_its_share_of_the_ask() {
        let spread = spread_from_ask_bid(200.0, 190.0).unwrap();
        assert!((spread.amount - 10.0).abs() < 1e-9);
        assert!((spread.percent_of_ask - 5.0).abs() < 1e-9);
        assert_eq!(spread_text(Some(spread), "USD"), "10.00 USD (5.0 %)");
        assert_eq!(spread_from_ask_bid(200.0, 0.0), None);
        assert_eq!(spread_from_ask_bid(0.0, 190.0), None);
        assert_eq!(spread_text(None, "USD"), "—");
    }

    #[test]
    fn a_lookup_is_built_from_the_trimmed_id_of_the_selected_source() {
        let mut form = RealtimeForm {
            resale_a_id: "  12345678 \n".into(),
            resale_b_id: "air-jordan-1".into(),
            retailer_slug: "   ".into(),
            currency: Some("EUR".into()),
            ..RealtimeForm::default()
        };
        assert_eq!(
            form.lookup(),
            Some(Lookup::ResaleA {
                id: "12345678".into()
            })
        );
        form.source = RealtimeSource::ResaleB;
        assert_eq!(
            form.lookup(),
            Some(Lookup::ResaleB {
                id: "air-jordan-1".into(),
                query: RelatedQuery {
                    country: None,
                    currency: Some("EUR".into()),
                    market: None,
                },
            })
        );
        form.source = RealtimeSource::Retailer;
        assert_eq!(form.lookup(), None);
        form.retailer_slug = " a/b c?d ".into();
        assert_eq!(
            form.lookup(),
            Some(Lookup::Retailer {
                slug: "a/b c?d".into()
            })
        );
    }

    #[test]
    fn the_form_persists_without_its_transient_state() {
        let mut form = RealtimeForm {
            source: RealtimeSource::ResaleB,
            resale_b_id: "x".into(),
            ..RealtimeForm::default()
        };
        form.record_lookup(&Lookup::ResaleA { id: "7".into() });
        let json = serde_json::to_string(&form).unwrap();
        assert!(!json.contains("track"), "{json}");
        let back: RealtimeForm = serde_json::from_str(&json).unwrap();
        assert_eq!(back.source, RealtimeSource::ResaleA);
        assert_eq!(back.resale_a_id, "7");
        assert_eq!(back.resale_b_id, "x");
        let old: RealtimeForm = serde_json::from_str(r#"{"source":"retailer"}"#).unwrap();
        assert_eq!(old.source, RealtimeSource::Retailer);
    }

    fn budget(remaining: u32, source: BudgetSource) -> Budget {
        Budget {
            limit: 120,
            remaining,
            resets_at: Instant::now() + Duration::from_secs(42),
            source,
        }
    }

    #[test]
    fn the_budget_line_counts_down_only_for_a_running_window() {
        let secs = Duration::from_millis(41_200);
        assert_eq!(
            budget_text(&budget(117, BudgetSource::Server), secs),
            "Real-time budget: 117 of 120 left this minute · resets in 42 s"
        );
        assert_eq!(
            budget_text(&budget(120, BudgetSource::Assumed), secs),
            "Real-time budget: 120 of 120 left this minute"
        );
        assert!(
            budget_text(&budget(0, BudgetSource::Counted), secs)
                .starts_with("Real-time budget spent: 0 of 120 left · resets in 42 s")
        );
    }

    fn resale_a_product(options: &[&str], available: serde_json::Value) -> ResaleAProduct {
        let mut product: ResaleAProduct = serde_json::from_str(
            r#"{
            "id": 1, "name": "", "nickname": "", "slug": "", "sku": "", "brandName": "",
            "designer": "", "details": "", "color": "", "silhouette": "", "midsole": "",
            "upperMaterial": "", "season": "", "category": [], "gender": [], "singleGender": "",
            "productCategory": "", "productType": "", "productTaxonomy": [], "specialType": "",
            "status": "", "releaseDate": "", "story": "", "storyHtml": "", "internalShot": "",
            "sizeBrand": "", "sizeType": "", "sizeUnit": "", "sizeOptions": [], "sizeRange": [],
            "availableSizesNew": [], "availableSizesNewV2": [],
            "availableSizesNewWithDefects": [], "availableSizesUsed": [], "featuredIn": [],
            "robotAssets": [], "gridPictureUrl": "", "gridGlowPictureUrl": "",
            "mainPictureUrl": "", "mainGlowPictureUrl": "", "pictureUrl": "",
            "walletPayOnlyPromo": false, "directShipping": false, "forAuction": false,
            "isAvailabilityRestricted": false, "isFashionProduct": false, "isOfferable": true,
            "isOwnable": true, "isRaffleProduct": false, "isResellable": true,
            "isWantable": true, "renderImagesInOrder": false, "lowestPriceCents": 0,
            "newLowestPriceCents": 0, "usedLowestPriceCents": 0,
            "specialDisplayPriceCents": 0, "maximumOfferCents": 0, "minimumOfferCents": 0,
            "sellingCount": 0, "usedForSaleCount": 0, "withDefectForSaleCount": 0,
            "micropostsCount": 0,
            "localizedSpecialDisplayPriceCents": {"amount": 0, "amountUsdCents": 0, "currency": "USD"}
            }"#,
        )
        .unwrap();
        product.available_sizes_new = serde_json::from_value(available).unwrap();
        product.size_options = options
            .iter()
            .map(|size| crate::model::SizeOption {
                presentation: (*size).to_owned(),
                value: size.parse().unwrap_or(0.0),
            })
            .collect();
        product
    }

    #[test]
    fn sizes_without_an_ask_have_no_price_and_the_lowest_ask_is_found() {
        let product = resale_a_product(
            &["9", "9.5", "10"],
            serde_json::json!([
                {"size": 9.0, "presentation": "9", "lowestPriceCents": 24_000},
                {"size": 10.0, "lowestPriceCents": 23_500},
                {"size": 11.0, "presentation": "11", "lowestPriceCents": 0},
            ]),
        );
        let sizes = size_asks(&product);
        let asks: Vec<_> = sizes
            .iter()
            .map(|row| (row.size.as_str(), row.lowest_ask_cents))
            .collect();
        assert_eq!(
            asks,
            [
                ("9", Some(24_000)),
                ("9.5", None),
                ("10", Some(23_500)),
                ("11", None)
            ]
        );
        assert_eq!(lowest_size_ask(&sizes), Some(("10", 23_500)));
        assert_eq!(lowest_size_ask(&sizes[1..2]), None);
    }

    fn edge(title: &str, ask: f64, bid: f64, sales: i64) -> ResaleBEdge {
        ResaleBEdge {
            node: ResaleBNode {
                id: title.to_owned(),
                brand: String::new(),
                title: title.to_owned(),
                primary_title: String::new(),
                secondary_title: String::new(),
                product_category: String::new(),
                listing_type: "STANDARD".to_owned(),
                url_key: String::new(),
                media: Media {
                    thumb_url: String::new(),
                },
                market: Market {
                    sales_information: SalesInformation {
                        last_sale: ask,
                        sales_last_72_hours: sales,
                    },
                    state: MarketState {
                        highest_bid: Amount { amount: bid },
                        lowest_ask: Amount { amount: ask },
                        number_of_asks: 1,
                        number_of_bids: 1,
                    },
                },
            },
        }
    }

    #[test]
    fn related_products_sort_with_missing_figures_last() {
        let edges = [
            edge("b", 300.0, 270.0, 5),
            edge("C", 0.0, 100.0, 9),
            edge("a", 200.0, 190.0, 1),
        ];
        let titles = |sort| -> Vec<String> {
            related_in_order(&edges, sort)
                .iter()
                .map(|node| node.title.clone())
                .collect()
        };
        assert_eq!(titles(RelatedSort::default()), ["b", "C", "a"]);
        let ask = RelatedSort::default().clicked(RelatedColumn::LowestAsk);
        assert_eq!(titles(ask), ["a", "b", "C"]);
        let ask_down = ask.clicked(RelatedColumn::LowestAsk);
        assert!(ask_down.descending);
        assert_eq!(titles(ask_down), ["b", "a", "C"]);
        assert_eq!(
            ask_down.clicked(RelatedColumn::LowestAsk),
            RelatedSort::default()
        );
        let spread = RelatedSort::default().clicked(RelatedColumn::Spread);
        assert_eq!(titles(spread), ["a", "b", "C"]);
        let title = RelatedSort::default().clicked(RelatedColumn::Title);
        assert_eq!(titles(title), ["a", "b", "C"]);
    }

    /// What a test window holds: the app's side of the tab.
    struct Window {
        form: RealtimeForm,
        resale_a: Requested<ResaleAEnvelope>,
        resale_b: Requested<ResaleBEnvelope>,
        retailer: Requested<RetailerEnvelope>,
        budget: Option<Budget>,
        tier: Option<Tier>,
        lookups: Vec<Lookup>,
    }

    fn window(
        tier: Option<Tier>,
        budget: Option<Budget>,
        form: RealtimeForm,
    ) -> Harness<'static, Window> {
        let state = Window {
            form,
            resale_a: Requested::NotYetRequested,
            resale_b: Requested::NotYetRequested,
            retailer: Requested::NotYetRequested,
            budget,
            tier,
            lookups: Vec::new(),
        };
        Harness::new_ui_state(
            |ui, window: &mut Window| {
                let results = RealtimeResults {
                    resale_a: &window.resale_a,
                    resale_b: &window.resale_b,
                    retailer: &window.retailer,
                    budget: window.budget,
                    tier: window.tier,
                };
                if let Some(lookup) = realtime_ui(ui, &mut window.form, results).lookup {
                    window.lookups.push(lookup);
                }
            },
            state,
        )
    }

    #[test]
    fn a_free_key_sees_a_lock_for_resale_and_can_use_the_retailer() {
        let mut harness = window(Some(Tier::Free), None, RealtimeForm::default());
        harness.run();
        assert!(harness.query_by_label_contains("need a pro key").is_some());
        assert!(harness.query_by_label("Look up").is_none());
        harness.get_by_label("retailer-a (free)").click();
        harness.run();
        assert!(harness.query_by_label_contains("need a pro key").is_none());
        harness.get_by_label("Look up").click();
        harness.run();
        assert!(harness.state().lookups.is_empty());
        assert!(
            harness
                .query_by_label("Enter a product slug first.")
                .is_some()
        );
        harness.state_mut().form.retailer_slug = "  some-slug ".into();
        harness.run();
        harness.get_by_label("Look up").click();
        harness.run();
        assert_eq!(
            harness.state().lookups,
            [Lookup::Retailer {
                slug: "some-slug".into()
            }]
        );
        assert!(harness.query_by_label("Refresh").is_some());
    }

    #[test]
    fn a_spent_budget_disables_resale_lookups_and_says_when_it_resets() {
        let form = RealtimeForm {
            resale_a_id: "12345678".into(),
            ..RealtimeForm::default()
        };
        let mut harness = window(Some(Tier::Pro), Some(budget(0, BudgetSource::Server)), form);
        harness.run();
        assert!(
            harness
                .query_by_label_contains("Real-time budget spent: 0 of 120 left · resets in")
                .is_some()
        );
        let button = harness.get_by_label("Look up");
        assert!(button.accesskit_node().is_disabled());
        button.click();
        harness.run();
        assert!(harness.state().lookups.is_empty());

        harness.state_mut().budget = Some(budget(5, BudgetSource::Server));
        harness.run();
        harness.get_by_label("Look up").click();
        harness.run();
        assert_eq!(
            harness.state().lookups,
            [Lookup::ResaleA {
                id: "12345678".into()
            }]
        );
    }
}
