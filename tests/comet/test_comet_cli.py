"""``-m comet`` through the command: the metric beside BLEU and chrF, the
sources read in lockstep, segment and running records, its statistics,
the cache, and every bad input as one line with its status.

The model is the test double of ``bleustream.comet`` (``fake_comet``):
expected values are its scores computed here; the loader's own parity
with unbabel-comet is tested with real checkpoints beside the loader."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from bleustream.errors import EXIT_DATAERR, EXIT_NOINPUT, EXIT_OK, EXIT_USAGE
from tests.comet.fake_comet import HOLD_ENV, fake_score, make_checkpoint
from tests.comet.runs import LINES, Set, env_with, err_lines
from tests.helpers.clirun import assert_clean_stderr, json_records, run
from tests.helpers.paths import ROOT
from tests.helpers.waiting import wait_for


@pytest.fixture
def ted(tmp_path: Path) -> Set:
    """A slice of a real set, with its sources and a model."""
    return Set(tmp_path)


def expected_scores(ted: Set, hyp_path=None) -> list[float]:
    hyps = ted.lines(hyp_path or ted.hyp)
    return [fake_score(s, h, r) for s, h, r in zip(ted.lines(ted.src), hyps, ted.lines(ted.ref))]


def by_metric(records: list[dict], kind: str = "corpus") -> dict[str, dict]:
    return {r["metric"]: r for r in records if r["type"] == kind}


def test_comet_beside_bleu_and_chrf_is_the_mean_of_the_segment_scores(ted: Set) -> None:
    proc = ted.run(ted.ref, "-i", ted.hyp, "-m", "bleu", "chrf", "comet", "-f", "jsonl")
    assert proc.returncode == EXIT_OK, proc.stderr
    assert_clean_stderr(proc)
    records = by_metric(json_records(proc.stdout))
    scores = expected_scores(ted)
    # comet-score's system_score: sum(scores) / len(scores), to the bit.
    assert records["COMET"]["score"] == sum(scores) / len(scores)
    assert records["COMET"]["scored"] == len(scores)
    # BLEU and chrF are those of a run without COMET.
    plain = run(ted.ref, "-i", ted.hyp, "-m", "bleu", "chrf", "-f", "jsonl")
    plain_records = by_metric(json_records(plain.stdout))
    for name in ("BLEU", "chrF2"):
        assert records[name]["score"] == plain_records[name]["score"]


def test_segment_and_running_records_carry_comet_beside_bleu(ted: Set) -> None:
    proc = ted.run(
        ted.ref, "-i", ted.hyp, "-m", "bleu", "comet", "-sl", "--every", "50", "-f", "jsonl"
    )
    assert proc.returncode == EXIT_OK, proc.stderr
    records = json_records(proc.stdout)
    segments = [r for r in records if r["type"] == "segment" and r["metric"] == "COMET"]
    assert [r["score"] for r in segments] == expected_scores(ted)
    assert [r["line"] for r in segments] == list(range(1, len(segments) + 1))
    running = [r for r in records if r["type"] == "running" and r["metric"] == "COMET"]
    scores = expected_scores(ted)
    assert [r["segments"] for r in running] == [50, 100]
    assert running[0]["score"] == sum(scores[:50]) / 50
    assert {r["metric"] for r in records if r["type"] == "running"} == {"BLEU", "COMET"}


def test_batches_are_the_batch_size_and_systems_share_the_window(ted: Set) -> None:
    proc = ted.run(
        ted.ref, "-i", ted.hyp, ted.hyp2, "-m", "comet", "--comet-batch-size", "7", "-f", "jsonl"
    )
    assert proc.returncode == EXIT_OK, proc.stderr
    sizes = ted.forward_passes()
    # Windows of 7 x 8 segments, each one's texts in batches of 7; a text
    # both systems give is scored once.
    segments = list(
        zip(ted.lines(ted.src), ted.lines(ted.hyp), ted.lines(ted.hyp2), ted.lines(ted.ref))
    )
    expected = []
    for start in range(0, len(segments), 56):
        texts = {(s, h, r) for s, h1, h2, r in segments[start : start + 56] for h in (h1, h2)}
        expected += [7] * (len(texts) // 7) + ([len(texts) % 7] if len(texts) % 7 else [])
    assert sizes == expected
    records = [r for r in json_records(proc.stdout) if r["type"] == "corpus"]
    second = expected_scores(ted, ted.hyp2)
    assert records[1]["score"] == sum(second) / len(second)


def test_the_signature_names_the_model_its_digest_refs_precision_and_length(ted: Set) -> None:
    proc = ted.run(ted.ref, "-i", ted.hyp, "-m", "comet", "-w", "4")
    assert proc.returncode == EXIT_OK, proc.stderr
    line = proc.stdout.decode()
    signature = line.split(" = ")[0]
    assert signature.startswith("COMET|nrefs:1|model:model|digest:")
    for field in ("refs:yes", "precision:fp32", "maxlen:512", "|version:bleustream-"):
        assert field in signature


def test_the_cache_spares_every_forward_pass_of_a_second_run(ted: Set) -> None:
    cache = ted.root / "scores.db"
    args = (ted.ref, "-i", ted.hyp, "-m", "comet", "-f", "jsonl", "--comet-cache", cache)
    first = ted.run(*args)
    assert first.returncode == EXIT_OK, first.stderr
    assert ted.forward_passes()
    second = ted.run(*args)
    assert second.returncode == EXIT_OK, second.stderr
    assert ted.forward_passes() == []
    assert second.stdout == first.stdout
    assert "120 segment scores read back, 0 scored by the model in 0 forward passes" in (
        second.stderr.decode()
    )


def test_k_changed_lines_are_scored_in_one_batch(ted: Set) -> None:
    cache = ted.root / "scores.db"
    args = (ted.ref, "-i", ted.hyp, "-m", "comet", "-f", "jsonl", "--comet-cache", cache)
    assert ted.run(*args).returncode == EXIT_OK
    ted.forward_passes()
    lines = ted.lines(ted.hyp)
    for index in (3, 40, 77, 119):
        lines[index] = lines[index] + " (changed)"
    ted.hyp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = ted.run(*args)
    assert proc.returncode == EXIT_OK, proc.stderr
    assert ted.forward_passes() == [4]  # one batch of the 4 new segments
    (record,) = json_records(proc.stdout)
    scores = expected_scores(ted)
    assert record["score"] == sum(scores) / len(scores)


def one_line(proc, status: int) -> str:
    """The run failed with ``status`` and said one ``bleustream:`` line."""
    assert proc.returncode == status, proc.stderr
    assert_clean_stderr(proc)
    lines = err_lines(proc)
    assert len(lines) == 1, lines
    return lines[0]


def test_a_missing_checkpoint_is_one_line_naming_it(ted: Set) -> None:
    missing = ted.root / "no-such-model"
    line = one_line(ted.run(ted.ref, "-i", ted.hyp, "-m", "comet", model=missing), EXIT_NOINPUT)
    assert str(missing) in line


def test_a_corrupt_checkpoint_is_one_line_naming_it(ted: Set) -> None:
    broken = ted.root / "broken"
    broken.mkdir()
    (broken / "fake.json").write_text("{not json")
    line = one_line(ted.run(ted.ref, "-i", ted.hyp, "-m", "comet", model=broken), EXIT_DATAERR)
    assert str(broken) in line


def test_comet_without_a_model_or_sources_is_a_usage_error(ted: Set) -> None:
    line = one_line(ted.run(ted.ref, "-i", ted.hyp, "-m", "comet", "--comet-model", ""), EXIT_USAGE)
    assert "--comet-model" in line
    line = one_line(ted.run(ted.ref, "-i", ted.hyp, "-m", "comet", "--src", ""), EXIT_USAGE)
    assert "--src FILE" in line


def test_fewer_source_lines_than_hypotheses_is_bad_data_at_that_line(ted: Set) -> None:
    short = ted.root / "short.src"
    short.write_text("\n".join(ted.lines(ted.src)[:100]) + "\n", encoding="utf-8")
    line = one_line(ted.run(ted.ref, "-i", ted.hyp, "-m", "comet", "--src", short), EXIT_DATAERR)
    assert f"{ted.hyp}:101:" in line and "fewer source lines" in line


def test_more_source_lines_than_hypotheses_is_bad_data(ted: Set) -> None:
    long = ted.root / "long.src"
    long.write_text(ted.src.read_text(encoding="utf-8") + "one more\n", encoding="utf-8")
    line = one_line(ted.run(ted.ref, "-i", ted.hyp, "-m", "comet", "--src", long), EXIT_DATAERR)
    assert f"{long}:121:" in line and "more source lines" in line


def test_more_source_lines_names_the_metric_that_reads_them(ted: Set) -> None:
    long = ted.root / "long.src"
    long.write_text(ted.src.read_text(encoding="utf-8") + "one more\n", encoding="utf-8")
    proc = ted.run(ted.ref, "-i", ted.hyp, "-m", "bleu", "comet", "--src", long)
    line = one_line(proc, EXIT_DATAERR)
    assert line.endswith("more source lines than segments (one a segment for comet)"), line


def test_a_last_line_skipped_as_bad_keeps_its_source_line(ted: Set) -> None:
    data = ted.hyp.read_bytes().rstrip(b"\n").split(b"\n")
    data[-1] = b"bad \xff byte"
    ted.hyp.write_bytes(b"\n".join(data) + b"\n")
    proc = ted.run(ted.ref, "-i", ted.hyp, "-m", "bleu", "comet", "--skip-bad-lines", "-f", "jsonl")
    assert proc.returncode == EXIT_OK, proc.stderr
    records = [r for r in json_records(proc.stdout) if r["type"] == "corpus"]
    assert {r["metric"]: r["segments"] for r in records} == {
        "BLEU": len(data) - 1,
        "COMET": len(data) - 1,
    }


def test_an_empty_hypothesis_is_scored_as_the_model_scores_it(ted: Set) -> None:
    lines = ted.lines(ted.hyp)
    lines[5] = ""
    ted.hyp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = ted.run(ted.ref, "-i", ted.hyp, "-m", "comet", "-sl", "-f", "jsonl")
    assert proc.returncode == EXIT_OK, proc.stderr
    segments = [r for r in json_records(proc.stdout) if r["type"] == "segment"]
    assert segments[5]["score"] == fake_score(ted.lines(ted.src)[5], "", ted.lines(ted.ref)[5])


def test_truncation_is_said_once(ted: Set) -> None:
    short = make_checkpoint(ted.root / "short-model", max_length=20)
    proc = ted.run(ted.ref, "-i", ted.hyp, "-m", "comet", "--comet-batch-size", "4", model=short)
    assert proc.returncode == EXIT_OK, proc.stderr
    assert_clean_stderr(proc)
    (line,) = err_lines(proc)
    assert "truncated" in line and "20 tokens" in line


def test_several_references_are_refused_for_a_reference_based_model(ted: Set) -> None:
    proc = ted.run(ted.ref, ted.ref, "-i", ted.hyp, "-m", "comet")
    line = one_line(proc, EXIT_DATAERR)
    assert "one reference" in line


def test_a_signal_during_a_forward_pass_leaves_its_window_out_and_marks_the_score(
    ted: Set,
) -> None:
    sign = ted.root / "holding"
    argv = ted.argv(ted.ref, "-i", ted.hyp, "-m", "bleu", "comet", "--comet-batch-size", "5")
    env = env_with({HOLD_ENV: f"9:{sign}"})  # the first window is 8 passes of 5
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(proc, sign.exists, "the ninth forward pass")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    text = out.decode()
    scores = expected_scores(ted)[:40]
    for line in text.splitlines():
        assert line.endswith("[PARTIAL: input interrupted after 40 segments]"), text
    comet = [line for line in text.splitlines() if line.startswith("COMET")]
    assert comet and f"= {sum(scores) / 40:.1f} " in comet[0] + " "
    assert "interrupted; the score covers the 40 segments read so far" in err.decode()


def test_sources_pair_with_lines_so_a_log_input_is_refused(ted: Set) -> None:
    proc = ted.run(ted.ref, "-i", ted.hyp, "-m", "comet", "--input-format", "nbest")
    assert "--input-format nbest" in one_line(proc, EXIT_USAGE)


def test_another_model_or_max_length_reads_nothing_old_from_the_cache(ted: Set) -> None:
    cache = ted.root / "scores.db"
    args = (ted.ref, "-i", ted.hyp, "-m", "comet", "--comet-cache", cache)
    assert ted.run(*args).returncode == EXIT_OK
    ted.forward_passes()
    shorter = ted.run(*args, "--comet-max-length", "256")
    assert shorter.returncode == EXIT_OK, shorter.stderr
    assert sum(ted.forward_passes()) == LINES
    other = make_checkpoint(ted.root / "other", max_length=512, family="regression")
    (other / "fake.json").write_text((other / "fake.json").read_text() + " ")  # other weights
    assert ted.run(*args, model=other).returncode == EXIT_OK
    assert sum(ted.forward_passes()) == LINES
    again = ted.run(*args)
    assert "120 segment scores read back, 0 scored" in again.stderr.decode()
