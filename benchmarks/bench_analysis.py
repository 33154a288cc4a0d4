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
bleustream alone).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from harness import BenchError, Command, render, run_once, work_directory
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_argument(parser)
    parser.add_argument("--sizes", default="2000,100000", help="corpus sizes (lines)")
    parser.add_argument("--flat", default="200000", help="sizes run by bleustream -n 0 alone")
    parser.add_argument("--workdir", type=Path, help="keep the corpus files here")
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
    results = []
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
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    rows = [["lines", "command", "wall s", "CPU s", "peak RSS MiB", "compare-mt / this"]]
    for r in results:
        base = next(
            (x for x in results if x["lines"] == r["lines"] and x["command"] == "compare-mt"), None
        )
        speedup = "" if base is None or base is r else f"{base['seconds'] / r['seconds']:.1f}x"
        rows.append(
            [
                str(r["lines"]),
                r["command"],
                f"{r['seconds']:.2f}",
                f"{r['cpu_seconds']:.2f}",
                f"{r['max_rss_mib']:.0f}",
                speedup,
            ]
        )
    print(render(rows, left=2))
    print("aims: " + ", ".join(f"{k} lines >= {v:.0f}x" for k, v in AIMS.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
