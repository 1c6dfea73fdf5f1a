#!/usr/bin/env python3
"""Measures the Python package against the CLI on one generated map.

  python/bench/bench.py [--size 200] [--walls 0.4] [--probes 1000000] [--pairs 3] [--cops 1]

1. probe_many: a values-only table of a SIZE x SIZE map (scripts/make-map.py
   open, a share WALLS of random walls, border exits), 10^6 random positions
   of free cells, one vectorised call (best of 5 calls, after one warm-up).
2. The same solve (bitboard engine, values only, all cores) timed from
   Python (`retrograde.solve`, in-process) and from the CLI (`retrograde
   solve MAP --no-summary`, the process's wall time), alternating, PAIRS
   pairs; medians, and the median of the pairs' ratios.

--cops K: both with K cops (`solve --cops K`, no start), probe_many with
(N, K, 2) cops.

Needs the package installed and the release binary (RETROGRADE_BIN or
target/release/retrograde).
"""
import argparse
import math
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import retrograde

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=200)
    ap.add_argument("--walls", type=float, default=0.4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--probes", type=int, default=1_000_000)
    ap.add_argument("--pairs", type=int, default=3, help="0: skip the solve comparison")
    ap.add_argument("--cops", type=int, default=1)
    args = ap.parse_args()
    binary = os.environ.get("RETROGRADE_BIN", str(ROOT / "target" / "release" / "retrograde"))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        map_path = tmp / "map.txt"
        text = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "make-map.py"), "open", str(args.size), str(args.size),
             "--walls", str(args.walls), "--seed", str(args.seed)],
            check=True, capture_output=True, text=True).stdout
        map_path.write_text(text)
        m = retrograde.Map.from_file(map_path)
        k = args.cops
        states = 2 * m.cells * math.comb(m.cells + k - 1, k)
        print(f"map: {args.size}x{args.size}, walls {args.walls}, {m.cells} free cells, {k} cop(s), "
              f"{states:,} states; {os.cpu_count()} cores")

        # Solve, side by side.
        # Wall time, and CPU time (this process's for Python, the child's
        # for the CLI), which a loaded machine disturbs less.
        py_times, cli_times, py_cpu, cli_cpu = [], [], [], []
        for i in range(args.pairs):
            for side in ("py", "cli") if i % 2 == 0 else ("cli", "py"):
                t = time.perf_counter()
                if side == "py":
                    c = time.process_time()
                    sol = retrograde.solve(m, cops=k, distances=False)
                    py_times.append(time.perf_counter() - t)
                    py_cpu.append(time.process_time() - c)
                else:
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    # --no-summary: the text summary walks every start
                    # pair after the solve, work Python's solve never does.
                    several = ["--cops", str(k)] if k > 1 else []
                    subprocess.run([binary, "solve", str(map_path), "--no-summary", "--quiet", *several],
                                   check=True, capture_output=True)
                    cli_times.append(time.perf_counter() - t)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cli_cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        if args.pairs:
            for what, py, cl in (("wall", py_times, cli_times), ("cpu", py_cpu, cli_cpu)):
                a, b = statistics.median(py), statistics.median(cl)
                print(f"solve (values only), {what}: python {a:.3f} s, cli {b:.3f} s "
                      f"(medians of {args.pairs}); python/cli = {a / b:.3f}")
                ratios = [a / b for a, b in zip(py, cl)]
                print(f"  pair ratios python/cli: {', '.join(f'{x:.3f}' for x in ratios)} "
                      f"(median {statistics.median(ratios):.3f})")
                print(f"  python runs: {', '.join(f'{x:.3f}' for x in py)}")
                print(f"  cli runs:    {', '.join(f'{x:.3f}' for x in cl)}")
        else:
            sol = retrograde.solve(m, cops=k, distances=False)

        # probe_many over a values table.
        table = tmp / "t.rtb"
        sol.save(table)
        del sol
        cells = np.argwhere(m.to_array())
        rng = np.random.default_rng(args.seed)
        n = args.probes
        cops = cells[rng.integers(len(cells), size=n * k)]
        cops = cops.reshape((n, k, 2)) if k > 1 else cops
        thieves = cells[rng.integers(len(cells), size=n)]
        turns = rng.integers(2, size=n, dtype=np.uint8)
        with retrograde.open_table(table) as tb:
            tb.probe_many(cops, thieves, turns)
            runs, cpu = [], []
            for _ in range(5):
                t, c = time.perf_counter(), time.process_time()
                values, _ = tb.probe_many(cops, thieves, turns)
                runs.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
            best = min(runs)
            print(f"probe_many: {n:,} random positions of a {table.stat().st_size:,}-byte values table: "
                  f"best {best * 1e3:.1f} ms = {n / best / 1e6:.2f} M probes/s "
                  f"(median {n / statistics.median(runs) / 1e6:.2f} M/s); "
                  f"CPU {statistics.median(cpu) * 1e3:.1f} ms a call = "
                  f"{n / statistics.median(cpu) / 1e6:.2f} M probes per CPU-second")
            # Spot check against single probes.
            code = {"win": 1, "loss": -1, "draw": 0}
            for i in range(0, n, n // 100):
                turn = "cop" if turns[i] == 0 else "thief"
                cop = tuple(cops[i]) if k == 1 else [tuple(c) for c in cops[i]]
                assert values[i] == code[tb.probe_value(cop, tuple(thieves[i]), turn)]


if __name__ == "__main__":
    main()
