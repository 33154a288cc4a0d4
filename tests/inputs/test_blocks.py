"""The plain case read a block at a time (``inputs.blocks``), through the
command, against the same input read a line at a time.

A run that writes only its final scores (``-b``, the final record) reads
REF files in lockstep, or paste lines, a block of bytes at a time; a run
with ``--every N`` reads a line at a time, and with N beyond the input it
writes the same bytes.  Each case runs both ways and must give the same
standard output, standard error and exit status: the scores (which the
line path's own tests hold to SacreBLEU's), and every error at the same
line with the same words.  The inputs cross the 64 KiB blocks: long
files, lines longer than a block, a bad byte at a block's edge.
"""

from __future__ import annotations

import gzip
import random
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from bleustream.inputs.blocks import BLOCK_BYTES
from tests.helpers.adversarial import distinct_segments
from tests.helpers.clirun import COMMAND, assert_clean_stderr, run
from tests.helpers.reader_fuzz import check_once

LINE_BY_LINE = ("--every", "1000000000")  # no running record: the same output


def both_ways(
    *args: str | Path, input: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The block run, after checking that the line run gives the same bytes."""
    blocks = run(*args, input=input, cwd=cwd)
    lines = run(*args, *LINE_BY_LINE, input=input, cwd=cwd)
    assert_clean_stderr(blocks)
    assert (blocks.returncode, blocks.stderr) == (lines.returncode, lines.stderr)
    assert blocks.stdout == lines.stdout
    return blocks


def write(path: Path, lines: Sequence[str], end: str = "\n", last: bool = True) -> Path:
    text = end.join(lines) + (end if last and lines else "")
    path.write_bytes(text.encode("utf-8"))
    return path


def corpus(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` lines of adversarial text, each made of six distinct segments."""
    pieces = list(distinct_segments(6 * n, seed))
    hyps = [" ".join(hyp for hyp, _ in pieces[i : i + 6]) for i in range(0, 6 * n, 6)]
    refs = [" ".join(ref for _, (ref,) in pieces[i : i + 6]) for i in range(0, 6 * n, 6)]
    return hyps, refs


@pytest.mark.parametrize("metrics", [("bleu",), ("bleu", "chrf", "ter")])
def test_files_of_many_blocks_score_as_line_by_line(tmp_path: Path, metrics: tuple) -> None:
    hyps, refs = corpus(3000)
    hyp, ref = write(tmp_path / "hyp", hyps), write(tmp_path / "ref", refs)
    assert hyp.stat().st_size > 3 * BLOCK_BYTES
    other = write(tmp_path / "ref2", list(reversed(refs)))
    done = both_ways(ref, other, "-i", hyp, "-m", *metrics, "-b")
    assert done.returncode == 0 and len(done.stdout.split()) == len(metrics)
    piped = both_ways(ref, "-m", *metrics, "-b", input=hyp.read_bytes())
    assert piped.stdout == run(ref, "-i", hyp, "-m", *metrics, "-b").stdout
    paste = "".join(f"{h}\t{r}\t{o}\n" for h, r, o in zip(hyps, refs, reversed(refs)))
    pasted = both_ways("-m", *metrics, "-b", input=paste.encode())
    assert pasted.stdout == done.stdout


@pytest.mark.parametrize(
    "options",
    [("-tok", "zh"), ("-lc",), ("-tok", "intl"), ("--max-ngram-order", "2"), ("-tok", "none")],
)
def test_bleu_settings_as_line_by_line(tmp_path: Path, options: tuple) -> None:
    """BLEU's kernel reads the blocks' bytes itself where it tokenizes as
    the settings say (13a, zh), and they are decoded first where not."""
    hyps, refs = corpus(1500, seed=11)
    hyps[3::9] = [h + " ." for h in hyps[3::9]]  # the tokenized-period count
    hyp, ref = write(tmp_path / "hyp", hyps), write(tmp_path / "ref", refs)
    other = write(tmp_path / "ref2", list(reversed(refs)))
    done = both_ways(ref, other, "-i", hyp, *options, "-b")
    assert done.returncode == 0 and done.stdout.strip()
    both_ways(ref, *options, "-f", "jsonl", input=hyp.read_bytes())


# Bytes that bytes.decode("utf-8") refuses: stray, overlong, surrogate, past
# U+10FFFF, cut short by the line's end; and well-formed ones beside them.
BAD_UTF8 = [
    b"\x80",
    b"\xc0\xaf",
    b"\xe0\x9f\xbf",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xe4\xb8",
]


@pytest.mark.parametrize("bad", BAD_UTF8, ids=lambda b: b.hex())
@pytest.mark.parametrize("where", ["hyp", "second-ref"])
def test_each_kind_of_bad_utf8_is_named_as_line_by_line(
    tmp_path: Path, bad: bytes, where: str
) -> None:
    hyps, refs = corpus(900, seed=13)
    index = 611
    lines = {"hyp": hyps, "second-ref": list(refs)}[where]
    data = [line.encode() for line in lines]
    data[index] = data[index][:5] + "é中".encode() + bad  # at the line's end
    hyp, ref = write(tmp_path / "hyp", hyps), write(tmp_path / "ref", refs)
    (tmp_path / where).write_bytes(b"\n".join(data) + b"\n")
    if where == "hyp":
        hyp = tmp_path / "hyp"
    done = both_ways(ref, tmp_path / "second-ref" if where != "hyp" else ref, "-i", hyp, "-b")
    assert done.returncode == 65
    assert done.stderr.decode().startswith(f"bleustream: {tmp_path / where}:{index + 1}: invalid")


def test_bad_utf8_replaced_as_line_by_line(tmp_path: Path) -> None:
    """With ``--encoding-errors replace`` a block that is not UTF-8 is
    decoded by the reader (the kernels take UTF-8 only), U+FFFD in place of
    each bad byte, as a line read alone has it."""
    hyps, refs = corpus(1200, seed=17)
    data = [line.encode() for line in hyps]
    for index in (0, 400, 401, 1199):
        data[index] = data[index][:3] + BAD_UTF8[index % len(BAD_UTF8)] + data[index][3:]
    hyp, ref = tmp_path / "hyp", write(tmp_path / "ref", refs)
    hyp.write_bytes(b"\n".join(data) + b"\n")
    done = both_ways(ref, "-i", hyp, "-b", "--encoding-errors", "replace", "-m", "bleu", "chrf")
    assert done.returncode == 0 and len(done.stdout.split()) == 2
    paste = b"".join(h + b"\t" + r.encode() + b"\n" for h, r in zip(data, refs))
    pasted = both_ways("-b", "--encoding-errors", "replace", "-m", "bleu", "chrf", input=paste)
    assert pasted.stdout == done.stdout


@pytest.mark.parametrize(
    "case",
    ["crlf", "no-final-newline", "empty-lines", "trailing-space", "long-lines", "empty"],
)
def test_line_ends_and_lengths_as_line_by_line(tmp_path: Path, case: str) -> None:
    hyps, refs = corpus(400, seed=3)
    end, last = "\n", True
    if case == "crlf":
        end = "\r\n"
    elif case == "no-final-newline":
        last = False
    elif case == "empty-lines":
        hyps[::7] = [""] * len(hyps[::7])
        refs[::5] = [""] * len(refs[::5])
    elif case == "trailing-space":
        hyps = [h + " \t " for h in hyps]
        refs = [r + "\u3000 " for r in refs]
    elif case == "long-lines":  # lines longer than a block
        hyps[10] = " ".join(hyps[:300] * 3)
        refs[10] = " ".join(refs[:300] * 3)
        assert len(hyps[10].encode()) > BLOCK_BYTES
    elif case == "empty":
        hyps, refs = [], []
    hyp = write(tmp_path / "hyp", hyps, end, last)
    ref = write(tmp_path / "ref", refs, end, last)
    metrics = ("bleu", "chrf") if case == "long-lines" else ("bleu", "chrf", "ter")
    both_ways(ref, "-i", hyp, "-m", *metrics, "--allow-empty")
    both_ways(ref, "-b", "--allow-empty", input=hyp.read_bytes())
    paste = "".join(f"{h}\t{r}{end}" for h, r in zip(hyps, refs))
    both_ways("-b", "--allow-empty", input=paste.encode())


def test_gzip_references_as_line_by_line(tmp_path: Path) -> None:
    hyps, refs = corpus(2500, seed=5)
    hyp = write(tmp_path / "hyp", hyps)
    ref = tmp_path / "ref.gz"
    ref.write_bytes(gzip.compress("".join(r + "\n" for r in refs).encode()))
    done = both_ways(ref, "-i", hyp, "-b")
    assert done.stdout == run(write(tmp_path / "ref", refs), "-i", hyp, "-b").stdout


def bad_at(path: Path, lines: list[str], index: int, offset: int) -> Path:
    """``lines`` with byte 0xff in line ``index``, at ``offset`` of the file
    when it fits there (the line is padded to reach it)."""
    head = "".join(line + "\n" for line in lines[:index]).encode()
    pad = max(0, offset - len(head))
    bad = b"x" * pad + b"\xff" + lines[index].encode()
    tail = "".join(line + "\n" for line in lines[index + 1 :]).encode()
    path.write_bytes(head + bad + b"\n" + tail)
    return path


@pytest.mark.parametrize("where", ["hyp", "ref", "both", "ref-first"])
def test_an_undecodable_line_at_a_block_edge_is_named_as_line_by_line(
    tmp_path: Path, where: str
) -> None:
    hyps, refs = corpus(2000, seed=7)
    index = 500
    hyp, ref = write(tmp_path / "hyp", hyps), write(tmp_path / "ref", refs)
    if where in ("hyp", "both"):
        bad_at(hyp, hyps, index, BLOCK_BYTES)
    if where in ("ref", "both"):
        bad_at(ref, refs, index, BLOCK_BYTES)
    if where == "ref-first":
        bad_at(hyp, hyps, index + 100, BLOCK_BYTES + 7)
        bad_at(ref, refs, index - 1, BLOCK_BYTES - 3)
    done = both_ways(ref, "-i", hyp, "-b")
    name, line = {
        "hyp": ("hyp", index + 1),
        "ref": ("ref", index + 1),
        "both": ("hyp", index + 1),
        "ref-first": ("ref", index),
    }[where]
    assert done.returncode == 65
    assert done.stderr.decode().startswith(f"bleustream: {tmp_path / name}:{line}: invalid UTF-8")


@pytest.mark.parametrize("longer", ["hyp", "ref", "second-ref"])
def test_streams_of_different_lengths_as_line_by_line(tmp_path: Path, longer: str) -> None:
    hyps, refs = corpus(1500, seed=9)
    n = len(hyps)
    hyp = write(tmp_path / "hyp", hyps + ["one more"] * (longer == "hyp"))
    ref = write(tmp_path / "ref", refs + ["one more"] * (longer == "ref"))
    ref2 = write(tmp_path / "ref2", refs + ["one more"] * (longer == "second-ref"))
    done = both_ways(ref, ref2, "-i", hyp, "-b")
    assert done.returncode != 0 and str(n) in done.stderr.decode()


@pytest.mark.parametrize("case", ["no-tab", "fewer-fields", "more-fields"])
def test_paste_fields_as_line_by_line(case: str) -> None:
    hyps, refs = corpus(1200, seed=11)
    lines = [f"{h}\t{r}" for h, r in zip(hyps, refs)]
    if case == "no-tab":
        lines[0] = hyps[0]
    elif case == "fewer-fields":
        lines[900] = hyps[900]
    else:
        lines[900] += "\tthird"
    done = both_ways("-b", input="".join(line + "\n" for line in lines).encode())
    assert done.returncode == 65
    assert f":{1 if case == 'no-tab' else 901}:" in done.stderr.decode()


def test_a_tab_in_a_later_hypothesis_on_stdin_as_line_by_line(tmp_path: Path) -> None:
    """With REF files, stdin's first line fixes its systems (one here)."""
    hyps, refs = corpus(1000, seed=13)
    hyps[700] += "\tsecond system?"
    ref = write(tmp_path / "ref", refs)
    done = both_ways(ref, "-b", input="".join(h + "\n" for h in hyps).encode())
    assert done.returncode == 65 and ":701:" in done.stderr.decode()


def test_a_pipe_that_gives_pieces_of_lines(tmp_path: Path) -> None:
    """Reads that end inside a line, or inside a character, score as a file."""
    hyps, refs = corpus(800, seed=17)
    hyps = [h + " é中" for h in hyps]
    ref = write(tmp_path / "ref", refs)
    data = "".join(h + "\n" for h in hyps).encode()
    child = subprocess.Popen(
        [*COMMAND, str(ref), "-b"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdin is not None
    for start in range(0, len(data), 4093):  # odd pieces: a read takes what is there
        child.stdin.write(data[start : start + 4093])
        child.stdin.flush()
    child.stdin.close()
    assert child.stdout is not None
    out = child.stdout.read()
    assert child.wait(timeout=60) == 0
    assert out == run(ref, "-b", "-i", write(tmp_path / "hyp", hyps)).stdout


@pytest.mark.parametrize("seed", range(4))
def test_the_block_reader_reads_random_bytes_as_the_line_reader(seed: int) -> None:
    """The differential fuzz (tests/helpers/reader_fuzz.py), 150 inputs a seed."""
    rng = random.Random(seed)
    errors = 0
    for _ in range(150):
        lines, blocks = check_once(rng)
        assert blocks == lines
        errors += bool(lines) and isinstance(lines[-1][0], str) and lines[-1][0].endswith("Error")
    assert errors  # some inputs stop at an error
