"""The analysis document: every analysis's numbers, as the JSON output
prints them and ``bleustream.analyze`` returns them (schema: docs/analysis.md).

Intervals and paired tests are SacreBLEU's bootstrap (``--paired-bs``, and
``-ci`` for a single system) run by ``bleustream.significance.draws`` on the
segments of each bucket, with the run's seed: a bucket's numbers are those
SacreBLEU gives for that bucket's segments alone.  A bucket's score is its
summed statistics scored once, SacreBLEU's corpus score of its segments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bleustream._version import __version__
from bleustream.analysis.collect import Analyzer
from bleustream.analysis.running import listed
from bleustream.analysis.settings import SENTENCE_KINDS
from bleustream.analysis.words import f_measure
from bleustream.extras import require_numpy
from bleustream.metrics import bootstrap
from bleustream.metrics.protocol import Row
from bleustream.metrics.registry import Spec
from bleustream.significance import draws

SCHEMA = "bleustream.analysis"
SCHEMA_VERSION = 1
HISTOGRAM_BINS = 30
MEASURES = ("precision", "recall", "f_measure")
# Metrics whose better score is the lower one (an error rate).
LOWER_IS_BETTER = frozenset({"ter"})


def _row_scorer(spec: Spec) -> Any:
    metric, settings = spec.metric, spec.settings
    return lambda sums: metric.score_rows(sums, settings)


def build(an: Analyzer) -> dict[str, Any]:
    """The document of everything the analyzer has seen."""
    settings = an.settings
    if an.merged:
        an.resum()
    np = require_numpy("--analyze's intervals") if settings.samples > 0 else None
    matrices = an.segment_matrices() if np is not None and an.segments else None
    labels = [spec.label for spec in an.specs]
    nrefs = sorted(an.nrefs)
    nref: int | str = nrefs[0] if len(nrefs) == 1 else "var"
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "bleustream": __version__,
        "systems": an.names,
        "baseline": an.names[0],
        "segments": an.segments,
        "metrics": labels,
        "signatures": {
            spec.label: spec.signature_object(nref).format() if an.segments else ""
            for spec in an.specs
        },
        "resampling": {
            "samples": settings.samples,
            "seed": bootstrap.seed_text(settings.seed) if settings.samples > 0 else None,
            "test": "paired-bs" if an.systems > 1 else "ci",
        },
    }
    everything = list(range(an.segments))
    doc["scores"] = _scored(an, an.totals, matrices, everything)
    if matrices is not None and an.systems > 1:
        for entry, dist in zip(doc["scores"][1:], _differences(np, an, matrices)):
            entry["differences"] = dist
    doc["sentence_buckets"] = [_sentence_buckets(an, kind, matrices) for kind in SENTENCE_KINDS]
    doc["word_accuracy"] = _word_accuracy(an, np)
    doc["ngram_differences"] = _ngram_differences(an)
    doc["examples"] = {
        "k": settings.examples,
        "metric": labels[an.bleu],
        "compared": [
            {"system": name, **kept.listed()} for name, kept in zip(an.names[1:], an.examples)
        ],
    }
    doc["running"] = {
        "metrics": labels,
        "points": listed(an.running.points, an.offset + an.segments, an.totals, an.specs),
    }
    return doc


def _scored(
    an: Analyzer,
    totals: Sequence[Sequence[Row]],
    matrices: list[list[Any]] | None,
    segments: Sequence[int],
) -> list[dict[str, Any]]:
    """Per system: each metric's score of the summed rows, with the bootstrap's
    mean and interval and the paired test's p-value (``None`` where none)."""
    out = []
    segments = list(segments)
    for name, rows in zip(an.names, totals):
        scores = {
            spec.label: {"score": spec.score(row).score if segments else None}
            for spec, row in zip(an.specs, rows)
        }
        out.append({"system": name, "metrics": scores})
    if matrices is None or not segments:
        return out
    settings = an.settings
    labels = [spec.label for spec in an.specs]
    scorers = {spec.label: _row_scorer(spec) for spec in an.specs}
    systems = [
        draws.SystemStats(name, {label: m[segments] for label, m in zip(labels, per_system)})
        for name, per_system in zip(an.names, matrices)
    ]
    if len(systems) == 1:
        results = draws.confidence_intervals(
            systems[0].stats, scorers, settings.samples, settings.seed, systems[0].name
        )
    else:
        results = draws.paired_bs(systems[0], systems[1:], scorers, settings.samples, settings.seed)
    for k, result in enumerate(results):
        entry = out[k // len(labels)]["metrics"][result.metric]
        entry.update(mean=result.mean, ci=result.ci, p_value=result.p_value)
    return out


def _differences(np: Any, an: Analyzer, matrices: list[list[Any]]) -> list[dict[str, Any]]:
    """Per compared system and metric, a histogram of the bootstrap's paired
    differences (system minus baseline), the draws of ``--paired-bs``."""
    settings = an.settings
    out = []
    base = matrices[0]
    for system in matrices[1:]:
        per_metric = {}
        for spec, bl, sy in zip(an.specs, base, system):
            scorer = _row_scorer(spec)
            seed = settings.seed if settings.seed else None
            a, b = bootstrap.bootstrap_scores(
                np,
                seed,
                settings.samples,
                [(bootstrap.prepare(np, bl), scorer), (bootstrap.prepare(np, sy), scorer)],
            )
            diff = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
            counts, edges = np.histogram(diff, bins=HISTOGRAM_BINS)
            # Which system scores higher in each resample (lower for TER).
            sign = -1 if spec.name in LOWER_IS_BETTER else 1
            per_metric[spec.label] = {
                "edges": [float(x) for x in edges],
                "counts": [int(x) for x in counts],
                "wins": {
                    "baseline": int(np.sum(sign * diff < 0)),
                    "system": int(np.sum(sign * diff > 0)),
                    "ties": int(np.sum(diff == 0)),
                },
            }
        out.append(per_metric)
    return out


def _sentence_buckets(an: Analyzer, kind: str, matrices: list[list[Any]] | None) -> dict[str, Any]:
    edges = an.edges[kind]
    keys = None
    if matrices is not None and an.keys is not None:
        np = require_numpy("--analyze's intervals")
        keys = np.frombuffer(an.keys[kind], dtype=np.int16)
    buckets = []
    rows = an.bucket_rows[kind]
    for b, label in enumerate(edges.labels):
        segments: Any = range(an.bucket_segments[kind][b])
        if keys is not None:
            segments = np.flatnonzero(keys == b).tolist()
        systems = _scored(an, rows[b], matrices, segments)
        for s, entry in enumerate(systems):
            entry["own_count"] = an.own_counts[kind][s][b]
        buckets.append(
            {"label": label, "segments": an.bucket_segments[kind][b], "systems": systems}
        )
    return {
        "by": kind,
        "edges": edges.as_list(),
        "bucketed_by": "reference" if kind == "length" else "baseline",
        "buckets": buckets,
    }


def _word_accuracy(an: Analyzer, np: Any) -> dict[str, Any]:
    settings = an.settings
    edges = settings.frequency_edges
    nb = len(edges)
    bucket = an.words.bucket_of(edges, settings.frequencies)
    totals = an.words.bucket_totals(bucket, nb)
    intervals = None
    if np is not None and an.segments:
        matrix = an.words.segment_matrix(np, bucket, nb)
        intervals = _word_intervals(np, an, matrix)
    buckets = []
    for b, label in enumerate(edges.labels):
        row = totals[b]
        systems = []
        for s, name in enumerate(an.names):
            out, matches = row[1 + 2 * s], row[2 + 2 * s]
            entry: dict[str, Any] = {"system": name, "words": out, "matches": matches}
            entry.update(zip(MEASURES, f_measure(matches, row[0], out)))
            if intervals is not None:
                entry["intervals"] = intervals[s, b]
            systems.append(entry)
        buckets.append({"label": label, "reference_words": row[0], "systems": systems})
    return {
        "frequency_from": settings.frequency_source,
        "edges": edges.as_list(),
        "buckets": buckets,
    }


def _word_intervals(np: Any, an: Analyzer, matrix: Any) -> dict[tuple[int, int], Any]:
    """Bootstrap mean and interval of each system's precision, recall and
    F-measure in each bucket: SacreBLEU's draw of segments (its seed, its
    float32 sums) of every bucket's counts at once, scored by each measure."""
    settings = an.settings
    segments, nbuckets, _ = matrix.shape
    cells = [(s, b) for s in range(an.systems) for b in range(nbuckets)]
    # matches, ref, out of every (system, bucket), side by side.
    columns = [matrix[:, b, [2 + 2 * s, 0, 1 + 2 * s]] for s, b in cells]
    stats = np.ascontiguousarray(np.concatenate(columns, axis=1))
    rng = np.random.default_rng(settings.seed)
    indices = bootstrap.bootstrap_indices(rng, segments, settings.samples)
    (sums,) = bootstrap.resample_sums(np, [bootstrap.prepare(np, stats)], indices)
    sums = np.asarray(sums, dtype=np.float64)
    out: dict[tuple[int, int], Any] = {}
    for k, cell in enumerate(cells):
        measures = _measures(np, sums[:, 3 * k : 3 * k + 3])
        out[cell] = {}
        for measure, scores in zip(MEASURES, measures):
            mean, ci = bootstrap.score_estimate_ci(np, scores)
            out[cell][measure] = {"mean": mean, "ci": ci}
    return out


def _measures(np: Any, sums: Any) -> tuple[Any, Any, Any]:
    """Precision, recall and F-measure of summed (matches, ref, out) rows,
    as ``words.f_measure`` computes one."""
    m, r, o = sums[:, 0], sums[:, 1], sums[:, 2]
    some = m > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(some, m / r, 0.0)
        precision = np.where(some, m / o, 0.0)
        f = np.where(some, 2 * precision * recall / (precision + recall), 0.0)
    return precision, recall, f


def _ngram_differences(an: Analyzer) -> dict[str, Any]:
    settings = an.settings
    compared = []
    for s, name in enumerate(an.names[1:], start=1):
        baseline_more, system_more = an.ngrams.differences(
            0, s, settings.alpha, settings.ngrams_listed
        )
        compared.append(
            {"system": name, "baseline_more": baseline_more, "system_more": system_more}
        )
    low, high = settings.ngram_orders
    return {"orders": [low, high], "alpha": settings.alpha, "compared": compared}
