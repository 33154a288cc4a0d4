"""Signs that a ``bleustream`` process is ready for a signal, read from /proc.

A test that interrupts a run must not guess with a fixed sleep: on a loaded
machine the interpreter may still be starting, and a signal then lands in
its imports.  These wait for what the kernel says instead:

* the process has installed its own signal handlers: SIGTERM is caught
  (``SigCgt`` in ``/proc/PID/status``), which ``bleustream``'s entry point
  (``bleustream.cli.entry``) does first, before it loads the command line
  or opens any input;
* every thread of the process sleeps (state ``S``), having taken all that was
  written to its input pipe (``FIONREAD`` is 0): it waits for more input,
  blocked in a read, or in an ``open`` of a FIFO that has no writer yet;
* the process holds back SIGINT and SIGTERM and nothing else (``SigBlk``):
  it is scoring and writing its final records, which a signal must not cut
  short.

Linux only (``/proc``); the tests that use them say so.  ``read_line``
waits for the next line a process writes (a sign too), failing rather than
hanging when none comes; ``outcome`` reads a process's output to its end
and says what /proc shows of a process that has not ended in time.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import io
import os
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Callable

import pytest

HAS_PROC = sys.platform == "linux" and Path("/proc/self/task").is_dir()
POLL = 0.005  # seconds between looks at /proc: a polling interval, not a guess
TIMEOUT = 60.0


def _mask(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1], 16)
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def _has(mask: int, signum: int) -> bool:
    return bool(mask >> (signum - 1) & 1)


def handlers_installed(pid: int) -> bool:
    """Whether the process catches SIGTERM: bleustream's handlers are in place."""
    return _has(_mask(pid, "SigCgt"), signal.SIGTERM)


def interrupts_held(pid: int) -> bool:
    """Whether the process's main thread holds back SIGINT and SIGTERM, and
    only them (a library starting threads holds every signal for a moment)."""
    return _mask(pid, "SigBlk") == 1 << (signal.SIGINT - 1) | 1 << (signal.SIGTERM - 1)


def asleep(pid: int) -> bool:
    """Whether every thread of the process sleeps, waiting for something."""
    states = []
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the thread ended meanwhile
            continue
        states.append(text.rsplit(")", 1)[1].split()[0])
    return bool(states) and all(state == "S" for state in states)


def pipe_empty(pipe: IO[bytes] | None) -> bool:
    """Whether the reader has taken every byte written to ``pipe`` (our end)."""
    if pipe is None:
        return True
    waiting = array.array("i", [0])
    fcntl.ioctl(pipe.fileno(), termios.FIONREAD, waiting)
    return waiting[0] == 0


def wait_for(proc: subprocess.Popen[bytes], sign: Callable[[], bool], what: str) -> None:
    """Polls ``sign`` until it holds; fails if the process ends first."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        assert proc.poll() is None, f"bleustream ended (status {proc.returncode}) before {what}"
        try:
            if sign():
                return
        except FileNotFoundError:  # the process is ending: poll() says so next
            pass
        assert time.monotonic() < deadline, f"bleustream did not show {what} in {TIMEOUT} s"
        time.sleep(POLL)


def wait_until_waiting_for_input(proc: subprocess.Popen[bytes]) -> None:
    """Until the process has its handlers, has taken all of its stdin pipe
    (if the test writes one), and sleeps: it waits for more input."""
    wait_for(
        proc,
        lambda: handlers_installed(proc.pid) and pipe_empty(proc.stdin) and asleep(proc.pid),
        "it waits for input",
    )


def wait_until_writing_the_end(proc: subprocess.Popen[bytes]) -> None:
    """Until the process holds signals back to score and write its final records."""
    wait_for(proc, lambda: interrupts_held(proc.pid), "it scores its final records")


@pytest.fixture
def signals_unblocked() -> Iterator[None]:
    """SIGINT and SIGTERM unblocked in the test process, so that the processes
    it starts inherit them unblocked whatever ran in it before."""
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def read_line(stream: io.BufferedReader, timeout: float) -> bytes:
    """One line from a pipe, failing the test instead of hanging."""
    fd = stream.fileno()
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        assert left > 0, f"no complete record within {timeout} s (got {data!r})"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 1)
            assert chunk, f"output closed early (got {data!r})"
            data += chunk
    return data


def outcome(proc: subprocess.Popen[bytes], timeout: float) -> tuple[int, bytes, bytes]:
    """The status, stdout and stderr of a process once it ends.

    Both pipes are read as the process writes them, so that it can never
    wait for the test to read; a process still running after ``timeout``
    fails the test with what it wrote and what /proc shows of it."""
    streams = {s.fileno(): s for s in (proc.stdout, proc.stderr) if s is not None}
    got: dict[int, bytes] = {fd: b"" for fd in streams}
    deadline = time.monotonic() + timeout
    while streams:
        left = deadline - time.monotonic()
        ready = select.select(list(streams), [], [], left)[0] if left > 0 else []
        if not ready:
            raise AssertionError(_stuck(proc, got, timeout))
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            got[fd] += chunk
            if not chunk:
                del streams[fd]
    try:
        status = proc.wait(timeout=max(deadline - time.monotonic(), 0.001))
    except subprocess.TimeoutExpired:
        raise AssertionError(_stuck(proc, got, timeout)) from None
    out = got.get(proc.stdout.fileno(), b"") if proc.stdout is not None else b""
    err = got.get(proc.stderr.fileno(), b"") if proc.stderr is not None else b""
    return status, out, err


def _stuck(proc: subprocess.Popen[bytes], got: dict[int, bytes], timeout: float) -> str:
    """What a process that has not ended in time wrote, and what /proc says
    of each of its threads (state, where it sleeps, its signal masks)."""
    lines = [f"bleustream (pid {proc.pid}) has not ended within {timeout} s"]
    for fd, data in got.items():
        lines.append(f"fd {fd} wrote {len(data)} bytes, ending {data[-300:]!r}")
    for task in sorted(Path(f"/proc/{proc.pid}/task").glob("*")) if HAS_PROC else ():
        with contextlib.suppress(OSError):
            status = dict(line.split(":", 1) for line in (task / "status").read_text().splitlines())
            fields = ("Name", "State", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
            wchan = (task / "wchan").read_text()
            shown = " ".join(f"{f}={status.get(f, '?').strip()}" for f in fields)
            lines.append(f"thread {task.name}: {shown} wchan={wchan}")
    return "\n".join(lines)
