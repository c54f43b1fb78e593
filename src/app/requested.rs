//! [`Requested`]: one value fetched in the background, as the window sees it.
//!
//! The fetch runs on the app's tokio runtime; the window polls the value once a frame, never
//! waits on it. The task wakes the window (`request_repaint`) when it lands, so a finished fetch
//! is shown at once even when nothing else moves.

use std::future::Future;

use tokio::sync::oneshot;

use crate::client::{ClientError, ErrorKind};

/// A value fetched in the background.
#[derive(Debug, Default)]
pub enum Requested<T> {
    /// Nothing asked for yet.
    #[default]
    NotYetRequested,
    /// A fetch is in flight; the value it replaces, if any, is still shown meanwhile.
    Pending {
        /// The value of the previous fetch, shown (dimmed) until the new one lands.
        previous: Option<T>,
        /// Where the task sends its outcome.
        receiver: oneshot::Receiver<Result<T, ClientError>>,
    },
    /// The fetch succeeded.
    Completed(T),
    /// The fetch failed.
    Failed(ClientError),
}

impl<T: Send + 'static> Requested<T> {
    /// Starts `fetch` on `runtime`, replacing any fetch in flight (whose outcome is then
    /// dropped). The current value is kept as the previous one.
    pub fn spawn<F>(&mut self, runtime: &tokio::runtime::Handle, ctx: &egui::Context, fetch: F)
    where
        F: Future<Output = Result<T, ClientError>> + Send + 'static,
    {
        let (sender, receiver) = oneshot::channel();
        let ctx = ctx.clone();
        runtime.spawn(async move {
            // The window may have dropped the receiver (a newer fetch replaced this one).
            let _ = sender.send(fetch.await);
            ctx.request_repaint();
        });
        let previous = self.take_value();
        *self = Requested::Pending { previous, receiver };
    }
}

impl<T> Requested<T> {
    /// Takes in the outcome of a finished fetch, if one arrived since the last poll.
    pub fn poll(&mut self) {
        let Requested::Pending { receiver, .. } = self else {
            return;
        };
        match receiver.try_recv() {
            Ok(Ok(value)) => *self = Requested::Completed(value),
            Ok(Err(err)) => *self = Requested::Failed(err),
            Err(oneshot::error::TryRecvError::Empty) => {}
            Err(oneshot::error::TryRecvError::Closed) => {
                *self = Requested::Failed(ClientError::new(
                    ErrorKind::Connection,
                    "the background task stopped before answering",
                ));
            }
        }
    }

    /// The latest value: the completed one, or while pending the previous one.
    #[must_use]
    pub fn value(&self) -> Option<&T> {
        match self {
            Requested::Completed(value)
            | Requested::Pending {
                previous: Some(value),
                ..
            } => Some(value),
            _ => None,
        }
    }

    /// Whether a fetch is in flight.
    #[must_use]
    pub fn is_pending(&self) -> bool {
        matches!(self, Requested::Pending { .. })
    }

    /// The error of a failed fetch.
    #[must_use]
    pub fn error(&self) -> Option<&ClientError> {
        match self {
            Requested::Failed(err) => Some(err),
            _ => None,
        }
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
    use super::*;

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
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while value.is_pending() && std::time::Instant::now() < deadline {
            std::thread::yield_now();
            value.poll();
        }
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
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while value.is_pending() && std::time::Instant::now() < deadline {
            std::thread::yield_now();
            value.poll();
        }
        assert_eq!(value.error().map(|e| e.message.as_str()), Some("boom"));
        assert_eq!(value.value(), None);
    }
}
