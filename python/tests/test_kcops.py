"""Several cops and the cop number against the CLI: ``solve --cops K
--json --dump`` state by state, ``copnumber --json`` graph by graph."""

import csv
import json

import numpy as np
import pytest
import retrograde

from conftest import DATA

SAMPLE = DATA / "maps" / "sample.txt"


def cli_json(cli, *args):
    lines = [json.loads(line) for line in cli(*args).stdout.splitlines() if line.strip()]
    return lines[0]


@pytest.mark.parametrize(
    "path, cops_at, rules, flags",
    [
        (SAMPLE, [(1, 1), (7, 14)], None, []),
        (SAMPLE, [(1, 1), (1, 1)], retrograde.Rules(thief_first=True), ["--thief-first"]),
        (DATA / "maps" / "seed" / "ring.txt", None, None, []),
        (DATA / "maps" / "seed" / "ring.txt", [(0, 0), (3, 0), (0, 3)], None, ["--exits", "border"]),
        (
            # No thief start on the map: no cops' start either (the CLI
            # refuses --cop without --thief).
            DATA / "maps" / "movingai" / "empty-8-8.map",
            None,
            retrograde.Rules(cop_diagonal=False, thief_passes=False),
            ["--cop-orthogonal", "--no-thief-pass"],
        ),
    ],
    ids=["sample", "sample-thief-first", "ring-no-start", "ring-three-border", "empty-8-8-orthogonal"],
)
def test_several_cops_equal_the_cli_dump(cli, tmp_path, path, cops_at, rules, flags):
    k = len(cops_at) if cops_at else 2
    dump = tmp_path / "d.csv"
    args = ["solve", path, "--cops", k, "--json", "--dump", dump, "--quiet", *flags]
    for c in cops_at or []:
        args += ["--cop", f"{c[0]},{c[1]}"]
    want = cli_json(cli, *args)
    exits = flags[flags.index("--exits") + 1] if "--exits" in flags else None
    m = retrograde.Map.from_file(path, exits=exits)
    sol = retrograde.solve(m, cops=k, cops_at=cops_at, rules=rules)
    assert isinstance(sol, retrograde.CopsSolution) and sol.cops == k
    assert sol.states == want["states"]
    assert sol.counts == want["counts"]
    assert sol.levels == want["levels"]
    assert sol.verdict == want["result"]
    if want["result"] is None:
        assert sol.start is None
    else:
        assert sol.start[1] == want["dte"]
    rows = 0
    with open(dump, newline="") as f:
        for row in csv.DictReader(f):
            cops = [(int(row[f"cop{i}_row"]), int(row[f"cop{i}_col"])) for i in range(1, k + 1)]
            thief = (int(row["thief_row"]), int(row["thief_col"]))
            # Cops in any order name the same state.
            assert sol.value(cops[::-1], thief, row["turn"]) == row["value"], row
            assert sol.dte(cops, thief, row["turn"]) == (int(row["dte"]) if row["dte"] else None), row
            rows += 1
    assert rows == sol.states


def test_several_cops_heatmap_and_errors():
    m = retrograde.Map.from_file(SAMPLE)
    sol = retrograde.solve(m, cops=2, cops_at=[(1, 1), (7, 14)], distances=False)
    assert not sol.has_distances and sol.start == ("loss", 14)
    values, dte = sol.heatmap([(1, 1), (7, 14)], turn="cop")
    free = m.to_array()
    assert values.shape == free.shape and (values[~free] == -2).all()
    r, c = 5, 9
    assert values[r, c] == {"win": 1, "loss": -1, "draw": 0}[sol.value([(1, 1), (7, 14)], (r, c), "cop")]
    with pytest.raises(ValueError, match="expected 2 cells, got 1"):
        sol.value([(1, 1)], (5, 9))
    with pytest.raises(ValueError, match="cop 0,0: is a wall"):
        sol.value([(0, 0), (1, 1)], (5, 9))
    with pytest.raises(ValueError, match="cops_at: cops=2 needs 2 cells, got 1"):
        retrograde.solve(m, cops=2, cops_at=[(1, 1)])
    with pytest.raises(ValueError, match="cop 0,0: is a wall"):
        retrograde.solve(m, cops=2, cops_at=[(0, 0), (1, 1)])
    for k in (0, 5, -1):
        with pytest.raises(ValueError, match=f"cops={k}: the number of cops must be 1 to 4"):
            retrograde.solve(m, cops=k)
    with pytest.raises(ValueError, match="cops_at: cops=1 needs 1 cell, got 2"):
        retrograde.solve(m, cops_at=[(1, 1), (1, 2)])


def test_one_cop_cops_at_moves_the_start(cli):
    m = retrograde.Map.from_file(SAMPLE)
    want = cli_json(cli, "solve", SAMPLE, "--cop", "7,14", "--json", "--quiet")
    sol = retrograde.solve(m, cops_at=[(7, 14)])
    assert isinstance(sol, retrograde.Solution)
    assert sol.verdict == want["result"] and sol.start[1] == want["dte"]


# (name, networkx builder) of graphs with cop numbers 1 to 3; the 10 x 10
# grid (100 vertices) goes through the general engine, the rest through
# the small one.
GRAPHS = [
    ("path", lambda nx: nx.path_graph(7)),
    ("cycle5", lambda nx: nx.cycle_graph(5)),
    ("petersen", lambda nx: nx.petersen_graph()),
    ("dodecahedron", lambda nx: nx.dodecahedral_graph()),
    ("grid4", lambda nx: nx.grid_2d_graph(4, 4)),
    ("grid10", lambda nx: nx.grid_2d_graph(10, 10)),
    ("wheel", lambda nx: nx.wheel_graph(8)),
]


@pytest.mark.parametrize("name, build", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("max_cops", [4, 2])
def test_cop_number_equals_the_cli(cli, tmp_path, name, build, max_cops):
    nx = pytest.importorskip("networkx")
    g = nx.convert_node_labels_to_integers(build(nx))
    edges = np.array(list(g.edges()))
    src = tmp_path / f"{name}.txt"
    src.write_text("".join(f"{u} {v}\n" for u, v in edges))
    want = cli_json(cli, "copnumber", src, "--json", "--max-cops", max_cops, "--quiet")
    got = retrograde.cop_number(edges, max_cops=max_cops)
    for key in ("cop_number", "placement", "capture_time", "capture_time_plies", "vertices"):
        assert got[key] == want[key], (key, got, want)
    # The same graph from networkx, nodes relabelled: the placement comes
    # back as nodes.
    labelled = nx.relabel_nodes(g, {v: f"v{v}" for v in g.nodes})
    got = retrograde.cop_number(labelled, max_cops=max_cops)
    assert got["cop_number"] == want["cop_number"]
    assert got["placement"] == [f"v{v}" for v in want["placement"]]


def test_cop_number_bad_input():
    nx = pytest.importorskip("networkx")
    with pytest.raises(ValueError, match="undirected"):
        retrograde.cop_number(nx.DiGraph([(0, 1)]))
    with pytest.raises(ValueError, match="max_cops 5: expected 1 to 4"):
        retrograde.cop_number([(0, 1)], max_cops=5)
    with pytest.raises(ValueError, match="max_cops 0"):
        retrograde.cop_number([(0, 1)], max_cops=0)
    with pytest.raises(ValueError, match=r"edges\[1\]: expected vertex ids 0..65535, got \(1, -2\)"):
        retrograde.cop_number([(0, 1), (1, -2)])
    with pytest.raises(ValueError, match=r"edges\[0\]: edge 0 3: vertices are 0..3"):
        retrograde.cop_number([(0, 3)], n=3)
    with pytest.raises(ValueError, match=r"\(M, 2\)"):
        retrograde.cop_number(np.zeros((2, 3), dtype=np.int64))
    # No vertex: refused, as the CLI refuses an empty graph (issue 33).
    for empty in ([], nx.Graph()):
        with pytest.raises(ValueError, match="at least one vertex"):
            retrograde.cop_number(empty)
    # Float ids are not truncated into another graph: 1.5 is not 1.
    with pytest.raises(ValueError, match="vertex ids must be integers"):
        retrograde.cop_number([(0, 1.5), (1, 2)])
    with pytest.raises(ValueError, match="vertex ids must be integers"):
        retrograde.cop_number(np.array([(0.0, 1.0)]))
    # Isolated vertices given by n: each needs its own cop.
    assert retrograde.cop_number([(0, 1)], n=3)["cop_number"] == 2


def test_cop_number_reports_progress_and_can_be_stopped():
    # A cycle of 70 vertices (over the small path's 64): the engine's
    # levels are reported as (cops, level), one cop first.
    edges = [(i, (i + 1) % 70) for i in range(70)]
    seen = []
    r = retrograde.cop_number(edges, progress=lambda k, level: seen.append((k, level)))
    assert r["cop_number"] == 2
    assert seen and seen == sorted(seen) and {k for k, _ in seen} <= {1, 2}

    # An exception from progress stops the search and comes back (Ctrl-C's
    # KeyboardInterrupt takes the same way out).
    class Stop(Exception):
        pass

    def stop(k, level):
        raise Stop()

    with pytest.raises(Stop):
        retrograde.cop_number([(i, (i + 1) % 400) for i in range(400)], progress=stop)

def test_cops_at_without_a_thief_start_is_refused():
    # Issue 33, item 16: as the CLI refuses --cop without --thief, instead
    # of solving the whole game with no start.
    m = retrograde.Map.from_file(DATA / "maps" / "movingai" / "empty-8-8.map")
    with pytest.raises(ValueError, match="no thief start"):
        retrograde.solve(m, cops=2, cops_at=[(0, 0), (7, 7)])
    # The sample marks a thief: its start goes with the cops'.
    assert retrograde.solve(retrograde.Map.from_file(SAMPLE), cops=2, cops_at=[(1, 1), (7, 14)]).start is not None
