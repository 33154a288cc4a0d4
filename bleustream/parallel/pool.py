"""Scoring on several cores: segments counted by worker processes, in order.

Counting a segment (tokenizing, counting n-grams, TER's edit distance) is
a pure function of its text, and it is where the time goes.  With ``jobs``
workers, a reader thread reads and pairs the input as the single-process
run does, batches of segments go to a pool of worker processes, and their
rows come back and are yielded in input order, so that every record, and
every error with its location, is what one process writes.

When a run needs only sums and its inputs are regular files, the workers
read the text themselves: ``ParallelCounter.mapped`` sends them blocks of
lines (``bleustream.parallel.blocks``), and what each block adds up to comes back,
in input order.

Liveness: a batch is sent when it is full or when the input has paused for
a moment (``LINGER`` seconds), and finished batches are yielded as soon as
they are done, so a record still follows the line that completes it by
well under a second.  A worker that dies is an error (``WorkerError``),
never a silently smaller corpus.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, NamedTuple, TypeVar

from bleustream.errors import BleustreamError, InputError, Interrupted, WorkerError
from bleustream.metrics.counting import Rows, SegmentCounter, Summed, sum_rows
from bleustream.metrics.registry import Spec, loop_of

BATCH = 256  # segments per batch sent to a worker
LINGER = 0.05  # seconds a partial batch waits for more input
IN_FLIGHT = 3  # batches per worker sent ahead
READ_AHEAD = 2  # batches read ahead of those sent

T = TypeVar("T")
R = TypeVar("R")


def available_cores() -> int:
    """The cores this process may run on (``-j 0``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# ----------------------------------------------------------------------------
# The workers
# ----------------------------------------------------------------------------

_worker_scorer: SegmentCounter | None = None


def start_method() -> str:
    """How worker processes start: ``fork`` where that is safe, else
    ``forkserver``, else ``spawn``.

    A forked worker is ready in milliseconds; the first worker of a fork
    server waits for a new interpreter to start and import bleustream, a
    fifth of a second, which is most of what ``-j 2`` costs on a short
    input.  Forking is safe while this process runs a single thread, since
    no other thread can then hold a lock that the child would inherit held
    (the reader thread starts after the workers).  Linux only: elsewhere,
    system libraries do not promise to work in a child forked without exec.
    """
    methods = multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux") and "fork" in methods and _single_threaded():
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def _single_threaded() -> bool:
    """Whether this process runs one thread (counting those Python did not start)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT and SIGTERM blocked in this thread, and in the processes and
    threads it starts meanwhile; one that comes is delivered after."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _init_worker(specs: tuple[Spec, ...], systems: int) -> None:
    # The parent alone answers SIGINT and SIGTERM (with the partial score);
    # a Ctrl-C sent to the whole process group must not kill the workers
    # mid-batch first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # held while the parent started this worker
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPTS)
    global _worker_scorer
    # A corpus-wide metric (NIST) is counted by its own block function.
    if loop_of(specs) == "stream":
        _worker_scorer = SegmentCounter(specs, systems)


def worker_scorer() -> SegmentCounter:
    """The scorer of this worker process (for work sent with ``ParallelCounter.mapped``)."""
    assert _worker_scorer is not None, "not in a worker process"
    return _worker_scorer


def process_counter(specs: tuple[Spec, ...], systems: int) -> SegmentCounter:
    """This process's counter for the settings, made on first use and kept:
    a worker that another pool (a distributed engine's) started counts its
    tasks with it, as a worker of ``-j`` does with ``worker_scorer``."""
    global _worker_scorer
    found = _worker_scorer
    if found is None or found.specs != specs or found.systems != systems:
        found = _worker_scorer = SegmentCounter(specs, systems)
    return found


def _count_batch(
    batch: list[tuple[tuple[str, ...], Sequence[str]]], summed: bool = False
) -> list[Rows | InputError] | Summed:
    """The rows of each segment of a batch.

    A segment whose text cannot be scored ends the batch with its error in
    its place, so that the parent reports it at that segment, after the
    records of the ones before it, as one process would.
    """
    scorer = worker_scorer()
    if summed and batch:
        try:
            return scorer.summed([hyps for hyps, _ in batch], [refs for _, refs in batch])
        except InputError:
            pass  # found again below, at its segment
    out: list[Rows | InputError] = []
    for hyps, refs in batch:
        try:
            out.append(scorer.count(hyps, refs))
        except InputError as exc:
            out.append(exc)
            break
    if summed and out and not isinstance(out[-1], InputError):
        return sum_rows(out, scorer.systems, len(batch[0][1]))  # type: ignore[arg-type]
    return out


# ----------------------------------------------------------------------------
# The reader thread
# ----------------------------------------------------------------------------


class _Feeder(threading.Thread):
    """Reads items on a thread of its own, into a queue the main thread takes from.

    The queue holds at most ``capacity`` items: the reader waits for room
    rather than running ahead of the workers, so that memory stays flat
    however large the input, and the progress shown follows the scoring.
    """

    def __init__(self, items: Iterator[Any], capacity: int) -> None:
        super().__init__(name="bleustream-reader", daemon=True)
        self._items = items
        self._capacity = capacity
        self._cond = threading.Condition()
        self._pending: deque[Any] = deque()
        self.finished = False
        self.error: BaseException | None = None
        # When the run ends early (an error, a signal, a dead worker), this
        # thread may be blocked in a read of standard input, holding the
        # lock of sys.stdin's buffer.  If the interpreter then finalized
        # sys.stdin, closing it would need that lock, and CPython aborts
        # ("could not acquire lock ... at interpreter shutdown"): a core
        # dump instead of the documented exit status.  The thread keeps
        # the standard input objects alive, so they are never finalized.
        self._standard_input = (sys.stdin, sys.__stdin__)

    def run(self) -> None:
        try:
            for item in self._items:
                with self._cond:
                    while len(self._pending) >= self._capacity:
                        self._cond.wait()
                    self._pending.append(item)
                    if len(self._pending) >= BATCH:
                        self._cond.notify_all()
        except BaseException as exc:  # handed to the main thread, in order
            with self._cond:
                self.error = exc
        finally:
            with self._cond:
                self.finished = True
                self._cond.notify_all()

    def take(self, timeout: float) -> tuple[list[Any], bool]:
        """Up to a batch of what has been read (waiting up to ``timeout`` for
        a full batch), and whether the reading is over and all of it taken."""
        # Not ``with self._cond``: a signal's handler raises ``Interrupted``
        # in this thread, and raised inside ``wait`` (between its release and
        # its re-acquiring of the lock) it leaves the lock released, so that
        # ``with`` would fail releasing it again and a RuntimeError would
        # replace the interrupt.  The lock is released only if still held.
        cond = self._cond
        cond.acquire()
        try:
            if len(self._pending) < BATCH and not self.finished:
                cond.wait(timeout)
            pending = self._pending
            batch = [pending.popleft() for _ in range(min(BATCH, len(pending)))]
            cond.notify_all()  # room for the reader
            return batch, self.finished and not pending
        finally:
            if cond._is_owned():  # type: ignore[attr-defined]
                cond.release()


class _Slot(NamedTuple):
    items: list[Any]
    future: Future[list[Rows]] | None  # None: nothing to count (statistics read back)


@contextlib.contextmanager
def _no_sigpipe() -> Iterator[None]:
    """SIGPIPE blocked in this thread, and in the threads it starts meanwhile.

    The command line lets SIGPIPE end the process, so that a closed output
    pipe ends it quietly.  But the pool's own threads write to the pipes of
    the workers: when a worker dies, such a write would kill the process
    without a word, instead of the pool reporting the death.  The pool's
    threads are started by its first ``submit``, inheriting this thread's
    signal mask; a SIGPIPE this thread itself drew meanwhile is discarded.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPIPE})
    try:
        yield
    finally:
        if signal.SIGPIPE in signal.sigpending():
            signal.sigtimedwait({signal.SIGPIPE}, 0)
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _died(exc: BaseException) -> WorkerError:
    return WorkerError(
        f"a worker process died ({exc or 'killed'}); no score is printed, since it "
        "would leave out the segments that worker held"
    )


class ParallelCounter:
    """Counts items on ``jobs`` worker processes; yields (item, rows) in order."""

    def __init__(
        self, specs: tuple[Spec, ...], systems: int, jobs: int, summed: bool = False
    ) -> None:
        """``summed``: the run needs only sums, so workers add each batch up
        (see ``Summed``) and each batch comes back as one pair."""
        self.jobs = jobs
        self.summed = summed
        self._executor = ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context(start_method()),
            initializer=_init_worker,
            initargs=(specs, systems),
        )
        self._feeder: _Feeder | None = None
        self._broken = False
        # The first task starts every worker: now, before the reader thread
        # exists, and with SIGINT and SIGTERM held back until each worker
        # has set its own handlers (a forked worker starts with the parent's).
        with _interrupts_held():
            self._send(os.getpid)

    @property
    def reading(self) -> bool:
        """Whether the reader thread is still inside the input."""
        return self._feeder is not None and self._feeder.is_alive()

    def scored(
        self, items: Iterator[Any]
    ) -> Iterator[tuple[Any, Rows | InputError | Summed | None]]:
        """Each item with its rows (None for an item that carries its own).

        An item whose text could not be scored comes with its ``InputError``
        in place of rows; the caller raises it.  With ``summed``, a whole
        batch comes as its first item with a ``Summed``.
        """
        feeder = self._feeder = _Feeder(items, READ_AHEAD * BATCH)
        feeder.start()
        slots: deque[_Slot] = deque()
        limit = IN_FLIGHT * self.jobs
        finished = False
        try:
            while not finished or slots:
                if not finished and len(slots) < limit:
                    batch, finished = feeder.take(LINGER)
                    if batch:
                        slots.append(self._submit(batch))
                while slots and (
                    slots[0].future is None
                    or slots[0].future.done()
                    or len(slots) >= limit
                    or finished
                ):
                    yield from self._results(self._next_done(slots))
        except Interrupted:
            # The partial score covers every item read: the batches sent,
            # then what the reader thread holds (it may be in a read still).
            while slots:
                yield from self._results(self._next_done(slots))
            batch, _ = feeder.take(0)
            while batch:
                yield from self._results(self._submit(batch))
                batch, _ = feeder.take(0)
            raise
        if feeder.error is not None:
            raise feeder.error

    def _next_done(self, slots: deque[_Slot]) -> _Slot:
        """The first slot, once its rows are back: a signal while waiting
        leaves it in ``slots``, to be counted after all."""
        if slots[0].future is not None:
            self._result(slots[0].future)
        return slots.popleft()

    def call(self, function: Callable[..., R], *args: Any) -> R:
        """``function(*args)`` run on a worker (``function`` is sent by name)."""
        return self._result(self._send(function, *args))

    def mapped(self, function: Callable[[T], R], tasks: Iterator[T]) -> Iterator[tuple[T, R]]:
        """Each task with ``function`` of it, run on the workers, in the order of the tasks.

        ``function`` is a module's function (it is sent by name); in the
        worker, ``worker_scorer()`` is the scorer.  Up to ``IN_FLIGHT`` tasks
        per worker are sent ahead.  An error or a signal taking the next
        task is raised after the results of the tasks before it.
        """
        pending: deque[tuple[T, Future[R]]] = deque()
        limit = IN_FLIGHT * self.jobs

        def first_done() -> tuple[T, R]:
            # A signal while waiting leaves the task in ``pending``: counted after all.
            result = self._result(pending[0][1])
            return pending.popleft()[0], result

        try:
            while True:
                task = next(tasks, None)
                if task is None:
                    break
                if len(pending) >= limit:
                    yield first_done()
                pending.append((task, self._send(function, task)))
        except (BleustreamError, Interrupted):
            while pending:
                yield first_done()
            raise
        while pending:
            yield first_done()

    def _submit(self, batch: list[Any]) -> _Slot:
        work = [(item.hyps, item.refs) for item in batch if item.rows is None]
        if not work:
            return _Slot(batch, None)
        return _Slot(batch, self._send(_count_batch, work, self.summed))

    def _send(self, function: Callable[..., R], *args: Any) -> Future[R]:
        try:
            with _no_sigpipe():
                return self._executor.submit(function, *args)
        except BrokenProcessPool as exc:
            self._broken = True
            raise _died(exc) from None

    def _result(self, future: Future[R]) -> R:
        try:
            return future.result()
        except BrokenProcessPool as exc:
            self._broken = True
            raise _died(exc) from None

    def _results(self, slot: _Slot) -> Iterator[tuple[Any, Rows | InputError | Summed | None]]:
        if slot.future is None:
            for item in slot.items:
                yield item, None
            return
        result = self._result(slot.future)
        if isinstance(result, Summed) and len(slot.items) == result.segments:
            yield slot.items[0], result
            return
        counted = iter(result)
        for item in slot.items:
            if item.rows is not None:
                yield item, None
                continue
            rows = next(counted)
            yield item, rows
            if isinstance(rows, InputError):
                return

    def close(self) -> None:
        # The pool's manager thread closes its wake-up pipe as it winds down,
        # and on Python 3.11 and older concurrent.futures' exit hook can write
        # to that pipe as it closes (an EBADF traceback after the last line
        # of output: after a worker died, or after SIGTERM while the reader
        # thread was still in the input).  Wait for the thread here, which
        # ends once it has shut the workers down: the exit hook would wait
        # for it all the same, but after the race.
        self._executor.shutdown(wait=True, cancel_futures=True)
