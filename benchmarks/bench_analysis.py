#!/usr/bin/env python3
"""``bleustream --analyze`` against compare-mt 0.2.10 on 2 systems, its default analyses.

compare-mt's defaults: BLEU and length ratio, word accuracy by frequency,
three sentence bucketings (length with BLEU per bucket, length difference,
sentence BLEU), n-gram differences and sentence examples, no bootstrap.
bleustream runs the same analyses (``-tok none``, compare-mt's words) twice:
with ``--analyze-n 0`` (no intervals, as compare-mt's defaults), and with
its default 1000 bootstrap resamples on every bucket, which compare-mt does
not do.  The corpus is compare-mt's own TED sample (tokenized, 2,445 lines,
two systems), cut or repeated to each size.  Wall-clock time and peak RSS
(of the command's own process tree, ``harness.run_once``) side by side.

Aims: at least 10x faster than compare-mt at 2,000 lines, 20x at 100,000;
RSS flat past 100,000 lines without intervals (``--flat`` sizes run
bleustream alone).  The machine may be shared: CPU time is printed beside
wall-clock time, with a ratio for each, and the load average before and
after.  Then callgrind counts the instructions of compare-mt and of
``bleustream --analyze-n 0`` on ``--callgrind`` lines (2,000 by default;
0: none), the aim's ratio in a figure that load does not move.  Both
tools' bytecode is compiled first, so that neither compiles its sources
in the runs (``PYTHONDONTWRITEBYTECODE`` may be set).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from harness import BenchError, Command, callgrind_total, render, run_once, work_directory
from realdata import add_data_argument

SET = "compare-mt-ted-slk-en-tok"
FILES = ("ted.ref.eng", "ted.sys1.eng", "ted.sys2.eng")
AIMS = {2000: 10.0, 100000: 20.0}


def write_corpus(data: Path, size: int, folder: Path) -> list[str]:
    """ref, sys1, sys2 of ``size`` lines each, the set's lines cut or repeated."""
    names = []
    for name in FILES:
        lines = (data / SET / name).read_text(encoding="utf-8").splitlines()
        out = [lines[i % len(lines)] for i in range(size)]
        path = folder / f"{size}.{name}"
        path.write_text("\n".join(out) + "\n", encoding="utf-8")
        names.append(path.name)
    return names


def commands(files: list[str], compare_mt: str | None) -> list[Command]:
    ref, a, b = files
    bleustream = [sys.executable, "-m", "bleustream", ref, "-i", a, b, "--analyze", "-tok", "none"]
    out = [
        Command("bleustream -n 0", [*bleustream, "--analyze-n", "0"]),
        Command("bleustream (CIs)", bleustream),
    ]
    if compare_mt is not None:
        out.insert(0, Command("compare-mt", [compare_mt, ref, a, b]))
    return out


def compile_bytecode(compare_mt: str | None) -> None:
    """Both tools' modules compiled to bytecode, as an installed package is."""
    import bleustream

    folders = [Path(bleustream.__file__).parent]
    if compare_mt is not None:
        found = subprocess.run(
            [
                sys.executable,
                "-c",
                "import compare_mt, os; print(os.path.dirname(compare_mt.__file__))",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if found.returncode == 0:
            folders.append(Path(found.stdout.strip()))
    for folder in folders:
        compileall.compile_dir(str(folder), quiet=1)


def instructions(command: Command, folder: Path) -> int | None:
    """callgrind's count of the instructions of one run of the command."""
    out = folder / f"callgrind.{re.sub(r'[^a-z0-9]+', '_', command.name)}"
    argv = command.argv
    if argv[0] != sys.executable:  # a script: under the interpreter its #! names
        argv = [sys.executable, *argv]
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"bench_analysis: callgrind of {command.name} failed", file=sys.stderr)
        return None
    return callgrind_total(out)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_argument(parser)
    parser.add_argument("--sizes", default="2000,100000", help="corpus sizes (lines)")
    parser.add_argument("--flat", default="200000", help="sizes run by bleustream -n 0 alone")
    parser.add_argument("--workdir", type=Path, help="keep the corpus files here")
    parser.add_argument(
        "--callgrind", type=int, default=2000, help="lines counted by callgrind (0: none)"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    data = Path(args.data)
    if not (data / SET).is_dir():
        print(f"bench_analysis: {data / SET} not present: skipped", file=sys.stderr)
        return 0
    compare_mt = shutil.which("compare-mt", path=str(Path(sys.executable).parent)) or shutil.which(
        "compare-mt"
    )
    if compare_mt is None:
        print(
            "bench_analysis: compare-mt not installed (pip install compare-mt==0.2.10)",
            file=sys.stderr,
        )
    sizes = [int(x) for x in args.sizes.split(",") if x]
    flat = [int(x) for x in args.flat.split(",") if x]
    compile_bytecode(compare_mt)
    results = []
    counted: dict[str, int | None] = {}
    loads = [load()]
    with work_directory(args.workdir, "analysis") as folder:
        for size in sizes + flat:
            files = write_corpus(data, size, folder)
            todo = commands(files, compare_mt if size in sizes else None)
            if size not in sizes:
                todo = todo[-2:-1]  # bleustream -n 0 alone
            for command in todo:
                print(f"bench_analysis: {size} lines: {command.name}", file=sys.stderr)
                try:
                    run = run_once(command, folder)
                except BenchError as exc:
                    print(f"bench_analysis: {exc}", file=sys.stderr)
                    return 1
                results.append(
                    {
                        "lines": size,
                        "command": command.name,
                        "seconds": run.seconds,
                        "cpu_seconds": run.cpu_seconds,
                        "max_rss_mib": run.max_rss_kib / 1024,
                    }
                )
        loads.append(load())
        if args.callgrind and shutil.which("valgrind"):
            files = write_corpus(data, args.callgrind, folder)
            for command in commands(files, compare_mt)[:-1]:  # no intervals: compare-mt's work
                print(
                    f"bench_analysis: callgrind, {args.callgrind} lines: {command.name}",
                    file=sys.stderr,
                )
                counted[command.name] = instructions(command, folder)
    if args.json:
        print(json.dumps({"runs": results, "instructions": counted, "load": loads}, indent=1))
        return 0
    rows = [["lines", "command", "wall s", "CPU s", "peak RSS MiB", "compare-mt / this", "(CPU)"]]
    for r in results:
        base = next(
            (x for x in results if x["lines"] == r["lines"] and x["command"] == "compare-mt"), None
        )
        speedup = cpu = ""
        if base is not None and base is not r:
            speedup = f"{base['seconds'] / r['seconds']:.1f}x"
            cpu = f"{base['cpu_seconds'] / r['cpu_seconds']:.1f}x"
        rows.append(
            [
                str(r["lines"]),
                r["command"],
                f"{r['seconds']:.2f}",
                f"{r['cpu_seconds']:.2f}",
                f"{r['max_rss_mib']:.0f}",
                speedup,
                cpu,
            ]
        )
    print(render(rows, left=2))
    print(f"load average (1, 5, 15 min): {loads[0]} before, {loads[-1]} after")
    if counted:
        theirs, ours = counted.get("compare-mt"), counted.get("bleustream -n 0")
        for name, count in counted.items():
            print(f"callgrind, {args.callgrind} lines: {name}: {count or 0:,} instructions")
        if theirs and ours:
            print(f"callgrind ratio compare-mt / bleustream -n 0: {theirs / ours:.1f}x")
    print("aims: " + ", ".join(f"{k} lines >= {v:.0f}x" for k, v in AIMS.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
