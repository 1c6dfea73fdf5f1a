"""Retrograde analysis of policeman and thief on grid maps, from Python.

Every state is WIN / LOSS / DRAW for the player to move, with its exact
distance to end (plies). Quick start::

    import networkx as nx
    import retrograde
    m = retrograde.Map.from_file("data/maps/sample.txt")
    sol = retrograde.solve(m)               # or solve("data/maps/sample.txt"); Ctrl-C stops it
    sol.start                               # ('loss', 14): the first mover's (the cop's) result
    values, dte = sol.heatmap(cop=m.cop)    # 2-D numpy arrays
    sol.probe_many([m.cop], [m.thief], ["cop"])  # (array([-1]), array([14])): numpy in and out
    sol.save("sample.rtb")
    with retrograde.open_table("sample.rtb") as tb:
        tb.probe(m.cop, m.thief)            # ('loss', 14)
        tb.play()                           # the optimal game
    two = retrograde.solve(m, cops=2, cops_at=[m.cop, m.cop])  # a Solution of 2 cops
    two.save("two.rtb"); retrograde.open_table("two.rtb").probe([m.cop, m.cop], m.thief)
    retrograde.cop_number(nx.petersen_graph())  # {'cop_number': 3, ...}

Positions are ``(cop, thief, turn)``: cells as ``(row, col)``, 0-based
(with several cops ``cop`` is a sequence of the cops' cells; on a graph's
table cells are vertex ids);
``turn`` is ``"cop"`` or ``"thief"`` (the player to move), by default the
rules' first mover.
"""

from ._retrograde import (
    Map,
    cop_number_edges as _cop_number_edges,
    grundy_edges as _grundy_edges,
    solve_edges as _solve_edges,
    Rules,
    Solution,
    Table,
    __version__,
    nim,
    open_table,
    sniff,
    solve,
    subtraction,
)

# One solution class for any number of cops; the several-cops name of
# earlier versions stays as an alias.
CopsSolution = Solution

__all__ = [
    "CopsSolution",
    "Map",
    "cop_number",
    "grundy",
    "solve_graph",
    "Rules",
    "Solution",
    "Table",
    "__version__",
    "nim",
    "open_table",
    "sniff",
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


def cop_number(graph, *, n=None, max_cops=4, progress=None):
    """The cop number of an undirected graph: the least number of cops (1 to
    ``max_cops``, at most 4) that catch the thief from some placement
    wherever the thief starts, both sides moving along an edge or passing,
    the cops first; ``retrograde copnumber``'s answer.

    ``graph``: an ``(M, 2)`` array of undirected edges between vertex ids
    ``0..n`` (``n`` default: the largest id + 1), or an undirected networkx
    graph. Returns a dict: ``cop_number`` (``None`` when more than
    ``max_cops`` cops are needed), ``placement`` (a winning placement that
    catches the thief fastest: vertex ids ascending, or networkx nodes),
    ``capture_time`` (rounds: a cops' move and a thief's move) and
    ``capture_time_plies`` from that placement under best play, and
    ``vertices``. ``ValueError`` for bad input (a directed graph, a graph
    without a vertex and float vertex ids included), ``MemoryError`` when
    the next number of cops to try would not fit the available memory
    (each is planned before it is tried).

    Ctrl-C stops the search and raises ``KeyboardInterrupt``;
    ``progress(cops, level)``, if given, is called as the engine finishes
    levels (graphs over 64 vertices; smaller ones take milliseconds).
    """
    try:
        import networkx as nx
    except ImportError:
        nx = None
    nodes = None
    if nx is not None and isinstance(graph, nx.Graph):
        if graph.is_directed():
            raise ValueError(
                "cop_number: the cop number is defined on undirected graphs; "
                "give graph.to_undirected()"
            )
        nodes = list(graph.nodes)
        graph, n, _ = _as_edges(graph, n, ())
    r = _cop_number_edges(graph, n=n, max_cops=max_cops, progress=progress)
    if nodes is not None:
        r["placement"] = [nodes[v] for v in r["placement"]]
    return r
