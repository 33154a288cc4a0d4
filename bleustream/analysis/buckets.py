"""Bucket edges: which bucket a value falls in, and the buckets' labels.

Edges are compare-mt's cutoffs: with edges ``e0 < e1 < ... < ek`` the
buckets are ``< e0``, ``[e0, e1)``, ..., ``>= ek`` (a bucket of whole
numbers one wide is shown as the number alone), so there is one bucket more
than there are edges.  The defaults are compare-mt 0.2.10's.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from bleustream.analysis.edges import (  # noqa: F401 (the buckets' defaults)
    FREQUENCY_EDGES,
    LENGTH_DIFF_EDGES,
    LENGTH_EDGES,
    SENTENCE_BLEU_EDGES,
    parse_edges,
)


@dataclass(frozen=True)
class Edges:
    """Cutoffs between buckets; ``whole`` when the values are whole numbers
    (lengths, frequencies), which names a one-wide bucket by its number."""

    cutoffs: tuple[float, ...]
    whole: bool = True

    def __post_init__(self) -> None:
        if not self.cutoffs:
            raise ValueError("buckets need at least one edge")

    def __len__(self) -> int:
        return len(self.cutoffs) + 1

    def index(self, value: float) -> int:
        """The bucket of a value: the first whose upper edge is above it."""
        return bisect_right(self.cutoffs, value)

    @property
    def labels(self) -> list[str]:
        """compare-mt's names of the buckets (``<10``, ``[10,20)``, ``3``, ``>=60``)."""
        cuts = self.cutoffs
        names = [f"<{_number(cuts[0])}"]
        for low, high in zip(cuts, cuts[1:]):
            if self.whole and high - 1 == low:
                names.append(_number(low))
            else:
                names.append(f"[{_number(low)},{_number(high)})")
        names.append(f">={_number(cuts[-1])}")
        return names

    def as_list(self) -> list[float]:
        return list(self.cutoffs)


def _number(value: float) -> str:
    return str(value)
