//! The window's image loader against hostile servers on real local sockets: a decompression
//! bomb (a small PNG that decodes to 400 million pixels) and redirects to another host, port or
//! scheme. The loader must refuse both before egui's decoders see a byte.

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use egui::load::{BytesLoadResult, BytesLoader, BytesPoll, LoadError};
use solescope::app::images::HttpBytesLoader;
use solescope::client::images::{ImageLimits, ImageRefused, check_image_size};

/// Bits into a byte stream, least significant first, as deflate packs them.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    used_bits: u32,
}

impl BitWriter {
    /// `count` bits of `value`, lowest first (header fields, extra bits).
    fn bits(&mut self, value: u32, count: u32) {
        for i in 0..count {
            if self.used_bits == 0 {
                self.bytes.push(0);
            }
            let bit = u8::from(value >> i & 1 == 1);
            *self.bytes.last_mut().unwrap() |= bit << self.used_bits;
            self.used_bits = (self.used_bits + 1) % 8;
        }
    }

    /// A Huffman code of `count` bits, highest first (as deflate stores codes).
    fn code(&mut self, code: u32, count: u32) {
        for i in (0..count).rev() {
            self.bits(code >> i & 1, 1);
        }
    }
}

/// A zlib stream of `len` zero bytes in one fixed-Huffman block: a literal zero, then matches
/// of 258 bytes at distance 1 (13 bits each), so 50 MB of zeros take about 300 KB. Written by
/// hand because no dependency of the crate exposes a deflate encoder.
fn zlib_zeros(len: usize) -> Vec<u8> {
    let mut out = BitWriter::default();
    out.bits(1, 1); // BFINAL
    out.bits(1, 2); // BTYPE = fixed Huffman
    let literal_zero = |out: &mut BitWriter| out.code(0x30, 8);
    literal_zero(&mut out);
    let mut left = len - 1;
    while left >= 258 {
        out.code(0xC5, 8); // length code 285: 258 bytes
        out.code(0, 5); // distance code 0: distance 1
        left -= 258;
    }
    for _ in 0..left {
        literal_zero(&mut out);
    }
    out.code(0, 7); // end of block
    let mut stream = vec![0x78, 0x01];
    stream.extend(out.bytes);
    // Adler-32 of `len` zeros: a stays 1, b adds 1 per byte.
    let adler = ((len % 65_521) as u32) << 16 | 1;
    stream.extend(adler.to_be_bytes());
    stream
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                crc >> 1 ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn chunk(png: &mut Vec<u8>, kind: [u8; 4], data: &[u8]) {
    png.extend(u32::try_from(data.len()).unwrap().to_be_bytes());
    let mut typed = kind.to_vec();
    typed.extend_from_slice(data);
    png.extend_from_slice(&typed);
    png.extend(crc32(&typed).to_be_bytes());
}

/// A valid black 1-bit greyscale PNG of `width` x `height` pixels, all of it decodable.
fn black_png(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend(width.to_be_bytes());
    header.extend(height.to_be_bytes());
    header.extend([1, 0, 0, 0, 0]); // depth 1, greyscale, deflate, no filter, no interlace
    chunk(&mut png, *b"IHDR", &header);
    // Each row: filter byte 0, then width bits of zeros.
    let row_bytes = 1 + width.div_ceil(8) as usize;
    chunk(&mut png, *b"IDAT", &zlib_zeros(row_bytes * height as usize));
    chunk(&mut png, *b"IEND", &[]);
    png
}

fn small_rgb_png() -> Vec<u8> {
    let picture =
        image::RgbImage::from_fn(64, 48, |x, y| image::Rgb([x as u8 * 4, y as u8 * 5, 90]));
    let mut png = Vec::new();
    picture
        .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    png
}

#[test]
fn the_bomb_is_a_real_png() {
    // The same construction at a size that is safe to decode: every pixel is there, black.
    let small = image::load_from_memory(&black_png(300, 200))
        .unwrap()
        .to_luma8();
    assert_eq!(small.dimensions(), (300, 200));
    assert!(small.pixels().all(|pixel| pixel.0 == [0]));
    assert_eq!(
        check_image_size(&black_png(300, 200), ImageLimits::default()),
        Ok((300, 200))
    );
}

#[test]
fn the_size_check_refuses_bombs_and_garbage_and_passes_pictures() {
    let bomb = black_png(20_000, 20_000);
    assert!(bomb.len() < 400 * 1024, "{} bytes", bomb.len());
    let refused = check_image_size(&bomb, ImageLimits::default()).unwrap_err();
    assert!(
        matches!(
            refused,
            ImageRefused::TooLarge {
                width_px: 20_000,
                height_px: 20_000,
                ..
            }
        ),
        "{refused}"
    );
    // Within the width and height limits but over the allocation limit.
    let limits = ImageLimits {
        max_decoded_bytes: 1024 * 1024,
        ..ImageLimits::default()
    };
    assert!(matches!(
        check_image_size(&black_png(1024, 1024), limits),
        Err(ImageRefused::TooLarge { .. })
    ));
    assert_eq!(
        check_image_size(&black_png(512, 512), limits),
        Ok((512, 512))
    );
    assert_eq!(
        check_image_size(&small_rgb_png(), ImageLimits::default()),
        Ok((64, 48))
    );
    for garbage in [&b""[..], b"<html>not a picture</html>", &bomb[..40]] {
        assert!(
            matches!(
                check_image_size(garbage, ImageLimits::default()),
                Err(ImageRefused::Unreadable(_))
            ),
            "{garbage:?}"
        );
    }
}

/// What the test server serves and counts.
#[derive(Clone, Default)]
struct Served {
    /// Requests by path.
    hits: Arc<Mutex<HashMap<String, u32>>>,
    /// Where `/redirect/{name}` sends the client.
    redirects: Arc<Mutex<HashMap<String, String>>>,
}

impl Served {
    fn hits(&self, path: &str) -> u32 {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

async fn picture(State(served): State<Served>, Path(name): Path<String>) -> Response {
    *served
        .hits
        .lock()
        .unwrap()
        .entry(format!("/img/{name}"))
        .or_default() += 1;
    let body = match name.as_str() {
        "bomb.png" => black_png(20_000, 20_000),
        "small.png" => small_rgb_png(),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    ([(header::CONTENT_TYPE, "image/png")], body).into_response()
}

async fn redirect(State(served): State<Served>, Path(name): Path<String>) -> Response {
    let target = served.redirects.lock().unwrap().get(&name).cloned();
    match target {
        Some(target) => (StatusCode::FOUND, [(header::LOCATION, target)]).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// A server on `127.0.0.1:0`; its base URL (`http://127.0.0.1:port`) and what it counts.
async fn start_server() -> (String, Served) {
    let served = Served::default();
    let router = Router::new()
        .route("/img/{name}", axum::routing::get(picture))
        .route("/redirect/{name}", axum::routing::get(redirect))
        .with_state(served.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (base_url, served)
}

/// A context whose repaint requests wake the returned `Notify`.
fn context_with_wakeups() -> (egui::Context, Arc<tokio::sync::Notify>) {
    let ctx = egui::Context::default();
    let woken = Arc::new(tokio::sync::Notify::new());
    let notify = Arc::clone(&woken);
    ctx.set_repaint_observer(move |_| notify.notify_one());
    (ctx, woken)
}

/// Asks `loader` for `uri` until it stops answering `Pending`.
async fn load_until_done(
    loader: &HttpBytesLoader,
    ctx: &egui::Context,
    woken: &tokio::sync::Notify,
    uri: &str,
) -> BytesLoadResult {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        match loader.load(ctx, uri) {
            Ok(BytesPoll::Pending { .. }) => {
                tokio::time::timeout_at(deadline, woken.notified())
                    .await
                    .unwrap_or_else(|_| panic!("{uri} still pending after 20 s"));
            }
            done => return done,
        }
    }
}

fn loading_error(result: BytesLoadResult, what: &str) -> String {
    match result {
        Err(LoadError::Loading(message)) => message,
        Ok(BytesPoll::Ready { bytes, .. }) => panic!("{what}: loaded {} bytes", bytes.len()),
        Ok(BytesPoll::Pending { .. }) => panic!("{what}: still pending"),
        Err(err) => panic!("{what}: {err}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decompression_bomb_is_refused_before_decoding() {
    let (base_url, served) = start_server().await;
    let loader = HttpBytesLoader::new(tokio::runtime::Handle::current()).unwrap();
    let (ctx, woken) = context_with_wakeups();

    let small = format!("{base_url}/img/small.png");
    assert!(matches!(
        load_until_done(&loader, &ctx, &woken, &small).await,
        Ok(BytesPoll::Ready { .. })
    ));

    let bomb = format!("{base_url}/img/bomb.png");
    let message = loading_error(
        load_until_done(&loader, &ctx, &woken, &bomb).await,
        "the bomb",
    );
    assert!(message.contains("20000 x 20000 px"), "{message}");
    assert!(message.ends_with(&bomb), "{message}");
    assert_eq!(served.hits("/img/bomb.png"), 1);
    // Nothing of it is kept: only the small picture's bytes (and the message) are held.
    assert!(loader.byte_size() < 64 * 1024, "{}", loader.byte_size());

    // Through egui itself, with the window's decoders installed: the picture fails to load
    // instead of being decoded into 400 million pixels.
    let ui_ctx = egui::Context::default();
    solescope::app::images::install(&ui_ctx, tokio::runtime::Handle::current());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        match ui_ctx.try_load_image(&bomb, egui::SizeHint::default()) {
            Ok(egui::load::ImagePoll::Pending { .. }) => {
                assert!(tokio::time::Instant::now() < deadline, "still pending");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Ok(egui::load::ImagePoll::Ready { image }) => {
                panic!("the bomb was decoded: {:?}", image.size)
            }
            Err(err) => {
                assert!(err.to_string().contains("20000 x 20000"), "{err}");
                break;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_are_followed_only_to_the_same_origin() {
    let (base_url, served) = start_server().await;
    let (other_base, other) = start_server().await;
    let port = base_url.rsplit(':').next().unwrap().to_owned();
    let routes = [
        ("same", "/img/small.png".to_owned()),
        ("absolute-same", format!("{base_url}/img/small.png")),
        ("other-port", format!("{other_base}/img/small.png")),
        // The same machine under another name: another host as far as the URL goes.
        (
            "other-host",
            format!("http://localhost:{port}/img/small.png"),
        ),
        (
            "other-scheme",
            format!("https://127.0.0.1:{port}/img/small.png"),
        ),
        ("file", "file:///etc/passwd".to_owned()),
        ("loop", "/redirect/loop".to_owned()),
    ];
    served.redirects.lock().unwrap().extend(
        routes
            .iter()
            .map(|(name, to)| ((*name).to_owned(), to.clone())),
    );
    let loader = HttpBytesLoader::new(tokio::runtime::Handle::current()).unwrap();
    let (ctx, woken) = context_with_wakeups();

    for name in ["same", "absolute-same"] {
        let uri = format!("{base_url}/redirect/{name}");
        let result = load_until_done(&loader, &ctx, &woken, &uri).await;
        let bytes = match result {
            Ok(BytesPoll::Ready { bytes, .. }) => bytes,
            Err(err) => panic!("{name}: a same-origin redirect must be followed: {err}"),
            Ok(BytesPoll::Pending { .. }) => panic!("{name}: still pending"),
        };
        assert_eq!(
            check_image_size(&bytes, ImageLimits::default()),
            Ok((64, 48))
        );
    }
    assert_eq!(served.hits("/img/small.png"), 2);

    for name in ["other-port", "other-host", "other-scheme", "file"] {
        let uri = format!("{base_url}/redirect/{name}");
        let message = loading_error(load_until_done(&loader, &ctx, &woken, &uri).await, name);
        assert!(
            message.contains("redirect to another host or scheme, not followed"),
            "{name}: {message}"
        );
    }
    // Neither server was asked for the picture again, under any name.
    assert_eq!(served.hits("/img/small.png"), 2);
    assert_eq!(other.hits("/img/small.png"), 0);

    let uri = format!("{base_url}/redirect/loop");
    let message = loading_error(load_until_done(&loader, &ctx, &woken, &uri).await, "loop");
    assert!(message.contains("could not load the image"), "{message}");
}
