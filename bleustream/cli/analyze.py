"""``--analyze``: the command line's options of the analyses, and the output.

The options become ``AnalysisSettings`` (the training corpus or counts
file read by ``inputs.side_files``); the input is analyzed by
``analysis.feed`` (text, with ``-j N``'s workers) or merged by
``analysis.records`` (analysis records, ``--input-format stats``); the
document is written in the format asked for (``-f text``, ``tsv``,
``json``, ``latex`` or ``stats``), and with ``--report FILE.html`` as a
page, which ``--every N`` rewrites every N segments while the input is
read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, BinaryIO

from bleustream.analysis import AnalysisSettings, build, parse_edges
from bleustream.analysis.buckets import Edges
from bleustream.analysis.collect import bleu_index
from bleustream.analysis.feed import analyze_input
from bleustream.analysis.layout import latex, text, tsv
from bleustream.analysis.records import read_parts
from bleustream.analysis.report import require_matplotlib, write_report
from bleustream.analysis.state import to_record
from bleustream.analysis.words import count_lines
from bleustream.errors import InputError, UsageError
from bleustream.inputs.options import ReadOptions
from bleustream.inputs.side_files import read_counts, side_lines
from bleustream.metrics import bleu
from bleustream.metrics.registry import Spec
from bleustream.metrics.seeds import parse_seed
from bleustream.run import Output, RunOptions

FORMATS = ("text", "tsv", "json", "latex", "stats")


def settings_of(
    values: Mapping[str, Any], tokenize: Callable[[str], list[str]], reading: ReadOptions
) -> AnalysisSettings:
    """The analysis settings the command line's options give; a training
    corpus or counts file is read as the input is (``-e``)."""
    frequencies, source = None, "references"
    if values["freq_counts"]:
        path = values["freq_counts"]
        frequencies = read_counts(path, reading)
        source = f"counts file {path}"
    elif values["freq_corpus"]:
        path = values["freq_corpus"]
        frequencies = count_lines(side_lines(path, reading), tokenize)
        source = f"corpus {path}"
    low, high = (int(x) for x in values["ngram_orders"].split(":"))
    return AnalysisSettings(
        length_edges=Edges(parse_edges(values["length_edges"])),
        length_diff_edges=Edges(parse_edges(values["length_diff_edges"])),
        sentence_bleu_edges=Edges(parse_edges(values["sentence_bleu_edges"]), whole=False),
        frequency_edges=Edges(parse_edges(values["frequency_edges"])),
        frequencies=frequencies,
        frequency_source=source,
        ngram_orders=(low, high),
        ngrams_listed=values["ngrams"],
        examples=values["examples"],
        samples=values["analyze_n"],
        seed=parse_seed(values["seed"]),
    )


def run(
    run_options: RunOptions,
    values: Mapping[str, Any],
    stdin: BinaryIO | None,
    stdout: BinaryIO,
    report: Callable[[str], None],
) -> int:
    """Analyze the input; returns the exit status (0)."""
    fmt = run_options.format
    if fmt not in FORMATS:
        raise UsageError(f"--analyze writes -f {', '.join(FORMATS)}, not -f {fmt}")
    page, every = values["report"], values.get("report_every", 0)
    if page is not None:
        require_matplotlib()  # before reading: a missing extra is said at once
    reading = run_options.reading.input_format == "stats"
    specs = run_options.specs
    if not reading:
        try:
            bleu_index(specs)
        except ValueError as exc:
            raise UsageError(f"--analyze: {exc}") from None
    settings = settings_of(values, _words_of(specs), run_options.reading)
    if reading:
        analyzer = read_parts(run_options.reading, settings, stdin)
    else:
        analyzer = analyze_input(
            run_options.reading,
            specs,
            settings,
            values["src"],
            stdin,
            report,
            run_options.jobs,
            (page, every),
        )
    if not analyzer.segments:
        raise InputError("no segment to analyze")
    if fmt == "stats":
        Output(stdout).write(json.dumps(to_record(analyzer), ensure_ascii=False) + "\n")
        return 0
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


def _words_of(specs: Sequence[Spec]) -> Callable[[str], list[str]]:
    """BLEU's tokenizer (a training corpus's words are BLEU's tokens)."""
    for spec in specs:
        if spec.name == "bleu":
            return bleu.preprocess(spec.settings)
    return str.split
