"""The compiled kernels against the pure path, SacreBLEU and bleuscore, in one run.

    python benchmarks/bench_kernels.py [--lines 100000] [--ter-lines 10000]
        [--sentences 20000] [--callgrind-lines 2000] [--data DIR]

Whole commands on N distinct lines of WMT17 en-de (each line numbered so
that none repeats), each timed as a child process (wall clock and CPU):

* BLEU 13a: ``bleustream -j 1`` compiled, ``bleustream -j 1`` pure
  (``BLEUSTREAM_PUREPYTHON=1``), ``sacrebleu``, and ``bleuscore`` (the Rust
  package from PyPI, if installed: a script calling ``bleuscore.compute``);
* chrF: bleustream compiled, pure, sacrebleu;
* TER on ``--ter-lines`` lines: bleustream compiled, pure, sacrebleu;
* sentence BLEU calls per second: ``sacrebleu.sentence_bleu``,
  ``bleustream.sentence_bleu`` on each path, and ``bleustream.sentence_scores``
  (one call per batch of 1000), each the best of three passes, with both
  packages imported first;
* callgrind instruction counts of the BLEU and chrF commands on
  ``--callgrind-lines`` lines and of the TER commands on a quarter as
  many, beside their wall-clock ratios, and the instructions a sentence
  score costs (``sacrebleu.sentence_bleu``, ``bleustream.sentence_bleu``,
  ``bleustream.sentence_scores``; ``--callgrind-lines`` calls, the set-up
  taken away) (valgrind needed; ``--callgrind-lines 0`` leaves it out).

Scores must be equal (bleustream's to SacreBLEU's, to the printed digits;
sentence scores exactly) or the exit status is 1.  Without the data the
benchmark is skipped with exit status 0.  mojo-sacrebleu is not on PyPI.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from childenv import child_environment
from realdata import DEFAULT_SET, add_data_argument, read_lines, read_manifest

PURE = {"BLEUSTREAM_PUREPYTHON": "1"}
BLEUSCORE_SOURCE = """\
import sys

import bleuscore

def read(path):
    with open(path, encoding="utf-8", newline="\\n") as fh:
        return [line[:-1] if line.endswith("\\n") else line for line in fh]

refs, hyps = read(sys.argv[1]), read(sys.argv[2])
result = bleuscore.compute(
    references=[[ref] for ref in refs], predictions=hyps, max_order=4, smooth=False,
    ref_len_method="sacrebleu",
)
print(f"{100 * result['bleu']:.6f}")
"""


def env_with(extra: dict[str, str]) -> dict[str, str]:
    """Each command says which kernels it wants."""
    return child_environment(extra, dropped=("BLEUSTREAM_PUREPYTHON",))


def timed(cmd: Sequence[str], extra_env: dict[str, str], cwd: Path) -> tuple[str, float, float]:
    """(stdout, wall seconds, CPU seconds) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        list(cmd), cwd=cwd, env=env_with(extra_env), capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc.stdout.strip(), wall, cpu


def numbered_pairs(data: Path, count: int) -> tuple[list[str], list[str]]:
    """``count`` hypotheses and references of WMT17 en-de, cycled, each
    line numbered so that none repeats."""
    entry = read_manifest(data)[DEFAULT_SET]
    directory = data / DEFAULT_SET
    refs = read_lines(directory / entry["refs"][0])
    hyps = read_lines(directory / entry["hyps"][0])
    return (
        [f"{i} {hyps[i % len(hyps)]}" for i in range(count)],
        [f"{i} {refs[i % len(refs)]}" for i in range(count)],
    )


def corpus(data: Path, lines: int, work: Path, name: str) -> tuple[Path, Path]:
    hyps, refs = numbered_pairs(data, lines)
    ref_path, hyp_path = work / f"{name}.ref", work / f"{name}.hyp"
    ref_path.write_text("".join(f"{ref}\n" for ref in refs), "utf-8")
    hyp_path.write_text("".join(f"{hyp}\n" for hyp in hyps), "utf-8")
    return ref_path, hyp_path


def table(title: str, rows: list[tuple[str, str, float, float]], base: str) -> list[str]:
    base_wall = next(wall for name, _, wall, _ in rows if name == base)
    out = [
        f"{title}",
        f"  {'command':34s} {'score':>12s} {'wall s':>8s} {'cpu s':>8s} {'vs ' + base:>14s}",
    ]
    for name, score, wall, cpu in rows:
        out.append(f"  {name:34s} {score:>12s} {wall:8.2f} {cpu:8.2f} {base_wall / wall:13.2f}x")
    return out


def sentence_rates(count: int) -> dict[str, Any]:
    """Run in a child: sentence BLEU calls per second on this process's kernels."""
    import sacrebleu

    import bleustream

    hyps, refs = numbered_pairs(Path(os.environ["BENCH_DATA"]), count)
    out: dict[str, Any] = {"kernels": bleustream.KERNELS}
    # Both packages are imported, and their functions bound, before any
    # clock starts (bleustream loads its API on first use).
    sentence_bleu, sentence_scores = bleustream.sentence_bleu, bleustream.sentence_scores

    def best(run: Any) -> tuple[float, list[float]]:
        """Calls per second, best of three passes, and the scores."""
        times = []
        for _ in range(3):
            start = time.perf_counter()
            scores = run()
            times.append(time.perf_counter() - start)
        return count / min(times), scores

    out["sentence_bleu"], ours = best(
        lambda: [sentence_bleu(h, [r]).score for h, r in zip(hyps, refs)]
    )

    def batches() -> list[float]:
        batch: list[float] = []
        for i in range(0, count, 1000):
            scored = sentence_scores("bleu", hyps[i : i + 1000], [refs[i : i + 1000]])
            batch += [s.score for s in scored]
        return batch

    out["sentence_scores"], batch = best(batches)
    if os.environ.get("BENCH_SACREBLEU"):
        out["sacrebleu"], theirs = best(
            lambda: [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs)]
        )
        out["equal"] = ours == theirs == batch
    else:
        out["equal"] = ours == batch
    return out


def callgrind(cmd: Sequence[str], extra_env: dict[str, str], cwd: Path, out: Path) -> int:
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
        cwd=cwd,
        env=env_with({**extra_env, "PYTHONHASHSEED": "0"}),
        capture_output=True,
        check=True,
    )
    match = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
    assert match, out
    return int(match.group(1))


SENTENCE_MODES = (
    "sacrebleu.sentence_bleu",
    "bleustream.sentence_bleu",
    "bleustream.sentence_scores",
)


def sentence_calls(mode: str, count: int, built: int) -> None:
    """Run in a child under callgrind: ``count`` sentence scores by ``mode``,
    of ``built`` pairs made either way, every function called once first."""
    import sacrebleu

    import bleustream

    hyps, refs = numbered_pairs(Path(os.environ["BENCH_DATA"]), built)
    sacrebleu.sentence_bleu(hyps[0], [refs[0]])
    bleustream.sentence_bleu(hyps[0], [refs[0]])
    bleustream.sentence_scores("bleu", hyps[:2], [refs[:2]])
    hyps, refs = hyps[:count], refs[:count]
    if mode == "sacrebleu.sentence_bleu":
        [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs)]
    elif mode == "bleustream.sentence_bleu":
        [bleustream.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs)]
    else:
        for i in range(0, count, 1000):
            batch = bleustream.sentence_scores("bleu", hyps[i : i + 1000], [refs[i : i + 1000]])
            [s.score for s in batch]


def sentence_callgrind_table(calls: int, data: Path, work: Path) -> list[str]:
    """Instructions per sentence score, the set-up (the same child making no
    calls) taken away: what a training loop pays per sample."""
    per_call: dict[str, float] = {}
    for i, mode in enumerate(SENTENCE_MODES):
        found = []
        for count in (0, calls):
            cmd = [sys.executable, __file__, "--sentence-calls", mode, str(count), str(calls)]
            out = work / f"cg.sentence.{i}.{count}.out"
            found.append(callgrind(cmd, {"BENCH_DATA": str(data)}, work, out))
        per_call[mode] = (found[1] - found[0]) / calls
    base = per_call["sacrebleu.sentence_bleu"]
    lines = [f"callgrind, sentence BLEU, {calls} calls past set-up"]
    for mode, count in per_call.items():
        lines.append(f"  {mode:30s} {count:>12,.0f} instructions a call {base / count:6.2f}x fewer")
    return lines


def callgrind_table(
    metric: str,
    lines: int,
    data: Path,
    work: Path,
    bleustream: list[str],
    sacrebleu: list[str],
) -> list[str]:
    """Instructions and wall-clock ratios of one metric's three commands: the
    whole commands on ``lines`` lines, and per line with the start-up (the
    same command on one line) taken away, which is what a long run pays."""
    counts: dict[str, dict[int, int]] = {}
    walls: dict[str, float] = {}
    for size in (1, lines):
        ref_c, hyp_c = corpus(data, size, work, f"cg-{metric}-{size}")
        flags_c = [str(ref_c), "-i", str(hyp_c), "-b", "-w", "6", "-m", metric]
        runs = {
            "bleustream compiled": ([*bleustream, *flags_c, "-j", "1"], {}),
            "bleustream pure": ([*bleustream, *flags_c, "-j", "1"], PURE),
            "sacrebleu": ([*sacrebleu, *flags_c], {}),
        }
        for i, (name, (cmd, env)) in enumerate(runs.items()):
            out = work / f"cg.{metric}.{size}.{i}.out"
            counts.setdefault(name, {})[size] = callgrind(cmd, env, work, out)
            if size == lines:
                walls[name] = timed(cmd, env, work)[1]
    per_line = {name: (c[lines] - c[1]) / max(1, lines - 1) for name, c in counts.items()}
    out_lines = [f"callgrind, {metric} whole command, {lines} lines"]
    for name, c in counts.items():
        out_lines.append(
            f"  {name:22s} {c[lines]:>15,d} instructions "
            f"{counts['sacrebleu'][lines] / c[lines]:6.2f}x fewer than sacrebleu "
            f"(wall {walls['sacrebleu'] / walls[name]:5.2f}x); per line past start-up "
            f"{per_line[name]:>10,.0f}, {per_line['sacrebleu'] / per_line[name]:6.2f}x fewer"
        )
    pure, compiled = counts["bleustream pure"][lines], counts["bleustream compiled"][lines]
    faster = walls["bleustream pure"] / walls["bleustream compiled"]
    out_lines.append(
        f"  compiled vs pure: {pure / compiled:.2f}x fewer instructions "
        f"({per_line['bleustream pure'] / per_line['bleustream compiled']:.2f}x per line), "
        f"{faster:.2f}x wall"
    )
    return out_lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--ter-lines", type=int, default=10_000)
    parser.add_argument("--sentences", type=int, default=20_000)
    parser.add_argument("--callgrind-lines", type=int, default=2000)
    parser.add_argument("--sentence-child", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--sentence-calls", nargs=3, help=argparse.SUPPRESS)
    add_data_argument(parser)
    args = parser.parse_args(argv)
    if args.sentence_child:
        print(json.dumps(sentence_rates(args.sentence_child)))
        return 0
    if args.sentence_calls:
        mode, count, built = args.sentence_calls
        sentence_calls(mode, int(count), int(built))
        return 0
    data: Path = Path(os.environ.get("BLEUSTREAM_REAL_DATA") or args.data)
    if not (data / "MANIFEST.json").is_file():
        print(f"bench_kernels: no real data in {data}; skipped")
        return 0
    py = sys.executable
    bleustream = [py, "-m", "bleustream"]
    sacrebleu = [py, "-m", "sacrebleu"]
    has_bleuscore = importlib.util.find_spec("bleuscore") is not None
    ok = True
    report: list[str] = [f"bench_kernels: {' '.join(sys.argv)}"]
    with tempfile.TemporaryDirectory(prefix="bench-kernels-") as tmp:
        work = Path(tmp)
        (work / "bleuscore_bleu.py").write_text(BLEUSCORE_SOURCE, "utf-8")
        ref, hyp = corpus(data, args.lines, work, "big")
        flags = [str(ref), "-i", str(hyp), "-b", "-w", "6"]
        for metric in ("bleu", "chrf"):
            rows = []
            for name, cmd, env in (
                ("bleustream compiled", [*bleustream, *flags, "-m", metric, "-j", "1"], {}),
                ("bleustream pure", [*bleustream, *flags, "-m", metric, "-j", "1"], PURE),
                ("sacrebleu", [*sacrebleu, *flags, "-m", metric], {}),
            ):
                score, wall, cpu = timed(cmd, env, work)
                rows.append((name, score, wall, cpu))
            if metric == "bleu" and has_bleuscore:
                score, wall, cpu = timed([py, "bleuscore_bleu.py", str(ref), str(hyp)], {}, work)
                rows.append(("bleuscore (not required equal)", score, wall, cpu))
            scores = {row[1] for row in rows[:3]}
            ok &= len(scores) == 1
            report += table(
                f"{metric} whole command, {args.lines} lines (equal: {len(scores) == 1})",
                rows,
                "sacrebleu",
            )
        ref_t, hyp_t = corpus(data, args.ter_lines, work, "ter")
        flags_t = [str(ref_t), "-i", str(hyp_t), "-b", "-w", "6", "-m", "ter"]
        rows = []
        for name, cmd, env in (
            ("bleustream compiled", [*bleustream, *flags_t, "-j", "1"], {}),
            ("bleustream pure", [*bleustream, *flags_t, "-j", "1"], PURE),
            ("sacrebleu", [*sacrebleu, *flags_t], {}),
        ):
            rows.append((name, *timed(cmd, env, work)))
        ok &= len({row[1] for row in rows}) == 1
        report += table(f"ter whole command, {args.ter_lines} lines", rows, "sacrebleu")

        child = [py, __file__, "--sentence-child", str(args.sentences)]
        env = {"BENCH_DATA": str(data)}
        compiled = json.loads(timed(child, {**env, "BENCH_SACREBLEU": "1"}, work)[0])
        pure = json.loads(timed(child, {**env, **PURE}, work)[0])
        ok &= compiled["equal"] and pure["equal"]
        sac = compiled["sacrebleu"]
        report.append(
            f"sentence BLEU, {args.sentences} calls (equal: {compiled['equal'] and pure['equal']})"
        )
        for name, rate in (
            ("sacrebleu.sentence_bleu", sac),
            (f"bleustream.sentence_bleu ({compiled['kernels']})", compiled["sentence_bleu"]),
            (f"bleustream.sentence_scores ({compiled['kernels']})", compiled["sentence_scores"]),
            (f"bleustream.sentence_bleu ({pure['kernels']})", pure["sentence_bleu"]),
            (f"bleustream.sentence_scores ({pure['kernels']})", pure["sentence_scores"]),
        ):
            report.append(f"  {name:44s} {rate:10.0f} calls/s {rate / sac:8.2f}x sacrebleu")

        if args.callgrind_lines and shutil.which("valgrind"):
            for metric, lines in (
                ("bleu", args.callgrind_lines),
                ("chrf", args.callgrind_lines),
                ("ter", max(1, args.callgrind_lines // 4)),
            ):
                report += callgrind_table(metric, lines, data, work, bleustream, sacrebleu)
            report += sentence_callgrind_table(args.callgrind_lines, data, work)
    report.append("scores equal" if ok else "SCORES DIFFER")
    print("\n".join(report))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
