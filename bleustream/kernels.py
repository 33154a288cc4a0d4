"""Which kernels count n-grams: compiled C, or the pure-Python reference.

Chosen once per process, at import: ``BLEUSTREAM_PUREPYTHON`` set to any
non-empty value other than ``0`` forces the pure-Python path; otherwise the
C extension ``bleustream._native`` is used when it was built.  Worker
processes (``-j``, Dask) inherit the environment, so they make the same
choice.  Both paths give the same rows, byte for byte; the pure modules
remain the readable reference, and bind ``native``'s functions once at
their own import when it is not None.
"""

from __future__ import annotations

import os
from types import ModuleType

ENV_VAR = "BLEUSTREAM_PUREPYTHON"


def pure_python_forced(environ: dict[str, str] | None = None) -> bool:
    """Whether the environment asks for the pure-Python path."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "")
    return value not in ("", "0")


def _load() -> ModuleType | None:
    if pure_python_forced():
        return None
    try:
        import bleustream._native as compiled
    except ImportError:
        return None
    return compiled


native: ModuleType | None = _load()

KERNELS: str = "python" if native is None else "compiled"
