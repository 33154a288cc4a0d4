"""SacreBLEU's ``metrics.bleu``: ``BLEU``, ``BLEUScore``, ``BLEUSignature``
and ``MAX_NGRAM_ORDER``, bleustream's (``metrics.metric_classes``,
``metrics.scores``, ``metrics.bleu``)."""

from __future__ import annotations

from bleustream.metrics.bleu import DEFAULT_MAX_ORDER as MAX_NGRAM_ORDER
from bleustream.metrics.metric_classes import BLEU, BLEUSignature
from bleustream.metrics.scores import BLEUScore

__all__ = ["BLEU", "MAX_NGRAM_ORDER", "BLEUScore", "BLEUSignature"]
