//! What the index makes of one product: its terms in forward-index order, with their field
//! ranks and title positions, and its exact codes. The one definition both the build (products
//! read from the catalogue, module `build`) and the live index (products written while it
//! serves, module `live`) go through, so that a product written live is indexed term for term
//! as a rebuild would index it.

use super::parts::{
    MAX_TITLE_POSITION, META_POSITION_SHIFT, META_TITLE, RANK_BRAND, RANK_COLOR, RANK_DESCRIPTION,
    RANK_TITLE,
};
use super::text::{for_each_untagged, for_each_word};
use crate::catalogue::generate::normalize_sku_into;

/// The fields of a product the index reads (the catalogue's columns of the same names; `NULL`
/// as empty).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ProductText<'a> {
    pub(crate) id: &'a str,
    pub(crate) slug: &'a str,
    pub(crate) sku: &'a str,
    pub(crate) sku_norm: &'a str,
    pub(crate) title: &'a str,
    pub(crate) brand: &'a str,
    pub(crate) model: &'a str,
    pub(crate) category: &'a str,
    pub(crate) color: &'a str,
    pub(crate) gender: &'a str,
    pub(crate) description: &'a str,
}

/// Where a product's terms go, in forward-index order.
pub(crate) trait TermSink {
    /// A title word; `meta` holds its rank, the title flag and its position. Every title word
    /// is given, repeats too.
    fn title_word(&mut self, word: &str, meta: u8);
    /// A term of another field with its rank; the sink skips a term the product has already
    /// (from a better field, or the title).
    fn term(&mut self, word: &str, rank: u8);
    /// The description's terms follow.
    fn description_starts(&mut self);
}

/// Gives every term of `product` to `sink`, in the order the forward index keeps them: title
/// words in order, then the style code's words and its normalized form, brand and model,
/// category, colorway and gender, then the description (between its HTML tags). `buffer` is
/// scratch space reused from product to product.
pub(crate) fn each_term(product: &ProductText<'_>, sink: &mut impl TermSink, buffer: &mut String) {
    let mut position = 0u32;
    for_each_word(product.title, |word| {
        let slot = position.min(u32::from(MAX_TITLE_POSITION)) as u8;
        sink.title_word(
            word,
            RANK_TITLE | META_TITLE | (slot << META_POSITION_SHIFT),
        );
        position += 1;
    });
    for_each_word(product.sku, |word| sink.term(word, RANK_TITLE));
    let normalized = lowercase_into(product.sku_norm, buffer);
    if !normalized.is_empty() {
        sink.term(normalized, RANK_TITLE);
    }
    for text in [product.brand, product.model] {
        for_each_word(text, |word| sink.term(word, RANK_BRAND));
    }
    for text in [product.category, product.color, product.gender] {
        for_each_word(text, |word| sink.term(word, RANK_COLOR));
    }
    sink.description_starts();
    for_each_untagged(product.description, |stretch| {
        for_each_word(stretch, |word| sink.term(word, RANK_DESCRIPTION));
    });
}

/// A product's exact codes as the index keys them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct ProductCodes {
    /// The style code normalized (upper case, letters and digits), when not empty.
    pub(crate) sku: Option<Box<str>>,
    /// The product id, when it is a UUID.
    pub(crate) id: Option<u128>,
    /// The slug in lower case, when not empty.
    pub(crate) slug: Option<Box<str>>,
}

/// The codes of `product` (`buffer` as for [`each_term`]).
pub(crate) fn codes_of(product: &ProductText<'_>, buffer: &mut String) -> ProductCodes {
    buffer.clear();
    normalize_sku_into(product.sku_norm, buffer);
    let sku = (!buffer.is_empty()).then(|| buffer.as_str().into());
    let id = uuid::Uuid::try_parse(product.id)
        .ok()
        .map(|id| id.as_u128());
    let slug = lowercase_into(product.slug, buffer);
    let slug = (!slug.is_empty()).then(|| slug.into());
    ProductCodes { sku, id, slug }
}

/// `text` in ASCII lower case, written over `buffer`.
pub(crate) fn lowercase_into<'b>(text: &str, buffer: &'b mut String) -> &'b str {
    buffer.clear();
    buffer.push_str(text);
    buffer.make_ascii_lowercase();
    buffer
}
