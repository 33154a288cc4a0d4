"""bleustream: streaming MT evaluation whose numbers are SacreBLEU's.

The command line is ``bleustream``; from Python, the same scorer::

    import bleustream
    bleustream.corpus_bleu(hyps, [refs]).score
    scorer = bleustream.Scorer([bleustream.spec("bleu"), bleustream.spec("chrf")])
    scorer.update(hyps, [refs])
    scorer.score()

On a cluster, ``bleustream.engines`` splits a run into tasks for Dask, Ray or
Spark (see ``examples/``); ``evaluate_module_path()`` is the Hugging Face
``evaluate`` module: ``evaluate.load(bleustream.evaluate_module_path(), "bleu")``.
"""

from typing import Any

from bleustream._version import __version__
from bleustream.api import (
    Score,
    Scorer,
    Totals,
    corpus_bleu,
    corpus_chrf,
    corpus_ter,
    scores,
    sentence_bleu,
    sentence_chrf,
    sentence_ter,
    spec,
)
from bleustream.hf import evaluate_module_path

__all__ = [
    "Score",
    "Scorer",
    "Totals",
    "__version__",
    "corpus_bleu",
    "corpus_chrf",
    "corpus_ter",
    "engines",
    "evaluate_module_path",
    "scores",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_ter",
    "spec",
]


def __getattr__(name: str) -> Any:
    # The engines' module reads argv with the command's options: loaded when used.
    if name == "engines":
        import bleustream.engines

        return bleustream.engines
    raise AttributeError(f"module 'bleustream' has no attribute {name!r}")
