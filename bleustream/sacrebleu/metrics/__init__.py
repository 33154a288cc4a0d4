"""SacreBLEU's ``metrics``: ``BLEU``, ``CHRF``, ``TER`` and ``METRICS``
(its class names to the classes), bleustream's metric classes."""

from __future__ import annotations

from bleustream.metrics.metric_classes import BLEU, CHRF, TER

__all__ = ["BLEU", "CHRF", "METRICS", "TER"]

METRICS = {"BLEU": BLEU, "CHRF": CHRF, "TER": TER}
