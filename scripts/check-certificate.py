#!/usr/bin/env python3
"""Checks cop-number certificates (`retrograde copnumber FILE --certificate CERT`).

Usage: check-certificate.py CERT [--input FILE] [--quiet]

Written from the rules alone (docs/rules.md, "Several cops"), sharing no code
with the solver; the format is in docs/guide.md ("Certificates"). The game on
an undirected graph: k cops are placed (several may share a vertex), then the
thief; the cops move first. In a turn every cop, or the thief, moves to a
neighbour or stays. The thief is caught when a cop is on his vertex.

A record proves c(G) = k by two parts. Upper: every listed cops' move is
legal, and each thief reply it allows, unless caught, leads to a listed state
of smaller rank (ranks >= 1), so a state of rank r is won within r rounds;
every thief start not under a cop is listed, the largest rank among them is
the claimed capture time. Lower (k >= 2; trivial for k = 1): the listed safe
states of k - 1 cops, none a capture, are closed (every cops' move from a
cops-to-move state leads to a listed thief-to-move state, whose listed answer,
a legal move onto no cop, leads back to a listed cops-to-move state), and
every placement of k - 1 cops meets a cops-to-move one: the thief evades
forever. A record claiming c(G) > M has the lower part alone, for M cops.

Records are numbered 1, 2, ... in the order of copnumber's input; with
--input FILE (that input: graph6 lines, or one edge list) each record's graph
must be the input's graph of its number, and every graph of the input must
have its record. Records are read and checked one at a time (memory holds one
record, not the file); a claim of K cops on a graph of n vertices needs
K <= n, and the thief's safe set must name a state for each of the placements
of K - 1 cops before any joint move is enumerated, so the work is bounded by
the file.

Prints what each record proves; exits 0 when all hold, 1 at the first failure
(file:line: why), 2 when a file cannot be read (not a regular file, or an
I/O error).
"""

import os
import signal
import stat
import sys
from itertools import combinations_with_replacement
from math import comb

# graph6's largest order (a 4-byte header); numbers have at most 19 digits.
MAX_ORDER, MAX_DIGITS = 258047, 19


class Bad(Exception):
    """The certificate fails; the message says where and why."""


def decode_graph6(text):
    """Vertex count and edges of a graph6 string (no header)."""
    data = [ord(ch) - 63 for ch in text]
    if not data or any(not 0 <= d <= 63 for d in data):
        raise Bad(f"graph6 {text!r}: characters must be '?' to '~'")
    if data[0] < 63:
        n, rest = data[0], data[1:]
    elif len(data) >= 4 and data[1] < 63:  # 63 to 258047 vertices
        n, rest = (data[1] << 12) | (data[2] << 6) | data[3], data[4:]
    else:
        raise Bad(f"graph6 {text!r}: bad vertex count (or over 258047 vertices)")
    pairs = n * (n - 1) // 2
    if len(rest) != (pairs + 5) // 6:
        raise Bad(f"graph6 {text!r}: {len(rest)} edge characters, {n} vertices need {(pairs + 5) // 6}")

    def bit(i):
        return (rest[i // 6] >> (5 - i % 6)) & 1

    if any(bit(i) for i in range(pairs, 6 * len(rest))):
        raise Bad(f"graph6 {text!r}: padding bits are not zero")
    edges, i = [], 0
    for v in range(1, n):  # graph6's bit order: (0,1), (0,2), (1,2), (0,3) ...
        for u in range(v):
            if bit(i):
                edges.append((u, v))
            i += 1
    return n, edges


def number(word, what, low=0, high=float("inf")):
    if not (word.isascii() and word.isdigit()) or (len(word) > 1 and word[0] == "0"):
        raise Bad(f"expected {what} (a number), found {word[:40]!r}")
    if len(word) > MAX_DIGITS:
        raise Bad(f"{what} of {len(word)} digits is outside {low}..{high}")
    if not low <= int(word) <= high:
        raise Bad(f"{what} {word} is outside {low}..{high}")
    return int(word)


def cops_of(word, k, n):
    """A cop multiset `a,b,c`: k vertices, ascending."""
    cops = tuple(number(w, "a vertex", 0, n - 1) for w in word.split(",")) if word else ()
    if len(cops) != k:
        raise Bad(f"expected {k} cops, found {word!r}")
    if list(cops) != sorted(cops):
        raise Bad(f"cops {word} are not in ascending order")
    return cops


def words(line, tag, count):
    parts = line.split(" ")
    if parts[0] != tag or len(parts) != count:
        raise Bad(f"expected a {tag!r} line of {count} fields, found {line!r}")
    return parts[1:]


def check_upper(near, n, k, place, moves, claimed):
    """Verifies the cops' strategy and its capture time in rounds."""
    for (cops, t), (dest, rank, where) in moves.items():
        try:
            if t in cops:
                raise Bad(f"state {cops} {t} is a capture, not a state to move from")
            for c, d in zip(cops, dest):
                if d not in near[c]:
                    raise Bad(f"a cop on {c} cannot move to {d}")
            after = tuple(sorted(dest))
            if t in after:
                continue  # caught by this move
            for reply in near[t]:
                if reply in after:
                    continue  # the thief steps onto a cop
                nxt = moves.get((after, reply))
                if nxt is None:
                    raise Bad(f"thief reply {reply} to cops {after} is not covered")
                if nxt[1] >= rank:
                    raise Bad(f"rank does not decrease: {rank} then {nxt[1]} after thief reply {reply}")
        except Bad as e:
            raise Bad(f"line {where}: {e}") from None
    longest = 0
    for t in range(n):
        if t in place:
            continue  # placed on a cop: caught at once
        start = moves.get((place, t))
        if start is None:
            raise Bad(f"thief start {t} against placement {place} is not covered")
        longest = max(longest, start[1])
    if longest != claimed:
        raise Bad(f"the ranks give capture within {longest} rounds, the claim says {claimed}")


def check_lower(near, n, j, cstates, tstates):
    """Verifies the thief's safe set against j cops."""
    # Every placement must meet a listed state: too few listed cop sets
    # refute the claim before any joint move is enumerated.
    met = {cops for cops, _ in cstates}
    if len(met) < comb(n + j - 1, j):
        raise Bad(f"{len(met)} sets of {j} cops have safe states, of the {comb(n + j - 1, j)} placements")
    for place in combinations_with_replacement(range(n), j):
        if place not in met:
            raise Bad(f"placement {place} of {j} cops meets no safe state")
    joint = {}
    for (cops, t), where in cstates.items():
        if t in cops:
            raise Bad(f"line {where}: safe state {cops} {t} is a capture")
        if cops not in joint:  # the cops' moves, as sets: one cop at a time
            after = {()}
            for c in cops:
                after = {tuple(sorted(a + (d,))) for a in after for d in near[c]}
            joint[cops] = after
        for after in joint[cops]:
            if t in after:
                raise Bad(f"line {where}: cops {cops} catch the thief on {t} by moving to {after}")
            if (after, t) not in tstates:
                raise Bad(f"line {where}: cops' move {cops} -> {after} (thief on {t}) leaves the safe set")
    for (cops, t), (answer, where) in tstates.items():
        if t in cops:
            raise Bad(f"line {where}: safe state {cops} {t} is a capture")
        if answer not in near[t] or answer in cops:
            raise Bad(f"line {where}: the thief on {t} cannot answer {answer} (not a move, or onto a cop)")
        if (cops, answer) not in cstates:
            raise Bad(f"line {where}: thief answer {answer} against {cops} leaves the safe set")


def parse_graph(head):
    """Name, vertex count and closed neighbourhoods of a 'graph' line."""
    if len(head) < 4 or head[0] != "graph" or head[2] not in ("g6", "edges"):
        raise Bad("expected 'graph NUMBER g6 TEXT' or 'graph NUMBER edges N U-V ...'")
    name = f"graph {number(head[1], 'a graph number', 1)}"
    if head[2] == "g6":
        if len(head) != 4:
            raise Bad("expected 'graph NUMBER g6 TEXT'")
        n, edges = decode_graph6(head[3])
        name += f" {head[3]}"
    else:
        n, edges = number(head[3], "a vertex count", 0, MAX_ORDER), []
        for e in head[4:]:
            u, dash, v = e.partition("-")
            if not dash:
                raise Bad(f"expected an edge U-V, found {e!r}")
            edges.append((number(u, "a vertex", 0, n - 1), number(v, "a vertex", 0, n - 1)))
        name += f" ({n} vertices)"
    if n < 1:
        raise Bad("a graph with no vertices has no cop number")
    near = [{v} for v in range(n)]  # closed neighbourhoods: move or stay
    for u, v in edges:
        near[u].add(v)
        near[v].add(u)
    return name, n, near, (head[3] if head[2] == "g6" else (n, sorted({tuple(sorted(e)) for e in edges})))


def cops_word(j):
    return f"{j} cop{'s' * (j != 1)} do{'es' * (j == 1)} not suffice"


class Lines:
    """The lines of an open file, read one at a time; `at` counts those taken."""

    def __init__(self, f):
        self.f, self.at, self.ahead = f, 0, self.read(f)

    @staticmethod
    def read(f):
        line = f.readline()
        return line[:-1] if line.endswith("\n") else (line or None)  # None: the end

    def peek(self):
        return "" if self.ahead is None else self.ahead

    def take(self):
        line = self.peek()
        if self.ahead is not None:
            self.at, self.ahead = self.at + 1, self.read(self.f)
        return line


def check_record(lines, number_expected):
    """Checks the record at the next line; returns (its graph, report)."""
    name, at = "record", lines.at + 1
    try:
        name, n, near, graph = parse_graph(lines.take().split(" "))
        if name.split(" ")[1] != str(number_expected):
            raise Bad(f"graph number {name.split(' ')[1]} where {number_expected} was expected"
                      " (records are numbered from 1 in the order of copnumber's input)")
        claim = lines.take().split(" ")
        moves, cstates, tstates = {}, {}, {}
        if len(claim) == 4 and claim[0] == "claim" and claim[2] == "capture":
            k, rounds = number(claim[1], "a cop number", 1, n), number(claim[3], "a capture time")
            j = k - 1
            place = cops_of(words(lines.take(), "upper", 2)[0], k, n)
            while lines.peek().startswith("m "):
                cops, t, dest, rank = words(lines.take(), "m", 5)
                cops, t = cops_of(cops, k, n), number(t, "a vertex", 0, n - 1)
                dest = tuple(number(w, "a vertex", 0, n - 1) for w in dest.split(","))
                if len(dest) != k:
                    raise Bad(f"expected {k} destinations")
                if (cops, t) in moves:
                    raise Bad(f"state {cops} {t} is listed twice")
                moves[(cops, t)] = (dest, number(rank, "a rank", 1), lines.at)
        elif len(claim) == 2 and claim[0] == "claim" and claim[1].startswith(">"):
            # n cops, one on each vertex, catch the thief at once.
            k, j = None, number(claim[1][1:], "a number of cops", 1, n - 1)
        else:
            raise Bad("expected 'claim K capture R' or 'claim >M'")
        if number(words(lines.take(), "lower", 2)[0], "a number of cops") != j:
            raise Bad(f"the lower bound must be for {j} cops")
        while lines.peek().startswith(("c ", "t ")):
            tag = lines.peek()[0]
            fields = words(lines.take(), tag, 3 if tag == "c" else 4)
            key = (cops_of(fields[0], j, n), number(fields[1], "a vertex", 0, n - 1))
            if j == 0 or key in (cstates if tag == "c" else tstates):
                raise Bad("a state listed twice, or a state of 0 cops")
            if tag == "c":
                cstates[key] = lines.at
            else:
                tstates[key] = (number(fields[2], "a vertex", 0, n - 1), lines.at)
        if lines.take() != "end":
            raise Bad("expected 'end'")
    except Bad as e:
        raise Bad(f"line {max(at, lines.at)}: {name}: {e}") from None
    try:
        if k is not None:
            check_upper(near, n, k, place, moves, rounds)
        if j > 0:
            check_lower(near, n, j, cstates, tstates)
    except Bad as e:
        raise Bad(f"{name}: {e}") from None
    if k is None:
        return graph, f"{name}: c(G) > {j} proved (lower: {cops_word(j)})"
    upper = f"upper: capture within {rounds} round{'s' * (rounds != 1)}"
    lower = "lower: trivial, no cop catches anyone" if j == 0 else f"lower: {cops_word(j)}"
    return graph, f"{name}: c(G) = {k} proved ({upper}; {lower})"


def input_graphs(f):
    """copnumber's input, graph by graph as records name them: graph6 lines
    (`>>graph6<<` dropped, blank lines skipped), or one edge list (`U V` a
    line, `#` comments): its vertex count and edges."""
    first, edges = None, []
    for line in iter(f.readline, ""):
        line = line.rstrip("\r\n").removeprefix("\xef\xbb\xbf").removeprefix(">>graph6<<")
        words = line.split("#")[0].split()
        if first is None and words:
            first = "edges" if len(words) == 2 or line.lstrip().startswith("#") else "g6"
        if first == "g6" and line.strip():
            yield line
        elif first == "edges" and words:
            if len(words) != 2 or not all(w.isdigit() and len(w) <= MAX_DIGITS for w in words):
                raise Bad(f"input line {line[:40]!r}: expected an edge 'U V'")
            edges.append(tuple(sorted(map(int, words))))
    if first == "edges":
        yield (1 + max(max(e) for e in edges), sorted(set(edges)))


def open_regular(path):
    """The file at `path` if it is a regular file (a FIFO would wait for a
    writer forever, a device such as /dev/zero never end); OSError if not."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(0, "not a regular file (a FIFO, a device or a directory)", path)
    return os.fdopen(fd, encoding="latin-1")  # any byte reads; only ASCII parses


def main(argv):
    args = [a for a in argv[1:] if a not in ("-q", "--quiet")]
    given = None
    if len(args) == 3 and "--input" in args[:2]:
        given = args.pop(args.index("--input") + 1)
        args.remove("--input")
    if len(args) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path = args[0]
    try:
        with open_regular(path) as f, (open_regular(given) if given else open(os.devnull)) as g:
            lines, graphs = Lines(f), (input_graphs(g) if given else None)
            if lines.take() != "retrograde-certificate 1":
                raise Bad("line 1: expected the header 'retrograde-certificate 1'")
            count = 0
            while lines.peek().startswith("graph "):
                graph, report = check_record(lines, count + 1)
                count += 1
                if graphs is not None and next(graphs, None) != graph:
                    raise Bad(f"graph {count}: not the graph {count} of {given}")
                if "-q" not in argv and "--quiet" not in argv:
                    print(report)
            last, was = lines.peek(), lines.at + 1
            if lines.take() != f"records {count}" or lines.ahead is not None:
                at = was if last != f"records {count}" else lines.at + 1
                raise Bad(f"line {at}: expected the last line 'records {count}'")
            if graphs is not None and next(graphs, None) is not None:
                raise Bad(f"{given} has more graphs than the {count} records")
    except OSError as e:
        print(f"{e.filename or path}: cannot read: {e.strerror or e}", file=sys.stderr)
        return 2
    except Bad as e:
        print(f"{path}: {e}", file=sys.stderr)
        print(f"{path}: certificate REJECTED", file=sys.stderr)
        return 1
    against = f", graphs 1 to {count} of {given}" if given else ""
    print(f"{path}: {count} record{'s' * (count != 1)} verified{against}")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly
    sys.exit(main(sys.argv))
