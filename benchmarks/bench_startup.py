#!/usr/bin/env python3
"""Start-up: ``import bleustream`` and ``bleustream -b`` on 10 lines, against another tree.

A reshape moves code between modules; it must not make the command or the
import slower.  Each tree (this checkout, and ``--base DIR``, another
checkout of bleustream with its kernels built, e.g. ``git worktree add``
of an earlier commit) is run with ``PYTHONPATH`` set to it, its bytecode
compiled first (as a user's install has it), and measured twice:

- ``python -X importtime -c "import bleustream"``: the cumulative
  microseconds of the ``bleustream`` line, the least over ``--repeat``
  runs (interleaved between the trees), and the number of bleustream
  modules that import loads;
- callgrind: the instructions of ``python -m bleustream REF -b < HYP`` on
  the first 10 lines of the real WMT17 en-de set, counted once (the count
  does not depend on the machine's load).

Aim: the working tree no slower than ``--base`` (ratios <= 1.00 within
noise for wall clock; the callgrind ratio is the one that counts).

    python benchmarks/bench_startup.py --base /path/to/old/checkout
    python benchmarks/bench_startup.py --base OLD --repeat 41 --callgrind 0
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from harness import EXIT_FAIL, EXIT_OK, callgrind_total, machine, render, work_directory
from realdata import DEFAULT_SET, add_data_argument, read_lines, read_manifest

HERE = Path(__file__).resolve().parents[1]
LINES = 10


def tree_env(tree: Path) -> dict[str, str]:
    """The environment of a child that imports bleustream from ``tree``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}
    env["PYTHONPATH"] = str(tree)
    env.pop("BLEUSTREAM_PUREPYTHON", None)
    return env


def import_time(tree: Path) -> tuple[int, int]:
    """(cumulative µs of ``bleustream``, bleustream modules loaded) of one import."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import bleustream"],
        env=tree_env(tree),
        capture_output=True,
        text=True,
        check=True,
    )
    total = modules = 0
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s*(\S+)", line)
        if not match:
            continue
        if match.group(2).startswith("bleustream"):
            modules += 1
        if match.group(2) == "bleustream":
            total = int(match.group(1))
    return total, modules


def command_instructions(tree: Path, ref: Path, hyp: Path, work: Path) -> int:
    out = work / f"callgrind.{tree.name}.out"
    with hyp.open("rb") as stdin:
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-m",
                "bleustream",
                str(ref),
                "-b",
            ],
            stdin=stdin,
            env={**tree_env(tree), "PYTHONHASHSEED": "0"},
            cwd=work,
            capture_output=True,
            check=True,
        )
    return callgrind_total(out)


def check_tree(tree: Path) -> Path:
    tree = tree.resolve()
    if not (tree / "bleustream" / "__init__.py").is_file():
        raise SystemExit(f"bench_startup: {tree}: no bleustream package there")
    compileall.compile_dir(tree / "bleustream", quiet=1)
    return tree


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout")
    parser.add_argument("--repeat", type=int, default=21, help="import runs per tree")
    parser.add_argument("--callgrind", type=int, default=1, help="0 leaves callgrind out")
    add_data_argument(parser)
    args = parser.parse_args()
    trees = {"base": check_tree(args.base), "this": check_tree(HERE)}
    print(machine())
    best: dict[str, tuple[int, int]] = {}
    for _ in range(args.repeat):
        for name, tree in trees.items():
            took = import_time(tree)
            if name not in best or took[0] < best[name][0]:
                best[name] = took
    rows = [["tree", "import µs (best)", "modules", "callgrind -b, 10 lines"]]
    counts: dict[str, int] = {}
    if args.callgrind and shutil.which("valgrind"):
        manifest = read_manifest(args.data)[DEFAULT_SET]
        folder = args.data / DEFAULT_SET
        with work_directory(None, "startup") as work:
            ref, hyp = work / "ref", work / "hyp"
            for path, name in ((ref, manifest["refs"][0]), (hyp, manifest["hyps"][0])):
                lines = read_lines(folder / name)[:LINES]
                path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            for name, tree in trees.items():
                counts[name] = command_instructions(tree, ref, hyp, work)
    for name in trees:
        count = f"{counts[name]:,}" if name in counts else "-"
        rows.append([name, f"{best[name][0]:,}", str(best[name][1]), count])
    print(render(rows))
    ratio = best["this"][0] / best["base"][0]
    print(f"import: this / base = {ratio:.3f}")
    if counts:
        print(f"callgrind: this / base = {counts['this'] / counts['base']:.4f}")
    slower = counts and counts["this"] > counts["base"] * 1.01
    return EXIT_FAIL if slower else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
