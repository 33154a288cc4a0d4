#!/usr/bin/env python3
"""chrF and TER benchmark: bleustream's command line against SacreBLEU's.

Builds corpora of N distinct segment pairs from the WMT17 en-de set (as
``bench_cli.py`` does: each line numbered so that none repeats) and runs,
each as a child process timed by the launcher of ``harness.py``::

    bleustream ref.txt -i hyp.txt -m chrf -b -w 6     chrF at each --chrf-lines size
    bleustream ref.txt -i hyp.txt -m chrf -b -w 6 -j 2   (where SacreBLEU runs)
    sacrebleu ref.txt -i hyp.txt -m chrf -b -w 6
    bleustream ref.txt -i hyp.txt -m ter -b -w 6      TER at each --ter-lines size
    bleustream ref.txt -i hyp.txt -m ter -b -w 6 -j 2
    sacrebleu ref.txt -i hyp.txt -m ter -b -w 6

with ``--chrf-args`` / ``--ter-args`` added to both tools' command lines
(``-cw 2`` for chrF++, ``--ter-normalized``...: the options have the same
names).  SacreBLEU keeps the whole corpus in memory and its TER is slow, so
it runs only up to ``--skip-sacrebleu-above`` lines for chrF and
``--ter-skip-sacrebleu-above`` for TER; above that bleustream runs alone,
which shows whether its peak RSS stays flat as the corpus grows (those
sizes run ``--repeat-alone`` times, once by default: they are there for the
memory, and a million chrF lines take minutes).

The printed scores must be equal to six decimals, or the exit status is 1.
Without the data the benchmark is skipped with exit status 0.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence

from harness import (
    EXIT_OK,
    BenchError,
    Command,
    Section,
    add_common_arguments,
    add_sizes_argument,
    add_skip_argument,
    build_corpus,
    by_name,
    check_repeat,
    finish,
    load_source,
    measure_section,
    median_ratio,
    meta_of,
    ratio,
    skip_without_data,
    tools,
    work_directory,
)

WIDTH = "6"
# What the figures are held against: throughput ratio to SacreBLEU, and
# bleustream's peak RSS.
AIMS = {"chrf": 3.0, "ter": 1.0}
RSS_AIM_MIB = 30.0


def commands(
    metric: str,
    extra: list[str],
    bleustream: list[str],
    sacrebleu: list[str],
    with_sacrebleu: bool,
) -> list[Command]:
    argv = ["ref.txt", "-i", "hyp.txt", "-m", metric, "-b", "-w", WIDTH, *extra]
    cmds = [Command(f"bleustream -m {metric}", [*bleustream, *argv], keep_output=True)]
    if with_sacrebleu:
        # Beside the aim, which is one process's: what two workers give.
        jobs = [*bleustream, *argv, "-j", "2"]
        cmds.append(Command(f"bleustream -m {metric} -j 2", jobs, keep_output=True))
        cmds.append(
            Command(
                f"sacrebleu -m {metric}", [*sacrebleu, *argv], keep_output=True, is_sacrebleu=True
            )
        )
    return cmds


def met(held: bool) -> str:
    return "met" if held else "NOT MET"


def judge(section: Section, metric: str) -> None:
    """Add the aims and the score check to a measured section."""
    named = by_name(section.results)
    ours = named[f"bleustream -m {metric}"]
    theirs = named.get(f"sacrebleu -m {metric}")
    if theirs is not None:
        speed, speed_cpu = ratio(theirs, ours)
        aim = AIMS[metric]
        section.notes.append(
            f"vs sacrebleu: {speed:.2f}x by wall clock, {speed_cpu:.2f}x by cpu; the {aim:g}x "
            f"aim is {met(speed >= aim)} by wall clock, {met(speed_cpu >= aim)} by cpu "
            f"(by median wall clock: {median_ratio(theirs, ours):.2f}x)"
        )
        section.ok = ours.output == theirs.output
        state = "equal" if section.ok else "DIFFERENT"
        section.notes.append(
            f"scores: bleustream {ours.output}, sacrebleu {theirs.output} -> {state}"
        )
        jobs = named.get(f"bleustream -m {metric} -j 2")
        if jobs is not None:
            speed, speed_cpu = ratio(theirs, jobs)
            same = jobs.output == ours.output
            section.ok = section.ok and same
            section.notes.append(
                f"-j 2 vs sacrebleu: {speed:.2f}x by wall clock, {speed_cpu:.2f}x by cpu (not the "
                f"aim's figure: two cores against SacreBLEU's one); score "
                f"{'equal' if same else 'DIFFERENT'}"
            )
    else:
        section.notes.append(f"score: bleustream {ours.output} (sacrebleu skipped at this size)")
    verdict = "within" if ours.peak_rss_mib < RSS_AIM_MIB else "OVER"
    section.notes.append(
        f"bleustream peak RSS {ours.peak_rss_mib:.1f} MiB ({verdict} the {RSS_AIM_MIB:g} MiB aim)"
    )


def flatness(sections: Sequence[Section], metric: str) -> str | None:
    """bleustream's peak RSS across the sizes of one metric, smallest to largest."""
    name = f"bleustream -m {metric}"
    points = [(s.lines, by_name(s.results)[name].peak_rss_mib) for s in sections]
    if len(points) < 2:
        return None
    shown = ", ".join(f"{lines:,} lines: {rss:.1f}" for lines, rss in points)
    growth = points[-1][1] - points[0][1]
    return f"{metric}: bleustream peak RSS MiB by size: {shown} (largest - smallest: {growth:+.1f})"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time bleustream's chrF and TER against SacreBLEU's on real MT output.",
    )
    add_common_arguments(parser)
    add_sizes_argument(parser, "--chrf-lines", [100000, 1000000], "chrF")
    add_sizes_argument(parser, "--ter-lines", [10000, 100000], "TER")
    add_skip_argument(
        parser,
        "--skip-sacrebleu-above",
        200000,
        "SacreBLEU's chrF",
        "it keeps the corpus in memory",
    )
    add_skip_argument(
        parser,
        "--ter-skip-sacrebleu-above",
        10000,
        "SacreBLEU's TER",
        "it scores a few hundred lines a second",
    )
    parser.add_argument(
        "--chrf-args",
        default="",
        metavar="ARGS",
        help="more chrF options for both tools, e.g. --chrf-args='-cw 2' (chrF++)",
    )
    parser.add_argument(
        "--ter-args",
        default="",
        metavar="ARGS",
        help="more TER options for both tools, e.g. --ter-args=--ter-normalized (with '=', "
        "as the value starts with a dash)",
    )
    parser.add_argument(
        "--repeat-alone",
        type=int,
        default=1,
        metavar="K",
        help="runs of the sizes where bleustream runs alone, which are there for its peak "
        "RSS (default: 1)",
    )
    args = parser.parse_args(argv)
    check_repeat(parser, args)
    if args.repeat_alone < 1:
        parser.error("--repeat-alone must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if skip_without_data(args.data, "bench_metrics"):
        return EXIT_OK
    bleustream, sacrebleu = tools(args)
    progress = not args.quiet
    plan = {
        "chrf": (args.chrf_lines, args.skip_sacrebleu_above, shlex.split(args.chrf_args)),
        "ter": (args.ter_lines, args.ter_skip_sacrebleu_above, shlex.split(args.ter_args)),
    }
    sizes = sorted({size for lines, _, _ in plan.values() for size in lines})
    found: dict[str, list[Section]] = {metric: [] for metric in plan}
    try:
        source = load_source(args.data)
        with work_directory(args.workdir, "bench_metrics-") as workdir:
            for size in sizes:
                if progress:
                    print(f"building a corpus of {size} lines in {workdir} ...", file=sys.stderr)
                build_corpus(source, size, workdir, paste=False)
                for metric, (lines, skip_above, extra) in plan.items():
                    if size not in lines:
                        continue
                    with_sacre = size <= skip_above
                    cmds = commands(metric, extra, bleustream, sacrebleu, with_sacre)
                    repeat = args.repeat if with_sacre else args.repeat_alone
                    title = f"{metric} {size:,} lines"
                    section = measure_section(title, cmds, workdir, size, repeat, progress)
                    judge(section, metric)
                    found[metric].append(section)
    except BenchError as error:
        print(f"bench_metrics: {error}", file=sys.stderr)
        return error.status

    sections = [section for metric in plan for section in found[metric]]
    flat = [text for metric in plan if (text := flatness(found[metric], metric))]
    meta = meta_of(args, bleustream, sacrebleu)
    meta["set"] = source.name
    head = [
        f"data: {meta['data']} (set {meta['set']}, first reference, distinct numbered lines)",
        f"best of {args.repeat} run(s) ({args.repeat_alone} where bleustream runs alone); "
        f"python {meta['python']}; cpus: {meta['cpus']}",
    ]
    return finish("bench_metrics", args, meta, sections, head, flat)


if __name__ == "__main__":
    sys.exit(main())
