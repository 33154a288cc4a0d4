"""The records at the end of a run, as SacreBLEU lays them out.

One record per system, or SacreBLEU's table of several systems (text or
LaTeX), or its JSON, with each test's mean, interval and p-value.  Every
loop of ``bleustream.run`` ends here; the layouts themselves (alignment,
grids, JSON text) are ``bleustream.output.tables``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from bleustream.output.records import FORMATTERS, Context, Record, format_signature, notes_of

if TYPE_CHECKING:
    from bleustream.significance.resampling import Resampling
    from bleustream.significance.result import Result

__all__ = ["final_text", "parts_text", "system_names", "systems_order", "table_names"]

# SacreBLEU's words, on stdout after the scores, when a test set has no parts.
NO_PARTS = "No subset information found. Consider using --origlang argument.\n"


def system_names(systems: Sequence[str | int | None]) -> list[str]:
    """Systems as tables name them: file names, or paste field numbers."""
    return ["" if s is None else f"field {s}" if isinstance(s, int) else s for s in systems]


def final_text(
    fmt: str,
    ctx: Context,
    finals: Sequence[Record],
    test: Resampling | None,
    named_baseline: bool = False,
) -> str:
    """The corpus records: one per system, or SacreBLEU's table of several systems.

    ``named_baseline``: the first system's name already says it is the
    baseline (stdin's fields, as SacreBLEU names them).
    """
    if ctx.sentence_only:
        return ""  # -sl -b (and -sl in SacreBLEU's layout): a line per segment, no more
    if fmt == "json":
        return _json_document(ctx, finals, test, named_baseline)
    several = len(finals) > 1
    text = fmt == "text" or (fmt == "latex" and ctx.compat)  # SacreBLEU's: one system's lines
    table = fmt == "latex" or (text and several and (ctx.compat or not ctx.score_only))
    if table and (several or not ctx.compat):
        names = table_names([r.system for r in finals], test, named_baseline)
        return _table(fmt, ctx, finals, test, names)
    if text and ctx.compat:
        return _single_sacrebleu(ctx, finals[0])
    if fmt == "text" and not ctx.score_only and test is not None:
        return _single_with_intervals(ctx, finals[0])
    return "".join(FORMATTERS[fmt](record, ctx) for record in finals)


def parts_text(ctx: Context, parts: Sequence[tuple[str, int, Sequence[Any]]]) -> str:
    """SacreBLEU's lines of a test set's parts (``-d``, its
    ``print_subset_results``): for each part's key, its segments and each
    metric's score, ``origlang=de domain=ALL: sentences=1498   BLEU = 31.4``;
    SacreBLEU's note where there are no parts."""
    if not parts:
        return NO_PARTS
    left = max(len(key) for key, _, _ in parts) + 1
    names = max(len(spec.label) for spec in ctx.specs)
    return "".join(
        f"{key:<{left}}: sentences={segments:<6} {spec.label:<{names}} = "
        f"{score.score:.{ctx.width}f}\n"
        for key, segments, scores in parts
        for spec, score in zip(ctx.specs, scores)
    )


def _sacrebleu_order(ctx: Context) -> list[int]:
    """The metrics as SacreBLEU prints one system's: by name, each once."""
    seen: dict[str, int] = {}
    for index, spec in enumerate(ctx.specs):
        seen.setdefault(spec.name, index)
    return [seen[name] for name in sorted(seen)]


def systems_order(ctx: Context, test: Resampling | None) -> list[int]:
    """The metrics of several systems' table or JSON: the order given, but
    in SacreBLEU's layouts its order, by name (a paired test keeps ``-m``'s
    order, as SacreBLEU's does), each once."""
    if not ctx.compat:
        return list(range(len(ctx.specs)))
    if test is None or not test.paired:
        return _sacrebleu_order(ctx)
    seen: dict[str, int] = {}
    for index, spec in enumerate(ctx.specs):
        seen.setdefault(spec.name, index)
    return list(seen.values())


def table_names(
    systems: Sequence[str | int | None], test: Resampling | None, named_baseline: bool
) -> list[str]:
    """The systems as tables name them, the baseline marked in a paired test
    (unless its name already says it is the baseline)."""
    names = system_names(systems)
    if test is not None and test.paired and not named_baseline:
        names[0] = f"Baseline: {names[0]}"
    return names


def _results_of(ctx: Context, record: Record, name: str = "") -> list[Result]:
    """Each metric's score of a record with what its tests added, in ``ctx``'s order."""
    from bleustream.significance.result import Result  # (tables of several systems only)

    results = []
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
    return results


def _single_results(ctx: Context, record: Record) -> Iterator[tuple[int, Result, str | None]]:
    """One system's metrics in SacreBLEU's order: each one's index, result
    and verbose detail (None with ``-b``, which prints the score alone)."""
    results = _results_of(ctx, record)
    for index in _sacrebleu_order(ctx):
        spec = ctx.specs[index]
        detail = (
            None
            if ctx.score_only
            else spec.metric.verbose(record.scores[index], spec.settings, ctx.width)
        )
        yield index, results[index], detail


def _single_sacrebleu(ctx: Context, record: Record) -> str:
    """``print_single_results`` as text: metrics by name, lines aligned on ``=``."""
    from bleustream.output import tables  # SacreBLEU's layouts: loaded when written

    lines = []
    for index, result, detail in _single_results(ctx, record):
        if detail is None:
            lines.append(tables.score_text(result, ctx.width))
        else:
            lines.append(tables.single_line(result, ctx.signature_text(index), detail, ctx.width))
    return "".join(line + "\n" for line in tables.align_single_lines(lines))


def _json_document(
    ctx: Context, finals: Sequence[Record], test: Resampling | None, named_baseline: bool
) -> str:
    """SacreBLEU's JSON: one system's object (or array), or several systems' list."""
    from bleustream.output import tables  # SacreBLEU's layouts: loaded when written

    # bleustream's own JSON marks a partial score in each object; SacreBLEU's
    # (compat) cannot, and an interrupted run writes none (``_marked_or_withheld``).
    mark = None
    if finals[0].partial and not ctx.compat:
        mark = {"partial": True, "segments": finals[0].segments}
        if finals[0].partial_input is not None:
            mark["partial_input"] = finals[0].partial_input
    if len(finals) > 1:
        names = table_names([r.system for r in finals], test, named_baseline)
        order = systems_order(ctx, test)
        results = [
            _results_of(ctx, rec, name)[i] for name, rec in zip(names, finals) for i in order
        ]
        return tables.systems_json(results, test is not None and test.paired, ctx.width, mark)
    parts = []
    for index, result, detail in _single_results(ctx, finals[0]):
        if detail is None:
            parts.append(tables.score_text(result, ctx.width))
            continue
        signature = ctx.signatures[index]
        parts.append(
            tables.single_json(
                result, signature, format_signature(signature), detail, ctx.width, mark
            )
        )
    return tables.single_json_document(parts)


def _table(
    fmt: str, ctx: Context, finals: Sequence[Record], test: Resampling | None, names: list[str]
) -> str:
    """SacreBLEU's table of the systems (``names``, as the table shows them)."""
    from bleustream.output import tables  # SacreBLEU's layouts: loaded when written

    order = systems_order(ctx, test)
    results = [_results_of(ctx, rec, name)[i] for name, rec in zip(names, finals) for i in order]
    signatures = {ctx.specs[i].label: ctx.signature_text(i) for i in order}
    kind = test.kind if test is not None and test.paired else None
    n = test.n if test is not None else None
    layout = "latex" if fmt == "latex" else "grid" if ctx.compat else "text"
    text = tables.report(layout, results, signatures, kind, n, ctx.width)
    notes = notes_of(finals[0])
    return text + (notes.strip() + "\n" if notes else "")


def _single_with_intervals(ctx: Context, record: Record) -> str:
    """SacreBLEU's line for each metric, with ``(μ = mean ± ci)`` after the score."""
    from bleustream.output import tables  # SacreBLEU's layouts: loaded when written

    lines = []
    notes = notes_of(record)
    results = _results_of(ctx, record)  # one system: no p-value
    for index, (spec, score) in enumerate(zip(ctx.specs, record.scores)):
        result = results[index]
        detail = spec.metric.verbose(score, spec.settings, ctx.width)
        line = tables.single_line(result, ctx.signature_text(index), detail, ctx.width)
        lines.append(line + notes + "\n")
    return "".join(lines)
