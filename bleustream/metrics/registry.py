"""The metric registry: names to metric modules, and settings chosen per run.

A metric declares what it is in a small module of plain data beside it
(``bleu_options``: its ``NAME``, ``TITLE``, ``OPTIONS``, its score-only
settings, its ``LOOP`` when it has one, and the ``IMPLEMENTATION`` module).
The registry lists those declarations: ``DECLARED`` for the metrics summed
as segments come, ``CORPUS_DECLARED`` for those scored at the end from
tables of the whole input.  ``METRICS`` and ``CORPUS_METRICS`` map each
name (``-m``'s, a config file's) to the metric module, imported when first
asked for: the command line builds its options from the declarations, and
a run loads only the metrics it scores.  Adding a metric is adding its
modules and one entry here.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from types import ModuleType
from typing import Any

from bleustream.errors import UsageError
from bleustream.frozen import Frozen
from bleustream.metrics import (
    bleu_options,
    chrf_options,
    comet_options,
    nist_options,
    self_bleu_options,
    ter_options,
)
from bleustream.metrics.protocol import MetricModule, OptionSpec, Row, ScoreBatch
from bleustream.metrics.scores import Score, Signature

DECLARED: dict[str, ModuleType] = {m.NAME: m for m in (bleu_options, chrf_options, ter_options)}
# Metrics whose count is a model's forward pass (COMET): streamed and summed
# as the others, but each needs its model and the sources, so they are kept
# apart from SacreBLEU's metrics above.  Named with -m like the others.
MODEL_DECLARED: dict[str, ModuleType] = {comet_options.NAME: comet_options}
# Every metric whose rows stream, sum and travel in stats records.
STREAM_DECLARED: dict[str, ModuleType] = {**DECLARED, **MODEL_DECLARED}
# Metrics scored at the end of a run, alone, from tables of the whole input
# (NIST's weights need every reference; Self-BLEU's set): each declares its
# loop (``LOOP``, read by ``loop_of``).  Named with -m like the others.
CORPUS_DECLARED: dict[str, ModuleType] = {m.NAME: m for m in (nist_options, self_bleu_options)}


class Metrics(Mapping[str, Any]):
    """Declared metrics' names to their modules, each imported when first
    looked up; names, ``in`` and ``len`` import nothing."""

    def __init__(self, declared: Mapping[str, ModuleType]) -> None:
        self._declared = declared

    def __getitem__(self, name: str) -> Any:
        path = self._declared[name].IMPLEMENTATION
        __import__(path)  # (the built-in, as ``import`` is: importlib stays unloaded)
        return sys.modules[path]

    def __contains__(self, name: object) -> bool:
        return name in self._declared

    def __iter__(self) -> Iterator[str]:
        return iter(self._declared)

    def __len__(self) -> int:
        return len(self._declared)

    def __repr__(self) -> str:
        return f"Metrics({list(self._declared)})"


METRICS: Mapping[str, MetricModule] = Metrics(DECLARED)
MODEL_METRICS: Mapping[str, MetricModule] = Metrics(MODEL_DECLARED)
STREAM_METRICS: Mapping[str, MetricModule] = Metrics(STREAM_DECLARED)
CORPUS_METRICS: Mapping[str, Any] = Metrics(CORPUS_DECLARED)

DEFAULT_METRICS = ("bleu",)


class Spec(Frozen):
    """One metric with the settings it runs with."""

    metric: MetricModule
    settings: Any

    @property
    def name(self) -> str:
        return self.metric.NAME

    @cached_property
    def label(self) -> str:
        """SacreBLEU's name for the metric with these settings (``chrF2++``),
        read for every record: made once."""
        return self.metric.label(self.settings)

    def zero(self) -> Row:
        """The statistics of no segments."""
        return (0,) * self.metric.row_size(self.settings)

    def score(self, row: Sequence[Any]) -> Any:
        return self.metric.score(row, self.settings)

    def sentence_score(self, row: Sequence[Any]) -> Any:
        return self.metric.sentence_score(row, self.settings)

    def signature(self, nrefs: int | str) -> dict[str, str]:
        return self.metric.signature(self.settings, nrefs)

    def signature_object(
        self, nrefs: int | str, kind: type[Signature] = Signature, **extra: Any
    ) -> Signature:
        """SacreBLEU's signature object (of class ``kind``), with fields such
        as ``bs`` and ``seed`` added."""
        signature = kind.of_fields(self.signature(nrefs), self.metric.SIGNATURE_SHORT)
        for key, value in extra.items():
            signature.update(key, value)
        return signature

    def score_object(self, row: Sequence[Any], signature: str = "") -> Score:
        """SacreBLEU's score object of summed statistics (``BLEUScore``...),
        with ``stats`` and the ``signature`` text set."""
        result = self.metric.score_object(self.metric.score(row, self.settings), self.settings)
        result.stats = tuple(row)
        result.signature = signature
        return result

    @cached_property
    def made_objects(self) -> ScoreBatch:
        """The metric's ``score_batch(settings)``: score objects of a batch
        of rows (in one C call where the kernels score these settings)."""
        return self.metric.score_batch(self.settings)

    def score_objects(self, rows: Iterable[Sequence[Any]], signature: str = "") -> list[Score]:
        """``score_object`` of each row, with one signature: a batch of
        sentence scores (``made_objects``)."""
        rows = rows if isinstance(rows, Sequence) else list(rows)
        return self.made_objects(rows, signature, self.score_object)  # type: ignore[arg-type]

    def __reduce__(self) -> tuple[Any, tuple[str, Any]]:
        # A module does not pickle; its registry name does, so a Spec
        # travels to worker processes and cluster nodes by name.
        return (spec_by_name, (self.name, self.settings))


def spec_by_name(name: str, settings: Any) -> Spec:
    """The Spec of a registered metric with ``settings``."""
    return Spec(metric_of(name), settings)


def declarations() -> Iterator[ModuleType]:
    """Every metric's declaration, in registry order."""
    yield from STREAM_DECLARED.values()
    yield from CORPUS_DECLARED.values()


def all_options() -> Iterator[tuple[ModuleType, OptionSpec]]:
    """Every metric's options with its declaration, metric by metric in
    registry order."""
    for declared in declarations():
        for option in declared.OPTIONS:
            yield declared, option


def specs_from(names: Sequence[str], options: Mapping[str, Any]) -> tuple[Spec, ...]:
    """The metrics named, in the order given (each once), with their settings."""
    if not names:
        raise UsageError("no metric to score: name at least one (-m bleu chrf ter)")
    seen: list[str] = []
    for name in names:
        if name not in seen:
            seen.append(name)
    corpus = [name for name in seen if name in CORPUS_DECLARED]
    if corpus and len(seen) > 1:
        raise UsageError(
            f"-m {corpus[0]} is scored at the end from corpus-wide tables: "
            "run it on its own, not with other metrics"
        )
    specs = []
    for name in seen:
        try:
            specs.append(Spec(metric_of(name), metric_of(name).settings_from(options)))
        except ValueError as exc:  # the settings check themselves
            raise ValueError(f"-m {name}: {exc}") from None
    return tuple(specs)


def metric_of(name: str) -> Any:
    """The module of a metric named with -m."""
    return STREAM_METRICS[name] if name in STREAM_DECLARED else CORPUS_METRICS[name]


def loop_of(specs: Sequence[Spec]) -> str:
    """The loop a run of these metrics needs, as a metric declares it
    (``LOOP``, see ``protocol``): ``"stream"`` unless one is scored at the
    end, alone (``"corpus"``, ``"set"``).  The one place it is read."""
    for spec in specs:
        loop: str = getattr(spec.metric, "LOOP", "stream")
        if loop != "stream":
            return loop
    return "stream"
