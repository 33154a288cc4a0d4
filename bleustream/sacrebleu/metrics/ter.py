"""SacreBLEU's ``metrics.ter``: ``TER``, ``TERScore`` and ``TERSignature``,
bleustream's (``metrics.metric_classes``, ``metrics.scores``)."""

from __future__ import annotations

from bleustream.metrics.metric_classes import TER, TERSignature
from bleustream.metrics.scores import TERScore

__all__ = ["TER", "TERScore", "TERSignature"]
