"""What both benchmarks share: where the real data is and how it is read."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"
DEFAULT_SET = "sacrebleu-wmt17-en-de"


def read_lines(path: Path) -> list[str]:
    """The lines of a UTF-8 file, each without its trailing newline only."""
    with path.open(encoding="utf-8", newline="\n") as fh:
        return [line[:-1] if line.endswith("\n") else line for line in fh]


def read_manifest(data: Path) -> dict[str, Any]:
    """``MANIFEST.json`` of the real data: set name -> its refs and hyps."""
    manifest: dict[str, Any] = json.loads((data / "MANIFEST.json").read_text(encoding="utf-8"))
    return manifest


def add_data_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help=f"the real data directory, with MANIFEST.json (default: {DEFAULT_DATA})",
    )
