//! Product images from a server the app does not control: where to load one from (the
//! catalogue's own URL when it can be loaded, the service's generated placeholder when the URL
//! names a host that can never resolve), which redirects to follow while loading it (none to
//! another host or scheme), and whether its bytes may be decoded at all (dimension and
//! allocation limits, checked on the header before any pixel is decoded).

use std::fmt::Write as _;
use std::io::Cursor;

use reqwest::Url;
use reqwest::redirect;

/// Top-level domains reserved never to resolve (RFC 2606, RFC 6761): a URL under one of them
/// is a stand-in, not a place to fetch from.
const NEVER_RESOLVING_TLDS: [&str; 3] = ["example", "invalid", "test"];

/// Longest slug mapped, as the service accepts.
const MAX_SLUG_CHARS: usize = 200;

/// The URL to load a product image from, or `None` when there is nothing loadable.
///
/// The generated catalogue (and any catalogue built for demos) stores image URLs such as
/// `https://images.resale-b.example/products/{slug}.jpg`: the `.example`, `.invalid` and `.test`
/// top-level domains are reserved and never resolve, so fetching them would only time out. Such
/// a URL whose path ends in `/products/{slug}.{ext}` is mapped to the placeholder the service
/// draws for that product, `{base_url}/images/products/{slug}.png`, with `?w={width_px}` when a
/// width is given (the service clamps it to 48..=960). This keeps pictures working offline, from
/// the same service the app already talks to, without the catalogue or the service knowing
/// about the app.
///
/// - An `http`/`https` URL on any other host is returned unchanged (trimmed): real images load
///   from where they are.
/// - `localhost` and `*.localhost` are not mapped: they resolve, to this machine (RFC 6761), so
///   such a URL names a real local server.
/// - Empty or unparsable text, other schemes (`file:`, `data:`, ...), a reserved host whose path
///   is not `/products/{slug}.{ext}`, or an unusable `base_url` give `None`: the caller shows
///   its neutral "no image" box.
#[must_use]
pub fn image_url_for(image_url: &str, base_url: &str, width_px: Option<u32>) -> Option<String> {
    let image_url = image_url.trim();
    let url = Url::parse(image_url).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let host = url.host_str()?;
    if !never_resolves(host) {
        return Some(image_url.to_owned());
    }
    let slug = product_slug(&url)?;
    let base = Url::parse(base_url.trim()).ok()?;
    if !matches!(base.scheme(), "http" | "https") || base.host_str().is_none() {
        return None;
    }
    let base = base.as_str().trim_end_matches('/');
    let mut mapped = format!("{base}/images/products/{slug}.png");
    if let Some(width_px) = width_px {
        let _ = write!(mapped, "?w={width_px}");
    }
    Some(mapped)
}

/// Most redirects followed for one image; more is a loop or a server playing games.
pub const MAX_IMAGE_REDIRECTS: usize = 5;

/// The redirect policy for image fetches: follow at most [`MAX_IMAGE_REDIRECTS`] hops, each to
/// the same scheme, host and port as the URL first asked for. A catalogue names an image's
/// host; a redirect must not turn that into a fetch from another host or scheme.
#[must_use]
pub fn same_origin_redirects() -> redirect::Policy {
    crate::upstream::redirect::same_origin(MAX_IMAGE_REDIRECTS)
}

pub use crate::upstream::redirect::is_same_origin as same_origin;

/// How big a picture may be before it is decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageLimits {
    /// Widest picture accepted, in pixels.
    pub max_width_px: u32,
    /// Tallest picture accepted, in pixels.
    pub max_height_px: u32,
    /// Most bytes its decoded pixels may take, counted as RGBA with 8 bits a channel (what the
    /// window turns every picture into).
    pub max_decoded_bytes: u64,
}

impl Default for ImageLimits {
    /// 4096 x 4096 and 64 MiB: far above any product picture (the service draws at most 960 px
    /// wide), far below what would hurt the app.
    fn default() -> Self {
        Self {
            max_width_px: 4096,
            max_height_px: 4096,
            max_decoded_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Why a picture's bytes were refused before decoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageRefused {
    /// Not a format the window decodes (PNG, JPEG, WebP), or a header that does not parse.
    #[error("not a picture this app can show: {0}")]
    Unreadable(String),
    /// Wider, taller or bigger once decoded than [`ImageLimits`] allow.
    #[error(
        "the picture is {width_px} x {height_px} px, more than the {} x {} px and {} MB allowed",
        .limits.max_width_px,
        .limits.max_height_px,
        .limits.max_decoded_bytes / (1024 * 1024)
    )]
    TooLarge {
        /// Width the header claims.
        width_px: u32,
        /// Height the header claims.
        height_px: u32,
        /// The limits it broke.
        limits: ImageLimits,
    },
}

/// Reads only the header of `bytes` (the same format detection the window's decoder uses) and
/// returns the picture's size, or why it must not be decoded: a small file can claim (and
/// decompress to) gigabytes of pixels, so the claim is checked before any decoder allocates.
pub fn check_image_size(bytes: &[u8], limits: ImageLimits) -> Result<(u32, u32), ImageRefused> {
    let unreadable = |err: &dyn std::fmt::Display| ImageRefused::Unreadable(err.to_string());
    let reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|err| unreadable(&err))?;
    if reader.format().is_none() {
        return Err(ImageRefused::Unreadable("unknown format".to_owned()));
    }
    // Without limits: the header alone is read here, and the size is judged below, so that a
    // refusal can say how big the picture claimed to be.
    let (width_px, height_px) = reader.into_dimensions().map_err(|err| unreadable(&err))?;
    let decoded_bytes = u64::from(width_px) * u64::from(height_px) * 4;
    if width_px > limits.max_width_px
        || height_px > limits.max_height_px
        || decoded_bytes > limits.max_decoded_bytes
    {
        return Err(ImageRefused::TooLarge {
            width_px,
            height_px,
            limits,
        });
    }
    Ok((width_px, height_px))
}

/// Whether `host` (as the URL parser gives it: lowercase, IDNA-encoded) is under a top-level
/// domain reserved never to resolve.
fn never_resolves(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    let tld = host.rsplit('.').next().unwrap_or(host);
    NEVER_RESOLVING_TLDS.contains(&tld)
}

/// The `{slug}` of a path ending in `/products/{slug}.{ext}`, if it is a plausible slug.
fn product_slug(url: &Url) -> Option<&str> {
    let mut segments = url.path_segments()?.rev();
    let file = segments.next()?;
    if segments.next()? != "products" {
        return None;
    }
    let (slug, extension) = file.rsplit_once('.')?;
    let plausible_slug = !slug.is_empty()
        && slug.len() <= MAX_SLUG_CHARS
        && slug
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let plausible_extension = !extension.is_empty()
        && extension.len() <= 5
        && extension.bytes().all(|b| b.is_ascii_alphanumeric());
    (plausible_slug && plausible_extension).then_some(slug)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "http://127.0.0.1:4321";

    #[test]
    fn catalogue_urls_map_to_the_placeholder() {
        assert_eq!(
            image_url_for(
                "https://images.resale-b.example/products/air-jordan-1-chicago.jpg",
                BASE,
                None
            )
            .as_deref(),
            Some("http://127.0.0.1:4321/images/products/air-jordan-1-chicago.png")
        );
        assert_eq!(
            image_url_for(
                "https://cdn.shop.invalid/img/products/dunk-low_2.webp",
                "http://127.0.0.1:4321/",
                Some(96)
            )
            .as_deref(),
            Some("http://127.0.0.1:4321/images/products/dunk-low_2.png?w=96")
        );
        // Case, a trailing dot and surrounding spaces do not matter; the base keeps its prefix.
        assert_eq!(
            image_url_for(
                "  HTTPS://Images.Shop.TEST./products/x1.JPG ",
                "https://api.example.com/v1",
                Some(480)
            )
            .as_deref(),
            Some("https://api.example.com/v1/images/products/x1.png?w=480")
        );
    }

    #[test]
    fn real_urls_are_kept() {
        let real = "https://images.example.com/products/air-jordan-1.jpg?fit=fill";
        assert_eq!(image_url_for(real, BASE, Some(96)).as_deref(), Some(real));
        let local = "http://localhost:8080/products/air.png";
        assert_eq!(image_url_for(local, BASE, None).as_deref(), Some(local));
        let shop = "http://shop.localhost/products/air.png";
        assert_eq!(image_url_for(shop, BASE, None).as_deref(), Some(shop));
    }

    #[test]
    fn garbage_gives_none() {
        for text in [
            "",
            "   ",
            "not a url",
            "images.resale-b.example/products/a.jpg",
            "file:///etc/passwd",
            "data:image/png;base64,AAAA",
            "javascript:alert(1)",
            "https://images.resale-b.example/",
            "https://images.resale-b.example/products/",
            "https://images.resale-b.example/products/.jpg",
            "https://images.resale-b.example/products/noext",
            "https://images.resale-b.example/other/a.jpg",
            "https://images.resale-b.example/products/..%2F..%2Fetc.jpg",
            "https://images.resale-b.example/products/caf%C3%A9.jpg",
        ] {
            assert_eq!(image_url_for(text, BASE, None), None, "{text:?}");
        }
        let long = format!(
            "https://images.resale-b.example/products/{}.jpg",
            "a".repeat(5000)
        );
        assert_eq!(image_url_for(&long, BASE, None), None);
    }

    #[test]
    fn same_origin_means_scheme_host_and_port() {
        let url = |text: &str| Url::parse(text).unwrap();
        let first = url("http://127.0.0.1:8080/products/a.png");
        assert!(same_origin(
            &first,
            &url("http://127.0.0.1:8080/other.png?w=96")
        ));
        assert!(same_origin(
            &url("https://cdn.example.com/a"),
            &url("https://CDN.example.com:443/b")
        ));
        for other in [
            "http://127.0.0.1:8081/products/a.png",
            "http://localhost:8080/products/a.png",
            "https://127.0.0.1:8080/products/a.png",
            "file:///products/a.png",
            "http://10.0.0.1:8080/products/a.png",
        ] {
            assert!(!same_origin(&first, &url(other)), "{other}");
        }
    }

    #[test]
    fn an_unusable_base_gives_none_for_placeholders_only() {
        let catalogue = "https://images.resale-b.example/products/a.jpg";
        assert_eq!(image_url_for(catalogue, "", None), None);
        assert_eq!(image_url_for(catalogue, "ftp://host", None), None);
        let real = "https://cdn.shop.com/a.jpg";
        assert_eq!(image_url_for(real, "", None).as_deref(), Some(real));
    }
}
