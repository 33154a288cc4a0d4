"""Run the real ``bleustream`` command in a subprocess.

The installed console script is used when it sits beside the running
interpreter (a virtual environment's ``bin``), else ``python -m bleustream``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bleustream.errors import EXIT_SIGTERM, EXIT_STATUSES

_SCRIPT = Path(sys.executable).with_name("bleustream")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "bleustream"]

# The statuses the manual and --help list (errors.EXIT_STATUSES), with 143,
# which the SIGINT row names beside 130.
DOCUMENTED_STATUSES = frozenset(status for status, _ in EXIT_STATUSES) | {EXIT_SIGTERM}


def run(
    *args: str | Path,
    input: bytes | str | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    """Run bleustream with ``args``; stdin is ``input`` (empty when None)."""
    data = input.encode("utf-8") if isinstance(input, str) else (input or b"")
    return subprocess.run(
        [*COMMAND, *map(str, args)],
        input=data,
        capture_output=True,
        cwd=cwd,
        timeout=timeout,
    )


def json_records(stdout: bytes) -> list[dict[str, Any]]:
    """The JSON Lines records of a ``-f jsonl`` run."""
    return [json.loads(line) for line in stdout.decode("utf-8").splitlines() if line]


def assert_clean_stderr(proc: subprocess.CompletedProcess[bytes]) -> None:
    """No traceback, and every stderr line is one of bleustream's messages."""
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    for line in err.splitlines():
        assert line.startswith("bleustream: "), err
