"""SacreBLEU's smoothing constants, written once for the scalar scores
(``bleu.py``, ``chrf.py``) and the array scores of resampling
(``array_scores.py``), which must agree with them to the bit."""

from __future__ import annotations

# BLEU's smoothing value when none is given, by method (Chen and Cherry
# 2014, as SacreBLEU sets them).
SMOOTH_DEFAULTS: dict[str, float | None] = {"exp": None, "floor": 0.1, "add-k": 1, "none": None}

# BLEU: SacreBLEU floors log(0) at this (integer) value instead of failing.
LOG_ZERO = -9999999999

# chrF: SacreBLEU's smoothing of a zero precision or recall.
CHRF_EPS = 1e-16
