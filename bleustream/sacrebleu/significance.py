"""SacreBLEU's ``significance``: ``PairedTest``, ``Result``, ``estimate_ci``
and ``IS_WINDOWS``, bleustream's (``bleustream.significance``)."""

from __future__ import annotations

from bleustream.significance.paired_test import IS_WINDOWS, PairedTest, Result, estimate_ci

__all__ = ["IS_WINDOWS", "PairedTest", "Result", "estimate_ci"]
