//! Links a server hands the app (a product's marketplace pages): which of them may be opened.
//!
//! Opening a URL hands it to the operating system, which runs whatever handler the scheme is
//! registered to (`file:` opens local files, `javascript:` and custom schemes start programs).
//! A remote server is not trusted with that: only web pages are opened.

use reqwest::Url;

/// The URL to open for `link`, when it is an absolute `http` or `https` URL with a host;
/// `None` for anything else (other schemes, relative or unparsable text, credentials in the
/// URL, which a link has no reason to carry and a phishing link uses to hide its host).
#[must_use]
pub fn openable_url(link: &str) -> Option<Url> {
    let url = Url::parse(link.trim()).ok()?;
    let web = matches!(url.scheme(), "http" | "https");
    let has_host = url.host_str().is_some_and(|host| !host.is_empty());
    let has_credentials = !url.username().is_empty() || url.password().is_some();
    (web && has_host && !has_credentials).then_some(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_links_are_opened() {
        for link in [
            "https://resale-b.example/products/air-jordan-1",
            "http://shop.example.com/a?b=c#d",
            "  HTTPS://Shop.Example.com/x  ",
        ] {
            let url = openable_url(link).unwrap_or_else(|| panic!("{link:?} refused"));
            assert!(matches!(url.scheme(), "http" | "https"), "{url}");
        }
    }

    #[test]
    fn other_schemes_and_garbage_are_not() {
        for link in [
            "",
            "not a url",
            "/products/relative",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "ftp://files.example.com/a",
            "mailto:someone@example.com",
            "smb://server/share",
            "vscode://file/etc/passwd",
            "http://user:pass@evil.example/",
            "https://trusted.example@evil.example/",
        ] {
            assert_eq!(openable_url(link), None, "{link:?}");
        }
    }
}
