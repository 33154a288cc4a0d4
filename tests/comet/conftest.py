"""The COMET tests' checkpoints: built once per checkpoint spec with
unbabel-comet 2.2.7's classes and kept under ``.ci-cache/comet/`` (see
``tests/helpers/comet_checkpoints.py``); the tests skip without the oracle
venv (``$BLEUSTREAM_COMET_ORACLE``) and fail without it under CI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.comet_checkpoints import build_checkpoint


@pytest.fixture(scope="session", autouse=True)
def one_torch_thread() -> None:
    """One intra-op thread: on a busy machine PyTorch's OpenMP threads spin
    against each other (a small model ran 20 times slower with two); the
    oracle's processes run with one too (``OMP_NUM_THREADS``)."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def comet_checkpoint() -> Callable[[str], Path]:
    """The checkpoint directory of a spec of ``SPECS`` (``"regression"``...)."""
    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            built[name] = build_checkpoint(name)
        return built[name]

    return get
