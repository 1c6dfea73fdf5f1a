//! Pictures of a [`GridTablebase`]: a heatmap of every position of one piece
//! with the other fixed, an overview of the cop's winning share from every
//! cell, and an animated GIF of a game. Images are plain RGB buffers
//! written as PNG (the `png` crate) or GIF (the `gif` crate); legends use
//! a built-in 3 x 5 pixel font.

mod font;
mod kcops;

pub use kcops::{kcop_win_shares, kcop_win_shares_fixed, kheatmap, kheatmap_last_cop, koverview};

use std::io::{self, Write};

use rayon::prelude::*;

use crate::error::Result;
use crate::format::Coord;
use crate::games::cops::Turn;
use crate::outcome::Outcome;
use crate::tablebase::{GridPosition, GridTablebase, Probe};

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

type Rgb = [u8; 3];

// One colour scheme with the page of `serve` (web/style.css): the cop
// blue, the thief orange, a draw grey. Blue against orange stays apart
// for the common colour-vision deficiencies, and red is left to the
// page's "loss".
const BACKGROUND: Rgb = [255, 255, 255];
const INK: Rgb = [20, 20, 20];
const WALL: Rgb = [43, 45, 49];
const FREE: Rgb = [244, 241, 234];
const EXIT: Rgb = [46, 158, 91];
const COP: Rgb = [47, 111, 220];
const THIEF: Rgb = [224, 123, 34];
const DRAW: Rgb = [138, 143, 152];
const CAUGHT: Rgb = [150, 40, 160];

impl Image {
    fn new(width: usize, height: usize) -> Image {
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

    fn fill(&mut self, x: usize, y: usize, w: usize, h: usize, c: Rgb) {
        for yy in y..y + h {
            for xx in x..x + w {
                self.put(xx, yy, c);
            }
        }
    }

    /// A rectangle's outline, `t` pixels thick.
    fn frame(&mut self, x: usize, y: usize, w: usize, h: usize, t: usize, c: Rgb) {
        self.fill(x, y, w, t, c);
        self.fill(x, y + h - t, w, t, c);
        self.fill(x, y, t, h, c);
        self.fill(x + w - t, y, t, h, c);
    }

    fn text(&mut self, text: &str, x: usize, y: usize, scale: usize, c: Rgb) {
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

/// Which piece a heatmap holds fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixed {
    /// The cop stands here; the map shows every thief cell.
    Cop(Coord),
    /// The thief stands here; the map shows every cop cell.
    Thief(Coord),
}

/// What a picture needs of a table's map: its size, walls, exits and
/// whether distances shade the cells (one-cop tables and the maps of
/// several-cops tables).
trait MapView {
    fn rows(&self) -> usize;
    fn cols(&self) -> usize;
    fn is_free(&self, c: Coord) -> bool;
    fn is_exit(&self, c: Coord) -> bool;
    fn has_dte(&self) -> bool;
}

impl MapView for GridTablebase {
    fn rows(&self) -> usize {
        GridTablebase::rows(self)
    }

    fn cols(&self) -> usize {
        GridTablebase::cols(self)
    }

    fn is_free(&self, c: Coord) -> bool {
        GridTablebase::is_free(self, c)
    }

    fn is_exit(&self, c: Coord) -> bool {
        GridTablebase::is_exit(self, c)
    }

    fn has_dte(&self) -> bool {
        self.header().has_dte
    }
}

/// Pixels per map cell so that the map is about 640 pixels across.
fn cell_pixels(tb: &impl MapView) -> usize {
    (640 / tb.rows().max(tb.cols())).clamp(2, 24)
}

/// Blends `c` towards white by `t` in `0..=1`.
fn lighten(c: Rgb, t: f64) -> Rgb {
    let mix = |v: u8| (f64::from(v) + (255.0 - f64::from(v)) * t).round() as u8;
    [mix(c[0]), mix(c[1]), mix(c[2])]
}

/// The map: walls, free cells coloured by `colour`, exits outlined (or,
/// on cells too small for an outline, filled: a pixel in one corner is
/// lost on big maps, where rim exits line every border).
fn draw_map(
    img: &mut Image,
    tb: &impl MapView,
    x0: usize,
    y0: usize,
    s: usize,
    colour: impl Fn(Coord) -> Rgb,
) {
    for r in 0..tb.rows() {
        for c in 0..tb.cols() {
            let (x, y) = (x0 + c * s, y0 + r * s);
            if !tb.is_free((r, c)) {
                img.fill(x, y, s, s, WALL);
                continue;
            }
            img.fill(x, y, s, s, colour((r, c)));
            if tb.is_exit((r, c)) {
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
fn draw_piece(img: &mut Image, x: usize, y: usize, s: usize, colour: Rgb, letter: &str) {
    let m = s / 8;
    img.fill(x + m, y + m, s - 2 * m, s - 2 * m, colour);
    if s >= 10 {
        let scale = (s / 8).max(1);
        let (w, h) = (
            font::text_width(letter, scale) - scale,
            font::text_height(scale),
        );
        img.text(
            letter,
            x + (s - w) / 2,
            y + (s - h) / 2,
            scale,
            [255, 255, 255],
        );
    }
}

/// A legend line: a swatch and its label; returns the next y.
fn legend_row(img: &mut Image, x: usize, y: usize, colour: Rgb, label: &str) -> usize {
    img.fill(x, y, 14, 14, colour);
    img.frame(x, y, 14, 14, 1, INK);
    img.text(label, x + 22, y + 2, 2, INK);
    y + 20
}

const MARGIN: usize = 10;

/// A turn in the built-in font, which has capitals only.
fn turn_name(t: Turn) -> String {
    t.as_str().to_ascii_uppercase()
}

/// The value of a probe told from the cop's side.
fn for_cop(p: &Probe, turn: Turn) -> Outcome {
    if turn == Turn::Cop {
        p.value
    } else {
        p.value.flip()
    }
}

/// A heatmap: every cell of the moving piece coloured by the outcome from
/// the cop's side (blue: the cop wins, orange: the thief escapes, grey: a
/// draw), dark when the game ends soon and light when late (on tables
/// with distances); walls dark, exits outlined in green, the fixed piece
/// marked; legend below.
///
/// # Errors
/// [`Error::Placement`](crate::Error::Placement) when the fixed cell is not
/// free, [`Error::Table`](crate::Error::Table) for a damaged block.
pub fn heatmap(tb: &GridTablebase, fixed: Fixed, turn: Turn) -> Result<Image> {
    let (cells, at, name) = match fixed {
        Fixed::Cop(c) => (tb.row(c, turn)?, c, "COP"),
        Fixed::Thief(t) => (tb.column(t, turn)?, t, "THIEF"),
    };
    let title = format!("{name} AT {},{}  {} TO MOVE", at.0, at.1, turn_name(turn));
    let letter = match fixed {
        Fixed::Cop(_) => "C",
        Fixed::Thief(_) => "T",
    };
    Ok(draw_heatmap(tb, &cells, &[(at, letter)], &title, turn))
}

/// The heatmap of `cells` (each free cell of the moving piece with its
/// probe, `turn` to move) on `tb`'s map, the fixed pieces `marks` drawn
/// with their letters, `title` above and the legend below.
fn draw_heatmap(
    tb: &impl MapView,
    cells: &[(Coord, Probe)],
    marks: &[(Coord, &str)],
    title: &str,
    turn: Turn,
) -> Image {
    let max = cells
        .iter()
        .filter_map(|(_, p)| p.dte.map(|d| d.plies()))
        .max()
        .unwrap_or(0)
        .max(1);
    let mut value = std::collections::HashMap::new();
    for (c, p) in cells {
        value.insert(*c, *p);
    }
    let s = cell_pixels(tb);
    let mut legend = vec![
        (COP, "COP WINS".to_string()),
        (THIEF, "THIEF ESCAPES".to_string()),
        (DRAW, "DRAW".to_string()),
        (WALL, "WALL".to_string()),
        (EXIT, "EXIT".to_string()),
    ];
    // A table saved without distances shades nothing: no distance legend.
    if tb.has_dte() {
        legend.push((
            lighten(COP, 0.7),
            format!("LIGHTER = LONGER GAME (UP TO {max} PLIES)"),
        ));
    }
    let map_w = tb.cols() * s;
    let map_h = tb.rows() * s;
    let text_w = legend
        .iter()
        .map(|(_, l)| 22 + font::text_width(l, 2))
        .chain([font::text_width(title, 2)])
        .max()
        .unwrap_or(0);
    let width = map_w.max(text_w) + 2 * MARGIN;
    let height = MARGIN + 16 + map_h + MARGIN + 20 * legend.len() + MARGIN;
    let mut img = Image::new(width, height);
    img.text(title, MARGIN, MARGIN, 2, INK);
    let y0 = MARGIN + 16;
    draw_map(&mut img, tb, MARGIN, y0, s, |c| match value.get(&c) {
        Some(p) => {
            let base = match for_cop(p, turn) {
                Outcome::Win => COP,
                Outcome::Loss => THIEF,
                Outcome::Draw => return DRAW,
            };
            let t = p.dte.map_or(0.0, |d| f64::from(d.plies()) / f64::from(max));
            lighten(base, 0.75 * t)
        }
        None => FREE,
    });
    draw_marks(&mut img, marks, MARGIN, y0, s);
    let mut y = y0 + map_h + MARGIN;
    for (c, label) in &legend {
        y = legend_row(&mut img, MARGIN, y, *c, label);
    }
    img
}

/// For every cop cell, the share of the other free cells from which the
/// cop wins with `turn` to move; in row-major order of cop cells.
///
/// # Errors
/// [`Error::Table`](crate::Error::Table) for a damaged block.
pub fn cop_win_shares(tb: &GridTablebase, turn: Turn) -> Result<Vec<(Coord, f64)>> {
    let cops: Vec<Coord> = (0..tb.rows())
        .flat_map(|r| (0..tb.cols()).map(move |c| (r, c)))
        .filter(|&c| tb.is_free(c))
        .collect();
    cops.par_iter()
        .map(|&cop| {
            let row = tb.row(cop, turn)?;
            let others = row.len().saturating_sub(1).max(1);
            let wins = row
                .iter()
                .filter(|(t, p)| *t != cop && for_cop(p, turn) == Outcome::Win)
                .count();
            Ok((cop, wins as f64 / others as f64))
        })
        .collect()
}

/// The overview: every cop cell coloured by the share of thief cells from
/// which the cop wins (orange 0% to blue 100%), with a gradient legend.
///
/// # Errors
/// [`Error::Table`](crate::Error::Table) for a damaged block.
pub fn overview(tb: &GridTablebase, turn: Turn) -> Result<Image> {
    let shares = cop_win_shares(tb, turn)?;
    let title = format!(
        "COP WINS FROM THIS CELL: SHARE OF THIEF CELLS, {} TO MOVE",
        turn_name(turn)
    );
    Ok(draw_overview(tb, &shares, &[], &title))
}

/// An overview picture: every cell of `shares` coloured by its share
/// (orange 0% to blue 100%), other free cells plain, the fixed pieces
/// `marks` drawn with their letters, `title` above and a gradient legend
/// below.
fn draw_overview(
    tb: &impl MapView,
    shares: &[(Coord, f64)],
    marks: &[(Coord, &str)],
    title: &str,
) -> Image {
    let shares: std::collections::HashMap<Coord, f64> = shares.iter().copied().collect();
    let gradient = |t: f64| -> Rgb {
        let lerp = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
        [
            lerp(THIEF[0], COP[0]),
            lerp(THIEF[1], COP[1]),
            lerp(THIEF[2], COP[2]),
        ]
    };
    let s = cell_pixels(tb);
    let map_w = tb.cols() * s;
    let map_h = tb.rows() * s;
    let width = map_w.max(font::text_width(title, 2)).max(300) + 2 * MARGIN;
    let height = MARGIN + 16 + map_h + MARGIN + 60 + MARGIN;
    let mut img = Image::new(width, height);
    img.text(title, MARGIN, MARGIN, 2, INK);
    let y0 = MARGIN + 16;
    draw_map(&mut img, tb, MARGIN, y0, s, |c| {
        shares.get(&c).map_or(FREE, |&t| gradient(t))
    });
    draw_marks(&mut img, marks, MARGIN, y0, s);
    let y = y0 + map_h + MARGIN;
    let bar = 256;
    for k in 0..bar {
        img.fill(MARGIN + k, y, 1, 16, gradient(k as f64 / (bar - 1) as f64));
    }
    img.frame(MARGIN, y, bar, 16, 1, INK);
    img.text("0%", MARGIN, y + 22, 2, INK);
    img.text(
        "100%",
        MARGIN + bar - font::text_width("100%", 2),
        y + 22,
        2,
        INK,
    );
    legend_row(&mut img, MARGIN, y + 40, EXIT, "EXIT (OUTLINE)");
    img
}

/// The fixed pieces of a picture: each cell dark with its letter, outlined
/// in white, on the map drawn at `(x0, y0)` with cells of `s` pixels.
fn draw_marks(img: &mut Image, marks: &[(Coord, &str)], x0: usize, y0: usize, s: usize) {
    for &(at, letter) in marks {
        draw_piece(img, x0 + at.1 * s, y0 + at.0 * s, s, INK, letter);
        img.frame(x0 + at.1 * s, y0 + at.0 * s, s, s, 1, [255, 255, 255]);
    }
}

/// One frame of a game: the map, the cop (blue C), the thief (orange T), a
/// caption.
fn game_frame(tb: &GridTablebase, pos: &GridPosition, caption: &str) -> Image {
    let s = cell_pixels(tb).max(6);
    let map_w = tb.cols() * s;
    let width = map_w.max(font::text_width(caption, 2)) + 2 * MARGIN;
    let height = MARGIN + tb.rows() * s + MARGIN + 12 + MARGIN;
    let mut img = Image::new(width, height);
    draw_map(&mut img, tb, MARGIN, MARGIN, s, |_| FREE);
    let at = |c: Coord| (MARGIN + c.1 * s, MARGIN + c.0 * s);
    if pos.cop == pos.thief {
        let (x, y) = at(pos.cop);
        draw_piece(&mut img, x, y, s, CAUGHT, "X");
    } else {
        let (x, y) = at(pos.cop);
        draw_piece(&mut img, x, y, s, COP, "C");
        let (x, y) = at(pos.thief);
        draw_piece(&mut img, x, y, s, THIEF, "T");
    }
    img.text(caption, MARGIN, MARGIN + tb.rows() * s + MARGIN, 2, INK);
    img
}

/// The palette of game frames: every colour they use.
const PALETTE: [Rgb; 9] = [
    BACKGROUND,
    INK,
    WALL,
    FREE,
    EXIT,
    COP,
    THIEF,
    CAUGHT,
    [255, 255, 255],
];

/// The frames of `game` (positions in order, as from
/// [`GridTablebase::optimal_game`]): one per ply, with a caption (ply, who
/// moves, the value for the cop and its distance).
///
/// # Errors
/// [`Error::Table`](crate::Error::Table) for a damaged block.
pub fn game_frames(tb: &GridTablebase, game: &[GridPosition]) -> Result<Vec<Image>> {
    game.iter()
        .enumerate()
        .map(|(ply, pos)| {
            let p = tb.probe(pos)?;
            let cop_value = match for_cop(&p, pos.turn) {
                Outcome::Win => "COP WINS",
                Outcome::Loss => "THIEF ESCAPES",
                Outcome::Draw => "DRAW",
            };
            let caption = match p.dte {
                Some(d) => format!(
                    "PLY {ply}: {} TO MOVE, {cop_value} IN {d}",
                    turn_name(pos.turn)
                ),
                None => format!("PLY {ply}: {} TO MOVE, {cop_value}", turn_name(pos.turn)),
            };
            Ok(game_frame(tb, pos, &caption))
        })
        .collect()
}

/// Writes frames from [`game_frames`] as a looping animated GIF, a beat
/// per frame and a pause on the last.
///
/// # Errors
/// Any error of `out`; frames larger than 65535 pixels across.
pub fn write_gif(frames: &[Image], out: impl Write) -> io::Result<()> {
    let width = frames.iter().map(|f| f.width).max().unwrap_or(1);
    let height = frames.iter().map(|f| f.height).max().unwrap_or(1);
    let (Ok(w), Ok(h)) = (u16::try_from(width), u16::try_from(height)) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a {width} x {height} GIF is larger than the format allows"),
        ));
    };
    let palette: Vec<u8> = PALETTE.iter().flatten().copied().collect();
    let mut encoder = gif::Encoder::new(out, w, h, &palette).map_err(io::Error::other)?;
    encoder
        .set_repeat(gif::Repeat::Infinite)
        .map_err(io::Error::other)?;
    let last = frames.len().saturating_sub(1);
    for (k, f) in frames.iter().enumerate() {
        let mut indexed = vec![0u8; width * height];
        for y in 0..f.height {
            for x in 0..f.width {
                let i = 3 * (y * f.width + x);
                let c = [f.rgb[i], f.rgb[i + 1], f.rgb[i + 2]];
                indexed[y * width + x] = PALETTE.iter().position(|p| *p == c).unwrap_or(1) as u8;
            }
        }
        let mut frame = gif::Frame::from_indexed_pixels(w, h, indexed, None);
        // Hundredths of a second.
        frame.delay = if k == last { 200 } else { 45 };
        encoder.write_frame(&frame).map_err(io::Error::other)?;
    }
    Ok(())
}
