#!/usr/bin/env python3
"""Start-up: this checkout, another and SacreBLEU, on 10 lines and on a test set.

The job users run most is one test set of about 2,000 lines, where
start-up decides.  Each tree (this checkout, and ``--base DIR``, another
checkout of bleustream with its kernels built, e.g. ``git worktree add``
of an earlier commit) runs with ``PYTHONPATH`` set to it and its bytecode
compiled first (as a user's install has it), beside SacreBLEU
(``python -m sacrebleu``, from the same interpreter).  For each command:

- callgrind's instructions, counted once (the count does not depend on
  the machine's load; ``PYTHONHASHSEED=0``);
- the wall-clock and CPU seconds, the least of ``--repeat`` interleaved
  runs (the machine may be busy: CPU time holds up better).

The commands: ``python -c pass`` (the interpreter alone); BLEU ``-b`` on
the first 10 lines of WMT17 en-de (start-up); BLEU, chrF and TER ``-b``
on its first ``--lines`` lines (2,037 by default, WMT22 en-de's size),
each reference-file against hypothesis-on-stdin.  Then ``python -X
importtime -c "import bleustream"`` (least cumulative microseconds) and
the modules a ``-b`` run on 10 lines has loaded at exit.

The interpreter is ``--python`` (default: this one).  One whose
environment imports nothing at start-up (no editable install's ``.pth``
finder) gives the figures a user's install has.  The scores of every
tool must agree; the exit status is 1 when they do not, or when this
tree's 10-line count is more than 1% above the base's.

    python benchmarks/bench_startup.py --base /path/to/old/checkout
    python benchmarks/bench_startup.py --base OLD --repeat 5 --callgrind 0
    python benchmarks/bench_startup.py --base OLD --sacrebleu-callgrind-lines 10
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import EXIT_FAIL, EXIT_OK, callgrind_total, render, skip_without_data, work_directory
from realdata import DEFAULT_SET, add_data_argument, read_lines, read_manifest

HERE = Path(__file__).resolve().parents[1]
SHORT = 10
TEST_SET = 2037  # WMT22 en-de's lines

# Prints the modules loaded at exit of a run of the command line.
MODULES_AT_EXIT = (
    "import atexit, sys; "
    "atexit.register(lambda: print(len(sys.modules), file=sys.stderr)); "
    "from bleustream.cli.entry import main; "
    "sys.argv = ['bleustream', *sys.argv[1:]]; sys.exit(main())"
)


def tree_env(tree: Path | None) -> dict[str, str]:
    """The environment of a child that imports bleustream from ``tree``:
    ``PYTHONSAFEPATH`` keeps the working directory off ``sys.path``, so the
    child imports ``tree`` (and the standard library) wherever it runs."""
    dropped = ("PYTHONDONTWRITEBYTECODE", "BLEUSTREAM_PUREPYTHON", "PYTHONPATH")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env["PYTHONSAFEPATH"] = "1"
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return env


def tree_cwd(tree: Path | None) -> str:
    """Where a child runs: a directory of no project, as a user's test set
    is (in a checkout, bleustream would read the checkout's own
    ``pyproject.toml`` for a ``[tool.bleustream]`` table, and load a TOML
    parser for it).  Before Python 3.11 (no ``PYTHONSAFEPATH``), the tree,
    for ``python -m`` and ``-c`` put the working directory first."""
    if tree is not None and sys.version_info < (3, 11):
        return str(tree)
    return tempfile.gettempdir()


def check_tree(tree: Path) -> Path:
    tree = tree.resolve()
    if not (tree / "bleustream" / "__init__.py").is_file():
        raise SystemExit(f"bench_startup: {tree}: no bleustream package there")
    compileall.compile_dir(tree / "bleustream", quiet=1)
    return tree


class Case:
    """One command: its words (after the interpreter), its tree and its stdin."""

    def __init__(self, words: list[str], tree: Path | None, stdin: Path | None) -> None:
        self.words, self.tree, self.stdin = words, tree, stdin

    def run(
        self, python: str, prefix: tuple[str, ...] = (), **env: str
    ) -> tuple[str, float, float]:
        """(stdout, wall-clock seconds, CPU seconds) of one run."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        with open(self.stdin or os.devnull, "rb") as stdin:
            done = subprocess.run(
                [*prefix, python, *self.words],
                stdin=stdin,
                env={**tree_env(self.tree), **env},
                cwd=tree_cwd(self.tree),
                capture_output=True,
                check=True,
            )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return done.stdout.decode(), wall, cpu

    def instructions(self, python: str, out: Path) -> int:
        prefix = ("valgrind", "--tool=callgrind", f"--callgrind-out-file={out}")
        self.run(python, prefix, PYTHONHASHSEED="0")
        return callgrind_total(out)


def write_inputs(data: Path, work: Path, lines: int) -> tuple[Path, Path, Path, Path]:
    """The reference and hypothesis of 10 lines and of ``lines`` lines."""
    manifest = read_manifest(data)[DEFAULT_SET]
    ref = read_lines(data / DEFAULT_SET / manifest["refs"][0])
    hyp = read_lines(data / DEFAULT_SET / manifest["hyps"][0])
    paths = []
    for size in (SHORT, lines):
        for name, text in (("ref", ref), ("hyp", hyp)):
            path = work / f"{name}.{size}"
            path.write_text("\n".join(text[:size]) + "\n", encoding="utf-8")
            paths.append(path)
    return paths[0], paths[1], paths[2], paths[3]


def import_time(python: str, tree: Path) -> int:
    """The cumulative µs of ``bleustream`` in ``python -X importtime -c "import bleustream"``."""
    done = subprocess.run(
        [python, "-X", "importtime", "-c", "import bleustream"],
        env=tree_env(tree),
        cwd=tree_cwd(tree),
        capture_output=True,
        text=True,
        check=True,
    )
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s*bleustream$", line)
        if match:
            return int(match.group(1))
    raise SystemExit(f"bench_startup: no import time of bleustream from {tree}")


def modules_at_exit(python: str, tree: Path, ref: Path, hyp: Path) -> int:
    with hyp.open("rb") as stdin:
        done = subprocess.run(
            [python, "-c", MODULES_AT_EXIT, str(ref), "-b"],
            stdin=stdin,
            env=tree_env(tree),
            cwd=tree_cwd(tree),
            capture_output=True,
            text=True,
            check=True,
        )
    return int(done.stderr.split()[-1])


Rows = dict[str, dict[str, Case]]


def cases(trees: dict[str, Path], inputs: tuple[Path, Path, Path, Path], lines: int) -> Rows:
    """The commands by row and by tool (``base``, ``this``, ``sacrebleu``)."""
    ref10, hyp10, ref, hyp = inputs
    rows: Rows = {"python -c pass": {"python": Case(["-c", "pass"], None, None)}}
    tools: dict[str, tuple[list[str], Path | None]] = {
        **{name: (["-m", "bleustream"], tree) for name, tree in trees.items()},
        "sacrebleu": (["-m", "sacrebleu"], None),
    }
    plans = [(f"bleu -b, {SHORT} lines", ref10, hyp10, "bleu")]
    plans += [(f"{m} -b, {lines:,} lines", ref, hyp, m) for m in ("bleu", "chrf", "ter")]
    for label, r, h, metric in plans:
        chosen = [] if metric == "bleu" else ["-m", metric]  # BLEU: the default
        rows[label] = {
            name: Case([*words, str(r), *chosen, "-b"], tree, h)
            for name, (words, tree) in tools.items()
        }
    return rows


def timed(rows: Rows, python: str, repeat: int) -> tuple[dict, dict]:
    """The least (wall, CPU) seconds of each command over ``repeat``
    interleaved runs, and each command's output."""
    best: dict[tuple[str, str], tuple[float, float]] = {}
    outputs: dict[tuple[str, str], str] = {}
    for _ in range(repeat):
        for label, tools in rows.items():
            for name, case in tools.items():
                out, wall, cpu = case.run(python)
                old = best.get((label, name), (wall, cpu))
                best[label, name] = (min(old[0], wall), min(old[1], cpu))
                outputs[label, name] = " ".join(out.split())
    return best, outputs


def report(rows: Rows, times: dict, outputs: dict, counts: dict) -> bool:
    """Print the table; whether every tool's scores agree in each row."""
    agree = True
    table = [["command", "tool", "callgrind", "/ this", "wall s", "CPU s", "scores"]]
    for label, tools in rows.items():
        if label != "python -c pass":
            agree = agree and len({outputs[label, name] for name in tools}) == 1
        mine = counts.get((label, "this"))
        for name in tools:
            count = counts.get((label, name))
            wall, cpu = times[label, name]
            table.append(
                [
                    label,
                    name,
                    f"{count / 1e6:,.1f} M" if count else "-",
                    f"{count / mine:.2f}x" if count and mine else "",
                    f"{wall:.3f}",
                    f"{cpu:.3f}",
                    outputs[label, name],
                ]
            )
    print(render(table))
    return agree


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout")
    parser.add_argument("--python", default=sys.executable, help="the trees' interpreter")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per command")
    parser.add_argument("--import-repeat", type=int, default=21, help="import runs per tree")
    parser.add_argument("--lines", type=int, default=TEST_SET, help="the test set's lines")
    parser.add_argument("--callgrind", type=int, default=1, help="0 leaves callgrind out")
    parser.add_argument(
        "--sacrebleu-callgrind-lines",
        type=int,
        default=None,
        metavar="N",
        help="count SacreBLEU's instructions on inputs of at most N lines only (its TER "
        "on a test set runs for minutes under callgrind; default: every input)",
    )
    add_data_argument(parser)
    args = parser.parse_args()
    if skip_without_data(args.data, "bench_startup"):
        return EXIT_OK
    trees = {"base": check_tree(args.base), "this": check_tree(HERE)}
    python = args.python
    print(f"python {python}, {os.cpu_count()} CPUs, load average {os.getloadavg()}")
    counting = bool(args.callgrind and shutil.which("valgrind"))
    with work_directory(None, "startup") as work:
        inputs = write_inputs(args.data, work, args.lines)
        rows = cases(trees, inputs, args.lines)
        times, outputs = timed(rows, python, args.repeat)
        counts = {}
        if counting:
            most = args.sacrebleu_callgrind_lines
            for label, tools in rows.items():
                for name, case in tools.items():
                    size = SHORT if case.stdin == inputs[1] else args.lines
                    if name == "sacrebleu" and most is not None and size > most:
                        continue
                    counts[label, name] = case.instructions(python, work / "callgrind.out")
        agree = report(rows, times, outputs, counts)
        imports = [["tree", "import bleustream µs (best)", f"modules at exit, -b on {SHORT} lines"]]
        for name, tree in trees.items():
            best = min(import_time(python, tree) for _ in range(args.import_repeat))
            modules = modules_at_exit(python, tree, inputs[0], inputs[1])
            imports.append([name, f"{best:,}", str(modules)])
        print(render(imports))
    print(f"load average after: {os.getloadavg()}")
    short = f"bleu -b, {SHORT} lines"
    slower = False
    if counting:
        ratio = counts[short, "this"] / counts[short, "base"]
        print(f"callgrind, {short}: this / base = {ratio:.4f}")
        slower = ratio > 1.01
    if not agree or slower:
        print("bench_startup: the scores differ, or this tree starts slower", file=sys.stderr)
    return EXIT_FAIL if not agree or slower else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
