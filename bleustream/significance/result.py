"""The result of a resampling test for one system and metric."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Result:
    """One system's score for one metric, with what a resampling test added.

    ``mean`` and ``ci`` (half the width of the 95% interval) come from
    bootstrap resampling; ``p_value`` from a paired test against the
    baseline (``None`` for the baseline itself).
    """

    system: str
    metric: str
    score: float
    mean: float | None = None
    ci: float | None = None
    p_value: float | None = None
    # The numpy type of the resampled scores behind ``mean`` and ``ci``
    # (SacreBLEU's ``PairedTest`` hands them back as its scalars).
    dtype: str = "float64"
