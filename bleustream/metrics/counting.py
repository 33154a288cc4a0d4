"""Counting: segments in, rows out, and how rows add into totals.

Rows, summed rows and totals are as the glossary in
``bleustream.metrics.protocol`` defines them.

A ``SegmentCounter`` prepares each segment's references once per metric and
counts every system's hypothesis against them: a pure function of the
segment, shared by one process's scorer and the worker processes.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from bleustream.errors import InputError
from bleustream.frozen import Frozen
from bleustream.metrics.protocol import (
    Part,
    Row,
    add_rows,
    batch_part,
    decode_blocks,
    looks_tokenized,
)
from bleustream.metrics.registry import Spec

# One segment's rows, per system and then per metric.
Rows = Sequence[Sequence[Row]]


class Totals(Frozen):
    """Summed statistics of some segments: one row per metric, and their number.

    Totals add (``a + b``), so shards of a corpus, or the work of several
    processes, merge into the statistics of the whole.
    """

    rows: tuple[Row, ...]
    segments: int = 0

    def __init__(self, rows: tuple[Row, ...], segments: int = 0) -> None:
        # One is made per segment added: assigned directly.
        self.__dict__.update(rows=rows, segments=segments)

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


# A segment as a windowed metric reads it: its source (None when there is
# none), each system's hypothesis, its references.
Segment = tuple["str | None", Sequence[str], Sequence[str]]


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
        # Each metric sums a batch of one system's lines itself (BLEU's
        # compiled kernels in one call): its ``sum_batch``.
        self._sum_batch = [spec.metric.sum_batch(spec.settings) for spec in self.specs]
        # ... and a block of raw lines (``summed_block``): its ``sum_block``.
        self._sum_block = [spec.metric.sum_block(spec.settings) for spec in self.specs]
        # A metric that reads each segment's source (``NEEDS_SOURCE``: a
        # model's forward pass) scores a window of segments, with their
        # sources, in one call: its ``count_window``; the run then counts by
        # ``count_segments``.
        self._window = [_count_window(spec) for spec in self.specs]
        self.batched = any(f is not None for f in self._window)

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
        (``count_window``) score the window in one call, the others each
        segment as ``count`` does."""
        rows = [self.count_unwindowed(hyps, refs) for _, hyps, refs in segments]
        for index, batch in enumerate(self._window):
            if batch is None:
                continue
            for segment_rows, scored in zip(rows, batch(segments)):
                for system, row in enumerate(scored):
                    old = segment_rows[system]
                    segment_rows[system] = (*old[:index], row, *old[index + 1 :])
        return rows

    def count_unwindowed(self, hyps: Sequence[str], refs: Sequence[str]) -> list[tuple[Any, ...]]:
        """``count`` of the metrics that need no source, each windowed
        metric's row None: what a segment's texts alone decide."""
        counts = [None if batch else count for count, batch in zip(self._count, self._window)]
        prepared = [
            None if batch else prepare(refs) for prepare, batch in zip(self._prepare, self._window)
        ]
        return [tuple(c and c(hyp, p) for c, p in zip(counts, prepared)) for hyp in hyps]

    def summed(self, hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> Summed:
        """The ``Summed`` of a batch of segments (``hyps[i]``: segment ``i``'s
        hypothesis per system, ``refs[i]`` its references; at least one).

        With one system, each metric sums the batch from its lines
        (``sum_batch``); with several, each segment is counted as ``count``
        counts it, a hypothesis that several systems gave once."""
        if self.systems != 1 or self.batched:
            summed = sum_rows(list(map(self.count, hyps, refs)), self.systems, len(refs[0]))
            return summed._replace(tokenized=tuple(map(looks_tokenized, zip(*hyps))))
        column = [segment[0] for segment in hyps]
        parts = [sum_batch(column, refs) for sum_batch in self._sum_batch]
        return Summed([parts], len(hyps), len(refs[0]), (looks_tokenized(column),))

    def summed_block(
        self, hyp_block: bytes, ref_blocks: Sequence[bytes], lines: int
    ) -> Summed | None:
        """``summed`` of one system's ``lines`` lines as blocks of bytes (see
        the protocol's ``sum_block``); None where a line is not UTF-8.  One
        metric reads the blocks itself; several share one decoding."""
        assert self.systems == 1 and not self.batched, "a block holds one system's lines"
        if len(self._sum_block) == 1:
            got = self._sum_block[0](hyp_block, ref_blocks)
            if got is None:
                return None
            part, tokenized = got
            return Summed([[part]], lines, len(ref_blocks), (tokenized,))
        decoded = decode_blocks(hyp_block, ref_blocks)
        if decoded is None:
            return None
        hyps, refs = decoded
        return self.summed(list(zip(hyps)), refs)

    def count_at(self, hyps: Sequence[str], refs: Sequence[str], source: str, line: int) -> Rows:
        """``count``, a problem in the segment's text located at ``source``'s
        ``line`` (where its input was read)."""
        try:
            return self.count(hyps, refs)
        except InputError as exc:
            if exc.source is not None:
                raise
            raise InputError(exc.message, source, line) from None

    def summed_at(
        self,
        hyps: Sequence[Sequence[str]],
        refs: Sequence[Sequence[str]],
        source: str,
        lines: Iterable[int],
    ) -> Summed:
        """``summed``, a problem in a segment's text located at ``source``'s
        line of that segment (``lines``, read only then), as ``count_at``
        locates it."""
        try:
            return self.summed(hyps, refs)
        except InputError:
            for segment in zip(hyps, refs, lines):
                self.count_at(*segment[:2], source, segment[2])  # raises at the first bad one
            raise


def add_summed(a: Summed | None, b: Summed) -> Summed:
    """Two batches' ``Summed`` as one (``a`` first; None: no batch yet)."""
    if a is None:
        return b
    parts = [
        [_add_parts(x, y) for x, y in zip(system_a, system_b)]
        for system_a, system_b in zip(a.parts, b.parts)
    ]
    tokenized = tuple(map(operator.add, a.tokenized, b.tokenized)) or a.tokenized or b.tokenized
    return Summed(parts, a.segments + b.segments, a.nrefs, tokenized)


def _add_parts(x: Part, y: Part) -> Part:
    if x[0] == y[0] == "sum":
        return ("sum", add_rows(x[1], y[1]))
    # Rows with floats are kept in order, to be added one by one.
    return ("rows", [*_as_rows(x), *_as_rows(y)])


def _as_rows(part: Part) -> list[Row]:
    return [part[1]] if part[0] == "sum" else list(part[1])


def _count_window(spec: Spec) -> Any:
    """The metric's ``count_window`` for the spec's settings, where the
    metric reads sources (``NEEDS_SOURCE``); None for the others."""
    if not getattr(spec.metric, "NEEDS_SOURCE", False):
        return None
    return spec.metric.count_window(spec.settings)


class Summed(NamedTuple):
    """A batch's statistics added up in the worker, for a run that needs only sums.

    ``parts`` holds, per system and metric, a ``protocol.Part``: either
    ``("sum", row)`` (whole-number statistics: their sum is the same in any
    order) or ``("rows", [row, ...])``: statistics with fractions (TER's
    average length of several references), which the parent adds one by
    one so that its running sum rounds as one process's does.
    """

    parts: list[list[Part]]
    segments: int
    nrefs: int  # references of the first segment
    # Per system, the hypotheses that end in " .", SacreBLEU's sign of
    # tokenized text (its warning: ``looks_tokenized``); () where not counted.
    tokenized: tuple[int, ...] = ()


def add_parts(total: Totals, parts: Sequence[Part], segments: int) -> Totals:
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
    parts: list[list[Part]] = []
    for system in range(systems):
        per_metric: list[Part] = []
        for index in range(len(rows[0][system])):
            per_metric.append(batch_part([segment[system][index] for segment in rows]))
        parts.append(per_metric)
    return Summed(parts, len(rows), nrefs)
