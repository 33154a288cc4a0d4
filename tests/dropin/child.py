"""Python code run in a fresh interpreter, for the tests that change
``sys.modules`` (the install) or compare with SacreBLEU in a process of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

from tests.helpers.paths import ROOT


def run_child(code: str, *args: str, env: dict[str, str] | None = None) -> Any:
    """Runs ``code`` in a fresh interpreter at the repository root; its
    stdout's last line, read as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
