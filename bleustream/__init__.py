"""bleustream: streaming MT evaluation whose numbers are SacreBLEU's.

The command line is ``bleustream``; from Python, SacreBLEU's API under
SacreBLEU's names (``bleustream.sacrebleu``, laid out as SacreBLEU's tree:
``bleustream.sacrebleu.metrics.bleu``...; ``bleustream.compat`` too), and
the same scorer the command line runs::

    import bleustream
    bleustream.corpus_bleu(hyps, [refs]).score
    bleustream.CHRF(word_order=2).corpus_score(hyps, [refs])
    scorer = bleustream.Scorer("bleu", bleustream.spec("chrf", word_order=2))
    scorer.update(hyps, [refs])
    scorer.score()

``bleustream.install_as_sacrebleu()`` registers these modules under
SacreBLEU's names, so that code (and libraries) that ``import sacrebleu``
score with bleustream; ``python -m bleustream.dropin script.py`` does so for
a whole process (``bleustream.dropin``).

On a cluster, ``bleustream.engines`` splits a run into tasks for Dask, Ray or
Spark (see ``examples/``); ``evaluate_module_path()`` is the Hugging Face
``evaluate`` module: ``evaluate.load(bleustream.evaluate_module_path(), "bleu")``.
In a training loop, ``bleustream.rewards`` has the reward functions TRL's
trainers and verl take (``rewards.bleu``, ``rewards.chrf``, ``rewards.ter``).

``KERNELS`` says which kernels count n-grams in this process: ``"compiled"``
(the C extension) or ``"python"`` (no extension, or ``BLEUSTREAM_PUREPYTHON=1``);
the numbers are the same either way.
"""

from typing import TYPE_CHECKING, Any

from bleustream._version import __version__
from bleustream.kernels import KERNELS

if TYPE_CHECKING:
    from bleustream import (
        compat,
        dataset,
        engines,
        metrics,
        rewards,
        significance,
        tokenizers,
        utils,
        version,
    )
    from bleustream.analysis import analyze
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
    from bleustream.dropin import install_as_sacrebleu
    from bleustream.hf import evaluate_module_path
    from bleustream.sacrebleu.metrics.helpers import extract_char_ngrams, extract_word_ngrams
    from bleustream.sacrebleu.utils import SACREBLEU_DIR, smart_open

__all__ = [
    "BLEU",
    "CHRF",
    "KERNELS",
    "SACREBLEU_DIR",
    "TER",
    "Score",
    "Scorer",
    "Totals",
    "__version__",
    "analyze",
    "compat",
    "corpus_bleu",
    "corpus_chrf",
    "corpus_ter",
    "dataset",
    "engines",
    "evaluate_module_path",
    "extract_char_ngrams",
    "extract_word_ngrams",
    "install_as_sacrebleu",
    "metrics",
    "raw_corpus_bleu",
    "rewards",
    "scores",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_scores",
    "sentence_ter",
    "significance",
    "smart_open",
    "spec",
    "token_bleu",
    "tokenizers",
    "utils",
    "version",
]


# The public names, each loaded when first used (PEP 562), so that the command
# line, which imports this package first, loads only what a run needs.
# Modules, loaded as attributes (``bleustream.metrics.BLEU``).
_MODULES = frozenset({"engines", "metrics", "rewards", "significance", "tokenizers"})
# SacreBLEU's modules of the same names, as attributes (``bleustream.compat.sentence_bleu``).
_SACREBLEU_MODULES = frozenset({"compat", "dataset", "utils", "version"})
# SacreBLEU's other top-level names, from the module of the same role.
_ELSEWHERE = {
    "SACREBLEU_DIR": "bleustream.sacrebleu.utils",
    "smart_open": "bleustream.sacrebleu.utils",
    "extract_char_ngrams": "bleustream.sacrebleu.metrics.helpers",
    "extract_word_ngrams": "bleustream.sacrebleu.metrics.helpers",
    "install_as_sacrebleu": "bleustream.dropin",
    "evaluate_module_path": "bleustream.hf",
    "analyze": "bleustream.analysis",
}
_API = frozenset(__all__) - {"KERNELS", "__version__"} - _MODULES - _SACREBLEU_MODULES
_API -= set(_ELSEWHERE)


# SacreBLEU's test-set functions, which its package also gives at the top
# (``bleustream.sacrebleu.utils``; the testsets extra), and its ``DATASETS``.
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
        from bleustream.sacrebleu import utils

        value = getattr(utils, name)
    elif name == "DATASETS":
        from bleustream.sacrebleu.dataset import registry

        value = registry()[0].DATASETS
    elif name in _API:
        from bleustream import api

        value = getattr(api, name)
    elif name in _MODULES:
        import importlib

        value = importlib.import_module(f"bleustream.{name}")
    elif name in _SACREBLEU_MODULES:
        import importlib

        value = importlib.import_module(f"bleustream.sacrebleu.{name}")
    elif name in _ELSEWHERE:
        import importlib

        value = getattr(importlib.import_module(_ELSEWHERE[name]), name)
    else:
        raise AttributeError(f"module 'bleustream' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
