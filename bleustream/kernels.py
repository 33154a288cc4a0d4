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

When the extension cannot be imported and the package is a source tree
(``setup.py`` beside the ``bleustream`` folder: Python run in a checkout
finds it before an installed copy, or an editable install whose build
failed), one line on standard error says that the kernels were expected
and how to have them; the pure path then runs.  An installed copy without
kernels (built where there was no compiler, which the install warned of)
says nothing: that is a pure install by design.  Nor does anything when
``BLEUSTREAM_PUREPYTHON`` asks for the pure path.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType

ENV_VAR = "BLEUSTREAM_PUREPYTHON"

NOT_BUILT = (
    "bleustream: the compiled kernels are not built in the source tree {tree} "
    "({error}); running the pure-Python path (the same numbers, slower): build them "
    "with 'python setup.py build_ext --inplace' there, or run outside it to use an "
    "installed copy; {variable}=1 asks for the pure path and silences this"
)


def pure_python_forced(environ: dict[str, str] | None = None) -> bool:
    """Whether the environment asks for the pure-Python path."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "")
    return value not in ("", "0")


def _load() -> ModuleType | None:
    if pure_python_forced():
        return None
    try:
        from bleustream._native import _kernels as compiled
    except ImportError as error:
        tree = source_tree()
        if tree is not None:
            print(NOT_BUILT.format(tree=tree, error=error, variable=ENV_VAR), file=sys.stderr)
        return None
    return compiled


def source_tree() -> str | None:
    """The checkout the package is imported from (``setup.py`` beside the
    package and the kernels' C sources in it), or None for an installed copy.
    (``os.path``, not ``pathlib``: this module is on every run's start-up.)"""
    package = os.path.dirname(os.path.realpath(__file__))
    parent = os.path.dirname(package)
    setup, module_c = os.path.join(parent, "setup.py"), os.path.join(package, "_native", "module.c")
    if os.path.isfile(setup) and os.path.isfile(module_c):
        return parent
    return None


native: ModuleType | None = _load()

KERNELS: str = "python" if native is None else "compiled"
