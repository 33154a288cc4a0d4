"""What the Python API's arguments must be: hypotheses a sequence of
strings, references a sequence of reference streams (``refs[j][i]`` is
reference ``j`` of segment ``i``), as SacreBLEU takes them.  Misuse is a
``TypeError`` or ``ValueError`` whose message says what was expected, in
SacreBLEU's words where SacreBLEU has some."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def nrefs_of(counts: set[Any], streams: int) -> int | str:
    """The number of references per segment, ``var`` when it varies."""
    if len(counts) == 1:
        return next(iter(counts))
    return "var" if counts else streams


def is_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def check_references(prefix: str, references: Any, segments: int) -> None:
    """That ``references`` are reference streams, one per reference, each as
    long as the hypotheses; a TypeError or ValueError that says so if not."""
    if not is_sequence(references):
        raise TypeError(
            f"{prefix}`refs` should be a sequence of reference streams "
            f"(refs[j][i] is reference j of segment i), not {type(references).__name__}"
        )
    for j, stream in enumerate(references):
        if not is_sequence(stream):
            raise TypeError(
                f"{prefix}Each element of `refs` should be a sequence of strings: a stream "
                f"of references, one per segment (for one reference per segment, pass "
                f"[refs]); element {j} is {type(stream).__name__}"
            )
        if len(stream) != segments:
            raise ValueError(
                f"{prefix}reference stream {j} has {len(stream)} segments, "
                f"the hypotheses {segments}"
            )


def check_hypotheses(prefix: str, hypotheses: Any) -> None:
    if not is_sequence(hypotheses):
        raise TypeError(
            f"{prefix}`hyps` should be a sequence of strings, not {type(hypotheses).__name__}"
        )
    for hyp in hypotheses:
        if not isinstance(hyp, str):
            if hyp is None:
                raise TypeError(f"{prefix}Undefined line in hypotheses stream!")
            raise TypeError(f"{prefix}Each element of `hyps` should be a string.")


def check_sentence(prefix: str, hypothesis: Any, references: Any) -> None:
    if not isinstance(hypothesis, str):
        raise TypeError(f"{prefix}The argument `hyp` should be a string.")
    # A list or tuple first: the ABC check costs more than a short sentence's
    # scoring arithmetic.
    if type(references) not in (list, tuple) and not is_sequence(references):
        raise TypeError(f"{prefix}The argument `refs` should be a sequence of strings.")
    for ref in references:
        if not isinstance(ref, str):
            raise TypeError(f"{prefix}Each element of `refs` should be a string.")
