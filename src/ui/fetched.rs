//! [`Fetched`]: what a view sees of a value fetched in the background, borrowed from whoever
//! holds the fetch. Views draw it and never start, poll or cancel anything (the app does), so
//! they need neither the app nor the runtime.

use crate::client::ClientError;

/// A value fetched in the background, as a view draws it.
#[derive(Debug)]
pub enum Fetched<'a, T> {
    /// Nothing asked for yet.
    NotYetRequested,
    /// A fetch is in flight; the value it replaces, if any, is still shown (dimmed) meanwhile.
    Pending {
        /// The value of the previous fetch.
        previous: Option<&'a T>,
    },
    /// The fetch succeeded.
    Completed(&'a T),
    /// The fetch failed.
    Failed(&'a ClientError),
}

// Derived `Clone`/`Copy` would ask `T: Copy`; a borrow is copied whatever `T` is.
impl<T> Clone for Fetched<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Fetched<'_, T> {}

impl<'a, T> Fetched<'a, T> {
    /// The latest value: the completed one, or while pending the previous one.
    #[must_use]
    pub fn value(self) -> Option<&'a T> {
        match self {
            Fetched::Completed(value)
            | Fetched::Pending {
                previous: Some(value),
            } => Some(value),
            _ => None,
        }
    }

    /// Whether a fetch is in flight.
    #[must_use]
    pub fn is_pending(self) -> bool {
        matches!(self, Fetched::Pending { .. })
    }

    /// Whether the fetch succeeded.
    #[must_use]
    pub fn is_completed(self) -> bool {
        matches!(self, Fetched::Completed(_))
    }

    /// The error of a failed fetch.
    #[must_use]
    pub fn error(self) -> Option<&'a ClientError> {
        match self {
            Fetched::Failed(err) => Some(err),
            _ => None,
        }
    }
}
