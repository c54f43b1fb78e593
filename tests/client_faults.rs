//! The client against a deliberately misbehaving local server (a raw `TcpListener` answering
//! whatever each test scripts): slow answers, 500, 502, HTML error pages, truncated and mistyped
//! JSON, reset connections, 429 with `Retry-After`, a remote without rate-limit headers.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use solescope::client::{BudgetSource, Client, ClientConfig, ErrorKind, RelatedQuery, SearchQuery};
use solescope::model::Tier;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the fake server does with one request.
enum Reply {
    /// An HTTP/1.1 answer with these headers and body (`Content-Length` set from the body).
    Http {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: Vec<u8>,
    },
    /// Waits, then answers.
    After(Duration, Box<Reply>),
    /// Announces `full_len` bytes, sends `body`, and closes.
    CutShort { full_len: usize, body: Vec<u8> },
    /// Resets the connection (RST) without answering.
    Reset,
    /// A 200 JSON answer whose body never ends (chunked, no length), or that announces
    /// `announced` bytes and then streams without end; counts the bytes it managed to send.
    Endless {
        announced: Option<u64>,
        sent: Arc<AtomicU64>,
    },
}

fn json(status: u16, body: &str) -> Reply {
    Reply::Http {
        status,
        headers: vec![("content-type", "application/json".into())],
        body: body.as_bytes().to_vec(),
    }
}

fn with_headers(reply: Reply, extra: &[(&'static str, &str)]) -> Reply {
    match reply {
        Reply::Http {
            status,
            mut headers,
            body,
        } => {
            headers.extend(
                extra
                    .iter()
                    .map(|(name, value)| (*name, (*value).to_owned())),
            );
            Reply::Http {
                status,
                headers,
                body,
            }
        }
        other => other,
    }
}

const STATS: &str = r#"{"datasets":[{"country":"US","currency":"USD","products":3,"variants":9}],"built_at":"2026-11-22T00:00:00Z","schema_version":2}"#;
const RELATED_EMPTY: &str =
    r#"{"status":"success","query":{},"data":[],"meta":{"execution_time":3}}"#;

type Script = dyn Fn(u32) -> Reply + Send + Sync;

/// A scripted server: `script(n)` answers the n-th request (1-based).
struct Fake {
    base_url: String,
    requests: Arc<AtomicU32>,
    heads: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Fake {
    async fn start(script: impl Fn(u32) -> Reply + Send + Sync + 'static) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicU32::new(0));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let task = tokio::spawn({
            let requests = requests.clone();
            let heads = heads.clone();
            async move {
                loop {
                    let Ok((socket, _)) = listener.accept().await else {
                        return;
                    };
                    let (requests, heads, script) =
                        (requests.clone(), heads.clone(), script.clone());
                    tokio::spawn(async move {
                        serve(socket, &requests, &heads, &*script).await;
                    });
                }
            }
        });
        Fake {
            base_url,
            requests,
            heads,
            task,
        }
    }

    fn requests(&self) -> u32 {
        self.requests.load(Ordering::SeqCst)
    }

    fn client(&self, configure: impl FnOnce(&mut ClientConfig)) -> Client {
        let mut config = ClientConfig::new(&self.base_url, Some("fault-test-key".into()));
        config.request_timeout = Duration::from_secs(5);
        config.retry_backoff = Duration::from_millis(10);
        configure(&mut config);
        Client::new(config).unwrap()
    }
}

async fn serve(
    mut socket: TcpStream,
    requests: &AtomicU32,
    heads: &Mutex<Vec<String>>,
    script: &Script,
) {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let n = requests.fetch_add(1, Ordering::SeqCst) + 1;
    heads
        .lock()
        .unwrap()
        .push(String::from_utf8_lossy(&head).into_owned());
    let mut reply = script(n);
    loop {
        match reply {
            Reply::After(wait, next) => {
                tokio::time::sleep(wait).await;
                reply = *next;
            }
            Reply::Http {
                status,
                headers,
                body,
            } => {
                let mut out = format!(
                    "HTTP/1.1 {status} Scripted\r\ncontent-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                for (name, value) in headers {
                    let _ = write!(out, "{name}: {value}\r\n");
                }
                out.push_str("\r\n");
                let mut bytes = out.into_bytes();
                bytes.extend_from_slice(&body);
                let _ = socket.write_all(&bytes).await;
                let _ = socket.shutdown().await;
                return;
            }
            Reply::CutShort { full_len, body } => {
                let mut bytes = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {full_len}\r\n\r\n"
                )
                .into_bytes();
                bytes.extend_from_slice(&body);
                let _ = socket.write_all(&bytes).await;
                return;
            }
            Reply::Reset => {
                let _ = socket.set_zero_linger();
                drop(socket);
                return;
            }
            Reply::Endless { announced, sent } => {
                let framing = announced.map_or_else(
                    || "transfer-encoding: chunked".to_owned(),
                    |length| format!("content-length: {length}"),
                );
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{framing}\r\n\r\n"
                );
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                // Valid JSON that never closes: `[0,0,0,...`.
                let mut piece = b"[".to_vec();
                piece.extend(b"0,".repeat(32 * 1024));
                let piece = if announced.is_some() {
                    piece
                } else {
                    let mut chunk = format!("{:x}\r\n", piece.len()).into_bytes();
                    chunk.extend_from_slice(&piece);
                    chunk.extend_from_slice(b"\r\n");
                    chunk
                };
                // Stops when the client hangs up (or after 1 GiB, far past any cap under test).
                while sent.load(Ordering::SeqCst) < 1 << 30 {
                    if socket.write_all(&piece).await.is_err() {
                        return;
                    }
                    sent.fetch_add(piece.len() as u64, Ordering::SeqCst);
                }
                return;
            }
        }
    }
}

#[tokio::test]
async fn a_slow_server_times_out_within_the_bounds() {
    let fake =
        Fake::start(|_| Reply::After(Duration::from_secs(30), Box::new(json(200, STATS)))).await;
    let client = fake.client(|config| {
        config.request_timeout = Duration::from_millis(200);
        config.retries = 2;
    });
    let started = Instant::now();
    let err = client.stats().await.unwrap_err();
    let elapsed = started.elapsed();
    assert_eq!(err.kind, ErrorKind::Timeout, "{err}");
    assert!(err.is_retryable());
    assert_eq!(err.attempts, 3, "timeouts are retried");
    assert_eq!(fake.requests(), 3);
    assert!(elapsed >= Duration::from_millis(600), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");

    // The whole call is bounded too, whatever the per-request timeout and retries.
    let client = fake.client(|config| {
        config.request_timeout = Duration::from_secs(10);
        config.call_timeout = Duration::from_millis(300);
        config.retries = 10;
    });
    let started = Instant::now();
    let err = client.stats().await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Timeout, "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_500_is_retried_then_reported_with_the_servers_message() {
    let fake = Fake::start(|_| {
        json(
            500,
            r#"{"status":"error","error":"internal_error","message":"internal error"}"#,
        )
    })
    .await;
    let client = fake.client(|config| config.retries = 3);
    let err = client.stats().await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Server, "{err}");
    assert_eq!(err.status, Some(500));
    assert_eq!(err.message, "internal error");
    assert_eq!(err.code.as_deref(), Some("internal_error"));
    assert_eq!(err.attempts, 4);
    assert_eq!(fake.requests(), 4, "1 attempt + 3 retries");
    assert!(err.is_retryable());
}

#[tokio::test]
async fn a_502_then_success_recovers_and_a_lasting_502_keeps_its_message() {
    let fake = Fake::start(|n| {
        if n == 1 {
            json(
                502,
                r#"{"status":"error","error":"upstream_failed","message":"resale-a did not answer"}"#,
            )
        } else {
            json(200, STATS)
        }
    })
    .await;
    let stats = fake.client(|_| {}).stats().await.unwrap();
    assert_eq!(stats.datasets[0].products, 3);
    assert_eq!(fake.requests(), 2);

    let fake = Fake::start(|_| {
        json(
            502,
            r#"{"status":"error","error":"upstream_failed","message":"resale-a did not answer"}"#,
        )
    })
    .await;
    let err = fake
        .client(|config| config.retries = 1)
        .stats()
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Server);
    assert_eq!(err.status, Some(502));
    assert_eq!(err.message, "resale-a did not answer");
    assert_eq!(err.code.as_deref(), Some("upstream_failed"));
    assert_eq!(fake.requests(), 2);
}

#[tokio::test]
async fn html_pages_are_reported_as_not_json() {
    let page =
        "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>";
    let fake = Fake::start(move |n| Reply::Http {
        status: if n <= 2 { 502 } else { 200 },
        headers: vec![("content-type", "text/html".into())],
        body: page.as_bytes().to_vec(),
    })
    .await;
    // An error status keeps its kind (a proxy's 502 is still worth retrying).
    let err = fake
        .client(|config| config.retries = 1)
        .stats()
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Server, "{err}");
    assert_eq!(err.status, Some(502));
    assert!(err.message.contains("not JSON (text/html"), "{err}");
    assert!(err.message.contains("502 Bad Gateway"), "{err}");
    // A 200 with HTML is a decode error, and not retried.
    let before = fake.requests();
    let err = fake.client(|_| {}).stats().await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Decode, "{err}");
    assert!(err.message.contains("not JSON"), "{err}");
    assert!(!err.is_retryable());
    assert_eq!(fake.requests(), before + 1);
}

#[tokio::test]
async fn truncated_json_is_a_decode_error_and_a_cut_connection_a_connection_error() {
    let cut = &STATS[..STATS.len() / 2];
    let fake = Fake::start(move |_| json(200, cut)).await;
    let err = fake.client(|_| {}).stats().await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Decode, "{err}");
    assert!(err.message.contains("EOF"), "{err}");
    assert_eq!(fake.requests(), 1);

    let fake = Fake::start(move |_| Reply::CutShort {
        full_len: STATS.len(),
        body: cut.as_bytes().to_vec(),
    })
    .await;
    let err = fake
        .client(|config| config.retries = 0)
        .stats()
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Connection, "{err}");
    assert!(err.is_retryable());
}

#[tokio::test]
async fn wrong_field_types_name_the_field_path() {
    let wrong = r#"{"datasets":[{"country":"US","currency":"USD","products":3,"variants":9},{"country":"FR","currency":"EUR","products":"many","variants":9}],"built_at":"x","schema_version":2}"#;
    let fake = Fake::start(move |_| json(200, wrong)).await;
    let err = fake.client(|_| {}).stats().await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Decode, "{err}");
    assert!(
        err.message
            .starts_with("datasets[1].products: invalid type: string \"many\""),
        "{err}"
    );

    let wrong =
        r#"{"hits":[],"estimatedTotalHits":0,"limit":"twenty","processingTimeMs":1,"query":""}"#;
    let fake = Fake::start(move |_| json(200, wrong)).await;
    let err = fake
        .client(|_| {})
        .search(&SearchQuery::default())
        .await
        .unwrap_err();
    assert!(err.message.starts_with("limit: invalid type"), "{err}");
}

#[tokio::test]
async fn a_reset_connection_is_a_retryable_connection_error() {
    let fake = Fake::start(|_| Reply::Reset).await;
    let err = fake
        .client(|config| config.retries = 2)
        .stats()
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Connection, "{err}");
    assert!(err.is_retryable());
    assert_eq!(err.attempts, 3);
    assert_eq!(fake.requests(), 3);

    // Nothing listening at all.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut config = ClientConfig::new(format!("http://127.0.0.1:{port}"), None);
    config.retries = 0;
    let err = Client::new(config).unwrap().stats().await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Connection, "{err}");
    assert!(err.message.starts_with("could not connect"), "{err}");
}

#[tokio::test]
async fn a_429_reports_retry_after_and_a_short_one_is_waited_out() {
    let refusal = r#"{"status":"error","error":"rate_limited","message":"real-time limit of 120 requests per minute reached; retry in 30 s"}"#;
    let fake =
        Fake::start(move |_| with_headers(json(429, refusal), &[("retry-after", "30")])).await;
    let client = fake.client(|_| {});
    let err = client
        .resale_b_related("some-id", &RelatedQuery::default())
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::RateLimited, "{err}");
    assert_eq!(err.retry_after, Some(Duration::from_secs(30)));
    assert!(err.message.starts_with("real-time limit of 120"), "{err}");
    assert_eq!(fake.requests(), 1, "a long Retry-After is not waited out");
    assert!(err.is_retryable());
    // The client now knows the budget is spent and does not send another request.
    assert_eq!(client.realtime_budget().remaining, 0);
    let err = client
        .resale_b_related("some-id", &RelatedQuery::default())
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::RateLimited);
    assert_eq!(err.attempts, 0);
    assert!(err.retry_after.unwrap() > Duration::from_secs(28));
    assert_eq!(fake.requests(), 1);

    let fake = Fake::start(move |n| {
        if n == 1 {
            with_headers(json(429, refusal), &[("retry-after", "1")])
        } else {
            json(200, RELATED_EMPTY)
        }
    })
    .await;
    let started = Instant::now();
    let related = fake
        .client(|_| {})
        .resale_b_related("some-id", &RelatedQuery::default())
        .await
        .unwrap();
    assert!(related.data.is_empty());
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After was honoured"
    );
    assert_eq!(fake.requests(), 2);
}

#[tokio::test]
async fn a_remote_without_rate_limit_headers_is_counted_locally() {
    let fake = Fake::start(|_| json(200, RELATED_EMPTY)).await;
    let client = fake.client(|_| {});
    let before = Instant::now();
    for _ in 0..3 {
        client
            .resale_b_related("x", &RelatedQuery::default())
            .await
            .unwrap();
    }
    // Non-real-time calls do not count.
    client.stats().await.unwrap_err();
    let budget = client.realtime_budget();
    assert_eq!(budget.source, BudgetSource::Counted);
    assert_eq!((budget.limit, budget.remaining), (120, 117));
    assert!(budget.resets_at > before + Duration::from_secs(59));
    assert!(budget.resets_at <= Instant::now() + Duration::from_secs(60));
}

#[tokio::test]
async fn a_spent_server_budget_is_respected_without_sending() {
    let fake = Fake::start(|_| {
        with_headers(
            json(200, RELATED_EMPTY),
            &[
                ("x-ratelimit-limit", "120"),
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "40"),
            ],
        )
    })
    .await;
    let client = fake.client(|_| {});
    client
        .resale_b_related("x", &RelatedQuery::default())
        .await
        .unwrap();
    let budget = client.realtime_budget();
    assert_eq!((budget.remaining, budget.source), (0, BudgetSource::Server));
    assert!(budget.is_spent());
    let err = client.resale_a_product("123").await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::RateLimited, "{err}");
    assert!(err.message.contains("as the server reported"), "{err}");
    assert_eq!(fake.requests(), 1);
}

#[tokio::test]
async fn tier_comes_from_any_answer_or_else_the_first_403() {
    // A remote that names no tiers in headers: the 403 message is all there is.
    let fake = Fake::start(|_| {
        json(
            403,
            r#"{"status":"error","error":"forbidden","message":"this needs a pro or ultra key; this key is free"}"#,
        )
    })
    .await;
    let client = fake.client(|_| {});
    let err = client
        .orders("0b7c0c8e-0000-4000-8000-000000000000")
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Forbidden);
    assert_eq!(err.required_tier, Some(Tier::Pro), "from the message");
    assert_eq!(err.attempts, 1, "a 403 is not retried");
    assert_eq!(client.tier(), Some(Tier::Free));

    // X-Key-Type wins, on any answer, errors included.
    let fake = Fake::start(|_| {
        with_headers(
            json(
                404,
                r#"{"status":"error","error":"not_found","message":"no such path"}"#,
            ),
            &[("x-key-type", "ultra")],
        )
    })
    .await;
    let client = fake.client(|_| {});
    let err = client.stats().await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound);
    assert_eq!(client.tier(), Some(Tier::Ultra));
}

#[tokio::test]
async fn requests_carry_the_key_in_the_header_and_ids_as_one_segment() {
    let fake = Fake::start(|_| json(200, RELATED_EMPTY)).await;
    let client = fake.client(|_| {});
    let related = RelatedQuery {
        country: Some("FR".into()),
        currency: Some("EUR".into()),
        market: Some("FR".into()),
    };
    client.resale_b_related("a/b c👟", &related).await.unwrap();
    let heads = fake.heads.lock().unwrap().clone();
    let head = &heads[0];
    assert!(
        head.starts_with(
            "GET /api/v3/realtime/resale-b/products/a%2Fb%20c%F0%9F%91%9F/related?country=FR&currency=EUR&market=FR HTTP/1.1\r\n"
        ),
        "{head}"
    );
    assert!(
        head.to_ascii_lowercase()
            .contains("\r\nauthorization: fault-test-key\r\n"),
        "{head}"
    );
    assert!(
        !head
            .split("\r\n")
            .next()
            .unwrap()
            .contains("fault-test-key")
    );
}

#[tokio::test]
async fn an_oversized_body_is_refused_without_reading_it_all() {
    const CAP: usize = 256 * 1024;
    // No length, a body without end: the client stops at the cap and hangs up.
    let sent = Arc::new(AtomicU64::new(0));
    let fake = Fake::start({
        let sent = sent.clone();
        move |_| Reply::Endless {
            announced: None,
            sent: sent.clone(),
        }
    })
    .await;
    let started = Instant::now();
    let err = fake
        .client(|config| config.max_body_bytes = CAP)
        .stats()
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooLarge, "{err}");
    assert!(!err.is_retryable());
    assert!(err.message.contains("larger than the 256 KB"), "{err}");
    assert_eq!(
        fake.requests(),
        1,
        "a body over the cap is not asked for again"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // The server could push at most the cap plus what socket buffers hold before the client
    // hung up: nowhere near the gigabyte it wanted to send.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let pushed = sent.load(Ordering::SeqCst);
    assert!(
        pushed < 64 * 1024 * 1024,
        "the server pushed {pushed} bytes"
    );

    // A length over the cap is refused before a byte of the body is read.
    let fake = Fake::start(move |_| Reply::Endless {
        announced: Some(10 << 30),
        sent: Arc::new(AtomicU64::new(0)),
    })
    .await;
    let err = fake
        .client(|config| config.max_body_bytes = CAP)
        .search(&SearchQuery::text("jordan"))
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooLarge, "{err}");
    assert!(err.message.contains("announced 10737418240 bytes"), "{err}");

    // An error status with a huge body is capped just the same, and keeps its kind.
    let fake = Fake::start(|_| Reply::Http {
        status: 500,
        headers: vec![("content-type", "text/html".into())],
        body: vec![b'x'; CAP + 1],
    })
    .await;
    let err = fake
        .client(|config| {
            config.max_body_bytes = CAP;
            config.retries = 0;
        })
        .stats()
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Server, "{err}");
    assert_eq!(err.status, Some(500));
    assert!(err.message.contains("larger than the 256 KB"), "{err}");

    // A body exactly at the cap is read.
    let padded = format!("{STATS}{}", " ".repeat(CAP - STATS.len()));
    let fake = Fake::start(move |_| json(200, &padded)).await;
    let stats = fake
        .client(|config| config.max_body_bytes = CAP)
        .stats()
        .await
        .unwrap();
    assert_eq!(stats.datasets.len(), 1);
}
