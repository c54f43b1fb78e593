//! The `resale-b` related products: other colourways of the same model (then of the same brand),
//! best-selling first, with live market figures in the requested currency and market.
//!
//! `resale-b` is the marketplace the catalogue comes from, so a node's `id` is the catalogue
//! UUID and its `urlKey` the catalogue slug (the catalogue's links point at `resale-b/<slug>`).

use rusqlite::Connection;

use super::live::{Market, Venue};
use super::markets::Quote;
use super::store::{self, Listing, ProductRow};
use super::text;
use crate::model::{
    Amount, Market as MarketFigures, MarketState, Media, ResaleBNode, SalesInformation,
};

/// How many related products a lookup returns.
pub(super) const RELATED: usize = 8;

/// Finds a product by catalogue UUID or slug (= `urlKey`).
pub(super) fn find(conn: &Connection, key: &str) -> rusqlite::Result<Option<ProductRow>> {
    store::product_by_catalogue_key(conn, key)
}

/// A thumbnail of the catalogue image, sized as the marketplace's image service does it.
fn thumbnail(image: &str) -> String {
    if image.is_empty() {
        return String::new();
    }
    let separator = if image.contains('?') { '&' } else { '?' };
    format!("{image}{separator}fit=fill&bg=FFFFFF&w=140&h=100&auto=format,compress&q=90")
}

/// `listing` as a related-product node at `minute`, quoted per `quote`.
pub(super) fn node(listing: &Listing, seed: u64, minute: i64, quote: &Quote) -> ResaleBNode {
    let product = &listing.product;
    let book = Market::new(seed, listing, Venue::ResaleB, quote).book(minute);
    let (primary_title, secondary_title) = text::split_title(&product.title, &product.color);
    ResaleBNode {
        id: product.id.clone(),
        brand: product.brand.clone(),
        // This marketplace writes titles without the quotes around the nickname.
        title: text::nickname(&product.title).map_or_else(
            || product.title.clone(),
            |_| format!("{primary_title} {secondary_title}"),
        ),
        primary_title,
        secondary_title,
        product_category: "sneakers".to_owned(),
        listing_type: "STANDARD".to_owned(),
        url_key: product.slug.clone(),
        media: Media {
            thumb_url: thumbnail(&product.image),
        },
        market: MarketFigures {
            sales_information: SalesInformation {
                last_sale: book.last_sale as f64,
                sales_last_72_hours: book.sales_last_72_hours,
            },
            state: MarketState {
                highest_bid: Amount {
                    amount: book.highest_bid as f64,
                },
                lowest_ask: Amount {
                    amount: book.lowest_ask as f64,
                },
                number_of_asks: book.number_of_asks,
                number_of_bids: book.number_of_bids,
            },
        },
    }
}

/// The listings of `pks`, in that order.
pub(super) fn listings(conn: &Connection, pks: &[i64]) -> rusqlite::Result<Vec<Listing>> {
    let mut listings = Vec::with_capacity(pks.len());
    for &pk in pks {
        if let Some(product) = store::product_by_pk(conn, pk)? {
            listings.push(store::listing(conn, product)?);
        }
    }
    Ok(listings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thumbnails_add_size_parameters() {
        assert!(
            thumbnail("https://img.example/a.jpg")
                .starts_with("https://img.example/a.jpg?fit=fill")
        );
        assert!(thumbnail("https://img.example/a.jpg?v=2").contains("?v=2&fit=fill"));
        assert_eq!(thumbnail(""), "");
    }
}
