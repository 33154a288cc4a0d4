"""bleustream's COMET loader against unbabel-comet 2.2.7, run in the test.

For each family (regression, reference-free regression, unified with
word-level tags, XCOMET) a small random checkpoint built with
unbabel-comet's own classes scores real WMT/TED segments twice: with
``comet.load_from_checkpoint(...).predict(...)`` in the oracle venv (CPU,
fp32) and with ``bleustream.comet.load_model(...).score_batch(...)`` in
batches as a stream forms them (input order, not unbabel-comet's
length-sorted batches).  Every segment within 1e-6, the system score (the
mean) within 1e-6, the error spans equal (text, severity, offsets; their
confidence within 1e-6).

The inputs include lines longer than the small encoder takes (126 tokens):
cut as unbabel-comet cuts them, and counted by ``truncated()``; and an
empty hypothesis.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bleustream.comet import load_model
from tests.conftest import REAL_DATA, read_segments
from tests.helpers.comet_checkpoints import hf_home, oracle_scores

TOLERANCE = 1e-6
FAST_SEGMENTS = 150  # of each set in the fast runs; the slow sweep takes all
BATCH = 16
# A hypothesis far longer than any encoder here takes.
LONG_LINE = " ".join(f"Wort{i} und noch ein Wort" for i in range(120))


@dataclass(frozen=True)
class Case:
    """A family's checkpoint and the real set it scores."""

    checkpoint: str
    directory: str
    src: str
    hyp: str
    ref: str | None  # None: scored without references

    def read(self, limit: int | None) -> tuple[list[str], list[str], list[str] | None]:
        def lines(name: str) -> list[str]:
            return list(read_segments(REAL_DATA / self.directory / name)[:limit])

        src, hyp = lines(self.src), lines(self.hyp)
        ref = None if self.ref is None else lines(self.ref)
        # One hypothesis past the encoder's length, and an empty one.
        hyp[1], hyp[2] = LONG_LINE, ""
        return src, hyp, ref


CASES = {
    "regression": Case(
        "regression",
        "wmt21-en-de",
        "newstest2021.en-de.src.en",
        "newstest2021.en-de.hyp.Online-A.de",
        "newstest2021.en-de.ref.A.de",
    ),
    "referenceless": Case(
        "referenceless",
        "wmt21-en-zh",
        "newstest2021.en-zh.src.en",
        "newstest2021.en-zh.hyp.Facebook-AI.zh",
        None,
    ),
    "unified": Case(
        "unified",
        "wmt21-en-ja",
        "newstest2021.en-ja.src.en",
        "newstest2021.en-ja.hyp.Online-B.ja",
        "newstest2021.en-ja.ref.A.ja",
    ),
    "xcomet": Case(
        "xcomet",
        "compare-mt-ted-slk-en-detok",
        "ted.orig.slk",
        "ted.sys1.detok.eng",
        "ted.ref.detok.eng",
    ),
    # XCOMET without references: one input (hypothesis and source), its own combination.
    "xcomet-qe": Case(
        "xcomet",
        "compare-mt-ted-slk-en-detok",
        "ted.orig.slk",
        "ted.sys2.detok.eng",
        None,
    ),
}


def ours(
    checkpoint: Path, src: list[str], hyp: list[str], ref: list[str] | None, batch: int = BATCH
) -> tuple[list[float], list[list[dict[str, Any]]], int, int]:
    """Scores and spans from bleustream's loader, in input-order batches;
    with the inputs it truncated and its forward passes."""
    model = load_model(str(checkpoint))
    scores: list[float] = []
    spans: list[list[dict[str, Any]]] = []
    for start in range(0, len(hyp), batch):
        part = slice(start, start + batch)
        refs = None if ref is None else ref[part]
        scores += model.score_batch(src[part], hyp[part], refs)
        spans += model.spans_batch(src[part], hyp[part], refs)
    return scores, spans, model.truncated(), model.forward_passes


def assert_parity(
    expected: dict[str, Any], scores: list[float], spans: list[list[dict[str, Any]]]
) -> None:
    assert len(scores) == len(expected["scores"])
    worst = max(range(len(scores)), key=lambda i: abs(scores[i] - expected["scores"][i]))
    assert abs(scores[worst] - expected["scores"][worst]) <= TOLERANCE, (
        f"segment {worst}: {scores[worst]!r} vs unbabel-comet {expected['scores'][worst]!r}"
    )
    assert abs(sum(scores) / len(scores) - expected["system_score"]) <= TOLERANCE
    if "error_spans" not in expected:
        assert all(row == [] for row in spans)
        return
    assert len(spans) == len(expected["error_spans"])
    assert sum(map(len, expected["error_spans"])) > 0, "no spans: the test would prove nothing"
    for i, (got, want) in enumerate(zip(spans, expected["error_spans"])):
        assert [strip_confidence(s) for s in got] == [strip_confidence(s) for s in want], i
        for a, b in zip(got, want):
            assert abs(a["confidence"] - b["confidence"]) <= TOLERANCE, (i, a, b)


def strip_confidence(span: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in span.items() if k != "confidence"}


def token_counts(checkpoint: Path, texts: list[str]) -> list[int]:
    """Tokens per text with the special tokens, uncut, read with the
    ``tokenizers`` library from the checkpoint's tokenizer.json."""
    import tokenizers

    tokenizer = tokenizers.Tokenizer.from_file(str(checkpoint / "encoder" / "tokenizer.json"))
    tokenizer.no_truncation()
    return [len(e.ids) for e in tokenizer.encode_batch(texts)]


def check_family(
    name: str, comet_checkpoint: Callable[[str], Path], tmp_path: Path, limit: int | None
) -> None:
    case = CASES[name]
    checkpoint = comet_checkpoint(case.checkpoint)
    src, hyp, ref = case.read(limit)
    expected = oracle_scores(checkpoint, src, hyp, ref, tmp_path)
    scores, spans, truncated, passes = ours(checkpoint, src, hyp, ref)
    assert_parity(expected, scores, spans)
    assert passes == -(-len(hyp) // BATCH)  # one forward pass a batch, spans included
    if case.checkpoint in ("regression", "referenceless"):
        # A segment is cut when one of its inputs is: 126 tokens with <s> and </s>.
        streams = [src, hyp] + ([ref] if ref is not None and name == "regression" else [])
        counts = [token_counts(checkpoint, s) for s in streams]
        assert truncated == sum(any(n > 126 for n in row) for row in zip(*counts))
    assert truncated >= 1  # the long line at least


@pytest.mark.parametrize("name", list(CASES))
def test_segment_scores_and_spans_equal_unbabel_comet(
    name: str, comet_checkpoint: Callable[[str], Path], tmp_path: Path
) -> None:
    check_family(name, comet_checkpoint, tmp_path, FAST_SEGMENTS)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_whole_sets_equal_unbabel_comet(
    name: str, comet_checkpoint: Callable[[str], Path], tmp_path: Path
) -> None:
    check_family(name, comet_checkpoint, tmp_path, None)


def test_scores_do_not_depend_on_the_batch(
    comet_checkpoint: Callable[[str], Path], tmp_path: Path
) -> None:
    """Batches of 7 give unbabel-comet's scores too (within 1e-6): a stream
    may cut its batches anywhere."""
    case = CASES["unified"]
    checkpoint = comet_checkpoint(case.checkpoint)
    src, hyp, ref = case.read(60)
    expected = oracle_scores(checkpoint, src, hyp, ref, tmp_path, batch_size=32)
    model = load_model(str(checkpoint))
    scores, spans = [], []
    for start in range(0, len(hyp), 7):
        part = slice(start, start + 7)
        scores += model.score_batch(src[part], hyp[part], ref[part] if ref else None)
        spans += model.spans_batch(src[part], hyp[part], ref[part] if ref else None)
    assert_parity(expected, scores, spans)


def test_max_length_cuts_shorter(comet_checkpoint: Callable[[str], Path]) -> None:
    """A smaller ``max_length`` cuts more inputs and changes the identity."""
    checkpoint = comet_checkpoint("regression")
    src, hyp, ref = CASES["regression"].read(40)
    full = load_model(str(checkpoint))
    short = load_model(str(checkpoint), max_length=12)
    assert short.max_length == 12 and full.max_length == 126
    assert short.identity != full.identity
    assert full.score_batch(src, hyp, ref) != short.score_batch(src, hyp, ref)
    assert short.truncated() > full.truncated() >= 1
    assert load_model(str(checkpoint), max_length=10_000).max_length == 126


OURS_IN_A_CHILD = """
import json, sys
import torch
torch.set_num_threads(1)
from bleustream.comet import load_model
checkpoint, data_file, out_file = sys.argv[1:]
data = json.load(open(data_file, encoding="utf-8"))
model = load_model(checkpoint)
scores = []
for start in range(0, len(data["mt"]), 16):
    part = slice(start, start + 16)
    scores += model.score_batch(data["src"][part], data["mt"][part], data["ref"][part])
json.dump({"scores": scores, "truncated": model.truncated()}, open(out_file, "w"))
"""


def test_minilm_encoder_equals_unbabel_comet(
    comet_checkpoint: Callable[[str], Path], tmp_path: Path
) -> None:
    """unbabel-comet's MiniLM encoder (eamt22-cometinho-da's kind): a BERT
    whose tokenizer is xlm-roberta-base's, from the Hugging Face cache; here
    a cache of the checkpoint's own, used offline by both sides."""
    checkpoint = comet_checkpoint("minilm")
    home = hf_home(checkpoint)
    assert home is not None
    src, hyp, ref = CASES["regression"].read(FAST_SEGMENTS)
    expected = oracle_scores(checkpoint, src, hyp, ref, tmp_path)
    data_file, out_file = tmp_path / "in.json", tmp_path / "out.json"
    data_file.write_text(json.dumps({"src": src, "mt": hyp, "ref": ref}), encoding="utf-8")
    env = {**os.environ, "HF_HOME": str(home), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    env.pop("HF_HUB_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", OURS_IN_A_CHILD, str(checkpoint), str(data_file), str(out_file)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(out_file.read_text(encoding="utf-8"))
    assert_parity(expected, got["scores"], [[] for _ in hyp])
    assert got["truncated"] >= 1
