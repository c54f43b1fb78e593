//! The status queue: what background work finished or failed (an export written, a key that
//! could not be stored), shown at the bottom of the window until dismissed.
//!
//! Fetch errors are not here: they are shown inline where the value would be, with a retry.
//!
//! A message says each thing once: a short sentence (what happened and what it means for the
//! user) and, apart, the detail it came from (a platform error), which the window shows on
//! hover. The same sentence pushed again while it is shown is counted, not listed twice.

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
    /// The sentence shown, short enough for one line.
    pub text: String,
    /// Where it came from (the platform's error text), shown on hover; empty for none.
    pub detail: String,
    /// How many times it was pushed while shown (1 for once).
    pub repeats: u32,
}

impl StatusMessage {
    /// The whole message, for a tooltip or a screen reader: the sentence, then its detail.
    #[must_use]
    pub fn full_text(&self) -> String {
        if self.detail.is_empty() {
            self.text.clone()
        } else {
            format!("{}\n{}", self.text, self.detail)
        }
    }
}

/// The messages waiting to be read, oldest first.
#[derive(Debug, Clone, Default)]
pub struct StatusQueue {
    messages: VecDeque<StatusMessage>,
}

impl StatusQueue {
    /// Adds a message, dropping the oldest past [`MAX_MESSAGES`].
    pub fn push(&mut self, severity: Severity, text: impl Into<String>) {
        self.push_with_detail(severity, text, String::new());
    }

    /// Adds a message with the detail it came from. The same sentence already shown is
    /// counted (and its detail updated) instead of listed again.
    pub fn push_with_detail(
        &mut self,
        severity: Severity,
        text: impl Into<String>,
        detail: impl Into<String>,
    ) {
        let text = text.into();
        let detail = detail.into();
        if let Some(shown) = self
            .messages
            .iter_mut()
            .find(|shown| shown.severity == severity && shown.text == text)
        {
            shown.repeats = shown.repeats.saturating_add(1);
            shown.detail = detail;
            return;
        }
        if self.messages.len() == MAX_MESSAGES {
            self.messages.pop_front();
        }
        self.messages.push_back(StatusMessage {
            severity,
            text,
            detail,
            repeats: 1,
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

    /// Adds a message with the detail it came from (see [`StatusQueue::push_with_detail`]).
    pub fn push_with_detail(
        &self,
        severity: Severity,
        text: impl Into<String>,
        detail: impl Into<String>,
    ) {
        self.lock().push_with_detail(severity, text, detail);
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

    #[test]
    fn a_repeated_sentence_is_counted_not_listed_twice() {
        let mut queue = StatusQueue::default();
        queue.push_with_detail(
            Severity::Error,
            "The key is used for this session only",
            "a",
        );
        queue.push(Severity::Info, "Exported");
        queue.push_with_detail(
            Severity::Error,
            "The key is used for this session only",
            "b",
        );
        let shown: Vec<_> = queue.iter().map(|m| (m.text.as_str(), m.repeats)).collect();
        assert_eq!(
            shown,
            [
                ("The key is used for this session only", 2),
                ("Exported", 1)
            ]
        );
        let first = queue.iter().next().unwrap();
        assert_eq!(first.detail, "b");
        assert_eq!(
            first.full_text(),
            "The key is used for this session only\nb"
        );
        // The same words at another severity are another message.
        queue.push(Severity::Info, "The key is used for this session only");
        assert_eq!(queue.iter().count(), 3);
    }
}
