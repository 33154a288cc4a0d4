"""SacreBLEU's refusals of streams of different lengths and of an empty
input, for ``--compat sacrebleu``.

SacreBLEU reads every stream whole before it scores, then checks each
system in turn: an empty one is refused as a test set with no sentence, one
whose number of lines is not every reference file's as streams of different
lengths (both status 1).  bleustream reads in lockstep and stops at the
first line where the streams part; to give SacreBLEU's words there, the
rest of each stream is counted (a regular file by opening it again, any
other stream by reading on).  Standard input never holds an empty system
for SacreBLEU (its first line, even an empty one, is one line), and its
lines left are read first, their fields checked as SacreBLEU checks them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from bleustream.errors import InputError, SacrebleuRefusal
from bleustream.inputs.items import check_fields_left
from bleustream.inputs.lines import STDIN_NAME, LineSource, open_source
from bleustream.inputs.options import ReadOptions

DIFFERENT_LENGTHS = "System and reference streams have different lengths."
# SacreBLEU names the test set it read (``None`` without ``-t``).
NO_SENTENCE = "Test set None contains no sentence"


def lengths_refusal(
    options: ReadOptions, sources: Sequence[LineSource], drain: bool = True
) -> SacrebleuRefusal:
    """SacreBLEU's refusal of the streams ``sources`` (the systems, then the
    reference files), found of different lengths.  ``drain``: whether a
    stream that is not a regular file may be read on (not while another
    thread reads it)."""
    nsys = len(options.inputs)
    systems, refs = sources[:nsys], sources[nsys : nsys + len(options.refs)]
    if systems and systems[0].name == STDIN_NAME:
        if drain and options.stdin_systems:
            check_fields_left(systems[0], options)
        return SacrebleuRefusal(DIFFERENT_LENGTHS)
    ref_lengths = {_length(source, options, drain) for source in refs}
    for source in systems:
        length = _length(source, options, drain)
        if length == 0:
            return SacrebleuRefusal(NO_SENTENCE)
        if ref_lengths != {length}:
            break
    return SacrebleuRefusal(DIFFERENT_LENGTHS)


def empty_refusal(options: ReadOptions) -> SacrebleuRefusal:
    """SacreBLEU's refusal of an input with no segment: an empty system
    file, or an empty standard input (one empty line to SacreBLEU, which
    then differs from the references' length; bleustream refuses it even
    against a reference of one line, where SacreBLEU scores that empty
    line)."""
    if options.inputs[0] == "-":
        return SacrebleuRefusal(DIFFERENT_LENGTHS)
    return SacrebleuRefusal(NO_SENTENCE)


def _length(source: LineSource, options: ReadOptions, drain: bool) -> int | None:
    """The number of lines of ``source``: a regular file's counted anew, any
    other stream's read on to its end; None where it cannot be known."""
    if source.name != STDIN_NAME and os.path.isfile(source.name):
        again = open_source(source.name, None, options.encoding, "replace")
        try:
            for _ in again:
                pass
            return again.line
        finally:
            again.close()
    if not drain:
        return None
    while True:
        try:
            next(source)
        except StopIteration:
            return source.line
        except InputError:
            continue
