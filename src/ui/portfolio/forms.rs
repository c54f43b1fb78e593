//! The forms: adding a pair from the product view (the size picked from the product's
//! variants) and recording a sale. Amounts are typed as resellers write them (`$1,180.00`,
//! `180,50`) and read by the same rules as the CSV import.

use chrono::NaiveDate;

use super::HoldingRow;
use crate::figures::{fees_cents, parse_date, parse_money};
use crate::model::Product;
use crate::model::portfolio::{Condition, Pair, Sale};
use crate::ui::format;
use crate::ui::market::FeePreset;

/// A text field with its label, reachable by that label (tests and screen readers).
fn labelled_field(ui: &mut egui::Ui, label: &str, text: &mut String, width: f32) {
    ui.horizontal(|ui| {
        let salt = ("portfolio_field", label);
        let label = ui.label(label);
        ui.add(
            egui::TextEdit::singleline(text)
                .id_salt(salt)
                .desired_width(width),
        )
        .labelled_by(label.id);
    });
}

/// Today, in the local calendar.
fn today() -> NaiveDate {
    chrono::Local::now().date_naive()
}

/// The "Add to portfolio" form of the product view.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AddPairForm {
    /// The product the form was last filled for; a new product resets the size.
    pub product_id: String,
    /// The size picked, from the variants.
    pub size: String,
    /// Condition.
    pub condition: Condition,
    /// Purchase date as typed; empty for today.
    pub purchased_on: String,
    /// Cost as typed.
    pub cost: String,
    /// Where it was bought.
    pub bought_from: String,
    /// Notes.
    pub notes: String,
    /// Tags, separated by commas.
    pub tags: String,
    /// Why the last attempt was refused.
    pub error: Option<String>,
}

/// What the form asked for.
#[derive(Debug, Default, PartialEq)]
pub struct AddPairOutput {
    /// Add this pair.
    pub add: Option<Pair>,
}

/// The "Add to portfolio" form for `product`. `is_saving`: an add is in flight (the button
/// waits).
pub fn add_pair_ui(
    ui: &mut egui::Ui,
    form: &mut AddPairForm,
    product: &Product,
    is_saving: bool,
) -> AddPairOutput {
    let mut output = AddPairOutput::default();
    if form.product_id != product.id {
        let keep = std::mem::take(&mut form.bought_from);
        *form = AddPairForm {
            product_id: product.id.clone(),
            size: product
                .variants
                .first()
                .map_or_else(String::new, |v| v.size.clone()),
            bought_from: keep,
            ..AddPairForm::default()
        };
    }
    ui.strong("Add a pair to the portfolio");
    if product.variants.is_empty() {
        ui.weak("This product lists no sizes.");
        return output;
    }
    ui.horizontal(|ui| {
        let name = ui.label("Size");
        egui::ComboBox::from_id_salt("add_pair_size")
            .selected_text(&form.size)
            .show_ui(ui, |ui| {
                for variant in &product.variants {
                    ui.selectable_value(
                        &mut form.size,
                        variant.size.clone(),
                        format!(
                            "{} · {}",
                            variant.size,
                            format::price(variant.price, &variant.currency)
                        ),
                    );
                }
            })
            .response
            .labelled_by(name.id);
        let name = ui.label("Condition");
        egui::ComboBox::from_id_salt("add_pair_condition")
            .selected_text(form.condition.label())
            .show_ui(ui, |ui| {
                for condition in Condition::ALL {
                    ui.selectable_value(&mut form.condition, condition, condition.label());
                }
            })
            .response
            .labelled_by(name.id);
    });
    ui.horizontal(|ui| {
        labelled_field(ui, "Cost (tax and shipping included)", &mut form.cost, 90.0);
        ui.weak(&product.currency);
        labelled_field(ui, "Bought on", &mut form.purchased_on, 90.0);
        if form.purchased_on.is_empty() {
            ui.weak("(today)");
        }
    });
    ui.horizontal(|ui| {
        labelled_field(ui, "Bought from", &mut form.bought_from, 110.0);
        labelled_field(ui, "Tags", &mut form.tags, 110.0);
        labelled_field(ui, "Notes", &mut form.notes, 160.0);
    });
    ui.horizontal(|ui| {
        let clicked = ui
            .add_enabled(!is_saving, egui::Button::new("Add to portfolio"))
            .clicked();
        if is_saving {
            ui.spinner();
        }
        if clicked {
            match pair_from_form(form, product) {
                Ok(pair) => {
                    form.error = None;
                    output.add = Some(pair);
                }
                Err(err) => form.error = Some(err),
            }
        }
        if let Some(err) = &form.error {
            ui.colored_label(ui.visuals().error_fg_color, err);
        }
    });
    output
}

fn pair_from_form(form: &AddPairForm, product: &Product) -> Result<Pair, String> {
    if !product.variants.iter().any(|v| v.size == form.size) {
        return Err("Pick a size.".into());
    }
    let (cost_cents, currency) = parse_money(&form.cost).map_err(|err| format!("Cost: {err}."))?;
    if cost_cents < 0 {
        return Err("Cost: cannot be negative.".into());
    }
    if let Some(currency) = currency.filter(|c| *c != product.currency) {
        return Err(format!(
            "Cost: give it in {} (the product's currency), not {currency}.",
            product.currency
        ));
    }
    let purchased_on = if form.purchased_on.trim().is_empty() {
        today()
    } else {
        parse_date(&form.purchased_on).map_err(|err| format!("Bought on: {err}."))?
    };
    Ok(Pair {
        product_id: product.id.clone(),
        slug: product.slug.clone(),
        sku: product.sku.clone(),
        title: product.title.clone(),
        size: form.size.clone(),
        condition: form.condition,
        purchased_on,
        cost_cents,
        currency: product.currency.clone(),
        bought_from: form.bought_from.trim().to_owned(),
        notes: form.notes.trim().to_owned(),
        tags: form
            .tags
            .split([',', ';'])
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect(),
    })
}

/// A sale being entered.
#[derive(Debug, Clone, PartialEq)]
pub struct SaleDraft {
    /// The pair sold.
    pub holding_id: i64,
    /// Sale date as typed; empty for today.
    pub sold_on: String,
    /// Price as typed.
    pub price: String,
    /// Marketplace.
    pub marketplace: String,
    /// Fees as typed; empty to take the chosen marketplace's preset.
    pub fees: String,
    /// Shipping paid, as typed.
    pub shipping: String,
    /// The preset the fees default to.
    pub preset: FeePreset,
    /// Why the last attempt was refused.
    pub error: Option<String>,
}

impl SaleDraft {
    /// An empty draft for the pair `holding_id`, fees defaulting to `preset`.
    #[must_use]
    pub fn new(holding_id: i64, preset: FeePreset) -> Self {
        Self {
            holding_id,
            sold_on: String::new(),
            price: String::new(),
            marketplace: preset.label().to_owned(),
            fees: String::new(),
            shipping: String::new(),
            preset,
            error: None,
        }
    }
}

/// What the sale form asked for.
#[derive(Debug, Default)]
pub(super) struct SaleFormOutput {
    pub(super) sale: Option<Sale>,
    pub(super) cancel: bool,
}

/// The sale form for `row`.
pub(super) fn sale_form_ui(
    ui: &mut egui::Ui,
    draft: &mut SaleDraft,
    row: &HoldingRow,
) -> SaleFormOutput {
    let mut output = SaleFormOutput::default();
    let pair = &row.holding.pair;
    ui.strong(format!("Sell {} · size {}", pair.title, pair.size));
    ui.horizontal(|ui| {
        labelled_field(ui, "Sale price", &mut draft.price, 90.0);
        ui.weak(&pair.currency);
        labelled_field(ui, "Sold on", &mut draft.sold_on, 90.0);
        labelled_field(ui, "Marketplace", &mut draft.marketplace, 90.0);
    });
    ui.horizontal(|ui| {
        labelled_field(ui, "Fees", &mut draft.fees, 80.0);
        if draft.fees.trim().is_empty() {
            ui.weak(format!("(empty: the {} preset)", draft.preset.label()));
        }
        labelled_field(ui, "Shipping", &mut draft.shipping, 80.0);
    });
    ui.horizontal(|ui| {
        if ui.button("Record sale").clicked() {
            match sale_from_draft(draft, pair) {
                Ok(sale) => output.sale = Some(sale),
                Err(err) => draft.error = Some(err),
            }
        }
        output.cancel = ui.button("Cancel").clicked();
        if let Some(err) = &draft.error {
            ui.colored_label(ui.visuals().error_fg_color, err);
        }
    });
    output
}

fn sale_from_draft(draft: &SaleDraft, pair: &Pair) -> Result<Sale, String> {
    let amount = |text: &str, name: &str| -> Result<i64, String> {
        match parse_money(text) {
            Ok((cents, _)) if cents >= 0 => Ok(cents),
            Ok(_) => Err(format!("{name}: cannot be negative.")),
            Err(err) => Err(format!("{name}: {err}.")),
        }
    };
    let price_cents = amount(&draft.price, "Sale price")?;
    let sold_on = if draft.sold_on.trim().is_empty() {
        today()
    } else {
        parse_date(&draft.sold_on).map_err(|err| format!("Sold on: {err}."))?
    };
    if sold_on < pair.purchased_on {
        return Err(format!(
            "Sold on: before the purchase ({}).",
            pair.purchased_on
        ));
    }
    let fees_cents = if draft.fees.trim().is_empty() {
        draft
            .preset
            .rates()
            .map_or(0, |rates| fees_cents(price_cents, rates))
    } else {
        amount(&draft.fees, "Fees")?
    };
    let shipping_cents = if draft.shipping.trim().is_empty() {
        0
    } else {
        amount(&draft.shipping, "Shipping")?
    };
    Ok(Sale {
        sold_on,
        price_cents,
        marketplace: draft.marketplace.trim().to_owned(),
        fees_cents,
        shipping_cents,
    })
}
