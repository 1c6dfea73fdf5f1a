//! The API without HTTP: any query string is answered or refused (never a
//! panic or a server error); valid requests are answered and cached.

use std::sync::OnceLock;

use proptest::prelude::*;
use retrograde::{
    parse_map, solve, write_tablebase, Arena, Board, CopsGame, Engine, Placement, Rules,
    SolveOptions, Speeds,
};

use super::*;

/// A tiny table (4 x 6, walls, two exits) served once for all cases,
/// beside two of two cops: `duo` on a 3 x 4 map (no distances), `ring` on
/// a 5-cycle with an exit.
fn served() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| {
        let map = parse_map(b"4 6\nC..#.E\n.#....\n...#..\nE...T.\n", "inline").unwrap();
        let one = Speeds::default();
        let game = CopsGame::from_map(&map, &Placement::default(), Rules::default(), 1, one);
        let game = game.unwrap();
        let options = SolveOptions::new(Engine::Sequential).with_dte_table(true);
        let solution = solve(&game, &options).unwrap();
        let dir =
            std::env::temp_dir().join(format!("retrograde-serve-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tiny.rtb");
        write_tablebase(
            &game,
            &solution,
            "sequential",
            &mut std::fs::File::create(&path).unwrap(),
        )
        .unwrap();
        let kmap = parse_map(b"3 4\n....\n.#..\n...E\n", "inline").unwrap();
        let board = Board::new(&kmap, &Placement::default()).unwrap();
        let ring = Arena::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)])
            .unwrap()
            .with_exits(&[3])
            .unwrap();
        let mut paths = vec![path];
        for (name, arena, dte) in [
            ("duo", Arena::from_board(&board, Rules::default()), false),
            ("ring", ring, true),
        ] {
            let game = CopsGame::from_graph(arena, Rules::default(), 2, Speeds::default()).unwrap();
            let options = SolveOptions::new(Engine::Sequential).with_dte_table(dte);
            let solution = solve(&game, &options).unwrap();
            let path = dir.join(format!("{name}.rtb"));
            let mut out = std::fs::File::create(&path).unwrap();
            write_tablebase(&game, &solution, "sequential", &mut out).unwrap();
            paths.push(path);
        }
        let served = Served::open(&paths, 1 << 20).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        served
    })
}

const ENDPOINTS: [Endpoint; 5] = [
    Endpoint::Tables,
    Endpoint::Map,
    Endpoint::Query,
    Endpoint::Row,
    Endpoint::Play,
];

/// Answered (a JSON object) or refused with a 400 or 404.
fn answered_or_refused(served: &Served, endpoint: Endpoint, query: &str) -> Result<(), String> {
    match served.parse(endpoint, query) {
        Ok(request) => {
            let answer = served
                .compute(&request)
                .map_err(|e| format!("{query}: {e:?}"))?;
            let json: Value = serde_json::from_slice(&answer).map_err(|e| e.to_string())?;
            if json.is_object() {
                Ok(())
            } else {
                Err(format!("{query}: {json}"))
            }
        }
        Err(ApiError::BadRequest(m) | ApiError::NotFound(m)) if !m.is_empty() => Ok(()),
        Err(other) => Err(format!("{query}: {other:?}")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Several-cops tables: any number of `cop` (cells, vertex ids, junk),
    /// with or without the thief and the turn, is answered or refused.
    #[test]
    fn any_several_cops_request_is_answered_or_refused(
        endpoint in 1..5usize,
        table in prop_oneof![Just("duo"), Just("ring")],
        cops in prop::collection::vec(
            prop_oneof!["[0-3],[0-4]", "[0-6]", "[ -~]{0,4}"],
            0..4,
        ),
        thief in prop::option::of(prop_oneof!["[0-3],[0-4]", "[0-6]"]),
        turn in prop::option::of(prop_oneof![Just("cop"), Just("thief"), Just("x")]),
        max in prop::option::of("[0-9]{1,3}"),
    ) {
        let mut query = format!("table={table}");
        for c in &cops {
            query.push_str(&format!("&cop={c}"));
        }
        if let Some(t) = thief {
            query.push_str(&format!("&thief={t}"));
        }
        if let Some(t) = turn {
            query.push_str(&format!("&turn={t}"));
        }
        if let Some(m) = max.filter(|_| ENDPOINTS[endpoint] == Endpoint::Play) {
            query.push_str(&format!("&max={m}"));
        }
        let served = served();
        let result = answered_or_refused(served, ENDPOINTS[endpoint], &query);
        prop_assert!(result.is_ok(), "{result:?}");
    }

    /// Any query string, well-formed or not, is answered or refused
    /// with a 400 or 404: never a panic, never a server error.
    #[test]
    fn any_query_string_is_answered_or_refused(
        endpoint in 0..5usize,
        pieces in prop::collection::vec(
            (
                prop_oneof![
                    Just("table"), Just("cop"), Just("thief"), Just("turn"), Just("max"),
                    Just("x"), Just(""), Just("%74able"),
                ],
                prop_oneof![
                    Just("tiny".to_string()),
                    Just("cop".to_string()),
                    Just("thief".to_string()),
                    "[0-9]{1,2},[0-9]{1,2}",
                    "[0-9]{1,20}",
                    "%[0-9a-fA-F]{0,2}",
                    "[ -~]{0,6}",
                    "\\PC{0,4}",
                ],
            ),
            0..6,
        ),
        noise in "[&=]{0,2}",
    ) {
        let query: Vec<String> = pieces.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let query = format!("{}{noise}", query.join("&"));
        let served = served();
        match served.parse(ENDPOINTS[endpoint], &query) {
            Ok(request) => {
                let answer = served.compute(&request);
                prop_assert!(answer.is_ok(), "{query}: {answer:?}");
                let json: Value = serde_json::from_slice(&answer.unwrap()).unwrap();
                prop_assert!(json.is_object());
            }
            Err(ApiError::BadRequest(m) | ApiError::NotFound(m)) => {
                prop_assert!(!m.is_empty());
            }
            Err(other) => prop_assert!(false, "{query}: {other:?}"),
        }
    }
}

#[test]
fn valid_requests_are_answered() {
    let served = served();
    for (endpoint, query) in [
        (Endpoint::Tables, ""),
        (Endpoint::Map, "table=tiny"),
        (Endpoint::Query, "table=tiny&cop=0,0&thief=3,4&turn=cop"),
        (Endpoint::Row, "table=tiny&cop=0,0&turn=thief"),
        (Endpoint::Row, "table=tiny&thief=3,4&turn=cop"),
        (Endpoint::Map, "table=duo"),
        (Endpoint::Map, "table=ring"),
        (
            Endpoint::Query,
            "table=duo&cop=0,0&cop=2,0&thief=1,2&turn=cop",
        ),
        (Endpoint::Query, "table=ring&cop=0&cop=0&thief=2&turn=thief"),
        (Endpoint::Row, "table=duo&cop=0,0&cop=0,0&turn=thief"),
        (Endpoint::Row, "table=ring&cop=4&cop=1&turn=cop"),
        (
            Endpoint::Play,
            "table=duo&cop=2,0&cop=0,0&thief=1,2&turn=cop",
        ),
        (
            Endpoint::Play,
            "table=ring&cop=0&cop=1&thief=3&turn=cop&max=5",
        ),
        (
            Endpoint::Play,
            "table=tiny&cop=0,0&thief=3,4&turn=cop&max=3",
        ),
    ] {
        let request = served.parse(endpoint, query).unwrap();
        let answer = served
            .cached(&request)
            .map_or_else(|| served.compute(&request), Ok);
        let json: Value = serde_json::from_slice(&answer.unwrap()).unwrap();
        assert!(json.is_object(), "{query}");
    }
    let play = served
        .parse(
            Endpoint::Play,
            "table=tiny&cop=0,0&thief=3,4&turn=cop&max=1",
        )
        .unwrap();
    let json: Value = serde_json::from_slice(&served.compute(&play).unwrap()).unwrap();
    assert_eq!(json["plies"], 1);
    assert_eq!(json["end"], "limit");
    // A second ask comes from the cache, unchanged.
    assert_eq!(served.cached(&play), Some(served.compute(&play).unwrap()));
}
