//! The status queue: what background work finished or failed (an export written, a key that
//! could not be stored), shown at the bottom of the window until dismissed.
//!
//! Fetch errors are not here: they are shown inline where the value would be, with a retry.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// How many messages are kept; older ones drop off first.
const MAX_MESSAGES: usize = 5;

/// How bad a status message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Something finished.
    Info,
    /// Something failed; the app goes on without it.
    Error,
}

/// One message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusMessage {
    /// How bad it is.
    pub severity: Severity,
    /// The sentence shown.
    pub text: String,
}

/// The messages waiting to be read, oldest first.
#[derive(Debug, Clone, Default)]
pub struct StatusQueue {
    messages: VecDeque<StatusMessage>,
}

impl StatusQueue {
    /// Adds a message, dropping the oldest past [`MAX_MESSAGES`].
    pub fn push(&mut self, severity: Severity, text: impl Into<String>) {
        if self.messages.len() == MAX_MESSAGES {
            self.messages.pop_front();
        }
        self.messages.push_back(StatusMessage {
            severity,
            text: text.into(),
        });
    }

    /// The messages, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &StatusMessage> {
        self.messages.iter()
    }

    /// Whether there is nothing to show.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Removes the message at `index` (as [`iter`](Self::iter) counts).
    pub fn dismiss(&mut self, index: usize) {
        self.messages.remove(index);
    }
}

/// A [`StatusQueue`] shared between the window and background tasks; clones share one queue.
///
/// The lock is held only to push or read messages, never across I/O, so the window never waits
/// on a task's keyring call or file write.
#[derive(Debug, Clone, Default)]
pub struct SharedStatus(Arc<Mutex<StatusQueue>>);

impl SharedStatus {
    /// The queue, locked (a task that panicked mid-push leaves it usable).
    pub fn lock(&self) -> MutexGuard<'_, StatusQueue> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a message.
    pub fn push(&self, severity: Severity, text: impl Into<String>) {
        self.lock().push(severity, text);
    }

    /// Adds what a background job ended with: its report, or why it failed.
    pub fn push_outcome(&self, outcome: Result<String, String>) {
        match outcome {
            Ok(text) => self.push(Severity::Info, text),
            Err(text) => self.push(Severity::Error, text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_messages_and_dismisses_by_index() {
        let mut queue = StatusQueue::default();
        for n in 0..7 {
            queue.push(Severity::Info, format!("m{n}"));
        }
        let texts: Vec<_> = queue.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["m2", "m3", "m4", "m5", "m6"]);
        queue.dismiss(0);
        assert_eq!(queue.iter().next().unwrap().text, "m3");
        queue.dismiss(99);
        assert_eq!(queue.iter().count(), 4);
    }
}
