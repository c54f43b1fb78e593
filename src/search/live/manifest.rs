//! The live index's folder: which files a generation has, the `MANIFEST` that names the
//! generation in force, and the recovery of that generation at a start.
//!
//! - `MANIFEST`: the base's identity and the generation in force, switched last by a merge
//!   (atomically and durably: module `durable`).
//! - `log-<g>.search-log`: the writes since base `g` (module `log`).
//! - `base-<g>.search-index` and `hits-<g>.search-hits`, from the first merge on: the merged
//!   base (module `persist`'s format) and the hits of every product written live (module
//!   `search::hits`' format).
//!
//! A merge writes generation `g + 1` beside `g` and switches the manifest last: a crash at any
//! point leaves `g` whole (its base and complete log), and the next start recovers it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::LiveError;
use super::log::Log;
use super::replay::Replay;
use super::segment::Segment;
use crate::search::hits::overlay;
use crate::search::{HitStore, SearchIndex, persist};

const MANIFEST: &str = "MANIFEST";
const MANIFEST_HEAD: &str = "solescope live index 1";

/// One generation's files in a live index's folder.
pub(super) struct Generation<'a> {
    pub(super) folder: &'a Path,
    pub(super) number: u64,
    /// What its files are made for: the base's identity, mixed with the generation past 0.
    pub(super) files: [u8; 32],
}

impl<'a> Generation<'a> {
    /// Generation `number` of the folder over the base `identity` names.
    pub(super) fn new(folder: &'a Path, identity: &[u8; 32], number: u64) -> Self {
        let files = if number == 0 {
            *identity
        } else {
            let mut hasher = Sha256::new();
            hasher.update(b"solescope live index generation");
            hasher.update(identity);
            hasher.update(number.to_le_bytes());
            hasher.finalize().into()
        };
        Self {
            folder,
            number,
            files,
        }
    }

    pub(super) fn base_path(&self) -> PathBuf {
        self.folder
            .join(format!("base-{}.search-index", self.number))
    }

    pub(super) fn hits_path(&self) -> PathBuf {
        self.folder
            .join(format!("hits-{}.search-hits", self.number))
    }

    pub(super) fn log_path(&self) -> PathBuf {
        self.folder.join(format!("log-{}.search-log", self.number))
    }

    /// Makes this generation the one in force.
    pub(super) fn switch_to(&self, identity: &[u8; 32]) -> Result<(), LiveError> {
        write_manifest(self.folder, identity, self.number)
    }

    /// Opens this generation's write log over `base` and replays it into a segment; a log that
    /// is missing or damaged is started anew (its writes are then lost, and said so).
    pub(super) fn open_log(&self, base: &SearchIndex) -> Result<(Log, Segment), LiveError> {
        let path = self.log_path();
        let mut replay = Replay::new(base);
        let log = Log::open(&path, &self.files, |record| {
            replay.add(record);
            Ok(())
        });
        let new_log = || Log::create(&path, &self.files).map_err(|err| LiveError::io(&path, err));
        match log {
            Ok(Some(log)) => Ok((log, replay.finish())),
            Ok(None) => Ok((new_log()?, Segment::default())),
            Err(LiveError::Damaged { path, what }) => {
                tracing::error!(path = %path.display(), "live index: write log not used ({what}); its writes must be made again");
                Ok((new_log()?, Segment::default()))
            }
            Err(err) => Err(err),
        }
    }
}

/// What a start finds in the folder: the generation in force and, past generation 0, its merged
/// base and the hits of its live products.
pub(super) struct Recovered {
    pub(super) generation: u64,
    pub(super) merged: Option<SearchIndex>,
    pub(super) overlay: Option<Arc<HitStore>>,
}

/// Reads the folder's manifest and the merged base it names. A manifest of another identity
/// drops the folder's files; an unreadable base starts over from generation 0.
pub(super) fn recover(folder: &Path, identity: &[u8; 32]) -> Recovered {
    let generation = match read_manifest(folder) {
        Some((kept, generation)) if kept == *identity => generation,
        Some(_) => {
            tracing::warn!(folder = %folder.display(), "live index: made over another state of its base; its writes are dropped");
            remove_other_generations(folder, u64::MAX);
            0
        }
        None => 0,
    };
    let nothing = Recovered {
        generation: 0,
        merged: None,
        overlay: None,
    };
    if generation == 0 {
        return nothing;
    }
    let kept = Generation::new(folder, identity, generation);
    let path = kept.base_path();
    let merged = match persist::load(&path, &kept.files) {
        Ok(index) => index,
        Err(err) => {
            tracing::error!(path = %path.display(), "live index: its base is unreadable, starting over from the catalogue's (its products must be written again): {err}");
            remove_other_generations(folder, u64::MAX);
            return nothing;
        }
    };
    let hits = kept.hits_path();
    let overlay = match overlay::open_records(&hits, &kept.files) {
        Ok(store) => Some(Arc::new(store)),
        Err(err) => {
            tracing::error!(path = %hits.display(), "live index: the hits of its products are not read: {err}");
            None
        }
    };
    Recovered {
        generation,
        merged: Some(merged),
        overlay,
    }
}

/// The manifest's identity and generation, when there is a readable one.
fn read_manifest(folder: &Path) -> Option<([u8; 32], u64)> {
    let text = std::fs::read_to_string(folder.join(MANIFEST)).ok()?;
    let mut lines = text.lines();
    if lines.next()? != MANIFEST_HEAD {
        return None;
    }
    let identity = lines.next()?.strip_prefix("identity ")?;
    let generation = lines.next()?.strip_prefix("generation ")?.parse().ok()?;
    let mut bytes = [0u8; 32];
    if identity.len() != 64 {
        return None;
    }
    for (at, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(identity.get(2 * at..2 * at + 2)?, 16).ok()?;
    }
    Some((bytes, generation))
}

/// Switches the folder to `generation` (atomically and durably: module `durable`).
fn write_manifest(folder: &Path, identity: &[u8; 32], generation: u64) -> Result<(), LiveError> {
    let hex = identity.iter().fold(String::new(), |mut hex, byte| {
        use std::fmt::Write as _;
        let _ = write!(hex, "{byte:02x}");
        hex
    });
    let text = format!("{MANIFEST_HEAD}\nidentity {hex}\ngeneration {generation}\n");
    let path = folder.join(MANIFEST);
    crate::durable::write_bytes(&path, text.as_bytes()).map_err(|err| LiveError::io(&path, err))
}

/// Removes the folder's files of every generation but `keep`.
pub(super) fn remove_other_generations(folder: &Path, keep: u64) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let generation = ["base-", "hits-", "log-"]
            .iter()
            .find_map(|prefix| name.strip_prefix(prefix))
            .and_then(|rest| rest.split('.').next())
            .and_then(|number| number.parse::<u64>().ok());
        if generation.is_some_and(|generation| generation != keep)
            && let Err(err) = std::fs::remove_file(entry.path())
        {
            tracing::warn!(path = %entry.path().display(), "live index: old file not removed: {err}");
        }
    }
}
