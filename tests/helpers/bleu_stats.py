"""BLEU's statistics with names, for the tests: a value type that adds, and
the functions that read and score it.

The package keeps statistics as flat rows (``bleustream.metrics.protocol.Row``);
the tests that work BLEU by hand, or compare it with SacreBLEU's
``compute_bleu``, read better with the numbers named.  ``compute_bleu``
scores through the package's own ``bleu_of_row``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bleustream.metrics.bleu import DEFAULT_SETTINGS, BleuResult, Settings, bleu_of_row
from bleustream.metrics.ngrams import segment_row


@dataclass
class Stats:
    """Sufficient statistics for BLEU over some number of segments."""

    hyp_len: int = 0
    ref_len: int = 0
    matches: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    segments: int = 0

    @classmethod
    def zero(cls, max_order: int) -> Stats:
        """The statistics of no segments, for n-grams up to ``max_order``."""
        return cls(0, 0, [0] * max_order, [0] * max_order, 0)

    @property
    def max_order(self) -> int:
        return len(self.totals)

    def _check(self, other: Stats) -> None:
        if len(self.totals) != len(other.totals):
            raise ValueError(
                f"cannot add statistics of max n-gram order {len(self.totals)} "
                f"and {len(other.totals)}"
            )

    def __add__(self, other: Stats) -> Stats:
        if not isinstance(other, Stats):
            return NotImplemented
        self._check(other)
        return Stats(
            self.hyp_len + other.hyp_len,
            self.ref_len + other.ref_len,
            [a + b for a, b in zip(self.matches, other.matches)],
            [a + b for a, b in zip(self.totals, other.totals)],
            self.segments + other.segments,
        )

    def __iadd__(self, other: Stats) -> Stats:
        if not isinstance(other, Stats):
            return NotImplemented
        self._check(other)
        self.hyp_len += other.hyp_len
        self.ref_len += other.ref_len
        matches, totals = self.matches, self.totals
        for i, (m, t) in enumerate(zip(other.matches, other.totals)):
            matches[i] += m
            totals[i] += t
        self.segments += other.segments
        return self

    def row(self) -> tuple[int, ...]:
        """SacreBLEU's per-segment layout: ``(hyp_len, ref_len, *matches, *totals)``."""
        return (self.hyp_len, self.ref_len, *self.matches, *self.totals)

    @classmethod
    def from_row(cls, row: Sequence[Any], segments: int = 0) -> Stats:
        """The statistics of a row in SacreBLEU's layout (see ``row``)."""
        order = (len(row) - 2) // 2
        return cls(row[0], row[1], list(row[2 : 2 + order]), list(row[2 + order :]), segments)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping; ``Stats.from_dict`` reads it back."""
        return {
            "hyp_len": self.hyp_len,
            "ref_len": self.ref_len,
            "counts": list(self.matches),
            "totals": list(self.totals),
            "segments": self.segments,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Stats:
        return cls(
            int(data["hyp_len"]),
            int(data["ref_len"]),
            [int(x) for x in data["counts"]],
            [int(x) for x in data["totals"]],
            int(data.get("segments", 0)),
        )


def compute_bleu(stats: Stats, settings: Settings = DEFAULT_SETTINGS) -> BleuResult:
    """Corpus (or sentence) BLEU from summed statistics."""
    return bleu_of_row(stats.row(), settings)


def segment_stats(hyp: list[str], refs: Sequence[list[str]], max_order: int) -> Stats:
    """The sufficient statistics of one tokenized segment."""
    return Stats.from_row(segment_row(hyp, refs, max_order), 1)
