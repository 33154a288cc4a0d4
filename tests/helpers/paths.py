"""Where the repository and the tests' own data are, for every test folder."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root: ``bleustream/``, ``examples/``, ``docs/``... are here."""

TEST_DATA = ROOT / "tests" / "data"
"""The tests' own fixed inputs and expected outputs (``tests/data/``)."""
