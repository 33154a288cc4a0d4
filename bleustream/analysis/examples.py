"""Sentence examples: the k segments where a system's sentence score differs
most from the baseline's, each way.

Two bounded heaps per compared system hold the k largest and the k
smallest differences (system minus baseline) seen so far, with the
segment's texts; nothing else per segment is kept.  Ties are broken by the
earlier segment, so the choice does not depend on how the input was split.
A segment whose baseline, system and reference texts equal those of one
already held is not held twice.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(order=True)
class Example:
    """One segment's sentence scores and texts (ordered by ``key`` only)."""

    key: tuple[float, int]
    difference: float = field(compare=False)
    index: int = field(compare=False)
    line: int = field(compare=False)
    baseline_score: float = field(compare=False)
    system_score: float = field(compare=False)
    texts: tuple[str | None, str, str, str] = field(compare=False)  # src, ref, baseline, system

    def as_dict(self) -> dict[str, Any]:
        src, ref, base, system = self.texts
        return {
            "segment": self.index + 1,
            "difference": self.difference,
            "baseline_score": self.baseline_score,
            "system_score": self.system_score,
            "source": src,
            "reference": ref,
            "baseline": base,
            "system": system,
        }


class TopExamples:
    """The k most positive and k most negative differences of one system."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.better: list[Example] = []  # min-heap on (difference, -index)
        self.worse: list[Example] = []  # min-heap on (-difference, -index)

    def add(
        self,
        index: int,
        line: int,
        scores: tuple[float, float],
        texts: tuple[str | None, str, str, str],
    ) -> None:
        if self.k <= 0:
            return
        base, system = scores
        diff = system - base
        for heap, key in ((self.better, (diff, -index)), (self.worse, (-diff, -index))):
            if len(heap) == self.k and key <= heap[0].key:
                continue
            if any(e.texts[1:] == texts[1:] for e in heap):
                continue
            example = Example(key, diff, index, line, base, system, texts)
            if len(heap) < self.k:
                heapq.heappush(heap, example)
            else:
                heapq.heapreplace(heap, example)

    def merge(self, other: TopExamples, shift: int = 0) -> None:
        """Adds another part's examples (its segments numbered ``shift`` later)."""
        for example in sorted([*other.better, *other.worse], key=lambda e: e.index):
            self.add(
                example.index + shift,
                example.line,
                (example.baseline_score, example.system_score),
                example.texts,
            )

    def listed(self) -> dict[str, list[dict[str, Any]]]:
        return {
            "better": [e.as_dict() for e in sorted(self.better, reverse=True)],
            "worse": [e.as_dict() for e in sorted(self.worse, reverse=True)],
        }


def differing_words(a: Sequence[str], b: Sequence[str]) -> tuple[list[bool], list[bool]]:
    """Which words of ``a`` and of ``b`` are outside their longest common
    subsequence (difflib's matching blocks): the words to mark."""
    import difflib

    marks_a, marks_b = [True] * len(a), [True] * len(b)
    for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for j in range(block.size):
            marks_a[block.a + j] = False
            marks_b[block.b + j] = False
    return marks_a, marks_b
