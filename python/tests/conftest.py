"""Shared helpers: where the repository's reference data and binary are."""

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def reference_positions():
    """The 300 reference positions of tests/data/positions.txt as dicts."""
    rows = []
    for line in (REPO / "tests" / "data" / "positions.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split(";")
        row = {"fen": fields[0]}
        for field in fields[1:]:
            key, _, value = field.partition(" ")
            row[key] = value.split() if key in ("moves", "legal", "perft") else value
        rows.append(row)
    return rows


@pytest.fixture(scope="session")
def ultimo_binary():
    """The ultimo binary: $ULTIMO_BIN, the repository's build, or the PATH's."""
    for candidate in (
        os.environ.get("ULTIMO_BIN"),
        REPO / "target" / "release" / "ultimo",
        REPO / "target" / "debug" / "ultimo",
        shutil.which("ultimo"),
    ):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    pytest.skip("no ultimo binary: build it with cargo build, or set ULTIMO_BIN")
