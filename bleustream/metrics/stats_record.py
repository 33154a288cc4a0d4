"""The stats record's schema: its name and version, and a record built from
rows.  Pure data: ``bleustream.output`` writes these records and
``bleustream.inputs.stats_reader`` reads them back (its docstring, and
docs/stats-record.md, give the format)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bleustream.frozen import field_names
from bleustream.metrics.protocol import Row
from bleustream.metrics.registry import Spec

FORMAT_NAME = "bleustream-stats"
FORMAT_VERSION = 1


def _recorded(spec: Spec) -> dict[str, Any]:
    """The settings a record carries: all but those that only add to the
    output (a settings class's ``_OUTPUT``, as BLEU's ``--bleu-orders``)."""
    settings = spec.settings
    return {name: getattr(settings, name) for name in field_names(type(settings), output=False)}


def counting_settings(spec: Spec) -> dict[str, Any]:
    """The settings of a metric that change its statistics."""
    return {
        key: value for key, value in _recorded(spec).items() if key not in spec.metric.SCORE_ONLY
    }


def scoring_settings(spec: Spec) -> dict[str, Any]:
    """The settings of a metric that change only the score of summed statistics."""
    return {key: value for key, value in _recorded(spec).items() if key in spec.metric.SCORE_ONLY}


def record_object(
    kind: str,
    specs: tuple[Spec, ...],
    rows: tuple[Row | Mapping[str, Any], ...],
    segments: int,
    nrefs: int | str,
    extra: Mapping[str, Any],
) -> dict[str, Any]:
    """One stats record as a JSON-ready dict (``extra``: line, id, system...)."""
    data: dict[str, Any] = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "type": kind}
    data.update(extra)
    data["segments"] = segments
    data["nrefs"] = nrefs
    data["metrics"] = [
        {
            "metric": spec.name,
            "counting": counting_settings(spec),
            "scoring": scoring_settings(spec),
            # A row; NIST's statistics are an object of tables.
            "stats": row if isinstance(row, Mapping) else list(row),
        }
        for spec, row in zip(specs, rows)
    ]
    return data
