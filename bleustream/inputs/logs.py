"""Read translation-system logs as they are written: fairseq, n-best lists, keyed lines.

Each reader turns the lines of a log into ``pairing.Event``s (a hypothesis
or references with their id); ``log_segments`` pairs them up by id with a
``pairing`` class and yields a ``Segment`` as soon as both halves of an id
are present.

``--input-format``:

* ``fairseq``: fairseq-generate or fairseq-interactive output.  The
  hypothesis of id N is the first ``D-N<TAB>score<TAB>text`` line of its
  block (``H-`` with ``--fairseq-hyp H``); later ones in the same block are
  the rest of an n-best list.  A block is a run of lines tagged with the
  same id; an ``S-`` line always starts a new one.  References are the
  ``T-N<TAB>text`` lines, or, when reference files are given, line N of
  them (the ``T-`` lines are then ignored).  All other lines are skipped.
* ``nbest``: Moses or Marian n-best lists, ``N ||| text ||| features |||
  score`` or ``N ||| text``.  The first entry of a run of the same id is the
  hypothesis; its text is the field between the first two ``|||``, without
  the white space around it.  References are line N of the reference files.
* ``keyed``: ``id<TAB>text`` lines (the text is the rest of the line).
  References are line ``id`` of the reference files, or the lines
  ``id<TAB>ref1[<TAB>ref2...]`` of a keyed reference stream, read in turn
  with the hypotheses.

Texts have their trailing white space stripped, as everywhere.  A line of a
known kind that cannot be read (no score field, an id that is not a whole
number where one is needed) goes to the bad-line policy; if its id is
known, its other half is dropped with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Callable

from bleustream.errors import InputError, UsageError
from bleustream.inputs.formats import (  # noqa: F401 (the formats, and their rules)
    FAIRSEQ_HYPS,
    INPUT_FORMATS,
    LOG_FORMATS,
    check_usage,
)
from bleustream.inputs.lines import LineSource
from bleustream.inputs.pairing import (
    HYP,
    REF,
    Event,
    FilePairing,
    PairedSegments,
    StreamPairing,
    key_of,
)

OnBad = Callable[[InputError], None]

_TAGGED = re.compile(r"([A-Z])-([0-9]*)")


class _Reader:
    """Reports bad lines of one source through the policy."""

    def __init__(self, source: LineSource, on_bad: OnBad) -> None:
        self.source = source
        self.on_bad = on_bad

    def bad(self, message: str) -> None:
        self.on_bad(InputError(message, self.source.name, self.source.line))

    def line_number(self, id_text: str, what: str) -> int | None:
        """The id as a line number, or None after reporting a bad line."""
        if id_text.isdigit() and id_text.isascii():
            return int(id_text)
        self.bad(f"{what}: the id {id_text!r} is not a whole number")
        return None


# ----------------------------------------------------------------------------
# fairseq
# ----------------------------------------------------------------------------


class FairseqReader(_Reader):
    """Events from fairseq-generate or fairseq-interactive output."""

    def __init__(
        self, source: LineSource, on_bad: OnBad, hyp_tag: str = "D", refs_in_log: bool = True
    ) -> None:
        super().__init__(source, on_bad)
        self.hyp_tag = hyp_tag
        self.other_tag = "H" if hyp_tag == "D" else "D"
        self.refs_in_log = refs_in_log
        self.hyps = 0  # hypothesis lines taken
        self.refs = 0  # T- lines taken
        self.others = 0  # lines of the other hypothesis tag

    def __iter__(self) -> Iterator[Event]:
        source, hyp_tag, other_tag = self.source, self.hyp_tag, self.other_tag
        block: str | None = None  # the id of the block of lines being read
        taken = False  # its hypothesis was taken (later ones are its n-best list)
        for text in source:
            if text is None:
                continue
            tagged = _TAGGED.match(text)
            if tagged is None:
                continue
            tag, digits = tagged.groups()
            if tag == "S" or digits != block:
                block, taken = digits, False
            if tag == hyp_tag:
                if taken:
                    continue
                taken = True
                self.hyps += 1
                event = self._hyp(text)
            elif tag == "T" and self.refs_in_log:
                self.refs += 1
                event = self._ref(text)
            else:
                if tag == other_tag:
                    self.others += 1
                continue
            if event is not None:
                yield event

    def _hyp(self, text: str) -> Event | None:
        tag = self.hyp_tag
        head, _, rest = text.partition("\t")
        key = self.line_number(head[2:], f"{tag}- line")
        if key is None:
            return None
        score, tab, hyp = rest.partition("\t")
        try:
            float(score)
        except ValueError:
            # Also a line without a score: "D-7<TAB>text"
            self.bad(f"expected {tag}-<id><TAB><score><TAB><text>, found no score")
            return Event(HYP, key, str(key), None, None, self.source.line)
        # Without the second tab, the text was empty and its tab stripped.
        return Event(HYP, key, str(key), hyp.rstrip() if tab else "", None, self.source.line)

    def _ref(self, text: str) -> Event | None:
        head, _, ref = text.partition("\t")
        key = self.line_number(head[2:], "T- line")
        if key is None:
            return None
        return Event(REF, key, str(key), None, [ref.rstrip()], self.source.line)

    def notes(self) -> list[str]:
        """Hints for a log that gave nothing to pair."""
        name = self.source.name
        notes = []
        if self.hyps == 0 and self.others:
            notes.append(
                f"{name}: the log has no {self.hyp_tag}- lines but has {self.others} "
                f"{self.other_tag}- lines; score those with --fairseq-hyp {self.other_tag}"
            )
        if self.refs_in_log and self.refs == 0 and self.hyps:
            notes.append(
                f"{name}: the log has no T- lines (fairseq-interactive writes none); "
                "give the reference files as operands"
            )
        return notes


# ----------------------------------------------------------------------------
# n-best lists
# ----------------------------------------------------------------------------


class NbestReader(_Reader):
    """Events from Moses or Marian n-best lists: the first entry of each id."""

    def __iter__(self) -> Iterator[Event]:
        source = self.source
        last: str | None = None
        for text in source:
            if text is None:
                continue
            fields = text.split("|||", 2)
            if len(fields) < 2:
                self.bad("expected id ||| hypothesis [||| features ||| score], found no |||")
                continue
            id_text = fields[0].strip()
            if id_text == last:
                continue  # the rest of the id's n-best list
            last = id_text
            key = self.line_number(id_text, "n-best entry")
            if key is not None:
                yield Event(HYP, key, str(key), fields[1].strip(), None, source.line)


# ----------------------------------------------------------------------------
# keyed lines
# ----------------------------------------------------------------------------


class KeyedReader(_Reader):
    """Events from ``id<TAB>text`` lines: hypotheses, or references (``id<TAB>ref...``)."""

    def __init__(self, source: LineSource, on_bad: OnBad, side: str, numbered: bool) -> None:
        super().__init__(source, on_bad)
        self.side = side
        self.numbered = numbered  # ids are line numbers of reference files
        self.nfields = 0  # reference lines: fields on the first good line

    def __iter__(self) -> Iterator[Event]:
        source = self.source
        for text in source:
            if text is None:
                continue
            if "\t" not in text:
                self.bad("expected id<TAB>text, found no tab")
                continue
            if self.side == HYP:
                id_text, _, hyp = text.partition("\t")
                fields = [hyp]
            else:
                id_text, *fields = text.split("\t")
            id_text = id_text.strip()
            if not id_text:
                self.bad("the id before the tab is empty")
                continue
            if self.numbered:
                number = self.line_number(id_text, "keyed line")
                if number is None:
                    continue
                key: int | str = number
            else:
                key = key_of(id_text)
            texts: list[str] | None = [f.rstrip() for f in fields]
            if self.side == REF:
                if self.nfields == 0:
                    self.nfields = len(fields)
                elif len(fields) != self.nfields:
                    self.bad(
                        f"expected {self.nfields} reference fields after the id as on the "
                        f"first line, found {len(fields)}"
                    )
                    texts = None
                yield Event(REF, key, id_text, None, texts, source.line)
            else:
                yield Event(HYP, key, id_text, fields[0].rstrip(), None, source.line)


def alternate(first: Iterator[Event], second: Iterator[Event]) -> Iterator[Event]:
    """Events from two streams, one from each in turn; when one ends, the rest of the other."""
    streams = [first, second]
    while streams:
        for stream in list(streams):
            try:
                yield next(stream)
            except StopIteration:
                streams.remove(stream)


# ----------------------------------------------------------------------------
# Putting it together
# ----------------------------------------------------------------------------


def log_segments(
    input_format: str,
    hyps: LineSource,
    refs: list[LineSource],
    on_bad: OnBad,
    fairseq_hyp: str = "D",
    keyed_refs: LineSource | None = None,
) -> PairedSegments:
    """The segments of a log; after the last, ``.report`` holds what was left out."""
    if input_format == "fairseq":
        fairseq = FairseqReader(hyps, on_bad, fairseq_hyp, refs_in_log=not refs)
        if refs:
            return PairedSegments(iter(fairseq), FilePairing(hyps.name, refs), fairseq.notes)
        return PairedSegments(iter(fairseq), StreamPairing(hyps.name, hyps.name), fairseq.notes)
    if input_format == "nbest":
        if not refs:
            raise UsageError("--input-format nbest needs reference files")
        return PairedSegments(iter(NbestReader(hyps, on_bad)), FilePairing(hyps.name, refs))
    if input_format == "keyed":
        if refs:
            events = iter(KeyedReader(hyps, on_bad, HYP, numbered=True))
            return PairedSegments(events, FilePairing(hyps.name, refs))
        if keyed_refs is None:
            raise UsageError("--input-format keyed needs REF files or --keyed-refs")
        events = alternate(
            iter(KeyedReader(hyps, on_bad, HYP, numbered=False)),
            iter(KeyedReader(keyed_refs, on_bad, REF, numbered=False)),
        )
        return PairedSegments(events, StreamPairing(hyps.name, keyed_refs.name))
    raise ValueError(f"not a log format: {input_format!r}")
