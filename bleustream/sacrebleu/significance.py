"""SacreBLEU's ``significance`` API: ``PairedTest``, ``Result`` and ``estimate_ci``.

``PairedTest`` takes SacreBLEU's arguments (named systems, a dict of metric
objects, references, ``"ar"`` or ``"bs"``, the samples) and returns, when
called, SacreBLEU's signatures and score columns.  The draws and their
arithmetic are bleustream's (``draws.paired_bs`` and ``draws.paired_ar``),
which give SacreBLEU's numbers bit for bit; each system's statistics are
counted by the metric object, as ``corpus_score`` counts them.  All
systems are compared in this process: ``n_jobs`` is accepted and changes
nothing but the time taken.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from bleustream.extras import require_numpy
from bleustream.metrics.bootstrap import environment_seed
from bleustream.metrics.metric_classes import Metric
from bleustream.metrics.protocol import Row
from bleustream.metrics.scores import Signature
from bleustream.significance import draws

__all__ = ["IS_WINDOWS", "PairedTest", "Result", "estimate_ci"]

# SacreBLEU's flag (it compares systems in one process there); ``n_jobs``
# changes nothing here on any system.
IS_WINDOWS = os.name == "nt"


class Result:
    """SacreBLEU's result of a test for one system and metric: its score,
    and the p-value, mean and half 95% interval the test added (or None)."""

    def __init__(
        self,
        score: float,
        p_value: float | None = None,
        mean: float | None = None,
        ci: float | None = None,
    ) -> None:
        self.score = score
        self.p_value = p_value
        self.mean = mean
        self.ci = ci

    def __repr__(self) -> str:
        # str(), as SacreBLEU's: a numpy float32's format() widens it to a float's digits.
        return ",".join(f"{key}={value!s}" for key, value in vars(self).items())


def estimate_ci(scores: Any) -> tuple[Any, Any]:
    """The mean of resampled scores and half their 95% interval, as
    SacreBLEU's ``estimate_ci`` computes them and hands them back: numpy
    scalars of the scores' dtype."""
    np = require_numpy("estimate_ci")
    scores = np.asarray(scores)
    mean, ci = draws._estimate_ci(np, scores)
    kind = scores.dtype.type if scores.dtype.kind == "f" else np.float64  # as numpy's mean
    return kind(mean), kind(ci)


class PairedTest:
    """SacreBLEU's paired test of systems against the first, the baseline:
    approximate randomization (``"ar"``) or paired bootstrap (``"bs"``)."""

    _DEFAULT_SAMPLES: ClassVar[dict[str, int]] = {
        "ar": draws.DEFAULT_AR_TRIALS,
        "bs": draws.DEFAULT_BS_SAMPLES,
    }

    def __init__(
        self,
        named_systems: list[tuple[str, Sequence[str]]],
        metrics: Mapping[str, Metric],
        references: Sequence[Sequence[str]] | None,
        test_type: str = "ar",
        n_samples: int = 0,
        n_ar_confidence: int = -1,
        n_jobs: int = 1,
    ) -> None:
        if test_type not in ("ar", "bs"):
            raise ValueError(f"Unknown test type {test_type!r}")
        self.test_type = test_type
        self._seed = environment_seed()[0]
        self.n_jobs = n_jobs
        self.references = references
        self.named_systems = named_systems
        self.n_ar_confidence = n_ar_confidence if n_ar_confidence != 0 else draws.DEFAULT_BS_SAMPLES
        self.n_samples = n_samples if n_samples > 0 else self._DEFAULT_SAMPLES[test_type]
        self.n_systems = len(named_systems) - 1
        self.metrics: dict[str, Metric] = {}
        self._stats: list[dict[str, Any]] = [{} for _ in named_systems]
        self._signatures: dict[str, Signature] = {}
        np = require_numpy("PairedTest")
        for metric in metrics.values():
            label = self._count(np, metric)
            signature = metric.get_signature()
            signature.update("seed", str(self._seed).lower())
            signature.update(test_type, self.n_samples)
            if self.n_ar_confidence > 0:
                signature.update("bs", self.n_ar_confidence)
            self._signatures[label] = signature

    def _count(self, np: Any, metric: Metric) -> str:
        """Every system's per-segment rows of one metric; its score's name."""
        label = ""
        for stats, (_, hypotheses) in zip(self._stats, self.named_systems):
            rows: list[Row] = []
            total = metric.statistics(hypotheses, self.references, rows)
            label = label or metric.spec.score_object(total).name
            stats[label] = np.array(rows)
        self.metrics[label] = metric
        return label

    def __call__(self) -> tuple[dict[str, Signature], dict[str, list[Any]]]:
        """The signatures and the columns: ``System`` (the names), then one
        column of ``Result`` per metric, the baseline first."""
        scorers = {
            label: (lambda sums, spec=metric.spec: spec.metric.score_rows(sums, spec.settings))
            for label, metric in self.metrics.items()
        }
        systems = [
            draws.SystemStats(name, stats)
            for (name, _), stats in zip(self.named_systems, self._stats)
        ]
        if self.test_type == "bs":
            results = draws.paired_bs(systems[0], systems[1:], scorers, self.n_samples, self._seed)
        else:
            results = draws.paired_ar(
                systems[0], systems[1:], scorers, self.n_samples, self._seed, self.n_ar_confidence
            )
        columns: dict[str, list[Any]] = {"System": [name for name, _ in self.named_systems]}
        for label in self.metrics:
            columns[label] = []
        np = require_numpy("PairedTest")
        for result in results:
            # SacreBLEU's mean and interval are numpy scalars: float32 for chrF
            # and TER, whose float32 text (and JSON failure) differs from a float's.
            kind = np.dtype(result.dtype).type
            mean, ci = (None, None) if result.mean is None else (kind(result.mean), kind(result.ci))
            columns[result.metric].append(
                Result(result.score, p_value=result.p_value, mean=mean, ci=ci)
            )
        return self._signatures, columns
