//! The product detail view: identity, prices, variants, release data and description.

use super::format;
use super::search::price_range;
use super::widgets::lock_ui;
use crate::client::links::openable_url;
use crate::model::{Feature, Product, Tier};

/// The column the variants table is sorted by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum VariantColumn {
    /// Size, numerically (`4`, `4.5`, `10`, … rather than as text).
    #[default]
    Size,
    /// Price; sizes with no price last.
    Price,
    /// GTIN, as text.
    Gtin,
}

/// How the variants table is sorted (kept between runs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct VariantSort {
    /// The column.
    pub column: VariantColumn,
    /// Largest first.
    pub descending: bool,
}

/// What the user asked for in the detail view.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DetailOutput {
    /// Star or unstar the product.
    pub toggle_watch: bool,
    /// Add the product to the weekly-orders comparison.
    pub compare: bool,
}

/// The detail of one product. `tier` is the key's tier when known; `image` draws the product
/// image from its URL.
pub fn detail_ui(
    ui: &mut egui::Ui,
    product: &Product,
    tier: Option<Tier>,
    is_watched: bool,
    sort: &mut VariantSort,
    image: &dyn Fn(&mut egui::Ui, &str),
) -> DetailOutput {
    let mut output = DetailOutput::default();
    ui.horizontal(|ui| {
        ui.heading(&product.title);
        let star = if is_watched {
            "★ Watching"
        } else {
            "☆ Watch"
        };
        output.toggle_watch = ui
            .selectable_label(is_watched, star)
            .on_hover_text("Keep this product in the watchlist, with its price")
            .clicked();
        output.compare = ui
            .button("Compare orders")
            .on_hover_text("Add to the weekly-orders chart")
            .clicked();
    });
    ui.horizontal_top(|ui| {
        image(ui, &product.image);
        facts_ui(ui, product);
    });
    ui.add_space(8.0);

    ui.strong("Release dates and retail prices");
    match (&product.release_dates, &product.retail_prices) {
        (Some(dates), Some(prices)) => {
            for date in dates {
                ui.label(format!("Released {}", date.release_date))
                    .on_hover_text(format!("source: {}", date.source));
            }
            for price in prices {
                let source = match price.source.as_str() {
                    "srp" => "suggested retail price",
                    "extracting" => "read from a listing",
                    other => other,
                };
                ui.label(format!(
                    "Retail {} ({source})",
                    format::money(price.price, &price.currency)
                ));
            }
            if dates.is_empty() && prices.is_empty() {
                ui.weak("None known.");
            }
        }
        // The service leaves both out for keys below pro.
        _ => lock_ui(
            ui,
            "Release dates and retail prices",
            Feature::ReleaseAndRetail.minimum_tier(),
            tier,
        ),
    }
    ui.add_space(8.0);

    if !product.links.is_empty() {
        ui.strong("Links");
        for link in &product.links {
            ui.horizontal(|ui| {
                // A remote server's link opens in the browser only if it is plain http(s).
                match openable_url(&link.link) {
                    Some(url) => {
                        ui.hyperlink_to(format!("{} ↗", link.target), url.as_str());
                    }
                    None => {
                        ui.label(&link.target);
                    }
                }
                ui.weak(price_range(
                    link.min_price,
                    link.min_price,
                    &product.currency,
                ));
            });
        }
        ui.add_space(8.0);
    }

    ui.strong(format!("Variants ({})", product.variants.len()));
    variants_ui(ui, product, sort);
    ui.add_space(8.0);

    ui.strong("Description");
    let description = text_from_description(&product.description);
    if description.trim().is_empty() {
        ui.weak("No description.");
    } else {
        ui.label(description);
    }
    output
}

fn facts_ui(ui: &mut egui::Ui, product: &Product) {
    egui::Grid::new("product_facts")
        .num_columns(2)
        .spacing([16.0, 4.0])
        .show(ui, |ui| {
            ui.weak("Brand");
            ui.label(&product.brand);
            ui.end_row();
            ui.weak("Colorway");
            ui.label(&product.color);
            ui.end_row();
            ui.weak("Category");
            ui.label(&product.category);
            ui.end_row();
            ui.weak("Gender");
            ui.label(&product.gender);
            ui.end_row();
            ui.weak("Style code");
            ui.horizontal(|ui| {
                ui.monospace(&product.sku);
                if ui
                    .small_button("Copy")
                    .on_hover_text("Copy the style code")
                    .clicked()
                {
                    ui.ctx().copy_text(product.sku.clone());
                }
            });
            ui.end_row();
            ui.weak("Price");
            if product.min_price > 0.0 {
                let currency = product.currency.as_str();
                ui.label(format!(
                    "min {} · avg {} · max {}",
                    format::amount(product.min_price, currency),
                    format::amount(product.avg_price, currency),
                    format::money(product.max_price, currency)
                ));
            } else {
                ui.weak("no price");
            }
            ui.end_row();
        });
}

/// The variants as a table sortable by clicking a column header.
fn variants_ui(ui: &mut egui::Ui, product: &Product, sort: &mut VariantSort) {
    let mut rows: Vec<&crate::model::Variant> = product.variants.iter().collect();
    sort_variants(&mut rows, *sort);
    egui::Grid::new("product_variants")
        .num_columns(3)
        .striped(true)
        .spacing([24.0, 2.0])
        .show(ui, |ui| {
            for (column, name) in [
                (VariantColumn::Size, "Size"),
                (VariantColumn::Price, "Price"),
                (VariantColumn::Gtin, "GTIN"),
            ] {
                let arrow = match (sort.column == column, sort.descending) {
                    (false, _) => "",
                    (true, false) => " ⏶",
                    (true, true) => " ⏷",
                };
                let header = ui
                    .add(
                        egui::Button::new(egui::RichText::new(format!("{name}{arrow}")).weak())
                            .frame(false),
                    )
                    .on_hover_text(format!("Sort by {}", name.to_lowercase()));
                if header.clicked() {
                    if sort.column == column {
                        sort.descending = !sort.descending;
                    } else {
                        *sort = VariantSort {
                            column,
                            descending: false,
                        };
                    }
                }
            }
            ui.end_row();
            for variant in rows {
                ui.label(&variant.size);
                if variant.price > 0.0 {
                    ui.label(price_range(variant.price, variant.price, &variant.currency));
                } else {
                    ui.weak("no price");
                }
                ui.horizontal(|ui| {
                    if variant.gtin.is_empty() {
                        ui.weak("—");
                        return;
                    }
                    ui.monospace(&variant.gtin);
                    if ui
                        .small_button("Copy")
                        .on_hover_text("Copy the GTIN")
                        .clicked()
                    {
                        ui.ctx().copy_text(variant.gtin.clone());
                    }
                });
                ui.end_row();
            }
        });
}

/// Sorts variants by `sort`; sizes compare by number, and sizes or prices that are missing go
/// last whichever the direction.
pub fn sort_variants(rows: &mut [&crate::model::Variant], sort: VariantSort) {
    use std::cmp::Ordering;
    fn last_if_missing(a: Option<f64>, b: Option<f64>, descending: bool) -> Ordering {
        match (a, b) {
            (Some(a), Some(b)) if descending => b.total_cmp(&a),
            (Some(a), Some(b)) => a.total_cmp(&b),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    }
    rows.sort_by(|a, b| match sort.column {
        VariantColumn::Size => {
            last_if_missing(size_number(&a.size), size_number(&b.size), sort.descending)
                .then_with(|| a.size.cmp(&b.size))
        }
        VariantColumn::Price => last_if_missing(
            (a.price > 0.0).then_some(a.price),
            (b.price > 0.0).then_some(b.price),
            sort.descending,
        ),
        VariantColumn::Gtin if sort.descending => b.gtin.cmp(&a.gtin),
        VariantColumn::Gtin => a.gtin.cmp(&b.gtin),
    });
}

/// The number in a size label: `10.5` in `US 10.5`, `7` in `7Y`, `8` in `W 8`.
fn size_number(size: &str) -> Option<f64> {
    let start = size.find(|c: char| c.is_ascii_digit())?;
    let rest = &size[start..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// The description as plain text, read as HTML: a paragraph or other block (`<p>`, `<div>`,
/// `<li>`, headings, ...) is set apart by a blank line, `<br>` is a line break (two of them a
/// blank line), any other tag is dropped so no raw HTML reaches the screen, runs of white space
/// are one space (as a browser shows them) and the common character references are decoded. A
/// description with neither tags nor references is shown as written. By hand: a few lines for the
/// small subset of HTML descriptions use; an HTML parser crate would be a large dependency for it.
#[must_use]
pub fn text_from_description(html: &str) -> String {
    if !html.contains('<') && !html.contains('&') {
        return html.trim().to_owned();
    }
    let mut text = PlainText::default();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        text.push(&rest[..start]);
        let after = &rest[start + 1..];
        let is_tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!');
        let Some(len) = after.find('>').filter(|_| is_tag) else {
            // A `<` that opens no tag is text.
            text.push("<");
            rest = after;
            continue;
        };
        let name: String = after[..len]
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if name == "br" {
            text.line_break();
        } else if BLOCK_TAGS.contains(&name.as_str()) {
            text.gap = text.gap.max(Gap::Paragraph);
        }
        rest = &after[len + 1..];
    }
    text.push(rest);
    text.out
}

/// Tags whose content is a block of its own: set apart from what is around it by a blank line.
const BLOCK_TAGS: &[&str] = &[
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "table",
    "tr",
    "section",
    "article",
    "header",
    "footer",
    "pre",
    "hr",
    "dl",
    "dt",
    "dd",
];

/// What separates the text written so far from the next word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
enum Gap {
    #[default]
    None,
    Space,
    Line,
    Paragraph,
}

/// Plain text being written from HTML: white space and breaks are held until the next word, so
/// none is left at the start or the end.
#[derive(Default)]
struct PlainText {
    out: String,
    gap: Gap,
}

impl PlainText {
    /// Text between tags, its character references decoded.
    fn push(&mut self, html: &str) {
        for c in decode_references(html).chars() {
            if c.is_whitespace() && c != '\u{a0}' {
                self.gap = self.gap.max(Gap::Space);
                continue;
            }
            if !self.out.is_empty() {
                self.out.push_str(match self.gap {
                    Gap::None => "",
                    Gap::Space => " ",
                    Gap::Line => "\n",
                    Gap::Paragraph => "\n\n",
                });
            }
            self.gap = Gap::None;
            self.out.push(if c == '\u{a0}' { ' ' } else { c });
        }
    }

    /// `<br>`: a line break; a second one in a row, a blank line.
    fn line_break(&mut self) {
        self.gap = if self.gap == Gap::Line {
            Gap::Paragraph
        } else {
            self.gap.max(Gap::Line)
        };
    }
}

/// `text` with the character references descriptions use decoded (`&amp;`, `&nbsp;`, `&#39;`,
/// `&#x2019;`, ...); any other `&` is kept as written.
fn decode_references(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('&') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let decoded = after.find(';').filter(|&end| end <= 10).and_then(|end| {
            let name = &after[..end];
            let c = match name {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                "nbsp" => '\u{a0}',
                _ => {
                    let number = name.strip_prefix('#')?;
                    let code = match number.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => number.parse().ok()?,
                    };
                    char::from_u32(code)?
                }
            };
            Some((c, end))
        });
        if let Some((c, end)) = decoded {
            out.push(c);
            rest = &after[end + 1..];
        } else {
            out.push('&');
            rest = after;
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(size: &str, price: f64, gtin: &str) -> crate::model::Variant {
        let mut variant = crate::model::Variant::for_test(size, price);
        gtin.clone_into(&mut variant.gtin);
        variant
    }

    #[test]
    fn variants_sort_by_size_number_and_price_with_missing_prices_last() {
        let variants = [
            variant("10.5", 0.0, "3"),
            variant("4", 150.0, "1"),
            variant("US 9", 210.0, "2"),
            variant("one size", 99.0, "0"),
        ];
        let mut rows: Vec<_> = variants.iter().collect();
        sort_variants(&mut rows, VariantSort::default());
        let sizes: Vec<_> = rows.iter().map(|v| v.size.as_str()).collect();
        assert_eq!(sizes, ["4", "US 9", "10.5", "one size"]);
        sort_variants(
            &mut rows,
            VariantSort {
                column: VariantColumn::Price,
                descending: true,
            },
        );
        let sizes: Vec<_> = rows.iter().map(|v| v.size.as_str()).collect();
        assert_eq!(sizes, ["US 9", "4", "one size", "10.5"]);
        sort_variants(
            &mut rows,
            VariantSort {
                column: VariantColumn::Gtin,
                descending: false,
            },
        );
        assert_eq!(rows[0].gtin, "0");
    }

    #[test]
    fn br_tags_become_line_breaks_and_other_tags_go() {
        assert_eq!(
            text_from_description("One<br>two<BR/>three<br />four <b>bold</b> 1 < 2"),
            "One\ntwo\nthree\nfour bold 1 < 2"
        );
        assert_eq!(text_from_description("A.<br><br>B."), "A.\n\nB.");
    }

    #[test]
    fn paragraphs_stay_apart_and_references_are_decoded() {
        assert_eq!(
            text_from_description(
                "<p>The Dunk in a Panda colorway.</p>\n<p>Style code <b>DD1391-100</b>.</p>"
            ),
            "The Dunk in a Panda colorway.\n\nStyle code DD1391-100."
        );
        assert_eq!(
            text_from_description(
                "<div>Tom &amp; Jerry&#39;s &#x2019;99&nbsp;pair</div><ul><li>one</li><li>two</li></ul>"
            ),
            "Tom & Jerry's \u{2019}99 pair\n\none\n\ntwo"
        );
        // Source line breaks inside a paragraph are spaces, as a browser shows them.
        assert_eq!(text_from_description("<p>a\n  b</p>"), "a b");
        // Plain text keeps its own line breaks; a stray `&` stays.
        assert_eq!(text_from_description("a\nb"), "a\nb");
        assert_eq!(
            text_from_description("<p>R&D &unknown; x</p>"),
            "R&D &unknown; x"
        );
    }
}
