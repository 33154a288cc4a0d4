"""Batch chrF, chrF++ and TER rewards against SacreBLEU's ``sentence_score`` loop.

    python benchmarks/bench_rewards.py [--sentences 2000] [--ter-sentences 300]
        [--batch 256] [--repeat 3] [--callgrind-sentences 200] [--data DIR]

For each metric, in one process with both packages imported first, on
numbered WMT17 en-de pairs (no line repeats, so no cache helps anyone):

* ``sacrebleu``: ``CHRF(...)/TER().sentence_score(hyp, [ref])`` in a loop,
  the object made once, as a training loop that knows the API writes it;
* ``sentence_scores``: ``bleustream.sentence_scores(metric, hyps, [refs])``,
  one call per batch of ``--batch`` sentences (a training step's);
* ``reward``: ``bleustream.rewards.chrf`` (and ``reward("chrf++")``,
  ``rewards.ter``) called as TRL calls it, per batch: the same plus the
  scaling.

Each is the best of ``--repeat`` passes, in sentences per second by wall
clock and by CPU time (the machine may be busy: both are shown, and the
load average), with the ratio to SacreBLEU's loop.  Then callgrind: the
instructions of one sentence, SacreBLEU's loop against ``sentence_scores``
(``--callgrind-sentences`` sentences in a child under valgrind, less the
same child scoring none), a figure the load does not move.  The aims:
30x for chrF and chrF++, 40x for TER, by both measures.

Every score must equal SacreBLEU's, bit for bit (the rewards after their
scaling), or the exit status is 1.  Without the data: skipped, status 0.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable

from bench_kernels import numbered_pairs
from realdata import add_data_argument

# name: (sentence_scores metric, its keywords, SacreBLEU's class name, the reward's metric)
METRICS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "chrF": ("chrf", {}, "CHRF", "chrf"),
    "chrF++": ("chrf", {"word_order": 2}, "CHRF", "chrf++"),
    "TER": ("ter", {}, "TER", "ter"),
}
AIMS = {"chrF": 30.0, "chrF++": 30.0, "TER": 40.0}


def _sacrebleu_metric(name: str) -> Any:
    import sacrebleu

    _, kw, cls, _ = METRICS[name]
    return getattr(sacrebleu, cls)(**kw)


def best_of(repeat: int, run: Callable[[], list[float]]) -> tuple[float, float, list[float]]:
    """The least wall-clock and the least CPU seconds of ``repeat`` runs, and the scores."""
    walls, cpus = [], []
    scores: list[float] = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        scores = run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), scores


def wall_clock_rows(
    name: str, hyps: list[str], refs: list[str], batch: int, repeat: int
) -> tuple[list[str], bool]:
    """One metric's table rows and whether every score was SacreBLEU's."""
    import bleustream
    from bleustream import rewards

    metric, kw, _, reward_name = METRICS[name]
    theirs = _sacrebleu_metric(name)
    reward = rewards.reward(reward_name)
    n = len(hyps)

    def loop() -> list[float]:
        return [theirs.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]

    def batches() -> list[float]:
        out: list[float] = []
        for i in range(0, n, batch):
            found = bleustream.sentence_scores(
                metric, hyps[i : i + batch], [refs[i : i + batch]], **kw
            )
            out += [s.score for s in found]
        return out

    def reward_batches() -> list[float]:
        out: list[float] = []
        for i in range(0, n, batch):
            out += reward(
                completions=hyps[i : i + batch], reference=refs[i : i + batch], prompts=None
            )
        return out

    base = best_of(repeat, loop)
    ours = best_of(repeat, batches)
    as_reward = best_of(repeat, reward_batches)
    want_reward = [rewards.scaled(s, reward.lower_is_better, 1) for s in base[2]]
    equal = [x.hex() for x in ours[2]] == [x.hex() for x in base[2]]
    equal = equal and [x.hex() for x in as_reward[2]] == [x.hex() for x in want_reward]
    lines = []
    for label, (wall, cpu, _) in (
        ("sacrebleu loop", base),
        ("sentence_scores", ours),
        ("reward (TRL call)", as_reward),
    ):
        lines.append(
            f"  {name:7s} {label:18s} {n / wall:>10,.0f} {n / cpu:>10,.0f} "
            f"{base[0] / wall:>8.1f}x {base[1] / cpu:>8.1f}x"
        )
    return lines, equal


def sentence_child(mode: str, name: str, count: int, data: Path) -> None:
    """Run under callgrind: ``count`` sentences of ``name`` by ``mode``, every
    function called once first."""
    import bleustream

    metric, kw, _, _ = METRICS[name]
    hyps, refs = numbered_pairs(data, count + 2)
    theirs = _sacrebleu_metric(name)
    theirs.sentence_score(hyps[-1], [refs[-1]])
    bleustream.sentence_scores(metric, hyps[-2:], [refs[-2:]], **kw)
    hyps, refs = hyps[:count], refs[:count]
    if mode == "sacrebleu":
        [theirs.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
    else:
        [s.score for s in bleustream.sentence_scores(metric, hyps, [refs], **kw)]


def instructions(mode: str, name: str, count: int, data: Path, work: Path) -> int:
    out = work / f"cg.{mode}.{count}.out"
    cmd = [sys.executable, __file__, "--child", mode, name, str(count), "--data", str(data)]
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
        env={**os.environ, "PYTHONHASHSEED": "0"},
        capture_output=True,
        check=True,
    )
    match = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
    assert match, out
    return int(match.group(1))


def callgrind_rows(count: int, data: Path) -> list[str]:
    lines = [f"callgrind: instructions a sentence, {count} sentences past set-up"]
    with tempfile.TemporaryDirectory(prefix="bench-rewards-") as tmp:
        work = Path(tmp)
        for name in METRICS:
            per: dict[str, float] = {}
            for mode in ("sacrebleu", "sentence_scores"):
                zero = instructions(mode, name, 0, data, work)
                per[mode] = (instructions(mode, name, count, data, work) - zero) / count
            ratio = per["sacrebleu"] / per["sentence_scores"]
            aim = f"aim {AIMS[name]:.0f}x: {'met' if ratio >= AIMS[name] else 'NOT met'}"
            lines.append(
                f"  {name:7s} sacrebleu {per['sacrebleu']:>12,.0f}  sentence_scores "
                f"{per['sentence_scores']:>10,.0f}  {ratio:6.1f}x fewer ({aim})"
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sentences", type=int, default=2000, help="chrF and chrF++ sentences")
    parser.add_argument("--ter-sentences", type=int, default=300)
    parser.add_argument("--batch", type=int, default=256, help="sentences a batch call")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--callgrind-sentences", type=int, default=200, help="0: no callgrind")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    add_data_argument(parser)
    args = parser.parse_args(argv)
    data: Path = Path(os.environ.get("BLEUSTREAM_REAL_DATA") or args.data)
    if args.child:
        sentence_child(args.child[0], args.child[1], int(args.child[2]), data)
        return 0
    if not (data / "MANIFEST.json").is_file():
        print(f"skipped: no real data in {data}")
        return 0
    import bleustream

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"bench_rewards: {' '.join(sys.argv)}")
    print(f"kernels {bleustream.KERNELS}, {os.cpu_count()} CPUs, load average {load}")
    print(f"  {'metric':7s} {'':18s} {'sent/s':>10s} {'cpu sent/s':>10s} {'wall':>9s} {'cpu':>9s}")
    ok = True
    for name in METRICS:
        count = args.ter_sentences if name == "TER" else args.sentences
        hyps, refs = numbered_pairs(data, count)
        lines, equal = wall_clock_rows(name, hyps, refs, args.batch, args.repeat)
        print("\n".join(lines))
        if not equal:
            print(f"  {name}: bleustream's scores differ from SacreBLEU's", file=sys.stderr)
            ok = False
    if args.callgrind_sentences:
        print("\n".join(callgrind_rows(args.callgrind_sentences, data)))
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
