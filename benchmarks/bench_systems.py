#!/usr/bin/env python3
"""Several-systems benchmark: one bleustream run against one SacreBLEU run over N systems.

Three cases, each tool run once per case with every system on its command
line (the first system is the baseline), each as a child process timed by
the launcher of ``harness.py``:

(a) WMT21 en-de as it is (1,002 segments, 3 references), a baseline and
    ``--wmt21-systems - 1`` systems, BLEU and chrF with a paired bootstrap
    test, run in the set's own directory::

        bleustream REF.A REF.C REF.D -i BASE S1 S2 S3 S4 -m bleu chrf --paired-bs -f jsonl
        sacrebleu REF.A REF.C REF.D -i BASE S1 S2 S3 S4 -m bleu chrf --paired-bs -f text -w 6

    Every number (score, bootstrap mean, 95% CI, p-value) must be equal at
    SacreBLEU's printed width.  SacreBLEU's JSON for paired tests fails
    (``float32 is not JSON serializable``), so its text table is parsed.

(b) ``--lines`` distinct segments (WMT17 en-de, numbered as in
    ``bench_cli.py``) x ``--systems`` systems, BLEU, no test::

        bleustream ref.txt -i hyp.txt hyp.1.txt hyp.2.txt hyp.3.txt -b -w 6
        bleustream --systems 4 -b -w 6 < paste.txt
        sacrebleu ref.txt -i hyp.txt hyp.1.txt hyp.2.txt hyp.3.txt -f json -w 6

(c) the same corpus with ``--paired-bs``: a paired test keeps every
    segment's statistics of every system, so the peak RSS grows with the
    corpus.  bleustream runs on a corpus a tenth the size as well: the
    slope between the two peaks, per segment and system, is that storage
    cost (the difference from (b) holds numpy and fixed buffers too).
    SacreBLEU runs too up to ``--skip-sacrebleu-paired-above`` lines (20,000
    by default: its resampling materialises 1000 x N x 10 float32 values;
    at 100,000 x 4 it took four CPU minutes and 5.6 GiB).

Lines/s counts the hypothesis lines of all systems.  Any number that
differs makes the exit status 1; without the data the benchmark is skipped
with exit status 0.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from harness import (
    EXIT_OK,
    BenchError,
    Command,
    Corpus,
    Section,
    add_common_arguments,
    add_skip_argument,
    build_corpus,
    by_name,
    check_repeat,
    finish,
    load_source,
    measure_section,
    median_ratio,
    meta_of,
    outputs,
    ratio,
    skip_without_data,
    tools,
    work_directory,
)
from realdata import read_manifest

WMT21_SET = "wmt21-en-de"
WIDTH = 6
P_WIDTH = 4  # SacreBLEU prints p-values to four decimals whatever the width
SYSTEMS_AIM = 6.0  # (a): bleustream over SacreBLEU, throughput
# The commands' names in the tables.
PAIRED_OURS = "bleustream --paired-bs"
PAIRED_THEIRS = "sacrebleu --paired-bs"
PAIRED_JOBS = "bleustream --paired-bs -j 2"
NO_TEST_OURS = "bleustream -i N files"
NO_TEST_THEIRS = "sacrebleu -i N files"

# A paired test's numbers of one system and metric: score, mean, ci, p-value
# as SacreBLEU prints them (None where it prints nothing).
Numbers = dict[str, "str | None"]
Table = dict[tuple[str, str], Numbers]

ANSI = re.compile(r"\x1b\[[0-9;]*m")
SCORE_CELL = re.compile(r"^(-?\d+\.\d+)(?: \((-?\d+\.\d+) ± (-?\d+\.\d+)\))?$")
P_CELL = re.compile(r"^\(p = (\d+\.\d+)\)\*?$")


# --------------------------------------------------------------------------
# reading the outputs
# --------------------------------------------------------------------------


def parse_sacrebleu_table(text: str) -> Table:
    """SacreBLEU's ``-f text`` table of several systems: (system, metric) -> numbers.

    The table is tabulate's ``fancy_grid``: a header row, then for each
    system a row of ``score (mean ± ci)`` cells and, for a paired test, a
    second row of ``(p = 0.0010)*`` cells with an empty system cell.
    """
    rows = [line for line in ANSI.sub("", text).splitlines() if line.startswith("│")]
    if not rows:
        raise BenchError(f"no table in SacreBLEU's output:\n{text[-2000:]}")
    cells = [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]
    metrics = [title.split(" (")[0] for title in cells[0][1:]]
    table: Table = {}
    system = ""
    for row in cells[1:]:
        if row[0]:
            system = row[0].removeprefix("Baseline: ")
            for metric, cell in zip(metrics, row[1:]):
                match = SCORE_CELL.match(cell)
                if not match:
                    raise BenchError(f"SacreBLEU's table: cannot read {cell!r}")
                score, mean, ci = match.groups()
                table[system, metric] = {"score": score, "mean": mean, "ci": ci, "p_value": None}
            continue
        for metric, cell in zip(metrics, row[1:]):
            match = P_CELL.match(cell)
            if not match:
                raise BenchError(f"SacreBLEU's table: cannot read {cell!r}")
            table[system, metric]["p_value"] = match.group(1)
    return table


def parse_sacrebleu_json(text: str) -> Table:
    """SacreBLEU's ``-f json`` of several systems without a test: scores as strings."""
    table: Table = {}
    for record in json.loads(text):
        system = record.pop("system")
        for metric, score in record.items():
            table[system, metric] = {"score": score, "mean": None, "ci": None, "p_value": None}
    return table


def parse_bleustream_json(text: str, width: int = WIDTH) -> Table:
    """bleustream's ``-f jsonl`` records, formatted as SacreBLEU prints them."""
    table: Table = {}
    for line in text.splitlines():
        record = json.loads(line)
        if record.get("type", "corpus") != "corpus":
            continue
        mean, ci, p_value = record.get("mean"), record.get("ci"), record.get("p_value")
        table[record["system"], record["metric"]] = {
            "score": f"{record['score']:.{width}f}",
            "mean": None if mean is None else f"{mean:.{width}f}",
            "ci": None if ci is None else f"{ci:.{width}f}",
            "p_value": None if p_value is None else f"{p_value:.{P_WIDTH}f}",
        }
    return table


def parse_score_lines(text: str, systems: Sequence[str], metric: str = "BLEU") -> Table:
    """bleustream's ``-b`` output of several systems: a score per line, in system order."""
    scores = text.split()
    if len(scores) != len(systems):
        raise BenchError(f"{len(scores)} scores for {len(systems)} systems:\n{text[-2000:]}")
    return {
        (system, metric): {"score": score, "mean": None, "ci": None, "p_value": None}
        for system, score in zip(systems, scores)
    }


def compare(ours: Table, theirs: Table) -> list[str]:
    """The numbers that differ (or that one side lacks), as lines to print."""
    problems = []
    for key in sorted(set(ours) | set(theirs)):
        if key not in ours or key not in theirs:
            problems.append(f"{key[0]} {key[1]}: only in {'ours' if key in ours else 'theirs'}")
            continue
        for name, value in theirs[key].items():
            if value is not None and ours[key].get(name) != value:
                problems.append(
                    f"{key[0]} {key[1]} {name}: bleustream {ours[key].get(name)}, sacrebleu {value}"
                )
    return problems


def count_numbers(table: Table) -> int:
    return sum(value is not None for numbers in table.values() for value in numbers.values())


# --------------------------------------------------------------------------
# the cases
# --------------------------------------------------------------------------


def judge(section: Section, ours: Table, theirs: Table | None, label: str) -> None:
    if theirs is None:
        section.notes.append(f"{label}: sacrebleu skipped; bleustream's numbers not checked")
        return
    problems = compare(ours, theirs)
    section.ok = section.ok and not problems
    if problems:
        section.notes.append(f"{label}: {len(problems)} numbers DIFFER:")
        section.notes.extend(f"  {problem}" for problem in problems)
    else:
        p_values = any(numbers["p_value"] is not None for numbers in theirs.values())
        section.notes.append(
            f"{label}: all {count_numbers(theirs)} numbers equal ({len(theirs)} system/metric "
            f"cells; at {WIDTH} decimals{f', p-values at {P_WIDTH}' if p_values else ''})"
        )


def speed_note(section: Section, ours: str, theirs: str, aim: float | None = None) -> None:
    named = by_name(section.results)
    if theirs not in named:
        return
    speed, speed_cpu = ratio(named[theirs], named[ours])
    text = f"{ours} vs {theirs}: {speed:.2f}x by wall clock, {speed_cpu:.2f}x by cpu"
    if aim is not None:
        text += (
            f" (the {aim:g}x aim is {'met' if speed >= aim else 'NOT MET'} by wall clock, "
            f"{'met' if speed_cpu >= aim else 'NOT MET'} by cpu; by median wall clock: "
            f"{median_ratio(named[theirs], named[ours]):.2f}x)"
        )
    section.notes.append(text)


def paired_commands(
    common: list[str], bleustream: list[str], sacrebleu: list[str], with_sacrebleu: bool
) -> list[Command]:
    """A paired test run by each tool with the same operands, in a form to parse."""
    cmds = [Command(PAIRED_OURS, [*bleustream, *common, "-f", "jsonl"], keep_output=True)]
    if with_sacrebleu:
        argv = [*sacrebleu, *common, "-f", "text", "-w", str(WIDTH)]
        cmds.append(Command(PAIRED_THEIRS, argv, keep_output=True, is_sacrebleu=True))
    return cmds


def test_options(args: argparse.Namespace) -> list[str]:
    return ["--paired-bs", *(["--paired-bs-n", str(args.paired_bs_n)] if args.paired_bs_n else [])]


def check_paired(section: Section, aim: float | None = None) -> None:
    """The ratio of a paired-test section, and every number of both tools compared."""
    speed_note(section, PAIRED_OURS, PAIRED_THEIRS, aim)
    out = outputs(section)
    theirs = parse_sacrebleu_table(out[PAIRED_THEIRS]) if PAIRED_THEIRS in out else None
    judge(section, parse_bleustream_json(out[PAIRED_OURS]), theirs, "scores, means, CIs, p-values")


def case_wmt21(
    args: argparse.Namespace, bleustream: list[str], sacrebleu: list[str], progress: bool
) -> Section:
    """(a) The real WMT21 set with its three references: every number of a paired test."""
    manifest = read_manifest(args.data)
    if WMT21_SET not in manifest:
        raise BenchError(f"set {WMT21_SET!r} is not in {args.data / 'MANIFEST.json'}")
    entry = manifest[WMT21_SET]
    set_dir: Path = args.data / WMT21_SET
    refs = list(entry["refs"])
    systems = list(entry["hyps"][: args.wmt21_systems])
    common = [*refs, "-i", *systems, "-m", "bleu", "chrf", *test_options(args)]
    cmds = paired_commands(common, bleustream, sacrebleu, True)
    # Beside the aim, which is one process's: what two workers give.
    jobs = [*bleustream, *common, "-f", "jsonl", "-j", "2"]
    cmds.insert(1, Command(PAIRED_JOBS, jobs, keep_output=True))
    title = (
        f"(a) {WMT21_SET}: {entry['lines']:,} segments x {len(systems)} systems, "
        f"{len(refs)} references, BLEU and chrF, paired bootstrap"
    )
    lines = len(systems) * int(entry["lines"])
    section = measure_section(title, cmds, set_dir, lines, args.repeat, progress)
    section.notes.append(f"run in {set_dir}; baseline {systems[0]}")
    check_paired(section, SYSTEMS_AIM)
    speed_note(section, PAIRED_JOBS, PAIRED_THEIRS)
    out = outputs(section)
    same = out[PAIRED_JOBS] == out[PAIRED_OURS]
    section.ok = section.ok and same
    section.notes.append(
        f"{PAIRED_JOBS}: output {'identical to' if same else 'DIFFERS from'} one process's "
        "(not the aim's figure: two cores against SacreBLEU's one)"
    )
    return section


def case_no_test(
    corpus: Corpus,
    args: argparse.Namespace,
    bleustream: list[str],
    sacrebleu: list[str],
    full: bool = True,
) -> Section:
    """(b) Many segments, several systems, BLEU only: throughput and memory.

    Not ``full``: only bleustream on the files, for (c)'s memory baseline.
    """
    files = [corpus.ref, "-i", *corpus.hyps]
    width = ["-w", str(WIDTH)]
    paste = [*bleustream, "--systems", str(corpus.systems), "-b", *width]
    paste_name = f"bleustream --systems {corpus.systems} (paste)"
    cmds = [Command(NO_TEST_OURS, [*bleustream, *files, "-b", *width], keep_output=True)]
    if full:
        cmds.append(Command(paste_name, paste, corpus.paste, keep_output=True))
    if full and corpus.lines <= args.skip_sacrebleu_above:
        argv = [*sacrebleu, *files, "-f", "jsonl", *width]
        cmds.append(Command(NO_TEST_THEIRS, argv, keep_output=True, is_sacrebleu=True))
    title = f"(b) {corpus.lines:,} segments x {corpus.systems} systems, BLEU, no test"
    lines = corpus.lines * corpus.systems
    section = measure_section(title, cmds, corpus.workdir, lines, args.repeat, not args.quiet)
    speed_note(section, NO_TEST_OURS, NO_TEST_THEIRS)
    out = outputs(section)
    ours = parse_score_lines(out[NO_TEST_OURS], corpus.hyps)
    if paste_name in out:
        judge(section, parse_score_lines(out[paste_name], corpus.hyps), ours, "paste vs files")
    theirs = parse_sacrebleu_json(out[NO_TEST_THEIRS]) if NO_TEST_THEIRS in out else None
    if full:
        judge(section, ours, theirs, "vs sacrebleu")
    return section


def case_paired(
    corpus: Corpus,
    small: Corpus,
    args: argparse.Namespace,
    bleustream: list[str],
    sacrebleu: list[str],
    no_test: Section,
) -> Section:
    """(c) The same corpus with a paired bootstrap test: what per-segment storage costs.

    The peak RSS over (b)'s holds numpy and the resampling buffers besides
    the statistics kept per segment; the run on a corpus a tenth the size
    (``small``) gives the slope, which is the statistics alone.
    """
    common = [corpus.ref, "-i", *corpus.hyps, *test_options(args)]
    with_sacre = corpus.lines <= args.skip_sacrebleu_paired_above
    cmds = paired_commands(common, bleustream, sacrebleu, with_sacre)
    title = f"(c) {corpus.lines:,} segments x {corpus.systems} systems, BLEU, paired bootstrap"
    lines = corpus.lines * corpus.systems
    progress = not args.quiet
    section = measure_section(title, cmds, corpus.workdir, lines, args.repeat, progress)
    ours = paired_commands(common, bleustream, sacrebleu, False)[0]
    small_cmds = [replace(ours, name=f"{ours.name} ({small.lines:,} segments)")]
    small_lines = small.lines * small.systems
    small_section = measure_section(
        f"{title}, small", small_cmds, small.workdir, small_lines, args.repeat, progress
    )
    section.results.extend(small_section.results)
    rss = by_name(section.results)[PAIRED_OURS].peak_rss_mib
    small_rss = small_section.results[0].peak_rss_mib
    base_rss = by_name(no_test.results)[NO_TEST_OURS].peak_rss_mib
    slope = (rss - small_rss) * 2**20 / (lines - small_lines)
    section.notes.append(
        f"bleustream peak RSS {rss:.1f} MiB with the test ({small_rss:.1f} MiB at "
        f"{small.lines:,} segments), {base_rss:.1f} MiB without: the test keeps "
        f"{slope:.0f} bytes per segment and system (the slope between the two sizes)"
    )
    if not with_sacre:
        section.notes.append(
            f"sacrebleu left out above --skip-sacrebleu-paired-above="
            f"{args.skip_sacrebleu_paired_above} lines"
        )
    check_paired(section)
    return section


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time one bleustream run against one SacreBLEU run over several systems.",
    )
    add_common_arguments(parser)
    parser.add_argument(
        "--wmt21-systems",
        type=int,
        default=5,
        metavar="N",
        help=f"(a): the first N systems of {WMT21_SET}, the first the baseline (default: 5)",
    )
    parser.add_argument(
        "--lines",
        type=int,
        default=100000,
        metavar="N",
        help="(b) and (c): segments per system (default: 100000)",
    )
    parser.add_argument(
        "--systems",
        type=int,
        default=4,
        metavar="N",
        help="(b) and (c): systems, the first the baseline (default: 4)",
    )
    parser.add_argument(
        "--paired-bs-n",
        type=int,
        default=0,
        metavar="N",
        help="bootstrap resamples for both tools (default: theirs, 1000)",
    )
    add_skip_argument(
        parser, "--skip-sacrebleu-above", 200000, "SacreBLEU in (b)", "it holds the corpus"
    )
    add_skip_argument(
        parser,
        "--skip-sacrebleu-paired-above",
        20000,
        "SacreBLEU in (c)",
        "its resampling holds 1000 x N x 10 float32 values at once: at 100000 lines x 4 "
        "systems it took 4 CPU minutes and 5.6 GiB",
    )
    parser.add_argument(
        "--cases",
        default="abc",
        help="which cases to run, a subset of 'abc' (default: abc)",
    )
    args = parser.parse_args(argv)
    check_repeat(parser, args)
    if args.wmt21_systems < 2 or not 2 <= args.systems <= 16 or args.lines < 1:
        parser.error("--wmt21-systems and --systems need 2 or more (--systems 16 at most)")
    if not set(args.cases) <= set("abc") or not args.cases:
        parser.error("--cases is a subset of 'abc'")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if skip_without_data(args.data, "bench_systems"):
        return EXIT_OK
    bleustream, sacrebleu = tools(args)
    progress = not args.quiet
    sections: list[Section] = []
    try:
        if "a" in args.cases:
            sections.append(case_wmt21(args, bleustream, sacrebleu, progress))
        if "b" in args.cases or "c" in args.cases:
            source = load_source(args.data)
            with work_directory(args.workdir, "bench_systems-") as workdir:
                if progress:
                    print(
                        f"building a corpus of {args.lines} lines x {args.systems} systems "
                        f"in {workdir} ...",
                        file=sys.stderr,
                    )
                corpus = build_corpus(source, args.lines, workdir, args.systems)
                # (c) measures its storage against (b), so bleustream's part of
                # (b) runs for it too.
                full = "b" in args.cases
                no_test = case_no_test(corpus, args, bleustream, sacrebleu, full)
                if "b" in args.cases:
                    sections.append(no_test)
                if "c" in args.cases:
                    small_dir = workdir / "small"
                    small_dir.mkdir(exist_ok=True)
                    small = build_corpus(source, max(1, args.lines // 10), small_dir, args.systems)
                    sections.append(
                        case_paired(corpus, small, args, bleustream, sacrebleu, no_test)
                    )
    except BenchError as error:
        print(f"bench_systems: {error}", file=sys.stderr)
        return error.status

    head = [
        f"data: {args.data}; best of {args.repeat} run(s); python {sys.version.split()[0]}",
        "lines/s counts the hypothesis lines of all systems",
    ]
    return finish("bench_systems", args, meta_of(args, bleustream, sacrebleu), sections, head)


if __name__ == "__main__":
    sys.exit(main())
