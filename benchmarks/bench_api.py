#!/usr/bin/env python3
"""Python API benchmark: ``bleustream.sentence_bleu`` against ``sacrebleu.sentence_bleu``.

Calls each function once per segment pair of the WMT17 en-de set (every
system's output against the reference; each pair numbered as in
``bench_cli.py``, so that no line repeats and no cache of either library
finds a line it has seen), in this process, and reports calls per second by
wall clock and by CPU time (the best of ``--repeat`` interleaved passes)
and their ratio.  Beside the module-level function, SacreBLEU's own faster
idiom runs too: one ``BLEU(effective_order=True)`` object reused through
``sentence_score``, which saves building the metric on every call.

Every score must be equal, bit for bit, to SacreBLEU's: otherwise the
differences are printed and the exit status is 1.  ``--metrics`` adds
``sentence_chrf`` and ``sentence_ter`` the same way.  Without the data the
benchmark is skipped with exit status 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Callable

from harness import EXIT_FAIL, EXIT_OK, BenchError, load_source, machine, render
from realdata import add_data_argument

METRICS = ("bleu", "chrf", "ter")
SHOWN_DIFFERENCES = 5
# bleustream calls/s over sacrebleu.sentence_<metric> calls/s: sentence BLEU
# has the compiled kernels' aim, the others the pure path's.
AIMS = {"bleu": 20.0, "chrf": 5.0, "ter": 5.0}

Pair = tuple[str, str]
ScoreOne = Callable[[str, list[str]], float]


def load_pairs(source_pairs: Sequence[Pair], limit: int | None) -> list[Pair]:
    """The first ``limit`` pairs, each hypothesis and reference with `` {n}`` appended."""
    chosen = source_pairs[:limit] if limit else source_pairs
    return [(f"{hyp} {n}", f"{ref} {n}") for n, (hyp, ref) in enumerate(chosen, 1)]


def functions(metric: str) -> dict[str, ScoreOne]:
    """What is timed for a metric: name -> (hypothesis, references) -> score."""
    import sacrebleu
    from sacrebleu.metrics import BLEU, CHRF, TER

    import bleustream

    ours = getattr(bleustream, f"sentence_{metric}")
    theirs = getattr(sacrebleu, f"sentence_{metric}")
    reused = {"bleu": BLEU(effective_order=True), "chrf": CHRF(), "ter": TER()}[metric]
    return {
        f"bleustream.sentence_{metric}": lambda hyp, refs: ours(hyp, refs).score,
        f"sacrebleu.sentence_{metric}": lambda hyp, refs: theirs(hyp, refs).score,
        f"sacrebleu {type(reused).__name__}().sentence_score": lambda hyp, refs: (
            reused.sentence_score(hyp, refs).score
        ),
    }


@dataclass(frozen=True)
class Timing:
    name: str
    seconds: float  # the best pass
    cpu_seconds: float  # the least CPU time of a pass
    calls_per_second: float
    vs_sacrebleu: float  # calls/s over sacrebleu.sentence_<metric>'s, by wall clock
    vs_sacrebleu_cpu: float


@dataclass(frozen=True)
class MetricReport:
    metric: str
    pairs: int
    timings: list[Timing]
    differing: int
    ok: bool


def bench_metric(
    metric: str, pairs: list[Pair], repeat: int, progress: bool
) -> tuple[MetricReport, list[str]]:
    funcs = functions(metric)
    for func in funcs.values():
        func("Set-up, 1 line.", ["Set-up, one line."])  # first-call set-up is not timed
    wall: dict[str, float] = {}
    cpu: dict[str, float] = {}
    scores: dict[str, list[float]] = {}
    for rep in range(repeat):
        for name, func in funcs.items():
            if progress:
                print(f"  [{metric}, pass {rep + 1}/{repeat}] {name} ...", file=sys.stderr)
            start, start_cpu = time.perf_counter(), time.process_time()
            got = [func(hyp, [ref]) for hyp, ref in pairs]
            seconds = time.perf_counter() - start
            cpu_seconds = time.process_time() - start_cpu
            wall[name] = min(wall.get(name, seconds), seconds)
            cpu[name] = min(cpu.get(name, cpu_seconds), cpu_seconds)
            scores[name] = got
    ours, theirs, reused = funcs
    timings = [
        Timing(
            name,
            wall[name],
            cpu[name],
            len(pairs) / wall[name],
            wall[theirs] / wall[name],
            cpu[theirs] / cpu[name],
        )
        for name in funcs
    ]
    differences = [
        f"{metric} pair {n}: {hyp!r} / {ref!r}\n  bleustream: {mine!r}\n  sacrebleu:  {expected!r}"
        for n, ((hyp, ref), mine, expected) in enumerate(
            zip(pairs, scores[ours], scores[theirs]), 1
        )
        if mine != expected
    ]
    if scores[theirs] != scores[reused]:
        raise BenchError(f"sacrebleu's two {metric} idioms disagree")
    report = MetricReport(metric, len(pairs), timings, len(differences), not differences)
    return report, differences


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time bleustream.sentence_bleu against sacrebleu.sentence_bleu.",
    )
    add_data_argument(parser)
    parser.add_argument(
        "--metrics",
        nargs="+",
        choices=METRICS,
        default=["bleu"],
        help="the sentence_* functions to time (default: bleu)",
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=0,
        metavar="N",
        help="time the first N pairs (default: all, 16 systems x 3004 lines)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        metavar="K",
        help="passes over the pairs; the fastest counts (default: 3)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.pairs < 0:
        parser.error("--repeat must be at least 1 and --pairs not negative")
    return args


def format_table(report: MetricReport) -> str:
    rows = [("function", "seconds", "cpu s", "calls/s", "vs sacrebleu", "(by cpu)")]
    for t in report.timings:
        rows.append(
            (
                t.name,
                f"{t.seconds:.3f}",
                f"{t.cpu_seconds:.3f}",
                f"{t.calls_per_second:,.0f}",
                f"{t.vs_sacrebleu:.2f}x",
                f"{t.vs_sacrebleu_cpu:.2f}x",
            )
        )
    return render(rows)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not (args.data / "MANIFEST.json").is_file():
        print(f"skipped: real data {args.data / 'MANIFEST.json'} not found", file=sys.stderr)
        return EXIT_OK
    import sacrebleu

    import bleustream

    try:
        source = load_source(args.data)
    except BenchError as error:
        print(f"bench_api: {error}", file=sys.stderr)
        return error.status
    source_pairs = [(hyp, ref) for hyps in source.hyps for hyp, ref in zip(hyps, source.ref)]
    pairs = load_pairs(source_pairs, args.pairs)
    reports: list[MetricReport] = []
    differences: list[str] = []
    try:
        for metric in args.metrics:
            report, found = bench_metric(metric, pairs, args.repeat, not args.quiet)
            reports.append(report)
            differences.extend(found[:SHOWN_DIFFERENCES])
    except BenchError as error:
        print(f"bench_api: {error}", file=sys.stderr)
        return error.status
    ok = all(report.ok for report in reports)
    meta: dict[str, Any] = {
        "data": str(args.data),
        "set": source.name,
        "pairs": len(pairs),
        "repeat": args.repeat,
        "bleustream": bleustream.__version__,
        "sacrebleu": sacrebleu.__version__,
        **machine(),
    }
    if args.json:
        print(json.dumps({**meta, "metrics": [asdict(r) for r in reports], "ok": ok}, indent=2))
    else:
        print(
            f"data: {meta['data']} (set {meta['set']}, {len(pairs):,} numbered pairs); "
            f"bleustream {meta['bleustream']}, sacrebleu {meta['sacrebleu']}; "
            f"python {meta['python']}; best of {args.repeat} pass(es), in process"
        )
        for report in reports:
            print()
            print(f"== sentence_{report.metric}, {report.pairs:,} calls ==")
            print(format_table(report))
            speed = report.timings[0]
            aim = AIMS[report.metric]
            print(
                f"bleustream vs sacrebleu.sentence_{report.metric}: {speed.vs_sacrebleu:.2f}x "
                f"by wall clock, {speed.vs_sacrebleu_cpu:.2f}x by cpu (the {aim:g}x aim is "
                f"{'met' if speed.vs_sacrebleu >= aim else 'NOT MET'} by wall clock, "
                f"{'met' if speed.vs_sacrebleu_cpu >= aim else 'NOT MET'} by cpu)"
            )
            state = "all equal" if report.ok else f"{report.differing} DIFFER"
            print(f"scores: {state} (bit for bit, {report.pairs:,} pairs)")
    if differences:
        print("bench_api: the scores differ:", file=sys.stderr)
        for text in differences:
            print(text, file=sys.stderr)
    return EXIT_OK if ok else EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
