//! Where to load a product image from: the catalogue's own URL when it can be loaded, the
//! service's generated placeholder when the URL names a host that can never resolve.

use std::fmt::Write as _;

use reqwest::Url;

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
    fn an_unusable_base_gives_none_for_placeholders_only() {
        let catalogue = "https://images.resale-b.example/products/a.jpg";
        assert_eq!(image_url_for(catalogue, "", None), None);
        assert_eq!(image_url_for(catalogue, "ftp://host", None), None);
        let real = "https://cdn.shop.com/a.jpg";
        assert_eq!(image_url_for(real, "", None).as_deref(), Some(real));
    }
}
