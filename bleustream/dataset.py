"""SacreBLEU's test sets, under the name ``sacrebleu.dataset`` gives them.

bleustream keeps no list of test sets of its own: ``DATASETS`` is
SacreBLEU's registry, from the optional extra ``bleustream[testsets]``
(the ``sacrebleu`` package), imported when it is first read.  Without the
extra, reading it raises an ``ImportError`` that names the extra.  The
functions on it are in ``bleustream.utils``, as in SacreBLEU.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

EXTRA = "pip install 'bleustream[testsets]'"

_loaded: tuple[ModuleType, ModuleType] | None = None


def registry() -> tuple[ModuleType, ModuleType]:
    """SacreBLEU's ``dataset`` and ``utils`` modules (imported once)."""
    global _loaded
    if _loaded is None:
        try:
            import sacrebleu.dataset as dataset  # the optional extra
            import sacrebleu.utils as utils
        except ImportError:
            raise ImportError(f"SacreBLEU's test sets need the testsets extra: {EXTRA}") from None
        _loaded = (dataset, utils)
    return _loaded


def __getattr__(name: str) -> Any:
    if name == "DATASETS":
        return registry()[0].DATASETS
    raise AttributeError(f"module 'bleustream.dataset' has no attribute {name!r}")
