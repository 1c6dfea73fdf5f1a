//! A game as pictures: one frame per ply (the map, the cops, the thief
//! and a caption) and the frames as a looping animated GIF.

use std::io::{self, Write};

use super::draw::{
    cell_pixels, draw_map, draw_piece, Image, Rgb, BACKGROUND, CAUGHT, COP, EXIT, FREE, INK,
    MARGIN, THIEF, WALL, WHITE,
};
use super::{cop_marks, font, for_cop, turn_name, Map};
use crate::error::Result;
use crate::format::Coord;
use crate::games::position::Position;
use crate::outcome::Outcome;
use crate::tablebase::Tablebase;

/// The palette of game frames: every colour they use.
const PALETTE: [Rgb; 9] = [BACKGROUND, INK, WALL, FREE, EXIT, COP, THIEF, CAUGHT, WHITE];

/// One frame of a game: the map, the cops (blue `C`, a count when several
/// share a cell), the thief (orange `T`; a purple `X` when caught), a
/// caption.
fn game_frame(map: &Map, pos: &Position, caption: &str) -> Image {
    let s = cell_pixels(map).max(6);
    let map_w = map.cols() * s;
    let width = map_w.max(font::text_width(caption, 2)) + 2 * MARGIN;
    let height = MARGIN + map.rows() * s + MARGIN + 12 + MARGIN;
    let mut img = Image::new(width, height);
    draw_map(&mut img, map, MARGIN, MARGIN, s, |_| FREE);
    let at = |c: Coord| (MARGIN + c.1 * s, MARGIN + c.0 * s);
    let cops: Vec<Coord> = pos.cops.iter().map(|&c| map.coords(c)).collect();
    let thief = map.coords(pos.thief);
    for (cell, mark) in cop_marks(&cops) {
        let (x, y) = at(cell);
        if cell == thief {
            draw_piece(&mut img, x, y, s, CAUGHT, "X");
        } else {
            draw_piece(&mut img, x, y, s, COP, &mark);
        }
    }
    if !cops.contains(&thief) {
        let (x, y) = at(thief);
        draw_piece(&mut img, x, y, s, THIEF, "T");
    }
    img.text(caption, MARGIN, MARGIN + map.rows() * s + MARGIN, 2, INK);
    img
}

/// The frames of `game` (positions in order, as from
/// [`Tablebase::optimal_game`]): one per ply, with a caption (ply, who
/// moves, the value for the cops and its distance).
///
/// # Errors
/// [`Error::Placement`](crate::Error::Placement) for a graph's table;
/// [`Error::Table`](crate::Error::Table) for a damaged block.
pub fn game_frames(tb: &Tablebase, game: &[Position]) -> Result<Vec<Image>> {
    let map = Map::of(tb)?;
    let cops_win = if tb.cops() == 1 {
        "COP WINS"
    } else {
        "COPS WIN"
    };
    game.iter()
        .enumerate()
        .map(|(ply, pos)| {
            let p = tb.probe(pos)?;
            let cop_value = match for_cop(&p, pos.turn) {
                Outcome::Win => cops_win,
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
            Ok(game_frame(&map, pos, &caption))
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
        let mut frame = gif::Frame::from_indexed_pixels(w, h, indexed(f, width, height), None);
        // Hundredths of a second.
        frame.delay = if k == last { 200 } else { 45 };
        encoder.write_frame(&frame).map_err(io::Error::other)?;
    }
    Ok(())
}

/// A frame as palette indices on a `width x height` canvas (a colour not
/// in the palette as ink).
fn indexed(f: &Image, width: usize, height: usize) -> Vec<u8> {
    let mut indexed = vec![0u8; width * height];
    for y in 0..f.height {
        for x in 0..f.width {
            let i = 3 * (y * f.width + x);
            let c = [f.rgb[i], f.rgb[i + 1], f.rgb[i + 2]];
            indexed[y * width + x] = PALETTE.iter().position(|p| *p == c).unwrap_or(1) as u8;
        }
    }
    indexed
}
