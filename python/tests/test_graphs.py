"""Game graphs from edge arrays and networkx against ``retrograde graph
--dump``; Grundy values."""

import csv

import numpy as np
import pytest
import retrograde

from conftest import DATA

CODE = {"win": 1, "loss": -1, "draw": 0}


def read_dump(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    values = np.array([CODE[r["value"]] for r in rows], np.int8)
    dte = np.array([int(r["dte"]) if r["dte"] else -1 for r in rows], np.int32)
    return values, dte


def random_graph(n, m, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(n, size=(m, 2))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("misere", [False, True])
def test_random_graphs_equal_the_cli(cli, tmp_path, seed, misere):
    n, edges = 300, random_graph(300, 600, seed)
    wins, losses = [n - 1], [n - 2]
    edges = edges[(edges[:, 0] != n - 1) & (edges[:, 0] != n - 2)]
    text = f"p {n} {len(edges)}\n" + "".join(f"{u} {v}\n" for u, v in edges)
    text += f"win {n - 1}\nloss {n - 2}\n"
    src = tmp_path / "g.txt"
    src.write_text(text)
    dump = tmp_path / "d.csv"
    cli("graph", src, "--dump", dump, *(["--no-move-wins"] if misere else []))
    want_v, want_d = read_dump(dump)
    values, dte = retrograde.solve_graph(edges, n=n, win=wins, loss=losses, misere=misere)
    np.testing.assert_array_equal(values, want_v)
    np.testing.assert_array_equal(dte, want_d)


def test_the_example_graph_file_equals_the_cli(cli, tmp_path):
    dump = tmp_path / "d.csv"
    cli("graph", DATA / "graphs" / "example.txt", "--dump", dump)
    want_v, want_d = read_dump(dump)
    # The same game given as arrays.
    edges, wins, losses, n = [], [], [], None
    for line in (DATA / "graphs" / "example.txt").read_text().splitlines():
        words = line.split("#")[0].split()
        if not words:
            continue
        if words[0] == "p":
            n = int(words[1])
        elif words[0] in ("win", "loss"):
            (wins if words[0] == "win" else losses).append(int(words[1]))
        else:
            edges.append((int(words[0]), int(words[1])))
    values, dte = retrograde.solve_graph(np.array(edges), n=n, win=wins, loss=losses)
    np.testing.assert_array_equal(values, want_v)
    np.testing.assert_array_equal(dte, want_d)


def test_networkx_graphs():
    nx = pytest.importorskip("networkx")
    g = nx.DiGraph([("a", "b"), ("b", "c")])
    values, dte = retrograde.solve_graph(g)
    assert list(values) == [-1, 1, -1] and list(dte) == [2, 1, 0]
    # Undirected: a path of three vertices, moves both ways, never ends.
    values, _ = retrograde.solve_graph(nx.path_graph(3))
    assert list(values) == [0, 0, 0]
    assert list(retrograde.grundy(nx.DiGraph([(2, 1), (1, 0), (2, 0)]))) == [2, 1, 0]


def test_grundy_and_bad_graphs():
    # Subtraction game {1, 2} on heaps 0..9: Grundy n mod 3.
    edges = [(h, h - k) for h in range(10) for k in (1, 2) if h - k >= 0]
    np.testing.assert_array_equal(retrograde.grundy(edges, n=10), np.arange(10) % 3)
    with pytest.raises(ValueError, match="cycle"):
        retrograde.grundy([(0, 1), (1, 0)])
    with pytest.raises(ValueError, match="0-based"):
        retrograde.solve_graph([(0, -1)])
    with pytest.raises(ValueError, match="<edges>"):
        retrograde.solve_graph([(0, 5)], n=3)
    with pytest.raises(ValueError):
        retrograde.solve_graph(np.zeros((3, 3)))
