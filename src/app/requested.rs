//! [`Requested`]: one value fetched in the background, as the app holds it.
//!
//! The fetch runs on the app's tokio runtime and answers through a [`poll_promise::Promise`];
//! the frame polls the promise, never waits on it. The task wakes the window
//! (`request_repaint`) when it lands, so a finished fetch is shown at once even when nothing
//! else moves. The task's handle is kept: a fetch that is superseded (a new one spawned in its
//! place) or dropped is aborted, so a stale real-time lookup that has not been sent yet is never
//! sent and spends nothing. Views see the value as a [`Fetched`] borrow.

use std::future::Future;

use poll_promise::{Promise, Sender};

use crate::client::{ClientError, ErrorKind};
use crate::ui::fetched::Fetched;

/// What a fetch answers.
type Outcome<T> = Result<T, ClientError>;

/// A value fetched in the background.
#[derive(Default)]
pub enum Requested<T: Send + 'static> {
    /// Nothing asked for yet.
    #[default]
    NotYetRequested,
    /// A fetch is in flight; the value it replaces, if any, is still shown meanwhile.
    Pending {
        /// The value of the previous fetch, shown (dimmed) until the new one lands.
        previous: Option<T>,
        /// The fetch itself; aborted when dropped.
        in_flight: InFlight<T>,
    },
    /// The fetch succeeded.
    Completed(T),
    /// The fetch failed.
    Failed(ClientError),
}

impl<T: Send + std::fmt::Debug + 'static> std::fmt::Debug for Requested<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Requested::NotYetRequested => f.write_str("NotYetRequested"),
            Requested::Pending { previous, .. } => f
                .debug_struct("Pending")
                .field("previous", previous)
                .finish_non_exhaustive(),
            Requested::Completed(value) => f.debug_tuple("Completed").field(value).finish(),
            Requested::Failed(err) => f.debug_tuple("Failed").field(err).finish(),
        }
    }
}

/// A fetch in flight: the promise the frame polls and the task that feeds it.
pub struct InFlight<T: Send + 'static> {
    promise: Promise<Outcome<T>>,
    _task: AbortOnDrop,
}

/// The task of a fetch, aborted when its fetch is superseded or dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        // Whatever the task has not done yet is no longer wanted. A finished task ignores it.
        self.0.abort();
    }
}

/// The task's end of the promise. `poll_promise` panics on a promise whose sender was dropped
/// without an answer (a task that panicked or was aborted), so the drop answers in its place.
struct Reply<T>(Option<Sender<Outcome<T>>>);

impl<T> Reply<T> {
    fn send(mut self, outcome: Outcome<T>) {
        if let Some(sender) = self.0.take() {
            sender.send(outcome);
        }
    }
}

impl<T> Drop for Reply<T> {
    fn drop(&mut self) {
        if let Some(sender) = self.0.take() {
            sender.send(Err(ClientError::new(
                ErrorKind::Connection,
                "the background task stopped before answering",
            )));
        }
    }
}

impl<T: Send + 'static> Requested<T> {
    /// Starts `fetch` on `runtime`, replacing any fetch in flight, which is aborted. The current
    /// value is kept as the previous one.
    pub fn spawn<F>(&mut self, runtime: &tokio::runtime::Handle, ctx: &egui::Context, fetch: F)
    where
        F: Future<Output = Outcome<T>> + Send + 'static,
    {
        let (sender, promise) = Promise::new();
        let reply = Reply(Some(sender));
        let ctx = ctx.clone();
        let task = runtime.spawn(async move {
            reply.send(fetch.await);
            ctx.request_repaint();
        });
        // Taking the value out drops the old `Pending`, which aborts its task.
        let previous = self.take_value();
        *self = Requested::Pending {
            previous,
            in_flight: InFlight {
                promise,
                _task: AbortOnDrop(task),
            },
        };
    }

    /// Takes in the outcome of a finished fetch, if one arrived since the last poll.
    pub fn poll(&mut self) {
        let Requested::Pending { in_flight, .. } = self else {
            return;
        };
        if in_flight.promise.ready().is_none() {
            return;
        }
        let Requested::Pending { in_flight, .. } = std::mem::take(self) else {
            return;
        };
        // `ready()` above said the answer is there, so `try_take` does not find it pending.
        *self = match in_flight.promise.try_take() {
            Ok(Ok(value)) => Requested::Completed(value),
            Ok(Err(err)) => Requested::Failed(err),
            Err(_) => Requested::Failed(ClientError::new(
                ErrorKind::Connection,
                "the background task stopped before answering",
            )),
        };
    }

    /// The value as a view draws it.
    #[must_use]
    pub fn fetched(&self) -> Fetched<'_, T> {
        match self {
            Requested::NotYetRequested => Fetched::NotYetRequested,
            Requested::Pending { previous, .. } => Fetched::Pending {
                previous: previous.as_ref(),
            },
            Requested::Completed(value) => Fetched::Completed(value),
            Requested::Failed(err) => Fetched::Failed(err),
        }
    }

    /// The latest value: the completed one, or while pending the previous one.
    #[must_use]
    pub fn value(&self) -> Option<&T> {
        self.fetched().value()
    }

    /// Whether a fetch is in flight.
    #[must_use]
    pub fn is_pending(&self) -> bool {
        matches!(self, Requested::Pending { .. })
    }

    /// The error of a failed fetch.
    #[must_use]
    pub fn error(&self) -> Option<&ClientError> {
        self.fetched().error()
    }

    fn take_value(&mut self) -> Option<T> {
        match std::mem::take(self) {
            Requested::Completed(value)
            | Requested::Pending {
                previous: Some(value),
                ..
            } => Some(value),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    use tokio::sync::oneshot;

    use super::*;

    fn wait_until(mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !done() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Polls `value` until its fetch has landed (or 5 s passed).
    fn settle<T: Send + 'static>(value: &mut Requested<T>) {
        wait_until(|| {
            value.poll();
            !value.is_pending()
        });
    }

    #[test]
    fn pending_keeps_the_previous_value_until_the_new_one_lands() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let ctx = egui::Context::default();
        let mut value: Requested<u32> = Requested::Completed(1);
        let (release, wait) = oneshot::channel::<()>();
        value.spawn(runtime.handle(), &ctx, async move {
            let _ = wait.await;
            Ok(2)
        });
        value.poll();
        assert!(value.is_pending());
        assert_eq!(value.value(), Some(&1));
        release.send(()).unwrap();
        settle(&mut value);
        assert_eq!(value.value(), Some(&2));
    }

    #[test]
    fn a_failed_fetch_keeps_its_error() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let ctx = egui::Context::default();
        let mut value: Requested<u32> = Requested::NotYetRequested;
        value.spawn(runtime.handle(), &ctx, async {
            Err(ClientError::new(ErrorKind::Server, "boom"))
        });
        settle(&mut value);
        assert_eq!(value.error().map(|e| e.message.as_str()), Some("boom"));
        assert_eq!(value.value(), None);
    }

    /// Sets its flag when dropped: the future holding it was dropped (aborted) or finished.
    struct DropFlag(Arc<AtomicBool>);

    impl Drop for DropFlag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_superseded_fetch_is_aborted_and_never_reaches_its_end() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let ctx = egui::Context::default();
        let mut value: Requested<u32> = Requested::NotYetRequested;
        let dropped = Arc::new(AtomicBool::new(false));
        let reached_end = Arc::new(AtomicBool::new(false));
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let (flag, end) = (DropFlag(Arc::clone(&dropped)), Arc::clone(&reached_end));
        value.spawn(runtime.handle(), &ctx, async move {
            let _flag = flag;
            started_tx.send(()).unwrap();
            // Stands for a request not sent yet: it would be sent after this wait.
            tokio::time::sleep(Duration::from_secs(30)).await;
            end.store(true, Ordering::SeqCst);
            Ok(1)
        });
        started_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(!dropped.load(Ordering::SeqCst));
        value.spawn(runtime.handle(), &ctx, async { Ok(2) });
        wait_until(|| dropped.load(Ordering::SeqCst));
        assert!(
            dropped.load(Ordering::SeqCst),
            "the first fetch is still running"
        );
        assert!(!reached_end.load(Ordering::SeqCst));
        settle(&mut value);
        assert_eq!(value.value(), Some(&2));
    }

    #[test]
    fn a_dropped_fetch_is_aborted() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let ctx = egui::Context::default();
        let mut value: Requested<u32> = Requested::NotYetRequested;
        let dropped = Arc::new(AtomicBool::new(false));
        let flag = DropFlag(Arc::clone(&dropped));
        value.spawn(runtime.handle(), &ctx, async move {
            let _flag = flag;
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok(1)
        });
        drop(value);
        wait_until(|| dropped.load(Ordering::SeqCst));
        assert!(
            dropped.load(Ordering::SeqCst),
            "the dropped fetch is still running"
        );
    }

    #[test]
    fn a_task_that_panics_is_a_failure_not_a_panic_in_the_window() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let ctx = egui::Context::default();
        let mut value: Requested<u32> = Requested::NotYetRequested;
        value.spawn(runtime.handle(), &ctx, async { panic!("inside the task") });
        settle(&mut value);
        assert!(value.error().is_some());
    }

    #[test]
    fn a_superseded_real_time_lookup_is_abandoned_on_the_wire() {
        use tokio::io::AsyncReadExt as _;

        let runtime = tokio::runtime::Runtime::new().unwrap();
        let ctx = egui::Context::default();
        // A server that reads the request and never answers, then reports how the connection
        // ended: `true` once the client hung up.
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let (got_request_tx, got_request_rx) = std::sync::mpsc::channel();
        let hung_up = runtime.spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut buffer = vec![0_u8; 8192];
            let read = socket.read(&mut buffer).await.unwrap();
            got_request_tx
                .send(String::from_utf8_lossy(&buffer[..read]).into_owned())
                .unwrap();
            loop {
                match tokio::time::timeout(Duration::from_secs(10), socket.read(&mut buffer)).await
                {
                    Ok(Ok(0) | Err(_)) => return true,
                    Ok(Ok(_)) => {}
                    Err(_) => return false,
                }
            }
        });
        let client = crate::client::Client::new(crate::client::ClientConfig::new(
            &base_url,
            Some("demo-pro".into()),
        ))
        .unwrap();
        let mut lookup: Requested<crate::model::ResaleAEnvelope> = Requested::NotYetRequested;
        let first = client.clone();
        lookup.spawn(runtime.handle(), &ctx, async move {
            first.resale_a_product("12345678").await
        });
        let request = got_request_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(request.contains("12345678"), "{request}");
        // The user asks for another product before the first answered.
        lookup.spawn(runtime.handle(), &ctx, async {
            std::future::pending().await
        });
        let hung_up = runtime.block_on(hung_up).unwrap();
        assert!(hung_up, "the superseded lookup kept its request open");
    }
}
