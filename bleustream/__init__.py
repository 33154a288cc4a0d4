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
"""

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
    sentence_ter,
    spec,
)

__all__ = [
    "BLEU",
    "CHRF",
    "TER",
    "Score",
    "Scorer",
    "Totals",
    "__version__",
    "corpus_bleu",
    "corpus_chrf",
    "corpus_ter",
    "metrics",
    "raw_corpus_bleu",
    "scores",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_ter",
    "spec",
]
