"""Results of confidence intervals and paired tests, and their text as SacreBLEU writes it.

Pure string formatting, no printing and no numpy.  ``Entry`` is one
system's outcome for one metric; the record formats can use it as well.

What SacreBLEU 2.6 prints, and what is reproduced here:

* ``-ci`` for one system (``Score.format``): ``BLEU|sig = 24.3 (μ = 24.0 ±
  3.4) ...`` -- ``score_text``, ``single_line``, ``align_single_lines``,
  ``confidence_json_fields``;
* several systems (``print_results_table``): a table, then for paired
  tests an explanatory paragraph, then the metric signatures (``-f jsonl``
  holds ``paired_json_value`` per cell instead).  ``report("latex", ...)``
  gives ``-f latex`` exactly (tabulate's ``latex_booktabs`` as SacreBLEU
  calls it, with ``--no-color``), ``report("grid", ...)`` its ``-f text``
  (tabulate's ``fancy_grid``).  ``report("text", ...)`` gives the same
  paragraph and signatures, but the table laid out plainly rather
  than in tabulate's box-drawn ``fancy_grid``: a right-aligned system
  column, centred metric columns two spaces apart, a dashed rule under the
  titles, and a system's p-value on a second line under its score.

SacreBLEU colours p-values above 0.05 red and marks the others with ``*``;
without colours only the star remains (as with SacreBLEU's ``--no-color``),
and its paragraph's "highlighted in red" sentence is kept word for word.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

CI_TITLE = " (μ ± 95% CI)"
SIGNIFICANCE_LEVEL = 0.05


class Entry(Protocol):
    """What a table reads of one system's score for one metric: a
    ``bleustream.significance.result.Entry``."""

    system: str
    metric: str
    score: float
    mean: float | None
    ci: float | None
    p_value: float | None


# ----------------------------------------------------------------------------
# Single system (-ci)
# ----------------------------------------------------------------------------


def score_text(result: Entry, width: int = 1) -> str:
    """The score as ``Score.format`` writes it: ``24.3 (μ = 24.0 ± 3.4)``.

    SacreBLEU shows the interval only when the mean is positive (its "no
    interval" marker is a mean of -1).
    """
    text = f"{result.score:.{width}f}"
    if result.mean is not None and result.ci is not None and result.mean > 0:
        text += f" ({confidence_text(result, width)})"
    return text


def confidence_text(result: Entry, width: int = 1) -> str:
    """``μ = 24.0 ± 3.4``: the interval part of a score."""
    return f"μ = {result.mean:.{width}f} ± {result.ci:.{width}f}"


def single_line(result: Entry, signature: str = "", verbose: str = "", width: int = 1) -> str:
    """One metric's line of single-system text output: ``NAME|sig = score (μ ...) verbose``."""
    head = f"{result.metric}|{signature}" if signature else result.metric
    line = f"{head} = {score_text(result, width)}"
    return f"{line} {verbose}" if verbose else line


def align_single_lines(lines: Sequence[str]) -> list[str]:
    """The lines as ``print_single_results`` prints them: aligned on their first ``=``.

    As in SacreBLEU, lines without ``=`` (``--score-only`` without an
    interval) come first, unaligned.
    """
    if len(lines) == 1:
        return list(lines)
    plain = [line for line in lines if "=" not in line]
    aligned = [line for line in lines if "=" in line]
    if not aligned:
        return plain
    cuts = [line.index("=") - 1 for line in aligned]
    w = max(cuts)
    return plain + [f"{line[:cut]:>{w}}{line[cut:]}" for cut, line in zip(cuts, aligned)]


def confidence_json_fields(result: Entry, width: int = 1) -> dict[str, Any]:
    """The keys SacreBLEU's JSON record gains with ``-ci`` (after ``signature``)."""
    if result.mean is None or result.ci is None or not result.mean > 0:
        return {}
    return {
        "confidence_mean": float(f"{result.mean:.{width}f}"),
        "confidence_var": float(f"{result.ci:.{width}f}"),
        "confidence": confidence_text(result, width),
    }


# ----------------------------------------------------------------------------
# Several systems: the cells
# ----------------------------------------------------------------------------


def paired_names(names: Sequence[str]) -> list[str]:
    """System names as SacreBLEU's paired tests show them: ``Baseline: `` before the first."""
    return [f"Baseline: {name}" if i == 0 else name for i, name in enumerate(names)]


def p_value_text(p_value: float) -> str:
    """``(p = 0.0099)*``: starred unless above 0.05 (SacreBLEU colours those red instead)."""
    text = f"(p = {p_value:.4f})"
    return text if p_value > SIGNIFICANCE_LEVEL else text + "*"


def cell_text(result: Entry, width: int = 1, multiline: bool = False) -> str:
    """A table cell as ``_format_score_lines`` writes it.

    ``score (mean ± ci)``, then the p-value after a space, or on a new line
    when ``multiline``.
    """
    text = f"{result.score:.{width}f}"
    if result.mean is not None:
        text += f" ({result.mean:.{width}f} ± {result.ci:.{width}f})"
    if result.p_value is not None:
        text += ("\n" if multiline else " ") + p_value_text(result.p_value)
    return text


def paired_json_value(result: Entry) -> dict[str, float | None]:
    """A result as SacreBLEU's paired ``-f jsonl`` holds it (``Entry.__dict__``).

    SacreBLEU itself fails here when a mean is a numpy float32 (chrF, TER):
    ``json.dumps`` cannot write one; these are plain floats.
    """
    return {"score": result.score, "p_value": result.p_value, "mean": result.mean, "ci": result.ci}


def _grid(
    results: Sequence[Entry], width: int, multiline: bool
) -> tuple[list[str], list[list[str]]]:
    """Column titles and columns (systems first) in first-seen order of systems and metrics.

    A metric's title gains `` (μ ± 95% CI)`` once any result so far, in
    metric order, has a mean: SacreBLEU's flag is never reset.
    """
    systems: list[str] = []
    metrics: list[str] = []
    cells: dict[tuple[str, str], Entry] = {}
    for r in results:
        if r.system not in systems:
            systems.append(r.system)
        if r.metric not in metrics:
            metrics.append(r.metric)
        cells[r.system, r.metric] = r
    titles = ["System"]
    columns = [list(systems)]
    bootstrap = False
    for metric in metrics:
        column = []
        for system in systems:
            result = cells.get((system, metric))
            if result is None:
                raise ValueError(f"no {metric} result for {system!r}")
            bootstrap = bootstrap or result.mean is not None
            column.append(cell_text(result, width, multiline))
        titles.append(metric + CI_TITLE if bootstrap else metric)
        columns.append(column)
    return titles, columns


# ----------------------------------------------------------------------------
# Several systems: plain text table
# ----------------------------------------------------------------------------


def text_table(results: Sequence[Entry], width: int = 1) -> str:
    """A plain aligned table of the results (the layout is described in the module doc)."""
    titles, columns = _grid(results, width, multiline=True)
    widths = [
        max([len(title), *(len(part) for cell in column for part in cell.split("\n"))])
        for title, column in zip(titles, columns)
    ]

    def line(parts: Sequence[str]) -> str:
        out = [f"{parts[0]:>{widths[0]}}"]
        out += [f"{part:^{w}}" for part, w in zip(parts[1:], widths[1:])]
        return "  ".join(out).rstrip()

    lines = [line(titles), "  ".join("-" * w for w in widths)]
    for row in zip(*columns):
        split = [cell.split("\n") for cell in row]
        height = max(len(parts) for parts in split)
        for i in range(height):
            lines.append(line([parts[i] if i < len(parts) else "" for parts in split]))
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# Several systems: LaTeX (tabulate's latex_booktabs, exactly)
# ----------------------------------------------------------------------------

_LATEX_ESCAPES = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "^": r"\^{}",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "\\": r"\textbackslash{}",
    "<": r"\ensuremath{<}",
    ">": r"\ensuremath{>}",
}
# tabulate's pattern for numbers with thousands separators (it also matches "").
_THOUSANDS = re.compile(r"^(([+-]?[0-9]{1,3})(?:,([0-9]{3}))*)?(?(1)\.[0-9]*|\.[0-9]+)?$")
# tabulate's type order, least generic first.
_TYPE_RANK = {"none": 0, "bool": 1, "int": 2, "float": 3, "str": 5}


def _converts(kind: type, text: str) -> bool:
    try:
        kind(text)
    except (ValueError, TypeError):
        return False
    return True


def _cell_type(text: str) -> str:
    """tabulate's ``_type`` of a string cell: none, bool, int, float or str."""
    if not text:
        return "none"
    if text in ("True", "False"):
        return "bool"
    if _converts(int, text) or (_THOUSANDS.match(text) and "." not in text):
        return "int"
    if _converts(float, text):
        value = float(text)
        if value == value and value not in (float("inf"), float("-inf")):
            return "float"
        if text.lower() in ("inf", "-inf", "nan"):
            return "float"
    if _THOUSANDS.match(text):
        return "float"
    return "str"


def _tabulate_column(column: Sequence[str], width: int) -> list[str]:
    """A column's cells as tabulate formats them: numbers-only columns are reformatted.

    A column of numbers (tabulate's column type float) is rewritten with
    ``floatfmt`` (``.{width}f``); int, bool and str columns keep their text.
    Cells are then stripped (centred and right-aligned columns are).
    """
    kind = max((_cell_type(c) for c in column), key=_TYPE_RANK.__getitem__, default="bool")
    kind = max(kind, "bool", key=_TYPE_RANK.__getitem__)
    if kind == "float":
        column = [_float_text(cell, width) for cell in column]
    return [cell.strip() for cell in column]


def _float_text(cell: str, width: int) -> str:
    """A float column's cell as tabulate formats it (text that is no number stays)."""
    if not cell:
        return cell
    try:
        return format(float(cell.replace(",", "")), f".{width}f")
    except ValueError:
        return cell


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(c, c) for c in text)


def latex_table(results: Sequence[Entry], width: int = 1) -> str:
    """The ``-f latex`` table, character for character as SacreBLEU prints it.

    tabulate's ``latex_booktabs`` with SacreBLEU's options: the system
    column right-aligned, the others centred, every column at least its
    title's width plus 2, cells padded with one space and LaTeX-escaped after
    padding (so a ``%`` or ``_`` widens its row).  Widths count characters,
    as tabulate does without the optional ``wcwidth`` package.
    """
    titles, columns = _grid(results, width, multiline=False)
    columns = [_tabulate_column(column, width) for column in columns]
    widths = [
        max([len(title) + 2, *(len(cell) for cell in column)])
        for title, column in zip(titles, columns)
    ]
    aligns = ["r"] + ["c"] * (len(titles) - 1)

    def row(cells: Sequence[str]) -> str:
        padded = [
            f"{cell:>{w}}" if align == "r" else f"{cell:^{w}}"
            for cell, w, align in zip(cells, widths, aligns)
        ]
        return ("&".join(f" {_latex_escape(cell)} " for cell in padded) + "\\\\").rstrip()

    lines = ["\\begin{tabular}{" + "".join(aligns) + "}", "\\toprule", row(titles), "\\midrule"]
    lines += [row(list(cells)) for cells in zip(*columns)]
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# Several systems: the whole output
# ----------------------------------------------------------------------------


def paired_explanation(test: str, n_samples: int, baseline: str) -> str:
    """SacreBLEU's paragraph after a paired test's table (ending in a blank line).

    ``test`` is ``"bs"`` or ``"ar"``; ``n_samples`` is the count as given on
    the command line (SacreBLEU prints that, even 0, which runs the default);
    ``baseline`` is the baseline's displayed name (``Baseline: NAME``).
    """
    if test == "bs":
        msg = f"Paired bootstrap resampling test with {n_samples} resampling trials"
        provided = "Actual system score / bootstrap estimated true mean / 95% CI are provided"
    elif test == "ar":
        msg = f"Paired approximate randomization test with {n_samples} trials"
        provided = "Actual system score is provided"
    else:
        raise ValueError(f"unknown test {test!r}")
    rule = "-" * len(msg)
    lines = [
        rule,
        msg,
        rule,
        f" - Each system is pairwise compared to {baseline}.",
        f"   {provided} for each metric.",
        "",
        " - Null hypothesis: the system and the baseline translations are essentially",
        "   generated by the same underlying process. For a given system and the baseline,",
        "   the p-value is roughly the probability of the absolute score difference (delta)",
        "   or higher occurring due to chance, under the assumption that the null hypothesis"
        " is correct.",
        "",
        " - Assuming a significance threshold of 0.05, the null hypothesis can be rejected",
        '   for p-values < 0.05 (marked with "*"). This means that the delta is unlikely'
        " to be attributed",
        '   to chance, hence the system is significantly "different" than the baseline.',
        "   Otherwise, the p-values are highlighted in red.",
        "",
        ' - NOTE: Significance does not tell whether a system is "better" than the baseline'
        " but rather",
        '   emphasizes the "difference" of the systems in terms of the replicability of the delta.',
        "",
    ]
    return "\n".join(lines) + "\n"


def signatures_block(signatures: Mapping[str, str]) -> str:
    """SacreBLEU's closing list of metric signatures (one line per metric)."""
    lines = ["-----------------", "Metric signatures", "-----------------"]
    lines += [f" - {name:<10} {sig}" for name, sig in signatures.items()]
    return "\n".join(lines) + "\n"


def report(
    layout: str,
    results: Sequence[Entry],
    signatures: Mapping[str, str],
    test: str | None = None,
    n_samples: int | None = None,
    width: int = 1,
) -> str:
    """The whole output for several systems, as SacreBLEU prints it, with the
    table of ``layout``: ``text`` (laid out plainly), ``grid`` (SacreBLEU's
    ``-f text``, box-drawn) or ``latex``; then, for a paired test
    (``test``: ``"bs"`` or ``"ar"``), the paragraph that explains it, and the
    signatures.  The baseline is the first result's system when its name
    starts with ``Baseline:``."""
    out = _TABLES[layout](results, width) + "\n\n"
    if test is not None:
        first = results[0].system if results else ""
        baseline = first if first.startswith("Baseline:") else ""
        out += paired_explanation(test, n_samples if n_samples is not None else 0, baseline)
    return out + signatures_block(signatures)


# ----------------------------------------------------------------------------
# SacreBLEU's JSON document (-f json)
# ----------------------------------------------------------------------------


def single_json(
    result: Entry,
    signature: Mapping[str, str],
    signature_text: str,
    verbose: str,
    width: int,
    mark: Mapping[str, Any] | None = None,
) -> str:
    """One metric of one system as ``Score.format(..., is_json=True)`` writes it;
    ``mark`` (bleustream's own, ``{"partial": true, ...}``) is added at the end."""
    import json

    data: dict[str, Any] = {
        "name": result.metric,
        "score": float(f"{result.score:.{width}f}"),
        "signature": signature_text,
    }
    data.update(confidence_json_fields(result, width))
    if verbose:
        data["verbose_score"] = verbose
    data.update(signature)
    data.update(mark or {})
    return json.dumps(data, indent=1, ensure_ascii=False)


def single_json_document(parts: Sequence[str]) -> str:
    """``print_single_results`` in JSON: one object, or an array of them."""
    if len(parts) == 1:
        return parts[0] + "\n"
    return "[\n" + ",\n".join(parts) + "\n]\n"


def systems_json(
    results: Sequence[Entry], paired: bool, width: int, mark: Mapping[str, Any] | None = None
) -> str:
    """Several systems' JSON: scores as strings, or each test's result;
    ``mark`` (bleustream's own) is added to each system's object."""
    import json

    rows: dict[str, dict[str, Any]] = {}
    for r in results:
        row = rows.setdefault(r.system, {"system": r.system})
        row[r.metric] = paired_json_value(r) if paired else f"{r.score:.{width}f}"
    for row in rows.values():
        row.update(mark or {})
    return json.dumps(list(rows.values()), indent=4) + "\n"


# ----------------------------------------------------------------------------
# Several systems: tabulate's fancy_grid, as SacreBLEU calls it
# ----------------------------------------------------------------------------


def grid_table(results: Sequence[Entry], width: int = 1) -> str:
    """The ``-f text`` table of ``print_results_table``: tabulate's ``fancy_grid``
    with the system column right-aligned and the others centred, each column at
    least its title's width plus 2, cells padded with a space, rules between rows."""
    titles, columns = _grid(results, width, multiline=True)
    columns = [
        _tabulate_column(column, width) if not any("\n" in c for c in column) else column
        for column in columns
    ]
    widths = [
        max([len(title) + 2, *(len(part) for cell in column for part in cell.split("\n"))])
        for title, column in zip(titles, columns)
    ]

    def lines_of(cells: Sequence[str]) -> list[str]:
        split = [cell.split("\n") for cell in cells]
        height = max(len(parts) for parts in split)
        out = []
        for i in range(height):
            parts = [p[i] if i < len(p) else "" for p in split]
            padded = [
                f"{part:>{w}}" if index == 0 else f"{part:^{w}}"
                for index, (part, w) in enumerate(zip(parts, widths))
            ]
            out.append("│" + "│".join(f" {part} " for part in padded) + "│")
        return out

    def rule(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right

    lines = [rule("╒", "═", "╤", "╕"), *lines_of(titles), rule("╞", "═", "╪", "╡")]
    rows = list(zip(*columns))
    for index, row in enumerate(rows):
        lines += lines_of(list(row))
        if index < len(rows) - 1:
            lines.append(rule("├", "─", "┼", "┤"))
    lines.append(rule("╘", "═", "╧", "╛"))
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# SacreBLEU's information lines (its log at level INFO) about several systems
# ----------------------------------------------------------------------------

_TEST_LINES = {
    "bs": " > Performing paired bootstrap resampling test (# resamples: {n})",
    "ar": " > Performing approximate randomization test (# trials: {n})",
}


def sacrebleu_log(
    names: Sequence[str],
    metrics: Sequence[tuple[str, str]],
    test: str | None = None,
    n: int = 0,
    jobs: int = 1,
    warned: Sequence[bool] = (),
    warning: Sequence[str] = (),
) -> list[str]:
    """What SacreBLEU says on stderr when it scores several systems: their
    number and, for a paired test (``bs`` or ``ar`` of ``n`` samples), each
    step.  *names* as its table names the systems (the baseline first);
    *metrics* are each metric's ``-m`` name and score name, in its order.
    The systems *warned* of get the lines of *warning* as their BLEU is
    counted, where SacreBLEU says them."""

    def counted(system: int, key: str) -> list[str]:
        return list(warning) if key == "bleu" and system < len(warned) and warned[system] else []

    lines = [f"Found {len(names)} systems."]
    if test is None:
        return lines
    for key, _ in metrics:
        lines.append(f"Pre-computing {key.upper()} statistics for {names[0]!r}")
        lines += counted(0, key)
    if jobs > 1:
        lines.append(f"Launching {jobs} parallel workers.")
    for system, name in enumerate(names[1:], 1):
        for key, label in metrics:
            lines.append(f"Computing {label} for {name!r} and extracting sufficient statistics")
            lines += counted(system, key)
            lines.append(_TEST_LINES[test].format(n=n))
    return lines


_TABLES = {"text": text_table, "grid": grid_table, "latex": latex_table}
