//! Replacing a file so that a crash never tears it: the one way every layer writes a whole file
//! (catalogue imports, the search index, exports, and the user's own data after them).
//!
//! The new content goes to a uniquely named temporary file in the target's folder (so two
//! writers never share one, and the rename stays on one file system), is flushed to disk, is
//! renamed over the target in one step, and the folder is flushed so the rename itself survives a
//! power cut. Until the rename the target holds its old content; a temporary file that is never
//! committed deletes itself when dropped. One that a killed process left (never dropped) is
//! removed by a later write of the same target: at once when no process holds its lock (each
//! writer locks its temporary file), or once it has not changed for an hour where the file
//! system has no such locks.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// A temporary file staged beside its target, waiting for [`Staged::commit`].
#[derive(Debug)]
pub struct Staged {
    temporary: tempfile::NamedTempFile,
    target: PathBuf,
}

/// Where locks cannot tell, a temporary file of a target not written to for this long was left
/// by a process that was killed while writing (a crash, `kill -9`): no writer pauses that long
/// (the longest, a hit store at a million products, writes for some 15 s).
const ABANDONED_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// A temporary file that nobody holds the lock of is abandoned once it is this old: a writer
/// creates its file and then locks it, and this covers the moment between the two.
const UNLOCKED_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// The random part of a temporary file's name (`XXXXXX`), and what marks it as one.
const RANDOM_CHARS: usize = 6;
const SUFFIX: &str = ".partial";

/// Starts replacing `target`: creates `.{name}.XXXXXX.partial` in its folder and holds its
/// lock until the write ends (the process's exit releases it, however it ends). Temporary files
/// of the same target abandoned by a killed process are removed first ([`remove_abandoned`]).
pub fn stage(target: &Path) -> std::io::Result<Staged> {
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(target.file_name().unwrap_or(target.as_os_str()));
    prefix.push(".");
    remove_abandoned(folder_of(target), &prefix);
    let temporary = tempfile::Builder::new()
        .prefix(&prefix)
        .rand_bytes(RANDOM_CHARS)
        .suffix(SUFFIX)
        .tempfile_in(folder_of(target))?;
    // Best effort: where the file system has no locks, the age rule alone applies.
    let _ = temporary.as_file().try_lock();
    Ok(Staged {
        temporary,
        target: target.to_path_buf(),
    })
}

impl Staged {
    /// Where the new content is being written (for writers that open the path themselves, such
    /// as SQLite).
    pub fn path(&self) -> &Path {
        self.temporary.path()
    }

    /// The temporary file, to write the new content into.
    pub fn file(&mut self) -> &mut File {
        self.temporary.as_file_mut()
    }

    /// Flushes the new content to disk, renames it over the target, and flushes the folder.
    pub fn commit(self) -> std::io::Result<()> {
        self.temporary.as_file().sync_all()?;
        let folder = folder_of(&self.target).to_path_buf();
        self.temporary
            .persist(&self.target)
            .map_err(|err| err.error)?;
        sync_folder(&folder)
    }
}

/// Replaces `target` with `bytes` (see the module documentation).
pub fn write_bytes(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut staged = stage(target)?;
    staged.file().write_all(bytes)?;
    staged.commit()
}

/// Removes the files `{prefix}XXXXXX.partial` of `folder` (named as [`stage`] names them) that
/// no writer holds: their lock is free and they are [`UNLOCKED_GRACE`] old, or (where the lock
/// cannot be tried) they were not modified for [`ABANDONED_AFTER`]. A killed process never
/// drops its temporary file, and at a million products a hit store's is up to 2 GB, left
/// beside the catalogue for good; a service restarted after a kill during its first start
/// would otherwise hold two of them. Best effort: a file that cannot be read or removed is
/// left, and the write goes on.
fn remove_abandoned(folder: &Path, prefix: &std::ffi::OsStr) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let prefix = prefix.as_encoded_bytes();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.as_encoded_bytes();
        let ours = name.len() == prefix.len() + RANDOM_CHARS + SUFFIX.len()
            && name.starts_with(prefix)
            && name.ends_with(SUFFIX.as_bytes());
        if !ours {
            continue;
        }
        let Some(idle) = entry
            .metadata()
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
        else {
            continue;
        };
        if idle < UNLOCKED_GRACE {
            continue;
        }
        // Held open until the file is removed, so that its lock stays ours meanwhile. Closing
        // it drops any POSIX lock this process holds on the file (closing any descriptor
        // does): SQLite's, when this process is also writing that temporary catalogue. No
        // other connection ever opens a temporary catalogue, so nothing relies on those.
        let probe = File::open(entry.path());
        let abandoned = match probe.as_ref().map(File::try_lock) {
            Ok(Ok(())) => true,
            Ok(Err(std::fs::TryLockError::WouldBlock)) => false,
            Ok(Err(std::fs::TryLockError::Error(_))) | Err(_) => idle >= ABANDONED_AFTER,
        };
        if abandoned && std::fs::remove_file(entry.path()).is_ok() {
            tracing::info!(path = %entry.path().display(), "removed a temporary file a killed process left");
        }
    }
}

fn folder_of(target: &Path) -> &Path {
    match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Flushes a folder's entries (the rename) to disk. Only Unix can open a folder to do so;
/// Windows makes renames durable by itself.
fn sync_folder(folder: &Path) -> std::io::Result<()> {
    if cfg!(unix) {
        File::open(folder)?.sync_all()
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_committed_write_replaces_the_target_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        std::fs::write(&target, b"old").unwrap();
        write_bytes(&target, b"new content").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new content");
        assert_eq!(names_in(dir.path()), ["out.csv"]);
    }

    #[test]
    fn an_uncommitted_write_leaves_the_old_file_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        std::fs::write(&target, b"old").unwrap();
        {
            let mut staged = stage(&target).unwrap();
            staged.file().write_all(b"half of the new").unwrap();
            assert_eq!(std::fs::read(&target).unwrap(), b"old");
            // Dropped without commit: an error on the way.
        }
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert_eq!(names_in(dir.path()), ["out.csv"]);
    }

    #[test]
    fn two_staged_writes_to_one_target_do_not_share_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("index.bin");
        let mut first = stage(&target).unwrap();
        let mut second = stage(&target).unwrap();
        assert_ne!(first.path(), second.path());
        first.file().write_all(b"first").unwrap();
        second.file().write_all(b"second").unwrap();
        first.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"first");
        second.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"second");
    }

    #[test]
    fn a_write_in_progress_keeps_its_temporary_file_however_long_it_is_quiet() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("cat.sqlite.search-index");
        let mut slow = stage(&target).unwrap();
        slow.file().write_all(b"first half").unwrap();
        let two_days = std::time::Duration::from_secs(2 * 86_400);
        slow.file()
            .set_modified(std::time::SystemTime::now() - two_days)
            .unwrap();
        // Another writer of the same target meanwhile: the quiet one holds its lock.
        write_bytes(&target, b"other").unwrap();
        assert!(slow.path().exists());
        slow.file().write_all(b", second half").unwrap();
        slow.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"first half, second half");
        assert_eq!(names_in(dir.path()), ["cat.sqlite.search-index"]);
    }

    #[test]
    fn concurrent_writes_leave_one_whole_file_never_a_mix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("weekly.csv");
        // Large enough that interleaved writes to one shared name would mix.
        let contents: Vec<Vec<u8>> = (b'a'..=b'h').map(|c| vec![c; 1 << 20]).collect();
        for _ in 0..3 {
            std::thread::scope(|scope| {
                for bytes in &contents {
                    let path = &path;
                    scope.spawn(move || write_bytes(path, bytes).unwrap());
                }
            });
            let written = std::fs::read(&path).unwrap();
            assert!(contents.contains(&written), "a torn or mixed file");
            assert_eq!(names_in(dir.path()), ["weekly.csv"]);
        }
    }

    #[test]
    fn a_write_removes_its_targets_temporary_files_a_killed_process_left_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("cat.sqlite.search-hits");
        let file_at = |name: &str, idle: std::time::Duration| {
            let path = dir.path().join(name);
            let file = File::create(&path).unwrap();
            file.set_modified(std::time::SystemTime::now() - idle)
                .unwrap();
        };
        let day = std::time::Duration::from_secs(86_400);
        let minute = std::time::Duration::from_secs(60);
        // Left by killed writers of this target: their locks died with them.
        file_at(".cat.sqlite.search-hits.Eetku4.partial", day);
        file_at(
            ".cat.sqlite.search-hits.GCbhqT.partial",
            2 * ABANDONED_AFTER,
        );
        file_at(".cat.sqlite.search-hits.kLd0aP.partial", minute);
        // Being written by other writers, which hold the lock: one busy, one quiet for a day.
        let writers = [
            (".cat.sqlite.search-hits.ZK1CZq.partial", minute),
            (".cat.sqlite.search-hits.Pq7sW2.partial", day),
        ]
        .map(|(name, idle)| {
            file_at(name, idle);
            let writer = File::options()
                .write(true)
                .open(dir.path().join(name))
                .unwrap();
            writer.try_lock().unwrap();
            writer
        });
        // Just created, not locked yet.
        file_at(
            ".cat.sqlite.search-hits.nEw123.partial",
            std::time::Duration::ZERO,
        );
        // Another target's, and names that only look alike.
        file_at(".cat.sqlite.search-index.iiGJ3S.partial", day);
        file_at(".cat.sqlite.search-hits.notours.partial", day);
        file_at("cat.sqlite.search-hits.Eetku4.partial", day);
        file_at(".cat.sqlite.search-hits.Eetku4.part", day);
        write_bytes(&target, b"hits").unwrap();
        drop(writers);
        assert_eq!(
            names_in(dir.path()),
            [
                ".cat.sqlite.search-hits.Eetku4.part",
                ".cat.sqlite.search-hits.Pq7sW2.partial",
                ".cat.sqlite.search-hits.ZK1CZq.partial",
                ".cat.sqlite.search-hits.nEw123.partial",
                ".cat.sqlite.search-hits.notours.partial",
                ".cat.sqlite.search-index.iiGJ3S.partial",
                "cat.sqlite.search-hits",
                "cat.sqlite.search-hits.Eetku4.partial",
            ]
        );
    }

    #[test]
    fn a_failed_write_keeps_what_was_there_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        // A folder in the way of the rename: the new bytes are written but cannot replace it.
        let blocked = dir.path().join("weekly.csv");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(blocked.join("old"), b"old").unwrap();
        assert!(write_bytes(&blocked, b"new").is_err());
        assert_eq!(std::fs::read(blocked.join("old")).unwrap(), b"old");
        assert_eq!(names_in(dir.path()), ["weekly.csv"]);
        // A folder that does not exist: nothing is written anywhere.
        assert!(write_bytes(&dir.path().join("gone").join("weekly.csv"), b"new").is_err());
        assert_eq!(names_in(dir.path()), ["weekly.csv"]);
    }
}
