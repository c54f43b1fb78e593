//! A freedesktop notification server on the session bus, for tests that check a fired alert
//! reaches the desktop as a `Notify` call. `.ci/run` runs the tests inside `dbus-run-session`;
//! locally: `dbus-run-session -- cargo test --test alerts`. Without a session bus the caller
//! skips (with a notice), unless `SOLESCOPE_REQUIRE_KEYRING=1` or `CI` is set, where it fails.
// zbus's interface macro reads the `_`-named arguments of the Notify signature it is given.
#![allow(clippy::used_underscore_binding, dead_code)]

use std::collections::HashMap;
use std::sync::mpsc;

/// What the notification server received: (app name, summary, body).
pub type Received = (String, String, String);

struct NotificationServer {
    received: std::sync::Mutex<mpsc::Sender<Received>>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
#[allow(
    clippy::unused_self,
    reason = "the D-Bus methods take every argument of the freedesktop signatures; the macro reads them"
)]
impl NotificationServer {
    #[allow(
        clippy::too_many_arguments,
        reason = "the freedesktop Notify signature"
    )]
    fn notify(
        &self,
        app_name: String,
        _replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        _actions: Vec<String>,
        _hints: HashMap<String, zbus::zvariant::OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        let sender = self.received.lock().unwrap();
        sender.send((app_name, summary, body)).unwrap();
        1
    }

    fn get_capabilities(&self) -> Vec<String> {
        vec!["body".into()]
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "solescope-test".into(),
            "solescope".into(),
            "1".into(),
            "1.2".into(),
        )
    }

    fn close_notification(&self, _id: u32) {}
}

/// Owns `org.freedesktop.Notifications` on the session bus: the connection (keep it alive) and
/// what the server receives. `None` (after a notice) when there is no session bus and none is
/// required.
pub async fn own_notification_bus() -> Option<(zbus::blocking::Connection, mpsc::Receiver<Received>)>
{
    let (sender, received) = mpsc::channel();
    let server = NotificationServer {
        received: std::sync::Mutex::new(sender),
    };
    let bus = tokio::task::spawn_blocking(move || {
        zbus::blocking::connection::Builder::session()?
            .name("org.freedesktop.Notifications")?
            .serve_at("/org/freedesktop/Notifications", server)?
            .build()
    })
    .await
    .unwrap();
    match bus {
        Ok(bus) => Some((bus, received)),
        Err(err) => {
            let required = std::env::var("SOLESCOPE_REQUIRE_KEYRING").is_ok_and(|v| v == "1")
                || std::env::var_os("CI").is_some();
            assert!(!required, "a session bus is required here but: {err}");
            eprintln!("notice: notification test skipped, no session bus: {err}");
            None
        }
    }
}
