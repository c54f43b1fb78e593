//! The tests' mock Shopify storefront (`tests/common/mock_storefront.rs`) as a process, so the
//! real window can be shown reading stores without the internet: it sells one sneaker under
//! `--handle` (use a catalogue slug, which the window looks stores up by) in the sizes given,
//! size US 9 sold out, until Ctrl-C.
//!
//! ```sh
//! cargo run --example mock_storefront -- --port 8081 --handle SLUG --price-cents 11000
//! cargo run -- --retailer-store http://127.0.0.1:8081
//! ```

#[path = "../tests/common/mock_storefront.rs"]
mod mock_storefront;

use clap::Parser;

/// A mock Shopify storefront on 127.0.0.1.
#[derive(Debug, Parser)]
struct Args {
    /// Port to listen on (0: any free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The product's handle (a catalogue slug).
    #[arg(long)]
    handle: String,
    /// The product's title.
    #[arg(long, default_value = "Nike Dunk Low Retro 'Panda'")]
    title: String,
    /// Currency code.
    #[arg(long, default_value = "USD")]
    currency: String,
    /// Decimal places of the currency.
    #[arg(long, default_value_t = 2)]
    exponent: u32,
    /// Price in minor units.
    #[arg(long, default_value_t = 11_000)]
    price_cents: i64,
    /// US sizes, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [7.0, 8.0, 9.0, 10.0, 11.0, 12.0])]
    sizes: Vec<f64>,
    /// Product id (variant ids derive from it).
    #[arg(long, default_value_t = 7_572_035_502_241)]
    product_id: u64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let product = mock_storefront::sneaker(
        &args.handle,
        args.product_id,
        &args.title,
        &args.currency,
        args.exponent,
        args.price_cents,
        &args.sizes,
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
    let store = mock_storefront::MockStorefront::serve(listener, vec![product]);
    println!("Mock storefront on {}", store.base_url);
    tokio::signal::ctrl_c().await?;
    Ok(())
}
