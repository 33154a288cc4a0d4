"""A test double of ``bleustream.comet``'s interface, for the tests of the
run around the model (streaming, cache, statistics): its scores are a hash
of the texts, computed here, so every expected value comes from this
module, never from the code under test.  The parity of real checkpoints
with unbabel-comet is tested with the loader itself.

A "checkpoint" is a directory holding ``fake.json`` (``family``,
``max_length``); the command runs in a subprocess with this module
installed as ``bleustream.comet`` (``command``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import types
from collections.abc import Sequence
from pathlib import Path

from bleustream.errors import EXIT_DATAERR, EXIT_NOINPUT, BleustreamError
from tests.helpers.paths import ROOT

PASSES_ENV = "FAKE_COMET_PASSES"  # a file each run appends its forward passes to
# "N:FILE": the N-th forward pass writes FILE and waits there to be interrupted.
HOLD_ENV = "FAKE_COMET_HOLD"


def fake_score(source: str, hypothesis: str, reference: str | None) -> float:
    """The double's segment score: a number in [0, 1) from the texts."""
    data = "\0".join((source, hypothesis, "-" if reference is None else reference))
    return int.from_bytes(hashlib.sha256(data.encode()).digest()[:8], "big") / 2**64


def make_checkpoint(path: Path, family: str = "regression", max_length: int = 512) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "fake.json").write_text(json.dumps({"family": family, "max_length": max_length}))
    return path


class ModelError(BleustreamError):
    def __init__(self, message: str, status: int = EXIT_NOINPUT) -> None:
        super().__init__(message)
        self.status = status


class CometModel:
    def __init__(self, name: str, family: str, max_length: int, digest: str) -> None:
        self.name, self.family, self.max_length = name, family, max_length
        self.needs_references = family != "referenceless"
        self.word_level = False  # no error spans
        self.identity = f"{family}|sha256:{digest}|maxlen:{max_length}|fp32"
        self.signature_fields = {
            "model": os.path.basename(name.rstrip("/")),
            "digest": digest,
            "refs": "yes" if self.needs_references else "no",
            "precision": "fp32",
            "maxlen": str(max_length),
            "comet": "fake",
        }
        self.forward_passes = 0
        self._truncated = 0

    def score_batch(
        self, sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[str] | None
    ) -> list[float]:
        assert len(sources) == len(hypotheses)
        assert (references is None) == (not self.needs_references)
        self.forward_passes += 1
        _hold(self.forward_passes)
        path = os.environ.get(PASSES_ENV)
        if path:
            with open(path, "a") as f:
                f.write(f"{len(hypotheses)}\n")
        refs = references if references is not None else [None] * len(sources)
        for hyp in hypotheses:
            if len(hyp.split()) > self.max_length:
                self._truncated += 1
        return [fake_score(s, h, r) for s, h, r in zip(sources, hypotheses, refs)]

    def uses_references_when_given(self) -> bool:
        return self.needs_references

    def truncated(self) -> int:
        return self._truncated


def _hold(forward_pass: int) -> None:
    """With ``HOLD_ENV``, the pass it names signs a file and waits for a signal."""
    hold = os.environ.get(HOLD_ENV)
    if not hold:
        return
    number, path = hold.split(":", 1)
    if int(number) != forward_pass:
        return
    Path(path).write_text("holding")
    import signal

    while True:
        signal.pause()


def load_model(
    model: str, *, device: str = "cpu", max_length: int | None = None, local_only: bool = True
) -> CometModel:
    path = Path(model)
    if not path.is_dir():
        raise ModelError(
            f"COMET model {model}: no such checkpoint, and no copy in the local Hugging Face "
            "cache (download it first)"
        )
    try:
        spec = json.loads((path / "fake.json").read_text())
    except (OSError, ValueError):
        raise ModelError(f"COMET model {model}: not a COMET checkpoint", EXIT_DATAERR) from None
    digest = hashlib.sha256((path / "fake.json").read_bytes()).hexdigest()[:16]
    limit = min(max_length or spec["max_length"], spec["max_length"])
    return CometModel(model, spec["family"], limit, digest)


def install() -> None:
    """Registers this module's names as ``bleustream.comet`` (its other
    modules, such as the cache, still load from the package)."""
    module = types.ModuleType("bleustream.comet")
    module.__path__ = [str(ROOT / "bleustream" / "comet")]  # type: ignore[attr-defined]
    module.load_model = load_model  # type: ignore[attr-defined]
    module.ModelError = ModelError  # type: ignore[attr-defined]
    module.CometModel = CometModel  # type: ignore[attr-defined]
    sys.modules["bleustream.comet"] = module


LAUNCH = (
    "import sys; from tests.comet.fake_comet import install; install(); "
    "from bleustream.cli.main import main; sys.exit(main())"
)
COMMAND = [sys.executable, "-c", LAUNCH]
