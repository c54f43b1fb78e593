//! The placeholder sneaker: colours read from a colorway string, a side view drawn from a few
//! polygons (outsole, midsole, upper, toe cap, heel counter, stripe, collar, eyelets) with
//! tiny-skia's anti-aliased path filler, encoded as PNG.

use tiny_skia::{
    Color, FillRule, GradientStop, LinearGradient, Paint, PathBuilder, Pixmap, Rect, SpreadMode,
    Transform,
};

/// A float channel value as a byte.
fn channel(value: f32) -> u8 {
    value.round().clamp(0.0, 255.0) as u8
}

/// An sRGB colour with channels in 0..=255, as floats so mixing does not round twice.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Colour {
    r: f32,
    g: f32,
    b: f32,
}

impl Colour {
    const BLACK: Colour = Colour::rgb(0, 0, 0);
    const WHITE: Colour = Colour::rgb(255, 255, 255);
    /// The off-white of most midsoles.
    const MIDSOLE: Colour = Colour::rgb(242, 239, 230);
    /// The warm neutral the background is tinted from.
    const BACKGROUND: Colour = Colour::rgb(236, 234, 229);

    const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Self {
            r: r as f32,
            g: g as f32,
            b: b as f32,
        }
    }

    /// `self` moved toward `other` by `amount` (0 = self, 1 = other).
    fn mix(self, other: Colour, amount: f32) -> Colour {
        Colour {
            r: self.r + (other.r - self.r) * amount,
            g: self.g + (other.g - self.g) * amount,
            b: self.b + (other.b - self.b) * amount,
        }
    }

    /// The colour, opaque, for tiny-skia.
    fn opaque(self) -> Color {
        self.with_opacity(1.0)
    }

    /// The colour at `opacity` (0..=1), for tiny-skia.
    fn with_opacity(self, opacity: f32) -> Color {
        Color::from_rgba8(
            channel(self.r),
            channel(self.g),
            channel(self.b),
            channel(opacity.clamp(0.0, 1.0) * 255.0),
        )
    }

    /// Perceived brightness, 0..=255 (Rec. 601 weights).
    fn luma(self) -> f32 {
        0.299 * self.r + 0.587 * self.g + 0.114 * self.b
    }
}

/// Colour names of the catalogue's colorways that do not say their hue in a common word.
const NAMED_COLOURS: &[(&str, Colour)] = &[
    ("sail", Colour::rgb(236, 228, 208)),
    ("bone", Colour::rgb(227, 218, 201)),
    ("light bone", Colour::rgb(226, 218, 200)),
    ("phantom", Colour::rgb(228, 224, 214)),
    ("egret", Colour::rgb(236, 230, 214)),
    ("parchment", Colour::rgb(228, 218, 190)),
    ("muslin", Colour::rgb(222, 212, 190)),
    ("birch", Colour::rgb(220, 210, 190)),
    ("flax", Colour::rgb(196, 152, 88)),
    ("gum", Colour::rgb(190, 135, 80)),
    ("gum light brown", Colour::rgb(196, 140, 82)),
    ("vanilla ice", Colour::rgb(243, 236, 210)),
    ("almond milk", Colour::rgb(232, 220, 200)),
    ("coconut milk", Colour::rgb(238, 232, 218)),
    ("pale ivory", Colour::rgb(239, 233, 214)),
    ("sea salt", Colour::rgb(232, 230, 222)),
    ("moonbeam", Colour::rgb(226, 222, 210)),
    ("timberwolf", Colour::rgb(200, 200, 196)),
    ("onyx", Colour::rgb(38, 38, 40)),
    ("slate", Colour::rgb(112, 122, 132)),
    ("castlerock", Colour::rgb(110, 112, 114)),
    ("beluga", Colour::rgb(140, 140, 132)),
    ("carbon beluga", Colour::rgb(120, 122, 116)),
    ("aluminum", Colour::rgb(190, 196, 204)),
    ("rain cloud", Colour::rgb(170, 172, 170)),
    ("wolf grey", Colour::rgb(180, 182, 186)),
    ("cool grey", Colour::rgb(150, 152, 156)),
    ("cement grey", Colour::rgb(170, 168, 164)),
    ("oyster grey", Colour::rgb(196, 192, 184)),
    ("grey fog", Colour::rgb(214, 214, 212)),
    ("light iron ore", Colour::rgb(160, 158, 152)),
    ("dark pewter", Colour::rgb(86, 86, 84)),
    ("coast", Colour::rgb(160, 200, 220)),
    ("university blue", Colour::rgb(130, 178, 222)),
    ("legend blue", Colour::rgb(150, 190, 220)),
    ("semi lucid blue", Colour::rgb(150, 180, 220)),
    ("royal blue", Colour::rgb(30, 70, 170)),
    ("midnight navy", Colour::rgb(26, 34, 64)),
    ("pine green", Colour::rgb(20, 90, 60)),
    ("malachite", Colour::rgb(20, 120, 90)),
    ("scarlet", Colour::rgb(200, 30, 30)),
    ("garnet", Colour::rgb(120, 20, 34)),
    ("gym red", Colour::rgb(170, 20, 40)),
    ("clay canyon", Colour::rgb(170, 100, 70)),
    ("mocha", Colour::rgb(120, 85, 60)),
    ("dark mocha", Colour::rgb(90, 60, 45)),
    ("baroque brown", Colour::rgb(110, 75, 50)),
    ("cargo khaki", Colour::rgb(150, 140, 100)),
];

/// Hues named by a common word anywhere in a colour name (`University Red`, `Core Black`).
const HUE_WORDS: &[(&str, Colour)] = &[
    ("black", Colour::rgb(24, 24, 26)),
    ("white", Colour::rgb(246, 246, 244)),
    ("cream", Colour::rgb(240, 230, 205)),
    ("ivory", Colour::rgb(239, 233, 214)),
    ("grey", Colour::rgb(150, 150, 150)),
    ("gray", Colour::rgb(150, 150, 150)),
    ("graphite", Colour::rgb(90, 92, 96)),
    ("silver", Colour::rgb(192, 194, 198)),
    ("red", Colour::rgb(196, 22, 40)),
    ("crimson", Colour::rgb(190, 30, 50)),
    ("blue", Colour::rgb(40, 90, 190)),
    ("navy", Colour::rgb(26, 34, 64)),
    ("teal", Colour::rgb(20, 128, 128)),
    ("green", Colour::rgb(0, 120, 70)),
    ("olive", Colour::rgb(120, 120, 70)),
    ("yellow", Colour::rgb(250, 200, 30)),
    ("gold", Colour::rgb(210, 165, 60)),
    ("orange", Colour::rgb(235, 105, 30)),
    ("pink", Colour::rgb(240, 120, 165)),
    ("purple", Colour::rgb(100, 55, 150)),
    ("violet", Colour::rgb(120, 80, 170)),
    ("brown", Colour::rgb(120, 80, 50)),
    ("tan", Colour::rgb(200, 170, 130)),
    ("khaki", Colour::rgb(170, 160, 120)),
];

/// The RGB of one colour name of a colorway. Unknown names get a muted colour derived from the
/// name, so they still differ from each other and never change between runs.
fn colour_from_name(name: &str) -> Colour {
    let name = name.trim().to_ascii_lowercase();
    if let Some((_, colour)) = NAMED_COLOURS.iter().find(|(known, _)| *known == name) {
        return *colour;
    }
    let words: Vec<&str> = name.split_whitespace().collect();
    // The hue word is usually last (`Light Smoke Grey`), so look from the end.
    let hue = words
        .iter()
        .rev()
        .find_map(|word| HUE_WORDS.iter().find(|(hue, _)| hue == word))
        .map(|(_, colour)| *colour);
    let Some(mut colour) = hue else {
        return colour_from_hash(&name);
    };
    for word in &words {
        match *word {
            "light" | "pale" | "summit" | "cloud" => colour = colour.mix(Colour::WHITE, 0.35),
            "dark" | "deep" | "midnight" => colour = colour.mix(Colour::BLACK, 0.35),
            _ => {}
        }
    }
    colour
}

/// A muted, mid-light colour picked by a stable hash of `name` (FNV-1a).
fn colour_from_hash(name: &str) -> Colour {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let hue_degrees = (hash % 360) as f32;
    colour_from_hsl(hue_degrees, 0.30, 0.55)
}

/// HSL (hue in degrees, saturation and lightness in 0..=1) to RGB.
fn colour_from_hsl(hue_degrees: f32, saturation: f32, lightness: f32) -> Colour {
    let chroma = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let sector = hue_degrees / 60.0;
    let second = chroma * (1.0 - (sector % 2.0 - 1.0).abs());
    let (red, green, blue) = match sector as u32 {
        0 => (chroma, second, 0.0),
        1 => (second, chroma, 0.0),
        2 => (0.0, chroma, second),
        3 => (0.0, second, chroma),
        4 => (second, 0.0, chroma),
        _ => (chroma, 0.0, second),
    };
    let lift = lightness - chroma / 2.0;
    Colour {
        r: (red + lift) * 255.0,
        g: (green + lift) * 255.0,
        b: (blue + lift) * 255.0,
    }
}

/// The colours a picture is drawn in, read from a colorway string like
/// `White/Black-University Red` (main colour first).
#[derive(Debug, Clone, Copy)]
struct Palette {
    /// The upper.
    main: Colour,
    /// Toe cap and heel counter.
    secondary: Colour,
    /// The side stripe.
    accent: Colour,
    /// The outsole: gum when the colorway names it, otherwise a dark version of the accent.
    outsole: Colour,
}

impl Palette {
    fn from_colorway(colorway: &str) -> Self {
        let names: Vec<&str> = colorway
            .split(['/', '-'])
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .collect();
        let colours: Vec<Colour> = names.iter().map(|name| colour_from_name(name)).collect();
        let main = colours
            .first()
            .copied()
            .unwrap_or(Colour::rgb(200, 200, 200));
        let secondary = colours.get(1).copied().unwrap_or(main);
        let accent = colours.get(2).copied().unwrap_or(secondary);
        let gum = names
            .iter()
            .any(|name| name.to_ascii_lowercase().contains("gum"));
        let outsole = if gum {
            colour_from_name("gum")
        } else {
            accent.mix(Colour::BLACK, 0.35)
        };
        Self {
            main,
            secondary,
            accent,
            outsole,
        }
    }
}

/// A point in pixels (or, before [`ShoeFrame::place`], in the shoe's unit box).
type Point = (f32, f32);

/// An opaque RGB picture being drawn: a tiny-skia pixmap, filled with anti-aliased paths.
pub(super) struct Canvas {
    pixmap: Pixmap,
}

impl Canvas {
    /// A canvas filled with a vertical gradient from `top` to `bottom`; `None` for a zero size.
    fn with_gradient(width: u32, height: u32, top: Colour, bottom: Colour) -> Option<Self> {
        let mut pixmap = Pixmap::new(width, height)?;
        let shader = LinearGradient::new(
            tiny_skia::Point::from_xy(0.0, 0.0),
            tiny_skia::Point::from_xy(0.0, height as f32),
            vec![
                GradientStop::new(0.0, top.opaque()),
                GradientStop::new(1.0, bottom.opaque()),
            ],
            SpreadMode::Pad,
            Transform::identity(),
        )?;
        let paint = Paint {
            shader,
            ..Paint::default()
        };
        pixmap.fill_rect(
            Rect::from_xywh(0.0, 0.0, width as f32, height as f32)?,
            &paint,
            Transform::identity(),
            None,
        );
        Some(Self { pixmap })
    }

    /// Fills `polygon` (pixels, even-odd rule) with `colour` at `opacity`, edges anti-aliased.
    fn fill(&mut self, polygon: &[Point], colour: Colour, opacity: f32) {
        let mut builder = PathBuilder::new();
        let mut points = polygon.iter();
        let Some(&(x, y)) = points.next() else {
            return;
        };
        builder.move_to(x, y);
        for &(x, y) in points {
            builder.line_to(x, y);
        }
        builder.close();
        // Fewer than three distinct points make no area: nothing to draw.
        let Some(path) = builder.finish() else {
            return;
        };
        let mut paint = Paint::default();
        paint.set_color(colour.with_opacity(opacity));
        paint.anti_alias = true;
        self.pixmap.fill_path(
            &path,
            &paint,
            FillRule::EvenOdd,
            Transform::identity(),
            None,
        );
    }

    /// Width and height in pixels.
    pub(super) fn size(&self) -> (u32, u32) {
        (self.pixmap.width(), self.pixmap.height())
    }

    /// The pixels as RGB, three bytes a pixel. Every pixel is opaque (the background is), so
    /// the pixmap's premultiplied channels are the plain ones.
    pub(super) fn rgb(&self) -> Vec<u8> {
        self.pixmap
            .data()
            .chunks_exact(4)
            .flat_map(|pixel| [pixel[0], pixel[1], pixel[2]])
            .collect()
    }

    /// The picture as PNG bytes.
    pub(super) fn into_png(self) -> Result<Vec<u8>, image::ImageError> {
        use image::ImageEncoder as _;
        let (width, height) = self.size();
        let mut png = Vec::new();
        image::codecs::png::PngEncoder::new_with_quality(
            &mut png,
            image::codecs::png::CompressionType::Default,
            image::codecs::png::FilterType::Adaptive,
        )
        .write_image(&self.rgb(), width, height, image::ExtendedColorType::Rgb8)?;
        Ok(png)
    }
}

/// Rounds a closed polygon's corners (Chaikin's corner cutting), `rounds` times.
fn smooth(points: &[Point], rounds: u32) -> Vec<Point> {
    let mut current = points.to_vec();
    for _ in 0..rounds {
        let mut next = Vec::with_capacity(current.len() * 2);
        for (index, &(x0, y0)) in current.iter().enumerate() {
            let (x1, y1) = current[(index + 1) % current.len()];
            next.push((0.75 * x0 + 0.25 * x1, 0.75 * y0 + 0.25 * y1));
            next.push((0.25 * x0 + 0.75 * x1, 0.25 * y0 + 0.75 * y1));
        }
        current = next;
    }
    current
}

/// An ellipse as a polygon.
fn ellipse(center: Point, radius_x: f32, radius_y: f32) -> Vec<Point> {
    const STEPS: u32 = 48;
    (0..STEPS)
        .map(|step| {
            let angle = step as f32 / STEPS as f32 * std::f32::consts::TAU;
            (
                center.0 + radius_x * angle.cos(),
                center.1 + radius_y * angle.sin(),
            )
        })
        .collect()
}

/// Twice the signed area (positive when the y-down polygon runs clockwise on screen).
fn signed_area(polygon: &[Point]) -> f32 {
    polygon
        .iter()
        .enumerate()
        .map(|(index, &(x0, y0))| {
            let (x1, y1) = polygon[(index + 1) % polygon.len()];
            x0 * y1 - x1 * y0
        })
        .sum()
}

/// `subject` clipped to the convex polygon `clip` (Sutherland-Hodgman).
fn clip_to_convex(subject: &[Point], clip: &[Point]) -> Vec<Point> {
    let orientation = signed_area(clip).signum();
    let inside = |(ax, ay): Point, (bx, by): Point, (px, py): Point| {
        ((bx - ax) * (py - ay) - (by - ay) * (px - ax)) * orientation >= 0.0
    };
    let mut output = subject.to_vec();
    for (index, &edge_from) in clip.iter().enumerate() {
        let edge_to = clip[(index + 1) % clip.len()];
        let input = std::mem::take(&mut output);
        for (i, &current) in input.iter().enumerate() {
            let previous = input[(i + input.len() - 1) % input.len()];
            let current_in = inside(edge_from, edge_to, current);
            let previous_in = inside(edge_from, edge_to, previous);
            if current_in != previous_in {
                output.push(intersection(previous, current, edge_from, edge_to));
            }
            if current_in {
                output.push(current);
            }
        }
        if output.is_empty() {
            break;
        }
    }
    output
}

/// Where segment `from`-`to` crosses the line through `line_from` and `line_to`.
fn intersection(from: Point, to: Point, line_from: Point, line_to: Point) -> Point {
    let segment = (to.0 - from.0, to.1 - from.1);
    let line = (line_to.0 - line_from.0, line_to.1 - line_from.1);
    let denominator = segment.0 * line.1 - segment.1 * line.0;
    if denominator.abs() < f32::EPSILON {
        return from;
    }
    let along = ((line_from.0 - from.0) * line.1 - (line_from.1 - from.1) * line.0) / denominator;
    (from.0 + along * segment.0, from.1 + along * segment.1)
}

/// `polygon` pushed outward by `distance` along each vertex's normal: an outline when filled
/// beneath the original.
fn inflate(polygon: &[Point], distance: f32) -> Vec<Point> {
    let outward = -signed_area(polygon).signum();
    polygon
        .iter()
        .enumerate()
        .map(|(index, &(x, y))| {
            let (px, py) = polygon[(index + polygon.len() - 1) % polygon.len()];
            let (nx, ny) = polygon[(index + 1) % polygon.len()];
            let (tx, ty) = (nx - px, ny - py);
            let length = tx.hypot(ty).max(f32::EPSILON);
            (
                x + outward * ty / length * distance,
                y - outward * tx / length * distance,
            )
        })
        .collect()
}

/// Maps the shoe's unit box (x from heel to toe, y downward) onto the canvas.
struct ShoeFrame {
    left: f32,
    top: f32,
    width: f32,
    height: f32,
}

impl ShoeFrame {
    fn place(&self, points: &[Point]) -> Vec<Point> {
        points
            .iter()
            .map(|&(x, y)| (self.left + x * self.width, self.top + y * self.height))
            .collect()
    }
}

/// The upper's outline in the unit box, heel at the left, before smoothing.
const UPPER: &[Point] = &[
    (0.07, 0.80),
    (0.04, 0.62),
    (0.05, 0.42),
    (0.09, 0.27),
    (0.16, 0.22),
    (0.26, 0.29),
    (0.36, 0.32),
    (0.42, 0.19),
    (0.48, 0.15),
    (0.53, 0.19),
    (0.63, 0.32),
    (0.75, 0.42),
    (0.87, 0.49),
    (0.96, 0.56),
    (0.995, 0.67),
    (0.97, 0.80),
];

/// The midsole, with the toe curving up.
const MIDSOLE: &[Point] = &[
    (0.02, 0.73),
    (0.45, 0.75),
    (0.86, 0.74),
    (0.99, 0.69),
    (1.02, 0.78),
    (0.96, 0.89),
    (0.50, 0.90),
    (0.04, 0.90),
    (0.01, 0.82),
];

/// The outsole, showing as a strip under the midsole.
const OUTSOLE: &[Point] = &[
    (0.02, 0.85),
    (0.97, 0.84),
    (0.97, 0.92),
    (0.90, 0.955),
    (0.06, 0.955),
    (0.02, 0.92),
];

/// The side stripe across the quarter panel.
const STRIPE: &[Point] = &[
    (0.17, 0.70),
    (0.40, 0.58),
    (0.66, 0.47),
    (0.75, 0.46),
    (0.70, 0.53),
    (0.45, 0.645),
    (0.24, 0.74),
];

/// The dark collar opening along the top of the heel.
const COLLAR: &[Point] = &[
    (0.11, 0.265),
    (0.17, 0.235),
    (0.26, 0.30),
    (0.37, 0.325),
    (0.40, 0.27),
    (0.39, 0.35),
    (0.26, 0.335),
    (0.16, 0.28),
];

/// The sneaker in the colours of `colorway`, `width_px` wide and two thirds as high.
pub(super) fn draw_sneaker(colorway: &str, width_px: u32) -> Option<Canvas> {
    let palette = Palette::from_colorway(colorway);
    let width = width_px.max(1);
    let height = (width_px * 2 / 3).max(1);
    let background_top = Colour::BACKGROUND.mix(palette.secondary, 0.16);
    let background_bottom = Colour::BACKGROUND
        .mix(palette.main, 0.14)
        .mix(Colour::BLACK, 0.06);
    let mut canvas = Canvas::with_gradient(width, height, background_top, background_bottom)?;

    let shoe_width = width as f32 * 0.84;
    let shoe_height = shoe_width * 0.5;
    let frame = ShoeFrame {
        left: (width as f32 - shoe_width) / 2.0,
        // A little above centre: the floor shadow below the sole balances it.
        top: (height as f32 - shoe_height) / 2.0 - height as f32 * 0.03,
        width: shoe_width,
        height: shoe_height,
    };
    let outline_px = (width as f32 / 320.0).max(0.8);

    // Floor shadow first, then from the ground up, so each part covers the seams below it.
    let shadow = frame.place(&ellipse((0.50, 0.955), 0.52, 0.045));
    canvas.fill(&shadow, background_bottom.mix(Colour::BLACK, 0.45), 0.45);

    let outsole = frame.place(&smooth(OUTSOLE, 3));
    canvas.fill(
        &inflate(&outsole, outline_px),
        palette.outsole.mix(Colour::BLACK, 0.4),
        1.0,
    );
    canvas.fill(&outsole, palette.outsole, 1.0);

    let upper = frame.place(&smooth(UPPER, 3));
    let edge = palette.main.mix(Colour::BLACK, 0.45);
    canvas.fill(&inflate(&upper, outline_px), edge, 1.0);
    canvas.fill(&upper, palette.main, 1.0);

    let toe_cap = clip_to_convex(&upper, &frame.place(&ellipse((1.04, 0.74), 0.27, 0.36)));
    canvas.fill(&inflate(&toe_cap, outline_px * 0.6), edge, 0.8);
    canvas.fill(&toe_cap, palette.secondary, 1.0);

    let heel = clip_to_convex(&upper, &frame.place(&ellipse((-0.06, 0.80), 0.27, 0.52)));
    canvas.fill(&inflate(&heel, outline_px * 0.6), edge, 0.8);
    canvas.fill(&heel, palette.secondary, 1.0);

    let stripe = frame.place(&smooth(STRIPE, 2));
    canvas.fill(
        &inflate(&stripe, outline_px * 0.6),
        palette.accent.mix(Colour::BLACK, 0.4),
        0.8,
    );
    canvas.fill(&stripe, palette.accent, 1.0);

    let collar = frame.place(&smooth(COLLAR, 2));
    canvas.fill(&collar, palette.main.mix(Colour::BLACK, 0.6), 1.0);

    // Eyelets along the lace line, in whichever of black and white stands out on the upper.
    let eyelet = if palette.main.luma() > 110.0 {
        Colour::rgb(40, 40, 42)
    } else {
        Colour::rgb(235, 235, 232)
    };
    for step in 0..5 {
        let t = step as f32 / 4.0;
        let center = (0.545 + t * 0.25, 0.255 + t * 0.215);
        canvas.fill(&frame.place(&ellipse(center, 0.011, 0.022)), eyelet, 0.85);
    }

    let midsole = frame.place(&smooth(MIDSOLE, 3));
    canvas.fill(
        &inflate(&midsole, outline_px),
        Colour::MIDSOLE.mix(Colour::BLACK, 0.35),
        1.0,
    );
    canvas.fill(&midsole, Colour::MIDSOLE, 1.0);
    Some(canvas)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_names_map_to_their_hue() {
        assert_eq!(colour_from_name("Black"), colour_from_name("Core Black"));
        let red = colour_from_name("University Red");
        assert!(red.r > 150.0 && red.g < 60.0, "{red:?}");
        let light = colour_from_name("Light Smoke Grey");
        assert!(light.luma() > colour_from_name("Grey").luma());
        assert_eq!(colour_from_name(" sail "), colour_from_name("Sail"));
        // Unknown names are stable and not all the same.
        assert_eq!(colour_from_name("Zorblax"), colour_from_name("zorblax"));
        assert_ne!(colour_from_name("Zorblax"), colour_from_name("Quuxite"));
    }

    #[test]
    fn palette_reads_main_secondary_and_gum() {
        let palette = Palette::from_colorway("Black/White-Gum Light Brown");
        assert_eq!(palette.main, colour_from_name("Black"));
        assert_eq!(palette.secondary, colour_from_name("White"));
        assert_eq!(palette.outsole, colour_from_name("gum"));
        let empty = Palette::from_colorway("");
        assert_eq!(empty.main, empty.secondary);
    }

    #[test]
    fn drawings_are_deterministic_sized_and_show_the_shoe() {
        let a = draw_sneaker("White/Black-University Red", 120).unwrap();
        let b = draw_sneaker("White/Black-University Red", 120).unwrap();
        assert_eq!(a.rgb(), b.rgb());
        assert_eq!(a.size(), (120, 80));
        assert_eq!(a.rgb().len(), 120 * 80 * 3);
        let c = draw_sneaker("Pine Green/Sail", 120).unwrap();
        assert_ne!(a.rgb(), c.rgb());
        // The middle of the picture is the shoe's upper, in the main colour, not background.
        let black = draw_sneaker("Black", 120).unwrap().rgb();
        let middle = (40 * 120 + 45) * 3;
        assert!(black[middle] < 60, "{:?}", &black[middle..middle + 3]);
        // The smallest size draws without going out of bounds.
        let tiny = draw_sneaker("Black", 1).unwrap();
        assert_eq!(tiny.size(), (1, 1));
    }
}
