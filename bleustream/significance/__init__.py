"""Significance: the segment store, SacreBLEU's resampling draws and their numpy scoring.

SacreBLEU's public names of its ``significance`` module, ``PairedTest``,
``Result``, ``estimate_ci`` and ``IS_WINDOWS``, are here (``paired_test``),
loaded when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bleustream.significance.paired_test import IS_WINDOWS, PairedTest, Result, estimate_ci

__all__ = ["IS_WINDOWS", "PairedTest", "Result", "estimate_ci"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from bleustream.significance import paired_test

        return getattr(paired_test, name)
    raise AttributeError(f"module 'bleustream.significance' has no attribute {name!r}")
