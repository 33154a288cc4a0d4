"""NIST's stats records read back (``--input-format stats``).

NIST's record carries tables, not a row (docs/stats-record.md): the
corpus's reference n-gram counts and, per distinct matched hypothesis
n-gram, its clipped count, with the counting settings they were made with.
Each record becomes a one-system ``NistCorpus``; the records of each
system are merged into one.  The first record's settings are the run's: a
later record of other settings, a counting option given now that says
otherwise, or a record that is not NIST's, is an ``InputError`` at its line.
Where a record of an interrupted run (``"partial": true``) was read is
noted (``partial_at``): a score of what it holds is partial too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from bleustream.errors import InputError
from bleustream.inputs.lines import LineSource
from bleustream.inputs.stats_reader import check_counting_given, note_partial
from bleustream.metrics import nist
from bleustream.metrics.stats_record import FORMAT_NAME, FORMAT_VERSION

# The counting settings a record carries, which every record must share.
_COUNTING = ("case_sensitive", "tokenize", "order")


def are_nist_records(sources: Sequence[LineSource]) -> bool:
    """Whether the first record of the sources (the first line not blank) is
    a NIST record; nothing is read from them (see ``LineSource.peek``)."""
    for source in sources:
        text = source.peek()
        if text is None:
            continue
        try:
            data = json.loads(text)
            return bool(data["metrics"][0]["metric"] == nist.NAME)
        except (ValueError, LookupError, TypeError):
            return False
    return False


class NistRecords:
    """NIST's records read back and merged per system; ``settings`` are the
    first record's (None until one is read).

    ``given``: counting settings given on the command line or in a config
    file, which the records must have been counted with.
    """

    def __init__(self, given: Mapping[str, Any]) -> None:
        self.settings: nist.Settings | None = None
        self.by_system: dict[str | int | None, nist.NistCorpus] = {}
        self._given = given
        self._where = ""
        # Where a record of an interrupted run was read: file and line (per file).
        self.partial_at: list[tuple[str, int]] = []

    def read(self, source: LineSource) -> None:
        """Merges every record of ``source`` (empty lines passed over)."""
        for text in source:
            if text is None or not text.strip():
                continue
            try:
                data = json.loads(text)
                system, part = self._record(data, f"{source.name}:{source.line}")
            except json.JSONDecodeError as exc:
                message = f"not a JSON stats record ({exc.msg})"
                raise InputError(message, source.name, source.line) from None
            except ValueError as exc:
                raise InputError(str(exc), source.name, source.line) from None
            note_partial(data, source, self.partial_at)
            if system in self.by_system:
                self.by_system[system].merge(part)
            else:
                self.by_system[system] = part

    def corpus(self, name: str) -> tuple[nist.NistCorpus | None, list[Any] | None]:
        """Every system's merged corpus as one (None if no record was read),
        and the systems' names (None for one that names none); ``name``
        names the input in the error of systems of other references."""
        if not self.by_system:
            return None, None
        names = list(self.by_system)
        first = self.by_system[names[0]]
        # Every system's records carry the same references: their table is one.
        for other_name in names[1:]:
            other = self.by_system[other_name]
            if other.segments != first.segments or other.table.counts != first.table.counts:
                raise InputError(
                    f"the NIST statistics of system {other_name} are of other references "
                    f"or segments than those of {names[0]}",
                    name,
                )
        systems = [corpus.systems[0] for corpus in self.by_system.values()]
        corpus = nist.NistCorpus(first.order, systems, first.table, first.segments, first.nrefs)
        return corpus, (names if len(names) > 1 or names[0] is not None else None)

    def _record(self, data: Any, where: str) -> tuple[str | int | None, nist.NistCorpus]:
        metric = _nist_metric(data)
        settings = self._settings_of(metric.get("counting"), where)
        segments, nrefs = data.get("segments"), data.get("nrefs")
        if not (
            isinstance(segments, int) and segments >= 0 and isinstance(nrefs, int) and nrefs > 0
        ):
            raise ValueError("segments and nrefs must be whole numbers")
        system = data.get("system")
        if system is not None and not isinstance(system, (str, int)):
            raise ValueError("a system is named by a string or a number")
        corpus = nist.corpus_of_stats(metric.get("stats"), settings.order, segments, nrefs)
        return system, corpus

    def _settings_of(self, counting: Any, where: str) -> nist.Settings:
        """A record's counting settings, checked against the first record's
        (and, for the first, against those given)."""
        if not isinstance(counting, dict):
            raise ValueError('a NIST record needs its "counting" settings')
        if self.settings is None:
            own = {key: counting.get(key) for key in _COUNTING}
            try:
                self.settings = nist.Settings(**own)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"NIST's counting settings cannot be used: {exc}") from None
            check_counting_given(nist.label(self.settings), own, self._given)
            self._where = where
            return self.settings
        for key in _COUNTING:
            if counting.get(key) != getattr(self.settings, key):
                raise ValueError(
                    f"NIST statistics counted with {key}={json.dumps(counting.get(key))}; "
                    f"those of {self._where} with {key}={json.dumps(getattr(self.settings, key))}"
                )
        return self.settings


def _nist_metric(data: Any) -> dict[str, Any]:
    """The one metric object of a NIST record; a ValueError says what is wrong."""
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
            f"these are statistics of {metric.get('metric')!r}, where NIST's are read "
            "(-m nist was given, or the first record is NIST's)"
        )
    return metric
