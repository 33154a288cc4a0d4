"""From text to statistics: preprocess, tokenize, count, accumulate.

``segment_counter`` turns settings into a function from one hypothesis and
its references (plain strings) to that segment's ``Stats``, doing what
SacreBLEU does to a segment: lowercase if asked, strip trailing white
space, tokenize, count.  ``StreamScorer`` keeps the running total.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Callable

from bleustream.bleu import BleuScore, Settings, compute_bleu
from bleustream.ngrams import segment_stats
from bleustream.stats import Stats
from bleustream.tokenizers import TOKENIZERS

SegmentCounter = Callable[[str, Sequence[str]], Stats]


def segment_counter(settings: Settings) -> SegmentCounter:
    """A function scoring one segment into its sufficient statistics."""
    tokenize = TOKENIZERS[settings.tokenize]
    max_order = settings.max_order

    if settings.lowercase:

        def prepare(text: str) -> list[str]:
            return tokenize(text.lower().rstrip())

    else:

        def prepare(text: str) -> list[str]:
            return tokenize(text.rstrip())

    def count(hyp: str, refs: Sequence[str]) -> Stats:
        if not refs:
            raise ValueError("a segment needs at least one reference")
        return segment_stats(prepare(hyp), [prepare(ref) for ref in refs], max_order)

    return count


def sentence_settings(settings: Settings) -> Settings:
    """Settings for sentence-level BLEU: effective order on, as in SacreBLEU."""
    return replace(settings, effective_order=True)


class StreamScorer:
    """Scores segments one at a time, keeping only their running sum."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.total = Stats.zero(settings.max_order)
        self._count = segment_counter(settings)

    def add(self, hyp: str, refs: Sequence[str]) -> Stats:
        """Adds one segment to the running total and returns its statistics."""
        stats = self._count(hyp, refs)
        # Rebinding (not +=) keeps the total whole if a signal handler
        # raises mid-update: it holds the segment entirely or not at all.
        self.total = self.total + stats
        return stats

    def score(self) -> BleuScore:
        """Corpus BLEU of everything added so far."""
        return compute_bleu(self.total, self.settings)
