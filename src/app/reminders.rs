//! Reminders of starred drops: a drop the user starred (kept in the user database with when it
//! opens) is shown as a desktop notification `remind_minutes` before it opens, once. The
//! window and `solescope monitor` each run the same small task; the reminder is taken in the
//! user database by one atomic update before it is shown (`UserDb::take_reminder`), so with
//! both running, or after a restart, it is shown once all the same.
//!
//! A reminder is due from `remind_minutes` before the drop opens until [`LATE_MINUTES`] after
//! (a window opened just after the drop still says it opened); after that it is not shown.
//! Now and then the task also asks the service for the calendar and moves a starred drop's
//! time when a source moved it (a moved drop is reminded of again).

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::notify::Notifier;
use crate::client::Client;
use crate::client::releases::ReleasesRequest;
use crate::model::budget::Clock;
use crate::model::releases::{Release, method_words};
use crate::userdb::drops::{DropStar, star_key};
use crate::userdb::{UserDbError, UserDbHandle};

/// Minutes after a drop opened its reminder is still shown.
pub const LATE_MINUTES: i64 = 30;

/// How often the task looks at the stars.
pub const TICK: Duration = Duration::from_secs(15);

/// How often it asks the service whether starred drops moved.
pub const REFRESH_EVERY: Duration = Duration::from_secs(600);

/// When `star` opens.
fn opens(star: &DropStar) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(&star.starts_at)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Whether `star`'s reminder is due at `now` (and not shown yet).
#[must_use]
pub fn is_due(star: &DropStar, now: DateTime<Utc>) -> bool {
    let Some(opens) = opens(star) else {
        return false;
    };
    star.reminded_at.is_none()
        && now >= opens - chrono::Duration::minutes(i64::from(star.remind_minutes))
        && now < opens + chrono::Duration::minutes(LATE_MINUTES)
}

/// The notification of `star` at `now`: title and body.
#[must_use]
pub fn reminder_text(star: &DropStar, now: DateTime<Utc>) -> (String, String) {
    let minutes = opens(star).map_or(0, |t| (t - now).num_minutes());
    let when = match minutes.cmp(&0) {
        std::cmp::Ordering::Greater => format!("opens in {minutes} min"),
        std::cmp::Ordering::Equal => "opens now".to_owned(),
        std::cmp::Ordering::Less => format!("opened {} min ago", -minutes),
    };
    (
        format!("Solescope drop: {}", star.title),
        format!("{} {when} ({})", star.style_code, star.starts_at),
    )
}

/// A star for `release`, reminded `remind_minutes` before it opens (at 00:00 UTC of its day
/// when no time is known).
#[must_use]
pub fn star_of(release: &Release, remind_minutes: u32) -> DropStar {
    let starts_at = release
        .starts_at
        .clone()
        .unwrap_or_else(|| format!("{}T00:00:00Z", release.release_date));
    let title = match &release.method {
        Some(method) => format!("{} ({})", release.title, method_words(method)),
        None => release.title.clone(),
    };
    DropStar {
        key: star_key(&release.style_code, &release.title),
        title,
        style_code: release.style_code.clone(),
        product_id: release.product_id.clone(),
        starts_at,
        remind_minutes,
        reminded_at: None,
    }
}

async fn db_job<T, F>(db: &UserDbHandle, job: F) -> Result<T, UserDbError>
where
    T: Send + 'static,
    F: FnOnce(&mut crate::userdb::UserDb) -> Result<T, UserDbError> + Send + 'static,
{
    let promise = db.run(job);
    tokio::task::spawn_blocking(move || promise.block_and_take())
        .await
        .map_err(|_| UserDbError::Closed)?
}

/// One look at the stars at the clock's now: every due reminder taken and shown. Returns how
/// many this call showed.
///
/// # Errors
/// The user database could not be read.
pub async fn tick(
    db: &UserDbHandle,
    notifier: &Arc<dyn Notifier>,
    clock: &dyn Clock,
) -> Result<usize, UserDbError> {
    let now = clock.now();
    let stars = db_job(db, |db| db.drop_stars()).await?;
    let mut shown = 0;
    for star in stars.into_iter().filter(|star| is_due(star, now)) {
        let key = star.key.clone();
        let at = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        if !db_job(db, move |db| db.take_reminder(&key, &at)).await? {
            continue;
        }
        let (title, body) = reminder_text(&star, now);
        let notifier = Arc::clone(notifier);
        let shown_now = tokio::task::spawn_blocking(move || notifier.remind(&title, &body)).await;
        match shown_now {
            Ok(Ok(())) => shown += 1,
            Ok(Err(err)) => tracing::warn!("{err}"),
            Err(err) => tracing::warn!("a drop reminder: {err}"),
        }
    }
    Ok(shown)
}

/// Moves starred drops whose time a source moved, from the calendar of the next 90 days.
async fn refresh_times(client: &Client, db: &UserDbHandle) -> Result<(), String> {
    let stars = db_job(db, |db| db.drop_stars())
        .await
        .map_err(|e| e.to_string())?;
    if stars.is_empty() {
        return Ok(());
    }
    let answer = client
        .releases_all(
            &ReleasesRequest {
                days: Some(90),
                ..ReleasesRequest::default()
            },
            4,
        )
        .await
        .map_err(|err| err.user_text())?;
    let moved: Vec<DropStar> = stars
        .iter()
        .filter_map(|star| {
            let release = answer
                .releases
                .iter()
                .find(|r| star_key(&r.style_code, &r.title) == star.key)?;
            let now = star_of(release, star.remind_minutes);
            (now.starts_at != star.starts_at).then_some(now)
        })
        .collect();
    for star in moved {
        db_job(db, move |db| db.star_drop(&star))
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Runs the reminders until the user database closes: a look every [`TICK`], the starred
/// drops' times refreshed from `client` every [`REFRESH_EVERY`] when one is given.
pub async fn run(
    client: Option<Client>,
    db: UserDbHandle,
    notifier: Arc<dyn Notifier>,
    clock: Arc<dyn Clock>,
) {
    let mut refreshed_at: Option<std::time::Instant> = None;
    loop {
        if let Some(client) = &client
            && refreshed_at.is_none_or(|at| at.elapsed() >= REFRESH_EVERY)
        {
            refreshed_at = Some(std::time::Instant::now());
            if let Err(err) = refresh_times(client, &db).await {
                tracing::info!("starred drops not refreshed: {err}");
            }
        }
        match tick(&db, &notifier, clock.as_ref()).await {
            Ok(_) => {}
            Err(UserDbError::Closed) => return,
            Err(err) => tracing::warn!("drop reminders: {err:#}"),
        }
        tokio::time::sleep(TICK).await;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::model::budget::ManualClock;
    use crate::model::test_time::at;

    #[derive(Default)]
    struct Counted(Mutex<Vec<(String, String)>>);

    impl Notifier for Counted {
        fn notify(
            &self,
            _: &crate::model::AlertFiring,
        ) -> Result<(), super::super::notify::NotifyError> {
            Ok(())
        }

        fn remind(&self, title: &str, body: &str) -> Result<(), super::super::notify::NotifyError> {
            self.0
                .lock()
                .unwrap()
                .push((title.to_owned(), body.to_owned()));
            Ok(())
        }
    }

    fn star(starts_at: &str) -> DropStar {
        DropStar {
            key: "FV5029141".into(),
            title: "Jordan 4 Retro 'Military Blue' (draw)".into(),
            style_code: "FV5029-141".into(),
            product_id: None,
            starts_at: starts_at.into(),
            remind_minutes: 15,
            reminded_at: None,
        }
    }

    #[test]
    fn due_from_the_lead_until_half_an_hour_after_it_opened() {
        let star = star("2026-12-05T15:00:00Z");
        assert!(!is_due(&star, at("2026-12-05T14:44:59Z")));
        assert!(is_due(&star, at("2026-12-05T14:45:00Z")));
        assert!(is_due(&star, at("2026-12-05T15:29:00Z")));
        assert!(!is_due(&star, at("2026-12-05T15:30:00Z")));
        let shown = DropStar {
            reminded_at: Some("2026-12-05T14:45:00Z".into()),
            ..star
        };
        assert!(!is_due(&shown, at("2026-12-05T14:50:00Z")));
    }

    /// Two runners over one user database (the window's and `solescope monitor`'s), ticking
    /// again and again through the reminder's window: one notification in all.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_reminder_fires_once_from_the_window_and_the_monitor_together() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("user.sqlite");
        let (window_db, opened) = UserDbHandle::spawn(path.clone());
        tokio::task::spawn_blocking(move || opened.block_and_take())
            .await
            .unwrap()
            .unwrap();
        let (monitor_db, opened) = UserDbHandle::spawn(path);
        tokio::task::spawn_blocking(move || opened.block_and_take())
            .await
            .unwrap()
            .unwrap();
        let starred = star("2026-12-05T15:00:00Z");
        db_job(&window_db, move |db| db.star_drop(&starred))
            .await
            .unwrap();
        let counted = Arc::new(Counted::default());
        let notifier: Arc<dyn Notifier> = counted.clone();
        let clock = ManualClock::new(at("2026-12-05T14:30:00Z"));
        // Before the lead: nothing.
        assert_eq!(tick(&window_db, &notifier, &clock).await.unwrap(), 0);
        assert_eq!(tick(&monitor_db, &notifier, &clock).await.unwrap(), 0);
        // Through the window, both runners, every minute, at the same moments.
        clock.set(at("2026-12-05T14:46:00Z"));
        for _ in 0..50 {
            let (a, b) = tokio::join!(
                tick(&window_db, &notifier, &clock),
                tick(&monitor_db, &notifier, &clock)
            );
            a.unwrap();
            b.unwrap();
            clock.advance(60);
        }
        let shown = counted.0.lock().unwrap().clone();
        assert_eq!(shown.len(), 1, "{shown:?}");
        assert_eq!(
            shown[0].0,
            "Solescope drop: Jordan 4 Retro 'Military Blue' (draw)"
        );
        assert!(
            shown[0].1.starts_with("FV5029-141 opens in 14 min"),
            "{:?}",
            shown[0]
        );
        // Starred again with another time: due again, once.
        let moved = star("2026-12-06T15:00:00Z");
        db_job(&monitor_db, move |db| db.star_drop(&moved))
            .await
            .unwrap();
        clock.set(at("2026-12-06T14:50:00Z"));
        tick(&window_db, &notifier, &clock).await.unwrap();
        tick(&monitor_db, &notifier, &clock).await.unwrap();
        assert_eq!(counted.0.lock().unwrap().len(), 2);
    }
}
