//! The tests' mock Shopify storefront (`tests/common/mock_storefront.rs`) as a process, so the
//! real window can be shown reading stores without the internet: it sells one sneaker under
//! `--handle` (use a catalogue slug, which the window looks stores up by) in the sizes given,
//! size US 9 sold out, until Ctrl-C. With `--sneaker-store` it sells instead a realistic shop
//! of about 320 products (two pages of `/products.json`) whose handles are its own, for the
//! catalogue crawl: the Dunk Low 'Panda', the Samba OG, the Chicago 'Lost and Found'
//! (matched by the barcodes given with `--gtin`), a decoy, apparel; `--synthetic N` adds N
//! generated sneakers after them.
//!
//! ```sh
//! cargo run --example mock_storefront -- --port 8081 --handle SLUG --price-cents 11000
//! cargo run --example mock_storefront -- --port 8082 --sneaker-store --synthetic 1000
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
    #[arg(long, required_unless_present = "sneaker_store")]
    handle: Option<String>,
    /// Sell the realistic sneaker shop of the catalogue-crawl tests instead of one product.
    #[arg(long)]
    sneaker_store: bool,
    /// With `--sneaker-store`: the Chicago 'Lost and Found' sizes' barcodes (repeatable).
    #[arg(long)]
    gtin: Vec<String>,
    /// Generated sneakers after the listed products.
    #[arg(long, default_value_t = 0)]
    synthetic: u64,
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
    let products = match &args.handle {
        Some(handle) if !args.sneaker_store => vec![mock_storefront::sneaker(
            handle,
            args.product_id,
            &args.title,
            &args.currency,
            args.exponent,
            args.price_cents,
            &args.sizes,
        )],
        _ => mock_storefront::sneaker_store(&args.gtin),
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
    let store = mock_storefront::MockStorefront::serve(listener, products);
    store.set_synthetic(args.synthetic);
    println!("Mock storefront on {}", store.base_url);
    tokio::signal::ctrl_c().await?;
    Ok(())
}
