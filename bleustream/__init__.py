"""bleustream: streaming MT evaluation whose numbers are SacreBLEU's.

The command line is ``bleustream``; from Python, SacreBLEU's API (``import
bleustream as sacrebleu`` runs SacreBLEU's own API tests), and the same
scorer the command line runs::

    import bleustream
    bleustream.corpus_bleu(hyps, [refs]).score
    bleustream.CHRF(word_order=2).corpus_score(hyps, [refs])
    scorer = bleustream.Scorer("bleu", bleustream.spec("chrf", word_order=2))
    scorer.update(hyps, [refs])
    scorer.score()

On a cluster, ``bleustream.engines`` splits a run into tasks for Dask, Ray or
Spark (see ``examples/``); ``evaluate_module_path()`` is the Hugging Face
``evaluate`` module: ``evaluate.load(bleustream.evaluate_module_path(), "bleu")``.

``KERNELS`` says which kernels count n-grams in this process: ``"compiled"``
(the C extension) or ``"python"`` (no extension, or ``BLEUSTREAM_PUREPYTHON=1``);
the numbers are the same either way.
"""

from typing import TYPE_CHECKING, Any

from bleustream._version import __version__
from bleustream.kernels import KERNELS

if TYPE_CHECKING:
    from bleustream import engines, metrics
    from bleustream.api import (
        BLEU,
        CHRF,
        TER,
        Score,
        Scorer,
        Totals,
        corpus_bleu,
        corpus_chrf,
        corpus_ter,
        raw_corpus_bleu,
        scores,
        sentence_bleu,
        sentence_chrf,
        sentence_scores,
        sentence_ter,
        spec,
        token_bleu,
    )
    from bleustream.hf import evaluate_module_path

__all__ = [
    "BLEU",
    "CHRF",
    "KERNELS",
    "TER",
    "Score",
    "Scorer",
    "Totals",
    "__version__",
    "corpus_bleu",
    "corpus_chrf",
    "corpus_ter",
    "engines",
    "evaluate_module_path",
    "metrics",
    "raw_corpus_bleu",
    "scores",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_scores",
    "sentence_ter",
    "spec",
    "token_bleu",
]


# The public names, each loaded when first used (PEP 562), so that the command
# line, which imports this package first, loads only what a run needs.
_API = frozenset(__all__) - {"KERNELS", "__version__", "engines", "evaluate_module_path", "metrics"}


# SacreBLEU's test-set functions, which its package also gives at the top
# (``bleustream.utils``; the testsets extra), and its ``DATASETS``.
_TEST_SETS = frozenset(
    {
        "download_test_set",
        "get_available_testsets",
        "get_available_testsets_for_langpair",
        "get_langpairs_for_testset",
        "get_reference_files",
        "get_source_file",
    }
)


def __getattr__(name: str) -> Any:
    if name in _TEST_SETS:
        from bleustream import utils

        value = getattr(utils, name)
    elif name == "DATASETS":
        from bleustream.dataset import registry

        value = registry()[0].DATASETS
    elif name in _API:
        from bleustream import api

        value = getattr(api, name)
    elif name in ("engines", "metrics"):
        import importlib

        value = importlib.import_module(f"bleustream.{name}")
    elif name == "evaluate_module_path":
        from bleustream.hf import evaluate_module_path as value
    else:
        raise AttributeError(f"module 'bleustream' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
