//! Telling the user an alert fired: a desktop notification (freedesktop notifications over
//! D-Bus on Linux, the native ones on macOS and Windows, through `notify-rust`), behind a small
//! trait so tests and headless runs can do without one.

use crate::model::{AlertFiring, AlertKind};
use crate::ui::format::money_from_cents;

/// A desktop notification could not be shown.
#[derive(Debug, thiserror::Error)]
#[error("the desktop notification could not be shown: {0}")]
pub struct NotifyError(String);

/// Shows a fired alert to the user. Called off the UI thread (it may block on D-Bus).
pub trait Notifier: Send + Sync {
    /// Shows `firing`.
    fn notify(&self, firing: &AlertFiring) -> Result<(), NotifyError>;

    /// Shows a starred drop's reminder (`app::reminders`). Notifiers that show nothing (tests
    /// of alerts, headless runs) need not implement it.
    fn remind(&self, title: &str, body: &str) -> Result<(), NotifyError> {
        let _ = (title, body);
        Ok(())
    }
}

/// The notification's title and body: product, size, price and source.
#[must_use]
pub fn notification_text(firing: &AlertFiring) -> (String, String) {
    let title = format!("Solescope alert: {}", firing.product.title);
    let price = firing
        .price_cents
        .map(|cents| money_from_cents(cents, &firing.currency));
    let what = match (firing.kind, price) {
        (AlertKind::AskAtOrBelow, Some(price)) => format!("lowest ask {price}"),
        (AlertKind::BidAtOrAbove, Some(price)) => format!("highest bid {price}"),
        (AlertKind::BackInStock, Some(price)) => format!("back in stock at {price}"),
        (_, None) => "back in stock".to_owned(),
    };
    let body = format!(
        "Size {} · {what} on {} ({})",
        firing.size,
        firing.source.as_str(),
        firing.product.style_code
    );
    (title, body)
}

/// The system's desktop notifications.
#[derive(Debug, Clone, Copy, Default)]
pub struct DesktopNotifier;

impl Notifier for DesktopNotifier {
    fn remind(&self, title: &str, body: &str) -> Result<(), NotifyError> {
        notify_rust::Notification::new()
            .appname("Solescope")
            .summary(title)
            .body(body)
            .show()
            .map(drop)
            .map_err(|err| NotifyError(err.to_string()))
    }

    fn notify(&self, firing: &AlertFiring) -> Result<(), NotifyError> {
        let (title, body) = notification_text(firing);
        notify_rust::Notification::new()
            .appname("Solescope")
            .summary(&title)
            .body(&body)
            .show()
            .map(drop)
            .map_err(|err| NotifyError(err.to_string()))
    }
}
