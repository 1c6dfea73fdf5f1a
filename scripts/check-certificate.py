#!/usr/bin/env python3
"""Checks cop-number certificates (`retrograde copnumber FILE --certificate CERT`).

Usage: check-certificate.py CERT [--quiet]

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

Prints what each record proves; exits 0 when all hold, 1 at the first failure
(file:line: why), 2 when the file cannot be read.
"""

import signal
import sys
from itertools import combinations_with_replacement, product


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
    bits = [(d >> (5 - i)) & 1 for d in rest for i in range(6)]
    if any(bits[pairs:]):
        raise Bad(f"graph6 {text!r}: padding bits are not zero")
    pairs = [(u, v) for v in range(1, n) for u in range(v)]  # graph6's bit order
    return n, [pair for pair, bit in zip(pairs, bits) if bit]


def number(word, what, low=0, high=float("inf")):
    if not (word.isascii() and word.isdigit()) or word != str(int(word)):
        raise Bad(f"expected {what} (a number), found {word!r}")
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
    joint = {}
    for (cops, t), where in cstates.items():
        if t in cops:
            raise Bad(f"line {where}: safe state {cops} {t} is a capture")
        if cops not in joint:
            joint[cops] = {tuple(sorted(m)) for m in product(*(near[c] for c in cops))}
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
    met = {cops for cops, _ in cstates}
    for place in combinations_with_replacement(range(n), j):
        if place not in met:
            raise Bad(f"placement {place} of {j} cops meets no safe state")


def parse_graph(head):
    """Name, vertex count and closed neighbourhoods of a 'graph' line."""
    if len(head) < 4 or head[0] != "graph" or head[2] not in ("g6", "edges"):
        raise Bad("expected 'graph NUMBER g6 TEXT' or 'graph NUMBER edges N U-V ...'")
    name = f"graph {number(head[1], 'a graph number')}"
    if head[2] == "g6":
        if len(head) != 4:
            raise Bad("expected 'graph NUMBER g6 TEXT'")
        n, edges = decode_graph6(head[3])
        name += f" {head[3]}"
    else:
        n, edges = number(head[3], "a vertex count"), []
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
    return name, n, near


def cops_word(j):
    return f"{j} cop{'s' * (j != 1)} do{'es' * (j == 1)} not suffice"


def check_record(lines, at):
    """Checks the record starting at lines[at]; returns (next index, report)."""
    name = "record"

    def line():
        nonlocal at
        at += 1
        return lines[at - 1]

    try:
        name, n, near = parse_graph(line().split(" "))
        claim = line().split(" ")
        moves, cstates, tstates = {}, {}, {}
        if len(claim) == 4 and claim[0] == "claim" and claim[2] == "capture":
            k, rounds = number(claim[1], "a cop number", 1), number(claim[3], "a capture time")
            j = k - 1
            place = cops_of(words(line(), "upper", 2)[0], k, n)
            while lines[at].startswith("m "):
                cops, t, dest, rank = words(line(), "m", 5)
                cops, t = cops_of(cops, k, n), number(t, "a vertex", 0, n - 1)
                dest = tuple(number(w, "a vertex", 0, n - 1) for w in dest.split(","))
                if len(dest) != k:
                    raise Bad(f"expected {k} destinations")
                if (cops, t) in moves:
                    raise Bad(f"state {cops} {t} is listed twice")
                moves[(cops, t)] = (dest, number(rank, "a rank", 1), at)
        elif len(claim) == 2 and claim[0] == "claim" and claim[1].startswith(">"):
            k, j = None, number(claim[1][1:], "a number of cops", 1)
        else:
            raise Bad("expected 'claim K capture R' or 'claim >M'")
        if number(words(line(), "lower", 2)[0], "a number of cops") != j:
            raise Bad(f"the lower bound must be for {j} cops")
        while lines[at].startswith(("c ", "t ")):
            tag = lines[at][0]
            fields = words(line(), tag, 3 if tag == "c" else 4)
            key = (cops_of(fields[0], j, n), number(fields[1], "a vertex", 0, n - 1))
            if j == 0 or key in (cstates if tag == "c" else tstates):
                raise Bad("a state listed twice, or a state of 0 cops")
            if tag == "c":
                cstates[key] = at
            else:
                tstates[key] = (number(fields[2], "a vertex", 0, n - 1), at)
        if line() != "end":
            raise Bad("expected 'end'")
    except Bad as e:
        raise Bad(f"line {at}: {name}: {e}") from None
    try:
        if k is not None:
            check_upper(near, n, k, place, moves, rounds)
        if j > 0:
            check_lower(near, n, j, cstates, tstates)
    except Bad as e:
        raise Bad(f"{name}: {e}") from None
    if k is None:
        return at, f"{name}: c(G) > {j} proved (lower: {cops_word(j)})"
    upper = f"upper: capture within {rounds} round{'s' * (rounds != 1)}"
    lower = "lower: trivial, no cop catches anyone" if j == 0 else f"lower: {cops_word(j)}"
    return at, f"{name}: c(G) = {k} proved ({upper}; {lower})"


def main(argv):
    args = [a for a in argv[1:] if a not in ("-q", "--quiet")]
    if len(args) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path = args[0]
    try:
        with open(path, encoding="latin-1") as f:  # any byte reads; only ASCII parses
            lines = f.read().split("\n")
    except OSError as e:
        print(f"{path}: cannot read: {e}", file=sys.stderr)
        return 2
    if lines and lines[-1] == "":
        lines.pop()
    lines.append("")  # a sentinel: every look-ahead has a line to read
    try:
        if lines[0] != "retrograde-certificate 1":
            raise Bad("line 1: expected the header 'retrograde-certificate 1'")
        at, count = 1, 0
        while lines[at].startswith("graph "):
            at, report = check_record(lines, at)
            count += 1
            if "-q" not in argv and "--quiet" not in argv:
                print(report)
        if lines[at] != f"records {count}" or at != len(lines) - 2:
            raise Bad(f"line {at + 1}: expected the last line 'records {count}'")
    except Bad as e:
        print(f"{path}: {e}", file=sys.stderr)
        print(f"{path}: certificate REJECTED", file=sys.stderr)
        return 1
    print(f"{path}: {count} record{'s' * (count != 1)} verified")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly
    sys.exit(main(sys.argv))
