"""SacreBLEU's ``metrics.chrf``: ``CHRF``, ``CHRFScore`` and ``CHRFSignature``,
bleustream's (``metrics.metric_classes``, ``metrics.scores``)."""

from __future__ import annotations

from bleustream.metrics.metric_classes import CHRF, CHRFSignature
from bleustream.metrics.scores import CHRFScore

__all__ = ["CHRF", "CHRFScore", "CHRFSignature"]
