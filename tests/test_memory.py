"""StreamScorer's memory does not grow with the input.

The peak traced allocation while feeding 50,000 distinct segments must stay
within the peak for 2,000 (times 1.5, plus a small constant for the longest
segment seen).  Segments are generated lazily, one at a time, so that the
test measures the scorer, not the corpus.
"""

# ruff: noqa: RUF001, RUF100  (look-alike characters are the point of this test data)

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator
from typing import Callable

from bleustream.bleu import Settings
from bleustream.scorer import StreamScorer
from bleustream.stats import Stats
from tests.adversarial import distinct_segments

# Builds every piece of lazily built tokenizer state before the measurement
# (for intl: the classes for the Basic Multilingual Plane and for the rest).
WARM_UP = "1, a. $ x-1 &amp; 中 𐀀 𝟘. «b» 2.5"
SLACK = 64 * 1024  # bytes: room for a longer segment than any in the short run

ScorerFactory = Callable[[Settings], StreamScorer]


def traced_peak(make: ScorerFactory, tokenize: str, n: int) -> int:
    """Peak traced memory (bytes above the start) while scoring ``n`` segments."""
    scorer = make(Settings(tokenize))
    scorer.add(WARM_UP, [WARM_UP])
    segments: Iterator[tuple[str, list[str]]] = distinct_segments(n, seed=3)
    first = next(segments)  # the generator's fixed pool is built outside the measurement
    gc.collect()
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        scorer.add(*first)
        for hyp, refs in segments:
            scorer.add(hyp, refs)
        scorer.score()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert scorer.total.segments == n + 1
    return peak - base


def test_peak_memory_does_not_grow() -> None:
    peak_short = traced_peak(StreamScorer, "13a", 2_000)
    peak_long = traced_peak(StreamScorer, "13a", 50_000)
    assert peak_long < peak_short * 1.5 + SLACK, (peak_short, peak_long)


class _HoardingScorer(StreamScorer):
    """A scorer that keeps every segment's statistics: what the test must catch."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.kept: list[Stats] = []

    def add(self, hyp: str, refs: list[str]) -> Stats:  # type: ignore[override]
        stats = super().add(hyp, refs)
        self.kept.append(stats)
        return stats


def test_the_measurement_catches_growth() -> None:
    """The same measurement fails a scorer whose memory grows with the input."""
    peak_short = traced_peak(_HoardingScorer, "none", 500)
    peak_long = traced_peak(_HoardingScorer, "none", 5_000)
    assert not peak_long < peak_short * 1.5 + SLACK, (peak_short, peak_long)


def test_distinct_segments_are_lazy_and_distinct() -> None:
    segments = distinct_segments(5_000, seed=3)
    assert isinstance(segments, Iterator)
    hyps = {hyp for hyp, _ in segments}
    assert len(hyps) == 5_000
