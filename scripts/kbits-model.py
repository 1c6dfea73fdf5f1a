#!/usr/bin/env python3
"""The several-cops exchange model of docs/scale-out.md against measured
partitioned bit solves.

    kbits-model.py MAP REPORT.json [MAP REPORT.json ...]

Each REPORT is process 0's `retrograde solve MAP --cops K --processes N
--json` output of a several-cops solve on the bit engine (`"kernel":
"bitboard"`), MAP the map it solved (seed text or MovingAI; the cops' king
moves at speed 1, cells numbered row by row). The model: the N bands are
runs of cop multisets with the same top cell, cut where the ranks below
first reach an equal share (the solver's `band_tops`); process q reads the
thief rows of the multisets whose top cell a joint move from its band can
give (`band_reads`). After each level a process sends each other process
the rows of its band that changed and that the other reads: per row a tag,
a bitmap of its W = ceil(C / 64) words (ceil(W / 64) words) and the words
that changed; a word changes only when a state in it is decided. With d_k
the states decided at level k, R the multisets and h the rows of every
band that some other process reads, counted once per reader, over R:

    bytes_k <= 8 * h * (min(d_k, 2R) * (1 + ceil(W / 64)) + min(d_k, 2RW))
             + 8 * N (N - 1) * 6          (each level's counts, to everyone)

(the decided states taken as spread over the ranks). Prints the measured
and modelled totals, their ratio, h and the busiest level's.
"""
import json
import math
import sys


def free_cells(path):
    """Free cells (row, column), row by row."""
    lines = open(path).read().splitlines()
    if lines[0].startswith("type"):
        grid = lines[lines.index("map") + 1:]
        free = lambda ch: ch in ".GS"
    else:
        grid = lines[1:]
        free = lambda ch: ch not in "*#"
    return [(r, c) for r, line in enumerate(grid) for c, ch in enumerate(line) if free(ch)]


def reach(cells):
    """Per cell, the cells a cop reaches in one king move, and itself."""
    index = {rc: i for i, rc in enumerate(cells)}
    out = []
    for r, c in cells:
        out.append([index[(r + dr, c + dc)] for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                    if (r + dr, c + dc) in index])
    return out


def count(t, k):
    """Multisets of k of the cells below t."""
    return math.comb(t + k - 1, k)


def band_tops(n, k, parts):
    ranks = count(n, k)
    cuts, t = [0], 0
    for p in range(1, parts):
        share = ranks * p // parts
        while t < n and count(t, k) < share:
            t += 1
        cuts.append(t)
    cuts.append(n)
    return [(cuts[i], cuts[i + 1]) for i in range(parts)]


def band_reads(moves, k, tops):
    a, b = tops
    if a == b:
        return (0, 0)
    low = min(min([t] + moves[t]) for t in range(a, b))
    high = max(max([c] + moves[c]) for c in range(b))
    return (count(min(low, a), k), count(max(high, b - 1) + 1, k))


def main():
    args = sys.argv[1:]
    print("| map | cops | processes x workers | levels | measured bytes | model | measured / model | h | busiest level: measured / model |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for path, report in zip(args[::2], args[1::2]):
        r = json.load(open(report))
        moves = reach(free_cells(path))
        n, k, p = r["cells"], r["cops"], r["processes"]
        assert n == len(moves), "the map's free cells are the report's cells"
        ranks = count(n, k)
        words = -(-n // 64)
        maps = -(-words // 64)
        tops = band_tops(n, k, p)
        bands = [(count(a, k), count(b, k)) for a, b in tops]
        reads = [band_reads(moves, k, t) for t in tops]
        overlap = sum(max(0, min(b1, r1) - max(b0, r0))
                      for i, (b0, b1) in enumerate(bands)
                      for j, (r0, r1) in enumerate(reads) if i != j)
        h = overlap / ranks
        b = r["exchange"]["bytes_per_level"]
        d = r["exchange"]["decided_per_level"]
        model = [8 * h * (min(x, 2 * ranks) * (1 + maps) + min(x, 2 * ranks * words))
                 + 8 * p * (p - 1) * 6 for x in d]
        busy = max(range(len(b)), key=lambda i: b[i])
        workers = r.get("workers", 1) // max(p, 1) or 1
        print(f"| {path.split('/')[-1]} | {k} | {p} x {workers} | {r['levels']} | {sum(b):,} | "
              f"{int(sum(model)):,} | {sum(b) / sum(model):.2f} | {h:.3f} | "
              f"{b[busy]:,} / {int(model[busy]):,} |")


if __name__ == "__main__":
    main()
