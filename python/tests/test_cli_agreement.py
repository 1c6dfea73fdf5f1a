"""Every answer of the package equals the CLI's: values and distances of
every state (``solve --dump``), rated moves and probes of tables written by
``solve --save`` (``query --json``), heatmaps, ``probe_many``."""

import csv
import itertools

import numpy as np
import pytest
import retrograde

from conftest import MAPS, query_json

CODE = {"win": 1, "loss": -1, "draw": 0}


def free_cells(m):
    a = m.to_array()
    return [tuple(map(int, rc)) for rc in zip(*np.nonzero(a))]


def all_positions(cells):
    for c, t in itertools.product(cells, cells):
        for turn in ("cop", "thief"):
            yield c, t, turn


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.name)
def test_every_state_equals_the_cli_dump(cli, tmp_path, path):
    dump = tmp_path / "dump.csv"
    p = cli("solve", path, "--dump", dump, check=False)
    try:
        m = retrograde.Map.from_file(path)
        sol = retrograde.solve(m)
    except ValueError as e:
        # The CLI refuses the same map with the same message.
        assert p.returncode == 2
        assert str(e) in p.stderr
        return
    assert p.returncode == 0, p.stderr
    rows = 0
    with open(dump, newline="") as f:
        for row in csv.DictReader(f):
            cop = (int(row["cop_row"]), int(row["cop_col"]))
            thief = (int(row["thief_row"]), int(row["thief_col"]))
            assert sol.value(cop, thief, row["turn"]) == row["value"], row
            want = int(row["dte"]) if row["dte"] else None
            assert sol.dte(cop, thief, row["turn"]) == want, row
            rows += 1
    assert rows == sol.states == sum(sol.counts.values())


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.name)
def test_tables_written_by_the_cli_answer_as_query(cli, tmp_path, path):
    table = tmp_path / "t.rtb"
    if cli("solve", path, "--save", table, "--dte-table", check=False).returncode != 0:
        pytest.skip("the CLI refuses this map (checked in the dump test)")
    m = retrograde.Map.from_file(path)
    sol = retrograde.solve(m)
    positions = list(all_positions(free_cells(m)))
    answers = query_json(cli, table, positions)
    assert len(answers) == len(positions)
    with retrograde.open_table(table) as tb:
        for (c, t, turn), a in zip(positions, answers):
            assert (tuple(a["cop"]), tuple(a["thief"]), a["turn"]) == (c, t, turn)
            assert tb.probe(c, t, turn) == (a["value"], a["dte"])
            assert tb.probe_value(c, t, turn) == a["value"]
            assert tb.probe_dte(c, t, turn) == a["dte"]
            assert tb.get_value(c, t, turn) == a["value"]
            rated = [(tuple(mv["to"]), mv["value"], mv["dte"]) for mv in a["moves"]]
            assert tb.moves(c, t, turn) == rated
            # The best moves are the best-rated ones, the same cells from
            # the solution and from the table.
            best = [mv for mv in rated if mv[1:] == rated[0][1:]] if rated else []
            assert sorted(sol.best_moves(c, t, turn)) == sorted(mv[0] for mv in best)
            assert sorted(tb.best_moves(c, t, turn)) == sorted(mv[0] for mv in best)
        # probe_many equals probe one by one, in one call.
        cops = np.array([p[0] for p in positions])
        thieves = np.array([p[1] for p in positions])
        turns = np.array([0 if p[2] == "cop" else 1 for p in positions], dtype=np.uint8)
        values, dte = tb.probe_many(cops, thieves, turns)
        assert values.dtype == np.int8 and dte.dtype == np.int32
        for i, (c, t, turn) in enumerate(positions):
            v, d = tb.probe(c, t, turn)
            assert values[i] == CODE[v]
            assert dte[i] == (-1 if d is None else d)


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.name)
def test_python_saved_tables_equal_cli_tables_and_heatmaps_agree(cli, tmp_path, path):
    cli_table = tmp_path / "cli.rtb"
    if cli("solve", path, "--save", cli_table, "--dte-table", check=False).returncode != 0:
        pytest.skip("the CLI refuses this map (checked in the dump test)")
    m = retrograde.Map.from_file(path)
    sol = retrograde.solve(m)
    py_table = tmp_path / "py.rtb"
    sol.save(py_table)
    # The same solve through the same writer: the same bytes.
    assert py_table.read_bytes() == cli_table.read_bytes()
    cells = free_cells(m)
    with retrograde.open_table(cli_table) as tb:
        assert tb.counts == sol.counts
        for cell in cells[:: max(1, len(cells) // 7)]:
            for turn in ("cop", "thief"):
                for fixed in ({"cop": cell}, {"thief": cell}):
                    v, d = sol.heatmap(turn=turn, **fixed)
                    tv, td = tb.heatmap(turn=turn, **fixed)
                    assert v.shape == d.shape == (m.rows, m.cols)
                    np.testing.assert_array_equal(v, tv)
                    np.testing.assert_array_equal(d, td)
                    for (r, c) in cells:
                        pos = (cell, (r, c)) if "cop" in fixed else ((r, c), cell)
                        value, dte = tb.probe(*pos, turn)
                        assert v[r, c] == CODE[value]
                        assert d[r, c] == (-1 if dte is None else dte)
                    assert (v[~m.to_array()] == -2).all()


def test_play_follows_the_cli(cli, tmp_path):
    path = MAPS[-2]  # sample.txt
    table = tmp_path / "t.rtb"
    cli("solve", path, "--save", table, "--dte-table")
    with retrograde.open_table(table) as tb:
        game = tb.play()
        start = tb.start
        assert game[0] == start
        value, dte = tb.probe(*start)
        assert value != "draw" and len(game) == dte + 1
        # Each move is the best-rated move of the query answers.
        answers = query_json(cli, table, game[:-1])
        for a, nxt in zip(answers, game[1:]):
            mover = 0 if a["turn"] == "cop" else 1
            assert list(nxt[mover]) == a["moves"][0]["to"]
        assert tb.best_moves(*game[-1]) == []


def test_vectorised_probes_of_random_positions_equal_single_probes():
    m = retrograde.Map.from_file(MAPS[-2])
    sol = retrograde.solve(m)
    import tempfile, os

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.rtb")
        sol.save(path)
        with retrograde.open_table(path) as tb:
            cells = np.array(free_cells(m))
            rng = np.random.default_rng(7)
            n = 20_000
            cops = cells[rng.integers(len(cells), size=n)]
            thieves = cells[rng.integers(len(cells), size=n)]
            turns = rng.integers(2, size=n)
            values, dte = tb.probe_many(cops, thieves, turns)
            for i in range(0, n, 97):
                turn = "cop" if turns[i] == 0 else "thief"
                assert values[i] == CODE[sol.value(tuple(cops[i]), tuple(thieves[i]), turn)]
                want = sol.dte(tuple(cops[i]), tuple(thieves[i]), turn)
                assert dte[i] == (-1 if want is None else want)
