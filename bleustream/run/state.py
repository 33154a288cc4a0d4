"""What every loop of a run shares: its options, what it knows so far, and
how it writes.

``RunOptions`` holds a run's typed options, the input's among them as one
``ReadOptions`` (``reading``); ``State`` is what a loop knows so far, for
the records it writes; ``Output`` writes them.  The rest are the rules the
loops share: the message of an input with no segments, an interrupted
run's score marked or withheld, and a whole record written with SIGINT and
SIGTERM held back.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, Callable

from bleustream.errors import EXIT_OK, Interrupted, UsageError, count_of, signal_status
from bleustream.frozen import Factory, Fields, Frozen
from bleustream.inputs.items import Item, input_name
from bleustream.inputs.options import ReadOptions
from bleustream.metrics.registry import Spec
from bleustream.output.records import Context, Record

if TYPE_CHECKING:  # imported when a run needs them: most runs do not
    from bleustream.analysis.settings import AnalysisSettings
    from bleustream.inputs.stats_items import ReadBack
    from bleustream.significance.resampling import Resampling, SegmentStore

Report = Callable[[str], None]


class RunOptions(Frozen):
    """Everything a run needs to know, checked and typed: what to read
    (``reading``, which checks itself) and what to write."""

    specs: tuple[Spec, ...]
    reading: ReadOptions = Factory(ReadOptions)
    format: str = "text"
    width: int = 1
    score_only: bool = False
    every: int = 0
    allow_unpaired: bool = False
    jobs: int = 1  # worker processes counting segments
    test: Resampling | None = None  # confidence intervals or a paired test
    progress: bool = False  # progress lines on the progress stream
    short: bool = False  # SacreBLEU's short signatures in text
    # SacreBLEU's warning when 100 or more of a system's hypotheses end in " .".
    warn_tokenized: bool = False
    allow_empty: bool = False  # no segments: scores of 0, not an error
    self_bleu_column: int = 0  # Self-BLEU: the sentences are this field (0: whole lines)
    nist_docs: str | None = None  # NIST: the file of each line's document id
    confidence: bool = False  # -ci was given (alone, or with a paired test)
    sacrebleu_log: bool = False  # SacreBLEU's information lines on stderr
    # -d: a test set's parts, each its key and the numbers of its lines,
    # scored beside the whole ((): SacreBLEU's note that there are none).
    parts: tuple[tuple[str, frozenset[int]], ...] | None = None
    # --analyze: the analyses asked for, not scores (``run.analyze``), with
    # the page (--report FILE.html) rewritten every ``page_every`` segments.
    analysis: AnalysisSettings | None = None
    page: str | None = None
    page_every: int = 0

    def __post_init__(self) -> None:
        if self.systems_given is not None:
            self.check_systems(self.systems_given, "given")

    def with_reading(self, **changes: Any) -> RunOptions:
        """These options with the input's options ``changes`` made."""
        return self._replace(reading=self.reading._replace(**changes))

    @property
    def systems_given(self) -> int | None:
        """How many systems the options name, or None where the input says:
        statistics read back (their records name the systems) and stdin read
        with REF files (its tab-separated fields are the systems)."""
        reading = self.reading
        if reading.input_format == "stats" or self.stdin_splits:
            return None
        return max(len(reading.inputs), reading.systems)

    @property
    def stdin_splits(self) -> bool:
        """Whether stdin's tab-separated fields may be several systems: hypotheses
        from stdin read in lockstep with REF files, as SacreBLEU reads them."""
        reading = self.reading
        return (
            reading.input_format == "paste"
            and bool(reading.refs)
            and reading.inputs == ("-",)
            and reading.systems == 1
        )

    def check_systems(self, nsys: int, counted: str) -> None:
        """The one rule on the number of systems: a paired test and ``-f latex``
        need two or more.  *counted* says where *nsys* came from (``given``,
        ``stdin`` or ``stats``), so that the message says how to give more."""
        if nsys > 1:
            return
        paired = self.test is not None and self.test.paired
        if not paired and (self.format != "latex" or self.reading.compat):
            return  # SacreBLEU writes one system's lines for -f latex
        what = (
            "a paired test needs at least two systems"
            if paired
            else "-f latex writes a table of at least two systems"
        )
        hint = {
            "given": "give REF... -i BASELINE SYSTEM..., or paste input with --systems N",
            "stdin": "stdin has one (give them as tab-separated fields, "
            "or REF... -i BASELINE SYSTEM...)",
            "stats": "these statistics are of one (write several systems' with -sl -f stats, "
            "or give one file per system with -i)",
        }[counted]
        raise UsageError(f"{what}: {hint}")


class Output:
    """Writes whole records to a binary stream, flushing each one."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def write(self, text: str) -> None:
        if text:
            # Text from a non-UTF-8 input can hold lone surrogates (UTF-7,
            # undecodable file names): they are written as escapes.
            self._stream.write(text.encode("utf-8", "backslashreplace"))
            self._stream.flush()


class State(Fields):
    """What the loop knows so far, for the records it writes."""

    options: RunOptions
    specs: tuple[Spec, ...]
    nrefs: int | str | None  # None until the first segment or statistics say
    systems: list[str | int | None]
    partial: bool = False  # this run was interrupted
    read: ReadBack | None = None  # statistics read back (what their records say)

    def context(self) -> Context:
        """The context of the records written from now on."""
        options, test = self.options, self.options.test
        signatures = [spec.signature(self.nrefs or 0) for spec in self.specs]
        if test is not None:
            from bleustream.significance.draws import with_test_fields

            signatures = [with_test_fields(s, test.signature_fields()) for s in signatures]
        return Context(
            specs=self.specs,
            signatures=tuple(signatures),
            width=options.width,
            score_only=options.score_only,
            named_systems=len(self.systems) > 1,
            test=test.kind if test is not None else None,
            short=options.short,
            compat=options.reading.compat,
            sentence_only=options.reading.sentence_level
            and (options.score_only or options.reading.compat),
        )

    def store(self) -> SegmentStore | None:
        """Where every segment's statistics are kept, when a test resamples them."""
        if self.options.test is None:
            return None
        from bleustream.significance.resampling import SegmentStore

        return SegmentStore(len(self.systems), len(self.specs))

    def is_empty(self, scored: int, skipped: int) -> bool:
        """Whether a run that was not interrupted scored no segment, and so has
        no score to print: an empty input, or every line skipped as bad where
        no corpus record would carry the mark (``-sl -b``, SacreBLEU's ``-sl``)."""
        if scored or self.partial:
            return False
        return not skipped or self.context().sentence_only

    def empty_message(self, skipped: int) -> str:
        """The one line that says the input had no segments to score."""
        where = input_name(self.options.reading)
        return empty_message(where, self.specs, self.options.allow_empty, skipped)


def systems_of(options: RunOptions) -> list[str | int | None]:
    """The systems of text input: [None] for one, else their files or paste fields."""
    reading = options.reading
    if reading.stdin_systems > 1:
        names = [f"System {i}" for i in range(1, reading.stdin_systems + 1)]
        if options.test is not None and options.test.paired:
            names = ["Baseline", *names[:-1]]  # SacreBLEU renumbers the others from 1
        return list(names)
    if len(reading.inputs) > 1:
        return list(reading.inputs)
    if reading.systems > 1:
        return list(range(1, reading.systems + 1))
    return [None]


def empty_message(where: str, specs: Sequence[Spec], allow_empty: bool, skipped: int = 0) -> str:
    """The one line that says the input (named ``where``) had no segments to
    score, ``skipped`` bad lines aside: with ``--allow-empty``, that the
    scores are 0; else how to have them so."""
    if skipped:
        where += f"; {count_of(skipped, 'bad line')} skipped"
    if allow_empty:
        names = " and ".join(spec.label for spec in specs)
        verb = "is" if len(specs) == 1 else "are"
        return f"no segments in the input ({where}); {names} {verb} 0 by definition"
    return f"no segments in the input ({where}); --allow-empty scores it as 0"


def segment_record(item: Item, scores: tuple[Any, ...], system: str | int | None) -> Record:
    """The record of one segment's scores (``-sl``)."""
    return Record(
        "segment", scores, 1, line=item.line, id=item.id, system=system, skipped=item.skipped
    )


def marked_or_withheld(
    say: Report,
    fmt: str,
    ctx: Context,
    text: str,
    finals: Sequence[Record],
    covered: int,
    noun: str = "segment",
    at_the_end: bool = False,
) -> str:
    """What standard output gets of an interrupted run's ``text`` (records
    scored from the ``covered`` segments read): the text, where the format
    marks it partial on every line with a score; else nothing, and the text
    goes to standard error, marked (``bleustream.output.partial``).

    ``at_the_end``: ``text`` holds segment records scored at the end from
    the tables of what was read (NIST, Self-BLEU), partial too."""
    from bleustream.output.partial import unmarkable_because, withheld_lines

    reason = unmarkable_because(fmt, ctx, len(finals) > 1, at_the_end)
    if reason is None:
        return text
    for line in withheld_lines(text, count_of(covered, noun), reason):
        say(line)
    return ""


def write_whole(stdout: BinaryIO, text: str, status: int) -> int:
    """Writes the records of a run scored at the end (NIST, Self-BLEU) in one
    piece; a signal meanwhile waits until they are out, then sets the status.
    (A signal while they are scored ends the run with none: see ``main``.)"""
    held = hold_signals()
    try:
        Output(stdout).write(text)
    finally:
        signum = release_signals(held)
    return status_after(status, signum)


def status_after(status: int, signum: int | None) -> int:
    """A run's exit status once a signal ``signum`` that waited (or None) is
    delivered: a run that ended well says it was interrupted."""
    if signum is not None and status == EXIT_OK:
        return signal_status(signum)
    return status


# ----------------------------------------------------------------------------
# SIGINT and SIGTERM held back while a whole record is written
# ----------------------------------------------------------------------------

_INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


class Held(Fields):
    """SIGINT and SIGTERM held back (``hold_signals``): what to restore."""

    mask: Any  # the caller's signal mask, or None
    handlers: dict[int, Any]  # the caller's handlers, replaced meanwhile
    noted: list[int]  # the signals that came meanwhile


def hold_signals() -> Held:
    """Holds SIGINT and SIGTERM back until ``release_signals``.

    Blocking them in this thread is not enough: the kernel gives a signal
    sent to the process to any thread that does not block it (numpy's,
    the pool's), and Python then runs the handler here all the same.  So
    in the main thread the handlers are replaced too, by one that notes
    the signal for ``release_signals`` to deliver."""
    noted: list[int] = []
    handlers: dict[int, Any] = {}
    # Every thread but the main one is made with ``threading``: where no
    # run has imported it, this is the main thread.
    threading = sys.modules.get("threading")
    if threading is None or threading.current_thread() is threading.main_thread():
        for signum in _INTERRUPTS:
            handler = signal.getsignal(signum)
            if callable(handler):
                handlers[signum] = handler
                signal.signal(signum, lambda got, frame: noted.append(got))
    mask = None
    if hasattr(signal, "pthread_sigmask"):
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(_INTERRUPTS))
    return Held(mask, handlers, noted)


def release_signals(held: Held) -> int | None:
    """Restores the caller's signal mask and handlers, then hands them a
    signal that waited; returns its number if their handler raised
    ``Interrupted`` (the command line's)."""
    try:
        if held.mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, held.mask)  # a pending one is noted
        for signum, handler in held.handlers.items():
            signal.signal(signum, handler)
        if held.noted:
            signal.raise_signal(held.noted[0])
    except Interrupted as exc:
        return exc.signum
    return None
