"""Tables of several cops (format 4 and 5), on maps and graphs, through the
one reader: probes, ``probe_many`` with the several-cops shapes, rated
moves and play against ``retrograde query --json``; the one solution class
for any number of cops (its tables are the CLI's, byte for byte)."""

import itertools
import json

import numpy as np
import pytest
import retrograde

from conftest import DATA

CODE = {"win": 1, "loss": -1, "draw": 0}
CORRIDOR = DATA / "maps" / "seed" / "corridor.txt"
SAMPLE = DATA / "maps" / "sample.txt"
PETERSEN = DATA / "graphs" / "petersen.txt"


def free_cells(m):
    return [tuple(map(int, rc)) for rc in zip(*np.nonzero(m.to_array()))]


def kquery(cli, table, positions, show):
    """``query --stdin --json`` answers for ``[(cops, thief, turn)]``."""
    lines = "".join(
        " ".join([*(show(c) for c in cops), show(t), turn]) + "\n" for cops, t, turn in positions
    )
    out = cli("query", table, "--stdin", "--json", stdin=lines).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def as_cell(v):
    """A cell of the CLI's JSON as the package gives it."""
    return tuple(v) if isinstance(v, list) else v


def as_to(v, turn):
    """A move's ``to`` of the CLI's JSON: the cops' cells after a cop move."""
    return tuple(as_cell(c) for c in v) if turn == "cop" else as_cell(v)


def positions_of(cells, k):
    for cops in itertools.combinations_with_replacement(cells, k):
        for t in cells:
            for turn in ("cop", "thief"):
                yield cops, t, turn


@pytest.fixture(scope="module")
def map_table(cli, tmp_path_factory):
    path = tmp_path_factory.mktemp("k") / "corridor2.rtb"
    cli("solve", CORRIDOR, "--cops", 2, "--cop", "0,0", "--cop", "0,6", "--thief", "4,5",
        "--dte-table", "--save", path, "--quiet")
    return path


@pytest.fixture(scope="module")
def graph_table(cli, tmp_path_factory):
    path = tmp_path_factory.mktemp("k") / "petersen2.rtb"
    cli("solve", PETERSEN, "--graph", "--cops", 2, "--dte-table", "--save", path, "--quiet")
    return path


def test_a_two_cop_map_table_answers_as_query(cli, map_table):
    m = retrograde.Map.from_file(CORRIDOR)
    cells = free_cells(m)
    positions = list(positions_of(cells, 2))
    answers = kquery(cli, map_table, positions, lambda c: f"{c[0]},{c[1]}")
    assert len(answers) == len(positions)
    with retrograde.open_table(map_table) as tb:
        assert (tb.cops, tb.graph, tb.cells, tb.rows, tb.cols) == (2, False, len(cells), 5, 7)
        assert tb.states == len(positions) and tb.has_distances
        assert sum(tb.counts.values()) == tb.states
        assert tb.start == (((0, 0), (0, 6)), (4, 5), "cop")
        assert "2 cops" in repr(tb)
        for (cops, t, turn), a in zip(positions, answers):
            assert [tuple(c) for c in a["cops"]] == sorted(cops)
            want = (a["value"], a["dte"])
            # The cops in any order, as a list or a tuple.
            assert tb.probe(cops, t, turn) == want
            assert tb.probe(list(cops[::-1]), t, turn) == want
            assert tb.probe_value(cops, t, turn) == a["value"]
            assert tb.probe_dte(cops, t, turn) == a["dte"]
            assert tb.get_value(cops, t, turn) == a["value"]
            rated = [(as_to(mv["to"], turn), mv["value"], mv["dte"]) for mv in a["moves"]]
            assert tb.moves(cops, t, turn) == rated
            best = [mv[0] for mv in rated if mv[1:] == rated[0][1:]]
            assert sorted(tb.best_moves(cops, t, turn)) == sorted(best)
        # probe_many, (N, 2, 2): every position in one call, equal to probe.
        c = np.array([p[0] for p in positions])
        t = np.array([p[1] for p in positions])
        turns = np.array([0 if p[2] == "cop" else 1 for p in positions], dtype=np.uint8)
        assert c.shape == (len(positions), 2, 2)
        values, dte = tb.probe_many(c, t, turns)
        assert values.dtype == np.int8 and dte.dtype == np.int32
        want_v = [CODE[a["value"]] for a in answers]
        want_d = [-1 if a["dte"] is None else a["dte"] for a in answers]
        assert list(values) == want_v and list(dte) == want_d
        # The cops' order within a position does not matter.
        values2, dte2 = tb.probe_many(c[:, ::-1, :], t, [p[2] for p in positions])
        assert list(values2) == want_v and list(dte2) == want_d


def test_play_and_heatmap_of_a_two_cop_table(cli, map_table):
    m = retrograde.Map.from_file(CORRIDOR)
    sol = retrograde.solve(m, cops=2, cops_at=[(0, 0), (0, 6)])
    with retrograde.open_table(map_table) as tb:
        game = tb.play()
        assert game[0] == tb.start
        value, dte = tb.probe(*tb.start)
        assert sol.start == (value, dte)
        assert value != "draw" and len(game) == dte + 1
        answers = kquery(cli, map_table, game[:-1], lambda c: f"{c[0]},{c[1]}")
        for a, nxt in zip(answers, game[1:]):
            mover = 0 if a["turn"] == "cop" else 1
            assert nxt[mover] == as_to(a["moves"][0]["to"], a["turn"])
        assert tb.moves(*game[-1]) == []
        # From a given position, the cops in any order.
        assert tb.play([(0, 6), (0, 0)], (4, 5)) == game
        for cops in ([(0, 0), (0, 6)], [(2, 3), (2, 3)]):
            for turn in ("cop", "thief"):
                v, d = tb.heatmap(cop=cops, turn=turn)
                sv, sd = sol.heatmap(cops, turn=turn)
                np.testing.assert_array_equal(v, sv)
                np.testing.assert_array_equal(d, sd)
        with pytest.raises(ValueError, match="maps the thief's cells"):
            tb.heatmap(thief=(4, 5))


def test_errors_of_a_two_cop_table(map_table):
    with retrograde.open_table(map_table) as tb:
        with pytest.raises(ValueError, match="cops: expected 2 cells, got 1"):
            tb.probe([(0, 0)], (4, 5))
        with pytest.raises(ValueError, match="cops: expected 2 cells, got 3"):
            tb.probe([(0, 0), (0, 1), (0, 2)], (4, 5))
        with pytest.raises(ValueError, match="expected 2 cells"):
            tb.probe((0, 0), (4, 5))
        with pytest.raises(KeyError, match="cop 1,0: is a wall"):
            tb.probe([(0, 0), (1, 0)], (4, 5))
        with pytest.raises(KeyError, match="thief 9,9: outside the map"):
            tb.probe([(0, 0), (0, 1)], (9, 9))
        assert tb.get_value([(0, 0), (1, 0)], (4, 5), default="?") == "?"
        # probe_many: the cops' array must be (N, 2, 2), the thieves' (N, 2).
        with pytest.raises(ValueError, match=r"cops must be \(N, 2, 2\) for a table of 2 cops"):
            tb.probe_many([(0, 0)], [(4, 5)], [0])
        with pytest.raises(ValueError, match=r"cops must be \(N, 2, 2\)"):
            tb.probe_many([[(0, 0), (0, 1), (0, 2)]], [(4, 5)], [0])
        with pytest.raises(ValueError, match=r"thieves must be \(N, 2\)"):
            tb.probe_many([[(0, 0), (0, 1)]], [[(4, 5)]], [0])
        with pytest.raises(ValueError, match=r"cops must be \(N, 2, 2\)"):
            tb.probe_many([[(0, 0), (0, 1)]], [(4, 5)], [0, 1])
        with pytest.raises(KeyError, match="position 1: cop 1,0: off the map or a wall"):
            tb.probe_many([[(0, 0), (0, 1)], [(0, 0), (1, 0)]], [(4, 5), (4, 5)], [0, 0])
        with pytest.raises(KeyError, match="position 0: thief -1,5"):
            tb.probe_many([[(0, 0), (0, 1)]], [(-1, 5)], [0])
        with pytest.raises(ValueError, match="turn 2"):
            tb.probe_many([[(0, 0), (0, 1)]], [(4, 5)], [2])
        with pytest.raises(ValueError, match="cops must be integers"):
            tb.probe_many(np.zeros((1, 2, 2)) + 0.5, [(4, 5)], [0])
        # No vertex ids on a map.
        with pytest.raises(ValueError, match=r"expected 2 cells \(\(row, col\) each\), got \[0, 1\]"):
            tb.probe([0, 1], (4, 5))
    with pytest.raises(ValueError, match="closed"):
        tb.probe([(0, 0), (0, 1)], (4, 5))


def test_a_two_cop_graph_table_answers_as_query(cli, graph_table):
    n = 10
    positions = list(positions_of(range(n), 2))
    answers = kquery(cli, graph_table, positions, str)
    with retrograde.open_table(graph_table) as tb:
        assert (tb.cops, tb.graph, tb.cells) == (2, True, n)
        assert tb.states == len(positions) and tb.start is None
        assert "graph of 10 vertices, 2 cops" in repr(tb)
        for (cops, t, turn), a in zip(positions, answers):
            assert tb.probe(cops, t, turn) == (a["value"], a["dte"])
            rated = [(as_to(mv["to"], turn), mv["value"], mv["dte"]) for mv in a["moves"]]
            assert tb.moves(list(cops), t, turn) == rated
        # probe_many on a graph: (N, 2) cops and (N,) thieves, vertex ids.
        c = np.array([p[0] for p in positions])
        t = np.array([p[1] for p in positions])
        turns = [p[2] for p in positions]
        values, dte = tb.probe_many(c, t, turns)
        assert list(values) == [CODE[a["value"]] for a in answers]
        assert list(dte) == [-1 if a["dte"] is None else a["dte"] for a in answers]
        v, d = tb.heatmap(cop=[0, 5], turn="cop")
        assert v.shape == d.shape == (n,)
        assert [int(x) for x in v] == [CODE[tb.probe([0, 5], x, "cop")[0]] for x in range(n)]
        game = tb.play([0, 5], 7, "thief")
        assert game[0] == ((0, 5), 7, "thief")
        # Errors: shapes, vertices, cells of a map.
        with pytest.raises(ValueError, match=r"cops must be \(N, 2\) for a table of 2 cops on a graph"):
            tb.probe_many(c[:, :1], t, turns)
        with pytest.raises(ValueError, match=r"thieves must be \(N,\) on a graph"):
            tb.probe_many(c, t[:, None], turns)
        with pytest.raises(KeyError, match="position 0: cop 10: not a vertex"):
            tb.probe_many([[10, 0]], [1], [0])
        with pytest.raises(KeyError, match="thief 10: the graph's vertices are 0..10"):
            tb.probe([0, 1], 10)
        with pytest.raises(KeyError, match="cop -1"):
            tb.probe([0, -1], 1)
        with pytest.raises(ValueError, match="cops: expected 2 cells, got 1"):
            tb.probe([0], 1)
        with pytest.raises(ValueError, match="the table is of a graph"):
            tb.to_array()
        with pytest.raises(ValueError, match="no start"):
            tb.play()


def test_one_cop_tables_take_the_cops_axis_too(tmp_path):
    m = retrograde.Map.from_file(SAMPLE)
    sol = retrograde.solve(m)
    path = tmp_path / "one.rtb"
    sol.save(path)
    cells = np.array(free_cells(m))
    rng = np.random.default_rng(3)
    c = cells[rng.integers(len(cells), size=500)]
    t = cells[rng.integers(len(cells), size=500)]
    turns = rng.integers(2, size=500)
    with retrograde.open_table(path) as tb:
        assert tb.cops == 1 and not tb.graph and tb.cells == len(cells)
        flat = tb.probe_many(c, t, turns)
        axis = tb.probe_many(c[:, None, :], t, turns)
        np.testing.assert_array_equal(flat[0], axis[0])
        np.testing.assert_array_equal(flat[1], axis[1])
        # One cop as a sequence of one cell.
        assert tb.probe([m.cop], m.thief) == tb.probe(m.cop, m.thief)
        with pytest.raises(ValueError, match="cops: expected 1 cell, got 2"):
            tb.probe([m.cop, m.cop], m.thief)
        with pytest.raises(ValueError, match=r"cops must be \(N, 2\) or \(N, 1, 2\)"):
            tb.probe_many(np.stack([c, c], axis=1), t, turns)


def test_one_solution_class_for_any_number_of_cops(cli, tmp_path, map_table):
    assert retrograde.CopsSolution is retrograde.Solution
    m = retrograde.Map.from_file(CORRIDOR, thief=(4, 5))
    sol = retrograde.solve(m, cops=2, cops_at=[(0, 0), (0, 6)])
    one = retrograde.solve(m)
    assert isinstance(sol, retrograde.Solution) and isinstance(one, retrograde.Solution)
    assert (sol.cops, one.cops) == (2, 1)
    assert repr(sol).startswith("<retrograde.Solution 2 cops, ")
    # Saved as the CLI saves it: the same bytes.
    path = tmp_path / "py.rtb"
    sol.save(path)
    assert path.read_bytes() == map_table.read_bytes()
    cells = free_cells(m)
    with retrograde.open_table(path) as tb:
        for cops, t, turn in positions_of(cells[::3], 2):
            assert tb.probe(cops, t, turn) == (sol.value(cops, t, turn), sol.dte(cops, t, turn))
            best = sol.best_moves(list(cops), t, turn)
            assert sorted(best) == sorted(tb.best_moves(cops, t, turn))
    with pytest.raises(ValueError, match="maps the thief's cells"):
        sol.heatmap(thief=(4, 5))
    with pytest.raises(ValueError, match="exactly one"):
        sol.heatmap([(0, 0), (0, 6)], cop=[(0, 0), (0, 6)])
    with pytest.raises(ValueError, match="distances"):
        retrograde.solve(m, cops=2, distances=False).best_moves([(0, 0), (0, 6)], (4, 5))


def test_a_one_cop_graph_table(cli, tmp_path):
    path = tmp_path / "petersen1.rtb"
    cli("solve", PETERSEN, "--graph", "--dte-table", "--save", path, "--quiet")
    positions = list(positions_of(range(10), 1))
    answers = kquery(cli, path, positions, str)
    with retrograde.open_table(path) as tb:
        assert (tb.cops, tb.graph, tb.cells, tb.states) == (1, True, 10, 200)
        for (cops, t, turn), a in zip(positions, answers):
            # One cop as a vertex, or a sequence of one.
            assert tb.probe(cops[0], t, turn) == tb.probe(cops, t, turn) == (a["value"], a["dte"])
            rated = [(as_cell(mv["to"][0] if turn == "cop" else mv["to"]), mv["value"], mv["dte"])
                     for mv in a["moves"]]
            assert tb.moves(cops[0], t, turn) == rated
        c = np.array([p[0][0] for p in positions])
        t = np.array([p[1] for p in positions])
        turns = [p[2] for p in positions]
        flat, axis = tb.probe_many(c, t, turns), tb.probe_many(c[:, None], t, turns)
        assert list(flat[0]) == list(axis[0]) == [CODE[a["value"]] for a in answers]
        with pytest.raises(ValueError, match=r"cops must be \(N,\) or \(N, 1\) for a table of 1 cop on a graph"):
            tb.probe_many(c[:, None, None], t, turns)
