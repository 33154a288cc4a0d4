#!/usr/bin/env python3
"""COMET in a run: bleustream ``-m comet`` beside ``comet-score`` (unbabel-comet
2.2.7, in its own venv), on a cometinho-sized random checkpoint.

The corpus is 2,000 WMT segments with their sources (newstest2021 en-de,
then en-ja: the first system and reference A of each).  Each command is a
child process, timed (wall clock, and CPU seconds of the process and its
children) with its peak RSS:

    comet-score -s SRC -t HYP -r REF --model CKPT --gpus 0 --batch_size 16
    bleustream REF -i HYP --src SRC -m comet --comet-model CKPT --comet-cache FILE  (cold)
    bleustream ... -m comet --comet-cache FILE                             (warm)
    bleustream ... -m bleu chrf comet --comet-cache FILE                   (warm)
    bleustream ... -m bleu chrf comet --comet-cache FILE on 100,000 lines  (the 2,000 repeated)

and the table gives: bleustream (its cold run: every segment through the
model, the cache written) against comet-score; the warm cache against the
cold run (aim: at least 20x); BLEU and chrF beside COMET: the CPU seconds
the warm run with them takes over the warm run without, against COMET's
cold run (aim: at most 5%; CPU seconds, as the machine may be busy); peak
RSS of 2,000 and of 100,000 lines (aim: flat; the 100,000 lines are the
2,000 repeated, read back from the warm cache, so this measures the stream
around the model, not 50 times the forward passes).  One forward-pass run
each: on a shared machine, more would not finish.

bleustream's system score is checked against comet-score's: comet-score's
command line runs the model as it loads it (its parity at fp32 with
``predict`` is the parity tests' business); the difference is reported.

    BLEUSTREAM_COMET_ORACLE=/path/to/comet-oracle/bin/python python benchmarks/bench_comet.py

The checkpoint is built once with unbabel-comet's own classes
(``tests/helpers/comet_checkpoints.py``, spec ``cometinho``), or given with
``--checkpoint DIR``.  Without the data or the oracle venv: skipped, status 0.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from realdata import add_data_argument

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SETS = (
    ("wmt21-en-de", "newstest2021.en-de.src.en", "newstest2021.en-de.hyp.BUPT_rush.de",
     "newstest2021.en-de.ref.A.de"),
    ("wmt21-en-ja", "newstest2021.en-ja.src.en", "newstest2021.en-ja.hyp.BUPT_rush.ja",
     "newstest2021.en-ja.ref.A.ja"),
)  # fmt: skip


def run(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int, str, str]:
    """(wall s, CPU s, peak RSS MiB, stdout, stderr) of one child process."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}\n{stderr[-3000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss // 1024, stdout, stderr


def corpus(data: Path, work: Path, lines: int) -> tuple[Path, Path, Path]:
    texts: dict[str, list[str]] = {"src": [], "hyp": [], "ref": []}
    for name, src, hyp, ref in SETS:
        for key, file in (("src", src), ("hyp", hyp), ("ref", ref)):
            texts[key] += (data / name / file).read_text(encoding="utf-8").splitlines()
    paths = []
    for key in ("src", "hyp", "ref"):
        path = work / f"{key}.{lines}"
        chosen = (texts[key][:2000] * (lines // 2000 + 1))[:lines]
        path.write_text("\n".join(chosen) + "\n", encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1], paths[2]


def comet_score_of(text: str) -> float:
    """comet-score's system score line: ``... score: 0.1234``."""
    found = re.findall(r"score: (-?[0-9.e+-]+)\s*$", text, re.M)
    if not found:
        raise SystemExit(f"no system score in comet-score's output:\n{text[-2000:]}")
    return float(found[-1])


def comet_of(stdout: str) -> float:
    import json

    for line in stdout.splitlines():
        record = json.loads(line)
        if record["metric"] == "COMET" and record["type"] == "corpus":
            return float(record["score"])
    raise SystemExit("no COMET record")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_data_argument(parser)
    parser.add_argument("--checkpoint", type=Path, help="a built checkpoint directory")
    parser.add_argument("--big", type=int, default=100_000, help="lines of the memory run")
    parser.add_argument("--skip-comet-score", action="store_true")
    args = parser.parse_args()
    oracle = os.environ.get("BLEUSTREAM_COMET_ORACLE", "")
    if not (args.data / SETS[0][0]).is_dir() or not Path(oracle).is_file():
        print("skipped: needs the real data and BLEUSTREAM_COMET_ORACLE (unbabel-comet's python)")
        return 0
    checkpoint = args.checkpoint
    if checkpoint is None:
        from tests.helpers.comet_checkpoints import build_checkpoint

        checkpoint = build_checkpoint("cometinho")
    bleustream = shutil.which("bleustream", path=str(Path(sys.executable).parent)) or "bleustream"
    comet_score = str(Path(oracle).with_name("comet-score"))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    rows: list[tuple[str, float, float, int]] = []

    def add(name: str, wall: float, cpu: float, rss: int) -> None:
        rows.append((name, wall, cpu, rss))
        print(f"ran {name}: {wall:.2f} s wall, {cpu:.2f} s CPU, {rss} MiB", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        src, hyp, ref = corpus(args.data, work, 2000)
        base = [bleustream, str(ref), "-i", str(hyp), "--src", str(src), "-f", "jsonl"]
        model = ["--comet-model", str(checkpoint), "--comet-device", "cpu"]
        cache = ["--comet-cache", str(work / "scores.db")]
        wall, cpu, rss, out, _ = run([*base, "-m", "comet", *model, *cache], env)
        ours = comet_of(out)
        add("-m comet, cache cold", wall, cpu, rss)
        three = ["-m", "bleu", "chrf", "comet", *model, *cache]
        add("-m comet, cache warm", *run([*base, "-m", "comet", *model, *cache], env)[:3])
        add("bleu chrf comet, warm, 2,000", *run([*base, *three], env)[:3])
        bsrc, bhyp, bref = corpus(args.data, work, args.big)
        big = [bleustream, str(bref), "-i", str(bhyp), "--src", str(bsrc), "-f", "jsonl"]
        add(f"bleu chrf comet, warm, {args.big:,}", *run([*big, *three], env)[:3])
        theirs = None  # last: on a busy machine the runs under test come first
        if not args.skip_comet_score:
            ckpt = str(checkpoint / "checkpoints" / "model.ckpt")
            argv = [comet_score, "-s", str(src), "-t", str(hyp), "-r", str(ref), "--model", ckpt]
            wall, cpu, rss, out, err = run([*argv, "--gpus", "0", "--batch_size", "16"], env)
            theirs = comet_score_of(out + err)
            add("comet-score", wall, cpu, rss)
    print(f"checkpoint: {checkpoint} (cometinho-sized, random weights); 2,000 WMT segments")
    print(f"{'command':<36} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}")
    for name, wall, cpu, rss in rows:
        print(f"{name:<36} {wall:>8.2f} {cpu:>8.2f} {rss:>9}")
    by = {name: (wall, cpu, rss) for name, wall, cpu, rss in rows}
    cold, warm = by["-m comet, cache cold"], by["-m comet, cache warm"]
    if theirs is not None:
        w, c, _ = by["comet-score"]
        print(f"bleustream (cold) vs comet-score: {w / cold[0]:.2f}x wall, {c / cold[1]:.2f}x CPU")
        print(f"system score {ours!r} vs {theirs!r} (difference {abs(ours - theirs):.2e})")
    speedup = f"{cold[0] / warm[0]:.1f}x wall, {cold[1] / warm[1]:.1f}x CPU"
    print(f"cache warm vs cold: {speedup} (aim >= 20x)")
    beside = by["bleu chrf comet, warm, 2,000"]
    # BLEU and chrF's own cost: the warm runs with and without them (no
    # forward pass in either), against COMET's cost when it runs the model.
    extra = beside[1] - warm[1]
    print(f"BLEU+chrF beside COMET: {extra:.2f} CPU s, {100 * extra / cold[1]:+.1f}% of COMET's "
          f"{cold[1]:.2f} (aim <= 5%)")  # fmt: skip
    large = by[f"bleu chrf comet, warm, {args.big:,}"]
    print(f"peak RSS 2,000 -> {args.big:,} lines: {beside[2]} -> {large[2]} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
