"""``--progress``: how far the scoring is, on stderr only.

On a terminal (a pseudo-terminal here) one line is redrawn in place with
``\\r\\x1b[K``; on a pipe a plain ``bleustream: progress: ...`` line is
written every few seconds.  With a regular file as input the line says the
percentage read and the time left.  Standard output is the same with and
without ``--progress``.

The runs read their references from a FIFO that the test writes, with a
pause in the middle, so that a progress line is due at a known point
however fast the machine is.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import threading
import time
import tty
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

import pytest
from sacrebleu.metrics.bleu import BLEU

from bleustream import spec
from bleustream.output import progress
from bleustream.output.progress import Progress, file_extent
from bleustream.run import RunOptions, run
from tests.helpers.adversarial import Adversary
from tests.helpers.clirun import COMMAND
from tests.helpers.clirun import run as run_cli

SEGMENTS = 2_000
PAUSE_AFTER = 1_000  # references written before the pause
# The pause starts when the reader has taken every line before it; by then
# up to a buffer of those lines may still be scored.
TTY_PAUSE = progress.TTY_INTERVAL + 1.0
TIMEOUT = 120
CLEAR = "\r\x1b[K"

# What a line of input cannot hold: separators and lone surrogates.
_NOT_IN_A_LINE = re.compile("[\t\n\r\ud800-\udfff]")
# A progress line, as drawn: segments, rate, running score, percent, time left.
_PROGRESS = re.compile(
    r"(?P<segments>[\d,]+) segments, [\d,]+/s, BLEU (?P<score>\d+\.\d\d)"
    r"(?:, (?P<percent>\d+\.\d)%(?:, (?P<left>\d+:\d\d(?::\d\d)?) left)?)?"
)


# ----------------------------------------------------------------------------
# The Progress class, on a clock of its own
# ----------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_every_log_interval_with_percent_and_time_left() -> None:
    clock, stream, position = FakeClock(), io.StringIO(), [0]
    shown = Progress(stream, 4000, lambda: position[0], clock)
    assert not shown.due()
    clock.now += progress.LOG_INTERVAL - 0.01
    assert not shown.due()
    clock.now += 0.01
    assert shown.due()
    position[0] = 1000  # a quarter read in LOG_INTERVAL seconds: three times as long left
    shown.show(1234, "BLEU 12.34")
    seconds_left = 3 * progress.LOG_INTERVAL
    rate = 1234 / progress.LOG_INTERVAL
    assert stream.getvalue() == (
        f"bleustream: progress: 1,234 segments, {rate:,.0f}/s, BLEU 12.34, 25.0%, "
        f"0:{seconds_left:02.0f} left\n"
    )
    assert not shown.due()  # the next line is an interval away
    shown.finish()
    assert stream.getvalue().count("\n") == 1 and CLEAR not in stream.getvalue()


def test_terminal_line_is_redrawn_in_place_and_cleared_at_the_end() -> None:
    clock, terminal = FakeClock(), FakeTerminal()
    shown = Progress(terminal, None, lambda: None, clock)
    shown.finish()
    assert terminal.getvalue() == ""  # nothing drawn, nothing to clear
    clock.now += progress.TTY_INTERVAL
    assert shown.due()
    shown.show(10, "BLEU 1.00")
    clock.now += progress.TTY_INTERVAL
    shown.show(20, "BLEU 2.00")
    shown.finish()
    rate = 10 / progress.TTY_INTERVAL
    assert terminal.getvalue() == (
        f"{CLEAR}10 segments, {rate:,.0f}/s, BLEU 1.00"
        f"{CLEAR}20 segments, {rate:,.0f}/s, BLEU 2.00{CLEAR}"
    )


class _Signalled(Exception):
    pass


class InterruptedTerminal(FakeTerminal):
    """A terminal whose first flush is cut short by a signal's exception."""

    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        if self.flushes == 1:
            raise _Signalled


def test_a_line_cut_short_by_a_signal_is_still_cleared() -> None:
    clock, terminal = FakeClock(), InterruptedTerminal()
    shown = Progress(terminal, None, lambda: None, clock)
    clock.now += progress.TTY_INTERVAL
    with pytest.raises(_Signalled):
        shown.show(7, "BLEU 7.00")
    shown.finish()
    assert terminal.getvalue().endswith(f"BLEU 7.00{CLEAR}")


def test_hours_in_the_time_left() -> None:
    clock, stream = FakeClock(), io.StringIO()
    shown = Progress(stream, 100, lambda: 1, clock)
    clock.now += 37.25  # 1% in 37.25 s: 99 * 37.25 = 3687.75 s left
    assert shown.line(5, "BLEU 0.00").endswith(", 1.0%, 1:01:28 left")


def test_unknown_or_unreadable_position_shows_no_percent() -> None:
    clock = FakeClock()
    unreadable = Progress(io.StringIO(), 100, lambda: None, clock)
    unsized = Progress(io.StringIO(), None, lambda: 50, clock)
    clock.now += 1
    assert unreadable.line(3, "x") == "3 segments, 3/s, x"
    assert unsized.line(3, "x") == "3 segments, 3/s, x"


def test_file_extent_of_files_pipes_and_compressed_files(tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"0123456789\n" * 10)
    with open(plain, "rb") as stream:
        size, position = file_extent(stream)
        stream.readline()
        assert (size, position()) == (110, 11)
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe, os.fdopen(write_end, "wb"):
        size, position = file_extent(pipe)
        assert (size, position()) == (None, None)
    assert file_extent(io.BytesIO(b"no file"))[0] is None
    import gzip

    packed = tmp_path / "packed.gz"
    packed.write_bytes(gzip.compress(b"line\n" * 1000))
    with gzip.open(packed, "rb") as stream:
        size, position = file_extent(stream)
        assert size == packed.stat().st_size
        for _ in stream:
            pass
        assert position() == size


def test_the_record_loop_writes_plain_lines_to_a_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through ``run``: every segment due, a plain line each, stdout untouched."""
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    lines = "".join(f"the cat sat {i}\tthe cat sat {i}\n" for i in range(5)).encode()
    options = RunOptions(specs=(spec("bleu"),), progress=True)
    out, log, messages = io.BytesIO(), io.StringIO(), []
    with _signal_mask_kept():
        status = run(options, io.BytesIO(lines), out, messages.append, log)
    assert status == 0 and messages == []
    shown = log.getvalue().splitlines()
    assert len(shown) == 5
    for i, line in enumerate(shown, 1):
        noun = "segment" if i == 1 else "segments"
        assert line.startswith(f"bleustream: progress: {i} {noun}, ")
        assert line.endswith(", BLEU 100.00")
    plain = io.BytesIO()
    with _signal_mask_kept():
        run(RunOptions(specs=(spec("bleu"),)), io.BytesIO(lines), plain, messages.append, None)
    assert out.getvalue() == plain.getvalue()


@contextlib.contextmanager
def _signal_mask_kept() -> Iterator[None]:
    """Restores this thread's signal mask: ``run`` blocks SIGINT and SIGTERM
    for its final record and leaves them blocked, and the processes the
    later tests start would inherit that."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def test_run_leaves_the_callers_signal_mask_alone() -> None:
    with _signal_mask_kept():
        before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
        run(RunOptions(specs=(spec("bleu"),)), io.BytesIO(b"a\ta\n"), io.BytesIO(), print, None)
        after = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    assert after == before


# ----------------------------------------------------------------------------
# The command line, on a terminal and on a pipe
# ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def texts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("progress")
    hyps, (refs,) = Adversary(3333).corpus(SEGMENTS, 1)
    for name, lines in (("hyp", hyps), ("ref", refs)):
        clean = [_NOT_IN_A_LINE.sub(" ", line) for line in lines]
        with open(directory / name, "w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(f"{line}\n" for line in clean)
    return directory


def _unread(handle: IO[bytes]) -> int:
    """Bytes written to a pipe that its reader has not read yet."""
    return struct.unpack("i", fcntl.ioctl(handle.fileno(), termios.FIONREAD, b"\0" * 4))[0]


def _feed_fifo(
    fifo: Path,
    lines: Sequence[bytes],
    pauses: dict[int, float],
    hold: threading.Event | None = None,
) -> threading.Thread:
    """Writes ``lines`` into the FIFO; before line ``i`` it waits for the
    reader to take everything so far, then ``pauses[i]`` seconds more.  With
    ``hold``, it keeps the FIFO open until that is set."""

    def write() -> None:
        try:
            with open(fifo, "wb") as handle:
                for i, line in enumerate(lines):
                    if i in pauses:
                        handle.flush()
                        deadline = time.monotonic() + TIMEOUT
                        while _unread(handle) and time.monotonic() < deadline:
                            time.sleep(0.01)
                        time.sleep(pauses[i])
                    handle.write(line)
                handle.flush()
                if hold is not None:
                    hold.wait(TIMEOUT)
        except BrokenPipeError:  # the reader is gone: the test has failed already
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


class Terminal:
    """A pseudo-terminal for a child's stderr, and what the child writes to it."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)  # no newline translation: the bytes as written
        self.data = b""

    def read(self, timeout: float, until: bytes | None = None) -> None:
        """Reads until ``until`` appears, or until the child closes the terminal."""
        deadline = time.monotonic() + timeout
        while until is None or until not in self.data:
            left = deadline - time.monotonic()
            assert left > 0, f"nothing more within {timeout} s: {self.data[-300:]!r}"
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 1 << 16)
            except OSError:  # EIO: every writer has closed it
                chunk = b""
            if not chunk:
                assert until is None, f"terminal closed before {until!r}: {self.data!r}"
                return
            self.data += chunk

    def close(self) -> None:
        os.close(self.master)

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")


def _start_on_terminal(
    args: Sequence[str | Path], cwd: Path, terminal: Terminal
) -> subprocess.Popen:
    proc = subprocess.Popen(
        [*COMMAND, "--no-config", *map(str, args)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=terminal.slave,
        cwd=cwd,
    )
    os.close(terminal.slave)
    return proc


def _paced_run(
    texts: Path, tmp_path: Path, args: Sequence[str], hyp: str = "hyp"
) -> tuple[int, bytes, str, Terminal]:
    """A run with ``--progress`` on a terminal, references from a paced FIFO."""
    fifo = tmp_path / "ref.fifo"
    os.mkfifo(fifo)
    refs = (texts / "ref").read_bytes().splitlines(keepends=True)
    terminal = Terminal()
    proc = _start_on_terminal(["--progress", *args, fifo, "-i", texts / hyp], tmp_path, terminal)
    try:
        feeder = _feed_fifo(fifo, refs, {PAUSE_AFTER: TTY_PAUSE})
        assert proc.stdout is not None
        out = proc.stdout.read()
        terminal.read(TIMEOUT)
        status = proc.wait(timeout=TIMEOUT)
        feeder.join(TIMEOUT)
    finally:
        proc.kill()
        proc.wait()
        terminal.close()
    return status, out, terminal.text, terminal


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_terminal_line_redrawn_in_place(texts: Path, tmp_path: Path, jobs: str) -> None:
    status, out, shown, _ = _paced_run(texts, tmp_path, ["-j", jobs])
    assert status == 0
    plain = run_cli("--no-config", texts / "ref", "-i", texts / "hyp", "-j", jobs)
    assert out == plain.stdout and plain.returncode == 0
    assert "\n" not in shown, "a terminal gets one line, redrawn"
    assert shown.startswith(CLEAR) and shown.endswith(CLEAR)
    drawn = [part for part in shown.split(CLEAR) if part]
    assert drawn, "no progress line drawn"
    for part in drawn:
        match = _PROGRESS.fullmatch(part)
        assert match, part
        assert match["percent"] is not None and match["left"] is not None, part
    if jobs != "1":
        return  # workers may still be starting when the pause comes
    # The pause: a line is drawn for the first segment after it.
    paused = [m for m in map(_PROGRESS.fullmatch, drawn) if m and _count(m) == PAUSE_AFTER + 1]
    assert paused, drawn
    assert 0 < float(paused[0]["percent"]) < 100


def _count(match: re.Match[str]) -> int:
    return int(match["segments"].replace(",", ""))


def test_plain_progress_line_on_a_pipe(texts: Path, tmp_path: Path) -> None:
    """Not a terminal: a plain line once LOG_INTERVAL seconds have passed,
    nothing redrawn.  The input pauses for longer after 150 lines, so the
    151st gives a line however fast the machine reads; other lines may come
    on a slow machine, so their number is not asserted."""
    fifo = tmp_path / "ref.fifo"
    os.mkfifo(fifo)
    refs = (texts / "ref").read_bytes().splitlines(keepends=True)[:300]
    hyps = (texts / "hyp").read_bytes().splitlines(keepends=True)[:300]
    (tmp_path / "hyp").write_bytes(b"".join(hyps))
    with open(tmp_path / "hyp", "rb") as stdin:  # stdin a regular file: percent known
        proc = subprocess.Popen(
            [*COMMAND, "--no-config", "--progress", fifo],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
        )
    try:
        _feed_fifo(fifo, refs, {150: progress.LOG_INTERVAL + 0.3})
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0
    (tmp_path / "ref").write_bytes(b"".join(refs))
    plain = run_cli("--no-config", "ref", cwd=tmp_path, input=b"".join(hyps))
    assert plain.returncode == 0 and out == plain.stdout
    lines = err.decode().splitlines()
    assert all(line.startswith("bleustream: progress: ") for line in lines), lines
    assert all(CLEAR not in line for line in lines)
    (line,) = [line for line in lines if line.startswith("bleustream: progress: 151 segments, ")]
    match = _PROGRESS.search(line)
    assert match and 0 < float(match["percent"]) < 100 and match["left"] is not None


def test_progress_interval_from_the_environment(texts: Path, tmp_path: Path) -> None:
    """BLEUSTREAM_PROGRESS_INTERVAL=0: a plain line for every segment, each
    with the running score (SacreBLEU's of the lines so far)."""
    refs = (texts / "ref").read_text(encoding="utf-8").splitlines()[:300]
    hyps = (texts / "hyp").read_text(encoding="utf-8").splitlines()[:300]
    (tmp_path / "ref").write_text("".join(f"{r}\n" for r in refs), encoding="utf-8")
    (tmp_path / "hyp").write_text("".join(f"{h}\n" for h in hyps), encoding="utf-8")
    env = {**os.environ, progress.INTERVAL_VAR: "0"}
    args = [*COMMAND, "--no-config", "--progress", "ref", "-i", "hyp"]
    done = subprocess.run(args, capture_output=True, cwd=tmp_path, env=env, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    plain = run_cli("--no-config", "ref", "-i", "hyp", cwd=tmp_path)
    assert done.stdout == plain.stdout
    lines = done.stderr.decode().splitlines()
    assert len(lines) == len(hyps)
    assert lines[0].startswith("bleustream: progress: 1 segment, ")
    matches = [_PROGRESS.search(line) for line in lines[1:]]
    assert [_count(m) for m in matches if m] == list(range(2, len(hyps) + 1))
    for n in (2, 150, 300):
        expected = BLEU().corpus_score(hyps[:n], [refs[:n]]).score
        assert matches[n - 2] is not None and matches[n - 2]["score"] == f"{expected:.2f}"


@pytest.mark.parametrize("value", ["-1", "soon", "nan", "inf"])
def test_a_bad_progress_interval_is_a_usage_error(texts: Path, value: str) -> None:
    env = {**os.environ, progress.INTERVAL_VAR: value}
    args = [*COMMAND, "--no-config", "--progress", texts / "ref", "-i", texts / "hyp"]
    done = subprocess.run(args, capture_output=True, env=env, timeout=TIMEOUT)
    assert (done.returncode, done.stdout) == (2, b"")
    message = f"bleustream: BLEUSTREAM_PROGRESS_INTERVAL: {value!r} is not a number of seconds"
    assert done.stderr.decode().startswith(message)


def test_progress_leaves_stdout_alone_with_every_format(texts: Path) -> None:
    args = ("--no-config", "-sl", "--every", "500", "-f", "tsv", texts / "ref", "-i", texts / "hyp")
    with_progress, without = run_cli(*args, "--progress"), run_cli(*args)
    assert with_progress.returncode == without.returncode == 0
    assert with_progress.stdout == without.stdout
    assert all(
        line.startswith("bleustream: progress: ")
        for line in with_progress.stderr.decode().splitlines()
    )


# ----------------------------------------------------------------------------
# Messages while a line is drawn
# ----------------------------------------------------------------------------


def _messages_start_clean(shown: str) -> list[str]:
    """Messages that do not start a line of their own on the terminal."""
    bad = []
    for line in shown.split("\n"):
        if "bleustream: " in line:
            visible = line.split(CLEAR)[-1] if CLEAR in line else line
            if not visible.startswith("bleustream: "):
                bad.append(line)
    return bad


def test_interrupted_message_starts_its_own_line(texts: Path, tmp_path: Path) -> None:
    with _signal_mask_kept():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # for the child to inherit
        _interrupt_on_terminal(texts, tmp_path)


def _interrupt_on_terminal(texts: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "ref.fifo"
    os.mkfifo(fifo)
    refs = (texts / "ref").read_bytes().splitlines(keepends=True)
    terminal = Terminal()
    proc = _start_on_terminal(["--progress", fifo, "-i", texts / "hyp"], tmp_path, terminal)
    hold = threading.Event()
    try:
        # Input pauses after PAUSE_AFTER lines, then one more line draws the
        # progress line, and the input stops there (the FIFO stays open).
        _feed_fifo(fifo, refs[: PAUSE_AFTER + 1], {PAUSE_AFTER: TTY_PAUSE}, hold)
        terminal.read(TIMEOUT, until=f"{PAUSE_AFTER + 1:,} segments".encode())
        proc.send_signal(signal.SIGINT)
        terminal.read(TIMEOUT)
        assert proc.wait(timeout=TIMEOUT) == 130
    finally:
        hold.set()
        proc.kill()
        proc.wait()
        terminal.close()
    assert "bleustream: interrupted" in terminal.text
    assert _messages_start_clean(terminal.text) == []


def test_skipped_line_message_starts_its_own_line(texts: Path, tmp_path: Path) -> None:
    hyps = (texts / "hyp").read_bytes().split(b"\n")
    hyps[PAUSE_AFTER + 100] = b"\xff" + hyps[PAUSE_AFTER + 100]
    (tmp_path / "bad.hyp").write_bytes(b"\n".join(hyps))
    status, _, shown, _ = _paced_run(
        texts, tmp_path, ["--skip-bad-lines"], hyp=str(tmp_path / "bad.hyp")
    )
    assert status == 0
    assert f"bad.hyp:{PAUSE_AFTER + 101}: invalid UTF-8" in shown
    assert _messages_start_clean(shown) == []
