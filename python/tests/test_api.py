"""Maps from arrays, rule variants, errors as exceptions, the toolkit,
Ctrl-C during a solve."""

import os
import signal
import textwrap
import threading
import time

import numpy as np
import pytest
import retrograde

from conftest import DATA, MAPS


def test_from_array_round_trips_and_solves_as_the_file():
    m = retrograde.Map.from_file(DATA / "maps" / "sample.txt")
    a = m.to_array()
    assert a.dtype == bool and a.shape == (m.rows, m.cols)
    m2 = retrograde.Map.from_array(a.astype(np.uint8), exits=m.exits, cop=m.cop, thief=m.thief)
    np.testing.assert_array_equal(m2.to_array(), a)
    assert m2.exits == m.exits
    s1, s2 = retrograde.solve(m), retrograde.solve(m2)
    assert s1.start == s2.start and s1.counts == s2.counts
    np.testing.assert_array_equal(m2.exit_array(), m.exit_array())


def test_exit_rules_and_rule_variants_change_answers_as_the_cli(cli):
    path = DATA / "maps" / "sample.txt"
    m = retrograde.Map.from_file(path, exits=["rim"])
    for kwargs, flags in [
        ({}, []),
        ({"thief_diagonal": True}, ["--thief-diagonal"]),
        ({"cop_diagonal": False}, ["--cop-orthogonal"]),
        ({"cop_passes": False, "thief_passes": False}, ["--no-pass"]),
        ({"corner_cutting": False}, ["--no-corner-cutting"]),
        ({"thief_first": True}, ["--thief-first"]),
    ]:
        sol = retrograde.solve(m, rules=retrograde.Rules(**kwargs))
        out = cli("solve", path, "--exits", "rim", "--json", *flags).stdout
        import json

        report = json.loads(out)
        counts = report["counts"] if "counts" in report else report["states"]
        assert sol.counts == {k: counts[k] for k in ("win", "loss", "draw")}, flags


def test_bad_map_raises_value_error_with_the_cli_message(cli):
    bad = DATA / "bad" / "short-row.txt"
    with pytest.raises(ValueError) as e:
        retrograde.Map.from_file(bad)
    p = cli("solve", bad, check=False)
    assert p.returncode == 2
    assert str(e.value) in p.stderr
    assert ":3:4:" in str(e.value)


def test_missing_file_and_damaged_table_raise():
    with pytest.raises(FileNotFoundError):
        retrograde.Map.from_file("/nonexistent/map.txt")
    with pytest.raises(FileNotFoundError):
        retrograde.open_table("/nonexistent/t.rtb")


def test_damaged_table_is_a_value_error(tmp_path):
    sol = retrograde.solve(retrograde.Map.from_file(DATA / "maps" / "sample.txt"))
    path = tmp_path / "t.rtb"
    sol.save(path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="t.rtb"):
        with retrograde.open_table(path) as tb:
            tb.probe_many(*np.broadcast_arrays(np.array([[1, 1]]), np.array([[1, 1]])), [0])
            # Every state decoded: the damaged block is among them.
            cells = np.argwhere(tb.to_array())
            c = np.repeat(cells, len(cells), axis=0)
            t = np.tile(cells, (len(cells), 1))
            tb.probe_many(c, t, np.zeros(len(c), np.uint8))
            tb.probe_many(c, t, np.ones(len(c), np.uint8))


def test_positions_the_table_cannot_answer_raise_key_error(tmp_path):
    m = retrograde.Map.from_file(DATA / "maps" / "sample.txt")
    sol = retrograde.solve(m, distances=False)
    path = tmp_path / "t.rtb"
    sol.save(path)
    tb = retrograde.open_table(path)
    with pytest.raises(KeyError, match="outside the map"):
        tb.probe_value((100, 0), m.thief)
    with pytest.raises(KeyError, match="wall"):
        tb.probe((0, 0), m.thief)
    with pytest.raises(KeyError, match="no distances"):
        tb.probe_dte(m.cop, m.thief)
    assert tb.get_value((0, 0), m.thief, default="?") == "?"
    assert tb.get_value(m.cop, m.thief) == sol.value(m.cop, m.thief)
    with pytest.raises(KeyError, match="position 1"):
        tb.probe_many([m.cop, (0, 0)], [m.thief, m.thief], [0, 0])
    with pytest.raises(ValueError, match="turn 2"):
        tb.probe_many([m.cop], [m.thief], [2])
    # No silent casts: a turn of 257 is not turn 1, a cell of 1.5 not 1; a
    # bad turn is a bad argument, ValueError as probe raises it (issue 47).
    with pytest.raises(ValueError, match="turn 257"):
        tb.probe_many(np.array([m.cop]), np.array([m.thief]), np.array([257]))
    with pytest.raises(ValueError, match="cops must be integers"):
        tb.probe_many(np.array([m.cop]) + 0.5, [m.thief], [0])
    # Turns as probe takes them (issue 33): "cop" / "thief" as 0 / 1.
    for named in (["cop", "thief"], np.array(["cop", "thief"])):
        values, dte = tb.probe_many([m.cop, m.cop], [m.thief, m.thief], named)
        want, _ = tb.probe_many([m.cop, m.cop], [m.thief, m.thief], [0, 1])
        assert list(values) == list(want)
    with pytest.raises(ValueError, match=r"turns\[1\]"):
        tb.probe_many([m.cop, m.cop], [m.thief, m.thief], ["cop", "police"])
    with pytest.raises(KeyError, match="cop -1,1: outside the map"):
        tb.probe((-1, 1), m.thief)
    assert tb.get_value((-1, 1), m.thief, default="?") == "?"
    with pytest.raises(ValueError):
        tb.probe_many([m.cop], [m.thief], [0, 1])
    with pytest.raises(ValueError):
        tb.probe(m.cop, m.thief, "police")
    tb.close()
    assert tb.closed
    with pytest.raises(ValueError, match="closed"):
        tb.probe(m.cop, m.thief)


def test_solution_errors():
    m = retrograde.Map.from_file(DATA / "maps" / "sample.txt")
    with pytest.raises(ValueError, match="cops=5: the number of cops must be 1 to 4"):
        retrograde.solve(m, cops=5)
    with pytest.raises(ValueError, match="threads must be at least 1"):
        retrograde.solve(m, threads=0)
    with pytest.raises(ValueError, match="at most 1024"):
        retrograde.solve(m, threads=10**6)
    sol = retrograde.solve(m, distances=False)
    assert sol.start[1] is not None  # the start's distance is tracked
    with pytest.raises(ValueError, match="distances"):
        sol.best_moves(m.cop, m.thief)
    with pytest.raises(ValueError, match="wall"):
        sol.value((0, 0), m.thief)
    with pytest.raises(ValueError, match="exactly one"):
        sol.heatmap(cop=m.cop, thief=m.thief)
    with pytest.raises(ValueError):
        retrograde.Map.from_array(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="2-D"):
        retrograde.Map.from_array(np.ones(4))
    with pytest.raises(ValueError, match="exits"):
        retrograde.Map.from_file(DATA / "maps" / "sample.txt", exits=["nowhere"])
    # In the API's words, not the CLI's flags (issue 47).
    with pytest.raises(ValueError, match=r"cop=\(0, 0\): is a wall"):
        retrograde.Map.from_file(DATA / "maps" / "sample.txt", cop=(0, 0))
    with pytest.raises(ValueError, match=r"cop=\(-1, 2\): outside the map"):
        retrograde.Map.from_file(DATA / "maps" / "sample.txt", cop=(-1, 2))
    with pytest.raises(ValueError, match=r"exits \(1, -2\): outside the map"):
        retrograde.Map.from_file(DATA / "maps" / "sample.txt", exits=[(1, -2)])
    # Negative and huge cells are cells off the map, not OverflowError.
    with pytest.raises(ValueError, match="cop -1,0: outside the map: rows are 0..=8"):
        sol.value((-1, 0), m.thief)
    with pytest.raises(ValueError, match="thief 0,9223372036854775807: outside the map"):
        sol.dte(m.cop, (0, 10**30))
    with pytest.raises(MemoryError):
        retrograde.solve(retrograde.Map.from_array(np.ones((60, 60)), exits="border"), memory=1000)


def test_toolkit():
    assert retrograde.nim([1, 2, 3]) == (0, [])
    s, moves = retrograde.nim([3, 4, 5])
    assert s == 2 and moves == [(0, 2)]
    r = retrograde.subtraction([1, 2], 9)
    assert r["period"] == 3 and r["wins"] is False and r["winning_move"] is None
    assert retrograde.subtraction([1, 2], 10)["winning_move"] == 1
    with pytest.raises(ValueError):
        retrograde.subtraction([], 3)
    # Below the smallest move a heap loses with grundy 0, period or not
    # (as the command answers it); above it the period must be found.
    r = retrograde.subtraction([5, 7], 4, limit=3)
    assert (r["wins"], r["grundy"], r["winning_move"], r["period"]) == (False, 0, None, None)
    with pytest.raises(ValueError, match="no period found"):
        retrograde.subtraction([5, 7], 5, limit=3)


@pytest.mark.parametrize("side, cops", [(200, 1), (20, 2)])
def test_ctrl_c_interrupts_a_long_solve_with_keyboard_interrupt(side, cops):
    # Long enough (about 10 s for one cop on a 200 x 200 map, 8 s for two
    # on 20 x 20, on 2 cores) that the signal always lands mid-solve; a
    # 90 x 90 map ended before it on an idle machine. One solve path for
    # every number of cops: the several-cops engine stops between levels
    # too.
    m = retrograde.Map.from_array(np.ones((side, side), bool), exits=[(0, 0)])
    # Python turns SIGINT into KeyboardInterrupt only if SIGINT was not
    # ignored when it started, and a job run in the background (`cmd &`
    # from a script) starts with it ignored: install the handler here.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            retrograde.solve(m, cops=cops, distances=False)
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    # Stopped within a level, not run to the end.
    assert time.monotonic() - started < 30


def test_other_threads_run_while_solving():
    m = retrograde.Map.from_array(np.ones((40, 40), bool), exits="border")
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    try:
        retrograde.solve(m)
    finally:
        stop.set()
        t.join()
    assert len(ticks) > 3


def test_save_writes_into_a_fifo_and_through_a_link_never_over_them(tmp_path):
    # Issue 33, item 15: the temporary file was renamed over whatever the
    # path named, a FIFO (or a device) included; the CLI writes into them.
    solution = retrograde.solve(retrograde.Map.from_file(str(DATA / "maps" / "sample.txt")))
    fifo = tmp_path / "out.rtb"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    solution.save(str(fifo))
    reader.join(20)
    assert fifo.is_fifo()
    plain = tmp_path / "plain.rtb"
    solution.save(str(plain))
    assert got == [plain.read_bytes()]
    link = tmp_path / "link.rtb"
    target = tmp_path / "target.rtb"
    target.write_bytes(b"old")
    link.symlink_to(target)
    solution.save(str(link))
    assert link.is_symlink()
    assert target.read_bytes() == plain.read_bytes()


def test_save_refuses_a_dangling_link_as_the_cli_does(tmp_path):
    # Issue 47: the link was replaced by a regular file.
    solution = retrograde.solve(retrograde.Map.from_file(str(DATA / "maps" / "sample.txt")))
    link = tmp_path / "link.rtb"
    link.symlink_to(tmp_path / "missing" / "x.rtb")
    with pytest.raises(FileNotFoundError, match="a symbolic link to a missing file"):
        solution.save(str(link))
    assert link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.rtb"]


def test_threads_saving_one_path_leave_a_whole_table(cli, tmp_path):
    # Issue 47: one temporary name per process was shared by every
    # thread's save: a corrupt table while save() returned, and
    # FileNotFoundError for the others.
    m = retrograde.Map.from_file(str(DATA / "maps" / "sample.txt"))
    two = retrograde.solve(m, cops=2, cops_at=[(1, 1), (7, 14)])
    three = retrograde.solve(m, cops=3, cops_at=[(1, 1), (7, 14), (1, 2)])
    path = tmp_path / "race.rtb"
    for _ in range(10):
        errors = []

        def saver(s):
            try:
                s.save(str(path))
            except BaseException as e:  # noqa: BLE001 - any failure counts
                errors.append(repr(e))

        threads = [threading.Thread(target=saver, args=(two if i % 2 else three,)) for i in range(8)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        assert errors == []
        cli("info", path, "--check")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["race.rtb"]


def test_edge_lists_without_vertices_and_ids_past_int64():
    # Issue 47: no edges gave two empty arrays where the CLI refuses a
    # graph without vertices; 2**63 in a uint64 array was reported wrapped.
    for call in (retrograde.solve_graph, retrograde.grundy, retrograde.cop_number):
        with pytest.raises(ValueError, match="at least one vertex"):
            call(np.zeros((0, 2), int))
        with pytest.raises(ValueError, match="9223372036854775808 is too large"):
            call(np.array([[0, 2**63]], dtype=np.uint64))
    values, dte = retrograde.solve_graph(np.zeros((0, 2), int), n=2)
    assert list(values) == [-1, -1] and list(dte) == [0, 0]


@pytest.mark.parametrize("edges", [[[0, 1.5], [1.2, 2.9]], [[0, 1.0]], [[0, float("nan")]]])
def test_float_vertex_ids_are_refused_not_truncated(edges):
    # Issue 33, item 15: [[0, 1.5], [1.2, 2.9]] was read as 0-1, 1-2.
    for call in (retrograde.cop_number, retrograde.solve_graph):
        with pytest.raises(ValueError, match="must be integers"):
            call(np.array(edges))


def test_sniff_tells_what_a_file_holds(tmp_path):
    # The kinds every command tells by content, whatever the file's name.
    assert retrograde.sniff(DATA / "maps" / "sample.txt") == "seed"
    assert retrograde.sniff(DATA / "movingai" / "arena.map") == "movingai"
    assert retrograde.sniff(DATA / "movingai" / "random-32-32-10-random-1.scen") == "scenario"
    assert retrograde.sniff(DATA / "graphs" / "connected-6.g6") == "graph6"
    assert retrograde.sniff(DATA / "graphs" / "petersen.txt") == "edges"
    table = tmp_path / "sample.rtb"
    retrograde.solve(retrograde.Map.from_file(DATA / "maps" / "sample.txt")).save(table)
    renamed = tmp_path / "table.txt"
    table.rename(renamed)
    assert retrograde.sniff(renamed) == "table"
    empty = tmp_path / "empty.map"
    empty.write_bytes(b"")
    assert retrograde.sniff(empty) is None
    with pytest.raises(FileNotFoundError, match="missing"):
        retrograde.sniff(tmp_path / "missing")
    with pytest.raises(OSError):
        retrograde.sniff(tmp_path)


def test_solution_probe_many_answers_as_the_saved_table(tmp_path):
    # Issue 47, friction 7: probe_many needed a table saved and reopened.
    m = retrograde.Map.from_file(str(DATA / "maps" / "sample.txt"))
    free = np.argwhere(m.to_array())
    rng = np.random.default_rng(7)
    n = 400
    for k in (1, 2):
        sol = retrograde.solve(m, cops=k)
        path = tmp_path / f"t{k}.rtb"
        sol.save(str(path))
        tb = retrograde.open_table(path)
        cops = free[rng.integers(len(free), size=(n, k))]
        if k == 1:
            cops = cops[:, 0]
        thieves = free[rng.integers(len(free), size=n)]
        turns = rng.integers(2, size=n)
        got_values, got_dte = sol.probe_many(cops, thieves, turns)
        want_values, want_dte = tb.probe_many(cops, thieves, turns)
        np.testing.assert_array_equal(got_values, want_values)
        np.testing.assert_array_equal(got_dte, want_dte)
        assert {-1, 1} <= set(got_values.tolist())
        walled = cops.copy()
        walled[1] = 0
        with pytest.raises(KeyError, match="position 1"):
            sol.probe_many(walled, thieves, turns)
        with pytest.raises(ValueError, match="turns\\[0\\]: turn 2"):
            sol.probe_many(cops[:1], thieves[:1], [2])
        with pytest.raises(ValueError, match="turn 2"):
            tb.probe_many(cops[:1], thieves[:1], [2])


def test_solve_takes_a_path_and_errors_speak_the_api():
    # Issue 47, friction 7: solve(path), and placement errors that named
    # the CLI's flags (`--cop 0,0`) instead of the arguments given.
    path = DATA / "maps" / "sample.txt"
    m = retrograde.Map.from_file(str(path))
    want = retrograde.solve(m)
    for given in (str(path), path):
        got = retrograde.solve(given)
        assert (got.start, got.counts) == (want.start, want.counts)
    with pytest.raises(FileNotFoundError):
        retrograde.solve(str(path) + ".missing")
    with pytest.raises(ValueError) as wall:
        retrograde.solve(m, cops_at=[(0, 0)])
    with pytest.raises(ValueError) as lone:
        retrograde.Map.from_file(str(path), cop=(0, 0))
    for e in (wall, lone):
        assert "--" not in str(e.value) and "cop=(0, 0)" in str(e.value), str(e.value)



def test_the_module_docstring_runs_and_shows_what_it_gives(tmp_path, monkeypatch):
    # Issue 47, friction 7: the quick start showed ('win', 7) for a start
    # the cop loses in 14 plies, and used nx without importing it.
    pytest.importorskip("networkx")
    doc = retrograde.__doc__
    block = textwrap.dedent(doc[doc.index("::") + 2 : doc.index("Positions are")])
    for name in ("sample.rtb", "two.rtb"):
        block = block.replace(f'"{name}"', repr(str(tmp_path / name)))
    monkeypatch.chdir(DATA.parent)
    env = {}
    exec(block, env)
    sol, m = env["sol"], env["m"]
    assert f"sol.start                               # {sol.start!r}" in doc
    with retrograde.open_table(tmp_path / "sample.rtb") as tb:
        assert f"# {tb.probe(m.cop, m.thief)!r}" in doc
    values, dte = sol.probe_many([m.cop], [m.thief], ["cop"])
    assert f"# ({values!r}, {dte!r})".replace(", dtype=int8", "").replace(", dtype=int32", "") in doc
    assert retrograde.cop_number(env["nx"].petersen_graph())["cop_number"] == 3
