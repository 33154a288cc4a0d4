"""``--analyze``'s inputs beside the hypotheses, through the real command:
``--src``, ``--freq-corpus`` and ``--freq-counts`` decoded as the input is
(``--encoding``, ``--encoding-errors``), a bad byte one line naming the file,
the line and the column; analysis records read from the operands, ``-i`` or
stdin, bad bytes among them refused the same way; and, with a terminal as
stdin, a line saying what the run waits for there."""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path

import pytest

from tests.helpers.clirun import COMMAND, assert_clean_stderr, run

pytest.importorskip("numpy")


@pytest.fixture
def texts(tmp_path: Path) -> Path:
    """compare-mt's argument order's files: a reference and two systems."""
    (tmp_path / "ref").write_text("a b c\nthe cat sat\n", encoding="utf-8")
    (tmp_path / "A").write_text("a b c\nthe cat sat\n", encoding="utf-8")
    (tmp_path / "B").write_text("a b\nthe dog sat\n", encoding="utf-8")
    return tmp_path


def analyze(
    folder: Path, *args: object, input: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return run(
        folder / "ref",
        "-i",
        folder / "A",
        folder / "B",
        "--analyze",
        "-f",
        "json",
        *args,
        input=input,
    )


def refused(proc: subprocess.CompletedProcess[bytes], where: str, message: str) -> None:
    """Status 65, nothing on stdout, one line at ``where`` saying ``message``."""
    assert proc.returncode == 65, proc.stderr
    assert proc.stdout == b""
    assert_clean_stderr(proc)
    (line,) = proc.stderr.decode().splitlines()
    assert line == f"bleustream: {where}: {message}", line


BAD_BYTE = "invalid UTF-8 (byte 0xff at column 2)"


@pytest.mark.parametrize("option", ["--src", "--freq-corpus", "--freq-counts"])
def test_a_bad_byte_in_a_side_input_names_its_file_and_line(texts: Path, option: str) -> None:
    side = texts / "side.txt"
    side.write_bytes(b"one\t1\nt\xffwo\t3\n")
    refused(analyze(texts, option, side), f"{side}:2", BAD_BYTE)


def test_the_source_is_decoded_as_the_input_is(texts: Path) -> None:
    side = texts / "src.txt"
    side.write_bytes(b"eins\nzw\xf6lf\n")
    replaced = analyze(texts, "--src", side, "--encoding-errors", "replace")
    assert replaced.returncode == 0, replaced.stderr
    sources = {
        e["source"]
        for c in json.loads(replaced.stdout)["examples"]["compared"]
        for e in c["better"] + c["worse"]
    }
    assert sources == {"eins", "zw\ufffdlf"}
    refs = [texts / name for name in ("ref", "A", "B")]
    for path in refs:
        path.write_bytes(path.read_text(encoding="utf-8").encode("latin-1"))
    latin = analyze(texts, "--src", side, "--encoding", "latin-1")
    assert latin.returncode == 0, latin.stderr
    sources = {
        e["source"]
        for c in json.loads(latin.stdout)["examples"]["compared"]
        for e in c["better"] + c["worse"]
    }
    assert sources == {"eins", "zwölf"}


def test_a_training_corpus_skips_nothing_silently(texts: Path) -> None:
    """With --encoding-errors replace the corpus's words are counted as
    decoded; strict, the bad line stops the run."""
    corpus = texts / "train.txt"
    corpus.write_bytes(b"the the cat\nd\xffg\n")
    proc = analyze(texts, "--freq-corpus", corpus, "--encoding-errors", "replace")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["word_accuracy"]["frequency_from"] == f"corpus {corpus}"
    refused(
        analyze(texts, "--freq-corpus", corpus),
        f"{corpus}:2",
        "invalid UTF-8 (byte 0xff at column 2)",
    )


def shard(texts: Path) -> bytes:
    proc = run(texts / "ref", "-i", texts / "A", texts / "B", "--analyze", "-f", "stats")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_records_are_read_from_dash_i_not_stdin(texts: Path) -> None:
    """``-i SHARD`` is read as the operands are; stdin is left alone."""
    path = texts / "part.stats"
    path.write_bytes(shard(texts))
    whole = analyze(texts)
    from_operand = run("--input-format", "stats", "--analyze", "-f", "json", path)
    from_dash_i = run(
        "--input-format", "stats", "--analyze", "-f", "json", "-i", path, input=b"not read\n"
    )
    for proc in (from_operand, from_dash_i):
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == whole.stdout


@pytest.mark.parametrize("where", ["operand", "-i", "stdin"])
def test_a_bad_byte_in_an_analysis_record(texts: Path, where: str) -> None:
    record = shard(texts)
    cut = record.index(b'"A"') + 1
    bad = record[:cut] + b"\xff" + record[cut:]
    path = texts / "part.stats"
    path.write_bytes(record + bad)
    column = cut + 1
    message = f"invalid UTF-8 (byte 0xff at column {column})"
    if where == "stdin":
        proc = run("--input-format", "stats", "--analyze", input=record + bad)
        refused(proc, "<stdin>:2", message)
    else:
        flag = ("-i",) if where == "-i" else ()
        proc = run("--input-format", "stats", "--analyze", *flag, path)
        refused(proc, f"{path}:2", message)


def first_line_with_a_terminal(*args: object) -> tuple[bytes, int]:
    """The first line on stderr of the command run with a pseudo-terminal as
    stdin, then the status once the terminal sends end of input (Ctrl-D)."""
    leader, follower = os.openpty()
    proc = subprocess.Popen(
        [*COMMAND, *map(str, args)], stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    os.close(follower)
    try:
        assert proc.stderr is not None
        # The sign waited for; the bound only keeps a hung run from hanging the suite.
        ready, _, _ = select.select([proc.stderr], [], [], 120)
        assert ready, "nothing on stderr while the command waits on the terminal"
        line = proc.stderr.readline()
        os.write(leader, b"\x04")
        proc.communicate(timeout=120)
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return line, proc.returncode


WAITING = (
    b"bleustream: reading hypotheses from the terminal (standard input) until Ctrl-D; "
    b"give files with -i FILE...\n"
)


def test_compare_mts_argument_order_says_what_it_waits_for(texts: Path) -> None:
    """``REF SYS1 SYS2 --analyze`` reads three references and the hypotheses
    from stdin: on a terminal, one line says so."""
    line, status = first_line_with_a_terminal(texts / "ref", texts / "A", texts / "B", "--analyze")
    assert line == WAITING
    assert status == 65  # no hypotheses: the references have more lines


def test_any_run_reading_a_terminal_says_so(texts: Path) -> None:
    line, _ = first_line_with_a_terminal(texts / "ref")
    assert line == WAITING
