"""``-j N`` on regular files: the workers read blocks of lines themselves.

When a run needs only sums (no segment or running records, no resampling)
and every input is a regular, uncompressed file, the parent only finds
where blocks of lines start in every file, and each worker reads, pairs
and scores its blocks (``bleustream.parallel.blocks``).  The promise is the one of
``test_parallel.py``: stdout, stderr and the exit status are ``-j 1``'s.

The runs here cut the files into blocks of a few lines, read a few bytes
at a time (``WRAPPER``), so that a small corpus has many blocks, line ends
straddle the reads, and the bad lines and the ends of files fall at the
start, in the middle and at the end of a block.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bleustream.api import spec
from bleustream.inputs.items import text_items
from bleustream.inputs.lines import BadLinePolicy
from bleustream.inputs.options import ReadOptions
from bleustream.parallel import blocks
from bleustream.parallel.block_tasks import block_tasks
from bleustream.parallel.blocks import identity_of, line_blocks, same_files
from bleustream.run import RunOptions
from tests.helpers.adversarial import Adversary
from tests.helpers.files import write_lines
from tests.parallel.test_parallel import TIMEOUT, _finish, _start, same_with_jobs

SEGMENTS = 200
BLOCK = 7  # lines per block in the runs here: 29 blocks of the corpus
SMALL_BLOCKS = {"BLOCK_LINES": str(BLOCK), "READ_SIZE": "64"}
WRAPPED = (sys.executable, "wrapper.py")  # WRAPPER, run in the corpus directory

# The command line, with the blocks and reads of the environment.  The file
# runs in the parent, and again in the fork server and in each worker (as
# multiprocessing imports the main module there): with ``DIE_AT_LINE``, the
# worker that reads the block of that line kills itself.
WRAPPER = """\
import os
import signal
import sys

from bleustream.parallel import blocks

from bleustream.parallel import block_tasks as worker_blocks

blocks.BLOCK_LINES = int(os.environ["BLOCK_LINES"])
blocks.READ_SIZE = int(os.environ["READ_SIZE"])
DIE_AT_LINE = int(os.environ.get("DIE_AT_LINE", "0"))
count_block = worker_blocks.count_block


def dying_count_block(task):
    if task.block.before <= DIE_AT_LINE < task.block.before + blocks.BLOCK_LINES:
        os.kill(os.getpid(), signal.SIGKILL)
    return count_block(task)


if DIE_AT_LINE:
    worker_blocks.count_block = dying_count_block

if __name__ == "__main__":
    from bleustream.cli.main import main

    sys.exit(main())
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("blocks")
    hyps, refs = Adversary(2222).paste_corpus(SEGMENTS, 3)
    # The last lines are not empty, so that cutting off the last newline
    # keeps every line.
    hyps[-1] += "last"
    for stream in refs:
        stream[-1] += "last"
    other = [" ".join(reversed(r.split(" "))) for r in refs[0]]
    write_lines(directory / "hyp", hyps)
    write_lines(directory / "other", other)
    write_lines(directory / "ref.1", refs[0])
    write_lines(directory / "ref.2", refs[1])
    write_lines(directory / "ref.3", refs[2])
    write_lines(directory / "paste", ["\t".join(f) for f in zip(hyps, *refs[:2])])
    write_lines(directory / "systems", ["\t".join(f) for f in zip(hyps, other, *refs[:2])])
    # --num-refs 2: two references a line, the second one never empty.
    write_lines(directory / "nr2", [f"{a}\t{b.strip() or 'b'}" for a, b in zip(*refs[:2])])
    (directory / "wrapper.py").write_text(WRAPPER, encoding="utf-8")
    # CRLF line ends, a last line without any, and a byte-order mark (text,
    # as SacreBLEU reads it).
    data = (directory / "hyp").read_bytes().replace(b"\n", b"\r\n")
    (directory / "hyp.crlf").write_bytes(data[:-2])
    (directory / "ref.1.last").write_bytes(
        b"\xef\xbb\xbf" + (directory / "ref.1").read_bytes()[:-1]
    )
    (directory / "empty").write_bytes(b"")
    return directory


def edit(directory: Path, name: str, new: str, line: int, text: bytes | None) -> str:
    """A copy of a file with ``line`` (1-based) replaced, or cut there when
    ``text`` is None (the file keeps ``line - 1`` lines)."""
    lines = (directory / name).read_bytes().split(b"\n")
    kept = [text, *lines[line:]] if text is not None else [b""]
    lines = [*lines[: line - 1], *kept]
    (directory / new).write_bytes(b"\n".join(lines))
    return new


def same_as_one_job(
    directory: Path, *args: str, jobs: int = 2, stdin: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``same_with_jobs`` with small blocks, read a few bytes at a time."""
    return same_with_jobs(
        directory, *args, jobs=jobs, stdin=stdin, command=WRAPPED, env=SMALL_BLOCKS
    )


# ----------------------------------------------------------------------------
# Finding the blocks
# ----------------------------------------------------------------------------


def _line_ends(data: bytes) -> list[int]:
    """0, and the offset past the end of each line, found byte by byte."""
    ends = [0] + [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    if data and not data.endswith(b"\n"):
        ends.append(len(data))
    return ends


@pytest.mark.parametrize("read_size", [1, 5, 64, 1 << 20])
def test_blocks_hold_the_same_lines_of_every_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_size: int
) -> None:
    monkeypatch.setattr(blocks, "READ_SIZE", read_size)
    rng = Adversary(3).rng
    contents = {  # lines end at \n only: \r is text
        "long": b"".join(b"x" * rng.randrange(40) + b"\r\n" for _ in range(53)),
        "short": b"".join(b"y" * rng.randrange(3) + b"\n" for _ in range(31)),
        "no-newline": b"a\n\nb\nlast",
        "empty": b"",
        "newlines": b"\n" * 22,
    }
    paths = [str(tmp_path / name) for name in contents]
    for path, data in zip(paths, contents.values()):
        Path(path).write_bytes(data)
    for lines in (1, 3, 7, 100):
        streams = [open(path, "rb") for path in paths]  # noqa: SIM115
        try:
            identities = [identity_of(path, stream) for path, stream in zip(paths, streams)]
            found = list(line_blocks(paths, identities, streams, lines))  # type: ignore[arg-type]
        finally:
            for stream in streams:
                stream.close()
        assert len(found) == -(-53 // lines)  # the longest file's lines
        assert [block.before for block in found] == list(range(0, 53, lines))
        for index, data in enumerate(contents.values()):
            ends = _line_ends(data)
            last = len(ends) - 1
            spans = [(block.spans[index].start, block.spans[index].end) for block in found]
            expected = [
                (ends[min(k, last)], ends[min(k + lines, last)]) for k in range(0, 53, lines)
            ]
            assert spans == expected, (paths[index], lines)


def test_only_regular_uncompressed_files_opened_by_name_are_read_in_blocks(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_bytes(b"a\n")
    packed = tmp_path / "packed.gz"
    packed.write_bytes(gzip.compress(b"a\n"))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with open(plain, "rb") as stream:
        identity = identity_of(str(plain), stream)
        assert identity == (os.stat(plain).st_dev, os.stat(plain).st_ino)
        assert identity_of("-", stream) is None  # standard input
        stream.read(1)
        assert identity_of(str(plain), stream) is None  # read from already
    with gzip.open(packed, "rb") as stream:
        assert identity_of(str(packed), stream) is None  # type: ignore[arg-type]
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with open(reader, "rb", closefd=False) as stream:
            assert identity_of(str(fifo), stream) is None
    finally:
        os.close(reader)
    # What a worker checks: the names mean the same files there.
    assert same_files([str(plain)], [identity])
    packed_identity = (os.stat(packed).st_dev, os.stat(packed).st_ino)
    assert not same_files([str(plain), str(packed)], [identity, identity])
    assert same_files([str(plain), str(packed)], [identity, packed_identity])
    assert not same_files([str(fifo)], [identity])  # and does not wait for a writer
    assert not same_files([str(tmp_path / "missing")], [identity])


class _Here:
    """A stand-in for the workers: a call runs in this process."""

    def call(self, function: Callable[..., bool], *args: object) -> bool:
        return function(*args)


@pytest.mark.parametrize(
    "refs, inputs, extra, in_blocks",
    [
        (("ref.1", "ref.2"), ("hyp",), {}, True),
        (("ref.1",), ("hyp", "other"), {}, True),
        ((), ("paste",), {}, True),
        ((), ("systems",), {"systems": 2}, True),
        (("ref.1",), ("hyp",), {"skip_bad_lines": True}, True),
        (("ref.1",), ("hyp", "other"), {"skip_bad_lines": True}, False),
        (("ref.1.gz",), ("hyp",), {}, False),
        (("ref.1",), ("-",), {}, False),
        (("ref.1",), ("hyp",), {"input_format": "keyed"}, False),
        ((), ("-",), {}, True),
        ((), ("-",), {"skip_bad_lines": True}, False),
    ],
    ids=[
        "references", "systems", "paste", "pasted-systems", "skip-bad-lines",
        "systems-skip-bad-lines", "gzip", "stdin", "log", "paste-stdin",
        "paste-stdin-skip-bad-lines",
    ],
)  # fmt: skip
def test_which_runs_read_in_blocks(
    corpus: Path,
    monkeypatch: pytest.MonkeyPatch,
    refs: tuple[str, ...],
    inputs: tuple[str, ...],
    extra: dict[str, object],
    in_blocks: bool,
) -> None:
    """The runs that the command-line tests above compare take the block path."""
    monkeypatch.chdir(corpus)
    Path("ref.1.gz").write_bytes(gzip.compress(Path("ref.1").read_bytes()))
    reading = ReadOptions(refs=refs, inputs=inputs, **extra)  # type: ignore[arg-type]
    options = RunOptions((spec("bleu"),), reading, jobs=2)
    policy = BadLinePolicy(options.reading.skip_bad_lines)
    with open(corpus / "hyp", "rb") as stdin:
        _, sources = text_items(options.reading, stdin, policy)
        try:
            tasks = block_tasks(options.reading, sources, _Here())  # type: ignore[arg-type]
            assert (tasks is not None) == in_blocks
            if tasks is not None:
                assert len(list(tasks)) == -(-SEGMENTS // blocks.BLOCK_LINES)
        finally:
            for source in sources:
                source.close()


# ----------------------------------------------------------------------------
# The command line: -j 2 writes what -j 1 writes
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "jsonl", "tsv", "stats"])
def test_every_format_with_three_references(corpus: Path, fmt: str) -> None:
    """TER's statistics hold a float, the mean length of a segment's three
    references: its sum must round as one process's."""
    one = same_as_one_job(corpus, "ref.1", "ref.2", "ref.3", "-i", "hyp", "-m", "bleu", "chrf",
                          "ter", "-f", fmt)  # fmt: skip
    assert one.returncode == 0
    assert one.stdout


@pytest.mark.parametrize("fmt", ["text", "latex", "jsonl"])
def test_several_systems_from_files(corpus: Path, fmt: str) -> None:
    one = same_as_one_job(corpus, "ref.1", "ref.2", "-i", "hyp", "other", "-m", "bleu", "ter",
                          "-f", fmt, jobs=3)  # fmt: skip
    assert one.returncode == 0


@pytest.mark.parametrize(
    "args",
    [
        ("-i", "paste", "-f", "tsv"),
        ("--systems", "2", "-i", "systems", "-f", "jsonl", "-m", "chrf", "ter"),
        ("nr2", "-nr", "2", "-i", "hyp", "-m", "bleu", "ter"),
        ("ref.1.last", "-i", "hyp.crlf", "-m", "bleu", "chrf"),
    ],
    ids=["paste", "pasted-systems", "num-refs", "crlf-bom-and-no-last-newline"],
)
def test_paste_input_and_line_ends(corpus: Path, args: tuple[str, ...]) -> None:
    one = same_as_one_job(corpus, *args)
    assert one.returncode == 0


@pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="names descriptors in /dev/fd")
def test_names_of_descriptors(corpus: Path) -> None:
    """``/dev/stdin`` and ``/dev/fd/N`` name a process's own descriptors: the
    parent's here, regular files.  A worker has the same standard input but
    not the other descriptor, so the parent reads that one itself."""
    one = same_with_jobs(corpus, "ref.1", "-i", "/dev/stdin", "-f", "jsonl", stdin=corpus / "hyp",
                         command=WRAPPED, env=SMALL_BLOCKS)  # fmt: skip
    assert one.returncode == 0
    runs = []
    for jobs in (1, 2):
        with open(corpus / "hyp", "rb") as hyp:
            fd = hyp.fileno()
            args = ["-j", str(jobs), "ref.1", "-i", f"/dev/fd/{fd}", "-f", "jsonl"]
            runs.append(
                subprocess.run(
                    [*WRAPPED, *args],
                    pass_fds=(fd,),
                    capture_output=True,
                    cwd=corpus,
                    env={**os.environ, **SMALL_BLOCKS},
                    timeout=TIMEOUT,
                )
            )
    assert runs[1].stderr == runs[0].stderr == b""
    assert runs[1].stdout == runs[0].stdout == one.stdout
    assert runs[1].returncode == runs[0].returncode == 0


@pytest.mark.parametrize("fmt", ["text", "jsonl", "tsv", "stats"])
def test_paste_lines_on_standard_input(corpus: Path, fmt: str) -> None:
    """The main process reads standard input and sends its blocks' bytes."""
    one = same_as_one_job(corpus, "-f", fmt, "-m", "bleu", "chrf", stdin=corpus / "paste")
    assert one.returncode == 0
    files = same_as_one_job(corpus, "-i", "paste", "-f", fmt, "-m", "bleu", "chrf")
    assert one.stdout == files.stdout


@pytest.mark.parametrize(
    "line, text, message",
    [
        (113, b"hyp\tref", "<stdin>:113: expected 3 tab-separated fields as on the first line, "
                           "found 2"),
        (150, b"a\t\xff\tc", "<stdin>:150: invalid UTF-8 (byte 0xff at column 3)"),
        (1, b"one field", "<stdin>:1: expected hypothesis<TAB>reference[<TAB>reference...], "
                          "found no tab (give reference files as operands to read hypotheses "
                          "alone)"),
    ],
    ids=["fields-at-a-block-start", "bad-byte-mid-block", "bad-first-line"],
)  # fmt: skip
def test_bad_paste_lines_on_standard_input(
    corpus: Path, line: int, text: bytes, message: str
) -> None:
    bad = edit(corpus, "paste", "paste.stdin.bad", line, text)
    one = same_as_one_job(corpus, "-f", "tsv", stdin=corpus / bad)
    assert one.returncode == 65
    assert one.stderr.decode() == f"bleustream: {message}\n"


def test_paste_lines_through_a_pipe(corpus: Path) -> None:
    """A pipe gives its bytes as they come, not in whole lines."""
    data = (corpus / "paste").read_bytes()
    runs = [
        subprocess.run(
            [*WRAPPED, "-j", str(jobs), "-f", "jsonl"],
            input=data,
            capture_output=True,
            cwd=corpus,
            env={**os.environ, **SMALL_BLOCKS},
            timeout=TIMEOUT,
            check=False,
        )
        for jobs in (1, 2)
    ]
    assert runs[0].returncode == runs[1].returncode == 0, runs[1].stderr
    assert runs[1].stdout == runs[0].stdout
    assert runs[1].stderr == runs[0].stderr == b""


def test_empty_files(corpus: Path) -> None:
    one = same_as_one_job(corpus, "empty", "-i", "empty", "-f", "jsonl", "--allow-empty")
    assert one.returncode == 0
    assert b"no segments in the input" in one.stderr


# Bad input late in the corpus: the message, with its line in the whole
# file, and on stdout nothing but the header (tsv's), as -j 1 writes them.
# Blocks start at lines 7k + 1.  Each case: the arguments, with (file, line,
# new text or None to cut the file there) for a file changed, the format,
# and the message.
ERRORS = {
    "bad-byte-at-a-block-start": (
        ("ref.1", "-i", ("hyp", 141, b"ok \xff")),
        "tsv",
        "hyp.bad:141: invalid UTF-8 (byte 0xff at column 4)",
    ),
    "bad-byte-in-a-reference": (
        ("ref.1", ("ref.2", 174, b"\xc3"), "-i", "hyp"),
        "jsonl",
        "ref.2.bad:174: invalid UTF-8 (byte 0xc3 at column 1)",
    ),
    "bad-byte-in-another-system": (
        ("ref.1", "-i", "hyp", ("other", 150, b"\xe2\x82")),
        "text",
        "other.bad:150: invalid UTF-8 (byte 0xe2 at column 1)",
    ),
    "fields-of-paste-input-at-a-block-start": (
        ("-i", ("paste", 113, b"hyp\tref")),
        "tsv",
        "paste.bad:113: expected 3 tab-separated fields as on the first line, found 2",
    ),
    "bad-byte-in-pasted-systems": (
        ("--systems", "2", "-i", ("systems", 120, b"a\tb\t\xff\tc")),
        "jsonl",
        "systems.bad:120: invalid UTF-8 (byte 0xff at column 5)",
    ),
    "reference-ends-mid-block": (
        (("ref.1", 165, None), "-i", "hyp"),
        "tsv",
        "ref.1.bad: reference file ended after line 164, but hyp has a line 165",
    ),
    "reference-ends-with-a-block": (
        (("ref.1", 155, None), "-i", "hyp"),
        "text",
        "ref.1.bad: reference file ended after line 154, but hyp has a line 155",
    ),
    "hypotheses-end-mid-block": (
        ("ref.1", "-i", ("hyp", 172, None)),
        "tsv",
        "ref.1:172: reference file has more lines than the hypotheses "
        "(hyp.bad ended after line 171)",
    ),
    "hypotheses-end-with-a-block": (
        ("ref.1", "ref.2", "-i", ("hyp", 169, None)),
        "jsonl",
        "ref.1:169: reference file has more lines than the hypotheses "
        "(hyp.bad ended after line 168)",
    ),
    "another-system-ends-with-a-block": (
        ("ref.1", "-i", "hyp", ("other", 183, None)),
        "tsv",
        "other.bad: system file ended after line 182, but hyp has a line 183",
    ),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_bad_input_in_a_late_block(corpus: Path, case: str) -> None:
    spec_args, fmt, message = ERRORS[case]
    args = [edit(corpus, a[0], f"{a[0]}.bad", a[1], a[2]) if isinstance(a, tuple) else a
            for a in spec_args]  # fmt: skip
    one = same_as_one_job(corpus, *args, "-f", fmt)  # type: ignore[arg-type]
    assert one.returncode == 65
    assert one.stderr.decode() == f"bleustream: {message}\n"
    assert one.stdout.count(b"\n") == (1 if fmt == "tsv" else 0)


def test_skipped_lines_with_the_fields_fixed_late(corpus: Path) -> None:
    """Paste input fixes its number of fields at its first good line, here
    line 15, at the start of the third block; blocks after it start with
    that number, and a line with another at a block's start is bad."""
    lines = (corpus / "paste").read_bytes().split(b"\n")
    lines[:14] = [b"no tab"] * 13 + [b"\xff\tx\ty"]
    lines[15] = b"two\tfields"  # line 16
    lines[63] = b"two\tfields"  # line 64, a block's first
    lines[70] = b"\xfe"  # line 71, a block's first
    lines[99] = b"four\tfields\tnot\tthree"
    (corpus / "paste.late").write_bytes(b"\n".join(lines))
    one = same_as_one_job(corpus, "--skip-bad-lines", "-i", "paste.late", "-f", "jsonl")
    assert one.returncode == 0
    err = one.stderr.decode().splitlines()
    assert len(err) == 14 + 4 + 1  # one per bad line, then the total
    assert err[14] == (
        "bleustream: paste.late:16: expected 3 tab-separated fields as on the first line, "
        "found 2 (line skipped)"
    )
    assert err[15].startswith("bleustream: paste.late:64: expected 3 tab-separated fields")


def test_skipped_lines_of_files_read_in_lockstep(corpus: Path) -> None:
    hyp = edit(corpus, "hyp", "hyp.skip", 14, b"\xff")
    ref = edit(corpus, "ref.2", "ref.2.skip", 15, b"\xff")
    ref = edit(corpus, ref, "ref.2.skip", 99, b"\xff")
    one = same_as_one_job(corpus, "--skip-bad-lines", "ref.1", ref, "-i", hyp, "-f", "tsv")
    assert one.returncode == 0
    assert one.stderr.decode().count("(line skipped)") == 3


def test_a_worker_that_dies_is_status_71_and_no_score(corpus: Path) -> None:
    env = {**SMALL_BLOCKS, "DIE_AT_LINE": "120"}
    proc = _finish(_start(["ref.1", "-i", "hyp", "-f", "jsonl"], 2, corpus, None, WRAPPED, env))
    assert proc.returncode == 71, proc.stderr
    assert proc.stdout == b""
    err = proc.stderr.decode()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("bleustream: a worker process died")
