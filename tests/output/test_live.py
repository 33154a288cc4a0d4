"""Live output: per-segment and running records, in every format, as lines arrive."""

from __future__ import annotations

import csv
import io
import os
import subprocess
from pathlib import Path

import pytest
from sacrebleu.metrics.bleu import BLEU

from tests.helpers.adversarial import Adversary
from tests.helpers.clirun import COMMAND, json_records, run
from tests.helpers.waiting import read_line

# The TSV header of a BLEU run with the default maximum order, written out.
BLEU_TSV_COLUMNS = [
    "kind",
    "line",
    "id",
    "bleu",
    "p1",
    "p2",
    "p3",
    "p4",
    "bp",
    "ratio",
    "hyp_len",
    "ref_len",
    "m1",
    "m2",
    "m3",
    "m4",
    "t1",
    "t2",
    "t3",
    "t4",
    "segments",
    "skipped",
    "unpaired",
    "partial",
]


def paste(hyps: list[str], *refs: list[str]) -> str:
    return "".join("\t".join(fields) + "\n" for fields in zip(hyps, *refs))


def corpus(seed: int, size: int, nrefs: int = 1) -> tuple[list[str], list[list[str]]]:
    """An adversarial corpus that paste input can carry."""
    return Adversary(seed).paste_corpus(size, nrefs)


@pytest.mark.parametrize("tok", ["13a", "intl", "zh", "char", "none"])
@pytest.mark.parametrize("nrefs", [1, 2])
def test_sentence_level_equals_sacrebleu_sentence_score(tok: str, nrefs: int) -> None:
    hyps, refs = corpus(seed=11 + nrefs, size=40, nrefs=nrefs)
    proc = run("-sl", "-f", "jsonl", "-tok", tok, input=paste(hyps, *refs))
    assert proc.returncode == 0, proc.stderr
    records = json_records(proc.stdout)
    segments = [r for r in records if r["type"] == "segment"]
    assert len(segments) == len(hyps)
    metric = BLEU(tokenize=tok, effective_order=True)
    for i, (record, hyp) in enumerate(zip(segments, hyps)):
        expected = metric.sentence_score(hyp, [stream[i] for stream in refs])
        assert record["line"] == i + 1
        assert abs(record["score"] - expected.score) <= 1e-9
        assert record["score"] == expected.score
        assert record["hyp_len"] == expected.sys_len
        assert record["ref_len"] == expected.ref_len
        assert record["counts"] == expected.counts
        assert record["totals"] == expected.totals
    assert records[-1]["type"] == "corpus"
    assert records[-1]["score"] == BLEU(tokenize=tok).corpus_score(hyps, refs).score


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
def test_sentence_level_smoothing(smooth: str) -> None:
    hyps, refs = corpus(seed=5, size=30)
    proc = run("-sl", "-b", "-w", "12", "-s", smooth, input=paste(hyps, *refs))
    numbers = proc.stdout.decode().split()
    metric = BLEU(smooth_method=smooth, effective_order=True)
    expected = [metric.sentence_score(h, [r]).score for h, r in zip(hyps, refs[0])]
    # One number per segment and nothing more: no corpus line after them.
    assert [float(n) for n in numbers] == pytest.approx(expected, abs=1e-9)


def test_every_n_equals_sacrebleu_on_the_lines_so_far() -> None:
    hyps, refs = corpus(seed=3, size=50, nrefs=2)
    proc = run("--every", "7", "-f", "jsonl", input=paste(hyps, *refs))
    records = json_records(proc.stdout)
    running = [r for r in records if r["type"] == "running"]
    assert [r["line"] for r in running] == [7, 14, 21, 28, 35, 42, 49]
    for record in running:
        n = record["segments"]
        expected = BLEU().corpus_score(hyps[:n], [stream[:n] for stream in refs])
        assert record["score"] == expected.score
        assert record["counts"] == expected.counts
    assert records[-1]["type"] == "corpus"
    assert records[-1]["segments"] == 50


def test_sentence_level_and_every_combine_in_order() -> None:
    hyps, refs = corpus(seed=4, size=6)
    proc = run("-sl", "--every", "2", "-f", "jsonl", input=paste(hyps, *refs))
    kinds = [(r["type"], r.get("line")) for r in json_records(proc.stdout)]
    assert kinds == [
        ("segment", 1),
        ("segment", 2),
        ("running", 2),
        ("segment", 3),
        ("segment", 4),
        ("running", 4),
        ("segment", 5),
        ("segment", 6),
        ("running", 6),
        ("corpus", None),
    ]


def test_score_only_prints_one_number_per_record() -> None:
    hyps, refs = corpus(seed=8, size=5)
    proc = run("-sl", "--every", "5", "-b", input=paste(hyps, *refs))
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 5 + 1  # segments and the running record; -sl -b has no corpus line
    assert all(float(x) >= 0 for x in lines)


def test_three_formats_carry_the_same_numbers() -> None:
    hyps, refs = corpus(seed=21, size=12, nrefs=2)
    data = paste(hyps, *refs)
    args = ("-sl", "--every", "4", "-s", "floor")
    from_json = json_records(run(*args, "-f", "jsonl", input=data).stdout)
    tsv_text = run(*args, "-f", "tsv", input=data).stdout.decode()
    rows = list(csv.DictReader(io.StringIO(tsv_text), delimiter="\t"))
    assert list(rows[0].keys()) == BLEU_TSV_COLUMNS
    text_lines = run(*args, "-f", "text", "-w", "1", input=data).stdout.decode().splitlines()
    assert len(from_json) == len(rows) == len(text_lines)
    for obj, row, text in zip(from_json, rows, text_lines):
        assert row["kind"] == obj["type"]
        assert row["line"] == str(obj.get("line", ""))
        assert float(row["bleu"]) == obj["score"]
        assert [float(row[f"p{n}"]) for n in range(1, 5)] == obj["precisions"]
        assert float(row["bp"]) == obj["bp"]
        assert float(row["ratio"]) == obj["ratio"]
        assert int(row["hyp_len"]) == obj["hyp_len"]
        assert int(row["ref_len"]) == obj["ref_len"]
        assert [int(row[f"m{n}"]) for n in range(1, 5)] == obj["counts"]
        assert [int(row[f"t{n}"]) for n in range(1, 5)] == obj["totals"]
        assert int(row["segments"]) == obj["segments"]
        assert f"= {obj['score']:.1f} " in text or f"= {obj['score']:>5.1f} " in text
        assert f"hyp_len = {obj['hyp_len']} ref_len = {obj['ref_len']})" in text
    assert text_lines[-1].startswith("BLEU|nrefs:2|")
    assert from_json[-1]["signature"] in text_lines[-1]


def test_tsv_header_comes_first_even_without_records() -> None:
    proc = run("-f", "tsv", "--allow-empty", input="")
    lines = proc.stdout.decode().splitlines()
    assert lines[0].split("\t") == BLEU_TSV_COLUMNS
    assert lines[1].split("\t")[0] == "corpus"


def test_each_record_is_flushed_before_the_next_line_is_sent() -> None:
    hyps, refs = corpus(seed=9, size=5)
    proc = subprocess.Popen(
        [*COMMAND, "-sl", "-f", "jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for i, (hyp, ref) in enumerate(zip(hyps, refs[0]), 1):
            proc.stdin.write(f"{hyp}\t{ref}\n".encode())
            proc.stdin.flush()
            record = json_records(read_line(proc.stdout, timeout=20))[0]
            assert record["type"] == "segment"
            assert record["line"] == i
        proc.stdin.close()
        final = json_records(read_line(proc.stdout, timeout=20))[0]
        assert final["type"] == "corpus"
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill()
        proc.wait()


def test_tail_follow_shows_records_as_lines_are_appended(tmp_path: Path) -> None:
    log = tmp_path / "translations.tsv"
    log.write_text("")
    shell = f"tail -n +1 -f {log} | {' '.join(COMMAND)} --every 1 -f jsonl"
    proc = subprocess.Popen(
        shell, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    assert proc.stdout is not None
    try:
        for i in range(1, 4):
            with log.open("a") as handle:
                handle.write(f"the cat sat {i}\tthe cat sat {i}\n")
            record = json_records(read_line(proc.stdout, timeout=20))[0]
            assert record["type"] == "running"
            assert record["segments"] == i
            assert record["score"] == pytest.approx(100.0, abs=1e-9)
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()


def test_closed_pipe_ends_quietly() -> None:
    hyps, refs = corpus(seed=10, size=2000)
    shell = f"{' '.join(COMMAND)} -sl | head -n 3"
    proc = subprocess.run(
        ["bash", "-c", shell], input=paste(hyps, *refs).encode(), capture_output=True, timeout=60
    )
    assert proc.returncode == 0
    assert len(proc.stdout.decode().splitlines()) == 3
    assert proc.stderr == b""
