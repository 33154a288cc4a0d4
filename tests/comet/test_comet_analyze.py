"""``--analyze`` with ``-m comet`` beside BLEU, through the command: COMET
in the scores table and in every sentence bucket, the model run a window
at a time in the main process (also with ``-j 2``), shards of the analysis
merged back, and a run without sources refused in one line.

The model is the test double (``fake_comet``): each expected COMET number
is the mean of its scores over the bucket's segments, computed here, with
the buckets decided here by SacreBLEU's own 13a tokenizer."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from bleustream.errors import EXIT_DATAERR, EXIT_OK, EXIT_USAGE
from tests.comet.fake_comet import fake_score, make_checkpoint
from tests.comet.runs import LINES, Set, err_lines
from tests.helpers.paths import ROOT


@pytest.fixture
def ted(tmp_path: Path) -> Set:
    return Set(tmp_path)


def analysis(ted: Set, *args: Any) -> dict[str, Any]:
    proc = ted.run(ted.ref, "-i", ted.hyp, ted.hyp2, "-m", "bleu", "comet", "--analyze", *args)
    assert proc.returncode == EXIT_OK, proc.stderr
    assert proc.stderr == b""
    return json.loads(proc.stdout)


def mean(values: list[float]) -> float:
    total = 0.0
    for value in values:  # in input order, as the run adds them
        total += value
    return total / len(values)


def test_comet_is_in_the_scores_and_in_every_length_bucket(ted: Set) -> None:
    doc = analysis(ted, "-f", "json", "--analyze-n", "0")
    src, ref = ted.lines(ted.src), ted.lines(ted.ref)
    systems = {name: ted.lines(path) for name, path in (("hyp", ted.hyp), ("hyp2", ted.hyp2))}
    scores = {
        name: [fake_score(s, h, r) for s, h, r in zip(src, hyps, ref)]
        for name, hyps in systems.items()
    }
    for entry in doc["scores"]:
        assert entry["metrics"]["COMET"]["score"] == mean(scores[entry["system"]])
    assert ted.forward_passes(), "the model ran"

    (by_length,) = [b for b in doc["sentence_buckets"] if b["by"] == "length"]
    edges = by_length["edges"]
    lengths = [len(Tokenizer13a()(line).split()) for line in ref]
    bucket_of = [sum(length >= edge for edge in edges) for length in lengths]
    seen = 0
    for index, bucket in enumerate(by_length["buckets"]):
        members = [i for i, b in enumerate(bucket_of) if b == index]
        assert bucket["segments"] == len(members)
        seen += len(members)
        for entry in bucket["systems"]:
            comet = entry["metrics"]["COMET"]
            if not members:
                assert comet["score"] is None
                continue
            assert comet["score"] == mean([scores[entry["system"]][i] for i in members])
    assert seen == LINES


def test_the_model_runs_in_the_main_process_and_two_workers_change_nothing(ted: Set) -> None:
    one = analysis(ted, "-f", "json")
    passes_one = ted.forward_passes()
    two = analysis(ted, "-f", "json", "-j", "2")
    assert ted.forward_passes() == passes_one  # the same windows, run once each
    # One window (16 x 8 segments): each distinct text scored once in it.
    src, ref = ted.lines(ted.src), ted.lines(ted.ref)
    texts = {
        (s, h, r) for path in (ted.hyp, ted.hyp2) for s, h, r in zip(src, ted.lines(path), ref)
    }
    assert sum(passes_one) == len(texts)
    assert two == one


def test_shards_of_an_analysis_merge_to_the_whole(ted: Set) -> None:
    whole = analysis(ted, "-f", "json", "--analyze-n", "0")
    shards = []
    for index, (first, last) in enumerate(((0, 70), (70, LINES))):
        part = {}
        for name, path in (
            ("src", ted.src),
            ("hyp", ted.hyp),
            ("hyp2", ted.hyp2),
            ("ref", ted.ref),
        ):
            part[name] = ted.root / f"{name}.{index}"
            part[name].write_text("\n".join(ted.lines(path)[first:last]) + "\n", encoding="utf-8")
        proc = ted.run(
            part["ref"],
            "-i",
            part["hyp"],
            part["hyp2"],
            "--src",
            part["src"],
            "-m",
            "bleu",
            "comet",
            "--analyze",
            "--analyze-n",
            "0",
            "-f",
            "stats",
        )
        assert proc.returncode == EXIT_OK, proc.stderr
        shards.append(ted.root / f"shard.{index}")
        shards[-1].write_bytes(proc.stdout)
    merged = ted.run(
        "--input-format", "stats", "--analyze", "--analyze-n", "0", "-f", "json", "-i", *shards
    )
    assert merged.returncode == EXIT_OK, merged.stderr
    doc = json.loads(merged.stdout)
    # Float sums added shard by shard round as their own sum: to 1e-12.
    for got, want in zip(doc["scores"], whole["scores"]):
        assert got["metrics"]["BLEU"] == want["metrics"]["BLEU"]
        assert got["metrics"]["COMET"]["score"] == pytest.approx(
            want["metrics"]["COMET"]["score"], rel=1e-12
        )
    assert (
        doc["sentence_buckets"][0]["buckets"][0]["segments"]
        == (whole["sentence_buckets"][0]["buckets"][0]["segments"])
    )


def test_an_analysis_with_comet_and_no_sources_is_one_usage_line(ted: Set) -> None:
    argv = ted.argv(ted.ref, "-i", ted.hyp, "-m", "bleu", "comet", "--analyze")
    at = argv.index("--src")
    del argv[at : at + 2]
    proc = subprocess.run(argv, capture_output=True, cwd=ROOT, timeout=120)
    assert proc.returncode == EXIT_USAGE
    (line,) = err_lines(proc)
    assert line == "bleustream: -m comet scores each segment with its source: give --src FILE"


def test_a_skipped_bad_line_skips_its_source_too(ted: Set) -> None:
    """With --skip-bad-lines, the sources stay paired with the input by line
    number: COMET is the mean over the lines kept, each with its own source."""
    lines = ted.hyp.read_bytes().split(b"\n")
    lines[4] = b"\xff" + lines[4]
    ted.hyp.write_bytes(b"\n".join(lines))
    proc = ted.run(
        ted.ref, "-i", ted.hyp, "-m", "bleu", "comet", "--analyze", "--skip-bad-lines", "-f", "json"
    )
    assert proc.returncode == EXIT_OK, proc.stderr
    (line,) = err_lines(proc)
    assert ":5:" in line and "skipped" in line
    src, ref = ted.lines(ted.src), ted.lines(ted.ref)
    hyps = ted.hyp.read_bytes().decode("utf-8", "replace").splitlines()
    kept = [fake_score(s, h, r) for i, (s, h, r) in enumerate(zip(src, hyps, ref)) if i != 4]
    (entry,) = json.loads(proc.stdout)["scores"]
    assert json.loads(proc.stdout)["segments"] == LINES - 1
    assert entry["metrics"]["COMET"]["score"] == mean(kept)


def test_analysis_shards_of_different_models_refuse_to_merge(ted: Set) -> None:
    other = make_checkpoint(ted.root / "other", max_length=256)
    shards = []
    for index, model in enumerate((ted.model, other)):
        proc = ted.run(
            ted.ref, "-i", ted.hyp, "-m", "bleu", "comet", "--analyze", "-f", "stats", model=model
        )
        assert proc.returncode == EXIT_OK, proc.stderr
        shards.append(ted.root / f"shard.{index}")
        shards[-1].write_bytes(proc.stdout)
    proc = ted.run("--input-format", "stats", "--analyze", "-f", "json", "-i", *shards)
    assert proc.returncode == EXIT_DATAERR
    (line,) = err_lines(proc)
    assert line.startswith(f"bleustream: {shards[1]}:1: ") and "other metrics or settings" in line
