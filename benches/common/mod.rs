//! Shared fixtures for the benches: seeded synthetic maps, and real MovingAI
//! maps from `../shared/data/movingai` when that folder is present.

use std::path::Path;

use retrograde::{parse_map, CopsGame, ExitRule, Map, Placement, Rules, Speeds};

/// A `rows x cols` seed map with a share `walls` of random walls (seeded),
/// every free border cell an exit, the cop at the first free inner cell and
/// the thief at the inner free cell nearest the centre.
pub fn open_map(rows: usize, cols: usize, walls: f64, seed: u64) -> CopsGame {
    let mut state = seed;
    let mut text = format!("{rows} {cols}\n");
    for _ in 0..rows {
        for _ in 0..cols {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (state >> 33) as f64 / (1u64 << 31) as f64;
            text.push(if r < walls { '*' } else { '.' });
        }
        text.push('\n');
    }
    game_with_border_exits(&parse_map(text.as_bytes(), "synthetic").expect("valid map"))
}

/// A real MovingAI map from the shared data folder, if present.
pub fn movingai(name: &str) -> Option<CopsGame> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/movingai")
        .join(name);
    let map = retrograde::load_map(&path).ok()?;
    Some(game_with_border_exits(&map))
}

fn game_with_border_exits(map: &Map) -> CopsGame {
    let grid = &map.grid;
    let inner: Vec<(usize, usize)> = (0..grid.cells() as u32)
        .map(|id| grid.coords(id))
        .filter(|&(r, c)| r > 0 && c > 0 && r + 1 < grid.height() && c + 1 < grid.width())
        .collect();
    let centre = (grid.height() / 2, grid.width() / 2);
    let thief = *inner[1..]
        .iter()
        .min_by_key(|&&(r, c)| (r.abs_diff(centre.0) + c.abs_diff(centre.1), r, c))
        .expect("two inner cells");
    let placement = Placement {
        cop: Some(inner[0]),
        thief: Some(thief),
        exits: Vec::new(),
        exit_rules: vec![ExitRule::Border],
    };
    CopsGame::from_map(map, &placement, Rules::default(), 1, Speeds::default())
        .expect("valid placement")
}
