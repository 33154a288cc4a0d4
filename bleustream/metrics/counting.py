"""Counting: segments in, rows out, and how rows add into totals.

Rows, summed rows and totals are as the glossary in
``bleustream.metrics.protocol`` defines them.

A ``SegmentCounter`` prepares each segment's references once per metric and
counts every system's hypothesis against them: a pure function of the
segment, shared by one process's scorer and the worker processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from bleustream.metrics.protocol import Row, add_rows
from bleustream.metrics.registry import Spec

# One segment's rows, per system and then per metric.
Rows = Sequence[Sequence[Row]]
# A segment as a batched metric reads it: its source (None when there is
# none), each system's hypothesis, its references.
Segment = tuple["str | None", Sequence[str], Sequence[str]]


@dataclass(frozen=True)
class Totals:
    """Summed statistics of some segments: one row per metric, and their number.

    Totals add (``a + b``), so shards of a corpus, or the work of several
    processes, merge into the statistics of the whole.
    """

    rows: tuple[Row, ...]
    segments: int = 0

    def __add__(self, other: Totals) -> Totals:
        if not isinstance(other, Totals):
            return NotImplemented
        if len(self.rows) != len(other.rows) or any(
            len(a) != len(b) for a, b in zip(self.rows, other.rows)
        ):
            raise ValueError("cannot add statistics of different metrics or settings")
        return Totals(
            tuple(add_rows(a, b) for a, b in zip(self.rows, other.rows)),
            self.segments + other.segments,
        )


def zero_totals(specs: Sequence[Spec]) -> Totals:
    """The statistics of no segments."""
    return Totals(tuple(spec.zero() for spec in specs), 0)


class SegmentCounter:
    """Counts one segment at a time: each system's hypothesis against the
    segment's references, prepared once per metric."""

    def __init__(self, specs: Sequence[Spec], systems: int = 1) -> None:
        if not specs:
            raise ValueError("a scorer needs at least one metric")
        if systems < 1:
            raise ValueError("a scorer needs at least one system")
        self.specs = tuple(specs)
        self.systems = systems
        self._prepare = [spec.metric.prepare_refs(spec.settings) for spec in self.specs]
        self._count = [spec.metric.count(spec.settings) for spec in self.specs]
        # A metric may sum a batch of one system's lines in one call (BLEU's
        # compiled kernels): ``sum_lines(settings)``, or None where it cannot.
        self._sum_lines = [_sum_lines(spec) for spec in self.specs]
        # A metric whose count is a model's forward pass scores a window of
        # segments, with their sources, in one call: ``count_batch(settings)``.
        self._batch = [_count_batch(spec) for spec in self.specs]
        self.batched = any(f is not None for f in self._batch)
        self.sums_lines = (
            systems == 1 and not self.batched and any(f is not None for f in self._sum_lines)
        )

    def count(self, hyps: Sequence[str], refs: Sequence[str]) -> list[tuple[Row, ...]]:
        """One segment's rows, per system and then per metric, without adding them."""
        if len(hyps) != self.systems:
            raise ValueError(f"expected {self.systems} hypotheses, got {len(hyps)}")
        if not refs:
            raise ValueError("a segment needs at least one reference")
        if self.batched:
            raise ValueError("a metric here scores segments with their sources: count_segments")
        # Plain loops: this runs once per segment, and in Python < 3.12 each
        # comprehension builds a function.
        prepared = []
        for prepare in self._prepare:
            prepared.append(prepare(refs))
        # Systems often agree on a segment: a hypothesis another system
        # already gave is counted once (counting is a pure function).
        done: dict[str, tuple[Row, ...]] = {}
        out = []
        for hyp in hyps:
            rows = done.get(hyp)
            if rows is None:
                counted = []
                for count, p in zip(self._count, prepared):
                    counted.append(count(hyp, p))
                rows = done[hyp] = tuple(counted)
            out.append(rows)
        return out

    def count_segments(self, segments: Sequence[Segment]) -> list[list[tuple[Row, ...]]]:
        """Rows of a window of segments (source, hypotheses per system,
        references), per segment, system and metric: the batched metrics
        (``count_batch``) score the window in one call, the others each
        segment as ``count`` does."""
        counts = [None if batch else count for count, batch in zip(self._count, self._batch)]
        rows = []
        for _, hyps, refs in segments:
            prepared = [
                None if batch else prepare(refs)
                for prepare, batch in zip(self._prepare, self._batch)
            ]
            rows.append([tuple(c and c(hyp, p) for c, p in zip(counts, prepared)) for hyp in hyps])
        for index, batch in enumerate(self._batch):
            if batch is None:
                continue
            for segment_rows, scored in zip(rows, batch(segments)):
                for system, row in enumerate(scored):
                    old = segment_rows[system]
                    segment_rows[system] = (*old[:index], row, *old[index + 1 :])
        return rows

    def summed(self, hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> Summed:
        """The ``Summed`` of a batch of segments (``hyps[i]``: segment ``i``'s
        hypothesis per system, ``refs[i]`` its references; at least one).

        With one system, each metric that can sums the batch from its lines
        in one call; the others count it segment by segment, as ``count``."""
        if not self.sums_lines:
            return sum_rows(list(map(self.count, hyps, refs)), self.systems, len(refs[0]))
        column = [segment[0] for segment in hyps]
        parts: list[tuple[str, Any]] = []
        for sum_lines, prepare, count in zip(self._sum_lines, self._prepare, self._count):
            if sum_lines is not None:
                parts.append(("sum", sum_lines(column, refs)))
                continue
            rows = [count(hyp, prepare(texts)) for hyp, texts in zip(column, refs)]
            parts.append(_part_of(rows))
        return Summed([parts], len(hyps), len(refs[0]))


def add_summed(a: Summed | None, b: Summed) -> Summed:
    """Two batches' ``Summed`` as one (``a`` first; None: no batch yet)."""
    if a is None:
        return b
    parts = [
        [_add_parts(x, y) for x, y in zip(system_a, system_b)]
        for system_a, system_b in zip(a.parts, b.parts)
    ]
    return Summed(parts, a.segments + b.segments, a.nrefs)


def _add_parts(x: tuple[str, Any], y: tuple[str, Any]) -> tuple[str, Any]:
    if x[0] == y[0] == "sum":
        return ("sum", add_rows(x[1], y[1]))
    # Rows with floats are kept in order, to be added one by one.
    return ("rows", [*_as_rows(x), *_as_rows(y)])


def _as_rows(part: tuple[str, Any]) -> list[Row]:
    return [part[1]] if part[0] == "sum" else list(part[1])


def _sum_lines(spec: Spec) -> Any:
    """The metric's ``sum_lines`` for the spec's settings; None if it has none."""
    sum_lines = getattr(spec.metric, "sum_lines", None)
    return None if sum_lines is None else sum_lines(spec.settings)


def _count_batch(spec: Spec) -> Any:
    """The metric's ``count_batch`` for the spec's settings; None if it has none."""
    count_batch = getattr(spec.metric, "count_batch", None)
    return None if count_batch is None else count_batch(spec.settings)


def _part_of(column: list[Row]) -> tuple[str, Any]:
    """One system's and metric's rows of a batch, as ``Summed.parts`` holds them."""
    if any(isinstance(x, float) for row in column for x in row):
        return ("rows", column)
    return ("sum", tuple(map(sum, zip(*column))))


class Summed(NamedTuple):
    """A batch's statistics added up in the worker, for a run that needs only sums.

    ``parts`` holds, per system and metric, either ``("sum", row)`` (integer
    statistics: their sum is the same in any order) or ``("rows", [row,
    ...])``: statistics with floats (TER's average reference length), which
    the parent adds one by one so that its running sum rounds as one
    process's does.
    """

    parts: list[list[tuple[str, Any]]]
    segments: int
    nrefs: int  # references of the first segment


def add_parts(total: Totals, parts: Sequence[tuple[str, Any]], segments: int) -> Totals:
    """``total`` with one system's ``Summed.parts`` added, over ``segments``
    segments: a ``("sum", row)`` at once, ``("rows", rows)`` one row after
    the other, so that a running sum of floats rounds as one process's does."""
    rows = []
    for row, (kind, value) in zip(total.rows, parts):
        if kind == "sum":
            row = add_rows(row, value)
        else:
            for one in value:
                row = add_rows(row, one)
        rows.append(row)
    return Totals(tuple(rows), total.segments + segments)


def sum_rows(rows: Sequence[Rows], systems: int, nrefs: int) -> Summed:
    """The ``Summed`` of some segments' rows (at least one segment)."""
    parts: list[list[tuple[str, Any]]] = []
    for system in range(systems):
        per_metric: list[tuple[str, Any]] = []
        for index in range(len(rows[0][system])):
            per_metric.append(_part_of([segment[system][index] for segment in rows]))
        parts.append(per_metric)
    return Summed(parts, len(rows), nrefs)
