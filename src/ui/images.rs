//! Product pictures in the panels: a thumbnail for result rows and a larger picture for the
//! product detail. Both take a fixed box, so rows and panels do not jump when a picture lands,
//! and show a neutral frame while it loads, when there is none, and when it fails: a missing
//! picture is not worth an error message.
//!
//! The pictures load through the loaders `app::images::install` puts on the context; these
//! functions only ask for a URL (already mapped by `client::images::image_url_for`).

use egui::load::TexturePoll;
use egui::{Align2, CornerRadius, FontId, Rect, Sense, Spinner, Vec2};

/// Corner radius of picture boxes, in points (less for tiny thumbnails).
const CORNER_RADIUS_PT: f32 = 6.0;
/// Boxes at least this wide get a spinner while loading and a "No image" note when empty.
const DECORATED_MIN_WIDTH_PT: f32 = 96.0;
/// Height over width of the service's placeholders, the usual shape of product pictures.
const PICTURE_ASPECT: f32 = 2.0 / 3.0;

/// A picture of `size` points for a result row. `url` `None` draws the empty frame.
pub fn thumbnail_ui(ui: &mut egui::Ui, url: Option<&str>, size: Vec2) -> egui::Response {
    picture_ui(ui, url, size)
}

/// The product's picture for the detail view: as wide as the space allows up to `max_size.x`,
/// two thirds as high (at most `max_size.y`), fixed before the picture has loaded.
pub fn product_image_ui(ui: &mut egui::Ui, url: Option<&str>, max_size: Vec2) -> egui::Response {
    let width = max_size.x.min(ui.available_width()).max(0.0);
    let height = (width * PICTURE_ASPECT).min(max_size.y).max(0.0);
    picture_ui(ui, url, Vec2::new(width, height))
}

/// The width in physical pixels a box of `size` points needs on this screen: what to ask the
/// service for (`?w=`) so pictures are sharp without fetching more than is shown.
pub fn width_px_for(ui: &egui::Ui, size: Vec2) -> u32 {
    (size.x * ui.pixels_per_point()).ceil().max(1.0) as u32
}

/// Where to load a catalogue image for a box of `size` points on this screen: `image_url`
/// mapped by [`crate::client::images::image_url_for`] (the service's placeholder for hosts that
/// never resolve), asking for as many pixels as the box shows.
pub fn service_url(ui: &egui::Ui, image_url: &str, base_url: &str, size: Vec2) -> Option<String> {
    crate::client::images::image_url_for(image_url, base_url, Some(width_px_for(ui, size)))
}

/// What a picture box shows.
enum Shown {
    Picture(egui::load::SizedTexture),
    Loading,
    Nothing,
}

fn picture_ui(ui: &mut egui::Ui, url: Option<&str>, size: Vec2) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(size, Sense::hover());
    // Rows scrolled out of view neither paint nor start a fetch.
    if !ui.is_rect_visible(rect) {
        return response;
    }
    let radius = CornerRadius::from(CORNER_RADIUS_PT.min(size.min_elem() / 6.0).max(0.0));
    let shown = match url {
        None => Shown::Nothing,
        Some(url) => match egui::Image::new(url).load_for_size(ui.ctx(), size) {
            Ok(TexturePoll::Ready { texture }) => Shown::Picture(texture),
            Ok(TexturePoll::Pending { .. }) => Shown::Loading,
            // Also when no loader is installed (tests without `install`): an empty frame.
            Err(_) => Shown::Nothing,
        },
    };
    let visuals = ui.visuals();
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, radius, visuals.faint_bg_color);
    let decorated = rect.width() >= DECORATED_MIN_WIDTH_PT;
    match shown {
        Shown::Picture(texture) => {
            egui::Image::from_texture(texture)
                .corner_radius(radius)
                .paint_at(ui, fitted(rect, texture.size));
        }
        Shown::Loading => {
            if decorated {
                let spinner_size = (rect.height() / 4.0).clamp(8.0, 24.0);
                Spinner::new().size(spinner_size).paint_at(
                    ui,
                    Rect::from_center_size(rect.center(), Vec2::splat(spinner_size)),
                );
            }
        }
        Shown::Nothing => {
            if decorated {
                painter.text(
                    rect.center(),
                    Align2::CENTER_CENTER,
                    "No image",
                    FontId::proportional(12.0),
                    visuals.weak_text_color(),
                );
            }
        }
    }
    painter.rect_stroke(
        rect,
        radius,
        visuals.widgets.noninteractive.bg_stroke,
        egui::StrokeKind::Inside,
    );
    response
}

/// The largest rectangle of `picture`'s shape centred in `rect`.
fn fitted(rect: Rect, picture: Vec2) -> Rect {
    if picture.x <= 0.0 || picture.y <= 0.0 {
        return rect;
    }
    let scale = (rect.width() / picture.x).min(rect.height() / picture.y);
    Rect::from_center_size(rect.center(), picture * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_fit_inside_their_box_keeping_shape() {
        let rect = Rect::from_min_size(egui::pos2(10.0, 10.0), Vec2::new(100.0, 100.0));
        let wide = fitted(rect, Vec2::new(480.0, 320.0));
        assert!((wide.width() - 100.0).abs() < 1e-3);
        assert!((wide.height() - 100.0 * 2.0 / 3.0).abs() < 1e-3);
        assert_eq!(wide.center(), rect.center());
        assert_eq!(fitted(rect, Vec2::ZERO), rect);
    }

    #[test]
    fn boxes_keep_their_size_whatever_the_picture_does() {
        let ctx = egui::Context::default();
        let mut sizes = Vec::new();
        let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
            sizes.push(thumbnail_ui(ui, None, Vec2::new(64.0, 48.0)).rect.size());
            sizes.push(
                thumbnail_ui(
                    ui,
                    Some("http://127.0.0.1:9/none.png"),
                    Vec2::new(64.0, 48.0),
                )
                .rect
                .size(),
            );
            sizes.push(
                product_image_ui(ui, Some("not a uri"), Vec2::new(300.0, 400.0))
                    .rect
                    .size(),
            );
        });
        // No renderer here to take the font texture.
        output.textures_delta.clear();
        assert_eq!(sizes[0], Vec2::new(64.0, 48.0));
        assert_eq!(sizes[1], Vec2::new(64.0, 48.0));
        assert_eq!(sizes[2], Vec2::new(300.0, 200.0));
    }
}
