#!/usr/bin/env python3
"""Worker-process benchmark: ``bleustream -j 1`` and ``-j 2`` beside SacreBLEU and bleuscore.

Builds a corpus of N distinct segment pairs from the WMT17 en-de set (as
``bench_cli.py`` does: each line numbered so that none repeats) and runs,
each as a child process timed by the launcher of ``harness.py``::

    bleustream ref.txt -i hyp.txt -b -w 6 -j 1
    bleustream ref.txt -i hyp.txt -b -w 6 -j 2
    sacrebleu ref.txt -i hyp.txt -b -w 6             (up to --skip-sacrebleu-above)
    python bleuscore_bleu.py ref.txt hyp.txt         (up to --skip-bleuscore-above)

``bleuscore`` is the Rust BLEU package from PyPI, the pick of a user who
wants speed: the tiny script reads both files and calls
``bleuscore.compute(..., smooth=False, ref_len_method="sacrebleu")``, the
closest reference length as SacreBLEU takes it, and prints the score to six
decimals.  (SacreBLEU's ``exp`` smoothing touches only an n-gram order
with no match, which a corpus of this size does not have.)

The table gives wall-clock and CPU seconds, lines/s, the ratio to
SacreBLEU and peak RSS; below it, ``-j 2`` against ``-j 1`` and against
bleuscore.  bleustream's scores must equal SacreBLEU's (and each other's)
to six decimals, or the exit status is 1; bleuscore's agreement is reported,
not required, as it is not the tool under test.  Without the data the
benchmark is skipped with exit status 0.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from childenv import child_environment
from harness import (
    EXIT_OK,
    BenchError,
    Command,
    Corpus,
    Section,
    add_common_arguments,
    add_sizes_argument,
    add_skip_argument,
    build_corpus,
    by_name,
    callgrind_total,
    check_repeat,
    finish,
    load_source,
    measure_section,
    meta_of,
    outputs,
    ratio,
    skip_without_data,
    tools,
    work_directory,
)

WIDTH = "6"
BLEUSCORE_SCRIPT = "bleuscore_bleu.py"
BLEUSCORE_SOURCE = """\
import sys

import bleuscore

def read(path):
    with open(path, encoding="utf-8", newline="\\n") as fh:
        return [line[:-1] if line.endswith("\\n") else line for line in fh]

refs, hyps = read(sys.argv[1]), read(sys.argv[2])
result = bleuscore.compute(
    references=[[ref] for ref in refs],
    predictions=hyps,
    max_order=4,
    smooth=False,
    ref_len_method="sacrebleu",
)
print(f"{100 * result['bleu']:.6f}")
"""

AIM = 1.8  # -j 2 against -j 1, on two cores
J1 = "bleustream -j 1"
J2 = "bleustream -j 2"
SACRE = "sacrebleu"
BLEUSCORE = "bleuscore"


def commands(
    bleustream: list[str],
    sacrebleu: list[str],
    python: str,
    corpus: Corpus,
    with_sacrebleu: bool,
    with_bleuscore: bool,
) -> list[Command]:
    files = [corpus.ref, "-i", corpus.hyp, "-b", "-w", WIDTH]
    cmds = [
        Command(J1, [*bleustream, *files, "-j", "1"], keep_output=True),
        Command(J2, [*bleustream, *files, "-j", "2"], keep_output=True),
    ]
    if with_sacrebleu:
        cmds.append(Command(SACRE, [*sacrebleu, *files], keep_output=True, is_sacrebleu=True))
    if with_bleuscore:
        argv = [python, BLEUSCORE_SCRIPT, corpus.ref, corpus.hyp]
        cmds.append(Command(BLEUSCORE, argv, keep_output=True))
    return cmds


def judge(section: Section) -> None:
    """Add the ratios and the score check to a measured section."""
    named = by_name(section.results)
    scores = outputs(section)
    speedup, speedup_cpu = ratio(named[J1], named[J2])
    verdict = "meets" if speedup >= AIM else "BELOW"
    cpu_note = (
        "below 1: the CPU time the workers add"
        if speedup_cpu < 1
        else "at or above 1: the workers spent no more CPU time than one process"
    )
    section.notes.append(
        f"-j 2 vs -j 1: {speedup:.2f}x by wall clock ({verdict} the {AIM}x aim); "
        f"{speedup_cpu:.2f}x by cpu ({cpu_note})"
    )
    j2 = named[J2]
    main_cpu = j2.main_cpu_seconds or 0.0
    workers = j2.cpu_seconds - main_cpu
    # On two free cores the main process and the workers overlap: the run
    # takes at least half of its CPU time, and at least the main process's
    # own (the one part that does not share out).
    free_seconds = max(j2.cpu_seconds / 2, main_cpu)
    bound = named[J1].cpu_seconds / free_seconds
    section.notes.append(
        f"-j 2 cpu: main process {main_cpu:.2f} s, workers {workers:.2f} s; with both cores "
        f"free, -j 2 would run up to {bound:.2f}x as fast as -j 1 (-j 1's CPU time over the "
        "larger of half -j 2's and its main process's)"
    )
    if BLEUSCORE in named:
        vs, vs_cpu = ratio(named[BLEUSCORE], named[J2])
        verdict = "faster" if vs > 1 else "SLOWER"
        rust = named[BLEUSCORE]
        section.notes.append(
            f"-j 2 vs bleuscore: {vs:.2f}x by wall clock ({verdict}), {vs_cpu:.2f}x by cpu; "
            f"with both cores free -j 2 would take about {free_seconds:.1f} s, bleuscore "
            f"{rust.seconds:.1f} s ({rust.cpu_seconds:.1f} s cpu)"
        )
    ours = {scores[J1], scores[J2]}
    if SACRE in scores:
        ours.add(scores[SACRE])
    section.ok = len(ours) == 1
    shown = ", ".join(f"{name}: {score}" for name, score in scores.items())
    section.notes.append(f"scores: {shown}")
    section.notes.append(
        "bleustream vs sacrebleu: "
        + ("equal" if section.ok else "DIFFERENT")
        + ("" if SACRE in scores else " (sacrebleu skipped: bleustream -j 1 vs -j 2 only)")
    )
    if BLEUSCORE in scores:
        anchor = scores.get(SACRE, scores[J1])
        same = "equal" if scores[BLEUSCORE] == anchor else "DIFFERENT"
        against = "sacrebleu" if SACRE in scores else "bleustream"
        section.notes.append(f"bleuscore vs {against}: {same} (reported, not required)")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time bleustream -j 1 and -j 2 beside SacreBLEU and bleuscore.",
    )
    add_common_arguments(parser)
    add_sizes_argument(parser, "--lines", [100000, 1000000], "BLEU")
    add_skip_argument(
        parser, "--skip-sacrebleu-above", 200000, "SacreBLEU", "it keeps the corpus in memory"
    )
    add_skip_argument(
        parser, "--skip-bleuscore-above", 1000000, "bleuscore", "it takes the corpus as lists"
    )
    parser.add_argument(
        "--callgrind-lines",
        type=int,
        default=200000,
        help="count -j 1's and -j 2's instructions with callgrind at sizes up to this "
        "(default 200000; 0: never)",
    )
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter that runs the bleuscore script (default: this one)",
    )
    args = parser.parse_args(argv)
    check_repeat(parser, args)
    return args


def callgrind_note(bleustream: list[str], corpus: Corpus, workdir: Path) -> list[str]:
    """Instructions of ``-j 1`` and of each process of ``-j 2``, by callgrind.

    Unlike seconds, they do not move with the machine's load.  The bound
    they give is ``-j 1``'s instructions over those of the busiest process
    of ``-j 2`` (the run cannot end before it does), beside ``-j 1``'s over
    half of all of ``-j 2``'s (perfect sharing).
    """
    files = [corpus.ref, "-i", corpus.hyp, "-b", "-w", WIDTH]
    counts: dict[str, list[int]] = {}
    for jobs in ("1", "2"):
        out = workdir / f"callgrind-j{jobs}"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--trace-children=yes",
                f"--callgrind-out-file={out}/cg.%p",
                *bleustream,
                *files,
                "-j",
                jobs,
            ],
            cwd=workdir,
            env=child_environment(),
            capture_output=True,
            check=True,
        )
        counts[jobs] = sorted((callgrind_total(path) for path in out.iterdir()), reverse=True)
    one, two = sum(counts["1"]), counts["2"]
    busiest, shared = one / two[0], one / (sum(two) / 2)
    verdict = "meets" if min(busiest, shared) >= AIM else "BELOW"
    return [
        f"callgrind, {corpus.lines:,} lines: -j 1 {one:,} instructions; -j 2 "
        f"{', '.join(f'{n:,}' for n in two)} (its processes, busiest first)",
        f"  -j 1 over the busiest -j 2 process: {busiest:.2f}x; over half of all of -j 2's: "
        f"{shared:.2f}x ({verdict} the {AIM}x aim)",
    ]


def has_bleuscore(python: str) -> bool:
    if python == sys.executable:
        return importlib.util.find_spec("bleuscore") is not None
    return True  # another interpreter: a missing package shows as a failed run


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if skip_without_data(args.data, "bench_parallel"):
        return EXIT_OK
    bleustream, sacrebleu = tools(args)
    with_bleuscore = has_bleuscore(args.python)
    progress = not args.quiet
    sections: list[Section] = []
    try:
        source = load_source(args.data)
        with work_directory(args.workdir, "bench_parallel-") as workdir:
            (workdir / BLEUSCORE_SCRIPT).write_text(BLEUSCORE_SOURCE, encoding="utf-8")
            for size in args.lines:
                if progress:
                    print(f"building a corpus of {size} lines in {workdir} ...", file=sys.stderr)
                corpus = build_corpus(source, size, workdir, paste=False)
                cmds = commands(
                    bleustream,
                    sacrebleu,
                    args.python,
                    corpus,
                    size <= args.skip_sacrebleu_above,
                    with_bleuscore and size <= args.skip_bleuscore_above,
                )
                title = f"BLEU, {size:,} lines"
                section = measure_section(title, cmds, workdir, size, args.repeat, progress)
                judge(section)
                if size <= args.callgrind_lines and shutil.which("valgrind"):
                    if progress:
                        print(f"  [{title}] callgrind ...", file=sys.stderr, flush=True)
                    section.notes += callgrind_note(bleustream, corpus, workdir)
                sections.append(section)
    except BenchError as error:
        print(f"bench_parallel: {error}", file=sys.stderr)
        return error.status

    meta = meta_of(args, bleustream, sacrebleu)
    meta["set"] = source.name
    meta["bleuscore"] = "installed" if with_bleuscore else "not installed: left out"
    head = [
        f"data: {meta['data']} (set {meta['set']}, first reference, distinct numbered lines)",
        f"best of {args.repeat} run(s); python {meta['python']}; cpus: {meta['cpus']}",
        f"bleuscore: {meta['bleuscore']}; its script is {BLEUSCORE_SCRIPT} in the work directory:",
        *(f"    {line}" for line in BLEUSCORE_SOURCE.splitlines()),
    ]
    return finish("bench_parallel", args, meta, sections, head)


if __name__ == "__main__":
    sys.exit(main())
