#!/usr/bin/env python3
"""What a long run pays a line: instructions a line past start-up, beside SacreBLEU.

A run of N lines costs its start-up and N times its cost a line; this
benchmark counts the second (callgrind, ``PYTHONHASHSEED=0``): each
command's instructions on ``--lines`` lines (100,000 by default) less the
same command's on one line, over the lines in between.  The commands are
``-b`` runs of BLEU and chrF with the compiled kernels, REF file against
hypotheses on standard input and the same lines pasted (``hyp<TAB>ref``
on standard input), for this checkout and, with ``--base DIR``, another
(a ``git worktree`` of an earlier commit with its kernels built); and
SacreBLEU's command on ``--sacrebleu-lines`` (2,000: its cost a line is
the same at any size, and 100,000 of its lines under callgrind take
hours).  The lines are WMT17 en-de's, cycled, each numbered so that none
repeats (SacreBLEU caches tokenized lines).

Every bleustream command must print the same score as the others of its
metric, and SacreBLEU's on its own lines must equal this tree's there; the
exit status is 1 when one differs.  Without the data it is skipped (0).

    python benchmarks/bench_per_line.py --base /tmp/base
    python benchmarks/bench_per_line.py --lines 20000 --metrics bleu
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_startup import check_tree, tree_cwd, tree_env
from harness import EXIT_FAIL, EXIT_OK, callgrind_total, skip_without_data
from realdata import DEFAULT_SET, add_data_argument, read_lines, read_manifest

HERE = Path(__file__).resolve().parents[1]


def write_corpus(data: Path, count: int, work: Path) -> tuple[Path, Path, Path]:
    """``count`` numbered lines: the reference file, the hypotheses, the paste file."""
    entry = read_manifest(data)[DEFAULT_SET]
    directory = data / DEFAULT_SET
    refs = read_lines(directory / entry["refs"][0])
    hyps = read_lines(directory / entry["hyps"][0])
    paths = [work / f"{count}.{kind}" for kind in ("ref", "hyp", "paste")]
    numbered = [(f"{i} {hyps[i % len(hyps)]}", f"{i} {refs[i % len(refs)]}") for i in range(count)]
    paths[0].write_text("".join(r + "\n" for _, r in numbered), "utf-8")
    paths[1].write_text("".join(h + "\n" for h, _ in numbered), "utf-8")
    paths[2].write_text("".join(f"{h}\t{r}\n" for h, r in numbered), "utf-8")
    return paths[0], paths[1], paths[2]


def counted(
    python: str, words: list[str], tree: Path | None, stdin: Path, out: Path
) -> tuple[int, str]:
    """(instructions, stdout) of one run under callgrind."""
    with open(stdin, "rb") as source:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", python, *words],
            stdin=source,
            env={**tree_env(tree), "PYTHONHASHSEED": "0"},
            cwd=tree_cwd(tree),
            capture_output=True,
            check=True,
        )
    return callgrind_total(out), done.stdout.decode().strip()


class Table:
    """One metric's commands: their instructions and scores by size."""

    def __init__(self, python: str, work: Path) -> None:
        self.python, self.work = python, work
        self.counts: dict[str, dict[int, int]] = {}
        self.scores: dict[str, dict[int, str]] = {}

    def run(self, name: str, words: list[str], tree: Path | None, stdin: Path, size: int) -> None:
        out = self.work / f"cg.{sum(map(len, self.counts.values()))}.out"
        count, score = counted(self.python, words, tree, stdin, out)
        self.counts.setdefault(name, {})[size] = count
        self.scores.setdefault(name, {})[size] = score

    def report(self, metric: str, lines: int, their_lines: int, rows: list[str]) -> bool:
        """Adds the table's rows; whether the scores agree."""
        counts, scores = self.counts, self.scores
        theirs = (counts["sacrebleu"][their_lines] - counts["sacrebleu"][1]) / max(
            1, their_lines - 1
        )
        ours = {name: s[lines] for name, s in scores.items() if name.startswith("bleustream")}
        same = scores["check"][their_lines] == scores["sacrebleu"][their_lines]
        same = same and len(set(ours.values())) == 1
        rows.append(f"{metric}: {lines:,} lines (SacreBLEU {their_lines:,})")
        if not same:
            rows.append(f"  SCORES DIFFER: {ours}, {scores['check']}, {scores['sacrebleu']}")
        for name, c in counts.items():
            if name == "check":
                continue
            size = their_lines if name == "sacrebleu" else lines
            per_line = (c[size] - c[1]) / max(1, size - 1)
            rows.append(
                f"  {name:32s} start-up {c[1] / 1e6:9.1f} M  whole {c[size] / 1e6:11.1f} M  "
                f"a line {per_line:10,.0f}  {theirs / per_line:6.2f}x fewer than SacreBLEU"
            )
        return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--sacrebleu-lines", type=int, default=2_000)
    parser.add_argument("--metrics", nargs="+", default=["bleu", "chrf"])
    parser.add_argument("--base", type=Path, help="another checkout, its kernels built")
    parser.add_argument("--python", default=sys.executable, help="the trees' interpreter")
    add_data_argument(parser)
    args = parser.parse_args(argv)
    if skip_without_data(args.data, "bench_per_line"):
        return EXIT_OK
    trees = {"this": check_tree(HERE)}
    if args.base is not None:
        trees["base"] = check_tree(args.base)
    ok, rows = True, []
    with tempfile.TemporaryDirectory(prefix="bench-per-line-") as tmp:
        work = Path(tmp)
        sizes = sorted({1, args.lines, args.sacrebleu_lines})
        files = {size: write_corpus(args.data, size, work) for size in sizes}
        for metric in args.metrics:
            table = Table(args.python, work)
            for size in (1, args.lines):
                ref, hyp, paste = files[size]
                for label, tree in trees.items():
                    words = ["-m", "bleustream", str(ref), "-b", "-w", "6", "-m", metric]
                    table.run(f"bleustream {label}, REF < HYP", words, tree, hyp, size)
                    words = ["-m", "bleustream", "-b", "-w", "6", "-m", metric]
                    table.run(f"bleustream {label}, paste", words, tree, paste, size)
            for size in (1, args.sacrebleu_lines):
                ref, hyp, _ = files[size]
                words = ["-m", "sacrebleu", str(ref), "-b", "-w", "6", "-m", metric]
                table.run("sacrebleu", words, None, hyp, size)
            # this tree on SacreBLEU's lines, to compare the scores
            ref, hyp, _ = files[args.sacrebleu_lines]
            words = ["-m", "bleustream", str(ref), "-b", "-w", "6", "-m", metric]
            table.run("check", words, trees["this"], hyp, args.sacrebleu_lines)
            ok = table.report(metric, args.lines, args.sacrebleu_lines, rows) and ok
    print("\n".join(rows))
    print("scores equal" if ok else "SCORES DIFFER")
    return EXIT_OK if ok else EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
