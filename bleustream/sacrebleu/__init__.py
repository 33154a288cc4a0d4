"""SacreBLEU's API on bleustream, laid out as SacreBLEU's own package.

This subpackage is what ``import sacrebleu`` gives under
``bleustream.install_as_sacrebleu()``: ``sacrebleu.X`` is
``bleustream.sacrebleu.X``, for every X, by the name alone.  Its modules
are SacreBLEU's (``compat``, ``metrics.bleu``, ``tokenizers.tokenizer_13a``,
``significance``, ``utils``, ``dataset``, ``version``...), each a thin
front with SacreBLEU's public names on bleustream's layers: the scoring is
the metrics', the same the command line runs.  Nothing below the api
imports it.

Here are SacreBLEU's top-level names, each loaded when first asked for;
``__version__`` is ``version``'s, SacreBLEU's API version with
bleustream's as a PEP 440 local part (``2.6.0+bleustream.0.2.0``), so
version checks written for SacreBLEU pass.  ``bleustream.__version__``
stays bleustream's.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from bleustream.sacrebleu.version import __version__

if TYPE_CHECKING:
    from bleustream.sacrebleu.compat import (
        corpus_bleu,
        corpus_chrf,
        corpus_ter,
        raw_corpus_bleu,
        sentence_bleu,
        sentence_chrf,
        sentence_ter,
    )
    from bleustream.sacrebleu.dataset import DATASETS
    from bleustream.sacrebleu.metrics import BLEU, CHRF, TER
    from bleustream.sacrebleu.metrics.helpers import extract_char_ngrams, extract_word_ngrams
    from bleustream.sacrebleu.utils import (
        SACREBLEU_DIR,
        download_test_set,
        get_available_testsets,
        get_langpairs_for_testset,
        get_reference_files,
        get_source_file,
        smart_open,
    )

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

# The submodule each top-level name comes from, as in SacreBLEU's __init__.
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
        "compat",
    ),
    **dict.fromkeys(("BLEU", "CHRF", "TER"), "metrics"),
    **dict.fromkeys(("extract_char_ngrams", "extract_word_ngrams"), "metrics.helpers"),
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
        "utils",
    ),
    "DATASETS": "dataset",
}
# The submodules SacreBLEU's __init__ loads, as attributes.
_MODULES = ("compat", "dataset", "metrics", "tokenizers", "utils", "version")


def __getattr__(name: str) -> Any:
    if name in _SOURCES:
        value = getattr(importlib.import_module(f"{__name__}.{_SOURCES[name]}"), name)
    elif name in _MODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module 'sacrebleu' (bleustream) has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
