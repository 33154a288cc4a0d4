"""``-m comet`` through the command on real checkpoints (built with
unbabel-comet's classes; skipped without its venv, failed under CI), against
unbabel-comet 2.2.7's ``predict`` run in the test: every segment score
(``-sl``) and the corpus score within 1e-6, beside BLEU, for a
reference-based and a reference-free model; a second run with the cache
gives the same numbers with no forward pass (its closing line says so)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REAL_DATA
from tests.helpers.clirun import assert_clean_stderr, json_records, run
from tests.helpers.comet_checkpoints import oracle_scores

TOLERANCE = 1e-6
LINES = 60
SET = REAL_DATA / "wmt21-en-de"
FILES = ("newstest2021.en-de.src.en", "newstest2021.en-de.hyp.Facebook-AI.de",
         "newstest2021.en-de.ref.A.de")  # fmt: skip


def _slice(tmp_path: Path) -> tuple[list[Path], list[list[str]]]:
    paths, texts = [], []
    for name in FILES:
        lines = (SET / name).read_text(encoding="utf-8").splitlines()[:LINES]
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
        texts.append(lines)
    return paths, texts


@pytest.mark.parametrize("family", ["regression", "referenceless"])
def test_segment_and_corpus_scores_are_unbabel_comets(
    family: str, comet_checkpoint: Callable[[str], Path], tmp_path: Path
) -> None:
    checkpoint = comet_checkpoint(family)
    (src, hyp, ref), (src_text, hyp_text, ref_text) = _slice(tmp_path)
    refs = ref_text if family == "regression" else None
    expected = oracle_scores(checkpoint, src_text, hyp_text, refs, tmp_path)
    cache = tmp_path / "scores.db"
    args = (ref, "-i", hyp, "--src", src, "-m", "bleu", "comet", "--comet-model", checkpoint)
    args += ("--comet-device", "cpu", "--comet-cache", cache, "-sl", "-f", "jsonl")
    first = run(*args, timeout=600)
    assert first.returncode == 0, first.stderr
    records = [r for r in json_records(first.stdout) if r["metric"] == "COMET"]
    segments = [r["score"] for r in records if r["type"] == "segment"]
    (corpus,) = [r for r in records if r["type"] == "corpus"]
    assert len(segments) == len(expected["scores"]) == LINES
    for ours, theirs in zip(segments, expected["scores"]):
        assert abs(ours - theirs) <= TOLERANCE
    assert abs(corpus["score"] - expected["system_score"]) <= TOLERANCE
    assert corpus["refs"] == ("yes" if refs is not None else "no")
    second = run(*args, timeout=600)
    assert second.returncode == 0, second.stderr
    assert_clean_stderr(second)
    assert second.stdout == first.stdout
    assert "0 scored by the model in 0 forward passes" in second.stderr.decode()
