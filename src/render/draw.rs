//! The drawing every picture shares: the RGB image and its PNG, the
//! colours, the map with its walls and exits, pieces, marks and legend
//! rows.

use std::io::{self, Write};

use super::{font, Map};
use crate::format::Coord;

/// An RGB image, 8 bits per channel, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `3 * width * height` bytes, row-major.
    pub rgb: Vec<u8>,
}

pub(super) type Rgb = [u8; 3];

// One colour scheme with the page of `serve` (web/style.css): the cop
// blue, the thief orange, a draw grey. Blue against orange stays apart
// for the common colour-vision deficiencies, and red is left to the
// page's "loss".
pub(super) const BACKGROUND: Rgb = [255, 255, 255];
pub(super) const INK: Rgb = [20, 20, 20];
pub(super) const WALL: Rgb = [43, 45, 49];
pub(super) const FREE: Rgb = [244, 241, 234];
pub(super) const EXIT: Rgb = [46, 158, 91];
pub(super) const COP: Rgb = [47, 111, 220];
pub(super) const THIEF: Rgb = [224, 123, 34];
pub(super) const DRAW: Rgb = [138, 143, 152];
pub(super) const CAUGHT: Rgb = [150, 40, 160];
pub(super) const WHITE: Rgb = [255, 255, 255];

/// Pixels around a picture's parts.
pub(super) const MARGIN: usize = 10;

impl Image {
    pub(super) fn new(width: usize, height: usize) -> Image {
        let mut rgb = Vec::with_capacity(3 * width * height);
        for _ in 0..width * height {
            rgb.extend_from_slice(&BACKGROUND);
        }
        Image { width, height, rgb }
    }

    fn put(&mut self, x: usize, y: usize, c: Rgb) {
        if x < self.width && y < self.height {
            let i = 3 * (y * self.width + x);
            self.rgb[i..i + 3].copy_from_slice(&c);
        }
    }

    pub(super) fn fill(&mut self, x: usize, y: usize, w: usize, h: usize, c: Rgb) {
        for yy in y..y + h {
            for xx in x..x + w {
                self.put(xx, yy, c);
            }
        }
    }

    /// A rectangle's outline, `t` pixels thick.
    pub(super) fn frame(&mut self, x: usize, y: usize, w: usize, h: usize, t: usize, c: Rgb) {
        self.fill(x, y, w, t, c);
        self.fill(x, y + h - t, w, t, c);
        self.fill(x, y, t, h, c);
        self.fill(x + w - t, y, t, h, c);
    }

    pub(super) fn text(&mut self, text: &str, x: usize, y: usize, scale: usize, c: Rgb) {
        font::draw(text, x, y, scale, |px, py| self.put(px, py, c));
    }

    /// Writes the image as an 8-bit RGB PNG.
    ///
    /// # Errors
    /// Any error of `out`.
    pub fn write_png(&self, out: impl Write) -> io::Result<()> {
        let mut encoder = png::Encoder::new(out, self.width as u32, self.height as u32);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Best);
        let mut writer = encoder.write_header().map_err(io::Error::other)?;
        writer
            .write_image_data(&self.rgb)
            .map_err(io::Error::other)?;
        writer.finish().map_err(io::Error::other)
    }
}

/// Pixels per map cell so that the map is about 640 pixels across.
pub(super) fn cell_pixels(map: &Map) -> usize {
    (640 / map.rows().max(map.cols())).clamp(2, 24)
}

/// Blends `c` towards white by `t` in `0..=1`.
pub(super) fn lighten(c: Rgb, t: f64) -> Rgb {
    let mix = |v: u8| (f64::from(v) + (255.0 - f64::from(v)) * t).round() as u8;
    [mix(c[0]), mix(c[1]), mix(c[2])]
}

/// The map: walls, free cells coloured by `colour`, exits outlined (or,
/// on cells too small for an outline, filled: a pixel in one corner is
/// lost on big maps, where rim exits line every border).
pub(super) fn draw_map(
    img: &mut Image,
    map: &Map,
    x0: usize,
    y0: usize,
    s: usize,
    colour: impl Fn(Coord) -> Rgb,
) {
    for r in 0..map.rows() {
        for c in 0..map.cols() {
            let (x, y) = (x0 + c * s, y0 + r * s);
            if map.cell((r, c)).is_none() {
                img.fill(x, y, s, s, WALL);
                continue;
            }
            img.fill(x, y, s, s, colour((r, c)));
            if map.is_exit((r, c)) {
                if s >= 4 {
                    img.frame(x, y, s, s, (s / 6).max(1), EXIT);
                } else {
                    img.fill(x, y, s, s, EXIT);
                }
            }
        }
    }
}

/// A piece: a disc-ish square with its letter when cells are large.
pub(super) fn draw_piece(img: &mut Image, x: usize, y: usize, s: usize, colour: Rgb, letter: &str) {
    let m = s / 8;
    img.fill(x + m, y + m, s - 2 * m, s - 2 * m, colour);
    if s >= 10 {
        let scale = (s / 8).max(1);
        let (w, h) = (
            font::text_width(letter, scale) - scale,
            font::text_height(scale),
        );
        img.text(letter, x + (s - w) / 2, y + (s - h) / 2, scale, WHITE);
    }
}

/// A legend line: a swatch and its label; returns the next y.
pub(super) fn legend_row(img: &mut Image, x: usize, y: usize, colour: Rgb, label: &str) -> usize {
    img.fill(x, y, 14, 14, colour);
    img.frame(x, y, 14, 14, 1, INK);
    img.text(label, x + 22, y + 2, 2, INK);
    y + 20
}

/// The fixed pieces of a picture: each cell dark with its letter, outlined
/// in white, on the map drawn at `(x0, y0)` with cells of `s` pixels.
pub(super) fn draw_marks(
    img: &mut Image,
    marks: &[(Coord, String)],
    x0: usize,
    y0: usize,
    s: usize,
) {
    for (at, letter) in marks {
        draw_piece(img, x0 + at.1 * s, y0 + at.0 * s, s, INK, letter);
        img.frame(x0 + at.1 * s, y0 + at.0 * s, s, s, 1, WHITE);
    }
}
