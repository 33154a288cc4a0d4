"""What the Python API's arguments must be: hypotheses a sequence of
strings, references a sequence of reference streams (``refs[j][i]`` is
reference ``j`` of segment ``i``), as SacreBLEU takes them.  Misuse is a
``TypeError`` or ``ValueError`` whose message says what was expected, in
SacreBLEU's words where SacreBLEU has some.

A setting SacreBLEU refuses with another exception type (an unknown
tokenizer's ``KeyError``, an unknown smoothing method's ``AssertionError``,
a number of the wrong type's ``TypeError``) raises an exception of both
kinds here (``SettingKeyError``...): code that catches SacreBLEU's type
catches it, and so does code that catches bleustream's ``ValueError``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class SettingTypeError(ValueError, TypeError):
    """A setting of a type SacreBLEU's arithmetic refuses (its ``TypeError``)."""


class SettingKeyError(ValueError, KeyError):
    """A name SacreBLEU looks up and does not find (its ``KeyError``)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class SettingAssertionError(ValueError, AssertionError):
    """A setting SacreBLEU asserts (its ``AssertionError``)."""


class NoReferenceError(ValueError, TypeError, IndexError):
    """A segment without a reference: SacreBLEU's ``IndexError`` for a
    sentence's empty list, its ``TypeError`` where every one is None."""


def no_reference(prefix: str) -> NoReferenceError:
    return NoReferenceError(f"{prefix}a segment needs at least one reference (not None)")


def _whole(value: Any) -> bool:
    return isinstance(value, int)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float))


def check_bleu_settings(
    prefix: str, smooth_method: Any, tokenize: Any, max_ngram_order: Any, tokenizers: Any
) -> None:
    """BLEU's settings of a kind SacreBLEU refuses, with its exception types
    (the values it refuses and bleustream's core too are the core's
    ``ValueError``)."""
    if not isinstance(smooth_method, str) or smooth_method not in ("none", "floor", "add-k", "exp"):
        raise SettingAssertionError(
            f"{prefix}unknown smooth_method {smooth_method!r} "
            "(known: 'none', 'floor', 'add-k', 'exp')"
        )
    if not isinstance(tokenize, str) or tokenize not in tokenizers:
        raise SettingKeyError(
            f"{prefix}unknown tokenizer {tokenize!r} (known: {', '.join(sorted(tokenizers))})"
        )
    if not _whole(max_ngram_order):
        raise SettingTypeError(
            f"{prefix}max_ngram_order must be a whole number, not {max_ngram_order!r}"
        )


def check_chrf_settings(prefix: str, char_order: Any, word_order: Any, beta: Any) -> None:
    """chrF's settings of a type SacreBLEU's arithmetic refuses, with its ``TypeError``."""
    for name, value, good in (
        ("char_order", char_order, _whole),
        ("word_order", word_order, _whole),
        ("beta", beta, _number),
    ):
        if not good(value):
            raise SettingTypeError(f"{prefix}{name} must be a whole number, not {value!r}")


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
        if not isinstance(ref, str) and ref is not None:  # None: SacreBLEU skips it
            raise TypeError(f"{prefix}Each element of `refs` should be a string.")
