"""N-gram differences: the n-grams one system matches in the reference more
often than another, ranked as compare-mt ranks them.

Per segment, an n-gram of the hypothesis matches as often as the reference
(the first, with several) has it: ``min(hypothesis count, reference
count)``, orders ``low`` to ``high``.  Two systems' summed match counts
``a`` and ``b`` of an n-gram give its score ``(a + alpha) / (a + b + 2 *
alpha)``: near 1 the first system matches it far more often, near 0 the
second.  Ties in score are broken by more matches in all, then by the
n-gram's text, so the list is the same however the input was split.

What is kept: a number and one count per system for each distinct n-gram
matched at least once, so memory follows the matched n-grams, not the
segments.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from bleustream.analysis.numbering import merge_into, number_of
from bleustream.kernels import native

Ngram = tuple[str, ...]


def ngrams_of(words: Sequence[str], n: int) -> Counter[Ngram]:
    """Every n-gram of order ``n`` with its count, in the order they first occur."""
    return Counter(zip(*[words[i:] for i in range(n)]))


def py_add_ngram_matches(
    ref: Sequence[str],
    hyps: Sequence[Sequence[str]],
    low: int,
    high: int,
    systems: int,
    ids: dict[Ngram, int],
    grams: list[Ngram],
    counts: list[int],
) -> None:
    """One segment's matched n-grams added, for the first ``systems``
    hypotheses: each n-gram of orders ``low`` to ``high`` found in both a
    hypothesis and the reference adds the fewer of its two counts.

    An n-gram has a number (``ids``; ``grams`` by number, a new one
    appended, order by order, system by system, as n-grams first occur) and
    ``systems`` numbers in ``counts`` from ``number * systems`` on, so a
    matched n-gram costs one lookup however many systems match it."""
    if not 1 <= low <= high:
        raise ValueError(f"n-gram orders must be 1 <= low <= high, not {low}..{high}")
    if len(hyps) < systems:
        raise ValueError(f"{len(hyps)} hypotheses for {systems} systems")
    for n in range(low, high + 1):
        ref_counts = ngrams_of(ref, n)
        for s, hyp in enumerate(hyps[:systems]):
            for gram, count in ngrams_of(hyp, n).items():
                if gram not in ref_counts:
                    continue
                number = number_of(ids, grams, counts, systems, gram)
                counts[number * systems + s] += min(count, ref_counts[gram])


class NgramMatches:
    """Summed matches of every n-gram, per system: an n-gram's number
    (``ids``, ``grams``) and ``systems`` counts from ``number * systems``."""

    def __init__(self, systems: int, low: int = 1, high: int = 4) -> None:
        if not 1 <= low <= high:
            raise ValueError(f"n-gram orders must be 1 <= low <= high, not {low}..{high}")
        self.low, self.high = low, high
        self.systems = systems
        self.ids: dict[Ngram, int] = {}
        self.grams: list[Ngram] = []
        self.counts: list[int] = []

    def add(self, ref: Sequence[str], hyps: Sequence[Sequence[str]]) -> None:
        add_ngram_matches(
            ref, hyps, self.low, self.high, self.systems, self.ids, self.grams, self.counts
        )

    def merge(self, other: NgramMatches) -> None:
        merge_into(self.ids, self.grams, self.counts, self.systems, other.grams, other.counts)

    def per_system(self) -> list[dict[Ngram, int]]:
        """Per system, each n-gram it matched with its count."""
        width, counts = self.systems, self.counts
        return [
            {g: counts[i * width + s] for i, g in enumerate(self.grams) if counts[i * width + s]}
            for s in range(width)
        ]

    def load(self, per_system: Sequence[Iterable[tuple[Ngram, int]]]) -> None:
        """Counts as ``per_system`` gives them, added."""
        for s, kept in enumerate(per_system):
            for gram, count in kept:
                number = number_of(self.ids, self.grams, self.counts, self.systems, gram)
                self.counts[number * self.systems + s] += count

    def differences(
        self, left: int, right: int, alpha: float, top: int
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The ``top`` n-grams ``left`` matches most more often than ``right``,
        and the ``top`` the other way, each with its score and both counts."""
        width, counts = self.systems, self.counts
        ranked = []
        for i, gram in enumerate(self.grams):
            x, y = counts[i * width + left], counts[i * width + right]
            if x or y:
                ranked.append(((x + alpha) / (x + y + 2 * alpha), x + y, " ".join(gram), x, y))
        better = heapq.nsmallest(top, ranked, key=lambda r: (-r[0], -r[1], r[2]))
        worse = heapq.nsmallest(top, ranked, key=lambda r: (r[0], -r[1], r[2]))
        return [_entry(r) for r in better], [_entry(r) for r in worse]


def _entry(ranked: tuple[float, int, str, int, int]) -> dict[str, Any]:
    score, _, text, x, y = ranked
    return {"ngram": text, "score": score, "baseline": x, "system": y}


# The compiled twin where the C kernels were built (bleustream.kernels).
c_add_ngram_matches = None if native is None else native.add_ngram_matches
add_ngram_matches: Any = c_add_ngram_matches or py_add_ngram_matches
