"""SacreBLEU's test sets, under the name ``sacrebleu.dataset`` gives them.

bleustream keeps no list of test sets of its own: ``DATASETS`` is
SacreBLEU's registry, from the optional extra ``bleustream[testsets]``
(the ``sacrebleu`` package), imported when it is first read, as are its
module's other public names.  Without the extra, reading one raises an
``ImportError`` that names the extra.  The functions on it are in
``bleustream.sacrebleu.utils``, as in SacreBLEU.

``registry()`` imports SacreBLEU's modules once and keeps them:
``bleustream.install_as_sacrebleu()``, after which ``import sacrebleu``
gives bleustream, calls it first.
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
            dataset = utils = None
        # Under install_as_sacrebleu() without the extra, "sacrebleu" is
        # bleustream: its modules are not SacreBLEU's registry.
        if dataset is None or utils is None or dataset.__name__ != "sacrebleu.dataset":
            raise ImportError(f"SacreBLEU's test sets need the testsets extra: {EXTRA}")
        _loaded = (dataset, utils)
    return _loaded


def __getattr__(name: str) -> Any:
    """``DATASETS`` and SacreBLEU's other public names of ``dataset``
    (``SUBSETS``, the dataset classes...), from the extra."""
    if not name.startswith("_"):
        theirs = registry()[0]
        if hasattr(theirs, name):
            return getattr(theirs, name)
    raise AttributeError(f"module 'bleustream.sacrebleu.dataset' has no attribute {name!r}")
