"""NIST's stats records read back (``-m nist --input-format stats``).

NIST's record carries tables, not a row (docs/stats-record.md): the
corpus's reference n-gram counts and, per distinct matched hypothesis
n-gram, its clipped count.  Each record becomes a one-system
``NistCorpus``; the run merges them.  A record of other settings, or one
that is not NIST's, is an ``InputError`` at its line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from bleustream.errors import InputError
from bleustream.inputs.lines import LineSource
from bleustream.metrics import nist
from bleustream.metrics.stats_record import FORMAT_NAME, FORMAT_VERSION

# The settings a record must share with the run to be merged into it.
_COUNTING = ("case_sensitive", "tokenize", "order")


def read_nist_records(
    source: LineSource, settings: nist.Settings
) -> Iterator[tuple[str | int | None, nist.NistCorpus]]:
    """``(system, corpus)`` of each record of ``source`` (empty lines passed over)."""
    for text in source:
        if text is None or not text.strip():
            continue
        try:
            yield _record(json.loads(text), settings)
        except json.JSONDecodeError as exc:
            message = f"not a JSON stats record ({exc.msg})"
            raise InputError(message, source.name, source.line) from None
        except ValueError as exc:
            raise InputError(str(exc), source.name, source.line) from None


def _record(data: Any, settings: nist.Settings) -> tuple[str | int | None, nist.NistCorpus]:
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise ValueError(f'not a stats record (no "format": "{FORMAT_NAME}")')
    if data.get("version") != FORMAT_VERSION:
        raise ValueError(f"stats records of version {data.get('version')!r}: this reads 1")
    if data.get("type") != "corpus":
        raise ValueError("NIST's stats records are corpus records")
    metrics = data.get("metrics")
    if not (isinstance(metrics, list) and len(metrics) == 1 and isinstance(metrics[0], dict)):
        raise ValueError("a NIST stats record holds one metric")
    metric = metrics[0]
    if metric.get("metric") != nist.NAME:
        raise ValueError(
            f"these are statistics of {metric.get('metric')!r}: "
            "-m nist --input-format stats merges NIST's"
        )
    counting = metric.get("counting")
    if not isinstance(counting, dict):
        raise ValueError('a NIST record needs its "counting" settings')
    for key in _COUNTING:
        if counting.get(key) != getattr(settings, key):
            raise ValueError(
                f"NIST statistics counted with {key}={json.dumps(counting.get(key))}; "
                f"this run's {key} is {json.dumps(getattr(settings, key))}"
            )
    segments, nrefs = data.get("segments"), data.get("nrefs")
    if not (isinstance(segments, int) and segments >= 0 and isinstance(nrefs, int) and nrefs > 0):
        raise ValueError("segments and nrefs must be whole numbers")
    system = data.get("system")
    if system is not None and not isinstance(system, (str, int)):
        raise ValueError("a system is named by a string or a number")
    return system, nist.corpus_of_stats(metric.get("stats"), settings.order, segments, nrefs)
