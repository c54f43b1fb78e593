//! Reading an answer's body without ever holding more than a cap of it, and telling JSON from
//! an error page: the plumbing shared by the window's client and the service's upstreams.

use reqwest::header::{self, HeaderMap};

/// Characters of a non-JSON body quoted in an error message.
const BODY_SNIPPET_CHARS: usize = 120;

/// A body longer than the reader's cap. Displayed as a sentence for a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the answer is larger than the {} KB this client reads{}", .max_bytes.div_ceil(1024), announced_text(*.announced_bytes))]
pub struct BodyTooLarge {
    /// The cap that was exceeded.
    pub max_bytes: usize,
    /// The `Content-Length` the server announced, when it did (and it was over the cap).
    pub announced_bytes: Option<u64>,
}

fn announced_text(announced: Option<u64>) -> String {
    announced.map_or_else(String::new, |bytes| {
        format!(" (it announced {bytes} bytes)")
    })
}

/// Why [`read_body_capped`] gave no body.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Over the cap.
    #[error(transparent)]
    TooLarge(#[from] BodyTooLarge),
    /// The connection failed or timed out while reading.
    #[error("reading the body: {0}")]
    Transport(#[from] reqwest::Error),
}

/// Reads `response`'s body, never holding more than `max_bytes` of it: an announced
/// `Content-Length` over the cap fails before reading, and a body that runs past it (a server
/// that lies about or omits its length) fails at the chunk that crosses it. Dropping the
/// response then closes the connection instead of draining the rest.
pub async fn read_body_capped(
    mut response: reqwest::Response,
    max_bytes: usize,
) -> Result<Vec<u8>, ReadError> {
    let announced = response.content_length();
    if let Some(length) = announced.filter(|length| *length > max_bytes as u64) {
        return Err(BodyTooLarge {
            max_bytes,
            announced_bytes: Some(length),
        }
        .into());
    }
    // Preallocate what was announced (it fits the cap), so honest answers copy once.
    let capacity = announced.map_or(0, |length| usize::try_from(length).unwrap_or(0));
    let mut body = Vec::with_capacity(capacity);
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > max_bytes {
            return Err(BodyTooLarge {
                max_bytes,
                announced_bytes: None,
            }
            .into());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A header's value as trimmed text, when it is text.
pub fn header_text<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name)?.to_str().ok().map(str::trim)
}

/// Whether `body` starts (after white space) like a JSON object or array.
pub fn looks_like_json(body: &[u8]) -> bool {
    matches!(
        body.iter().find(|byte| !byte.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// Whether the answer is an HTML page (by its content type or its first bytes): an error,
/// password or bot-check page where JSON was asked for.
pub fn looks_like_html(body: &[u8], headers: &HeaderMap) -> bool {
    let by_type = header_text(headers, header::CONTENT_TYPE.as_str())
        .is_some_and(|value| value.to_ascii_lowercase().starts_with("text/html"));
    let start: Vec<u8> = body
        .iter()
        .skip_while(|byte| byte.is_ascii_whitespace())
        .take(15)
        .map(u8::to_ascii_lowercase)
        .collect();
    by_type || start.starts_with(b"<!doctype html") || start.starts_with(b"<html")
}

/// "the body is not JSON (text/html, 512 bytes): "<!DOCTYPE html>..."".
pub fn not_json(body: &[u8], headers: &HeaderMap) -> String {
    if body.iter().all(u8::is_ascii_whitespace) {
        return "the body is empty".to_owned();
    }
    let content_type =
        header_text(headers, header::CONTENT_TYPE.as_str()).unwrap_or("no content type");
    let text = String::from_utf8_lossy(body);
    let mut snippet: String = text.trim().chars().take(BODY_SNIPPET_CHARS).collect();
    if text.trim().chars().count() > BODY_SNIPPET_CHARS {
        snippet.push('…');
    }
    format!(
        "the body is not JSON ({content_type}, {} bytes): {snippet:?}",
        body.len()
    )
}

/// Decodes a JSON body into `T`, naming the field path of a mismatch (`data[3].price: ...`);
/// `Err` is a sentence for a person.
pub fn decode_json<T: serde::de::DeserializeOwned>(
    body: &[u8],
    headers: &HeaderMap,
) -> Result<T, String> {
    if !looks_like_json(body) {
        return Err(not_json(body, headers));
    }
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let value = serde_path_to_error::deserialize::<_, T>(&mut deserializer).map_err(|err| {
        let path = err.path().to_string();
        if path == "." {
            format!("the body is not the expected JSON: {}", err.inner())
        } else {
            format!("{path}: {}", err.inner())
        }
    })?;
    deserializer
        .end()
        .map_err(|err| format!("the body is not the expected JSON: {err}"))?;
    Ok(value)
}

/// `err` and its causes, `: `-separated, without the URL (the error carries it once; an
/// upstream's URL may carry what the user typed).
pub fn error_chain(err: &reqwest::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|part| part.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    if parts.is_empty() {
        parts.push(if err.is_timeout() {
            "timed out".to_owned()
        } else {
            "request failed".to_owned()
        });
    }
    parts.join(": ")
}

/// `Retry-After` in seconds (the HTTP-date form is ignored).
pub fn retry_after(headers: &HeaderMap) -> Option<std::time::Duration> {
    header_text(headers, header::RETRY_AFTER.as_str())?
        .parse()
        .ok()
        .map(std::time::Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn html_is_told_by_type_or_by_its_first_bytes() {
        let mut html = HeaderMap::new();
        html.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        assert!(looks_like_html(b"{}", &html));
        assert!(looks_like_html(b"  <!DOCTYPE html><p>", &HeaderMap::new()));
        assert!(looks_like_html(b"<HTML><body>", &HeaderMap::new()));
        assert!(!looks_like_html(b"{\"a\":1}", &HeaderMap::new()));
    }

    #[test]
    fn decode_names_the_path_of_a_wrong_type() {
        #[derive(serde::Deserialize, Debug)]
        struct Row {
            #[allow(dead_code)]
            price: i64,
        }
        #[derive(serde::Deserialize, Debug)]
        struct Page {
            #[allow(dead_code)]
            data: Vec<Row>,
        }
        let err = decode_json::<Page>(
            br#"{"data":[{"price":1},{"price":"2"}]}"#,
            &HeaderMap::new(),
        )
        .unwrap_err();
        assert!(err.starts_with("data[1].price: invalid type"), "{err}");
        let err = decode_json::<Page>(b"<html>no</html>", &HeaderMap::new()).unwrap_err();
        assert!(err.contains("not JSON"), "{err}");
    }

    #[test]
    fn retry_after_reads_seconds() {
        let mut headers = HeaderMap::new();
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static(" 7 "));
        assert_eq!(
            retry_after(&headers),
            Some(std::time::Duration::from_secs(7))
        );
        headers.insert(
            header::RETRY_AFTER,
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&headers), None);
    }
}
