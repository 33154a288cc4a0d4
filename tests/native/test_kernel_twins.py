"""Every batch kernel a metric binds has a pure twin of the same signature.

The pairs are read from the modules themselves (each metric module's
``KERNEL_TWINS``: name to ``(c_<name> or None, py_<name>)``), not listed
here, so a twin added to a module is checked without touching this file.
Each pair's factories have the same signature, and so have the functions
they make for the metric's default settings (the C twin's made with the
extension loaded here, on the pure path too); the module's name is bound
to the C twin exactly when the kernels are compiled.  That the twins give
the same results is ``test_kernels*.py``'s and ``tools/fuzz_kernels.py``'s.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import pytest

import bleustream.metrics
from bleustream import kernels
from bleustream.metrics.registry import METRICS
from tests.helpers.native import NATIVE, needs_native

# The batch functions every streamed metric provides (bleustream.metrics.protocol).
BATCH_NAMES = ("count_batch", "sum_batch", "score_batch")


def _metric_modules() -> list[ModuleType]:
    """Every module of ``bleustream.metrics`` (each imported)."""
    return [
        importlib.import_module(f"bleustream.metrics.{info.name}")
        for info in pkgutil.iter_modules(bleustream.metrics.__path__)
    ]


def _twins() -> list[tuple[ModuleType, str, Any, Any]]:
    """(module, name, C twin or None, pure twin) of every module's ``KERNEL_TWINS``."""
    return [
        (module, name, compiled, pure)
        for module in _metric_modules()
        for name, (compiled, pure) in getattr(module, "KERNEL_TWINS", {}).items()
    ]


TWINS = _twins()
IDS = [f"{module.__name__.rsplit('.', 1)[1]}.{name}" for module, name, _, _ in TWINS]


@contextmanager
def _extension_everywhere() -> Iterator[None]:
    """The metric modules read the extension loaded here, on the pure path
    too, so that a C twin can be made whatever the path."""
    modules = [m for m in _metric_modules() if hasattr(m, "native")]
    saved = [m.native for m in modules]  # type: ignore[attr-defined]
    for module in modules:
        module.native = NATIVE  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module, native in zip(modules, saved):
            module.native = native  # type: ignore[attr-defined]


def test_every_streamed_metric_declares_its_batches_and_twins() -> None:
    assert TWINS, "no module declares KERNEL_TWINS"
    for metric in METRICS.values():
        assert isinstance(metric.KERNEL_TWINS, dict), metric.NAME
        for name in BATCH_NAMES:
            assert callable(getattr(metric, name)), (metric.NAME, name)
    # BLEU's and chrF's batches have C twins; TER counts its edits in C below them
    for metric in ("bleu", "chrf"):
        assert set(BATCH_NAMES) <= set(METRICS[metric].KERNEL_TWINS), metric


@pytest.mark.parametrize(("module", "name", "compiled", "pure"), TWINS, ids=IDS)
def test_the_twins_are_named_and_bound_as_the_module_says(
    module: ModuleType, name: str, compiled: Any, pure: Any
) -> None:
    assert pure.__name__ == f"py_{name}"
    assert compiled is None or compiled.__name__ == f"c_{name}"
    bound = getattr(module, name)
    assert bound is (compiled if compiled is not None and kernels.native is not None else pure)


@pytest.mark.parametrize(("module", "name", "compiled", "pure"), TWINS, ids=IDS)
def test_a_twin_has_the_signature_of_the_other(
    module: ModuleType, name: str, compiled: Any, pure: Any
) -> None:
    if compiled is None:
        return  # the pure function alone, bound as such (test above)
    assert inspect.signature(compiled) == inspect.signature(pure), name


class Whole(int):
    pass


@needs_native
@pytest.mark.parametrize(("module", "name", "compiled", "pure"), TWINS, ids=IDS)
def test_what_the_twins_make_has_one_signature(
    module: ModuleType, name: str, compiled: Any, pure: Any
) -> None:
    """The functions the factories make, for the default settings and for
    settings the C batches leave to other code, take the same arguments."""
    if compiled is None:
        return
    settings = [module.Settings()]
    if module.NAME == "bleu":
        settings += [module.Settings(tokenize="intl", smooth_method="add-k")]
    if module.NAME == "chrf":
        settings += [module.Settings(beta=Whole(2))]  # not of type int: not in C
    for the_settings in settings:
        with _extension_everywhere():
            made = compiled(the_settings)
        want = inspect.signature(pure(the_settings))
        got = inspect.signature(made)
        assert list(got.parameters) == list(want.parameters), (name, the_settings)
        kinds = [(p.kind, p.default) for p in got.parameters.values()]
        assert kinds == [(p.kind, p.default) for p in want.parameters.values()], name
