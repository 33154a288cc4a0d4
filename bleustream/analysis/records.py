"""Analysis records read back (``--input-format stats --analyze``): each
field checked against what a run could have written, then the parts merged.

The files are read and each line's header checked as stats records are
(``inputs.stats_reader``: ``record_lines``, ``read_header``).  A record is
then checked field by field, against the settings of the merging run and
against itself: the types, the lengths (one entry per system, metric,
bucket), every row of statistics as its metric checks a row of that many
segments (``stats_reader.row_problem``), and the counts that must agree:
every kind's buckets hold the record's segments, each segment's kept rows
and bucket numbers are as many as its segments, the summed rows are the
sums of the parts, the words' and n-grams' counts are those of the BLEU
rows.  A field no run could have written is an ``InputError`` naming the
file, the line and the field.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, BinaryIO, NoReturn

from bleustream.analysis.collect import Analyzer, bleu_index
from bleustream.analysis.running import MAX_POINTS
from bleustream.analysis.settings import SENTENCE_KINDS, AnalysisSettings
from bleustream.analysis.state import FORMAT_NAME, FORMAT_VERSION, counted_settings, from_record
from bleustream.errors import InputError
from bleustream.extras import require_numpy
from bleustream.frozen import field_names
from bleustream.inputs.items import open_stats
from bleustream.inputs.lines import BadLinePolicy
from bleustream.inputs.options import ReadOptions
from bleustream.inputs.stats_reader import read_header, record_lines, row_problem, settings_problem
from bleustream.metrics.protocol import MAX_COUNT, is_number, is_whole
from bleustream.metrics.registry import STREAM_METRICS, Spec

# Each segment's bucket numbers are kept in 16-bit arrays, its words' in 64-bit ones.
_MAX_KEY = 2**15 - 1
# A word's count in one segment, as 32-bit arrays hold a segment's counts:
# summed over up to 2**32 segments in 64-bit integers, it cannot overflow.
_MAX_WORD_COUNT = 2**31 - 1
# A sentence score: 0 to 100, which rounding in its exponent may pass by a hair.
_MAX_SENTENCE_SCORE = 100 * (1 + 1e-12)


class RecordProblem(ValueError):
    """A field of an analysis record that no run could have written."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"field {field}: {problem}")


def _bad(field: str, problem: str) -> NoReturn:
    raise RecordProblem(field, problem)


def _shown(value: Any) -> str:
    text = json.dumps(value) if _jsonable(value) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def _list(value: Any, field: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        _bad(field, f"must be a list, not {_shown(value)}")
    if length is not None and len(value) != length:
        _bad(field, f"must have {length} entries, not {len(value)}")
    return value


def _object(value: Any, field: str, keys: Sequence[str] = ()) -> dict[str, Any]:
    if not isinstance(value, dict):
        _bad(field, f"must be an object, not {_shown(value)}")
    for key in keys:
        if key not in value:
            _bad(f"{field}.{key}", "is missing")
    return value


def _whole(value: Any, field: str, low: int = 0, high: int = MAX_COUNT) -> int:
    if not is_whole(value) or not low <= value <= high:
        _bad(field, f"must be a whole number from {low} to {high}, not {_shown(value)}")
    return value


def _wholes(value: Any, field: str, length: int | None = None, high: int = MAX_COUNT) -> list[int]:
    values = _list(value, field, length)
    # At C speed when all is well (a bool's type is not int); else the first that is not.
    if values and not (
        set(map(type, values)) == {int} and min(values) >= 0 and max(values) <= high
    ):
        for i, x in enumerate(values):
            _whole(x, f"{field}[{i}]", 0, high)
    return values


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        _bad(field, f"must be a string, not {_shown(value)}")
    return value


class _Shape:
    """What the merging run and the record's head say every field must fit."""

    def __init__(self, data: Mapping[str, Any], settings: AnalysisSettings) -> None:
        self.settings = settings
        self.systems = len(_systems(data.get("systems")))
        self.specs = _specs(data.get("metrics"))
        _check_settings(data.get("settings"), settings)
        if data.get("offset") != 0 or not is_whole(data.get("offset")):
            _bad("offset", f"a record a run writes starts at 0, not {_shown(data.get('offset'))}")
        self.segments = _whole(data.get("segments"), "segments", 1)
        nrefs = _wholes(data.get("nrefs"), "nrefs")
        if not nrefs or 0 in nrefs or nrefs != sorted(set(nrefs)):
            _bad("nrefs", f"must be increasing numbers of at least 1, not {_shown(nrefs)}")
        self.nrefs: int | str = nrefs[0] if len(nrefs) == 1 else "var"
        self.keeps = settings.samples > 0
        self.bleu = bleu_index(self.specs)

    def rows(self, value: Any, field: str, segments: int, kind: str = "corpus") -> list[list[Any]]:
        """Per system, per metric, a row of ``segments`` segments, as its metric reads it."""
        out = []
        for s, per_system in enumerate(_list(value, field, self.systems)):
            here = f"{field}[{s}]"
            per = _list(per_system, here, len(self.specs))
            out.append([self.row(r, f"{here}[{k}]", k, segments, kind) for k, r in enumerate(per)])
        return out

    def row(self, value: Any, field: str, k: int, segments: int, kind: str = "corpus") -> Any:
        spec = self.specs[k]
        metric, settings = spec.metric, spec.settings
        row = _list(value, field, metric.row_size(settings))
        if not all(map(is_number, row)):
            _bad(field, f"must be a list of numbers, not {_shown(row)}")
        problem = row_problem(metric, row, settings, segments, self.nrefs, kind)
        if problem is not None:
            _bad(field, f"{spec.name} statistics of {segments} segments: {problem}")
        return list(metric.from_record(row, settings))


def _systems(value: Any) -> list[str]:
    names = _list(value, "systems")
    if not names:
        _bad("systems", "must name at least one system")
    return [_text(name, f"systems[{i}]") for i, name in enumerate(names)]


def _specs(value: Any) -> tuple[Spec, ...]:
    specs = []
    for i, entry in enumerate(_list(value, "metrics")):
        here = f"metrics[{i}]"
        entry = _object(entry, here, ("metric", "settings"))
        name = entry["metric"]
        if name not in STREAM_METRICS:
            _bad(
                f"{here}.metric", f"must be one of {', '.join(STREAM_METRICS)}, not {_shown(name)}"
            )
        given = _object(entry["settings"], f"{here}.settings")
        names = field_names(STREAM_METRICS[name].Settings)
        problem = settings_problem(name, given)
        if sorted(given) != sorted(names):
            problem = f"must hold the settings {', '.join(names)}"
        if problem is None:
            try:
                settings = STREAM_METRICS[name].Settings(**given)
            except (TypeError, ValueError) as exc:
                problem = str(exc)
        if problem is not None:
            _bad(f"{here}.settings", problem)
        specs.append(Spec(STREAM_METRICS[name], settings))
    if len({spec.name for spec in specs}) != len(specs):
        _bad("metrics", "a metric comes twice")
    try:
        bleu_index(specs)
    except ValueError as exc:
        _bad("metrics", str(exc))
    return tuple(specs)


def _check_settings(value: Any, settings: AnalysisSettings) -> None:
    """The record's counting settings are the merging run's (a ``ValueError``
    naming the first that is not; the merging run's options say them)."""
    given = _object(value, "settings")
    wanted = counted_settings(settings)
    for key in sorted(wanted.keys() | given.keys()):
        if json.dumps(given.get(key)) != json.dumps(wanted.get(key)):
            raise ValueError(f"counted with {key} {_shown(given.get(key))}, not {wanted.get(key)}")


def checked(data: Mapping[str, Any], settings: AnalysisSettings) -> Analyzer:
    """The analyzer of one analysis record, every field checked
    (``RecordProblem``); counted with other ``settings``, a ``ValueError``."""
    shape = _Shape(data, settings)
    record = dict(data)
    record["totals"] = shape.rows(data.get("totals"), "totals", shape.segments)
    record["buckets"] = _buckets(data.get("buckets"), shape, record["totals"])
    record["store"] = _store(data.get("store"), shape)
    record["words"] = _words(data.get("words"), shape, record["totals"])
    record["ngrams"] = _ngrams(data.get("ngrams"), shape, record["totals"])
    record["examples"] = _examples(data.get("examples"), shape)
    record["running"] = _running(data.get("running"), shape, record["totals"])
    analyzer = from_record(record, settings, shape.specs)
    _check_examples(analyzer, shape)
    if shape.keeps:
        _check_resummed(analyzer, record)
    return analyzer


def _same_sums(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Rows summed in other orders: whole numbers equal, floats (TER's
    lengths, summed by parts in another order) equal but for rounding."""
    return all(
        x == y if is_whole(x) and is_whole(y) else math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)
        for x, y in zip(a, b)
    )


def _sum_of(rows: Iterator[Sequence[Sequence[Sequence[Any]]]], like: Any) -> list[list[list[Any]]]:
    total = [[[0] * len(row) for row in per] for per in like]
    for part in rows:
        for per_total, per in zip(total, part):
            for row_total, row in zip(per_total, per):
                for i, x in enumerate(row):
                    row_total[i] += x
    return total


def _nested_equal(a: Any, b: Any) -> bool:
    return all(_same_sums(x, y) for pa, pb in zip(a, b) for x, y in zip(pa, pb))


def _buckets(value: Any, shape: _Shape, totals: Any) -> dict[str, Any]:
    parts = _object(value, "buckets", SENTENCE_KINDS)
    out = {}
    for kind in SENTENCE_KINDS:
        here = f"buckets.{kind}"
        part = _object(parts[kind], here, ("segments", "rows", "own_counts", "keys"))
        nb = len(shape.settings.edges(kind))
        segments = _wholes(part["segments"], f"{here}.segments", nb)
        if sum(segments) != shape.segments:
            _bad(f"{here}.segments", f"hold {sum(segments)} segments, not {shape.segments}")
        raw = _list(part["rows"], f"{here}.rows", nb)
        rows = [shape.rows(r, f"{here}.rows[{b}]", segments[b]) for b, r in enumerate(raw)]
        if not _nested_equal(_sum_of(iter(rows), totals), totals):
            _bad(f"{here}.rows", "do not add up to the totals")
        own = _list(part["own_counts"], f"{here}.own_counts", shape.systems)
        own = [_wholes(c, f"{here}.own_counts[{s}]", nb) for s, c in enumerate(own)]
        for s, counts in enumerate(own):
            if sum(counts) != shape.segments or (s == 0 and counts != segments):
                _bad(f"{here}.own_counts[{s}]", "are not the counts of the record's segments")
        keys = part["keys"]
        if shape.keeps:
            keys = _wholes(keys, f"{here}.keys", shape.segments, min(nb - 1, _MAX_KEY))
            counted = Counter(keys)
            if [counted[b] for b in range(nb)] != segments:
                _bad(f"{here}.keys", f"do not number the segments of {here}.segments")
        elif keys is not None:
            _bad(f"{here}.keys", "must be null: the record keeps no segment")
        out[kind] = {"segments": segments, "rows": rows, "own_counts": own, "keys": keys}
    return out


def _store(value: Any, shape: _Shape) -> Any:
    if not shape.keeps:
        if value is not None:
            _bad("store", "must be null: the record keeps no segment")
        return None
    out = []
    for s, per_system in enumerate(_list(value, "store", shape.systems)):
        kept = []
        for k, entry in enumerate(_list(per_system, f"store[{s}]", len(shape.specs))):
            kept.append(_stored(entry, f"store[{s}][{k}]", shape, k))
        out.append(kept)
    return out


def _stored(entry: Any, field: str, shape: _Shape, k: int) -> tuple[str, list[Any]]:
    """One system's and metric's numbers of every segment."""
    code, numbers = _list(entry, field, 2)
    if code not in ("i", "d"):
        _bad(f"{field}[0]", f'must be "i" or "d", not {_shown(code)}')
    spec = shape.specs[k]
    width = spec.metric.row_size(spec.settings)
    numbers = _list(numbers, f"{field}[1]", shape.segments * width)
    out: list[Any] = []
    for i in range(shape.segments):
        row = shape.row(numbers[i * width : (i + 1) * width], f"{field}[1]", k, 1, "segment")
        if code == "i" and not all(type(x) is int for x in row):  # a metric's row as read
            _bad(f"{field}[1]", f'"i" holds whole numbers, not {_shown(row)}')
        out += row
    return code, out


def _words(value: Any, shape: _Shape, totals: Any) -> dict[str, Any]:
    state = _object(value, "words", ("ref", "out", "matches", "words"))
    systems = shape.systems
    ref = _counts(state["ref"], "words.ref")
    out = [_counts(c, f"words.out[{s}]") for s, c in enumerate(_list(state["out"], "words.out"))]
    matches = _list(state["matches"], "words.matches", systems)
    matches = [_counts(c, f"words.matches[{s}]") for s, c in enumerate(matches)]
    _list(out, "words.out", systems)
    for s in range(systems):
        for word, n in matches[s].items():
            if n > min(out[s].get(word, 0), ref.get(word, 0)):
                _bad(f"words.matches[{s}]", f"{_shown(word)} matches more often than it occurs")
        if sum(out[s].values()) != totals[s][shape.bleu][0]:
            _bad(f"words.out[{s}]", "are not the words of the BLEU statistics' hypotheses")
    if shape.nrefs == 1:
        # Against one reference, BLEU's are the same words and unigram matches.
        if any(sum(ref.values()) != per[shape.bleu][1] for per in totals):
            _bad("words.ref", "are not the words of the BLEU statistics' references")
        for s in range(systems):
            if sum(matches[s].values()) != totals[s][shape.bleu][2]:
                _bad(f"words.matches[{s}]", "are not the BLEU statistics' unigram matches")
    words = [
        _text(w, f"words.words[{i}]") for i, w in enumerate(_list(state["words"], "words.words"))
    ]
    checked = {"ref": ref, "out": out, "matches": matches, "words": words}
    if not shape.keeps:
        for key in ("words", "segment_rows", "segment_ends"):
            if state.get(key):
                _bad(f"words.{key}", "must be empty: the record keeps no segment")
        return {**checked, "words": [], "segment_rows": None, "segment_ends": None}
    known = ref.keys() | {w for c in out for w in c}
    if len(set(words)) != len(words) or set(words) != known:
        _bad("words.words", "are not the words counted, each once")
    rows, ends = _segment_words(state, shape, words, checked)
    return {**checked, "segment_rows": rows, "segment_ends": ends}


def _counts(value: Any, field: str) -> dict[str, int]:
    counts = _object(value, field)
    for word, n in counts.items():
        _whole(n, f"{field}[{_shown(word)}]", 1)
    return counts


def _segment_words(
    state: Mapping[str, Any], shape: _Shape, words: Sequence[str], columns: Mapping[str, Any]
) -> tuple[list[int], list[int]]:
    """Each segment's words: their numbers and counts, whose sums are the columns."""
    np = require_numpy("--analyze's intervals")
    width = 1 + 2 * shape.systems
    step = width + 1
    rows = _wholes(state.get("segment_rows"), "words.segment_rows", None, _MAX_WORD_COUNT)
    ends = _wholes(state.get("segment_ends"), "words.segment_ends", shape.segments, len(rows))
    cuts = np.diff(np.asarray([0, *ends], dtype=np.int64))
    if len(rows) % step or any(e % step for e in ends) or ends[-1] != len(rows) or (cuts < 0).any():
        _bad("words.segment_ends", "do not cut words.segment_rows into segments, in order")
    table = np.asarray(rows, dtype=np.int64).reshape(-1, step)
    numbers, counts = table[:, 0], table[:, 1:]
    segment_of = np.repeat(np.arange(len(ends)), cuts // step)
    order = np.lexsort((numbers, segment_of))
    twice = (np.diff(segment_of[order]) == 0) & (np.diff(numbers[order]) == 0)
    if (numbers >= len(words)).any() or twice.any():
        _bad("words.segment_rows", "a segment's word numbers must be the words', each once")
    for s in range(shape.systems):
        limit = np.minimum(counts[:, 0], counts[:, 1 + 2 * s])
        if (counts[:, 2 + 2 * s] > limit).any():
            _bad("words.segment_rows", f"system {s + 1} matches a word more often than it occurs")
    sums = np.zeros((len(words), width), dtype=np.int64)
    np.add.at(sums, numbers, counts)
    column_lists = [columns["ref"]]
    for out, matches in zip(columns["out"], columns["matches"]):
        column_lists += (out, matches)
    for word, summed in zip(words, sums.tolist()):
        if summed != [c.get(word, 0) for c in column_lists]:
            _bad("words.segment_rows", f"do not add up to the counts of {_shown(word)}")
    return rows, ends


def _ngrams(value: Any, shape: _Shape, totals: Any) -> list[list[Any]]:
    low, high = shape.settings.ngram_orders
    out = []
    for s, kept in enumerate(_list(value, "ngrams", shape.systems)):
        here = f"ngrams[{s}]"
        seen: set[tuple[str, ...]] = set()
        per_order = Counter[int]()
        entries = []
        for i, entry in enumerate(_list(kept, here)):
            gram, n = _list(entry, f"{here}[{i}]", 2)
            gram = tuple(_text(w, f"{here}[{i}][0]") for w in _list(gram, f"{here}[{i}][0]"))
            if not low <= len(gram) <= high or gram in seen:
                _bad(f"{here}[{i}][0]", f"an n-gram of {len(gram)} words, or one counted twice")
            seen.add(gram)
            per_order[len(gram)] += _whole(n, f"{here}[{i}][1]", 1)
            entries.append([list(gram), n])
        bleu = shape.specs[shape.bleu]
        order = bleu.settings.max_order
        matched = totals[s][shape.bleu][2 : 2 + order]
        for n in range(low, min(high, order) + 1):
            if shape.nrefs == 1 and per_order[n] != matched[n - 1]:
                _bad(
                    here,
                    f"{per_order[n]} matched {n}-grams; the BLEU statistics have {matched[n - 1]}",
                )
        out.append(entries)
    return out


def _examples(value: Any, shape: _Shape) -> list[list[Any]]:
    out = []
    k = shape.settings.examples
    for s, kept in enumerate(_list(value, "examples", shape.systems - 1)):
        here = f"examples[{s}]"
        held: dict[int, list[Any]] = {}
        entries = _list(kept, here)
        if len(entries) > 2 * k:
            _bad(here, f"holds {len(entries)} examples; --examples {k} keeps at most {2 * k}")
        for i, entry in enumerate(entries):
            field = f"{here}[{i}]"
            index, line, base, system, texts = _list(entry, field, 5)
            _whole(index, f"{field}[0]", 0, shape.segments - 1)
            _whole(line, f"{field}[1]")
            for j, score in ((2, base), (3, system)):
                if not is_number(score) or not 0 <= score <= _MAX_SENTENCE_SCORE:
                    _bad(f"{field}[{j}]", f"a sentence score from 0 to 100, not {_shown(score)}")
            texts = _list(texts, f"{field}[4]", 4)
            if texts[0] is not None:
                _text(texts[0], f"{field}[4][0]")
            for j in (1, 2, 3):
                _text(texts[j], f"{field}[4][{j}]")
            if held.setdefault(index, entry) != entry:
                _bad(field, f"segment {index + 1} is held twice with other texts or scores")
        out.append(entries)
    return out


def _running(value: Any, shape: _Shape, totals: Any) -> dict[str, Any]:
    running = _object(value, "running", ("step", "points"))
    step = _whole(running["step"], "running.step", 1, MAX_COUNT)
    if step & (step - 1):
        _bad("running.step", f"must be a power of 2, not {step}")
    points = _list(running["points"], "running.points")
    if len(points) > MAX_POINTS:
        _bad("running.points", f"{len(points)} points; a run keeps at most {MAX_POINTS}")
    out = []
    last = 0
    for i, point in enumerate(points):
        here = f"running.points[{i}]"
        n, rows = _list(point, here, 2)
        n = _whole(n, f"{here}[0]", last + 1, shape.segments)
        if n % step:
            _bad(f"{here}[0]", f"must be a multiple of the step {step}, not {n}")
        rows = shape.rows(rows, f"{here}[1]", n)
        if n == shape.segments and not _nested_equal(rows, totals):
            _bad(f"{here}[1]", "the point at the end is not the totals")
        out.append([n, rows])
        last = n
    return {"step": step, "points": out}


def _check_examples(analyzer: Analyzer, shape: _Shape) -> None:
    """Each held example's scores are its segment's: those of its texts
    counted again, against its one reference; those of its kept rows."""
    kept = analyzer.segment_matrices() if shape.keeps else None
    sources = set()
    for s, held in enumerate(analyzer.examples, start=1):
        for e in [*held.better, *held.worse]:
            field = f"examples[{s - 1}]: segment {e.index + 1}"
            sources.add(e.texts[0] is None)
            scores = [(e.baseline_score, e.system_score)]
            rows = None
            if shape.nrefs == 1:
                _, ref, base, system = e.texts
                hyps = [base] * shape.systems
                hyps[s] = system
                rows = analyzer.counter.count_unwindowed(hyps, [ref])
            if kept is not None:
                stored = [[tuple(m[e.index].tolist()) for m in per] for per in kept]
                if rows is not None and any(
                    a is not None and not _same_sums(a, b)
                    for i in (0, s)
                    for a, b in zip(rows[i], stored[i])
                ):
                    _bad(field, "its texts are not those of the segment's statistics")
                rows = stored
            if rows is not None:
                values = analyzer.sentence_scores(rows)
                scores.append((values[0], values[s]))
            if len(set(scores)) > 1:
                _bad(field, "its scores are not those of its statistics")
    if len(sources) > 1:
        _bad("examples", "hold a source for some segments and none for others")


def _check_resummed(analyzer: Analyzer, record: Mapping[str, Any]) -> None:
    """With every segment kept, the sums made from them are the record's."""
    totals, buckets = analyzer.totals, analyzer.bucket_rows
    analyzer.resum()
    if not _nested_equal(analyzer.totals, totals):
        _bad("totals", "are not the sums of the segments in store")
    for kind in SENTENCE_KINDS:
        for b, (mine, theirs) in enumerate(zip(analyzer.bucket_rows[kind], buckets[kind])):
            if not _nested_equal(mine, theirs):
                _bad(f"buckets.{kind}.rows[{b}]", "are not the sums of the bucket's segments")
    # The analyzer's sums are now those of the kept segments, in input order,
    # as one process makes them (the record's, made by parts, may differ in
    # a float's last bits).


def read_parts(
    reading: ReadOptions, settings: AnalysisSettings, stdin: BinaryIO | None
) -> Analyzer:
    """The analysis records of the parts of a stream (``--analyze -f
    stats``), from the files statistics are read back from (the operands,
    else ``-i``, else stdin), in order, checked and merged."""
    sources = open_stats(reading, stdin, BadLinePolicy())
    merged: Analyzer | None = None
    try:
        for source in sources:
            for text in record_lines(source):
                data = read_header(text, source, "analysis", FORMAT_NAME, FORMAT_VERSION)
                try:
                    part = checked(data, settings)
                    if merged is None:
                        merged = part
                    else:
                        merged.merge(part)
                except RecordProblem as exc:
                    raise InputError(f"analysis record: {exc}", source.name, source.line) from None
                except ValueError as exc:
                    message = f"not an analysis record to merge: {exc}"
                    raise InputError(message, source.name, source.line) from None
    finally:
        for source in sources:
            source.close()
    if merged is None:
        raise InputError("no analysis record to merge")
    return merged
