"""The metric registry: names to metric modules, and settings chosen per run.

``METRICS`` maps the name used with ``-m`` (and in config files) to the
module that implements it; everything else asks the registry, so adding a
metric is adding its module and one entry here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from bleustream.errors import UsageError
from bleustream.metrics import bleu, chrf, comet, nist, self_bleu, ter
from bleustream.metrics.protocol import MetricModule, OptionSpec, Row, ScoreBatch
from bleustream.metrics.scores import Score, Signature

METRICS: dict[str, MetricModule] = {
    bleu.NAME: bleu,  # type: ignore[dict-item]
    chrf.NAME: chrf,  # type: ignore[dict-item]
    ter.NAME: ter,  # type: ignore[dict-item]
}

# Metrics whose count is a model's forward pass (COMET): streamed and summed
# as the others, but each needs its model and the sources, so they are kept
# apart from SacreBLEU's metrics above.  Named with -m like the others.
MODEL_METRICS: dict[str, MetricModule] = {
    comet.NAME: comet,  # type: ignore[dict-item]
}

# Every metric whose rows stream, sum and travel in stats records.
STREAM_METRICS: dict[str, MetricModule] = {**METRICS, **MODEL_METRICS}

# Metrics scored at the end of a run, alone, from tables of the whole input
# (NIST's weights need every reference; Self-BLEU's set): each declares its
# loop (``LOOP``, read by ``loop_of``).  Named with -m like the others.
CORPUS_METRICS: dict[str, Any] = {nist.NAME: nist, self_bleu.NAME: self_bleu}

DEFAULT_METRICS = ("bleu",)


@dataclass(frozen=True)
class Spec:
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


def all_options() -> Iterator[tuple[MetricModule, OptionSpec]]:
    """Every metric's options, metric by metric in registry order."""
    for metric in (*STREAM_METRICS.values(), *CORPUS_METRICS.values()):
        for option in metric.OPTIONS:
            yield metric, option


def specs_from(names: Sequence[str], options: Mapping[str, Any]) -> tuple[Spec, ...]:
    """The metrics named, in the order given (each once), with their settings."""
    if not names:
        raise UsageError("no metric to score: name at least one (-m bleu chrf ter)")
    seen: list[str] = []
    for name in names:
        if name not in seen:
            seen.append(name)
    corpus = [name for name in seen if name in CORPUS_METRICS]
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
    return STREAM_METRICS[name] if name in STREAM_METRICS else CORPUS_METRICS[name]


def loop_of(specs: Sequence[Spec]) -> str:
    """The loop a run of these metrics needs, as a metric declares it
    (``LOOP``, see ``protocol``): ``"stream"`` unless one is scored at the
    end, alone (``"corpus"``, ``"set"``).  The one place it is read."""
    for spec in specs:
        loop: str = getattr(spec.metric, "LOOP", "stream")
        if loop != "stream":
            return loop
    return "stream"
