"""``--analyze``: the analyses of a run's systems, read as the run reads them.

The segments come from bleustream's own readers (REF files read in
lockstep with one ``-i`` file per system, paste lines with ``--systems N``,
translation logs); each goes to an ``Analyzer``.  At the end the document is
written in the format asked for (``-f text``, ``tsv``, ``json`` or
``latex``), and with ``--report FILE.html`` as a page, which ``--every N``
rewrites every N segments while the input is read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any, BinaryIO

from bleustream.analysis import AnalysisSettings, Analyzer, build, parse_edges
from bleustream.analysis.buckets import Edges
from bleustream.analysis.layout import latex, text, tsv
from bleustream.analysis.words import count_lines, read_counts
from bleustream.errors import InputError, OpenError, UsageError
from bleustream.inputs.items import items_of_segments, text_items
from bleustream.inputs.lines import BadLinePolicy
from bleustream.metrics.protocol import parse_seed
from bleustream.run import Output, RunOptions

FORMATS = ("text", "tsv", "json", "latex")


def settings_of(
    options: Mapping[str, Any], tokenize: Callable[[str], list[str]]
) -> AnalysisSettings:
    """The analysis settings the command line's options give."""
    frequencies, source = None, "references"
    if options["freq_counts"]:
        path = options["freq_counts"]
        with _opened(path) as f:
            try:
                frequencies = dict(read_counts(f, path))
            except ValueError as exc:
                raise InputError(str(exc)) from None
        source = f"counts file {path}"
    elif options["freq_corpus"]:
        path = options["freq_corpus"]
        with _opened(path) as f:
            frequencies = count_lines(f, tokenize)
        source = f"corpus {path}"
    low, high = (int(x) for x in options["ngram_orders"].split(":"))
    return AnalysisSettings(
        length_edges=Edges(parse_edges(options["length_edges"])),
        length_diff_edges=Edges(parse_edges(options["length_diff_edges"])),
        sentence_bleu_edges=Edges(parse_edges(options["sentence_bleu_edges"]), whole=False),
        frequency_edges=Edges(parse_edges(options["frequency_edges"])),
        frequencies=frequencies,
        frequency_source=source,
        ngram_orders=(low, high),
        ngrams_listed=options["ngrams"],
        examples=options["examples"],
        samples=options["analyze_n"],
        seed=parse_seed(options["seed"]),
    )


def _opened(path: str) -> Any:
    try:
        return open(path, encoding="utf-8")
    except OSError as exc:
        raise OpenError(f"cannot open {path}: {exc.strerror}") from None


def system_names(run: RunOptions) -> list[str]:
    """Files by their names without folders, where that tells them apart."""
    if len(run.inputs) > 1:
        short = [os.path.basename(path) or path for path in run.inputs]
        return short if len(set(short)) == len(short) else list(run.inputs)
    if run.systems > 1:
        return [f"field {i}" for i in range(1, run.systems + 1)]
    return ["stdin" if run.input == "-" else os.path.basename(run.input) or run.input]


def _sources(path: str | None) -> Iterator[str | None]:
    if path is None:
        while True:
            yield None
    with _opened(path) as f:
        for line in f:
            yield line.rstrip("\r\n")


def run(
    run_options: RunOptions,
    options: Mapping[str, Any],
    stdin: BinaryIO | None,
    stdout: BinaryIO,
    report: Callable[[str], None],
) -> int:
    """Analyze the input; returns the exit status (0)."""
    fmt = run_options.format
    if fmt not in FORMATS:
        raise UsageError(f"--analyze writes -f {', '.join(FORMATS)}, not -f {fmt}")
    if run_options.jobs > 1:
        raise UsageError("--analyze runs in one process: give -j 1")
    if run_options.input_format == "stats":
        raise UsageError("--analyze reads text, not statistics records")
    names = system_names(run_options)
    specs = run_options.specs
    try:
        analyzer = Analyzer(specs, names, AnalysisSettings())
    except ValueError as exc:
        raise UsageError(f"--analyze: {exc}") from None
    settings = settings_of(options, analyzer.tokenize)
    analyzer = Analyzer(specs, names, settings)
    page, every = options["report"], options.get("report_every", 0)
    if page is not None:
        from bleustream.analysis.report import require_matplotlib, write_report

        require_matplotlib()  # before reading: a missing extra is said at once
    policy = BadLinePolicy(run_options.skip_bad_lines, report)
    segments, sources = text_items(run_options.reading, stdin, policy)
    src = _sources(options["src"])
    try:
        for item in items_of_segments(segments, run_options.reading, sources, policy):
            line = next(src, StopIteration)
            if line is StopIteration:
                raise InputError("fewer source lines than segments", options["src"], item.line)
            analyzer.add(item.hyps, item.refs, line, item.line)  # type: ignore[arg-type]
            if page is not None and every and analyzer.segments % every == 0:
                write_report(build(analyzer), page)
    finally:
        for source in sources:
            source.close()
        src.close()
    if not analyzer.segments:
        raise InputError("no segment to analyze")
    doc = build(analyzer)
    if page is not None:
        write_report(doc, page)
    out = {
        "text": lambda: text(doc, run_options.width),
        "tsv": lambda: tsv(doc),
        "json": lambda: json.dumps(doc, ensure_ascii=False, indent=1) + "\n",
        "latex": lambda: latex(doc, run_options.width),
    }[fmt]()
    Output(stdout).write(out)
    return 0
