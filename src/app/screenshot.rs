//! `solescope --screenshot FILE.png`: wait for the first settled frame, have the window's
//! renderer read it back, write it as a PNG, close the window.
//!
//! "Settled" means no fetch in flight and no search waiting for its debounce for
//! [`SETTLE_SECS`] (so images and animations land too). The PNG is written next to its final name
//! and renamed, so a failed run never leaves half a file.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// How long the app must stay idle before the frame counts as settled.
pub const SETTLE_SECS: f64 = 1.0;
/// Give up (and report it) if the app has not settled by then.
pub const TIMEOUT_SECS: f64 = 120.0;

/// What a screenshot run is asked for, and where its outcome lands.
#[derive(Debug, Clone)]
pub struct ScreenshotRequest {
    /// Where the PNG goes.
    pub path: PathBuf,
    /// `Ok` once the file is written, the reason otherwise; `None` until then.
    pub outcome: Arc<Mutex<Option<Result<(), String>>>>,
}

impl ScreenshotRequest {
    /// A request for a PNG at `path`.
    #[must_use]
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            outcome: Arc::default(),
        }
    }

    /// The outcome, once there is one.
    #[must_use]
    pub fn outcome(&self) -> Option<Result<(), String>> {
        self.outcome
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_outcome(&self, outcome: Result<(), String>) {
        *self.outcome.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
    }
}

/// The progress of a screenshot run inside the app.
#[derive(Debug)]
pub(crate) struct ScreenshotRun {
    request: ScreenshotRequest,
    idle_since: Option<f64>,
    started_at: Option<f64>,
    asked: bool,
}

impl ScreenshotRun {
    pub(crate) fn new(request: ScreenshotRequest) -> Self {
        Self {
            request,
            idle_since: None,
            started_at: None,
            asked: false,
        }
    }

    /// Called once a frame, after drawing, with whether the app is idle.
    pub(crate) fn after_frame(&mut self, ctx: &egui::Context, is_idle: bool) {
        let now = ctx.input(|i| i.time);
        let started_at = *self.started_at.get_or_insert(now);
        if self.request.outcome().is_some() {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        if self.asked {
            ctx.request_repaint();
            return;
        }
        if now - started_at > TIMEOUT_SECS {
            self.request.set_outcome(Err(format!(
                "the window did not settle within {TIMEOUT_SECS} s"
            )));
            ctx.request_repaint();
            return;
        }
        if !is_idle {
            self.idle_since = None;
        } else if let Some(since) = self.idle_since {
            if now - since >= SETTLE_SECS {
                self.asked = true;
                let request = self.request.clone();
                let repaint = ctx.clone();
                ctx.request_screenshot(move |image| {
                    // The renderer calls back on the window's thread: encode and write on
                    // another.
                    std::thread::spawn(move || {
                        request.set_outcome(write_png(&request.path, &image));
                        repaint.request_repaint();
                    });
                });
            }
        } else {
            self.idle_since = Some(now);
        }
        ctx.request_repaint_after(std::time::Duration::from_millis(50));
    }
}

/// Writes `image` to `path` as a PNG, through a temporary file renamed into place.
pub fn write_png(path: &Path, image: &egui::ColorImage) -> Result<(), String> {
    let [width, height] = image.size;
    let pixels: Vec<u8> = image
        .pixels
        .iter()
        .flat_map(egui::Color32::to_srgba_unmultiplied)
        .collect();
    let mut png = std::io::Cursor::new(Vec::new());
    image::write_buffer_with_format(
        &mut png,
        &pixels,
        width as u32,
        height as u32,
        image::ColorType::Rgba8,
        image::ImageFormat::Png,
    )
    .map_err(|err| format!("encoding the PNG: {err}"))?;
    write_atomically(path, png.get_ref())
        .map_err(|err| format!("writing {}: {err}", path.display()))
}

/// Writes `bytes` next to `path` and renames the file into place, so a failed write never
/// leaves half a file under the final name.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let written = std::fs::write(&partial, bytes).and_then(|()| std::fs::rename(&partial, path));
    if written.is_err() {
        // Best effort: the partial file is garbage either way.
        let _ = std::fs::remove_file(&partial);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_png_and_leaves_nothing_behind_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shot.png");
        let image = egui::ColorImage::new([4, 3], vec![egui::Color32::RED; 12]);
        write_png(&path, &image).unwrap();
        let decoded = image::open(&path).unwrap().to_rgba8();
        assert_eq!(decoded.dimensions(), (4, 3));
        assert_eq!(decoded.get_pixel(0, 0).0, [255, 0, 0, 255]);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

        let missing = dir.path().join("no-such-dir").join("shot.png");
        let err = write_png(&missing, &image).unwrap_err();
        assert!(err.contains("no-such-dir"), "{err}");
    }
}
