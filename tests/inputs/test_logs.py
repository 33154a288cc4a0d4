"""Log input formats: fairseq, Moses/Marian n-best lists, keyed lines.

Each log is written here in its toolkit's exact line format, scored by the
real command in a subprocess, and must give exactly the score of the same
segments given as aligned files: SacreBLEU's score through its API, and
every statistic of bleustream's own lockstep mode.
"""

from __future__ import annotations

import json
import os
import queue
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from sacrebleu.metrics.bleu import BLEU

from bleustream.inputs.lines import LineSource
from bleustream.inputs.pairing import HYP, REF, DoneIds, Event, FilePairing, StreamPairing

COMMAND = [sys.executable, "-m", "bleustream"]

WORDS = [
    *("the", "a", "house", "small", "big", "is", "was", "cat", "dog", "runs", "quickly"),
    *(",", ".", "and", "of", "Grüße", "naïve", "café", "日本語", "の", "猫", "—"),
    *("“quoted”", "✓", "Ελλάδα", "привет", "ﬁne"),
]

# Numbers a test must never copy from a score: they change with the data.
NUMERIC_KEYS = ("score", "precisions", "bp", "ratio", "counts", "totals", "hyp_len", "ref_len")


# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------


def sentence(rng: random.Random, low: int = 1, high: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def corpus(seed: int, size: int, nrefs: int = 1) -> tuple[list[str], list[list[str]]]:
    """Hypotheses and reference streams that overlap enough to score above zero."""
    rng = random.Random(seed)
    refs = [[sentence(rng) for _ in range(size)] for _ in range(nrefs)]
    hyps = []
    for i in range(size):
        words = refs[0][i].split()
        if rng.random() < 0.5:
            words[rng.randrange(len(words))] = rng.choice(WORDS)
        if rng.random() < 0.3:
            words.append(rng.choice(WORDS))
        hyps.append(" ".join(words))
    return hyps, refs


def run(
    *args: str | Path, input: bytes | str = b"", cwd: Path
) -> subprocess.CompletedProcess[bytes]:
    data = input.encode("utf-8") if isinstance(input, str) else input
    return subprocess.run(
        [*COMMAND, *map(str, args)], input=data, capture_output=True, cwd=cwd, timeout=60
    )


def records(proc: subprocess.CompletedProcess[bytes]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]


def write_lines(path: Path, lines: Sequence[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def aligned_corpus(
    tmp_path: Path, hyps: Sequence[str], refs: Sequence[Sequence[str]], *args: str
) -> dict[str, Any]:
    """The corpus record of the same segments as aligned files, in lockstep mode."""
    hyp_file = write_lines(tmp_path / "aligned.hyp", hyps)
    ref_files = [write_lines(tmp_path / f"aligned.ref{k}", r) for k, r in enumerate(refs)]
    proc = run(*ref_files, "-i", hyp_file, "-f", "jsonl", *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return records(proc)[-1]


def assert_same_score(
    tmp_path: Path,
    log_record: dict[str, Any],
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    *args: str,
) -> None:
    """The log's corpus record scores exactly what aligned files of the segments score."""
    assert log_record["type"] == "corpus"
    assert log_record["segments"] == len(hyps)
    oracle = BLEU().corpus_score(list(hyps), [list(r) for r in refs]) if not args else None
    if oracle is not None:
        assert log_record["score"] == oracle.score
        assert log_record["counts"] == oracle.counts
        assert log_record["totals"] == oracle.totals
        assert (log_record["hyp_len"], log_record["ref_len"]) == (oracle.sys_len, oracle.ref_len)
    aligned = aligned_corpus(tmp_path, hyps, refs, *args)
    for key in (*NUMERIC_KEYS, "segments", "signature"):
        assert log_record[key] == aligned[key], key


# ----------------------------------------------------------------------------
# Log writers, in each toolkit's exact line format
# ----------------------------------------------------------------------------

LOG_NOISE = (
    "2024-05-01 10:00:00 | INFO | fairseq.tasks.translation | [de] dictionary: 8848 types",
    "2024-05-01 10:00:01 | INFO | fairseq_cli.generate | loading model(s) from ckpt.pt",
    "2024-05-01 10:00:02 | INFO | fairseq.data.data_utils | loaded 3,003 examples",
    "  0%|          | 0/12 [00:00<?, ?it/s]",
)


def fairseq_block(
    i: int,
    hyp: str,
    ref: str | None,
    rng: random.Random,
    nbest: int = 1,
    alignments: bool = False,
) -> list[str]:
    """One sample of fairseq-generate output: S, T, then H, D, P (A) per n-best entry."""
    lines = [f"S-{i}\t{sentence(rng)}"]
    if ref is not None:
        lines.append(f"T-{i}\t{ref}")
    for k in range(nbest):
        text = hyp if k == 0 else f"{sentence(rng)} {k}"
        score = -rng.random() * (k + 1)
        lines.append(f"H-{i}\t{score!r}\t{tokenized(text)}")
        lines.append(f"D-{i}\t{score!r}\t{text}")
        positional = " ".join(f"{-rng.random():.4f}" for _ in range(len(text.split()) + 1))
        lines.append(f"P-{i}\t{positional}")
        if alignments:
            lines.append(f"A-{i}\t0-0 1-1 2-1")
    return lines


def tokenized(text: str) -> str:
    """What an H- line holds: the text before detokenization (BPE pieces here)."""
    return " ".join(w[:2] + "@@ " + w[2:] if len(w) > 3 else w for w in text.split())


def fairseq_generate_log(
    hyps: Sequence[str],
    refs: Sequence[str] | None,
    order: Sequence[int],
    seed: int = 0,
    nbest: int = 1,
    missing_targets: Sequence[int] = (),
    repeat: Sequence[int] = (),
) -> str:
    """A fairseq-generate log with its samples in ``order``, log noise in between."""
    rng = random.Random(seed)
    lines = list(LOG_NOISE[:3])
    for n, i in enumerate(order):
        ref = None if refs is None or i in missing_targets else refs[i]
        lines += fairseq_block(i, hyps[i], ref, rng, nbest, alignments=n % 3 == 0)
        if n % 4 == 1:
            lines.append(rng.choice(LOG_NOISE))
    for i in repeat:  # the same sample again, later: a duplicate
        ref = None if refs is None else refs[i]
        lines += fairseq_block(i, f"repeated {hyps[i]}", ref, rng, nbest)
    lines.append(
        "2024-05-01 10:00:09 | INFO | fairseq_cli.generate | Translated 3,003 sentences "
        "(83,119 tokens) in 21.2s (141.46 sentences/s, 3917.31 tokens/s)"
    )
    lines.append(
        "2024-05-01 10:00:09 | INFO | fairseq_cli.generate | Generate test with beam=5: "
        "BLEU4 = 27.03, 58.9/33.0/20.9/13.7 (BP=1.000, ratio=1.014, syslen=64567, reflen=63678)"
    )
    return "".join(f"{line}\n" for line in lines)


def fairseq_interactive_log(hyps: Sequence[str], seed: int = 0) -> str:
    """fairseq-interactive output: no T- lines; ids are input line numbers."""
    rng = random.Random(seed)
    lines = ["2024-05-01 10:00:00 | INFO | fairseq_cli.interactive | Type the input sentence"]
    for i, hyp in enumerate(hyps):
        lines.append(f"S-{i}\t{sentence(rng)}")
        lines.append(f"W-{i}\t0.{rng.randrange(1000):03d}\tseconds")
        lines.append(f"H-{i}\t{-rng.random()!r}\t{tokenized(hyp)}")
        lines.append(f"D-{i}\t{-rng.random()!r}\t{hyp}")
        lines.append(f"P-{i}\t-0.1000 -0.2000")
    lines.append("2024-05-01 10:00:05 | INFO | fairseq_cli.interactive | Total time: 5.1 seconds")
    return "".join(f"{line}\n" for line in lines)


def moses_nbest(hyps: Sequence[str], order: Sequence[int], n: int, seed: int = 0) -> str:
    """Moses n-best lines: ``0 ||| text  ||| features ||| score`` (text then a space)."""
    rng = random.Random(seed)
    lines = []
    for i in order:
        for k in range(n):
            text = hyps[i] if k == 0 else sentence(rng)
            feats = f"Distortion0= {-k} LM0= {-rng.random() * 40:.4f} WordPenalty0= -4"
            lines.append(f"{i} ||| {text}  ||| {feats} ||| {-rng.random() - k:.5f}")
    return "".join(f"{line}\n" for line in lines)


def marian_nbest(hyps: Sequence[str], order: Sequence[int], n: int, seed: int = 0) -> str:
    """Marian n-best lines: ``0 ||| text ||| F0= -1.2 ||| -1.2``."""
    rng = random.Random(seed)
    lines = []
    for i in order:
        for k in range(n):
            text = hyps[i] if k == 0 else sentence(rng)
            score = -rng.random() - k
            lines.append(f"{i} ||| {text} ||| F0= {score:.5f} ||| {score:.5f}")
    return "".join(f"{line}\n" for line in lines)


def length_sorted(hyps: Sequence[str], seed: int = 0) -> list[int]:
    """Ids in the order fairseq-generate prints them: by length, ties shuffled."""
    rng = random.Random(seed)
    return sorted(range(len(hyps)), key=lambda i: (len(hyps[i].split()), rng.random()))


# ----------------------------------------------------------------------------
# fairseq
# ----------------------------------------------------------------------------


def test_fairseq_generate_out_of_order_with_nbest_and_noise(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=1, size=60)
    log = fairseq_generate_log(hyps, refs, length_sorted(hyps), seed=1, nbest=3)
    proc = run("--input-format", "fairseq", "-f", "jsonl", input=log, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    (corpus_record,) = records(proc)
    assert corpus_record["unpaired"] == 0
    assert_same_score(tmp_path, corpus_record, hyps, [refs])


def test_fairseq_h_lines(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=2, size=40)
    log = fairseq_generate_log(hyps, refs, length_sorted(hyps, 2), seed=2, nbest=2)
    proc = run(
        "--input-format", "fairseq", "--fairseq-hyp", "H", "-f", "jsonl", input=log, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert_same_score(tmp_path, records(proc)[-1], [tokenized(h) for h in hyps], [refs])


def test_fairseq_reference_files_replace_t_lines(tmp_path: Path) -> None:
    """With REF operands, line N of the files is the reference of id N; T- lines are ignored."""
    hyps, refs = corpus(seed=3, size=50, nrefs=2)
    log = fairseq_generate_log(hyps, [f"tokenized {r}" for r in refs[0]], length_sorted(hyps, 3))
    ref_files = [write_lines(tmp_path / f"ref{k}", r) for k, r in enumerate(refs)]
    proc = run(*ref_files, "--input-format", "fairseq", "-f", "jsonl", input=log, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_same_score(tmp_path, records(proc)[-1], hyps, refs)


def test_fairseq_interactive_with_reference_file(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=4, size=30)
    ref_file = write_lines(tmp_path / "ref", refs)
    log = fairseq_interactive_log(hyps, seed=4)
    proc = run(ref_file, "--input-format", "fairseq", "-f", "jsonl", input=log, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_same_score(tmp_path, records(proc)[-1], hyps, [refs])


def test_fairseq_missing_target_is_reported_and_scored_without(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=5, size=40)
    log = fairseq_generate_log(hyps, refs, length_sorted(hyps, 5), missing_targets=[17])
    proc = run("--input-format", "fairseq", "-f", "jsonl", input=log, cwd=tmp_path)
    assert proc.returncode == 65
    assert proc.stderr.decode() == (
        "bleustream: <stdin>: 1 hypothesis without a reference: id 17\n"
    )
    record = records(proc)[-1]
    assert record["unpaired"] == 1
    kept = [i for i in range(40) if i != 17]
    assert_same_score(tmp_path, record, [hyps[i] for i in kept], [[refs[i] for i in kept]])
    allowed = run(
        "--input-format", "fairseq", "-f", "jsonl", "--allow-unpaired", input=log, cwd=tmp_path
    )
    assert allowed.returncode == 0
    assert allowed.stderr == proc.stderr  # still reported
    assert records(allowed) == records(proc)


def test_fairseq_text_record_says_how_many_segments_it_covers(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=6, size=20)
    log = fairseq_generate_log(hyps, refs, range(20), missing_targets=[3, 4])
    proc = run("--input-format", "fairseq", input=log, cwd=tmp_path)
    assert proc.returncode == 65
    assert proc.stdout.decode().rstrip().endswith("[covers 18 segments; 2 unpaired]")
    clean = run(
        "--input-format", "fairseq", input=fairseq_generate_log(hyps, refs, range(20)), cwd=tmp_path
    )
    assert "covers" not in clean.stdout.decode()
    tsv = run("--input-format", "fairseq", "-f", "tsv", input=log, cwd=tmp_path)
    header, row = tsv.stdout.decode().splitlines()
    assert dict(zip(header.split("\t"), row.split("\t")))["unpaired"] == "2"


def test_fairseq_repeated_id_is_a_duplicate_and_the_first_is_kept(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=7, size=30)
    log = fairseq_generate_log(hyps, refs, length_sorted(hyps, 7), nbest=2, repeat=[9])
    proc = run("--input-format", "fairseq", "-f", "jsonl", input=log, cwd=tmp_path)
    assert proc.returncode == 65
    err = proc.stderr.decode()
    assert "bleustream: <stdin>: 1 duplicate hypothesis (the first was kept): id 9\n" in err
    assert "bleustream: <stdin>: 1 duplicate reference (the first was kept): id 9\n" in err
    record = records(proc)[-1]
    assert record["unpaired"] == 2
    assert_same_score(tmp_path, record, hyps, [refs])


def test_fairseq_unicode_and_empty_hypotheses(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=8, size=12)
    hyps[2] = ""
    hyps[5] = "日本語 の 猫 ✓"
    refs[5] = "日本語の猫 ✓"
    log = fairseq_generate_log(hyps, refs, length_sorted(hyps, 8))
    # An empty hypothesis is "D-2<TAB>score<TAB>"; with the trailing tab stripped it still reads.
    assert "\nD-2\t" in log and "\t\nP-2" in log
    stripped = "\n".join(line.rstrip() for line in log.split("\n"))
    for text in (log, stripped):
        proc = run("--input-format", "fairseq", "-f", "jsonl", input=text, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert_same_score(tmp_path, records(proc)[-1], hyps, [refs])


def test_fairseq_segment_records_carry_ids(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=9, size=25)
    order = length_sorted(hyps, 9)
    log = fairseq_generate_log(hyps, refs, order, nbest=2)
    proc = run("--input-format", "fairseq", "-sl", "-f", "jsonl", input=log, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    segments = [r for r in records(proc) if r["type"] == "segment"]
    assert [r["id"] for r in segments] == [str(i) for i in order]
    # Each segment scores as the same line of aligned files does.
    hyp_file = write_lines(tmp_path / "h", hyps)
    ref_file = write_lines(tmp_path / "r", refs)
    lockstep = run(ref_file, "-i", hyp_file, "-sl", "-f", "jsonl", cwd=tmp_path)
    by_line = {r["line"]: r for r in records(lockstep) if r["type"] == "segment"}
    for record in segments:
        expected = by_line[int(record["id"]) + 1]
        for key in (*NUMERIC_KEYS, "segments"):
            assert record[key] == expected[key]
    text = run("--input-format", "fairseq", "-sl", input=log, cwd=tmp_path).stdout.decode()
    assert text.splitlines()[0].split()[:2] == ["segment", str(order[0])]


def test_fairseq_every_gives_running_records(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=10, size=20)
    log = fairseq_generate_log(hyps, refs, length_sorted(hyps, 10))
    proc = run("--input-format", "fairseq", "--every", "5", "-f", "jsonl", input=log, cwd=tmp_path)
    assert [r["type"] for r in records(proc)] == ["running"] * 4 + ["corpus"]
    assert [r["segments"] for r in records(proc)] == [5, 10, 15, 20, 20]


def test_fairseq_bad_line_is_an_error_or_skipped_with_its_partner(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=11, size=20)
    log = fairseq_generate_log(hyps, refs, range(20))
    # D-7 without its score field:
    lines = log.splitlines()
    d7 = next(n for n, line in enumerate(lines) if line.startswith("D-7\t"))
    lines[d7] = "D-7\t" + lines[d7].split("\t", 2)[2]
    broken = "\n".join(lines) + "\n"
    proc = run("--input-format", "fairseq", input=broken, cwd=tmp_path)
    assert proc.returncode == 65
    assert proc.stderr.decode().startswith(f"bleustream: <stdin>:{d7 + 1}: expected D-<id>")
    assert proc.stdout == b""
    skipped = run(
        "--input-format", "fairseq", "--skip-bad-lines", "-f", "jsonl", input=broken, cwd=tmp_path
    )
    assert skipped.returncode == 0, skipped.stderr  # T-7 goes with the bad D-7
    kept = [i for i in range(20) if i != 7]
    record = records(skipped)[-1]
    assert record["skipped"] == 1
    assert_same_score(tmp_path, record, [hyps[i] for i in kept], [[refs[i] for i in kept]])
    # A non-integer id:
    lines[d7] = "D-x7\t-0.5\tsome text"
    proc = run("--input-format", "fairseq", input="\n".join(lines) + "\n", cwd=tmp_path)
    assert proc.returncode == 65
    assert "'x7' is not a whole number" in proc.stderr.decode()


def test_fairseq_hints_when_nothing_pairs(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=12, size=5)
    only_h = "".join(
        line + "\n"
        for line in fairseq_generate_log(hyps, refs, range(5)).splitlines()
        if not line.startswith("D-")
    )
    proc = run("--input-format", "fairseq", input=only_h, cwd=tmp_path)
    assert proc.returncode == 65
    assert "score those with --fairseq-hyp H" in proc.stderr.decode()
    proc = run("--input-format", "fairseq", input=fairseq_interactive_log(hyps), cwd=tmp_path)
    assert proc.returncode == 65
    err = proc.stderr.decode()
    assert "5 hypotheses without a reference: ids 0, 1, 2, 3, 4\n" in err
    assert "give the reference files as operands" in err


def test_long_id_lists_are_cut_short(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=13, size=30)
    log = fairseq_generate_log(hyps, refs, range(30)[::-1], missing_targets=range(5, 20))
    proc = run("--input-format", "fairseq", input=log, cwd=tmp_path)
    assert proc.stderr.decode() == (
        "bleustream: <stdin>: 15 hypotheses without a reference: "
        "ids 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, …\n"
    )


# ----------------------------------------------------------------------------
# n-best lists
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("writer", [moses_nbest, marian_nbest])
def test_nbest_lists(tmp_path: Path, writer: Any) -> None:
    hyps, refs = corpus(seed=20, size=40, nrefs=2)
    hyps[3] = ""
    order = list(range(40))
    random.Random(20).shuffle(order)
    ref_files = [write_lines(tmp_path / f"ref{k}", r) for k, r in enumerate(refs)]
    log = writer(hyps, order, n=4)
    proc = run(*ref_files, "--input-format", "nbest", "-f", "jsonl", input=log, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_same_score(tmp_path, records(proc)[-1], hyps, refs)


def test_nbest_without_features(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=21, size=20)
    ref_file = write_lines(tmp_path / "ref", refs)
    log = "".join(f"{i} ||| {hyp}\n" for i, hyp in enumerate(hyps))
    proc = run(ref_file, "--input-format", "nbest", "-f", "jsonl", input=log, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_same_score(tmp_path, records(proc)[-1], hyps, [refs])


def test_nbest_ids_outside_and_references_without_hypotheses(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=22, size=20)
    ref_file = write_lines(tmp_path / "ref", refs)
    ids = [i for i in range(20) if i not in (4, 18, 19)]
    log = marian_nbest(hyps, ids, n=2) + marian_nbest(["x"] * 26, [25], n=1)
    log += marian_nbest(hyps, [6], n=1)  # a repeated id, after others
    proc = run(ref_file, "--input-format", "nbest", "-f", "jsonl", input=log, cwd=tmp_path)
    assert proc.returncode == 65
    name = str(ref_file)
    assert proc.stderr.decode().splitlines() == [
        f"bleustream: {name}: 3 references without a hypothesis: ids 4, 18, 19",
        "bleustream: <stdin>: 1 duplicate hypothesis (the first was kept): id 6",
        "bleustream: <stdin>: 1 hypothesis with an id beyond the reference files (20 lines): id 25",
    ]
    record = records(proc)[-1]
    assert record["unpaired"] == 5
    assert_same_score(tmp_path, record, [hyps[i] for i in ids], [[refs[i] for i in ids]])


def test_nbest_bad_lines(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=23, size=10)
    ref_file = write_lines(tmp_path / "ref", refs)
    lines = marian_nbest(hyps, range(10), n=1).splitlines()
    lines[4] = "four ||| text"
    lines.insert(6, "a line without the separator")
    proc = run(ref_file, "--input-format", "nbest", input="\n".join(lines) + "\n", cwd=tmp_path)
    assert proc.returncode == 65
    assert proc.stderr.decode() == (
        "bleustream: <stdin>:5: n-best entry: the id 'four' is not a whole number\n"
    )
    proc = run(
        ref_file,
        "--input-format",
        "nbest",
        "--skip-bad-lines",
        "-f",
        "jsonl",
        input="\n".join(lines) + "\n",
        cwd=tmp_path,
    )
    err = proc.stderr.decode().splitlines()
    assert err[:2] == [
        "bleustream: <stdin>:5: n-best entry: the id 'four' is not a whole number (line skipped)",
        "bleustream: <stdin>:7: expected id ||| hypothesis [||| features ||| score], "
        "found no ||| (line skipped)",
    ]
    # The id of line 5 is unknown, so reference 4 has no hypothesis.
    assert err[-1] == f"bleustream: {ref_file}: 1 reference without a hypothesis: id 4"
    assert proc.returncode == 65
    kept = [i for i in range(10) if i != 4]
    assert_same_score(
        tmp_path, records(proc)[-1], [hyps[i] for i in kept], [[refs[i] for i in kept]]
    )


# ----------------------------------------------------------------------------
# keyed lines
# ----------------------------------------------------------------------------


def test_keyed_with_reference_files(tmp_path: Path) -> None:
    hyps, refs = corpus(seed=30, size=40, nrefs=3)
    order = list(range(40))
    random.Random(30).shuffle(order)
    ref_files = [write_lines(tmp_path / f"ref{k}", r) for k, r in enumerate(refs)]
    log = "".join(f"{i}\t{hyps[i]}\n" for i in order)
    proc = run(*ref_files, "--input-format", "keyed", "-sl", "-f", "jsonl", input=log, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = records(proc)
    assert [r["id"] for r in out[:-1]] == [str(i) for i in order]
    assert_same_score(tmp_path, out[-1], hyps, refs)


def test_keyed_with_keyed_references(tmp_path: Path) -> None:
    hyps, refs = corpus(seed=31, size=40, nrefs=2)
    keys = [f"doc{i // 10}.s{i % 10}" for i in range(40)]
    rng = random.Random(31)
    hyp_order, ref_order = list(range(40)), list(range(40))
    rng.shuffle(hyp_order)
    rng.shuffle(ref_order)
    keyed_refs = write_lines(
        tmp_path / "refs.tsv", [f"{keys[i]}\t{refs[0][i]}\t{refs[1][i]}" for i in ref_order]
    )
    log = "".join(f"{keys[i]}\t{hyps[i]}\n" for i in hyp_order)
    proc = run(
        "--input-format",
        "keyed",
        "--keyed-refs",
        keyed_refs,
        "-sl",
        "-f",
        "jsonl",
        input=log,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    out = records(proc)
    assert sorted(r["id"] for r in out[:-1]) == sorted(keys)
    assert_same_score(tmp_path, out[-1], hyps, refs)


def test_keyed_references_without_hypotheses_and_duplicates(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=32, size=10)
    keyed_refs = write_lines(tmp_path / "refs.tsv", [f"k{i}\t{r}" for i, r in enumerate(refs)])
    log = "".join(f"k{i}\t{hyps[i]}\n" for i in range(10) if i != 2)
    log += f"k5\tagain\nextra\t{hyps[0]}\n"
    proc = run(
        "--input-format",
        "keyed",
        "--keyed-refs",
        keyed_refs,
        "-f",
        "jsonl",
        input=log,
        cwd=tmp_path,
    )
    assert proc.returncode == 65
    assert proc.stderr.decode().splitlines() == [
        "bleustream: <stdin>: 1 hypothesis without a reference: id extra",
        f"bleustream: {keyed_refs}: 1 reference without a hypothesis: id k2",
        "bleustream: <stdin>: 1 duplicate hypothesis (the first was kept): id k5",
    ]
    kept = [i for i in range(10) if i != 2]
    assert_same_score(
        tmp_path, records(proc)[-1], [hyps[i] for i in kept], [[refs[i] for i in kept]]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--input-format", "nbest"], "needs reference files"),
        (["--input-format", "keyed"], "needs references"),
        (["--input-format", "keyed", "--keyed-refs", "k", "ref"], "not both"),
        (["--keyed-refs", "k"], "--keyed-refs needs --input-format keyed"),
        (["--input-format", "fairseq", "--keyed-refs", "k"], "needs --input-format keyed"),
        (["--input-format", "keyed", "--keyed-refs", "-"], "stdin cannot be both"),
        (["--input-format", "xml"], "invalid choice"),
    ],
)
def test_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    proc = run(*args, input="0\tx\n", cwd=tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr.decode()
    assert proc.stdout == b""


# ----------------------------------------------------------------------------
# Live: records before the log ends
# ----------------------------------------------------------------------------


def test_slow_fairseq_log_gives_running_records_before_it_ends(tmp_path: Path) -> None:
    hyps, (refs,) = corpus(seed=40, size=6)
    rng = random.Random(40)
    order = [3, 0, 5, 1, 4, 2]
    proc = subprocess.Popen(
        [*COMMAND, "--input-format", "fairseq", "--every", "1", "-f", "jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[bytes | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    try:
        proc.stdin.write((LOG_NOISE[0] + "\n").encode())
        for n, i in enumerate(order):
            block = fairseq_block(i, hyps[i], refs[i], rng, nbest=2)
            proc.stdin.write("".join(f"{line}\n" for line in block).encode())
            proc.stdin.flush()
            line = lines.get(timeout=20)
            assert line is not None
            record = json.loads(line)
            assert record["type"] == "running"
            assert record["segments"] == n + 1
            assert lines.empty()  # one record per segment, nothing ahead of the input
            time.sleep(0.02)
        proc.stdin.close()
        last = lines.get(timeout=20)
        assert last is not None
        final = json.loads(last)
        assert lines.get(timeout=20) is None
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        assert proc.stderr is not None
        proc.stderr.close()
    assert_same_score(tmp_path, final, hyps, [refs])


# ----------------------------------------------------------------------------
# Memory
# ----------------------------------------------------------------------------


def _peak_rss_kib(segments: int) -> tuple[int, dict[str, Any]]:
    """Peak RSS of bleustream scoring an in-order fairseq log made on the fly."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [*COMMAND, "--input-format", "fairseq", "-f", "jsonl"],
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=err,
        )
        assert proc.stdin is not None
        try:
            chunk: list[str] = []
            for i in range(segments):
                chunk.append(
                    f"S-{i}\tq w e\nT-{i}\ta b c {i % 7}\nH-{i}\t-0.5\ta b\n"
                    f"D-{i}\t-0.5\ta b c\nP-{i}\t-0.1 -0.2 -0.3\n"
                )
                if len(chunk) == 2000:
                    proc.stdin.write("".join(chunk).encode())
                    chunk.clear()
            proc.stdin.write("".join(chunk).encode())
            proc.stdin.close()
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        finally:
            if proc.returncode is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 0, err.seek(0) or err.read()
        out.seek(0)
        record = json.loads(out.read())
    return usage.ru_maxrss, record


@pytest.mark.skipif(not hasattr(os, "wait4"), reason="needs os.wait4")
@pytest.mark.slow
def test_memory_stays_flat_for_in_order_blocks() -> None:
    small, small_record = _peak_rss_kib(20_000)
    large, large_record = _peak_rss_kib(200_000)
    assert small_record["segments"] == 20_000
    assert large_record["segments"] == 200_000
    # Ten times the log, not ten times the memory: at most 10% and 2 MiB more.
    assert large < small * 1.1 + 2048, (small, large)


# ----------------------------------------------------------------------------
# The pairing module, in process
# ----------------------------------------------------------------------------


def test_done_ids_agree_with_a_set_and_stay_small_in_order() -> None:
    done = DoneIds()
    for i in range(100_000):
        assert i not in done
        done.add(i)
        assert i in done
    assert done.low >= 99_992 and done.memory() <= 1
    rng = random.Random(50)
    ids = [*range(5_000), 10**12, 7 * 10**9]
    rng.shuffle(ids)
    done, seen = DoneIds(), set()
    for n, key in enumerate(ids):
        done.add(key)
        seen.add(key)
        if n % 97 == 0:
            probes = [rng.randrange(6_000) for _ in range(50)] + [10**12, 7 * 10**9, 10**12 + 1]
            assert [p in done for p in probes] == [p in seen for p in probes]
    assert done.low == 5_000 and done.memory() == 2  # the two far ids
    done.add("doc1")
    assert "doc1" in done and "doc2" not in done and "5000" not in done


def hyp_event(i: int) -> Event:
    return Event(HYP, i, str(i), f"h{i}", None, i + 1)


def ref_event(i: int) -> Event:
    return Event(REF, i, str(i), None, [f"r{i}"], i + 1)


def test_file_pairing_reads_forward_only_as_far_as_needed(tmp_path: Path) -> None:
    ref_path = write_lines(tmp_path / "ref", [f"r{i}" for i in range(1000)])
    with open(ref_path, "rb") as stream:
        pairing = FilePairing("<log>", [LineSource(str(ref_path), stream)])
        # Ids 0-99 in blocks of ten, each block backwards: a line is kept until asked for.
        for start in range(0, 100, 10):
            for i in range(start + 9, start - 1, -1):
                segment = pairing.add(hyp_event(i))
                assert segment is not None and segment.refs == [f"r{i}"]
                assert pairing.read == start + 10  # not a line more
                assert pairing.waiting() == i - start
        # Then every other id: the lines skipped stay, as references still unpaired.
        for i in range(100, 1000, 2):
            assert pairing.add(hyp_event(i)) is not None
            assert pairing.read == i + 1
            assert pairing.waiting() == (i - 100) // 2
        report = pairing.finish()
    assert report.left_out == 450
    assert report.messages() == [
        f"{ref_path}: 450 references without a hypothesis: "
        "ids 101, 103, 105, 107, 109, 111, 113, 115, 117, 119, …"
    ]


def test_stream_pairing_holds_only_the_ids_waiting() -> None:
    pairing = StreamPairing("<log>", "<refs>")
    for i in range(3):
        assert pairing.add(ref_event(i)) is None
    most = 0
    for i in range(10_000):
        # References run three ids ahead of their hypotheses.
        if i + 3 < 10_000:
            assert pairing.add(ref_event(i + 3)) is None
        segment = pairing.add(hyp_event(i))
        assert segment is not None and (segment.id, segment.refs) == (str(i), [f"r{i}"])
        most = max(most, pairing.waiting())
    assert most == 3
    assert pairing.done.memory() <= 1
    assert pairing.finish().left_out == 0
