"""Runs SacreBLEU's own test files against bleustream: ``sacrebleu`` is bleustream.

Loaded by pytest before it imports the test modules. It puts modules named
``sacrebleu``, ``sacrebleu.compat``, ``sacrebleu.metrics``, ``sacrebleu.utils``
and ``sacrebleu.dataset`` in ``sys.modules``, made of bleustream's public
names, so ``import sacrebleu`` and ``from sacrebleu.metrics import BLEU`` in
SacreBLEU's tests get bleustream. Each has an empty ``__path__``: a
submodule not made here is not found, even with the real SacreBLEU
installed. ``utils`` and ``dataset`` hold SacreBLEU's test-set functions,
which bleustream does not have (it never downloads): they raise.

At the end, a line ``REAL SACREBLEU IMPORTED: ...`` on stdout names any
module of the real package that was imported after all.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import bleustream
import bleustream.metrics

FUNCTIONS = (
    "corpus_bleu",
    "corpus_chrf",
    "corpus_ter",
    "raw_corpus_bleu",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_ter",
)
TEST_SET_FUNCTIONS = (
    "get_available_testsets",
    "get_available_testsets_for_langpair",
    "get_langpairs_for_testset",
    "get_source_file",
    "get_reference_files",
    "download_test_set",
)


def _module(name: str, **attrs: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__path__ = []  # a package with nothing behind it
    module.__file__ = f"<bleustream as {name}>"
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


def _no_test_sets(name: str) -> Any:
    def missing(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{name}: bleustream has no built-in test sets")

    return missing


class NoTestSets(dict):
    """SacreBLEU's ``DATASETS`` registry, which bleustream does not have:
    reading it raises (an empty one would let tests pass that check nothing)."""

    def _missing(self, *args: Any) -> Any:
        raise NotImplementedError("DATASETS: bleustream has no built-in test sets")

    keys = values = items = __iter__ = __getitem__ = __len__ = _missing


def install() -> types.ModuleType:
    for name in [n for n in sys.modules if n == "sacrebleu" or n.startswith("sacrebleu.")]:
        del sys.modules[name]
    functions = {name: getattr(bleustream, name) for name in FUNCTIONS}
    classes = {name: getattr(bleustream.metrics, name) for name in bleustream.metrics.__all__}
    metrics = _module(
        "sacrebleu.metrics",
        **classes,
        METRICS={"BLEU": bleustream.BLEU, "CHRF": bleustream.CHRF, "TER": bleustream.TER},
    )
    compat = _module("sacrebleu.compat", **functions)
    test_sets = {name: _no_test_sets(name) for name in TEST_SET_FUNCTIONS}
    utils = _module("sacrebleu.utils", **test_sets)
    dataset = _module("sacrebleu.dataset", DATASETS=NoTestSets())
    return _module(
        "sacrebleu",
        __version__=bleustream.__version__,
        **functions,
        **{name: getattr(bleustream, name) for name in ("BLEU", "CHRF", "TER")},
        **test_sets,
        DATASETS=dataset.DATASETS,
        compat=compat,
        metrics=metrics,
        utils=utils,
        dataset=dataset,
    )


install()


def pytest_report_header(config: Any) -> str:
    return f"sacrebleu is bleustream {bleustream.__version__} ({bleustream.__file__})"


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    real = sorted(
        name
        for name, module in sys.modules.items()
        if name.split(".")[0] == "sacrebleu"
        and not (getattr(module, "__file__", "") or "").startswith("<bleustream")
    )
    if real:
        print(f"\nREAL SACREBLEU IMPORTED: {', '.join(real)}")
