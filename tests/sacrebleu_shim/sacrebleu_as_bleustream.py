"""Runs SacreBLEU's own test files against bleustream: ``sacrebleu`` is bleustream.

Loaded by pytest before it imports the test modules. It puts modules named
``sacrebleu``, ``sacrebleu.compat``, ``sacrebleu.metrics``, ``sacrebleu.utils``
and ``sacrebleu.dataset`` in ``sys.modules``, made of bleustream's public
names, so ``import sacrebleu`` and ``from sacrebleu.metrics import BLEU`` in
SacreBLEU's tests get bleustream. Each has an empty ``__path__``: a
submodule not made here is not found, even with the real SacreBLEU
installed. ``utils`` and ``dataset`` are ``bleustream.utils`` and
``bleustream.dataset``, which call SacreBLEU's own registry (the testsets
extra): it is imported here first, before the names are taken over, and
``bleustream.dataset`` keeps it.

At the end, a line ``REAL SACREBLEU IMPORTED: ...`` on stdout names any
module of the real package that was imported after all.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import bleustream
import bleustream.dataset
import bleustream.metrics
import bleustream.utils

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


def install() -> types.ModuleType:
    # SacreBLEU's registry, which bleustream's test-set functions call: the
    # real package's, imported before "sacrebleu" becomes bleustream.
    bleustream.dataset.registry()
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
    test_sets = {name: getattr(bleustream.utils, name) for name in TEST_SET_FUNCTIONS}
    utils = _module("sacrebleu.utils", **test_sets)
    dataset = _module("sacrebleu.dataset", DATASETS=bleustream.dataset.DATASETS)
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
