"""compare-mt's analyses of several systems, streamed, with a bootstrap
interval on every bucket (docs/analysis.md).

``analyze`` runs every analysis on lists of segments and returns the
document that ``bleustream REF -i A B --analyze -f json`` prints; the
command line feeds an ``Analyzer`` the segments it reads instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bleustream.analysis.buckets import Edges, parse_edges
    from bleustream.analysis.collect import Analyzer
    from bleustream.analysis.document import build
    from bleustream.analysis.settings import AnalysisSettings

__all__ = ["AnalysisSettings", "Analyzer", "Edges", "analyze", "build", "parse_edges"]

# The package's names, each loaded when first used (PEP 562), so that the
# command line reads the buckets' default edges (``buckets``) for its
# options without loading the analyses.
_LAZY = {
    "AnalysisSettings": "bleustream.analysis.settings",
    "Analyzer": "bleustream.analysis.collect",
    "Edges": "bleustream.analysis.buckets",
    "build": "bleustream.analysis.document",
    "parse_edges": "bleustream.analysis.edges",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'bleustream.analysis' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


DEFAULT_METRICS = ("bleu", "chrf", "ter")


def analyze(
    systems: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    names: Sequence[str] | None = None,
    sources: Sequence[str] | None = None,
    metrics: Iterable[Any] = DEFAULT_METRICS,
    frequencies: Mapping[str, int] | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """Every analysis of ``systems`` (lists of hypotheses, the baseline
    first) against ``references`` (SacreBLEU's layout: one list per
    reference), as the JSON document of ``--analyze -f json``.

    ``metrics`` are names, specs or metric objects (BLEU among them);
    ``frequencies`` maps words to training-corpus counts (default: counted in
    the references); other keywords are ``AnalysisSettings`` fields
    (``samples``, ``seed``, ``examples``, ``ngram_orders``, ``length_edges``
    as a sequence of numbers...).
    """
    from bleustream.analysis.collect import Analyzer
    from bleustream.analysis.document import build
    from bleustream.metrics.metric_classes import as_spec

    specs = [as_spec(metric) for metric in metrics]
    if not systems:
        raise ValueError("analyze() needs at least one system")
    n = len(systems[0])
    if any(len(s) != n for s in systems) or any(len(r) != n for r in references):
        raise ValueError("every system and reference stream needs the same number of segments")
    if sources is not None and len(sources) != n:
        raise ValueError("the sources need one segment per hypothesis")
    chosen = _settings(settings, frequencies)
    names = list(names) if names is not None else [f"sys{i + 1}" for i in range(len(systems))]
    analyzer = Analyzer(specs, names, chosen)
    for i in range(n):
        refs = [stream[i] for stream in references if stream[i] is not None]
        analyzer.add(
            [s[i] for s in systems], refs, None if sources is None else sources[i], line=i + 1
        )
    return build(analyzer)


def _settings(given: Mapping[str, Any], frequencies: Mapping[str, int] | None) -> AnalysisSettings:
    from dataclasses import replace

    from bleustream.analysis.buckets import Edges
    from bleustream.analysis.settings import AnalysisSettings

    chosen = AnalysisSettings()
    values = dict(given)
    for name in ("length_edges", "length_diff_edges", "sentence_bleu_edges", "frequency_edges"):
        if name in values and not isinstance(values[name], Edges):
            whole = name != "sentence_bleu_edges"
            values[name] = Edges(tuple(values[name]), whole)
    if frequencies is not None:
        values.update(frequencies=dict(frequencies), frequency_source="counts")
    unknown = set(values) - set(AnalysisSettings.__dataclass_fields__)
    if unknown:
        raise TypeError(f"analyze() got unknown settings: {', '.join(sorted(unknown))}")
    return replace(chosen, **values)
