"""Hypotheses on standard input with REF files, as the command reads them.

A tab in any line, the first line's fields, a lone carriage return, and an
input with no segment: each through the real command, against the real
``sacrebleu`` command where SacreBLEU is the reference (``--compat
sacrebleu``), else against what the manual says.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REAL_DATA, REAL_DATA_MISSING
from tests.helpers.clirun import assert_clean_stderr, run

SACREBLEU = [sys.executable, "-m", "sacrebleu"]
WMT17 = REAL_DATA / "sacrebleu-wmt17-en-de"
LINES = 40
COMPAT = ("--compat", "sacrebleu")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 40 lines of the WMT17 en-de reference (``ref``) and of one system."""
    if not WMT17.is_dir():
        pytest.skip(REAL_DATA_MISSING)
    where = tmp_path_factory.mktemp("stdin")
    for name, to in (
        ("newstest2017.en-de.ref.de", "ref"),
        ("newstest2017.hyp.FBK.4870.en-de.de", "hyp"),
    ):
        lines = (WMT17 / name).read_bytes().splitlines(keepends=True)[:LINES]
        (where / to).write_bytes(b"".join(lines))
    return where


def hyp_lines(data: Path) -> list[bytes]:
    return (data / "hyp").read_bytes().splitlines()


def sacrebleu(
    *args: str | Path, cwd: Path, input: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*SACREBLEU, *map(str, args)], input=input, capture_output=True, cwd=cwd, timeout=300
    )


def masked(text: bytes) -> bytes:
    """Output with bleustream's version field written as SacreBLEU's."""
    return text.replace(b"bleustream-0.2.0", b"2.6.0")


def sacrebleu_words(proc: subprocess.CompletedProcess[bytes]) -> str:
    """SacreBLEU's one error line, without its ``sacreBLEU: `` prefix."""
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith("sacreBLEU: "), line
    return line.removeprefix("sacreBLEU: ")


def assert_one_error(proc: subprocess.CompletedProcess[bytes], status: int, where: str) -> str:
    """No score, one clean stderr line that starts at ``where``; its text."""
    assert_clean_stderr(proc)
    assert (proc.returncode, proc.stdout) == (status, b""), proc.stderr.decode()
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith(f"bleustream: {where}"), line
    return line.removeprefix(f"bleustream: {where}")


def with_tab(lines: list[bytes], line: int, tail: bytes = b"") -> bytes:
    """The lines, line ``line`` (from 1) with its second word after a tab;
    the first line ends in ``tail``."""
    out = list(lines)
    out[line - 1] = out[line - 1].replace(b" ", b"\t", 1)
    out[0] += tail
    return b"".join(text + b"\n" for text in out)


# --------------------------------------------------------------------------
# A tab in any line: the first line's number of fields, or an error at the line
# --------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(("tab_line", "error_line"), [(11, 11), (1, 2)])
def test_a_tab_in_any_line_is_an_error_naming_it(
    data: Path, tab_line: int, error_line: int, jobs: str
) -> None:
    stdin = with_tab(hyp_lines(data), tab_line)
    proc = run("ref", "-j", jobs, input=stdin, cwd=data)
    text = assert_one_error(proc, 65, f"<stdin>:{error_line}: ")
    assert "tab-separated" in text


@pytest.mark.parametrize("args", [(), ("-sl",), ("-f", "text", "-m", "bleu", "chrf")])
@pytest.mark.parametrize(("tab_line", "error_line"), [(11, 11), (1, 2)])
def test_a_tab_in_any_line_is_sacrebleus_refusal_in_compat_mode(
    data: Path, tab_line: int, error_line: int, args: tuple[str, ...]
) -> None:
    stdin = with_tab(hyp_lines(data), tab_line)
    theirs = sacrebleu("ref", *args, input=stdin, cwd=data)
    ours = run(*COMPAT, "ref", *args, input=stdin, cwd=data)
    if "-sl" in args and tab_line == 11:
        # Segment lines are written as they are scored, before line 11 is read.
        assert ours.stdout.count(b"\n") == error_line - 1
        ours = subprocess.CompletedProcess(ours.args, ours.returncode, b"", ours.stderr)
    assert theirs.returncode == 17
    text = assert_one_error(ours, theirs.returncode, f"<stdin>:{error_line}: ")
    assert text == sacrebleu_words(theirs)


def test_a_first_line_ending_in_an_empty_field_is_one_system(data: Path) -> None:
    """Line 1 ends in a tab: one system (the line is right-stripped first),
    so a tab inside a later line is an error, in both modes."""
    stdin = with_tab(hyp_lines(data), 11, tail=b"\t")
    own = run("ref", input=stdin, cwd=data)
    assert "where the first line has 1" in assert_one_error(own, 65, "<stdin>:11: ")
    theirs = sacrebleu("ref", input=stdin, cwd=data)
    ours = run(*COMPAT, "ref", input=stdin, cwd=data)
    assert assert_one_error(ours, theirs.returncode, "<stdin>:11: ") == sacrebleu_words(theirs)


def test_lines_ending_in_an_empty_field_are_one_system_as_in_sacrebleu(data: Path) -> None:
    stdin = b"".join(text + b"\t\n" for text in hyp_lines(data))
    theirs = sacrebleu("ref", "-m", "bleu", "chrf", input=stdin, cwd=data)
    ours = run(*COMPAT, "ref", "-m", "bleu", "chrf", input=stdin, cwd=data)
    assert theirs.returncode == ours.returncode == 0, ours.stderr.decode()
    assert masked(ours.stdout) == theirs.stdout


def test_several_stdin_systems_with_sl_are_sacrebleus_refusal_in_compat_mode(data: Path) -> None:
    stdin = b"".join(text + b"\t" + text + b"\n" for text in hyp_lines(data))
    theirs = sacrebleu("ref", "-sl", input=stdin, cwd=data)
    ours = run(*COMPAT, "ref", "-sl", input=stdin, cwd=data)
    assert theirs.returncode == 1
    assert assert_one_error(ours, theirs.returncode, "") == sacrebleu_words(theirs)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_paste_fields_are_checked_on_every_line_with_jobs(tmp_path: Path, jobs: str) -> None:
    """Past the first block of -j's block reader (8,192 lines) too."""
    lines = [b"a b c\ta b d\n"] * 8300
    lines[8249] = b"a b c\ta b d\tx\n"
    (tmp_path / "paste.tsv").write_bytes(b"".join(lines))
    proc = run("-j", jobs, "-i", "paste.tsv", cwd=tmp_path)
    text = assert_one_error(proc, 65, "paste.tsv:8250: ")
    assert text == "expected 2 tab-separated fields as on the first line, found 3"
    piped = run("-j", jobs, input=b"".join(lines))
    assert assert_one_error(piped, 65, "<stdin>:8250: ") == text


# --------------------------------------------------------------------------
# A lone carriage return
# --------------------------------------------------------------------------


def joined_by_carriage_returns(data: Path) -> bytes:
    """The hypotheses with lines 3 and 4 parted by a lone ``\\r``, and lines 6
    to 8 ending in ``\\r\\n``: 40 lines read with universal newlines, 39
    lines ending at ``\\n``."""
    ends = {3: b"\r", 6: b"\r\n", 7: b"\r\n", 8: b"\r\n"}
    return b"".join(text + ends.get(n, b"\n") for n, text in enumerate(hyp_lines(data), 1))


@pytest.mark.parametrize("args", [(), ("-f", "text", "-m", "bleu", "chrf", "ter"), ("-sl",)])
def test_compat_mode_reads_stdin_with_universal_newlines_as_sacrebleu(
    data: Path, args: tuple[str, ...]
) -> None:
    stdin = joined_by_carriage_returns(data)
    theirs = sacrebleu("ref", *args, input=stdin, cwd=data)
    ours = run(*COMPAT, "ref", *args, input=stdin, cwd=data)
    assert theirs.returncode == ours.returncode == 0, ours.stderr.decode()
    assert masked(ours.stdout) == theirs.stdout


def test_compat_mode_reads_stdin_with_universal_newlines_with_jobs(data: Path) -> None:
    stdin = joined_by_carriage_returns(data)
    one = run(*COMPAT, "ref", "-f", "text", input=stdin, cwd=data)
    two = run(*COMPAT, "ref", "-f", "text", "-j", "2", input=stdin, cwd=data)
    assert one.returncode == two.returncode == 0, two.stderr.decode()
    assert two.stdout == one.stdout


def test_bleustream_ends_lines_at_newlines_only(data: Path) -> None:
    stdin = joined_by_carriage_returns(data)
    proc = run("ref", input=stdin, cwd=data)
    assert "<stdin> ended after line 39" in assert_one_error(proc, 65, "ref:40: ")


@pytest.mark.parametrize("compat", [(), COMPAT])
def test_a_carriage_return_inside_a_line_of_a_file_is_text(
    data: Path, compat: tuple[str, ...]
) -> None:
    """SacreBLEU reads its files with lines ending at ``\\n``: a ``-i`` file
    in both modes, and stdin in bleustream's own, read as it does."""
    lines = hyp_lines(data)
    lines[2] = lines[2].replace(b" ", b"\r", 3)
    (data / "hyp.cr").write_bytes(b"".join(text + b"\n" for text in lines))
    theirs = sacrebleu("ref", "-i", "hyp.cr", "-f", "text", cwd=data)
    assert theirs.returncode == 0
    from_file = run(*compat, "ref", "-i", "hyp.cr", "-f", "text", cwd=data)
    assert masked(from_file.stdout) == theirs.stdout
    if not compat:
        from_stdin = run("ref", "-f", "text", input=(data / "hyp.cr").read_bytes(), cwd=data)
        assert masked(from_stdin.stdout) == theirs.stdout


# --------------------------------------------------------------------------
# No segment to score: never status 0 with nothing on stdout
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        (*COMPAT, "-sl", "--skip-bad-lines", "ref"),
        ("-sl", "-b", "--skip-bad-lines", "ref"),
        ("-m", "nist", "-sl", "-b", "--skip-bad-lines", "--", "ref"),
    ],
)
def test_every_line_skipped_without_a_corpus_record_is_empty_input(
    data: Path, args: tuple[str, ...]
) -> None:
    proc = run(*args, input=b"\xff\n" * LINES, cwd=data)
    assert_clean_stderr(proc)
    assert (proc.returncode, proc.stdout) == (65, b"")
    *skipped, last = proc.stderr.decode().splitlines()
    assert len(skipped) == LINES and all("(line skipped)" in line for line in skipped)
    assert last == (
        f"bleustream: no segments in the input (<stdin>; {LINES} bad lines skipped); "
        "--allow-empty scores it as 0"
    )


@pytest.mark.parametrize(
    "args",
    [
        ("-m", "nist"),
        ("-m", "nist", "-sl", "-b"),
        ("-m", "nist", "-f", "json"),
        ("-m", "nist", "-f", "stats"),
        ("-sl", "-b"),
        (*COMPAT, "-sl"),
    ],
)
def test_empty_input_is_status_65_in_one_line(tmp_path: Path, args: tuple[str, ...]) -> None:
    (tmp_path / "ref").write_bytes(b"")
    for operands in (("--", "ref"), ()):  # REF files, or paste input
        proc = run(*args, *operands, cwd=tmp_path)
        if args[0] == COMPAT[0] and operands:
            # SacreBLEU reads an empty stdin as one empty line, longer than the reference.
            message = assert_one_error(proc, 1, "")
            assert message == "System and reference streams have different lengths."
            continue
        message = assert_one_error(proc, 65, "")
        assert message == "no segments in the input (<stdin>); --allow-empty scores it as 0"


def test_empty_input_with_allow_empty_prints_nists_zero() -> None:
    proc = run("-m", "nist", "--allow-empty", "-f", "json")
    assert proc.returncode == 0
    assert '"score": 0.0' in proc.stdout.decode()
    assert proc.stderr.decode() == (
        "bleustream: no segments in the input (<stdin>); NIST is 0 by definition\n"
    )
