#!/usr/bin/env python3
"""Token-ID BLEU for a training loop: ``bleustream.token_bleu`` and its peers.

Batches of ``--sentences`` (256) hypotheses of 1,024 and of 128 token ids,
one reference each, made here (seeded): references of ids drawn from a
32,000-id vocabulary with a Zipf-like skew, hypotheses the references with
a quarter of their ids replaced and a few runs moved, so that n-grams of
every order match.  Timed in this process, best of ``--repeat`` (wall clock
and CPU time of the process, each the least over the passes):

- ``bleustream.token_bleu`` on a 2-D int64 NumPy array, one thread,
  ``threads=2``, and two Python threads (of a pool made before the clock
  starts) each scoring half the batch with one-thread calls: the GIL is
  released while the kernel counts, so both run at once (compare the wall
  and CPU columns);
- SacreBLEU's ``sentence_bleu`` loop on the ids written as words
  (``tokenize="none"``; the strings are made before the clock starts);
- NLTK's ``sentence_bleu`` loop on the id lists (its own smoothing, so its
  numbers are not compared);
- TensorBLEU's ``tensor_sentence_bleu`` on CPU tensors, when PyTorch and
  the ``rxlm`` package that ships it are installed (``pip install --no-deps
  rxlm`` beside PyTorch: its other dependencies are its training
  framework's); its numbers are not compared either.

bleustream's scores must equal SacreBLEU's bit for bit (else exit 1).  The
ratios are SacreBLEU's loop time over each row's; the aims: 256 x 1,024 in
at most 19 ms on one core (TensorBLEU's A100 figure) and at least 100x
SacreBLEU's loop.  Then callgrind counts the instructions of one
``token_bleu`` call per hypothesis token, and of SacreBLEU's loop per token
(on 16 sentences: callgrind is slow), and their ratio (a child process
scores the batch once and five times, one hash seed; the difference over four
batches, so start-up and set-up fall out).  The machine may be busy: the load average is printed
before and after.

Then ids chosen to collide in the compiled matcher's hash (``--flood``,
32,000 and 64,000 ids in one sentence, references and hypothesis): its
first probe is the top bits of ``id * NGRAM_MUL`` (``kernels.h``), so ids
``k * NGRAM_MUL^-1 mod 2**64`` all have slot 0 ("one slot", where each probe
walked past every id before it: 32,000 took 0.92 s), and ids ``(k << (64 -
b)) * NGRAM_MUL^-1`` fill one run of slots of the unigram table of ``2**b``
slots, whose start the hypothesis' absent ids probe ("one run"); and ids
whose bigram tuples share one Python hash, the pure twin's ("one tuple
hash": Python's tuple hash can be undone step by step).  Each is
timed (CPU, best of ``--repeat``) beside random int64 ids of the same count
and layout, compiled and pure; the aim: within 5x of random ids.  The
scores must equal SacreBLEU's there too.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness import EXIT_FAIL, EXIT_OK, machine, render

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.hash_flood import colliding_ids, tuple_colliding_ids, unigram_bits

LENGTHS = (1024, 128)
VOCAB = 32_000
AIM_MS = 19.0
AIM_RATIO = 100.0
FLOOD_COUNTS = (32_000, 64_000)
AIM_FLOOD = 5.0


def make_batch(sentences: int, length: int, seed: int) -> tuple[Any, Any]:
    """(hypotheses, references): 2-D int64 arrays of ids 1 .. VOCAB - 1."""
    import numpy as np

    rng = np.random.default_rng(seed)
    # a Zipf-like skew: frequent ids repeat, as words do
    ranks = np.arange(1, VOCAB, dtype=np.float64)
    weights = 1.0 / ranks
    refs = rng.choice(np.arange(1, VOCAB), size=(sentences, length), p=weights / weights.sum())
    hyps = refs.copy()
    changed = rng.random((sentences, length)) < 0.25
    hyps[changed] = rng.integers(1, VOCAB, int(changed.sum()))
    for row in hyps:  # move a few runs of ids
        for _ in range(3):
            start, size = int(rng.integers(0, length)), int(rng.integers(1, 9))
            run = row[start : start + size].copy()
            row[start : start + size] = np.roll(run, 1)
    return hyps.astype(np.int64), refs.astype(np.int64)


def timed(func: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Least wall-clock and CPU seconds over ``repeat`` calls, and the result."""
    wall = cpu = float("inf")
    result = None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = func()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu, result


def halves(hyps: Any, refs: Any) -> Callable[[], list[float]]:
    """Two Python threads of a pool made beforehand, each scoring half the
    batch with one-thread calls: the kernel releases the GIL, so they run
    on two cores at once."""
    from concurrent.futures import ThreadPoolExecutor

    import bleustream

    pool = ThreadPoolExecutor(2)
    cut = len(hyps) // 2
    parts = [(hyps[:cut], refs[:cut]), (hyps[cut:], refs[cut:])]

    def run() -> list[float]:
        done = [pool.submit(bleustream.token_bleu, h, [r]) for h, r in parts]
        return [x for future in done for x in future.result()]

    return run


def peers(hyps: Any, refs: Any) -> dict[str, Callable[[], Any] | str]:
    """What is timed, by name: a call, or why it cannot run."""
    import sacrebleu

    import bleustream

    hyp_text = [" ".join(map(str, row)) for row in hyps.tolist()]
    ref_text = [" ".join(map(str, row)) for row in refs.tolist()]
    out: dict[str, Callable[[], Any] | str] = {
        "bleustream.token_bleu, 1 thread": lambda: bleustream.token_bleu(hyps, [refs]),
        "bleustream.token_bleu, threads=2": lambda: bleustream.token_bleu(hyps, [refs], threads=2),
        "bleustream.token_bleu, 2 Python threads": halves(hyps, refs),
        "sacrebleu.sentence_bleu loop": lambda: [
            sacrebleu.sentence_bleu(h, [r], tokenize="none").score
            for h, r in zip(hyp_text, ref_text)
        ],
    }
    try:
        from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

        hyp_lists, ref_lists = hyps.tolist(), refs.tolist()
        smooth = SmoothingFunction().method1
        out["nltk sentence_bleu loop"] = lambda: [
            sentence_bleu([r], h, smoothing_function=smooth) for h, r in zip(hyp_lists, ref_lists)
        ]
    except ImportError:
        out["nltk sentence_bleu loop"] = "nltk not installed"
    try:
        import torch
        from rxlm.metrics.tensorbleu import tensor_sentence_bleu

        candidates = torch.from_numpy(hyps)
        references = torch.from_numpy(refs).unsqueeze(1)
        name = f"TensorBLEU on CPU ({torch.get_num_threads()} torch threads)"
        out[name] = lambda: tensor_sentence_bleu(candidates, references, pad_token_id=0)
    except ImportError as exc:
        out["TensorBLEU on CPU"] = f"not installed ({exc.name})"
    return out


CHILD = """
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
from bench_token_bleu import make_batch
who, sentences, length, calls = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
hyps, refs = make_batch(sentences, length, 0)
if who == "bleustream":
    import bleustream
    bleustream.token_bleu(hyps[:2], [refs[:2]])
    for _ in range(calls):
        bleustream.token_bleu(hyps, [refs])
else:
    import sacrebleu
    hyp_text = [" ".join(map(str, row)) for row in hyps.tolist()]
    ref_text = [" ".join(map(str, row)) for row in refs.tolist()]
    sacrebleu.sentence_bleu(hyp_text[0], [ref_text[0]], tokenize="none")
    for _ in range(calls):
        for h, r in zip(hyp_text, ref_text):
            sacrebleu.sentence_bleu(h, [r], tokenize="none")
"""

# SacreBLEU's loop is counted on a smaller batch: callgrind runs it some
# fifty times slower than the clock, and its cost per token does not
# depend on the batch's size.
CALLGRIND_SENTENCES = {"bleustream": None, "sacrebleu": 16}
# Batches scored by the two child processes: their difference is counted.
CALLS = (1, 5)


def instructions_per_token(who: str, sentences: int, length: int) -> float | None:
    """callgrind's instructions of one batch, per hypothesis token: ``who``
    (bleustream's ``token_bleu`` call or SacreBLEU's ``sentence_bleu``
    loop) scores it once and five times in a child process (one hash seed),
    and the difference is divided over four batches, so start-up and set-up
    fall out."""
    if not shutil.which("valgrind"):
        return None
    sentences = CALLGRIND_SENTENCES[who] or sentences
    # One hash seed for both runs: start-up then costs the same in each.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    counts = []
    with tempfile.TemporaryDirectory() as work:
        for calls in CALLS:
            out = Path(work) / f"callgrind.{calls}"
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable]
            cmd += ["-c", CHILD, str(Path(__file__).parent), who, str(sentences), str(length)]
            done = subprocess.run(
                [*cmd, str(calls)], capture_output=True, text=True, check=True, env=env
            )
            found = re.search(r"Collected : (\d+)", done.stderr)
            if found is None:
                return None
            counts.append(int(found.group(1)))
    return (counts[1] - counts[0]) / ((CALLS[1] - CALLS[0]) * sentences * length)


def bench_size(
    sentences: int, length: int, repeat: int, callgrind: bool
) -> tuple[dict[str, Any], bool]:
    hyps, refs = make_batch(sentences, length, seed=length)
    rows: list[dict[str, Any]] = []
    results: dict[str, Any] = {}
    for name, func in peers(hyps, refs).items():
        if isinstance(func, str):
            rows.append({"name": name, "skipped": func})
            continue
        func()  # first-call set-up is not timed
        wall, cpu, results[name] = timed(func, repeat)
        rows.append({"name": name, "seconds": wall, "cpu_seconds": cpu})
    theirs = next(r for r in rows if r["name"] == "sacrebleu.sentence_bleu loop")
    for row in rows:
        if "seconds" in row:
            row["vs_sacrebleu"] = theirs["seconds"] / row["seconds"]
            row["vs_sacrebleu_cpu"] = theirs["cpu_seconds"] / row["cpu_seconds"]
    ours = [results[name] for name in results if name.startswith("bleustream")]
    want = [float.hex(x) for x in results["sacrebleu.sentence_bleu loop"]]
    equal = all([float.hex(x) for x in got] == want for got in ours)
    one = rows[0]
    report = {
        "sentences": sentences,
        "tokens": length,
        "rows": rows,
        "equal_to_sacrebleu": equal,
        "aim_ms": one["seconds"] * 1e3 <= AIM_MS if length == 1024 else None,
        "aim_ratio": one["vs_sacrebleu"] >= AIM_RATIO,
        "instructions_per_token": None,
        "sacrebleu_instructions_per_token": None,
    }
    if callgrind:
        ours_per = instructions_per_token("bleustream", sentences, length)
        theirs_per = instructions_per_token("sacrebleu", sentences, length)
        report["instructions_per_token"] = ours_per
        report["sacrebleu_instructions_per_token"] = theirs_per
        if ours_per and theirs_per:
            report["callgrind_vs_sacrebleu"] = theirs_per / ours_per
            report["aim_ratio_callgrind"] = theirs_per / ours_per >= AIM_RATIO
    return report, equal


def format_report(report: dict[str, Any]) -> str:
    head = f"{report['sentences']} sentences x {report['tokens']} tokens, one reference"
    table = [("", "ms", "cpu ms", "vs sacrebleu", "(by cpu)")]
    for row in report["rows"]:
        if "skipped" in row:
            table.append((row["name"], "-", "-", row["skipped"], ""))
            continue
        table.append(
            (
                row["name"],
                f"{row['seconds'] * 1e3:.2f}",
                f"{row['cpu_seconds'] * 1e3:.2f}",
                f"{row['vs_sacrebleu']:.1f}x",
                f"{row['vs_sacrebleu_cpu']:.1f}x",
            )
        )
    lines = [head, render(table)]
    lines.append(f"scores equal to SacreBLEU's, bit for bit: {report['equal_to_sacrebleu']}")
    if report["aim_ms"] is not None:
        lines.append(f"aim: at most {AIM_MS} ms on one core: {report['aim_ms']}")
    lines.append(f"aim: at least {AIM_RATIO:.0f}x SacreBLEU's loop: {report['aim_ratio']}")
    if report["instructions_per_token"] is not None:
        per = report["instructions_per_token"]
        lines.append(f"callgrind: {per:,.0f} instructions per hypothesis token (1 thread)")
    if report["sacrebleu_instructions_per_token"] is not None:
        theirs = report["sacrebleu_instructions_per_token"]
        lines.append(f"callgrind: {theirs:,.0f} instructions per token in SacreBLEU's loop")
    if "callgrind_vs_sacrebleu" in report:
        ratio = report["callgrind_vs_sacrebleu"]
        met = report["aim_ratio_callgrind"]
        lines.append(
            f"aim: at least {AIM_RATIO:.0f}x SacreBLEU's loop by callgrind: {met} ({ratio:.0f}x)"
        )
    return "\n".join(lines)


def flood_ids(kind: str, count: int) -> tuple[Any, Any]:
    """(hypothesis, reference) of ``count`` ids, one sentence each: ``kind``
    "one slot", "one run" (see the module's text) or "random"; the
    hypothesis is the reference shuffled, every seventh id one it lacks."""
    import numpy as np

    rng = np.random.default_rng(count)

    def chosen(numbers: range, shift: int) -> Any:
        return np.array(colliding_ids(numbers, shift), dtype=np.int64)

    if kind == "random":
        ids = rng.integers(-(2**63), 2**63 - 1, count + count // 4, dtype=np.int64)
        present, absent = ids[:count], ids[count:]
    elif kind == "one slot":
        present, absent = chosen(range(count), 0), chosen(range(count, count + count // 4), 0)
    elif kind == "one tuple hash":
        ids = np.array(tuple_colliding_ids(count + count // 4), dtype=np.int64)
        present, absent = ids[:count], ids[count:]
    else:
        present = chosen(range(count), 64 - unigram_bits(count))
        absent = chosen(range(1, count // 4 + 1), 0)
    hyp = present[rng.permutation(count)]
    hyp[::7] = absent[: len(hyp[::7])]
    return hyp[None, :], present[None, :]


def bench_flood(count: int, repeat: int) -> dict[str, Any]:
    """Chosen ids against random ones of the same count, compiled and pure."""
    import sacrebleu

    import bleustream
    from bleustream.kernels import native
    from bleustream.metrics import bleu
    from bleustream.metrics.token_bleu import py_token_rows, settings_of
    from bleustream.metrics.token_ids import id_stream

    def pure(hyp: Any, ref: Any) -> list[float]:
        rows = py_token_rows(id_stream(hyp), [id_stream(ref)], 4, None, 0, 1)
        return [bleu.score(rows[0], settings_of()).score]

    def compiled(hyp: Any, ref: Any) -> Any:
        return bleustream.token_bleu(hyp, [ref])

    paths = {"compiled": compiled, "pure": pure} if native is not None else {"pure": pure}
    report: dict[str, Any] = {"ids": count, "kinds": {}, "equal_to_sacrebleu": True}
    for kind in ("random", "one slot", "one run", "one tuple hash"):
        hyp, ref = flood_ids(kind, count)
        words = [" ".join(map(str, row)) for row in (hyp[0].tolist(), ref[0].tolist())]
        want = float.hex(sacrebleu.sentence_bleu(words[0], [words[1]], tokenize="none").score)
        row = {}
        for path, func in paths.items():
            func(hyp, ref)  # first-call set-up is not timed
            _, row[path], got = timed(functools.partial(func, hyp, ref), repeat)
            report["equal_to_sacrebleu"] &= [float.hex(x) for x in got] == [want]
        report["kinds"][kind] = row
    base = report["kinds"]["random"]
    report["ratios"] = {
        f"{kind}, {path}": seconds / base[path]
        for kind, row in report["kinds"].items()
        if kind != "random"
        for path, seconds in row.items()
    }
    report["aim_flood"] = all(ratio <= AIM_FLOOD for ratio in report["ratios"].values())
    return report


def format_flood(report: dict[str, Any]) -> str:
    table = [("", *(f"{path} cpu ms" for path in report["kinds"]["random"]), "vs random")]
    for kind, row in report["kinds"].items():
        ratios = [report["ratios"].get(f"{kind}, {path}") for path in row]
        shown = "-" if kind == "random" else " / ".join(f"{r:.1f}x" for r in ratios if r)
        table.append((kind, *(f"{seconds * 1e3:.1f}" for seconds in row.values()), shown))
    lines = [f"ids chosen to collide in a hash: {report['ids']:,} ids, one sentence"]
    lines.append(render(table))
    lines.append(f"scores equal to SacreBLEU's, bit for bit: {report['equal_to_sacrebleu']}")
    lines.append(f"aim: chosen ids within {AIM_FLOOD:.0f}x of random ones: {report['aim_flood']}")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Time token-ID BLEU against its peers.")
    parser.add_argument("--sentences", type=int, default=256, metavar="N")
    parser.add_argument("--repeat", type=int, default=5, metavar="K", help="passes (default 5)")
    parser.add_argument(
        "--callgrind", type=int, default=1, metavar="0|1", help="count instructions (default 1)"
    )
    parser.add_argument(
        "--flood", type=int, default=1, metavar="0|1", help="time chosen ids (default 1)"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.sentences < 1:
        parser.error("--repeat and --sentences must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    import bleustream

    load_before = os.getloadavg()
    reports, ok = [], True
    for length in LENGTHS:
        report, equal = bench_size(args.sentences, length, args.repeat, bool(args.callgrind))
        reports.append(report)
        ok &= equal
    floods = [bench_flood(count, args.repeat) for count in FLOOD_COUNTS] if args.flood else []
    ok &= all(flood["equal_to_sacrebleu"] for flood in floods)
    meta = {
        **machine(),
        "kernels": bleustream.KERNELS,
        "load_before": load_before,
        "load_after": os.getloadavg(),
    }
    if args.json:
        print(json.dumps({**meta, "sizes": reports, "floods": floods, "ok": ok}, indent=2))
    else:
        print(f"kernels: {meta['kernels']}, load average before {load_before[0]:.2f}, ", end="")
        print(f"after {meta['load_after'][0]:.2f} ({meta['cpus']} CPUs)")
        for report in reports:
            print()
            print(format_report(report))
        for flood in floods:
            print()
            print(format_flood(flood))
    if not ok:
        print("bench_token_bleu: the numbers differ", file=sys.stderr)
    return EXIT_OK if ok else EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
