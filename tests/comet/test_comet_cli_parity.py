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


SPAN_SETS = {  # the family's checkpoint, and a real set it scores with references
    "unified": ("wmt21-en-ja", "newstest2021.en-ja.src.en", "newstest2021.en-ja.hyp.NiuTrans.ja",
                "newstest2021.en-ja.ref.A.ja"),
    "xcomet": ("compare-mt-ted-slk-en-detok", "ted.orig.slk", "ted.sys1.detok.eng",
               "ted.ref.detok.eng"),
}  # fmt: skip


@pytest.mark.parametrize("family", list(SPAN_SETS))
def test_error_spans_reach_segment_records_as_unbabel_comet_gives_them(
    family: str, comet_checkpoint: Callable[[str], Path], tmp_path: Path
) -> None:
    """A model with word-level tags: each segment record (``-sl -f jsonl``)
    carries ``error_spans``, unbabel-comet's (text, severity, offsets equal,
    confidence within 1e-6); the corpus record carries none; a second run
    reads the scores and spans back from the cache, with no forward pass."""
    checkpoint = comet_checkpoint(family)
    directory, *names = SPAN_SETS[family]
    paths, texts = [], []
    for name in names:
        lines = (REAL_DATA / directory / name).read_text(encoding="utf-8").splitlines()[:LINES]
        paths.append(tmp_path / name)
        paths[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
        texts.append(lines)
    (src, hyp, ref), (src_text, hyp_text, ref_text) = paths, texts
    expected = oracle_scores(checkpoint, src_text, hyp_text, ref_text, tmp_path)
    assert sum(map(len, expected["error_spans"])) > 0, "no spans: the test would prove nothing"
    cache = tmp_path / "scores.db"
    args = (ref, "-i", hyp, "--src", src, "-m", "comet", "--comet-model", checkpoint)
    args += ("--comet-device", "cpu", "--comet-cache", cache, "-sl", "-f", "jsonl")
    first = run(*args, timeout=600)
    assert first.returncode == 0, first.stderr
    records = json_records(first.stdout)
    segments = [r for r in records if r["type"] == "segment"]
    (corpus,) = [r for r in records if r["type"] == "corpus"]
    assert "error_spans" not in corpus
    assert len(segments) == LINES
    for record, want, score in zip(segments, expected["error_spans"], expected["scores"]):
        got = record["error_spans"]
        assert [strip(s) for s in got] == [strip(s) for s in want], record["line"]
        for a, b in zip(got, want):
            assert abs(a["confidence"] - b["confidence"]) <= TOLERANCE
        assert abs(record["score"] - score) <= TOLERANCE
    second = run(*args, timeout=600)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert "0 scored by the model in 0 forward passes" in second.stderr.decode()


def strip(span: dict) -> dict:
    return {k: v for k, v in span.items() if k != "confidence"}
