//! Replacing a catalogue file in one step, for `catalogue generate` and `catalogue import`
//! alike: the new file is built beside the old one and renamed over it.

use std::path::Path;

use super::CatalogueError;

/// Builds a new file for `out` with `build` (given the path to write), then replaces `out` with
/// it in one step: the file is built under a unique temporary name in `out`'s folder, flushed to
/// disk, renamed over `out`, and the folder is flushed so the rename itself survives a power
/// cut. Until the rename, `out` is untouched; a failed `build` leaves nothing behind.
pub fn write_atomically<T>(
    out: &Path,
    build: impl FnOnce(&Path) -> Result<T, CatalogueError>,
) -> Result<T, CatalogueError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CatalogueError::Io { path, source }
    };
    // Deleted when dropped: on every early return below.
    let partial = crate::durable::stage(out).map_err(io(out))?;
    let outcome = build(partial.path())?;
    partial.commit().map_err(io(out))?;
    Ok(outcome)
}
