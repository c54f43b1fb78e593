//! Exports: the weekly figures as CSV and the chart as PNG, written to the downloads folder off
//! the UI thread, each through [`crate::durable`] so that no crash, failure or second export
//! leaves a torn or mixed file under the final name.

use std::path::Path;

use super::App;

impl App {
    /// Saves `area` of the next frame as a PNG in the export folder: the renderer reads the
    /// frame back, a thread crops and writes it.
    pub(super) fn export_png(&self, ctx: &egui::Context, area: egui::Rect, slug: &str) {
        let name = format!("solescope-weekly-{}.png", file_safe(slug));
        let status = self.status.clone();
        let repaint = ctx.clone();
        let pixels_per_point = ctx.pixels_per_point();
        ctx.request_screenshot(move |image| {
            std::thread::spawn(move || {
                let [width, height] = image.size;
                let whole = egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(width as f32, height as f32) / pixels_per_point,
                );
                let cropped = image.region(&area.intersect(whole), Some(pixels_per_point));
                status.push_outcome(export_path(&name).and_then(|path| {
                    write_png(&path, &cropped)
                        .map(|()| format!("Saved {}", path.display()))
                        .map_err(|err| format!("Could not save the chart: {err}"))
                }));
                repaint.request_repaint();
            });
        });
    }

    /// Writes the weekly figures as CSV to the export folder (off the UI thread) and says
    /// where in the status queue.
    pub(super) fn export_csv(&self, slug: &str, text: String) {
        let name = format!("solescope-weekly-{}.csv", file_safe(slug));
        let status = self.status.clone();
        self.runtime.spawn_blocking(move || {
            status.push_outcome(export_path(&name).and_then(|path| {
                crate::durable::write_bytes(&path, text.as_bytes())
                    .map(|()| format!("Exported to {}", path.display()))
                    .map_err(|err| format!("Could not export: {err}: {}", path.display()))
            }));
        });
    }
}

/// Where an export named `name` goes: the downloads folder, else home. Reads the user-dirs
/// configuration, so it runs with the export, off the UI thread.
pub(super) fn export_path(name: &str) -> Result<std::path::PathBuf, String> {
    directories::UserDirs::new()
        .and_then(|dirs| dirs.download_dir().map(std::path::Path::to_path_buf))
        .or_else(|| directories::BaseDirs::new().map(|dirs| dirs.home_dir().to_path_buf()))
        .map(|dir| dir.join(name))
        .ok_or_else(|| "No downloads or home folder to export to.".to_owned())
}

/// `slug` with anything but letters, digits, `-` and `_` replaced, for a file name.
fn file_safe(slug: &str) -> String {
    let safe: String = slug
        .chars()
        .take(80)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() {
        "product".to_owned()
    } else {
        safe
    }
}

/// Writes `image` to `path` as a PNG, atomically ([`crate::durable::write_bytes`]).
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
    crate::durable::write_bytes(path, png.get_ref())
        .map_err(|err| format!("writing {}: {err}", path.display()))
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
        // Only the PNG: no temporary file left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

        let missing = dir.path().join("no-such-dir").join("shot.png");
        let err = write_png(&missing, &image).unwrap_err();
        assert!(err.contains("no-such-dir"), "{err}");
    }
}
