"""``-j N``: worker processes count the segments, and nothing else changes.

The promise is byte identity: for every format, record kind and input
format, with several systems, with errors and skipped lines, and when a
signal cuts the input short, ``-j N`` writes to stdout and stderr exactly
what ``-j 1`` writes, and exits with the same status.  The inputs are large
enough (thousands of segments, batches of 256) that several batches are in
flight on several workers at once.  The ``-j 1`` run is the expected value:
its own numbers are SacreBLEU's (the differential tests check that).

Each comparison starts its ``-j 1`` and ``-j N`` processes side by side,
which keeps the wall time of the matrix near that of one run each.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest

from bleustream.cli.main import build_parser, check_options, resolve
from bleustream.metrics.registry import METRICS
from tests.conftest import real_sets, require_real_data
from tests.helpers.adversarial import Adversary
from tests.helpers.clirun import COMMAND, assert_clean_stderr
from tests.helpers.files import write_lines
from tests.helpers.waiting import (
    outcome,
    signals_unblocked,  # noqa: F401 (a fixture)
    wait_until_waiting_for_input,
)

GENERATED = 2_000  # segments of the generated corpus: 8 batches of 256
LOG_SEGMENTS = 700  # segments of each generated log: 3 batches
SYSTEM_SEGMENTS = 1_000  # segments of the generated inputs of two systems
TIMEOUT = 120  # seconds any one run may take, however loaded the machine


@dataclass(frozen=True)
class Inputs:
    """The generated inputs every test of this module reads (built once)."""

    directory: Path
    hyps: tuple[str, ...]
    refs: tuple[tuple[str, ...], ...]  # two reference streams

    def path(self, name: str) -> Path:
        return self.directory / name


def _fairseq_log(hyps: Sequence[str], refs: Sequence[str], order: Sequence[int]) -> list[str]:
    """fairseq-generate output in ``order``: S, T, H, D, P, and a second n-best entry."""
    lines = ["2024-05-01 10:00:00 | INFO | fairseq_cli.generate | loading model"]
    for i in order:
        lines += [
            f"S-{i}\tsource {i}",
            f"T-{i}\t{refs[i]}",
            f"H-{i}\t-0.25\t{hyps[i]}",
            f"D-{i}\t-0.25\t{hyps[i]}",
            f"P-{i}\t-0.10 -0.40",
            f"H-{i}\t-0.90\tanother {i}",
            f"D-{i}\t-0.90\tanother {i}",
        ]
    lines.append("2024-05-01 10:00:09 | INFO | fairseq_cli.generate | Translated 700 sentences")
    return lines


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    directory = tmp_path_factory.mktemp("parallel")
    hyps, refs = Adversary(1111).paste_corpus(GENERATED, 2)
    # A second system: the first reference with its words in reverse order.
    other = [" ".join(reversed(r.split(" "))) for r in refs[0]]
    rows = ["\t".join(fields) for fields in zip(hyps, *refs)]
    write_lines(directory / "paste.tsv", rows)
    k = SYSTEM_SEGMENTS
    systems = ["\t".join(f) for f in zip(hyps[:k], other, *refs)]
    write_lines(directory / "systems.tsv", systems)
    write_lines(directory / "hyp.a", hyps[:k])
    write_lines(directory / "hyp.b", other[:k])
    write_lines(directory / "ref.1", refs[0][:k])
    write_lines(directory / "ref.2", refs[1][:k])

    n = LOG_SEGMENTS
    order = list(range(n))
    random.Random(7).shuffle(order)
    write_lines(directory / "fairseq.log", _fairseq_log(hyps, refs[0], order))
    nbest = []
    for i in order:
        nbest += [
            f"{i} ||| {hyps[i]} ||| F0= -1.5 ||| -2.5",
            f"{i} ||| other {i} ||| F0= -2 ||| -3",
        ]
    write_lines(directory / "nbest.txt", nbest)
    write_lines(directory / "keyed.txt", [f"{i}\t{hyps[i]}" for i in order])
    write_lines(directory / "log.ref.1", refs[0][:n])
    write_lines(directory / "log.ref.2", refs[1][:n])
    write_lines(directory / "keyed.refs", [f"{i}\t{refs[0][i]}\t{refs[1][i]}" for i in range(n)])

    # Bad lines: undecodable bytes at lines 500, 1201 and 1777, and a line
    # with one field only (no reference) at 900.
    raw = (directory / "paste.tsv").read_bytes().split(b"\n")
    raw[499] = raw[499][:3] + b"\xff" + raw[499][3:]
    raw[1200] = b"\xc3" + raw[1200]
    raw[1776] = raw[1776] + b"\xe2\x82"
    raw[899] = b"no reference here"
    (directory / "bad.tsv").write_bytes(b"\n".join(raw))
    return Inputs(directory, tuple(hyps), tuple(tuple(r) for r in refs))


# ----------------------------------------------------------------------------
# Running -j 1 and -j N side by side
# ----------------------------------------------------------------------------


def _start(
    args: Sequence[str | Path],
    jobs: int,
    cwd: Path,
    stdin: Path | None,
    command: Sequence[str] = COMMAND,
    env: dict[str, str] | None = None,
) -> subprocess.Popen:
    stdin_file: IO[bytes] | int = open(stdin, "rb") if stdin else subprocess.DEVNULL  # noqa: SIM115
    try:
        return subprocess.Popen(
            [*command, "-j", str(jobs), *map(str, args)],
            stdin=stdin_file,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=None if env is None else {**os.environ, **env},
        )
    finally:
        if not isinstance(stdin_file, int):
            stdin_file.close()


def _finish(proc: subprocess.Popen) -> subprocess.CompletedProcess[bytes]:
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        proc.kill()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def same_with_jobs(
    inputs: Inputs | Path,
    *args: str | Path,
    jobs: int = 2,
    stdin: Path | None = None,
    command: Sequence[str] = COMMAND,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Runs ``args`` with ``-j 1`` and ``-j jobs`` (in the inputs' directory);
    asserts that the two runs wrote the same bytes and exited alike, and
    returns the ``-j 1`` run.  ``command`` runs bleustream, with ``env``
    added to the environment."""
    cwd = inputs.directory if isinstance(inputs, Inputs) else inputs
    procs = [_start(args, j, cwd, stdin, command, env) for j in (1, jobs)]
    one, many = (_finish(p) for p in procs)
    assert many.returncode == one.returncode, (one.stderr, many.stderr)
    assert many.stderr == one.stderr
    assert many.stdout == one.stdout, f"-j {jobs} wrote other records than -j 1"
    assert_clean_stderr(one)
    return one


def lines_of(proc: subprocess.CompletedProcess[bytes]) -> list[str]:
    return proc.stdout.decode("utf-8").splitlines()


def json_lines(proc: subprocess.CompletedProcess[bytes]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines_of(proc)]


# ----------------------------------------------------------------------------
# The byte-identity matrix
# ----------------------------------------------------------------------------

EVERY = 300


@pytest.mark.parametrize(
    "fmt, jobs",
    [("text", 2), ("tsv", 3), ("jsonl", 2), ("stats", 0)],
    ids=["text", "tsv", "json", "stats-j0"],
)
def test_every_format_with_segment_and_running_records(inputs: Inputs, fmt: str, jobs: int) -> None:
    """Every format, and -j 0 (every core) for one of them."""
    one = same_with_jobs(inputs, "-f", fmt, "-sl", "--every", EVERY, "-i", "paste.tsv", jobs=jobs)
    assert one.returncode == 0
    records = GENERATED + GENERATED // EVERY + 1  # segment, running, corpus
    assert len(lines_of(one)) == records + (1 if fmt == "tsv" else 0)


def test_corpus_record_alone_with_every_metric(inputs: Inputs) -> None:
    """No per-segment or running records: workers may send sums instead of rows
    (floats, as TER's, must still add up in input order)."""
    one = same_with_jobs(inputs, "-m", *METRICS, "-f", "stats", "-i", "paste.tsv")
    assert one.returncode == 0
    (record,) = json_lines(one)
    assert record["segments"] == GENERATED
    assert [m["metric"] for m in record["metrics"]] == list(METRICS)


def test_corpus_record_alone_with_skipped_lines(inputs: Inputs) -> None:
    one = same_with_jobs(inputs, "--skip-bad-lines", "-f", "jsonl", "-i", "bad.tsv", jobs=3)
    assert one.returncode == 0
    (record,) = json_lines(one)
    assert (record["segments"], record["skipped"]) == (GENERATED - 4, 4)


def test_jobs_zero_is_the_number_of_usable_cores() -> None:
    args = build_parser().parse_args(["-j", "0", "--no-config"])
    options = check_options(resolve(args), None)
    assert options.jobs == len(os.sched_getaffinity(0))


def test_fairseq_log(inputs: Inputs) -> None:
    one = same_with_jobs(
        inputs, "--input-format", "fairseq", "-sl", "-f", "jsonl", "-i", "fairseq.log"
    )
    records = json_lines(one)
    assert one.returncode == 0
    assert len(records) == LOG_SEGMENTS + 1
    assert records[-1]["unpaired"] == 0


def test_nbest_list_with_running_records(inputs: Inputs) -> None:
    one = same_with_jobs(
        inputs, "log.ref.1", "log.ref.2", "--input-format", "nbest", "--every", "100", "-f", "tsv",
        "-i", "nbest.txt",
    )  # fmt: skip
    assert one.returncode == 0
    assert len(lines_of(one)) == 1 + LOG_SEGMENTS // 100 + 1


def test_keyed_lines_with_keyed_references(inputs: Inputs) -> None:
    one = same_with_jobs(
        inputs, "--input-format", "keyed", "--keyed-refs", "keyed.refs", "-sl", "-f", "stats",
        "-i", "keyed.txt", jobs=3,
    )  # fmt: skip
    records = json_lines(one)
    assert one.returncode == 0
    assert len(records) == LOG_SEGMENTS + 1
    assert {r["id"] for r in records[:-1]} == {str(i) for i in range(LOG_SEGMENTS)}


def test_several_systems_from_files(inputs: Inputs) -> None:
    one = same_with_jobs(inputs, "ref.1", "ref.2", "-i", "hyp.a", "hyp.b", "-sl", "-f", "jsonl")
    records = json_lines(one)
    assert one.returncode == 0
    assert len(records) == 2 * SYSTEM_SEGMENTS + 2
    assert [r["system"] for r in records[-2:]] == ["hyp.a", "hyp.b"]


def test_several_systems_pasted(inputs: Inputs) -> None:
    one = same_with_jobs(
        inputs, "--systems", "2", "-sl", "--every", EVERY, "-f", "text", "-i", "systems.tsv"
    )
    assert one.returncode == 0
    kinds = [line.split()[1] for line in lines_of(one) if re.match(r"[12]: [a-z]+ ", line)]
    assert kinds.count("segment") == 2 * SYSTEM_SEGMENTS
    assert kinds.count("running") == 2 * (SYSTEM_SEGMENTS // EVERY)


def test_real_set_with_two_systems_and_three_references(tmp_path: Path) -> None:
    require_real_data()
    real = next(s for s in real_sets() if s.name == "wmt21-en-de")
    one = same_with_jobs(tmp_path, *real.refs, "-i", *real.hyps[:2], "-sl", "-f", "tsv")
    assert one.returncode == 0
    assert len(lines_of(one)) == 1 + 2 * real.lines + 2


# ----------------------------------------------------------------------------
# Errors and skipped lines
# ----------------------------------------------------------------------------


def test_bad_byte_stops_at_the_same_record_with_the_same_message(inputs: Inputs) -> None:
    one = same_with_jobs(inputs, "-sl", "-f", "jsonl", "-i", "bad.tsv")
    assert one.returncode == 65
    records = json_lines(one)
    assert [r["line"] for r in records] == list(range(1, 500))
    assert one.stderr.decode() == "bleustream: bad.tsv:500: invalid UTF-8 (byte 0xff at column 4)\n"


def test_bad_byte_from_stdin_without_segment_records(inputs: Inputs) -> None:
    one = same_with_jobs(inputs, "-f", "tsv", stdin=inputs.path("bad.tsv"), jobs=3)
    assert one.returncode == 65
    assert len(lines_of(one)) == 1  # the header, and no score
    assert one.stderr.decode().startswith("bleustream: <stdin>:500: invalid UTF-8")


def test_skipped_lines_are_counted_alike(inputs: Inputs) -> None:
    one = same_with_jobs(
        inputs, "--skip-bad-lines", "-sl", "--every", "250", "-f", "tsv", "-i", "bad.tsv"
    )
    assert one.returncode == 0
    rows = [line.split("\t") for line in lines_of(one)]
    skipped = rows[0].index("skipped")
    by_line = {row[1]: int(row[skipped]) for row in rows[1:] if row[0] == "segment"}
    assert (by_line["499"], by_line["501"], by_line["1202"], by_line["2000"]) == (0, 1, 3, 4)
    assert rows[-1][0] == "corpus" and int(rows[-1][skipped]) == 4
    assert len(one.stderr.decode().splitlines()) == 4 + 1  # one per bad line, then the total


# ----------------------------------------------------------------------------
# A live pipe, signals, a worker that dies
# ----------------------------------------------------------------------------


def _read_lines(stream: IO[bytes], count: int, timeout: float) -> bytes:
    """``count`` complete lines from a pipe, failing the test instead of hanging."""
    fd = stream.fileno()
    data = b""
    deadline = time.monotonic() + timeout
    while (got := data.count(b"\n")) < count:
        left = deadline - time.monotonic()
        assert left > 0, f"only {got} of {count} lines within {timeout} s"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 1 << 16)
            assert chunk, f"output closed after {got} of {count} lines"
            data += chunk
    return data


def _popen(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*COMMAND, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def _feed(proc: subprocess.Popen, data: bytes) -> threading.Thread:
    """Writes ``data`` to the process on a thread (it may fill the pipe)."""

    def write() -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(data)
            proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_live_pipe_gets_each_record_within_a_second(inputs: Inputs) -> None:
    proc = _popen("-j", "2", "-sl", "-f", "jsonl")
    assert proc.stdin is not None and proc.stdout is not None
    lines = inputs.path("paste.tsv").read_bytes().splitlines(keepends=True)[:12]
    try:
        for i, line in enumerate(lines, 1):
            proc.stdin.write(line)
            proc.stdin.flush()
            # The first record waits for the workers to start.
            record = json.loads(_read_lines(proc.stdout, 1, 30 if i == 1 else 1.0))
            assert (record["type"], record["line"]) == ("segment", i)
        proc.stdin.close()
        final = json.loads(_read_lines(proc.stdout, 1, 30))
        assert (final["type"], final["segments"]) == ("corpus", len(lines))
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()


def _interrupted(jobs: int, signum: int, data: bytes, lines: int) -> tuple[int, bytes, bytes]:
    """Sends ``lines`` lines (stdin stays open), waits for their records and
    for the process to wait for more input, then the signal; returns the
    status, stdout and stderr."""
    proc = _popen("-j", str(jobs), "-sl", "-f", "jsonl")
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        _feed(proc, data)  # not joined: the records fill the output pipe meanwhile
        out = _read_lines(proc.stdout, lines, TIMEOUT)
        wait_until_waiting_for_input(proc)
        proc.send_signal(signum)
        status, rest, err = outcome(proc, TIMEOUT)
        return status, out + rest, err
    finally:
        _end(proc)


def _end(proc: subprocess.Popen) -> None:
    """Ends the process if a failed test left it running, and closes its
    input (the writer's last bytes may meet a closed pipe)."""
    proc.kill()
    proc.wait()
    assert proc.stdin is not None
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.close()


@pytest.mark.usefixtures("signals_unblocked")
@pytest.mark.parametrize(
    "signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_signal_gives_the_same_partial_record(inputs: Inputs, signum: int, status: int) -> None:
    sent = 600
    data = b"".join(inputs.path("paste.tsv").read_bytes().splitlines(keepends=True)[:sent])
    one = _interrupted(1, signum, data, sent)
    many = _interrupted(2, signum, data, sent)
    assert many == one
    assert one[0] == status
    final = json.loads(one[1].splitlines()[-1])
    assert (final["type"], final["partial"], final["segments"]) == ("corpus", True, sent)
    assert one[2] == b"bleustream: interrupted; the score covers the 600 segments read so far\n"


def _interrupted_at_the_end(jobs: int, signum: int, data: bytes) -> tuple[int, bytes, bytes]:
    """Sends ``data`` and keeps standard input open; once the process has
    taken all of it from the pipe and waits for more, the signal."""
    proc = _popen("-j", str(jobs), "-f", "jsonl")
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        _feed(proc, data).join(TIMEOUT)
        wait_until_waiting_for_input(proc)
        proc.send_signal(signum)
        return outcome(proc, TIMEOUT)
    finally:
        _end(proc)


@pytest.mark.usefixtures("signals_unblocked")
@pytest.mark.skipif(sys.platform != "linux", reason="counts the bytes left in a pipe (FIONREAD)")
def test_a_signal_in_a_pipe_read_in_blocks_covers_every_line_read(inputs: Inputs) -> None:
    """The final record alone: -j 2 reads the pipe in blocks of 8192 lines;
    the lines of the block it was reading when the signal came count too."""
    lines = inputs.path("paste.tsv").read_bytes().splitlines(keepends=True)
    sent = 10_000
    data = b"".join(itertools.islice(itertools.cycle(lines), sent))
    one = _interrupted_at_the_end(1, signal.SIGINT, data)
    many = _interrupted_at_the_end(2, signal.SIGINT, data)
    assert many == one
    assert one[0] == 130
    final = json.loads(one[1].splitlines()[-1])
    assert (final["partial"], final["segments"]) == (True, sent)
    assert one[2] == b"bleustream: interrupted; the score covers the 10000 segments read so far\n"


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(FileNotFoundError):  # the thread ended meanwhile
            found += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    return found


def _worker_pids(pid: int) -> list[int]:
    """The worker processes of a bleustream process.

    Workers are forked by bleustream itself, or, when it ran more than one
    thread, by a fork server, a child of bleustream (besides the resource
    tracker); with the spawn method they would be its children.
    """
    children = _children(pid)
    grandchildren = [g for c in children for g in _children(c)]
    if grandchildren:
        return grandchildren
    return [
        c for c in children if b"resource_tracker" not in Path(f"/proc/{c}/cmdline").read_bytes()
    ]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds workers through /proc")
def test_a_worker_killed_mid_run_is_status_71_and_no_score(inputs: Inputs) -> None:
    lines = inputs.path("paste.tsv").read_bytes().splitlines(keepends=True)
    proc = _popen("-j", "2", "-sl", "-f", "jsonl")
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        _feed(proc, b"".join(lines[:600])).join(TIMEOUT)
        out = _read_lines(proc.stdout, 600, TIMEOUT)
        workers = _worker_pids(proc.pid)
        assert workers, "no worker process found"
        os.kill(workers[0], signal.SIGKILL)
        _feed(proc, b"".join(lines[600:]))
        status, rest, err_bytes = outcome(proc, TIMEOUT)
        out += rest
        err = err_bytes.decode()
    finally:
        _end(proc)
    assert status == 71
    assert len(err.splitlines()) == 1, err
    assert err.startswith("bleustream: a worker process died")
    records = [json.loads(line) for line in out.splitlines()]
    assert all(r["type"] == "segment" for r in records)
    assert [r["line"] for r in records] == list(range(1, len(records) + 1))
    assert 600 <= len(records) < GENERATED


_START_METHOD = "from bleustream.parallel.pool import start_method; print(start_method())"
_ANOTHER_THREAD = (
    "import threading, time; threading.Thread(target=time.sleep, args=(30,), daemon=True).start(); "
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork is chosen on Linux only")
def test_workers_are_forked_only_from_a_single_thread() -> None:
    def method(code: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert method(_START_METHOD) == "fork"
    assert method(_ANOTHER_THREAD + _START_METHOD) == "forkserver"


def test_forked_workers_draw_no_warning(inputs: Inputs) -> None:
    """Python 3.12 and later warn when a process with several threads forks."""
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    for args in (["-f", "jsonl"], ["-sl", "-f", "jsonl"]):
        data = inputs.path("paste.tsv").read_bytes()
        one = subprocess.run([*COMMAND, *args], input=data, capture_output=True, timeout=TIMEOUT)
        many = subprocess.run(
            [*COMMAND, *args, "-j", "2"], input=data, capture_output=True, env=env, timeout=TIMEOUT
        )
        assert (many.returncode, many.stdout, many.stderr) == (0, one.stdout, b"")
