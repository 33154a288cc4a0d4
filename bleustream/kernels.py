"""Which kernels count n-grams: compiled C, or the pure-Python reference.

Chosen once per process, at import: ``BLEUSTREAM_PUREPYTHON`` set to any
non-empty value other than ``0`` forces the pure-Python path; otherwise the
C extension ``bleustream._native._kernels`` is used when it was built.
Worker processes (``-j``, Dask) inherit the environment, so they make the
same choice.  Both paths give the same rows, byte for byte; the pure modules
remain the readable reference, and each ends with one block that binds its
public names to the C twin (``c_<name>``, None on the pure path) or to the
pure one (``py_<name>``).

The C sources live in ``bleustream/_native/``, a folder that is no package
of its own: in a tree that was never built it imports as an empty namespace
package, so only the extension module inside it counts as a build.
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
        from bleustream._native import _kernels as compiled
    except ImportError:
        return None
    return compiled


native: ModuleType | None = _load()

KERNELS: str = "python" if native is None else "compiled"
