"""Optional extras: the one rule for a missing one.

A feature that needs a package the runtime core does not (numpy, MeCab,
SentencePiece, NLTK, matplotlib) imports it only when it runs, here; when
the package is missing, the user gets one line naming the feature, what it
needs and the extra that installs it
("--paired-bs needs numpy: pip install 'bleustream[significance]'"),
never a traceback.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from bleustream.errors import Interrupted, UsageError


def install_command(extra: str) -> str:
    """The command that installs an extra: ``pip install 'bleustream[spm]'``."""
    return f"pip install 'bleustream[{extra}]'"


def missing(what: str, needs: str, extra: str) -> UsageError:
    """The error for feature ``what`` lacking package ``needs``, which ``extra`` installs."""
    return UsageError(f"{what} needs {needs}: {install_command(extra)}")


def require(module: str, what: str, needs: str, extra: str) -> ModuleType:
    """Module ``module`` imported, or ``missing(what, needs, extra)`` raised."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        # A signal during the import reaches us wrapped in its ImportError.
        cause = exc.__cause__ or exc.__context__
        if isinstance(cause, Interrupted):
            raise cause from None
        raise missing(what, needs, extra) from None


def require_numpy(what: str = "significance testing") -> ModuleType:
    """numpy, or a one-line ``UsageError`` naming the extra that installs it."""
    return require("numpy", what, "numpy", "significance")
