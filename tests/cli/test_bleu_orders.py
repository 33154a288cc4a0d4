"""--bleu-orders: BLEU-1..N from one run's statistics, each SacreBLEU's
BLEU with ``max_ngram_order=n``, in corpus and sentence records."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.conftest import RealSet, read_refs, read_segments
from tests.helpers.clirun import run

sacrebleu_metrics = pytest.importorskip("sacrebleu.metrics")

ORDER = 4


def generated(seed: int, lines: int) -> tuple[list[str], list[str]]:
    """Hypotheses and references over a small vocabulary, with empty and
    repeated lines, so that some orders match nothing."""
    rng = random.Random(seed)
    words = ["a", "b", "c", "d", "e", "f", "the", "cat", "sat", "on", "mat", ".", ","]

    def line() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.choice([0, 1, 2, 3, 5, 8, 13])))

    refs = [line() for _ in range(lines)]
    hyps = [ref if rng.random() < 0.1 else line() for ref in refs]
    return hyps, refs


def cli_records(tmp_path: Path, hyps: list[str], refs: list[str], order: int) -> list[dict]:
    hyp_file, ref_file = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp_file.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    ref_file.write_text("".join(r + "\n" for r in refs), encoding="utf-8")
    proc = run(
        ref_file,
        "-i",
        hyp_file,
        "--bleu-orders",
        "--max-ngram-order",
        str(order),
        "-sl",
        "-f",
        "jsonl",
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.decode().splitlines()]


def check(records: list[dict], hyps: list[str], refs: list[str], order: int) -> None:
    corpus = records[-1]
    assert corpus["type"] == "corpus"
    segments = [r for r in records if r["type"] == "segment"]
    assert len(segments) == len(hyps)
    for n in range(1, order + 1):
        bleu = sacrebleu_metrics.BLEU(max_ngram_order=n)
        assert corpus["bleu_orders"][n - 1] == bleu.corpus_score(hyps, [refs]).score
        sentence = sacrebleu_metrics.BLEU(max_ngram_order=n, effective_order=True)
        for record, hyp, ref in zip(segments, hyps, refs):
            assert record["bleu_orders"][n - 1] == sentence.sentence_score(hyp, [ref]).score
    assert corpus["bleu_orders"][-1] == corpus["score"]


@pytest.mark.parametrize("order", [1, 4, 6])
def test_generated_text_equals_sacrebleu(order: int, tmp_path: Path) -> None:
    hyps, refs = generated(order, 200)
    check(cli_records(tmp_path, hyps, refs, order), hyps, refs, order)


def test_real_data_equals_sacrebleu(real_set: RealSet, tmp_path: Path) -> None:
    refs = list(read_refs(real_set)[0][:300])
    hyps = list(read_segments(real_set.hyps[0])[:300])
    check(cli_records(tmp_path, hyps, refs, ORDER), hyps, refs, ORDER)


def test_text_and_tsv(tmp_path: Path) -> None:
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    text = run(ref, "--bleu-orders", input="the cat sat on a mat\n").stdout.decode()
    assert "BLEU-1..4 = " in text
    tsv = run(ref, "--bleu-orders", "-f", "tsv", input="the cat sat on a mat\n").stdout.decode()
    header, row = tsv.splitlines()
    columns = dict(zip(header.split("\t"), row.split("\t")))
    assert float(columns["bleu4"]) == float(columns["bleu"])
    assert float(columns["bleu1"]) == pytest.approx(100 * 5 / 6)


@pytest.mark.parametrize("width", [0, 1, 4])
@pytest.mark.parametrize("layout", [(), ("-sl",), ("-sl", "--compat", "sacrebleu")])
def test_width_applies_to_every_order(tmp_path: Path, width: int, layout: tuple[str, ...]) -> None:
    """-w N writes BLEU-1..N to N decimals, as the score; SacreBLEU's own
    detail (precisions to 1 decimal, BP and ratio to 3) keeps its digits."""
    hyps, refs = generated(7, 50)
    hyp_file, ref_file = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp_file.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    ref_file.write_text("".join(r + "\n" for r in refs), encoding="utf-8")
    proc = run(ref_file, "-i", hyp_file, "--bleu-orders", "-w", str(width), *layout)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    sentence = "-sl" in layout
    assert len(lines) == (len(hyps) + (0 if "--compat" in layout else 1) if sentence else 1)
    cases = list(zip(hyps, refs, lines)) if sentence else [(None, None, lines[-1])]
    for hyp, ref, line in cases:
        expected = []
        for n in range(1, ORDER + 1):
            bleu = sacrebleu_metrics.BLEU(max_ngram_order=n, effective_order=sentence)
            if hyp is None:
                score = bleu.corpus_score(hyps, [refs])
            else:
                score = bleu.sentence_score(hyp, [ref])
            expected.append(f"{score.score:.{width}f}")
        assert line.endswith(f" BLEU-1..4 = {'/'.join(expected)}"), line
        assert f"{score.score:.{width}f} {score._verbose}" in line
