//! The service's generated product placeholders over a real socket: PNGs of the asked width,
//! deterministic, in the product's colours, cacheable, and JSON errors for bad names. (The
//! window's loader that fetches them is tested in `src/app/images.rs`.)

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use reqwest::StatusCode;
use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use serde_json::Value;
use solescope::service::ServerHandle;

const PRODUCTS: u32 = 120;
const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// One catalogue for the whole file: generating is the slow part.
fn catalogue() -> PathBuf {
    static PATH: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = common::catalogue(dir.path(), "images.sqlite", PRODUCTS, 5);
        (dir, path)
    })
    .1
    .clone()
}

async fn start() -> ServerHandle {
    common::start(common::config(&catalogue())).await
}

/// `(slug, color)` of every product.
fn products() -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(catalogue()).unwrap();
    let mut statement = conn
        .prepare("SELECT slug, color FROM products ORDER BY pk")
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The slug of a product whose colorway starts with `main` (`Black/...`).
fn slug_with_main_colour(main: &str) -> String {
    products()
        .into_iter()
        .find(|(_, color)| {
            color
                .split(['/', '-'])
                .next()
                .is_some_and(|first| first.trim() == main)
        })
        .unwrap_or_else(|| panic!("no product in {main} in the test catalogue"))
        .0
}

fn image_path(slug: &str) -> String {
    format!("/images/products/{slug}.png")
}

async fn get(server: &ServerHandle, path: &str) -> reqwest::Response {
    reqwest::Client::new()
        .get(format!("{}{path}", server.base_url()))
        .send()
        .await
        .unwrap()
}

/// A GET expected to be a PNG: its bytes and headers checked, decoded.
async fn png(server: &ServerHandle, path: &str) -> (Vec<u8>, String, image::RgbImage) {
    let answer = get(server, path).await;
    assert_eq!(answer.status(), StatusCode::OK, "{path}");
    assert_eq!(answer.headers()[CONTENT_TYPE], "image/png");
    assert_eq!(answer.headers()[CACHE_CONTROL], "public, max-age=86400");
    let etag = answer.headers()[ETAG].to_str().unwrap().to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    let bytes = answer.bytes().await.unwrap().to_vec();
    assert!(bytes.starts_with(PNG_MAGIC));
    let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
        .unwrap()
        .to_rgb8();
    (bytes, etag, decoded)
}

/// An error answer: the status and the JSON body's `error` code.
async fn json_error(server: &ServerHandle, path: &str) -> (StatusCode, String) {
    let answer = get(server, path).await;
    let status = answer.status();
    assert_eq!(answer.headers()[CONTENT_TYPE], "application/json", "{path}");
    let body: Value = answer.json().await.unwrap();
    let code = body["error"].as_str().unwrap_or_default().to_owned();
    assert!(!code.is_empty(), "{path}: {body}");
    assert!(body["message"].is_string(), "{path}: {body}");
    (status, code)
}

/// Mean brightness of the middle of the picture, where the shoe's upper is.
fn middle_luma(picture: &image::RgbImage) -> f64 {
    let (width, height) = picture.dimensions();
    let mut sum = 0.0;
    let mut count = 0.0;
    for y in height * 2 / 5..height * 3 / 5 {
        for x in width * 2 / 5..width * 3 / 5 {
            let [r, g, b] = picture.get_pixel(x, y).0;
            sum += 0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b);
            count += 1.0;
        }
    }
    sum / count
}

#[tokio::test]
async fn placeholders_are_pngs_of_the_asked_width_without_a_key() {
    let server = start().await;
    let slug = &products()[0].0;
    let (_, _, picture) = png(&server, &image_path(slug)).await;
    assert_eq!(picture.dimensions(), (384, 256));
    // Five widths only: any other is rounded up, and capped at the widest.
    for (query, size) in [
        ("?w=96", (96, 64)),
        ("?w=5", (48, 32)),
        ("?w=100", (192, 128)),
        ("?w=300", (384, 256)),
        ("?w=10000", (768, 512)),
        ("?w=", (384, 256)),
    ] {
        let (_, _, picture) = png(&server, &format!("{}{query}", image_path(slug))).await;
        assert_eq!(picture.dimensions(), size, "{query}");
    }
    for bad in ["wide", "0", "10001", "100000000000", "-5"] {
        let (status, code) = json_error(&server, &format!("{}?w={bad}", image_path(slug))).await;
        assert_eq!(
            (status, code.as_str()),
            (StatusCode::BAD_REQUEST, "bad_request"),
            "w={bad}"
        );
    }

    // Public: even a wrong key does not stand in the way.
    let answer = reqwest::Client::new()
        .get(format!("{}{}", server.base_url(), image_path(slug)))
        .header("authorization", "not-a-key")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
}

#[tokio::test]
async fn placeholders_are_deterministic_and_follow_the_colorway() {
    let server = start().await;
    let black = slug_with_main_colour("Black");
    let white = slug_with_main_colour("White");
    let (first, first_tag, black_picture) = png(&server, &image_path(&black)).await;
    let (again, again_tag, _) = png(&server, &image_path(&black)).await;
    assert_eq!(first, again);
    assert_eq!(first_tag, again_tag);

    // A second service (an empty cache) draws the very same bytes.
    let other = start().await;
    let (fresh, fresh_tag, _) = png(&other, &image_path(&black)).await;
    assert_eq!(first, fresh);
    assert_eq!(first_tag, fresh_tag);

    let (white_bytes, white_tag, white_picture) = png(&server, &image_path(&white)).await;
    assert_ne!(first, white_bytes);
    assert_ne!(first_tag, white_tag);
    let (black_luma, white_luma) = (middle_luma(&black_picture), middle_luma(&white_picture));
    assert!(
        black_luma + 60.0 < white_luma,
        "black upper {black_luma:.0} vs white upper {white_luma:.0}"
    );

    // Widths are told apart by the tag too.
    let (_, small_tag, _) = png(&server, &format!("{}?w=96", image_path(&black))).await;
    assert_ne!(small_tag, first_tag);
}

#[tokio::test]
async fn a_current_etag_gets_304() {
    let server = start().await;
    let path = image_path(&products()[1].0);
    let (_, etag, _) = png(&server, &path).await;
    let client = reqwest::Client::new();
    let url = format!("{}{path}", server.base_url());
    let cached = client
        .get(&url)
        .header(IF_NONE_MATCH, &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(cached.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(cached.headers()[ETAG], etag.as_str());
    assert!(cached.bytes().await.unwrap().is_empty());

    let listed = client
        .get(&url)
        .header(IF_NONE_MATCH, format!("\"other\", W/{etag}"))
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), StatusCode::NOT_MODIFIED);

    let stale = client
        .get(&url)
        .header(IF_NONE_MATCH, "\"0000\"")
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::OK);
    assert!(stale.bytes().await.unwrap().starts_with(PNG_MAGIC));
}

#[tokio::test]
async fn unknown_and_hostile_names_get_json_errors() {
    let server = start().await;
    let (status, code) = json_error(&server, &image_path("no-such-sneaker-000")).await;
    assert_eq!(
        (status, code.as_str()),
        (StatusCode::NOT_FOUND, "not_found")
    );

    let long = "a".repeat(5000);
    let long_png = format!("{long}.png");
    for file in [
        "..%2F..%2Fetc%2Fpasswd.png",
        "..%2F...png",
        long.as_str(),
        long_png.as_str(),
        "caf%C3%A9.png",
        "%E2%9C%93%F0%9F%91%9F.png",
        "%00.png",
        "a%00b.png",
        "%FF%FE.png",
        "a%20b.png",
        "a.png.png",
        ".png",
        "a.jpg",
        "a",
    ] {
        let (status, code) = json_error(&server, &format!("/images/products/{file}")).await;
        assert!(
            status == StatusCode::BAD_REQUEST || status == StatusCode::NOT_FOUND,
            "{}: {status}",
            &file[..file.len().min(40)]
        );
        assert!(code == "bad_request" || code == "not_found", "{code}");
    }
    // Still serving.
    png(&server, &image_path(&products()[0].0)).await;
}

#[tokio::test]
async fn the_openapi_document_lists_the_image_path() {
    let server = start().await;
    let document: Value = get(&server, "/openapi.json").await.json().await.unwrap();
    assert!(
        document["paths"]["/images/products/{slug}.png"]["get"].is_object(),
        "{}",
        document["paths"]
    );
}
