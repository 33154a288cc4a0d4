"""SacreBLEU's ``metrics.base``: ``Score``, ``Signature`` and ``Metric``,
bleustream's (``metrics.scores`` and ``metrics.metric_classes``)."""

from __future__ import annotations

from bleustream.metrics.metric_classes import Metric
from bleustream.metrics.scores import Score, Signature

__all__ = ["Metric", "Score", "Signature"]
