"""Bad input: one located message on stderr, a documented exit status,
nothing already read lost, and never a traceback."""

from __future__ import annotations

import gzip
import os
import random
import re
import signal
import subprocess
from pathlib import Path

import pytest
from sacrebleu.metrics.bleu import BLEU

from bleustream.errors import OpenError
from bleustream.inputs import lines as readers
from tests.helpers.clirun import (
    COMMAND,
    DOCUMENTED_STATUSES,
    assert_clean_stderr,
    json_records,
    run,
)
from tests.helpers.waiting import HAS_PROC, read_line, wait_until_waiting_for_input


def stderr_of(proc: subprocess.CompletedProcess[bytes]) -> str:
    assert_clean_stderr(proc)
    return proc.stderr.decode()


# -- Encodings -------------------------------------------------------------


def test_invalid_utf8_fails_at_that_line_with_byte_and_column() -> None:
    proc = run(input=b"good line\tref\nab\xffc\tref\nthird\tref\n")
    assert proc.returncode == 65
    assert stderr_of(proc) == "bleustream: <stdin>:2: invalid UTF-8 (byte 0xff at column 3)\n"
    assert proc.stdout == b""


def test_invalid_utf8_in_a_named_file(tmp_path: Path) -> None:
    ref = tmp_path / "ref.de"
    ref.write_bytes(b"eins\nzwei \xc3\x28 drei\n")
    proc = run(ref, input=b"eins\nzwei\n")
    assert proc.returncode == 65
    assert stderr_of(proc) == f"bleustream: {ref}:2: invalid UTF-8 (byte 0xc3 at column 6)\n"


def test_other_encoding_is_decoded(tmp_path: Path) -> None:
    text = "Grüße aus Köln\tGrüße aus Köln\n"
    proc = run("--encoding", "latin-1", "-f", "jsonl", input=text.encode("latin-1"))
    assert proc.returncode == 0, proc.stderr
    (record,) = json_records(proc.stdout)
    expected = BLEU().corpus_score(["Grüße aus Köln"], [["Grüße aus Köln"]])
    assert record["score"] == expected.score


def test_encoding_errors_replace_scores_the_replaced_text() -> None:
    proc = run("--encoding-errors", "replace", "-f", "jsonl", input=b"a b\xff c\ta b c\n")
    assert proc.returncode == 0, proc.stderr
    (record,) = json_records(proc.stdout)
    expected = BLEU().corpus_score(["a b\ufffd c"], [["a b c"]])
    assert record["score"] == expected.score
    assert record["hyp_len"] == expected.sys_len


@pytest.mark.parametrize(
    "encoding, message",
    [
        ("utf-16", "cannot be read line by line: it does not write a newline"),
        ("no-such-codec", "unknown encoding 'no-such-codec'"),
    ],
)
def test_unusable_encoding_is_a_usage_error(encoding: str, message: str) -> None:
    proc = run("--encoding", encoding, input=b"a\tb\n")
    assert proc.returncode == 2
    assert message in stderr_of(proc)


# -- Structure ---------------------------------------------------------------


def test_paste_line_with_another_number_of_fields() -> None:
    proc = run(input="a\tb\nc\td\te\n")
    assert proc.returncode == 65
    assert stderr_of(proc) == (
        "bleustream: <stdin>:2: expected 2 tab-separated fields as on the first line, found 3\n"
    )
    assert proc.stdout == b""


def test_paste_line_without_a_tab() -> None:
    proc = run(input="just a hypothesis\n")
    assert proc.returncode == 65
    assert stderr_of(proc).startswith("bleustream: <stdin>:1: expected hypothesis<TAB>reference")


def test_reference_file_ends_first(tmp_path: Path) -> None:
    ref = tmp_path / "ref"
    ref.write_text("one\ntwo\n")
    proc = run(ref, input="one\ntwo\nthree\n")
    assert proc.returncode == 65
    assert stderr_of(proc) == (
        f"bleustream: {ref}: reference file ended after line 2, but <stdin> has a line 3\n"
    )
    assert proc.stdout == b""


def test_hypotheses_end_first(tmp_path: Path) -> None:
    ref = tmp_path / "ref"
    ref.write_text("one\ntwo\nthree\n")
    hyp = tmp_path / "hyp"
    hyp.write_text("one\n")
    proc = run(ref, "-i", hyp)
    assert proc.returncode == 65
    assert stderr_of(proc) == (
        f"bleustream: {ref}:2: reference file has more lines than the hypotheses "
        f"({hyp} ended after line 1)\n"
    )
    assert proc.stdout == b""


# -- Files -------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    proc = run(tmp_path / "nope.de", input="x\n")
    assert proc.returncode == 66
    assert stderr_of(proc) == f"bleustream: {tmp_path / 'nope.de'}: no such file\n"


def test_directory(tmp_path: Path) -> None:
    proc = run("-i", tmp_path, input="")
    assert proc.returncode == 66
    assert stderr_of(proc) == f"bleustream: {tmp_path}: is a directory\n"


def test_unreadable_file_cannot_be_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As root every file is readable, so the refusal is simulated where
    # bleustream opens the file.
    target = tmp_path / "secret"
    target.write_text("x\n")

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("builtins.open", refuse)
    with pytest.raises(OpenError) as info:
        readers.open_source(str(target), stdin=None)  # type: ignore[arg-type]
    assert str(info.value) == f"{target}: permission denied"
    assert info.value.status == 66


def test_read_error_exits_74() -> None:
    # Reading /proc/self/mem from offset 0 fails with EIO.
    proc = run("-i", "/proc/self/mem", input="")
    assert proc.returncode == 74
    assert stderr_of(proc).startswith("bleustream: /proc/self/mem:1: read error")


def test_corrupt_gzip(tmp_path: Path) -> None:
    bad = tmp_path / "ref.gz"
    bad.write_bytes(b"this is not gzip data\n")
    proc = run(bad, input="x\n")
    assert proc.returncode == 65
    assert re.fullmatch(
        rf"bleustream: {re.escape(str(bad))}:1: corrupt gzip data \(.*\)\n", stderr_of(proc)
    )


def test_truncated_gzip(tmp_path: Path) -> None:
    data = gzip.compress(b"".join(b"line %d\n" % i for i in range(5000)))
    cut = tmp_path / "hyp.gz"
    cut.write_bytes(data[: len(data) // 2])
    proc = run("-", "-i", cut, input="".join(f"line {i}\n" for i in range(5000)))
    assert proc.returncode == 65
    assert "corrupt gzip data" in stderr_of(proc)
    assert proc.stdout == b""


# -- Odd but valid input -----------------------------------------------------


def test_empty_input_is_an_error_in_one_line() -> None:
    proc = run("-f", "jsonl", input=b"")
    assert proc.returncode == 65
    assert proc.stdout == b""
    assert (
        stderr_of(proc)
        == "bleustream: no segments in the input (<stdin>); --allow-empty scores it as 0\n"
    )


def test_empty_input_with_allow_empty_scores_zero_and_says_so() -> None:
    proc = run("-f", "jsonl", "--allow-empty", input=b"")
    assert proc.returncode == 0
    (record,) = json_records(proc.stdout)
    assert record["score"] == 0.0
    assert record["segments"] == 0
    assert record["hyp_len"] == record["ref_len"] == 0
    assert (
        stderr_of(proc)
        == "bleustream: no segments in the input (<stdin>); BLEU is 0 by definition\n"
    )


@pytest.mark.parametrize(
    "data, hyps, refs",
    [
        (b"\t\n\t\n", ["", ""], ["", ""]),  # empty segments
        (b"a b c\ta b c\r\nd e\td e f\r\n", ["a b c", "d e"], ["a b c", "d e f"]),  # CRLF
        ("\ufeffa b\ta b\n".encode(), ["\ufeffa b"], ["a b"]),  # byte-order mark is text
        (b"a\x00b c\ta\x00b c\n", ["a\x00b c"], ["a\x00b c"]),  # NUL is text
        (b"a b c\ta b d", ["a b c"], ["a b d"]),  # no final newline
    ],
)
def test_odd_input_scores_as_sacrebleu(data: bytes, hyps: list[str], refs: list[str]) -> None:
    proc = run("-f", "jsonl", input=data)
    assert proc.returncode == 0, proc.stderr
    (record,) = json_records(proc.stdout)
    expected = BLEU().corpus_score(hyps, [refs])
    assert record["score"] == expected.score
    assert (record["hyp_len"], record["ref_len"]) == (expected.sys_len, expected.ref_len)
    assert record["segments"] == len(hyps)


@pytest.mark.slow
def test_fifty_megabyte_line() -> None:
    rng = random.Random(50)
    words = [f"w{rng.getrandbits(64):x}" * 50 for _ in range(60_000)]
    hyp = " ".join(words)
    assert len(hyp) >= 50_000_000
    ref = " ".join(words[: len(words) // 2])
    proc = run("-f", "jsonl", input=f"{hyp}\t{ref}\n", timeout=300)
    assert proc.returncode == 0, proc.stderr
    (record,) = json_records(proc.stdout)
    expected = BLEU().corpus_score([hyp], [[ref]])
    assert record["score"] == expected.score
    assert record["counts"] == expected.counts


# -- --skip-bad-lines ----------------------------------------------------------


def test_skip_bad_lines_counts_and_reports() -> None:
    data = b"a b c\ta b c\nbad \xff\tx\nno tab here\nd e\td e\nf\tg\th\n"
    proc = run("--skip-bad-lines", "-f", "jsonl", input=data)
    assert proc.returncode == 0
    err = stderr_of(proc).splitlines()
    assert err[0] == "bleustream: <stdin>:2: invalid UTF-8 (byte 0xff at column 5) (line skipped)"
    assert err[1].startswith("bleustream: <stdin>:3: expected 2 tab-separated fields")
    assert err[2].startswith("bleustream: <stdin>:5: expected 2 tab-separated fields")
    assert err[3] == "bleustream: skipped 3 bad lines; the score covers 2 segments"
    (record,) = json_records(proc.stdout)
    assert record["skipped"] == 3
    assert record["segments"] == 2
    assert record["score"] == BLEU().corpus_score(["a b c", "d e"], [["a b c", "d e"]]).score
    text = run("--skip-bad-lines", input=data)
    assert text.stdout.decode().rstrip().endswith("[skipped 3 bad lines]")


def test_skip_bad_lines_in_lockstep_skips_the_whole_segment(tmp_path: Path) -> None:
    ref = tmp_path / "ref"
    ref.write_bytes(b"one two three four\nbad \xfe ref\nfive six seven eight\n")
    hyps = "one two three four\nx y\nfive six seven eight\n"
    proc = run(ref, "--skip-bad-lines", "-f", "jsonl", input=hyps)
    assert proc.returncode == 0
    (record,) = json_records(proc.stdout)
    assert record["segments"] == 2
    assert record["score"] == pytest.approx(100.0, abs=1e-9)


def test_skip_bad_lines_does_not_hide_length_mismatch(tmp_path: Path) -> None:
    ref = tmp_path / "ref"
    ref.write_text("one\n")
    proc = run(ref, "--skip-bad-lines", input="one\ntwo\n")
    assert proc.returncode == 65
    assert proc.stdout == b""


SYSTEM_LINES = ["the cat sat on the mat", "a dog ran in the park today", "birds sing at dawn"]


@pytest.mark.parametrize("bad", ["ref", "base", "other"])
@pytest.mark.parametrize("line", [2, 3], ids=["middle", "last"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_skip_bad_line_skips_it_in_every_system(
    tmp_path: Path, bad: str, line: int, jobs: str
) -> None:
    """A bad line of the references or of any system is skipped in every
    system, and the systems stay in step and of equal length."""
    texts = {
        name: "".join(f"{line}\n" for line in SYSTEM_LINES) for name in ("ref", "base", "other")
    }
    texts["other"] = texts["other"].replace("dog", "cat")
    for name, text in texts.items():
        lines = text.encode().splitlines(keepends=True)
        if name == bad:
            lines[line - 1] = lines[line - 1][:2] + b"\xff" + lines[line - 1][2:]
        (tmp_path / name).write_bytes(b"".join(lines))
    proc = run(
        "ref", "-i", "base", "other", "--skip-bad-lines", "-f", "jsonl", "-j", jobs, cwd=tmp_path
    )
    assert proc.returncode == 0, stderr_of(proc)
    assert stderr_of(proc).splitlines() == [
        f"bleustream: {bad}:{line}: invalid UTF-8 (byte 0xff at column 3) (line skipped)",
        "bleustream: skipped 1 bad line; the score covers 2 segments",
    ]
    records = json_records(proc.stdout)
    kept = [i for i in range(len(SYSTEM_LINES)) if i != line - 1]
    refs = [[SYSTEM_LINES[i] for i in kept]]
    for record, name in zip(records, ("base", "other")):
        hyps = [texts[name].splitlines()[i] for i in kept]
        assert record["system"] == name
        assert record["score"] == pytest.approx(BLEU().corpus_score(hyps, refs).score, abs=1e-9)
    assert len(records) == 2


def test_skip_bad_last_line_does_not_hide_a_short_system(tmp_path: Path) -> None:
    for name in ("ref", "base"):
        (tmp_path / name).write_bytes(b"one two\nthree four\nfive \xff six\n")
    (tmp_path / "other").write_text("one two\nthree four\n")
    proc = run("ref", "-i", "base", "other", "--skip-bad-lines", cwd=tmp_path)
    assert proc.returncode == 65
    assert proc.stdout == b""
    assert stderr_of(proc).splitlines()[-1] == (
        "bleustream: other: system file ended after line 2, but base has a line 3"
    )


# -- Nothing lost: signals and write errors --------------------------------------


@pytest.mark.parametrize(
    "signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
@pytest.mark.parametrize("fmt", ["jsonl", "tsv", "text"])
def test_signal_prints_partial_corpus_record(signum: int, status: int, fmt: str) -> None:
    proc = subprocess.Popen(
        [*COMMAND, "--every", "1", "-f", fmt],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        if fmt == "tsv":
            read_line(proc.stdout, timeout=20)  # the header
        for i in range(3):
            proc.stdin.write(f"the cat sat {i}\tthe cat sat {i}\n".encode())
            proc.stdin.flush()
            read_line(proc.stdout, timeout=20)
        proc.send_signal(signum)
        final = read_line(proc.stdout, timeout=20).decode()
        assert proc.wait(timeout=20) == status
        err = proc.stderr.read().decode()
    finally:
        proc.kill()
        proc.wait()
    assert err == "bleustream: interrupted; the score covers the 3 segments read so far\n"
    if fmt == "jsonl":
        (record,) = json_records(final.encode())
        assert record["type"] == "corpus"
        assert record["partial"] is True
        assert record["segments"] == 3
    elif fmt == "tsv":
        fields = final.rstrip("\n").split("\t")
        assert fields[0] == "corpus"
        assert fields[-1] == "1"  # the partial column
    else:
        assert final.startswith("BLEU|")
        assert "[PARTIAL: input interrupted after 3 segments]" in final


@pytest.mark.parametrize("metrics", [["bleu"], ["bleu", "chrf"], ["chrf"]])
@pytest.mark.skipif(not HAS_PROC, reason="waits for a sign read in /proc")
def test_signal_covers_the_segments_read_of_a_final_only_run(metrics: list[str]) -> None:
    """Without running records, the compiled kernels sum segments a batch at
    a time: a signal mid-batch still counts every segment read."""
    proc = subprocess.Popen(
        [*COMMAND, "-m", *metrics, "-f", "jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    try:
        for i in range(3):
            proc.stdin.write(f"the cat sat {i}\tthe cat sat {i}\n".encode())
        proc.stdin.flush()
        wait_until_waiting_for_input(proc)  # the lines are read; the run waits for more
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130
    assert err == b"bleustream: interrupted; the score covers the 3 segments read so far\n"
    records = json_records(out)
    assert [r["segments"] for r in records] == [3] * len(metrics)
    assert all(r["partial"] is True for r in records)
    assert round(records[0]["score"], 9) == 100.0


def assert_sigint_reports_nothing_read(args: list[str], stdin: int) -> None:
    """SIGINT once the run waits for its input (the kernel says so: see
    ``tests.helpers.waiting``): a partial record of 0 segments, status 130."""
    proc = subprocess.Popen(
        [*COMMAND, "-f", "jsonl", *args],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until_waiting_for_input(proc)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130
    assert b"Traceback" not in err
    (record,) = json_records(out)
    assert record["partial"] is True and record["segments"] == 0


@pytest.mark.skipif(not HAS_PROC, reason="waits for a sign read in /proc")
def test_signal_before_any_input_still_reports() -> None:
    assert_sigint_reports_nothing_read([], subprocess.PIPE)


def test_full_disk_exits_74() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("/dev/full is not available on this system")
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [*COMMAND], input=b"a\tb\n", stdout=full, stderr=subprocess.PIPE, timeout=60
        )
    assert proc.returncode == 74
    assert proc.stderr.decode() == "bleustream: write error: No space left on device\n"


def test_error_message_comes_before_any_score() -> None:
    proc = run("--every", "1", "-f", "jsonl", input=b"a\ta\nb\tb\n\xff\tc\nd\td\n")
    assert proc.returncode == 65
    records = json_records(proc.stdout)
    assert [r["type"] for r in records] == ["running", "running"]
    assert "corpus" not in {r["type"] for r in records}


# -- Seeded fuzzing through the real command --------------------------------------


FUZZ_FLAGS = [
    [],
    ["--skip-bad-lines"],
    ["-sl", "-f", "jsonl"],
    ["-f", "tsv", "--every", "2"],
    ["--encoding-errors", "replace"],
    ["-tok", "intl"],
    ["-tok", "zh", "-lc"],
]


def _random_bytes(rng: random.Random) -> bytes:
    alphabet = [b"a", b"b", b" ", b"\t", b"\n", b"\r", b".", b",", b"-", b"1", b"\xff", b"\xc3",
                b"\xa9", b"\x00", "中".encode(), b"&amp;", b"\xef\xbb\xbf"]  # fmt: skip
    return b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))


def _random_paste(rng: random.Random) -> tuple[bytes, list[str], list[list[str]]]:
    """Valid paste input and the segments it holds."""
    nrefs = rng.randint(1, 3)
    words = ["the", "cat", "1,000", "3.5", "a-b", "&quot;", "中文", "x", ""]
    hyps: list[str] = []
    refs: list[list[str]] = [[] for _ in range(nrefs)]
    lines = []
    for _ in range(rng.randint(1, 20)):
        fields = [
            " ".join(rng.choice(words) for _ in range(rng.randint(0, 8))) for _ in range(nrefs + 1)
        ]
        hyps.append(fields[0].rstrip())
        for stream, field in zip(refs, fields[1:]):
            stream.append(field.rstrip())
        lines.append("\t".join(fields) + rng.choice(["\n", "\r\n", " \n"]))
    return "".join(lines).encode(), hyps, refs


@pytest.mark.parametrize("seed", range(40))
def test_fuzz_arbitrary_bytes_never_crash(seed: int) -> None:
    rng = random.Random(seed)
    flags = rng.choice(FUZZ_FLAGS)
    proc = run(*flags, input=_random_bytes(rng))
    assert proc.returncode in DOCUMENTED_STATUSES
    assert_clean_stderr(proc)


@pytest.mark.parametrize("seed", range(25))
def test_fuzz_valid_structured_input_scores_as_sacrebleu(seed: int) -> None:
    rng = random.Random(1000 + seed)
    data, hyps, refs = _random_paste(rng)
    tok = rng.choice(["13a", "intl", "zh", "char", "none"])
    proc = run("-f", "jsonl", "-tok", tok, input=data)
    assert proc.returncode == 0, proc.stderr
    (record,) = json_records(proc.stdout)
    expected = BLEU(tokenize=tok).corpus_score(hyps, refs)
    assert abs(record["score"] - expected.score) <= 1e-9
    assert record["counts"] == expected.counts


@pytest.mark.parametrize("seed", range(15))
def test_fuzz_truncated_and_mangled_input(seed: int) -> None:
    rng = random.Random(2000 + seed)
    data, _, _ = _random_paste(rng)
    cut = data[: rng.randint(0, len(data))]
    mangled = bytearray(cut)
    for _ in range(rng.randint(0, 3)):
        if mangled:
            mangled[rng.randrange(len(mangled))] = rng.choice(b"\t\n\xff\x80")
    proc = run(input=bytes(mangled))
    assert proc.returncode in DOCUMENTED_STATUSES
    assert_clean_stderr(proc)


# -- Closed and unwritable standard streams, odd options ----------------------


def shell(
    command: str, input: bytes = b"", timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    """Run ``command`` in bash with bleustream as ``$B``."""
    return subprocess.run(
        ["bash", "-c", command],
        input=input,
        capture_output=True,
        timeout=timeout,
        env={**os.environ, "B": " ".join(COMMAND)},
    )


def test_closed_stdin_is_fine_when_not_read(tmp_path: Path) -> None:
    (tmp_path / "ref").write_text("a b c d\n")
    (tmp_path / "hyp").write_text("a b c d\n")
    proc = shell(f"cd {tmp_path} && $B ref -i hyp -b <&-")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"100.0\n"


def test_closed_stdin_when_it_is_the_input(tmp_path: Path) -> None:
    (tmp_path / "ref").write_text("a\n")
    proc = shell(f"cd {tmp_path} && $B ref <&-")
    assert proc.returncode == 66
    assert stderr_of(proc) == "bleustream: <stdin>: standard input is closed\n"


@pytest.mark.parametrize("extra", [[], ["--show-config"]])
def test_closed_stdout(extra: list[str]) -> None:
    proc = shell(f"$B {' '.join(extra)} >&-", input=b"a\ta\n")
    assert proc.returncode == 74
    assert stderr_of(proc) == "bleustream: standard output is closed\n"


def test_help_into_a_full_disk() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("/dev/full is not available on this system")
    proc = shell("$B --help > /dev/full")
    assert proc.returncode == 74
    assert stderr_of(proc).startswith("bleustream: write error")


def test_unwritable_stderr_keeps_the_status(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    assert shell(f"$B ref -i {missing} 2>&-").returncode == 66
    assert shell("$B 2>&-", input=b"").returncode == 65
    assert shell("$B --allow-empty 2>&-", input=b"").returncode == 0


@pytest.mark.parametrize(
    "encoding, status, message",
    [
        ("rot13", 2, "bleustream: 'rot13' is not a text encoding\n"),
        ("base64", 2, "bleustream: 'base64' is not a text encoding\n"),
        ("\udcff", 2, "bleustream: unknown encoding '\\udcff'\n"),
        ("utf-8-sig", 2, "bleustream: encoding 'utf-8-sig' cannot be read line by line"),
    ],
)
def test_unusable_codecs(encoding: str, status: int, message: str) -> None:
    proc = run("--encoding", encoding, input=b"a\ta\n")
    assert proc.returncode == status
    assert stderr_of(proc).startswith(message)


def test_codec_that_fails_without_a_position() -> None:
    proc = run("--encoding", "idna", input=b"ok\tok\nxn--zz\tq\n")
    assert proc.returncode == 65
    assert stderr_of(proc).startswith("bleustream: <stdin>:2: invalid idna (")


@pytest.mark.parametrize("fmt", ["text", "tsv", "jsonl"])
def test_ids_that_decode_to_lone_surrogates_are_written_escaped(tmp_path: Path, fmt: str) -> None:
    # UTF-7 decodes "+2D0-" to a lone surrogate, which UTF-8 cannot write.
    refs = tmp_path / "refs.tsv"
    refs.write_bytes(b"+2D0-\ta b\n")
    proc = run("--encoding", "utf-7", "--input-format", "keyed", "--keyed-refs", refs,
               "-sl", "-f", fmt, input=b"+2D0-\ta b\n")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert_clean_stderr(proc)
    first = proc.stdout.decode("utf-8").splitlines()[1 if fmt == "tsv" else 0]
    assert "\\ud83d" in first


@pytest.mark.parametrize(
    "args, message",
    [
        (["-w", "99999999999"], "argument -w/--width: must be a whole number from 0 to 30"),
        (["--max-ngram-order", "99999999999999"], "must be a whole number from 1 to 100"),
        (["-s", "floor", "-sv", "1e308"], "must be a number from 0 to 1000000"),
        (["-s", "floor", "-sv", "nan"], "must be a number from 0 to 1000000"),
        (
            ["-j", "100000"],
            "argument -j/--jobs/--paired-jobs: must be a whole number from 0 to 1024",
        ),
    ],
)
def test_absurd_numbers_are_usage_errors(args: list[str], message: str) -> None:
    proc = run(*args, input=b"a\ta\n")
    assert proc.returncode == 2
    assert message in stderr_of(proc)


@pytest.mark.skipif(not HAS_PROC, reason="waits for a sign read in /proc")
def test_signal_while_opening_a_fifo_still_reports(tmp_path: Path) -> None:
    fifo = tmp_path / "hyp.fifo"
    os.mkfifo(fifo)  # opening it blocks until a writer comes, which never does
    assert_sigint_reports_nothing_read(["-", "-i", str(fifo)], subprocess.DEVNULL)


def test_all_lines_skipped_is_not_called_empty_input() -> None:
    proc = run("--skip-bad-lines", input=b"\xff\tx\n")
    assert proc.returncode == 0
    err = stderr_of(proc)
    assert "no segments in the input" not in err
    assert "skipped 1 bad line; the score covers 0 segments" in err
    assert proc.stdout.decode().rstrip().endswith("[skipped 1 bad line]")
