"""``install_as_sacrebleu()``: bleustream under SacreBLEU's module names.

As PyMySQL's ``install_as_MySQLdb()``: after it, ``import sacrebleu`` (and
``from sacrebleu.metrics import BLEU``, ``import sacrebleu.compat``...) in
any library gives bleustream's modules, so code written for SacreBLEU
scores with bleustream unchanged.  The mapping is by name alone:
``sacrebleu`` is ``bleustream.sacrebleu``, and ``sacrebleu.X`` is
``bleustream.sacrebleu.X``, the subpackage laid out as SacreBLEU's own
tree, found on import by a finder put first on ``sys.meta_path``.  A
``sacrebleu.`` module that subpackage has no file for
(``sacrebleu.metrics.counting``) is an ImportError, never a bleustream
file loaded a second time under another name.

SacreBLEU's own test-set registry, which ``bleustream.sacrebleu.utils``
calls (the ``testsets`` extra), is imported first from the real package;
of the real package's modules, only its test sets'
(``sacrebleu.dataset.wmt_xml``...) stay in ``sys.modules``, for the
registry's functions, so no scoring code of SacreBLEU's can be imported
after the install.  Code that imported the real package before keeps what
it imported.  Calling it again changes nothing.

For a whole process without editing code: ``python -m bleustream.dropin
script.py ARGS`` or ``python -m bleustream.dropin -m module ARGS``
(``__main__``).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = ["HOME", "install_as_sacrebleu", "own_name"]

# The package that ``sacrebleu`` is.
HOME = "bleustream.sacrebleu"


def own_name(name: str) -> str:
    """bleustream's module of SacreBLEU's module ``name`` (``sacrebleu.X`` ->
    ``bleustream.sacrebleu.X``)."""
    return HOME + name[len("sacrebleu") :]


class _Existing(importlib.abc.Loader):
    """Loads a SacreBLEU name as the bleustream module it is."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        pass  # loaded already, under its own name


class SacrebleuFinder(importlib.abc.MetaPathFinder):
    """Finds SacreBLEU's module names as bleustream's, and no other ``sacrebleu.`` name."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.split(".")[0] != "sacrebleu":
            return None
        module = own_name(fullname)
        if importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: under bleustream.install_as_sacrebleu(), "
                "sacrebleu has SacreBLEU's public modules only",
                name=fullname,
            )
        return importlib.util.spec_from_loader(fullname, _Existing(module))


def _taken(name: str) -> bool:
    """A module name that, after the install, is bleustream's or none: all
    of SacreBLEU's but its test sets' (``sacrebleu.dataset.wmt_xml``...),
    which its registry uses."""
    return name.split(".")[0] == "sacrebleu" and not name.startswith("sacrebleu.dataset.")


def install_as_sacrebleu() -> None:
    """Makes ``import sacrebleu`` and its public submodules give bleustream."""
    from bleustream.sacrebleu import dataset

    # SacreBLEU's registry, while "sacrebleu" is still SacreBLEU; without the
    # testsets extra, its functions say so when called.
    with contextlib.suppress(ImportError):
        dataset.registry()
    for name in [name for name in sys.modules if _taken(name)]:
        del sys.modules[name]
    if not any(isinstance(finder, SacrebleuFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, SacrebleuFinder())
    importlib.import_module("sacrebleu")
