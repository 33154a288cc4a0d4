#!/usr/bin/env python3
"""Command-line benchmark: bleustream against SacreBLEU on real MT output.

Builds a corpus of N segment pairs from the real data in ``shared/data/real``
(by default the WMT17 en-de set: 16 systems cycled against the one
reference), runs each command below as a child process and reports its
wall-clock time, throughput and peak resident memory (the command's own
``ru_maxrss`` from ``os.wait4``, taken by a small launcher process: see
``LAUNCHER``)::

    bleustream ref.txt -i hyp.txt -b -w 6            lockstep, corpus score only
    bleustream -b -w 6 < paste.txt                   paste mode (hyp<TAB>ref)
    bleustream -sl -f tsv ref.txt -i hyp.txt         a record per segment
    bleustream --every 1000 -f json ref.txt -i hyp.txt
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
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from realdata import DEFAULT_SET, add_data_argument, read_lines, read_manifest

TOKENIZERS = ("13a", "intl", "zh", "char", "none")
WIDTH = "6"

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2


class BenchError(Exception):
    """A failure that ends the benchmark with a message and a status."""

    def __init__(self, message: str, status: int = EXIT_FAIL) -> None:
        super().__init__(message)
        self.status = status


# --------------------------------------------------------------------------
# corpus
# --------------------------------------------------------------------------


@dataclass
class Source:
    """One reference and the system outputs scored against it."""

    name: str
    ref: list[str]
    hyps: list[list[str]]


def load_source(data: Path, set_name: str) -> Source:
    """Read a set named in ``MANIFEST.json``: its first reference, all hypotheses."""
    manifest_path = data / "MANIFEST.json"
    if not manifest_path.is_file():
        raise BenchError(f"{manifest_path} not found", EXIT_USAGE)
    manifest = read_manifest(data)
    if set_name not in manifest:
        known = ", ".join(sorted(manifest))
        raise BenchError(f"set {set_name!r} is not in {manifest_path} (sets: {known})", EXIT_USAGE)
    entry = manifest[set_name]
    set_dir = data / set_name
    ref = read_lines(set_dir / entry["refs"][0])
    hyps = [read_lines(set_dir / name) for name in entry["hyps"]]
    for name, lines in zip([entry["refs"][0], *entry["hyps"]], [ref, *hyps]):
        if len(lines) != len(ref):
            raise BenchError(f"{set_dir / name}: {len(lines)} lines, the reference has {len(ref)}")
        if any("\t" in line for line in lines):
            raise BenchError(f"{set_dir / name}: a line holds a tab, which paste mode cannot carry")
    if not hyps or not ref:
        raise BenchError(f"set {set_name!r} has no hypotheses or an empty reference")
    return Source(set_name, ref, hyps)


@dataclass
class Corpus:
    lines: int
    workdir: Path
    hyp: str = "hyp.txt"
    ref: str = "ref.txt"
    paste: str = "paste.txt"


def build_corpus(source: Source, lines: int, workdir: Path) -> Corpus:
    """Write hyp.txt, ref.txt and paste.txt with ``lines`` numbered segments.

    Segment i (from 0) is line ``i % L`` of system ``(i // L) % S``, paired
    with the same reference line, and both get `` {i + 1}`` appended.
    """
    corpus = Corpus(lines, workdir)
    ref_len = len(source.ref)
    chunk = 10000
    with ExitStack() as stack:
        hyp_fh, ref_fh, paste_fh = (
            stack.enter_context((workdir / name).open("w", encoding="utf-8", newline="\n"))
            for name in (corpus.hyp, corpus.ref, corpus.paste)
        )
        for start in range(0, lines, chunk):
            hyp_out: list[str] = []
            ref_out: list[str] = []
            paste_out: list[str] = []
            for i in range(start, min(start + chunk, lines)):
                system, line = divmod(i, ref_len)
                hyp = f"{source.hyps[system % len(source.hyps)][line]} {i + 1}"
                ref = f"{source.ref[line]} {i + 1}"
                hyp_out.append(f"{hyp}\n")
                ref_out.append(f"{ref}\n")
                paste_out.append(f"{hyp}\t{ref}\n")
            hyp_fh.writelines(hyp_out)
            ref_fh.writelines(ref_out)
            paste_fh.writelines(paste_out)
    return corpus


# --------------------------------------------------------------------------
# running a command
# --------------------------------------------------------------------------


@dataclass
class Command:
    name: str
    argv: list[str]
    stdin: str | None = None  # a file in the work directory
    keep_output: bool = False  # else the output goes to /dev/null
    is_sacrebleu: bool = False

    def shell(self) -> str:
        text = shlex.join(self.argv)
        if self.stdin:
            text += f" < {self.stdin}"
        if not self.keep_output:
            text += " > /dev/null"
        return text


@dataclass
class Run:
    seconds: float
    cpu_seconds: float  # user + system
    max_rss_kib: int
    output: str


# The child is started by a small launcher process rather than by this one.
# On Linux a child's ru_maxrss also counts the memory of the process it was
# forked (or vforked) from, at the moment it calls exec: started from here it
# would report this script's own peak (the corpus and the source texts) as
# its own.  The launcher is a bare interpreter (``-I -S``, ~8 MiB), which
# puts a floor of that size under the figure, below any Python program's.
# It times the child too, so that its own start-up is not counted.
LAUNCHER = """\
import os, sys, time
result, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
maxrss = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
with open(result, "w") as fh:
    cpu = usage.ru_utime + usage.ru_stime
    fh.write(f"{seconds!r} {cpu!r} {maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def run_once(command: Command, cwd: Path) -> Run:
    """Run the command as a grandchild; take its wall-clock time and own peak RSS."""
    with ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        result_path = Path(tmp) / "result"
        out_fh = stack.enter_context((Path(tmp) / "stdout").open("w+b"))
        err_fh = stack.enter_context((Path(tmp) / "stderr").open("w+b"))
        stdin_fh = stack.enter_context((cwd / command.stdin).open("rb")) if command.stdin else None
        launcher = subprocess.run(
            [sys.executable, "-I", "-S", "-c", LAUNCHER, str(result_path), *command.argv],
            cwd=cwd,
            stdin=stdin_fh if stdin_fh else subprocess.DEVNULL,
            stdout=out_fh if command.keep_output else subprocess.DEVNULL,
            stderr=err_fh,
            check=False,
        )
        err_fh.seek(0)
        stderr = err_fh.read().decode("utf-8", "replace").strip()
        if launcher.returncode != 0 or not result_path.exists():
            raise BenchError(f"cannot run {command.shell()}\n{stderr[-2000:]}")
        seconds_text, cpu_text, rss_text, status_text = result_path.read_text().split()
        if int(status_text) != 0:
            raise BenchError(
                f"{command.name} failed with status {status_text}: "
                f"{command.shell()}\n{stderr[-2000:]}"
            )
        out_fh.seek(0)
        output = out_fh.read().decode("utf-8", "replace").strip()
    return Run(float(seconds_text), float(cpu_text), int(rss_text), output)


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
            "bleustream --every 1000 -f json",
            [*bleustream, "--every", "1000", "-f", "json", *tok, "ref.txt", "-i", "hyp.txt"],
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
class Result:
    name: str
    command: str
    seconds: float  # the best of the repeats
    cpu_seconds: float  # user + system CPU time of that run
    lines_per_second: float
    peak_rss_mib: float  # the largest of the repeats
    vs_sacrebleu: float | None = None  # throughput ratio, > 1 is faster
    vs_sacrebleu_cpu: float | None = None  # the same by CPU time
    output: str | None = None


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
    best: dict[str, Run] = {}
    rss: dict[str, int] = {}
    # Interleave the repeats so that a slow moment of the machine does not
    # land on one command only.
    for rep in range(repeat):
        for cmd in cmds:
            if progress:
                print(
                    f"  [{corpus.lines} lines, run {rep + 1}/{repeat}] {cmd.name} ...",
                    file=sys.stderr,
                    flush=True,
                )
            run = run_once(cmd, corpus.workdir)
            if cmd.name not in best or run.seconds < best[cmd.name].seconds:
                best[cmd.name] = run
            rss[cmd.name] = max(rss.get(cmd.name, 0), run.max_rss_kib)
    sacre = next((best[c.name] for c in cmds if c.is_sacrebleu), None)
    results: list[Result] = []
    scores: dict[str, str] = {}
    for cmd in cmds:
        run = best[cmd.name]
        result = Result(
            name=cmd.name,
            command=cmd.shell(),
            seconds=run.seconds,
            cpu_seconds=run.cpu_seconds,
            lines_per_second=corpus.lines / run.seconds,
            peak_rss_mib=rss[cmd.name] / 1024,
            vs_sacrebleu=sacre.seconds / run.seconds if sacre else None,
            vs_sacrebleu_cpu=sacre.cpu_seconds / run.cpu_seconds if sacre else None,
            output=run.output if cmd.keep_output else None,
        )
        results.append(result)
        if cmd.keep_output:
            scores[cmd.name] = run.output
    return results, scores


def resolve_executable(option: str | None, name: str) -> list[str]:
    """The command prefix: the option, the venv's script, PATH, or ``-m``."""
    if option:
        return shlex.split(option)
    sibling = Path(sys.executable).parent / name
    if sibling.is_file() and os.access(sibling, os.X_OK):
        return [str(sibling)]
    found = shutil.which(name)
    if found:
        return [found]
    return [sys.executable, "-m", name]


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of line counts: {text!r}") from None
    if not sizes or any(size <= 0 for size in sizes):
        raise argparse.ArgumentTypeError(f"line counts must be positive: {text!r}")
    return sizes


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time bleustream's command line against SacreBLEU's on real MT output.",
    )
    add_data_argument(parser)
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
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="K",
        help="run each command K times and keep the fastest (default: 1)",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        help="write the corpus files here and keep them (default: a temporary "
        "directory under benchmarks/work/, removed afterwards)",
    )
    parser.add_argument(
        "--bleustream", help="bleustream command (default: the venv's, PATH, or -m)"
    )
    parser.add_argument("--sacrebleu", help="sacrebleu command (default: the venv's, PATH, or -m)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


# --------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------


def format_table(report: SizeReport) -> str:
    header = ("command", "seconds", "cpu s", "lines/s", "vs sacrebleu", "(by cpu)", "peak RSS MiB")
    rows = [header]
    for r in report.results:
        rows.append(
            (
                r.name,
                f"{r.seconds:.3f}",
                f"{r.cpu_seconds:.3f}",
                f"{r.lines_per_second:,.0f}",
                f"{r.vs_sacrebleu:.2f}x" if r.vs_sacrebleu is not None else "-",
                f"{r.vs_sacrebleu_cpu:.2f}x" if r.vs_sacrebleu_cpu is not None else "-",
                f"{r.peak_rss_mib:.1f}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = []
    for n, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


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
        print(format_table(report))
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
    if keep:
        workdir = args.workdir.resolve()
        workdir.mkdir(parents=True, exist_ok=True)
    else:
        parent = Path(__file__).resolve().parent / "work"
        parent.mkdir(exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix="bench_cli-", dir=parent))

    reports: list[SizeReport] = []
    all_commands: list[str] = []
    status = EXIT_OK
    try:
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
            by_name = {r.name: r for r in results}
            corpus_only = by_name["bleustream lockstep -b"]
            per_line = by_name["bleustream -sl -f tsv"]
            report.per_line_vs_corpus_throughput = corpus_only.seconds / per_line.seconds
            report.per_line_vs_corpus_cpu = corpus_only.cpu_seconds / per_line.cpu_seconds
            if not report.scores_equal:
                status = EXIT_FAIL
            reports.append(report)
    except BenchError as error:
        print(f"bench_cli: {error}", file=sys.stderr)
        return error.status
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)

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
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
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
