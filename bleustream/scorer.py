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

from bleustream.metrics.arguments import check_hypotheses, check_references, nrefs_of
from bleustream.metrics.counting import (
    Rows,
    SegmentCounter,
    Summed,
    Totals,
    add_parts,
    sum_rows,
    zero_totals,
)
from bleustream.metrics.protocol import Row, add_rows
from bleustream.metrics.registry import Spec
from bleustream.metrics.scores import Score

__all__ = ["Rows", "Scorer", "Summed", "Totals", "sum_rows", "zero_totals"]


def _specs(metrics: Sequence[Any]) -> list[Spec]:
    """Specs from names, specs, metric objects, and sequences of them."""
    flat: list[Any] = []
    for metric in metrics:
        flat.extend(metric if isinstance(metric, (list, tuple)) else (metric,))
    if all(isinstance(metric, Spec) for metric in flat):
        return flat  # the command line's: SacreBLEU's classes are not needed
    from bleustream.metrics.metric_classes import as_spec

    return [as_spec(metric) for metric in flat]


class Scorer:
    """Scores segments one at a time, keeping only each system's running sums.

    The metrics are names (``"chrf"``), specs (``bleustream.spec("chrf",
    word_order=2)``), metric objects (``bleustream.BLEU(tokenize="intl")``)
    or sequences of them; none is BLEU with SacreBLEU's defaults.  A whole
    number after them is the number of systems (``Scorer(specs, 3)``).
    ``nrefs``, the number of references per segment, is learnt from the
    segments added; give it for statistics merged from elsewhere.
    """

    def __init__(self, *metrics: Any, systems: int = 1, nrefs: int | str | None = None) -> None:
        if len(metrics) > 1 and type(metrics[-1]) is int:
            metrics, systems = metrics[:-1], metrics[-1]
        specs = _specs(metrics if metrics else ("bleu",))
        self.counter = SegmentCounter(specs, systems)
        self.specs = self.counter.specs
        self.totals: tuple[Totals, ...] = tuple(zero_totals(self.specs) for _ in range(systems))
        # Every number of references per segment seen (or given).
        self._nrefs: set[int | str] = set() if nrefs is None else {nrefs}

    @property
    def nrefs(self) -> int | str | None:
        """References per segment (``var`` when it varies), or None while unknown."""
        return nrefs_of(self._nrefs, 0) if self._nrefs else None

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
        self.totals = tuple(map(add_parts, self.totals, parts, [segments] * len(self.totals)))

    def add(
        self, hyps: Sequence[str], refs: Sequence[str], source: str | None = None
    ) -> list[tuple[Row, ...]]:
        """Adds one segment: each system's hypothesis against the shared references
        (and its ``source``, for a metric that reads it: COMET).

        Returns the segment's rows, per system and then per metric.
        """
        if self.counter.batched:
            rows: list[tuple[Row, ...]] = self.counter.count_segments([(source, hyps, refs)])[0]
        else:
            rows = self.count(hyps, refs)
        self.accumulate(rows)
        self._nrefs.add(len(refs))
        return rows

    def add_segments(
        self, segments: Sequence[tuple[str | None, Sequence[str], Sequence[str]]]
    ) -> None:
        """Adds segments (source, each system's hypothesis, references) in
        one call: a model-scored metric (COMET) runs them in batches."""
        for (_, _, refs), rows in zip(segments, self.counter.count_segments(segments)):
            self.accumulate(rows)
            self._nrefs.add(len(refs))

    def update(self, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> None:
        """Adds a batch of segments of one system, references in SacreBLEU's layout.

        ``refs`` holds one stream per reference: ``refs[j][i]`` is the
        ``j``-th reference of the ``i``-th hypothesis.  A reference that is
        ``None`` is left out of its segment, as SacreBLEU allows for a
        varying number of references.
        """
        if self.systems != 1:
            raise ValueError("update() scores one system; use add() for several")
        check_hypotheses("", hyps)
        check_references("", refs, len(hyps))
        for i, hyp in enumerate(hyps):
            self.add((hyp,), [stream[i] for stream in refs if stream[i] is not None])

    @property
    def stats(self) -> Totals:
        """The summed statistics of the first (or only) system: they pickle and add."""
        return self.totals[0]

    def merge(self, totals: Totals, system: int = 0, nrefs: int | str | None = None) -> None:
        """Adds statistics computed elsewhere (another shard, process or machine),
        with their number of references per segment when known."""
        if not isinstance(totals, Totals):
            raise TypeError(f"merge() takes a scorer's stats (Totals), not {type(totals).__name__}")
        merged = list(self.totals)
        merged[system] = merged[system] + totals
        self.totals = tuple(merged)
        if nrefs is not None:
            self._nrefs.add(nrefs)

    def score(self) -> list[Score]:
        """Each metric's score of everything added so far (first system)."""
        return self.scores(0)

    def scores(self, system: int = 0, nrefs: int | str | None = None) -> list[Score]:
        """Each metric's score of everything a system has had so far: SacreBLEU's
        score objects (``BLEUScore``...), with the signature text when the
        number of references is known."""
        if nrefs is None:
            nrefs = self.nrefs
        return [
            spec.score_object(row, "" if nrefs is None else spec.signature_object(nrefs).format())
            for spec, row in zip(self.specs, self.totals[system].rows)
        ]

    def raw_scores(self, system: int = 0) -> list[Any]:
        """Each metric's own score object (``bleustream.metrics.bleu.BleuResult``...),
        as the records of a run are made from."""
        return [spec.score(row) for spec, row in zip(self.specs, self.totals[system].rows)]

    def sentence_scores(self, rows: Sequence[Row]) -> list[Any]:
        """Each metric's sentence score of one segment's rows (one system)."""
        return [spec.sentence_score(row) for spec, row in zip(self.specs, rows)]
