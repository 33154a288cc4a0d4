"""Format score records as text, TSV or JSON Lines.

A record is the scores of every metric asked for at one point of the
stream: a ``segment`` (one line's sentence scores), a ``running`` corpus
score after some lines, or the final ``corpus`` score.  Each formatter turns
a record into one string ending in a newline, so that each record reaches
the output in a single write.  What a metric contributes (its name, detail,
JSON fields and TSV columns) comes from the metric module itself.

* ``text``: for people.  A corpus record is SacreBLEU's line for each
  metric, in the order asked; segment and running records are one short,
  aligned line with every metric.
* ``tsv``: a header row, then one row per record; each metric adds its
  columns in the order asked; floats are written with ``repr`` (the
  shortest string that reads back as the same float).
* ``jsonl``: JSON Lines, one object per metric per record; floats at full
  precision.
* ``json``: SacreBLEU's JSON document of the corpus scores, at the end.
* ``latex``: SacreBLEU's LaTeX table of several systems' corpus scores
  (and test results); records before the end are not written.
* ``stats``: JSON Lines, one object per record with every metric's raw
  statistics and the settings that produced them (``bleustream.inputs.stats_reader``),
  to be added up later with ``--input-format stats``.

With ``score_only`` (``-b``) every format prints the scores alone, one
number per metric per record, rounded to the width.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from bleustream.errors import count_of
from bleustream.frozen import Frozen
from bleustream.metrics.registry import Spec
from bleustream.metrics.scores import COMMON_SHORT, signature_text

FORMATS = ("text", "tsv", "jsonl", "json", "stats", "latex")


class Record(Frozen):
    """The scores of every metric at one point of the stream."""

    kind: str
    scores: tuple[Any, ...]  # one score object per metric, as Context.specs
    segments: int  # segments the scores cover (1 for a segment record)
    line: int | None = None  # the input line that completed the record
    id: str | None = None  # the segment id, for keyed input
    # The system, when there are several: its file name, or its field
    # number for paste input.
    system: str | int | None = None
    partial: bool = False  # the input was interrupted before its end
    # Statistics read back: where a record of an interrupted run was read
    # ("file:line"), which makes this record partial too; else None.
    partial_input: str | None = None
    skipped: int = 0  # bad lines skipped so far
    # Log formats, corpus record: hypotheses and references left out of the
    # score (without their other half, duplicate, or beyond the reference
    # files); None for inputs that are not paired by id.
    unpaired: int | None = None
    # Corpus records of a resampling test: one result per metric (its mean,
    # ci and p_value), or None.
    results: tuple[Any, ...] | None = None


class Context(Frozen):
    """What every record of a run shares."""

    specs: tuple[Spec, ...]
    signatures: tuple[dict[str, str], ...]  # one per metric
    width: int = 1
    score_only: bool = False
    named_systems: bool = False  # records carry a system name
    test: str | None = None  # "ci", "bs" or "ar": records carry test results
    short: bool = False  # SacreBLEU's short signatures in text
    compat: bool = False  # SacreBLEU's layouts (--compat sacrebleu)
    # Only the segment lines are written (-sl -b; -sl in SacreBLEU's layout).
    sentence_only: bool = False

    def signature_text(self, index: int) -> str:
        """The signature of the metric at ``index`` as text lines show it."""
        spec = self.specs[index]
        short = getattr(spec.metric, "SIGNATURE_SHORT", {}) if self.short else None
        return format_signature(self.signatures[index], short)


def format_signature(fields: dict[str, str], short_keys: Mapping[str, str] | None = None) -> str:
    """``key:value|...``; with ``short_keys`` (a metric's ``SIGNATURE_SHORT``),
    SacreBLEU's ``--short`` form."""
    if short_keys is None:
        return signature_text(fields)
    return signature_text(fields, {**COMMON_SHORT, **short_keys})


def _scores_only(record: Record, ctx: Context) -> str:
    return "".join(f"{score.score:.{ctx.width}f}\n" for score in record.scores)


# ----------------------------------------------------------------------------
# text
# ----------------------------------------------------------------------------


def notes_of(record: Record) -> str:
    """The notes that end a text line: `` [PARTIAL: ...; skipped ...]``, or ""."""
    notes = []
    segments = count_of(record.segments, "segment")
    if record.partial_input is not None:
        where = record.partial_input
        notes.append(f"PARTIAL: statistics read back from an interrupted run ({where})")
    elif record.partial and record.kind != "corpus":
        # A score made at the end from tables of the whole input (NIST's,
        # Self-BLEU's): of an interrupted input, it is partial too.
        notes.append("PARTIAL: input interrupted")
    elif record.partial:
        notes.append(f"PARTIAL: input interrupted after {segments}")
    if record.skipped:
        notes.append(f"skipped {count_of(record.skipped, 'bad line')}")
    if record.unpaired:
        notes.append(f"covers {segments}; {record.unpaired} unpaired")
    return " [" + "; ".join(notes) + "]" if notes else ""


def format_text(record: Record, ctx: Context) -> str:
    if ctx.score_only:
        return _scores_only(record, ctx)
    if ctx.compat and record.kind == "segment":
        # SacreBLEU's -sl line: the metric's whole line, signature and all.
        lines = []
        for index, (spec, score) in enumerate(zip(ctx.specs, record.scores)):
            detail = spec.metric.verbose(score, spec.settings, ctx.width)
            text = f"{spec.label}|{ctx.signature_text(index)} = {score.score:.{ctx.width}f}"
            lines.append(text + (f" {detail}" if detail else "") + "\n")
        return "".join(lines)
    prefix = f"{record.system}: " if ctx.named_systems and record.system is not None else ""
    if record.kind == "corpus":
        notes = notes_of(record)
        lines = []
        for index, (spec, score) in enumerate(zip(ctx.specs, record.scores)):
            signature = ctx.signature_text(index)
            text = f"{prefix}{spec.label}|{signature} = {score.score:.{ctx.width}f}"
            detail = spec.metric.verbose(score, spec.settings, ctx.width)
            lines.append(text + (f" {detail}" if detail else "") + notes + "\n")
        return "".join(lines)
    where = record.id if record.id is not None else record.line
    parts = []
    for spec, score in zip(ctx.specs, record.scores):
        part = f"{spec.label} = {score.score:>{ctx.width + 4}.{ctx.width}f}"
        detail = spec.metric.verbose(score, spec.settings, ctx.width)
        parts.append(part + (f" {detail}" if detail else ""))
    notes = notes_of(record) if record.partial else ""
    return f"{prefix}{record.kind:<7} {where!s:>7}  " + "  ".join(parts) + notes + "\n"


# ----------------------------------------------------------------------------
# tsv
# ----------------------------------------------------------------------------


def tsv_columns(ctx: Context) -> list[str]:
    """The TSV header, in order: fixed by the metrics and their settings."""
    metric_columns = []
    for spec in ctx.specs:
        zero = spec.score(spec.zero())
        metric_columns += [column for column, _ in spec.metric.tsv_fields(zero, spec.settings)]
        metric_columns += _test_columns(spec, ctx)
    system = ["system"] if ctx.named_systems else []
    return [
        "kind",
        *system,
        "line",
        "id",
        *metric_columns,
        "segments",
        "skipped",
        "unpaired",
        "partial",
    ]


def format_tsv_header(ctx: Context) -> str:
    return "\t".join(tsv_columns(ctx)) + "\n"


def format_tsv(record: Record, ctx: Context) -> str:
    if ctx.score_only:
        return _scores_only(record, ctx)
    system = [_tsv_safe(str(record.system or ""))] if ctx.named_systems else []
    row = [
        record.kind,
        *system,
        "" if record.line is None else str(record.line),
        "" if record.id is None else _tsv_safe(record.id),
    ]
    for index, (spec, score) in enumerate(zip(ctx.specs, record.scores)):
        row += [value for _, value in spec.metric.tsv_fields(score, spec.settings)]
        if ctx.test is not None:
            result = record.results[index] if record.results else None
            values = [] if result is None else [result.mean, result.ci]
            if ctx.test in ("bs", "ar"):
                values.append(None if result is None else result.p_value)
            values += [None] * (len(_test_columns(spec, ctx)) - len(values))
            row += ["" if v is None else repr(float(v)) for v in values]
    row += [
        str(record.segments),
        str(record.skipped),
        "" if record.unpaired is None else str(record.unpaired),
        "1" if record.partial else "0",
    ]
    return "\t".join(row) + "\n"


def _test_columns(spec: Spec, ctx: Context) -> list[str]:
    """A metric's columns of test results: mean, ci (and p_value for paired tests)."""
    if ctx.test is None:
        return []
    names = ["mean", "ci", "p_value"] if ctx.test in ("bs", "ar") else ["mean", "ci"]
    return [f"{spec.name}_{name}" for name in names]


def _tsv_safe(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


# ----------------------------------------------------------------------------
# json
# ----------------------------------------------------------------------------


def record_dicts(record: Record, ctx: Context) -> list[dict[str, Any]]:
    """The JSON objects of a record, one per metric (the source of truth for the schema)."""
    out = []
    for spec, signature, score in zip(ctx.specs, ctx.signatures, record.scores):
        data: dict[str, Any] = {"type": record.kind}
        if ctx.named_systems and record.system is not None:
            data["system"] = record.system
        if record.line is not None:
            data["line"] = record.line
        if record.id is not None:
            data["id"] = record.id
        data["metric"] = spec.label
        data["score"] = score.score
        data.update(spec.metric.json_fields(score, spec.settings))
        if record.results is not None:
            result = record.results[len(out)]
            if result.mean is not None:
                data["mean"] = float(result.mean)
                data["ci"] = float(result.ci)
            if ctx.test in ("bs", "ar"):
                data["p_value"] = None if result.p_value is None else float(result.p_value)
        data["segments"] = record.segments
        if record.kind == "corpus":
            data["name"] = spec.label
            data["signature"] = format_signature(signature)
            data.update(signature)
            data["partial"] = record.partial
            if record.partial_input is not None:
                data["partial_input"] = record.partial_input
            data["skipped"] = record.skipped
            if record.unpaired is not None:
                data["unpaired"] = record.unpaired
        elif record.partial:  # NIST's and Self-BLEU's, scored from partial tables
            data["partial"] = True
        out.append(data)
    return out


def format_json(record: Record, ctx: Context) -> str:
    if ctx.score_only:
        return _scores_only(record, ctx)
    import json  # (loaded by the JSON formats only)

    return "".join(
        json.dumps(data, ensure_ascii=False) + "\n" for data in record_dicts(record, ctx)
    )


# ----------------------------------------------------------------------------
# stats
# ----------------------------------------------------------------------------


def format_stats(record: Record, ctx: Context) -> str:
    import json  # (loaded by the JSON formats only)

    from bleustream.metrics.stats_record import record_object

    extra: dict[str, Any] = {}
    if record.system is not None and ctx.named_systems:
        extra["system"] = record.system
    if record.line is not None:
        extra["line"] = record.line
    if record.id is not None:
        extra["id"] = record.id
    nrefs_text = ctx.signatures[0]["nrefs"]
    nrefs: int | str = int(nrefs_text) if nrefs_text.isdigit() else nrefs_text
    data = record_object(
        record.kind,
        ctx.specs,
        tuple(score.row for score in record.scores),
        record.segments,
        nrefs,
        extra,
    )
    if record.kind == "corpus":
        data["partial"] = record.partial
        data["skipped"] = record.skipped
        if record.unpaired is not None:
            data["unpaired"] = record.unpaired
    return json.dumps(data, ensure_ascii=False) + "\n"


Formatter = Callable[[Record, Context], str]

FORMATTERS: dict[str, Formatter] = {
    "text": format_text,
    "tsv": format_tsv,
    "jsonl": format_json,
    # SacreBLEU's JSON document is written whole at the end (bleustream.output.tables).
    "json": lambda record, ctx: "",
    "stats": format_stats,
    # LaTeX is written whole at the end (bleustream.output.tables), not per record.
    "latex": lambda record, ctx: "",
}


def header(fmt: str, ctx: Context) -> str:
    """What a format writes before its first record (the TSV header)."""
    if fmt == "tsv" and not ctx.score_only:
        return format_tsv_header(ctx)
    return ""
