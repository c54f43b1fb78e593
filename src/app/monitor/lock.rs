//! One monitor checks the alerts at a time: the window's or the headless `solescope monitor`'s.
//! Whichever runs first holds an exclusive lock on `monitor.lock` in the user's data directory
//! (beside `user.sqlite`) for as long as it runs; the operating system releases it when the
//! process ends, killed or not, so a crash never leaves a stale lock behind. The file says who
//! holds it (which kind of monitor, its process id, since when), so the other can say why it
//! does not check.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{TICK, data_dir_of, db_job};
use crate::model::AlertFiring;

/// The lock file's name in the data directory.
pub const LOCK_FILE: &str = "monitor.lock";

/// Which monitor holds the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MonitorKind {
    /// The window's monitor.
    Window,
    /// `solescope monitor`.
    Headless,
}

impl MonitorKind {
    /// Words for a person.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            MonitorKind::Window => "the Solescope window",
            MonitorKind::Headless => "`solescope monitor`",
        }
    }
}

/// Who holds the lock, as its file says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// Which monitor.
    pub kind: MonitorKind,
    /// Its process id.
    pub pid: u32,
    /// When it took the lock (RFC 3339, UTC).
    pub since: String,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (process {}, since {})",
            self.kind.label(),
            self.pid,
            self.since
        )
    }
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another monitor holds it (`None`: it is starting and has not said who it is yet).
    #[error("another monitor checks the alerts: {}; it holds {}", .holder.as_ref().map_or_else(|| "one that is starting".to_owned(), ToString::to_string), .path.display())]
    Held {
        /// Who, when its file says.
        holder: Option<Holder>,
        /// The lock file.
        path: PathBuf,
    },
    /// The file could not be opened or written.
    #[error("the monitor's lock {}: {source}", .path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

/// The lock, held until dropped.
#[derive(Debug)]
pub struct MonitorLock {
    file: File,
    path: PathBuf,
}

impl MonitorLock {
    /// Takes the lock in `dir` for a monitor of `kind`, or says who holds it.
    ///
    /// # Errors
    /// [`LockError::Held`] when another monitor holds it; [`LockError::Io`] when the file
    /// cannot be opened or written.
    pub fn try_acquire(dir: &Path, kind: MonitorKind) -> Result<Self, LockError> {
        let path = dir.join(LOCK_FILE);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(LockError::Held {
                    holder: read_holder(&mut file),
                    path,
                });
            }
            Err(TryLockError::Error(err)) => return Err(io(err)),
        }
        let holder = Holder {
            kind,
            pid: std::process::id(),
            since: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        };
        let text = serde_json::to_string(&holder).unwrap_or_default();
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.write_all(text.as_bytes()).map_err(io)?;
        file.flush().map_err(io)?;
        Ok(Self { file, path })
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for MonitorLock {
    fn drop(&mut self) {
        // Emptied first, so a reader between the two steps never names a gone holder.
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// How often a monitor that does not hold the lock looks for the running one's firings and
/// tries the lock again.
const FOLLOW_EVERY: Duration = Duration::from_secs(5);

impl super::Task {
    /// While another monitor holds the lock: its new firings are shown here (badge, list)
    /// without notifying again, and the lock is tried every [`FOLLOW_EVERY`]. `None` when
    /// stopped first.
    pub(super) async fn follow_until_locked(&mut self, kind: MonitorKind) -> Option<MonitorLock> {
        let dir = match data_dir_of(&self.db).await {
            Ok(dir) => dir,
            Err(err) => {
                self.note_error(&err);
                return None;
            }
        };
        let newest = |firings: &[AlertFiring]| firings.iter().map(|f| f.id).max();
        let mut seen = db_job(&self.db, |db| db.alert_firings())
            .await
            .ok()
            .and_then(|firings| newest(&firings));
        loop {
            if self.handle.lock().stopped {
                return None;
            }
            match MonitorLock::try_acquire(&dir, kind) {
                Ok(lock) => {
                    self.handle.lock().status.waiting = None;
                    return Some(lock);
                }
                Err(err) => {
                    let why = match &err {
                        LockError::Held {
                            holder: Some(holder),
                            ..
                        } => format!("{holder} checks the alerts; what it finds shows here"),
                        other => format!("{other:#}"),
                    };
                    self.handle.lock().status.waiting = Some(why);
                }
            }
            if let Ok(firings) = db_job(&self.db, |db| db.alert_firings()).await {
                let new: Vec<AlertFiring> = firings
                    .into_iter()
                    .filter(|f| seen.is_none_or(|seen| f.id > seen))
                    .collect();
                if let Some(id) = newest(&new) {
                    seen = Some(id);
                    let mut shared = self.handle.lock();
                    shared.status.unseen_firings += new.len();
                    shared.fired.extend(new);
                }
            }
            // In short steps, so that stop is noticed.
            for _ in 0..FOLLOW_EVERY.as_secs() {
                if self.handle.lock().stopped {
                    return None;
                }
                tokio::time::sleep(TICK).await;
            }
        }
    }
}

/// Who holds the lock, from its file (at most 4 KB read).
fn read_holder(file: &mut File) -> Option<Holder> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.take(4096).read_to_string(&mut text).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_monitor_is_told_who_holds_the_lock_and_takes_it_once_released() {
        let dir = tempfile::tempdir().unwrap();
        let first = MonitorLock::try_acquire(dir.path(), MonitorKind::Headless).unwrap();
        let refused = MonitorLock::try_acquire(dir.path(), MonitorKind::Window).unwrap_err();
        match &refused {
            LockError::Held {
                holder: Some(holder),
                ..
            } => {
                assert_eq!(holder.kind, MonitorKind::Headless);
                assert_eq!(holder.pid, std::process::id());
            }
            other => panic!("{other:?}"),
        }
        assert!(
            refused.to_string().contains("`solescope monitor` (process"),
            "{refused}"
        );
        drop(first);
        let second = MonitorLock::try_acquire(dir.path(), MonitorKind::Window).unwrap();
        assert_eq!(second.path(), dir.path().join(LOCK_FILE));
    }
}
