"""The running score over the stream: each system's summed statistics at
evenly spaced points, at most ``MAX_POINTS`` of them.

A point is kept at every multiple of ``step`` segments (counted from the
start of the whole stream); when there are more than ``MAX_POINTS``, every
other one is dropped and the step doubles.  The points are a function of
the number of segments alone: the multiples of the smallest power of two
that leaves at most ``MAX_POINTS`` of them (``step_for``), and the end.  So
parts of a stream analyzed apart (``-j N``) merge into the same points, and
with every segment's statistics kept the points are computed from those
(``from_rows``).  Memory is fixed however long the stream runs.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from bleustream.metrics.protocol import Row, add_rows
from bleustream.metrics.registry import Spec

MAX_POINTS = 200

Totals = Sequence[Sequence[Row]]  # per system, per metric


def step_for(segments: int) -> int:
    """The step of the points of ``segments`` segments."""
    step = 1
    while segments // step > MAX_POINTS:
        step *= 2
    return step


class RunningScores:
    def __init__(self) -> None:
        self.step = 1
        self.points: list[tuple[int, Totals]] = []  # (segments so far, summed rows)

    def due(self, segments: int) -> bool:
        """Whether a point is kept after ``segments`` segments (so that the
        caller builds the sums only then)."""
        return segments % self.step == 0

    def add(self, segments: int, totals: Totals) -> None:
        """The sums after ``segments`` segments of the whole stream."""
        if not self.due(segments):
            return
        self.points.append((segments, totals))
        self._thin()

    def _thin(self) -> None:
        while len(self.points) > MAX_POINTS:
            self.step *= 2
            self.points = [p for p in self.points if p[0] % self.step == 0]

    def merge(self, other: RunningScores, shift: int, before: Totals) -> None:
        """Adds the points of a later part, whose sums start from zero:
        ``shift`` segments and the sums ``before`` come first."""
        for segments, rows in other.points:
            summed = [tuple(map(add_rows, b, r)) for b, r in zip(before, rows)]
            self.points.append((segments + shift, summed))
        self.step = max(self.step, other.step)
        self.points = [p for p in self.points if p[0] % self.step == 0]
        self._thin()


def listed(
    points: Sequence[tuple[int, Totals]], segments: int, totals: Totals, specs: Sequence[Spec]
) -> list[dict[str, Any]]:
    """The points as the document lists them, with the end as the last one."""
    points = list(points)
    if segments and (not points or points[-1][0] != segments):
        points.append((segments, totals))
    return [{"segments": n, "scores": scores_of(rows, specs)} for n, rows in points]


def from_rows(matrices: Sequence[Sequence[Any]], segments: int) -> list[tuple[int, Totals]]:
    """The points from every segment's statistics (per system, per metric, a
    segments x row array), summed in input order as the stream sums them."""
    step = step_for(segments)
    running = [[[0] * m.shape[1] for m in per_system] for per_system in matrices]
    points: list[tuple[int, Totals]] = []
    lists = [[m.tolist() for m in per_system] for per_system in matrices]
    for i in range(segments):
        for s, per_system in enumerate(lists):
            for k, rows in enumerate(per_system):
                running[s][k] = list(map(operator.add, running[s][k], rows[i]))
        if (i + 1) % step == 0:
            points.append((i + 1, [[tuple(r) for r in per] for per in running]))
    return points


def scores_of(totals: Totals, specs: Sequence[Spec]) -> list[list[float]]:
    return [[spec.score(row).score for spec, row in zip(specs, rows)] for rows in totals]
