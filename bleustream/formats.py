"""Format score records as text, TSV or JSON Lines.

A record is one score: a ``segment`` (one line's sentence BLEU), a
``running`` corpus score after some lines, or the final ``corpus`` score.
Each formatter turns a record into one string ending in a newline, so that
each record reaches the output in a single write.

* ``text``: for people.  The corpus record is SacreBLEU's line; segment and
  running records are short and aligned.
* ``tsv``: a header row, then one row per record; floats are written with
  ``repr`` (the shortest string that reads back as the same float).
* ``json``: JSON Lines, one object per record; floats at full precision.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from bleustream.bleu import BleuScore
from bleustream.errors import count_of

FORMATS = ("text", "tsv", "json")
KINDS = ("segment", "running", "corpus")


@dataclass(frozen=True)
class Record:
    """One score to write."""

    kind: str
    bleu: BleuScore
    line: int | None = None  # the input line that completed the record
    id: str | None = None  # the segment id, for keyed input
    partial: bool = False  # the input was interrupted before its end
    skipped: int = 0  # bad lines skipped so far
    # Log formats, corpus record: hypotheses and references left out of the
    # score (without their other half, duplicate, or beyond the reference
    # files); None for inputs that are not paired by id.
    unpaired: int | None = None


@dataclass(frozen=True)
class Context:
    """What every record of a run shares."""

    signature: dict[str, str]
    max_order: int
    width: int = 1
    score_only: bool = False


def _counts(record: Record) -> dict[str, Any]:
    stats = record.bleu.stats
    return {
        "counts": list(stats.matches),
        "totals": list(stats.totals),
        "hyp_len": stats.hyp_len,
        "ref_len": stats.ref_len,
        "segments": stats.segments,
    }


# ----------------------------------------------------------------------------
# text
# ----------------------------------------------------------------------------


def _verbose(bleu: BleuScore) -> str:
    """SacreBLEU's detail after the score."""
    stats = bleu.stats
    precisions = "/".join(f"{p:.1f}" for p in bleu.precisions)
    return (
        f"{precisions} (BP = {bleu.bp:.3f} ratio = {bleu.ratio:.3f} "
        f"hyp_len = {stats.hyp_len:d} ref_len = {stats.ref_len:d})"
    )


def format_text(record: Record, ctx: Context) -> str:
    score = f"{record.bleu.score:.{ctx.width}f}"
    if ctx.score_only:
        return score + "\n"
    if record.kind == "corpus":
        signature = "|".join(f"{k}:{v}" for k, v in ctx.signature.items())
        text = f"BLEU|{signature} = {score} {_verbose(record.bleu)}"
        notes = []
        segments = count_of(record.bleu.stats.segments, "segment")
        if record.partial:
            notes.append(f"PARTIAL: input interrupted after {segments}")
        if record.skipped:
            notes.append(f"skipped {count_of(record.skipped, 'bad line')}")
        if record.unpaired:
            notes.append(f"covers {segments}; {record.unpaired} unpaired")
        if notes:
            text += " [" + "; ".join(notes) + "]"
        return text + "\n"
    where = record.id if record.id is not None else record.line
    return (
        f"{record.kind:<7} {where!s:>7}  BLEU = {score:>{ctx.width + 4}} {_verbose(record.bleu)}\n"
    )


# ----------------------------------------------------------------------------
# tsv
# ----------------------------------------------------------------------------


def tsv_columns(max_order: int) -> list[str]:
    """The TSV header, in order."""
    orders = range(1, max_order + 1)
    return [
        "kind",
        "line",
        "id",
        "bleu",
        *(f"p{n}" for n in orders),
        "bp",
        "ratio",
        "hyp_len",
        "ref_len",
        *(f"m{n}" for n in orders),
        *(f"t{n}" for n in orders),
        "segments",
        "skipped",
        "unpaired",
        "partial",
    ]


def format_tsv_header(ctx: Context) -> str:
    return "\t".join(tsv_columns(ctx.max_order)) + "\n"


def format_tsv(record: Record, ctx: Context) -> str:
    if ctx.score_only:
        return f"{record.bleu.score:.{ctx.width}f}\n"
    bleu, stats = record.bleu, record.bleu.stats
    row = [
        record.kind,
        "" if record.line is None else str(record.line),
        "" if record.id is None else _tsv_safe(record.id),
        repr(bleu.score),
        *(repr(p) for p in bleu.precisions),
        repr(bleu.bp),
        repr(float(bleu.ratio)),
        str(stats.hyp_len),
        str(stats.ref_len),
        *(str(m) for m in stats.matches),
        *(str(t) for t in stats.totals),
        str(stats.segments),
        str(record.skipped),
        "" if record.unpaired is None else str(record.unpaired),
        "1" if record.partial else "0",
    ]
    return "\t".join(row) + "\n"


def _tsv_safe(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


# ----------------------------------------------------------------------------
# json
# ----------------------------------------------------------------------------


def record_dict(record: Record, ctx: Context) -> dict[str, Any]:
    """The JSON object of a record (also the source of truth for the schema)."""
    bleu = record.bleu
    data: dict[str, Any] = {"type": record.kind}
    if record.line is not None:
        data["line"] = record.line
    if record.id is not None:
        data["id"] = record.id
    data.update(
        {
            "score": bleu.score,
            "precisions": list(bleu.precisions),
            "bp": bleu.bp,
            "ratio": float(bleu.ratio),
        }
    )
    data.update(_counts(record))
    if record.kind == "corpus":
        data["name"] = "BLEU"
        data["signature"] = "|".join(f"{k}:{v}" for k, v in ctx.signature.items())
        data.update(ctx.signature)
        data["partial"] = record.partial
        data["skipped"] = record.skipped
        if record.unpaired is not None:
            data["unpaired"] = record.unpaired
    return data


def format_json(record: Record, ctx: Context) -> str:
    if ctx.score_only:
        return f"{record.bleu.score:.{ctx.width}f}\n"
    return json.dumps(record_dict(record, ctx), ensure_ascii=False) + "\n"


Formatter = Callable[[Record, Context], str]

FORMATTERS: dict[str, Formatter] = {
    "text": format_text,
    "tsv": format_tsv,
    "json": format_json,
}


def header(fmt: str, ctx: Context) -> str:
    """What a format writes before its first record (the TSV header)."""
    if fmt == "tsv" and not ctx.score_only:
        return format_tsv_header(ctx)
    return ""
