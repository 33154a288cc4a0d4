"""N-gram differences: the n-grams one system matches in the reference more
often than another, ranked as compare-mt ranks them.

Per segment, an n-gram of the hypothesis matches as often as the reference
(the first, with several) has it: ``min(hypothesis count, reference
count)``, orders ``low`` to ``high``.  Two systems' summed match counts
``a`` and ``b`` of an n-gram give its score ``(a + alpha) / (a + b + 2 *
alpha)``: near 1 the first system matches it far more often, near 0 the
second.  Ties in score are broken by more matches in all, then by the
n-gram's text, so the list is the same however the input was split.

What is kept: one count per system for each distinct n-gram matched at
least once, so memory follows the matched n-grams, not the segments.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Sequence
from typing import Any

from bleustream.kernels import native

Ngram = tuple[str, ...]


def ngrams_of(words: Sequence[str], low: int, high: int) -> Counter[Ngram]:
    """Every n-gram of orders ``low`` to ``high`` with its count."""
    counts: Counter[Ngram] = Counter()
    for n in range(low, high + 1):
        counts.update(zip(*[words[i:] for i in range(n)]))
    return counts


def py_add_ngram_matches(
    ref: Sequence[str],
    hyps: Sequence[Sequence[str]],
    low: int,
    high: int,
    kept: Sequence[dict[Ngram, int]],
) -> None:
    """One segment's matched n-grams added: per system (as many as ``kept``
    has), each n-gram of orders ``low`` to ``high`` found in both its
    hypothesis and the reference adds the fewer of its two counts."""
    if not 1 <= low <= high:
        raise ValueError(f"n-gram orders must be 1 <= low <= high, not {low}..{high}")
    ref_counts = ngrams_of(ref, low, high)
    for matches, hyp in zip(kept, hyps):
        for gram, count in ngrams_of(hyp, low, high).items():
            if gram in ref_counts:
                matches[gram] = matches.get(gram, 0) + min(count, ref_counts[gram])


class NgramMatches:
    """Summed matches of every n-gram, per system."""

    def __init__(self, systems: int, low: int = 1, high: int = 4) -> None:
        if not 1 <= low <= high:
            raise ValueError(f"n-gram orders must be 1 <= low <= high, not {low}..{high}")
        self.low, self.high = low, high
        self.matches: list[Counter[Ngram]] = [Counter() for _ in range(systems)]

    def add(self, ref: Sequence[str], hyps: Sequence[Sequence[str]]) -> None:
        add_ngram_matches(ref, hyps, self.low, self.high, self.matches)

    def merge(self, other: NgramMatches) -> None:
        for mine, theirs in zip(self.matches, other.matches):
            mine.update(theirs)

    def differences(
        self, left: int, right: int, alpha: float, top: int
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The ``top`` n-grams ``left`` matches most more often than ``right``,
        and the ``top`` the other way, each with its score and both counts."""
        a, b = self.matches[left], self.matches[right]
        ranked = []
        for gram in a.keys() | b.keys():
            x, y = a.get(gram, 0), b.get(gram, 0)
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
