"""Shared fixtures: the repository's data maps and the CLI binary the
answers are compared with (``RETROGRADE_BIN``, else the release build)."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
# Small enough to compare every state through a CSV dump.
MAPS = sorted((DATA / "maps" / "seed").glob("*.txt")) + [
    DATA / "maps" / "sample.txt",
    DATA / "maps" / "movingai" / "empty-8-8.map",
]


@pytest.fixture(scope="session")
def cli():
    """Runs the ``retrograde`` binary; returns the CompletedProcess."""
    binary = pathlib.Path(os.environ.get("RETROGRADE_BIN", ROOT / "target" / "release" / "retrograde"))
    if not binary.is_file():
        pytest.fail(f"{binary}: no retrograde binary (run `cargo build --release` or set RETROGRADE_BIN)")

    def run(*args, stdin=None, check=True):
        p = subprocess.run([str(binary), *map(str, args)], input=stdin, capture_output=True, text=True)
        if check and p.returncode != 0:
            raise AssertionError(f"retrograde {' '.join(map(str, args))}: status {p.returncode}\n{p.stderr}")
        return p

    return run


def query_json(cli, table, positions):
    """``retrograde query --stdin --json`` answers for ``[(cop, thief, turn)]``."""
    lines = "".join(f"{c[0]},{c[1]} {t[0]},{t[1]} {turn}\n" for c, t, turn in positions)
    out = cli("query", table, "--stdin", "--json", stdin=lines).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]
