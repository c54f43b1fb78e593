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
//! Used by the integration tests and by `examples/mock_storefront.rs` (a process for the window).
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Router;
use axum::body::Body;
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

/// One request the mock received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Path.
    pub path: String,
    /// When.
    pub at: Instant,
    /// `User-Agent`, if sent.
    pub user_agent: Option<String>,
}

#[derive(Debug)]
struct MockState {
    products: HashMap<String, MockProduct>,
    mode: Mode,
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

    /// Serves `products` on `listener`.
    pub fn serve(listener: tokio::net::TcpListener, products: Vec<MockProduct>) -> Self {
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(MockState {
            products: products
                .into_iter()
                .map(|p| (p.handle.clone(), p))
                .collect(),
            mode: Mode::Normal,
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
    let path = request.uri().path().to_owned();
    let user_agent = request
        .headers()
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut state = state.lock().unwrap();
    state.seen.push(Seen {
        path: path.clone(),
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
