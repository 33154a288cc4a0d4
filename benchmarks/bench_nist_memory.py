"""NIST's memory: the corpus-wide reference n-gram table, by corpus size.

NIST keeps the count of every distinct reference n-gram (orders 1 to 5)
until the end of the input.  This builds ``--lines`` references from the
WMT17 en-de reference (cycled, a running number appended to each line so
that no line repeats, as bench_cli.py does), fills a ``RefTable`` in a
fresh process per size, and reports the distinct n-grams, the growth of
the peak RSS over the process before the table, and the bytes per distinct
n-gram.

    python benchmarks/bench_nist_memory.py --lines 100000 1000000
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realdata import add_data_argument, read_lines

REF = "sacrebleu-wmt17-en-de/newstest2017.en-de.ref.de"


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child(data: Path, lines: int) -> None:
    from bleustream.metrics import nist

    base = read_lines(data / REF)
    words = nist.words_of(nist.DEFAULT_SETTINGS)
    before = peak_rss_bytes()
    started = time.perf_counter()
    table = nist.RefTable()
    for i in range(lines):
        table.add([words(f"{base[i % len(base)]} {i}")])
    seconds = time.perf_counter() - started
    grown = peak_rss_bytes() - before
    print(json.dumps({"lines": lines, "ngrams": len(table.counts), "rss": grown, "s": seconds}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_argument(parser)
    parser.add_argument("--lines", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not (args.data / REF).is_file():
        print(f"skipped: {args.data / REF} not present")
        return 0
    if args.child:
        child(args.data, args.child)
        return 0
    print(f"{'lines':>9} {'distinct n-grams':>17} {'RSS growth':>11} {'bytes/n-gram':>13} {'s':>7}")
    for lines in args.lines:
        command = [sys.executable, __file__, "--data", str(args.data), "--child", str(lines)]
        out = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
        per = out["rss"] / out["ngrams"]
        print(
            f"{lines:>9} {out['ngrams']:>17,} {out['rss'] / 2**20:>8.0f} MB {per:>13.0f} "
            f"{out['s']:>7.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
