"""bleustream: streaming MT evaluation whose numbers are SacreBLEU's.

The command line is ``bleustream``; from Python, the same scorer::

    import bleustream
    bleustream.corpus_bleu(hyps, [refs]).score
    scorer = bleustream.Scorer([bleustream.spec("bleu"), bleustream.spec("chrf")])
    scorer.update(hyps, [refs])
    scorer.score()
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
    sentence_ter,
    spec,
)

__all__ = [
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
    "sentence_ter",
    "spec",
]
