"""SacreBLEU's ``metrics.base``: ``Score``, ``Signature`` and ``Metric``,
bleustream's (``scores`` and ``metric_classes``), loaded when first asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bleustream.metrics.metric_classes import Metric
    from bleustream.metrics.scores import Score, Signature

__all__ = ["Metric", "Score", "Signature"]


def __getattr__(name: str) -> Any:
    if name == "Metric":
        from bleustream.metrics.metric_classes import Metric

        return Metric
    if name in ("Score", "Signature"):
        from bleustream.metrics import scores

        return getattr(scores, name)
    raise AttributeError(f"module 'bleustream.metrics.base' has no attribute {name!r}")
