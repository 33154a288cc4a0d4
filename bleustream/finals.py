"""The records at the end of a run: one per system, or SacreBLEU's table of
several systems (text or LaTeX), with each test's mean, interval and
p-value."""

from __future__ import annotations

from collections.abc import Sequence

from bleustream.formats import FORMATTERS, Context, Record, format_signature, notes_of
from bleustream.report import Result, latex_report, single_line, text_report
from bleustream.resampling import Test


def system_names(systems: Sequence[str | int | None]) -> list[str]:
    """Systems as tables name them: file names, or paste field numbers."""
    return ["" if s is None else f"field {s}" if isinstance(s, int) else s for s in systems]


def final_text(fmt: str, ctx: Context, finals: Sequence[Record], test: Test | None) -> str:
    """The corpus records: one per system, or SacreBLEU's table of several systems."""
    table = fmt == "latex" or (fmt == "text" and not ctx.score_only and len(finals) > 1)
    if table:
        return _table(fmt, ctx, finals, test)
    if fmt == "text" and not ctx.score_only and test is not None:
        return _single_with_intervals(ctx, finals[0])
    return "".join(FORMATTERS[fmt](record, ctx) for record in finals)


def _table(fmt: str, ctx: Context, finals: Sequence[Record], test: Test | None) -> str:
    names = system_names([record.system for record in finals])
    if test is not None and test.paired:
        names[0] = f"Baseline: {names[0]}"
    results = []
    for name, record in zip(names, finals):
        for index, (spec, score) in enumerate(zip(ctx.specs, record.scores)):
            found = record.results[index] if record.results else None
            results.append(
                Result(
                    name,
                    spec.label,
                    score.score,
                    found.mean if found else None,
                    found.ci if found else None,
                    found.p_value if found else None,
                )
            )
    signatures = {
        spec.label: format_signature(signature)
        for spec, signature in zip(ctx.specs, ctx.signatures)
    }
    kind = test.kind if test is not None and test.paired else None
    n = test.n if test is not None else None
    make = latex_report if fmt == "latex" else text_report
    text = make(results, signatures, kind, n, ctx.width)
    notes = notes_of(finals[0])
    return text + (notes.strip() + "\n" if notes else "")


def _single_with_intervals(ctx: Context, record: Record) -> str:
    """SacreBLEU's line for each metric, with ``(μ = mean ± ci)`` after the score."""
    lines = []
    notes = notes_of(record)
    for index, (spec, signature, score) in enumerate(zip(ctx.specs, ctx.signatures, record.scores)):
        found = record.results[index] if record.results else None
        result = Result(
            "", spec.label, score.score, found.mean if found else None, found.ci if found else None
        )
        detail = spec.metric.verbose(score, spec.settings)
        line = single_line(result, format_signature(signature), detail, ctx.width)
        lines.append(line + notes + "\n")
    return "".join(lines)
