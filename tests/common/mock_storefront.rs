//! A mock Shopify storefront on a real socket (axum on 127.0.0.1), written from the field lists
//! of `shared/research/shopify-storefront.md` (section 1): `GET /products/{handle}.json` (prices as
//! decimal strings at the currency's exponent with `price_currency`, barcodes, no `available`)
//! and `GET /products/{handle}.js` (money as integers ×100 in any currency, `available` per
//! variant, no currency code).
//!
//! Switchable failure modes (section 3): a password page (401, or 200 HTML), a 429 with
//! `Retry-After`, a 503 burst throttle, an HTML bot-check page, a redirect to another host. Stock
//! can be changed while it runs (a sold-out size that comes back). Every request is recorded
//! (path, time, `User-Agent`).
//!
//! The whole catalogue as restock monitors read it: `GET /products.json?limit=&page=`
//! (250 a page at most, `limit` clamped, 30 without it, `page` from 1; per variant `available`
//! and a price string, **no barcode and no currency**; tags as an array) and `GET /meta.json`
//! (the shop's `currency` and `published_products_count`). A store can hold synthetic products
//! made on the fly (a 100,000-product store costs nothing until a page is asked). Feed faults
//! ([`Feed`]): 403, 404, an empty feed, paging ignored (every page is page 1), a malformed page, a
//! huge page (streamed, no `Content-Length`), a slow page, a 429 with `Retry-After` once.
//! [`sneaker_store`] is a realistic store whose handles are its own, not the catalogue's slugs.
//!
//! Used by the integration tests and by `examples/mock_storefront.rs` (a process for the window).
#![allow(dead_code)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// One size (or colour and size) of a mock product.
#[derive(Debug, Clone)]
pub struct MockVariant {
    /// Variant id.
    pub id: u64,
    /// `option1` to `option3`.
    pub options: [Option<String>; 3],
    /// Price in minor units of the product's currency (cents; yen; fils).
    pub price_minor: i64,
    /// SKU.
    pub sku: String,
    /// Barcode, absent for some variants.
    pub barcode: Option<String>,
    /// In stock.
    pub available: bool,
    /// Last change, ISO 8601 with the shop's offset.
    pub updated_at: String,
}

/// A mock product.
#[derive(Debug, Clone)]
pub struct MockProduct {
    /// Product id.
    pub id: u64,
    /// Handle.
    pub handle: String,
    /// Title.
    pub title: String,
    /// Vendor (the brand).
    pub vendor: String,
    /// Product type.
    pub product_type: String,
    /// Description HTML.
    pub body_html: String,
    /// Publication time.
    pub published_at: String,
    /// Last change.
    pub updated_at: String,
    /// Option names and values, by position.
    pub options: Vec<(String, Vec<String>)>,
    /// Image URLs as the store writes them (`//cdn…` or absolute).
    pub images: Vec<String>,
    /// ISO 4217 code.
    pub currency: String,
    /// Decimal places of the currency (2 USD, 0 JPY, 3 KWD).
    pub exponent: u32,
    /// Variants.
    pub variants: Vec<MockVariant>,
}

impl MockProduct {
    /// The price as `/products/{handle}.json` writes it: major units at the currency's exponent.
    fn json_price(&self, minor: i64) -> String {
        if self.exponent == 0 {
            return minor.to_string();
        }
        let scale = 10_i64.pow(self.exponent);
        format!(
            "{}.{:0width$}",
            minor / scale,
            minor % scale,
            width = self.exponent as usize
        )
    }

    /// The price as `/products/{handle}.js` writes it: major units ×100, whatever the currency.
    fn js_price(&self, minor: i64) -> i64 {
        minor * 100 / 10_i64.pow(self.exponent)
    }

    fn variant_title(variant: &MockVariant) -> String {
        let parts: Vec<&str> = variant
            .options
            .iter()
            .flatten()
            .map(String::as_str)
            .collect();
        if parts.is_empty() {
            "Default Title".into()
        } else {
            parts.join(" / ")
        }
    }

    /// `/products/{handle}.json`.
    pub fn json(&self) -> Value {
        let variants: Vec<Value> = self
            .variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                json!({
                    "id": v.id, "product_id": self.id, "title": Self::variant_title(v),
                    "price": self.json_price(v.price_minor), "sku": v.sku, "position": i + 1,
                    "compare_at_price": null, "fulfillment_service": "manual",
                    "inventory_management": "shopify",
                    "option1": v.options[0], "option2": v.options[1], "option3": v.options[2],
                    "created_at": "2026-01-05T10:00:00-05:00", "updated_at": v.updated_at,
                    "taxable": true, "barcode": v.barcode, "grams": 1200, "image_id": null,
                    "weight": 1.2, "weight_unit": "kg", "requires_shipping": true,
                    "quantity_rule": {"min": 1, "max": null, "increment": 1},
                    "price_currency": self.currency, "compare_at_price_currency": "",
                    "quantity_price_breaks": []
                })
            })
            .collect();
        let options: Vec<Value> = self
            .options
            .iter()
            .enumerate()
            .map(|(i, (name, values))| {
                json!({"id": 9_000 + i, "product_id": self.id, "name": name,
                       "position": i + 1, "values": values})
            })
            .collect();
        let images: Vec<Value> = self
            .images
            .iter()
            .enumerate()
            .map(|(i, src)| {
                json!({"id": 7_000 + i, "product_id": self.id, "position": i + 1,
                       "created_at": self.published_at, "updated_at": self.updated_at,
                       "alt": null, "width": 1600, "height": 1200, "src": src, "variant_ids": []})
            })
            .collect();
        json!({"product": {
            "id": self.id, "title": self.title, "body_html": self.body_html,
            "vendor": self.vendor, "product_type": self.product_type,
            "created_at": "2026-01-05T10:00:00-05:00", "handle": self.handle,
            "updated_at": self.updated_at, "published_at": self.published_at,
            "template_suffix": "", "published_scope": "global",
            "tags": "Sneakers, Footwear", "variants": variants, "options": options,
            "images": images, "image": images.first()
        }})
    }

    /// The product as `/products.json` lists it: tags an array, per variant `available` and a
    /// price string, no barcode, no currency.
    pub fn feed_json(&self) -> Value {
        let variants: Vec<Value> = self
            .variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                json!({
                    "id": v.id, "title": Self::variant_title(v),
                    "option1": v.options[0], "option2": v.options[1], "option3": v.options[2],
                    "sku": v.sku, "requires_shipping": true, "taxable": true,
                    "featured_image": null, "available": v.available,
                    "price": self.json_price(v.price_minor), "grams": 1200,
                    "compare_at_price": null, "position": i + 1, "product_id": self.id,
                    "created_at": "2026-01-05T10:00:00-05:00", "updated_at": v.updated_at
                })
            })
            .collect();
        let images: Vec<Value> = self
            .images
            .iter()
            .enumerate()
            .map(|(i, src)| {
                json!({"id": 7_000 + i, "created_at": self.published_at, "position": i + 1,
                       "updated_at": self.updated_at, "product_id": self.id, "variant_ids": [],
                       "src": src, "width": 1600, "height": 1200})
            })
            .collect();
        json!({
            "id": self.id, "title": self.title, "handle": self.handle,
            "body_html": self.body_html, "published_at": self.published_at,
            "created_at": "2026-01-05T10:00:00-05:00", "updated_at": self.updated_at,
            "vendor": self.vendor, "product_type": self.product_type,
            "tags": if self.product_type == "Sneakers" { vec!["Sneakers", "Footwear"] } else { vec![self.product_type.as_str()] },
            "variants": variants, "images": images,
            "options": self.options.iter().enumerate().map(|(i, (name, values))| {
                json!({"name": name, "position": i + 1, "values": values})
            }).collect::<Vec<_>>()
        })
    }

    /// `/products/{handle}.js`.
    pub fn js(&self) -> Value {
        let prices: Vec<i64> = self
            .variants
            .iter()
            .map(|v| self.js_price(v.price_minor))
            .collect();
        let variants: Vec<Value> = self
            .variants
            .iter()
            .map(|v| {
                let options: Vec<&String> = v.options.iter().flatten().collect();
                json!({
                    "id": v.id, "title": Self::variant_title(v),
                    "option1": v.options[0], "option2": v.options[1], "option3": v.options[2],
                    "sku": v.sku, "requires_shipping": true, "taxable": true,
                    "featured_image": null, "available": v.available,
                    "name": format!("{} - {}", self.title, Self::variant_title(v)),
                    "public_title": Self::variant_title(v), "options": options,
                    "price": self.js_price(v.price_minor), "weight": 1200,
                    "compare_at_price": null, "inventory_management": "shopify",
                    "barcode": v.barcode.clone().unwrap_or_default(),
                    "featured_media": null, "requires_selling_plan": false,
                    "selling_plan_allocations": [],
                    "quantity_rule": {"min": 1, "max": null, "increment": 1}
                })
            })
            .collect();
        json!({
            "id": self.id, "title": self.title, "handle": self.handle,
            "description": self.body_html, "published_at": self.published_at,
            "created_at": "2026-01-05T10:00:00-05:00", "vendor": self.vendor,
            "type": self.product_type, "tags": ["Sneakers", "Footwear"],
            "price": prices.iter().min(), "price_min": prices.iter().min(),
            "price_max": prices.iter().max(),
            "available": self.variants.iter().any(|v| v.available),
            "price_varies": prices.iter().min() != prices.iter().max(),
            "compare_at_price": null, "compare_at_price_min": 0, "compare_at_price_max": 0,
            "compare_at_price_varies": false, "variants": variants,
            "images": self.images, "featured_image": self.images.first(),
            "options": self.options.iter().enumerate().map(|(i, (name, values))| {
                json!({"name": name, "position": i + 1, "values": values})
            }).collect::<Vec<_>>(),
            "url": format!("/products/{}", self.handle), "media": [],
            "requires_selling_plan": false, "selling_plan_groups": []
        })
    }
}

/// A sneaker as a sneaker shop lists it: option 1 the colour, option 2 the size, each size
/// label in several systems (`US 9 / UK 8 / EU 42.5`). Of the sizes, the first has a 12-digit
/// barcode (UPC), the second a 13-digit one (EAN-13) and is sold out, the third has no barcode;
/// the rest have UPCs. SKUs are the style code plus the US size.
pub fn sneaker(
    handle: &str,
    id: u64,
    title: &str,
    currency: &str,
    exponent: u32,
    price_minor: i64,
    us_sizes: &[f64],
) -> MockProduct {
    let label = |us: f64| format!("US {us} / UK {} / EU {}", us - 1.0, eu_size(us));
    let variants = us_sizes
        .iter()
        .enumerate()
        .map(|(i, us)| MockVariant {
            id: id * 10 + i as u64 + 1,
            options: [Some("White/Black".into()), Some(label(*us)), None],
            price_minor,
            sku: format!("DD1391-100-{us}"),
            barcode: match i {
                1 => Some(format!("40667481234{i:02}")),
                2 => None,
                _ => Some(format!("1961538798{i:02}")),
            },
            available: i != 1,
            updated_at: if i == 0 {
                "2026-10-07T08:15:30.250-04:00".into()
            } else {
                "2026-10-05T12:00:00-07:00".into()
            },
        })
        .collect();
    MockProduct {
        id,
        handle: handle.into(),
        title: title.into(),
        vendor: "Nike".into(),
        product_type: "Sneakers".into(),
        body_html: "<p>The <strong>Panda</strong> is back.</p>".into(),
        published_at: "2026-03-10T21:30:00-07:00".into(),
        updated_at: "2026-10-06T11:00:20-07:00".into(),
        options: vec![
            ("Color".into(), vec!["White/Black".into()]),
            (
                "Size".into(),
                us_sizes.iter().map(|us| label(*us)).collect(),
            ),
        ],
        images: vec![
            format!("//cdn.shopify.com/s/files/1/0626/products/{handle}-1.jpg"),
            format!("https://cdn.shopify.com/s/files/1/0626/products/{handle}-2.jpg"),
        ],
        currency: currency.into(),
        exponent,
        variants,
    }
}

fn eu_size(us: f64) -> String {
    format!("{}", ((us + 33.0) * 2.0).round() / 2.0)
}

/// A Japanese store: JPY (no minor unit), one option, the size in centimetres and US.
pub fn jpy_sneaker(handle: &str, id: u64) -> MockProduct {
    let sizes = ["26.5cm / US 8.5", "27cm / US 9"];
    MockProduct {
        options: vec![(
            "サイズ Size".into(),
            sizes.iter().map(|s| (*s).into()).collect(),
        )],
        variants: sizes
            .iter()
            .enumerate()
            .map(|(i, size)| MockVariant {
                id: id * 10 + i as u64 + 1,
                options: [Some((*size).into()), None, None],
                price_minor: 16_500,
                sku: String::new(),
                barcode: Some("4589212345678".into()),
                available: true,
                updated_at: "2026-10-06T09:00:00+09:00".into(),
            })
            .collect(),
        ..sneaker(handle, id, "Dunk Low Retro", "JPY", 0, 16_500, &[])
    }
}

/// A Kuwaiti store: KWD, three decimals (55.750).
pub fn kwd_sneaker(handle: &str, id: u64) -> MockProduct {
    sneaker(handle, id, "Dunk Low Retro", "KWD", 3, 55_750, &[9.0, 10.0])
}

/// How the store answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Products as JSON.
    Normal,
    /// 401 with the password page.
    Password,
    /// 200 with the password page (HTML).
    PasswordPage,
    /// 429 with `Retry-After: secs`.
    RateLimited(u64),
    /// 503, no `Retry-After`.
    Throttled,
    /// 200 with an HTML bot-check page.
    BotCheck,
    /// 302 to this URL (another host).
    RedirectTo(String),
    /// 500.
    ServerError,
}

/// How the store answers `/products.json` (the rest answers as [`Mode`] says).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Feed {
    /// Pages of products.
    Normal,
    /// 403 on the feed (the per-product endpoints still answer).
    Forbidden,
    /// 404 on the feed.
    NotFound,
    /// `{"products": []}` on every page.
    Empty,
    /// Every page is page 1 (a store that ignores `page`).
    IgnoresPaging,
    /// This page is not the feed's shape.
    Malformed(u32),
    /// This page is 12 MiB, streamed without `Content-Length`.
    Huge(u32),
    /// This page is answered after this long.
    Slow(u32, Duration),
    /// The first request for this page is a 429 with `Retry-After`.
    RateLimitOnce {
        /// The page.
        page: u32,
        /// `Retry-After`, seconds.
        retry_after_secs: u64,
    },
}

/// One request the mock received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Path.
    pub path: String,
    /// Query string ("" when none).
    pub query: String,
    /// When.
    pub at: Instant,
    /// `User-Agent`, if sent.
    pub user_agent: Option<String>,
}

#[derive(Debug)]
struct MockState {
    products: HashMap<String, MockProduct>,
    /// Handles in the feed's order.
    order: Vec<String>,
    /// Synthetic products after the listed ones, made when a page asks for them.
    synthetic: u64,
    mode: Mode,
    feed: Feed,
    /// Whether `/meta.json` answers (else 404).
    meta: bool,
    /// The shop's currency in `/meta.json`.
    currency: String,
    /// The 429 of `Feed::RateLimitOnce` was sent.
    rate_limited_once: bool,
    seen: Vec<Seen>,
}

/// A running mock store.
pub struct MockStorefront {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    state: Arc<Mutex<MockState>>,
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

impl MockStorefront {
    /// Starts a store selling `products` on `127.0.0.1:0` (the current runtime).
    pub async fn start(products: Vec<MockProduct>) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        Self::serve(listener, products)
    }

    /// Starts a store selling `listed` and then `synthetic` products made on the fly.
    pub async fn start_with_synthetic(listed: Vec<MockProduct>, synthetic: u64) -> Self {
        let store = Self::start(listed).await;
        store.set_synthetic(synthetic);
        store
    }

    /// Sells `synthetic` products made on the fly after the listed ones.
    pub fn set_synthetic(&self, synthetic: u64) {
        self.state.lock().unwrap().synthetic = synthetic;
    }

    /// Serves `products` on `listener`.
    pub fn serve(listener: tokio::net::TcpListener, products: Vec<MockProduct>) -> Self {
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let order = products.iter().map(|p| p.handle.clone()).collect();
        let state = Arc::new(Mutex::new(MockState {
            products: products
                .into_iter()
                .map(|p| (p.handle.clone(), p))
                .collect(),
            order,
            synthetic: 0,
            mode: Mode::Normal,
            feed: Feed::Normal,
            meta: true,
            currency: "USD".into(),
            rate_limited_once: false,
            seen: Vec::new(),
        }));
        let app = Router::new()
            .fallback(answer)
            .with_state(Arc::clone(&state));
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await
                .unwrap();
        });
        Self {
            base_url,
            state,
            _shutdown: tx,
        }
    }

    /// The host and port, as the service names the store.
    pub fn label(&self) -> String {
        self.base_url.trim_start_matches("http://").to_owned()
    }

    /// Switches how it answers.
    pub fn set_mode(&self, mode: Mode) {
        self.state.lock().unwrap().mode = mode;
    }

    /// Sets whether variant `variant_id` of `handle` is in stock.
    pub fn set_available(&self, handle: &str, variant_id: u64, available: bool) {
        let mut state = self.state.lock().unwrap();
        let product = state.products.get_mut(handle).unwrap();
        let variant = product
            .variants
            .iter_mut()
            .find(|v| v.id == variant_id)
            .unwrap();
        variant.available = available;
    }

    /// The requests received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    /// Forgets the requests received so far.
    pub fn clear_seen(&self) {
        self.state.lock().unwrap().seen.clear();
    }

    /// Switches how `/products.json` answers.
    pub fn set_feed(&self, feed: Feed) {
        let mut state = self.state.lock().unwrap();
        state.feed = feed;
        state.rate_limited_once = false;
    }

    /// Whether `/meta.json` answers (else 404).
    pub fn set_meta(&self, meta: bool) {
        self.state.lock().unwrap().meta = meta;
    }

    /// Sets whether `variant_id` of `handle` is in stock, and moves the product's `updated_at`
    /// on, as Shopify does on a change.
    pub fn restock(&self, handle: &str, variant_id: u64, available: bool, updated_at: &str) {
        self.set_available(handle, variant_id, available);
        let mut state = self.state.lock().unwrap();
        state.products.get_mut(handle).unwrap().updated_at = updated_at.into();
    }

    /// Publishes `product` (a new handle, last in the feed), as a store does a new release.
    pub fn publish(&self, product: MockProduct) {
        let mut state = self.state.lock().unwrap();
        state.order.push(product.handle.clone());
        state.products.insert(product.handle.clone(), product);
    }

    /// Replaces the whole catalogue with `products`, in that order (a store's next pass as a
    /// recorded day served it).
    pub fn set_products(&self, products: Vec<MockProduct>) {
        let mut state = self.state.lock().unwrap();
        state.order = products.iter().map(|p| p.handle.clone()).collect();
        state.products = products
            .into_iter()
            .map(|p| (p.handle.clone(), p))
            .collect();
    }

    /// Takes `handle` off the store.
    pub fn remove(&self, handle: &str) {
        let mut state = self.state.lock().unwrap();
        state.products.remove(handle);
        state.order.retain(|h| h != handle);
    }

    /// The requests for `/products.json`.
    pub fn feed_requests(&self) -> Vec<Seen> {
        self.seen()
            .into_iter()
            .filter(|s| s.path == "/products.json")
            .collect()
    }
}

/// A product of a synthetic store, made from its place in the feed (from 0): a sneaker with a
/// style code no real catalogue holds (`ZZ` and the number) in its SKUs, six sizes.
pub fn synthetic_product(index: u64) -> MockProduct {
    let id = 8_000_000_000_000 + index;
    let mut product = sneaker(
        &format!("synthetic-runner-{index}"),
        id,
        &format!("Synthetic Runner {index}"),
        "USD",
        2,
        9_000 + i64::try_from(index % 100).unwrap() * 100,
        &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0],
    );
    for (i, variant) in product.variants.iter_mut().enumerate() {
        variant.sku = format!("ZZ{index:07}-{}", 7 + i);
        variant.barcode = None;
    }
    product.vendor = "Synthetic".into();
    product
}

/// A sneaker of a real catalogue release as a store lists it: its own `handle` and `title`,
/// `skus` per size (`None`: no SKU), `barcodes` per size (`/products/{handle}.json` only).
pub fn listed_shoe(
    handle: &str,
    id: u64,
    title: &str,
    vendor: &str,
    skus: &[Option<String>],
    barcodes: &[Option<String>],
) -> MockProduct {
    let sizes: Vec<f64> = (0..skus.len()).map(|i| 7.0 + i as f64).collect();
    let mut product = sneaker(handle, id, title, "USD", 2, 11_000, &sizes);
    product.vendor = vendor.into();
    for (i, variant) in product.variants.iter_mut().enumerate() {
        variant.sku = skus[i].clone().unwrap_or_default();
        variant.barcode = barcodes.get(i).cloned().flatten();
        variant.available = i % 3 != 1;
    }
    product
}

/// A realistic sneaker shop of 319 products (two pages of 250), none of whose handles
/// is a catalogue slug:
///
/// - the Dunk Low 'Panda' `DD1391-100`, SKUs with a zero-padded size after the code
///   (`DD1391-100-070`);
/// - the Samba OG `B75806`, the code in its title only (no SKUs);
/// - the Chicago 'Lost and Found' `DZ5485-612`, no code anywhere: only its barcodes (the
///   catalogue's GTINs, `lost_and_found_gtins`, in `/products/{handle}.json` only) say what it is;
/// - the Dunk Low 'Michigan State' `DD1391-101`, lower-case SKUs with a space and a half size;
/// - the New Balance 1906R 'White Gold' `M1906RA`, the code in its handle only;
/// - the Air Jordan 4 'Military Blue' `FV5029-141`, written `FV5029 141` in its title only;
/// - a decoy: "Nike Dunk Low Retro 'Panda'" with the Next Nature Panda's code `DD1873-102`, which
///   the catalogue does not hold;
/// - 300 T-shirts and socks with the store's own SKUs, and 12 sneakers the catalogue does not
///   hold (Vans style codes).
pub fn sneaker_store(lost_and_found_gtins: &[String]) -> Vec<MockProduct> {
    let sized = |code: &str, sizes: usize| -> Vec<Option<String>> {
        (0..sizes)
            .map(|i| Some(format!("{code}-{:03}", (7 + i) * 10)))
            .collect()
    };
    let mut products = vec![
        listed_shoe(
            "nike-dunk-low-retro-white-black-panda",
            9_100_000_000_001,
            "Nike Dunk Low Retro White/Black",
            "Nike",
            &sized("DD1391-100", 6),
            &[],
        ),
        listed_shoe(
            "samba-og-shoes-cloud-white",
            9_100_000_000_002,
            "adidas Samba OG Shoes Cloud White / Core Black B75806",
            "adidas Originals",
            &[None, None, None, None],
            &[],
        ),
        listed_shoe(
            "aj1-high-og-lost-found",
            9_100_000_000_003,
            "Air Jordan 1 Retro High OG 'Lost & Found'",
            "Jordan",
            &vec![None; lost_and_found_gtins.len().max(1)],
            &lost_and_found_gtins
                .iter()
                .cloned()
                .map(Some)
                .collect::<Vec<_>>(),
        ),
        listed_shoe(
            "dunk-low-michigan-state",
            9_100_000_000_004,
            "Nike Dunk Low Varsity Maize / Midnight Navy",
            "Nike",
            &[Some("dd1391 101 8.5".into()), Some("dd1391 101 9".into())],
            &[],
        ),
        listed_shoe(
            "nb-1906r-white-gold-m1906ra",
            9_100_000_000_005,
            "New Balance 1906R White Gold",
            "New Balance",
            &[None, None, None],
            &[],
        ),
        listed_shoe(
            "air-jordan-4-retro-military-blue",
            9_100_000_000_007,
            "Air Jordan 4 Retro Military Blue FV5029 141",
            "Jordan",
            &[None, None],
            &[],
        ),
        listed_shoe(
            "nike-dunk-low-retro-panda",
            9_100_000_000_006,
            "Nike Dunk Low Retro 'Panda'",
            "Nike",
            &sized("DD1873-102", 5),
            &[],
        ),
    ];
    for i in 0..300_u64 {
        let kind = if i % 2 == 0 { "Tee" } else { "Crew Socks" };
        let mut item = listed_shoe(
            &format!(
                "essential-{}-{i}",
                kind.to_ascii_lowercase().replace(' ', "-")
            ),
            9_100_000_001_000 + i,
            &format!("Essential {kind} {i}"),
            "Shop Brand",
            &[Some(format!("TEE-{i:03}-S")), Some(format!("TEE-{i:03}-M"))],
            &[],
        );
        item.product_type = "Apparel".into();
        products.push(item);
    }
    for i in 0..12_u64 {
        products.push(listed_shoe(
            &format!("vans-old-skool-{i}"),
            9_100_000_002_000 + i,
            &format!("Vans Old Skool Colorway {i}"),
            "Vans",
            &[Some(format!("VN0A5KRF{i:03}-9"))],
            &[],
        ));
    }
    products
}

const PASSWORD_PAGE: &str = r#"<!doctype html><html><head><title>Opening soon</title></head><body>
<form method="post" action="/password" id="login_form" accept-charset="UTF-8">
<input type="password" name="password" id="password"><button type="submit">Enter</button></form>
</body></html>"#;

const BOT_PAGE: &str = r#"<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"></head><body><div id="challenge-running">Checking if the
site connection is secure</div><noscript>Enable JavaScript and cookies to continue</noscript>
</body></html>"#;

fn html(status: StatusCode, page: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        page,
    )
        .into_response()
}

async fn answer(State(state): State<Arc<Mutex<MockState>>>, request: Request) -> Response {
    let delay = std::cell::Cell::new(None);
    let response = respond(&state, &request, &delay);
    if let Some(delay) = delay.get() {
        tokio::time::sleep(delay).await;
    }
    response
}

/// The answer to `request`, and in `delay` how long to hold it back.
fn respond(
    state: &Mutex<MockState>,
    request: &Request,
    delay: &std::cell::Cell<Option<Duration>>,
) -> Response {
    let path = request.uri().path().to_owned();
    let query = request.uri().query().unwrap_or_default().to_owned();
    let user_agent = request
        .headers()
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut state = state.lock().unwrap();
    state.seen.push(Seen {
        path: path.clone(),
        query: query.clone(),
        at: Instant::now(),
        user_agent,
    });
    match &state.mode {
        Mode::Normal => {}
        Mode::Password => return html(StatusCode::UNAUTHORIZED, PASSWORD_PAGE),
        Mode::PasswordPage => return html(StatusCode::OK, PASSWORD_PAGE),
        Mode::BotCheck => return html(StatusCode::OK, BOT_PAGE),
        Mode::ServerError => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        Mode::Throttled => return StatusCode::SERVICE_UNAVAILABLE.into_response(),
        Mode::RateLimited(secs) => {
            let mut response = StatusCode::TOO_MANY_REQUESTS.into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(*secs));
            return response;
        }
        Mode::RedirectTo(url) => {
            return Response::builder()
                .status(StatusCode::FOUND)
                .header(header::LOCATION, url.as_str())
                .body(Body::empty())
                .unwrap();
        }
    }
    if path == "/products.json" {
        let (response, wait) = feed_page(&mut state, &query);
        delay.set(wait);
        return response;
    }
    if path == "/meta.json" {
        if !state.meta {
            return html(
                StatusCode::NOT_FOUND,
                "<html><body>404 Not Found</body></html>",
            );
        }
        let count = state.order.len() as u64 + state.synthetic;
        let body = json!({
            "id": 55_000_001, "name": "Mock Sneaker Shop", "city": "Portland",
            "province": "Oregon", "country": "US", "currency": state.currency,
            "domain": "mock.example", "url": "https://mock.example",
            "myshopify_domain": "mock-sneakers.myshopify.com", "description": "",
            "ships_to_countries": ["US"], "money_format": "${{amount}}",
            "published_collections_count": 4, "published_products_count": count
        });
        return (
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            body.to_string(),
        )
            .into_response();
    }
    let Some(file) = path.strip_prefix("/products/") else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let (handle, body) = if let Some(handle) = file.strip_suffix(".json") {
        (handle, state.products.get(handle).map(MockProduct::json))
    } else if let Some(handle) = file.strip_suffix(".js") {
        (handle, state.products.get(handle).map(MockProduct::js))
    } else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let _ = handle;
    match body {
        Some(body) => (
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            body.to_string(),
        )
            .into_response(),
        None => html(
            StatusCode::NOT_FOUND,
            "<html><body>404 Not Found</body></html>",
        ),
    }
}

/// `/products.json?limit=&page=` as the current [`Feed`] says, and how long to wait before it.
fn feed_page(state: &mut MockState, query: &str) -> (Response, Option<Duration>) {
    let mut limit = 30_u64;
    let mut page = 1_u64;
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("limit", value)) => limit = value.parse().unwrap_or(30),
            Some(("page", value)) => page = value.parse().unwrap_or(1),
            _ => {}
        }
    }
    let limit = limit.clamp(1, 250);
    let page = page.max(1);
    let this_page = |n: u32| page == u64::from(n);
    match state.feed.clone() {
        Feed::Forbidden => {
            return (
                html(StatusCode::FORBIDDEN, "<html><body>Forbidden</body></html>"),
                None,
            );
        }
        Feed::NotFound => {
            return (
                html(
                    StatusCode::NOT_FOUND,
                    "<html><body>404 Not Found</body></html>",
                ),
                None,
            );
        }
        Feed::Empty => return (json_response(json!({"products": []}).to_string()), None),
        Feed::Malformed(n) if this_page(n) => {
            return (
                json_response(r#"{"products": {"oops": "this is not a list"}}"#.into()),
                None,
            );
        }
        Feed::Huge(n) if this_page(n) => return (huge_page(12), None),
        Feed::RateLimitOnce {
            page: n,
            retry_after_secs,
        } if this_page(n) && !state.rate_limited_once => {
            state.rate_limited_once = true;
            let mut response = StatusCode::TOO_MANY_REQUESTS.into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            return (response, None);
        }
        // Other pages of a faulty feed, and the faults applied below.
        Feed::Normal
        | Feed::Slow(..)
        | Feed::IgnoresPaging
        | Feed::Malformed(_)
        | Feed::Huge(_)
        | Feed::RateLimitOnce { .. } => {}
    }
    let page = if state.feed == Feed::IgnoresPaging {
        1
    } else {
        page
    };
    let total = state.order.len() as u64 + state.synthetic;
    let from = (page - 1) * limit;
    let to = (from + limit).min(total);
    let mut items: Vec<String> = Vec::new();
    for index in from..to {
        let product = match state.order.get(index as usize) {
            Some(handle) => state.products[handle].feed_json(),
            None => synthetic_product(index - state.order.len() as u64).feed_json(),
        };
        items.push(product.to_string());
    }
    let body = format!("{{\"products\":[{}]}}", items.join(","));
    let delay = match state.feed {
        Feed::Slow(n, delay) if page == u64::from(n) => Some(delay),
        _ => None,
    };
    (json_response(body), delay)
}

fn json_response(body: String) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        body,
    )
        .into_response()
}

/// A 200 JSON feed page of `megabytes` MiB (one product with a huge description), streamed in
/// 64 KiB chunks without `Content-Length`.
fn huge_page(megabytes: usize) -> Response {
    const CHUNK: usize = 64 << 10;
    const HEAD: &[u8] = br#"{"products":[{"id":1,"handle":"huge","body_html":""#;
    const TAIL: &[u8] = br#""}]}"#;
    let filler = Bytes::from(vec![b'x'; CHUNK]);
    let mut left = megabytes << 20;
    let pieces = std::iter::from_fn(move || {
        let take = left.min(CHUNK);
        left -= take;
        (take > 0).then(|| filler.slice(..take))
    });
    let chunks = std::iter::once(Bytes::from_static(HEAD))
        .chain(pieces)
        .chain(std::iter::once(Bytes::from_static(TAIL)))
        .map(Ok::<_, Infallible>);
    let mut response = Response::new(Body::from_stream(futures_util::stream::iter(chunks)));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A release as a store lists it ahead of its drop: its own `handle` and `title`, SKUs of the
/// style code `code` with the size after it (`FV5029141-085`), published at `published_at` (ISO
/// 8601 with the shop's offset; ahead of now: the store opens it then), three sizes at `price_minor`.
pub fn coming_shoe(
    handle: &str,
    id: u64,
    title: &str,
    vendor: &str,
    code: &str,
    published_at: &str,
    price_minor: i64,
) -> MockProduct {
    let mut product = sneaker(handle, id, title, "USD", 2, price_minor, &[8.5, 9.0, 10.0]);
    product.vendor = vendor.into();
    product.published_at = published_at.into();
    for (i, variant) in product.variants.iter_mut().enumerate() {
        variant.sku = format!("{code}-{:03}", [85, 90, 100][i]);
        variant.barcode = None;
        variant.available = true;
    }
    product
}
