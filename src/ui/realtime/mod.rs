//! The Real-time tab: live lookups on the two resale marketplaces and the retailer, with the
//! real-time request budget always in view.
//!
//! The tab draws the form ([`RealtimeForm`], persisted by the app) and the latest answers it is
//! given ([`RealtimeResults`]); it returns the [`Lookup`] the user asked for, and the app starts
//! the fetch. Prices a source does not have are shown as "—" or "no price", never as 0: a
//! reseller reading 0 as a price is the bug the users of these tools report most.
//!
//! One file per source draws its answer (`resale_a`, `resale_b`, `retailer`); this one holds the
//! form, the budget line and the tab around them.

use std::time::Duration;

use serde::{Deserialize, Serialize};

mod resale_a;
mod resale_b;
mod retailer;
#[cfg(test)]
mod tests;

use self::resale_a::resale_a_product_ui;
use self::resale_b::related_table_ui;
pub use self::resale_b::{RelatedColumn, RelatedSort, related_in_order};
use self::retailer::retailer_product_ui;
use super::fetched::Fetched;
use super::format::NO_PRICE;
use super::widgets::{lock_ui, requested_ui};
use crate::client::{Budget, BudgetSource, RelatedQuery};
use crate::model::{
    Feature, RealtimeInfo, RelatedInfo, ResaleAEnvelope, ResaleBEnvelope, RetailerEnvelope, Tier,
};

/// `resale-a` quotes every `*Cents` field in US cents; only the localized price names its own
/// currency.
const RESALE_A_CURRENCY: &str = "USD";

/// The currency `resale-b` quotes in when the lookup names none.
const RESALE_B_DEFAULT_CURRENCY: &str = "USD";

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
    /// Whether the service has a source that answers this lookup.
    #[must_use]
    pub fn is_offered(self, offered: &RealtimeInfo) -> bool {
        match self {
            RealtimeSource::ResaleA => offered.resale_a.is_some(),
            RealtimeSource::ResaleB => offered.resale_b.is_some(),
            RealtimeSource::Retailer => offered.retailer_a.is_some(),
        }
    }

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
            RealtimeSource::ResaleA | RealtimeSource::ResaleB => Feature::Realtime.minimum_tier(),
            RealtimeSource::Retailer => Feature::Retailer.minimum_tier(),
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
    fn settle<T>(&mut self, answer: Fetched<'_, T>) {
        if answer.is_completed() && self.shown != self.requested {
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
    pub resale_a: Fetched<'a, ResaleAEnvelope>,
    /// The `resale-b` related products.
    pub resale_b: Fetched<'a, ResaleBEnvelope>,
    /// The `retailer-a` product.
    pub retailer: Fetched<'a, RetailerEnvelope>,
    /// The client's real-time budget now (`Client::realtime_budget`); `None` without a client.
    pub budget: Option<Budget>,
    /// The key's tier when known.
    pub tier: Option<Tier>,
    /// What the service's real-time sources answer, once it said: a lookup it has no source
    /// for is not offered, and `resale-b` offers only its countries, currencies and markets.
    pub offered: Option<&'a RealtimeInfo>,
}

/// What the user asked for in the Real-time tab this frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RealtimeOutput {
    /// A lookup to start now (Look up, Refresh, Enter or Retry).
    pub lookup: Option<Lookup>,
}

/// The Real-time tab. The app must start the returned lookup in the same frame (it replaces
/// the matching fetch with a pending fetch), so the tab can tell which lookup the answer
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
    source_picker_ui(ui, form, results.offered);
    ui.add_space(4.0);

    let source = form.source;
    if let Some(offered) = results.offered
        && !source.is_offered(offered)
    {
        ui.weak(format!(
            "This service has no source for {} lookups.",
            source.name()
        ));
        return RealtimeOutput::default();
    }
    if let Some(related) = results.offered.and_then(|o| o.resale_b.as_ref()) {
        // A value kept from another service that this one does not answer for goes back to
        // the service's default.
        for (value, codes) in [
            (&mut form.country, &related.countries),
            (&mut form.currency, &related.currencies),
            (&mut form.market, &related.markets),
        ] {
            if value.as_ref().is_some_and(|v| !codes.contains(v)) {
                *value = None;
            }
        }
    }
    if results.tier.is_some_and(|tier| tier < source.tier_needed()) {
        lock_ui(
            ui,
            &format!("Real-time {} lookups", source.name()),
            source.tier_needed(),
            results.tier,
        );
        return RealtimeOutput::default();
    }
    let budget_spent = results.budget.is_some_and(|budget| budget.is_spent());
    let can_send = !(source.spends_budget() && budget_spent);

    let mut lookup = None;
    if lookup_form_ui(ui, form, can_send, results.offered) {
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

fn source_picker_ui(ui: &mut egui::Ui, form: &mut RealtimeForm, offered: Option<&RealtimeInfo>) {
    ui.horizontal(|ui| {
        ui.label("Source");
        for source in RealtimeSource::ALL {
            let label = format!("{} ({})", source.name(), source.tier_needed());
            let selected = form.source == source;
            let available = offered.is_none_or(|offered| source.is_offered(offered));
            let button = ui
                .add_enabled(available, egui::Button::selectable(selected, label))
                .on_disabled_hover_text(format!(
                    "This service has no source for {} lookups",
                    source.name()
                ));
            if button.clicked() && !selected {
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
fn lookup_form_ui(
    ui: &mut egui::Ui,
    form: &mut RealtimeForm,
    can_send: bool,
    offered: Option<&RealtimeInfo>,
) -> bool {
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
        let related = offered.and_then(|o| o.resale_b.as_ref());
        let codes = |pick: fn(&RelatedInfo) -> &Vec<String>| related.map_or(&[][..], |r| pick(r));
        ui.horizontal_wrapped(|ui| {
            code_picker_ui(ui, "Country", &mut form.country, codes(|r| &r.countries));
            code_picker_ui(ui, "Currency", &mut form.currency, codes(|r| &r.currencies));
            code_picker_ui(ui, "Market", &mut form.market, codes(|r| &r.markets));
        });
    }
    asked && can_send
}

/// A labelled drop-down of `codes` plus "any" (`None`: the server's default).
fn code_picker_ui(ui: &mut egui::Ui, label: &str, value: &mut Option<String>, codes: &[String]) {
    let label = ui.label(label);
    let picker = egui::ComboBox::from_id_salt(("realtime_code", label.id))
        .selected_text(value.as_deref().unwrap_or("any"))
        .show_ui(ui, |ui| {
            ui.selectable_value(value, None, "any");
            for code in codes {
                ui.selectable_value(value, Some(code.clone()), code);
            }
        });
    // Named by its label for screen readers (and found by it in tests).
    picker.response.labelled_by(label.id);
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
