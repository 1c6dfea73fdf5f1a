//! Map parsing through `parse_map` (seed text and MovingAI), and placement
//! of starts and exits through `Board::new`: what is accepted, and for bad
//! input the line, column and a message saying what was expected.

use retrograde::{parse_map, Board, Error, ExitRule, MapFormat, Placement};

/// Asserts that `bytes` is rejected at `line`:`column` with a message that
/// contains every fragment.
#[track_caller]
fn assert_parse_error(bytes: &[u8], line: usize, column: usize, fragments: &[&str]) {
    match parse_map(bytes, "bad.map") {
        Err(error @ Error::Parse { .. }) => {
            let Error::Parse {
                path,
                line: l,
                column: c,
                message,
            } = &error
            else {
                unreachable!()
            };
            assert_eq!(path, "bad.map");
            assert_eq!((*l, *c), (line, column), "position of: {message}");
            for fragment in fragments {
                assert!(
                    message.contains(fragment),
                    "message `{message}` lacks `{fragment}`"
                );
            }
            assert!(error.is_input_error());
            assert!(
                error
                    .to_string()
                    .starts_with(&format!("bad.map:{line}:{column}: ")),
                "display: {error}"
            );
        }
        Err(other) => panic!("expected a parse error, got {other:?}"),
        Ok(map) => panic!("expected a parse error, parsed {map:?}"),
    }
}

#[test]
fn seed_map_is_read_cell_by_cell() {
    let map = parse_map(b"3 4\nC..E\n.*#.\nxE.T\n", "ok.txt").expect("parse");
    assert_eq!(map.format, MapFormat::Seed);
    assert_eq!((map.grid.height(), map.grid.width()), (3, 4));
    assert_eq!(map.grid.cells(), 10);
    assert_eq!(map.grid.cell_at(1, 1), None);
    assert_eq!(map.grid.cell_at(1, 2), None);
    // Any other printable character is a free cell.
    assert!(map.grid.cell_at(2, 0).is_some());
    assert_eq!(map.cop, Some((0, 0)));
    assert_eq!(map.thief, Some((2, 3)));
    assert_eq!(map.exits, vec![(0, 3), (2, 1)]);
    let map = parse_map(b"1 2\nP.\n", "p.txt").expect("P is the cop");
    assert_eq!((map.cop, map.thief), (Some((0, 0)), None));
}

#[test]
fn crlf_line_endings_are_accepted() {
    let lf = parse_map(b"2 3\nC.*\nE.T\n", "lf.txt").expect("lf");
    let crlf = parse_map(b"2 3\r\nC.*\r\nE.T\r\n", "crlf.txt").expect("crlf");
    assert_eq!(crlf.grid.free(), lf.grid.free());
    assert_eq!(
        (crlf.cop, crlf.thief, &crlf.exits),
        (lf.cop, lf.thief, &lf.exits)
    );
    let map = parse_map(
        b"type octile\r\nheight 2\r\nwidth 2\r\nmap\r\n.@\r\nT.\r\n",
        "crlf.map",
    )
    .expect("MovingAI with CRLF");
    assert_eq!(map.grid.cells(), 2);
}

#[test]
fn missing_final_newline_and_trailing_blank_lines_are_accepted() {
    assert_eq!(parse_map(b"1 3\nC.T", "a").unwrap().grid.cells(), 3);
    assert_eq!(parse_map(b"1 3\nC.T\n\n\n", "a").unwrap().grid.cells(), 3);
}

#[test]
fn movingai_map_is_read_with_trees_blocked() {
    let map = parse_map(
        b"type octile\nheight 2\nwidth 4\nmap\n.GS@\nOTW.\n",
        "small.map",
    )
    .expect("parse");
    assert_eq!(map.format, MapFormat::MovingAi);
    assert_eq!(map.grid.cells(), 4);
    assert_eq!(map.grid.cell_at(1, 1), None, "T is a tree");
    assert_eq!((map.cop, map.thief), (None, None));
    assert!(map.exits.is_empty());
}

#[test]
fn bad_seed_headers() {
    assert_parse_error(b"x 3\n...\n", 1, 1, &["expected", "number of rows", "`x`"]);
    assert_parse_error(
        b"2 three\n...\n...\n",
        1,
        3,
        &["expected", "number of columns", "`three`"],
    );
    assert_parse_error(b"2 -3\n", 1, 3, &["expected", "number of columns"]);
    assert_parse_error(
        b"3\n...\n",
        1,
        2,
        &["expected a header `ROWS COLUMNS`", "`3`"],
    );
    assert_parse_error(
        b"2 3 4\n...\n...\n",
        1,
        5,
        &["expected a header `ROWS COLUMNS`"],
    );
    assert_parse_error(b"0 3\n", 1, 1, &["between 1 and"]);
    assert_parse_error(b"2 0\n", 1, 3, &["between 1 and"]);
}

#[test]
fn ragged_rows() {
    assert_parse_error(
        b"2 3\n...\n..\n",
        3,
        3,
        // Issue 47: the line counts from 1, the row from 0 as cells do.
        &["line 3 is map row 1 (rows and columns count from 0, as in --cop ROW,COL): 2 characters, expected 3"],
    );
    assert_parse_error(
        b"2 3\n....\n...\n",
        2,
        4,
        &["line 2 is map row 0 (rows and columns count from 0, as in --cop ROW,COL): 4 characters, expected 3"],
    );
    assert_parse_error(b"2 3\n...\n\n", 3, 1, &["expected 3"]);
    // Columns count characters, not bytes.
    assert_parse_error(
        "1 2\néèà\n".as_bytes(),
        2,
        3,
        &[": 3 characters, expected 2"],
    );
}

#[test]
fn wrong_number_of_rows() {
    assert_parse_error(
        b"3 3\n...\n...\n",
        4,
        1,
        &["expected 3 map rows, found only 2"],
    );
    assert_parse_error(b"3 3\n", 2, 1, &["expected 3 map rows, found only 0"]);
    assert_parse_error(
        b"2 3\n...\n...\n...\n",
        4,
        1,
        &["expected end of file after 2 map rows"],
    );
    assert_parse_error(b"1 3\nC.T\n\n\nxyz\n", 5, 1, &["expected end of file"]);
}

#[test]
fn two_starts_of_one_player() {
    assert_parse_error(
        b"2 3\nC..\n.PT\n",
        3,
        2,
        &["second cop start", "line 2, column 1"],
    );
    assert_parse_error(
        b"1 4\nT.CT\n",
        2,
        4,
        &["second thief start", "line 2, column 1"],
    );
}

#[test]
fn empty_files() {
    let fragments = ["empty file", "expected"];
    assert_parse_error(b"", 1, 1, &fragments);
    assert_parse_error(b"\n", 1, 1, &fragments);
    assert_parse_error(b"  \n\n\t\n", 1, 1, &fragments);
}

#[test]
fn binary_files() {
    assert_parse_error(b"1 3\nC\0T\n", 2, 2, &["binary", "expected map text"]);
    assert_parse_error(b"1 3\nC\xffT\n", 2, 2, &["UTF-8", "expected map text"]);
    assert_parse_error(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 1, 1, &["binary"]);
    assert_parse_error(b"\x7fELF\x02\x01\x01\0", 1, 1, &["binary"]);
    // The column of invalid UTF-8 counts the valid characters before it.
    assert_parse_error(
        "1 3\néC"
            .bytes()
            .chain([0xfe, b'\n'])
            .collect::<Vec<u8>>()
            .as_slice(),
        2,
        3,
        &["UTF-8"],
    );
}

#[test]
fn movingai_unknown_header_lines() {
    let fragments = ["unknown header line", "expected", "height N"];
    assert_parse_error(
        b"type octile\nheight 2\nwidht 2\nmap\n..\n..\n",
        3,
        1,
        &fragments,
    );
    assert_parse_error(b"type octile\nheight 2\n  size 2\nmap\n", 3, 3, &fragments);
    assert_parse_error(b"type octile\ntype octile\n", 2, 1, &fragments);
    assert_parse_error(b"type octile\nheight 2 3\n", 2, 1, &fragments);
}

#[test]
fn movingai_bad_sizes_and_missing_lines() {
    assert_parse_error(
        b"type octile\nheight x\nwidth 2\nmap\n",
        2,
        8,
        &["the height", "`x`"],
    );
    assert_parse_error(
        b"type octile\nheight 2\nwidth 0\nmap\n",
        3,
        7,
        &["the width", "between 1 and"],
    );
    assert_parse_error(
        b"type octile\nheight 2\nmap\n..\n..\n",
        3,
        1,
        &["before both", "width N"],
    );
    assert_parse_error(
        b"type octile\nheight 2\nwidth 2\n",
        4,
        1,
        &["file ends inside the header", "`map`"],
    );
    assert_parse_error(
        b"type octile\nheight 2\nwidth 2\nmap\n..\n",
        6,
        1,
        &["expected 2 map rows, found only 1"],
    );
    assert_parse_error(
        b"type octile\nheight 1\nwidth 2\nmap\n..\n..\n",
        6,
        1,
        &["expected end of file after 1 map rows"],
    );
    assert_parse_error(
        b"type octile\nheight 1\nwidth 2\nmap\n...\n",
        5,
        3,
        &[": 3 characters, expected 2"],
    );
}

#[test]
fn movingai_unknown_terrain() {
    let fragments = ["unknown terrain character", "expected", "passable"];
    assert_parse_error(
        b"type octile\nheight 1\nwidth 3\nmap\n.X.\n",
        5,
        2,
        &[
            &fragments[..],
            &["at cell 0,1 (rows and columns count from 0"],
        ]
        .concat(),
    );
    assert_parse_error(
        b"type octile\nheight 2\nwidth 2\nmap\n..\n.C\n",
        6,
        2,
        &fragments,
    );
    assert_parse_error(
        b"type octile\nheight 2\nwidth 2\nmap\n..\nE.\n",
        6,
        1,
        &fragments,
    );
}

fn map_2x3() -> retrograde::Map {
    // C . *
    // E . T
    parse_map(b"2 3\nC.*\nE.T\n", "p.txt").expect("parse")
}

#[track_caller]
fn assert_placement_error(placement: Placement, what: &str, fragment: &str) {
    match Board::new(&map_2x3(), &placement) {
        Err(error @ Error::Placement { .. }) => {
            let Error::Placement { what: w, message } = &error else {
                unreachable!()
            };
            assert_eq!(w, what);
            assert!(
                message.contains(fragment),
                "message `{message}` lacks `{fragment}`"
            );
            assert!(error.is_input_error());
        }
        Err(other) => panic!("expected a placement error, got {other:?}"),
        Ok(_) => panic!("expected a placement error for {placement:?}"),
    }
}

#[test]
fn placement_outside_the_map_or_on_a_wall() {
    let outside = "outside the map: rows are 0..=1, columns 0..=2";
    assert_placement_error(
        Placement {
            cop: Some((2, 0)),
            ..Placement::default()
        },
        "--cop 2,0",
        outside,
    );
    assert_placement_error(
        Placement {
            thief: Some((0, 3)),
            ..Placement::default()
        },
        "--thief 0,3",
        outside,
    );
    assert_placement_error(
        Placement {
            exits: vec![(1, 1), (9, 9)],
            ..Placement::default()
        },
        "--exit 9,9",
        outside,
    );
    let wall = "is a wall: expected a free cell";
    assert_placement_error(
        Placement {
            cop: Some((0, 2)),
            ..Placement::default()
        },
        "--cop 0,2",
        wall,
    );
    assert_placement_error(
        Placement {
            thief: Some((0, 2)),
            ..Placement::default()
        },
        "--thief 0,2",
        wall,
    );
    assert_placement_error(
        Placement {
            exits: vec![(0, 2)],
            ..Placement::default()
        },
        "--exit 0,2",
        wall,
    );
}

#[test]
fn random_exits_beyond_the_free_cells() {
    // Five free cells, two of them starts: three can be exits.
    assert_placement_error(
        Placement {
            exit_rules: vec![ExitRule::Random { count: 4, seed: 1 }],
            ..Placement::default()
        },
        "--exits random:4:1",
        "asks for 4 exits but only 3 free cells are not starts",
    );
    let board = Board::new(
        &map_2x3(),
        &Placement {
            exit_rules: vec![ExitRule::Random { count: 3, seed: 1 }],
            ..Placement::default()
        },
    )
    .expect("three exits fit");
    assert_eq!(board.exits.count_ones(), 3);
    assert!(!board.exits[board.cop.unwrap() as usize]);
    assert!(!board.exits[board.thief.unwrap() as usize]);
}

#[test]
fn placement_overrides_the_map() {
    let map = map_2x3();
    let board = Board::new(&map, &Placement::default()).unwrap();
    let id = |r, c| map.grid.cell_at(r, c).unwrap();
    assert_eq!((board.cop, board.thief), (Some(id(0, 0)), Some(id(1, 2))));
    assert_eq!(
        board.exits.iter_ones().collect::<Vec<_>>(),
        vec![id(1, 0) as usize]
    );
    // Explicit exits replace the map's; starts move.
    let placement = Placement {
        cop: Some((1, 1)),
        thief: Some((0, 1)),
        exits: vec![(1, 2)],
        exit_rules: vec![],
    };
    let board = Board::new(&map, &placement).unwrap();
    assert_eq!((board.cop, board.thief), (Some(id(1, 1)), Some(id(0, 1))));
    assert_eq!(
        board.exits.iter_ones().collect::<Vec<_>>(),
        vec![id(1, 2) as usize]
    );
    // Border exits: every free cell of this map is on the border.
    let placement = Placement {
        exit_rules: vec![ExitRule::Border],
        ..Placement::default()
    };
    let board = Board::new(&map, &placement).unwrap();
    assert_eq!(board.exits.count_ones(), 5);
    let inner = parse_map(b"3 3\n...\n...\n...\n", "i").unwrap();
    let board = Board::new(&inner, &placement).unwrap();
    assert_eq!(board.exits.count_ones(), 8);
    assert!(!board.exits[inner.grid.cell_at(1, 1).unwrap() as usize]);
}

#[test]
fn random_exits_are_seeded() {
    let map = parse_map(b"4 4\nC...\n....\n....\n...T\n", "r").unwrap();
    let exits = |count, seed| {
        let placement = Placement {
            exit_rules: vec![ExitRule::Random { count, seed }],
            ..Placement::default()
        };
        Board::new(&map, &placement).unwrap().exits
    };
    assert_eq!(exits(5, 42), exits(5, 42));
    let differ = (0..10)
        .filter(|&seed| exits(5, seed) != exits(5, 42))
        .count();
    assert!(differ >= 8, "seeds give the same exits too often");
    for seed in 0..20 {
        let e = exits(7, seed);
        assert_eq!(e.count_ones(), 7);
        assert!(!e[0] && !e[15], "an exit on a start");
    }
}
