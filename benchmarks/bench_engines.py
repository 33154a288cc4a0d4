#!/usr/bin/env python3
"""The engines at 10^6 lines: Ray and Spark beside ``bleustream -j 2`` and one process.

    python benchmarks/bench_engines.py [--lines 1000000] [--workers 2] [--parts 8]

Builds a corpus by cycling the WMT17 en-de reference and a system output,
each line with its number appended (so no two repeat), then times, each in
a child process: ``bleustream ref -i hyp`` (one process), ``bleustream -j
N``, ``examples/ray_score.py --workers N --parts P`` and
``examples/spark_score.py --workers N --parts P``.  Every output must be
the one process's, byte for byte, or the exit status is 1.  Then the
overhead of a part on each engine: the same 20,000 lines on one worker in
1, 201 and 801 parts (best of two each), the differences over the parts added.
Without the data it exits 0 having run nothing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import REAL_DATA_MISSING, real_data_present, real_sets  # noqa: E402

BLEUSTREAM = Path(sys.executable).with_name("bleustream")


def corpus(directory: Path, lines: int) -> tuple[Path, Path]:
    wmt17 = next(s for s in real_sets() if s.name == "sacrebleu-wmt17-en-de")
    pairs = list(zip(*(p.read_text(encoding="utf-8").splitlines() for p in
                       (wmt17.refs[0], wmt17.hyps[0]))))  # fmt: skip
    ref, hyp = directory / "ref.de", directory / "hyp.de"
    with ref.open("w", encoding="utf-8") as r, hyp.open("w", encoding="utf-8") as h:
        for i in range(lines):
            a, b = pairs[i % len(pairs)]
            r.write(f"{a} {i}\n")
            h.write(f"{b} {i}\n")
    return ref, hyp


def timed(command: list[str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{command[:2]} failed: {done.stderr.decode()[-500:]}")
    return seconds, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--parts", type=int, default=8)
    args = parser.parse_args()
    if not real_data_present():
        print(f"skipped: {REAL_DATA_MISSING}")
        return 0
    n, p = str(args.workers), str(args.parts)
    with tempfile.TemporaryDirectory() as tmp:
        ref, hyp = corpus(Path(tmp), args.lines)
        base = [str(ref), "-i", str(hyp), "--no-config"]
        ray = [sys.executable, str(ROOT / "examples" / "ray_score.py")]
        spark = [sys.executable, str(ROOT / "examples" / "spark_score.py")]
        runs = {
            "bleustream (one process)": [str(BLEUSTREAM), *base],
            f"bleustream -j {n}": [str(BLEUSTREAM), *base, "-j", n],
            f"ray_score.py --workers {n}": [*ray, *base, "--workers", n, "--parts", p],
            f"spark_score.py --workers {n}": [*spark, *base, "--workers", n, "--parts", p],
        }
        print(f"{args.lines:,} lines, {n} workers, {p} parts")
        expected, status = None, 0
        for name, command in runs.items():
            seconds, out = timed(command)
            same = expected is None or out == expected
            expected = expected or out
            status |= not same
            rate = args.lines / seconds
            print(f"  {name:32} {seconds:8.1f} s  {rate:10,.0f} lines/s  same: {same}")
        # The overhead of a part: the same lines in 1, 201 and 801 parts, on
        # one worker so that every run has the same parallelism; the best of
        # two of each, the differences over the parts added.
        small_ref, small_hyp = corpus(Path(tmp), 20_000)
        small = [str(small_ref), "-i", str(small_hyp), "--no-config", "--workers", "1"]
        print("overhead of a part (20,000 lines, 1 worker, 1, 201 and 801 parts):")
        for name, script in (("ray", ray), ("spark", spark)):
            best = {
                n: min(timed([*script, *small, "--parts", str(n)])[0] for _ in range(2))
                for n in (1, 201, 801)
            }
            first = (best[201] - best[1]) / 200 * 1000
            second = (best[801] - best[201]) / 600 * 1000
            runs = ", ".join(f"{n} parts {t:.2f} s" for n, t in best.items())
            print(f"  {name:6} {first:6.1f} ms (1 to 201), {second:6.1f} ms (201 to 801)  ({runs})")
    print(f"expected output: {expected.decode().strip() if expected else ''}")
    return status


if __name__ == "__main__":
    sys.exit(main())
