"""Confidence intervals and paired tests for a run: keep every segment, then resample.

Resampling needs every segment's statistics, so a run that asks for
``-ci``, ``--paired-bs`` or ``--paired-ar`` keeps them in a
``SegmentStore``: one flat ``array.array`` per system and metric, four
bytes a number for integer statistics and eight for TER's (whose average
reference length is a float).  A BLEU row is 10 numbers (40 bytes a
segment per system), chrF 18 (72 bytes), chrF++ 24 (96 bytes), TER 2 (16
bytes).  Without a test nothing per segment is kept.

At the end the arrays become numpy matrices (without copying) and go to
``bleustream.significance.draws``, which reproduces SacreBLEU's draws and
arithmetic; numpy is imported only then.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bleustream.extras import require_numpy
from bleustream.metrics.protocol import Row
from bleustream.metrics.registry import Spec
from bleustream.significance import draws as significance
from bleustream.significance.result import Result

TESTS = ("ci", "bs", "ar")


@dataclass(frozen=True)
class Resampling:
    """A resampling test and its settings."""

    kind: str  # "ci": intervals only; "bs", "ar": paired tests
    n: int  # resamples (ci, bs) or trials (ar)
    seed: int | None  # None: fresh entropy
    confidence_n: int = -1  # ar only: bootstrap resamples for intervals (-1: none)

    @property
    def paired(self) -> bool:
        return self.kind in ("bs", "ar")

    def signature_fields(self) -> dict[str, str]:
        return significance.resampling_signature_fields(
            self.kind, self.n, self.seed, self.confidence_n
        )


class SegmentStore:
    """Every segment's rows, per system and metric, in compact arrays."""

    def __init__(self, systems: int, metrics: int) -> None:
        self._arrays: list[list[array[Any] | None]] = [[None] * metrics for _ in range(systems)]
        self.segments = 0

    def add(self, rows: Sequence[Sequence[Row]]) -> None:
        """Keeps one segment's rows (per system, per metric)."""
        for kept, system_rows in zip(self._arrays, rows):
            for index, row in enumerate(system_rows):
                numbers = kept[index]
                if numbers is None:
                    code = "d" if any(isinstance(x, float) for x in row) else "i"
                    numbers = kept[index] = array(code)
                numbers.extend(row)
        self.segments += 1

    def extend(self, other: SegmentStore) -> None:
        """Adds another store's segments after these (a shard's, a worker's)."""
        for kept, theirs in zip(self._arrays, other._arrays):
            for index, numbers in enumerate(theirs):
                if numbers is None:
                    continue
                if kept[index] is None:
                    kept[index] = array(numbers.typecode)
                mine = kept[index]
                assert mine is not None
                if mine.typecode != numbers.typecode:  # TER's lengths: whole, then not
                    kept[index] = mine = array("d", mine)
                    numbers = array("d", numbers)
                mine.extend(numbers)
        self.segments += other.segments

    def state(self) -> list[list[tuple[str, list[Any]] | None]]:
        """The kept numbers as plain lists (type code, numbers), to write out."""
        return [
            [None if a is None else (a.typecode, a.tolist()) for a in kept] for kept in self._arrays
        ]

    @classmethod
    def from_state(cls, state: Sequence[Sequence[Any]], segments: int) -> SegmentStore:
        """A store from ``state()``'s lists."""
        store = cls(len(state), len(state[0]) if state else 0)
        store._arrays = [[None if x is None else array(x[0], x[1]) for x in kept] for kept in state]
        store.segments = segments
        return store

    def matrices(self, specs: Sequence[Spec]) -> list[list[Any]]:
        """Per system, per metric: a (segments x row size) numpy array."""
        np = require_numpy("resampling")
        out = []
        for kept in self._arrays:
            system = []
            for spec, numbers in zip(specs, kept):
                width = spec.metric.row_size(spec.settings)
                if numbers is None:
                    system.append(np.zeros((0, width), dtype=np.int32))
                else:
                    matrix = np.frombuffer(numbers, dtype=numbers.typecode)
                    system.append(matrix.reshape(-1, width))
            out.append(system)
        return out


def _scorer(spec: Spec) -> Any:
    metric, settings = spec.metric, spec.settings
    return lambda sums: metric.score_rows(sums, settings)


def run_test(
    test: Resampling, specs: Sequence[Spec], names: Sequence[str], store: SegmentStore
) -> list[Result]:
    """The test's results: system by system (the baseline first), metric by metric."""
    if store.segments == 0:
        return []
    matrices = store.matrices(specs)
    labels = [spec.label for spec in specs]
    scorers = {label: _scorer(spec) for label, spec in zip(labels, specs)}
    systems = [
        significance.SystemStats(name, dict(zip(labels, system)))
        for name, system in zip(names, matrices)
    ]
    if test.kind == "bs":
        return significance.paired_bs(systems[0], systems[1:], scorers, test.n, test.seed)
    if test.kind == "ar":
        return significance.paired_ar(
            systems[0], systems[1:], scorers, test.n, test.seed, test.confidence_n
        )
    results: list[Result] = []
    for system in systems:
        results += significance.confidence_intervals(
            system.stats, scorers, test.n, test.seed, system.name
        )
    return results
