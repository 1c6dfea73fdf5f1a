"""Retrograde analysis of policeman and thief on grid maps, from Python.

Every state is WIN / LOSS / DRAW for the player to move, with its exact
distance to end (plies). Quick start::

    import retrograde
    m = retrograde.Map.from_file("data/maps/sample.txt")
    sol = retrograde.solve(m)               # GIL released; Ctrl-C stops it
    sol.start                               # ('win', 7): the first mover's result
    values, dte = sol.heatmap(cop=m.cop)    # 2-D numpy arrays
    sol.save("sample.rtb")
    with retrograde.open_table("sample.rtb") as tb:
        tb.probe(m.cop, m.thief)            # ('win', 7)
        tb.play()                           # the optimal game

Positions are ``(cop, thief, turn)``: cells as ``(row, col)``, 0-based;
``turn`` is ``"cop"`` or ``"thief"`` (the player to move), by default the
rules' first mover.
"""

from ._retrograde import (
    Map,
    grundy_edges as _grundy_edges,
    solve_edges as _solve_edges,
    Rules,
    Solution,
    Table,
    __version__,
    nim,
    open_table,
    solve,
    subtraction,
)

__all__ = [
    "Map",
    "grundy",
    "solve_graph",
    "Rules",
    "Solution",
    "Table",
    "__version__",
    "nim",
    "open_table",
    "solve",
    "subtraction",
]


def _as_edges(graph, n, vertices):
    """Edge array, vertex count and vertex ids of an edge array or a
    networkx graph (its nodes numbered in ``list(graph.nodes)`` order; an
    undirected edge is a move both ways)."""
    try:
        import networkx as nx
    except ImportError:
        nx = None
    if nx is not None and isinstance(graph, nx.Graph):
        nodes = list(graph.nodes)
        index = {v: i for i, v in enumerate(nodes)}
        pairs = [(index[u], index[v]) for u, v in graph.edges()]
        if not graph.is_directed():
            pairs += [(b, a) for a, b in pairs if a != b]
        return pairs, len(nodes), [index[v] for v in vertices]
    return graph, n, list(vertices)


def solve_graph(graph, *, n=None, win=(), loss=(), misere=False, threads=None):
    """Solves the game on a directed graph: a move goes along an edge.

    ``graph``: an ``(M, 2)`` array of edges between vertex ids ``0..n``, or a
    networkx graph (vertices numbered in ``list(graph.nodes)`` order, an
    undirected edge a move both ways). A vertex without moves is a loss for
    the player to move (a win with ``misere=True``) unless listed in ``win``
    or ``loss``. Returns ``(values, dte)`` indexed by vertex: int8 (1 win,
    -1 loss, 0 draw) and int32 (plies, -1 for draws), as ``retrograde graph
    --dump``. ``ValueError`` with the library's message for bad input.
    """
    edges, n, w = _as_edges(graph, n, win)
    _, _, l = _as_edges(graph, n, loss)
    return _solve_edges(edges, n=n, win=w, loss=l, misere=misere, threads=threads)


def grundy(graph, *, n=None):
    """Grundy values (nimbers) of every vertex of an acyclic game graph under
    normal play (edge array or networkx graph, as ``solve_graph``), as a
    uint32 array; ``ValueError`` naming a vertex on a cycle."""
    edges, n, _ = _as_edges(graph, n, ())
    return _grundy_edges(edges, n=n)
