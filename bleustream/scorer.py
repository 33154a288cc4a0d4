"""From text to statistics: segments in, running sums of every metric's statistics out.

A ``Scorer`` scores one or more systems against the same references with
one or more metrics.  Each segment's references are prepared once per
metric (tokenized, their n-grams counted) and shared by every system; each
system's hypothesis is then counted against them, and the segment's rows
are added into that system's running ``Totals``.  Nothing per segment is
kept: memory stays flat however long the stream runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bleustream.metrics.counting import Counter, Rows, Summed, Totals, sum_rows, zero_totals
from bleustream.metrics.protocol import Row, add_rows
from bleustream.metrics.registry import Spec

__all__ = ["Rows", "Scorer", "Summed", "Totals", "sum_rows", "zero_totals"]


class Scorer:
    """Scores segments one at a time, keeping only each system's running sums."""

    def __init__(self, specs: Sequence[Spec], systems: int = 1) -> None:
        self.counter = Counter(specs, systems)
        self.specs = self.counter.specs
        self.totals: tuple[Totals, ...] = tuple(zero_totals(self.specs) for _ in range(systems))

    @property
    def systems(self) -> int:
        return len(self.totals)

    @property
    def segments(self) -> int:
        """Segments added so far (the same for every system)."""
        return self.totals[0].segments

    def count(self, hyps: Sequence[str], refs: Sequence[str]) -> list[tuple[Row, ...]]:
        """One segment's rows, per system and then per metric, without adding them.

        A pure function of the segment: the part of the work that worker
        processes can share.
        """
        return self.counter.count(hyps, refs)

    def accumulate(self, rows: Sequence[Sequence[Row]], segments: int = 1) -> None:
        """Adds rows (per system, per metric) covering ``segments`` segments."""
        # One rebinding (not in-place updates) keeps the totals whole if a
        # signal handler raises mid-update: they hold the rows entirely or
        # not at all.
        totals = []
        for total, row in zip(self.totals, rows):
            totals.append(Totals(tuple(map(add_rows, total.rows, row)), total.segments + segments))
        self.totals = tuple(totals)

    def accumulate_parts(self, parts: Sequence[Sequence[tuple[str, Any]]], segments: int) -> None:
        """Adds a batch summed elsewhere: per system and metric, ``("sum", row)``
        or ``("rows", rows)`` (added one by one, as ``accumulate`` would)."""
        totals = []
        for total, system_parts in zip(self.totals, parts):
            rows = []
            for row, (kind, value) in zip(total.rows, system_parts):
                if kind == "sum":
                    row = add_rows(row, value)
                else:
                    for one in value:
                        row = add_rows(row, one)
                rows.append(row)
            totals.append(Totals(tuple(rows), total.segments + segments))
        self.totals = tuple(totals)

    def add(self, hyps: Sequence[str], refs: Sequence[str]) -> list[tuple[Row, ...]]:
        """Adds one segment: each system's hypothesis against the shared references.

        Returns the segment's rows, per system and then per metric.
        """
        rows = self.count(hyps, refs)
        self.accumulate(rows)
        return rows

    def update(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> None:
        """Adds a batch of segments of one system, references in SacreBLEU's layout.

        ``refs`` holds one stream per reference: ``refs[j][i]`` is the
        ``j``-th reference of the ``i``-th hypothesis.  A reference that is
        ``None`` is left out of its segment, as SacreBLEU allows for a
        varying number of references.
        """
        if self.systems != 1:
            raise ValueError("update() scores one system; use add() for several")
        for j, stream in enumerate(refs):
            if len(stream) != len(hyps):
                raise ValueError(
                    f"reference stream {j} has {len(stream)} segments, the hypotheses {len(hyps)}"
                )
        for i, hyp in enumerate(hyps):
            self.add((hyp,), [stream[i] for stream in refs if stream[i] is not None])

    @property
    def stats(self) -> Totals:
        """The summed statistics of the first (or only) system: they pickle and add."""
        return self.totals[0]

    def merge(self, totals: Totals, system: int = 0) -> None:
        """Adds statistics computed elsewhere (another shard, process or machine)."""
        merged = list(self.totals)
        merged[system] = merged[system] + totals
        self.totals = tuple(merged)

    def score(self) -> list[Any]:
        """Each metric's score of everything added so far (first system)."""
        return self.scores(0)

    def scores(self, system: int = 0) -> list[Any]:
        """Each metric's score of everything a system has had so far."""
        return [spec.score(row) for spec, row in zip(self.specs, self.totals[system].rows)]

    def sentence_scores(self, rows: Sequence[Row]) -> list[Any]:
        """Each metric's sentence score of one segment's rows (one system)."""
        return [spec.sentence_score(row) for spec, row in zip(self.specs, rows)]
