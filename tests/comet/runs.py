"""Shared pieces of the tests of COMET in a run (``-m comet``): a slice of a real set with its
sources, and the command run with the model double installed."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from tests.comet.fake_comet import COMMAND, PASSES_ENV, make_checkpoint
from tests.conftest import REAL_DATA
from tests.helpers.paths import ROOT

LINES = 120


def ted_dir() -> Path:
    return REAL_DATA / "compare-mt-ted-slk-en-detok"


class Set:
    """Files of a slice of the TED set: sources, references, two systems."""

    def __init__(self, root: Path, lines: int = LINES) -> None:
        self.root = root
        data = ted_dir()
        self.src = self._slice(data / "ted.orig.slk", "src", lines)
        self.ref = self._slice(data / "ted.ref.detok.eng", "ref", lines)
        self.hyp = self._slice(data / "ted.sys1.detok.eng", "hyp", lines)
        self.hyp2 = self._slice(data / "ted.sys2.detok.eng", "hyp2", lines)
        self.model = make_checkpoint(root / "model")
        self.passes = root / "passes"

    def _slice(self, path: Path, name: str, lines: int) -> Path:
        out = self.root / name
        with open(path, encoding="utf-8") as f:
            text = [next(f) for _ in range(lines)]
        out.write_text("".join(text), encoding="utf-8")
        return out

    def lines(self, path: Path) -> list[str]:
        return path.read_text(encoding="utf-8").splitlines()

    def run(
        self, *args: str | Path, model: Path | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """The command with the model double, ``--comet-model`` and ``--src``
        given unless ``args`` give them; its forward passes are logged."""
        return subprocess.run(
            self.argv(*args, model=model),
            capture_output=True,
            cwd=ROOT,
            timeout=120,
            env=env_with({PASSES_ENV: str(self.passes)}),
        )

    def argv(self, *args: str | Path, model: Path | None = None) -> list[str]:
        """The command line of ``run``."""
        argv: list[str] = list(map(str, args))
        if "--comet-model" not in argv:
            argv += ["--comet-model", str(model or self.model)]
        if "--src" not in argv:
            argv += ["--src", str(self.src)]
        return [*COMMAND, *argv]

    def forward_passes(self) -> list[int]:
        """The batch sizes of the forward passes logged so far, then forgotten."""
        if not self.passes.exists():
            return []
        sizes = [int(x) for x in self.passes.read_text().split()]
        self.passes.unlink()
        return sizes


def env_with(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


def err_lines(proc: subprocess.CompletedProcess[bytes]) -> Sequence[str]:
    return proc.stderr.decode("utf-8").splitlines()
