"""bleustream: streaming MT evaluation whose numbers are SacreBLEU's.

The command line is ``bleustream``; from Python, the same scorer::

    import bleustream
    bleustream.corpus_bleu(hyps, [refs]).score
    scorer = bleustream.Scorer([bleustream.spec("bleu"), bleustream.spec("chrf")])
    scorer.update(hyps, [refs])
    scorer.score()

``KERNELS`` says which kernels count n-grams in this process: ``"compiled"``
(the C extension) or ``"python"`` (no extension, or ``BLEUSTREAM_PUREPYTHON=1``);
the numbers are the same either way.
"""

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
    sentence_scores,
    sentence_ter,
    spec,
)
from bleustream.kernels import KERNELS

__all__ = [
    "KERNELS",
    "Score",
    "Scorer",
    "Totals",
    "__version__",
    "corpus_bleu",
    "corpus_chrf",
    "corpus_ter",
    "scores",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_scores",
    "sentence_ter",
    "spec",
]
