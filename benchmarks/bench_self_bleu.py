#!/usr/bin/env python3
"""Self-BLEU at 10^4 and 10^5 sentences: bleustream beside the all-pairs
NLTK computation Texygen runs, and fast-bleu where it installs.

    python benchmarks/bench_self_bleu.py [--sizes 10000 100000] [--pairs 20]

The sentences are the distinct non-empty lines of every system output and
reference of the real sets, in file order.  For each size it times, in a
child process each:

* ``bleustream --self-bleu texygen -sl -f jsonl -i FILE`` (the whole
  command, every sentence's value written), with its peak RSS;
* NLTK all pairs (Texygen's ``sentence_bleu(others, hyp, weights,
  method1)``) on the first ``--pairs`` sentences of the set, each against
  all the other sentences: its time per sentence, times the size, is what
  the whole set would take, and its values must be bleustream's, exactly;
* fast-bleu's ``SelfBLEU`` (C++), if it imports: its time, and the largest
  difference from bleustream's values (fast-bleu weighs in float32).

Without the real data it exits 0 having run nothing.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realdata import add_data_argument

ROOT = Path(__file__).resolve().parents[1]
BLEUSTREAM = Path(sys.executable).with_name("bleustream")


def sentences(data: Path, limit: int) -> list[str]:
    manifest = json.loads((data / "MANIFEST.json").read_text(encoding="utf-8"))
    seen: dict[str, None] = {}
    # The TED sets last: their tokenized copy is the detokenized one again.
    for name, entry in sorted(manifest.items(), key=lambda item: "ted" in item[0]):
        for file in (*entry["hyps"], *entry["refs"]):
            path = data / name / file
            for line in path.read_text(encoding="utf-8").split("\n"):
                if line.strip():
                    seen.setdefault(line, None)
                    if len(seen) == limit:
                        return list(seen)
    return list(seen)


def command(path: Path) -> tuple[float, int, list[float]]:
    """bleustream's wall time, peak RSS (children's, in bytes) and values."""
    started = time.perf_counter()
    done = subprocess.run(
        [str(BLEUSTREAM), "--no-config", "--self-bleu", "texygen", "-sl", "-f", "jsonl",
         "-i", str(path)],
        capture_output=True,
        check=True,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    records = [json.loads(line) for line in done.stdout.splitlines()]
    return seconds, rss, [r["score"] for r in records if r["type"] == "segment"]


def nltk_pairs(lines: list[str], first: int) -> tuple[float, list[float]]:
    """Seconds per sentence of the all-pairs method, and the first values."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    tokens = [line.split() for line in lines]
    method1 = SmoothingFunction().method1
    started = time.process_time()
    values = [
        sentence_bleu(tokens[:i] + tokens[i + 1 :], tokens[i], (0.25,) * 4,
                      smoothing_function=method1)
        for i in range(first)
    ]  # fmt: skip
    return (time.process_time() - started) / first, values


def fast_bleu(lines: list[str]) -> tuple[float, list[float]] | None:
    try:
        from fast_bleu import SelfBLEU
    except ImportError:
        return None
    started = time.perf_counter()
    scores = SelfBLEU([line.split() for line in lines], {4: (0.25,) * 4}).get_score()
    return time.perf_counter() - started, scores[4]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_argument(parser)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--pairs", type=int, default=20)
    args = parser.parse_args()
    if not (args.data / "MANIFEST.json").is_file():
        print(f"skipped: {args.data} has no MANIFEST.json")
        return 0
    status = 0
    everything = sentences(args.data, max(args.sizes))
    for size in args.sizes:
        lines = everything[:size]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "set.txt"
            path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
            seconds, rss, ours = command(path)
        per_sentence, theirs = nltk_pairs(lines, min(args.pairs, len(lines)))
        same = ours[: len(theirs)] == theirs
        status |= not same
        print(f"{len(lines):,} sentences, Self-BLEU {sum(ours) / len(ours):.6f}")
        print(f"  bleustream --self-bleu texygen  {seconds:8.2f} s  peak RSS {rss / 2**20:6.0f} MB")
        estimate = per_sentence * len(lines)
        print(
            f"  NLTK all pairs (Texygen)       {estimate:8.0f} s  (estimated: "
            f"{per_sentence * 1000:.1f} ms a sentence over {len(theirs)}; values equal: {same})"
        )
        print(f"  ratio                          {estimate / seconds:8.0f}x")
        fast = fast_bleu(lines)
        if fast is None:
            print("  fast-bleu                      not installed")
        else:
            fast_seconds, values = fast
            worst = max(abs(a - b) for a, b in zip(ours, values))
            print(
                f"  fast-bleu SelfBLEU             {fast_seconds:8.2f} s  "
                f"(largest difference from bleustream {worst:.2e})"
            )
    return status


if __name__ == "__main__":
    sys.exit(main())
