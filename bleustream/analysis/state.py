"""An analysis's state as one JSON-ready record, and back: what ``-j N``'s
workers hand back and what ``--analyze -f stats`` writes, so that parts of
a stream analyzed apart merge (``Analyzer.merge``) into the analysis of the
whole.  The record's layout is in docs/analysis.md."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bleustream.analysis.buckets import Edges
from bleustream.analysis.collect import Analyzer
from bleustream.analysis.examples import Example
from bleustream.analysis.settings import SENTENCE_KINDS, AnalysisSettings
from bleustream.metrics.registry import Spec, metric_of, spec_by_name
from bleustream.significance.resampling import SegmentStore

FORMAT_NAME = "bleustream-analysis"
FORMAT_VERSION = 1
# The settings that decide what a part counts: parts merge only when equal.
COUNTED = (
    "length_edges",
    "length_diff_edges",
    "sentence_bleu_edges",
    "ngram_orders",
    "examples",
)


def _rows(totals: Sequence[Sequence[Any]]) -> list[list[list[Any]]]:
    return [[list(row) for row in per_system] for per_system in totals]


def _tuples(rows: Sequence[Sequence[Sequence[Any]]]) -> list[tuple[tuple[Any, ...], ...]]:
    return [tuple(tuple(row) for row in per_system) for per_system in rows]


def counted_settings(settings: AnalysisSettings) -> dict[str, Any]:
    out = {}
    for name in COUNTED:
        value = getattr(settings, name)
        out[name] = value.as_list() if isinstance(value, Edges) else value
    out["ngram_orders"] = list(settings.ngram_orders)
    out["keeps_segments"] = settings.samples > 0
    return out


def to_record(an: Analyzer) -> dict[str, Any]:
    """Everything ``an`` has counted, as plain JSON data."""
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "systems": an.names,
        "metrics": [
            {"metric": spec.name, "settings": spec.settings._asdict()} for spec in an.specs
        ],
        "settings": counted_settings(an.settings),
        "offset": an.offset,
        "segments": an.segments,
        "nrefs": sorted(an.nrefs),
        "totals": _rows(an.totals),
        "buckets": {
            kind: {
                "segments": an.bucket_segments[kind],
                "rows": [_rows(rows) for rows in an.bucket_rows[kind]],
                "own_counts": an.own_counts[kind],
                "keys": None if an.keys is None else an.keys[kind].tolist(),
            }
            for kind in SENTENCE_KINDS
        },
        "store": None if an.store is None else an.store.state(),
        "words": an.words.state(),
        "ngrams": [[[list(g), n] for g, n in kept.items()] for kept in an.ngrams.per_system()],
        "examples": [[_example(e) for e in [*kept.better, *kept.worse]] for kept in an.examples],
        "running": {
            "step": an.running.step,
            "points": [[n, _rows(r)] for n, r in an.running.points],
        },
    }


def _example(e: Example) -> list[Any]:
    return [e.index, e.line, e.baseline_score, e.system_score, list(e.texts)]


def specs_of(record: Mapping[str, Any]) -> tuple[Spec, ...]:
    """The metrics a record was counted with."""
    specs = []
    for entry in record["metrics"]:
        settings_type = metric_of(entry["metric"]).Settings
        specs.append(spec_by_name(entry["metric"], settings_type(**entry["settings"])))
    return tuple(specs)


def from_record(
    record: Mapping[str, Any], settings: AnalysisSettings, specs: Sequence[Spec]
) -> Analyzer:
    """An analyzer holding what the record counted; ``settings`` must count
    as the record's did (``ValueError`` names the difference)."""
    if record.get("format") != FORMAT_NAME or record.get("version") != FORMAT_VERSION:
        raise ValueError(f"not a {FORMAT_NAME} record, version {FORMAT_VERSION}")
    wanted = counted_settings(settings)
    for key, value in record["settings"].items():
        if wanted.get(key) != value:
            raise ValueError(f"counted with {key} {value}, not {wanted.get(key)}")
    an = Analyzer(specs, record["systems"], settings, offset=record["offset"])
    an.segments, an.nrefs = record["segments"], set(record["nrefs"])
    an.totals = _tuples(record["totals"])
    for kind in SENTENCE_KINDS:
        part = record["buckets"][kind]
        an.bucket_segments[kind] = list(part["segments"])
        an.set_bucket_rows(kind, [_tuples(rows) for rows in part["rows"]])
        an.own_counts[kind] = [list(x) for x in part["own_counts"]]
        if an.keys is not None:
            an.keys[kind].extend(part["keys"])
    if record["store"] is not None:
        an.store = SegmentStore.from_state(record["store"], record["segments"])
    an.words.load(record["words"])
    an.ngrams.load([[(tuple(g), n) for g, n in kept] for kept in record["ngrams"]])
    for kept, examples in zip(an.examples, record["examples"]):
        for index, line, base, system, texts in sorted(examples):
            kept.add(index, line, (base, system), tuple(texts))  # type: ignore[arg-type]
    an.running.step = record["running"]["step"]
    an.running.points = [(n, _tuples(rows)) for n, rows in record["running"]["points"]]
    return an


def analyze_part(
    specs: Sequence[Spec],
    names: Sequence[str],
    settings: AnalysisSettings,
    offset: int,
    segments: Sequence[tuple[Sequence[str], Sequence[str], str | None, int, Any]],
) -> dict[str, Any]:
    """A worker's task: the record of consecutive segments (hypotheses,
    references, source, line, and their rows where counted already) that
    start ``offset`` segments into the stream."""
    an = Analyzer(specs, names, settings, offset=offset)
    for segment in segments:
        an.add(*segment)
    return to_record(an)


def analyze_task(task: tuple[Any, ...]) -> dict[str, Any]:
    """``analyze_part`` of one task (specs, names, settings, offset,
    segments), as ``ParallelCounter.mapped`` sends it to a worker."""
    return analyze_part(*task)
