"""SacreBLEU's ``compat``: its functions that score in one call
(``corpus_bleu``, ``sentence_bleu``, ``corpus_chrf``...), which are
bleustream's (``bleustream.api``), under the module name SacreBLEU gives them."""

from __future__ import annotations

from bleustream.api import (
    BLEU,
    CHRF,
    TER,
    BLEUScore,
    CHRFScore,
    TERScore,
    corpus_bleu,
    corpus_chrf,
    corpus_ter,
    raw_corpus_bleu,
    sentence_bleu,
    sentence_chrf,
    sentence_ter,
)

__all__ = [
    "BLEU",
    "CHRF",
    "TER",
    "BLEUScore",
    "CHRFScore",
    "TERScore",
    "corpus_bleu",
    "corpus_chrf",
    "corpus_ter",
    "raw_corpus_bleu",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_ter",
]
