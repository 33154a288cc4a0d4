"""Statistics as data: the ``stats`` record format, written and read.

``-f stats`` writes each record as one JSON object on a line, carrying
every metric's raw sufficient statistics with the settings that produced
them, so that shards scored apart can be added up later
(``--input-format stats``) with the numbers, statistics and signature of
one run over the whole text.  Version 1 of the format, which other tools
may write::

    {"format": "bleustream-stats", "version": 1, "type": "corpus",
     "segments": 3004, "nrefs": 1,
     "metrics": [{"metric": "bleu",
                  "counting": {"tokenize": "13a", "lowercase": false, "max_order": 4},
                  "scoring": {"smooth_method": "exp", "smooth_value": null,
                              "effective_order": false},
                  "stats": [61842, 62688, 37245, 19290, 10957, 6251,
                            63398, 60394, 57390, 54386]}],
     "partial": false, "skipped": 0}

* ``type``: ``segment`` (one segment, with ``line`` and, for keyed input,
  ``id``), ``running`` or ``corpus``; ``system`` names the system when a
  run scores several.
* ``segments``: how many segments the statistics cover.
* ``nrefs``: references per segment (``var`` when it varies).
* ``metrics``: in the order asked; ``metric`` is the registry name;
  ``counting`` holds every setting that changes the statistics,
  ``scoring`` those that change only the score; ``stats`` is the metric's
  row in SacreBLEU's per-segment layout.

Reading, ``segment`` records are data; a ``corpus`` record that follows
segment records is their sum, and is passed over (it must cover as many
segments as they do); one with no segment records before it (since the
source's start or the previous corpus record) is one chunk of that many
segments.  So shards written with and without ``-sl`` may be given as
files, or concatenated on stdin.  ``running`` records are passed over.
Every record must have the same metrics with the same counting settings:
records that differ are bad input.  A record of an interrupted run
(``"partial": true``) is added like any other, and where it was read is
noted: a score of what it holds is partial too.

The records of a run that scored several systems name their ``system``
and come in turns: for each segment (or, without ``-sl``, for the corpus)
one record per system, in the same order every time.  Read back, each
turn is one unit with a row per system (``in_turns``); a record out of
turn is bad input, since the statistics of different systems never add.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from bleustream.errors import InputError, count_of
from bleustream.frozen import field_names
from bleustream.inputs.lines import LineSource
from bleustream.metrics.protocol import Row, is_number, is_whole
from bleustream.metrics.registry import STREAM_METRICS, Spec
from bleustream.metrics.stats_record import FORMAT_NAME, FORMAT_VERSION

# ----------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------


class Chunk(NamedTuple):
    """Statistics read from a stats record: one segment, or a corpus chunk."""

    rows: tuple[Row, ...]  # one per metric
    segments: int
    line: int  # the record's own line (of the text scored), else the stats file's
    id: str | None
    source: str
    source_line: int  # the line of the stats file
    is_segment: bool
    system: str | int | None = None  # the system the record names, if any
    skipped: int = 0  # a corpus record's count of bad lines skipped


class Layout(NamedTuple):
    """What the first record says every other record must match."""

    metrics: tuple[str, ...]
    counting: tuple[dict[str, Any], ...]
    scoring: tuple[dict[str, Any], ...]
    nrefs: int | str
    where: str  # file:line of the record that set it
    system: str | int | None = None  # the system of the first record, if it names one


def _describe_counting(names: tuple[str, ...], counting: tuple[dict[str, Any], ...]) -> str:
    return "; ".join(
        name + " " + ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(c.items()))
        for name, c in zip(names, counting)
    )


def note_partial(data: Any, source: LineSource, partial: list[tuple[str, int]]) -> None:
    """Adds where ``data`` was read to ``partial`` if it is the record of an
    interrupted run, the first of its file (one file, one run's records)."""
    partial_run = isinstance(data, dict) and data.get("partial") is True
    if partial_run and all(name != source.name for name, _ in partial):
        partial.append((source.name, source.line))


# A segment's integer statistics are kept in 32-bit arrays for resampling.
_MAX_SEGMENT_COUNT = 2**31 - 1


def _fits(default: Any, value: Any) -> bool:
    """Whether a setting read back has the JSON type of the setting's default."""
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return is_whole(value)
    if isinstance(default, str):
        return isinstance(value, str)
    if default is None:  # an optional number
        return value is None or is_number(value)
    return True


def settings_problem(name: str, given: Mapping[str, Any]) -> str | None:
    """A setting of a metric read back (stats or analysis records) whose type
    is not its default's."""
    settings = STREAM_METRICS[name].Settings
    defaults = settings()
    for setting in field_names(settings):
        default = getattr(defaults, setting)
        if not _fits(default, given.get(setting, default)):
            value = json.dumps(given[setting])
            return f"metric {name}: setting {setting} cannot be {value}"
    return None


def read_header(
    text: str,
    source: LineSource,
    kind: str = "stats",
    format_name: str = FORMAT_NAME,
    version: int = FORMAT_VERSION,
) -> dict[str, Any]:
    """One line of records read back as a JSON object with the format's name
    and version, the one header check of every record format (``kind``:
    "stats", "analysis"); anything else is an ``InputError`` at its line."""

    def bad(message: str) -> InputError:
        return InputError(message, source.name, source.line)

    article = "an" if kind[:1] in "aeiou" else "a"
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise bad(f"not a JSON {kind} record ({exc})") from None
    except RecursionError:
        raise bad(f"not {article} {kind} record: nested too deeply") from None
    if not isinstance(data, dict) or data.get("format") != format_name:
        raise bad(f'not {article} {kind} record: expected an object with "format": "{format_name}"')
    if data.get("version") != version:
        raise bad(
            f"{kind} format version {data.get('version')!r}; this bleustream reads "
            f"version {version}"
        )
    return data


def record_lines(source: LineSource) -> Iterator[str]:
    """The lines of a source of records that are not blank (a line that
    could not be decoded and was skipped is passed over too)."""
    for text in source:
        if text is not None and text.strip():
            yield text


def _parse(text: str, source: LineSource) -> dict[str, Any]:
    def bad(message: str) -> InputError:
        return InputError(message, source.name, source.line)

    data = read_header(text, source)
    if data.get("type") not in ("segment", "running", "corpus"):
        raise bad(f"unknown record type {data.get('type')!r}")
    segments = data.get("segments")
    if not is_whole(segments) or segments < 0:
        raise bad('"segments" must be a whole number')
    if data["type"] == "segment" and segments != 1:
        raise bad(f'a segment record of {json.dumps(segments)} "segments"; it covers 1')
    nrefs = data.get("nrefs")
    if nrefs != "var" and not (is_whole(nrefs) and nrefs >= 1):
        raise bad('"nrefs" must be a whole number of at least 1, or "var"')
    metrics = data.get("metrics")
    if not isinstance(metrics, list) or not metrics:
        raise bad('"metrics" must be a non-empty list')
    names: list[str] = []
    for entry in metrics:
        name = entry.get("metric") if isinstance(entry, dict) else None
        if not isinstance(name, str) or name not in STREAM_METRICS:
            known = ", ".join(STREAM_METRICS)
            raise bad(f"each metric needs a known name ({known})")
        if name in names:
            raise bad(f"metric {name} comes twice")
        names.append(name)
        for key in ("counting", "scoring"):
            if not isinstance(entry.get(key), dict):
                raise bad(f'metric {name}: "{key}" must be an object')
        problem = settings_problem(name, {**entry["counting"], **entry["scoring"]})
        if problem is not None:
            raise bad(problem)
        stats = entry.get("stats")
        if not isinstance(stats, list) or not all(map(is_number, stats)):
            raise bad(f'metric {name}: "stats" must be a list of numbers')
    return data


def layout_of(data: dict[str, Any], where: str) -> Layout:
    metrics = data["metrics"]
    return Layout(
        tuple(m["metric"] for m in metrics),
        tuple(m["counting"] for m in metrics),
        tuple(m["scoring"] for m in metrics),
        data.get("nrefs", 0),
        where,
        _system_of(data),
    )


def _system_of(data: dict[str, Any]) -> str | int | None:
    system = data.get("system")
    return system if isinstance(system, str) or is_whole(system) else None


def _describe_system(system: str | int | None) -> str:
    return "no system" if system is None else f"system {json.dumps(system)}"


def check_counting_given(label: str, counting: Mapping[str, Any], given: Mapping[str, Any]) -> None:
    """The one rule for counting options given when statistics of a metric
    (``label``: its name in messages) are read back: an option that agrees
    with the record's counting settings, or one not given, is fine; one
    that says otherwise is a ``ValueError`` (its caller names the record's
    file and line).  Every metric's read-back uses it."""
    for key in sorted(given.keys() & counting.keys()):
        if given[key] != counting[key]:
            raise ValueError(
                f"{label} statistics counted with {key}={json.dumps(counting[key])}; "
                f"{key}={json.dumps(given[key])} was given (the records carry their "
                "counting settings: give the same, or none, to read them)"
            )


def specs_of(
    layout: Layout,
    scoring_overrides: tuple[dict[str, Any], ...],
    counting_given: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[Spec, ...]:
    """The metrics of a layout: its counting settings, and its scoring settings
    unless ``scoring_overrides`` (one dict per metric) sets them.
    ``counting_given``: by metric name, the counting settings given on the
    command line (see ``check_counting_given``).

    A setting that changes only the score of one reference's statistics
    (``SCORE_ONLY_ONE_REF``) may be set anew over statistics of one
    reference; over several references' it chose the statistics, and
    setting it otherwise is an ``InputError``.
    """
    specs = []
    for name, counting, scoring, override in zip(
        layout.metrics, layout.counting, layout.scoring, scoring_overrides
    ):
        metric = STREAM_METRICS[name]
        for key in sorted(override.keys() & metric.SCORE_ONLY_ONE_REF):
            if layout.nrefs != 1 and override[key] != counting.get(key):
                raise InputError(
                    f"{name} {key}={json.dumps(override[key])} cannot be used when adding up "
                    f"these statistics: counted against {layout.nrefs} references, each "
                    f"segment kept those of the reference that {key}="
                    f"{json.dumps(counting.get(key))} chose",
                    layout.where,
                )
        fields = {**counting, **scoring, **override}
        try:
            settings = metric.Settings(**fields)
        except (TypeError, ValueError) as exc:
            raise InputError(f"settings of {name} cannot be used: {exc}", layout.where) from None
        try:
            given = (counting_given or {}).get(name, {})
            check_counting_given(metric.label(settings), counting, given)
        except ValueError as exc:
            raise InputError(str(exc), layout.where) from None
        specs.append(Spec(metric, settings))
    return tuple(specs)


def read_stats(
    source: LineSource,
    layout: Layout | None,
    several_systems: bool = False,
    partial: list[tuple[str, int]] | None = None,
) -> Iterator[Chunk | Layout]:
    """The chunks of one stats source, after a ``Layout`` if ``layout`` is None.

    ``partial``: where a record of an interrupted run is read (its file and
    line, the first of the file) is added to it, a record passed over included.

    Each record is checked against the layout (the first record's); a
    record of other metrics or counting settings is an ``InputError``, and
    so is a record of another system unless ``several_systems`` (then the
    caller keeps the systems apart by ``Chunk.system``): added together,
    two systems' statistics would be a score of neither.  Lines that are
    empty are passed over.
    """
    # Per system: segments of the segment records since the last corpus record.
    since_corpus: dict[str | int | None, int] = {}
    for text in record_lines(source):
        data = _parse(text, source)
        here = layout_of(data, f"{source.name}:{source.line}")
        if layout is None:
            layout = here
            yield layout
        else:
            _check_against(here, layout, several_systems, source)
        kind = data["type"]
        if partial is not None:
            note_partial(data, source, partial)
        if kind == "running":
            continue
        before = since_corpus.get(here.system, 0)
        if kind == "corpus":
            since_corpus[here.system] = 0
            if before:
                if before != data["segments"]:
                    raise InputError(
                        f"a corpus record of {count_of(data['segments'], 'segment')} after "
                        f"segment records of {count_of(before, 'segment')}",
                        source.name,
                        source.line,
                    )
                continue  # the sum of the segment records just read
        else:
            since_corpus[here.system] = before + data["segments"]
        rows = _rows_of(data, layout, kind, source)
        record_id = data.get("id")
        line = data.get("line")
        skipped = data.get("skipped")
        yield Chunk(
            rows,
            data["segments"],
            line if is_whole(line) else source.line,
            record_id if isinstance(record_id, str) else None,
            source.name,
            source.line,
            kind == "segment",
            here.system,
            skipped if is_whole(skipped) else 0,
        )


def _check_against(here: Layout, layout: Layout, several_systems: bool, source: LineSource) -> None:
    """An ``InputError`` where a record's layout ``here`` cannot add to ``layout``'s."""
    if here.metrics != layout.metrics or here.counting != layout.counting:
        raise InputError(
            "statistics counted with other settings than those of "
            f"{layout.where}: {_describe_counting(here.metrics, here.counting)} here, "
            f"{_describe_counting(layout.metrics, layout.counting)} there",
            source.name,
            source.line,
        )
    if here.nrefs != layout.nrefs:
        raise InputError(
            f"statistics of {here.nrefs} references per segment, but "
            f"{layout.where} has {layout.nrefs}",
            source.name,
            source.line,
        )
    if here.system != layout.system and not several_systems:
        raise InputError(
            f"statistics of {_describe_system(here.system)}, but {layout.where} has "
            f"{_describe_system(layout.system)}; the statistics of several systems "
            "do not add up to a score: merge each system's records apart",
            source.name,
            source.line,
        )


def _rows_of(
    data: dict[str, Any], layout: Layout, kind: str, source: LineSource
) -> tuple[Any, ...]:
    """A record's rows, each checked against its metric's settings."""
    rows = []
    for spec_name, entry in zip(layout.metrics, data["metrics"]):
        metric = STREAM_METRICS[spec_name]
        row = tuple(entry["stats"])
        try:
            settings = metric.Settings(**entry["counting"], **entry["scoring"])
            size = metric.row_size(settings)
        except (TypeError, ValueError) as exc:
            raise InputError(
                f"settings of {spec_name} cannot be used: {exc}", source.name, source.line
            ) from None
        if len(row) != size:
            raise InputError(
                f"{spec_name} statistics of {len(row)} numbers; its settings make {size}",
                source.name,
                source.line,
            )
        problem = row_problem(metric, row, settings, data["segments"], data["nrefs"], kind)
        if problem is not None:
            raise InputError(f"{spec_name} statistics: {problem}", source.name, source.line)
        rows.append(metric.from_record(row, settings))
    return tuple(rows)


def row_problem(
    metric: Any, row: Row, settings: Any, segments: int, nrefs: int | str, kind: str
) -> str | None:
    """What is wrong with a row of ``segments`` segments read back (``kind``
    "segment": one segment's, whose counts fit the 32-bit arrays a test
    resamples), or None; stats and analysis records alike."""
    problem = metric.check_row(row, settings, segments, nrefs)
    if problem is not None:
        return problem
    if segments == 0 and any(row):
        return "a record of 0 segments holds statistics"
    if kind == "segment" and any(
        isinstance(x, int) and x > _MAX_SEGMENT_COUNT for x in metric.from_record(row, settings)
    ):
        return f"a count above {_MAX_SEGMENT_COUNT} in one segment"
    return None


def _out_of_turn(chunk: Chunk, expected: str | int | None, why: str) -> InputError:
    return InputError(
        f"statistics of {_describe_system(chunk.system)} where {_describe_system(expected)}'s "
        f"turn was due ({why}); the records of several systems come in turns, one per "
        "system in the same order, as bleustream writes them",
        chunk.source,
        chunk.source_line,
    )


def in_turns(chunks: Iterator[Chunk | Layout]) -> Iterator[Chunk | Layout | list[Chunk]]:
    """The chunks of records that name no system, or one, as they come; those of
    several systems grouped into turns (a list, one chunk per system).

    The first turn sets the systems and their order: it ends where its first
    system comes again, so only the first turn waits for the next record.
    Every later turn must name the same systems in the same order, and its
    records must cover the same segments (the same line, for segment
    records): anything else is an ``InputError`` at the record out of turn.
    """
    order: list[str | int | None] | None = None
    turn: list[Chunk] = []
    for chunk in chunks:
        if isinstance(chunk, Layout):
            yield chunk
            continue
        if order is None:
            if chunk.system is None and not turn:
                order = [None]
            elif turn and chunk.system == turn[0].system:
                order = [c.system for c in turn]
                if len(order) == 1:
                    yield turn[0]
                else:
                    yield turn
                turn = []
            else:
                if chunk.system is None:
                    raise _out_of_turn(chunk, turn[0].system, "it names no system")
                if any(c.system == chunk.system for c in turn):
                    raise _out_of_turn(chunk, turn[0].system, "it came twice in one turn")
                if turn:
                    _check_turn(turn[0], chunk)
                turn.append(chunk)
                continue
        if len(order) == 1:
            if chunk.system != order[0]:
                raise InputError(
                    f"statistics of {_describe_system(chunk.system)}, but the records "
                    f"before have {_describe_system(order[0])}; the statistics of several "
                    "systems do not add up to a score: merge each system's records apart",
                    chunk.source,
                    chunk.source_line,
                )
            yield chunk
            continue
        expected = order[len(turn)]
        if chunk.system != expected:
            raise _out_of_turn(chunk, expected, "the systems come in another order")
        if turn:
            _check_turn(turn[0], chunk)
        turn.append(chunk)
        if len(turn) == len(order):
            yield turn
            turn = []
    if turn:
        if order is None:  # the first turn ran to the end of the input
            yield turn if len(turn) > 1 else turn[0]
        else:
            raise InputError(
                f"the input ends in the middle of a turn: {len(turn)} of {len(order)} "
                "systems have statistics for the last "
                + ("segment" if turn[0].is_segment else "chunk"),
                turn[-1].source,
                turn[-1].source_line,
            )


def _check_turn(head: Chunk, chunk: Chunk) -> None:
    """The records of one turn cover the same segments."""
    if chunk.is_segment != head.is_segment or chunk.segments != head.segments:
        raise _out_of_turn(chunk, head.system, "its segments are not the turn's")
    if chunk.is_segment and chunk.line != head.line:
        raise _out_of_turn(chunk, head.system, f"line {chunk.line} in the turn of line {head.line}")
