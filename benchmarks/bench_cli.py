#!/usr/bin/env python3
"""Command-line benchmark: bleustream against SacreBLEU on real MT output.

Builds a corpus of N segment pairs from the real data in ``shared/data/real``
(by default the WMT17 en-de set: 16 systems cycled against the one
reference), runs each command below as a child process and reports its
wall-clock time, throughput and peak resident memory (the command's own
``ru_maxrss`` from ``os.wait4``, taken by a small launcher process: see
``harness.LAUNCHER``)::

    bleustream ref.txt -i hyp.txt -b -w 6            lockstep, corpus score only
    bleustream -b -w 6 < paste.txt                   paste mode (hyp<TAB>ref)
    bleustream -sl -f tsv ref.txt -i hyp.txt         a record per segment
    bleustream --every 1000 -f jsonl ref.txt -i hyp.txt
    sacrebleu ref.txt -i hyp.txt -b -w 6             SacreBLEU's command line

Every hypothesis and reference line gets a running number appended (" 17"),
so no line repeats: SacreBLEU's tokenizers are behind ``functools.lru_cache``
and repeated lines would flatter it.  (The number also puts a digit on every
line, which keeps bleustream's 13a tokenizer off its no-digit fast path.)

The printed scores of the two tools must be equal to six decimals (and the
paste-mode score equal to the lockstep one): otherwise the exit status is 1.
Without the data the benchmark is skipped with exit status 0.

Run ``python benchmarks/bench_cli.py --help`` for the options.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness import (
    EXIT_FAIL,
    EXIT_OK,
    BenchError,
    Command,
    Corpus,
    Result,
    add_common_arguments,
    build_corpus,
    by_name,
    check_repeat,
    format_table,
    load_source,
    machine,
    measure,
    parse_sizes,
    resolve_executable,
    results_of,
    work_directory,
)
from realdata import DEFAULT_SET

TOKENIZERS = ("13a", "intl", "zh", "char", "none")
WIDTH = "6"


# --------------------------------------------------------------------------
# the benchmark
# --------------------------------------------------------------------------


def commands(
    bleustream: list[str], sacrebleu: list[str], tokenize: str, with_sacrebleu: bool
) -> list[Command]:
    tok = ["-tok", tokenize]
    result = [
        Command(
            "bleustream lockstep -b",
            [*bleustream, "ref.txt", "-i", "hyp.txt", "-b", "-w", WIDTH, *tok],
            keep_output=True,
        ),
        Command(
            "bleustream paste -b",
            [*bleustream, "-b", "-w", WIDTH, *tok],
            stdin="paste.txt",
            keep_output=True,
        ),
        Command(
            "bleustream -sl -f tsv",
            [*bleustream, "-sl", "-f", "tsv", *tok, "ref.txt", "-i", "hyp.txt"],
        ),
        Command(
            "bleustream --every 1000 -f jsonl",
            [*bleustream, "--every", "1000", "-f", "jsonl", *tok, "ref.txt", "-i", "hyp.txt"],
        ),
    ]
    if with_sacrebleu:
        result.append(
            Command(
                "sacrebleu -b",
                [*sacrebleu, "ref.txt", "-i", "hyp.txt", "-b", "-w", WIDTH, *tok],
                keep_output=True,
                is_sacrebleu=True,
            )
        )
    return result


@dataclass
class SizeReport:
    lines: int
    results: list[Result] = field(default_factory=list)
    sacrebleu_skipped: bool = False
    scores: dict[str, str] = field(default_factory=dict)
    scores_equal: bool = True
    per_line_vs_corpus_throughput: float | None = None
    per_line_vs_corpus_cpu: float | None = None  # the same by CPU time


def bench_size(
    corpus: Corpus, cmds: list[Command], repeat: int, progress: bool
) -> tuple[list[Result], dict[str, str]]:
    measured = measure(cmds, corpus.workdir, repeat, progress, f"{corpus.lines} lines")
    results = results_of(measured, corpus.lines)
    scores = {r.name: r.output for r in results if r.output is not None}
    return results, scores


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time bleustream's command line against SacreBLEU's on real MT output.",
    )
    add_common_arguments(parser)
    parser.add_argument(
        "--set",
        default=DEFAULT_SET,
        help=f"the MANIFEST set to build the corpus from; its first reference is used "
        f"(default: {DEFAULT_SET})",
    )
    parser.add_argument(
        "--lines",
        type=parse_sizes,
        default=[100000],
        metavar="N[,N...]",
        help="corpus size(s) in segments, comma-separated for a sweep (default: 100000)",
    )
    parser.add_argument(
        "--skip-sacrebleu-above",
        type=int,
        default=200000,
        metavar="N",
        help="measure only bleustream for corpora of more than N lines; SacreBLEU keeps "
        "the whole corpus in memory, ~9 GB at 1,000,000 lines (default: 200000)",
    )
    parser.add_argument(
        "--tokenize",
        "-tok",
        choices=TOKENIZERS,
        default="13a",
        help="tokenizer passed to both tools (default: 13a)",
    )
    args = parser.parse_args(argv)
    check_repeat(parser, args)
    return args


# --------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------


def print_text(meta: dict[str, Any], reports: list[SizeReport]) -> None:
    print(
        f"data: {meta['data']} (set {meta['set']}, {meta['systems']} systems x "
        f"{meta['set_lines']} lines, first reference)"
    )
    print(f"tokenize: {meta['tokenize']}; best of {meta['repeat']} run(s)")
    print(f"bleustream: {meta['bleustream']}")
    print(f"sacrebleu:  {meta['sacrebleu']}")
    print(f"python: {meta['python']}; cpus: {meta['cpus']}")
    for report in reports:
        print()
        print(f"== {report.lines:,} lines ==")
        print(format_table(report.results))
        ratio = report.per_line_vs_corpus_throughput
        cpu_ratio = report.per_line_vs_corpus_cpu
        if ratio is not None and cpu_ratio is not None:
            verdict = "within" if 1 / ratio <= 1.5 else "OVER"
            print(
                f"per-line (-sl -f tsv) / corpus-only throughput: {ratio:.2f} "
                f"(per-line takes {1 / ratio:.2f}x the time, {verdict} the 1.5x target; "
                f"by cpu: {cpu_ratio:.2f}, {1 / cpu_ratio:.2f}x)"
            )
        if report.sacrebleu_skipped:
            print(f"sacrebleu skipped: more than --skip-sacrebleu-above={meta['skip_above']} lines")
        scores = ", ".join(f"{name}: {score}" for name, score in report.scores.items())
        print(f"scores: {scores} -> {'equal' if report.scores_equal else 'DIFFERENT'}")
    print()
    where = f"the kept work directory {meta['workdir']}" if meta["kept"] else "the work directory"
    print(f"commands (run in {where}):")
    for command in meta["commands"]:
        print(f"  {command}")


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    data: Path = args.data
    if not data.is_dir():
        print(f"skipped: real data directory {data} not found", file=sys.stderr)
        return EXIT_OK
    bleustream = resolve_executable(args.bleustream, "bleustream")
    sacrebleu = resolve_executable(args.sacrebleu, "sacrebleu")
    progress = not args.quiet

    try:
        source = load_source(data, args.set)
    except BenchError as error:
        print(f"bench_cli: {error}", file=sys.stderr)
        return error.status

    keep = args.workdir is not None
    reports: list[SizeReport] = []
    all_commands: list[str] = []
    status = EXIT_OK
    try:
        with work_directory(args.workdir, "bench_cli-") as workdir:
            for size in args.lines:
                if progress:
                    print(f"building a corpus of {size} lines in {workdir} ...", file=sys.stderr)
                corpus = build_corpus(source, size, workdir)
                with_sacre = size <= args.skip_sacrebleu_above
                cmds = commands(bleustream, sacrebleu, args.tokenize, with_sacre)
                for cmd in cmds:
                    if cmd.shell() not in all_commands:
                        all_commands.append(cmd.shell())
                results, scores = bench_size(corpus, cmds, args.repeat, progress)
                report = SizeReport(size, results, not with_sacre, scores)
                report.scores_equal = len(set(scores.values())) == 1
                named = by_name(results)
                corpus_only = named["bleustream lockstep -b"]
                per_line = named["bleustream -sl -f tsv"]
                report.per_line_vs_corpus_throughput = corpus_only.seconds / per_line.seconds
                report.per_line_vs_corpus_cpu = corpus_only.cpu_seconds / per_line.cpu_seconds
                if not report.scores_equal:
                    status = EXIT_FAIL
                reports.append(report)
    except BenchError as error:
        print(f"bench_cli: {error}", file=sys.stderr)
        return error.status

    meta: dict[str, Any] = {
        "data": str(data),
        "set": source.name,
        "systems": len(source.hyps),
        "set_lines": len(source.ref),
        "tokenize": args.tokenize,
        "repeat": args.repeat,
        "skip_above": args.skip_sacrebleu_above,
        "bleustream": shlex.join(bleustream),
        "sacrebleu": shlex.join(sacrebleu),
        **machine(),
        "workdir": str(workdir),
        "kept": keep,
        "commands": all_commands,
    }
    if args.json:
        out = {**meta, "sizes": [asdict(report) for report in reports], "ok": status == EXIT_OK}
        print(json.dumps(out, indent=2))
    else:
        print_text(meta, reports)
    if status != EXIT_OK:
        print("bench_cli: the scores differ", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
