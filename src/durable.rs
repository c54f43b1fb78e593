//! Replacing a file so that a crash never tears it: the one way every layer writes a whole file
//! (catalogue imports, the search index, exports, and the user's own data after them).
//!
//! The new content goes to a uniquely named temporary file in the target's folder (so two
//! writers never share one, and the rename stays on one file system), is flushed to disk, is
//! renamed over the target in one step, and the folder is flushed so the rename itself survives a
//! power cut. Until the rename the target holds its old content; a temporary file that is never
//! committed deletes itself when dropped.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// A temporary file staged beside its target, waiting for [`Staged::commit`].
#[derive(Debug)]
pub struct Staged {
    temporary: tempfile::NamedTempFile,
    target: PathBuf,
}

/// Starts replacing `target`: creates `.{name}.XXXXXX.partial` in its folder.
pub fn stage(target: &Path) -> std::io::Result<Staged> {
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(target.file_name().unwrap_or(target.as_os_str()));
    prefix.push(".");
    let temporary = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".partial")
        .tempfile_in(folder_of(target))?;
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
