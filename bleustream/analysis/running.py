"""The running score over the stream: each system's score of every metric
at evenly spaced points, at most ``MAX_POINTS`` of them.

A point is kept every ``step`` segments; when there are more than
``MAX_POINTS``, every other one is dropped and the step doubles.  The
points depend only on the number of segments, never on how the input was
read, and memory stays fixed however long the stream runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bleustream.metrics.protocol import Row
from bleustream.metrics.registry import Spec

MAX_POINTS = 200


class RunningScores:
    def __init__(self) -> None:
        self.step = 1
        # (segments, per system per metric score)
        self.points: list[tuple[int, list[list[float]]]] = []

    def add(self, segments: int, totals: Sequence[Sequence[Row]], specs: Sequence[Spec]) -> None:
        if segments % self.step:
            return
        self.points.append((segments, scores_of(totals, specs)))
        if len(self.points) > MAX_POINTS:
            self.step *= 2
            self.points = [p for p in self.points if p[0] % self.step == 0]

    def listed(self, segments: int, totals: Sequence[Sequence[Row]], specs: Sequence[Spec]) -> Any:
        """The points, with the end of the stream as the last one."""
        points = list(self.points)
        if segments and (not points or points[-1][0] != segments):
            points.append((segments, scores_of(totals, specs)))
        return [{"segments": n, "scores": scores} for n, scores in points]


def scores_of(totals: Sequence[Sequence[Row]], specs: Sequence[Spec]) -> list[list[float]]:
    return [[spec.score(row).score for spec, row in zip(specs, rows)] for rows in totals]
