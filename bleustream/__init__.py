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

from typing import Any

from bleustream import metrics
from bleustream._version import __version__
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
)
from bleustream.kernels import KERNELS

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
]


def __getattr__(name: str) -> Any:
    # Loaded when first used: the engines' module reads argv with the command's
    # options, and neither is needed by the command line.
    if name == "engines":
        import bleustream.engines

        return bleustream.engines
    if name == "evaluate_module_path":
        from bleustream.hf import evaluate_module_path

        return evaluate_module_path
    raise AttributeError(f"module 'bleustream' has no attribute {name!r}")
