"""What a test needs from outside the package: a skip on a developer's
machine that lacks it, a failure in CI, whose ``.ci/run`` installs it."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    """Whether this is CI's run (``CI=true``), where every test must run."""
    return os.environ.get("CI", "").lower() == "true"


def missing(reason: str) -> NoReturn:
    """Skip with ``reason``, or fail with it in CI."""
    if in_ci():
        pytest.fail(reason)
    pytest.skip(reason)
