"""Pair hypotheses with references by id, in whatever order they come.

A log parser (see ``bleustream.inputs.logs``) turns lines into events: a
hypothesis with its id, references with their id, or an id whose line was
bad.  A pairing takes the events one at a time and gives back a
``Segment`` the moment both halves of an id are present; the pair is then
forgotten.  At the end of the input it tallies what could not be scored.

Two pairings exist:

* ``StreamPairing``: references come as events too (fairseq ``T-`` lines,
  a keyed reference stream).  Memory holds the ids waiting for their other
  half, plus a record of the ids already paired (``DoneIds``), which stays
  small while ids arrive roughly in order.
* ``FilePairing``: references are the lines of reference files, an id
  being a 0-based line number.  The files are read forward only as far as
  the largest id asked for so far, and only the lines read but not yet
  asked for are kept.  An id below the lines read and not kept was paired
  already, so no other record of paired ids is needed.

What cannot be scored is counted per kind (``Tally``): hypotheses without
a reference, references without a hypothesis, duplicate hypotheses and
references (the first of an id is kept), and ids beyond the end of the
reference files.  A line that was bad (and skipped by the bad-line policy)
but whose id is known takes its other half out silently: it is already
counted as a skipped line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Callable, NamedTuple, Union

from bleustream.errors import InputError, count_of
from bleustream.frozen import Factory, Fields
from bleustream.inputs.lines import LineSource, Segment

Key = Union[int, str]

MAX_LISTED = 10  # ids listed per kind of problem; the count covers the rest

_CANONICAL_INT = re.compile(r"0|[1-9][0-9]*")


def key_of(text: str) -> Key:
    """The key of a string id: an int when it is written as one (``7``, not ``07``)."""
    return int(text) if _CANONICAL_INT.fullmatch(text) else text


def _sort_key(key: Key) -> tuple[int, int, str]:
    return (0, key, "") if isinstance(key, int) else (1, 0, key)


# ----------------------------------------------------------------------------
# Events
# ----------------------------------------------------------------------------

HYP = "hyp"
REF = "ref"


class Event(NamedTuple):
    """One half of a segment (``refs`` for a reference), or a bad line's id.

    ``text`` is the hypothesis (``None`` for a bad line); ``refs`` the
    references (``None`` for a bad line).  ``label`` is the id as written,
    for the segment record.
    """

    side: str  # HYP or REF
    key: Key
    label: str
    text: str | None
    refs: list[str] | None
    line: int


# ----------------------------------------------------------------------------
# Tallies
# ----------------------------------------------------------------------------


class Tally(Fields):
    """How many hypotheses or references of one kind were left out, and the first ids."""

    singular: str  # "hypothesis without a reference"
    plural: str  # "hypotheses without a reference"
    source: str  # where they were read, for the message
    count: int = 0
    ids: list[str] = Factory(list)

    def add(self, key: Key) -> None:
        self.count += 1
        label = str(key)
        if len(self.ids) < MAX_LISTED and label not in self.ids:
            self.ids.append(label)

    def add_all(self, keys: Iterable[Key]) -> None:
        for key in keys:
            self.add(key)

    def message(self) -> str:
        """``<source>: 2 hypotheses without a reference: ids 17, 42``."""
        what = self.singular if self.count == 1 else self.plural
        ids = ", ".join(self.ids)
        if self.count > len(self.ids):
            ids += ", …"
        noun = "id" if self.count == 1 else "ids"
        return f"{self.source}: {self.count} {what}: {noun} {ids}"


class PairingReport(Fields):
    """What the end of the input left unscored, and notes on how to fix it."""

    tallies: list[Tally] = Factory(list)
    notes: list[str] = Factory(list)

    @property
    def left_out(self) -> int:
        """Hypotheses and references not scored: unpaired, duplicate or out of range."""
        return sum(t.count for t in self.tallies)

    def messages(self) -> list[str]:
        """One line per kind of problem, then the notes."""
        return [t.message() for t in self.tallies if t.count] + self.notes


def _hyp_tallies(hyp_source: str, ref_source: str) -> dict[str, Tally]:
    return {
        "hyp_unpaired": Tally(
            "hypothesis without a reference", "hypotheses without a reference", hyp_source
        ),
        "ref_unpaired": Tally(
            "reference without a hypothesis", "references without a hypothesis", ref_source
        ),
        "hyp_duplicate": Tally(
            "duplicate hypothesis (the first was kept)",
            "duplicate hypotheses (the first of each id was kept)",
            hyp_source,
        ),
        "ref_duplicate": Tally(
            "duplicate reference (the first was kept)",
            "duplicate references (the first of each id was kept)",
            ref_source,
        ),
    }


# ----------------------------------------------------------------------------
# Ids already paired
# ----------------------------------------------------------------------------


class DoneIds:
    """The ids already paired, in memory that stays small when ids come in order.

    Integer ids: every id below a low watermark is done; above it a bitmap
    (one bit per id) marks the done ones, and the watermark moves up past
    every run of done ids.  Memory is one bit per id between the watermark
    and the largest id done, at most ``MAX_BITS`` bits; ids further above
    go to a set.  Other (string) ids go to a set of their own, which grows
    with the number of ids.
    """

    MAX_BITS = 1 << 24  # a 2 MiB bitmap

    def __init__(self) -> None:
        self.low = 0
        self._bits = bytearray()
        self._far: set[int] = set()
        self._names: set[str] = set()

    def __contains__(self, key: Key) -> bool:
        if isinstance(key, str):
            return key in self._names
        offset = key - self.low
        if offset < 0:
            return True
        byte = offset >> 3
        if byte < len(self._bits) and self._bits[byte] >> (offset & 7) & 1:
            return True
        return bool(self._far) and key in self._far

    def add(self, key: Key) -> None:
        if isinstance(key, str):
            self._names.add(key)
            return
        offset = key - self.low
        if offset < 0:
            return
        if offset >= self.MAX_BITS:
            self._far.add(key)
            return
        byte = offset >> 3
        bits = self._bits
        if byte >= len(bits):
            bits.extend(bytes(byte + 1 - len(bits)))
        bits[byte] |= 1 << (offset & 7)
        if byte == 0 and bits[0] == 0xFF:
            full = 1
            while full < len(bits) and bits[full] == 0xFF:
                full += 1
            del bits[:full]
            self.low += 8 * full

    def memory(self) -> int:
        """Entries held: bitmap bytes plus set members (for tests)."""
        return len(self._bits) + len(self._far) + len(self._names)


# ----------------------------------------------------------------------------
# Pairings
# ----------------------------------------------------------------------------


class StreamPairing:
    """Pairs hypothesis and reference events that both come from streams."""

    def __init__(self, hyp_source: str, ref_source: str) -> None:
        self.hyps: dict[Key, tuple[str, str | None]] = {}  # key -> (label, text)
        self.refs: dict[Key, list[str] | None] = {}
        self.done = DoneIds()
        self._tally = _hyp_tallies(hyp_source, ref_source)

    def add(self, event: Event) -> Segment | None:
        key = event.key
        if event.side == HYP:
            if key in self.done or key in self.hyps:
                if event.text is not None:  # a bad line is counted as such already
                    self._tally["hyp_duplicate"].add(key)
                return None
            if key not in self.refs:
                self.hyps[key] = (event.label, event.text)
                return None
            refs = self.refs.pop(key)
            self.done.add(key)
            if refs is None or event.text is None:
                return None
            return Segment(event.text, refs, event.line, event.label)
        if key in self.done or key in self.refs:
            if event.refs is not None:
                self._tally["ref_duplicate"].add(key)
            return None
        if key not in self.hyps:
            self.refs[key] = event.refs
            return None
        label, text = self.hyps.pop(key)
        self.done.add(key)
        if text is None or event.refs is None:
            return None
        return Segment(text, event.refs, event.line, label)

    def waiting(self) -> int:
        """Ids waiting for their other half."""
        return len(self.hyps) + len(self.refs)

    def finish(self) -> PairingReport:
        tally = self._tally
        tally["hyp_unpaired"].add_all(
            sorted((k for k, (_, text) in self.hyps.items() if text is not None), key=_sort_key)
        )
        tally["ref_unpaired"].add_all(
            sorted((k for k, refs in self.refs.items() if refs is not None), key=_sort_key)
        )
        order = ("hyp_unpaired", "ref_unpaired", "hyp_duplicate", "ref_duplicate")
        return PairingReport([tally[k] for k in order])


class FilePairing:
    """Pairs hypothesis events with the lines of reference files, by 0-based line number."""

    def __init__(self, hyp_source: str, refs: list[LineSource]) -> None:
        self.sources = refs
        self.read = 0  # lines read from each reference file
        self.ended = False
        self.kept: dict[int, list[str] | None] = {}  # read, not yet asked for
        self._tally = _hyp_tallies(hyp_source, refs[0].name)
        self._outside = Tally(
            "hypothesis with an id beyond the reference files",
            "hypotheses with ids beyond the reference files",
            hyp_source,
        )

    def add(self, event: Event) -> Segment | None:
        if event.side != HYP or not isinstance(event.key, int):
            raise ValueError("a FilePairing takes hypotheses with integer ids")
        key = event.key
        if key >= self.read and not self.ended:
            self._read_to(key)
        if key >= self.read:
            if event.text is not None:
                self._outside.add(key)
            return None
        if key not in self.kept:
            if event.text is not None:
                self._tally["hyp_duplicate"].add(key)
            return None
        refs = self.kept.pop(key)
        if refs is None or event.text is None:
            return None
        return Segment(event.text, refs, event.line, event.label)

    def waiting(self) -> int:
        return len(self.kept)

    def _next_lines(self) -> list[str | None] | None:
        """The next line of every reference file, or None at their common end."""
        texts: list[str | None] = []
        ended: list[LineSource] = []
        for source in self.sources:
            try:
                texts.append(next(source))
            except StopIteration:
                ended.append(source)
        if not ended:
            return texts
        if len(ended) == len(self.sources):
            self.ended = True
            return None
        short = ended[0]
        longer = next(s for s in self.sources if s not in ended)
        raise InputError(
            f"reference file ended after line {short.line}, but {longer.name} "
            f"has a line {longer.line}",
            short.name,
        )

    def _read_to(self, key: int) -> None:
        while self.read <= key:
            texts = self._next_lines()
            if texts is None:
                return
            if None in texts:
                self.kept[self.read] = None
            else:
                self.kept[self.read] = [t.rstrip() for t in texts if t is not None]
            self.read += 1

    def finish(self) -> PairingReport:
        """Reads the reference files to their end, counting the lines no hypothesis asked for."""
        unpaired = self._tally["ref_unpaired"]
        unpaired.add_all(sorted(k for k, refs in self.kept.items() if refs is not None))
        self.kept.clear()
        while not self.ended:
            texts = self._next_lines()
            if texts is None:
                break
            if None not in texts:
                unpaired.add(self.read)
            self.read += 1
        tally = self._tally
        if self._outside.count:
            self._outside.plural += f" ({count_of(self.read, 'line')})"
            self._outside.singular += f" ({count_of(self.read, 'line')})"
        order = ("hyp_unpaired", "ref_unpaired", "hyp_duplicate")
        return PairingReport([*(tally[k] for k in order), self._outside])


Pairing = Union[StreamPairing, FilePairing]


class PairedSegments(Iterator[Segment]):
    """The segments a pairing makes of a stream of events.

    After the events end, ``report`` holds what was left out (and
    ``notes()``, if given, adds hints computed from the whole input).
    """

    def __init__(
        self,
        events: Iterator[Event],
        pairing: Pairing,
        notes: Callable[[], list[str]] | None = None,
    ) -> None:
        self._events = events
        self.pairing = pairing
        self._notes = notes
        self.report: PairingReport | None = None

    def __iter__(self) -> PairedSegments:
        return self

    def __next__(self) -> Segment:
        if self.report is not None:
            raise StopIteration
        add = self.pairing.add
        for event in self._events:
            segment = add(event)
            if segment is not None:
                return segment
        report = self.pairing.finish()
        if self._notes is not None:
            report.notes.extend(self._notes())
        self.report = report
        raise StopIteration
