"""The module ``sacrebleu`` is under ``bleustream.install_as_sacrebleu()``:
SacreBLEU's top-level names, on bleustream.

Its functions, classes and test-set names are bleustream's (``compat``,
``metrics``, ``utils``...); its ``__version__`` is ``bleustream.version``'s,
SacreBLEU's API version with bleustream's as a PEP 440 local part
(``2.6.0+bleustream.0.2.0``), so version checks written for SacreBLEU pass.
It is a module of its own, not ``bleustream``, whose ``__version__`` stays
bleustream's.  Each name is loaded when first asked for.  Its submodules
(``sacrebleu.metrics``...) are found by ``bleustream.dropin``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from bleustream.version import __version__

if TYPE_CHECKING:
    from bleustream.compat import (
        corpus_bleu,
        corpus_chrf,
        corpus_ter,
        raw_corpus_bleu,
        sentence_bleu,
        sentence_chrf,
        sentence_ter,
    )
    from bleustream.dataset import DATASETS
    from bleustream.metrics import BLEU, CHRF, TER
    from bleustream.metrics.helpers import extract_char_ngrams, extract_word_ngrams
    from bleustream.utils import (
        SACREBLEU_DIR,
        download_test_set,
        get_available_testsets,
        get_langpairs_for_testset,
        get_reference_files,
        get_source_file,
        smart_open,
    )

# A package: ``import sacrebleu.compat`` asks bleustream.dropin's finder.
__path__: list[str] = []

__description__ = "SacreBLEU's API on bleustream: streaming MT evaluation with SacreBLEU's numbers"

__all__ = [
    "BLEU",
    "CHRF",
    "DATASETS",
    "SACREBLEU_DIR",
    "TER",
    "__version__",
    "corpus_bleu",
    "corpus_chrf",
    "corpus_ter",
    "download_test_set",
    "extract_char_ngrams",
    "extract_word_ngrams",
    "get_available_testsets",
    "get_langpairs_for_testset",
    "get_reference_files",
    "get_source_file",
    "raw_corpus_bleu",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_ter",
    "smart_open",
]

# Where each name comes from, as in SacreBLEU's __init__.
_SOURCES = {
    **dict.fromkeys(
        (
            "corpus_bleu",
            "corpus_chrf",
            "corpus_ter",
            "raw_corpus_bleu",
            "sentence_bleu",
            "sentence_chrf",
            "sentence_ter",
        ),
        "bleustream.compat",
    ),
    **dict.fromkeys(("BLEU", "CHRF", "TER"), "bleustream.metrics"),
    **dict.fromkeys(("extract_char_ngrams", "extract_word_ngrams"), "bleustream.metrics.helpers"),
    **dict.fromkeys(
        (
            "SACREBLEU_DIR",
            "download_test_set",
            "get_available_testsets",
            "get_available_testsets_for_langpair",
            "get_langpairs_for_testset",
            "get_reference_files",
            "get_source_file",
            "smart_open",
        ),
        "bleustream.utils",
    ),
    "DATASETS": "bleustream.dataset",
}
# The submodules SacreBLEU's __init__ loads, as attributes.
_MODULES = {
    "compat": "bleustream.compat",
    "dataset": "bleustream.dataset",
    "metrics": "bleustream.metrics",
    "tokenizers": "bleustream.tokenizers",
    "utils": "bleustream.utils",
    "version": "bleustream.version",
}


def __getattr__(name: str) -> Any:
    if name in _SOURCES:
        value = getattr(importlib.import_module(_SOURCES[name]), name)
    elif name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    else:
        raise AttributeError(f"module 'sacrebleu' (bleustream) has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
