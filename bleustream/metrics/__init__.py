"""The metrics: the pure core. Statistics of a segment, how they add, and scores from sums.

Nothing here reads files, parses arguments or writes to a stream.  SacreBLEU's
classes are here under its names (``from bleustream.metrics import BLEU``,
``METRICS``), loaded when first asked for: a module of the package that
imports one metric does not load them all.  SacreBLEU's modules of the same
names (``sacrebleu.metrics.bleu``, ``base``, ``helpers``...) are in
``bleustream.sacrebleu.metrics``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bleustream.metrics.metric_classes import BLEU, CHRF, TER
    from bleustream.metrics.scores import BLEUScore, CHRFScore, Score, Signature, TERScore

__all__ = [
    "BLEU",
    "CHRF",
    "METRICS",
    "TER",
    "BLEUScore",
    "CHRFScore",
    "Score",
    "Signature",
    "TERScore",
]

_CLASSES = {"BLEU", "CHRF", "TER"}
_SCORES = {"BLEUScore", "CHRFScore", "Score", "Signature", "TERScore"}


def __getattr__(name: str) -> Any:
    if name in _CLASSES:
        from bleustream.metrics import metric_classes

        return getattr(metric_classes, name)
    if name in _SCORES:
        from bleustream.metrics import scores

        return getattr(scores, name)
    if name == "METRICS":  # SacreBLEU's: its class names to the classes
        from bleustream.metrics.metric_classes import BLEU, CHRF, TER

        return {"BLEU": BLEU, "CHRF": CHRF, "TER": TER}
    raise AttributeError(f"module 'bleustream.metrics' has no attribute {name!r}")
