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
//!
//! The endpoint is public, so it bounds its own work: pictures come in five widths only
//! ([`WIDTHS_PX`]; any other `?w=` is rounded up to the next one, and capped at the widest), at
//! most [`DRAWS_IN_FLIGHT`] are drawn at once, and at most [`WAITING_MAX`] requests wait for a
//! draw; beyond that a request is refused at once with 503 and `Retry-After`, so a flood of
//! distinct pictures neither grows memory nor starves the other endpoints.

mod draw;

use std::fmt::Write as _;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{MethodRouter, get};
use sha2::{Digest, Sha256};

use super::{Params, checked_id, truncate};
use crate::model::ErrorBody;
use crate::service::ServiceState;
use crate::service::error::ApiError;

/// The widths drawn, narrowest first: doublings from the app's 48-point thumbnail (48 and 96
/// pixels on 1x and 2x screens). A `?w=` between two is rounded up to the wider; one above the
/// widest gets the widest, so one request costs at most 768 x 512 pixels of drawing.
pub(crate) const WIDTHS_PX: [u32; 5] = [48, 96, 192, 384, 768];
/// Width of a placeholder when `?w=` is absent.
pub(crate) const DEFAULT_WIDTH_PX: u32 = 384;
/// Largest `?w=` accepted (anything from 1 to this is rounded to one of [`WIDTHS_PX`]).
pub(crate) const MAX_REQUESTED_WIDTH_PX: u32 = 10_000;
/// Pictures drawn at once: drawing is CPU work, and more at once only splits the same cores.
pub(crate) const DRAWS_IN_FLIGHT: usize = 2;
/// Requests waiting for a draw; one more is refused with 503 at once.
pub(crate) const WAITING_MAX: usize = 128;
/// Seconds a refused request is told to wait before retrying.
const RETRY_AFTER_SECS: u64 = 1;
/// Bytes of encoded PNGs kept (a 384 px placeholder is about 8 KB).
const CACHE_BYTES: u64 = 32 * 1024 * 1024;
/// Rough number of entries, for the cache's sizing.
const CACHE_ENTRIES_ESTIMATE: usize = 2048;
/// Changes whenever the drawing changes, so clients holding an old picture's `ETag` refetch.
const DRAWING_VERSION: &str = "sneaker-v2";
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

/// What the route keeps between requests: its PNG cache and its bounds on drawing.
#[derive(Debug)]
pub(crate) struct Drawing {
    cache: PngCache,
    /// One permit per draw in flight.
    draws: Arc<tokio::sync::Semaphore>,
    /// One permit per request waiting for (or holding) a draw.
    waiting: Arc<tokio::sync::Semaphore>,
}

impl Drawing {
    fn new() -> Self {
        Self {
            cache: PngCache::with_weighter(CACHE_ENTRIES_ESTIMATE, CACHE_BYTES, PngBytes),
            draws: Arc::new(tokio::sync::Semaphore::new(DRAWS_IN_FLIGHT)),
            waiting: Arc::new(tokio::sync::Semaphore::new(DRAWS_IN_FLIGHT + WAITING_MAX)),
        }
    }
}

/// The route's method router, holding its own PNG cache and draw limits (one per service).
pub(crate) fn route() -> MethodRouter<Arc<ServiceState>> {
    let drawing = Arc::new(Drawing::new());
    get(
        move |State(state): State<Arc<ServiceState>>,
              Path(file): Path<String>,
              Query(params): Query<Params>,
              headers: HeaderMap| {
            let drawing = Arc::clone(&drawing);
            async move { product_image(&state, &drawing, &file, &params, &headers).await }
        },
    )
}

/// `GET /images/products/{slug}.png`: the product's generated placeholder picture.
#[utoipa::path(get, path = "/images/products/{slug}.png", tag = "images",
    params(("slug" = String, Path, description = "Product slug"),
        ("w" = Option<u32>, Query, minimum = 1, maximum = 10000, description = "Width in pixels, 1 to 10000, default 384; rounded up to 48, 96, 192, 384 or 768 (anything above 768 gets 768). The height is two thirds of the width")),
    responses(
        (status = 200, content_type = "image/png", description = "A PNG placeholder in the product's colorway; no key needed. Carries ETag and Cache-Control"),
        (status = 304, description = "The If-None-Match tag is current"),
        (status = 400, body = ErrorBody, description = "Malformed slug or width"),
        (status = 404, body = ErrorBody, description = "No product has this slug"),
        (status = 503, body = ErrorBody, description = "Too many pictures being drawn; retry after Retry-After seconds")))]
pub(crate) async fn product_image(
    state: &Arc<ServiceState>,
    drawing: &Drawing,
    file: &str,
    params: &Params,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let slug = slug_from_file(file)?;
    let width_px = width_from_params(params)?;
    let key = (slug.to_owned(), width_px);
    if let Some(placeholder) = drawing.cache.get(&key) {
        return Ok(answer(&placeholder, headers));
    }
    // A miss: wait for a draw only if few are waiting already.
    let busy = || ApiError::Unavailable {
        message: "too many pictures are being drawn; retry shortly".into(),
        retry_after_secs: RETRY_AFTER_SECS,
    };
    let _waiting = Arc::clone(&drawing.waiting)
        .try_acquire_owned()
        .map_err(|_| busy())?;
    let placeholder = match drawing.cache.get_value_or_guard_async(&key).await {
        Ok(placeholder) => placeholder,
        Err(guard) => {
            // The colorway read and the draw both under a draw permit: a flood holds at most
            // DRAWS_IN_FLIGHT catalogue connections and pictures in memory.
            let permit = Arc::clone(&drawing.draws)
                .acquire_owned()
                .await
                .map_err(|_| busy())?;
            let color = state.catalogue.colorway(slug).await?;
            let slug = slug.to_owned();
            let placeholder = tokio::task::spawn_blocking(move || {
                let _permit = permit;
                render_placeholder(&slug, &color, width_px)
            })
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

/// `?w=`: a whole number from 1 to [`MAX_REQUESTED_WIDTH_PX`], rounded up to one of
/// [`WIDTHS_PX`] (capped at the widest); absent means the default.
fn width_from_params(params: &Params) -> Result<u32, ApiError> {
    let Some(text) = params.get("w") else {
        return Ok(DEFAULT_WIDTH_PX);
    };
    match text.parse::<u32>() {
        Ok(w) if (1..=MAX_REQUESTED_WIDTH_PX).contains(&w) => Ok(supported_width(w)),
        _ => Err(ApiError::BadRequest(format!(
            "w must be a whole number of pixels from 1 to {MAX_REQUESTED_WIDTH_PX}, not {:?}",
            truncate(text, 40)
        ))),
    }
}

/// The narrowest supported width at least `width_px` wide, or the widest.
pub(crate) fn supported_width(width_px: u32) -> u32 {
    WIDTHS_PX
        .into_iter()
        .find(|&w| w >= width_px)
        .unwrap_or(WIDTHS_PX[WIDTHS_PX.len() - 1])
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
    let canvas = draw::draw_sneaker(color, width_px).ok_or_else(|| {
        tracing::error!("a placeholder of {width_px} px could not be drawn");
        ApiError::Internal
    })?;
    let png = canvas.into_png().map_err(|err| {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn widths_round_up_to_the_few_drawn() {
        assert_eq!(supported_width(1), 48);
        assert_eq!(supported_width(96), 96);
        assert_eq!(supported_width(97), 192);
        assert_eq!(supported_width(500), 768);
        assert_eq!(supported_width(10_000), 768);
    }

    #[test]
    fn etags_match_lists_weak_tags_and_star() {
        let tag = b"\"abc\"";
        assert!(etag_matches("\"abc\"", tag));
        assert!(etag_matches("\"x\", W/\"abc\"", tag));
        assert!(etag_matches("*", tag));
        assert!(!etag_matches("\"abd\"", tag));
    }
}
