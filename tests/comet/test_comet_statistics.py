"""COMET's statistics through the command: -ci, the paired bootstrap and
approximate randomization equal SacreBLEU's own resampling code applied,
here, to the same segment scores; shards and -j 2 give one run's numbers;
records of different models refuse to merge."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sacrebleu.metrics.base import Metric, Score, Signature
from sacrebleu.significance import PairedTest, _bootstrap_resample, estimate_ci

from bleustream.errors import EXIT_DATAERR, EXIT_OK
from tests.comet.fake_comet import fake_score, make_checkpoint
from tests.comet.runs import Set, err_lines
from tests.helpers.clirun import json_records


class SegmentMean(Metric):
    """A metric for SacreBLEU's resampling: a segment's statistics are
    ``[score, 1]``, the score of summed statistics their mean (COMET's
    system score).  A hypothesis is its segment's score, as text."""

    def __init__(self) -> None:
        super().__init__()

    def _extract_corpus_statistics(self, hypotheses: Sequence[str], references: Any) -> list:
        return [[float(h), 1] for h in hypotheses]

    def _compute_score_from_stats(self, stats: Sequence[Any]) -> Score:
        return Score("COMET", stats[0] / stats[1])

    def _aggregate_and_compute(self, stats: Sequence[Sequence[Any]]) -> Score:
        total = [0, 0]
        for row in stats:
            total = [total[0] + row[0], total[1] + row[1]]
        return self._compute_score_from_stats(total)

    def _preprocess_segment(self, sent: str) -> str:
        return sent

    def _extract_reference_info(self, refs: Sequence[str]) -> dict:
        return {}

    def _compute_segment_statistics(self, hypothesis: str, ref_kwargs: dict) -> list:
        return [float(hypothesis), 1]

    def get_signature(self) -> Signature:
        return Signature({"num_refs": 1})


@pytest.fixture
def ted(tmp_path: Path) -> Set:
    """A slice of a real set, with its sources and a model."""
    return Set(tmp_path)


def scores_of(ted: Set, hyp) -> list[float]:
    return [
        fake_score(s, h, r)
        for s, h, r in zip(ted.lines(ted.src), ted.lines(hyp), ted.lines(ted.ref))
    ]


def comet_results(proc) -> list[dict]:
    assert proc.returncode == EXIT_OK, proc.stderr
    return [
        r for r in json_records(proc.stdout) if r["metric"] == "COMET" and r["type"] == "corpus"
    ]


def test_confidence_interval_is_sacrebleus_bootstrap_of_the_segment_scores(ted: Set) -> None:
    (record,) = comet_results(
        ted.run(ted.ref, "-i", ted.hyp, "-m", "bleu", "comet", "-ci", "-f", "jsonl")
    )
    scores = scores_of(ted, ted.hyp)
    os.environ.pop("SACREBLEU_SEED", None)
    _, resampled = _bootstrap_resample([[s, 1] for s in scores], SegmentMean(), 1000)
    mean, ci = estimate_ci(np.array([x.score for x in resampled]))
    assert record["mean"] == float(mean)
    assert record["ci"] == float(ci)


def _paired(ted: Set, kind: str) -> None:
    flag = {"bs": "--paired-bs", "ar": "--paired-ar"}[kind]
    proc = ted.run(ted.ref, "-i", ted.hyp, ted.hyp2, "-m", "bleu", "comet", flag, "-f", "jsonl")
    base, other = comet_results(proc)
    named = [
        ("base", [repr(s) for s in scores_of(ted, ted.hyp)]),
        ("other", [repr(s) for s in scores_of(ted, ted.hyp2)]),
    ]
    os.environ.pop("SACREBLEU_SEED", None)
    test = PairedTest(named, {"COMET": SegmentMean()}, None, kind, 0, -1)
    _, results = test()
    expected_base, expected_other = results["COMET"]
    assert other["p_value"] == float(expected_other.p_value)
    assert (base["score"], other["score"]) == (expected_base.score, expected_other.score)
    if kind == "bs":  # the bootstrap's means and intervals
        assert other["mean"] == float(expected_other.mean)
        assert other["ci"] == float(expected_other.ci)
        assert base["mean"] == float(expected_base.mean)


def test_paired_bootstrap_is_sacrebleus_on_the_segment_scores(ted: Set) -> None:
    _paired(ted, "bs")


def test_paired_approximate_randomization_is_sacrebleus_on_the_segment_scores(ted: Set) -> None:
    _paired(ted, "ar")


def test_shards_and_two_workers_give_one_runs_numbers(ted: Set) -> None:
    whole = comet_results(ted.run(ted.ref, "-i", ted.hyp, "-m", "bleu", "comet", "-f", "jsonl"))
    shards = []
    for index, (first, last) in enumerate(((0, 70), (70, 120))):
        part = {}
        for name, path in (("src", ted.src), ("hyp", ted.hyp), ("ref", ted.ref)):
            part[name] = ted.root / f"{name}.{index}"
            part[name].write_text("\n".join(ted.lines(path)[first:last]) + "\n", encoding="utf-8")
        proc = ted.run(
            part["ref"],
            "-i",
            part["hyp"],
            "--src",
            part["src"],
            "-m",
            "bleu",
            "comet",
            "-sl",
            "-f",
            "stats",
        )
        assert proc.returncode == EXIT_OK, proc.stderr
        shards.append(ted.root / f"shard.{index}")
        shards[-1].write_bytes(proc.stdout)
    both = ted.root / "shards"
    both.write_bytes(b"".join(path.read_bytes() for path in shards))
    merged = ted.run("--input-format", "stats", "-i", both, "-f", "jsonl")
    assert merged.returncode == EXIT_OK, merged.stderr
    (record,) = [r for r in json_records(merged.stdout) if r["metric"] == "COMET"]
    assert record["score"] == whole[0]["score"]
    assert record["signature"] == whole[0]["signature"]
    jobs = comet_results(
        ted.run(ted.ref, "-i", ted.hyp, "-m", "bleu", "comet", "-j", "2", "-f", "jsonl")
    )
    assert jobs == whole


def test_records_of_different_models_refuse_to_merge(ted: Set) -> None:
    other = make_checkpoint(ted.root / "other", max_length=256)
    shards = []
    for index, model in enumerate((ted.model, other)):
        proc = ted.run(ted.ref, "-i", ted.hyp, "-m", "comet", "-f", "stats", model=model)
        assert proc.returncode == EXIT_OK, proc.stderr
        shards.append(ted.root / f"shard.{index}")
        shards[-1].write_bytes(proc.stdout)
    both = ted.root / "shards"
    both.write_bytes(b"".join(path.read_bytes() for path in shards))
    proc = ted.run("--input-format", "stats", "-i", both, "-f", "jsonl")
    assert proc.returncode == EXIT_DATAERR
    (line,) = err_lines(proc)
    assert line.startswith("bleustream: ") and "other settings" in line
