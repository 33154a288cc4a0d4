"""What the command-line benchmarks share: the corpus, the launcher, the table.

Every benchmark builds its corpus the same way (real segments, each line
numbered so that none repeats), runs each command as a grandchild through
``LAUNCHER`` so that its own peak RSS is what ``os.wait4`` reports, keeps
the best of ``--repeat`` interleaved runs, and prints the same table.  One
copy of each of these keeps the figures of all the benchmarks comparable.
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
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

from childenv import child_environment
from realdata import DEFAULT_SET, add_data_argument, read_lines, read_manifest

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2

WORK_PARENT = Path(__file__).resolve().parent / "work"


class BenchError(Exception):
    """A failure that ends the benchmark with a message and a status."""

    def __init__(self, message: str, status: int = EXIT_FAIL) -> None:
        super().__init__(message)
        self.status = status


# --------------------------------------------------------------------------
# corpus
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """One reference and the system outputs scored against it."""

    name: str
    ref: list[str]
    hyps: list[list[str]]


def load_source(data: Path, set_name: str = DEFAULT_SET) -> Source:
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


def hyp_name(system: int) -> str:
    """The file of system ``system`` (from 0): hyp.txt, hyp.1.txt, hyp.2.txt..."""
    return "hyp.txt" if system == 0 else f"hyp.{system}.txt"


@dataclass(frozen=True)
class Corpus:
    lines: int
    workdir: Path
    systems: int = 1
    ref: str = "ref.txt"
    paste: str | None = "paste.txt"  # None: not written

    @property
    def hyp(self) -> str:
        return hyp_name(0)

    @property
    def hyps(self) -> list[str]:
        return [hyp_name(k) for k in range(self.systems)]


def build_corpus(
    source: Source, lines: int, workdir: Path, systems: int = 1, paste: bool = True
) -> Corpus:
    """Write ref.txt, a hypothesis file per system and paste.txt, ``lines`` segments each.

    Segment i (from 0) of system k is line ``i % L`` of source system
    ``(i // L + k) % S``, paired with the same reference line, and both get
    `` {i + 1}`` appended: no line repeats within a file, and the systems
    differ on each segment as real systems do.  paste.txt holds
    ``hyp<TAB>ref`` lines (``hyp1<TAB>...<TAB>hypN<TAB>ref`` for N systems).
    """
    corpus = Corpus(lines, workdir, systems, paste="paste.txt" if paste else None)
    names = [corpus.ref, *corpus.hyps, *([corpus.paste] if corpus.paste else [])]
    ref_len = len(source.ref)
    n_sources = len(source.hyps)
    chunk = 10000
    with ExitStack() as stack:
        files = [
            stack.enter_context((workdir / name).open("w", encoding="utf-8", newline="\n"))
            for name in names
        ]
        for start in range(0, lines, chunk):
            outs: list[list[str]] = [[] for _ in names]
            for i in range(start, min(start + chunk, lines)):
                block, line = divmod(i, ref_len)
                ref = f"{source.ref[line]} {i + 1}"
                hyps = [
                    f"{source.hyps[(block + k) % n_sources][line]} {i + 1}" for k in range(systems)
                ]
                fields = [ref, *hyps]
                if corpus.paste:
                    fields.append("\t".join([*hyps, ref]))
                for out, text in zip(outs, fields):
                    out.append(f"{text}\n")
            for fh, out in zip(files, outs):
                fh.writelines(out)
    return corpus


@contextmanager
def work_directory(kept: Path | None, prefix: str) -> Iterator[Path]:
    """``kept`` (created, left in place), else a temporary directory under work/."""
    if kept is not None:
        path = kept.resolve()
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    WORK_PARENT.mkdir(exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=WORK_PARENT))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# --------------------------------------------------------------------------
# running a command
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    name: str
    argv: list[str]
    stdin: str | None = None  # a file in the working directory
    keep_output: bool = False  # else the output goes to /dev/null
    is_sacrebleu: bool = False

    def shell(self) -> str:
        text = shlex.join(self.argv)
        if self.stdin:
            text += f" < {self.stdin}"
        if not self.keep_output:
            text += " > /dev/null"
        return text


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu_seconds: float  # user + system, of the whole process tree
    max_rss_kib: int
    output: str
    main_cpu_seconds: float  # the main process's own share


# The child is started by a small launcher process rather than by this one.
# On Linux a child's ru_maxrss also counts the memory of the process it was
# forked (or vforked) from, at the moment it calls exec: started from here it
# would report this script's own peak (the corpus and the source texts) as
# its own.  The launcher is a bare interpreter (``-I -S``, ~8 MiB), which
# puts a floor of that size under the figure, below any Python program's.
# It times the child too, so that its own start-up is not counted.
#
# Worker processes (``-j N``) are the command's too.  A forkserver's workers
# outlive the command's main process, orphaned, and their CPU time would be
# lost with them; on Linux the launcher makes itself their reaper
# (PR_SET_CHILD_SUBREAPER), waits for every one, and takes CPU time and
# peak RSS over the whole tree from RUSAGE_CHILDREN.  The wall-clock time
# stops when the main process ends, as the user sees it.  The peak RSS is
# then that of the largest single process, not the sum of the processes.
# The main process's own CPU time is kept too: beside the total it shows
# how the work was shared.  Workers forked by the main process are its
# children, whose time wait4 adds to its own; on Linux a thread therefore
# reads the main process's own time from /proc/PID/stat every 20 ms while
# it runs (the last reading can miss up to 20 ms of it).  Elsewhere the
# figure includes the children the main process waited for.
LAUNCHER = """\
import os, resource, sys, threading, time
result, argv = sys.argv[1], sys.argv[2:]
if sys.platform.startswith("linux"):
    import ctypes
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
own = []
done = threading.Event()
def sample(pid):
    tick = os.sysconf("SC_CLK_TCK")
    while not done.is_set():
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            return
        own[:] = [(int(fields[11]) + int(fields[12])) / tick]
        done.wait(0.02)
start = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ)
sampler = threading.Thread(target=sample, args=(pid,), daemon=True)
if os.path.isdir("/proc/self/task"):
    sampler.start()
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
done.set()
while True:
    try:
        os.wait4(-1, 0)
    except ChildProcessError:
        break
tree = resource.getrusage(resource.RUSAGE_CHILDREN)
maxrss = max(usage.ru_maxrss, tree.ru_maxrss)
maxrss = maxrss // 1024 if sys.platform == "darwin" else maxrss
with open(result, "w") as fh:
    cpu = tree.ru_utime + tree.ru_stime
    main_cpu = own[0] if own else usage.ru_utime + usage.ru_stime
    fh.write(f"{seconds!r} {cpu!r} {maxrss} {os.waitstatus_to_exitcode(status)} {main_cpu!r}")
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
            env=child_environment(),
        )
        err_fh.seek(0)
        stderr = err_fh.read().decode("utf-8", "replace").strip()
        if launcher.returncode != 0 or not result_path.exists():
            raise BenchError(f"cannot run {command.shell()}\n{stderr[-2000:]}")
        seconds_text, cpu_text, rss_text, status_text, main_text = result_path.read_text().split()
        if int(status_text) != 0:
            raise BenchError(
                f"{command.name} failed with status {status_text}: "
                f"{command.shell()}\n{stderr[-2000:]}"
            )
        out_fh.seek(0)
        output = out_fh.read().decode("utf-8", "replace").strip()
    return Run(float(seconds_text), float(cpu_text), int(rss_text), output, float(main_text))


@dataclass
class Measured:
    """The best of a command's runs: least wall-clock and CPU time, largest RSS."""

    command: Command
    seconds: float
    cpu_seconds: float
    max_rss_kib: int
    output: str  # of the fastest run
    main_cpu_seconds: float  # of the run with the least CPU time
    runs: list[float] = field(default_factory=list)  # every run's wall-clock seconds


def measure(
    cmds: Sequence[Command], cwd: Path, repeat: int, progress: bool, label: str
) -> dict[str, Measured]:
    """Run every command ``repeat`` times, interleaved, and keep the best figures.

    The repeats are interleaved so that a slow moment of the machine does
    not land on one command only; the least CPU time is kept apart from the
    least wall-clock time, as a busy machine stretches the one but hardly
    the other.  Every run's wall-clock time is kept too: their median, beside
    the best, shows how far the machine's speed moved between runs.
    """
    best: dict[str, Measured] = {}
    for rep in range(repeat):
        for cmd in cmds:
            if progress:
                print(
                    f"  [{label}, run {rep + 1}/{repeat}] {cmd.name} ...",
                    file=sys.stderr,
                    flush=True,
                )
            run = run_once(cmd, cwd)
            old = best.get(cmd.name)
            if old is None:
                best[cmd.name] = Measured(
                    cmd,
                    run.seconds,
                    run.cpu_seconds,
                    run.max_rss_kib,
                    run.output,
                    run.main_cpu_seconds,
                    [run.seconds],
                )
                continue
            old.runs.append(run.seconds)
            if run.seconds < old.seconds:
                old.seconds, old.output = run.seconds, run.output
            if run.cpu_seconds < old.cpu_seconds:
                old.cpu_seconds, old.main_cpu_seconds = run.cpu_seconds, run.main_cpu_seconds
            old.max_rss_kib = max(old.max_rss_kib, run.max_rss_kib)
    return best


@dataclass(frozen=True)
class Result:
    name: str
    command: str
    seconds: float  # the best of the repeats
    median_seconds: float  # the median of the repeats' wall-clock times
    cpu_seconds: float  # user + system CPU time, the least of the repeats
    lines_per_second: float
    peak_rss_mib: float  # the largest of the repeats
    vs_sacrebleu: float | None = None  # throughput ratio, > 1 is faster
    vs_sacrebleu_cpu: float | None = None  # the same by CPU time
    vs_sacrebleu_median: float | None = None  # the same by median wall-clock time
    output: str | None = None
    main_cpu_seconds: float | None = None  # the main process's share of cpu_seconds


def results_of(measured: dict[str, Measured], lines: int) -> list[Result]:
    """A row per command, in the order run, with ratios to the SacreBLEU command if any."""
    sacre = next((m for m in measured.values() if m.command.is_sacrebleu), None)
    return [
        Result(
            name=name,
            command=m.command.shell(),
            seconds=m.seconds,
            median_seconds=median(m.runs),
            cpu_seconds=m.cpu_seconds,
            lines_per_second=lines / m.seconds,
            peak_rss_mib=m.max_rss_kib / 1024,
            vs_sacrebleu=sacre.seconds / m.seconds if sacre else None,
            vs_sacrebleu_cpu=sacre.cpu_seconds / m.cpu_seconds if sacre else None,
            vs_sacrebleu_median=median(sacre.runs) / median(m.runs) if sacre else None,
            output=m.output if m.command.keep_output else None,
            main_cpu_seconds=m.main_cpu_seconds,
        )
        for name, m in measured.items()
    ]


def by_name(results: Sequence[Result]) -> dict[str, Result]:
    return {r.name: r for r in results}


def ratio(slow: Result, fast: Result) -> tuple[float, float]:
    """How many times faster ``fast`` is than ``slow``: by wall clock, by CPU time."""
    return slow.seconds / fast.seconds, slow.cpu_seconds / fast.cpu_seconds


def median_ratio(slow: Result, fast: Result) -> float:
    """How many times faster ``fast`` is than ``slow`` by median wall-clock time."""
    return slow.median_seconds / fast.median_seconds


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


# --------------------------------------------------------------------------
# options
# --------------------------------------------------------------------------


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of line counts: {text!r}") from None
    if not sizes or any(size <= 0 for size in sizes):
        raise argparse.ArgumentTypeError(f"line counts must be positive: {text!r}")
    return sizes


def add_common_arguments(parser: argparse.ArgumentParser, repeat: int = 1) -> None:
    """--data, --repeat, --workdir, --bleustream, --sacrebleu, --json and --quiet."""
    add_data_argument(parser)
    parser.add_argument(
        "--repeat",
        type=int,
        default=repeat,
        metavar="K",
        help=f"run each command K times and keep the fastest (default: {repeat})",
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


def add_sizes_argument(
    parser: argparse.ArgumentParser, option: str, default: list[int], what: str
) -> None:
    shown = ",".join(str(size) for size in default)
    parser.add_argument(
        option,
        type=parse_sizes,
        default=default,
        metavar="N[,N...]",
        help=f"{what} corpus sizes in segments, comma-separated (default: {shown})",
    )


def add_skip_argument(
    parser: argparse.ArgumentParser, option: str, default: int, who: str, why: str
) -> None:
    parser.add_argument(
        option,
        type=int,
        default=default,
        metavar="N",
        help=f"leave {who} out above N lines; {why} (default: {default})",
    )


def check_repeat(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")


# --------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------


def render(rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """Rows as aligned columns (the first ``left`` to the left), a rule under the first."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [c.ljust(w) for c, w in zip(row[:left], widths[:left])]
        cells += [c.rjust(w) for c, w in zip(row[left:], widths[left:])]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_table(results: Sequence[Result]) -> str:
    header = (
        "command",
        "seconds",
        "median s",
        "cpu s",
        "lines/s",
        "vs sacrebleu",
        "(by cpu)",
        "(by median)",
        "peak RSS MiB",
    )
    rows = [header]
    for r in results:
        rows.append(
            (
                r.name,
                f"{r.seconds:.3f}",
                f"{r.median_seconds:.3f}",
                f"{r.cpu_seconds:.3f}",
                f"{r.lines_per_second:,.0f}",
                f"{r.vs_sacrebleu:.2f}x" if r.vs_sacrebleu is not None else "-",
                f"{r.vs_sacrebleu_cpu:.2f}x" if r.vs_sacrebleu_cpu is not None else "-",
                f"{r.vs_sacrebleu_median:.2f}x" if r.vs_sacrebleu_median is not None else "-",
                f"{r.peak_rss_mib:.1f}",
            )
        )
    return render(rows)


@dataclass
class Section:
    """One measured case: its table, what was checked, and whether it held."""

    title: str
    lines: int
    results: list[Result] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ok: bool = True


def measure_section(
    title: str, cmds: Sequence[Command], cwd: Path, lines: int, repeat: int, progress: bool
) -> Section:
    """Measure the commands (see ``measure``) into a section of ``lines`` lines."""
    measured = measure(cmds, cwd, repeat, progress, title)
    return Section(title, lines, results_of(measured, lines))


def outputs(section: Section) -> dict[str, str]:
    """The kept output of each command of a section, by name."""
    return {r.name: r.output for r in section.results if r.output is not None}


def print_sections(head: Sequence[str], sections: Sequence[Section], commands: list[str]) -> None:
    for line in head:
        print(line)
    for section in sections:
        print()
        print(f"== {section.title} ==")
        if section.results:
            print(format_table(section.results))
        for note in section.notes:
            print(note)
    print()
    print("commands (run in the work directory unless a path says otherwise):")
    for command in commands:
        print(f"  {command}")


def command_list(sections: Sequence[Section]) -> list[str]:
    """Every command run, once each, in the order first run."""
    seen: dict[str, None] = {}
    for section in sections:
        seen.update(dict.fromkeys(r.command for r in section.results))
    return list(seen)


def callgrind_total(path: Path) -> int:
    """The instructions a ``valgrind --tool=callgrind`` output file counts."""
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise BenchError(f"no total in {path}")


def machine() -> dict[str, object]:
    return {"python": sys.version.split()[0], "cpus": os.cpu_count()}


def skip_without_data(data: Path, name: str) -> bool:
    """Say ``skipped: ...`` when the real data is missing (the caller exits 0)."""
    if (data / "MANIFEST.json").is_file():
        return False
    print(f"skipped: real data {data / 'MANIFEST.json'} not found ({name})", file=sys.stderr)
    return True


def tools(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The bleustream and sacrebleu command prefixes the options name."""
    return (
        resolve_executable(args.bleustream, "bleustream"),
        resolve_executable(args.sacrebleu, "sacrebleu"),
    )


def meta_of(
    args: argparse.Namespace, bleustream: list[str], sacrebleu: list[str]
) -> dict[str, Any]:
    """What every report starts with: the data, the repeats, the tools, the machine."""
    return {
        "data": str(args.data),
        "repeat": args.repeat,
        "bleustream": shlex.join(bleustream),
        "sacrebleu": shlex.join(sacrebleu),
        **machine(),
    }


def finish(
    name: str,
    args: argparse.Namespace,
    meta: dict[str, Any],
    sections: Sequence[Section],
    head: Sequence[str],
    tail: Sequence[str] = (),
) -> int:
    """Print the report (text or ``--json``) and give the exit status.

    ``head`` and ``tail`` are the text report's lines before and after the
    sections; the JSON report has ``meta``, the sections, ``tail`` as
    ``notes`` and ``ok``.
    """
    ok = all(section.ok for section in sections)
    if args.json:
        out = {**meta, "sections": [asdict(s) for s in sections], "notes": list(tail), "ok": ok}
        print(json.dumps(out, indent=2))
    else:
        print_sections(head, sections, command_list(sections))
        if tail:
            print()
            for line in tail:
                print(line)
    if not ok:
        print(f"{name}: the numbers differ", file=sys.stderr)
    return EXIT_OK if ok else EXIT_FAIL
