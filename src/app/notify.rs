//! Telling the user an alert fired or a new flip turned up: a desktop notification
//! (freedesktop notifications over D-Bus on Linux, the native ones on macOS and Windows,
//! through `notify-rust`), behind a small trait so tests and headless runs can do without one.

use crate::model::flip_prefs::{FlipNotice, NoticeReason};
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

    /// Shows one notification for `notices` (one flip, or a summary of several, as
    /// [`flip_notification_text`] writes it). A notifier made for alert firings only shows
    /// nothing and says so.
    fn notify_flips(&self, notices: &[FlipNotice]) -> Result<(), NotifyError> {
        Err(NotifyError(format!(
            "this notifier shows no flips ({} not shown)",
            notices.len()
        )))
    }
}

/// The title and body of a notification of `notices`: one flip with its size, store, prices,
/// profit and ROI; several as a count with the best of them.
#[must_use]
pub fn flip_notification_text(notices: &[FlipNotice]) -> (String, String) {
    let line = |notice: &FlipNotice| {
        let flip = &notice.flip;
        let money = |cents: i64| money_from_cents(cents, &flip.currency);
        let why = match notice.reason {
            NoticeReason::New => "",
            NoticeReason::Back => " (back in stock)",
            NoticeReason::Rose => " (profit up)",
        };
        format!(
            "US {} at {}: buy {} ({} with costs), {} {} on {}: profit {} ({:.0} %){why} · {}",
            flip.size,
            flip.store,
            money(flip.buy_price_cents),
            money(flip.buy_cost_cents),
            flip.sell_basis,
            money(flip.sell_price_cents),
            flip.sell_venue,
            money(flip.profit_cents),
            flip.roi * 100.0,
            flip.style_code
        )
    };
    if let [one] = notices {
        (format!("Solescope flip: {}", one.flip.title), line(one))
    } else {
        let best = notices.iter().max_by_key(|n| n.flip.profit_cents);
        (
            format!("Solescope: {} new flips", notices.len()),
            best.map_or_else(String::new, |best| {
                format!(
                    "Best: {} {}. All in the Flips tab.",
                    best.flip.title,
                    line(best)
                )
            }),
        )
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
        show(title, body)
    }

    fn notify(&self, firing: &AlertFiring) -> Result<(), NotifyError> {
        let (title, body) = notification_text(firing);
        show(&title, &body)
    }

    fn notify_flips(&self, notices: &[FlipNotice]) -> Result<(), NotifyError> {
        let (title, body) = flip_notification_text(notices);
        show(&title, &body)
    }
}

fn show(title: &str, body: &str) -> Result<(), NotifyError> {
    notify_rust::Notification::new()
        .appname("Solescope")
        .summary(title)
        .body(body)
        .show()
        .map(drop)
        .map_err(|err| NotifyError(err.to_string()))
}
