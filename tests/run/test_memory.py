"""The scorer's memory does not grow with the input, for every metric.

The peak traced allocation while feeding 50,000 distinct segments must stay
within the peak for 2,000 (times 1.5, plus a small constant for the longest
segment seen).  Segments are generated lazily, one at a time, so that the
test measures the scorer, not the corpus.  Each registered metric is
measured alone, and all of them together.
"""

# ruff: noqa: RUF001, RUF100  (look-alike characters are the point of this test data)

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator, Sequence
from typing import Any, Callable

import pytest

from bleustream.metrics.protocol import Row
from bleustream.metrics.registry import METRICS, Spec
from bleustream.scorer import Scorer
from tests.helpers.adversarial import distinct_segments

# Builds every piece of lazily built tokenizer state before the measurement
# (for intl: the classes for the Basic Multilingual Plane and for the rest).
WARM_UP = "1, a. $ x-1 &amp; 中 𐀀 𝟘. «b» 2.5"
SLACK = 64 * 1024  # bytes: room for a longer segment than any in the short run
WARM_UP_SEGMENTS = 2_000

ScorerFactory = Callable[[Sequence[Spec]], Scorer]


def default_spec(name: str, **changes: Any) -> Spec:
    """A metric with its built-in default settings (and ``changes``)."""
    metric = METRICS[name]
    options = {option.dest: option.default for option in metric.OPTIONS}
    options.update(changes)
    return Spec(metric, metric.settings_from(options))


def largest_segment(n: int) -> tuple[str, list[str]]:
    """The segment of the first ``n`` with the most hypothesis x reference characters.

    Scoring one segment allocates and frees memory that grows with its
    text (TER's edit distance holds a table of hypothesis x reference
    words), so a run's peak follows the largest segment it meets.  Both runs
    start with the largest segment of the longer run: then only memory that
    grows with the number of segments tells them apart.
    """
    return max(distinct_segments(n, seed=3), key=lambda s: len(s[0]) * len(s[1][0]))


def _fill_free_lists() -> None:
    """Puts as many freed tuples (of each small size), lists, dicts and
    floats on CPython's free lists as they hold (2000 tuples of each size,
    80 lists and dicts, 100 floats in 3.11)."""
    held: list[Any] = []
    for size in range(1, 21):
        held += [tuple(range(i, i + size)) for i in range(2100)]
    held += [[i] for i in range(200)] + [{i: i} for i in range(200)]
    held += [float(i) + 0.5 for i in range(200)]
    del held


def traced_peak(
    make: ScorerFactory, specs: Sequence[Spec], n: int, largest: tuple[str, list[str]]
) -> int:
    """Peak traced memory (bytes above the start) while scoring ``n`` segments."""
    scorer = make(specs)
    scorer.add((WARM_UP,), [WARM_UP])
    segments: Iterator[tuple[str, list[str]]] = distinct_segments(n, seed=3)
    next(segments)  # the generator's fixed pool is built outside the measurement
    gc.collect()  # (which also empties CPython's free lists)
    tracemalloc.start()
    try:
        # CPython keeps freed tuples, floats and frames on free lists of
        # bounded size, and tracemalloc counts what lies there.  They are
        # filled first, to the brim, and scoring some segments under tracing
        # fills the rest, so that neither run is measured filling them (how
        # far a run fills them depends on what else it allocates: the C
        # kernels allocate few Python objects).
        _fill_free_lists()
        for hyp, refs in distinct_segments(WARM_UP_SEGMENTS, seed=4):
            scorer.count((hyp,), refs)
        scorer.count((largest[0],), largest[1])
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        scorer.add((largest[0],), largest[1])
        for hyp, refs in segments:
            scorer.add((hyp,), refs)
        scorer.scores()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert scorer.segments == n + 1
    return peak - base


SPEC_SETS = {
    **{name: (lambda name=name: [default_spec(name)]) for name in METRICS},
    "all": lambda: [default_spec(name) for name in METRICS],
}


@pytest.mark.parametrize("which", list(SPEC_SETS))
@pytest.mark.slow
def test_peak_memory_does_not_grow(which: str) -> None:
    specs = SPEC_SETS[which]()
    # TER's edit distance is quadratic in segment length: fewer segments.
    short, long = (500, 8_000) if "ter" in METRICS and which in ("ter", "all") else (1_000, 20_000)
    largest = largest_segment(long)
    peak_short = traced_peak(Scorer, specs, short, largest)
    peak_long = traced_peak(Scorer, specs, long, largest)
    assert peak_long < peak_short * 1.5 + SLACK, (peak_short, peak_long)


class _HoardingScorer(Scorer):
    """A scorer that keeps every segment's statistics: what the test must catch."""

    def __init__(self, specs: Sequence[Spec]) -> None:
        super().__init__(specs)
        self.kept: list[list[tuple[Row, ...]]] = []

    def add(self, hyps: Sequence[str], refs: Sequence[str]) -> list[tuple[Row, ...]]:
        rows = super().add(hyps, refs)
        self.kept.append(rows)
        return rows


@pytest.mark.slow
def test_the_measurement_catches_growth() -> None:
    """The same measurement fails a scorer whose memory grows with the input."""
    specs = [default_spec("bleu", tokenize="none")]
    largest = largest_segment(5_000)
    peak_short = traced_peak(_HoardingScorer, specs, 500, largest)
    peak_long = traced_peak(_HoardingScorer, specs, 5_000, largest)
    assert not peak_long < peak_short * 1.5 + SLACK, (peak_short, peak_long)


def test_distinct_segments_are_lazy_and_distinct() -> None:
    segments = distinct_segments(5_000, seed=3)
    assert isinstance(segments, Iterator)
    hyps = {hyp for hyp, _ in segments}
    assert len(hyps) == 5_000
