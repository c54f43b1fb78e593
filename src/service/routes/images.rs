//! `/images/products/{slug}.png`: a generated placeholder picture of a product, so the offline
//! demo shows images although the catalogue's image URLs point at a reserved `.example` host
//! that never resolves. Public: readable without a key, like the subscription pages.
//!
//! The picture is a side view of a generic sneaker (outsole, midsole, upper, toe cap, heel
//! counter, a side stripe, eyelets) in the product's colorway over a soft background tinted
//! from it. It depends only on the colorway string and the width, so it is deterministic and
//! cacheable: answers carry an `ETag` and `Cache-Control: public, max-age=86400`, and encoded
//! PNGs are kept in a small cache bounded by bytes. Drawing and encoding run on
//! `spawn_blocking`: a few milliseconds of CPU each, but never on the async workers.

use std::fmt::Write as _;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{MethodRouter, get};
use sha2::{Digest, Sha256};

use super::{Params, checked_id, truncate};
use crate::catalogue::CatalogueError;
use crate::model::ErrorBody;
use crate::service::ServiceState;
use crate::service::error::ApiError;

/// Width of a placeholder when `?w=` is absent.
pub(crate) const DEFAULT_WIDTH_PX: u32 = 480;
/// Narrowest placeholder; a smaller `?w=` is raised to it.
pub(crate) const MIN_WIDTH_PX: u32 = 48;
/// Widest placeholder; a larger `?w=` is lowered to it, so one request costs at most
/// 960 x 640 pixels of drawing.
pub(crate) const MAX_WIDTH_PX: u32 = 960;
/// Bytes of encoded PNGs kept (a 480 px placeholder is about 10 KB).
const CACHE_BYTES: u64 = 32 * 1024 * 1024;
/// Rough number of entries, for the cache's sizing.
const CACHE_ENTRIES_ESTIMATE: usize = 2048;
/// Changes whenever the drawing changes, so clients holding an old picture's `ETag` refetch.
const DRAWING_VERSION: &str = "sneaker-v1";
/// How long clients may keep a placeholder.
const CACHE_CONTROL: &str = "public, max-age=86400";

/// An encoded placeholder and its entity tag.
#[derive(Debug, Clone)]
pub(crate) struct Placeholder {
    /// The quoted entity tag, e.g. `"3f1c…"`.
    etag: HeaderValue,
    png: Bytes,
}

/// Weighs cache entries by their encoded size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PngBytes;

impl quick_cache::Weighter<(String, u32), Placeholder> for PngBytes {
    fn weight(&self, key: &(String, u32), value: &Placeholder) -> u64 {
        (key.0.len() + value.png.len() + value.etag.len()) as u64
    }
}

pub(crate) type PngCache = quick_cache::sync::Cache<(String, u32), Placeholder, PngBytes>;

/// The route's method router, holding its own PNG cache (one per service).
pub(crate) fn route() -> MethodRouter<Arc<ServiceState>> {
    let cache = Arc::new(PngCache::with_weighter(
        CACHE_ENTRIES_ESTIMATE,
        CACHE_BYTES,
        PngBytes,
    ));
    get(
        move |State(state): State<Arc<ServiceState>>,
              Path(file): Path<String>,
              Query(params): Query<Params>,
              headers: HeaderMap| {
            let cache = Arc::clone(&cache);
            async move { product_image(&state, &cache, &file, &params, &headers).await }
        },
    )
}

/// `GET /images/products/{slug}.png`: the product's generated placeholder picture.
#[utoipa::path(get, path = "/images/products/{slug}.png", tag = "images",
    params(("slug" = String, Path, description = "Product slug"),
        ("w" = Option<u32>, Query, description = "Width in pixels, clamped to 48..=960, default 480; the height is two thirds of it")),
    responses(
        (status = 200, content_type = "image/png", description = "A PNG placeholder in the product's colorway; no key needed. Carries ETag and Cache-Control"),
        (status = 304, description = "The If-None-Match tag is current"),
        (status = 400, body = ErrorBody, description = "Malformed slug or width"),
        (status = 404, body = ErrorBody, description = "No product has this slug")))]
pub(crate) async fn product_image(
    state: &Arc<ServiceState>,
    cache: &PngCache,
    file: &str,
    params: &Params,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let slug = slug_from_file(file)?;
    let width_px = width_from_params(params)?;
    let key = (slug.to_owned(), width_px);
    let placeholder = match cache.get_value_or_guard_async(&key).await {
        Ok(placeholder) => placeholder,
        Err(guard) => {
            let color = color_of(state, slug)?;
            let slug = slug.to_owned();
            let placeholder =
                tokio::task::spawn_blocking(move || render_placeholder(&slug, &color, width_px))
                    .await
                    .map_err(|err| {
                        tracing::error!("drawing a placeholder image: {err:#}");
                        ApiError::Internal
                    })??;
            // Another request may have filled the entry meanwhile; either copy is the same.
            let _ = guard.insert(placeholder.clone());
            placeholder
        }
    };
    Ok(answer(&placeholder, headers))
}

/// The slug of `{slug}.png`, checked: ASCII letters, digits, `-` and `_` only.
fn slug_from_file(file: &str) -> Result<&str, ApiError> {
    let file = checked_id("image name", file)?;
    let Some(slug) = file.strip_suffix(".png") else {
        return Err(ApiError::NotFound(format!(
            "no image {:?}; product images are served as {{slug}}.png",
            truncate(file, 40)
        )));
    };
    let well_formed = !slug.is_empty()
        && slug
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if well_formed {
        Ok(slug)
    } else {
        Err(ApiError::BadRequest(format!(
            "a product slug has only letters, digits, '-' and '_', not {:?}",
            truncate(slug, 40)
        )))
    }
}

/// `?w=`: any whole number, clamped to the supported widths; absent means the default.
fn width_from_params(params: &Params) -> Result<u32, ApiError> {
    let Some(text) = params.get("w") else {
        return Ok(DEFAULT_WIDTH_PX);
    };
    text.parse::<u64>()
        .map(|w| w.clamp(u64::from(MIN_WIDTH_PX), u64::from(MAX_WIDTH_PX)) as u32)
        .map_err(|_| {
            ApiError::BadRequest(format!(
                "w must be a whole number of pixels, not {:?}",
                truncate(text, 40)
            ))
        })
}

/// The colorway string of the product with `slug`.
fn color_of(state: &ServiceState, slug: &str) -> Result<String, ApiError> {
    let conn = state.pool.get()?;
    // A one-column read by the unique slug index; the full product read would also load its
    // variants, which a picture does not need.
    let color: Option<String> = conn
        .prepare_cached("SELECT color FROM products WHERE slug = ?1")
        .and_then(|mut statement| {
            let mut rows = statement.query([slug])?;
            rows.next()?.map(|row| row.get(0)).transpose()
        })
        .map_err(CatalogueError::from)?;
    color.ok_or_else(|| ApiError::NotFound(format!("no product with slug {slug:?}")))
}

/// 304 when `If-None-Match` names the current tag, the PNG otherwise.
fn answer(placeholder: &Placeholder, headers: &HeaderMap) -> Response {
    let current = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .any(|value| etag_matches(value, placeholder.etag.as_bytes()));
    let mut response = if current {
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        response
    } else {
        let mut response = Response::new(Body::from(placeholder.png.clone()));
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
        response
    };
    let headers = response.headers_mut();
    headers.insert(header::ETAG, placeholder.etag.clone());
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    response
}

/// Whether an `If-None-Match` value (a list of tags, or `*`) names `etag`. Weak comparison, as
/// RFC 9110 asks for `If-None-Match`.
fn etag_matches(if_none_match: &str, etag: &[u8]) -> bool {
    if_none_match
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag).as_bytes() == etag)
}

/// Draws and encodes the placeholder of a product.
fn render_placeholder(slug: &str, color: &str, width_px: u32) -> Result<Placeholder, ApiError> {
    let png = draw_sneaker(color, width_px).into_png().map_err(|err| {
        tracing::error!("encoding a placeholder image: {err:#}");
        ApiError::Internal
    })?;
    let digest = Sha256::new()
        .chain_update(DRAWING_VERSION)
        .chain_update([0])
        .chain_update(slug)
        .chain_update([0])
        .chain_update(color)
        .chain_update(width_px.to_le_bytes())
        .finalize();
    let mut etag = String::from("\"");
    for byte in &digest[..12] {
        let _ = write!(etag, "{byte:02x}");
    }
    etag.push('"');
    let etag = HeaderValue::from_str(&etag).map_err(|err| {
        tracing::error!("building an ETag: {err:#}");
        ApiError::Internal
    })?;
    Ok(Placeholder {
        etag,
        png: Bytes::from(png),
    })
}

// ---------------------------------------------------------------------------------------------
// Colours

/// An sRGB colour with channels in 0..=255, as floats so mixing does not round twice.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Colour {
    r: f32,
    g: f32,
    b: f32,
}

impl Colour {
    const BLACK: Colour = Colour::rgb(0, 0, 0);
    const WHITE: Colour = Colour::rgb(255, 255, 255);
    /// The off-white of most midsoles.
    const MIDSOLE: Colour = Colour::rgb(242, 239, 230);
    /// The warm neutral the background is tinted from.
    const BACKGROUND: Colour = Colour::rgb(236, 234, 229);

    const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Self {
            r: r as f32,
            g: g as f32,
            b: b as f32,
        }
    }

    /// `self` moved toward `other` by `amount` (0 = self, 1 = other).
    fn mix(self, other: Colour, amount: f32) -> Colour {
        Colour {
            r: self.r + (other.r - self.r) * amount,
            g: self.g + (other.g - self.g) * amount,
            b: self.b + (other.b - self.b) * amount,
        }
    }

    /// Perceived brightness, 0..=255 (Rec. 601 weights).
    fn luma(self) -> f32 {
        0.299 * self.r + 0.587 * self.g + 0.114 * self.b
    }
}

/// Colour names of the catalogue's colorways that do not say their hue in a common word.
const NAMED_COLOURS: &[(&str, Colour)] = &[
    ("sail", Colour::rgb(236, 228, 208)),
    ("bone", Colour::rgb(227, 218, 201)),
    ("light bone", Colour::rgb(226, 218, 200)),
    ("phantom", Colour::rgb(228, 224, 214)),
    ("egret", Colour::rgb(236, 230, 214)),
    ("parchment", Colour::rgb(228, 218, 190)),
    ("muslin", Colour::rgb(222, 212, 190)),
    ("birch", Colour::rgb(220, 210, 190)),
    ("flax", Colour::rgb(196, 152, 88)),
    ("gum", Colour::rgb(190, 135, 80)),
    ("gum light brown", Colour::rgb(196, 140, 82)),
    ("vanilla ice", Colour::rgb(243, 236, 210)),
    ("almond milk", Colour::rgb(232, 220, 200)),
    ("coconut milk", Colour::rgb(238, 232, 218)),
    ("pale ivory", Colour::rgb(239, 233, 214)),
    ("sea salt", Colour::rgb(232, 230, 222)),
    ("moonbeam", Colour::rgb(226, 222, 210)),
    ("timberwolf", Colour::rgb(200, 200, 196)),
    ("onyx", Colour::rgb(38, 38, 40)),
    ("slate", Colour::rgb(112, 122, 132)),
    ("castlerock", Colour::rgb(110, 112, 114)),
    ("beluga", Colour::rgb(140, 140, 132)),
    ("carbon beluga", Colour::rgb(120, 122, 116)),
    ("aluminum", Colour::rgb(190, 196, 204)),
    ("rain cloud", Colour::rgb(170, 172, 170)),
    ("wolf grey", Colour::rgb(180, 182, 186)),
    ("cool grey", Colour::rgb(150, 152, 156)),
    ("cement grey", Colour::rgb(170, 168, 164)),
    ("oyster grey", Colour::rgb(196, 192, 184)),
    ("grey fog", Colour::rgb(214, 214, 212)),
    ("light iron ore", Colour::rgb(160, 158, 152)),
    ("dark pewter", Colour::rgb(86, 86, 84)),
    ("coast", Colour::rgb(160, 200, 220)),
    ("university blue", Colour::rgb(130, 178, 222)),
    ("legend blue", Colour::rgb(150, 190, 220)),
    ("semi lucid blue", Colour::rgb(150, 180, 220)),
    ("royal blue", Colour::rgb(30, 70, 170)),
    ("midnight navy", Colour::rgb(26, 34, 64)),
    ("pine green", Colour::rgb(20, 90, 60)),
    ("malachite", Colour::rgb(20, 120, 90)),
    ("scarlet", Colour::rgb(200, 30, 30)),
    ("garnet", Colour::rgb(120, 20, 34)),
    ("gym red", Colour::rgb(170, 20, 40)),
    ("clay canyon", Colour::rgb(170, 100, 70)),
    ("mocha", Colour::rgb(120, 85, 60)),
    ("dark mocha", Colour::rgb(90, 60, 45)),
    ("baroque brown", Colour::rgb(110, 75, 50)),
    ("cargo khaki", Colour::rgb(150, 140, 100)),
];

/// Hues named by a common word anywhere in a colour name (`University Red`, `Core Black`).
const HUE_WORDS: &[(&str, Colour)] = &[
    ("black", Colour::rgb(24, 24, 26)),
    ("white", Colour::rgb(246, 246, 244)),
    ("cream", Colour::rgb(240, 230, 205)),
    ("ivory", Colour::rgb(239, 233, 214)),
    ("grey", Colour::rgb(150, 150, 150)),
    ("gray", Colour::rgb(150, 150, 150)),
    ("graphite", Colour::rgb(90, 92, 96)),
    ("silver", Colour::rgb(192, 194, 198)),
    ("red", Colour::rgb(196, 22, 40)),
    ("crimson", Colour::rgb(190, 30, 50)),
    ("blue", Colour::rgb(40, 90, 190)),
    ("navy", Colour::rgb(26, 34, 64)),
    ("teal", Colour::rgb(20, 128, 128)),
    ("green", Colour::rgb(0, 120, 70)),
    ("olive", Colour::rgb(120, 120, 70)),
    ("yellow", Colour::rgb(250, 200, 30)),
    ("gold", Colour::rgb(210, 165, 60)),
    ("orange", Colour::rgb(235, 105, 30)),
    ("pink", Colour::rgb(240, 120, 165)),
    ("purple", Colour::rgb(100, 55, 150)),
    ("violet", Colour::rgb(120, 80, 170)),
    ("brown", Colour::rgb(120, 80, 50)),
    ("tan", Colour::rgb(200, 170, 130)),
    ("khaki", Colour::rgb(170, 160, 120)),
];

/// The RGB of one colour name of a colorway. Unknown names get a muted colour derived from the
/// name, so they still differ from each other and never change between runs.
fn colour_from_name(name: &str) -> Colour {
    let name = name.trim().to_ascii_lowercase();
    if let Some((_, colour)) = NAMED_COLOURS.iter().find(|(known, _)| *known == name) {
        return *colour;
    }
    let words: Vec<&str> = name.split_whitespace().collect();
    // The hue word is usually last (`Light Smoke Grey`), so look from the end.
    let hue = words
        .iter()
        .rev()
        .find_map(|word| HUE_WORDS.iter().find(|(hue, _)| hue == word))
        .map(|(_, colour)| *colour);
    let Some(mut colour) = hue else {
        return colour_from_hash(&name);
    };
    for word in &words {
        match *word {
            "light" | "pale" | "summit" | "cloud" => colour = colour.mix(Colour::WHITE, 0.35),
            "dark" | "deep" | "midnight" => colour = colour.mix(Colour::BLACK, 0.35),
            _ => {}
        }
    }
    colour
}

/// A muted, mid-light colour picked by a stable hash of `name` (FNV-1a).
fn colour_from_hash(name: &str) -> Colour {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let hue_degrees = (hash % 360) as f32;
    colour_from_hsl(hue_degrees, 0.30, 0.55)
}

/// HSL (hue in degrees, saturation and lightness in 0..=1) to RGB.
fn colour_from_hsl(hue_degrees: f32, saturation: f32, lightness: f32) -> Colour {
    let chroma = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let sector = hue_degrees / 60.0;
    let second = chroma * (1.0 - (sector % 2.0 - 1.0).abs());
    let (red, green, blue) = match sector as u32 {
        0 => (chroma, second, 0.0),
        1 => (second, chroma, 0.0),
        2 => (0.0, chroma, second),
        3 => (0.0, second, chroma),
        4 => (second, 0.0, chroma),
        _ => (chroma, 0.0, second),
    };
    let lift = lightness - chroma / 2.0;
    Colour {
        r: (red + lift) * 255.0,
        g: (green + lift) * 255.0,
        b: (blue + lift) * 255.0,
    }
}

/// The colours a picture is drawn in, read from a colorway string like
/// `White/Black-University Red` (main colour first).
#[derive(Debug, Clone, Copy)]
struct Palette {
    /// The upper.
    main: Colour,
    /// Toe cap and heel counter.
    secondary: Colour,
    /// The side stripe.
    accent: Colour,
    /// The outsole: gum when the colorway names it, otherwise a dark version of the accent.
    outsole: Colour,
}

impl Palette {
    fn from_colorway(colorway: &str) -> Self {
        let names: Vec<&str> = colorway
            .split(['/', '-'])
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .collect();
        let colours: Vec<Colour> = names.iter().map(|name| colour_from_name(name)).collect();
        let main = colours
            .first()
            .copied()
            .unwrap_or(Colour::rgb(200, 200, 200));
        let secondary = colours.get(1).copied().unwrap_or(main);
        let accent = colours.get(2).copied().unwrap_or(secondary);
        let gum = names
            .iter()
            .any(|name| name.to_ascii_lowercase().contains("gum"));
        let outsole = if gum {
            colour_from_name("gum")
        } else {
            accent.mix(Colour::BLACK, 0.35)
        };
        Self {
            main,
            secondary,
            accent,
            outsole,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Drawing

/// A point in pixels (or, before [`ShoeFrame::place`], in the shoe's unit box).
type Point = (f32, f32);

/// Vertical sub-scanlines per pixel row: 4 gives smooth edges at a quarter of 16x supersampling.
const SUBSAMPLES: u32 = 4;

/// An RGB picture being drawn, with a scanline polygon filler that anti-aliases edges.
struct Canvas {
    width: usize,
    height: usize,
    /// Row-major RGB, three bytes a pixel.
    rgb: Vec<u8>,
    /// Coverage of the row being filled, reused between rows.
    coverage: Vec<f32>,
}

impl Canvas {
    /// A canvas filled with a vertical gradient from `top` to `bottom`.
    fn with_gradient(width: usize, height: usize, top: Colour, bottom: Colour) -> Self {
        let mut rgb = Vec::with_capacity(width * height * 3);
        for y in 0..height {
            let colour = top.mix(bottom, y as f32 / height.max(2).saturating_sub(1) as f32);
            let pixel = [channel(colour.r), channel(colour.g), channel(colour.b)];
            for _ in 0..width {
                rgb.extend_from_slice(&pixel);
            }
        }
        Self {
            width,
            height,
            rgb,
            coverage: vec![0.0; width],
        }
    }

    /// Fills `polygon` (pixels, even-odd rule) with `colour` at `opacity`.
    fn fill(&mut self, polygon: &[Point], colour: Colour, opacity: f32) {
        if polygon.len() < 3 {
            return;
        }
        let (top, bottom) = polygon
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &(_, y)| {
                (lo.min(y), hi.max(y))
            });
        let first_row = top.floor().max(0.0) as usize;
        let end_row = (bottom.ceil().max(0.0) as usize).min(self.height);
        let mut crossings: Vec<f32> = Vec::with_capacity(16);
        for row in first_row..end_row {
            self.coverage.fill(0.0);
            let (mut left, mut right) = (self.width, 0);
            for sub in 0..SUBSAMPLES {
                let y = row as f32 + (sub as f32 + 0.5) / SUBSAMPLES as f32;
                crossings.clear();
                for (index, &(x0, y0)) in polygon.iter().enumerate() {
                    let (x1, y1) = polygon[(index + 1) % polygon.len()];
                    if (y0 <= y && y < y1) || (y1 <= y && y < y0) {
                        crossings.push(x0 + (y - y0) * (x1 - x0) / (y1 - y0));
                    }
                }
                crossings.sort_by(f32::total_cmp);
                for span in crossings.chunks_exact(2) {
                    let (from, to) = add_span(&mut self.coverage, span[0], span[1]);
                    left = left.min(from);
                    right = right.max(to);
                }
            }
            let base = row * self.width * 3;
            for x in left..right {
                let alpha = (self.coverage[x] / SUBSAMPLES as f32).min(1.0) * opacity;
                if alpha <= 0.0 {
                    continue;
                }
                let pixel = &mut self.rgb[base + x * 3..base + x * 3 + 3];
                for (value, target) in pixel.iter_mut().zip([colour.r, colour.g, colour.b]) {
                    *value = channel(f32::from(*value) + (target - f32::from(*value)) * alpha);
                }
            }
        }
    }

    /// The picture as PNG bytes.
    fn into_png(self) -> Result<Vec<u8>, image::ImageError> {
        use image::ImageEncoder as _;
        let mut png = Vec::new();
        image::codecs::png::PngEncoder::new_with_quality(
            &mut png,
            image::codecs::png::CompressionType::Default,
            image::codecs::png::FilterType::Adaptive,
        )
        .write_image(
            &self.rgb,
            self.width as u32,
            self.height as u32,
            image::ExtendedColorType::Rgb8,
        )?;
        Ok(png)
    }
}

/// A float channel value as a byte.
fn channel(value: f32) -> u8 {
    value.round().clamp(0.0, 255.0) as u8
}

/// Adds one sub-scanline's span `[from, to)` to `coverage`, crediting the pixels at either end
/// with the fraction they cover. Returns the touched pixel range.
fn add_span(coverage: &mut [f32], from: f32, to: f32) -> (usize, usize) {
    let width = coverage.len() as f32;
    let (from, to) = (from.clamp(0.0, width), to.clamp(0.0, width));
    if to <= from {
        return (coverage.len(), 0);
    }
    let first = from.floor() as usize;
    let last = (to.floor() as usize).min(coverage.len().saturating_sub(1));
    if first == last {
        coverage[first] += to - from;
    } else {
        coverage[first] += (first + 1) as f32 - from;
        for cell in &mut coverage[first + 1..last] {
            *cell += 1.0;
        }
        coverage[last] += to - last as f32;
    }
    (first, last + 1)
}

/// Rounds a closed polygon's corners (Chaikin's corner cutting), `rounds` times.
fn smooth(points: &[Point], rounds: u32) -> Vec<Point> {
    let mut current = points.to_vec();
    for _ in 0..rounds {
        let mut next = Vec::with_capacity(current.len() * 2);
        for (index, &(x0, y0)) in current.iter().enumerate() {
            let (x1, y1) = current[(index + 1) % current.len()];
            next.push((0.75 * x0 + 0.25 * x1, 0.75 * y0 + 0.25 * y1));
            next.push((0.25 * x0 + 0.75 * x1, 0.25 * y0 + 0.75 * y1));
        }
        current = next;
    }
    current
}

/// An ellipse as a polygon.
fn ellipse(center: Point, radius_x: f32, radius_y: f32) -> Vec<Point> {
    const STEPS: u32 = 48;
    (0..STEPS)
        .map(|step| {
            let angle = step as f32 / STEPS as f32 * std::f32::consts::TAU;
            (
                center.0 + radius_x * angle.cos(),
                center.1 + radius_y * angle.sin(),
            )
        })
        .collect()
}

/// Twice the signed area (positive when the y-down polygon runs clockwise on screen).
fn signed_area(polygon: &[Point]) -> f32 {
    polygon
        .iter()
        .enumerate()
        .map(|(index, &(x0, y0))| {
            let (x1, y1) = polygon[(index + 1) % polygon.len()];
            x0 * y1 - x1 * y0
        })
        .sum()
}

/// `subject` clipped to the convex polygon `clip` (Sutherland-Hodgman).
fn clip_to_convex(subject: &[Point], clip: &[Point]) -> Vec<Point> {
    let orientation = signed_area(clip).signum();
    let inside = |(ax, ay): Point, (bx, by): Point, (px, py): Point| {
        ((bx - ax) * (py - ay) - (by - ay) * (px - ax)) * orientation >= 0.0
    };
    let mut output = subject.to_vec();
    for (index, &edge_from) in clip.iter().enumerate() {
        let edge_to = clip[(index + 1) % clip.len()];
        let input = std::mem::take(&mut output);
        for (i, &current) in input.iter().enumerate() {
            let previous = input[(i + input.len() - 1) % input.len()];
            let current_in = inside(edge_from, edge_to, current);
            let previous_in = inside(edge_from, edge_to, previous);
            if current_in != previous_in {
                output.push(intersection(previous, current, edge_from, edge_to));
            }
            if current_in {
                output.push(current);
            }
        }
        if output.is_empty() {
            break;
        }
    }
    output
}

/// Where segment `from`-`to` crosses the line through `line_from` and `line_to`.
fn intersection(from: Point, to: Point, line_from: Point, line_to: Point) -> Point {
    let segment = (to.0 - from.0, to.1 - from.1);
    let line = (line_to.0 - line_from.0, line_to.1 - line_from.1);
    let denominator = segment.0 * line.1 - segment.1 * line.0;
    if denominator.abs() < f32::EPSILON {
        return from;
    }
    let along = ((line_from.0 - from.0) * line.1 - (line_from.1 - from.1) * line.0) / denominator;
    (from.0 + along * segment.0, from.1 + along * segment.1)
}

/// `polygon` pushed outward by `distance` along each vertex's normal: an outline when filled
/// beneath the original.
fn inflate(polygon: &[Point], distance: f32) -> Vec<Point> {
    let outward = -signed_area(polygon).signum();
    polygon
        .iter()
        .enumerate()
        .map(|(index, &(x, y))| {
            let (px, py) = polygon[(index + polygon.len() - 1) % polygon.len()];
            let (nx, ny) = polygon[(index + 1) % polygon.len()];
            let (tx, ty) = (nx - px, ny - py);
            let length = tx.hypot(ty).max(f32::EPSILON);
            (
                x + outward * ty / length * distance,
                y - outward * tx / length * distance,
            )
        })
        .collect()
}

/// Maps the shoe's unit box (x from heel to toe, y downward) onto the canvas.
struct ShoeFrame {
    left: f32,
    top: f32,
    width: f32,
    height: f32,
}

impl ShoeFrame {
    fn place(&self, points: &[Point]) -> Vec<Point> {
        points
            .iter()
            .map(|&(x, y)| (self.left + x * self.width, self.top + y * self.height))
            .collect()
    }
}

/// The upper's outline in the unit box, heel at the left, before smoothing.
const UPPER: &[Point] = &[
    (0.07, 0.80),
    (0.04, 0.62),
    (0.05, 0.42),
    (0.09, 0.27),
    (0.16, 0.22),
    (0.26, 0.29),
    (0.36, 0.32),
    (0.42, 0.19),
    (0.48, 0.15),
    (0.53, 0.19),
    (0.63, 0.32),
    (0.75, 0.42),
    (0.87, 0.49),
    (0.96, 0.56),
    (0.995, 0.67),
    (0.97, 0.80),
];

/// The midsole, with the toe curving up.
const MIDSOLE: &[Point] = &[
    (0.02, 0.73),
    (0.45, 0.75),
    (0.86, 0.74),
    (0.99, 0.69),
    (1.02, 0.78),
    (0.96, 0.89),
    (0.50, 0.90),
    (0.04, 0.90),
    (0.01, 0.82),
];

/// The outsole, showing as a strip under the midsole.
const OUTSOLE: &[Point] = &[
    (0.02, 0.85),
    (0.97, 0.84),
    (0.97, 0.92),
    (0.90, 0.955),
    (0.06, 0.955),
    (0.02, 0.92),
];

/// The side stripe across the quarter panel.
const STRIPE: &[Point] = &[
    (0.17, 0.70),
    (0.40, 0.58),
    (0.66, 0.47),
    (0.75, 0.46),
    (0.70, 0.53),
    (0.45, 0.645),
    (0.24, 0.74),
];

/// The dark collar opening along the top of the heel.
const COLLAR: &[Point] = &[
    (0.11, 0.265),
    (0.17, 0.235),
    (0.26, 0.30),
    (0.37, 0.325),
    (0.40, 0.27),
    (0.39, 0.35),
    (0.26, 0.335),
    (0.16, 0.28),
];

/// The sneaker in the colours of `colorway`, `width_px` wide and two thirds as high.
fn draw_sneaker(colorway: &str, width_px: u32) -> Canvas {
    let palette = Palette::from_colorway(colorway);
    let width = width_px as usize;
    let height = (width_px * 2 / 3).max(1) as usize;
    let background_top = Colour::BACKGROUND.mix(palette.secondary, 0.16);
    let background_bottom = Colour::BACKGROUND
        .mix(palette.main, 0.14)
        .mix(Colour::BLACK, 0.06);
    let mut canvas = Canvas::with_gradient(width, height, background_top, background_bottom);

    let shoe_width = width as f32 * 0.84;
    let shoe_height = shoe_width * 0.5;
    let frame = ShoeFrame {
        left: (width as f32 - shoe_width) / 2.0,
        // A little above centre: the floor shadow below the sole balances it.
        top: (height as f32 - shoe_height) / 2.0 - height as f32 * 0.03,
        width: shoe_width,
        height: shoe_height,
    };
    let outline_px = (width as f32 / 320.0).max(0.8);

    // Floor shadow first, then from the ground up, so each part covers the seams below it.
    let shadow = frame.place(&ellipse((0.50, 0.955), 0.52, 0.045));
    canvas.fill(&shadow, background_bottom.mix(Colour::BLACK, 0.45), 0.45);

    let outsole = frame.place(&smooth(OUTSOLE, 3));
    canvas.fill(
        &inflate(&outsole, outline_px),
        palette.outsole.mix(Colour::BLACK, 0.4),
        1.0,
    );
    canvas.fill(&outsole, palette.outsole, 1.0);

    let upper = frame.place(&smooth(UPPER, 3));
    let edge = palette.main.mix(Colour::BLACK, 0.45);
    canvas.fill(&inflate(&upper, outline_px), edge, 1.0);
    canvas.fill(&upper, palette.main, 1.0);

    let toe_cap = clip_to_convex(&upper, &frame.place(&ellipse((1.04, 0.74), 0.27, 0.36)));
    canvas.fill(&inflate(&toe_cap, outline_px * 0.6), edge, 0.8);
    canvas.fill(&toe_cap, palette.secondary, 1.0);

    let heel = clip_to_convex(&upper, &frame.place(&ellipse((-0.06, 0.80), 0.27, 0.52)));
    canvas.fill(&inflate(&heel, outline_px * 0.6), edge, 0.8);
    canvas.fill(&heel, palette.secondary, 1.0);

    let stripe = frame.place(&smooth(STRIPE, 2));
    canvas.fill(
        &inflate(&stripe, outline_px * 0.6),
        palette.accent.mix(Colour::BLACK, 0.4),
        0.8,
    );
    canvas.fill(&stripe, palette.accent, 1.0);

    let collar = frame.place(&smooth(COLLAR, 2));
    canvas.fill(&collar, palette.main.mix(Colour::BLACK, 0.6), 1.0);

    // Eyelets along the lace line, in whichever of black and white stands out on the upper.
    let eyelet = if palette.main.luma() > 110.0 {
        Colour::rgb(40, 40, 42)
    } else {
        Colour::rgb(235, 235, 232)
    };
    for step in 0..5 {
        let t = step as f32 / 4.0;
        let center = (0.545 + t * 0.25, 0.255 + t * 0.215);
        canvas.fill(&frame.place(&ellipse(center, 0.011, 0.022)), eyelet, 0.85);
    }

    let midsole = frame.place(&smooth(MIDSOLE, 3));
    canvas.fill(
        &inflate(&midsole, outline_px),
        Colour::MIDSOLE.mix(Colour::BLACK, 0.35),
        1.0,
    );
    canvas.fill(&midsole, Colour::MIDSOLE, 1.0);
    canvas
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_names_map_to_their_hue() {
        assert_eq!(colour_from_name("Black"), colour_from_name("Core Black"));
        let red = colour_from_name("University Red");
        assert!(red.r > 150.0 && red.g < 60.0, "{red:?}");
        let light = colour_from_name("Light Smoke Grey");
        assert!(light.luma() > colour_from_name("Grey").luma());
        assert_eq!(colour_from_name(" sail "), colour_from_name("Sail"));
        // Unknown names are stable and not all the same.
        assert_eq!(colour_from_name("Zorblax"), colour_from_name("zorblax"));
        assert_ne!(colour_from_name("Zorblax"), colour_from_name("Quuxite"));
    }

    #[test]
    fn palette_reads_main_secondary_and_gum() {
        let palette = Palette::from_colorway("Black/White-Gum Light Brown");
        assert_eq!(palette.main, colour_from_name("Black"));
        assert_eq!(palette.secondary, colour_from_name("White"));
        assert_eq!(palette.outsole, colour_from_name("gum"));
        let empty = Palette::from_colorway("");
        assert_eq!(empty.main, empty.secondary);
    }

    #[test]
    fn slugs_are_checked() {
        assert_eq!(slug_from_file("air-jordan-1.png").unwrap(), "air-jordan-1");
        assert_eq!(
            slug_from_file("../x.png").unwrap_err().status(),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            slug_from_file("a.jpg").unwrap_err().status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            slug_from_file(".png").unwrap_err().status(),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            slug_from_file(&"a".repeat(5000)).unwrap_err().status(),
            StatusCode::BAD_REQUEST
        );
    }

    #[test]
    fn etags_match_lists_weak_tags_and_star() {
        let tag = b"\"abc\"";
        assert!(etag_matches("\"abc\"", tag));
        assert!(etag_matches("\"x\", W/\"abc\"", tag));
        assert!(etag_matches("*", tag));
        assert!(!etag_matches("\"abd\"", tag));
    }

    #[test]
    fn spans_credit_partial_pixels() {
        let mut coverage = vec![0.0; 4];
        assert_eq!(add_span(&mut coverage, 0.5, 2.25), (0, 3));
        assert_eq!(coverage, vec![0.5, 1.0, 0.25, 0.0]);
        // Off-canvas spans are clamped, not indexed.
        assert_eq!(add_span(&mut coverage, -10.0, 100.0), (0, 4));
        assert_eq!(add_span(&mut coverage, 9.0, 12.0), (4, 0));
    }

    #[test]
    fn drawings_are_deterministic_and_sized() {
        let a = draw_sneaker("White/Black-University Red", 120);
        let b = draw_sneaker("White/Black-University Red", 120);
        assert_eq!(a.rgb, b.rgb);
        assert_eq!((a.width, a.height), (120, 80));
        assert_eq!(a.rgb.len(), 120 * 80 * 3);
        let c = draw_sneaker("Pine Green/Sail", 120);
        assert_ne!(a.rgb, c.rgb);
        // The smallest size draws without going out of bounds.
        let tiny = draw_sneaker("Black", MIN_WIDTH_PX);
        assert_eq!(tiny.rgb.len(), 48 * 32 * 3);
    }
}
