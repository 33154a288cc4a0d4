"""Input files written for a run of the command."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def write_lines(path: Path, lines: Sequence[str]) -> Path:
    """``lines`` to ``path`` in UTF-8, each ended by one newline; the path."""
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(f"{line}\n" for line in lines)
    return path
